//! nvmlkit against nvml-wrapper 0.13, in one process, against the same library: by default
//! `instant.c`, a `libnvidia-ml.so.1` whose functions return at once, which this program builds
//! with `cc` (the one nvmlkit's `bench` example builds), so that the figures are the bindings'
//! own cost. Measured in the same rounds, alternating: the getter `Device::power_usage()` of
//! each, and `nvmlDeviceGetPowerUsage` through its function pointer resolved once by nvmlkit's
//! raw layer (the floor); then `init` + drop of each. It times the way nvmlkit's `bench`
//! example does (the same `timing.rs`).
//!
//! ```sh
//! cargo run --release                 # NVML_LIBRARY_PATH=... for another library (the mock)
//! ```
//!
//! The lines are `name value unit  what`, for `benches/compare.sh`.

use std::ffi::OsString;
use std::hint::black_box;

#[path = "../../../crates/nvml/examples/bench/instant.rs"]
mod instant;
#[path = "../../../crates/nvml/examples/bench/timing.rs"]
mod timing;
use instant::InstantLib;
use timing::{alternate, subject, GETTER_CALLS, INIT_CYCLES};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Kept until the end: the init + drop cycles load the library again and again.
    let (path, _instant): (OsString, _) = match std::env::var_os("NVML_LIBRARY_PATH").filter(|p| !p.is_empty()) {
        Some(p) => (p, None),
        None => {
            let lib = InstantLib::build()?;
            (lib.path().into(), Some(lib))
        }
    };

    {
        let ours = nvml::Nvml::builder().library_path(&path).init()?;
        let theirs = nvml_wrapper::Nvml::builder().lib_path(&path).init()?;
        let (our_gpu, their_gpu) = (ours.device_by_index(0)?, theirs.device_by_index(0)?);
        assert_eq!(our_gpu.power_usage()?, their_gpu.power_usage()?);

        let raw_fn = ours.lib().nvmlDeviceGetPowerUsage()?;
        let raw_dev = our_gpu.as_raw();
        let raw_power = || {
            let mut mw = 0;
            // SAFETY: `raw_fn` is nvmlDeviceGetPowerUsage of the library `ours` keeps
            // initialised, `raw_dev` one of its device handles, and `mw` a valid out-pointer.
            let code = unsafe { raw_fn(black_box(raw_dev), &mut mw) };
            (code, mw)
        };
        assert_eq!(raw_power(), (nvml::sys::NVML_SUCCESS, our_gpu.power_usage()?));

        alternate(vec![
            subject("nvmlkit", "nvmlkit Device::power_usage()", GETTER_CALLS, || {
                black_box(black_box(&our_gpu).power_usage()).ok();
            }),
            subject("raw", "nvmlDeviceGetPowerUsage through a pointer resolved once", GETTER_CALLS, || {
                black_box(raw_power());
            }),
            subject("nvml_wrapper", "nvml-wrapper 0.13 Device::power_usage()", GETTER_CALLS, || {
                black_box(black_box(&their_gpu).power_usage()).ok();
            }),
        ])
        .report(
            "getter",
            "ns/call",
            &[("nvmlkit", "raw"), ("nvmlkit", "nvml_wrapper"), ("nvml_wrapper", "raw")],
        );
    }

    // Neither library object is alive here, so every cycle loads and unloads the library.
    alternate(vec![
        subject("nvmlkit", "nvmlkit Nvml::builder().library_path(..).init() + drop", INIT_CYCLES, || {
            drop(black_box(nvml::Nvml::builder().library_path(&path).init().expect("nvmlkit init")));
        }),
        subject("nvml_wrapper", "nvml-wrapper 0.13 Nvml::builder().lib_path(..).init() + drop", INIT_CYCLES, || {
            drop(black_box(nvml_wrapper::Nvml::builder().lib_path(&path).init().expect("nvml-wrapper init")));
        }),
    ])
    .report("init_drop", "ns/cycle", &[("nvmlkit", "nvml_wrapper")]);
    Ok(())
}
