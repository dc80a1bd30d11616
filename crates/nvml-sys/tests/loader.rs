//! The loader against a real shared library: a C stub built here that exports a few NVML
//! symbols (an old driver: `nvmlInit` without `_v2`), and libc, which exports none.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use nvml_sys::*;

const STUB_C: &str = r#"
unsigned int nvmlInit(void) { return 0; }
unsigned int nvmlShutdown(void) { return 0; }
unsigned int nvmlDeviceGetCount(unsigned int *n) { *n = 1; return 0; }
unsigned int nvmlDeviceGetCount_v2(unsigned int *n) { *n = 8; return 0; }
"#;

/// Builds the stub once per test run with the system C compiler.
fn stub() -> &'static PathBuf {
    static STUB: OnceLock<PathBuf> = OnceLock::new();
    STUB.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("nvml-sys-stub");
        std::fs::create_dir_all(&dir).unwrap();
        let src = dir.join("stub.c");
        let lib = dir.join("libnvidia-ml-stub.so");
        std::fs::write(&src, STUB_C).unwrap();
        let status = Command::new("cc")
            .args(["-shared", "-fPIC", "-o"])
            .arg(&lib)
            .arg(&src)
            .status()
            .expect("these tests need a C compiler (`cc`) to build a stub library");
        assert!(status.success(), "cc failed to build the stub library");
        lib
    })
}

#[test]
fn families_resolve_newest_first_and_fall_back() {
    let lib = NvmlLib::open_path(stub()).unwrap();
    // The stub has only the legacy `nvmlInit`: the family falls back to it.
    let init = lib.nvmlInit_newest().unwrap();
    assert!(matches!(init, nvmlInit_versions::nvmlInit(_)), "{init:?}");
    // Both versions exist: the newest wins.
    let mut count = 0;
    match lib.nvmlDeviceGetCount_newest().unwrap() {
        // SAFETY: `count` is a valid out-pointer for the call.
        nvmlDeviceGetCount_versions::nvmlDeviceGetCount_v2(f) => assert_eq!(unsafe { f(&mut count) }, NVML_SUCCESS),
        other => panic!("expected _v2, got {other:?}"),
    }
    assert_eq!(count, 8);
    // SAFETY: same as above; the base symbol is the older behaviour of the stub.
    assert_eq!(unsafe { lib.nvmlDeviceGetCount().unwrap()(&mut count) }, NVML_SUCCESS);
    assert_eq!(count, 1);
}

#[test]
fn missing_symbols_are_errors_naming_them() {
    let lib = NvmlLib::open_path(stub()).unwrap();
    assert_eq!(lib.nvmlInit_v2().unwrap_err().symbol(), "nvmlInit_v2");
    let e = lib.nvmlDeviceGetPciInfo_newest().unwrap_err();
    assert_eq!(e.tried(), ["nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2", "nvmlDeviceGetPciInfo"]);
    assert_eq!(
        e.to_string(),
        "the NVML library exports none of `nvmlDeviceGetPciInfo_v3`, `nvmlDeviceGetPciInfo_v2`, `nvmlDeviceGetPciInfo`"
    );
    assert!(lib.has_symbol("nvmlShutdown"));
    assert!(!lib.has_symbol("nvmlDeviceGetName"));
}

#[test]
fn every_accessor_of_a_foreign_library_is_an_error() {
    let lib = NvmlLib::open_path("libc.so.6").unwrap();
    let found: Vec<&str> = SYMBOLS.iter().copied().filter(|s| lib.has_symbol(s)).collect();
    assert!(found.is_empty(), "{found:?}");
    assert_eq!(SYMBOLS.len(), 436);
}

#[test]
fn load_errors_list_what_was_tried() {
    let e = NvmlLib::open_path("/nonexistent/libnvidia-ml.so.1").unwrap_err();
    assert_eq!(e.attempts.len(), 1);
    assert_eq!(e.attempts[0].0, PathBuf::from("/nonexistent/libnvidia-ml.so.1"));
    let msg = e.to_string();
    assert!(msg.starts_with("could not load the NVML library; tried /nonexistent/libnvidia-ml.so.1 ("), "{msg}");
    assert!(msg.ends_with("Set NVML_LIBRARY_PATH to load another library"), "{msg}");
}

/// The only test that touches the environment (tests run in parallel in one process).
#[test]
fn environment_override() {
    std::env::set_var(LIBRARY_PATH_ENV, stub());
    let lib = NvmlLib::open().unwrap();
    assert_eq!(lib.path(), stub().as_path());
    std::env::set_var(LIBRARY_PATH_ENV, "/nonexistent/override.so");
    let e = NvmlLib::open().unwrap_err();
    assert!(e.from_env);
    assert!(e
        .to_string()
        .starts_with("could not load the NVML library named by NVML_LIBRARY_PATH; tried /nonexistent/override.so"));
    std::env::remove_var(LIBRARY_PATH_ENV);
}

#[test]
fn concurrent_first_use_resolves_once_and_agrees() {
    let lib = NvmlLib::open_path(stub()).unwrap();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|_| {
                s.spawn(|| {
                    let f = lib.nvmlDeviceGetCount_v2().unwrap();
                    let missing = lib.nvmlDeviceGetName().unwrap_err();
                    (f as usize, missing.symbol())
                })
            })
            .collect();
        let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        assert!(results.windows(2).all(|w| w[0] == w[1]), "{results:?}");
    });
}
