//! `nvml-mock capture`, the program: it only reads (every call it makes, as the mock's call log
//! `NVML_MOCK_LOG` shows them, is a getter or one of the few calls a capture needs that change
//! only the capturing process's state), its help says so, and it writes the profile that the
//! library's `nvml_mock::capture` writes (which the round-trip test, `capture_round_trip` in the
//! safe crate's `tests/differential.rs`, replays on every built-in profile). The `h100` profile's
//! GPUs are a real H100's capture less that machine's identity and surroundings.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use nvml_mock::testing::{in_child, mock_path, CLEARED_ENV};

/// The moment the mock's clock stands still at, so that two captures read the same values.
const FROZEN_CLOCK: &str = "1700000000000000";

/// Functions the capture calls that are not getters by the verb rule ([`getter`]), each with why
/// it changes no GPU's state. A listed function no capture calls fails the test, so the list
/// cannot go stale. (`nvmlErrorString`, which the capture also calls, returns no code: the log
/// does not show it.)
const NOT_GETTERS: &[(&str, &str)] = &[
    ("nvmlInit_v2", "starts the library in the capturing process"),
    ("nvmlShutdown", "stops it"),
    ("nvmlDeviceOnSameBoard", "compares two GPUs' boards: a query whose verb is `On`"),
    ("nvmlEventSetCreate", "an event set of the capturing process, to read the pending events"),
    ("nvmlDeviceRegisterEvents", "registers a GPU's events with that set"),
    ("nvmlEventSetWait_v2", "drains that set (with a timeout of 0)"),
    ("nvmlEventSetFree", "frees it"),
    ("nvmlSystemEventSetCreate", "a system event set of the capturing process, likewise"),
    ("nvmlSystemRegisterEvents", "registers the system's events with it"),
    ("nvmlSystemEventSetWait", "drains it"),
    ("nvmlSystemEventSetFree", "frees it"),
    ("nvmlGpmSampleAlloc", "a GPM sample buffer in the capturing process's memory, for the GPM metrics"),
    ("nvmlGpmSampleFree", "frees it"),
];

/// The internal slots of `nvidia-smi`'s export table the capture may call: 231, the GPU part
/// number (a string getter).
const SLOTS: &[usize] = &[231];

/// Whether a function's name says it only reads: its first verb (a CamelCase word; `EventSet`
/// and `GpuSet` are nouns) is `Get`, `Query` or `Is`. The rule the generator picks the
/// capture's readers with (`reads_only` in `xtask/src/emit/mock/capture.rs`).
fn getter(name: &str) -> bool {
    const READS: &[&str] = &["Get", "Query", "Is"];
    const CHANGES: &[&str] = &[
        "Set", "Reset", "Clear", "Create", "Destroy", "Modify", "Freeze", "Validate", "Discover", "Force", "Unload",
        "Activate", "Update", "Write", "Remove", "Register", "Alloc", "Free", "Lock", "Read", "Wait", "Setup",
    ];
    let stem = name.trim_start_matches("nvml").replace("EventSet", "Event").replace("GpuSet", "Gpu");
    // CamelCase words, a `_v2` suffix left out.
    let mut words = Vec::new();
    let mut rest = stem.split('_').next().unwrap_or("");
    while let Some(end) = rest.char_indices().skip(1).find(|(_, c)| c.is_ascii_uppercase()).map(|(i, _)| i) {
        words.push(&rest[..end]);
        rest = &rest[end..];
    }
    words.push(rest);
    let verb = words.into_iter().find(|w| READS.contains(w) || CHANGES.contains(w));
    verb.is_some_and(|w| READS.contains(&w))
}

/// `nvml-mock` with none of the caller's mock settings.
fn program() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_nvml-mock"));
    for var in CLEARED_ENV {
        cmd.env_remove(var);
    }
    cmd
}

fn work_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("capture");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `nvml-mock capture --keep-ids` of the mock loaded with `profile`, the clock frozen, into
/// `out`, with `env` added.
fn capture(profile: &str, out: &Path, env: &[(&str, &Path)]) {
    let run = program()
        .args(["capture", "--keep-ids", "--library"])
        .arg(mock_path())
        .arg("--mock")
        .arg(mock_path())
        .arg("--out")
        .arg(out)
        .env("NVML_MOCK_PROFILE", profile)
        .env("NVML_MOCK_CLOCK", FROZEN_CLOCK)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(run.status.success(), "nvml-mock capture of {profile}:\n{}", String::from_utf8_lossy(&run.stderr));
}

