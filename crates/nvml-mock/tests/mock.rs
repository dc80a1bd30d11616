//! The built mock library, loaded the way clients load NVML: through `dlopen` (with our own
//! raw crate), by a C program linked with `-lnvidia-ml -Wl,-z,now`, and by NVIDIA's official
//! Python binding when it is installed.
//!
//! The mock's state is per process, so each scenario runs in a child process: the test re-runs
//! this binary for itself alone, with the scenario's environment.

use std::ffi::{c_char, CStr};
use std::path::{Path, PathBuf};
use std::process::Command;

use nvml_mock::testing::{in_child, mock_lib_dir, mock_path};
use nvml_sys::*;

/// A directory where the mock is called `libnvidia-ml.so.1` and `libnvidia-ml.so`.
fn mock_dir() -> PathBuf {
    mock_lib_dir(std::path::Path::new(env!("CARGO_TARGET_TMPDIR")))
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

/// The child's side of a scenario: the mock, loaded and initialised with `profile`; `None` in
/// the parent, once the child has passed test `name`.
fn initialised(name: &str, profile: &str) -> Option<NvmlLib> {
    if !in_child(name, &[("NVML_MOCK_PROFILE", profile)]) {
        return None;
    }
    let lib = lib();
    assert_eq!(unsafe { lib.nvmlInit_v2().unwrap()() }, NVML_SUCCESS);
    Some(lib)
}

/// NVML's count+array protocol inside a struct (`s`, its version set; `fields` picks out the
/// count and the array): the size query (count 0, null array) answers INSUFFICIENT_SIZE and the
/// count, a short array answers the same and gets nothing, and an array of that count is
/// filled, which this returns.
fn list_in<S: Copy, T: Copy + Default>(
    s: S,
    fields: impl Fn(&mut S) -> (&mut u32, &mut *mut T),
    call: impl Fn(&mut S) -> nvmlReturn_t,
) -> Vec<T> {
    let mut query = s;
    assert_eq!(call(&mut query), NVML_ERROR_INSUFFICIENT_SIZE);
    let n = *fields(&mut query).0;
    assert!(n > 0);
    let mut items = vec![T::default(); n as usize];
    let mut fill = s;
    let (count, array) = fields(&mut fill);
    (*count, *array) = (n - 1, items.as_mut_ptr());
    assert_eq!(call(&mut fill), NVML_ERROR_INSUFFICIENT_SIZE);
    assert_eq!(*fields(&mut fill).0, n);
    // SAFETY: the items are plain C records; their bytes are initialised.
    let bytes =
        unsafe { std::slice::from_raw_parts(items.as_ptr() as *const u8, std::mem::size_of_val(items.as_slice())) };
    assert!(bytes.iter().all(|b| *b == 0), "a short array gets nothing");
    assert_eq!(call(&mut fill), NVML_SUCCESS);
    assert_eq!(*fields(&mut fill).0, n);
    items
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
        let drv = string(NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE as u32, |b, l| {
            lib.nvmlSystemGetDriverVersion().unwrap()(b, l)
        });
        assert_eq!(drv.as_deref(), Ok("580.159.04"));
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
        // The older calls fill their layouts' fields alone, as driver 580.159.04 does: v2 no
        // `busId`, v1 no sub-system id either.
        for (f, subsystem) in
            [(lib.nvmlDeviceGetPciInfo_v2().unwrap(), 0x16C1_10DE), (lib.nvmlDeviceGetPciInfo().unwrap(), 0)]
        {
            let mut old = nvmlPciInfo_t::default();
            assert_eq!(f(d3, &mut old), NVML_SUCCESS);
            assert_eq!(CStr::from_ptr(old.busIdLegacy.as_ptr()).to_str(), Ok("0000:5D:00.0"));
            assert_eq!((old.bus, old.pciDeviceId, old.pciSubSystemId, old.busId[0]), (0x5D, 0x2330_10DE, subsystem, 0));
        }
        // Handles round-trip through UUID and PCI bus id lookups.
        let uuid =
            string(NVML_DEVICE_UUID_V2_BUFFER_SIZE as u32, |b, l| lib.nvmlDeviceGetUUID().unwrap()(d3, b, l)).unwrap();
        let c = std::ffi::CString::new(uuid).unwrap();
        let mut found = std::ptr::null_mut();
        assert_eq!(lib.nvmlDeviceGetHandleByUUID().unwrap()(c.as_ptr(), &mut found), NVML_SUCCESS);
        assert_eq!(found, d3);
        assert_eq!(lib.nvmlDeviceGetHandleByPciBusId_v2().unwrap()(c"0000:5D:00.0".as_ptr(), &mut found), NVML_SUCCESS);
        assert_eq!(found, d3);
        // Passive cooling: no fans.
        let mut speed = 0;
        assert_eq!(lib.nvmlDeviceGetFanSpeed().unwrap()(d0, &mut speed), NVML_ERROR_NOT_SUPPORTED);
        // The energy counter starts at the recorded reading and counts on; its field value is
        // the same counter.
        let energy = || {
            let mut mj = 0;
            assert_eq!(lib.nvmlDeviceGetTotalEnergyConsumption().unwrap()(d0, &mut mj), NVML_SUCCESS);
            mj
        };
        let first = energy();
        let mut field = nvmlFieldValue_t { fieldId: NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION as u32, ..Default::default() };
        assert_eq!(lib.nvmlDeviceGetFieldValues().unwrap()(d0, 1, &mut field), NVML_SUCCESS);
        let last = energy();
        assert!(first >= 2_131_855, "{first}");
        assert!(first <= field.value.ullVal && field.value.ullVal <= last, "{first} {} {last}", field.value.ullVal);
        assert_eq!(lib.nvmlShutdown().unwrap()(), NVML_SUCCESS);
    }
}

