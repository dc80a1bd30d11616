//! The raw crate, `crates/nvml-sys/src/generated/`:
//! - `types.rs`: typedefs, opaque handles, enums (an integer type plus constants, so values
//!   newer than the header still fit), structs and unions;
//! - `consts.rs`: the header's `#define` constants;
//! - `functions.rs`: the symbol table, a function-pointer type and a lazily resolving accessor
//!   on `NvmlLib` per function, and one enum + resolver per versioned family;
//! - `layout.rs`: compile-time size, alignment and offset assertions from clang's layout.
//!
//! Generated files refer to each other and to the hand-written loader only through `super::`,
//! so the same files can be mounted elsewhere (the golden tests do).

use std::collections::BTreeSet;
use std::path::PathBuf;

use anyhow::Result;
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::{banner, c_ty, doc, format_file, ident, int_lit, ret_ty, GeneratedFile, Output};
use crate::model::{ConstValue, Model, Record, RecordKind, Ty};
use crate::rules::Bindings;

pub const DIR: &str = "crates/nvml-sys/src/generated";

pub fn emit(b: &Bindings, out: &mut Output) -> Result<()> {
    let m = &b.model;
    let dir = PathBuf::from(DIR);
    out.dirs.push(dir.clone());
    let files: [(&str, &str, TokenStream); 4] = [
        ("types.rs", "Types of nvml.h: typedefs, opaque handles, enums, structs and unions.", types(b)),
        ("consts.rs", "The #define constants of nvml.h.", consts(m)),
        ("functions.rs", "Every function of nvml.h, resolved at run time through `NvmlLib`.", functions(b)),
        ("layout.rs", "Compile-time layout assertions, from clang's layout of nvml.h on LP64.", layout(m)),
    ];
    for (name, what, tokens) in files {
        let path = dir.join(name);
        let contents = format_file(&banner(m, what), tokens, &path.display().to_string())?;
        out.files.push(GeneratedFile { path, contents });
    }
    Ok(())
}

