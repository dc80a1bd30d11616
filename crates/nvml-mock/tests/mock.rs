//! The built mock library, loaded the way clients load NVML: through `dlopen` (with our own
//! raw crate), by a C program linked with `-lnvidia-ml -Wl,-z,now`, and by NVIDIA's official
//! Python binding when it is installed.
//!
//! The mock's state is per process, so each scenario runs in a child process: the test re-runs
//! this binary for itself alone, with the scenario's environment.

use std::ffi::{c_char, CStr};
use std::path::{Path, PathBuf};
use std::process::Command;

use nvml_mock::testing::{in_child, mock_path};
use nvml_sys::*;

/// A directory where the mock is called `libnvidia-ml.so.1` and `libnvidia-ml.so`.
fn mock_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("mock-lib");
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["libnvidia-ml.so.1", "libnvidia-ml.so"] {
        let link = dir.join(name);
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(mock_path(), &link).unwrap();
    }
    dir
}

fn lib() -> NvmlLib {
    NvmlLib::open_path(mock_path()).unwrap()
}

/// Calls a string getter with a buffer of `len` bytes.
fn string(len: u32, f: impl FnOnce(*mut c_char, u32) -> nvmlReturn_t) -> Result<String, nvmlReturn_t> {
    let mut buf = vec![0 as c_char; len as usize];
    match f(buf.as_mut_ptr(), len) {
        NVML_SUCCESS => Ok(unsafe { CStr::from_ptr(buf.as_ptr()) }.to_string_lossy().into_owned()),
        e => Err(e),
    }
}

fn device(lib: &NvmlLib, i: u32) -> nvmlDevice_t {
    let mut d = std::ptr::null_mut();
    assert_eq!(unsafe { lib.nvmlDeviceGetHandleByIndex_v2().unwrap()(i, &mut d) }, NVML_SUCCESS);
    d
}

#[test]
fn h100_values_match_the_profile() {
    if !in_child("h100_values_match_the_profile", &[("NVML_MOCK_PROFILE", "h100")]) {
        return;
    }
    let lib = lib();
    unsafe {
        assert_eq!(lib.nvmlInit_v2().unwrap()(), NVML_SUCCESS);
        let mut n = 0;
        assert_eq!(lib.nvmlDeviceGetCount_v2().unwrap()(&mut n), NVML_SUCCESS);
        assert_eq!(n, 8);
        let d0 = device(&lib, 0);
        let name = string(NVML_DEVICE_NAME_V2_BUFFER_SIZE as u32, |b, l| lib.nvmlDeviceGetName().unwrap()(d0, b, l));
        assert_eq!(name.as_deref(), Ok("NVIDIA H100 80GB HBM3"));
        let drv = string(NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE as u32, |b, l| lib.nvmlSystemGetDriverVersion().unwrap()(b, l));
        assert_eq!(drv.as_deref(), Ok("580.82.07"));
        let mut mem = nvmlMemory_v2_t { version: nvmlMemory_v2, ..Default::default() };
        assert_eq!(lib.nvmlDeviceGetMemoryInfo_v2().unwrap()(d0, &mut mem), NVML_SUCCESS);
        assert_eq!(mem.total, 81559 << 20);
        assert_eq!(mem.used + mem.reserved + mem.free, mem.total);
        let (mut major, mut minor) = (0, 0);
        assert_eq!(lib.nvmlDeviceGetCudaComputeCapability().unwrap()(d0, &mut major, &mut minor), NVML_SUCCESS);
        assert_eq!((major, minor), (9, 0));
        let mut limit = 0;
        assert_eq!(lib.nvmlDeviceGetPowerManagementLimit().unwrap()(d0, &mut limit), NVML_SUCCESS);
        assert_eq!(limit, 700_000);
        let mut pci = nvmlPciInfo_t::default();
        let d3 = device(&lib, 3);
        assert_eq!(lib.nvmlDeviceGetPciInfo_v3().unwrap()(d3, &mut pci), NVML_SUCCESS);
        assert_eq!(CStr::from_ptr(pci.busId.as_ptr()).to_str(), Ok("00000000:5D:00.0"));
        // Handles round-trip through UUID and PCI bus id lookups.
        let uuid = string(NVML_DEVICE_UUID_V2_BUFFER_SIZE as u32, |b, l| lib.nvmlDeviceGetUUID().unwrap()(d3, b, l)).unwrap();
        let c = std::ffi::CString::new(uuid).unwrap();
        let mut found = std::ptr::null_mut();
        assert_eq!(lib.nvmlDeviceGetHandleByUUID().unwrap()(c.as_ptr(), &mut found), NVML_SUCCESS);
        assert_eq!(found, d3);
        assert_eq!(lib.nvmlDeviceGetHandleByPciBusId_v2().unwrap()(c"0000:5D:00.0".as_ptr(), &mut found), NVML_SUCCESS);
        assert_eq!(found, d3);
        // Passive cooling: no fans.
        let mut speed = 0;
        assert_eq!(lib.nvmlDeviceGetFanSpeed().unwrap()(d0, &mut speed), NVML_ERROR_NOT_SUPPORTED);
        assert_eq!(lib.nvmlShutdown().unwrap()(), NVML_SUCCESS);
    }
}

