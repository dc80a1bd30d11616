//! Versioned records on drivers older than their newest layout: the mock accepts the record
//! versions its profile's driver knows (by the header that first declares each version
//! constant) and answers `NVML_ERROR_ARGUMENT_VERSION_MISMATCH` to a newer one, as a real
//! driver does; the safe crate then retries with the older layout and converts it.
//!
//! - `nvmlPlatformInfo_v2` came with 12.8.90 (570.124.06), the function and v1 with 12.8.55
//!   (570.26): on 570.86.15 `platform_info` reads the v1 layout.
//! - `nvmlGpuFabricInfo_v3` came with 13.0.39 (580.65.06) and `nvmlDeviceGetGpuFabricInfo_v4`
//!   with 13.4.61; `nvmlDeviceGetGpuFabricInfoV` and v2 with 12.4.99 (550): on 575.57.08
//!   `gpu_fabric_info` reads the v2 layout (no health summary), on 580.82.07 the v3 one.
//!
//! Each scenario runs in its own child process (the mock's profile is per process), on the
//! `gb200` profile's GPUs moved to another driver.

use std::path::PathBuf;

use nvml::sys;
use nvml::*;
use nvml_mock::testing::{in_child, mock_path};

/// `gb200`'s values of GPU 0 (profiles/gb200.yaml), and the health mask the profile file adds.
const IB_GUID: [u8; 16] = [0x94, 0x6D, 0xAE, 0x03, 0x00, 0xF1, 0x2A, 0x10, 0, 0, 0, 0, 0, 0, 0, 0];
const CHASSIS_SERIAL: [u8; 16] = [49, 56, 50, 49, 51, 50, 52, 48, 48, 54, 50, 52, 53, 0, 0, 0];
const CLUSTER_UUID: [u8; 16] =
    [0x6B, 0x1C, 0x52, 0x3E, 0x90, 0x0A, 0x4D, 0x27, 0xB1, 0x6E, 0x3F, 0x88, 0x21, 0xC4, 0x5D, 0x09];
const CLIQUE_ID: u32 = 32766;
const HEALTH_MASK: u32 = 0x24;

/// A profile file: the `gb200` on driver `driver`, with a fabric health mask.
fn profile_file(driver: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("compat-record-versions");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("gb200-{driver}.yaml"));
    let text = format!(
        "name: gb200-{driver}\nbase: [gb200]\nsystem:\n  driver_version: \"{driver}\"\n  nvmlSystemGetNVMLVersion: \"12.{driver}\"\n\
         device_defaults:\n  nvmlDeviceGetGpuFabricInfoV: {{healthMask: {HEALTH_MASK}}}\n"
    );
    std::fs::write(&path, text).unwrap();
    path
}