#[test]
fn the_verb_rule_tells_getters() {
    for f in ["nvmlDeviceGetName", "nvmlGpmQueryDeviceSupport", "nvmlDeviceIsMigDeviceHandle", "nvmlGpmSampleGet"] {
        assert!(getter(f), "{f}");
    }
    for f in [
        "nvmlDeviceSetMigMode",
        "nvmlDeviceResetGpuLockedClocks",
        "nvmlDeviceClearAccountingPids",
        "nvmlGpuInstanceCreateComputeInstance",
        "nvmlDeviceReadWritePRM_v1",
        "nvmlEventSetWait_v2",
        "nvmlDeviceOnSameBoard",
        "nvmlInit_v2",
    ] {
        assert!(!getter(f), "{f}");
    }
}

/// Every function `nvml-mock capture` calls (the capture, its probes in child processes, its
/// check against a copy of the mock), on a system with MIG devices, NVLink and processes
/// (`h100`) and on a vGPU host (`l40s-vgpu`), is a getter or listed in [`NOT_GETTERS`]; the
/// only internal slot it calls is 231.
#[test]
fn capture_calls_only_getters() {
    let dir = work_dir();
    let mut called = BTreeSet::new();
    let mut slots = BTreeSet::new();
    for profile in ["h100", "l40s-vgpu"] {
        let log = dir.join(format!("{profile}.calls.log"));
        let _ = std::fs::remove_file(&log);
        capture(profile, &dir.join(format!("{profile}.logged.yaml")), &[("NVML_MOCK_LOG", &log)]);
        let text = std::fs::read_to_string(&log).unwrap();
        let mut pids = BTreeSet::new();
        for line in text.lines() {
            let (pid, call) = line
                .strip_prefix("nvml-mock[")
                .and_then(|l| l.split_once("]: "))
                .unwrap_or_else(|| panic!("not a line of the call log: {line}"));
            pids.insert(pid.to_string());
            match call.strip_prefix("internal slot ") {
                Some(rest) => {
                    slots.insert(rest.split('(').next().and_then(|n| n.parse::<usize>().ok()).unwrap());
                }
                None => {
                    called.insert(call.split(' ').next().unwrap().to_string());
                }
            }
        }
        // The capture, and its probes in processes of their own.
        assert!(pids.len() > 1, "{profile}: calls of {} process(es)", pids.len());
    }
    for f in ["nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetMemoryInfo_v2", "nvmlVgpuInstanceGetUUID"] {
        assert!(called.contains(f), "the log lacks {f}: {called:?}");
    }
    assert!(called.len() > 300, "{} functions called", called.len());
    let changing: Vec<&String> =
        called.iter().filter(|f| !getter(f) && !NOT_GETTERS.iter().any(|(n, _)| n == f)).collect();
    assert!(changing.is_empty(), "the capture calls functions that may change a GPU's state: {changing:?}");
    let unused: Vec<&str> = NOT_GETTERS.iter().map(|(n, _)| *n).filter(|n| !called.contains(*n)).collect();
    assert!(unused.is_empty(), "NOT_GETTERS lists functions no capture calls: {unused:?}");
    assert_eq!(slots.into_iter().collect::<Vec<_>>(), SLOTS, "the internal slots the capture calls");
}