#[test]
fn every_builtin_profile_initialises() {
    for profile in ["a100", "a100-r525", "b200", "gb200", "h100", "l40s", "t4"] {
        if !in_child("every_builtin_profile_initialises", &[("NVML_MOCK_PROFILE", profile)]) {
            continue;
        }
        let lib = lib();
        unsafe {
            assert_eq!(lib.nvmlInit_v2().unwrap()(), NVML_SUCCESS);
            let mut n = 0;
            assert_eq!(lib.nvmlDeviceGetCount_v2().unwrap()(&mut n), NVML_SUCCESS);
            assert!(n >= 8);
            let mut arch = 0;
            assert_eq!(lib.nvmlDeviceGetArchitecture().unwrap()(device(&lib, 7), &mut arch), NVML_SUCCESS);
            assert!(arch >= NVML_DEVICE_ARCH_TURING as u32);
        }
        return;
    }
}

#[test]
fn init_is_reference_counted() {
    if !in_child("init_is_reference_counted", &[]) {
        return;
    }
    let lib = lib();
    unsafe {
        let mut n = 0;
        assert_eq!(lib.nvmlDeviceGetCount_v2().unwrap()(&mut n), NVML_ERROR_UNINITIALIZED);
        assert_eq!(lib.nvmlShutdown().unwrap()(), NVML_ERROR_UNINITIALIZED);
        assert_eq!(lib.nvmlInit_v2().unwrap()(), NVML_SUCCESS);
        assert_eq!(lib.nvmlInitWithFlags().unwrap()(0), NVML_SUCCESS);
        assert_eq!(lib.nvmlShutdown().unwrap()(), NVML_SUCCESS);
        // One init is still outstanding.
        assert_eq!(lib.nvmlDeviceGetCount_v2().unwrap()(&mut n), NVML_SUCCESS);
        assert_eq!(lib.nvmlShutdown().unwrap()(), NVML_SUCCESS);
        assert_eq!(lib.nvmlDeviceGetCount_v2().unwrap()(&mut n), NVML_ERROR_UNINITIALIZED);
        assert_eq!(lib.nvmlShutdown().unwrap()(), NVML_ERROR_UNINITIALIZED);
        // Every return code has a static string, and unknown codes have one too.
        let s = CStr::from_ptr(lib.nvmlErrorString().unwrap()(NVML_ERROR_INSUFFICIENT_SIZE));
        assert_eq!(s.to_str(), Ok("Insufficient size"));
        assert_eq!(CStr::from_ptr(lib.nvmlErrorString().unwrap()(12345)).to_str(), Ok("Unknown Error"));
    }
}

