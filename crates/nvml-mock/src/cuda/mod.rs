//! The CUDA driver API (`libcuda.so.1`) of the mock: every function of `cuda.h` is exported
//! (`generated/cuda/exports/`); those of `gen-config/cuda.yaml` behave, one module each
//! here, and every other one answers `CUDA_ERROR_NOT_SUPPORTED` (`NVML_MOCK_STRICT` names
//! each on stderr).
//!
//! The CUDA engine reads the GPUs through the mock's own NVML ([`nvml`]), so it answers from
//! the same profile, `ctl` session and driver emulation as NVML: at `cuInit` it takes the
//! devices NVML shows, in CUDA's order and under `CUDA_VISIBLE_DEVICES` ([`visible`]), and
//! takes their values again whenever NVML's system changes (a `ctl` command). Memory a
//! context allocates is held in [`crate::allocations`], which NVML counts.
//!
//! `libcuda.so.1` is a library of its own (`crates/cuda-mock`) that is an ELF auxiliary
//! filter of this one: its symbols resolve to this library's when `libnvml_mock.so` lies
//! beside it, so one process that loads both has one engine.

pub mod attributes;
pub mod context;
pub mod device;
pub mod heap;
pub mod init;
pub mod memory;
pub mod nvml;
pub mod visible;

use std::cell::{Cell, RefCell};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use crate::engine::resolve::CtlError;
use crate::generated::cuda::names::FUNCTIONS;
use crate::generated::cuda::types::*;
use nvml::NvmlDevice;

/// What `cuInit` left: not called yet, done, or failed with this code.
static INIT: AtomicU32 = AtomicU32::new(NOT_CALLED);
const NOT_CALLED: u32 = u32::MAX;

/// A CUDA device.
#[derive(Debug, Clone)]
pub struct Device {
    pub nvml: NvmlDevice,
    /// Every attribute's answer by its number ([`attributes::table`], then what the profile
    /// recorded).
    pub attributes: Vec<Result<i32, CUresult>>,
    /// `ctl lost` took its GPU.
    pub lost: bool,
    /// The errors `ctl error` gave CUDA functions on its GPU, by function id.
    pub errors: Vec<(usize, CtlError)>,
}

/// The devices, as of NVML's system `epoch`.
#[derive(Debug)]
pub struct Devices {
    pub epoch: u64,
    pub list: Vec<Device>,
}

static DEVICES: RwLock<Option<Arc<Devices>>> = RwLock::new(None);

thread_local! {
    /// This thread's view of [`DEVICES`]: a call costs a load and a compare, not a lock.
    static VIEW: RefCell<Option<Arc<Devices>>> = const { RefCell::new(None) };
    /// The function this thread runs (its id), for the errors of `ctl error`.
    static RUNNING: Cell<usize> = const { Cell::new(usize::MAX) };
}

/// Serialises the taking of the devices.
static TAKING: Mutex<()> = Mutex::new(());

/// Runs an exported function: a panic is `CUDA_ERROR_UNKNOWN` and a message, never an unwind
/// into C; a change of `nvml-mock ctl` is taken in first.
pub fn entry(id: usize, f: impl FnOnce() -> CUresult) -> CUresult {
    catch_unwind(AssertUnwindSafe(|| {
        if crate::engine::ctl::changed() {
            crate::engine::engine().refresh();
        }
        RUNNING.with(|r| r.set(id));
        f()
    }))
    .unwrap_or_else(|_| {
        eprintln!("nvml-mock: {} panicked (this is a bug in the mock)", FUNCTIONS.get(id).unwrap_or(&"?"));
        CUDA_ERROR_UNKNOWN
    })
}

/// A function without behaviour: `CUDA_ERROR_NOT_SUPPORTED` (before `cuInit`,
/// `CUDA_ERROR_NOT_INITIALIZED`, as every function but a few answers then), named on stderr
/// under `NVML_MOCK_STRICT`.
pub fn unsupported(id: usize) -> CUresult {
    if let Err(code) = initialized() {
        return code;
    }
    if std::env::var("NVML_MOCK_STRICT").is_ok_and(|v| !v.is_empty() && v != "0") {
        let name = FUNCTIONS.get(id).unwrap_or(&"?");
        eprintln!("nvml-mock (strict): {name}: no behaviour in the CUDA mock; answering CUDA_ERROR_NOT_SUPPORTED");
    }
    CUDA_ERROR_NOT_SUPPORTED
}

