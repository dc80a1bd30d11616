//! Memory: device allocations (addresses only: the mock's devices hold no bytes), host
//! allocations (real, page-aligned memory the caller may use), and `cuMemGetInfo`.
//!
//! A device allocation is memory NVML counts on its GPU ([`crate::allocations`]) from the
//! moment it is made until it is freed, its context is destroyed, or its process exits; an
//! allocation larger than what NVML shows free is `CUDA_ERROR_OUT_OF_MEMORY`.

use std::ffi::{c_uint, c_ulong, c_void};

use super::context::current;
use super::heap::{lock, Allocation, ALIGN};
use super::{code, devices, put, Cu};
use crate::generated::cuda::types::*;

/// Allocates `bytes` in the current context; `low`: below 4 GiB (the legacy calls).
fn alloc(bytes: u64, low: bool) -> Cu<u64> {
    let (ctx, dev) = current()?;
    if bytes == 0 {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    let d = devices()?;
    let n = &d.list[dev].nvml;
    let (total, used) = super::nvml::memory_now(n.handle()).map_err(|_| CUDA_ERROR_UNKNOWN)?;
    if bytes > total.saturating_sub(used) {
        return Err(CUDA_ERROR_OUT_OF_MEMORY);
    }
    let mut m = lock()?;
    let size = bytes.div_ceil(ALIGN) * ALIGN;
    let next = if low { &mut m.next_low } else { &mut m.next };
    let address = *next;
    if low && address + size > u64::from(u32::MAX) {
        return Err(CUDA_ERROR_OUT_OF_MEMORY);
    }
    *next += size;
    m.device.insert(address, Allocation { ctx: ctx as usize, gpu: n.index as usize, bytes });
    drop(m);
    crate::allocations::change(n.index as usize, i128::from(bytes));
    Ok(address)
}

fn free(address: u64) -> Cu<()> {
    super::initialized()?;
    let a = lock()?.device.remove(&address).ok_or(CUDA_ERROR_INVALID_VALUE)?;
    crate::allocations::change(a.gpu, -i128::from(a.bytes));
    Ok(())
}

pub fn cuMemAlloc_v2(dptr: *mut CUdeviceptr, bytesize: c_ulong) -> CUresult {
    if dptr.is_null() {
        return CUDA_ERROR_INVALID_VALUE;
    }
    code(alloc(bytesize, false).and_then(|a| put(dptr, a as CUdeviceptr)))
}

/// The legacy 32-bit allocation.
pub fn cuMemAlloc(dptr: *mut CUdeviceptr_v1, bytesize: c_uint) -> CUresult {
    if dptr.is_null() {
        return CUDA_ERROR_INVALID_VALUE;
    }
    code(alloc(u64::from(bytesize), true).and_then(|a| put(dptr, a as CUdeviceptr_v1)))
}

/// An address no allocation starts at: `CUDA_ERROR_INVALID_VALUE`.
pub fn cuMemFree_v2(dptr: CUdeviceptr) -> CUresult {
    code(free(dptr))
}

pub fn cuMemFree(dptr: CUdeviceptr_v1) -> CUresult {
    code(free(u64::from(dptr)))
}

/// The free and total memory of the current context's device, as NVML shows them now (what
/// every process of the session holds counted).
fn info() -> Cu<(u64, u64)> {
    let (_, dev) = current()?;
    let d = devices()?;
    let (total, used) = super::nvml::memory_now(d.list[dev].nvml.handle()).map_err(|_| CUDA_ERROR_UNKNOWN)?;
    Ok((total.saturating_sub(used), total))
}

pub fn cuMemGetInfo_v2(free: *mut c_ulong, total: *mut c_ulong) -> CUresult {
    if free.is_null() || total.is_null() {
        return CUDA_ERROR_INVALID_VALUE;
    }
    let run = || -> Cu<()> {
        let (f, t) = info()?;
        put(free, f as c_ulong)?;
        put(total, t as c_ulong)
    };
    code(run())
}

/// The legacy 32-bit figures, cut at `u32::MAX`.
pub fn cuMemGetInfo(free: *mut c_uint, total: *mut c_uint) -> CUresult {
    if free.is_null() || total.is_null() {
        return CUDA_ERROR_INVALID_VALUE;
    }
    let run = || -> Cu<()> {
        let (f, t) = info()?;
        let cut = |v: u64| v.min(u64::from(c_uint::MAX)) as c_uint;
        put(free, cut(f))?;
        put(total, cut(t))
    };
    code(run())
}

/// Real host memory (zeroed, page-aligned), given a current context.
fn host_alloc(pp: *mut *mut c_void, bytes: u64) -> Cu<()> {
    if pp.is_null() || bytes == 0 {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    current()?;
    let size = usize::try_from(bytes).map_err(|_| CUDA_ERROR_OUT_OF_MEMORY)?;
    let layout = std::alloc::Layout::from_size_align(size, 4096).map_err(|_| CUDA_ERROR_OUT_OF_MEMORY)?;
    // SAFETY: the layout has a non-zero size (checked above).
    let p = unsafe { std::alloc::alloc_zeroed(layout) };
    if p.is_null() {
        return Err(CUDA_ERROR_OUT_OF_MEMORY);
    }
    lock()?.host.insert(p as usize, layout);
    put(pp, p as *mut c_void)
}

pub fn cuMemAllocHost_v2(pp: *mut *mut c_void, bytesize: c_ulong) -> CUresult {
    code(host_alloc(pp, bytesize))
}

pub fn cuMemAllocHost(pp: *mut *mut c_void, bytesize: c_uint) -> CUresult {
    code(host_alloc(pp, u64::from(bytesize)))
}

/// Any flags of `cuMemHostAlloc` (portable, mapped, write-combined) give the same memory.
pub fn cuMemHostAlloc(pp: *mut *mut c_void, bytesize: c_ulong, Flags: c_uint) -> CUresult {
    if Flags & !0x7 != 0 {
        return CUDA_ERROR_INVALID_VALUE;
    }
    code(host_alloc(pp, bytesize))
}

/// A pointer no host allocation returned: `CUDA_ERROR_INVALID_VALUE`.
pub fn cuMemFreeHost(p: *mut c_void) -> CUresult {
    let run = || -> Cu<()> {
        super::initialized()?;
        let layout = lock()?.host.remove(&(p as usize)).ok_or(CUDA_ERROR_INVALID_VALUE)?;
        // SAFETY: `p` was returned by `alloc_zeroed` with this layout (it was in the table) and
        // has not been freed since (it is removed from the table here).
        unsafe { std::alloc::dealloc(p as *mut u8, layout) };
        Ok(())
    };
    code(run())
}
