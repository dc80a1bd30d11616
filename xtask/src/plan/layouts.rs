//! Older layouts of versioned records: a driver that predates a record's newest layout
//! answers `NVML_ERROR_ARGUMENT_VERSION_MISMATCH` to it, and the method retries with the
//! older layouts the header still declares, newest first, converting the answer by field.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::struct_version as layout_of;
use crate::rules::Bindings;

/// Every safe record with a version constant → the older safe layouts of the same family
/// (by version constant), newest first; records without older layouts are left out.
pub fn older_layouts(b: &Bindings, records: &BTreeSet<String>) -> BTreeMap<String, Vec<String>> {
    let mut families: BTreeMap<&str, BTreeMap<u32, &str>> = BTreeMap::new();
    for (record, constant) in &b.struct_versions {
        if let (Some((base, n)), true) = (layout_of(constant), records.contains(record)) {
            families.entry(base).or_default().insert(n, record);
        }
    }
    let mut out = BTreeMap::new();
    for layouts in families.values() {
        for (n, record) in layouts {
            let older: Vec<String> = layouts.range(..n).rev().map(|(_, r)| r.to_string()).collect();
            if !older.is_empty() {
                out.insert(record.to_string(), older);
            }
        }
    }
    out
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
