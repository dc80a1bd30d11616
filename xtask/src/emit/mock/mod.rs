//! The mock library's export layer, `crates/nvml-mock/src/generated/`:
//! - `api.rs`: the `Api` trait, one method per function of the header with its C signature;
//!   a getter answered from a profile's values calls its answer by default, every other
//!   default reports the call as unimplemented and answers `NOT_SUPPORTED`;
//! - `dispatch.rs`: `impl Api for Engine`, the functions the engine implements by hand
//!   (`gen-config/mock.yaml`), each calling the function of its engine module;
//! - `tables.rs` and `answers.rs` ([`answers`]): the schema the mock checks
//!   profiles against, and the getters answered from a profile's values;
//! - `exports.rs`: one `#[no_mangle] extern "C"` function per symbol (legacy names included),
//!   which hands the call, with the object it is called on, to the engine (or the hostile
//!   library) through its `api_entry` guard;
//! - `history.rs` ([`emit_history`]): the driver branch that introduced each function newer
//!   than the oldest published header, from `gen-config/function-history.yaml`, so a profile
//!   with an older driver answers `NVML_ERROR_FUNCTION_NOT_FOUND` for it.

pub mod answers;
pub mod hostile;

use std::path::PathBuf;

use anyhow::Result;
use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::{banner, c_ty, format_file, ident, ret_ty, GeneratedFile, Output};
use crate::history::DriverTable;
use crate::model::{ConstValue, Function, Ty};
use crate::plan::Plan;
use crate::rules::Bindings;

pub const DIR: &str = "crates/nvml-mock/src/generated";

pub fn emit(b: &Bindings, plan: &Plan, out: &mut Output) -> Result<()> {
    let m = &b.model;
    let dir = PathBuf::from(DIR);
    out.dirs.push(dir.clone());
    let files: [(&str, &str, TokenStream); 6] = [
        ("api.rs", "The mock's engine interface: one method per function of nvml.h.", api(b, plan)),
        (
            "dispatch.rs",
            "The functions the mock's engine implements by hand (gen-config/mock.yaml), dispatched to it.",
            dispatch(b),
        ),
        (
            "tables.rs",
            "The schema of the functions the mock answers from a profile's values, and per-function facts.",
            answers::tables(b, plan),
        ),
        (
            "answers.rs",
            "The functions the mock answers from a profile's values, and their schema.",
            answers::answers(b, plan),
        ),
        ("names.rs", "Names of nvml.h's integer constants and functions, for profiles and fault specs.", names(b)),
        ("exports.rs", "Every symbol of nvml.h, exported with its C signature.", exports(b)),
    ];
    for (name, what, tokens) in files {
        let path = dir.join(name);
        let contents = format_file(&banner(m, what), tokens, &path.display().to_string())?;
        out.files.push(GeneratedFile { path, contents });
    }
    Ok(())
}

/// `history.rs`: the [`DriverTable`] regen read for this header.
pub fn emit_history(b: &Bindings, table: &DriverTable, out: &mut Output) -> Result<()> {
    let path = PathBuf::from(DIR).join("history.rs");
    let what = "The driver branch that introduced each function newer than the oldest published nvml.h.";
    let contents = format_file(&banner(&b.model, what), history(table), &path.display().to_string())?;
    out.files.push(GeneratedFile { path, contents });
    Ok(())
}

