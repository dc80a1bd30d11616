//! Driver versions and the functions each driver has, from the generated history
//! (`generated/history.rs`, which `cargo xtask regen` writes from
//! `gen-config/function-history.yaml`).
//!
//! Everything that decides whether a driver has a function goes through [`has`]: the engine
//! (a function the profile's driver lacks answers `NVML_ERROR_FUNCTION_NOT_FOUND`) and the
//! libraries of one driver's symbols (`driver_lib`, `cargo xtask mock-lib`). [`first_driver`]
//! is the first driver of the header that declares the function where the history knows it
//! (`580.82.07` for 13.0.87), else the first version of its branch (`570.0.0`).
//!
//! Whether a driver knows a record version (`nvmlPlatformInfo_v2`) goes through
//! [`knows_version`], by the same rule: the generated answers and the engine's versioned
//! records answer `NVML_ERROR_ARGUMENT_VERSION_MISMATCH` to a version newer than the driver.

use std::cmp::Ordering;
use std::fmt;

use crate::generated::history::{BRANCHES, INTRODUCED, RECORD_VERSIONS};

/// Functions every driver has, whatever the history says: a client must be able to start and
/// stop the library and name its errors.
pub const ALWAYS: &[&str] = &["nvmlInit", "nvmlInit_v2", "nvmlInitWithFlags", "nvmlShutdown", "nvmlErrorString"];

/// A driver version such as `525.147.05`: two or three numbers, the first the branch. Compared
/// number by number (`580.82.07` > `580.65.06`); shown as written.
#[derive(Debug, Clone)]
pub struct Version {
    text: String,
    parts: [u32; 3],
}

impl Version {
    /// Parses `major.minor` or `major.minor.patch` (decimal numbers; `05` is 5).
    pub fn parse(text: &str) -> Result<Version, String> {
        let text = text.trim();
        let bad = || format!("`{text}` is not a driver version such as 525.147.05 (major.minor.patch)");
        // nvml-sys reads a bare major version too; a driver names at least its minor one.
        if !(2..=3).contains(&text.split('.').count()) {
            return Err(bad());
        }
        let parts = nvml_sys::parse_driver_version(text).ok_or_else(bad)?;
        Ok(Version { text: text.to_string(), parts })
    }

    /// The first version of a branch, `570.0.0`.
    pub fn branch_start(branch: u32) -> Version {
        Version { text: format!("{branch}.0.0"), parts: [branch, 0, 0] }
    }

    /// The branch: the major version.
    pub fn branch(&self) -> u32 {
        self.parts[0]
    }

    /// The version as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl PartialEq for Version {
    fn eq(&self, other: &Version) -> bool {
        self.parts == other.parts
    }
}