/// Runs `body` on GPU 0 of the `gb200` on `driver`, in a child process of `test`.
fn on_driver(test: &str, driver: &str, body: impl FnOnce(&Nvml, &Device<'_>)) {
    let profile = profile_file(driver);
    if !in_child(test, &[("NVML_MOCK_PROFILE", profile.to_str().unwrap())]) {
        return;
    }
    let nvml = Nvml::builder().library_path(mock_path()).init().expect("the mock initialises");
    assert_eq!(nvml.driver_version().unwrap(), driver);
    let gpu = nvml.device_by_index(0).unwrap();
    body(&nvml, &gpu);
}

/// `nvmlDeviceGetPlatformInfo` called directly with a record of version `version`, laid out as
/// `T`: the status, and the record.
fn raw_platform_info<T: Default>(nvml: &Nvml, gpu: &Device<'_>, set: impl FnOnce(&mut T)) -> (sys::nvmlReturn_t, T) {
    let f = nvml.lib().nvmlDeviceGetPlatformInfo().expect("the driver has the function");
    let mut record = T::default();
    set(&mut record);
    // SAFETY: `record` is a record of the layout its version names, valid for the call.
    let code = unsafe { f(gpu.as_raw(), (&mut record as *mut T).cast()) };
    (code, record)
}

/// `nvmlDeviceGetGpuFabricInfoV` called directly, like [`raw_platform_info`].
fn raw_fabric_info<T: Default>(nvml: &Nvml, gpu: &Device<'_>, set: impl FnOnce(&mut T)) -> (sys::nvmlReturn_t, T) {
    let f = nvml.lib().nvmlDeviceGetGpuFabricInfoV().expect("the driver has the function");
    let mut record = T::default();
    set(&mut record);
    // SAFETY: as above.
    let code = unsafe { f(gpu.as_raw(), (&mut record as *mut T).cast()) };
    (code, record)
}

/// What `platform_info` answers from either layout: v2's fields, and the same values under the
/// v1 names (kept, deprecated, so that code written against v1 reads them still).
#[allow(deprecated)]
fn expected_platform_info() -> PlatformInfo {
    let mut v = PlatformInfo::default();
    v.ib_guid = IB_GUID.to_vec();
    v.chassis_serial_number = CHASSIS_SERIAL.to_vec();
    v.slot_number = 5;
    v.tray_index = 0;
    v.host_id = 1;
    v.peer_type = 0;
    v.module_id = 1;
    v.rack_guid = CHASSIS_SERIAL.to_vec();
    v.chassis_physical_slot_number = 5;
    v.compute_slot_index = 0;
    v.node_index = 1;
    v
}

#[test]
fn platform_info_reads_the_v1_layout_on_a_driver_before_v2() {
    on_driver("platform_info_reads_the_v1_layout_on_a_driver_before_v2", "570.86.15", |nvml, gpu| {
        // The safe crate asks for v2, gets ARGUMENT_VERSION_MISMATCH and reads v1, whose
        // rack, slot and node fields are v2's chassis, tray and host.
        assert_eq!(gpu.platform_info().expect("read through the v1 layout"), expected_platform_info());

        // What it does underneath: v2 is unknown to this driver, v1 is answered.
        let (code, _) = raw_platform_info(nvml, gpu, |r: &mut sys::nvmlPlatformInfo_v2_t| {
            r.version = sys::nvmlPlatformInfo_v2 as _
        });
        assert_eq!(code, sys::NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
        let (code, v1) = raw_platform_info(nvml, gpu, |r: &mut sys::nvmlPlatformInfo_v1_t| {
            r.version = sys::nvmlPlatformInfo_v1 as _
        });
        assert_eq!(code, sys::NVML_SUCCESS);
        assert_eq!(v1.version, sys::nvmlPlatformInfo_v1);
        assert_eq!((v1.ibGuid, v1.rackGuid), (IB_GUID, CHASSIS_SERIAL));
        assert_eq!((v1.chassisPhysicalSlotNumber, v1.computeSlotIndex, v1.nodeIndex, v1.moduleId), (5, 0, 1, 1));
        // A version no header has is refused too.
        let (code, _) = raw_platform_info(nvml, gpu, |r: &mut sys::nvmlPlatformInfo_v2_t| r.version = 3 << 24 | 44);
        assert_eq!(code, sys::NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    });
}

#[test]
fn platform_info_reads_v2_from_570_124_and_v1_still() {
    on_driver("platform_info_reads_v2_from_570_124_and_v1_still", "570.124.06", |nvml, gpu| {
        assert_eq!(gpu.platform_info().unwrap(), expected_platform_info());
        let (code, v2) = raw_platform_info(nvml, gpu, |r: &mut sys::nvmlPlatformInfo_v2_t| {
            r.version = sys::nvmlPlatformInfo_v2 as _
        });
        assert_eq!(code, sys::NVML_SUCCESS);
        assert_eq!((v2.chassisSerialNumber, v2.slotNumber, v2.hostId), (CHASSIS_SERIAL, 5, 1));
        // A driver that knows v2 still answers the older layout.
        let (code, v1) = raw_platform_info(nvml, gpu, |r: &mut sys::nvmlPlatformInfo_v1_t| {
            r.version = sys::nvmlPlatformInfo_v1 as _
        });
        assert_eq!(code, sys::NVML_SUCCESS);
        assert_eq!((v1.rackGuid, v1.chassisPhysicalSlotNumber), (CHASSIS_SERIAL, 5));
    });
}

#[test]
fn gpu_fabric_info_reads_the_v2_layout_on_a_driver_before_v3() {
    on_driver("gpu_fabric_info_reads_the_v2_layout_on_a_driver_before_v3", "575.57.08", |nvml, gpu| {
        // No nvmlDeviceGetGpuFabricInfo_v4 (13.4), no v3 (580.65): the v2 layout, which has
        // no health summary.
        assert_eq!(
            nvml.lib().nvmlDeviceGetGpuFabricInfo_v4().map(|_| ()).and_then(|_| {
                let mut r = sys::nvmlGpuFabricInfo_v4_t::default();
                let f = nvml.lib().nvmlDeviceGetGpuFabricInfo_v4()?;
                // SAFETY: `r` is the function's record, valid for the call.
                Ok(unsafe { f(gpu.as_raw(), &mut r) })
            }),
            Ok(sys::NVML_ERROR_FUNCTION_NOT_FOUND)
        );
        let info = gpu.gpu_fabric_info().expect("read through the v2 layout");
        assert_eq!(info.cluster_uuid, CLUSTER_UUID);
        assert_eq!(info.status, Return::SUCCESS);
        assert_eq!(i32::from(info.state), sys::NVML_GPU_FABRIC_STATE_COMPLETED);
        assert_eq!(info.health_mask, HEALTH_MASK);
        assert_eq!(info.health_summary, 0, "v2 has no health summary");

        let (code, _) = raw_fabric_info(nvml, gpu, |r: &mut sys::nvmlGpuFabricInfo_v3_t| {
            r.version = sys::nvmlGpuFabricInfo_v3 as _
        });
        assert_eq!(code, sys::NVML_ERROR_ARGUMENT_VERSION_MISMATCH, "575 predates nvmlGpuFabricInfo_v3");
        let (code, v2) = raw_fabric_info(nvml, gpu, |r: &mut sys::nvmlGpuFabricInfo_v2_t| {
            r.version = sys::nvmlGpuFabricInfo_v2 as _
        });
        assert_eq!(code, sys::NVML_SUCCESS);
        assert_eq!((v2.version, v2.clusterUuid, v2.cliqueId), (sys::nvmlGpuFabricInfo_v2, CLUSTER_UUID, CLIQUE_ID));
        assert_eq!(v2.healthMask, HEALTH_MASK);
    });
}

#[test]
fn gpu_fabric_info_reads_v3_from_580_65() {
    on_driver("gpu_fabric_info_reads_v3_from_580_65", "580.82.07", |nvml, gpu| {
        let info = gpu.gpu_fabric_info().expect("read through the v3 layout");
        assert_eq!((info.cluster_uuid.as_slice(), info.health_mask), (CLUSTER_UUID.as_slice(), HEALTH_MASK));
        assert_eq!(i32::from(info.health_summary), sys::NVML_GPU_FABRIC_HEALTH_SUMMARY_HEALTHY);
        let (code, v3) = raw_fabric_info(nvml, gpu, |r: &mut sys::nvmlGpuFabricInfo_v3_t| {
            r.version = sys::nvmlGpuFabricInfo_v3 as _
        });
        assert_eq!((code, v3.cliqueId), (sys::NVML_SUCCESS, CLIQUE_ID));
    });
}