#[test]
fn protocols_follow_nvml_h() {
    if !in_child("protocols_follow_nvml_h", &[]) {
        return;
    }
    let lib = lib();
    unsafe {
        assert_eq!(lib.nvmlInit_v2().unwrap()(), NVML_SUCCESS);
        let d0 = device(&lib, 0);
        // Invalid handles are rejected without being dereferenced.
        let mut n = 0;
        let bogus = 0x1234 as nvmlDevice_t;
        assert_eq!(lib.nvmlDeviceGetIndex().unwrap()(bogus, &mut n), NVML_ERROR_INVALID_ARGUMENT);
        assert_eq!(lib.nvmlDeviceGetHandleByIndex_v2().unwrap()(8, &mut std::ptr::null_mut()), NVML_ERROR_INVALID_ARGUMENT);
        // A short string buffer.
        assert_eq!(string(8, |b, l| lib.nvmlDeviceGetName().unwrap()(d0, b, l)), Err(NVML_ERROR_INSUFFICIENT_SIZE));
        // A versioned struct with the wrong version.
        let mut mem = nvmlMemory_v2_t { version: 1, ..Default::default() };
        assert_eq!(lib.nvmlDeviceGetMemoryInfo_v2().unwrap()(d0, &mut mem), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
        // The two-call list pattern.
        let mut count = 0;
        let f = lib.nvmlDeviceGetComputeRunningProcesses_v3().unwrap();
        assert_eq!(f(d0, &mut count, std::ptr::null_mut()), NVML_ERROR_INSUFFICIENT_SIZE);
        assert_eq!(count, 2);
        let mut procs = vec![nvmlProcessInfo_t::default(); count as usize];
        assert_eq!(f(d0, &mut count, procs.as_mut_ptr()), NVML_SUCCESS);
        assert_eq!((procs[0].pid, procs[0].usedGpuMemory), (4242, 1 << 30));
        // The legacy symbol fills the legacy (v1) layout.
        let mut v1 = vec![nvmlProcessInfo_v1_t::default(); 2];
        let mut count = 2;
        assert_eq!(lib.nvmlDeviceGetComputeRunningProcesses().unwrap()(d0, &mut count, v1.as_mut_ptr()), NVML_SUCCESS);
        assert_eq!((v1[1].pid, v1[1].usedGpuMemory), (4250, 512 << 20));
        // A device without processes succeeds with zero.
        let mut count = 0;
        assert_eq!(f(device(&lib, 1), &mut count, std::ptr::null_mut()), NVML_SUCCESS);
        assert_eq!(count, 0);
        // Functions the engine does not implement answer NOT_SUPPORTED.
        let mut mode = 0;
        assert_eq!(lib.nvmlDeviceGetVirtualizationMode().unwrap()(d0, &mut mode), NVML_ERROR_NOT_SUPPORTED);
        // Setters change what getters return.
        assert_eq!(lib.nvmlDeviceSetPowerManagementLimit().unwrap()(d0, 450_000), NVML_SUCCESS);
        let mut limit = 0;
        assert_eq!(lib.nvmlDeviceGetPowerManagementLimit().unwrap()(d0, &mut limit), NVML_SUCCESS);
        assert_eq!(limit, 450_000);
        assert_eq!(lib.nvmlDeviceSetPowerManagementLimit().unwrap()(d0, 10), NVML_ERROR_INVALID_ARGUMENT);
    }
}

#[test]
fn mig_instances_follow_the_profile() {
    if !in_child("mig_instances_follow_the_profile", &[("NVML_MOCK_PROFILE", "h100")]) {
        return;
    }
    let lib = lib();
    unsafe {
        assert_eq!(lib.nvmlInit_v2().unwrap()(), NVML_SUCCESS);
        let (d0, d7) = (device(&lib, 0), device(&lib, 7));
        let (mut cur, mut pend) = (9, 9);
        assert_eq!(lib.nvmlDeviceGetMigMode().unwrap()(d7, &mut cur, &mut pend), NVML_SUCCESS);
        assert_eq!((cur, pend), (1, 1));
        // The 3g.40gb profile: unique id 9, two instances on device 7, none without MIG mode.
        let mut info = nvmlGpuInstanceProfileInfo_v2_t { version: nvmlGpuInstanceProfileInfo_v2, ..Default::default() };
        let profile = NVML_GPU_INSTANCE_PROFILE_3_SLICE as u32;
        assert_eq!(lib.nvmlDeviceGetGpuInstanceProfileInfoV().unwrap()(d7, profile, &mut info), NVML_SUCCESS);
        assert_eq!((info.id, info.sliceCount, info.memorySizeMB), (9, 3, 40192));
        let mut gis = [std::ptr::null_mut(); 2];
        let mut n = 0;
        let get_gis = lib.nvmlDeviceGetGpuInstances().unwrap();
        assert_eq!(get_gis(d0, info.id, gis.as_mut_ptr(), &mut n), NVML_ERROR_NOT_SUPPORTED);
        assert_eq!(get_gis(d7, info.id, gis.as_mut_ptr(), &mut n), NVML_SUCCESS);
        assert_eq!(n, 2);
        let mut gi_info = nvmlGpuInstanceInfo_t::default();
        assert_eq!(lib.nvmlGpuInstanceGetInfo().unwrap()(gis[1], &mut gi_info), NVML_SUCCESS);
        assert_eq!((gi_info.device, gi_info.id, gi_info.placement.start, gi_info.placement.size), (d7, 2, 4, 3));
        // Its two 1-slice compute instances.
        let ci_profile = NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE as u32;
        let mut cis = [std::ptr::null_mut(); 3];
        assert_eq!(lib.nvmlGpuInstanceGetComputeInstances().unwrap()(gis[1], ci_profile, cis.as_mut_ptr(), &mut n), NVML_SUCCESS);
        assert_eq!(n, 2);
        let mut ci_info = nvmlComputeInstanceInfo_t::default();
        assert_eq!(lib.nvmlComputeInstanceGetInfo_v2().unwrap()(cis[1], &mut ci_info), NVML_SUCCESS);
        assert_eq!((ci_info.gpuInstance, ci_info.id, ci_info.placement.start), (gis[1], 1, 1));
        let mut cp = nvmlComputeInstanceProfileInfo_v2_t { version: nvmlComputeInstanceProfileInfo_v2, ..Default::default() };
        let shared = NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED as u32;
        assert_eq!(lib.nvmlGpuInstanceGetComputeInstanceProfileInfoV().unwrap()(gis[1], ci_profile, shared, &mut cp), NVML_SUCCESS);
        assert_eq!((cp.sliceCount, cp.instanceCount, cp.multiprocessorCount), (1, 3, 16));
        // The 7-slice compute profile does not fit a 3-slice GPU instance.
        let seven = NVML_COMPUTE_INSTANCE_PROFILE_7_SLICE as u32;
        assert_eq!(lib.nvmlGpuInstanceGetComputeInstanceProfileInfoV().unwrap()(gis[1], seven, shared, &mut cp), NVML_ERROR_NOT_SUPPORTED);
        // A compute-instance handle is not a GPU-instance handle.
        assert_eq!(lib.nvmlGpuInstanceGetInfo().unwrap()(cis[0] as nvmlGpuInstance_t, &mut gi_info), NVML_ERROR_INVALID_ARGUMENT);
    }
}

#[test]
fn faults_fire_always_or_after_n_calls() {
    let faults = "nvmlDeviceGetName=NVML_ERROR_GPU_IS_LOST,nvmlDeviceGetPowerUsage=NVML_ERROR_UNKNOWN@2";
    if !in_child("faults_fire_always_or_after_n_calls", &[("NVML_MOCK_FAULTS", faults)]) {
        return;
    }
    let lib = lib();
    unsafe {
        assert_eq!(lib.nvmlInit_v2().unwrap()(), NVML_SUCCESS);
        let d0 = device(&lib, 0);
        assert_eq!(string(96, |b, l| lib.nvmlDeviceGetName().unwrap()(d0, b, l)), Err(NVML_ERROR_GPU_IS_LOST));
        let mut mw = 0;
        let power = lib.nvmlDeviceGetPowerUsage().unwrap();
        assert_eq!(power(d0, &mut mw), NVML_SUCCESS);
        assert_eq!(power(d0, &mut mw), NVML_SUCCESS);
        assert_eq!(power(d0, &mut mw), NVML_ERROR_UNKNOWN);
    }
}

#[test]
fn older_driver_and_growing_lists() {
    let profile = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("old-driver.yaml");
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("profiles/t4.yaml")).unwrap()
        + "missing_functions: [nvmlDeviceGetMemoryInfo_v2]\ngrow_processes: 2\n";
    std::fs::write(&profile, text).unwrap();
    if !in_child("older_driver_and_growing_lists", &[("NVML_MOCK_PROFILE", profile.to_str().unwrap())]) {
        return;
    }
    let lib = lib();
    unsafe {
        assert_eq!(lib.nvmlInit_v2().unwrap()(), NVML_SUCCESS);
        let d1 = device(&lib, 1);
        let mut mem = nvmlMemory_v2_t { version: nvmlMemory_v2, ..Default::default() };
        assert_eq!(lib.nvmlDeviceGetMemoryInfo_v2().unwrap()(d1, &mut mem), NVML_ERROR_FUNCTION_NOT_FOUND);
        let mut v1 = nvmlMemory_t::default();
        assert_eq!(lib.nvmlDeviceGetMemoryInfo().unwrap()(d1, &mut v1), NVML_SUCCESS);
        assert_eq!(v1.total, 15360 << 20);
        // Device 0 starts with two processes. Each size query adds one before the fill,
        // twice; the third round settles with four.
        let d0 = device(&lib, 0);
        let f = lib.nvmlDeviceGetComputeRunningProcesses_v3().unwrap();
        let mut rounds = 0;
        let list = loop {
            rounds += 1;
            let mut count = 0;
            f(d0, &mut count, std::ptr::null_mut());
            let mut buf = vec![nvmlProcessInfo_t::default(); count as usize];
            match f(d0, &mut count, buf.as_mut_ptr()) {
                NVML_SUCCESS => break buf,
                NVML_ERROR_INSUFFICIENT_SIZE => assert!(rounds < 5),
                e => panic!("unexpected {e}"),
            }
        };
        assert_eq!((rounds, list.len()), (3, 4));
        assert_eq!(list[2].pid, 4251);
    }
}

