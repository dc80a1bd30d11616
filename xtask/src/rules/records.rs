//! The checks of the rules about records: `tagged_values`, `tagged_unions`, `byte_unions`,
//! `raw_unions`, `field_types`, `inputs`, `list_fields`, `former_names`, `fill_from_older`, `struct_versions`
//! and `absent_fields`.

use std::collections::{BTreeMap, BTreeSet};

use crate::diag::Diagnostics;
use crate::model::Ty;
use crate::model::{constant_value, union_of};

use super::check::*;
use super::names;
use super::schema::*;

/// Each `tagged_values` rule names an `nvmlValue_t` field of a record and where its type is:
/// an enum or integer field of the same record, an enum or integer out-parameter of a function
/// that takes an array of the record, or such a field of a record that points to one. The
/// fields of one record read their type from one place.
pub(super) fn tagged_values(i: &Inputs, d: &mut Diagnostics) -> BTreeMap<String, ValueTag> {
    let model = i.model;
    let enum_or_integer = |t: &Ty| is_enum_or_integer(model, t);
    let field_ty =
        |r: &crate::model::Record, name: &str| r.fields.iter().find(|f| f.name == name).map(|f| f.ty.clone());
    let mut resolved = BTreeMap::new();
    let mut external: BTreeMap<&str, &ValueTag> = BTreeMap::new();
    for (key, tag) in &i.rules.tagged_values {
        let p = i.place("tagged_values", key);
        let Some((r, record, field)) = record_field(model, key, &p, d) else { continue };
        if !field_ty(r, field).is_some_and(|t| is_value_union(model, &t)) {
            d.error(p.clone(), format!("`{field}` is not an `nvmlValue_t` field of `{record}`"));
        }
        let tag = match tag.split_once('.') {
            None => {
                if !field_ty(r, tag).is_some_and(|t| enum_or_integer(&t)) {
                    d.error(p, format!("`{tag}` is not an enum or integer field of `{record}`"));
                    continue;
                }
                ValueTag::Field(tag.clone())
            }
            Some((func, param)) if model.functions.contains_key(func) => {
                let f = &model.functions[func];
                let out = |t: &Ty| matches!(t, Ty::Pointer { is_const: false, pointee } if enum_or_integer(pointee));
                if !check_param(f, param, &p, d, out) {
                    continue;
                }
                if !f.params.iter().any(|q| points_to(model, &q.ty, record)) {
                    d.error(p, format!("`{func}` takes no array of `{record}`"));
                    continue;
                }
                // Every function that fills the record answers the type there.
                let others = model.functions.values().filter(|g| g.name != *func);
                if let Some(g) = others.into_iter().find(|g| g.params.iter().any(|q| points_to(model, &q.ty, record))) {
                    d.error(p, format!("`{}` takes `{record}` too, without `{param}`", g.name));
                    continue;
                }
                ValueTag::Param { function: func.to_string(), param: param.to_string() }
            }
            Some((outer, of)) => {
                let Some(o) = model.records.get(outer) else {
                    d.error(p, format!("`{outer}` is neither a function nor a record of the header"));
                    continue;
                };
                if !field_ty(o, of).is_some_and(|t| enum_or_integer(&t)) {
                    d.error(p, format!("`{of}` is not an enum or integer field of `{outer}`"));
                    continue;
                }
                if !o.fields.iter().any(|f| points_to(model, &f.ty, record)) {
                    d.error(p, format!("`{outer}` has no field that points to `{record}`"));
                    continue;
                }
                ValueTag::Outer { record: outer.to_string(), field: of.to_string() }
            }
        };
        resolved.insert(key.clone(), tag);
    }
    for (key, tag) in &resolved {
        let record = key.split_once('.').map_or(key.as_str(), |(r, _)| r);
        if tag.field().is_none() && *external.entry(record).or_insert(tag) != tag {
            d.error(i.place("tagged_values", key), format!("the fields of `{record}` read their type from two places"));
        }
    }
    resolved
}

