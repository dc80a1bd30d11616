//! The safe crate against small C libraries built here with the system C compiler (`cc`):
//! drivers that lack symbols (old ones, or a partial library), lists that never stop growing,
//! and an `nvmlInit` that fails. Each test builds its own copy of its stub, so the stubs'
//! counters are not shared between tests running in parallel.

use std::path::PathBuf;
use std::process::Command;

use nvml::sys;
use nvml::*;
use nvml_mock::testing::{in_child, CHILD_ENV};

/// Declarations every stub starts with (layouts of nvml.h).
const PRELUDE: &str = r#"
typedef struct { unsigned int pid; unsigned long long usedGpuMemory; unsigned int gpuInstanceId, computeInstanceId; } proc_v2_t;
typedef struct { unsigned int pid; unsigned long long usedGpuMemory; } proc_v1_t;
typedef struct { unsigned long long total, free, used; } memory_v1_t;
static int devices[4];
/* The handle of device `i` of `n`: the address of an int of this library. */
static unsigned int handle(unsigned int i, unsigned int n, void **d) {
    if (i >= n) return 2; /* NVML_ERROR_INVALID_ARGUMENT */
    *d = &devices[i];
    return 0;
}
"#;

/// A newer driver's library that is missing most of NVML, `nvmlShutdown` and `nvmlErrorString`
/// included. Its process lists: compute processes grow by one at every call (they never fit),
/// graphics processes are two (they fit at the second call).
const PARTIAL: &str = r#"
static unsigned int compute_calls, graphics_calls, listed;
unsigned int nvmlInit_v2(void) { return 0; }
unsigned int nvmlDeviceGetCount_v2(unsigned int *n) { *n = 3; return 0; }
unsigned int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void **d) { return handle(i, 3, d); }
static unsigned int fill(unsigned int n, unsigned int *count, proc_v2_t *infos) {
    unsigned int capacity = *count, i;
    *count = n;
    if (capacity < n || !infos) return 7; /* NVML_ERROR_INSUFFICIENT_SIZE */
    for (i = 0; i < n; i++) {
        infos[i].pid = 100 + i;
        infos[i].usedGpuMemory = (i + 1) << 20;
        infos[i].gpuInstanceId = 0xFFFFFFFF;
        infos[i].computeInstanceId = 0xFFFFFFFF;
    }
    return 0;
}
unsigned int nvmlDeviceGetComputeRunningProcesses_v3(void *d, unsigned int *count, proc_v2_t *infos) {
    compute_calls++;
    return fill(++listed, count, infos);
}
unsigned int nvmlDeviceGetGraphicsRunningProcesses_v3(void *d, unsigned int *count, proc_v2_t *infos) {
    graphics_calls++;
    return fill(2, count, infos);
}
unsigned int stub_compute_calls(void) { return compute_calls; }
unsigned int stub_graphics_calls(void) { return graphics_calls; }
"#;

/// An old driver: only the unversioned names (no `_v2`), with `nvmlShutdown` and
/// `nvmlErrorString`; it counts shutdowns.
const OLD: &str = r#"
static unsigned int shutdowns;
unsigned int nvmlInit(void) { return 0; }
unsigned int nvmlShutdown(void) { shutdowns++; return 0; }
const char *nvmlErrorString(unsigned int code) { return "old stub says no"; }
unsigned int nvmlDeviceGetCount(unsigned int *n) { *n = 2; return 0; }
unsigned int nvmlDeviceGetHandleByIndex(unsigned int i, void **d) { return handle(i, 2, d); }
unsigned int nvmlDeviceGetMemoryInfo(void *d, memory_v1_t *m) {
    m->total = 16ULL << 30; m->used = 3ULL << 30; m->free = 13ULL << 30;
    return 0;
}
unsigned int nvmlDeviceGetComputeRunningProcesses(void *d, unsigned int *count, proc_v1_t *infos) {
    unsigned int capacity = *count;
    *count = 1;
    if (capacity < 1 || !infos) return 7;
    infos[0].pid = 777; infos[0].usedGpuMemory = 5ULL << 20;
    return 0;
}
unsigned int stub_shutdowns(void) { return shutdowns; }
"#;

