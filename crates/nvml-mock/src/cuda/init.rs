//! Start-up and errors: `cuInit`, `cuDriverGetVersion`, `cuGetErrorName`/`String` and
//! `cuGetProcAddress`, through which CUDA 12+ clients (cuda-bindings among them) resolve every
//! function.

use std::ffi::{c_char, c_int, c_uint, c_void, CString};
use std::sync::atomic::Ordering;
use std::sync::{Mutex, OnceLock};

use super::{code, put, Cu, INIT, NOT_CALLED};
use crate::generated::cuda::names::{ENTRY_POINTS, FUNCTIONS, RESULTS, VERSIONS};
use crate::generated::cuda::types::*;

/// Serialises the first `cuInit`.
static FIRST: Mutex<()> = Mutex::new(());

/// `Flags` other than 0: `CUDA_ERROR_INVALID_VALUE`. The first call takes the devices (the
/// code it ends with stays the answer of every later call, as the driver's does).
pub fn cuInit(Flags: c_uint) -> CUresult {
    if Flags != 0 {
        return CUDA_ERROR_INVALID_VALUE;
    }
    let _first = FIRST.lock();
    match INIT.load(Ordering::Acquire) {
        NOT_CALLED => {
            let c = super::take_devices();
            INIT.store(c, Ordering::Release);
            c
        }
        c => c,
    }
}

/// The CUDA version NVML answers (`nvmlSystemGetCudaDriverVersion`); it works before
/// `cuInit`, as the driver's does.
pub fn cuDriverGetVersion(driverVersion: *mut c_int) -> CUresult {
    if driverVersion.is_null() {
        return CUDA_ERROR_INVALID_VALUE;
    }
    match super::nvml::cuda_driver_version() {
        Ok(v) => code(put(driverVersion, v)),
        Err(_) => CUDA_ERROR_UNKNOWN,
    }
}

/// The names and the header's words for each code, as C strings.
fn strings() -> &'static [(u32, CString, CString)] {
    static STRINGS: OnceLock<Vec<(u32, CString, CString)>> = OnceLock::new();
    STRINGS.get_or_init(|| {
        let c = |s: &str| CString::new(s.replace('\0', "")).unwrap_or_default();
        RESULTS.iter().map(|(v, name, words)| (*v, c(name), c(words))).collect()
    })
}

fn error_text(error: CUresult, pStr: *mut *const c_char, name: bool) -> CUresult {
    let found = strings().iter().find(|(v, _, _)| *v == error);
    let text = found.map_or(std::ptr::null(), |(_, n, w)| if name { n.as_ptr() } else { w.as_ptr() });
    let stored = put(pStr, text);
    match (stored, found) {
        (Err(c), _) => c,
        (Ok(()), None) => CUDA_ERROR_INVALID_VALUE,
        (Ok(()), Some(_)) => CUDA_SUCCESS,
    }
}

/// `CUDA_ERROR_INVALID_VALUE` (and `*pStr` NULL) for a code the header does not name.
pub fn cuGetErrorName(error: CUresult, pStr: *mut *const c_char) -> CUresult {
    error_text(error, pStr, true)
}

/// The first sentence of the header's words on the code.
pub fn cuGetErrorString(error: CUresult, pStr: *mut *const c_char) -> CUresult {
    error_text(error, pStr, false)
}

/// This library, as the dynamic linker holds it (found by the address of one of its
/// functions): `None` where the mock is not a shared library (a test binary).
fn own_library() -> Option<usize> {
    static LIB: OnceLock<Option<usize>> = OnceLock::new();
    *LIB.get_or_init(|| {
        // SAFETY: `dladdr` reads the address of a function of this library and fills the
        // zeroed record it is given; `dlopen` with RTLD_NOLOAD only looks up a library already
        // loaded, by the path `dladdr` returned (NUL-terminated, owned by the dynamic linker).
        unsafe {
            let mut info: libc::Dl_info = std::mem::zeroed();
            if libc::dladdr(own_library as *const c_void, &mut info) == 0 || info.dli_fname.is_null() {
                return None;
            }
            let h = libc::dlopen(info.dli_fname, libc::RTLD_NOW | libc::RTLD_NOLOAD);
            (!h.is_null()).then_some(h as usize)
        }
    })
}

