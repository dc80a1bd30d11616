//! The mock's CUDA driver API from `cuda.h`'s model: `crates/nvml-mock/src/generated/cuda/`.
//!
//! - `types.rs`: every type a prototype names, as its C ABI has it: enums as their integer
//!   type, typedefs as what they name, handles as pointers to opaque structs, records as
//!   structs and unions laid out in full with their size checked (opaque where a bit field
//!   is), and every enum constant;
//! - `names.rs`: the functions (`FUNCTIONS`, and an id per function in `id`), the `CUresult`
//!   codes with the header's words for each (`RESULTS`), the `CUdevice_attribute` and
//!   `CUdevice_P2PAttribute` constants, the header's `#define cuX cuX_vN` (`VERSIONS`), and
//!   each function's ABI versions by the CUDA version they stand from, from `cudaTypedefs.h`
//!   (`ENTRY_POINTS`, which `cuGetProcAddress` chooses by);
//! - `exports/`: every function of the header with its exact prototype (a file per Doxygen
//!   group), each handing its
//!   call to the CUDA engine's `entry`: a function of `gen-config/cuda.yaml` to its module of
//!   `crates/nvml-mock/src/cuda/`, any other to `unsupported` (`CUDA_ERROR_NOT_SUPPORTED`);
//! - `crates/cuda-mock/src/generated/symbols.rs`: the same names for `libcuda.so.1`, an ELF
//!   filter of the mock's library (see [`filter_symbols`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use anyhow::Result;
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::{c_ty, ident, int_lit, ret_ty, Output};
use crate::clang::pfn::{self, Pfn};
use crate::diag::Diagnostics;
use crate::model::{AliasKind, Model, RecordKind, Ty};

/// Where the files go.
pub const DIR: &str = "crates/nvml-mock/src/generated/cuda";

/// What every CUDA file allows, and why.
const ALLOWS: &[super::Allow] = &[
    (
        "non_camel_case_types, non_upper_case_globals, dead_code",
        "The header's names, and items the engine may not use.",
    ),
    ("clippy::too_many_arguments", "A function takes its C parameters, as many as cuda.h gives."),
    ("unused_variables", "A function without behaviour takes every C parameter and answers without them."),
];

