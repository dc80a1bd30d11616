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
/// `driver_version`. NVLink is spelled one way, `nvlink` (the header writes `NvLink` and
/// `Nvlink`).
pub fn method_name(b: &Bindings, owner: &Owner, key: &str) -> String {
    let name = derived_method_name(b, owner, key);
    let words: Vec<&str> = name.split('_').collect();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        if words[i] == "nv" && words.get(i + 1) == Some(&"link") {
            out.push("nvlink".into());
            i += 2;
        } else {
            out.push(words[i].to_string());
            i += 1;
        }
    }
    out.join("_")
}

fn derived_method_name(b: &Bindings, owner: &Owner, key: &str) -> String {
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

/// The Rust name of every enum and of every record in `records`, by model name, and the
/// layout families of the records (see [`Families`]); two types that would share a name, or
/// one that takes the name of a handle, flags type or the core's `Error`/`Nvml`, are errors.
pub fn type_names(
    b: &Bindings,
    records: &BTreeSet<String>,
    d: &mut Diagnostics,
) -> (BTreeMap<String, String>, Families) {
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
        let rust = match b.type_renames.get(name) {
            Some(r) => r.name.clone(),
            None => safe_type_name(m, name),
        };
        // Two layouts of one record (their C names give different versions) share a type.
        let layouts = |other: &str| {
            records.contains(name) && records.contains(other) && c_version(m, name) != c_version(m, other)
        };
        if let Some(other) = taken.insert(rust.clone(), name.clone()).filter(|o| !layouts(o)) {
            d.error(
                format!("{RULES_FILE}: handles"),
                format!("safe type names clash: `{name}` and {other} both become `{rust}`"),
            );
        }
        types.insert(name.clone(), rust);
    }
    let families = layout_families(m, &mut types, records, &taken);
    // The names a release published for renamed enums stay as aliases: no type may have them.
    let mut held: BTreeMap<&str, &str> = taken.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    held.extend(types.iter().map(|(c, rust)| (rust.as_str(), c.as_str())));
    for (name, r) in &b.type_renames {
        let Some(former) = &r.former else { continue };
        if let Some(other) = held.insert(former, name) {
            d.error(
                format!("{RULES_FILE}: type_renames.{name}"),
                format!("`{former}`, the former name of `{name}`, is the name of {other} too"),
            );
        }
    }
    (types, families)
}

/// The layout version a record's C names give (`nvmlProcessInfo_v2_st`, or a typedef
/// `nvmlProcessInfo_v2_t` of it), the highest of them; 0 for a record named without one.
fn c_version(m: &Model, record: &str) -> u32 {
    let typedefs = m.typedefs.values().filter(|t| t.ty == Ty::Named(record.to_string())).map(|t| t.name.as_str());
    std::iter::once(record)
        .chain(typedefs)
        .filter_map(|n| {
            let stem = ["_st", "_t", "_s"].iter().find_map(|s| n.strip_suffix(s)).unwrap_or(n);
            let (_, v) = stem.rsplit_once("_v")?;
            v.parse::<u32>().ok()
        })
        .max()
        .unwrap_or(0)
}

/// The layouts of each record that has several (`nvmlMemory_t` and `nvmlMemory_v2_t`): the
/// newest layout → every layout, newest first. The safe crate has one type per family, named
/// without a version and holding the fields of every layout, so that a header adding a layout
/// renames no type and removes no field.
pub type Families = BTreeMap<String, Vec<String>>;