/// `a100-r525` (driver 525.147.05): functions of later branches (gen-config/function-history.yaml)
/// answer FUNCTION_NOT_FOUND; older ones, legacy symbols, init and shutdown work.
#[test]
fn older_driver_lacks_functions_of_later_branches() {
    if !in_child("older_driver_lacks_functions_of_later_branches", &[("NVML_MOCK_PROFILE", "a100-r525")]) {
        return;
    }
    let lib = lib();
    unsafe {
        assert_eq!(lib.nvmlInit_v2().unwrap()(), NVML_SUCCESS);
        let drv = string(NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE as u32, |b, l| lib.nvmlSystemGetDriverVersion().unwrap()(b, l));
        assert_eq!(drv.as_deref(), Ok("525.147.05"));
        let mut cuda = 0;
        assert_eq!(lib.nvmlSystemGetCudaDriverVersion_v2().unwrap()(&mut cuda), NVML_SUCCESS);
        assert_eq!(cuda, 12000);
        // The legacy symbol is as old as the oldest header.
        let mut n = 0;
        assert_eq!(lib.nvmlDeviceGetCount().unwrap()(&mut n), NVML_SUCCESS);
        assert_eq!(n, 8);
        let d0 = device(&lib, 0);
        let mut limit = 0;
        assert_eq!(lib.nvmlDeviceGetPowerManagementLimit().unwrap()(d0, &mut limit), NVML_SUCCESS);
        assert_eq!(limit, 400_000);
        // nvmlDeviceGetTemperatureV is first declared by 12.8.55 (570).
        let mut tv = nvmlTemperature_t { version: nvmlTemperature_v1, sensorType: NVML_TEMPERATURE_GPU, temperature: 0 };
        assert_eq!(lib.nvmlDeviceGetTemperatureV().unwrap()(d0, &mut tv), NVML_ERROR_FUNCTION_NOT_FOUND);
        assert_eq!(tv.temperature, 0, "an absent function writes nothing");
        // 12.2.81 (535) is newer than 525; 12.0.76 (525) is not.
        let mut id = 0;
        assert_eq!(lib.nvmlDeviceGetModuleId().unwrap()(d0, &mut id), NVML_ERROR_FUNCTION_NOT_FOUND);
        let mut gen = 0;
        assert_eq!(lib.nvmlDeviceGetGpuMaxPcieLinkGeneration().unwrap()(d0, &mut gen), NVML_SUCCESS);
        assert_eq!(gen, 4);
        // 13.1.68: newer than every mapped branch.
        assert_eq!(lib.nvmlDeviceReadPRMCounters_v1().unwrap()(d0, std::ptr::null_mut()), NVML_ERROR_FUNCTION_NOT_FOUND);
        assert_eq!(CStr::from_ptr(lib.nvmlErrorString().unwrap()(NVML_ERROR_FUNCTION_NOT_FOUND)).to_str(), Ok("Function not found"));
        assert_eq!(lib.nvmlShutdown().unwrap()(), NVML_SUCCESS);
    }
}

