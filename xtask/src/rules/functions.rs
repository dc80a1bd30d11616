//! The checks of the rules about functions: `released`, `handles`, `versions`, `owned`,
//! `skip`, `manual`, `ids`, `directions`, `renames`, `results`, `former_methods`, `enums` and
//! `see_also`.

use std::collections::BTreeMap;

use crate::diag::Diagnostics;
use crate::model::derive_families;
use crate::model::{Function, Ty};

use super::check::*;

/// Checks `released`: header versions, oldest first.
pub(super) fn released(i: &Inputs, d: &mut Diagnostics) {
    let place = format!("{}: released", i.file);
    let mut before: Option<&String> = None;
    for v in &i.rules.released {
        if crate::model::version_key(v).is_none() {
            d.error(place.clone(), format!("`{v}` is not a header version such as 13.5.37"));
            continue;
        }
        if let Some(b) = before.filter(|b| crate::model::version_key(b) >= crate::model::version_key(v)) {
            d.error(place.clone(), format!("`{b}` before `{v}`: the release headers go oldest first, each once"));
        }
        before = Some(v);
    }
}

/// Checks `handles`: each names an opaque handle of the header and a Rust type name; a handle
/// without a rule is a warning.
pub(super) fn handles(i: &Inputs, d: &mut Diagnostics) {
    let Inputs { model, rules, .. } = *i;
    for (typedef, safe) in &rules.handles {
        if !model.handles.contains_key(typedef) {
            d.error(i.place("handles", typedef), format!("`{typedef}` is not an opaque handle of the header"));
        } else if !is_rust_type_name(safe) {
            d.error(i.place("handles", typedef), format!("`{safe}` is not a Rust type name"));
        }
    }
    for h in model.handles.keys().filter(|h| !rules.handles.contains_key(*h)) {
        d.warn(format!("{}: handles", i.file), format!("opaque handle `{h}` has no rule; give it a safe type name"));
    }
}

/// Versioned families: those derived from the header, with the `versions` rules over them.
pub(super) fn versions(i: &Inputs, d: &mut Diagnostics) -> BTreeMap<String, Vec<String>> {
    let Inputs { model, rules, .. } = *i;
    let mut families = derive_families(model);
    for (api, symbols) in &rules.versions {
        let missing: Vec<&String> = symbols.iter().filter(|s| !model.functions.contains_key(*s)).collect();
        if !missing.is_empty() {
            let names: Vec<&str> = missing.iter().map(|s| s.as_str()).collect();
            d.error(
                i.place("versions", api),
                format!("names functions the header does not declare: {}", names.join(", ")),
            );
            continue;
        }
        // One symbol is a family only in a header that lacks the API name itself (an older
        // header, where the renamed family's older member serves the method alone).
        if symbols.len() < 2 && (symbols.is_empty() || model.functions.contains_key(api)) {
            d.error(i.place("versions", api), "a versioned family needs at least two symbols");
            continue;
        }
        if families.get(api) == Some(symbols) {
            d.warn(i.place("versions", api), "matches nothing: the header already gives this order");
        }
        families.insert(api.clone(), symbols.clone());
    }
    families
}

/// Checks `owned`: a handle with a `handles` rule, freed by a function that takes it (or that is
/// wrapped by hand).
pub(super) fn owned(i: &Inputs, d: &mut Diagnostics) {
    let Inputs { model, rules, .. } = *i;
    for (handle, free) in &rules.owned {
        let p = i.place("owned", handle);
        if !rules.handles.contains_key(handle) {
            d.error(p.clone(), format!("`{handle}` has no `handles` rule"));
        }
        let takes_handle = |f: &Function| f.params.iter().any(|p| p.ty == Ty::Named(handle.clone()));
        if function(model, free, &p, d).is_some_and(|f| !takes_handle(f)) && !rules.manual.contains_key(free) {
            d.error(p, format!("`{free}` does not take a `{handle}`: a free function that takes a request record needs a `manual` rule"));
        }
    }
}

/// The functions that `skip` patterns match, each with its reason.
pub(super) fn skip(i: &Inputs, d: &mut Diagnostics) -> BTreeMap<String, String> {
    let Inputs { model, rules, .. } = *i;
    let mut skipped = BTreeMap::new();
    for (pattern, reason) in &rules.skip {
        let matched: Vec<&String> = model.functions.keys().filter(|n| glob_match(pattern, n)).collect();
        if matched.is_empty() {
            if pattern.ends_with('*') {
                d.warn(i.place("skip", pattern), "matches no function of the header");
            } else {
                d.error(i.place("skip", pattern), format!("`{pattern}` is not a function of the header"));
            }
        }
        for m in matched {
            skipped.insert(m.clone(), reason.clone());
        }
    }
    skipped
}