impl Eq for Version {}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Version) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Version {
    fn cmp(&self, other: &Version) -> Ordering {
        self.parts.cmp(&other.parts)
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// The driver branches the history knows (those that shipped a published `nvml.h`), oldest
/// first.
pub fn branches() -> impl Iterator<Item = u32> {
    BRANCHES.iter().map(|(_, b)| *b)
}

/// `version` parsed, and checked to be of a branch the history knows: the drivers whose
/// functions the mock can tell (`cargo xtask mock-lib --driver`).
pub fn known(version: &str) -> Result<Version, String> {
    let v = Version::parse(version)?;
    if branches().any(|b| b == v.branch()) {
        return Ok(v);
    }
    let list: Vec<String> = branches().map(|b| b.to_string()).collect();
    let newest = BRANCHES.last().map_or("?", |(tk, _)| *tk);
    Err(format!(
        "driver {v}: branch {} is not a branch of the published headers (known: {}; the branch of headers after CUDA {newest} is not recorded: `BRANCHES` in xtask/src/history.rs)",
        v.branch(),
        list.join(", ")
    ))
}

/// The first driver version that has `function`: the first driver that shipped the header
/// declaring it, where the history knows it (580.82.07 for 13.0.87), else the start of its
/// branch; `None` when every driver has it (a function of the oldest published header, or one
/// the history does not list).
pub fn first_driver(function: &str) -> Option<Version> {
    first_in(&INTRODUCED, function)
}

/// The first driver of `name` in a table of the generated history (sorted by name): the first
/// driver of its header where the history knows it and it is of the right branch, else the
/// start of its branch.
fn first_in(table: &[(&str, &str, u32, &str)], name: &str) -> Option<Version> {
    let i = table.binary_search_by(|(f, _, _, _)| (*f).cmp(name)).ok()?;
    let (_, _, branch, first) = table[i];
    Some(Version::parse(first).ok().filter(|v| v.branch() == branch).unwrap_or_else(|| Version::branch_start(branch)))
}

/// The first driver version that accepts the record version `constant`
/// (`nvmlPlatformInfo_v2`), by the rule of [`first_driver`]; `None` when every driver does.
pub fn first_driver_of_version(constant: &str) -> Option<Version> {
    first_in(&RECORD_VERSIONS, constant)
}

/// Whether driver `version` knows the record version `constant`: an older driver answers
/// `NVML_ERROR_ARGUMENT_VERSION_MISMATCH` to a record of that version.
pub fn knows_version(version: &Version, constant: &str) -> bool {
    first_driver_of_version(constant).map_or(true, |first| *version >= first)
}

/// Drivers whose library was looked at, with the functions it exports that the headers'
/// history dates later than it (a header after the driver declares them first): `(driver,
/// functions)`. A later driver of the same branch has them too. Each row comes from a real
/// library's exported symbols (`crates/nvml-mock/tests/real/`).
pub const OBSERVED: &[(&str, &[&str])] = &[(
    // libnvidia-ml.so.580.159.04 on an H200 and an H100 (`nvml-mock capture`'s `exports`).
    "580.159.04",
    &["nvmlDeviceGetRemappedRows_v2", "nvmlDeviceGetUnrepairableMemoryFlag_v1", "nvmlDeviceReadPRMCounters_v1"],
)];

/// Whether driver `version` has `function`: the history's first driver of the function, or a
/// library looked at of the same branch and no later than `version` that exports it
/// ([`OBSERVED`]).
pub fn has(version: &Version, function: &str) -> bool {
    ALWAYS.contains(&function)
        || first_driver(function).map_or(true, |first| *version >= first)
        || OBSERVED.iter().any(|(v, extra)| {
            Version::parse(v).is_ok_and(|seen| seen.branch() == version.branch() && *version >= seen)
                && extra.contains(&function)
        })
}

/// The functions of the header that driver `version` lacks, in name order.
pub fn lacking(version: &Version) -> Vec<&'static str> {
    crate::generated::names::FUNCTIONS.iter().copied().filter(|f| !has(version, f)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_and_compare_number_by_number() {
        let v = Version::parse("525.147.05").unwrap();
        assert_eq!((v.branch(), v.as_str()), (525, "525.147.05"));
        assert_eq!(v, Version::parse("525.147.5").unwrap());
        assert!(Version::parse("580.82.07").unwrap() > Version::parse("580.65.06").unwrap());
        assert!(Version::parse("580.9").unwrap() < Version::parse("580.65.06").unwrap());
        for bad in ["", "525", "525.", "r525.147", "525.147.05.1", "525.147-beta", "5x5.1"] {
            let e = Version::parse(bad).unwrap_err();
            assert!(e.contains("is not a driver version such as 525.147.05"), "{bad}: {e}");
        }
    }

    #[test]
    fn only_the_branches_of_the_published_headers_are_known() {
        assert_eq!(known("525.147.05").unwrap().branch(), 525);
        assert!(known("580.82.07").is_ok() && known("515.43.04").is_ok());
        let e = known("590.44.01").unwrap_err();
        assert!(
            e.starts_with(
                "driver 590.44.01: branch 590 is not a branch of the published headers (known: 515, 520, 525"
            ),
            "{e}"
        );
        assert!(known("565.1.2").is_err());
        assert!(known("latest").unwrap_err().contains("`latest` is not a driver version"));
    }

    #[test]
    fn a_driver_has_the_functions_of_its_branch_and_older() {
        let r525 = Version::parse("525.147.05").unwrap();
        let r570 = Version::parse("570.124.06").unwrap();
        assert!(!has(&r525, "nvmlDeviceGetTemperatureV") && has(&r570, "nvmlDeviceGetTemperatureV"));
        assert!(has(&r525, "nvmlDeviceClearFieldValues") && has(&r525, "nvmlDeviceGetTemperature"));
        assert!(!has(&r525, "nvmlDeviceGetModuleId"));
        assert!(has(&Version::parse("515.0").unwrap(), "nvmlInit_v2"));
        let lacking = lacking(&r525);
        assert!(lacking.contains(&"nvmlDeviceGetTemperatureV") && !lacking.contains(&"nvmlDeviceGetName"));
        assert!(lacking.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn a_driver_knows_the_record_versions_of_its_headers() {
        let v = |s: &str| Version::parse(s).unwrap();
        // nvmlPlatformInfo_v1 came with 12.8.55 (570.26), v2 with 12.8.90 (570.124.06).
        assert!(knows_version(&v("570.86.15"), "nvmlPlatformInfo_v1"));
        assert!(!knows_version(&v("570.86.15"), "nvmlPlatformInfo_v2"));
        assert!(knows_version(&v("570.124.06"), "nvmlPlatformInfo_v2"));
        // nvmlGpuFabricInfo_v3 came with 13.0.39 (580.65.06).
        assert!(knows_version(&v("575.57.08"), "nvmlGpuFabricInfo_v2"));
        assert!(!knows_version(&v("575.57.08"), "nvmlGpuFabricInfo_v3"));
        assert!(knows_version(&v("580.65.06"), "nvmlGpuFabricInfo_v3"));
        // Versions of the oldest header, and names the history does not list, are in every driver.
        assert!(knows_version(&v("515.43.04"), "nvmlMemory_v2") && knows_version(&v("515.43.04"), "nvmlBogus_v9"));
        assert_eq!(first_driver_of_version("nvmlPlatformInfo_v2"), Some(v("570.124.06")));
        assert!(RECORD_VERSIONS.windows(2).all(|w| w[0].0 < w[1].0));
    }
}