/// `Err(code)` to return early with.
pub type Cu<T> = Result<T, CUresult>;

/// The code of a result.
pub fn code(r: Cu<()>) -> CUresult {
    match r {
        Ok(()) => CUDA_SUCCESS,
        Err(c) => c,
    }
}

/// Writes through an out-pointer; NULL is `CUDA_ERROR_INVALID_VALUE`.
pub fn put<T>(p: *mut T, v: T) -> Cu<()> {
    crate::ffi::put(p, v).map_err(|_| CUDA_ERROR_INVALID_VALUE)
}

/// `Ok` after a successful `cuInit`, else `CUDA_ERROR_NOT_INITIALIZED`.
pub fn initialized() -> Cu<()> {
    match INIT.load(Ordering::Acquire) {
        0 => Ok(()),
        _ => Err(CUDA_ERROR_NOT_INITIALIZED),
    }
}

/// The devices now (after `cuInit`): taken again when NVML's system has changed since.
pub fn devices() -> Cu<Arc<Devices>> {
    initialized()?;
    let epoch = crate::engine::engine().epoch();
    let seen = VIEW.with(|v| v.borrow().as_ref().filter(|d| d.epoch == epoch).cloned());
    if let Some(d) = seen {
        return Ok(d);
    }
    let current = DEVICES.read().ok().and_then(|d| d.clone()).ok_or(CUDA_ERROR_NOT_INITIALIZED)?;
    let fresh = if current.epoch == epoch { current } else { retake(&current, epoch) };
    VIEW.with(|v| *v.borrow_mut() = Some(fresh.clone()));
    Ok(fresh)
}

/// The same devices with what NVML answers of them now.
fn retake(old: &Devices, epoch: u64) -> Arc<Devices> {
    let _taking = TAKING.lock();
    if let Some(d) = DEVICES.read().ok().and_then(|d| d.clone()).filter(|d| d.epoch == epoch) {
        return d;
    }
    let numa = host_numa();
    let list = old
        .list
        .iter()
        .map(|d| match nvml::again(&d.nvml) {
            Ok(n) => make(n, numa),
            Err(_) => Device { lost: true, ..d.clone() },
        })
        .collect();
    let fresh = Arc::new(Devices { epoch, list });
    if let Ok(mut d) = DEVICES.write() {
        *d = Some(fresh.clone());
    }
    fresh
}

/// The NUMA node of the host the mock's process runs on (`CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID`):
/// 0, as on a machine of one node.
fn host_numa() -> i32 {
    0
}

/// The CUDA device of what NVML answers of `n`, with what the profile recorded of the GPU's
/// CUDA view (a capture's `cuda.*`: name, total memory, attributes) answered before what the
/// engine derives.
fn make(mut n: NvmlDevice, host_numa: i32) -> Device {
    let mut attributes = attributes::table(&n, host_numa);
    let sys = crate::engine::engine().system();
    // A capture records a GPU in MIG mode by the one MIG device CUDA shows of it, its first.
    let spec = sys.as_ref().filter(|_| n.mig.unwrap_or(0) == 0).and_then(|s| s.devices.get(n.index as usize));
    let spec = spec.map(|d| d.spec.clone());
    if let Some(spec) = spec {
        if let Some(name) = spec.str("cuda.name") {
            n.name = name.to_string();
        }
        if let (Some(total), Ok((_, used))) = (spec.u64("cuda.total_memory"), n.memory) {
            n.memory = Ok((total, used));
        }
        let recorded = spec.value("cuda.attributes").and_then(|v| v.as_mapping());
        for (k, v) in recorded.into_iter().flatten() {
            let Some(name) = k.as_str() else { continue };
            let full = format!("CU_DEVICE_ATTRIBUTE_{name}");
            let Some((number, _)) = crate::generated::cuda::names::DEVICE_ATTRIBUTES.iter().find(|(_, n)| *n == full)
            else {
                continue;
            };
            let answer = match (v.as_i64(), v.as_str()) {
                (Some(x), _) => Ok(x as i32),
                (None, Some(code)) => Err(code_of(code)),
                _ => continue,
            };
            if let Some(slot) = usize::try_from(*number).ok().and_then(|i| attributes.get_mut(i)) {
                *slot = answer;
            }
        }
    }
    let errors = ctl_errors(&n);
    Device { attributes, errors, nvml: n, lost: false }
}