/// The default profile (driver 580.82.07) has every function up to the 13.0 headers (580);
/// those of 13.1 and later headers, whose branch is not recorded, count as newer than 580.
#[test]
fn default_driver_has_functions_up_to_its_branch() {
    if !in_child("default_driver_has_functions_up_to_its_branch", &[]) {
        return;
    }
    let lib = lib();
    unsafe {
        assert_eq!(lib.nvmlInit_v2().unwrap()(), NVML_SUCCESS);
        let d0 = device(&lib, 0);
        let mut tv = nvmlTemperature_t { version: nvmlTemperature_v1, sensorType: NVML_TEMPERATURE_GPU, temperature: 0 };
        assert_eq!(lib.nvmlDeviceGetTemperatureV().unwrap()(d0, &mut tv), NVML_SUCCESS);
        assert_eq!(tv.temperature, 31);
        let mut id = 0;
        assert_eq!(lib.nvmlDeviceGetModuleId().unwrap()(d0, &mut id), NVML_SUCCESS);
        assert_eq!(id, 1);
        // 13.0.39 (580): present; the mock does not implement it.
        let mut pdi = nvmlPdi_t { version: nvmlPdi_v1, ..Default::default() };
        assert_eq!(lib.nvmlDeviceGetPdi().unwrap()(d0, &mut pdi), NVML_ERROR_NOT_SUPPORTED);
        // 13.1.68 and 13.4.61: absent; the family's older member works.
        assert_eq!(lib.nvmlDeviceReadPRMCounters_v1().unwrap()(d0, std::ptr::null_mut()), NVML_ERROR_FUNCTION_NOT_FOUND);
        let mut set = std::ptr::null_mut();
        assert_eq!(lib.nvmlEventSetCreate().unwrap()(&mut set), NVML_SUCCESS);
        let mut data = nvmlEventData_t::default();
        assert_eq!(lib.nvmlEventSetWait_v3().unwrap()(set, std::ptr::null_mut()), NVML_ERROR_FUNCTION_NOT_FOUND);
        assert_eq!(lib.nvmlEventSetWait_v2().unwrap()(set, &mut data, 0), NVML_ERROR_TIMEOUT);
    }
}

