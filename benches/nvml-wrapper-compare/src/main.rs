//! nvmlkit against nvml-wrapper 0.13, in one process, against the same library (the mock):
//! the getter `Device::power_usage()` of each, and `init` + drop of each. It times the way
//! nvmlkit's `bench` example does (the same `timing.rs`): medians of runs that alternate
//! between the two, so the ratios compare like with like on a machine whose speed drifts.
//!
//! ```sh
//! NVML_LIBRARY_PATH=/path/to/libnvml_mock.so cargo run --release
//! ```
//!
//! The lines are `name value unit  what`, for `benches/compare.sh`.

use std::ffi::OsString;
use std::hint::black_box;

#[path = "../../../crates/nvml/examples/bench/timing.rs"]
mod timing;
use timing::{compare, report, GETTER_CALLS, INIT_CYCLES};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path: OsString = std::env::var_os("NVML_LIBRARY_PATH").filter(|p| !p.is_empty()).ok_or("set NVML_LIBRARY_PATH to the mock (libnvml_mock.so)")?;

    {
        let ours = nvml::Nvml::builder().library_path(&path).init()?;
        let theirs = nvml_wrapper::Nvml::builder().lib_path(&path).init()?;
        let (our_gpu, their_gpu) = (ours.device_by_index(0)?, theirs.device_by_index(0)?);
        assert_eq!(our_gpu.power_usage()?, their_gpu.power_usage()?);
        let (a, b) = compare(
            GETTER_CALLS,
            || {
                black_box(black_box(&our_gpu).power_usage()).ok();
            },
            || {
                black_box(black_box(&their_gpu).power_usage()).ok();
            },
        );
        report("getter", "ns/call", ("nvmlkit", a, "nvmlkit Device::power_usage()"), ("nvml_wrapper", b, "nvml-wrapper 0.13 Device::power_usage()"));
    }

    // Neither library object is alive here, so every cycle loads and unloads the library.
    let (a, b) = compare(
        INIT_CYCLES,
        || {
            drop(black_box(nvml::Nvml::builder().library_path(&path).init().expect("nvmlkit init")));
        },
        || {
            drop(black_box(nvml_wrapper::Nvml::builder().lib_path(&path).init().expect("nvml-wrapper init")));
        },
    );
    report(
        "init_drop",
        "ns/cycle",
        ("nvmlkit", a, "nvmlkit Nvml::builder().library_path(..).init() + drop"),
        ("nvml_wrapper", b, "nvml-wrapper 0.13 Nvml::builder().lib_path(..).init() + drop"),
    );
    Ok(())
}
