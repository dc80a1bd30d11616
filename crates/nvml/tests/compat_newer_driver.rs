//! The safe crate against a library newer than its header: return codes and enum values the
//! header does not define come through as values, never as failures of unrelated calls.

use nvml::{ComputeMode, Error, Nvml};

#[test]
fn codes_and_enum_values_newer_than_the_header() {
    // A profile whose devices report compute mode 77 (no such constant in nvml.h) and a fault
    // that makes nvmlDeviceGetSerial answer code 1234.
    let profile = "base: [h100]\ndevice_defaults: {nvmlDeviceGetComputeMode: 77}\n";
    let path = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("newer-driver.yaml");
    std::fs::write(&path, profile).unwrap();
    // The only test of this binary, so the environment is its own.
    std::env::set_var("NVML_MOCK_PROFILE", &path);
    std::env::set_var("NVML_MOCK_FAULTS", "nvmlDeviceGetSerial=1234");

    let nvml = Nvml::builder().library_path(nvml_mock::testing::mock_path()).init().expect("init");
    let gpu = nvml.device_by_index(0).unwrap();
    let mode = gpu.compute_mode().expect("an unknown value is still a value");
    assert_eq!(mode, ComputeMode(77));
    assert_eq!(mode.name(), None);
    assert_eq!(format!("{mode:?}"), "ComputeMode(77)");
    assert_ne!(mode, ComputeMode::DEFAULT);

    let e = gpu.serial().unwrap_err();
    assert_eq!(e, Error::Unknown(1234));
    assert_eq!(e.code(), 1234);
    assert!(!e.to_string().is_empty());
    // Other calls are unaffected.
    assert_eq!(gpu.uuid().unwrap(), "GPU-74106407-f32f-0663-90a7-a1acf7eb04ae");
}
