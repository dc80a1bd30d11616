//! What every table's check reads ([`Inputs`]: the header, the rules, the file) and the checks
//! the tables share: a function or parameter the header must have, integer types, names.

use crate::diag::Diagnostics;
use crate::model::constant_value;
use crate::model::{Function, Model, Ty};

use super::schema::*;

/// What the check of every table reads: the header, the rules, and the rules' file (for messages).
#[derive(Clone, Copy)]
pub(super) struct Inputs<'a> {
    pub(super) model: &'a Model,
    pub(super) rules: &'a Rules,
    pub(super) file: &'a str,
}

impl Inputs<'_> {
    /// Where a diagnostic about `section.key` points.
    pub(super) fn place(&self, section: &str, key: &str) -> String {
        format!("{}: {section}.{key}", self.file)
    }
}

pub(super) fn function<'m>(model: &'m Model, name: &str, place: &str, d: &mut Diagnostics) -> Option<&'m Function> {
    let f = model.functions.get(name);
    if f.is_none() {
        d.error(place.to_string(), format!("`{name}` is not a function of the header"));
    }
    f
}

/// Checks that `f` has a parameter `name` whose type passes `ok`; reports otherwise.
pub(super) fn check_param(
    f: &Function,
    name: &str,
    place: &str,
    d: &mut Diagnostics,
    ok: impl Fn(&Ty) -> bool,
) -> bool {
    match f.params.iter().find(|p| p.name == name) {
        None => {
            let names: Vec<&str> = f.params.iter().map(|p| p.name.as_str()).collect();
            d.error(
                place.to_string(),
                format!("`{}` has no parameter `{name}` (it has: {})", f.name, names.join(", ")),
            );
            false
        }
        Some(p) if !ok(&p.ty) => {
            d.error(
                place.to_string(),
                format!(
                    "parameter `{name}` of `{}` has type `{}`, which does not fit this rule",
                    f.name,
                    p.ty.c_spelling()
                ),
            );
            false
        }
        Some(_) => true,
    }
}

pub(super) fn is_uint(t: &Ty) -> bool {
    matches!(t, Ty::UInt)
}

pub(super) fn is_int(t: &Ty) -> bool {
    matches!(t, Ty::Int)
}

pub(super) fn is_integer(t: &Ty) -> bool {
    matches!(t, Ty::UInt | Ty::Int | Ty::ULongLong | Ty::LongLong | Ty::ULong | Ty::Long)
}

/// The value of a size: a number, or an integer constant of the header.
pub fn size_value(model: &Model, spec: &SizeSpec) -> Option<u64> {
    match spec {
        SizeSpec::Bytes(n) => Some(*n),
        SizeSpec::Constant(c) => constant_value(model, c),
    }
}

/// `prefix*` matches by prefix; anything else matches exactly.
pub fn glob_match(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => pattern == name,
    }
}

pub(super) fn is_rust_type_name(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_uppercase()) && s.chars().all(|c| c.is_ascii_alphanumeric())
}

pub fn is_rust_fn_name(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && s.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// The record of a `record.field` key, and the key's two parts; reports a key of another
/// shape or naming no record of the header.
pub(super) fn record_field<'k, 'm>(
    model: &'m Model,
    key: &'k str,
    place: &str,
    d: &mut Diagnostics,
) -> Option<(&'m crate::model::Record, &'k str, &'k str)> {
    let Some((record, field)) = key.split_once('.') else {
        d.error(place.to_string(), format!("`{key}`: expected `record.field`"));
        return None;
    };
    let Some(r) = model.records.get(record) else {
        d.error(place.to_string(), format!("`{record}` is not a record of the header"));
        return None;
    };
    Some((r, record, field))
}

/// Whether `t` is an enum or an integer type.
pub(super) fn is_enum_or_integer(model: &Model, t: &Ty) -> bool {
    let t = model.resolve_typedef(t);
    is_integer(t) || matches!(t, Ty::Named(n) if model.enums.contains_key(n))
}

/// Whether `t` is `nvmlValue_t`.
pub(super) fn is_value_union(model: &Model, t: &Ty) -> bool {
    matches!(model.resolve_typedef(t), Ty::Named(n) if n == "nvmlValue_st" || n == "nvmlValue_t")
}

/// Whether `t` points to record `record` (or is an array of it).
pub(super) fn points_to(model: &Model, t: &Ty, record: &str) -> bool {
    match model.resolve_typedef(t) {
        Ty::Pointer { pointee, .. } | Ty::Array { elem: pointee, .. } => {
            matches!(model.resolve_typedef(pointee), Ty::Named(n) if n == record)
        }
        _ => false,
    }
}

pub(super) fn is_enum_constant(model: &Model, name: &str) -> bool {
    model.enums.values().any(|e| e.constants.iter().any(|k| k.name == name))
}
