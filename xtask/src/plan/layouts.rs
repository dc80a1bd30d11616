//! Older layouts of versioned records: a driver that predates a record's newest layout
//! answers `NVML_ERROR_ARGUMENT_VERSION_MISMATCH` to it, and the method retries with the
//! older layouts the header still declares, newest first, converting the answer by field.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::struct_version as layout_of;
use crate::rules::Bindings;

/// Every safe record with a version constant → the older safe layouts of the same family
/// (by version constant), newest first; records without older layouts are left out.
pub fn older_layouts(b: &Bindings, records: &BTreeSet<String>) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    for record in b.struct_versions.keys().filter(|r| records.contains(*r)) {
        let older: Vec<String> =
            older_of(b, record).into_iter().filter(|r| records.contains(*r)).map(str::to_string).collect();
        if !older.is_empty() {
            out.insert(record.clone(), older);
        }
    }
    out
}

/// The records of `record`'s family (by version constant) with an older layout number, newest
/// first.
pub fn older_of<'b>(b: &'b Bindings, record: &str) -> Vec<&'b str> {
    let Some((base, n)) = b.struct_versions.get(record).and_then(|c| layout_of(c)) else {
        return Vec::new();
    };
    let mut older: Vec<(u32, &str)> = b
        .struct_versions
        .iter()
        .filter_map(|(r, c)| match layout_of(c) {
            Some((b2, k)) if b2 == base && k < n => Some((k, r.as_str())),
            _ => None,
        })
        .collect();
    older.sort_unstable();
    older.into_iter().rev().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_by_version_constant() {
        assert_eq!(layout_of("nvmlPlatformInfo_v2"), Some(("nvmlPlatformInfo", 2)));
        assert_eq!(layout_of("nvmlGpuFabricInfo_v3"), Some(("nvmlGpuFabricInfo", 3)));
        assert_eq!(layout_of("NVML_GPM_SUPPORT_VERSION"), None);
    }
}
