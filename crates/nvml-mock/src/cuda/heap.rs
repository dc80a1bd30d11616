//! The tables of the allocations the CUDA engine made: device allocations by address (with
//! their context and GPU) and host allocations with their layouts. Below the contexts, which
//! free a context's memory when it ends ([`free_context`]).

use std::collections::BTreeMap;
use std::sync::Mutex;

use super::Cu;
use crate::generated::cuda::types::*;

/// A device allocation.
#[derive(Debug, Clone, Copy)]
pub struct Allocation {
    pub ctx: usize,
    /// The NVML index of the GPU.
    pub gpu: usize,
    pub bytes: u64,
}

/// Every allocation of the process.
#[derive(Debug)]
pub struct Memory {
    /// By address.
    pub device: BTreeMap<u64, Allocation>,
    /// The next addresses to hand out: above 4 GiB, and below for the legacy 32-bit calls.
    pub next: u64,
    pub next_low: u64,
    /// Host allocations by address, with their layouts.
    pub host: BTreeMap<usize, std::alloc::Layout>,
}

pub static MEMORY: Mutex<Memory> = Mutex::new(Memory {
    device: BTreeMap::new(),
    next: 0x7f00_0000_0000,
    next_low: 0x1000_0000,
    host: BTreeMap::new(),
});

/// Device allocations are aligned like the driver's.
pub const ALIGN: u64 = 512;

pub fn lock() -> Cu<std::sync::MutexGuard<'static, Memory>> {
    MEMORY.lock().map_err(|_| CUDA_ERROR_UNKNOWN)
}

/// Frees what context `ctx` allocated (it is destroyed).
pub fn free_context(ctx: CUcontext) {
    let Ok(mut m) = MEMORY.lock() else { return };
    let mine: Vec<u64> = m.device.iter().filter(|(_, a)| a.ctx == ctx as usize).map(|(k, _)| *k).collect();
    let freed: Vec<Allocation> = mine.iter().filter_map(|k| m.device.remove(k)).collect();
    drop(m);
    for a in freed {
        crate::allocations::change(a.gpu, -i128::from(a.bytes));
    }
}
