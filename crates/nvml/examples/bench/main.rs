//! What the safe layer costs, measured against the mock in one run:
//!
//! - a getter, `Device::power_usage()`, against calling `nvmlDeviceGetPowerUsage` through its
//!   function pointer, resolved once before the loop (the floor: the mock's own work);
//! - `Nvml::init()` + drop (`dlopen`, `nvmlInit_v2`, `nvmlShutdown`, `dlclose`) against the
//!   same four steps through the raw layer.
//!
//! ```sh
//! cargo run --release -p nvmlkit --example bench
//! ```
//!
//! The library is `$NVML_LIBRARY_PATH`, else the mock cargo built next to this example
//! (`target/release/deps/libnvml_mock.so`). Each figure is the median of several runs (see
//! `timing.rs`); the lines are `name value unit  what`, for `benches/compare.sh`, which also
//! sets these figures beside nvml-wrapper's. Speed targets belong here, as ratios measured in
//! one run, not in timed tests.

use std::hint::black_box;
use std::path::PathBuf;

use nvml::sys::{NvmlLib, NVML_SUCCESS};
use nvml::Nvml;

mod timing;
use timing::{compare, report, GETTER_CALLS, INIT_CYCLES};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let lib_path = library_path();
    let nvml = Nvml::builder().library_path(&lib_path).init()?;
    let gpu = nvml.device_by_index(0)?;

    // The raw floor: the pointer is resolved once, outside the loop.
    let raw_fn = nvml.lib().nvmlDeviceGetPowerUsage()?;
    let raw_dev = gpu.as_raw();
    let raw_power = || {
        let mut mw = 0;
        // SAFETY: `raw_fn` is nvmlDeviceGetPowerUsage of the library `nvml` keeps initialised,
        // `raw_dev` one of its device handles, and `mw` a valid out-pointer.
        let code = unsafe { raw_fn(black_box(raw_dev), &mut mw) };
        (code, mw)
    };
    assert_eq!(raw_power(), (NVML_SUCCESS, gpu.power_usage()?));
    let (safe, raw) = compare(
        GETTER_CALLS,
        || {
            black_box(black_box(&gpu).power_usage()).ok();
        },
        || {
            black_box(raw_power());
        },
    );
    report("getter", "ns/call", ("safe", safe, "Device::power_usage()"), ("raw", raw, "nvmlDeviceGetPowerUsage through a pointer resolved once"));

    // Dropped first, so that each cycle below loads and unloads the library.
    drop(gpu);
    drop(nvml);
    // One cycle of each kind outside the timing, so that a library that cannot do them is an
    // error here; the timed cycles below repeat exactly these steps.
    drop(Nvml::builder().library_path(&lib_path).init()?);
    {
        let lib = NvmlLib::open_path(&lib_path)?;
        let (init, shutdown) = (lib.nvmlInit_v2()?, lib.nvmlShutdown()?);
        // SAFETY: both functions take no arguments; `lib` stays loaded across the calls.
        let codes = unsafe { (init(), shutdown()) };
        if codes != (NVML_SUCCESS, NVML_SUCCESS) {
            return Err(format!("nvmlInit_v2/nvmlShutdown of {} answered {codes:?}", lib_path.display()).into());
        }
    }
    let (safe, raw) = compare(
        INIT_CYCLES,
        || {
            drop(black_box(Nvml::builder().library_path(&lib_path).init().expect("init worked before the timing")));
        },
        || {
            let lib = NvmlLib::open_path(&lib_path).expect("opened before the timing");
            let (init, shutdown) = (
                lib.nvmlInit_v2().expect("resolved before the timing"),
                lib.nvmlShutdown().expect("resolved before the timing"),
            );
            // SAFETY: both functions take no arguments; `lib` stays loaded across the calls.
            unsafe {
                assert_eq!(init(), NVML_SUCCESS);
                assert_eq!(shutdown(), NVML_SUCCESS);
            }
            drop(black_box(lib));
        },
    );
    report(
        "init_drop",
        "ns/cycle",
        ("safe", safe, "Nvml::builder().library_path(..).init() + drop"),
        ("raw", raw, "NvmlLib::open_path, nvmlInit_v2, nvmlShutdown, drop"),
    );
    Ok(())
}

/// `$NVML_LIBRARY_PATH`, else the mock cargo built next to this example.
fn library_path() -> PathBuf {
    match std::env::var_os("NVML_LIBRARY_PATH").filter(|p| !p.is_empty()) {
        Some(p) => p.into(),
        None => nvml_mock::testing::mock_path(),
    }
}