/// Checks `manual`: a function of the header that is not also skipped.
pub(super) fn manual(i: &Inputs, skipped: &BTreeMap<String, String>, d: &mut Diagnostics) {
    let Inputs { model, rules, .. } = *i;
    for func in rules.manual.keys() {
        let p = i.place("manual", func);
        if function(model, func, &p, d).is_some() && skipped.contains_key(func) {
            d.error(p, "is both skipped and wrapped by hand");
        }
    }
}

/// Checks `ids`: an integer typedef of the header and a Rust type name.
pub(super) fn ids(i: &Inputs, d: &mut Diagnostics) {
    let Inputs { model, rules, .. } = *i;
    for (typedef, safe) in &rules.ids {
        let p = i.place("ids", typedef);
        match model.typedefs.get(typedef).map(|t| model.resolve_typedef(&t.ty)) {
            Some(Ty::UInt | Ty::Int | Ty::ULongLong) if is_rust_type_name(safe) => {}
            Some(_) => {
                d.error(p, format!("`{typedef}` is not an integer typedef, or `{safe}` is not a Rust type name"))
            }
            None => d.error(p, format!("`{typedef}` is not a typedef of the header")),
        }
    }
}

/// Checks `directions`: `function.parameter`, a pointer to non-const.
pub(super) fn directions(i: &Inputs, d: &mut Diagnostics) {
    let Inputs { model, rules, .. } = *i;
    for key in rules.directions.keys() {
        let p = i.place("directions", key);
        match key.split_once('.') {
            Some((func, param)) => {
                if let Some(f) = function(model, func, &p, d) {
                    check_param(f, param, &p, d, |t| matches!(t, Ty::Pointer { is_const: false, .. }));
                }
            }
            None => d.error(p, "expected `function.parameter`"),
        }
    }
}

/// Checks `renames`: a function of the header and a snake_case method name.
pub(super) fn renames(i: &Inputs, d: &mut Diagnostics) {
    let Inputs { model, rules, .. } = *i;
    for (func, name) in &rules.renames {
        let p = i.place("renames", func);
        if function(model, func, &p, d).is_some() && !is_rust_fn_name(name) {
            d.error(p, format!("`{name}` is not a snake_case Rust method name"));
        }
    }
}

/// Checks `results`: a function of the header and a CamelCase Rust type name.
pub(super) fn results(i: &Inputs, d: &mut Diagnostics) {
    let Inputs { model, rules, .. } = *i;
    for (func, name) in &rules.results {
        let p = i.place("results", func);
        let camel = name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
            && name.chars().all(|c| c.is_ascii_alphanumeric());
        if function(model, func, &p, d).is_some() && !camel {
            d.error(p, format!("`{name}` is not a CamelCase Rust type name"));
        }
    }
}

/// Resolves `enums` rules: a parameter of a function of the header, and a C enum (by its name
/// or a typedef of it).
pub(super) fn enum_params(i: &Inputs, d: &mut Diagnostics) -> BTreeMap<String, String> {
    let Inputs { model, rules, .. } = *i;
    let mut out = BTreeMap::new();
    for (key, e) in &rules.enums {
        let p = i.place("enums", key);
        let Some((func, param)) = key.split_once('.') else {
            d.error(p, "is not `function.parameter`");
            continue;
        };
        let Some(f) = function(model, func, &p, d) else { continue };
        if !f.params.iter().any(|q| q.name == param) {
            d.error(p.clone(), format!("`{func}` has no parameter `{param}`"));
            continue;
        }
        match model.resolve_typedef(&Ty::Named(e.clone())) {
            Ty::Named(n) if model.enums.contains_key(n) => {
                out.insert(key.clone(), n.clone());
            }
            _ => d.error(p, format!("`{e}` is not an enum of the header")),
        }
    }
    out
}

/// Checks `see_also`: a function of the header and a paragraph that says something.
pub(super) fn see_also(i: &Inputs, d: &mut Diagnostics) {
    let Inputs { model, rules, .. } = *i;
    for (func, text) in &rules.see_also {
        let p = i.place("see_also", func);
        if function(model, func, &p, d).is_some() && text.trim().is_empty() {
            d.error(p, "says nothing");
        }
    }
}

/// Checks `former_methods`: a function of the header and snake_case method names, none of
/// them the name its `renames` rule gives.
pub(super) fn former_methods(i: &Inputs, d: &mut Diagnostics) {
    let Inputs { model, rules, .. } = *i;
    for (func, names) in &rules.former_methods {
        let p = i.place("former_methods", func);
        if function(model, func, &p, d).is_none() {
            continue;
        }
        if names.is_empty() {
            d.error(p.clone(), "lists no former name");
        }
        for name in names {
            if !is_rust_fn_name(name) {
                d.error(p.clone(), format!("`{name}` is not a snake_case Rust method name"));
            } else if rules.renames.get(func) == Some(name) {
                d.error(p.clone(), format!("`{name}` is the method's current name (its `renames` rule)"));
            }
        }
    }
}
