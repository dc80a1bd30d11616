//! How C values cross into the safe API, for the emitters of types, records and methods: the
//! safe type of a C type, the conversions between the two, and the Rust names of return codes,
//! enum constants and fields.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::Names;
use crate::emit::ident;
use crate::model::{Model, RecordKind, Ty};
use crate::rules::names::{camel_from_screaming, constant_names, snake};
use crate::rules::{Bindings, UnionRule, ValueTag};

/// The Rust spelling of a C scalar in the safe API.
pub fn scalar(t: &Ty) -> TokenStream {
    match t {
        Ty::Bool => quote!(bool),
        Ty::Char => quote!(core::ffi::c_char),
        Ty::SChar => quote!(i8),
        Ty::UChar => quote!(u8),
        Ty::Short => quote!(i16),
        Ty::UShort => quote!(u16),
        Ty::Int => quote!(i32),
        Ty::UInt => quote!(u32),
        Ty::Long => quote!(core::ffi::c_long),
        Ty::ULong => quote!(core::ffi::c_ulong),
        Ty::LongLong => quote!(i64),
        Ty::ULongLong => quote!(u64),
        Ty::Float => quote!(f32),
        Ty::Double => quote!(f64),
        other => {
            let s = other.c_spelling();
            quote!(compile_error!(#s))
        }
    }
}

/// The return-code enum of the header.
pub fn return_enum(m: &Model) -> Option<&crate::model::Enum> {
    m.enums.values().find(|e| e.constants.iter().any(|c| c.name == "NVML_SUCCESS"))
}

/// The `Error` variant of a return code of the header (`NVML_ERROR_INVALID_ARGUMENT` →
/// `InvalidArgument`); codes of one value share the first one's variant. `None` for
/// `NVML_SUCCESS` and names that are no return code.
pub fn error_variant(m: &Model, code: &str) -> Option<String> {
    let e = return_enum(m)?;
    let value = e.constants.iter().find(|k| k.name == code)?.value.as_i128();
    let first = e.constants.iter().find(|k| k.value.as_i128() == value)?;
    match first.name.as_str() {
        "NVML_SUCCESS" => None,
        "NVML_ERROR_UNKNOWN" => Some("Unknown".to_string()),
        name => Some(camel_from_screaming(name.strip_prefix("NVML_ERROR_").unwrap_or(name))),
    }
}

/// `#[doc(alias)]`s for every C name of a type: its name, its tag, and the typedefs of it.
pub fn doc_aliases(m: &Model, name: &str) -> Vec<TokenStream> {
    let mut names: BTreeSet<&str> = BTreeSet::from([name]);
    names.extend(m.records.get(name).and_then(|r| r.tag.as_deref()));
    names.extend(m.enums.get(name).and_then(|e| e.tag.as_deref()));
    names.extend(m.typedefs.values().filter(|t| t.ty == Ty::Named(name.to_string())).map(|t| t.name.as_str()));
    names.into_iter().map(|n| quote!(#[doc(alias = #n)])).collect()
}

/// The names of an enum's constants in its safe type: derived, or as `constant_renames` says.
pub fn enum_constant_names(b: &Bindings, e: &crate::model::Enum) -> Vec<String> {
    let cnames: Vec<&str> = e.constants.iter().map(|k| k.name.as_str()).collect();
    let derived = constant_names(&cnames);
    cnames.iter().zip(derived).map(|(c, d)| b.constant_renames.get(*c).map_or(d, |r| r.name.clone())).collect()
}

/// How a record field crosses: its safe type, and expressions to convert.
pub struct FieldConv {
    pub ty: TokenStream,
    /// Whether the safe type implements `PartialEq` (raw unions do not).
    pub eq: bool,
    pub serde: bool,
}

/// The safe type of a field (or array element) of C type `t`.
pub fn field_conv(b: &Bindings, names: &Names, t: &Ty, flags: Option<&str>) -> FieldConv {
    let m = &b.model;
    if let Some(f) = flags {
        let f = format_ident!("{f}");
        return FieldConv { ty: quote!(#f), eq: true, serde: true };
    }
    if let Ty::Named(n) = t {
        if let Some(h) = m.handles.get(n) {
            let tag = format_ident!("{}", h.tag);
            return FieldConv { ty: quote!(crate::RawHandle<sys::#tag>), eq: true, serde: false };
        }
    }
    match m.resolve_typedef(t) {
        Ty::Array { elem, .. } if matches!(m.resolve_typedef(elem), Ty::Char) => {
            FieldConv { ty: quote!(String), eq: true, serde: true }
        }
        Ty::Array { elem, .. } => {
            let inner = field_conv(b, names, elem, None);
            let ty = inner.ty;
            FieldConv { ty: quote!(Vec<#ty>), ..inner }
        }
        Ty::Named(n) if m.enums.contains_key(n) => {
            let ty = names.ty(n);
            FieldConv { ty: quote!(#ty), eq: true, serde: true }
        }
        Ty::Named(n) if names.records.contains(n) => {
            let ty = names.ty(n);
            FieldConv { ty: quote!(#ty), eq: !holds_union(m, n), serde: true }
        }
        Ty::Named(n) => {
            let raw = format_ident!("{n}");
            FieldConv { ty: quote!(sys::#raw), eq: false, serde: false }
        }
        s => FieldConv { ty: scalar(s), eq: true, serde: true },
    }
}

/// `raw → safe` for a value of C type `t` at place `src`.
pub fn from_raw(b: &Bindings, names: &Names, t: &Ty, flags: Option<&str>, src: TokenStream) -> TokenStream {
    let m = &b.model;
    if let Some(f) = flags {
        let f = format_ident!("{f}");
        return quote!(#f::from_bits_retain(#src as _));
    }
    if let Ty::Named(n) = t {
        if m.handles.contains_key(n) {
            return quote!(crate::RawHandle::new(#src));
        }
    }
    match m.resolve_typedef(t) {
        Ty::Array { elem, .. } if matches!(m.resolve_typedef(elem), Ty::Char) => quote!(ffi::string_from(&#src)),
        Ty::Array { elem, .. } => {
            let inner = from_raw(b, names, elem, None, quote!((*x)));
            quote!(#src.iter().map(|x| #inner).collect())
        }
        Ty::Named(n) if m.enums.contains_key(n) => {
            let ty = names.ty(n);
            quote!(#ty(#src))
        }
        Ty::Named(n) if names.records.contains(n) => {
            let ty = names.ty(n);
            quote!(<#ty as crate::raw::FromRaw<_>>::from_raw(&#src))
        }
        _ => src,
    }
}

/// `raw → safe` for a record `n` at place `x` that a method reads: `From`, or `from_raw` with
/// the value type the function answers beside it (a `tagged_values` rule naming a parameter),
/// which the method holds in the local `local(parameter)`.
pub fn record_of(
    b: &Bindings,
    names: &Names,
    n: &str,
    x: TokenStream,
    local: impl Fn(&str) -> TokenStream,
) -> TokenStream {
    let ty = names.ty(n);
    let param = b.tagged_values.iter().find_map(|(k, tag)| match tag {
        ValueTag::Param { param, .. } if k.strip_prefix(n).is_some_and(|f| f.starts_with('.')) => Some(param),
        _ => None,
    });
    match param {
        Some(p) => {
            let l = local(p);
            quote!(#ty::from_raw_typed(&#x, ValueType(#l as _)))
        }
        None => quote!(<#ty as crate::raw::FromRaw<_>>::from_raw(&#x)),
    }
}

/// `dst = safe → raw` for a value of C type `t`.
pub fn to_raw(b: &Bindings, names: &Names, t: &Ty, flags: bool, dst: TokenStream, src: TokenStream) -> TokenStream {
    let m = &b.model;
    if flags {
        return quote!(#dst = #src.bits() as _;);
    }
    if let Ty::Named(n) = t {
        if m.handles.contains_key(n) {
            return quote!(#dst = #src.as_ptr(););
        }
    }
    match m.resolve_typedef(t) {
        Ty::Array { elem, .. } if matches!(m.resolve_typedef(elem), Ty::Char) => {
            quote!(ffi::set_string(&mut #dst, &#src);)
        }
        Ty::Array { elem, .. } => {
            let inner = to_raw(b, names, elem, false, quote!(*d), quote!((*s)));
            quote!(for (d, s) in #dst.iter_mut().zip(#src.iter()) { #inner })
        }
        Ty::Named(n) if m.enums.contains_key(n) => quote!(#dst = #src.0;),
        Ty::Named(n) if names.records.contains(n) => quote!(#dst = crate::raw::ToRaw::to_raw(&#src);),
        _ => quote!(#dst = #src;),
    }
}

pub fn holds_union(m: &Model, name: &str) -> bool {
    fn walk(m: &Model, t: &Ty, depth: usize) -> bool {
        match m.resolve_typedef(t) {
            Ty::Array { elem, .. } => walk(m, elem, depth),
            Ty::Named(n) => match m.records.get(n) {
                Some(r) if r.kind == RecordKind::Union => true,
                Some(r) if depth < 8 => r.fields.iter().any(|f| walk(m, &f.ty, depth + 1)),
                _ => false,
            },
            _ => false,
        }
    }
    walk(m, &Ty::Named(name.to_string()), 0)
}

/// The `tagged_unions` rules of a record's fields: `(field, tag field, enum name)`.
pub fn union_fields<'b>(b: &'b Bindings, record: &str) -> Vec<(&'b str, &'b str, &'b str)> {
    b.tagged_unions
        .iter()
        .flat_map(|(name, rule)| rule.fields.iter().map(move |(k, tag)| (k, tag, name)))
        .filter_map(|(k, tag, name)| Some((k.strip_prefix(record)?.strip_prefix('.')?, tag.as_str(), name.as_str())))
        .collect()
}

/// Whether a `tagged_unions` rule's enum implements `PartialEq`: its members' safe types do.
pub fn union_eq(b: &Bindings, names: &Names, rule: &UnionRule) -> bool {
    let Some(u) = b.model.records.get(&rule.union) else { return false };
    u.fields
        .iter()
        .filter(|f| rule.members.values().any(|m| *m == f.name))
        .all(|f| field_conv(b, names, &f.ty, None).eq)
}

/// The safe field name of a C field.
pub fn field_ident(c: &str) -> proc_macro2::Ident {
    ident(&snake(c))
}

/// The key a field of C name `c` has in `serde` output: its Rust name (`busIdLegacy` →
/// `bus_id_legacy`, `type` → `type`), as a derive would write it.
pub fn serde_key(c: &str) -> String {
    let id = field_ident(c).to_string();
    id.strip_prefix("r#").map(str::to_string).unwrap_or(id)
}