/// The address of this library's export of the `cuda.h` function `name`.
fn symbol(name: &str) -> Option<*mut c_void> {
    FUNCTIONS.binary_search(&name).ok()?;
    let lib = own_library()?;
    let c = CString::new(name).ok()?;
    // SAFETY: `lib` is a handle `dlopen` returned (never closed), `c` a NUL-terminated name.
    let p = unsafe { libc::dlsym(lib as *mut c_void, c.as_ptr()) };
    (!p.is_null()).then_some(p)
}

/// The export a client asking for `symbol` at `cuda_version` gets: the newest of the function's
/// ABI versions that stands from `cuda_version` or before (`ENTRY_POINTS`, from
/// `cudaTypedefs.h`: `cuMemAlloc` is `cuMemAlloc` from 2000 and `cuMemAlloc_v2` from 3020), or
/// for a function with no typedef, the one the header's `#define` maps the name to; with
/// per-thread default streams, that function's `_ptds` or `_ptsz` variant where it has one.
pub fn resolve(
    symbol_name: &str,
    cuda_version: c_int,
    per_thread: bool,
) -> Result<*mut c_void, CUdriverProcAddressQueryResult> {
    let target = match ENTRY_POINTS.binary_search_by(|(n, _)| (*n).cmp(symbol_name)) {
        Ok(i) => match ENTRY_POINTS[i].1.iter().rev().find(|(v, _)| *v <= cuda_version) {
            Some((_, export)) => *export,
            None => return Err(CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT),
        },
        Err(_) => VERSIONS.binary_search_by(|(n, _)| (*n).cmp(symbol_name)).ok().map_or(symbol_name, |i| VERSIONS[i].1),
    };
    if per_thread {
        for suffix in ["_ptds", "_ptsz"] {
            if let Some(p) = symbol(&format!("{target}{suffix}")) {
                return Ok(p);
            }
        }
    }
    symbol(target).ok_or(CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND)
}

fn proc_address(
    symbol_name: *const c_char,
    pfn: *mut *mut c_void,
    cudaVersion: c_int,
    flags: cuuint64_t,
    status: *mut CUdriverProcAddressQueryResult,
) -> Cu<()> {
    if pfn.is_null() || symbol_name.is_null() {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    put(pfn, std::ptr::null_mut())?;
    let known = CU_GET_PROC_ADDRESS_LEGACY_STREAM as u64 | CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM as u64;
    if flags & !known != 0 || cudaVersion <= 0 {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    // "If the specified CUDA version is greater than the driver version, the API will return
    // CUDA_ERROR_INVALID_VALUE" (the driver API's reference).
    if super::nvml::cuda_driver_version().is_ok_and(|driver| cudaVersion > driver) {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    let name = crate::ffi::read_str(symbol_name).map_err(|_| CUDA_ERROR_INVALID_VALUE)?;
    let per_thread = flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM as u64 != 0;
    let set_status = |s| if status.is_null() { Ok(()) } else { put(status, s) };
    match resolve(&name, cudaVersion, per_thread) {
        Ok(p) => {
            put(pfn, p)?;
            set_status(CU_GET_PROC_ADDRESS_SUCCESS)
        }
        Err(s) => {
            set_status(s)?;
            Err(CUDA_ERROR_NOT_FOUND)
        }
    }
}

/// `cuGetProcAddress_v2` without the status.
pub fn cuGetProcAddress(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    cudaVersion: c_int,
    flags: cuuint64_t,
) -> CUresult {
    code(proc_address(symbol, pfn, cudaVersion, flags, std::ptr::null_mut()))
}

/// The function `symbol` (a name without its version suffix) stands for at `cudaVersion`, per
/// [`resolve`]: `CUDA_ERROR_NOT_FOUND` and `CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND` for a name
/// `cuda.h` does not declare, `CUDA_ERROR_NOT_FOUND` and
/// `CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT` for a version older than the function's first;
/// NULL `symbol` or `pfn`, unknown flags or a version below 1, `CUDA_ERROR_INVALID_VALUE`.
/// It works before `cuInit`.
pub fn cuGetProcAddress_v2(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    cudaVersion: c_int,
    flags: cuuint64_t,
    symbolStatus: *mut CUdriverProcAddressQueryResult,
) -> CUresult {
    code(proc_address(symbol, pfn, cudaVersion, flags, symbolStatus))
}
