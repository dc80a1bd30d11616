//! `nvml-mock capture`: a profile recorded from the GPUs of a machine, through the library it
//! has (or any `libnvidia-ml.so`, the mock's included), that the mock then answers as the
//! machine did.
//!
//! A capture has three steps:
//!
//! 1. `record` calls every getter of the header the mock can answer from values (the readers
//!    `cargo xtask regen` writes in `generated/capture/`) on the system, each GPU, each MIG
//!    device, GPU and compute instance, vGPU type and instance, with every selector value the
//!    header enumerates (sensors, clock types and ids, P-states, ECC counters, NVLink links,
//!    instance profiles, ...), and reads what has no reader by hand: field values 0 to
//!    `NVML_FI_MAX`, the MIG tree, processes and their names, pending events, the exported
//!    symbols, the error strings, and, for each function that takes a versioned record, what a
//!    NULL record and a wrong version answer. Nothing it calls changes a GPU's state: getters,
//!    and the event sets it creates, registers and frees in its own process.
//! 2. `draft` writes a profile from the recording: the values the engine derives its
//!    behaviour from (`memory.total`, `clocks.sm`, `processes.compute`, the MIG tree, ...) and
//!    the recorded values of every function the mock answers from data.
//! 3. `verify` loads the draft into a copy of the mock, records the mock the same way, and
//!    gives every function whose answer differs from the machine's (a derived value the real
//!    driver computes otherwise, an error the engine does not know) its recorded answers, by
//!    name: the mock answers a recorded value before its behaviour. It repeats until the
//!    mock's recording equals the machine's.
//!
//! Identifying values (serial numbers, UUIDs, board serials, the hostname) are replaced by
//! stable synthetic ones unless the options keep them.

mod cuda;
mod draft;
mod record;
mod yaml;

use std::path::{Path, PathBuf};

pub use record::{probe_child, Recording};

/// What to capture, and how.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The library to record (`None`: `libnvidia-ml.so.1` as the dynamic loader finds it).
    pub library: Option<PathBuf>,
    /// The CUDA library whose view to record too (`None`: `libcuda.so.1` as the dynamic
    /// loader finds it, if it does).
    pub cuda_library: Option<PathBuf>,
    /// The mock that checks the profile (`None`: `libnvml_mock.so` next to this program).
    pub mock: Option<PathBuf>,
    /// The profile's `name`.
    pub name: String,
    /// Keep serial numbers, UUIDs and the hostname as the machine has them.
    pub keep_ids: bool,
    /// Skip the check against the mock (step 3): the draft as it is.
    pub no_verify: bool,
    /// Skip the probes of the argument checks (a NULL record, a wrong version).
    pub no_probes: bool,
    /// The program that runs each probe in a child process (`nvml-mock`, whose `__probe`
    /// command is [`probe_child`]); `None`: in this process.
    pub probe_program: Option<PathBuf>,
}

/// What a capture produced: the profile's YAML and what it says about it.
#[derive(Debug, Clone)]
pub struct Captured {
    pub yaml: String,
    /// Lines for the user: what was recorded, what the check found.
    pub report: Vec<String>,
}

/// Records the machine's library and writes the profile.
///
/// # Errors
///
/// A library that cannot be loaded or initialised, or a mock that cannot check the profile
/// (unless `no_verify`).
pub fn capture(opts: &Options) -> Result<Captured, String> {
    let lib = match &opts.library {
        Some(p) => nvml_sys::NvmlLib::open_path(p),
        None => nvml_sys::NvmlLib::open(),
    }
    .map_err(|e| format!("cannot load the NVML library: {e}"))?;
    let prober = match &opts.probe_program {
        Some(program) => record::Prober::Child { program: program.clone(), library: lib.path().to_path_buf() },
        None => record::Prober::InProcess,
    };
    let mut recording = record::record(&lib, (!opts.no_probes).then_some(&prober))?;
    let cuda_view = cuda::record(opts.cuda_library.as_deref(), &|bus| nvml_index(&lib, bus))?;
    if !opts.keep_ids {
        record::anonymize(&mut recording);
    }
    let mut report = vec![format!(
        "recorded {} GPU(s) through {}: driver {}, {} calls, {} functions exported",
        recording.devices.len(),
        lib.path().display(),
        recording.driver_version().unwrap_or("unknown"),
        recording.calls,
        recording.exports.len()
    )];
    for c in &recording.crashed {
        report.push(format!("the library crashed on a probe of its argument checks, left out: {c}"));
    }
    let mut profile = draft::draft(&recording, opts);
    match &cuda_view {
        Some(view) => {
            cuda::draft(view, &mut profile);
            report.push(format!(
                "recorded the CUDA view: driver version {}, {} device(s) with {} attributes each{}",
                view.driver_version.map_or("unknown".to_string(), |v| v.to_string()),
                view.devices.len(),
                view.devices.values().next().map_or(0, |d| d.attributes.len()),
                match view.unmatched {
                    0 => String::new(),
                    n => format!(" ({n} CUDA device(s) without an NVML GPU of their PCI bus id left out)"),
                }
            ));
        }
        None => report.push("no libcuda.so.1: the CUDA view is not recorded".to_string()),
    }
    if !opts.no_verify {
        let mock = match &opts.mock {
            Some(m) => m.clone(),
            None => crate::driver_lib::default_mock()?,
        };
        report.extend(verify(&recording, &mut profile, &mock)?);
    }
    Ok(Captured { yaml: draft::write(&profile), report })
}

