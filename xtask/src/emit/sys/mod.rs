//! The raw crate, `crates/nvml-sys/src/generated/`, one file per area of the header (its
//! Doxygen groups, see `rules/areas.rs`), each holding that area's
//! - typedefs, opaque handles, enums (an integer type plus constants, so values newer than the
//!   header still fit), structs and unions, with compile-time size, alignment and offset
//!   assertions from clang's layout (on LP64 only);
//! - `#define` constants;
//! - functions: a `functions!` table (the macro is nvml-sys's `macros.rs`) that gives each a
//!   function-pointer type and an accessor on `NvmlLib` resolving it on first use, and one
//!   enum + resolver per versioned family;
//!
//! and `symbols.rs`, the symbol table every accessor indexes, `field_numbering.rs` (written by
//! [`fields::emit`]: how each published header numbers the field ids), and `mod.rs`, the area
//! modules re-exported flat.
//!
//! Generated files refer to each other and to the hand-written loader only through `super::`,
//! so the same files can be mounted elsewhere (the golden tests do).

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::Result;
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::{c_ty, doc, ident, int_lit, ByArea, Output, Uses};
use crate::model::{ConstValue, Model, Record, RecordKind, Ty};
use crate::rules::Bindings;

pub mod fields;

pub const DIR: &str = "crates/nvml-sys/src/generated";

