//! What a header of a published release declared and a newer header dropped, kept.
//!
//! nvmlkit promises that a new NVIDIA header is a minor release: when NVIDIA removes a
//! function or a constant from `nvml.h`, the crates keep it, marked deprecated, as the header
//! of the release before declared it (the records, enums and typedefs it needs come along).
//! Drivers often still export a function their header dropped; one that does not answers
//! `Error::FunctionNotFound`, as for any function a driver predates. [`keep_removed`] merges
//! the kept declarations into the new header's model before the rules and the plan see it.

use std::collections::BTreeSet;

use super::{EnumConstant, Function, Model, Ty};

/// What [`keep_removed`] kept, and what it could not keep.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Kept {
    /// Functions, in name order.
    pub functions: Vec<String>,
    /// `#define` constants and enum constants, in name order.
    pub constants: Vec<String>,
    /// Records and enums no kept function needs, in name order.
    pub types: Vec<String>,
    /// Functions that could not be kept, with why: a type they name has another definition in
    /// the new header.
    pub refused: Vec<(String, String)>,
}

/// Adds to `new` the functions and constants of `old` (the header of the last release) that
/// `new` lacks, deprecated, with the records, enums, typedefs and handles they name that `new`
/// lacks. A function naming a type that `new` defines otherwise is not kept (its layout would be
/// the new one's, which the library the function belongs to does not know).
pub fn keep_removed(new: &mut Model, old: &Model) -> Kept {
    let mut kept = Kept::default();
    let (from, removed_in) = (old.header.version.clone(), new.header.version.clone());
    let note = format!(
        "Removed from nvml.h {removed_in}; kept as nvml.h {from} declared it, so that code written against it still builds. A driver without the symbol answers NVML_ERROR_FUNCTION_NOT_FOUND."
    );
    let removed: Vec<&Function> =
        old.functions.values().filter(|f| !f.legacy && !new.functions.contains_key(&f.name)).collect();
    for f in removed {
        let mut needed = BTreeSet::new();
        let mut conflict = None;
        for t in std::iter::once(&f.ret).chain(f.params.iter().map(|p| &p.ty)) {
            needs(old, new, t, &mut needed, &mut conflict);
        }
        if let Some(why) = conflict {
            kept.refused.push((f.name.clone(), why));
            continue;
        }
        for n in needed {
            copy_type(old, new, &n);
        }
        let mut g: Function = f.clone();
        g.deprecated = true;
        g.docs.deprecated = Some(note.clone());
        g.doc = Some(format!("{}\n\n@deprecated {note}", g.doc.unwrap_or_default()).trim_start().to_string());
        // The old header's lines mean nothing in the new one: no group, no area of its own.
        g.line = 0;
        new.functions.insert(g.name.clone(), g);
        kept.functions.push(f.name.clone());
    }
    // Records and enums NVIDIA removed are public types too (a struct per record, an open
    // newtype per enum): kept, with what they name. A record that is a layout of a family keeps
    // its fields in the family's type.
    let removed: Vec<String> = old
        .records
        .values()
        .filter(|r| r.parent.is_none())
        .map(|r| r.name.clone())
        .chain(old.enums.keys().cloned())
        .filter(|n| !new.has_type(n))
        .collect();
    // One the new header still has under a typedef name of the old one (its tag dropped or
    // renamed: `nvmlReturn_enum` became the anonymous `nvmlReturn_t`) is no loss.
    let renamed = |name: &str| {
        old.typedefs.values().filter(|t| t.ty == Ty::Named(name.to_string())).any(|t| {
            let named_now = new.records.contains_key(&t.name) || new.enums.contains_key(&t.name);
            named_now && !old.records.contains_key(&t.name) && !old.enums.contains_key(&t.name)
        })
    };
    let removed: Vec<String> = removed.into_iter().filter(|n| !renamed(n)).collect();
    for name in removed {
        let (mut needed, mut conflict) = (BTreeSet::new(), None);
        needs(old, new, &Ty::Named(name.clone()), &mut needed, &mut conflict);
        if conflict.is_some() {
            continue;
        }
        for n in needed {
            copy_type(old, new, &n);
        }
        kept.types.push(name);
    }
    let const_note = format!("@deprecated Removed from nvml.h {removed_in}; kept as nvml.h {from} declared it.");
    let removed: Vec<&super::Constant> =
        old.constants.values().filter(|c| !new.constants.contains_key(&c.name)).collect();
    for c in removed {
        // An old constant that became an enum constant, or a function-like alias, is no loss.
        if new.enums.values().any(|e| e.constants.iter().any(|k| k.name == c.name)) {
            continue;
        }
        let mut c = c.clone();
        c.doc = Some(format!("{}\n\n{const_note}", c.doc.unwrap_or_default()).trim_start().to_string());
        c.line = 0;
        kept.constants.push(c.name.clone());
        new.constants.insert(c.name.clone(), c);
    }
    for (name, e) in &old.enums {
        let Some(ne) = new.enums.get_mut(name) else { continue };
        let missing: Vec<EnumConstant> =
            e.constants.iter().filter(|k| !ne.constants.iter().any(|n| n.name == k.name)).cloned().collect();
        for mut k in missing {
            k.doc = Some(format!("{}\n\n{const_note}", k.doc.unwrap_or_default()).trim_start().to_string());
            kept.constants.push(k.name.clone());
            ne.constants.push(k);
        }
    }
    kept.constants.sort();
    kept
}

