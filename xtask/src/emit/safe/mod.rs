//! The safe crate, `crates/nvml/src/generated/`:
//! - `error.rs`: the `Error` enum, a variant per `nvmlReturn_t` value;
//! - `handles.rs`: the handle types, declared through the core's `handles!` macro;
//! - `exercise.rs` (tests only): a call of every generated method;
//! - one file per area of the header (its Doxygen groups, see `rules/areas.rs`), holding that
//!   area's types (an open newtype per enum, a bitflags type per `bitflags` rule, a Rust struct
//!   per plain record with conversions from and to the raw layout) and the methods
//!   ([`Method`](crate::plan::Method)) that call its functions; `mod.rs` re-exports them flat.
//!
//! Generated code reaches the hand-written core only through `crate::` items that the core
//! documents for it (`call!`, `ffi::*`, `Error`, the handle types), and holds no `unsafe`.

mod convert;
mod exercise;
mod methods;
mod readings;
mod records;
mod rustdoc;
mod types;

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::Result;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{ByArea, GeneratedFile, Output, Uses};
use crate::diag::Diagnostics;
use crate::plan::{HandleKind, Plan};
use crate::rules::Bindings;

pub const DIR: &str = "crates/nvml/src/generated";

/// Writes the safe crate's files into `out`; what the emitters cannot serve goes to `d`.
pub fn emit(b: &Bindings, plan: &Plan, out: &mut Output, d: &mut Diagnostics) -> Result<()> {
    emit_areas(b, plan, out, d)?;
    emit_files(b, plan, out)
}

/// `error.rs`, `handles.rs` and `exercise.rs` (a part of [`emit`], which an emit job can
/// write on its own).
pub fn emit_files(b: &Bindings, plan: &Plan, out: &mut Output) -> Result<()> {
    let dir = PathBuf::from(DIR);
    let files: [(&str, &str, TokenStream); 3] = [
        ("error.rs", "The error type: a variant per nvmlReturn_t value of nvml.h.", types::error(b)),
        ("handles.rs", "The handle types of nvml.h (see gen-config/nvml.yaml `handles` and `ids`).", handles(b, plan)),
        ("exercise.rs", "For the crate's tests: every generated method called once.", exercise::exercise(b, plan)),
    ];
    for (name, what, tokens) in files {
        out.add_rust(&b.model, dir.join(name), what, tokens)?;
    }
    Ok(())
}