/// `nvml-mock capture --help` says that it only reads.
#[test]
fn capture_help_says_it_never_changes_gpu_state() {
    let out = program().args(["capture", "--help"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("It only reads: it calls getters, never a function that changes a GPU's state"), "{text}");
}

/// The program (its options; its probes in child processes) writes the profile the library's
/// capture writes with its probes in its own process: the path the round-trip test takes.
#[test]
fn the_program_writes_what_the_library_captures() {
    let dir = work_dir();
    let library = dir.join("h100.library.yaml");
    let env = [("NVML_MOCK_PROFILE", "h100"), ("NVML_MOCK_CLOCK", FROZEN_CLOCK)];
    if in_child("the_program_writes_what_the_library_captures", &env) {
        let opts = nvml_mock::capture::Options {
            library: Some(mock_path()),
            mock: Some(mock_path()),
            name: "captured".to_string(),
            keep_ids: true,
            ..Default::default()
        };
        let captured = nvml_mock::capture::capture(&opts).unwrap();
        std::fs::write(&library, captured.yaml).unwrap();
        return;
    }
    let program = dir.join("h100.program.yaml");
    capture("h100", &program, &[]);
    let (a, b) = (std::fs::read_to_string(&program).unwrap(), std::fs::read_to_string(&library).unwrap());
    assert!(a.lines().count() > 500, "{a}");
    assert!(
        a == b,
        "the program's capture differs from the library's: diff {} {}",
        program.display(),
        library.display()
    );
}

/// `profiles/base/h100-80gb-hbm3.yaml` is run 6's capture of a real H100 80GB HBM3
/// (`tests/real/runs/h100-run6/capture.yaml`) less what describes the machine it ran on rather
/// than an H100 of an HGX server: the keys its header lists, each with why.
#[test]
fn the_h100_base_is_the_real_h100s_capture_less_its_machine() {
    use serde_yaml::Value;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read =
        |path: &str| -> Value { serde_yaml::from_str(&std::fs::read_to_string(root.join(path)).unwrap()).unwrap() };
    let capture = read("tests/real/runs/h100-run6/capture.yaml");
    let base = read("profiles/base/h100-80gb-hbm3.yaml");
    let Value::Sequence(devices) = &capture["devices"] else { panic!("the capture has no devices") };
    assert_eq!(devices.len(), 1, "the capture is of one GPU");
    let mut device = devices[0].clone();
    let machine = [
        "uuid",
        "serial",
        "board_id",
        "nvmlDeviceGetMinorNumber",
        "nvmlDeviceGetModuleId",
        "nvmlDeviceGetPdi",
        "nvmlDeviceGetPlatformInfo",
        "nvmlDeviceGetIrqNum",
        "nvmlDeviceGetPciInfo",
        "nvmlDeviceGetPciInfo_v2",
        "nvmlDeviceGetPciInfo_v3",
        "cpu_affinity",
        "memory_affinity",
        "nvmlDeviceGetTopologyCommonAncestor",
        "nvmlDeviceGetNvLinkCapability",
        "nvmlDeviceGetNvLinkErrorCounter",
        "nvmlDeviceGetNvLinkInfo",
        "nvmlDeviceGetNvLinkRemoteDeviceType",
        "nvmlDeviceGetNvLinkUtilizationControl",
        "nvmlDeviceGetNvLinkUtilizationCounter",
        "nvmlDeviceGetNvlinkBwMode",
        "nvmlDeviceGetNvlinkSupportedBwModes",
        "nvmlDeviceGetGpuFabricInfo",
        "nvmlDeviceGetGpuFabricInfoV",
        "nvmlDeviceGetVirtualizationMode",
        "processes",
    ];
    let map = device.as_mapping_mut().unwrap();
    for key in machine {
        assert!(map.remove(key).is_some(), "the capture records `{key}`");
    }
    for (section, keys) in [("pci", &["bus", "device", "domain"][..]), ("mig", &["mode", "pending", "max_devices"])] {
        let inner = map.get_mut(section).and_then(Value::as_mapping_mut).unwrap();
        for key in keys {
            assert!(inner.remove(*key).is_some(), "the capture records `{section}.{key}`");
        }
    }
    // The NVSwitch-connected link count and the NVLink PLR counters (none in the VM).
    let fields = map.get_mut("recorded_fields").and_then(Value::as_mapping_mut).unwrap();
    for id in [147u64, 294, 295] {
        assert!(fields.remove(Value::from(id)).is_some(), "the capture records field {id}");
    }
    let Value::Mapping(base) = &base else { panic!("the base is not a mapping") };
    let keys: Vec<&str> = base.keys().filter_map(Value::as_str).collect();
    assert_eq!(keys, ["system", "device_defaults"], "the base holds the capture's system and its device");
    assert_eq!(base["system"], capture["system"], "system");
    assert_eq!(base["device_defaults"], device, "device_defaults");
}
