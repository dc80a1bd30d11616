//! Contexts: each device's primary context (retained and released by count), the contexts
//! `cuCtxCreate` makes, and each thread's stack of current contexts.
//!
//! A context's handle is the address of its record, which is never freed (so a destroyed
//! context's handle answers `CUDA_ERROR_CONTEXT_IS_DESTROYED`, and no new context takes it);
//! any other handle is `CUDA_ERROR_INVALID_CONTEXT` without being dereferenced. Destroying a
//! context (or releasing a primary context for the last time, or resetting it) frees the
//! memory allocated in it.

// A handle is the address of a boxed record: `Vec<Box<_>>` keeps them stable by construction.
#![allow(clippy::vec_box)]

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::ffi::{c_int, c_uint};
use std::sync::Mutex;

use super::{code, device, put, Cu};
use crate::generated::cuda::types::*;

/// One context.
#[derive(Debug)]
pub struct Context {
    /// The CUDA ordinal of its device.
    pub device: usize,
    pub flags: c_uint,
    pub primary: bool,
    pub alive: bool,
}

/// Every context ever made (boxed: a handle is the address of its record).
#[derive(Debug, Default)]
pub struct Contexts {
    pub all: Vec<Box<Context>>,
    /// Each device's primary context: its index in `all`, and its retain count.
    pub primary: BTreeMap<usize, (usize, u32)>,
    /// The flags set for each device's primary context.
    pub primary_flags: BTreeMap<usize, c_uint>,
}

pub static CONTEXTS: Mutex<Contexts> =
    Mutex::new(Contexts { all: Vec::new(), primary: BTreeMap::new(), primary_flags: BTreeMap::new() });

thread_local! {
    /// This thread's current contexts, the current one last.
    static STACK: RefCell<Vec<CUcontext>> = const { RefCell::new(Vec::new()) };
}

fn lock() -> Cu<std::sync::MutexGuard<'static, Contexts>> {
    CONTEXTS.lock().map_err(|_| CUDA_ERROR_UNKNOWN)
}

impl Contexts {
    /// The index of the context behind `ctx`.
    fn find(&self, ctx: CUcontext) -> Cu<usize> {
        let i = self
            .all
            .iter()
            .position(|c| std::ptr::eq(&**c as *const Context as *const CUctx_st, ctx))
            .ok_or(CUDA_ERROR_INVALID_CONTEXT)?;
        if self.all[i].alive {
            Ok(i)
        } else {
            Err(CUDA_ERROR_CONTEXT_IS_DESTROYED)
        }
    }

    fn handle(&self, i: usize) -> CUcontext {
        &*self.all[i] as *const Context as CUcontext
    }

    fn make(&mut self, device: usize, flags: c_uint, primary: bool) -> usize {
        self.all.push(Box::new(Context { device, flags, primary, alive: true }));
        self.all.len() - 1
    }

    /// Ends context `i`, freeing its memory.
    fn end(&mut self, i: usize) {
        self.all[i].alive = false;
        super::heap::free_context(self.handle(i));
    }
}

/// The current context of this thread and its device, or `CUDA_ERROR_INVALID_CONTEXT`.
pub fn current() -> Cu<(CUcontext, usize)> {
    super::initialized()?;
    let ctx = STACK.with(|s| s.borrow().last().copied()).ok_or(CUDA_ERROR_INVALID_CONTEXT)?;
    let device = {
        let c = lock()?;
        let i = c.find(ctx)?;
        c.all[i].device
    };
    // A call on the context's device: a lost GPU, or an error `ctl error` gave the function.
    let d = super::devices()?;
    match d.list.get(device) {
        Some(dev) if dev.lost => Err(super::LOST),
        Some(dev) => super::ctl_error(dev).map(|()| (ctx, device)),
        None => Err(CUDA_ERROR_INVALID_CONTEXT),
    }
}

/// The device (CUDA ordinal) of a context handle.
pub fn device_of(ctx: CUcontext) -> Cu<usize> {
    let c = lock()?;
    let i = c.find(ctx)?;
    Ok(c.all[i].device)
}

pub fn cuDevicePrimaryCtxRetain(pctx: *mut CUcontext, dev: CUdevice) -> CUresult {
    if pctx.is_null() {
        return CUDA_ERROR_INVALID_VALUE;
    }
    let run = || -> Cu<()> {
        let (_, d) = device(dev)?;
        let mut c = lock()?;
        let flags = c.primary_flags.get(&d).copied().unwrap_or(0);
        let i = match c.primary.get(&d).copied() {
            Some((i, n)) => {
                c.primary.insert(d, (i, n + 1));
                i
            }
            None => {
                let i = c.make(d, flags, true);
                c.primary.insert(d, (i, 1));
                i
            }
        };
        put(pctx, c.handle(i))
    };
    code(run())
}