/// The boundaries: the built-in `t4` (535.247.01) has 12.2's functions (535) but not 12.4's
/// (550); a profile with a driver after 580 has the functions of 13.1 and later headers.
#[test]
fn driver_branch_boundaries() {
    let newer = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("driver-590.yaml");
    let t4 = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("profiles/t4.yaml")).unwrap();
    assert!(t4.contains("driver_version: \"535.247.01\""));
    std::fs::write(&newer, t4.replace("driver_version: \"535.247.01\"", "driver_version: \"590.44.01\"")).unwrap();
    let newer = newer.to_str().unwrap();
    for profile in ["t4", newer] {
        if !in_child("driver_branch_boundaries", &[("NVML_MOCK_PROFILE", profile)]) {
            continue;
        }
        let lib = lib();
        unsafe {
            assert_eq!(lib.nvmlInit_v2().unwrap()(), NVML_SUCCESS);
            let drv = string(NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE as u32, |b, l| lib.nvmlSystemGetDriverVersion().unwrap()(b, l)).unwrap();
            let d0 = device(&lib, 0);
            let (mut id, mut node) = (0, 9);
            assert_eq!(lib.nvmlDeviceGetModuleId().unwrap()(d0, &mut id), NVML_SUCCESS);
            assert_eq!(id, 1);
            let numa = lib.nvmlDeviceGetNumaNodeId().unwrap()(d0, &mut node);
            let prm = lib.nvmlDeviceReadPRMCounters_v1().unwrap()(d0, std::ptr::null_mut());
            if drv.starts_with("535.") {
                assert_eq!((numa, prm), (NVML_ERROR_FUNCTION_NOT_FOUND, NVML_ERROR_FUNCTION_NOT_FOUND));
            } else {
                assert_eq!(drv, "590.44.01");
                assert_eq!((numa, node), (NVML_SUCCESS, 0));
                assert_eq!(prm, NVML_ERROR_NOT_SUPPORTED, "present, and not implemented by the mock");
            }
        }
        return;
    }
}