/// A driver whose `nvmlInit_v2` fails with `NVML_ERROR_DRIVER_NOT_LOADED`.
const NO_DRIVER: &str = r#"
static unsigned int shutdowns;
unsigned int nvmlInit_v2(void) { return 9; }
unsigned int nvmlShutdown(void) { shutdowns++; return 0; }
unsigned int stub_shutdowns(void) { return shutdowns; }
"#;

/// Builds `lib<name>.so` from `source` (after [`PRELUDE`]) with the system C compiler.
fn stub(name: &str, source: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("nvmlkit-stubs");
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join(format!("{name}.c"));
    let lib = dir.join(format!("lib{name}.so"));
    std::fs::write(&src, format!("{PRELUDE}{source}")).unwrap();
    let status = Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&lib)
        .arg(&src)
        .status()
        .expect("these tests need a C compiler (`cc`) to build stub libraries");
    assert!(status.success(), "cc failed to build {}", src.display());
    lib
}

/// The stub's path, in the environment of a child.
const STUB_ENV: &str = "NVMLKIT_STUB";

/// Runs test `name` in a child process with its own stub built from `source`: `None` in the
/// parent (the child passed), the initialised stub in the child. For assertions on `Error`'s
/// `Display`, which asks the most recent library alive in the process: in a child, no other
/// test's library is.
fn stub_in_child(name: &str, source: &str) -> Option<Nvml> {
    if std::env::var_os(CHILD_ENV).is_none() {
        let path = stub(name, source);
        in_child(name, &[(STUB_ENV, path.to_str().unwrap())]);
        return None;
    }
    let path = std::env::var(STUB_ENV).expect("the parent names the stub");
    Some(Nvml::builder().library_path(path).init().expect("the stub initialises"))
}

/// Calls a counter the stub exports (`unsigned int f(void)`).
fn counter(lib: &sys::NvmlLib, symbol: &str) -> u32 {
    // SAFETY: the stubs define these symbols as `unsigned int f(void)`.
    unsafe {
        let f = lib.library().get::<unsafe extern "C" fn() -> u32>(symbol.as_bytes()).unwrap_or_else(|e| panic!("{symbol}: {e}"));
        f()
    }
}

#[test]
fn missing_symbols_name_themselves() {
    let path = stub("partial-symbols", PARTIAL);
    let nvml = Nvml::builder().library_path(&path).init().expect("init with only nvmlInit_v2");
    assert_eq!(nvml.device_count(), Ok(3), "nvmlDeviceGetCount_v2");
    let d = nvml.device_by_index(1).unwrap();
    assert_eq!(d.name(), Err(Error::FunctionNotFound(Some("nvmlDeviceGetName"))), "name()");
    assert_eq!(nvml.driver_version(), Err(Error::FunctionNotFound(Some("nvmlSystemGetDriverVersion"))), "driver_version()");
    // A versioned family names its newest member.
    assert_eq!(d.memory_info(), Err(Error::FunctionNotFound(Some("nvmlDeviceGetMemoryInfo_v2"))), "memory_info()");
    let e = d.uuid().unwrap_err();
    assert_eq!(e.code(), sys::NVML_ERROR_FUNCTION_NOT_FOUND, "{e:?}");
    assert_eq!(e.to_string(), "the loaded NVML library does not export `nvmlDeviceGetUUID` (a driver older than this function?)");
    // Errors the library returns still come through.
    assert_eq!(nvml.device_by_index(3).unwrap_err(), Error::InvalidArgument, "device_by_index(3)");
    // No nvmlShutdown: dropping does not panic (and does nothing).
    drop(d);
    drop(nvml);
}

#[test]
fn without_error_string_display_uses_the_header() {
    let Some(nvml) = stub_in_child("without_error_string_display_uses_the_header", PARTIAL) else { return };
    let e = nvml.device_by_index(3).unwrap_err();
    assert_eq!(e.to_string(), "A supplied argument is invalid (NVML error 2)", "no nvmlErrorString: nvml.h's description");
    drop(nvml);
}

#[test]
fn init_flags_need_init_with_flags() {
    let path = stub("partial-flags", PARTIAL);
    let e = Nvml::builder().library_path(&path).flags(InitFlags::NO_GPUS).init().unwrap_err();
    assert_eq!(e, Error::FunctionNotFound(Some("nvmlInitWithFlags")), "the stub has no nvmlInitWithFlags");
}

