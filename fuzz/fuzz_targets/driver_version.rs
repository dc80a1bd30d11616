//! Driver version strings: `parse_driver_version`, the field numbering a driver's version
//! picks (`FieldNumbering::for_driver`, and its ids both ways), and the mock's driver versions
//! (a profile's `system.driver_version`, `cargo xtask mock-lib --driver`). A version that
//! parses prints back to itself; an id a driver's header has goes to the driver and back.

#![no_main]

use libfuzzer_sys::fuzz_target;
use nvml_sys::{parse_driver_version, FieldNumbering};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let parsed = parse_driver_version(text);
    if let Some([a, b, c]) = parsed {
        assert_eq!(parse_driver_version(&format!("{a}.{b}.{c}")), parsed, "{text:?}");
    }
    let numbering = FieldNumbering::for_driver(text);
    assert_eq!(numbering.is_some(), parsed.is_some(), "{text:?}");
    if let Some(n) = numbering {
        for id in 0..320 {
            if let (Some(sent), true) = (n.to_driver(id), n.has(id)) {
                assert_eq!(n.from_driver(sent), Some(id), "{text:?}: field {id} sent as {sent}");
            }
        }
    }
    match nvml_mock::fuzzing::driver_version(text) {
        Ok((shown, _)) => {
            assert_eq!(shown, text.trim());
            assert!(parsed.is_some(), "{text:?}: the mock reads a version nvml-sys does not");
        }
        Err(e) => assert!(e.contains("is not a driver version"), "{e}"),
    }
});
