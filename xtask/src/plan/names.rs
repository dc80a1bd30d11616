//! Rust names the plan gives: a method per function (or family), a type per enum and safe
//! record. Clashes are errors.

use std::collections::{BTreeMap, BTreeSet};

use super::{Method, Owner, ResultStruct, Role};
use crate::diag::Diagnostics;
use crate::model::{Model, Ty};
use crate::rules::names::snake;
use crate::rules::Bindings;
use crate::workspace::RULES_FILE;

/// `nvmlDeviceGetPciInfo` on `Device` → `pci_info`; `nvmlSystemGetDriverVersion` on `Nvml` →
/// `driver_version`.
pub fn method_name(b: &Bindings, owner: &Owner, key: &str) -> String {
    let full = snake(key.strip_prefix("nvml").unwrap_or(key));
    let mut s = full.as_str();
    let prefixes: Vec<String> = match owner {
        Owner::Nvml => vec!["system_".into()],
        Owner::Handle(h) => {
            let words: Vec<String> = snake(b.handle_type(h).unwrap_or(h)).split('_').map(String::from).collect();
            (1..=words.len()).rev().map(|n| format!("{}_", words[..n].join("_"))).collect()
        }
    };
    for p in &prefixes {
        if let Some(rest) = s.strip_prefix(p.as_str()) {
            s = rest;
            break;
        }
    }
    if let Some(rest) = s.strip_prefix("get_") {
        if !rest.is_empty() && !rest.starts_with(|c: char| c.is_ascii_digit()) {
            s = rest;
        }
    } else if *owner == Owner::Nvml {
        // `unit_get_count` → `unit_count`: a getter of another object's table.
        if let Some(i) = s.find("_get_") {
            return format!("{}_{}", &s[..i], &s[i + 5..]);
        }
    }
    s.to_string()
}

/// The Rust name of every enum and of every record in `records`, by model name; two types
/// that would share a name, or one that takes the name of a handle, flags type or the core's
/// `Error`/`Nvml`, are errors.
pub fn type_names(b: &Bindings, records: &BTreeSet<String>, d: &mut Diagnostics) -> BTreeMap<String, String> {
    let m = &b.model;
    let mut types = BTreeMap::new();
    let mut taken: BTreeMap<String, String> = BTreeMap::new();
    for h in b.handles.values().chain(b.ids.values()) {
        taken.insert(h.clone(), "a handle".into());
    }
    for f in b.bitflags.keys() {
        taken.insert(f.clone(), "a bitflags rule".into());
    }
    taken.insert("Error".into(), "the error type".into());
    taken.insert("Nvml".into(), "the library type".into());
    for name in m.enums.keys().chain(records.iter()) {
        let rust = safe_type_name(m, name);
        if let Some(other) = taken.insert(rust.clone(), name.clone()) {
            d.error(
                format!("{RULES_FILE}: handles"),
                format!("safe type names clash: `{name}` and {other} both become `{rust}`"),
            );
        }
        types.insert(name.clone(), rust);
    }
    drop_layout_suffixes(&mut types, &taken);
    types
}

/// A record's name without its layout's version (`TemperatureV1` → `Temperature`) for the
/// newest layout of each record, so that a method keeps its return type's name when a header
/// adds a layout: the older layouts keep their version (`AccountingStats` is the `_v2` layout,
/// the unversioned one before it `AccountingStatsV1`). The version is the C side's concern (the
/// raw names stay in nvml-sys, and each type carries its C names as doc aliases). A name that
/// another kind of type (a handle, a bitflags type) holds is left alone.
fn drop_layout_suffixes(types: &mut BTreeMap<String, String>, taken: &BTreeMap<String, String>) {
    let split = |name: &str| -> Option<(String, u32)> {
        let base = name.trim_end_matches(|c: char| c.is_ascii_digit());
        let version = name[base.len()..].parse().ok()?;
        let base = base.strip_suffix('V').filter(|b| !b.is_empty())?;
        Some((base.to_string(), version))
    };
    // The layouts of each base name, by version (0: the unversioned name).
    let mut layouts: BTreeMap<String, BTreeMap<u32, String>> = BTreeMap::new();
    for (c, rust) in types.iter() {
        let (base, version) = split(rust).unwrap_or_else(|| (rust.clone(), 0));
        layouts.entry(base).or_default().insert(version, c.clone());
    }
    let ours: std::collections::BTreeSet<&String> = types.values().collect();
    let foreign = |name: &String| taken.contains_key(name) && !ours.contains(name);
    let mut renamed = Vec::new();
    for (base, by_version) in &layouts {
        let Some((&newest, newest_c)) = by_version.last_key_value() else { continue };
        if newest == 0 || foreign(base) {
            continue;
        }
        // An unversioned older layout takes `V1`, unless a `V1` exists too.
        if let Some(old) = by_version.get(&0) {
            if by_version.contains_key(&1) {
                continue;
            }
            renamed.push((old.clone(), format!("{base}V1")));
        }
        renamed.push((newest_c.clone(), base.clone()));
    }
    for (c, rust) in renamed {
        types.insert(c, rust);
    }
}