fn types(b: &Bindings) -> TokenStream {
    let m = &b.model;
    let mut items = Vec::new();
    for t in m.typedefs.values() {
        let (name, ty, docs) = (ident(&t.name), c_ty(&t.ty), doc::attrs(t.doc.as_deref()));
        items.push(quote!(#docs pub type #name = #ty;));
    }
    for a in m.aliases.values().filter(|a| a.kind == crate::model::AliasKind::Type) {
        let (name, target) = (ident(&a.name), ident(&a.target));
        let d = doc::lines(&format!("Old name of [`{}`], kept by a `#define` in nvml.h.", a.target));
        items.push(quote!(#d pub type #name = #target;));
    }
    for h in m.handles.values() {
        let (name, tag) = (ident(&h.name), ident(&h.tag));
        let docs = doc::attrs(h.doc.as_deref());
        let safe = b.handles.get(&h.name).map(|s| format!(" The safe crate wraps it as `{s}`.")).unwrap_or_default();
        let tag_doc = doc::lines(&format!("The opaque struct behind [`{}`]; never dereferenced.", h.name));
        let handle_doc = doc::lines(&format!("Opaque handle owned by the driver.{safe}"));
        items.push(quote! {
            #tag_doc
            #[repr(C)]
            pub struct #tag { _private: [u8; 0] }
            #docs
            #handle_doc
            pub type #name = *mut #tag;
        });
    }
    for e in m.enums.values() {
        let (name, repr, docs) = (ident(&e.name), c_ty(&e.repr), doc::attrs(e.doc.as_deref()));
        let note = doc::lines(
            "\nA C enum: an integer type with one constant per value, so a value newer than the header still fits.",
        );
        items.push(quote!(#docs #note pub type #name = #repr;));
        for k in &e.constants {
            let (kname, v, kdocs) = (ident(&k.name), int_lit(k.value), doc::attrs(k.doc.as_deref()));
            items.push(quote!(#kdocs pub const #kname: #name = #v;));
        }
    }
    let with_union = records_containing(m, |r| r.kind == RecordKind::Union);
    let with_fn_ptr = records_containing(m, |r| r.fields.iter().any(|f| matches!(f.ty, Ty::FnPtr { .. })));
    for r in m.records.values() {
        items.push(record(r, with_union.contains(&r.name), with_fn_ptr.contains(&r.name)));
    }
    quote! {
        use core::ffi::*;
        #(#items)*
    }
}

fn record(r: &Record, has_union: bool, has_fn_ptr: bool) -> TokenStream {
    let name = ident(&r.name);
    let docs = doc::attrs(r.doc.as_deref());
    let fields = r.fields.iter().map(|f| {
        let (fname, ty, fdocs) = (ident(&f.name), c_ty(&f.ty), doc::attrs(f.doc.as_deref()));
        quote!(#fdocs pub #fname: #ty)
    });
    let kw = match r.kind {
        RecordKind::Struct => quote!(struct),
        RecordKind::Union => quote!(union),
    };
    let debug_derive = if has_union { quote!() } else { quote!(Debug,) };
    let debug_impl = has_union.then(|| quote!(opaque_debug!(#name);));
    let default_impl = (!has_fn_ptr).then(|| quote!(zeroed_default!(#name);));
    quote! {
        #docs
        #[repr(C)]
        #[derive(#debug_derive Clone, Copy)]
        pub #kw #name { #(#fields,)* }
        #debug_impl
        #default_impl
    }
}

/// Records that contain, directly or through fields, a record for which `pred` holds.
fn records_containing(m: &Model, pred: impl Fn(&Record) -> bool) -> BTreeSet<String> {
    let mut set: BTreeSet<String> = m.records.values().filter(|r| pred(r)).map(|r| r.name.clone()).collect();
    loop {
        let before = set.len();
        for r in m.records.values() {
            if r.fields.iter().any(|f| names_in(m, &f.ty).iter().any(|n| set.contains(n))) {
                set.insert(r.name.clone());
            }
        }
        if set.len() == before {
            return set;
        }
    }
}

/// Record names a field type holds by value (through arrays and typedefs, not pointers).
fn names_in(m: &Model, t: &Ty) -> Vec<String> {
    match m.resolve_typedef(t) {
        Ty::Named(n) => vec![n.clone()],
        Ty::Array { elem, .. } => names_in(m, elem),
        _ => vec![],
    }
}

fn consts(m: &Model) -> TokenStream {
    let items = m.constants.values().map(|c| {
        let (name, docs) = (ident(&c.name), doc::attrs(c.doc.as_deref()));
        match &c.value {
            ConstValue::Int { value, ty } => {
                let (ty, v) = (c_ty(ty), int_lit(*value));
                quote!(#docs pub const #name: #ty = #v;)
            }
            ConstValue::Float(f) => {
                let v = Literal::f64_suffixed(*f);
                quote!(#docs pub const #name: f64 = #v;)
            }
            ConstValue::Str(s) => quote!(#docs pub const #name: &str = #s;),
        }
    });
    let version = &m.header.version;
    quote! {
        use core::ffi::*;
        /// The version of the `nvml.h` these bindings were generated from.
        pub const HEADER_VERSION: &str = #version;
        #(#items)*
    }
}

fn functions(b: &Bindings) -> TokenStream {
    let m = &b.model;
    let names: Vec<&String> = m.functions.keys().collect();
    let count = names.len();
    let mut items = Vec::new();
    for (slot, f) in m.functions.values().enumerate() {
        let name = ident(&f.name);
        let pfn = format_ident!("PFN_{}", f.name);
        let params = f.params.iter().map(|p| c_ty(&p.ty));
        let ret = ret_ty(&f.ret);
        let docs = doc::attrs(f.doc.as_deref());
        let mut extra = format!("\nC prototype: `{}`.", f.prototype());
        if f.legacy {
            extra.push_str(" A legacy symbol: nvml.h declares it only under `NVML_NO_UNVERSIONED_FUNC_DEFS`.");
        }
        extra.push_str("\n\nResolved on first use; `Err` if the loaded library does not export it.");
        let extra = doc::lines(&extra);
        let pfn_doc = doc::lines(&format!("Pointer to `{}`.", f.name));
        let deprecated = f.deprecated.then(|| quote!(#[deprecated(note = "deprecated in nvml.h")]));
        let slot = Literal::usize_unsuffixed(slot);
        items.push(quote! {
            #pfn_doc
            pub type #pfn = unsafe extern "C" fn(#(#params),*) #ret;
            impl NvmlLib {
                #docs
                #extra
                #deprecated
                #[inline]
                pub fn #name(&self) -> Result<#pfn, MissingSymbol> {
                    self.resolve::<#pfn>(#slot)
                }
            }
        });
    }
    let family_rows = b.families.iter().map(|(api, syms)| quote!((#api, &[#(#syms),*])));
    let family_count = b.families.len();
    for (api, syms) in &b.families {
        items.push(family(api, syms));
    }
    quote! {
        use core::ffi::*;
        use super::types::*;
        use super::super::loader::{MissingSymbol, NvmlLib};

        /// Every function nvml.h declares, in slot order; `NvmlLib` resolves each on first use.
        pub static SYMBOLS: [&str; #count] = [#(#names),*];

        /// Versioned families: API name and the symbols tried for it, newest first.
        pub static FAMILIES: [(&str, &[&str]); #family_count] = [#(#family_rows),*];

        #(#items)*
    }
}

fn family(api: &str, syms: &[String]) -> TokenStream {
    let ty = format_ident!("{api}_versions");
    let resolver = format_ident!("{api}_newest");
    let table = format_ident!("{api}_FAMILY");
    let n = syms.len();
    let variants = syms.iter().map(|s| {
        let (v, pfn) = (ident(s), format_ident!("PFN_{s}"));
        quote!(#v(#pfn))
    });
    let tries = syms.iter().map(|s| {
        let v = ident(s);
        quote!(if let Ok(f) = self.#v() { return Ok(#ty::#v(f)); })
    });
    let list = syms.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ");
    let ty_doc = doc::lines(&format!("The versions of `{api}` nvml.h declares, newest first: {list}."));
    let res_doc = doc::lines(&format!(
        "Resolves the newest version of `{api}` the loaded library exports, trying {list} in that order."
    ));
    let table_doc = doc::lines(&format!("The symbols tried for `{api}`, newest first."));
    quote! {
        #ty_doc
        #[derive(Clone, Copy, Debug)]
        pub enum #ty { #(#variants,)* }
        #table_doc
        pub static #table: [&str; #n] = [#(#syms),*];
        impl NvmlLib {
            #res_doc
            #[allow(deprecated)]
            pub fn #resolver(&self) -> Result<#ty, MissingSymbol> {
                #(#tries)*
                Err(MissingSymbol::new(&#table))
            }
        }
    }
}

fn layout(m: &Model) -> TokenStream {
    let blocks = m.records.values().map(|r| {
        let name = ident(&r.name);
        let (size, align) = (Literal::u64_unsuffixed(r.size), Literal::u64_unsuffixed(r.align));
        let (size_msg, align_msg) = (format!("size of {}", r.name), format!("alignment of {}", r.name));
        let offsets = r.fields.iter().filter(|f| f.bit_width.is_none()).map(|f| {
            let (fname, off) = (ident(&f.name), Literal::u64_unsuffixed(f.offset));
            let msg = format!("offset of {}.{}", r.name, f.name);
            quote!(assert!(offset_of!(#name, #fname) == #off, #msg);)
        });
        quote! {
            const _: () = {
                assert!(size_of::<#name>() == #size, #size_msg);
                assert!(align_of::<#name>() == #align, #align_msg);
                #(#offsets)*
            };
        }
    });
    quote! {
        use core::mem::{align_of, offset_of, size_of};
        use super::types::*;
        #(#blocks)*
    }
}