#[test]
fn every_builtin_profile_initialises() {
    for profile in ["a100", "a100-r525", "b200", "gb200", "h100", "l40s", "l40s-vgpu", "t4"] {
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
        assert_eq!(s.to_str(), Ok("Insufficient Size"), "as driver 580.159.04 spells it");
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
        assert_eq!(
            lib.nvmlDeviceGetHandleByIndex_v2().unwrap()(8, &mut std::ptr::null_mut()),
            NVML_ERROR_INVALID_ARGUMENT
        );
        // A short string buffer.
        assert_eq!(string(8, |b, l| lib.nvmlDeviceGetName().unwrap()(d0, b, l)), Err(NVML_ERROR_INSUFFICIENT_SIZE));
        // A versioned struct with the wrong version: ARGUMENT_VERSION_MISMATCH, but
        // FUNCTION_NOT_FOUND from nvmlDeviceGetMemoryInfo_v2, as driver 580.159.04 answers (the
        // profile's recorded `checks`; `record_versions_are_checked_before_support`).
        let mut pci = nvmlPciInfoExt_t { version: 1, ..Default::default() };
        assert_eq!(lib.nvmlDeviceGetPciInfoExt().unwrap()(d0, &mut pci), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
        let mut mem = nvmlMemory_v2_t { version: 1, ..Default::default() };
        assert_eq!(lib.nvmlDeviceGetMemoryInfo_v2().unwrap()(d0, &mut mem), NVML_ERROR_FUNCTION_NOT_FOUND);
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
        // A value of the profile (h100.yaml): bare metal.
        let mut mode = 9;
        assert_eq!(lib.nvmlDeviceGetVirtualizationMode().unwrap()(d0, &mut mode), NVML_SUCCESS);
        assert_eq!(mode, NVML_GPU_VIRTUALIZATION_MODE_NONE);
        // Setters change what getters return.
        assert_eq!(lib.nvmlDeviceSetPowerManagementLimit().unwrap()(d0, 450_000), NVML_SUCCESS);
        let mut limit = 0;
        assert_eq!(lib.nvmlDeviceGetPowerManagementLimit().unwrap()(d0, &mut limit), NVML_SUCCESS);
        assert_eq!(limit, 450_000);
        assert_eq!(lib.nvmlDeviceSetPowerManagementLimit().unwrap()(d0, 10), NVML_ERROR_INVALID_ARGUMENT);
    }
}

/// Driver 580.159.04 zeroes the version word of a GPU instance profile and, in layout v3, leaves
/// the name empty (`tests/real/README.md`, run 8); a capture records the name from a v2 call
/// and the version as written (as in `tests/real/runs/h100-run9/capture.yaml`). A v2 caller (the
/// Python binding) gets the driver's answer from the mock, and so does a v3 caller, name aside.
#[test]
fn a_recorded_gpu_instance_profile_answers_every_layout_as_the_driver() {
    let name = "a_recorded_gpu_instance_profile_answers_every_layout_as_the_driver";
    let capture = std::env::temp_dir().join(format!("nvml-mock-{name}.yaml"));
    // What that capture records of profile 0 (the values of the layout it reads, v3).
    let recorded = "{0: {id: 19, sliceCount: 1, instanceCount: 7, memorySizeMB: 9984, name: MIG 1g.10gb, version: 0}}";
    std::fs::write(&capture, format!("devices: [{{nvmlDeviceGetGpuInstanceProfileInfoV: {recorded}}}]\n")).unwrap();
    let Some(lib) = initialised(name, capture.to_str().unwrap()) else {
        return;
    };
    unsafe {
        let d0 = device(&lib, 0);
        let f = lib.nvmlDeviceGetGpuInstanceProfileInfoV().unwrap();
        let mut v2 = nvmlGpuInstanceProfileInfo_v2_t { version: nvmlGpuInstanceProfileInfo_v2, ..Default::default() };
        assert_eq!(f(d0, NVML_GPU_INSTANCE_PROFILE_1_SLICE as u32, &mut v2), NVML_SUCCESS);
        assert_eq!((v2.version, v2.id, v2.sliceCount, v2.memorySizeMB), (0, 19, 1, 9984));
        assert_eq!(std::ffi::CStr::from_ptr(v2.name.as_ptr()).to_str(), Ok("MIG 1g.10gb"));
        let mut v3 = nvmlGpuInstanceProfileInfo_v3_t { version: nvmlGpuInstanceProfileInfo_v3, ..Default::default() };
        let p = &mut v3 as *mut nvmlGpuInstanceProfileInfo_v3_t as *mut nvmlGpuInstanceProfileInfo_v2_t;
        assert_eq!(f(d0, NVML_GPU_INSTANCE_PROFILE_1_SLICE as u32, p), NVML_SUCCESS);
        assert_eq!((v3.version, v3.id, v3.sliceCount, v3.memorySizeMB), (0, 19, 1, 9984));
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
        assert_eq!((info.id, info.sliceCount, info.memorySizeMB), (9, 3, 40448));
        let mut gis = [std::ptr::null_mut(); 2];
        let mut n = 0;
        let get_gis = lib.nvmlDeviceGetGpuInstances().unwrap();
        // MIG mode off: an empty list (driver 580.159.04 on an H200).
        assert_eq!(get_gis(d0, info.id, gis.as_mut_ptr(), &mut n), NVML_SUCCESS);
        assert_eq!(n, 0);
        assert_eq!(get_gis(d7, info.id, gis.as_mut_ptr(), &mut n), NVML_SUCCESS);
        assert_eq!(n, 2);
        let mut gi_info = nvmlGpuInstanceInfo_t::default();
        assert_eq!(lib.nvmlGpuInstanceGetInfo().unwrap()(gis[1], &mut gi_info), NVML_SUCCESS);
        // A 3-slice instance over 4 of the 8 memory slices, as the recorded placements have it.
        assert_eq!((gi_info.device, gi_info.id, gi_info.placement.start, gi_info.placement.size), (d7, 2, 4, 4));
        // Its two 1-slice compute instances.
        let ci_profile = NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE as u32;
        let mut cis = [std::ptr::null_mut(); 3];
        assert_eq!(
            lib.nvmlGpuInstanceGetComputeInstances().unwrap()(gis[1], ci_profile, cis.as_mut_ptr(), &mut n),
            NVML_SUCCESS
        );
        assert_eq!(n, 2);
        let mut ci_info = nvmlComputeInstanceInfo_t::default();
        assert_eq!(lib.nvmlComputeInstanceGetInfo_v2().unwrap()(cis[1], &mut ci_info), NVML_SUCCESS);
        assert_eq!((ci_info.gpuInstance, ci_info.id, ci_info.placement.start), (gis[1], 1, 1));
        let mut cp =
            nvmlComputeInstanceProfileInfo_v2_t { version: nvmlComputeInstanceProfileInfo_v2, ..Default::default() };
        let shared = NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED as u32;
        assert_eq!(
            lib.nvmlGpuInstanceGetComputeInstanceProfileInfoV().unwrap()(gis[1], ci_profile, shared, &mut cp),
            NVML_SUCCESS
        );
        assert_eq!((cp.sliceCount, cp.instanceCount, cp.multiprocessorCount), (1, 3, 16));
        // The 7-slice compute profile does not fit a 3-slice GPU instance.
        let seven = NVML_COMPUTE_INSTANCE_PROFILE_7_SLICE as u32;
        assert_eq!(
            lib.nvmlGpuInstanceGetComputeInstanceProfileInfoV().unwrap()(gis[1], seven, shared, &mut cp),
            NVML_ERROR_NOT_SUPPORTED
        );
        // A compute-instance handle is not a GPU-instance handle.
        assert_eq!(
            lib.nvmlGpuInstanceGetInfo().unwrap()(cis[0] as nvmlGpuInstance_t, &mut gi_info),
            NVML_ERROR_INVALID_ARGUMENT
        );
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
        let drv = string(NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE as u32, |b, l| {
            lib.nvmlSystemGetDriverVersion().unwrap()(b, l)
        });
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
        let mut tv =
            nvmlTemperature_t { version: nvmlTemperature_v1, sensorType: NVML_TEMPERATURE_GPU, temperature: 0 };
        assert_eq!(lib.nvmlDeviceGetTemperatureV().unwrap()(d0, &mut tv), NVML_ERROR_FUNCTION_NOT_FOUND);
        assert_eq!(tv.temperature, 0, "an absent function writes nothing");
        // 12.2.81 (535) is newer than 525; 12.0.76 (525) is not.
        let mut id = 0;
        assert_eq!(lib.nvmlDeviceGetModuleId().unwrap()(d0, &mut id), NVML_ERROR_FUNCTION_NOT_FOUND);
        let mut gen = 0;
        assert_eq!(lib.nvmlDeviceGetGpuMaxPcieLinkGeneration().unwrap()(d0, &mut gen), NVML_SUCCESS);
        assert_eq!(gen, 4);
        // 13.1.68: newer than every mapped branch.
        assert_eq!(
            lib.nvmlDeviceReadPRMCounters_v1().unwrap()(d0, std::ptr::null_mut()),
            NVML_ERROR_FUNCTION_NOT_FOUND
        );
        assert_eq!(
            CStr::from_ptr(lib.nvmlErrorString().unwrap()(NVML_ERROR_FUNCTION_NOT_FOUND)).to_str(),
            Ok("Function Not Found")
        );
        assert_eq!(lib.nvmlShutdown().unwrap()(), NVML_SUCCESS);
    }
}

/// The default profile (driver 580.159.04) has every function up to the 13.0 headers (580), and
/// the three later ones that driver's library exports (`driver::OBSERVED`); the other functions
/// of 13.1 and later headers, whose branch is not recorded, count as newer than 580.
#[test]
fn default_driver_has_functions_up_to_its_branch() {
    if !in_child("default_driver_has_functions_up_to_its_branch", &[]) {
        return;
    }
    let lib = lib();
    unsafe {
        assert_eq!(lib.nvmlInit_v2().unwrap()(), NVML_SUCCESS);
        let d0 = device(&lib, 0);
        let mut tv =
            nvmlTemperature_t { version: nvmlTemperature_v1, sensorType: NVML_TEMPERATURE_GPU, temperature: 0 };
        assert_eq!(lib.nvmlDeviceGetTemperatureV().unwrap()(d0, &mut tv), NVML_SUCCESS);
        assert_eq!(tv.temperature, 33);
        let mut id = 0;
        assert_eq!(lib.nvmlDeviceGetModuleId().unwrap()(d0, &mut id), NVML_SUCCESS);
        assert_eq!(id, 1);
        // 13.0.39 (580): present, a value of the profile (h100.yaml).
        let mut pdi = nvmlPdi_t { version: nvmlPdi_v1, ..Default::default() };
        assert_eq!(lib.nvmlDeviceGetPdi().unwrap()(d0, &mut pdi), NVML_SUCCESS);
        assert_eq!((pdi.version, pdi.value), (nvmlPdi_v1, 0x1D4B_5F3A_0C9E_2871));
        // 13.1.68, which libnvidia-ml.so.580.159.04 exports: present (it refuses a NULL record).
        assert_eq!(lib.nvmlDeviceReadPRMCounters_v1().unwrap()(d0, std::ptr::null_mut()), NVML_ERROR_INVALID_ARGUMENT);
        // 13.4.61: absent; the family's older member works.
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
            let drv = string(NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE as u32, |b, l| {
                lib.nvmlSystemGetDriverVersion().unwrap()(b, l)
            })
            .unwrap();
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
                assert_eq!(prm, NVML_ERROR_INVALID_ARGUMENT, "present: a missing counter list is refused");
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

/// A MIG tree bigger than its instance profiles allow fails init: NVML's instance lists have no
/// capacity argument, so a client sizes its array by the profile info's `instanceCount`
/// ("gpuInstances ... with size at least instanceCount"), and more instances would be written
/// past it.
#[test]
fn mig_tree_beyond_its_profiles_fails_init() {
    let h100 = nvml_mock::testing::builtin_profile("h100").unwrap();
    let second_gi = "{profile: NVML_GPU_INSTANCE_PROFILE_3_SLICE, id: 2, start: 4,";
    let one_slice_ci = "{profile: NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE, id: 1, start: 1, size: 1}";
    assert!(h100.contains(second_gi) && h100.contains(one_slice_ci), "h100's GPU 7 changed");
    let variants = [
        // Three 3-slice GPU instances; the profile says `instances: 2`.
        ("mig-three-gis", h100.replace(second_gi, &format!("{{profile: NVML_GPU_INSTANCE_PROFILE_3_SLICE, id: 3, start: 0}}, {second_gi}"))),
        // Four 1-slice compute instances in a 3-slice GPU instance.
        (
            "mig-four-cis",
            h100.replace(
                one_slice_ci,
                &format!("{one_slice_ci}, {{profile: NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE, id: 2, start: 2, size: 1}}, {{profile: NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE, id: 3, start: 2, size: 1}}"),
            ),
        ),
    ];
    for (name, text) in variants {
        let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}.yaml"));
        std::fs::write(&path, text).unwrap();
        if !in_child("mig_tree_beyond_its_profiles_fails_init", &[("NVML_MOCK_PROFILE", path.to_str().unwrap())]) {
            continue;
        }
        let lib = lib();
        unsafe { assert_eq!(lib.nvmlInit_v2().unwrap()(), NVML_ERROR_UNKNOWN) };
        return;
    }
}

/// With the clock stopped a second after the epoch, the samples are those of that second: no
/// timestamp before 0 (nvml.h: "timestamps ... in microseconds"), the newest not after now.
#[test]
fn samples_a_second_after_the_epoch() {
    if !in_child("samples_a_second_after_the_epoch", &[("NVML_MOCK_PROFILE", "h100"), ("NVML_MOCK_CLOCK", "1000000")]) {
        return;
    }
    let lib = lib();
    unsafe {
        assert_eq!(lib.nvmlInit_v2().unwrap()(), NVML_SUCCESS);
        let samples = lib.nvmlDeviceGetSamples().unwrap();
        let (mut kind, mut count) = (0, 64u32);
        let mut buf = vec![nvmlSample_t::default(); 64];
        assert_eq!(
            samples(device(&lib, 0), NVML_GPU_UTILIZATION_SAMPLES, 0, &mut kind, &mut count, buf.as_mut_ptr()),
            NVML_SUCCESS
        );
        let stamps: Vec<u64> = buf[..count as usize].iter().map(|s| s.timeStamp).collect();
        assert!(!stamps.is_empty() && stamps.iter().all(|t| (1..=1_000_000).contains(t)), "{stamps:?}");
    }
}

/// A clock setting that is not a number of µs fails init, rather than leaving the clock running.
#[test]
fn bad_clock_fails_init() {
    if !in_child("bad_clock_fails_init", &[("NVML_MOCK_CLOCK", "yesterday")]) {
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
        assert_eq!(
            lib.nvmlDeviceRegisterEvents().unwrap()(d2, nvmlEventTypeXidCriticalError as u64, set),
            NVML_SUCCESS
        );
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

/// GSP firmware (every profile but `t4`) and the pGPU metadata string (`l40s`, a vGPU card).
#[test]
fn gsp_firmware_and_pgpu_metadata_follow_the_profile() {
    for profile in ["l40s", "t4"] {
        let Some(lib) = initialised("gsp_firmware_and_pgpu_metadata_follow_the_profile", profile) else { continue };
        unsafe {
            let d2 = device(&lib, 2);
            let gsp = string(NVML_GSP_FIRMWARE_VERSION_BUF_SIZE as u32, |b, _| {
                lib.nvmlDeviceGetGspFirmwareVersion().unwrap()(d2, b)
            });
            let metadata = lib.nvmlDeviceGetPgpuMetadataString().unwrap();
            let mut size = 0;
            let drv = string(NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE as u32, |b, l| {
                lib.nvmlSystemGetDriverVersion().unwrap()(b, l)
            })
            .unwrap();
            if drv.starts_with("535.") {
                assert_eq!(gsp, Err(NVML_ERROR_NOT_SUPPORTED));
                assert_eq!(metadata(d2, std::ptr::null_mut(), &mut size), NVML_ERROR_NOT_SUPPORTED);
                return;
            }
            assert_eq!(gsp.as_deref(), Ok("580.82.07"));
            assert_eq!(
                lib.nvmlDeviceGetGspFirmwareVersion().unwrap()(d2, std::ptr::null_mut()),
                NVML_ERROR_INVALID_ARGUMENT
            );
            // Size query: a null buffer of size 0; the size includes the NUL.
            let want =
                "version=1;hostDriverVersion=580.82.07;pciDeviceId=0x26B910DE;pgpuVirtualizationCaps=0x1;pgpuIndex=2";
            assert_eq!(metadata(d2, std::ptr::null_mut(), &mut size), NVML_ERROR_INSUFFICIENT_SIZE);
            assert_eq!(size, want.len() as u32 + 1);
            let mut buf = vec![0 as c_char; size as usize];
            let mut short = size - 1;
            assert_eq!(metadata(d2, buf.as_mut_ptr(), &mut short), NVML_ERROR_INSUFFICIENT_SIZE);
            assert_eq!(short, size);
            let mut nonzero = 4;
            assert_eq!(metadata(d2, std::ptr::null_mut(), &mut nonzero), NVML_ERROR_INVALID_ARGUMENT);
            assert_eq!(metadata(d2, buf.as_mut_ptr(), std::ptr::null_mut()), NVML_ERROR_INVALID_ARGUMENT);
            assert_eq!(metadata(d2, buf.as_mut_ptr(), &mut size), NVML_SUCCESS);
            assert_eq!(CStr::from_ptr(buf.as_ptr()).to_str(), Ok(want));
        }
        return;
    }
}

/// The H100 profile's device 0 runs two compute processes with utilisation; device 3 has two
/// unique SRAM errors; device 7 is in MIG mode.
#[test]
fn process_details_utilization_and_sram_errors() {
    let Some(lib) = initialised("process_details_utilization_and_sram_errors", "h100") else { return };
    unsafe {
        let (d0, d1, d3, d7) = (device(&lib, 0), device(&lib, 1), device(&lib, 3), device(&lib, 7));
        let gsp = string(NVML_GSP_FIRMWARE_VERSION_BUF_SIZE as u32, |b, _| {
            lib.nvmlDeviceGetGspFirmwareVersion().unwrap()(d0, b)
        });
        assert_eq!(gsp.as_deref(), Ok("580.159.04"));

        // nvmlDeviceGetRunningProcessDetailList: the count+array protocol inside the struct.
        let details = lib.nvmlDeviceGetRunningProcessDetailList().unwrap();
        let list =
            |mode: u32| nvmlProcessDetailList_t { version: nvmlProcessDetailList_v1, mode, ..Default::default() };
        let mut l = nvmlProcessDetailList_t { version: 1, ..list(NVML_PROCESS_MODE_COMPUTE) };
        assert_eq!(details(d0, &mut l), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
        let procs = list_in(
            list(NVML_PROCESS_MODE_COMPUTE),
            |l| (&mut l.numProcArrayEntries, &mut l.procArray),
            |l| details(d0, l),
        );
        assert_eq!(procs.len(), 2);
        let p = procs[1];
        assert_eq!(
            (p.pid, p.usedGpuMemory, p.gpuInstanceId, p.computeInstanceId, p.usedGpuCcProtectedMemory),
            (4250, 512 << 20, !0, !0, 0)
        );
        assert_eq!((procs[0].pid, procs[0].usedGpuMemory), (4242, 1 << 30));
        // Driver 580.159.04 refuses ALL, which a later header declares (the grow test below
        // lists ALL on a later driver); no graphics, no MPS processes: success with zero.
        assert_eq!(details(d0, &mut list(NVML_PROCESS_MODE_ALL)), NVML_ERROR_INVALID_ARGUMENT);
        for mode in [NVML_PROCESS_MODE_GRAPHICS, NVML_PROCESS_MODE_MPS] {
            let mut l = list(mode);
            assert_eq!(details(d0, &mut l), NVML_SUCCESS);
            assert_eq!(l.numProcArrayEntries, 0);
        }
        let mut l = list(NVML_PROCESS_MODE_COMPUTE);
        assert_eq!(details(d1, &mut l), NVML_SUCCESS);
        assert_eq!(l.numProcArrayEntries, 0);
        assert_eq!(details(d0, &mut list(NVML_PROCESS_MODE_MAX)), NVML_ERROR_INVALID_ARGUMENT);

        // nvmlDeviceGetProcessesUtilizationInfo: the processes' samples of the current period
        // (the profile dates none), those newer than lastSeenTimeStamp.
        let util = lib.nvmlDeviceGetProcessesUtilizationInfo().unwrap();
        let info = |last: u64| nvmlProcessesUtilizationInfo_t {
            version: nvmlProcessesUtilizationInfo_v1,
            lastSeenTimeStamp: last,
            ..Default::default()
        };
        assert_eq!(
            util(d0, &mut nvmlProcessesUtilizationInfo_t { version: 2, ..info(0) }),
            NVML_ERROR_ARGUMENT_VERSION_MISMATCH
        );
        let before = now_us();
        let samples = list_in(info(0), |u| (&mut u.processSamplesCount, &mut u.procUtilArray), |u| util(d0, u));
        let after = now_us();
        assert_eq!(samples.len(), 2);
        let s = |i: usize| {
            let s = samples[i];
            (s.pid, s.smUtil, s.memUtil, s.encUtil, s.decUtil, s.jpgUtil, s.ofaUtil)
        };
        assert_eq!((s(0), s(1)), ((4242, 38, 11, 0, 0, 0, 0), (4250, 21, 6, 0, 3, 0, 0)));
        assert!(samples.iter().all(|s| (before..=after).contains(&s.timeStamp)), "sampled now: {before}..{after}");
        let mut u = info(u64::MAX);
        assert_eq!(util(d0, &mut u), NVML_ERROR_NOT_FOUND, "nothing after the end of time");
        assert_eq!(u.processSamplesCount, 0);
        let mut u = info(0);
        assert_eq!(util(d1, &mut u), NVML_ERROR_NOT_FOUND, "no process, no samples");
        assert_eq!(u.processSamplesCount, 0);
        assert_eq!(util(d7, &mut info(0)), NVML_ERROR_NOT_SUPPORTED, "not in MIG mode");

        // nvmlDeviceGetSramUniqueUncorrectedEccErrorCounts: nvml.h documents it for Blackwell
        // or newer (the b200 profile has some).
        let sram = lib.nvmlDeviceGetSramUniqueUncorrectedEccErrorCounts().unwrap();
        let mut c = nvmlEccSramUniqueUncorrectedErrorCounts_t {
            version: nvmlEccSramUniqueUncorrectedErrorCounts_v1,
            ..Default::default()
        };
        assert_eq!(sram(d3, &mut c), NVML_ERROR_NOT_SUPPORTED);
    }
}

/// Samples the profile dates (`time_stamp`, µs since the epoch): those after lastSeenTimeStamp,
/// NOT_FOUND when none is.
#[test]
fn dated_process_samples() {
    let profile = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("h100-dated.yaml");
    let text = nvml_mock::testing::builtin_profile("h100")
        .unwrap()
        .replace("name: python3,", "name: python3, time_stamp: 1700000001000000,")
        .replace("name: trainer,", "name: trainer, time_stamp: 1700000000000000,");
    std::fs::write(&profile, text).unwrap();
    let Some(lib) = initialised("dated_process_samples", profile.to_str().unwrap()) else { return };
    unsafe {
        let (d0, util) = (device(&lib, 0), lib.nvmlDeviceGetProcessesUtilizationInfo().unwrap());
        let info = |last: u64| nvmlProcessesUtilizationInfo_t {
            version: nvmlProcessesUtilizationInfo_v1,
            lastSeenTimeStamp: last,
            ..Default::default()
        };
        let samples = list_in(info(0), |u| (&mut u.processSamplesCount, &mut u.procUtilArray), |u| util(d0, u));
        let got: Vec<(u32, u64)> = samples.iter().map(|s| (s.pid, s.timeStamp)).collect();
        assert_eq!(got, [(4242, 1_700_000_001_000_000), (4250, 1_700_000_000_000_000)]);
        let later = list_in(
            info(1_700_000_000_000_000),
            |u| (&mut u.processSamplesCount, &mut u.procUtilArray),
            |u| util(d0, u),
        );
        assert_eq!((later.len(), later[0].pid, later[0].smUtil), (1, 4242, 38));
        let mut u = info(1_700_000_001_000_000);
        assert_eq!(util(d0, &mut u), NVML_ERROR_NOT_FOUND);
        assert_eq!(u.processSamplesCount, 0);
        // The older layout of the same samples.
        let v1 = lib.nvmlDeviceGetProcessUtilization().unwrap();
        let mut n = 0;
        assert_eq!(v1(d0, std::ptr::null_mut(), &mut n, 1_700_000_000_000_000), NVML_ERROR_INSUFFICIENT_SIZE);
        let mut one = vec![nvmlProcessUtilizationSample_t::default(); n as usize];
        assert_eq!(v1(d0, one.as_mut_ptr(), &mut n, 1_700_000_000_000_000), NVML_SUCCESS);
        assert_eq!((n, one[0].pid, one[0].smUtil, one[0].memUtil), (1, 4242, 38, 11));
    }
}

/// Unique uncorrected SRAM errors (Blackwell): b200's device 3 has two.
#[test]
fn sram_errors_on_blackwell() {
    let Some(lib) = initialised("sram_errors_on_blackwell", "b200") else { return };
    unsafe {
        let (d0, d3) = (device(&lib, 0), device(&lib, 3));
        let sram = lib.nvmlDeviceGetSramUniqueUncorrectedEccErrorCounts().unwrap();
        let counts = || nvmlEccSramUniqueUncorrectedErrorCounts_t {
            version: nvmlEccSramUniqueUncorrectedErrorCounts_v1,
            ..Default::default()
        };
        assert_eq!(
            sram(d3, &mut nvmlEccSramUniqueUncorrectedErrorCounts_t { version: 0, ..counts() }),
            NVML_ERROR_ARGUMENT_VERSION_MISMATCH
        );
        let entries = list_in(counts(), |c| (&mut c.entryCount, &mut c.entries), |c| sram(d3, c));
        let e = |i: usize| {
            let e = entries[i];
            (e.unit, e.location, e.sublocation, e.extlocation, e.address, e.isParity, e.count)
        };
        assert_eq!((e(0), e(1)), ((2, 5, 1, 0, 0x1A40, 0, 1), (7, 0, 3, 0, 0xC8, 1, 2)));
        let mut c = counts();
        assert_eq!(sram(d0, &mut c), NVML_SUCCESS);
        assert_eq!(c.entryCount, 0);
    }
}

/// µs since the epoch.
fn now_us() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_micros() as u64
}

/// `grow_processes` applies to the detail list too: its size query grows the list it answered.
#[test]
fn process_detail_list_grows_between_size_query_and_fill() {
    let profile = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("h100-grow.yaml");
    // The h100 on a driver after the 580 branch, which lists ALL (compute then graphics).
    std::fs::write(&profile, "base: [h100]\nsystem: {driver_version: \"590.44.01\"}\ngrow_processes: 1\n").unwrap();
    let Some(lib) = initialised("process_detail_list_grows_between_size_query_and_fill", profile.to_str().unwrap())
    else {
        return;
    };
    unsafe {
        let details = lib.nvmlDeviceGetRunningProcessDetailList().unwrap();
        let mut l = nvmlProcessDetailList_t {
            version: nvmlProcessDetailList_v1,
            mode: NVML_PROCESS_MODE_ALL,
            ..Default::default()
        };
        assert_eq!(details(device(&lib, 0), &mut l), NVML_ERROR_INSUFFICIENT_SIZE);
        assert_eq!(l.numProcArrayEntries, 2);
        let mut procs = vec![nvmlProcessDetail_v1_t::default(); 3];
        l.procArray = procs.as_mut_ptr();
        assert_eq!(details(device(&lib, 0), &mut l), NVML_ERROR_INSUFFICIENT_SIZE);
        assert_eq!(l.numProcArrayEntries, 3);
        assert_eq!(details(device(&lib, 0), &mut l), NVML_SUCCESS);
        assert_eq!((procs[2].pid, procs[2].usedGpuMemory, procs[2].usedGpuCcProtectedMemory), (4251, 256 << 20, 0));
    }
}

/// The H100 profile queues a driver unbind and a bind of GPU 0 (PCI id 0x1800); each set gets
/// the events of the types it registered, once.
#[test]
fn system_event_sets_deliver_each_event_once() {
    let Some(lib) = initialised("system_event_sets_deliver_each_event_once", "h100") else { return };
    unsafe {
        let (create, register, wait, free) = (
            lib.nvmlSystemEventSetCreate().unwrap(),
            lib.nvmlSystemRegisterEvents().unwrap(),
            lib.nvmlSystemEventSetWait().unwrap(),
            lib.nvmlSystemEventSetFree().unwrap(),
        );
        let new_set = || {
            let mut c = nvmlSystemEventSetCreateRequest_t {
                version: nvmlSystemEventSetCreateRequest_v1,
                set: std::ptr::null_mut(),
            };
            assert_eq!(create(&mut c), NVML_SUCCESS);
            assert!(!c.set.is_null());
            c.set
        };
        let mut c = nvmlSystemEventSetCreateRequest_t { version: 7, set: std::ptr::null_mut() };
        assert_eq!(create(&mut c), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
        assert_eq!(create(std::ptr::null_mut()), NVML_ERROR_INVALID_ARGUMENT);
        let (a, b) = (new_set(), new_set());
        assert_ne!(a, b);
        let reg = |set, types: i64| {
            let mut r = nvmlSystemRegisterEventRequest_t {
                version: nvmlSystemRegisterEventRequest_v1,
                eventTypes: types as u64,
                set,
            };
            register(&mut r)
        };
        let mut data = [nvmlSystemEventData_v1_t::default(); 4];
        let mut w = |set, size: u32, timeout: u32| {
            data = Default::default();
            let mut r = nvmlSystemEventSetWaitRequest_t {
                version: nvmlSystemEventSetWaitRequest_v1,
                timeoutms: timeout,
                set,
                data: data.as_mut_ptr(),
                dataSize: size,
                numEvent: 99,
            };
            let rc = wait(&mut r);
            (rc, r.numEvent, data.map(|d| (d.eventType, d.gpuId)))
        };
        // Nothing registered: after the timeout, success with no event (driver 580.159.04).
        let t = std::time::Instant::now();
        assert_eq!(w(a, 4, 50).0, NVML_SUCCESS);
        assert!(t.elapsed() >= std::time::Duration::from_millis(50));
        assert_eq!(w(a, 4, 0).1, 0);
        assert_eq!(reg(a, 0x4), NVML_ERROR_NOT_SUPPORTED, "not a system event type");
        let mut bad = nvmlSystemRegisterEventRequest_t { version: 0, eventTypes: 1, set: a };
        assert_eq!(register(&mut bad), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
        // Set a: the unbind, then (once registered) the bind; each once.
        let (unbind, bind) = (nvmlSystemEventTypeGpuDriverUnbind as u64, nvmlSystemEventTypeGpuDriverBind as u64);
        assert_eq!(reg(a, nvmlSystemEventTypeGpuDriverUnbind), NVML_SUCCESS);
        let (rc, n, got) = w(a, 4, 0);
        assert_eq!((rc, n, got[0], got[1]), (NVML_SUCCESS, 1, (unbind, 0x1800), (0, 0)));
        let (rc, n, _) = w(a, 4, 10);
        assert_eq!((rc, n), (NVML_SUCCESS, 0), "delivered once");
        assert_eq!(reg(a, nvmlSystemEventTypeGpuDriverBind), NVML_SUCCESS);
        let (rc, n, got) = w(a, 4, 0);
        assert_eq!((rc, n, got[0]), (NVML_SUCCESS, 1, (bind, 0x1800)));
        // Set b, both types, room for one at a time: the rest stays queued.
        assert_eq!(reg(b, nvmlSystemEventTypeGpuDriverUnbind | nvmlSystemEventTypeGpuDriverBind), NVML_SUCCESS);
        let (rc, n, got) = w(b, 1, 0);
        assert_eq!((rc, n, got[0], got[1]), (NVML_SUCCESS, 1, (unbind, 0x1800), (0, 0)));
        let (rc, n, got) = w(b, 1, 0);
        assert_eq!((rc, n, got[0]), (NVML_SUCCESS, 1, (bind, 0x1800)));
        let (rc, n, _) = w(b, 1, 0);
        assert_eq!((rc, n), (NVML_SUCCESS, 0));
        assert_eq!(w(b, 0, 0).0, NVML_ERROR_INVALID_ARGUMENT, "no room for an event");
        // Freeing: once; a freed or made-up set is rejected everywhere.
        let mut f = nvmlSystemEventSetFreeRequest_t { version: nvmlSystemEventSetFreeRequest_v1, set: a };
        assert_eq!(
            free(&mut nvmlSystemEventSetFreeRequest_t { version: 3, set: a }),
            NVML_ERROR_ARGUMENT_VERSION_MISMATCH
        );
        assert_eq!(free(&mut f), NVML_SUCCESS);
        assert_eq!(free(&mut f), NVML_ERROR_INVALID_ARGUMENT);
        assert_eq!(w(a, 4, 0).0, NVML_ERROR_INVALID_ARGUMENT);
        assert_eq!(reg(a, nvmlSystemEventTypeGpuDriverBind), NVML_ERROR_INVALID_ARGUMENT);
        assert_eq!(reg(0x1234 as nvmlSystemEventSet_t, nvmlSystemEventTypeGpuDriverBind), NVML_ERROR_INVALID_ARGUMENT);
        assert_eq!(
            free(&mut nvmlSystemEventSetFreeRequest_t { version: nvmlSystemEventSetFreeRequest_v1, set: b }),
            NVML_SUCCESS
        );
    }
}

/// CPER records and cgroup memory limits come with the 13.3 and 13.4 headers, newer than the
/// H100 profile's driver (580): absent there, present on the same profile with driver 590.
#[test]
fn cper_records_and_memory_limits_on_a_newer_driver() {
    let newer = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("h100-590.yaml");
    let h100 = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("profiles/h100.yaml")).unwrap();
    let text = h100
        .replace("\nsystem:\n", "\nsystem:\n  driver_version: \"590.44.01\"\n")
        .replace("name: trainer,", "name: trainer, cc_protected_memory: 268435456,");
    assert_eq!(text.matches("590.44.01").count() + text.matches("cc_protected_memory").count(), 2);
    std::fs::write(&newer, text).unwrap();
    let newer = newer.to_str().unwrap();
    for profile in ["h100", newer] {
        let Some(lib) = initialised("cper_records_and_memory_limits_on_a_newer_driver", profile) else { continue };
        unsafe {
            let d0 = device(&lib, 0);
            let cper = lib.nvmlSystemGetCPER_v1().unwrap();
            let mut req = nvmlGetCPER_v1_t::default();
            req.cursor.cperTypeMask = NVML_CPER_ACCESS_TYPE_GPU;
            let get_limits = lib.nvmlDeviceGetMemoryLimits_v1().unwrap();
            let set_limits = lib.nvmlDeviceSetMemoryLimits_v1().unwrap();
            let ns = c"/sys/fs/cgroup/job-17";
            let mut limits = nvmlGetMemoryLimits_v1_t { nameSpace: ns.as_ptr(), ..Default::default() };
            // The loop's first iteration runs in each child: the driver tells which one this is.
            let drv = string(NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE as u32, |b, l| {
                lib.nvmlSystemGetDriverVersion().unwrap()(b, l)
            })
            .unwrap();
            if drv == "580.159.04" {
                assert_eq!(cper(&mut req), NVML_ERROR_FUNCTION_NOT_FOUND);
                assert_eq!(get_limits(d0, &mut limits), NVML_ERROR_FUNCTION_NOT_FOUND);
                return;
            }

            // The size query: a record remains, and the cursor stays.
            assert_eq!(cper(&mut req), NVML_ERROR_INSUFFICIENT_SIZE);
            assert_eq!((req.bufferSize, req.cursor.handle), (16, NVML_CPER_CURSOR_HANDLE_INIT));
            let mut buf = [0u8; 64];
            req.buffer = buf.as_mut_ptr();
            req.bufferSize = 8;
            assert_eq!(cper(&mut req), NVML_ERROR_INSUFFICIENT_SIZE);
            assert_eq!((req.bufferSize, buf[0]), (16, 0));
            req.bufferSize = 64;
            assert_eq!(cper(&mut req), NVML_SUCCESS);
            assert_eq!(req.bufferSize, 16);
            assert_eq!(buf[..16], [0x43, 0x50, 0x45, 0x52, 1, 1, 0xFF, 0xFF, 0xFF, 0xFF, 1, 0, 2, 0, 0, 0]);
            assert_ne!(req.cursor.handle, NVML_CPER_CURSOR_HANDLE_INIT);
            // The second record, then none.
            req.buffer = std::ptr::null_mut();
            req.bufferSize = 0;
            assert_eq!(cper(&mut req), NVML_ERROR_INSUFFICIENT_SIZE);
            assert_eq!(req.bufferSize, 20);
            req.bufferSize = 5;
            assert_eq!(cper(&mut req), NVML_ERROR_INVALID_ARGUMENT, "a null buffer with a size");
            req.buffer = buf.as_mut_ptr();
            req.bufferSize = 64;
            assert_eq!(cper(&mut req), NVML_SUCCESS);
            assert_eq!((req.bufferSize, &buf[16..20]), (20, &[0x18, 0, 0, 0][..]));
            assert_eq!(cper(&mut req), NVML_SUCCESS);
            assert_eq!(req.bufferSize, 0, "no more records");
            req.buffer = std::ptr::null_mut();
            req.bufferSize = 0;
            assert_eq!(cper(&mut req), NVML_SUCCESS);
            assert_eq!(req.bufferSize, 0);
            // A new iteration for GPU 3 only: its one record.
            let uuid = string(NVML_DEVICE_UUID_V2_BUFFER_SIZE as u32, |b, l| {
                lib.nvmlDeviceGetUUID().unwrap()(device(&lib, 3), b, l)
            })
            .unwrap();
            for (dst, src) in req.cursor.uuid.iter_mut().zip(uuid.bytes()) {
                *dst = src as c_char;
            }
            req.cursor.handle = NVML_CPER_CURSOR_HANDLE_INIT;
            assert_eq!(cper(&mut req), NVML_ERROR_INSUFFICIENT_SIZE);
            assert_eq!(req.bufferSize, 20);
            req.buffer = buf.as_mut_ptr();
            req.bufferSize = 64;
            assert_eq!(cper(&mut req), NVML_SUCCESS);
            assert_eq!(cper(&mut req), NVML_SUCCESS);
            assert_eq!(req.bufferSize, 0);
            // No record type selected: nothing.
            let mut none = nvmlGetCPER_v1_t::default();
            assert_eq!(cper(&mut none), NVML_SUCCESS);
            assert_eq!(none.bufferSize, 0);

            // Memory limits: none set, then set per namespace, then cleared.
            let total = 85_520_809_984u64;
            assert_eq!(get_limits(d0, &mut limits), NVML_SUCCESS);
            assert_eq!(
                (limits.softLimit, limits.hardLimit, limits.currentUsed),
                (0, NVML_DEVICE_MEMORY_LIMIT_MAX, 1_612_709_888)
            );
            let mut set = nvmlSetMemoryLimits_v1_t { nameSpace: ns.as_ptr(), softLimit: 8 << 30, hardLimit: 16 << 30 };
            assert_eq!(set_limits(d0, &mut set), NVML_SUCCESS);
            assert_eq!(get_limits(d0, &mut limits), NVML_SUCCESS);
            assert_eq!((limits.softLimit, limits.hardLimit), (8 << 30, 16 << 30));
            let mut other =
                nvmlGetMemoryLimits_v1_t { nameSpace: c"/sys/fs/cgroup/other".as_ptr(), ..Default::default() };
            assert_eq!(get_limits(d0, &mut other), NVML_SUCCESS);
            assert_eq!((other.softLimit, other.hardLimit), (0, NVML_DEVICE_MEMORY_LIMIT_MAX));
            let mut elsewhere = limits;
            assert_eq!(get_limits(device(&lib, 1), &mut elsewhere), NVML_SUCCESS);
            // Device 1 uses no memory (the recorded idle GPU's `memory.used`).
            assert_eq!((elsewhere.softLimit, elsewhere.currentUsed), (0, 0), "limits are per device");
            for (soft, hard) in [(16 << 30, 8 << 30), (0, total + 1), (total + 1, NVML_DEVICE_MEMORY_LIMIT_MAX)] {
                let mut bad = nvmlSetMemoryLimits_v1_t { nameSpace: ns.as_ptr(), softLimit: soft, hardLimit: hard };
                assert_eq!(set_limits(d0, &mut bad), NVML_ERROR_INVALID_ARGUMENT, "{soft} {hard}");
            }
            let mut no_ns = nvmlSetMemoryLimits_v1_t { nameSpace: std::ptr::null(), softLimit: 0, hardLimit: 1 };
            assert_eq!(set_limits(d0, &mut no_ns), NVML_ERROR_INVALID_ARGUMENT);
            let mut no_ns = nvmlGetMemoryLimits_v1_t::default();
            assert_eq!(get_limits(d0, &mut no_ns), NVML_ERROR_INVALID_ARGUMENT);
            assert_eq!(get_limits(d0, std::ptr::null_mut()), NVML_ERROR_INVALID_ARGUMENT);
            let mut clear = nvmlSetMemoryLimits_v1_t {
                nameSpace: ns.as_ptr(),
                softLimit: 0,
                hardLimit: NVML_DEVICE_MEMORY_LIMIT_MAX,
            };
            assert_eq!(set_limits(d0, &mut clear), NVML_SUCCESS);
            assert_eq!(get_limits(d0, &mut limits), NVML_SUCCESS);
            assert_eq!((limits.softLimit, limits.hardLimit), (0, NVML_DEVICE_MEMORY_LIMIT_MAX));

            // A per-process protected-memory figure (set in this variant of the profile).
            let mut procs = vec![nvmlProcessDetail_v1_t::default(); 2];
            let mut l = nvmlProcessDetailList_t {
                version: nvmlProcessDetailList_v1,
                mode: NVML_PROCESS_MODE_COMPUTE,
                numProcArrayEntries: 2,
                procArray: procs.as_mut_ptr(),
            };
            assert_eq!(lib.nvmlDeviceGetRunningProcessDetailList().unwrap()(d0, &mut l), NVML_SUCCESS);
            assert_eq!((procs[0].usedGpuCcProtectedMemory, procs[1].usedGpuCcProtectedMemory), (0, 256 << 20));
        }
        return;
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
        assert!(
            std::env::var_os("NVML_MOCK_REQUIRE_PYNVML").is_none(),
            "pynvml is required here: pip install nvidia-ml-py"
        );
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

#[test]
fn vgpu_host_follows_its_instances() {
    let Some(lib) = initialised("vgpu_host_follows_its_instances", "l40s-vgpu") else { return };
    unsafe {
        let (d0, d1) = (device(&lib, 0), device(&lib, 1));
        let mut mode = 0;
        assert_eq!(lib.nvmlDeviceGetVirtualizationMode().unwrap()(d0, &mut mode), NVML_SUCCESS);
        assert_eq!(mode, NVML_GPU_VIRTUALIZATION_MODE_HOST_VGPU);
        // Instances, by the count protocol.
        let active = lib.nvmlDeviceGetActiveVgpus().unwrap();
        let (mut n, mut ids) = (0u32, [0u32; 4]);
        assert_eq!(active(d0, &mut n, std::ptr::null_mut()), NVML_ERROR_INSUFFICIENT_SIZE);
        assert_eq!(n, 2);
        assert_eq!(active(d0, &mut n, ids.as_mut_ptr()), NVML_SUCCESS);
        assert_eq!(&ids[..2], &[7, 8]);
        // The GPU's utilisation and used memory are its instances'.
        let mut u = nvmlUtilization_t::default();
        assert_eq!(lib.nvmlDeviceGetUtilizationRates().unwrap()(d0, &mut u), NVML_SUCCESS);
        assert_eq!((u.gpu, u.memory), (25 + 12, 8 + 4));
        let mut m = nvmlMemory_v2_t { version: nvmlMemory_v2, ..Default::default() };
        assert_eq!(lib.nvmlDeviceGetMemoryInfo_v2().unwrap()(d0, &mut m), NVML_SUCCESS);
        assert_eq!(m.used, 2 * 25232932864);
        let mut samples =
            nvmlVgpuInstancesUtilizationInfo_t { version: nvmlVgpuInstancesUtilizationInfo_v1, ..Default::default() };
        let infos: Vec<nvmlVgpuInstanceUtilizationInfo_v1_t> = list_in(
            samples,
            |s| (&mut s.vgpuInstanceCount, &mut s.vgpuUtilArray),
            |s| lib.nvmlDeviceGetVgpuInstancesUtilizationInfo().unwrap()(d0, s),
        );
        assert_eq!(
            infos.iter().map(|s| (s.vgpuInstance, s.smUtil.uiVal, s.memUtil.uiVal)).collect::<Vec<_>>(),
            [(7, 25, 8), (8, 12, 4)]
        );
        samples.lastSeenTimeStamp = u64::MAX;
        assert_eq!(lib.nvmlDeviceGetVgpuInstancesUtilizationInfo().unwrap()(d0, &mut samples), NVML_ERROR_NOT_FOUND);
        // Placements: 48 slots; a 24 GB type takes 24 at 0 and 24, both taken on GPU 0. GPU 1
        // runs one 8C at 0: five more fit, and no other type (homogeneous mode).
        let mut ids = [0u32; 8];
        let mut list = nvmlVgpuPlacementList_t {
            version: nvmlVgpuPlacementList_v2,
            count: 0,
            placementIds: ids.as_mut_ptr(),
            ..Default::default()
        };
        let supported = lib.nvmlDeviceGetVgpuTypeSupportedPlacements().unwrap();
        let creatable = lib.nvmlDeviceGetVgpuTypeCreatablePlacements().unwrap();
        assert_eq!(supported(d0, 1307, &mut list), NVML_ERROR_INSUFFICIENT_SIZE);
        assert_eq!((list.count, list.placementSize), (2, 24));
        assert_eq!(supported(d0, 1307, &mut list), NVML_SUCCESS);
        assert_eq!(&ids[..2], &[0, 24]);
        list.count = 8;
        assert_eq!(creatable(d0, 1307, &mut list), NVML_SUCCESS);
        assert_eq!(list.count, 0);
        list.count = 8;
        assert_eq!(creatable(d1, 1311, &mut list), NVML_SUCCESS);
        assert_eq!(&ids[..list.count as usize], &[8, 16, 24, 32, 40]);
        list.count = 8;
        assert_eq!(creatable(d1, 1307, &mut list), NVML_SUCCESS);
        assert_eq!(list.count, 0);
        let (mut n, mut types) = (4u32, [0u32; 4]);
        assert_eq!(lib.nvmlDeviceGetCreatableVgpus().unwrap()(d1, &mut n, types.as_mut_ptr()), NVML_SUCCESS);
        assert_eq!(&types[..n as usize], &[1311]);
        assert_eq!(lib.nvmlDeviceGetCreatableVgpus().unwrap()(d0, &mut n, types.as_mut_ptr()), NVML_SUCCESS);
        assert_eq!(n, 0);
        // Metadata by the bufferSize protocol, and the compatibility of the two.
        let mut size = 0u32;
        let instance_meta = lib.nvmlVgpuInstanceGetMetadata().unwrap();
        assert_eq!(instance_meta(7, std::ptr::null_mut(), &mut size), NVML_ERROR_INSUFFICIENT_SIZE);
        assert_eq!(size as usize, std::mem::size_of::<nvmlVgpuMetadata_t>());
        let mut size_1 = 1u32;
        assert_eq!(instance_meta(7, std::ptr::null_mut(), &mut size_1), NVML_ERROR_INVALID_ARGUMENT);
        assert_eq!(instance_meta(7, std::ptr::null_mut(), std::ptr::null_mut()), NVML_ERROR_INVALID_ARGUMENT);
        let mut vm = nvmlVgpuMetadata_t::default();
        assert_eq!(instance_meta(7, &mut vm, &mut size), NVML_SUCCESS);
        assert_eq!(CStr::from_ptr(vm.guestDriverVersion.as_ptr()).to_str(), Ok("580.82.07"));
        assert_eq!(instance_meta(99, &mut vm, &mut size), NVML_ERROR_NOT_FOUND);
        let mut pm = nvmlVgpuPgpuMetadata_t::default();
        let mut size = std::mem::size_of::<nvmlVgpuPgpuMetadata_t>() as u32;
        assert_eq!(lib.nvmlDeviceGetVgpuMetadata().unwrap()(d0, &mut pm, &mut size), NVML_SUCCESS);
        assert_eq!((pm.hostSupportedVgpuRange.minVersion, pm.hostSupportedVgpuRange.maxVersion), (0x100000, 0x130000));
        let mut c = nvmlVgpuPgpuCompatibility_t::default();
        assert_eq!(lib.nvmlGetVgpuCompatibility().unwrap()(&mut vm, &mut pm, &mut c), NVML_SUCCESS);
        assert_eq!(
            (c.vgpuVmCompatibility, c.compatibilityLimitCode),
            (NVML_VGPU_VM_COMPATIBILITY_LIVE, NVML_VGPU_COMPATIBILITY_LIMIT_NONE)
        );
        // Values of the profile: a type, an instance.
        let mut fb = 0u64;
        assert_eq!(lib.nvmlVgpuTypeGetFramebufferSize().unwrap()(1307, &mut fb), NVML_SUCCESS);
        assert_eq!(fb, 25232932864);
        assert_eq!(
            string(80, |b, l| lib.nvmlVgpuInstanceGetUUID().unwrap()(9, b, l)).as_deref(),
            Ok("c5d73e80-4136-4fac-9d10-7e8f9a0b1c23")
        );
        assert_eq!(
            string(80, |b, l| lib.nvmlVgpuInstanceGetUUID().unwrap()(0, b, l)),
            Err(NVML_ERROR_INVALID_ARGUMENT)
        );
        assert_eq!(string(80, |b, l| lib.nvmlVgpuInstanceGetUUID().unwrap()(99, b, l)), Err(NVML_ERROR_NOT_FOUND));
        let (mut count, mut fps, mut latency) = (9, 9, 9);
        assert_eq!(lib.nvmlVgpuInstanceGetEncoderStats().unwrap()(8, &mut count, &mut fps, &mut latency), NVML_SUCCESS);
        assert_eq!((count, fps, latency), (0, 0, 0));
    }
}

/// The profile's process ids become live ones: mapped one by one by `NVML_MOCK_LIVE_PIDS`,
/// or the caller's and its ancestors' with `live_pids: true`; names and samples follow. A
/// mapping that is not one fails init.
#[test]
fn live_pids_replace_the_profiles() {
    let live = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("h100-live.yaml");
    std::fs::write(&live, format!("live_pids: true\n{}", nvml_mock::testing::builtin_profile("h100").unwrap()))
        .unwrap();
    let scenarios = [("h100", "4242=1234, 4250=5678"), (live.to_str().unwrap(), ""), ("h100", "4242=me")];
    for (profile, pids) in scenarios {
        if !in_child("live_pids_replace_the_profiles", &[("NVML_MOCK_PROFILE", profile), ("NVML_MOCK_LIVE_PIDS", pids)])
        {
            continue;
        }
        // The child runs this first iteration whatever its scenario: its environment says which.
        let pids = std::env::var("NVML_MOCK_LIVE_PIDS").unwrap();
        let lib = lib();
        unsafe {
            if pids.ends_with("=me") {
                // Not a pid: init fails (and says why on stderr).
                assert_eq!(lib.nvmlInit_v2().unwrap()(), NVML_ERROR_UNKNOWN);
                return;
            }
            assert_eq!(lib.nvmlInit_v2().unwrap()(), NVML_SUCCESS);
            let d0 = device(&lib, 0);
            let mut infos = [nvmlProcessInfo_t::default(); 4];
            let mut n = 4;
            assert_eq!(
                lib.nvmlDeviceGetComputeRunningProcesses_v3().unwrap()(d0, &mut n, infos.as_mut_ptr()),
                NVML_SUCCESS
            );
            let got: Vec<u32> = infos[..n as usize].iter().map(|p| p.pid).collect();
            let expected = match pids.as_str() {
                "" => vec![std::process::id(), std::os::unix::process::parent_id()],
                _ => vec![1234, 5678],
            };
            assert_eq!(got, expected);
            assert_eq!(
                string(64, |b, l| lib.nvmlSystemGetProcessName().unwrap()(expected[1], b, l)).as_deref(),
                Ok("trainer")
            );
            // "Returned process name is cropped to provided length."
            assert_eq!(
                string(4, |b, l| lib.nvmlSystemGetProcessName().unwrap()(expected[1], b, l)).as_deref(),
                Ok("tra")
            );
            let info =
                nvmlProcessesUtilizationInfo_t { version: nvmlProcessesUtilizationInfo_v1, ..Default::default() };
            let samples = list_in(
                info,
                |u| (&mut u.processSamplesCount, &mut u.procUtilArray),
                |u| lib.nvmlDeviceGetProcessesUtilizationInfo().unwrap()(d0, u),
            );
            assert_eq!(
                samples.iter().map(|s| (s.pid, s.smUtil)).collect::<Vec<_>>(),
                [(expected[0], 38), (expected[1], 21)]
            );
        }
        return;
    }
}

/// The versioned records the engine writes by hand follow the profile's driver as the generated
/// answers do: `nvmlGpuInstanceProfileInfo_v3` and `nvmlComputeInstanceProfileInfo_v3` came with
/// 12.3.52 (545.23.06), `nvmlVgpuPlacementList_v2` with 12.8.55 (570.26); an older driver
/// answers `NVML_ERROR_ARGUMENT_VERSION_MISMATCH` to them and the older layout still works.
#[test]
fn hand_written_record_versions_follow_the_driver() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("record-versions");
    std::fs::create_dir_all(&dir).unwrap();
    let mut scenarios = Vec::new();
    for (base, driver) in
        [("h100", "525.147.05"), ("h100", "580.82.07"), ("l40s-vgpu", "560.35.03"), ("l40s-vgpu", "580.82.07")]
    {
        let path = dir.join(format!("{base}-{driver}.yaml"));
        let text = format!("name: {base}-{driver}\nbase: [{base}]\nsystem: {{driver_version: \"{driver}\"}}\n");
        std::fs::write(&path, text).unwrap();
        scenarios.push((base, driver, path.display().to_string()));
    }
    const SCENARIO: &str = "NVML_MOCK_TEST_RECORD_SCENARIO";
    for (i, (_, _, path)) in scenarios.iter().enumerate() {
        let env = [("NVML_MOCK_PROFILE", path.as_str()), (SCENARIO, &i.to_string())];
        if !in_child("hand_written_record_versions_follow_the_driver", &env) {
            continue;
        }
        let (base, driver, _) = &scenarios[std::env::var(SCENARIO).unwrap().parse::<usize>().unwrap()];
        let lib = lib();
        assert_eq!(unsafe { lib.nvmlInit_v2().unwrap()() }, NVML_SUCCESS);
        let newer_known = *driver == "580.82.07";
        let want = |known: bool| if known { NVML_SUCCESS } else { NVML_ERROR_ARGUMENT_VERSION_MISMATCH };
        unsafe {
            if *base == "h100" {
                // GPU 7 is in MIG mode; its 3g.40gb profile (id 9) and a 1-slice compute profile.
                let d7 = device(&lib, 7);
                let profile = NVML_GPU_INSTANCE_PROFILE_3_SLICE as u32;
                let gi_info = lib.nvmlDeviceGetGpuInstanceProfileInfoV().unwrap();
                let mut v3 =
                    nvmlGpuInstanceProfileInfo_v3_t { version: nvmlGpuInstanceProfileInfo_v3, ..Default::default() };
                // The H100 refuses a version it does not know with INVALID_ARGUMENT here (its
                // recorded `checks`).
                assert_eq!(
                    gi_info(d7, profile, (&mut v3 as *mut nvmlGpuInstanceProfileInfo_v3_t).cast()),
                    if newer_known { NVML_SUCCESS } else { NVML_ERROR_INVALID_ARGUMENT },
                    "{driver}"
                );
                assert_eq!(v3.id, if newer_known { 9 } else { 0 }, "{driver}");
                let mut v2 =
                    nvmlGpuInstanceProfileInfo_v2_t { version: nvmlGpuInstanceProfileInfo_v2, ..Default::default() };
                assert_eq!(gi_info(d7, profile, &mut v2), NVML_SUCCESS);
                assert_eq!((v2.id, v2.sliceCount), (9, 3));
                let mut gis = [std::ptr::null_mut(); 2];
                let mut n = 0;
                assert_eq!(lib.nvmlDeviceGetGpuInstances().unwrap()(d7, 9, gis.as_mut_ptr(), &mut n), NVML_SUCCESS);
                let ci_info = lib.nvmlGpuInstanceGetComputeInstanceProfileInfoV().unwrap();
                let (ci, shared) =
                    (NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE as u32, NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED as u32);
                let mut v3 = nvmlComputeInstanceProfileInfo_v3_t {
                    version: nvmlComputeInstanceProfileInfo_v3,
                    ..Default::default()
                };
                let v3_ptr = (&mut v3 as *mut nvmlComputeInstanceProfileInfo_v3_t).cast();
                assert_eq!(ci_info(gis[1], ci, shared, v3_ptr), want(newer_known), "{driver}");
                let mut v2 = nvmlComputeInstanceProfileInfo_v2_t {
                    version: nvmlComputeInstanceProfileInfo_v2,
                    ..Default::default()
                };
                assert_eq!(ci_info(gis[1], ci, shared, &mut v2), NVML_SUCCESS);
                assert_eq!((v2.sliceCount, v2.instanceCount), (1, 3));
            } else {
                // A 24 GB type has two placements, 0 and 24, on GPU 0.
                let d0 = device(&lib, 0);
                let supported = lib.nvmlDeviceGetVgpuTypeSupportedPlacements().unwrap();
                let mut ids = [0u32; 8];
                let mut v2 = nvmlVgpuPlacementList_v2_t {
                    version: nvmlVgpuPlacementList_v2,
                    count: 8,
                    placementIds: ids.as_mut_ptr(),
                    ..Default::default()
                };
                assert_eq!(supported(d0, 1307, &mut v2), want(newer_known), "{driver}");
                let mut v1 = nvmlVgpuPlacementList_v1_t {
                    version: nvmlVgpuPlacementList_v1,
                    placementIds: ids.as_mut_ptr(),
                    ..Default::default()
                };
                assert_eq!(supported(d0, 1307, (&mut v1 as *mut nvmlVgpuPlacementList_v1_t).cast()), NVML_SUCCESS);
                assert_eq!((v1.count, &ids[..2]), (2, &[0, 24][..]));
            }
        }
        return;
    }
}

/// The order of a versioned getter's argument checks, as driver 580.159.04 makes them (read on
/// an H200 and an H100): a record version the function does not know answers
/// `ARGUMENT_VERSION_MISMATCH` even where the right version answers `NOT_SUPPORTED` (the
/// version is checked first), and `nvmlDeviceGetMemoryInfo_v2` answers a wrong version with
/// `FUNCTION_NOT_FOUND`.
#[test]
fn record_versions_are_checked_before_support() {
    let Some(lib) = initialised("record_versions_are_checked_before_support", "h100") else { return };
    unsafe {
        let d0 = device(&lib, 0);
        // The H100 is passively cooled: no cooler to describe.
        let cooler = lib.nvmlDeviceGetCoolerInfo().unwrap();
        let mut info = nvmlCoolerInfo_t { version: nvmlCoolerInfo_v1, ..Default::default() };
        assert_eq!(cooler(d0, &mut info), NVML_ERROR_NOT_SUPPORTED);
        for wrong in [0, 1, nvmlCoolerInfo_v1 + (1 << 24), nvmlCoolerInfo_v1 + 4] {
            let mut info = nvmlCoolerInfo_t { version: wrong, ..Default::default() };
            assert_eq!(cooler(d0, &mut info), NVML_ERROR_ARGUMENT_VERSION_MISMATCH, "version {wrong:#x}");
        }
        let memory = lib.nvmlDeviceGetMemoryInfo_v2().unwrap();
        let mut m = nvmlMemory_v2_t { version: nvmlMemory_v2, ..Default::default() };
        assert_eq!(memory(d0, &mut m), NVML_SUCCESS);
        assert_eq!(m.total, 81559 << 20);
        for wrong in [0, 1, 3, nvmlMemory_v2 + (1 << 24), nvmlMemory_v2 + 8] {
            let mut m = nvmlMemory_v2_t { version: wrong, ..Default::default() };
            assert_eq!(memory(d0, &mut m), NVML_ERROR_FUNCTION_NOT_FOUND, "version {wrong:#x}");
            assert_eq!(m.total, 0, "version {wrong:#x}: nothing written");
        }
    }
}

/// `nvmlDeviceGetFieldValues` answers each field on its own: a field id the driver does not know
/// (0, those of later headers, `NVML_FI_MAX` and above) `INVALID_ARGUMENT` in that field's
/// `nvmlReturn`, as driver 580.159.04 does, a known field the GPU lacks `NOT_SUPPORTED`, and the
/// call `SUCCESS` since other fields have values.
#[test]
fn unknown_field_ids_answer_invalid_argument_each() {
    let Some(lib) = initialised("unknown_field_ids_answer_invalid_argument_each", "h100") else { return };
    // h100 runs driver 580.159.04, numbered as header 13.0.87, which ends before the field 274
    // of later headers (the recorded H100 answered it so: its capture holds no other answer).
    let ids: [(u32, nvmlReturn_t); 8] = [
        (NVML_FI_DEV_ECC_CURRENT as u32, NVML_SUCCESS),
        (0, NVML_ERROR_INVALID_ARGUMENT),
        (NVML_FI_DEV_ECC_SBE_VOL_L1 as u32, NVML_ERROR_NOT_SUPPORTED),
        (274, NVML_ERROR_INVALID_ARGUMENT),
        (NVML_FI_MAX as u32 - 1, NVML_ERROR_INVALID_ARGUMENT),
        (NVML_FI_MAX as u32, NVML_ERROR_INVALID_ARGUMENT),
        (1000, NVML_ERROR_INVALID_ARGUMENT),
        (NVML_FI_DEV_POWER_INSTANT as u32, NVML_SUCCESS),
    ];
    let mut values: Vec<nvmlFieldValue_t> =
        ids.iter().map(|(id, _)| nvmlFieldValue_t { fieldId: *id, nvmlReturn: 99, ..Default::default() }).collect();
    unsafe {
        let d0 = device(&lib, 0);
        assert_eq!(lib.nvmlDeviceGetFieldValues().unwrap()(d0, ids.len() as i32, values.as_mut_ptr()), NVML_SUCCESS);
    }
    let got: Vec<(u32, nvmlReturn_t)> = values.iter().map(|v| (v.fieldId, v.nvmlReturn)).collect();
    assert_eq!(got, ids);
    // ECC is enabled on the H100.
    assert_eq!(unsafe { values[0].value.ullVal }, 1);
}

fn pci_info(lib: &NvmlLib, d: nvmlDevice_t) -> nvmlPciInfo_t {
    let mut pci = nvmlPciInfo_t::default();
    assert_eq!(unsafe { lib.nvmlDeviceGetPciInfo_v3().unwrap()(d, &mut pci) }, NVML_SUCCESS);
    pci
}

/// `nvmlDeviceQueryDrainState` answers the drain state of the GPU at a PCI location: not drained
/// at first (as driver 580.159.04 answers on an H200), then as `nvmlDeviceModifyDrainState` left
/// that GPU. `nvmlDeviceDiscoverGpus` finds nothing to add: every GPU of the profile is there.
#[test]
fn drain_state_and_gpu_discovery() {
    let Some(lib) = initialised("drain_state_and_gpu_discovery", "h100") else { return };
    unsafe {
        let query = lib.nvmlDeviceQueryDrainState().unwrap();
        let modify = lib.nvmlDeviceModifyDrainState().unwrap();
        let (mut pci3, mut pci2) = (pci_info(&lib, device(&lib, 3)), pci_info(&lib, device(&lib, 2)));
        let state = |pci: &mut nvmlPciInfo_t| {
            let mut s = 99;
            assert_eq!(query(pci, &mut s), NVML_SUCCESS);
            s
        };
        assert_eq!((state(&mut pci3), state(&mut pci2)), (NVML_FEATURE_DISABLED, NVML_FEATURE_DISABLED));
        assert_eq!(modify(&mut pci3, NVML_FEATURE_ENABLED), NVML_SUCCESS);
        assert_eq!((state(&mut pci3), state(&mut pci2)), (NVML_FEATURE_ENABLED, NVML_FEATURE_DISABLED));
        assert_eq!(modify(&mut pci3, NVML_FEATURE_DISABLED), NVML_SUCCESS);
        assert_eq!(state(&mut pci3), NVML_FEATURE_DISABLED);
        assert_eq!(query(&mut pci3, std::ptr::null_mut()), NVML_ERROR_INVALID_ARGUMENT);
        let mut s = 0;
        assert_eq!(query(std::ptr::null_mut(), &mut s), NVML_ERROR_INVALID_ARGUMENT);
        let mut nowhere = nvmlPciInfo_t { bus: 0x77, ..pci3 };
        assert_eq!(query(&mut nowhere, &mut s), NVML_ERROR_NOT_FOUND);

        let discover = lib.nvmlDeviceDiscoverGpus().unwrap();
        assert_eq!(discover(&mut nowhere), NVML_SUCCESS);
        assert_eq!(discover(std::ptr::null_mut()), NVML_ERROR_INVALID_ARGUMENT);
        let mut n = 0;
        assert_eq!(lib.nvmlDeviceGetCount_v2().unwrap()(&mut n), NVML_SUCCESS);
        assert_eq!(n, 8);
    }
}

/// `nvmlDeviceSetMigMode` sets the mode a GPU takes at its next reset, which
/// `nvmlDeviceGetMigMode` answers as pending; the current mode stays until a GPU reset (`ctl
/// reset-gpu`, `tests/mig.rs`).
/// `nvmlDeviceSetTemperatureThreshold` sets a threshold the profile gives, which
/// `nvmlDeviceGetTemperatureThreshold` then answers, on that GPU alone; one the profile does not
/// give is not settable.
#[test]
fn mig_mode_and_temperature_thresholds_are_set() {
    let Some(lib) = initialised("mig_mode_and_temperature_thresholds_are_set", "h100") else { return };
    unsafe {
        let (d0, d1, d7) = (device(&lib, 0), device(&lib, 1), device(&lib, 7));
        let set = lib.nvmlDeviceSetMigMode().unwrap();
        let mode = |d| {
            let (mut current, mut pending) = (9, 9);
            assert_eq!(lib.nvmlDeviceGetMigMode().unwrap()(d, &mut current, &mut pending), NVML_SUCCESS);
            (current, pending)
        };
        // GPU 7 runs in MIG mode, the others not.
        assert_eq!((mode(d0), mode(d7)), ((0, 0), (1, 1)));
        // Enabling is pending until a reset (the activation status says so); disabling GPU 7,
        // which has GPU instances, is refused.
        let mut status = 99;
        assert_eq!(set(d0, NVML_DEVICE_MIG_ENABLE as u32, &mut status), NVML_SUCCESS);
        assert_eq!(status, NVML_ERROR_RESET_REQUIRED);
        assert_eq!(set(d7, NVML_DEVICE_MIG_DISABLE as u32, &mut status), NVML_ERROR_IN_USE);
        assert_eq!(set(d7, NVML_DEVICE_MIG_ENABLE as u32, &mut status), NVML_SUCCESS);
        assert_eq!(status, NVML_SUCCESS, "the mode is current already");
        assert_eq!((mode(d0), mode(d1), mode(d7)), ((0, 1), (0, 0), (1, 1)));
        assert_eq!(set(d0, 2, &mut status), NVML_ERROR_INVALID_ARGUMENT);
        assert_eq!(set(d0, NVML_DEVICE_MIG_ENABLE as u32, std::ptr::null_mut()), NVML_ERROR_INVALID_ARGUMENT);

        let set = lib.nvmlDeviceSetTemperatureThreshold().unwrap();
        let get = lib.nvmlDeviceGetTemperatureThreshold().unwrap();
        let threshold = |d, kind| {
            let mut t = 0;
            match get(d, kind, &mut t) {
                NVML_SUCCESS => Ok(t),
                e => Err(e),
            }
        };
        let slowdown = NVML_TEMPERATURE_THRESHOLD_SLOWDOWN;
        assert_eq!((threshold(d0, slowdown), threshold(d1, slowdown)), (Ok(89), Ok(89)));
        let mut t = 85;
        assert_eq!(set(d0, slowdown, &mut t), NVML_SUCCESS);
        assert_eq!((threshold(d0, slowdown), threshold(d1, slowdown)), (Ok(85), Ok(89)));
        assert_eq!(set(d0, slowdown, std::ptr::null_mut()), NVML_ERROR_INVALID_ARGUMENT);
        let acoustic = NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_CURR;
        assert_eq!(threshold(d0, acoustic), Err(NVML_ERROR_NOT_SUPPORTED));
        assert_eq!(set(d0, acoustic, &mut t), NVML_ERROR_NOT_SUPPORTED);
        assert_eq!(threshold(d0, acoustic), Err(NVML_ERROR_NOT_SUPPORTED));
    }
}

/// A GPU without MIG (the T4) has no MIG mode to set.
#[test]
fn mig_mode_is_not_set_without_mig() {
    let Some(lib) = initialised("mig_mode_is_not_set_without_mig", "t4") else { return };
    let mut status = 99;
    let code =
        unsafe { lib.nvmlDeviceSetMigMode().unwrap()(device(&lib, 0), NVML_DEVICE_MIG_ENABLE as u32, &mut status) };
    assert_eq!((code, status), (NVML_ERROR_NOT_SUPPORTED, 99));
}

/// The vGPU setters of a vGPU host (the l40s-vgpu profile, instance 7 with an accounting list):
/// `nvmlSetVgpuVersion` narrows the range of vGPU versions the host accepts (what
/// `nvmlGetVgpuVersion` answers as current) within the supported one;
/// `nvmlVgpuInstanceSetEncoderCapacity` sets what `nvmlVgpuInstanceGetEncoderCapacity` answers;
/// `nvmlVgpuInstanceClearAccountingPids` empties an instance's accounting list, and answers the
/// profile's error where the instance keeps none (accounting disabled). And
/// `nvmlVgpuTypeGetMaxInstances` answers the profile's count of a type the GPU supports.
#[test]
fn vgpu_host_setters_and_limits() {
    let profile = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("l40s-vgpu-accounting.yaml");
    let base = nvml_mock::testing::builtin_profile("l40s-vgpu").unwrap();
    let disabled = r#"nvmlVgpuInstanceGetAccountingPids: {error: NVML_ERROR_NOT_SUPPORTED, reason: "accounting mode is disabled"}"#;
    assert!(base.contains(disabled));
    std::fs::write(&profile, base.replacen(disabled, "nvmlVgpuInstanceGetAccountingPids: [4242, 4250]", 1)).unwrap();
    let Some(lib) = initialised("vgpu_host_setters_and_limits", profile.to_str().unwrap()) else { return };
    unsafe {
        let versions = || {
            let (mut supported, mut current) = (nvmlVgpuVersion_t::default(), nvmlVgpuVersion_t::default());
            assert_eq!(lib.nvmlGetVgpuVersion().unwrap()(&mut supported, &mut current), NVML_SUCCESS);
            ((supported.minVersion, supported.maxVersion), (current.minVersion, current.maxVersion))
        };
        assert_eq!(versions(), ((0x100000, 0x130000), (0x100000, 0x130000)));
        let set = lib.nvmlSetVgpuVersion().unwrap();
        let mut narrower = nvmlVgpuVersion_t { minVersion: 0x110000, maxVersion: 0x120000 };
        assert_eq!(set(&mut narrower), NVML_SUCCESS);
        assert_eq!(versions(), ((0x100000, 0x130000), (0x110000, 0x120000)));
        for (min, max) in [(0x120000, 0x110000), (0xF0000, 0x120000), (0x110000, 0x140000)] {
            let mut v = nvmlVgpuVersion_t { minVersion: min, maxVersion: max };
            assert_eq!(set(&mut v), NVML_ERROR_INVALID_ARGUMENT, "{min:#x}-{max:#x}");
        }
        assert_eq!(set(std::ptr::null_mut()), NVML_ERROR_INVALID_ARGUMENT);
        assert_eq!(versions().1, (0x110000, 0x120000));

        let set = lib.nvmlVgpuInstanceSetEncoderCapacity().unwrap();
        let capacity = |vgpu| {
            let mut c = 0;
            assert_eq!(lib.nvmlVgpuInstanceGetEncoderCapacity().unwrap()(vgpu, &mut c), NVML_SUCCESS);
            c
        };
        assert_eq!((capacity(7), capacity(8)), (100, 100));
        assert_eq!(set(7, 40), NVML_SUCCESS);
        assert_eq!((capacity(7), capacity(8)), (40, 100));
        assert_eq!(set(7, 101), NVML_ERROR_INVALID_ARGUMENT);
        assert_eq!(set(0, 40), NVML_ERROR_INVALID_ARGUMENT);
        assert_eq!(set(99, 40), NVML_ERROR_NOT_FOUND);
        assert_eq!(capacity(7), 40);

        let clear = lib.nvmlVgpuInstanceClearAccountingPids().unwrap();
        let pids = |vgpu| {
            let (mut n, mut list) = (4u32, [0u32; 4]);
            match lib.nvmlVgpuInstanceGetAccountingPids().unwrap()(vgpu, &mut n, list.as_mut_ptr()) {
                NVML_SUCCESS => Ok(list[..n as usize].to_vec()),
                e => Err(e),
            }
        };
        assert_eq!((pids(7), pids(8)), (Ok(vec![4242, 4250]), Err(NVML_ERROR_NOT_SUPPORTED)));
        assert_eq!(clear(7), NVML_SUCCESS);
        assert_eq!(pids(7), Ok(vec![]));
        assert_eq!(clear(8), NVML_ERROR_NOT_SUPPORTED);
        assert_eq!(clear(0), NVML_ERROR_INVALID_ARGUMENT);
        assert_eq!(clear(99), NVML_ERROR_NOT_FOUND);

        let max = lib.nvmlVgpuTypeGetMaxInstances().unwrap();
        let d0 = device(&lib, 0);
        let mut n = 0;
        for (ty, want) in [(1300, 48), (1307, 2), (1315, 1)] {
            assert_eq!(max(d0, ty, &mut n), NVML_SUCCESS);
            assert_eq!(n, want, "type {ty}");
        }
        assert_eq!(max(d0, 9999, &mut n), NVML_ERROR_INVALID_ARGUMENT);
        assert_eq!(max(d0, 1307, std::ptr::null_mut()), NVML_ERROR_INVALID_ARGUMENT);
    }
}

/// On bare metal without a vGPU manager (the a100 profile, whose driver answers no vGPU version
/// range) a host's vGPU settings are not there to set, and no vGPU type has instances. (The
/// recorded H100's driver answers a range, so the h100 profile takes one.)
#[test]
fn vgpu_setters_on_bare_metal() {
    let Some(lib) = initialised("vgpu_setters_on_bare_metal", "a100") else { return };
    unsafe {
        let mut v = nvmlVgpuVersion_t { minVersion: 0x110000, maxVersion: 0x120000 };
        assert_eq!(lib.nvmlSetVgpuVersion().unwrap()(&mut v), NVML_ERROR_NOT_SUPPORTED);
        let mut n = 7;
        assert_eq!(lib.nvmlVgpuTypeGetMaxInstances().unwrap()(device(&lib, 0), 1307, &mut n), NVML_ERROR_NOT_SUPPORTED);
        assert_eq!(lib.nvmlVgpuInstanceSetEncoderCapacity().unwrap()(7, 40), NVML_ERROR_NOT_FOUND);
        assert_eq!(lib.nvmlVgpuInstanceClearAccountingPids().unwrap()(7), NVML_ERROR_NOT_FOUND);
    }
}