/// Writes the files into a new [`Output`]. `hand_written` is function → engine module; `pfns`
/// are `cudaTypedefs.h`'s typedefs.
pub fn emit(
    model: &Model,
    hand_written: &BTreeMap<String, String>,
    pfns: &[Pfn],
    d: &mut Diagnostics,
) -> Result<Output> {
    // The directory is inside the mock's generated directory, which the generator owns.
    let mut out = Output::default();
    let dir = PathBuf::from(DIR);
    let mods = quote! {
        pub mod exports;
        pub mod names;
        pub mod types;
    };
    out.add_rust_then(model, dir.join("mod.rs"), "The modules of cuda.h's mock.", ALLOWS, mods, "")?;
    out.add_rust_then(model, dir.join("types.rs"), "cuda.h's types and constants.", ALLOWS, types(model, d), "")?;
    out.add_rust_then(
        model,
        dir.join("names.rs"),
        "cuda.h's functions, codes and attributes.",
        ALLOWS,
        names(model, pfns, d),
        "",
    )?;
    // The exports, a file per Doxygen group of the header (`CUDA_MEM` → `mem.rs`; the legacy
    // prototypes at its end, in no group, → `ungrouped.rs`).
    let mut groups: BTreeMap<String, Vec<&crate::model::Function>> = BTreeMap::new();
    for f in model.functions.values() {
        let group = model.group_at(f.line).map(|g| g.name.trim_start_matches("CUDA_").to_ascii_lowercase());
        groups.entry(group.unwrap_or_else(|| "ungrouped".into())).or_default().push(f);
    }
    let names: Vec<proc_macro2::Ident> = groups.keys().map(|g| format_ident!("{}", g)).collect();
    let mods = quote!(#(pub mod #names;)*);
    let exports = dir.join("exports");
    out.add_rust_then(model, exports.join("mod.rs"), "The exports of cuda.h, a module per group.", ALLOWS, mods, "")?;
    for (group, functions) in &groups {
        let what = format!("Every function of cuda.h's group `{group}`, with its exact prototype.");
        let code = exports_of(functions, hand_written);
        out.add_rust_then(model, exports.join(format!("{group}.rs")), &what, ALLOWS, code, "")?;
    }
    let filter = PathBuf::from(FILTER_DIR);
    out.dirs.push(filter.clone());
    let what = "The symbols of libcuda.so.1, a filter of libnvml_mock.so.";
    out.add_rust_then(model, filter.join("symbols.rs"), what, &[], filter_symbols(model), "")?;
    out.format()?;
    Ok(out)
}

/// Where the symbols of `libcuda.so.1` go (`crates/cuda-mock`).
pub const FILTER_DIR: &str = "crates/cuda-mock/src/generated";

/// `libcuda.so.1` is an ELF filter of `libnvml_mock.so` (`crates/cuda-mock/build.rs`): the
/// dynamic linker resolves each of its symbols to the mock's, whose exports have the exact
/// prototypes. Its own definitions are there for the link editor (`-lcuda`) and never run;
/// each answers `CUDA_ERROR_UNKNOWN` all the same.
fn filter_symbols(model: &Model) -> TokenStream {
    let names = model.functions.keys().map(|f| ident(f));
    quote! {
        symbols! {
            #(#names),*
        }
    }
}

/// The named type `n` with its typedefs followed.
fn resolve<'m>(model: &'m Model, mut n: &'m str) -> &'m str {
    for _ in 0..32 {
        match model.typedefs.get(n).map(|t| &t.ty) {
            Some(Ty::Named(next)) => n = next,
            _ => break,
        }
    }
    n
}

/// The records `types.rs` lays out in full (with their size checked): every record but those
/// with a bit field, or holding one by value, which stay opaque (a note each); a function
/// that passes an opaque record by value is an error.
fn laid_out(model: &Model, d: &mut Diagnostics) -> BTreeSet<String> {
    let inner = |ty: &Ty| -> Option<String> {
        let mut ty = ty;
        while let Ty::Array { elem, .. } = ty {
            ty = elem;
        }
        match ty {
            Ty::Named(n) if model.records.contains_key(resolve(model, n)) => Some(resolve(model, n).to_string()),
            _ => None,
        }
    };
    let mut opaque: BTreeSet<String> = model
        .records
        .values()
        .filter(|r| r.fields.iter().any(|f| f.bit_width.is_some()))
        .map(|r| r.name.clone())
        .collect();
    loop {
        let more: Vec<String> = model
            .records
            .values()
            .filter(|r| !opaque.contains(&r.name))
            .filter(|r| r.fields.iter().any(|f| inner(&f.ty).is_some_and(|n| opaque.contains(&n))))
            .map(|r| r.name.clone())
            .collect();
        if more.is_empty() {
            break;
        }
        opaque.extend(more);
    }
    for name in &opaque {
        d.note(format!("cuda.h: {name}"), "opaque in the mock's types: it holds a bit field");
    }
    for f in model.functions.values() {
        for (what, ty) in f.params.iter().map(|p| (p.name.as_str(), &p.ty)).chain([("the result", &f.ret)]) {
            if let Ty::Named(n) = ty {
                if opaque.contains(resolve(model, n)) {
                    d.error(
                        format!("cuda.h:{}", f.line),
                        format!("`{}` passes {what} (`{n}`), which has a bit field, by value", f.name),
                    );
                }
            }
        }
    }
    model.records.keys().filter(|n| !opaque.contains(*n)).cloned().collect()
}

fn types(model: &Model, d: &mut Diagnostics) -> TokenStream {
    let mut items = Vec::new();
    let full = laid_out(model, d);
    for r in model.records.values() {
        let name = ident(&r.name);
        if !full.contains(&r.name) {
            items.push(quote! {
                #[repr(C)]
                pub struct #name { _opaque: [u8; 0] }
            });
            continue;
        }
        let fields = r.fields.iter().map(|f| {
            let (n, t) = (ident(&f.name), c_ty(&f.ty));
            quote!(pub #n: #t)
        });
        let kind = match r.kind {
            RecordKind::Struct => quote!(struct),
            RecordKind::Union => quote!(union),
        };
        let size = Literal::u64_unsuffixed(r.size);
        items.push(quote! {
            #[repr(C)]
            #[derive(Clone, Copy)]
            pub #kind #name { #(#fields),* }
            const _: [(); #size] = [(); core::mem::size_of::<#name>()];
        });
    }
    let tags: std::collections::BTreeSet<&str> = model.handles.values().map(|h| h.tag.as_str()).collect();
    for tag in tags.into_iter().filter(|t| !model.records.contains_key(*t)) {
        let name = ident(tag);
        items.push(quote! {
            #[repr(C)]
            pub struct #name { _opaque: [u8; 0] }
        });
    }
    for h in model.handles.values() {
        let (name, tag) = (ident(&h.name), ident(&h.tag));
        items.push(quote!(pub type #name = *mut #tag;));
    }
    for e in model.enums.values() {
        let (name, repr) = (ident(&e.name), c_ty(&e.repr));
        items.push(quote!(pub type #name = #repr;));
        for k in &e.constants {
            let (c, v) = (ident(&k.name), int_lit(k.value));
            items.push(quote!(pub const #c: #name = #v as #name;));
        }
    }
    for t in model.typedefs.values() {
        let (name, ty) = (ident(&t.name), c_ty(&t.ty));
        items.push(quote!(pub type #name = #ty;));
    }
    quote! {
        // The C scalars the prototypes name, for the exports too (which import this module).
        pub use core::ffi::*;
        #(#items)*
    }
}

/// The first sentence of a constant's documentation, in one line.
fn first_sentence(doc: Option<&str>) -> String {
    let text = doc.unwrap_or_default().split_whitespace().collect::<Vec<_>>().join(" ");
    match text.find(". ") {
        Some(i) => text[..=i].to_string(),
        None => text,
    }
}

/// `ENTRY_POINTS`: each function's ABI versions from `pfns`, every export checked against the
/// model (an export `cuda.h` does not declare is an error naming the typedef's line).
fn entry_points(model: &Model, pfns: &[Pfn], d: &mut Diagnostics) -> Vec<TokenStream> {
    let versions = pfn::versions(pfns);
    for p in pfns {
        let Some(vs) = versions.get(&p.base) else {
            let why = "a per-thread variant of a function with no typedef of its own";
            d.error(format!("{}:{}", crate::fetch::cuda::TYPEDEFS, p.line), format!("`PFN_{}`: {why}", p.base));
            continue;
        };
        // A per-thread variant is the one of the version in force at its own version.
        let current = vs.iter().rev().find(|(v, _)| *v <= p.version).unwrap_or(&vs[0]);
        let export = format!("{}{}", current.1, p.suffix);
        if !model.functions.contains_key(&export) {
            let place = format!("{}:{}", crate::fetch::cuda::TYPEDEFS, p.line);
            d.error(
                place,
                format!(
                    "`PFN_{}_v{}{}` stands for `{export}`, which cuda.h does not declare",
                    p.base, p.version, p.suffix
                ),
            );
        }
    }
    versions
        .iter()
        .map(|(base, vs)| {
            let vs = vs.iter().map(|(v, export)| {
                let v = Literal::i32_unsuffixed(*v);
                quote!((#v, #export))
            });
            quote!((#base, &[#(#vs),*]))
        })
        .collect()
}

fn names(model: &Model, pfns: &[Pfn], d: &mut Diagnostics) -> TokenStream {
    let entry_points = entry_points(model, pfns, d);
    let functions: Vec<&str> = model.functions.keys().map(String::as_str).collect();
    let ids = functions.iter().enumerate().map(|(i, f)| {
        let (f, i) = (ident(f), Literal::usize_unsuffixed(i));
        quote!(pub const #f: usize = #i;)
    });
    let enum_of = |typedef: &str| model.enums.get(resolve(model, typedef));
    let results = enum_of("CUresult").map(|e| &e.constants[..]).unwrap_or_default().iter().map(|k| {
        let (name, v, words) = (&k.name, int_lit(k.value), first_sentence(k.doc.as_deref()));
        quote!((#v, #name, #words))
    });
    let attributes = enum_of("CUdevice_attribute").map(|e| &e.constants[..]).unwrap_or_default().iter().map(|k| {
        let (name, v) = (&k.name, int_lit(k.value));
        quote!((#v, #name))
    });
    let p2p = enum_of("CUdevice_P2PAttribute").map(|e| &e.constants[..]).unwrap_or_default().iter().map(|k| {
        let (name, v) = (&k.name, int_lit(k.value));
        quote!((#v, #name))
    });
    let version = model.constants.get("CUDA_VERSION").map(|c| match &c.value {
        crate::model::ConstValue::Int { value, .. } => int_lit(*value),
        _ => quote!(0),
    });
    let version = version.unwrap_or_else(|| quote!(0));
    let versions = model.aliases.values().filter(|a| a.kind == AliasKind::Function).map(|a| {
        let (name, target) = (&a.name, &a.target);
        quote!((#name, #target))
    });
    quote! {
        /// `CUDA_VERSION` of the header.
        pub const CUDA_VERSION: i32 = #version;
        /// Every function of the header, sorted.
        pub const FUNCTIONS: &[&str] = &[#(#functions),*];
        /// The index of each function in [`FUNCTIONS`].
        pub mod id {
            #(#ids)*
        }
        /// The header's `#define cuX cuX_vN`: the function a name stands for (for the legacy
        /// default stream; the `_ptds` or `_ptsz` variant of the target serves per-thread
        /// default streams), sorted by name.
        pub const VERSIONS: &[(&str, &str)] = &[#(#versions),*];
        /// Each function's ABI versions from `cudaTypedefs.h`, sorted by name: the CUDA version
        /// (`1000 * major + 10 * minor`) from which each stands and its export, oldest first.
        pub const ENTRY_POINTS: &[(&str, &[(i32, &str)])] = &[#(#entry_points),*];
        /// Each `CUresult` code, its name and the first sentence of the header's words on it.
        pub const RESULTS: &[(u32, &str, &str)] = &[#(#results),*];
        /// Each `CUdevice_attribute` constant and its name.
        pub const DEVICE_ATTRIBUTES: &[(i32, &str)] = &[#(#attributes),*];
        /// Each `CUdevice_P2PAttribute` constant and its name.
        pub const P2P_ATTRIBUTES: &[(i32, &str)] = &[#(#p2p),*];
    }
}

fn exports_of(functions: &[&crate::model::Function], hand_written: &BTreeMap<String, String>) -> TokenStream {
    let mut items = Vec::new();
    for f in functions {
        let name = ident(&f.name);
        let params = f.params.iter().map(|p| {
            let (n, t) = (ident(&p.name), c_ty(&p.ty));
            quote!(#n: #t)
        });
        let args = f.params.iter().map(|p| ident(&p.name));
        let ret = ret_ty(&f.ret);
        let body = match hand_written.get(&f.name) {
            Some(module) if f.params.is_empty() => {
                let m = format_ident!("{}", module);
                quote!(entry(id::#name, cuda::#m::#name))
            }
            Some(module) => {
                let m = format_ident!("{}", module);
                quote!(entry(id::#name, || cuda::#m::#name(#(#args),*)))
            }
            None => quote!(entry(id::#name, || unsupported(id::#name))),
        };
        items.push(quote! {
            #[no_mangle]
            pub unsafe extern "C" fn #name(#(#params),*) #ret {
                #body
            }
        });
    }
    let by_hand = functions.iter().any(|f| hand_written.contains_key(&f.name));
    let unhandled = functions.iter().any(|f| !hand_written.contains_key(&f.name));
    let mut engine = vec![quote!(entry)];
    if by_hand {
        engine.insert(0, quote!(self));
    }
    if unhandled {
        engine.push(quote!(unsupported));
    }
    quote! {
        // The header's types and the C scalars: every prototype names `CUresult`.
        use super::super::types::*;
        use super::super::names::id;
        use super::super::super::super::cuda::{#(#engine),*};
        #(#items)*
    }
}
