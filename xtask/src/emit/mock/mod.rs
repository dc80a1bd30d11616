//! The mock library's export layer, `crates/nvml-mock/src/generated/`. Each kind of code is a
//! directory with one file per area of the header (see `rules/areas.rs`) and a `mod.rs`:
//! - `api/`: the `Api` trait, made of one trait per area (`DeviceQueriesApi`...), one method
//!   per function of the header with its C signature; a getter answered from a profile's
//!   values calls its answer by default, every other default reports the call as
//!   unimplemented and answers `NOT_SUPPORTED`;
//! - `dispatch/`: the engine's impl of each area's trait, the functions it implements by hand
//!   (`gen-config/mock.yaml`) each calling the function of its engine module;
//! - `tables/` and `answers/` ([`answers`]): the schema the mock checks profiles against,
//!   and the getters answered from a profile's values;
//! - `exports/`: one `#[no_mangle] extern "C"` function per symbol (legacy names included),
//!   which hands the call, with the object it is called on, to the engine (or the hostile
//!   library) through its `api_entry` guard;
//! - `hostile/` ([`hostile`]): the hostile mode's impl of each area's trait;
//! - `names.rs`, and `history.rs` ([`emit_history`]): the driver that introduced each function
//!   and each record version newer than the oldest published header, from
//!   `gen-config/function-history.yaml`, so a profile with an older driver answers
//!   `NVML_ERROR_FUNCTION_NOT_FOUND` for the function and `NVML_ERROR_ARGUMENT_VERSION_MISMATCH`
//!   for the record version.

pub mod answers;
pub mod capture;
pub mod hostile;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use anyhow::Result;
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::text::{self, Lay};
use super::{c_ty, ident, ret_ty, ByArea, Output, Uses};
use crate::diag::Diagnostics;
use crate::history::DriverTable;
use crate::model::{ConstValue, Function, Ty};
use crate::plan::Plan;
use crate::rules::areas::Area;
use crate::rules::names::camel;
use crate::rules::Bindings;

pub const DIR: &str = "crates/nvml-mock/src/generated";

/// Why `answers/mod.rs` and `capture/mod.rs` allow unused re-exports.
const FLAT: super::Allow = (
    "unused_imports",
    "Each area's items are re-exported for the other areas' `use super::*`; not every area's are used by another.",
);

/// Writes the mock's generated files into `out` (but those of [`emit_exports`]); the getters
/// it cannot answer from data are notes in `d`.
pub fn emit(b: &Bindings, plan: &Plan, out: &mut Output, d: &mut Diagnostics) -> Result<()> {
    let m = &b.model;
    let dir = PathBuf::from(DIR);
    out.dirs.push(dir.clone());
    let params = ("clippy::too_many_arguments", "A function takes its C parameters, as many as nvml.h gives.");
    let mut api = api(b, plan);
    api.allows =
        vec![params, ("unused_variables", "A default method takes every C parameter; most answer without them.")];
    api.write(out, m, &dir.join("api"), api_prelude, api_modules(b))?;
    let mut dispatch = dispatch(b, plan);
    dispatch.allows = vec![params];
    dispatch.write(out, m, &dir.join("dispatch"), dispatch_prelude, TokenStream::new())?;
    let mut answers = answers::answers(b, plan);
    answers.allows = [answers::ALLOWS, &[FLAT]].concat();
    answers.write(out, m, &dir.join("answers"), answers::prelude, TokenStream::new())?;
    let (mut tables, facts) = answers::tables(b, plan);
    tables.allows =
        vec![("clippy::unnecessary_cast", "The version constants are `c_uint` or `c_int`, by the header's spelling.")];
    tables.write(out, m, &dir.join("tables"), answers::tables_prelude, facts)?;
    for (f, why) in answers::data_functions_and_why_not(b, plan).1 {
        d.note(f, format!("not answered from a profile's values: {why}"));
    }
    Ok(())
}

