//! The checks of the rules about buffers: `strings`, `arrays`, `not_arrays` and `counted`.

use std::collections::BTreeMap;

use crate::diag::Diagnostics;
use crate::model::{constant_value, enum_or_constant_value};
use crate::model::{Model, Ty};

use super::bindings::*;
use super::check::*;
use super::schema::*;

/// String buffers stated by `strings` rules (the plan derives the others).
pub(super) fn strings(i: &Inputs, d: &mut Diagnostics) -> BTreeMap<String, StringBuffer> {
    let Inputs { model, rules, .. } = *i;
    let mut strings = BTreeMap::new();
    for (func, rule) in &rules.strings {
        let p = i.place("strings", func);
        let Some(f) = function(model, func, &p, d) else { continue };
        let ok = check_param(
            f,
            &rule.buffer,
            &p,
            d,
            |t| matches!(t, Ty::Pointer { pointee, is_const: false } if **pointee == Ty::Char),
        ) & rule.length.as_ref().is_none_or(|length| {
            check_param(f, length, &p, d, |t| {
                is_uint(t) || matches!(t, Ty::Pointer { pointee, .. } if is_uint(pointee))
            })
        });
        let size = match &rule.size {
            None => None,
            Some(SizeSpec::Bytes(n)) => Some((None, *n)),
            Some(SizeSpec::Constant(c)) => match constant_value(model, c) {
                Some(v) => Some((Some(c.clone()), v)),
                None => {
                    d.error(p.clone(), format!("`{c}` is not an integer constant of the header"));
                    continue;
                }
            },
        };
        if rule.length.is_none() && size.is_none() {
            d.error(p.clone(), "a buffer without a `length` needs a `size`");
            continue;
        }
        if !ok {
            continue;
        }
        strings.insert(
            func.clone(),
            StringBuffer { buffer: rule.buffer.clone(), length: rule.length.clone(), size, origin: Origin::Rule },
        );
    }
    strings
}

/// Counts and arrays stated by `arrays` rules (the plan derives the others).
pub(super) fn arrays(i: &Inputs, d: &mut Diagnostics) -> BTreeMap<String, ArrayBuffer> {
    let Inputs { model, rules, .. } = *i;
    let mut arrays = BTreeMap::new();
    for (func, rule) in &rules.arrays {
        let p = i.place("arrays", func);
        let Some(f) = function(model, func, &p, d) else { continue };
        let names = rule.array_names();
        let mut ok = !names.is_empty();
        if names.is_empty() {
            d.error(p.clone(), "names no `array` (or `arrays`)");
        }
        ok &= check_param(f, &rule.count, &p, d, |t| {
            is_uint(t) || is_int(t) || matches!(t, Ty::Pointer { pointee, is_const: false } if is_uint(pointee))
        });
        for a in &names {
            ok &= check_param(f, a, &p, d, |t| matches!(t, Ty::Pointer { .. }));
        }
        let capacity = match &rule.capacity {
            None => None,
            Some(spec) => match size_value(model, spec) {
                Some(v) => Some(v),
                None => {
                    d.error(p.clone(), format!("`{spec:?}` is not an integer constant of the header"));
                    continue;
                }
            },
        };
        if rule.out_only && capacity.is_none() {
            d.error(p.clone(), "an `out_only` count needs a `capacity`");
            ok = false;
        }
        let unused = match &rule.unused {
            None => None,
            Some(c) => match enum_or_constant_value(model, c) {
                Some(v) => Some((c.clone(), v)),
                None => {
                    d.error(
                        p.clone(),
                        format!("unused: `{c}` is neither an enum constant nor an integer constant of the header"),
                    );
                    continue;
                }
            },
        };
        if rules.not_arrays.contains_key(func) {
            d.error(p.clone(), "the function is also listed under `not_arrays`");
            ok = false;
        }
        if ok {
            let resolved = ArrayBuffer {
                count: rule.count.clone(),
                arrays: names,
                capacity,
                out_only: rule.out_only,
                null_probe: rule.null_probe,
                bytes: rule.bytes,
                unused,
            };
            arrays.insert(func.clone(), resolved);
        }
    }
    arrays
}

/// Checks that each `not_arrays` rule names a function of the header.
pub(super) fn not_arrays(i: &Inputs, d: &mut Diagnostics) {
    let Inputs { model, rules, .. } = *i;
    for func in rules.not_arrays.keys() {
        function(model, func, &i.place("not_arrays", func), d);
    }
}

/// Each `former_names` key names a field of a record of the header.
/// The arrays of records whose filled entries a field of the record counts: derived where the
/// count field's comment names the array ("Number of valid entries in \\a cliques[]",
/// "Entries returned in \\a gridLicensableFeatures array"), and the `counted` rules, each of
/// an array and an integer field of one record (a rule the comments already give is reported).
pub(super) fn counted(i: &Inputs, d: &mut Diagnostics) -> BTreeMap<String, String> {
    let model = i.model;
    let mut out = derive_counted(model);
    for (key, count) in &i.rules.counted {
        let p = i.place("counted", key);
        let Some((r, _, array)) = record_field(model, key, &p, d) else { continue };
        let field = |n: &str| r.fields.iter().find(|f| f.name == n);
        if !field(array).is_some_and(|f| matches!(model.resolve_typedef(&f.ty), Ty::Array { .. })) {
            d.error(p.clone(), format!("`{array}` is not an array field of `{}`", r.name));
            continue;
        }
        if !field(count).is_some_and(|f| {
            is_integer(model.resolve_typedef(&f.ty)) || matches!(model.resolve_typedef(&f.ty), Ty::UChar | Ty::UShort)
        }) {
            d.error(p, format!("`{count}` is not an integer field of `{}`", r.name));
            continue;
        }
        if out.get(key) == Some(count) {
            d.warn(p, "matches nothing: the count field's comment names the array");
        }
        out.insert(key.clone(), count.clone());
    }
    out
}

/// `record.array` → count field, where the count field's comment names the array.
pub fn derive_counted(model: &Model) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for r in model.records.values() {
        let arrays: Vec<&str> = r
            .fields
            .iter()
            .filter(|f| matches!(model.resolve_typedef(&f.ty), Ty::Array { elem, .. } if !matches!(**elem, Ty::Char)))
            .map(|f| f.name.as_str())
            .collect();
        for f in r.fields.iter().filter(|f| is_integer(model.resolve_typedef(&f.ty)) || matches!(f.ty, Ty::UChar)) {
            let doc = f.doc.as_deref().unwrap_or("");
            let words: Vec<&str> = doc.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).collect();
            let counts = ["number", "entries", "count", "valid"].iter().any(|w| doc.to_ascii_lowercase().contains(w));
            if let (true, [array]) =
                (counts, arrays.iter().filter(|a| words.contains(a)).collect::<Vec<_>>().as_slice())
            {
                out.insert(format!("{}.{array}", r.name), f.name.clone());
            }
        }
    }
    out
}