/// Collects into `needed` the named types `t` refers to (transitively) that `new` lacks; a
/// type `new` has with another definition sets `conflict`.
fn needs(old: &Model, new: &Model, t: &Ty, needed: &mut BTreeSet<String>, conflict: &mut Option<String>) {
    match t {
        Ty::Pointer { pointee, .. } => needs(old, new, pointee, needed, conflict),
        Ty::Array { elem, .. } => needs(old, new, elem, needed, conflict),
        Ty::FnPtr { ret, params } => {
            needs(old, new, ret, needed, conflict);
            for p in params {
                needs(old, new, p, needed, conflict);
            }
        }
        Ty::Named(n) => {
            if needed.contains(n) {
                return;
            }
            if new.has_type(n) {
                if !same_type(old, new, n) && conflict.is_none() {
                    *conflict = Some(format!("`{n}` has another definition in the new header"));
                }
                return;
            }
            if !old.has_type(n) {
                return;
            }
            needed.insert(n.clone());
            if let Some(r) = old.records.get(n) {
                for f in &r.fields {
                    needs(old, new, &f.ty, needed, conflict);
                }
            }
            if let Some(td) = old.typedefs.get(n) {
                needs(old, new, &td.ty, needed, conflict);
            }
            // Nested anonymous records are named after their parent.
            for r in old.records.values().filter(|r| r.parent.as_deref() == Some(n.as_str())) {
                needs(old, new, &Ty::Named(r.name.clone()), needed, conflict);
            }
        }
        _ => {}
    }
}

/// Whether `name` is the same type in both headers: a record of the same size and fields, an
/// enum that still has every value, the same typedef or handle.
fn same_type(old: &Model, new: &Model, name: &str) -> bool {
    if let (Some(a), Some(b)) = (old.records.get(name), new.records.get(name)) {
        let shape = |r: &super::Record| -> Vec<(String, Ty, u64)> {
            r.fields.iter().map(|f| (f.name.clone(), f.ty.clone(), f.offset)).collect()
        };
        return a.size == b.size && shape(a) == shape(b);
    }
    if let (Some(a), Some(b)) = (old.enums.get(name), new.enums.get(name)) {
        return a.constants.iter().all(|k| b.constants.iter().any(|n| n.name == k.name && n.value == k.value));
    }
    if let (Some(a), Some(b)) = (old.typedefs.get(name), new.typedefs.get(name)) {
        return a.ty == b.ty;
    }
    old.handles.contains_key(name) == new.handles.contains_key(name)
}