#[test]
fn bad_profile_fails_init_with_a_message() {
    let profile = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bad.yaml");
    std::fs::write(&profile, "devices:\n  - {memory: {total: -5}}\n").unwrap();
    if !in_child("bad_profile_fails_init_with_a_message", &[("NVML_MOCK_PROFILE", profile.to_str().unwrap())]) {
        return;
    }
    let lib = lib();
    unsafe { assert_eq!(lib.nvmlInit_v2().unwrap()(), NVML_ERROR_UNKNOWN) };
}

#[test]
fn events_are_delivered_and_waits_time_out() {
    if !in_child("events_are_delivered_and_waits_time_out", &[]) {
        return;
    }
    let lib = lib();
    unsafe {
        assert_eq!(lib.nvmlInit_v2().unwrap()(), NVML_SUCCESS);
        let d2 = device(&lib, 2);
        let mut set = std::ptr::null_mut();
        assert_eq!(lib.nvmlEventSetCreate().unwrap()(&mut set), NVML_SUCCESS);
        assert_eq!(lib.nvmlDeviceRegisterEvents().unwrap()(d2, nvmlEventTypeXidCriticalError as u64, set), NVML_SUCCESS);
        let mut data = nvmlEventData_t::default();
        let wait = lib.nvmlEventSetWait_v2().unwrap();
        let t = std::time::Instant::now();
        assert_eq!(wait(set, &mut data, 50), NVML_ERROR_TIMEOUT);
        assert!(t.elapsed() >= std::time::Duration::from_millis(50));
        let inject: unsafe extern "C" fn(nvmlDevice_t, u64, u64) -> nvmlReturn_t =
            std::mem::transmute(*lib.library().get::<*mut std::ffi::c_void>(b"nvmlMockInjectEvent").unwrap());
        assert_eq!(inject(d2, nvmlEventTypeXidCriticalError as u64, 79), NVML_SUCCESS);
        assert_eq!(wait(set, &mut data, 1000), NVML_SUCCESS);
        assert_eq!((data.device, data.eventType, data.eventData), (d2, nvmlEventTypeXidCriticalError as u64, 79));
        assert_eq!(lib.nvmlEventSetFree().unwrap()(set), NVML_SUCCESS);
        assert_eq!(lib.nvmlEventSetFree().unwrap()(set), NVML_ERROR_INVALID_ARGUMENT);
    }
}

#[test]
fn many_threads_at_once() {
    if !in_child("many_threads_at_once", &[]) {
        return;
    }
    let lib = lib();
    unsafe { assert_eq!(lib.nvmlInit_v2().unwrap()(), NVML_SUCCESS) };
    std::thread::scope(|s| {
        for t in 0..16u32 {
            let lib = &lib;
            s.spawn(move || unsafe {
                let init = lib.nvmlInit_v2().unwrap();
                let shutdown = lib.nvmlShutdown().unwrap();
                for i in 0..500u32 {
                    assert_eq!(init(), NVML_SUCCESS);
                    let d = device(lib, (t + i) % 8);
                    let mut idx = 0;
                    assert_eq!(lib.nvmlDeviceGetIndex().unwrap()(d, &mut idx), NVML_SUCCESS);
                    assert_eq!(idx, (t + i) % 8);
                    assert_eq!(shutdown(), NVML_SUCCESS);
                }
            });
        }
    });
    // The outer init is still the only one outstanding.
    unsafe {
        assert_eq!(lib.nvmlShutdown().unwrap()(), NVML_SUCCESS);
        assert_eq!(lib.nvmlShutdown().unwrap()(), NVML_ERROR_UNINITIALIZED);
    }
}

