//! The mock takes the size of a caller's record from the call, never from its own header: a
//! client built against an older `nvml.h` passes a shorter record under the same version word
//! (`nvmlGpmMetricsGet_t`: 98 metrics up to 12.8, 477 from 13.4 on, version 1 in all). The C
//! client `tests/c/gpm_sizes.c` places each header's record so that it ends where a PROT_NONE
//! page begins, and so that it starts right after one with a canary after it.

use std::path::{Path, PathBuf};

use nvml_mock::testing::{compile_c_client, mock_lib_dir, run_c_client};

#[test]
fn gpm_metrics_get_touches_only_the_metrics_asked_for_in_each_headers_record() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("record-sizes");
    std::fs::create_dir_all(&dir).unwrap();
    let lib = mock_lib_dir(&dir);
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let exe = dir.join("gpm_sizes");
    let header = manifest.join("../../nvml-headers/13.5.37");
    compile_c_client(&[&manifest.join("tests/c/gpm_sizes.c")], &header, &exe, &lib).unwrap();
    let (code, text) = run_c_client(&exe, &lib, &[("NVML_MOCK_PROFILE", "h100".as_ref())]).unwrap();
    assert_eq!(code, Some(0), "the client failed (a fault is a signal, no exit code):\n{text}");
    assert!(text.contains("ok: nvmlGpmMetricsGet with the records of 98, 210, 333 and 477 metrics"), "{text}");
}
