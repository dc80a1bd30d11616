//! What the safe layer costs, measured in one run against a library whose functions return
//! at once (`instant.c`, built by this example with `cc`), so that the figures are the
//! binding's own cost and not the library's work:
//!
//! - a getter, `Device::power_usage()` (`nvmlkit`), against calling `nvmlDeviceGetPowerUsage`
//!   through its function pointer, resolved once before the loop (`raw`, the floor), and
//!   against the raw layer's accessor called at each call, then the call and a test of its code
//!   (`lookup`: what the symbol lookup alone adds);
//! - `Nvml::init()` + drop (`dlopen`, `nvmlInit_v2`, `nvmlShutdown`, `dlclose`) against the
//!   same four steps through the raw layer.
//!
//! ```sh
//! cargo run --release -p nvmlkit --example bench
//! ```
//!
//! `NVML_LIBRARY_PATH` names another library instead (the mock, `libnvml_mock.so`, or a
//! driver's); `BENCH_RUNS` sets the number of rounds. Each figure is the median of the rounds
//! (see `timing.rs`); the lines are `name value unit  what`, for `benches/compare.sh`, which
//! also sets these figures beside nvml-wrapper's. Speed targets belong here, as ratios
//! measured in one run, not in timed tests.

use std::cell::Cell;
use std::hint::black_box;
use std::path::PathBuf;

use nvml::sys::{NvmlLib, NVML_SUCCESS};
use nvml::Nvml;

mod instant;
mod timing;
use instant::InstantLib;
use timing::{alternate, subject, GETTER_CALLS, INIT_CYCLES};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Kept until the end: the init + drop cycles load it again and again.
    let (lib_path, _instant) = library()?;
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
    let lib = nvml.lib();
    let lookup_power = || {
        let f = lib.nvmlDeviceGetPowerUsage().ok()?;
        let mut mw = 0;
        // SAFETY: as for `raw_power`, with the pointer the accessor resolves at each call.
        let code = unsafe { f(black_box(raw_dev), &mut mw) };
        (code == NVML_SUCCESS).then_some(mw)
    };
    alternate(vec![
        subject("nvmlkit", "Device::power_usage()", GETTER_CALLS, || {
            black_box(black_box(&gpu).power_usage()).ok();
        }),
        subject("raw", "nvmlDeviceGetPowerUsage through a pointer resolved once", GETTER_CALLS, || {
            black_box(raw_power());
        }),
        subject("lookup", "NvmlLib::nvmlDeviceGetPowerUsage() at each call, the call, its code", GETTER_CALLS, || {
            black_box(lookup_power());
        }),
    ])
    .report("getter", "ns/call", &[("nvmlkit", "raw"), ("lookup", "raw")]);

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
    let samples = alternate(vec![
        subject("nvmlkit", "Nvml::builder().library_path(..).init() + drop", INIT_CYCLES, || {
            match Nvml::builder().library_path(&lib_path).init() {
                Ok(n) => drop(black_box(n)),
                Err(e) => fail(format!("Nvml::init: {e}")),
            }
        }),
        subject("raw", "NvmlLib::open_path, nvmlInit_v2, nvmlShutdown, drop", INIT_CYCLES, || {
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
        }),
    ]);
    if let Some(e) = failure.take() {
        return Err(format!("init + drop of {}: {e}", lib_path.display()).into());
    }
    samples.report("init_drop", "ns/cycle", &[("nvmlkit", "raw")]);
    Ok(())
}

/// `$NVML_LIBRARY_PATH`, else the instant library, built now (and removed when the second
/// element is dropped).
fn library() -> Result<(PathBuf, Option<InstantLib>), String> {
    match std::env::var_os("NVML_LIBRARY_PATH").filter(|p| !p.is_empty()) {
        Some(p) => Ok((p.into(), None)),
        None => {
            let lib = InstantLib::build()?;
            Ok((lib.path().to_owned(), Some(lib)))
        }
    }
}
