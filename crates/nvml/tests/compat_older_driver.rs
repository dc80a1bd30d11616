//! The safe crate, generated from the newest header, against a library that reports an older
//! driver: the mock's `a100-r525` profile (driver 525, CUDA 12.0), where every function that
//! appeared after that branch answers `NVML_ERROR_FUNCTION_NOT_FOUND`; then through a library
//! that, like a real 525 driver, does not export those functions at all.

use nvml::{Error, Nvml, TemperatureSensor};

#[test]
#[allow(deprecated)] // nvmlDeviceGetTemperature, deprecated in 13.x, is what a 525 driver has.
fn newest_header_on_a_525_driver() {
    // The only test of this binary, so the environment is its own.
    std::env::set_var("NVML_MOCK_PROFILE", "a100-r525");
    let nvml = Nvml::builder().library_path(nvml_mock::testing::mock_path()).init().expect("init on the old driver");
    assert_eq!(nvml.driver_version().unwrap(), "525.147.05");
    assert_eq!(nvml.cuda_driver_version().unwrap(), 12000);
    assert_eq!(nvml.device_count().unwrap(), 8);
    let gpu = nvml.device_by_index(0).unwrap();

    // Functions the 525 branch has work, versioned families included.
    assert!(gpu.name().unwrap().starts_with("NVIDIA A100"), "{}", gpu.name().unwrap());
    let mem = gpu.memory_info().unwrap();
    assert!(mem.total > 0 && mem.used <= mem.total, "{mem:?}");
    assert!(gpu.temperature(TemperatureSensor::GPU).unwrap() > 0);

    // Functions of later branches are errors, not crashes (nvmlDeviceGetModuleId: 12.2, branch
    // 535); a family serves from its older member (nvmlDeviceGetTemperatureV is 12.8, branch
    // 570: `temperature` falls back to the deprecated nvmlDeviceGetTemperature).
    assert!(matches!(gpu.module_id(), Err(Error::FunctionNotFound(_))), "{:?}", gpu.module_id());
    let e = gpu.module_id().unwrap_err();
    assert_eq!(e.code(), nvml::sys::NVML_ERROR_FUNCTION_NOT_FOUND);
    drop(gpu);
    nvml.shutdown().unwrap();

    // The same driver without the later branches' symbols: the binding loads, the functions
    // the driver has work, and each missing one is an error naming its symbol.
    let dir =
        nvml_mock::testing::driver_lib_dir(std::path::Path::new(env!("CARGO_TARGET_TMPDIR")), "a100-r525").unwrap();
    let nvml =
        Nvml::builder().library_path(dir.join("libnvidia-ml.so.1")).init().expect("init through the 525 symbol set");
    assert_eq!(nvml.driver_version().unwrap(), "525.147.05");
    let gpu = nvml.device_by_index(0).unwrap();
    assert!(gpu.temperature(TemperatureSensor::GPU).unwrap() > 0);
    assert_eq!(gpu.module_id(), Err(Error::FunctionNotFound(Some("nvmlDeviceGetModuleId"))));
    nvml.shutdown().unwrap();
}