/// The NVML index of the GPU at PCI bus id `bus`, through `lib`.
fn nvml_index(lib: &nvml_sys::NvmlLib, bus: &str) -> Option<usize> {
    let c = std::ffi::CString::new(bus).ok()?;
    let (init, by_bus, index, shutdown) = (
        lib.nvmlInit_v2().ok()?,
        lib.nvmlDeviceGetHandleByPciBusId_v2().ok()?,
        lib.nvmlDeviceGetIndex().ok()?,
        lib.nvmlShutdown().ok()?,
    );
    let (mut h, mut i) = (std::ptr::null_mut(), 0);
    // SAFETY: the library's functions with their prototypes: a NUL-terminated bus id and valid
    // out-pointers; the init is balanced by the shutdown.
    unsafe {
        if init() != nvml_sys::NVML_SUCCESS {
            return None;
        }
        let ok = by_bus(c.as_ptr(), &mut h) == nvml_sys::NVML_SUCCESS && index(h, &mut i) == nvml_sys::NVML_SUCCESS;
        shutdown();
        ok.then_some(i as usize)
    }
}

/// How many times the check may add recorded answers before it gives up.
const ROUNDS: usize = 4;

/// Step 3: the mock loaded with `profile` answers as the machine did, or `profile` gets the
/// machine's answers of each function where it does not.
fn verify(machine: &Recording, profile: &mut draft::Profile, mock: &Path) -> Result<Vec<String>, String> {
    // A copy of its own, so that its state is not that of a mock the capture recorded, in a
    // fresh directory of the caller's own (never one another user could have planted).
    let tmp = crate::private::TempDir::new("nvml-mock-capture")?;
    let dir = tmp.path();
    let copy = dir.join(crate::driver_lib::MOCK_FILE);
    std::fs::copy(mock, &copy).map_err(|e| format!("cannot copy the mock {}: {e}", mock.display()))?;
    let file = dir.join("profile.yaml");
    let result = (|| {
        let lib =
            nvml_sys::NvmlLib::open_path(&copy).map_err(|e| format!("cannot load the mock {}: {e}", copy.display()))?;
        let mut report = Vec::new();
        for round in 1..=ROUNDS {
            std::fs::write(&file, draft::write(profile)).map_err(|e| format!("{}: {e}", file.display()))?;
            let probed = !machine.system_checks.is_empty() || machine.devices.iter().any(|d| !d.checks.is_empty());
            let mocked = with_profile(&file, || record::record(&lib, probed.then_some(&record::Prober::InProcess)))?;
            let differences = record::differences(machine, &mocked);
            if differences.is_empty() {
                report.push(format!("checked: the mock loaded with the profile answers every recorded call as the machine did (round {round})"));
                return Ok(report);
            }
            report.push(format!("round {round}: {} answer(s) of the mock differ; recorded by name", differences.len()));
            let before = profile.overrides();
            for d in &differences {
                profile.take_recorded(machine, d);
            }
            if profile.overrides() == before {
                let shown: Vec<String> = differences.iter().take(20).map(|d| format!("  {d}")).collect();
                report.push(format!(
                    "these answers cannot be recorded by name (the mock derives them):\n{}",
                    shown.join("\n")
                ));
                return Ok(report);
            }
        }
        report.push(format!("gave up after {ROUNDS} rounds"));
        Ok(report)
    })();
    drop(tmp);
    result
}

/// Runs `f` with `NVML_MOCK_PROFILE` set to `file` (the mock reads it at its first `nvmlInit`).
fn with_profile<T>(file: &Path, f: impl FnOnce() -> T) -> T {
    let before = std::env::var_os("NVML_MOCK_PROFILE");
    std::env::set_var("NVML_MOCK_PROFILE", file);
    let out = f();
    match before {
        Some(v) => std::env::set_var("NVML_MOCK_PROFILE", v),
        None => std::env::remove_var("NVML_MOCK_PROFILE"),
    }
    out
}