/// The rest of the mock's generated files, after [`emit`] (a job of its own): `exports/`,
/// `capture/` and `names.rs`; the functions capture does not record are notes in `d`.
pub fn emit_exports(b: &Bindings, plan: &Plan, out: &mut Output, d: &mut Diagnostics) -> Result<()> {
    let m = &b.model;
    let dir = PathBuf::from(DIR);
    let mut exports = exports(b, plan);
    // The exports are symbols for the linker: nothing in Rust names them.
    exports.private = true;
    exports.write(out, m, &dir.join("exports"), exports_prelude, TokenStream::new())?;
    let (mut readers, readers_table) = capture::readers(b, plan, d);
    readers.allows = [capture::ALLOWS, &[FLAT]].concat();
    readers.write(out, m, &dir.join("capture"), capture::prelude, readers_table)?;
    let what = "Names of nvml.h's integer constants and functions, for profiles and fault specs.";
    let allows: &[super::Allow] = &[(
        "non_upper_case_globals, dead_code",
        "Each function's id is named as the function; the engine reads those it implements.",
    )];
    out.add_text(m, dir.join("names.rs"), what, allows, names(b))
}

/// The area of every function, and its trait: `device_queries` → `DeviceQueriesApi`.
pub(super) fn area_of(b: &Bindings, f: &Function) -> (Area, proc_macro2::Ident) {
    let area = b.area(&f.name, f.line);
    let t = format_ident!("{}Api", camel(&area.module));
    (area, t)
}

/// Every area's trait, for the whole `Api`.
fn area_traits(b: &Bindings) -> BTreeSet<proc_macro2::Ident> {
    b.model.functions.values().map(|f| area_of(b, f).1).collect()
}

/// Groups items by area and wraps each area's in `wrap(trait, items)`.
pub(super) fn by_area_trait(
    b: &Bindings,
    items: impl Iterator<Item = (Area, proc_macro2::Ident, TokenStream)>,
    wrap: impl Fn(&proc_macro2::Ident, &[TokenStream]) -> TokenStream,
) -> ByArea {
    let mut groups: BTreeMap<(Area, proc_macro2::Ident), Vec<TokenStream>> = BTreeMap::new();
    for f in b.model.functions.values() {
        groups.entry(area_of(b, f)).or_default();
    }
    for (area, t, item) in items {
        groups.entry((area, t)).or_default().push(item);
    }
    let mut out = ByArea::default();
    for ((area, t), items) in groups {
        out.push(area, wrap(&t, &items));
    }
    out
}

/// `history.rs`: the [`DriverTable`] regen read for this header.
pub fn emit_history(b: &Bindings, table: &DriverTable, out: &mut Output) -> Result<()> {
    let path = PathBuf::from(DIR).join("history.rs");
    let what = "The driver that introduced each function and record version newer than the oldest published nvml.h, and the branch of each toolkit.";
    out.add_rust(&b.model, path, what, history(table))
}

