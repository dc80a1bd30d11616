//! The mock's environment variables, each parser on every input: `NVML_MOCK_FAULTS`,
//! `NVML_MOCK_LIVE_PIDS`, `NVML_MOCK_CLOCK` and `NVML_MOCK_HOSTILE`. A bad value is an error
//! that names its variable (which `nvmlInit` prints); a number reads as itself.

#![no_main]

use libfuzzer_sys::fuzz_target;
use nvml_mock::fuzzing;

fuzz_target!(|data: &[u8]| {
    // The environment holds any bytes; the mock reads a variable that is not UTF-8 as unset.
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Err(e) = fuzzing::faults(text) {
        assert!(e.starts_with("NVML_MOCK_FAULTS: "), "{e}");
    }
    match fuzzing::live_pids(text) {
        Err(e) => assert!(e.starts_with("NVML_MOCK_LIVE_PIDS: "), "{e}"),
        Ok(Some(pairs)) => assert!(pairs.is_empty() || text.contains('='), "{text:?} gave {pairs:?}"),
        Ok(None) => assert!(matches!(text.trim(), "" | "0"), "{text:?} asked for nothing"),
    }
    match fuzzing::clock(text) {
        Err(e) => assert!(e.starts_with("NVML_MOCK_CLOCK: "), "{e}"),
        Ok(Some(us)) => assert_eq!(text.trim().parse::<u64>().ok(), Some(us)),
        Ok(None) => assert!(text.trim().is_empty()),
    }
    let seed = fuzzing::hostile_seed(text);
    if let Ok(n) = text.parse::<u64>() {
        assert_eq!(seed, n, "a decimal seed reads as itself");
    }
});
