//! MIG as a client changes it, end to end: NVIDIA's Python binding drives GPU and compute
//! instances on `h100` (GPU 7, in MIG mode), `a100` and `b200` (GPU 0, MIG enabled and the
//! GPU reset first) in a session, with a second process of the session checking each step
//! (`tests/mig/suite.py`); a process that is not root gets `NVML_ERROR_NO_PERMISSION`; and
//! the MIG mode and `ctl show` / `reset-gpu` through the mock's C interface.
//!
//! Without pynvml the Python suite is skipped with a notice, unless `NVML_MOCK_REQUIRE_PYNVML`
//! is set (CI). The check as another user needs root: it runs as uid 54321 when the test runs
//! as root, else the suite's own process without the capability checks it.

use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use nvml_mock::testing::{have_python_module, mock_lib_dir, mock_path, CHILD_ENV};
use nvml_sys::*;

fn is_root() -> bool {
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

fn tmp(test: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("mig").join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The profile the suite's processes run: the built-in one as root; otherwise one that grants
/// the MIG configuration capability, as an administrator grants it to a user.
fn driver_profile(dir: &Path, profile: &str) -> String {
    if is_root() {
        return profile.to_string();
    }
    let file = dir.join(format!("{profile}-mig-config.yaml"));
    std::fs::write(&file, format!("base: [{profile}]\nsystem: {{mig_config_capability: true}}\n")).unwrap();
    file.display().to_string()
}

fn suite(profile: &str, gpu: u32) {
    if !have_python_module("pynvml", "NVML_MOCK_REQUIRE_PYNVML", "pip install nvidia-ml-py") {
        return;
    }
    let dir = tmp(profile);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mig/suite.py");
    let runtime = dir.join("runtime");
    let out = Command::new("python3")
        .arg(&script)
        .args(["drive", profile, &gpu.to_string()])
        .env("LD_LIBRARY_PATH", mock_lib_dir(&dir))
        .env("NVML_MOCK_PROFILE", driver_profile(&dir, profile))
        .env("NVML_MOCK_SESSION", format!("mig-{profile}"))
        .env("NVML_MOCK_RUNTIME_DIR", &runtime)
        .env("NVML_MOCK_CTL", env!("CARGO_BIN_EXE_nvml-mock"))
        .env("MIG_NONROOT", if is_root() { "uid" } else { "same" })
        .env("MIG_NONROOT_PROFILE", profile)
        .output()
        .expect("python3 runs");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "the MIG suite on {profile} failed:\n{text}");
    let partitions: usize = text
        .lines()
        .find_map(|l| l.strip_prefix("ok ")?.strip_suffix(" partitions")?.parse().ok())
        .unwrap_or_else(|| panic!("no result line:\n{text}"));
    // Every set of GPU instances the guide's table allows (the empty one too), each visited.
    assert_eq!(partitions, 2319, "{profile}: partitions walked");
    println!("{profile}: {partitions} partitions created and destroyed through pynvml");
}

#[test]
fn pynvml_partitions_h100() {
    suite("h100", 7);
}

#[test]
fn pynvml_partitions_a100() {
    suite("a100", 0);
}

#[test]
fn pynvml_partitions_b200() {
    suite("b200", 0);
}

/// The mock's library, opened and initialised (profile `h100` unless the environment says).
fn open() -> NvmlLib {
    let lib = NvmlLib::open_path(mock_path()).expect("the built mock");
    // SAFETY: nvmlInit_v2 takes no arguments.
    unsafe { assert_eq!(lib.nvmlInit_v2().unwrap()(), NVML_SUCCESS) };
    lib
}

fn device(lib: &NvmlLib, index: u32) -> nvmlDevice_t {
    let mut d = std::ptr::null_mut();
    // SAFETY: `d` is a valid out-pointer.
    unsafe { assert_eq!(lib.nvmlDeviceGetHandleByIndex_v2().unwrap()(index, &mut d), NVML_SUCCESS) };
    d
}

/// The child of [`a_process_that_is_not_root_may_not_change_mig`]: every MIG change on `h100`'s
/// GPU 7 answers `NO_PERMISSION`, and what it reads still answers; with `MIG_GRANTED`, the
/// profile grants the capability and a GPU instance is created.
#[test]
fn not_root_child() {
    if std::env::var_os(CHILD_ENV).is_none() {
        return;
    }
    let lib = open();
    let d7 = device(&lib, 7);
    // SAFETY: the out-pointers are valid for the calls.
    unsafe {
        let (mut gi, mut ci) = (std::ptr::null_mut(), std::ptr::null_mut());
        assert_eq!(lib.nvmlDeviceGetGpuInstanceById().unwrap()(d7, 1, &mut gi), NVML_SUCCESS);
        assert_eq!(lib.nvmlGpuInstanceGetComputeInstanceById().unwrap()(gi, 0, &mut ci), NVML_SUCCESS);
        if std::env::var_os("MIG_GRANTED").is_some() {
            assert_eq!(lib.nvmlComputeInstanceDestroy().unwrap()(ci), NVML_SUCCESS);
            assert_eq!(lib.nvmlGpuInstanceDestroy().unwrap()(gi), NVML_SUCCESS);
            assert_eq!(lib.nvmlDeviceCreateGpuInstance().unwrap()(d7, 9, &mut gi), NVML_SUCCESS);
            println!("granted: changed");
            return;
        }
        let mut other = std::ptr::null_mut();
        assert_eq!(lib.nvmlDeviceCreateGpuInstance().unwrap()(d7, 19, &mut other), NVML_ERROR_NO_PERMISSION);
        let mut status = 0;
        assert_eq!(lib.nvmlDeviceSetMigMode().unwrap()(d7, 1, &mut status), NVML_ERROR_NO_PERMISSION);
        assert_eq!(lib.nvmlGpuInstanceDestroy().unwrap()(gi), NVML_ERROR_NO_PERMISSION);
        let mut new_ci = std::ptr::null_mut();
        assert_eq!(lib.nvmlGpuInstanceCreateComputeInstance().unwrap()(gi, 0, &mut new_ci), NVML_ERROR_NO_PERMISSION);
        assert_eq!(lib.nvmlComputeInstanceDestroy().unwrap()(ci), NVML_ERROR_NO_PERMISSION);
        let mut n = 0;
        assert_eq!(lib.nvmlDeviceGetGpuInstanceRemainingCapacity().unwrap()(d7, 19, &mut n), NVML_SUCCESS);
    }
    println!("not root: refused");
}

/// A process that is not root (uid 54321 when the test runs as root) gets `NO_PERMISSION`,
/// unless its profile grants the MIG configuration capability.
#[test]
fn a_process_that_is_not_root_may_not_change_mig() {
    let dir = tmp("not-root");
    let granted = dir.join("granted.yaml");
    std::fs::write(&granted, "base: [h100]\nsystem: {mig_config_capability: true}\n").unwrap();
    for (profile, says) in [("h100", "not root: refused"), (granted.to_str().unwrap(), "granted: changed")] {
        let mut cmd = Command::new(std::env::current_exe().unwrap());
        cmd.args(["not_root_child", "--exact", "--nocapture", "--test-threads=1"])
            .env(CHILD_ENV, "1")
            .env("NVML_MOCK_PROFILE", profile)
            .env_remove("NVML_MOCK_SESSION");
        if profile != "h100" {
            cmd.env("MIG_GRANTED", "1");
        }
        if is_root() {
            cmd.uid(54321).gid(54321);
        }
        let out = cmd.output().expect("the test binary runs");
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success() && text.contains(says), "{profile}: {text}");
    }
}

