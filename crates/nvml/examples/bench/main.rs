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

use std::cell::Cell;
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
    // Both paths work before they are timed (their readings may differ on a real GPU).
    gpu.power_usage()?;
    if raw_power().0 != NVML_SUCCESS {
        return Err(format!("nvmlDeviceGetPowerUsage of {} failed", lib_path.display()).into());
    }
    let (safe, raw) = compare(
        GETTER_CALLS,
        || {
            black_box(black_box(&gpu).power_usage()).ok();
        },
        || {
            black_box(raw_power());
        },
    );
    report(
        "getter",
        "ns/call",
        ("safe", safe, "Device::power_usage()"),
        ("raw", raw, "nvmlDeviceGetPowerUsage through a pointer resolved once"),
    );

    // Dropped first, so that each cycle below loads and unloads the library.
    drop(gpu);
    drop(nvml);
    // A cycle that fails (a library without nvmlShutdown, a driver that refuses an init) is
    // recorded, not a panic: the first failure is the program's error, and no figure is
    // reported.
    let failure: Cell<Option<String>> = Cell::new(None);
    let fail = |what: String| {
        let first = failure.take().unwrap_or(what);
        failure.set(Some(first));
    };
    let (safe, raw) = compare(
        INIT_CYCLES,
        || match Nvml::builder().library_path(&lib_path).init() {
            Ok(n) => drop(black_box(n)),
            Err(e) => fail(format!("Nvml::init: {e}")),
        },
        || {
            let lib = match NvmlLib::open_path(&lib_path) {
                Ok(lib) => lib,
                Err(e) => return fail(format!("NvmlLib::open_path: {e}")),
            };
            let (init, shutdown) = match (lib.nvmlInit_v2(), lib.nvmlShutdown()) {
                (Ok(i), Ok(s)) => (i, s),
                _ => return fail("nvmlInit_v2 or nvmlShutdown is missing".into()),
            };
            // SAFETY: both functions take no arguments; `lib` stays loaded across the calls.
            let codes = unsafe { (init(), shutdown()) };
            if codes != (NVML_SUCCESS, NVML_SUCCESS) {
                fail(format!("nvmlInit_v2/nvmlShutdown answered {codes:?}"));
            }
            drop(black_box(lib));
        },
    );
    if let Some(e) = failure.take() {
        return Err(format!("init + drop of {}: {e}", lib_path.display()).into());
    }
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