/// A record's or enum's Rust name: from its `_t` typedef when it has one, else its own name.
pub fn safe_type_name(m: &Model, name: &str) -> String {
    let mut typedefs: Vec<&str> = m
        .typedefs
        .values()
        .filter(|t| t.ty == Ty::Named(name.to_string()) && t.name.ends_with("_t"))
        .map(|t| t.name.as_str())
        .collect();
    typedefs.sort_by_key(|t| (t.len(), *t));
    let chosen = if name.ends_with("_t") { name } else { typedefs.first().copied().unwrap_or(name) };
    crate::rules::names::type_name(chosen)
}

/// Names the struct of every method with several outputs: the method's name in CamelCase
/// (`ecc_mode` → `EccMode`), with `Info` after it where a type of the crate has that name.
/// Methods whose outputs have the same names and types share one struct (`encoder_stats` of a
/// device and of a vGPU instance); a name still taken is an error.
pub fn result_structs(
    b: &Bindings,
    type_names: &BTreeMap<String, String>,
    methods: &mut [Method],
    d: &mut Diagnostics,
) -> BTreeMap<String, ResultStruct> {
    let mut taken: BTreeSet<String> = type_names.values().cloned().collect();
    taken.extend(b.handles.values().chain(b.ids.values()).chain(b.bitflags.keys()).cloned());
    taken.extend(["Error", "Nvml", "Value", "Builder", "RawHandle"].map(String::from));
    let mut out: BTreeMap<String, ResultStruct> = BTreeMap::new();
    // The outputs' names and roles: what two methods must share to share a struct.
    let signature = |m: &Method| -> Vec<(String, Role)> {
        m.calls[0].outputs().map(|p| (p.name.clone(), p.role.clone())).collect()
    };
    for i in 0..methods.len() {
        let head = &methods[i].calls[0];
        let outputs: Vec<String> = head.outputs().map(|p| p.name.clone()).collect();
        if outputs.len() < 2 || head.outputs().any(|p| matches!(p.role.val(), Some(super::Val::Handle(_)))) {
            continue;
        }
        let camel = crate::rules::names::camel(&methods[i].name);
        let mine = signature(&methods[i]);
        let shared = |name: &str, out: &BTreeMap<String, ResultStruct>| {
            out.get(name)
                .and_then(|r| methods.iter().find(|m| m.calls[0].symbol == r.symbol))
                .is_some_and(|m| signature(m) == mine)
        };
        let name = [camel.clone(), format!("{camel}Info")]
            .into_iter()
            .find(|n| !taken.contains(n) && (!out.contains_key(n) || shared(n, &out)));
        match name {
            Some(n) => {
                out.entry(n.clone()).or_insert(ResultStruct { symbol: head.symbol.clone(), outputs });
                methods[i].returns = Some(n);
            }
            None => d.error(
                format!("{RULES_FILE}: renames"),
                format!("no name for the outputs of `{}`: `{camel}` and `{camel}Info` are taken", head.symbol),
            ),
        }
    }
    out
}

/// A method's name without the version suffix its function's name carries (`hostname_v1` →
/// `hostname`, `temperature_v` → `temperature`... where free): the suffix names a layout of
/// the header, not what the method does. A name another method of the same owner has, or
/// would have, keeps its suffix; a `renames` rule wins.
pub fn drop_version_suffixes(b: &Bindings, methods: &mut [Method]) {
    let strip = |name: &str| -> Option<String> {
        let (base, v) = name.rsplit_once("_v")?;
        (v.chars().all(|c| c.is_ascii_digit()) && !base.is_empty()).then(|| base.to_string())
    };
    let mut wanted: BTreeMap<(Owner, String), usize> = BTreeMap::new();
    for m in methods.iter() {
        let name = strip(&m.name).unwrap_or_else(|| m.name.clone());
        *wanted.entry((m.owner.clone(), name)).or_default() += 1;
    }
    for m in methods.iter_mut().filter(|m| !b.renames.contains_key(&m.key)) {
        if let Some(base) = strip(&m.name) {
            if wanted.get(&(m.owner.clone(), base.clone())) == Some(&1) {
                m.name = base;
            }
        }
    }
}
