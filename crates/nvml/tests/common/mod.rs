//! Helpers of the tests that build C libraries with the system C compiler (`cc`).
#![allow(dead_code)] // Each test file uses its own subset.

use std::path::PathBuf;
use std::process::Command;

use nvml::sys;
use nvml::Nvml;
use nvml_mock::testing::{in_child, CHILD_ENV};

/// The start of a stub compiled against nvml.h: the header, `nvmlInit_v2`, `nvmlShutdown`,
/// device 0 (the address of `device`) and its GPU instances (all `gpu_instance`).
const HOST_PRELUDE: &str = r#"
#define NVML_NO_UNVERSIONED_FUNC_DEFS
#include <stddef.h>
#include <string.h>
#include "nvml.h"
static int device, gpu_instance;
nvmlReturn_t nvmlInit_v2(void) { return NVML_SUCCESS; }
nvmlReturn_t nvmlShutdown(void) { return NVML_SUCCESS; }
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d) {
    if (i != 0) return NVML_ERROR_INVALID_ARGUMENT;
    *d = (nvmlDevice_t)&device;
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetGpuInstanceById(nvmlDevice_t d, unsigned int id, nvmlGpuInstance_t *gi) {
    *gi = (nvmlGpuInstance_t)&gpu_instance;
    return NVML_SUCCESS;
}
"#;

/// Builds `lib<name>.so` from `source` after [`HOST_PRELUDE`], compiled against the vendored
/// `nvml.h`: its records have exactly the header's layouts.
pub fn stub_with_header(name: &str, source: &str) -> PathBuf {
    let headers = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../nvml-headers").join(sys::HEADER_VERSION);
    build(name, &format!("{HOST_PRELUDE}{source}"), &[format!("-I{}", headers.display())])
}

pub fn build(name: &str, source: &str, args: &[String]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("nvmlkit-stubs");
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join(format!("{name}.c"));
    let lib = dir.join(format!("lib{name}.so"));
    std::fs::write(&src, source).unwrap();
    let status = Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&lib)
        .arg(&src)
        .args(args)
        .status()
        .expect("these tests need a C compiler (`cc`) to build stub libraries");
    assert!(status.success(), "cc failed to build {}", src.display());
    lib
}

/// The stub's path, in the environment of a child.
pub const STUB_ENV: &str = "NVMLKIT_STUB";

/// Runs test `name` in a child process with its own library built from `source` (with
/// `args` for the compiler): `None` in the parent (the child passed), the initialised library
/// in the child. For assertions on `Error`'s `Display`, which asks the most recent library
/// alive in the process (in a child, no other test's library is), and for libraries that may
/// crash the process: a crash fails the test instead of taking the other tests with it.
pub fn library_in_child(name: &str, source: &str, args: &[String]) -> Option<Nvml> {
    if std::env::var_os(CHILD_ENV).is_none() {
        let path = build(name, source, args);
        in_child(name, &[(STUB_ENV, path.to_str().unwrap())]);
        return None;
    }
    let path = std::env::var(STUB_ENV).expect("the parent names the stub");
    Some(Nvml::builder().library_path(path).init().expect("the stub initialises"))
}

/// Calls a counter the stub exports (`unsigned int f(void)`).
pub fn counter(lib: &sys::NvmlLib, symbol: &str) -> u32 {
    // SAFETY: the stubs define these symbols as `unsigned int f(void)`.
    unsafe {
        let f = lib
            .library()
            .get::<unsafe extern "C" fn() -> u32>(symbol.as_bytes())
            .unwrap_or_else(|e| panic!("{symbol}: {e}"));
        f()
    }
}
