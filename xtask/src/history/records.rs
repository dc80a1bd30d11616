//! The record-version history: which published header first declares each struct version
//! constant (`#define nvmlPlatformInfo_v2 NVML_STRUCT_VERSION(PlatformInfo, 2)`), so that the
//! mock accepts the record versions its profile's driver knows and answers
//! `NVML_ERROR_ARGUMENT_VERSION_MISMATCH` to a newer one, as a real driver does.
//!
//! `cargo xtask history` records them (the `record_versions:` section of
//! `gen-config/function-history.yaml`); `cargo xtask regen` turns each into its first driver
//! version, by the same rule as functions, in the mock's `generated/history.rs`
//! (`RECORD_VERSIONS`).

use std::collections::{BTreeMap, BTreeSet};

use crate::model::{struct_version, ConstValue, Model, Ty};

/// `nvmlPlatformInfo_v2` → 2.
fn version_number(name: &str) -> Option<u32> {
    struct_version(name).filter(|(base, _)| base.starts_with("nvml")).map(|(_, n)| n)
}

/// The struct version constants of a header: `nvmlX_vN` whose value is
/// `NVML_STRUCT_VERSION(X, N)` (`N` in its top byte, the size of `nvmlX_vN_t` below it).
pub fn version_constants(model: &Model) -> BTreeSet<String> {
    model
        .constants
        .values()
        .filter(|c| {
            let Some(n) = version_number(&c.name) else { return false };
            let ConstValue::Int { value, .. } = &c.value else { return false };
            let v = value.as_i128();
            let record = match model.resolve_typedef(&Ty::Named(format!("{}_t", c.name))) {
                Ty::Named(r) => model.records.get(r),
                _ => None,
            };
            record.is_some_and(|r| v >> 24 == i128::from(n) && (v & 0xFF_FFFF) == i128::from(r.size as u32 & 0xFF_FFFF))
        })
        .map(|c| c.name.clone())
        .collect()
}

/// The `record_versions:` section of the history file: each struct version constant of the
/// default header and the first header that declares it.
pub fn render(default: &str, first: &BTreeMap<String, String>) -> String {
    let mut s = format!(
        "# record_versions: every struct version constant of nvml.h {default} (`#define nvmlX_vN\n\
         # NVML_STRUCT_VERSION(X, N)`) and the first header that declares it. `cargo xtask regen`\n\
         # turns it into the first driver version of each (crates/nvml-mock/src/generated/history.rs):\n\
         # the mock accepts the record versions its profile's driver knows and answers\n\
         # NVML_ERROR_ARGUMENT_VERSION_MISMATCH to a newer one.\n\
         record_versions:\n"
    );
    for (name, version) in first {
        s.push_str(&format!("  {name}: {version}\n"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_numbers_come_from_the_name() {
        assert_eq!(version_number("nvmlPlatformInfo_v2"), Some(2));
        assert_eq!(version_number("nvmlGpuFabricInfo_v3"), Some(3));
        assert_eq!(version_number("NVML_GPM_SUPPORT_VERSION"), None);
        assert_eq!(version_number("nvmlDeviceGetPciInfo_v"), None);
        assert_eq!(version_number("NVML_FOO_v1"), None);
    }
}
