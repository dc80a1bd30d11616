//! The entry points the workspace's fuzz targets drive (`fuzz/` in the repository): every
//! parser of what a user hands the mock, called as the mock calls it. Only with the `fuzzing`
//! feature, and not part of the crate's API.

use crate::{driver, engine, profile};

/// Loads a profile from its text as `NVML_MOCK_PROFILE` would load a file of that text
/// (`origin` names it, and relative bases are read beside it), then builds the system it
/// describes, as `nvmlInit` does; the device count, or the error that `nvmlInit` prints.
pub fn profile(text: &str, origin: &str) -> Result<usize, String> {
    let p = profile::parse(text, origin)?;
    let devices = p.devices.len();
    engine::System::new(&engine::resolve::Resolved::new(p, None), None, None)?;
    Ok(devices)
}

/// `NVML_MOCK_FAULTS`: the number of faults, or the error `nvmlInit` prints.
pub fn faults(text: &str) -> Result<usize, String> {
    profile::parse_faults(text).map(|f| f.len())
}

/// `NVML_MOCK_LIVE_PIDS`: the pids mapped one by one (`None`: none asked; empty: the caller and
/// its ancestors), or the error `nvmlInit` prints.
pub fn live_pids(text: &str) -> Result<Option<Vec<(u32, u32)>>, String> {
    Ok(engine::processes::parse_live_pids(text)?.map(|m| m.into_iter().collect()))
}

/// `NVML_MOCK_CLOCK`: the moment the clock stands still at, or the error `nvmlInit` prints.
pub fn clock(text: &str) -> Result<Option<u64>, String> {
    engine::parse_clock(text)
}

/// `NVML_MOCK_HOSTILE`: the seed the text names.
pub fn hostile_seed(text: &str) -> u64 {
    engine::hostile::seed(text)
}

/// A driver version as a profile's `system.driver_version` or `cargo xtask mock-lib
/// --driver` gives it: the version as the mock reads it, and whether its branch is one the
/// history knows.
pub fn driver_version(text: &str) -> Result<(String, bool), String> {
    let v = driver::Version::parse(text)?;
    Ok((v.to_string(), driver::known(text).is_ok()))
}

/// The words of a profile: its keys (top level, device and system keys with their dotted
/// paths split, old keys), the built-in profiles and bases, the functions a profile may name
/// with their outputs, selectors and record fields, and the header's constants; sorted, each
/// once.
pub fn profile_words() -> Vec<String> {
    use crate::generated::names::CONSTANTS;
    use crate::generated::tables::{FUNCTIONS, HAND_WRITTEN, RECORDS};
    let mut words = std::collections::BTreeSet::new();
    let keys = profile::DEVICE_KEYS.iter().chain(profile::SYSTEM_KEYS).map(|(k, _)| *k);
    let renamed = profile::RENAMED.iter().map(|(old, _)| *old);
    for k in keys.chain(renamed).chain(profile::TOP_KEYS.iter().copied()) {
        words.insert(k.to_string());
        words.extend(k.split('.').map(String::from));
    }
    words.extend(profile::BUILTIN.iter().chain(profile::BASES).map(|(n, _)| n.to_string()));
    for f in FUNCTIONS.iter().flat_map(|area| area.iter()) {
        words.insert(f.name.to_string());
        words.extend(f.outputs.iter().map(|o| o.name.to_string()));
        words.extend(f.selectors.iter().map(|s| s.name.to_string()));
    }
    words.extend(HAND_WRITTEN.iter().map(|(f, _)| f.to_string()));
    for r in RECORDS.iter().flat_map(|area| area.iter()) {
        words.extend(r.fields.iter().map(|f| f.name.to_string()));
    }
    words.extend(CONSTANTS.iter().map(|(c, _)| c.to_string()));
    words.extend(
        ["error", "reason", "id", "pid", "used_memory", "device", "type", "data", "gpu_id", "*"].map(String::from),
    );
    words.into_iter().collect()
}