/// The `CUresult` of a name (`CUDA_ERROR_INVALID_VALUE`), or `CUDA_ERROR_UNKNOWN`.
fn code_of(name: &str) -> CUresult {
    let results = crate::generated::cuda::names::RESULTS;
    results.iter().find(|(_, n, _)| *n == name).map_or(CUDA_ERROR_UNKNOWN, |(c, _, _)| *c)
}

/// The errors `ctl error` gave CUDA functions on the GPU of `n`, by function id.
fn ctl_errors(n: &NvmlDevice) -> Vec<(usize, CtlError)> {
    let Some(sys) = crate::engine::engine().system() else { return Vec::new() };
    let Some(gpu) = sys.devices.get(n.index as usize) else { return Vec::new() };
    let id = |f: &str| FUNCTIONS.binary_search(&f).ok();
    gpu.table.cuda_errors.iter().filter_map(|(f, e)| Some((id(f)?, *e))).collect()
}

/// Device `ordinal`: `CUDA_ERROR_INVALID_DEVICE` for one that is not, an error like the
/// driver's for a GPU that `ctl lost` took, or the code `ctl error` gave the running function.
pub fn device(ordinal: CUdevice) -> Cu<(Arc<Devices>, usize)> {
    let d = devices()?;
    let i = usize::try_from(ordinal).map_err(|_| CUDA_ERROR_INVALID_DEVICE)?;
    match d.list.get(i) {
        None => Err(CUDA_ERROR_INVALID_DEVICE),
        Some(dev) if dev.lost => Err(LOST),
        Some(dev) => {
            ctl_error(dev)?;
            Ok((d, i))
        }
    }
}

/// The code `ctl error` gave the running function on `dev`'s GPU, if it answers one now.
pub fn ctl_error(dev: &Device) -> Cu<()> {
    if dev.errors.is_empty() {
        return Ok(());
    }
    let running = RUNNING.with(Cell::get);
    match dev.errors.iter().find(|(id, _)| *id == running) {
        Some((_, e)) => match crate::engine::ctl::fires(*e) {
            Some(code) => Err(code),
            None => Ok(()),
        },
        None => Ok(()),
    }
}

/// What a call on a GPU that has fallen off the bus answers (`ctl lost`).
pub const LOST: CUresult = CUDA_ERROR_UNKNOWN;

/// Takes the devices at `cuInit`; the code it answers.
fn take_devices() -> CUresult {
    match nvml::init() {
        nvml_sys::NVML_SUCCESS => {}
        // The library emulates another driver than the profile runs (`cargo xtask mock-lib`).
        nvml_sys::NVML_ERROR_LIB_RM_VERSION_MISMATCH => return CUDA_ERROR_SYSTEM_DRIVER_MISMATCH,
        _ => return CUDA_ERROR_NO_DEVICE,
    }
    let found = match nvml::devices() {
        Ok(f) => f,
        Err(_) => return CUDA_ERROR_UNKNOWN,
    };
    let candidates: Vec<visible::Candidate> = found
        .iter()
        .map(|(g, migs)| {
            let mp = u64::from(attributes::multiprocessors(g));
            visible::Candidate {
                uuid: g.uuid.clone(),
                pci: (g.pci.domain, g.pci.bus, g.pci.device),
                speed: mp * u64::from(g.sm_clock.unwrap_or(1)),
                mig: (!migs.is_empty() || mig_mode(g)).then(|| migs.iter().map(|m| m.uuid.clone()).collect()),
            }
        })
        .collect();
    let order = std::env::var("CUDA_DEVICE_ORDER").ok();
    let list = std::env::var("CUDA_VISIBLE_DEVICES").ok();
    let chosen = visible::enumerate(&candidates, order.as_deref(), list.as_deref());
    let numa = host_numa();
    let list: Vec<Device> = chosen
        .iter()
        .map(|v| {
            let (g, migs) = &found[v.gpu];
            let n = match v.mig {
                Some(i) => migs[i].clone(),
                None => g.clone(),
            };
            make(n, numa)
        })
        .collect();
    if list.is_empty() {
        return CUDA_ERROR_NO_DEVICE;
    }
    let epoch = crate::engine::engine().epoch();
    if let Ok(mut d) = DEVICES.write() {
        *d = Some(Arc::new(Devices { epoch, list }));
    }
    CUDA_SUCCESS
}

/// Whether NVML says the GPU is in MIG mode.
fn mig_mode(g: &NvmlDevice) -> bool {
    nvml::mig_mode(g.handle())
}
