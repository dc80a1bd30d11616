//! A mock profile: the loader (`base:` chains, keys, selectors, values of every type, checked
//! against the header's schema) and the system `nvmlInit` builds from it (MIG trees, vGPU
//! totals, processes). An input is a profile's text, or, after a first byte 0xFF, a profile
//! built from the loader's own vocabulary. Every error must name the profile and a place.

#![no_main]

use std::sync::OnceLock;

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use nvmlkit_fuzz::{scratch, to_text, Yaml};
use serde_yaml::{Mapping, Value};

fn words() -> &'static [String] {
    static WORDS: OnceLock<Vec<String>> = OnceLock::new();
    WORDS.get_or_init(nvml_mock::fuzzing::profile_words)
}

/// A profile: some top-level keys (`devices` always), each device a mapping of device keys.
fn structured(u: &mut Unstructured) -> Result<String> {
    let y = Yaml { words: words(), depth: 4 };
    let mut top = Mapping::new();
    let devices = u.int_in_range(1..=3)?;
    let devices: Vec<Value> = (0..devices).map(|_| y.mapping(u, 3).map(Value::Mapping)).collect::<Result<_>>()?;
    top.insert("devices".into(), Value::Sequence(devices));
    for _ in 0..u.int_in_range(0..=4)? {
        let key = y.word(u)?;
        top.insert(key.into(), y.value(u, 4)?);
    }
    Ok(to_text(&Value::Mapping(top)))
}

fuzz_target!(|data: &[u8]| {
    let text = match data.strip_prefix(&[0xFF]) {
        Some(rest) => match structured(&mut Unstructured::new(rest)) {
            Ok(t) => t,
            Err(_) => return,
        },
        None => match std::str::from_utf8(data) {
            Ok(t) => t.to_string(),
            Err(_) => return,
        },
    };
    // Relative bases are read beside the profile: an empty directory.
    let origin = scratch("profile").join("fuzz.yaml");
    let origin = origin.to_string_lossy();
    if let Err(e) = nvml_mock::fuzzing::profile(&text, &origin) {
        let named = e.starts_with(&format!("profile {origin}: ")) || e.starts_with("device ");
        assert!(named, "an error that names no place: {e}");
    }
});
