//! The checks of the rules about types and constants: `type_renames`, `constant_renames`,
//! `bitflags` (and `values`) and `booleans`.

use std::collections::{BTreeMap, BTreeSet};

use crate::diag::Diagnostics;
use crate::model::constant_value;
use crate::model::Ty;

use super::check::*;
use super::names;
use super::schema::*;

/// Resolves `type_renames` to the enums they name (by the enum's name or a typedef of it) and
/// checks the names: CamelCase, and a former name other than the new one.
pub(super) fn type_renames(i: &Inputs, d: &mut Diagnostics) -> BTreeMap<String, Renamed> {
    let Inputs { model, rules, .. } = *i;
    let mut out = BTreeMap::new();
    for (c, r) in &rules.type_renames {
        let p = i.place("type_renames", c);
        let enum_name = match model.typedefs.get(c).map(|t| model.resolve_typedef(&t.ty)) {
            Some(Ty::Named(n)) if model.enums.contains_key(n) => n.clone(),
            _ if model.enums.contains_key(c) => c.clone(),
            _ => {
                d.error(p, format!("`{c}` is not an enum of the header (or a typedef of one)"));
                continue;
            }
        };
        check_renamed(r, is_rust_type_name, "CamelCase Rust type", &p, d);
        out.insert(enum_name, r.clone());
    }
    out
}

/// Checks `constant_renames`: a constant of an enum of the header, and SCREAMING_CASE names.
pub(super) fn constant_renames(i: &Inputs, d: &mut Diagnostics) {
    let Inputs { model, rules, .. } = *i;
    let screaming = |s: &str| {
        s.starts_with(|c: char| c.is_ascii_uppercase())
            && s.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
    };
    for (c, r) in &rules.constant_renames {
        let p = i.place("constant_renames", c);
        let Some(e) = model.enums.values().find(|e| e.constants.iter().any(|k| k.name == *c)) else {
            d.error(p, format!("`{c}` is not a constant of an enum of the header"));
            continue;
        };
        check_renamed(r, screaming, "SCREAMING_CASE Rust constant", &p, d);
        // The other constants' names in the type, each derived or renamed.
        let cnames: Vec<&str> = e.constants.iter().map(|k| k.name.as_str()).collect();
        let others: BTreeSet<String> = cnames
            .iter()
            .zip(names::constant_names(&cnames))
            .filter(|(k, _)| **k != c.as_str())
            .flat_map(|(k, derived)| match rules.constant_renames.get(*k) {
                Some(o) => std::iter::once(o.name.clone()).chain(o.former.clone()).collect::<Vec<_>>(),
                None => vec![derived],
            })
            .collect();
        for n in std::iter::once(&r.name).chain(&r.former).filter(|n| others.contains(*n)) {
            d.error(p.clone(), format!("`{n}` is already the name of another constant of `{}`", e.name));
        }
    }
}

/// Checks a rename's new and former name against `valid`.
pub(super) fn check_renamed(r: &Renamed, valid: impl Fn(&str) -> bool, what: &str, p: &str, d: &mut Diagnostics) {
    for n in std::iter::once(&r.name).chain(&r.former) {
        if !valid(n) {
            d.error(p.to_string(), format!("`{n}` is not a {what} name"));
        }
    }
    if r.former.as_ref() == Some(&r.name) {
        d.error(p.to_string(), format!("`{}` is both the new and the former name", r.name));
    }
}

pub(super) fn bitflags(i: &Inputs, d: &mut Diagnostics) {
    let Inputs { model, rules, .. } = *i;
    let tables = rules.bitflags.iter().map(|r| ("bitflags", r)).chain(rules.values.iter().map(|r| ("values", r)));
    for (table, (name, flags)) in tables {
        let p = i.place(table, name);
        if rules.bitflags.contains_key(name) && rules.values.contains_key(name) {
            d.error(p.clone(), format!("`{name}` is named by both `bitflags` and `values`"));
        }
        if let Some(td) = &flags.typedef {
            if table == "bitflags" {
                d.error(p.clone(), "`typedef` is for `values` rules");
            } else if !model.typedefs.contains_key(td) {
                d.error(p.clone(), format!("`{td}` is not a typedef of the header"));
            }
        }
        if !is_rust_type_name(name) {
            d.error(p.clone(), format!("`{name}` is not a Rust type name"));
        }
        if !model.constants.keys().any(|c| c.starts_with(&flags.prefix) && constant_value(model, c).is_some()) {
            d.error(p.clone(), format!("no integer constant starts with `{}`", flags.prefix));
        }
        for a in flags.aliases.iter().filter(|a| !model.constants.keys().any(|c| c.starts_with(a.as_str()))) {
            d.error(p.clone(), format!("aliases: no constant starts with `{a}`"));
        }
        for c in flags.exclude.iter().filter(|c| !c.starts_with(&flags.prefix) || !model.constants.contains_key(*c)) {
            d.error(p.clone(), format!("exclude: `{c}` is not a constant starting with `{}`", flags.prefix));
        }
        for fp in &flags.params {
            match fp.split_once('.') {
                Some((func, param)) => {
                    if let Some(f) = function(model, func, &p, d) {
                        check_param(
                            f,
                            param,
                            &p,
                            d,
                            |t| !matches!(t, Ty::Pointer { pointee, .. } if !is_integer(pointee)),
                        );
                    }
                }
                None => d.error(p.clone(), format!("`{fp}`: expected `function.parameter`")),
            }
        }
        for ff in &flags.fields {
            let ok = ff
                .split_once('.')
                .is_some_and(|(r, f)| model.records.get(r).is_some_and(|r| r.fields.iter().any(|x| x.name == f)));
            if !ok {
                d.error(p.clone(), format!("`{ff}` is not a `record.field` of the header"));
            }
        }
    }
}

/// Checks `bitflags`: a type name, constants with the prefix and the aliases, excluded constants,
/// and the parameters and fields that carry the flags.
/// Each `booleans` entry names an integer or enum parameter (or a pointer to one) of a
/// function, an integer or enum field of a record (`record.field`, an array of them included),
/// or an enum typedef every use of which is a yes or no.
pub(super) fn booleans(i: &Inputs, d: &mut Diagnostics) {
    let model = i.model;
    let yes_no = |t: &Ty| {
        let t = match model.resolve_typedef(t) {
            Ty::Pointer { pointee, .. } | Ty::Array { elem: pointee, .. } => model.resolve_typedef(pointee),
            t => t,
        };
        is_enum_or_integer(model, t) || matches!(t, Ty::UChar | Ty::Char | Ty::UShort | Ty::Short)
    };
    for key in &i.rules.booleans {
        let p = i.place("booleans", key);
        let Some((owner, member)) = key.split_once('.') else {
            let is_enum =
                model.typedefs.get(key).is_some_and(|t| is_enum_or_integer(model, &t.ty) && !is_integer(&t.ty))
                    || model.enums.contains_key(key);
            if !is_enum {
                d.error(
                    p,
                    format!(
                        "`{key}` is not an enum typedef of the header (or a `function.parameter`, a `record.field`)"
                    ),
                );
            }
            continue;
        };
        if model.records.contains_key(owner) {
            if let Some((r, _, field)) = record_field(model, key, &p, d) {
                if r.fields.iter().find(|f| f.name == field).is_some_and(|f| !yes_no(&f.ty)) {
                    d.error(p, format!("field `{field}` of `{owner}` is not an integer or an enum"));
                }
            }
        } else if let Some(f) = function(model, owner, &p, d) {
            check_param(f, member, &p, d, yes_no);
        }
    }
}