/// Each `tagged_unions` rule names a union of the header, a member of it for each constant,
/// and record fields of the union's type, each with an enum or integer tag field beside it.
pub(super) fn tagged_unions(i: &Inputs, d: &mut Diagnostics) {
    let model = i.model;
    let mut seen: BTreeMap<&str, &str> = BTreeMap::new();
    for (name, rule) in &i.rules.tagged_unions {
        let p = i.place("tagged_unions", name);
        if !is_rust_type_name(name) {
            d.error(p.clone(), format!("`{name}` is not a Rust type name"));
        }
        let Some(u) = model.records.get(&rule.union).filter(|r| r.kind == crate::model::RecordKind::Union) else {
            d.error(p, format!("`{}` is not a union of the header", rule.union));
            continue;
        };
        for (constant, member) in &rule.members {
            if constant_value(model, constant).is_none() && !is_enum_constant(model, constant) {
                d.error(p.clone(), format!("members: `{constant}` is not an integer constant of the header"));
            }
            if !u.fields.iter().any(|f| f.name == *member) {
                d.error(p.clone(), format!("members: `{member}` is not a member of `{}`", rule.union));
            }
        }
        if rule.fields.is_empty() {
            d.warn(p.clone(), format!("matches nothing: no record field of type `{}` is named", rule.union));
        }
        for (key, tag) in &rule.fields {
            let Some((record, field)) = key.split_once('.') else {
                d.error(p.clone(), format!("fields: `{key}`: expected `record.field`"));
                continue;
            };
            if let Some(other) = seen.insert(key, name) {
                d.error(p.clone(), format!("fields: `{key}` is named by `{other}` too"));
            }
            let Some(r) = model.records.get(record) else {
                d.error(p.clone(), format!("fields: `{record}` is not a record of the header"));
                continue;
            };
            let ty = |n: &str| r.fields.iter().find(|f| f.name == n).map(|f| f.ty.clone());
            let of_union = ty(field).and_then(|t| union_of(model, &t)).is_some_and(|x| x.name == u.name);
            if !of_union {
                d.error(p.clone(), format!("fields: `{field}` is not a `{}` field of `{record}`", rule.union));
            }
            if !ty(tag).is_some_and(|t| is_enum_or_integer(model, &t)) {
                d.error(p.clone(), format!("fields: `{tag}` is not an enum or integer field of `{record}`"));
            }
        }
    }
}

/// Each `byte_unions` rule names a union field whose members are byte arrays of one size.
pub(super) fn byte_unions(i: &Inputs, d: &mut Diagnostics) {
    let model = i.model;
    for (key, name) in &i.rules.byte_unions {
        let p = i.place("byte_unions", key);
        let Some((r, record, field)) = record_field(model, key, &p, d) else { continue };
        let Some(u) = r.fields.iter().find(|f| f.name == field).and_then(|f| union_of(model, &f.ty)) else {
            d.error(p, format!("`{field}` is not a union field of `{record}`"));
            continue;
        };
        let lens: BTreeSet<Option<u64>> = u
            .fields
            .iter()
            .map(|f| match model.resolve_typedef(&f.ty) {
                Ty::Array { elem, len } if matches!(model.resolve_typedef(elem), Ty::UChar | Ty::Char) => Some(*len),
                _ => None,
            })
            .collect();
        if lens.len() != 1 || lens.contains(&None) {
            d.error(p.clone(), format!("the members of `{}` are not byte arrays of one size", u.name));
        }
        if r.fields.iter().any(|f| f.name != field && names::snake(&f.name) == *name) || names::snake(name) != *name {
            d.error(p, format!("`{name}` is not a free snake-case field name of `{record}`"));
        }
    }
}