/// GPU 0 of `h100`: enabling MIG is pending until the GPU is reset (`ctl reset-gpu`), then
/// current; disabling it with instances left is refused; `ctl show` prints the tree; without
/// a session, the tree is the process's and outlives `nvmlShutdown`.
#[test]
fn mig_mode_and_the_tree_in_a_session() {
    if std::env::var_os(CHILD_ENV).is_none() {
        let dir = tmp("mode");
        let (runtime, profile) = (dir.join("runtime"), driver_profile(&dir, "h100"));
        let runtime = runtime.display().to_string();
        let env = [
            ("NVML_MOCK_RUNTIME_DIR", runtime.as_str()),
            ("NVML_MOCK_SESSION", "mode"),
            ("NVML_MOCK_PROFILE", &profile),
        ];
        nvml_mock::testing::in_child("mig_mode_and_the_tree_in_a_session", &env);
        return;
    }
    let ctl = |args: &[&str]| nvml_mock::testing::ctl("mode", args).unwrap_or_else(|e| panic!("ctl {args:?}: {e}"));
    let lib = open();
    let d0 = device(&lib, 0);
    // SAFETY: the out-pointers are valid for the calls.
    unsafe {
        let mode = || {
            let (mut current, mut pending) = (9, 9);
            assert_eq!(lib.nvmlDeviceGetMigMode().unwrap()(d0, &mut current, &mut pending), NVML_SUCCESS);
            (current, pending)
        };
        let set = |m: u32| {
            let mut status = 99;
            let code = lib.nvmlDeviceSetMigMode().unwrap()(d0, m, &mut status);
            (code, status)
        };
        let mut gi = std::ptr::null_mut();
        let create = lib.nvmlDeviceCreateGpuInstance().unwrap();
        assert_eq!(mode(), (0, 0));
        assert_eq!(create(d0, 0, &mut gi), NVML_ERROR_NOT_SUPPORTED, "MIG off");
        assert_eq!(set(1), (NVML_SUCCESS, NVML_ERROR_RESET_REQUIRED));
        assert_eq!(mode(), (0, 1), "enabled: pending");
        assert!(ctl(&["show"]).contains("GPU 0: MIG off (pending on)"), "{}", ctl(&["show"]));
        assert!(ctl(&["reset-gpu", "0"]).contains("GPU 0: reset: MIG on"));
        assert_eq!(mode(), (1, 1), "current after the reset");
        let mut max = 0;
        assert_eq!(lib.nvmlDeviceGetMaxMigDeviceCount().unwrap()(d0, &mut max), NVML_SUCCESS);
        assert_eq!(max, 7);
        assert_eq!(create(d0, 0, &mut gi), NVML_SUCCESS, "7g.80gb");
        let mut ci = std::ptr::null_mut();
        assert_eq!(lib.nvmlGpuInstanceCreateComputeInstance().unwrap()(gi, 4, &mut ci), NVML_SUCCESS);
        let show = ctl(&["show"]);
        assert!(show.contains("GPU 0: GPU instance 0 MIG 7g.80gb (profile 0) at 0:8"), "{show}");
        assert!(show.contains("GPU 0:   compute instance 0 (profile 4) at 0:7 MIG-"), "{show}");
        assert!(show.contains("GPU 7: GPU instance 1 MIG 3g.40gb"), "the profile's tree of GPU 7: {show}");
        assert_eq!(set(0), (NVML_ERROR_IN_USE, 99), "disabling with instances left");
        assert_eq!(mode(), (1, 1));
        // A reset destroys the instances: their handles are stale.
        ctl(&["reset-gpu", "0"]);
        let mut info = nvmlGpuInstanceInfo_t::default();
        assert_eq!(lib.nvmlGpuInstanceGetInfo().unwrap()(gi, &mut info), NVML_ERROR_INVALID_ARGUMENT);
        assert_eq!(set(0), (NVML_SUCCESS, NVML_ERROR_RESET_REQUIRED));
        ctl(&["reset-gpu", "0"]);
        assert_eq!(mode(), (0, 0));
        let e = nvml_mock::testing::ctl("mode", &["reset-gpu", "99"]).unwrap_err();
        assert!(e.contains("GPU 99 does not exist"), "{e}");
    }
}