/// Copies type `name` (and nothing it refers to: [`needs`] listed those) from `old` to `new`,
/// without a line (the old header's lines mean nothing in the new one).
fn copy_type(old: &Model, new: &mut Model, name: &str) {
    fn copy<T: Clone>(
        from: &std::collections::BTreeMap<String, T>,
        to: &mut std::collections::BTreeMap<String, T>,
        name: &str,
        line: impl Fn(&mut T) -> &mut u32,
    ) {
        if let Some(item) = from.get(name) {
            let mut item = item.clone();
            *line(&mut item) = 0;
            to.insert(name.to_string(), item);
        }
    }
    copy(&old.records, &mut new.records, name, |r| &mut r.line);
    copy(&old.enums, &mut new.enums, name, |e| &mut e.line);
    copy(&old.typedefs, &mut new.typedefs, name, |t| &mut t.line);
    copy(&old.handles, &mut new.handles, name, |h| &mut h.line);
    // The typedefs that name a copied record or enum (`nvmlX_t` of `nvmlX_st`).
    for t in old.typedefs.values().filter(|t| t.ty == Ty::Named(name.to_string())) {
        if !new.typedefs.contains_key(&t.name) && !new.has_type(&t.name) {
            let mut t = t.clone();
            t.line = 0;
            new.typedefs.insert(t.name.clone(), t);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Field, Param, Record, RecordKind, Typedef};

    fn function(name: &str, params: Vec<Ty>) -> Function {
        Function {
            name: name.into(),
            ret: Ty::Named("nvmlReturn_t".into()),
            params: params.into_iter().enumerate().map(|(i, ty)| Param { name: format!("p{i}"), ty }).collect(),
            doc: Some("Gets it.".into()),
            docs: Default::default(),
            deprecated: false,
            legacy: false,
            line: 10,
        }
    }

    fn record(name: &str, fields: &[(&str, Ty)]) -> Record {
        Record {
            name: name.into(),
            kind: RecordKind::Struct,
            tag: Some(name.into()),
            size: 4 * fields.len() as u64,
            align: 4,
            fields: fields
                .iter()
                .enumerate()
                .map(|(i, (n, ty))| Field {
                    name: n.to_string(),
                    ty: ty.clone(),
                    offset: 4 * i as u64,
                    bit_width: None,
                    doc: None,
                })
                .collect(),
            doc: None,
            parent: None,
            line: 5,
        }
    }

    #[test]
    fn removed_functions_come_back_deprecated_with_their_types() {
        let mut old = Model::default();
        old.header.version = "12.0.76".into();
        let state = Ty::Pointer { pointee: Box::new(Ty::Named("nvmlState_t".into())), is_const: false };
        old.functions.insert("nvmlGetState".into(), function("nvmlGetState", vec![state]));
        old.functions.insert(
            "nvmlGetMode".into(),
            function("nvmlGetMode", vec![Ty::Pointer { pointee: Box::new(Ty::UInt), is_const: false }]),
        );
        old.records.insert("nvmlState_st".into(), record("nvmlState_st", &[("a", Ty::UInt)]));
        old.typedefs.insert(
            "nvmlState_t".into(),
            Typedef { name: "nvmlState_t".into(), ty: Ty::Named("nvmlState_st".into()), doc: None, line: 4 },
        );
        // A function naming a record the new header changed stays out.
        let other = Ty::Pointer { pointee: Box::new(Ty::Named("nvmlOther_st".into())), is_const: false };
        old.functions.insert("nvmlGetOther".into(), function("nvmlGetOther", vec![other]));
        old.records.insert("nvmlOther_st".into(), record("nvmlOther_st", &[("a", Ty::UInt)]));
        let mut new = Model::default();
        new.header.version = "12.0.140".into();
        new.records.insert("nvmlOther_st".into(), record("nvmlOther_st", &[("a", Ty::UInt), ("b", Ty::UInt)]));

        let kept = keep_removed(&mut new, &old);
        assert_eq!(kept.functions, ["nvmlGetMode", "nvmlGetState"]);
        assert_eq!(kept.refused.len(), 1, "{:?}", kept.refused);
        assert_eq!(kept.refused[0].0, "nvmlGetOther");
        let f = &new.functions["nvmlGetState"];
        assert!(f.deprecated);
        assert!(f.docs.deprecated.as_deref().is_some_and(|d| d.contains("Removed from nvml.h 12.0.140")));
        assert!(new.records.contains_key("nvmlState_st") && new.typedefs.contains_key("nvmlState_t"));
        assert_eq!(new.records["nvmlOther_st"].fields.len(), 2, "the new header's record is left alone");
    }
}