/// Union fields of records without pointers that no rule reads: their safe record would show
/// the raw C union.
pub(super) fn raw_unions(i: &Inputs, tagged_values: &BTreeMap<String, ValueTag>, d: &mut Diagnostics) {
    let model = i.model;
    let read: BTreeSet<&str> = tagged_values
        .keys()
        .chain(i.rules.byte_unions.keys())
        .chain(i.rules.tagged_unions.values().flat_map(|r| r.fields.keys()))
        .map(String::as_str)
        .collect();
    for r in model.records.values().filter(|r| r.kind == crate::model::RecordKind::Struct) {
        if r.fields.iter().any(|f| matches!(model.resolve_typedef(&f.ty), Ty::Pointer { .. } | Ty::FnPtr { .. })) {
            continue;
        }
        for f in r.fields.iter().filter(|f| union_of(model, &f.ty).is_some()) {
            let key = format!("{}.{}", r.name, f.name);
            if !read.contains(key.as_str()) {
                d.warn(
                    format!("{}: tagged_unions", i.file),
                    format!("`{key}` is a union no `tagged_values`, `tagged_unions` or `byte_unions` rule reads"),
                );
            }
        }
    }
}

/// Each `field_types` rule names a field of a record of the header and a CamelCase type.
pub(super) fn field_types(i: &Inputs, d: &mut Diagnostics) {
    for (key, ty) in &i.rules.field_types {
        let p = i.place("field_types", key);
        let Some((record, field)) = key.split_once('.') else {
            d.error(p, "is not `record.field`");
            continue;
        };
        match i.model.records.get(record) {
            None => d.error(p, format!("the header has no record `{record}`")),
            Some(r) if !r.fields.iter().any(|f| f.name == field) => {
                d.error(p, format!("`{record}` has no field `{field}`"))
            }
            Some(_) if !ty.chars().next().is_some_and(|c| c.is_ascii_uppercase()) => {
                d.error(p, format!("`{ty}` is not a CamelCase Rust type name"))
            }
            Some(_) => {}
        }
    }
}

/// Each `inputs` rule names a record of the header and fields of it other than `version`.
pub(super) fn inputs(i: &Inputs, d: &mut Diagnostics) {
    for (record, fields) in &i.rules.inputs {
        let p = i.place("inputs", record);
        let Some(r) = i.model.records.get(record) else {
            d.error(p, format!("`{record}` is not a record of the header"));
            continue;
        };
        for field in fields {
            if field == "version" || !r.fields.iter().any(|f| f.name == *field) {
                d.error(p.clone(), format!("`{field}` is not a field of `{record}` the caller can set"));
            }
        }
    }
}

/// Each `list_fields` rule names an array field of records, its count field, and members of
/// the entry record set from constants of the header or from the older field.
pub(super) fn list_fields(i: &Inputs, d: &mut Diagnostics) {
    let model = i.model;
    for (key, rule) in &i.rules.list_fields {
        let p = i.place("list_fields", key);
        let Some((record, _, field)) = record_field(model, key, &p, d) else { continue };
        let Some(elem) = model.array_record(record, field) else {
            d.error(p, format!("`{field}` is not an array of records"));
            continue;
        };
        if !record.fields.iter().any(|f| f.name == rule.count) {
            d.error(p.clone(), format!("`{}` is not a field of `{}`", rule.count, record.name));
        }
        for (member, value) in &rule.entry {
            if !elem.fields.iter().any(|f| f.name == *member) {
                d.error(p.clone(), format!("`{member}` is not a field of `{}`", elem.name));
            }
            if *value != rule.from && constant_value(model, value).is_none() {
                d.error(
                    p.clone(),
                    format!("`{value}` is neither `{}` nor an integer constant of the header", rule.from),
                );
            }
        }
    }
}

pub(super) fn former_names(i: &Inputs, d: &mut Diagnostics) {
    for key in i.rules.former_names.keys() {
        let p = i.place("former_names", key);
        let Some((record, _, field)) = record_field(i.model, key, &p, d) else { continue };
        if !record.fields.iter().any(|g| g.name == field) {
            d.error(p, format!("`{field}` is not a field of `{}`", record.name));
        }
    }
}

