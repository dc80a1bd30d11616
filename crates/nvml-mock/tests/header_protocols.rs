//! The mock answers each protocol as nvml.h's text says: a C client written from the header
//! (`tests/c/header_protocols.c`, which includes the vendored nvml.h itself and quotes the
//! sentence each check follows), compiled and run against the mock. NULL where the header
//! refuses it, short buffers and their sizes in count or in bytes, arrays that share a count.

use std::path::{Path, PathBuf};

use nvml_mock::testing::{compile_c_client, mock_lib_dir, run_c_client};

/// The T4 system of the `t4` profile, with what the client needs: three retired pages and two
/// processes on GPU 0 (which supports P0 and P8), two encoder sessions and vGPU metadata on
/// GPU 1.
fn profile(dir: &Path) -> PathBuf {
    let mut devices = String::new();
    for i in 0..8 {
        let extra = match i {
            0 => ", retired_pages: {single_bit: [0x1000, 0x2000, 0x3000], double_bit: [], pending: false}, supported_pstates: [NVML_PSTATE_0, NVML_PSTATE_8], memory: {used: 1612709888}, processes: {compute: [{pid: 4242, used_memory: 1073741824, name: python3}, {pid: 4250, used_memory: 536870912, name: trainer}], graphics: []}",
            1 => ", nvmlDeviceGetPgpuMetadataString: \"version=1;pgpuIndex=1\", nvmlDeviceGetEncoderSessions: [{sessionId: 1, pid: 4242, codecType: NVML_ENCODER_QUERY_H264, hResolution: 1920, vResolution: 1080, averageFps: 60, averageLatency: 1000}, {sessionId: 2, pid: 4250, codecType: NVML_ENCODER_QUERY_HEVC, hResolution: 3840, vResolution: 2160, averageFps: 30, averageLatency: 3000}]",
            _ => "",
        };
        devices.push_str(&format!("  - {{uuid: GPU-00000000-0000-0000-0000-00000000000{i}, serial: \"100{i}\", nvmlDeviceGetMinorNumber: {i}, board_id: {i}, numa_node: {}, pci: {{bus: {}}}{extra}}}\n", i / 4, 0x18 + i));
    }
    let text = format!("name: header-protocols\nbase: [t4]\ndevice_defaults:\n  nvmlDeviceGetPgpuMetadataString: null\ndevices:\n{devices}");
    let path = dir.join("header-protocols.yaml");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_c_client_written_from_the_header() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("header-protocols");
    std::fs::create_dir_all(&dir).unwrap();
    let lib = mock_lib_dir(&dir);
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let exe = dir.join("header_protocols");
    let header = manifest.join("../../nvml-headers/13.5.37");
    compile_c_client(&[&manifest.join("tests/c/header_protocols.c")], &header, &exe, &lib).unwrap();
    let profile = profile(&dir);
    let (code, text) = run_c_client(&exe, &lib, &[("NVML_MOCK_PROFILE", profile.as_os_str())]).unwrap();
    assert_eq!(code, Some(0), "the mock answers differently from nvml.h:\n{text}");
    assert!(!text.contains("FAIL"), "{text}");
}