#[test]
fn a_list_that_always_grows_gives_up_after_the_retry_bound() {
    let path = stub("partial-lists", PARTIAL);
    let nvml = Nvml::builder().library_path(&path).init().unwrap();
    let d = nvml.device_by_index(0).unwrap();
    // Steady state: a size query and a fill.
    let graphics = d.graphics_running_processes().unwrap();
    assert_eq!(graphics.iter().map(|p| (p.pid, p.used_gpu_memory)).collect::<Vec<_>>(), [(100, 1 << 20), (101, 2 << 20)]);
    assert_eq!(counter(nvml.lib(), "stub_graphics_calls"), 2, "two calls when the list does not change");
    // A list longer at every call: the size query and three refills (4 attempts), then
    // INSUFFICIENT_SIZE.
    assert_eq!(d.compute_running_processes(), Err(Error::InsufficientSize), "the list never fits");
    assert_eq!(counter(nvml.lib(), "stub_compute_calls"), 4, "LIST_ATTEMPTS calls, no more");
}

#[test]
fn an_old_driver_is_reached_through_the_unversioned_names() {
    let path = stub("old-driver", OLD);
    let raw = sys::NvmlLib::open_path(&path).unwrap();
    let nvml = Nvml::builder().library_path(&path).init().expect("init through the legacy nvmlInit");
    assert_eq!(nvml.device_count(), Ok(2), "device_count() falls back to nvmlDeviceGetCount");
    let d = nvml.device_by_index(1).expect("device_by_index falls back to nvmlDeviceGetHandleByIndex");
    assert_eq!(nvml.device_by_index(2).unwrap_err(), Error::InvalidArgument);
    // The v1 memory layout, converted: no reserved memory in it.
    let m = d.memory_info().expect("memory_info falls back to nvmlDeviceGetMemoryInfo");
    assert_eq!((m.total, m.used, m.free, m.reserved), (16 << 30, 3 << 30, 13 << 30, 0), "{m:?}");
    // The v1 process layout, converted.
    let procs = d.compute_running_processes().expect("falls back to nvmlDeviceGetComputeRunningProcesses");
    assert_eq!(procs.iter().map(|p| (p.pid, p.used_gpu_memory)).collect::<Vec<_>>(), [(777, 5 << 20)]);
    // Owned handles and clones share one init: one shutdown when the last is dropped.
    let owned = d.into_owned();
    let clone = nvml.clone();
    drop(nvml);
    drop(clone);
    assert_eq!(counter(&raw, "stub_shutdowns"), 0, "an owned device is alive");
    drop(owned);
    assert_eq!(counter(&raw, "stub_shutdowns"), 1, "one nvmlShutdown for one init");
    // A second Nvml is a second init and a second shutdown.
    drop(Nvml::builder().library_path(&path).init().unwrap());
    assert_eq!(counter(&raw, "stub_shutdowns"), 2);
}

#[test]
fn an_old_drivers_error_string_is_used_while_it_is_alive() {
    let Some(nvml) = stub_in_child("an_old_drivers_error_string_is_used_while_it_is_alive", OLD) else { return };
    let e = nvml.device_by_index(2).unwrap_err();
    assert_eq!(e.to_string(), "old stub says no (NVML error 2)", "the library's nvmlErrorString");
    drop(nvml);
    assert_eq!(e.to_string(), "A supplied argument is invalid (NVML error 2)", "the header's text once it is gone");
}

#[test]
fn a_failed_init_is_an_error_and_not_shut_down() {
    let path = stub("no-driver", NO_DRIVER);
    let raw = sys::NvmlLib::open_path(&path).unwrap();
    let e = Nvml::builder().library_path(&path).init().unwrap_err();
    assert_eq!(e, Error::DriverNotLoaded, "nvmlInit_v2 answered NVML_ERROR_DRIVER_NOT_LOADED");
    assert_eq!(counter(&raw, "stub_shutdowns"), 0, "no nvmlShutdown after a failed nvmlInit");
}

#[test]
fn a_library_without_nvml_init_is_function_not_found() {
    // libc exports no NVML symbol at all.
    let e = Nvml::builder().library_path("libc.so.6").init().unwrap_err();
    assert_eq!(e, Error::FunctionNotFound(Some("nvmlInit_v2")), "the newest of the nvmlInit family is named");
    assert_eq!(e.to_string(), "the loaded NVML library does not export `nvmlInit_v2` (a driver older than this function?)");
}