fn release(dev: CUdevice) -> CUresult {
    let run = || -> Cu<()> {
        let (_, d) = device(dev)?;
        let mut c = lock()?;
        match c.primary.get(&d).copied() {
            None => Err(CUDA_ERROR_INVALID_CONTEXT),
            Some((i, 1)) => {
                c.primary.remove(&d);
                c.end(i);
                Ok(())
            }
            Some((i, n)) => {
                c.primary.insert(d, (i, n - 1));
                Ok(())
            }
        }
    };
    code(run())
}

pub fn cuDevicePrimaryCtxRelease(dev: CUdevice) -> CUresult {
    release(dev)
}

pub fn cuDevicePrimaryCtxRelease_v2(dev: CUdevice) -> CUresult {
    release(dev)
}

pub fn cuDevicePrimaryCtxGetState(dev: CUdevice, flags: *mut c_uint, active: *mut c_int) -> CUresult {
    if flags.is_null() || active.is_null() {
        return CUDA_ERROR_INVALID_VALUE;
    }
    let run = || -> Cu<()> {
        let (_, d) = device(dev)?;
        let c = lock()?;
        put(flags, c.primary_flags.get(&d).copied().unwrap_or(0))?;
        put(active, c_int::from(c.primary.contains_key(&d)))
    };
    code(run())
}

fn set_flags(dev: CUdevice, flags: c_uint) -> CUresult {
    let run = || -> Cu<()> {
        let (_, d) = device(dev)?;
        if flags & !(CU_CTX_FLAGS_MASK as c_uint) != 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let mut c = lock()?;
        c.primary_flags.insert(d, flags);
        if let Some((i, _)) = c.primary.get(&d).copied() {
            c.all[i].flags = flags;
        }
        Ok(())
    };
    code(run())
}

pub fn cuDevicePrimaryCtxSetFlags(dev: CUdevice, flags: c_uint) -> CUresult {
    set_flags(dev, flags)
}

pub fn cuDevicePrimaryCtxSetFlags_v2(dev: CUdevice, flags: c_uint) -> CUresult {
    set_flags(dev, flags)
}

fn reset(dev: CUdevice) -> CUresult {
    let run = || -> Cu<()> {
        let (_, d) = device(dev)?;
        let mut c = lock()?;
        if let Some((i, _)) = c.primary.remove(&d) {
            c.end(i);
        }
        c.primary_flags.remove(&d);
        Ok(())
    };
    code(run())
}

pub fn cuDevicePrimaryCtxReset(dev: CUdevice) -> CUresult {
    reset(dev)
}

pub fn cuDevicePrimaryCtxReset_v2(dev: CUdevice) -> CUresult {
    reset(dev)
}

/// A new context, made current on this thread.
fn create(pctx: *mut CUcontext, flags: c_uint, dev: CUdevice) -> CUresult {
    if pctx.is_null() {
        return CUDA_ERROR_INVALID_VALUE;
    }
    let run = || -> Cu<()> {
        let (_, d) = device(dev)?;
        if flags & !(CU_CTX_FLAGS_MASK as c_uint) != 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let mut c = lock()?;
        let i = c.make(d, flags, false);
        let h = c.handle(i);
        put(pctx, h)?;
        STACK.with(|s| s.borrow_mut().push(h));
        Ok(())
    };
    code(run())
}

pub fn cuCtxCreate(pctx: *mut CUcontext, flags: c_uint, dev: CUdevice) -> CUresult {
    create(pctx, flags, dev)
}

pub fn cuCtxCreate_v2(pctx: *mut CUcontext, flags: c_uint, dev: CUdevice) -> CUresult {
    create(pctx, flags, dev)
}