/// Every function of the header is exported under its own name, legacy ones included.
#[test]
fn every_symbol_is_exported() {
    let lib = lib();
    let missing: Vec<&str> = SYMBOLS.iter().copied().filter(|s| !lib.has_symbol(s)).collect();
    assert!(missing.is_empty(), "{missing:?}");
}

/// A C program linked against the mock by its soname, with immediate binding.
#[test]
fn c_program_links_with_z_now() {
    let dir = mock_dir();
    let src = dir.join("client.c");
    std::fs::write(
        &src,
        r#"
#include <stdio.h>
typedef struct nvmlDevice_st *nvmlDevice_t;
int nvmlInit_v2(void);
int nvmlShutdown(void);
int nvmlDeviceGetCount_v2(unsigned int *);
int nvmlDeviceGetHandleByIndex_v2(unsigned int, nvmlDevice_t *);
int nvmlDeviceGetName(nvmlDevice_t, char *, unsigned int);
int main(void) {
    unsigned int n = 0; nvmlDevice_t d; char name[96];
    if (nvmlInit_v2() || nvmlDeviceGetCount_v2(&n) || nvmlDeviceGetHandleByIndex_v2(n - 1, &d)) return 1;
    if (nvmlDeviceGetName(d, name, sizeof name)) return 2;
    printf("%u %s\n", n, name);
    return nvmlShutdown();
}
"#,
    )
    .unwrap();
    let exe = dir.join("client");
    let status = Command::new("cc")
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{}", dir.display()))
        .args(["-lnvidia-ml", "-Wl,-z,now"])
        .status()
        .expect("needs a C compiler (`cc`)");
    assert!(status.success());
    let out = Command::new(&exe).env("LD_LIBRARY_PATH", &dir).env("NVML_MOCK_PROFILE", "l40s").output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "8 NVIDIA L40S\n", "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success());
}

/// NVIDIA's official Python binding (`pip install nvidia-ml-py`) against the mock. Skipped
/// with a message when the binding is not installed, unless `NVML_MOCK_REQUIRE_PYNVML` is set
/// (CI sets it).
#[test]
fn official_python_binding() {
    let has = Command::new("python3").args(["-c", "import pynvml"]).status().is_ok_and(|s| s.success());
    if !has {
        assert!(std::env::var_os("NVML_MOCK_REQUIRE_PYNVML").is_none(), "pynvml is required here: pip install nvidia-ml-py");
        eprintln!("skipped: the official Python binding is not installed (pip install nvidia-ml-py)");
        return;
    }
    let script = r#"
import pynvml as n
n.nvmlInit()
h = n.nvmlDeviceGetHandleByIndex(0)
mem = n.nvmlDeviceGetMemoryInfo(h)
procs = n.nvmlDeviceGetComputeRunningProcesses(h)
print(n.nvmlDeviceGetCount(), n.nvmlDeviceGetName(h), mem.total, n.nvmlSystemGetDriverVersion(),
      n.nvmlDeviceGetPowerManagementLimit(h), sorted(p.pid for p in procs), n.nvmlDeviceGetUUID(h)[:4])
n.nvmlShutdown()
"#;
    let out = Command::new("python3")
        .args(["-c", script])
        .env("LD_LIBRARY_PATH", mock_dir())
        .env("NVML_MOCK_PROFILE", "a100")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(stdout.trim(), format!("8 NVIDIA A100-SXM4-80GB {} 580.82.07 400000 [4242, 4250] GPU-", 81920u64 << 20));
}