fn history(t: &DriverTable) -> TokenStream {
    let rows = t.introduced.iter().map(|i| {
        let (f, h, d) = (i.function.as_str(), i.header.as_str(), Literal::u32_unsuffixed(i.min_driver));
        quote!((#f, #h, #d))
    });
    let count = Literal::usize_unsuffixed(t.introduced.len());
    let (newest, next) = (t.newest_branch, t.newest_branch + 1);
    let mut doc = vec![
        " `(symbol, first header that declares it, lowest driver major version that has it)` for".to_string(),
        " every function first declared after the oldest published header, sorted by name; every".to_string(),
    ];
    if newest == 0 {
        doc.push(" other function is in every driver. There was no function history: the table is empty.".to_string());
    } else {
        doc.push(" other function is in every driver. A function of a toolkit newer than the history's".to_string());
        doc.push(format!(" branch table has {next}: any driver after {newest}."));
    }
    quote! {
        #(#[doc = #doc])*
        pub static INTRODUCED: [(&str, &str, u32); #count] = [#(#rows),*];
    }
}

/// Every enum constant and integer `#define`, sorted by name, so profiles can say
/// `NVML_ERROR_GPU_IS_LOST` or `NVML_FI_DEV_POWER_INSTANT` instead of numbers.
fn names(b: &Bindings) -> TokenStream {
    let mut all: std::collections::BTreeMap<&str, i128> = std::collections::BTreeMap::new();
    for e in b.model.enums.values() {
        for k in &e.constants {
            all.insert(&k.name, k.value.as_i128());
        }
    }
    for c in b.model.constants.values() {
        if let ConstValue::Int { value, .. } = c.value {
            all.insert(&c.name, value.as_i128());
        }
    }
    let rows = all.iter().map(|(n, v)| {
        let abs = proc_macro2::Literal::u128_unsuffixed(v.unsigned_abs());
        if *v < 0 {
            quote!((#n, -#abs))
        } else {
            quote!((#n, #abs))
        }
    });
    let count = all.len();
    let functions: Vec<&str> = b.model.functions.keys().map(String::as_str).collect();
    let fn_count = functions.len();
    quote! {
        /// `(name, value)` of every integer constant of nvml.h, sorted by name.
        pub static CONSTANTS: [(&str, i128); #count] = [#(#rows),*];

        /// Every function of nvml.h (legacy symbols included), sorted by name.
        pub static FUNCTIONS: [&str; #fn_count] = [#(#functions),*];
    }
}

pub(super) fn returns_status(f: &Function) -> bool {
    f.ret == Ty::Named("nvmlReturn_t".into())
}

pub(super) fn params(f: &Function) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let decls = f
        .params
        .iter()
        .map(|p| {
            let (n, t) = (ident(&p.name), c_ty(&p.ty));
            quote!(#n: #t)
        })
        .collect();
    let names = f
        .params
        .iter()
        .map(|p| {
            let n = ident(&p.name);
            quote!(#n)
        })
        .collect();
    (decls, names)
}

fn api(b: &Bindings, plan: &Plan) -> TokenStream {
    let data = answers::data_function_names(b, plan);
    let methods = b.model.functions.values().map(|f| {
        let (name, s) = (ident(&f.name), f.name.as_str());
        let (decls, names) = params(f);
        let ret = ret_ty(&f.ret);
        let body = if data.contains(&f.name) {
            quote!(super::answers::#name(self, #(#names),*))
        } else if returns_status(f) {
            quote!(self.unimplemented(#s))
        } else {
            let fallback = fallback(&f.ret);
            quote!({ self.unimplemented(#s); #fallback })
        };
        let legacy = if f.legacy { " (legacy symbol)" } else { "" };
        let doc = match b.hand_written.get(&f.name) {
            Some(module) => format!(" `{s}`{legacy}: implemented by hand, in `engine/{module}.rs`."),
            None => format!(" `{s}`{legacy}."),
        };
        quote! {
            #[doc = #doc]
            fn #name(&self, #(#decls),*) #ret { #body }
        }
    });
    quote! {
        use core::ffi::*;
        use nvml_sys::*;
        use super::super::answer::Answer;

        /// The functions of nvml.h as methods of the mock's engine. Pointer arguments come
        /// straight from the C caller; implementations check them before use.
        ///
        /// A getter whose outputs are values, records, strings or lists answers from the
        /// profile by default (`answers.rs`), unless the engine implements it by hand
        /// (`dispatch.rs`); every other default answers `unimplemented`.
        #[allow(unused_variables, clippy::too_many_arguments)]
        pub trait Api: Answer {
            #(#methods)*
        }
    }
}

/// `impl Api for Engine`: each function of `gen-config/mock.yaml` calls the function of the
/// same name in its engine module, with the C parameters after the engine.
fn dispatch(b: &Bindings) -> TokenStream {
    let modules: std::collections::BTreeSet<String> = b.hand_written.values().cloned().collect();
    let modules = modules.iter().map(|m| ident(m));
    let methods = b.hand_written.iter().filter_map(|(f, module)| {
        let f = b.model.functions.get(f)?;
        let (name, m) = (ident(&f.name), ident(module));
        let (decls, names) = params(f);
        let ret = ret_ty(&f.ret);
        let doc = format!(" `{}`: `engine/{module}.rs`.", f.name);
        Some(quote! {
            #[doc = #doc]
            fn #name(&self, #(#decls),*) #ret { #m::#name(self, #(#names),*) }
        })
    });
    quote! {
        use core::ffi::*;
        use nvml_sys::*;
        use super::api::Api;
        use super::super::engine::Engine;
        use super::super::engine::{#(#modules),*};

        #[allow(clippy::too_many_arguments)]
        impl Api for Engine {
            #(#methods)*
        }
    }
}

/// The value a non-status function returns when it is not implemented or fails.
pub(super) fn fallback(ret: &Ty) -> TokenStream {
    match ret {
        Ty::Pointer { .. } => quote!(core::ptr::null()),
        Ty::Void => quote!(()),
        _ => quote!(Default::default()),
    }
}

fn exports(b: &Bindings) -> TokenStream {
    let fns = b.model.functions.values().map(|f| {
        let (name, s) = (ident(&f.name), f.name.as_str());
        let (decls, names) = params(f);
        let ret = ret_ty(&f.ret);
        let body = if returns_status(f) {
            let object = answers::object_of(f);
            quote!(api_entry(#s, #object, |e| e.#name(#(#names),*)))
        } else {
            let fallback = fallback(&f.ret);
            quote!(plain_entry(#s, #fallback, |e| e.#name(#(#names),*)))
        };
        quote! {
            #[no_mangle]
            pub unsafe extern "C" fn #name(#(#decls),*) #ret { #body }
        }
    });
    quote! {
        use core::ffi::*;
        use nvml_sys::*;
        use super::super::answer::Object;
        use super::super::engine::{api_entry, plain_entry};

        #(#fns)*
    }
}