/// Execution affinity parameters are not modelled: with any, `CUDA_ERROR_NOT_SUPPORTED`.
pub fn cuCtxCreate_v3(
    pctx: *mut CUcontext,
    paramsArray: *mut CUexecAffinityParam,
    numParams: c_int,
    flags: c_uint,
    dev: CUdevice,
) -> CUresult {
    if !paramsArray.is_null() && numParams > 0 {
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    create(pctx, flags, dev)
}

/// Creation parameters (execution affinity, CIG) are not modelled: with any,
/// `CUDA_ERROR_NOT_SUPPORTED`.
pub fn cuCtxCreate_v4(
    pctx: *mut CUcontext,
    ctxCreateParams: *mut CUctxCreateParams,
    flags: c_uint,
    dev: CUdevice,
) -> CUresult {
    if !ctxCreateParams.is_null() {
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    create(pctx, flags, dev)
}

fn destroy(ctx: CUcontext) -> CUresult {
    let run = || -> Cu<()> {
        super::initialized()?;
        let mut c = lock()?;
        let i = c.find(ctx)?;
        if c.all[i].primary {
            return Err(CUDA_ERROR_INVALID_CONTEXT);
        }
        c.end(i);
        STACK.with(|s| s.borrow_mut().retain(|x| *x != ctx));
        Ok(())
    };
    code(run())
}

pub fn cuCtxDestroy(ctx: CUcontext) -> CUresult {
    destroy(ctx)
}

pub fn cuCtxDestroy_v2(ctx: CUcontext) -> CUresult {
    destroy(ctx)
}

fn push(ctx: CUcontext) -> CUresult {
    let run = || -> Cu<()> {
        super::initialized()?;
        lock()?.find(ctx)?;
        STACK.with(|s| s.borrow_mut().push(ctx));
        Ok(())
    };
    code(run())
}

pub fn cuCtxPushCurrent(ctx: CUcontext) -> CUresult {
    push(ctx)
}

pub fn cuCtxPushCurrent_v2(ctx: CUcontext) -> CUresult {
    push(ctx)
}

fn pop(pctx: *mut CUcontext) -> CUresult {
    let run = || -> Cu<()> {
        super::initialized()?;
        let top = STACK.with(|s| s.borrow_mut().pop()).ok_or(CUDA_ERROR_INVALID_CONTEXT)?;
        if !pctx.is_null() {
            put(pctx, top)?;
        }
        Ok(())
    };
    code(run())
}

pub fn cuCtxPopCurrent(pctx: *mut CUcontext) -> CUresult {
    pop(pctx)
}

pub fn cuCtxPopCurrent_v2(pctx: *mut CUcontext) -> CUresult {
    pop(pctx)
}

/// NULL when the thread has no current context.
pub fn cuCtxGetCurrent(pctx: *mut CUcontext) -> CUresult {
    let run = || -> Cu<()> {
        super::initialized()?;
        let top = STACK.with(|s| s.borrow().last().copied()).unwrap_or(std::ptr::null_mut());
        put(pctx, top)
    };
    code(run())
}

/// Replaces the current context (NULL: the thread then has none but those below it).
pub fn cuCtxSetCurrent(ctx: CUcontext) -> CUresult {
    let run = || -> Cu<()> {
        super::initialized()?;
        if !ctx.is_null() {
            lock()?.find(ctx)?;
        }
        STACK.with(|s| {
            let mut s = s.borrow_mut();
            s.pop();
            if !ctx.is_null() {
                s.push(ctx);
            }
        });
        Ok(())
    };
    code(run())
}

pub fn cuCtxGetDevice(dev: *mut CUdevice) -> CUresult {
    if dev.is_null() {
        return CUDA_ERROR_INVALID_VALUE;
    }
    code(current().and_then(|(_, d)| put(dev, d as CUdevice)))
}

/// The device of `ctx`, or of the current context when `ctx` is NULL.
pub fn cuCtxGetDevice_v2(dev: *mut CUdevice, ctx: CUcontext) -> CUresult {
    if dev.is_null() {
        return CUDA_ERROR_INVALID_VALUE;
    }
    let d = if ctx.is_null() { current().map(|(_, d)| d) } else { device_of(ctx) };
    code(d.and_then(|d| put(dev, d as CUdevice)))
}

pub fn cuCtxGetFlags(flags: *mut c_uint) -> CUresult {
    if flags.is_null() {
        return CUDA_ERROR_INVALID_VALUE;
    }
    let run = || -> Cu<()> {
        let (ctx, _) = current()?;
        let c = lock()?;
        let i = c.find(ctx)?;
        put(flags, c.all[i].flags)
    };
    code(run())
}

/// Nothing runs on the mock's devices: done at once, given a current context.
pub fn cuCtxSynchronize() -> CUresult {
    code(current().map(|_| ()))
}

pub fn cuCtxSynchronize_v2(ctx: CUcontext) -> CUresult {
    if ctx.is_null() {
        return cuCtxSynchronize();
    }
    code(device_of(ctx).map(|_| ()))
}
