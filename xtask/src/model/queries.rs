//! Queries of a header's model that the rules, the plan, the emitters and header-diff share:
//! values of constants, unions, and the versions of a function's family.

use std::collections::{BTreeMap, BTreeSet};

use super::{AliasKind, ConstValue, Model, Record, RecordKind, Ty};

/// The union record a field's type names, if it is one.
pub fn union_of<'m>(model: &'m Model, t: &Ty) -> Option<&'m Record> {
    match model.resolve_typedef(t) {
        Ty::Named(n) => model.records.get(n).filter(|r| r.kind == RecordKind::Union),
        _ => None,
    }
}

/// The value of an enum constant or an integer `#define`.
pub fn enum_or_constant_value(model: &Model, name: &str) -> Option<i128> {
    let e = model.enums.values().flat_map(|e| &e.constants).find(|k| k.name == name).map(|k| k.value.as_i128());
    e.or_else(|| match &model.constants.get(name)?.value {
        ConstValue::Int { value, .. } => Some(value.as_i128()),
        _ => None,
    })
}

pub fn constant_value(model: &Model, name: &str) -> Option<u64> {
    match &model.constants.get(name)?.value {
        ConstValue::Int { value, .. } => u64::try_from(value.as_i128()).ok(),
        _ => None,
    }
}

/// Splits `nvmlX_v3` into (`nvmlX`, 6) and `nvmlXV` into (`nvmlX`, 1): the rank orders
/// versions, `_vN` ranking `2N` so that `V` sits between the base name (0) and `_v1`.
pub fn version_of(name: &str) -> Option<(&str, u32)> {
    if let Some((base, v)) = name.rsplit_once("_v") {
        if let Ok(n) = v.parse::<u32>() {
            return Some((base, n * 2));
        }
    }
    name.strip_suffix('V').map(|base| (base, 1))
}

/// Families from the header: every `_vN`/`V` prototype with its base, plus the define table.
pub fn derive_families(model: &Model) -> BTreeMap<String, Vec<String>> {
    let mut by_base: BTreeMap<String, BTreeSet<(u32, String)>> = BTreeMap::new();
    for name in model.functions.keys() {
        if let Some((base, rank)) = version_of(name) {
            if rank >= 2 || model.functions.contains_key(base) {
                by_base.entry(base.to_string()).or_default().insert((rank, name.clone()));
            }
        }
    }
    let mut families = BTreeMap::new();
    for (base, versions) in by_base {
        let mut symbols: Vec<String> = versions.into_iter().rev().map(|(_, n)| n).collect();
        if model.functions.contains_key(&base) {
            symbols.push(base.clone());
        }
        if symbols.len() >= 2 {
            families.insert(base, symbols);
        }
    }
    // A `#define nvmlX nvmlY` whose target has no version suffix (e.g. the Blacklist →
    // Excluded renames) is a family of the target alone: resolving the old name still works
    // against drivers that predate the rename.
    for alias in model.aliases.values().filter(|a| a.kind == AliasKind::Function) {
        if version_of(&alias.target).is_none() && !families.contains_key(&alias.name) {
            let mut symbols = vec![alias.target.clone()];
            if model.functions.contains_key(&alias.name) {
                symbols.push(alias.name.clone());
            }
            if symbols.len() >= 2 {
                families.insert(alias.name.clone(), symbols);
            }
        }
    }
    families
}

#[cfg(test)]
mod tests {
    use super::version_of;

    #[test]
    fn versions_rank() {
        assert_eq!(version_of("nvmlInit_v2"), Some(("nvmlInit", 4)));
        assert_eq!(version_of("nvmlDeviceGetTemperatureV"), Some(("nvmlDeviceGetTemperature", 1)));
        assert_eq!(version_of("nvmlInit"), None);
    }
}
