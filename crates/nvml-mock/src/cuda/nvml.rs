//! What the CUDA engine reads of the GPUs, through the mock's own NVML exports: so a name, a
//! UUID, a PCI id, the memory and the driver version are what every NVML client reads, a
//! `ctl set` of them reaches CUDA, and a GPU that `ctl lost` took answers
//! `NVML_ERROR_GPU_IS_LOST` here too.

use std::ffi::{c_char, c_int, c_uint};

use nvml_sys::*;

use crate::ffi::chars_str;
use crate::generated::exports::{
    device_queries, device_queries_clocks, device_queries_identity as identity, device_queries_memory_ecc as memory,
    device_queries_pci_topology as pci, initialization_and_cleanup as init, multi_instance_gpu as mig, system_queries,
};

/// An NVML answer: its value, or the code.
pub type Nvml<T> = Result<T, nvmlReturn_t>;

fn ok(code: nvmlReturn_t) -> Nvml<()> {
    if code == NVML_SUCCESS {
        Ok(())
    } else {
        Err(code)
    }
}

/// One GPU or MIG device as NVML shows it.
#[derive(Debug, Clone)]
pub struct NvmlDevice {
    /// The GPU's NVML index (the parent's, for a MIG device).
    pub index: u32,
    /// The MIG device's index on its GPU, for a MIG device.
    pub mig: Option<u32>,
    /// The NVML handle, as an address (it stays valid: the CUDA engine keeps NVML
    /// initialised for the life of the process).
    pub handle: usize,
    pub name: String,
    /// `GPU-…` or `MIG-…`.
    pub uuid: String,
    pub pci: nvmlPciInfo_t,
    /// `(total, used)` bytes.
    pub memory: Nvml<(u64, u64)>,
    pub compute_capability: Nvml<(c_int, c_int)>,
    pub cores: Nvml<u32>,
    /// Max SM and memory clocks, MHz.
    pub sm_clock: Nvml<u32>,
    pub mem_clock: Nvml<u32>,
    pub bus_width: Nvml<u32>,
    pub ecc: Nvml<bool>,
    pub compute_mode: Nvml<u32>,
    pub multi_gpu_board: Nvml<bool>,
    pub board_id: Nvml<u32>,
    pub multiprocessors: Option<u32>,
}

/// `nvmlInit_v2` (the CUDA engine holds one reference for the life of the process).
pub fn init() -> nvmlReturn_t {
    // SAFETY: an export of this library, called as NVML's clients call it.
    unsafe { init::nvmlInit_v2() }
}

/// The CUDA driver version NVML answers (`nvmlSystemGetCudaDriverVersion`), initialising and
/// shutting NVML down around the call.
pub fn cuda_driver_version() -> Nvml<c_int> {
    ok(init())?;
    let mut v: c_int = 0;
    // SAFETY: exports of this library; `v` is a valid out-pointer.
    let mut code = unsafe { system_queries::nvmlSystemGetCudaDriverVersion(&mut v) };
    // What a capture recorded of `cuDriverGetVersion`, where the profile has it.
    let recorded = crate::engine::engine().system().and_then(|s| s.profile.system.i64("cuda.driver_version"));
    if let Some(r) = recorded {
        (v, code) = (r as c_int, NVML_SUCCESS);
    }
    // SAFETY: balances the `nvmlInit_v2` above.
    unsafe { init::nvmlShutdown() };
    ok(code).map(|()| v)
}

fn text(f: impl FnOnce(*mut c_char, c_uint) -> nvmlReturn_t) -> Nvml<String> {
    let mut buf = [0 as c_char; 256];
    ok(f(buf.as_mut_ptr(), buf.len() as c_uint))?;
    Ok(chars_str(&buf))
}

fn value<T: Default>(f: impl FnOnce(*mut T) -> nvmlReturn_t) -> Nvml<T> {
    let mut v = T::default();
    ok(f(&mut v))?;
    Ok(v)
}

/// Every GPU NVML shows, in NVML's order, each followed by its MIG devices when MIG mode is
/// on (`.1`: the GPU is in MIG mode).
pub fn devices() -> Nvml<Vec<(NvmlDevice, Vec<NvmlDevice>)>> {
    // SAFETY (every call of this function): exports of this library, called with valid
    // out-pointers and buffers of the sizes passed, as NVML's clients call them.
    let count = value(|c| unsafe { identity::nvmlDeviceGetCount_v2(c) })?;
    let mut out = Vec::new();
    for index in 0..count {
        let mut handle: nvmlDevice_t = std::ptr::null_mut();
        let handle = match ok(unsafe { identity::nvmlDeviceGetHandleByIndex_v2(index, &mut handle) }).map(|()| handle) {
            Ok(h) => h,
            // A lost GPU is not a CUDA device (the driver no longer enumerates it).
            Err(NVML_ERROR_GPU_IS_LOST) => continue,
            Err(e) => return Err(e),
        };
        let gpu = device(index, None, handle)?;
        let mut migs = Vec::new();
        if mig_mode(handle) {
            let max = value(|m| unsafe { mig::nvmlDeviceGetMaxMigDeviceCount(handle, m) }).unwrap_or(0);
            for i in 0..max {
                let mut h: nvmlDevice_t = std::ptr::null_mut();
                if unsafe { mig::nvmlDeviceGetMigDeviceHandleByIndex(handle, i, &mut h) } == NVML_SUCCESS {
                    migs.push(device(index, Some(i), h)?);
                }
            }
        }
        out.push((gpu, migs));
    }
    Ok(out)
}

