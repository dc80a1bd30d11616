//! A recording's answers as profile YAML: function values typed by the header's schema (enum
//! constants by name, records by field with zeros left out), and dotted keys set in a mapping.
//! The profile's layout is `draft::write`'s.

use std::collections::BTreeMap;

use serde_yaml::{Mapping, Value};

use super::record::Answer;
use crate::answer::{constant, enum_constants, schema, Val};
use crate::reading::is_zero;
use crate::schema::{Output, RecordSchema, Shape, T};

/// The name of a return code (`NVML_ERROR_NOT_SUPPORTED`), or its number.
pub fn code_name(code: u32) -> Value {
    crate::generated::names::CONSTANTS
        .iter()
        .find(|(n, v)| *v == i128::from(code) && (*n == "NVML_SUCCESS" || n.starts_with("NVML_ERROR_")))
        .map(|(n, _)| Value::String((*n).to_string()))
        .unwrap_or_else(|| Value::Number(code.into()))
}

/// The constant of enum `e` whose value is `v` (the first one the header declares), or `v`.
fn enum_name(e: &str, v: i128) -> Value {
    enum_constants(e)
        .iter()
        .find(|c| constant(c) == Some(v))
        .map(|c| Value::String((*c).to_string()))
        .unwrap_or_else(|| number(v))
}

fn number(v: i128) -> Value {
    match (i64::try_from(v), u64::try_from(v)) {
        (Ok(i), _) => Value::Number(i.into()),
        (_, Ok(u)) => Value::Number(u.into()),
        _ => Value::Number(0.into()),
    }
}

fn record_schema(name: &str) -> Option<&'static RecordSchema> {
    crate::generated::tables::RECORDS
        .iter()
        .find_map(|area| area.binary_search_by(|r| r.name.cmp(name)).ok().map(|i| &area[i]))
}

/// A value of type `t` as a profile writes it.
pub fn value(t: &T, v: &Val) -> Value {
    match (t, v) {
        (T::Enum(e), Val::Int(i)) => enum_name(e, *i),
        (_, Val::Int(i)) => number(*i),
        (_, Val::Float(f)) => Value::Number((*f).into()),
        (_, Val::Str(s)) => Value::String(s.clone()),
        (T::Array(e, _), Val::List(items)) => Value::Sequence(items.iter().map(|x| value(e, x)).collect()),
        (_, Val::List(items)) => Value::Sequence(items.iter().map(|x| value(&T::Flags, x)).collect()),
        (T::Record(r) | T::Union(r), Val::Record(fields)) => {
            let mut m = Mapping::new();
            let schema = record_schema(r);
            for (name, x) in fields {
                // A field left out reads as 0, except a version (its layout's by default).
                if is_zero(x) && *name != "version" {
                    continue;
                }
                let ft = schema.and_then(|s| s.fields.iter().find(|f| f.name == *name)).map(|f| &f.ty);
                m.insert(Value::String(name.to_string()), value(ft.unwrap_or(&T::Flags), x));
            }
            Value::Mapping(m)
        }
        (T::Union(r), Val::Member(i, x)) => {
            let mut m = Mapping::new();
            if let Some(f) = record_schema(r).and_then(|s| s.fields.get(*i)) {
                m.insert(Value::String(f.name.to_string()), value(&f.ty, x));
            }
            Value::Mapping(m)
        }
        _ => Value::Null,
    }
}

fn output(o: &Output, v: &Val) -> Value {
    match o.shape {
        Shape::Value => value(&o.ty, v),
        Shape::List => Value::Sequence(v.items().iter().map(|x| value(&o.ty, x)).collect()),
    }
}

/// An error entry.
pub fn error(code: u32, reason: &str) -> Value {
    let mut m = Mapping::new();
    m.insert("error".into(), code_name(code));
    m.insert("reason".into(), Value::String(reason.to_string()));
    Value::Mapping(m)
}

/// One answer as a function value.
fn leaf(outputs: &[Output], a: &Answer, reason: &str) -> Value {
    match a {
        Err(code) => error(*code, reason),
        Ok(vals) => match outputs {
            [only] => vals.first().map(|v| output(only, v)).unwrap_or(Value::Null),
            _ => {
                let mut m = Mapping::new();
                for (o, v) in outputs.iter().zip(vals) {
                    m.insert(Value::String(o.name.to_string()), output(o, v));
                }
                Value::Mapping(m)
            }
        },
    }
}

/// A function's recorded answers as its value in a profile: by selector value level by level
/// (constants by name), a level whose answers are all the same written once as `"*"`.
pub fn entry(function: &str, by: &BTreeMap<Vec<i64>, Answer>, reason: &str) -> Option<Value> {
    let s = schema(function)?;
    let rows: Vec<(&[i64], &Answer)> = by.iter().map(|(k, a)| (k.as_slice(), a)).collect();
    Some(level(s.selectors, s.outputs, &rows, reason))
}

fn level(selectors: &[crate::schema::Field], outputs: &[Output], rows: &[(&[i64], &Answer)], reason: &str) -> Value {
    let Some((sel, rest)) = selectors.split_first() else {
        return rows.first().map(|(_, a)| leaf(outputs, a, reason)).unwrap_or(Value::Null);
    };
    let mut groups: BTreeMap<i64, Vec<(&[i64], &Answer)>> = BTreeMap::new();
    for (k, a) in rows {
        if let Some((first, tail)) = k.split_first() {
            groups.entry(*first).or_default().push((tail, a));
        }
    }
    let children: Vec<(i64, Value)> = groups.iter().map(|(k, g)| (*k, level(rest, outputs, g, reason))).collect();
    let mut m = Mapping::new();
    let all_same = children.windows(2).all(|w| w[0].1 == w[1].1);
    if all_same && !children.is_empty() {
        m.insert("*".into(), children[0].1.clone());
        return Value::Mapping(m);
    }
    for (k, v) in children {
        let key = match &sel.ty {
            T::Enum(e) => enum_name(e, k.into()),
            _ => number(k.into()),
        };
        m.insert(key, v);
    }
    Value::Mapping(m)
}

/// Sets `path` (dotted) in a mapping, creating the mappings on the way.
pub fn set(m: &mut Mapping, path: &str, v: Value) {
    match path.split_once('.') {
        None => {
            m.insert(Value::String(path.to_string()), v);
        }
        Some((head, rest)) => {
            let key = Value::String(head.to_string());
            if !matches!(m.get(&key), Some(Value::Mapping(_))) {
                m.insert(key.clone(), Value::Mapping(Mapping::new()));
            }
            if let Some(Value::Mapping(inner)) = m.get_mut(&key) {
                set(inner, rest, v);
            }
        }
    }
}