pub fn emit(b: &Bindings, out: &mut Output) -> Result<()> {
    let m = &b.model;
    let dir = PathBuf::from(DIR);
    out.dirs.push(dir.clone());
    let mut areas = ByArea::default();
    types(b, &mut areas);
    consts(b, &mut areas);
    functions(b, &mut areas);
    layout(b, &mut areas);
    // Each area imports what its items (and its table's text) name.
    // A `functions!` table (text) expands to code that names the loader's types.
    let prelude = |uses: &Uses, has_table: bool| {
        let c = uses.c_types();
        let others = uses.glob(quote!(super), uses.elsewhere());
        let loader = match has_table {
            true => quote!(
                use super::super::loader::{MissingSymbol, NvmlLib};
            ),
            false => uses.import(quote!(super::super::loader), &["MissingSymbol", "NvmlLib"]),
        };
        quote!(#c #others #loader)
    };
    let version = &m.header.version;
    let symbols = symbols(b);
    out.add_rust(m, dir.join("symbols.rs"), "The symbol table: every function of nvml.h, by slot.", symbols)?;
    let modules = quote! {
        mod symbols;
        pub use symbols::*;
        pub mod field_numbering;
        /// The version of the `nvml.h` these bindings were generated from.
        pub const HEADER_VERSION: &str = #version;
    };
    areas.allows =
        vec![("deprecated", "A function's resolver tries each of its versions, the deprecated ones included.")];
    areas.write(out, m, &dir, prelude, modules)
}

fn types(b: &Bindings, out: &mut ByArea) {
    let m = &b.model;
    for t in m.typedefs.values() {
        let (name, ty, docs) = (ident(&t.name), c_ty(&t.ty), doc::attrs(t.doc.as_deref()));
        out.push(b.area(&t.name, t.line), quote!(#docs pub type #name = #ty;));
    }
    for a in m.aliases.values().filter(|a| a.kind == crate::model::AliasKind::Type) {
        let (name, target) = (ident(&a.name), ident(&a.target));
        let d = doc::lines(&format!("Old name of [`{}`], kept by a `#define` in nvml.h.", a.target));
        out.push(b.type_area(&a.target), quote!(#d pub type #name = #target;));
    }
    for h in m.handles.values() {
        let (name, tag) = (ident(&h.name), ident(&h.tag));
        let docs = doc::attrs(h.doc.as_deref());
        let safe = b.handles.get(&h.name).map(|s| format!(" The safe crate wraps it as `{s}`.")).unwrap_or_default();
        let tag_doc = doc::lines(&format!("The opaque struct behind [`{}`]; never dereferenced.", h.name));
        let handle_doc = doc::lines(&format!("Opaque handle owned by the driver.{safe}"));
        out.push(
            b.area(&h.name, h.line),
            quote! {
                #tag_doc
                #[repr(C)]
                pub struct #tag { _private: [u8; 0] }
                #docs
                #handle_doc
                pub type #name = *mut #tag;
            },
        );
    }
    for e in m.enums.values() {
        let (name, repr, docs) = (ident(&e.name), c_ty(&e.repr), doc::attrs(e.doc.as_deref()));
        let note = doc::lines(
            "\nA C enum: an integer type with one constant per value, so a value newer than the header still fits.",
        );
        let konsts = e.constants.iter().map(|k| {
            let (kname, v, kdocs) = (ident(&k.name), int_lit(k.value), doc::attrs(k.doc.as_deref()));
            quote!(#kdocs pub const #kname: #name = #v;)
        });
        out.push(b.area(&e.name, e.line), quote!(#docs #note pub type #name = #repr; #(#konsts)*));
    }
    let with_union = records_containing(m, |r| r.kind == RecordKind::Union);
    let with_fn_ptr = records_containing(m, |r| r.fields.iter().any(|f| matches!(f.ty, Ty::FnPtr { .. })));
    for r in m.records.values() {
        out.push(b.area(&r.name, r.line), record(r, with_union.contains(&r.name), with_fn_ptr.contains(&r.name)));
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

fn consts(b: &Bindings, out: &mut ByArea) {
    for c in b.model.constants.values() {
        let (name, docs) = (ident(&c.name), doc::attrs(c.doc.as_deref()));
        let item = match &c.value {
            ConstValue::Int { value, ty } => {
                let (ty, v) = (c_ty(ty), int_lit(*value));
                quote!(#docs pub const #name: #ty = #v;)
            }
            ConstValue::Float(f) => {
                let v = Literal::f64_suffixed(*f);
                quote!(#docs pub const #name: f64 = #v;)
            }
            ConstValue::Str(s) => quote!(#docs pub const #name: &str = #s;),
        };
        out.push(b.area(&c.name, c.line), item);
    }
}

/// The symbol table: every function's name by slot, and the versioned families.
fn symbols(b: &Bindings) -> TokenStream {
    let names: Vec<&String> = b.model.functions.keys().collect();
    let count = names.len();
    let family_rows = b.families.iter().map(|(api, syms)| quote!((#api, &[#(#syms),*])));
    let family_count = b.families.len();
    quote! {
        /// Every function nvml.h declares, in slot order; `NvmlLib` resolves each on first use.
        pub static SYMBOLS: [&str; #count] = [#(#names),*];

        /// Versioned families: API name and the symbols tried for it, newest first.
        pub static FAMILIES: [(&str, &[&str]); #family_count] = [#(#family_rows),*];
    }
}

/// Each area's `functions!` table, laid out here (prettyplease would print a macro's body on
/// a few long lines), and the versioned families' resolvers.
fn functions(b: &Bindings, out: &mut ByArea) {
    let m = &b.model;
    let mut tables: std::collections::BTreeMap<crate::rules::areas::Area, String> = Default::default();
    for (slot, f) in m.functions.values().enumerate() {
        let text = tables.entry(b.area(&f.name, f.line)).or_default();
        let mut docs = f.doc.as_deref().map(doc::to_markdown).unwrap_or_default();
        docs.push_str(&format!("\n\nC prototype: `{}`.", f.prototype()));
        if f.legacy {
            docs.push_str(" A legacy symbol: nvml.h declares it only under `NVML_NO_UNVERSIONED_FUNC_DEFS`.");
        }
        for line in docs.trim_start_matches('\n').lines() {
            let _ = writeln!(text, "    ///{}{line}", if line.is_empty() { "" } else { " " });
        }
        if f.deprecated {
            let _ = writeln!(text, "    #[deprecated(note = {:?})]", deprecation_note(f));
        }
        let params: Vec<String> = f.params.iter().map(|p| ty_text(&p.ty)).collect();
        let ret = if f.ret == Ty::Void { "()".to_string() } else { ty_text(&f.ret) };
        let _ = writeln!(text, "    {slot}: PFN_{0} = fn {0}({1}) -> {ret};", f.name, params.join(", "));
    }
    for (area, body) in tables {
        out.push_text(area, &format!("\nfunctions! {{\n{body}}}\n"));
    }
    for (api, syms) in &b.families {
        let area = m.functions.get(&syms[0]).map(|f| b.area(&f.name, f.line)).unwrap_or_else(|| b.type_area(api));
        out.push(area, family(api, syms));
    }
}

/// A deprecated function's note: its `@deprecated` text, or that nvml.h marks it.
pub fn deprecation_note(f: &crate::model::Function) -> String {
    f.docs.deprecated.as_deref().map(doc::inline_text).unwrap_or_else(|| "deprecated in nvml.h".to_string())
}

/// A type as Rust source text, spelled as [`c_ty`] spells it.
fn ty_text(t: &Ty) -> String {
    match t {
        Ty::Pointer { pointee, is_const } => {
            format!("*{} {}", if *is_const { "const" } else { "mut" }, ty_text(pointee))
        }
        Ty::Array { elem, len } => format!("[{}; {len}]", ty_text(elem)),
        Ty::FnPtr { ret, params } => {
            let ps: Vec<String> = params.iter().map(ty_text).collect();
            let r = if **ret == Ty::Void { String::new() } else { format!(" -> {}", ty_text(ret)) };
            format!("Option<unsafe extern \"C\" fn({}){r}>", ps.join(", "))
        }
        leaf => c_ty(leaf).to_string(),
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
            pub fn #resolver(&self) -> Result<#ty, MissingSymbol> {
                #(#tries)*
                Err(MissingSymbol::new(&#table))
            }
        }
    }
}

/// Compile-time layout assertions, from clang's layout for LP64 (x86-64 and aarch64 Linux):
/// on other data models `long` and pointer sizes differ, so the numbers do not apply there.
fn layout(b: &Bindings, out: &mut ByArea) {
    for r in b.model.records.values() {
        let name = ident(&r.name);
        let (size, align) = (Literal::u64_unsuffixed(r.size), Literal::u64_unsuffixed(r.align));
        let (size_msg, align_msg) = (format!("size of {}", r.name), format!("alignment of {}", r.name));
        let offsets = r.fields.iter().filter(|f| f.bit_width.is_none()).map(|f| {
            let (fname, off) = (ident(&f.name), Literal::u64_unsuffixed(f.offset));
            let msg = format!("offset of {}.{}", r.name, f.name);
            quote!(assert!(core::mem::offset_of!(#name, #fname) == #off, #msg);)
        });
        let block = quote! {
            #[cfg(all(target_pointer_width = "64", not(windows)))]
            const _: () = {
                assert!(core::mem::size_of::<#name>() == #size, #size_msg);
                assert!(core::mem::align_of::<#name>() == #align, #align_msg);
                #(#offsets)*
            };
        };
        out.push(b.area(&r.name, r.line), block);
    }
}