fn history(t: &DriverTable) -> TokenStream {
    let rows = t.introduced.iter().map(|i| {
        let (f, h, d) = (i.function.as_str(), i.header.as_str(), Literal::u32_unsuffixed(i.min_driver));
        let first = i.first_driver.as_deref().unwrap_or("");
        quote!((#f, #h, #d, #first))
    });
    let count = Literal::usize_unsuffixed(t.introduced.len());
    let (newest, next) = (t.newest_branch, t.newest_branch + 1);
    let mut doc = vec![
        " `(symbol, first header that declares it, lowest driver major version that has it, first".to_string(),
        " driver version that shipped the header or \"\" where unknown)` for".to_string(),
        " every function first declared after the oldest published header, sorted by name; every".to_string(),
    ];
    if newest == 0 {
        doc.push(" other function is in every driver. There was no function history: the table is empty.".to_string());
    } else {
        doc.push(" other function is in every driver. A function of a toolkit newer than the history's".to_string());
        doc.push(format!(" branch table has {next}: any driver after {newest}."));
    }
    let branches = t.branches.iter().map(|(tk, b)| {
        let b = Literal::u32_unsuffixed(*b);
        quote!((#tk, #b))
    });
    let branch_count = Literal::usize_unsuffixed(t.branches.len());
    let versions = t.record_versions.iter().map(|i| {
        let (c, h, d) = (i.function.as_str(), i.header.as_str(), Literal::u32_unsuffixed(i.min_driver));
        let first = i.first_driver.as_deref().unwrap_or("");
        quote!((#c, #h, #d, #first))
    });
    let version_count = Literal::usize_unsuffixed(t.record_versions.len());
    quote! {
        #(#[doc = #doc])*
        pub static INTRODUCED: [(&str, &str, u32, &str); #count] = [#(#rows),*];
        /// `(CUDA toolkit, driver branch that shipped its nvml.h)`, oldest first: the branches
        /// of the published headers whose driver is known, the drivers the mock can emulate.
        pub static BRANCHES: [(&str, u32); #branch_count] = [#(#branches),*];
        /// `(struct version constant, first header that declares it, lowest driver major
        /// version that has it, first driver version that shipped the header or "" where
        /// unknown)` for every record version (`nvmlPlatformInfo_v2`) first declared after the
        /// oldest published header, sorted by name, read like `INTRODUCED`: a driver older than
        /// a version answers `NVML_ERROR_ARGUMENT_VERSION_MISMATCH` to it; every other version
        /// is known to every driver.
        pub static RECORD_VERSIONS: [(&str, &str, u32, &str); #version_count] = [#(#versions),*];
    }
}

/// Every enum constant and integer `#define`, sorted by name, so profiles can say
/// `NVML_ERROR_GPU_IS_LOST` or `NVML_FI_DEV_POWER_INSTANT` instead of numbers: `names.rs`,
/// laid out as text ([`super::text`]), since its tables are literals.
fn names(b: &Bindings) -> String {
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
    let rows = all.iter().map(|(n, v)| Lay::Tuple(vec![Lay::str(n), Lay::int(v)]));
    let mut out = String::new();
    text::doc(&mut out, 0, "`(name, value)` of every integer constant of nvml.h, sorted by name.");
    let head = format!("pub static CONSTANTS: [(&str, i128); {}usize]", all.len());
    text::item(&mut out, &head, &Lay::List("[", rows.collect()));
    text::doc(
        &mut out,
        0,
        "Every function of nvml.h (legacy symbols included), sorted by name: a function's\n\
         id is its index here.",
    );
    let functions = b.model.functions.keys().map(|f| Lay::str(f));
    let head = format!("pub static FUNCTIONS: [&str; {}usize]", b.model.functions.len());
    text::item(&mut out, &head, &Lay::List("[", functions.collect()));
    text::doc(
        &mut out,
        0,
        "Each function's id (its index in [`FUNCTIONS`]), which the exports hand the engine\n\
         with each call: the index of the function's row in the tables the engine resolves\n\
         a profile into.",
    );
    out.push_str("pub mod id {\n");
    for (i, f) in b.model.functions.keys().enumerate() {
        out.push_str(&format!("    pub const {}: usize = {i};\n", ident(f)));
    }
    out.push_str("}\n");
    out
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

fn api(b: &Bindings, plan: &Plan) -> ByArea {
    let data = answers::data_function_names(b, plan);
    let methods = b.model.functions.values().map(|f| {
        let (name, s) = (ident(&f.name), f.name.as_str());
        let (decls, names) = params(f);
        let ret = ret_ty(&f.ret);
        let body = if data.contains(&f.name) {
            quote!(super::super::answers::#name(self, #(#names),*))
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
        let (area, t) = area_of(b, f);
        (
            area,
            t,
            quote! {
                #[doc = #doc]
                fn #name(&self, #(#decls),*) #ret { #body }
            },
        )
    });
    by_area_trait(b, methods, |t, methods| {
        quote! {
            /// The functions of this area of nvml.h, as methods of the mock's engine: part of
            /// [`Api`](super::Api).
            pub trait #t: Answer {
                #(#methods)*
            }
        }
    })
}

fn api_prelude(uses: &Uses, _: bool) -> TokenStream {
    let c = uses.c_types();
    let sys = uses.glob(quote!(nvml_sys), uses.nvml_sys());
    let answer = uses.import(quote!(super::super::super::answer), &["Answer"]);
    quote! {
        #c
        #sys
        #answer
    }
}

/// `api/mod.rs`: the whole `Api`, every area's trait, implemented by whatever implements them all.
fn api_modules(b: &Bindings) -> TokenStream {
    let traits: Vec<proc_macro2::Ident> = area_traits(b).into_iter().collect();
    quote! {
        use super::super::answer::Answer;

        /// The functions of nvml.h as methods of the mock's engine, one trait per area of the
        /// header. Pointer arguments come straight from the C caller; implementations check them
        /// before use.
        ///
        /// A getter whose outputs are values, records, strings or lists answers from the
        /// profile by default (`answers/`), unless the engine implements it by hand
        /// (`dispatch/`); every other default answers `unimplemented`.
        pub trait Api: Answer #(+ #traits)* {}

        impl<T: Answer #(+ #traits)* + ?Sized> Api for T {}
    }
}

/// The engine's impl of each area's trait: each function of `gen-config/mock.yaml` calls the
/// function of the same name in its engine module, with the C parameters after the engine.
fn dispatch(b: &Bindings, plan: &Plan) -> ByArea {
    let recordable = answers::recordable_hand_written(b, plan);
    let methods = b.hand_written.iter().filter_map(|(f, module)| {
        let f = b.model.functions.get(f)?;
        let (name, m) = (ident(&f.name), ident(module));
        let (decls, names) = params(f);
        let ret = ret_ty(&f.ret);
        let (area, t) = area_of(b, f);
        let body = if recordable.contains(&f.name) {
            // A value the profile records (a capture of a real GPU) answers before the behaviour.
            let object = answers::object_of(f);
            let selectors = selector_args(b, plan, f);
            quote! {
                if self.recorded(id::#name, #object, &[#(#selectors),*]) {
                    return super::super::answers::#name(self, #(#names),*);
                }
                engine::#m::#name(self, #(#names),*)
            }
        } else {
            quote!(engine::#m::#name(self, #(#names),*))
        };
        let doc = format!(" `{}`: `engine/{module}.rs`.", f.name);
        Some((
            area,
            t,
            quote! {
                #[doc = #doc]
                fn #name(&self, #(#decls),*) #ret { #body }
            },
        ))
    });
    by_area_trait(b, methods, |t, methods| {
        quote! {
            impl #t for Engine {
                #(#methods)*
            }
        }
    })
}

fn dispatch_prelude(uses: &Uses, _: bool) -> TokenStream {
    let c = uses.c_types();
    let sys = uses.glob(quote!(nvml_sys), uses.nvml_sys());
    let object = uses.import(quote!(super::super::super::answer), &["Object"]);
    let engine = match uses.names("engine") {
        true => quote!(
            use super::super::super::engine::{self, Engine};
        ),
        false => quote!(
            use super::super::super::engine::Engine;
        ),
    };
    let id = uses.import(quote!(super::super::names), &["id"]);
    quote! {
        #c
        #sys
        use super::super::api::*;
        #object
        #engine
        #id
    }
}

/// The values of `f`'s call that select an answer, as `i64`s: its inputs by value and the input
/// fields of its in/out records ([`answers::selector_exprs`]).
fn selector_args(b: &Bindings, plan: &Plan, f: &Function) -> Vec<TokenStream> {
    answers::selector_exprs(b, plan, f)
}

/// The value a non-status function returns when it is not implemented or fails.
pub(super) fn fallback(ret: &Ty) -> TokenStream {
    match ret {
        Ty::Pointer { .. } => quote!(core::ptr::null()),
        Ty::Void => quote!(()),
        _ => quote!(Default::default()),
    }
}

fn exports(b: &Bindings, plan: &Plan) -> ByArea {
    let mut out = ByArea::default();
    for f in b.model.functions.values() {
        let (name, s) = (ident(&f.name), f.name.as_str());
        let (decls, names) = params(f);
        let ret = ret_ty(&f.ret);
        let body = if returns_status(f) {
            let object = answers::object_of(f);
            // The inputs by value that select an answer, and the versioned record the call
            // passes: what the engine checks before the function runs.
            let selectors = selector_args(b, plan, f);
            let record = match answers::versioned_param(b, f) {
                Some((i, _)) => {
                    let p = ident(&f.params[i].name);
                    quote!(#p as *const c_uint)
                }
                None => quote!(core::ptr::null()),
            };
            quote!(api_entry(Call { id: id::#name, name: #s, object: #object, selectors: &[#(#selectors),*], record: #record }, |e| e.#name(#(#names),*)))
        } else {
            let fallback = fallback(&f.ret);
            quote!(plain_entry(#s, #fallback, |e| e.#name(#(#names),*)))
        };
        out.push(
            area_of(b, f).0,
            quote! {
                #[no_mangle]
                pub unsafe extern "C" fn #name(#(#decls),*) #ret { #body }
            },
        );
    }
    out
}

fn exports_prelude(uses: &Uses, _: bool) -> TokenStream {
    let c = uses.c_types();
    let sys = uses.glob(quote!(nvml_sys), uses.nvml_sys());
    let answer = uses.import(quote!(super::super::super::answer), &["Call", "Object"]);
    let engine = uses.import(quote!(super::super::super::engine), &["api_entry", "plain_entry"]);
    let id = uses.import(quote!(super::super::names), &["id"]);
    quote! {
        #c
        #sys
        #answer
        #engine
        #id
    }
}