/// Groups the records by their name less the layout's version (`TemperatureV1` →
/// `Temperature`; an unversioned name is the oldest layout) and names each group's layouts
/// after it: the family's type name is the base name, for every layout (the version is the C
/// side's concern: the raw names stay in nvml-sys, and the type carries every C name as a doc
/// alias). A base name that another kind of type (a handle, a bitflags type) holds is left
/// alone.
fn layout_families(
    m: &Model,
    types: &mut BTreeMap<String, String>,
    records: &BTreeSet<String>,
    taken: &BTreeMap<String, String>,
) -> Families {
    let split = |name: &str| -> Option<(String, u32)> {
        let base = name.trim_end_matches(|c: char| c.is_ascii_digit());
        let version = name[base.len()..].parse().ok()?;
        let base = base.strip_suffix('V').filter(|b| !b.is_empty())?;
        Some((base.to_string(), version))
    };
    // The layouts of each base name, by the version their C names give (0: none), then by
    // the version of the Rust name (`ProcessInfo` may be the `_v2` layout, which a typedef
    // without a version names too).
    let mut layouts: BTreeMap<String, BTreeMap<(u32, u32), String>> = BTreeMap::new();
    for (c, rust) in types.iter().filter(|(c, _)| records.contains(*c)) {
        let (base, version) = split(rust).unwrap_or_else(|| (rust.clone(), 0));
        layouts.entry(base).or_default().insert((c_version(m, c), version), c.clone());
    }
    let ours: BTreeSet<String> = types.values().cloned().collect();
    let foreign = |name: &String| taken.contains_key(name) && !ours.contains(name);
    let mut families = Families::new();
    for (base, by_version) in &layouts {
        if by_version.len() < 2 || foreign(base) {
            continue;
        }
        let members: Vec<String> = by_version.values().rev().cloned().collect();
        for c in &members {
            types.insert(c.clone(), base.clone());
        }
        families.insert(members[0].clone(), members);
    }
    // A lone layout with a version in its name (`HostnameV1`) is named without it too.
    for (base, by_version) in &layouts {
        if let (1, Some((&(_, v), c))) = (by_version.len(), by_version.last_key_value()) {
            if v > 0 && !foreign(base) {
                types.insert(c.clone(), base.clone());
            }
        }
    }
    families
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
    // The outputs' names and roles: what two methods must share to share a struct (a list's
    // record by the fields it returns, as outputs and an array).
    let signature = |m: &Method| -> Vec<(String, Role)> {
        m.calls[0]
            .outputs()
            .flat_map(|p| match &p.role {
                Role::RecordList(l) if !l.outputs.is_empty() => l
                    .outputs
                    .iter()
                    .map(|(f, v)| (f.clone(), Role::Out(v.clone())))
                    .chain([(l.array.clone(), Role::Array { val: l.elem.clone(), unused: None })])
                    .collect(),
                r => vec![(p.name.clone(), r.clone())],
            })
            .collect()
    };
    for i in 0..methods.len() {
        let head = &methods[i].calls[0];
        // A list's record with outputs beside the list returns them with it.
        let list = head.outputs().find_map(|p| match &p.role {
            Role::RecordList(l) if !l.outputs.is_empty() => Some(l),
            _ => None,
        });
        let outputs: Vec<String> = match list {
            Some(l) => l.returned(),
            None => head.outputs().map(|p| p.name.clone()).collect(),
        };
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
        // A `results` rule's name first; methods of one name share it only when they return
        // the same fields.
        let ruled = b.results.get(&methods[i].key).or_else(|| b.results.get(&head.symbol));
        if let Some(n) = ruled.filter(|n| taken.contains(*n) || out.contains_key(*n) && !shared(n, &out)) {
            d.error(
                format!("{RULES_FILE}: results.{}", methods[i].key),
                format!("`{n}` is a type, or a struct of other fields, already"),
            );
            continue;
        }
        let name = ruled
            .cloned()
            .into_iter()
            .chain([camel.clone(), format!("{camel}Info")])
            .find(|n| !taken.contains(n) && (!out.contains_key(n) || shared(n, &out)));
        match name {
            Some(n) => {
                // The struct's names under the method's former names (`former_methods`): kept as
                // deprecated aliases, as the methods are.
                let mut former = Vec::new();
                for old in methods[i].former.iter().map(|old| crate::rules::names::camel(old)) {
                    let old = if taken.contains(&old) { format!("{old}Info") } else { old };
                    if old == n {
                        continue;
                    }
                    if taken.contains(&old) || out.contains_key(&old) {
                        d.error(
                            format!("{RULES_FILE}: former_methods.{}", methods[i].key),
                            format!("the struct `{n}` returns cannot keep its former name `{old}`: a type has it"),
                        );
                        continue;
                    }
                    former.push(old);
                }
                out.entry(n.clone()).or_insert(ResultStruct { symbol: head.symbol.clone(), outputs, former });
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