/// Whether NVML says the GPU is in MIG mode.
pub fn mig_mode(h: nvmlDevice_t) -> bool {
    let (mut current, mut pending) = (0, 0);
    // SAFETY: an export of this library, with a handle NVML gave and valid out-pointers.
    let code = unsafe { mig::nvmlDeviceGetMigMode(h, &mut current, &mut pending) };
    code == NVML_SUCCESS && current == NVML_DEVICE_MIG_ENABLE as c_uint
}

impl NvmlDevice {
    /// The NVML handle.
    pub fn handle(&self) -> nvmlDevice_t {
        self.handle as nvmlDevice_t
    }
}

/// What NVML answers of `d` now (an error for a GPU `ctl lost` took).
pub fn again(d: &NvmlDevice) -> Nvml<NvmlDevice> {
    device(d.index, d.mig, d.handle())
}

/// What NVML answers of one GPU or MIG device.
fn device(index: u32, mig_index: Option<u32>, h: nvmlDevice_t) -> Nvml<NvmlDevice> {
    // SAFETY (every call of this function): exports of this library, called with the handle
    // NVML gave, valid out-pointers and buffers of the sizes passed.
    let name = text(|b, n| unsafe { identity::nvmlDeviceGetName(h, b, n) })?;
    let uuid = text(|b, n| unsafe { identity::nvmlDeviceGetUUID(h, b, n) })?;
    let mut parent = h;
    if mig_index.is_some() {
        ok(unsafe { mig::nvmlDeviceGetDeviceHandleFromMigDeviceHandle(h, &mut parent) })?;
    }
    let mut pci: nvmlPciInfo_t = unsafe { std::mem::zeroed() };
    ok(unsafe { pci::nvmlDeviceGetPciInfo_v3(parent, &mut pci) })?;
    let memory = {
        let mut m: nvmlMemory_v2_t = unsafe { std::mem::zeroed() };
        m.version = nvmlMemory_v2;
        ok(unsafe { memory::nvmlDeviceGetMemoryInfo_v2(h, &mut m) }).map(|()| (m.total, m.used + m.reserved))
    };
    let compute_capability = {
        let (mut major, mut minor) = (0, 0);
        ok(unsafe { identity::nvmlDeviceGetCudaComputeCapability(parent, &mut major, &mut minor) })
            .map(|()| (major, minor))
    };
    let cores = value(|c| unsafe { identity::nvmlDeviceGetNumGpuCores(parent, c) });
    let sm_clock = value(|c| unsafe { device_queries_clocks::nvmlDeviceGetMaxClockInfo(parent, NVML_CLOCK_SM, c) });
    let mem_clock = value(|c| unsafe { device_queries_clocks::nvmlDeviceGetMaxClockInfo(parent, NVML_CLOCK_MEM, c) });
    let bus_width = value(|w| unsafe { memory::nvmlDeviceGetMemoryBusWidth(parent, w) });
    let ecc = {
        let (mut current, mut pending) = (0, 0);
        ok(unsafe { memory::nvmlDeviceGetEccMode(parent, &mut current, &mut pending) })
            .map(|()| current == NVML_FEATURE_ENABLED)
    };
    let compute_mode = value(|m| unsafe { device_queries::nvmlDeviceGetComputeMode(parent, m) });
    let multi_gpu_board = value(|b| unsafe { identity::nvmlDeviceGetMultiGpuBoard(parent, b) }).map(|b: c_uint| b != 0);
    let board_id = value(|b| unsafe { identity::nvmlDeviceGetBoardId(parent, b) });
    // A MIG device's multiprocessors are its compute instance's (`nvmlDeviceGetAttributes`).
    let multiprocessors = match mig_index {
        Some(_) => {
            let mut a: nvmlDeviceAttributes_t = unsafe { std::mem::zeroed() };
            (unsafe { identity::nvmlDeviceGetAttributes_v2(h, &mut a) } == NVML_SUCCESS)
                .then_some(a.multiprocessorCount)
        }
        None => None,
    };
    Ok(NvmlDevice {
        index,
        mig: mig_index,
        handle: h as usize,
        name,
        uuid,
        pci,
        memory,
        compute_capability,
        cores,
        sm_clock,
        mem_clock,
        bus_width,
        ecc,
        compute_mode,
        multi_gpu_board,
        board_id,
        multiprocessors,
    })
}

/// The memory NVML shows on a device now, `(total, used)` bytes.
pub fn memory_now(h: nvmlDevice_t) -> Nvml<(u64, u64)> {
    let mut m: nvmlMemory_v2_t = unsafe { std::mem::zeroed() };
    m.version = nvmlMemory_v2;
    // SAFETY: an export of this library, with the handle NVML gave and a valid record.
    ok(unsafe { memory::nvmlDeviceGetMemoryInfo_v2(h, &mut m) })?;
    Ok((m.total, m.used + m.reserved))
}

/// Whether two GPUs can reach each other's memory (`nvmlDeviceGetP2PStatus` for reads), and
/// whether they share an NVLink (`NVML_P2P_CAPS_INDEX_NVLINK`).
pub fn p2p(a: nvmlDevice_t, b: nvmlDevice_t) -> (bool, bool) {
    let status = |index| {
        let mut s = 0;
        // SAFETY: exports of this library, with handles NVML gave and a valid out-pointer.
        let code = unsafe { pci::nvmlDeviceGetP2PStatus(a, b, index, &mut s) };
        code == NVML_SUCCESS && s == NVML_P2P_STATUS_OK
    };
    (status(NVML_P2P_CAPS_INDEX_READ), status(NVML_P2P_CAPS_INDEX_NVLINK))
}