/// A compute instance that a process runs in is in use, and so is its GPU instance: a GPU in
/// MIG mode whose profile runs a process in compute instance 1 of GPU instance 1.
#[test]
fn instances_with_processes_are_in_use() {
    if std::env::var_os(CHILD_ENV).is_none() {
        let dir = tmp("processes");
        let profile = dir.join("busy.yaml");
        std::fs::write(
            &profile,
            "base: [h100]\ncper_records: []\nsystem: {mig_config_capability: true}\ndevices:\n  - mig:\n      mode: true\n      \
             gpu_instances: [{profile: NVML_GPU_INSTANCE_PROFILE_3_SLICE, id: 1, start: 0, compute_instances: [\
             {profile: NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE, id: 0, start: 0, size: 1}, \
             {profile: NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE, id: 1, start: 1, size: 1}]}]\n    processes:\n      \
             compute: [{pid: 4242, used_memory: 1048576, name: python3, gpu_instance_id: 1, compute_instance_id: 1}]\n      \
             graphics: []\n    memory: {used: 1048576}\n",
        )
        .unwrap();
        nvml_mock::testing::in_child(
            "instances_with_processes_are_in_use",
            &[("NVML_MOCK_PROFILE", profile.to_str().unwrap())],
        );
        return;
    }
    let lib = open();
    let d0 = device(&lib, 0);
    // SAFETY: the out-pointers are valid for the calls.
    unsafe {
        let (mut gi, mut busy, mut idle) = (std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null_mut());
        assert_eq!(lib.nvmlDeviceGetGpuInstanceById().unwrap()(d0, 1, &mut gi), NVML_SUCCESS);
        assert_eq!(lib.nvmlGpuInstanceGetComputeInstanceById().unwrap()(gi, 1, &mut busy), NVML_SUCCESS);
        assert_eq!(lib.nvmlGpuInstanceGetComputeInstanceById().unwrap()(gi, 0, &mut idle), NVML_SUCCESS);
        let destroy = lib.nvmlComputeInstanceDestroy().unwrap();
        assert_eq!(destroy(busy), NVML_ERROR_IN_USE, "a process runs in compute instance 1");
        assert_eq!(destroy(idle), NVML_SUCCESS);
        assert_eq!(destroy(idle), NVML_ERROR_INVALID_ARGUMENT, "destroyed already: a stale handle");
        assert_eq!(lib.nvmlGpuInstanceDestroy().unwrap()(gi), NVML_ERROR_IN_USE, "it has a compute instance");
    }
}
