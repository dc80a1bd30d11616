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

use super::text::{self, Lay};
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
    out.add_text(model, dir.join("types.rs"), "cuda.h's types and constants.", ALLOWS, types(model, d)?)?;
    let what = "cuda.h's functions, codes and attributes.";
    out.add_text(model, dir.join("names.rs"), what, ALLOWS, names(model, pfns, d))?;
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

/// A C type as prettyplease writes [`c_ty`]'s tokens; `None` for a function pointer, whose
/// layout depends on its length.
fn c_ty_text(t: &Ty) -> Option<String> {
    Some(match t {
        Ty::Pointer { pointee, is_const } => {
            format!("*{} {}", if *is_const { "const" } else { "mut" }, c_ty_text(pointee)?)
        }
        Ty::Array { elem, len } => format!("[{}; {len}]", c_ty_text(elem)?),
        Ty::FnPtr { .. } => return None,
        Ty::Named(n) => ident(n).to_string(),
        scalar => c_ty(scalar).to_string(),
    })
}

/// `types.rs`: each item laid out as text ([`text::Items`]) where that is simple.
fn types(model: &Model, d: &mut Diagnostics) -> Result<String> {
    let mut items = text::Items::default();
    // The C scalars the prototypes name, for the exports too (which import this module).
    items.text.push_str("pub use core::ffi::*;\n");
    let opaque = |name: &str, items: &mut text::Items| {
        let text = format!("#[repr(C)]\npub struct {name} {{\n    _opaque: [u8; 0],\n}}\n");
        let name = ident(name);
        items.push(Some(text), || quote!(#[repr(C)] pub struct #name { _opaque: [u8; 0] }))
    };
    let full = laid_out(model, d);
    for r in model.records.values() {
        if !full.contains(&r.name) {
            opaque(&r.name, &mut items)?;
            continue;
        }
        let kind = match r.kind {
            RecordKind::Struct => "struct",
            RecordKind::Union => "union",
        };
        let name = ident(&r.name);
        let text = (|| {
            let mut text = format!("#[repr(C)]\n#[derive(Clone, Copy)]\npub {kind} {name} {{");
            text.push_str(if r.fields.is_empty() { "}\n" } else { "\n" });
            for f in &r.fields {
                text.push_str(&format!("    pub {}: {},\n", ident(&f.name), c_ty_text(&f.ty)?));
            }
            if !r.fields.is_empty() {
                text.push_str("}\n");
            }
            text.push_str(&format!("const _: [(); {}] = [(); core::mem::size_of::<{name}>()];\n", r.size));
            Some(text)
        })();
        items.push(text, || {
            let fields = r.fields.iter().map(|f| {
                let (n, t) = (ident(&f.name), c_ty(&f.ty));
                quote!(pub #n: #t)
            });
            let kind = match r.kind {
                RecordKind::Struct => quote!(struct),
                RecordKind::Union => quote!(union),
            };
            let size = Literal::u64_unsuffixed(r.size);
            quote! {
                #[repr(C)]
                #[derive(Clone, Copy)]
                pub #kind #name { #(#fields),* }
                const _: [(); #size] = [(); core::mem::size_of::<#name>()];
            }
        })?;
    }
    let tags: std::collections::BTreeSet<&str> = model.handles.values().map(|h| h.tag.as_str()).collect();
    for tag in tags.into_iter().filter(|t| !model.records.contains_key(*t)) {
        opaque(tag, &mut items)?;
    }
    for h in model.handles.values() {
        let (name, tag) = (ident(&h.name), ident(&h.tag));
        items.push(Some(format!("pub type {name} = *mut {tag};\n")), || quote!(pub type #name = *mut #tag;))?;
    }
    for e in model.enums.values() {
        let (name, repr) = (ident(&e.name), c_ty(&e.repr));
        let text = c_ty_text(&e.repr).map(|r| format!("pub type {name} = {r};\n"));
        items.push(text, || quote!(pub type #name = #repr;))?;
        for k in &e.constants {
            let (c, v) = (ident(&k.name), int_lit(k.value));
            let text = format!("pub const {c}: {name} = {} as {name};\n", k.value);
            items.push(Some(text), || quote!(pub const #c: #name = #v as #name;))?;
        }
    }
    for t in model.typedefs.values() {
        let (name, ty) = (ident(&t.name), c_ty(&t.ty));
        let text = c_ty_text(&t.ty).map(|ty| format!("pub type {name} = {ty};\n"));
        items.push(text, || quote!(pub type #name = #ty;))?;
    }
    Ok(items.text)
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
fn entry_points(model: &Model, pfns: &[Pfn], d: &mut Diagnostics) -> Vec<Lay> {
    let versions = pfn::versions(pfns);
    for p in pfns {
        let place = format!("{}:{}", crate::fetch::cuda::TYPEDEFS, p.line);
        let Some(vs) = versions.get(&p.base) else {
            let why = "a per-thread variant of a function with no typedef of its own";
            d.error(place, format!("`PFN_{}`: {why}", p.base));
            continue;
        };
        // A per-thread variant is the one of the version in force at its own version.
        let current = vs.iter().rev().find(|(v, _)| *v <= p.version).unwrap_or(&vs[0]);
        let export = format!("{}{}", current.1, p.suffix);
        if !model.functions.contains_key(&export) {
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
            let vs = vs.iter().map(|(v, export)| Lay::Tuple(vec![Lay::int(v), Lay::str(export)]));
            Lay::Tuple(vec![Lay::str(base), Lay::List("&[", vs.collect())])
        })
        .collect()
}

/// `names.rs`, laid out as text ([`super::text`]): its tables are literals.
fn names(model: &Model, pfns: &[Pfn], d: &mut Diagnostics) -> String {
    let entry_points = entry_points(model, pfns, d);
    let enum_of = |typedef: &str| model.enums.get(resolve(model, typedef));
    let constants = |typedef: &str| enum_of(typedef).map(|e| &e.constants[..]).unwrap_or_default();
    let pairs = |typedef: &str| {
        let pairs = constants(typedef).iter().map(|k| Lay::Tuple(vec![Lay::int(k.value), Lay::str(&k.name)]));
        Lay::List("&[", pairs.collect())
    };
    let results = constants("CUresult").iter().map(|k| {
        let words = first_sentence(k.doc.as_deref());
        Lay::Tuple(vec![Lay::int(k.value), Lay::str(&k.name), Lay::str(&words)])
    });
    let version = match model.constants.get("CUDA_VERSION").map(|c| &c.value) {
        Some(crate::model::ConstValue::Int { value, .. }) => value.to_string(),
        _ => "0".to_string(),
    };
    let versions = model.aliases.values().filter(|a| a.kind == AliasKind::Function);
    let versions = versions.map(|a| Lay::Tuple(vec![Lay::str(&a.name), Lay::str(&a.target)]));
    let mut out = String::new();
    text::doc(&mut out, 0, "`CUDA_VERSION` of the header.");
    out.push_str(&format!("pub const CUDA_VERSION: i32 = {version};\n"));
    text::doc(&mut out, 0, "Every function of the header, sorted.");
    let functions = model.functions.keys().map(|f| Lay::str(f));
    text::item(&mut out, "pub const FUNCTIONS: &[&str]", &Lay::List("&[", functions.collect()));
    text::doc(&mut out, 0, "The index of each function in [`FUNCTIONS`].");
    out.push_str("pub mod id {\n");
    for (i, f) in model.functions.keys().enumerate() {
        out.push_str(&format!("    pub const {}: usize = {i};\n", ident(f)));
    }
    out.push_str("}\n");
    text::doc(
        &mut out,
        0,
        "The header's `#define cuX cuX_vN`: the function a name stands for (for the legacy\n\
         default stream; the `_ptds` or `_ptsz` variant of the target serves per-thread\n\
         default streams), sorted by name.",
    );
    text::item(&mut out, "pub const VERSIONS: &[(&str, &str)]", &Lay::List("&[", versions.collect()));
    text::doc(
        &mut out,
        0,
        "Each function's ABI versions from `cudaTypedefs.h`, sorted by name: the CUDA version\n\
         (`1000 * major + 10 * minor`) from which each stands and its export, oldest first.",
    );
    text::item(&mut out, "pub const ENTRY_POINTS: &[(&str, &[(i32, &str)])]", &Lay::List("&[", entry_points));
    text::doc(&mut out, 0, "Each `CUresult` code, its name and the first sentence of the header's words on it.");
    text::item(&mut out, "pub const RESULTS: &[(u32, &str, &str)]", &Lay::List("&[", results.collect()));
    text::doc(&mut out, 0, "Each `CUdevice_attribute` constant and its name.");
    text::item(&mut out, "pub const DEVICE_ATTRIBUTES: &[(i32, &str)]", &pairs("CUdevice_attribute"));
    text::doc(&mut out, 0, "Each `CUdevice_P2PAttribute` constant and its name.");
    text::item(&mut out, "pub const P2P_ATTRIBUTES: &[(i32, &str)]", &pairs("CUdevice_P2PAttribute"));
    out
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