/// Each `fill_from_older` key names a field of a record, and its value another record that has
/// a field of that name.
pub(super) fn fill_from_older(i: &Inputs, d: &mut Diagnostics) {
    for (key, older) in &i.rules.fill_from_older {
        let p = i.place("fill_from_older", key);
        let Some((record, _, field)) = record_field(i.model, key, &p, d) else { continue };
        if !record.fields.iter().any(|g| g.name == field) {
            d.error(p.clone(), format!("`{field}` is not a field of `{}`", record.name));
        }
        match i.model.records.get(older) {
            None => d.error(p, format!("`{older}` is not a record of the header")),
            Some(o) if !o.fields.iter().any(|g| g.name == field) => {
                d.error(p, format!("`{older}` has no field `{field}` to take"))
            }
            Some(_) => {}
        }
    }
}

/// The version constant of each versioned record: found by the header's naming (or its version
/// field's comment), with the `struct_versions` rules over it.
pub(super) fn struct_versions(i: &Inputs, d: &mut Diagnostics) -> BTreeMap<String, String> {
    let Inputs { model, rules, .. } = *i;
    let mut struct_versions = BTreeMap::new();
    for r in model.records.values().filter(|r| r.fields.first().is_some_and(|f| f.name == "version")) {
        let names = model
            .typedefs
            .values()
            .filter(|t| t.ty == Ty::Named(r.name.clone()))
            .map(|t| t.name.as_str())
            .chain([r.name.as_str()]);
        let found =
            names.filter_map(|n| n.strip_suffix("_t")).find(|c| constant_value(model, c).is_some()).map(str::to_string);
        // Else the version field's comment may name it: `IN: Set to NVML_GPM_SUPPORT_VERSION`.
        let named = || {
            let doc = r.fields[0].doc.as_deref()?;
            let rest = &doc[doc.find("Set to ")? + 7..];
            let c: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            constant_value(model, &c).is_some().then_some(c)
        };
        if let Some(c) = found.or_else(named) {
            struct_versions.insert(r.name.clone(), c);
        }
    }
    for (rec, c) in &rules.struct_versions {
        let p = i.place("struct_versions", rec);
        if !model.records.contains_key(rec) {
            d.error(p, format!("`{rec}` is not a record of the header"));
        } else if constant_value(model, c).is_none() {
            d.error(p, format!("`{c}` is not an integer constant of the header"));
        } else {
            if struct_versions.get(rec) == Some(c) {
                d.warn(p, "matches nothing: the header's naming gives the same constant");
            }
            struct_versions.insert(rec.clone(), c.clone());
        }
    }
    struct_versions
}

/// The values of `absent_fields` (fields that older layouts lack), resolved.
pub(super) fn absent_fields(i: &Inputs, d: &mut Diagnostics) -> BTreeMap<String, (Option<String>, u64)> {
    let Inputs { model, rules, .. } = *i;
    let mut absent_fields = BTreeMap::new();
    for (key, value) in &rules.absent_fields {
        let p = i.place("absent_fields", key);
        let known = key
            .split_once('.')
            .is_some_and(|(r, f)| model.records.get(r).is_some_and(|r| r.fields.iter().any(|x| x.name == f)));
        if !known {
            d.error(p.clone(), format!("`{key}` is not a `record.field` of the header"));
        }
        let resolved = match value {
            SizeSpec::Bytes(n) => Some((None, *n)),
            SizeSpec::Constant(c) => constant_value(model, c).map(|v| (Some(c.clone()), v)),
        };
        match resolved {
            Some(v) if known => {
                absent_fields.insert(key.clone(), v);
            }
            Some(_) => {}
            None => d.error(p, format!("`{value:?}` is not an integer constant of the header")),
        }
    }
    absent_fields
}