/// The rest of [`emit`]: the area files, their `mod.rs` and `readings.txt`.
pub fn emit_areas(b: &Bindings, plan: &Plan, out: &mut Output, d: &mut Diagnostics) -> Result<()> {
    let names = Names::new(b, plan);
    let m = &b.model;
    let dir = PathBuf::from(DIR);
    out.dirs.push(dir.clone());
    let mut areas = ByArea::default();
    types::types(b, &names, &mut areas);
    methods::methods(b, plan, &names, &mut areas, d);
    let handle_types: Vec<&str> = b.model.handles.keys().chain(b.ids.keys()).filter_map(|h| b.handle_type(h)).collect();
    // Each area imports what its items name.
    let prelude = |uses: &Uses, _| {
        let sys = uses.names("sys").then(|| {
            quote!(
                use nvml_sys as sys;
            )
        });
        let ffi = uses.import(quote!(crate), &["ffi"]);
        // The crate's own types, and the hand-written ones `field_types` rules give methods.
        let crate_types: Vec<&str> =
            ["Error", "Nvml"].into_iter().chain(b.field_types.values().map(String::as_str)).collect();
        let core = uses.import(quote!(crate), &crate_types);
        let handles = uses.any(handle_types.iter().copied()).then(|| {
            quote!(
                use super::handles::*;
            )
        });
        let others = uses.elsewhere().then(|| {
            quote!(
                use super::*;
            )
        });
        quote!(#sys #ffi #core #handles #others)
    };
    areas.allows = vec![
        (
            "deprecated",
            "Conversions, methods and their exercise reach the fields and functions nvml.h deprecates, which the API keeps.",
        ),
        (
            "unused_parens",
            "A C value is spliced into expressions as `(*x)`, parenthesized so that it binds as meant anywhere.",
        ),
        ("clippy::borrow_deref_ref", "A spliced `(*x)` may be borrowed again: `&(*x)`."),
        ("clippy::double_parens", "A spliced `(*x)` may be an argument: `f((*x))`."),
        (
            "clippy::map_clone, clippy::iter_cloned_collect",
            "Lists convert element by element; an element may convert to itself.",
        ),
        ("clippy::unnecessary_cast", "A cast that one header's C type needs is a no-op for another header's."),
        (
            "clippy::field_reassign_with_default",
            "A raw layout starts zeroed, and its fields are set one by one (strings and arrays in place).",
        ),
    ];
    let modules = quote! {
        pub(crate) mod error;
        #[cfg(test)]
        pub(crate) mod exercise;
        pub(crate) mod handles;
    };
    areas.write(out, m, &dir, prelude, modules)?;
    out.files.push(GeneratedFile { path: dir.join("readings.txt"), contents: readings::readings(b, plan) });
    Ok(())
}

/// The Rust names the plan gave enums and safe records.
pub struct Names {
    types: BTreeMap<String, String>,
    /// The records that get a safe type (the plan's).
    pub records: std::collections::BTreeSet<String>,
    /// Every symbol a method calls → that method, as `Type::method`.
    pub methods: BTreeMap<String, String>,
    /// Record families (the plan's): the newest layout → every layout, newest first.
    pub families: BTreeMap<String, Vec<String>>,
    /// Every layout of a family → the family's newest layout.
    heads: BTreeMap<String, String>,
    /// The Rust item of each C name, for the docs.
    pub links: rustdoc::Links,
    /// The camelCase names of record fields and of every function's parameters ("the
    /// `accessibleDevices` that nvmlDeviceGetCount returns"), which every method's docs read
    /// as Rust names.
    pub shared: super::doc::SharedNames,
}

impl Names {
    fn new(b: &Bindings, plan: &Plan) -> Names {
        let mut methods = BTreeMap::new();
        for m in &plan.methods {
            let owner = match &m.owner {
                crate::plan::Owner::Nvml => "Nvml",
                crate::plan::Owner::Handle(h) => b.handle_type(h).unwrap_or(h),
            };
            for c in &m.calls {
                methods.insert(c.symbol.clone(), format!("{owner}::{}", m.name));
            }
        }
        let heads = plan
            .families
            .iter()
            .flat_map(|(head, layouts)| layouts.iter().map(move |l| (l.clone(), head.clone())))
            .collect();
        let mut names = Names {
            types: plan.type_names.clone(),
            records: plan.records.clone(),
            methods,
            families: plan.families.clone(),
            heads,
            links: rustdoc::Links::empty(),
            shared: super::doc::SharedNames::new(camel_names(b)),
        };
        names.links = rustdoc::Links::new(b, &names);
        names
    }

    /// The newest layout of the family `record` belongs to, if it has several layouts.
    pub fn family_of(&self, record: &str) -> Option<&str> {
        self.heads.get(record).map(String::as_str)
    }

    /// Whether two records share a family (and so a safe type).
    pub fn same_family(&self, a: &str, b: &str) -> bool {
        a == b || self.family_of(a).is_some_and(|h| self.family_of(b) == Some(h))
    }

    /// The safe type of an enum or record, by model name.
    pub fn ty(&self, model_name: &str) -> proc_macro2::Ident {
        format_ident!("{}", self.types.get(model_name).map(String::as_str).unwrap_or(model_name))
    }
}

/// The names of record fields, then of functions' parameters, with a capital letter.
fn camel_names(b: &Bindings) -> impl Iterator<Item = &String> {
    let records = b.model.records.values().flat_map(|r| r.fields.iter().map(|fl| &fl.name));
    let params = b.model.functions.values().flat_map(|g| g.params.iter().map(|p| &p.name));
    records.chain(params).filter(|n| n.chars().any(|c| c.is_ascii_uppercase()))
}

fn handles(b: &Bindings, plan: &Plan) -> TokenStream {
    let of_kind = |want: fn(&HandleKind) -> bool| {
        plan.handles
            .iter()
            .filter(move |(t, h)| want(&h.kind) && b.model.handles.contains_key(*t))
            .map(|(t, h)| {
                let (name, raw) = (format_ident!("{}", h.name), format_ident!("{t}"));
                let tag = format_ident!("{}", b.model.handles[t].tag);
                let doc = format!("A `{t}` of the loaded library, valid while the `Nvml` it came from lives.");
                let tag_name = &b.model.handles[t].tag;
                quote!(#[doc = #doc] #[doc(alias = #t)] #[doc(alias = #tag_name)] #name(sys::#raw, sys::#tag))
            })
            .collect::<Vec<_>>()
    };
    let plain = of_kind(|k| *k == HandleKind::Plain);
    let destroyable = of_kind(|k| *k == HandleKind::Destroyable);
    let owned = of_kind(|k| matches!(k, HandleKind::Owned { .. }));
    // The free function of each owned handle that takes the handle alone, for `Drop`.
    let frees = plan.handles.iter().filter_map(|(t, h)| match &h.kind {
        HandleKind::Owned { free, by_handle: true } => {
            let (name, raw, free_fn) = (format_ident!("{}", h.name), format_ident!("{t}"), format_ident!("{free}"));
            let doc = format!("Frees `raw` with `{free}` (for `Drop`).");
            Some(quote! {
                impl #name<'_> {
                    #[doc = #doc]
                    pub(crate) fn free_raw(lib: &sys::NvmlLib, raw: sys::#raw) -> sys::nvmlReturn_t {
                        match lib.#free_fn() {
                            Ok(f) => call!(f(raw)),
                            Err(_) => sys::NVML_ERROR_FUNCTION_NOT_FOUND,
                        }
                    }
                }
            })
        }
        _ => None,
    });
    let ids = plan.handles.iter().filter(|(_, h)| h.kind == HandleKind::Id).map(|(t, h)| {
        let (name, raw) = (format_ident!("{}", h.name), format_ident!("{t}"));
        let doc = format!("A `{t}` (an integer id) of the loaded library, used while the `Nvml` it came from lives.");
        quote!(#[doc = #doc] #[doc(alias = #t)] #name(sys::#raw))
    });
    quote! {
        use nvml_sys as sys;
        handles! { #(#plain;)* }
        destroyable_handles! { #(#destroyable;)* }
        owned_handles! { #(#owned;)* }
        id_handles! { #(#ids;)* }
        #(#frees)*
    }
}
