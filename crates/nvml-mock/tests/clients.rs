//! Real NVML clients against the mock, every built-in profile: NVIDIA's Python binding
//! (nvidia-ml-py) calling every query it wraps, gpustat and nvitop showing the profile's GPUs
//! (through what `cargo xtask mock-lib` writes for the profile's driver), a C client and
//! the binding looking up symbols in `mock-lib`'s libraries of old and new drivers, and a C
//! client of `nvidia-smi`'s export table.
//!
//! Each client is skipped with a message when it is not installed, unless
//! `NVML_MOCK_REQUIRE_PYNVML` (the binding) or `NVML_MOCK_REQUIRE_CLIENTS` (gpustat, nvitop) is
//! set, as CI does.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use nvml_mock::testing::{
    documented_functions, documented_subjects, mock_lib_dir, mock_path, profile_devices, CLEARED_ENV,
};

const PROFILES: &[&str] = &[
    "a100",
    "a100-r525",
    "b200",
    "b200-r575",
    "b200-r580.65",
    "gb200",
    "h100",
    "h100-r560",
    "l40s",
    "l40s-vgpu",
    "t4",
];

/// A directory where the mock is called `libnvidia-ml.so.1` and `libnvidia-ml.so`.
fn mock_dir() -> PathBuf {
    mock_lib_dir(std::path::Path::new(env!("CARGO_TARGET_TMPDIR")))
}

/// `python3`, with none of the caller's mock settings ([`CLEARED_ENV`]).
fn python3() -> Command {
    let mut cmd = Command::new("python3");
    for var in CLEARED_ENV {
        cmd.env_remove(var);
    }
    cmd
}

// Whether Python can import a module; if not, the test is skipped unless the variable is set.
use nvml_mock::testing::have_python_module as have;

/// Every query of nvidia-ml-py against every profile: each function that answers
/// NOT_SUPPORTED (on a GPU, the system, a GPU instance or a vGPU object) is one the profile
/// documents answering so (crates/nvml-mock/README.md), none that the profile documents so
/// for a GPU or the system succeeds there, and the binding never crashes.
#[test]
fn python_binding_census_finds_only_documented_not_supported() {
    if !have("pynvml", "NVML_MOCK_REQUIRE_PYNVML", "pip install nvidia-ml-py") {
        return;
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/pynvml_census.py");
    let header = concat!(env!("CARGO_MANIFEST_DIR"), "/../../nvml-headers/13.5.37/nvml.h");
    let out = python3()
        .args([script, "--json", "--header", header])
        .args(PROFILES)
        .env("LD_LIBRARY_PATH", mock_dir())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let census: BTreeMap<String, BTreeMap<String, BTreeMap<String, String>>> =
        parse_json(&String::from_utf8_lossy(&out.stdout));
    let mut problems = Vec::new();
    for (profile, functions) in &census {
        let documented = documented_functions(profile, "NOT_SUPPORTED").unwrap();
        let subjects = documented_subjects(profile, "NOT_SUPPORTED").unwrap();
        for (function, outcomes) in functions {
            for (subject, outcome) in outcomes {
                // `CODE@symbol`: the answer, and the C function that gave it.
                let (code, symbol) = outcome.split_once('@').unwrap_or((outcome, function));
                if code.starts_with("crash") {
                    problems.push(format!("{profile}: {function} on {subject} crashed the binding"));
                }
                if code == "SUCCESS" && subjects.get(symbol).is_some_and(|s| s.contains(subject)) {
                    problems.push(format!(
                        "{profile}: {symbol} ({function}) on {subject} succeeds, documented NOT_SUPPORTED"
                    ));
                }
                // MIG devices answer NOT_SUPPORTED for what the mock answers per GPU only.
                if code == "NVML_ERROR_NOT_SUPPORTED" && !subject.contains("/mig") && !documented.contains(symbol) {
                    problems.push(format!(
                        "{profile}: {symbol} ({function}) on {subject} answers NOT_SUPPORTED, undocumented"
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
}

/// The census's JSON: `{profile: {function: {subject: outcome}}}` (strings only).
fn parse_json(text: &str) -> BTreeMap<String, BTreeMap<String, BTreeMap<String, String>>> {
    // A minimal reader for the three levels of string maps the census prints.
    let mut chars = text.trim().chars().peekable();
    fn string(c: &mut std::iter::Peekable<std::str::Chars>) -> String {
        while c.peek().is_some_and(|x| *x != '"') {
            c.next();
        }
        c.next();
        let mut s = String::new();
        while let Some(x) = c.next() {
            match x {
                '\\' => {
                    if let Some(y) = c.next() {
                        s.push(y);
                    }
                }
                '"' => break,
                _ => s.push(x),
            }
        }
        s
    }
    fn map<T>(
        c: &mut std::iter::Peekable<std::str::Chars>,
        value: impl Fn(&mut std::iter::Peekable<std::str::Chars>) -> T,
    ) -> BTreeMap<String, T> {
        let mut out = BTreeMap::new();
        while c.peek().is_some_and(|x| *x != '{') {
            c.next();
        }
        c.next();
        loop {
            while c.peek().is_some_and(|x| x.is_whitespace() || *x == ',') {
                c.next();
            }
            match c.peek() {
                Some('}') | None => {
                    c.next();
                    return out;
                }
                _ => {}
            }
            let k = string(c);
            while c.peek().is_some_and(|x| *x != ':') {
                c.next();
            }
            c.next();
            out.insert(k, value(c));
        }
    }
    map(&mut chars, |c| map(c, |c| map(c, string)))
}

/// A profile's devices, by dotted key.
type Devices = Vec<BTreeMap<String, serde_yaml::Value>>;

fn u(d: &BTreeMap<String, serde_yaml::Value>, key: &str) -> u64 {
    d.get(key).and_then(serde_yaml::Value::as_u64).unwrap_or_else(|| panic!("the profile has no `{key}`"))
}

/// A device's processes (compute, then graphics): `(sm_util, used_memory)` each.
fn processes(d: &BTreeMap<String, serde_yaml::Value>) -> Vec<(u64, u64)> {
    let list = |k: &str| d.get(k).and_then(serde_yaml::Value::as_sequence).cloned().unwrap_or_default();
    let field = |p: &serde_yaml::Value, k: &str| p.get(k).and_then(serde_yaml::Value::as_u64).unwrap_or(0);
    list("processes.compute")
        .iter()
        .chain(list("processes.graphics").iter())
        .map(|p| (field(p, "sm_util"), field(p, "used_memory")))
        .collect()
}

/// How many MIG devices (compute instances) a GPU in MIG mode has.
fn mig_devices(d: &BTreeMap<String, serde_yaml::Value>) -> usize {
    if d.get("mig.mode").and_then(serde_yaml::Value::as_bool) != Some(true) {
        return 0;
    }
    let gis = d.get("mig.gpu_instances").and_then(serde_yaml::Value::as_sequence).cloned().unwrap_or_default();
    gis.iter().map(|g| g.get("compute_instances").and_then(serde_yaml::Value::as_sequence).map_or(0, |c| c.len())).sum()
}

/// The directory `cargo xtask mock-lib --driver DRIVER --out DIR` writes: the program it runs,
/// `nvml-mock lib`, with the mock built for these tests. Its `libnvidia-ml.so.1` exports only
/// the functions of that driver, each forwarded to the copy of the mock beside it.
fn mock_lib(driver: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("mock-lib-{driver}"));
    let out = Command::new(env!("CARGO_BIN_EXE_nvml-mock"))
        .args(["lib", "--driver", driver, "--out"])
        .arg(&dir)
        .arg("--mock")
        .arg(mock_path())
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "nvml-mock lib --driver {driver}:\n{text}");
    dir
}

/// [`mock_lib`] for the driver of `profile`: clients that look a symbol up first see what they
/// would see on that driver.
fn driver_dir(profile: &str) -> PathBuf {
    let driver = nvml_mock::testing::profile_driver(profile).unwrap();
    mock_lib(&driver.unwrap_or_else(|| panic!("profile {profile} names no driver")))
}

/// Runs a Python program against the mock with `profile` (through `mock-lib`'s library of its
/// driver: only its driver's symbols exported), the profile's processes on live pids.
fn python(args: &[&str], profile: &str) -> String {
    let out = python3()
        .args(args)
        .env("LD_LIBRARY_PATH", driver_dir(profile))
        .env("NVML_MOCK_PROFILE", profile)
        .env("NVML_MOCK_LIVE_PIDS", "1")
        .env("COLUMNS", "200")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{args:?} with {profile} failed:\n{stdout}{}", String::from_utf8_lossy(&out.stderr));
    stdout
}

/// gpustat (`gpustat --json`) shows every GPU of every profile with the profile's name,
/// temperature, power, memory and utilisation (none for a GPU in MIG mode), and the
/// processes of each GPU with their memory.
#[test]
fn gpustat_shows_the_profiles() {
    if !have("gpustat", "NVML_MOCK_REQUIRE_CLIENTS", "pip install gpustat") {
        return;
    }
    let script = "import sys, gpustat.cli; sys.argv = ['gpustat', '--json']; gpustat.cli.main()";
    for profile in PROFILES {
        let devices: Devices = nvml_mock::testing::profile_devices(profile).unwrap();
        let json: serde_yaml::Value = serde_yaml::from_str(&python(&["-c", script], profile)).unwrap();
        let gpus = json["gpus"].as_sequence().unwrap_or_else(|| panic!("{profile}: no gpus in {json:?}"));
        assert_eq!(gpus.len(), devices.len(), "{profile}");
        for (g, d) in gpus.iter().zip(&devices) {
            let at = format!("{profile} GPU {}", g["index"].as_u64().unwrap());
            assert_eq!(g["name"].as_str(), d.get("name").and_then(|v| v.as_str()), "{at}");
            assert_eq!(g["uuid"].as_str(), d.get("uuid").and_then(|v| v.as_str()), "{at}");
            assert_eq!(g["temperature.gpu"].as_u64(), Some(u(d, "temperature.gpu")), "{at}");
            assert_eq!(g["power.draw"].as_u64(), Some(u(d, "power.usage_mw") / 1000), "{at}");
            assert_eq!(g["enforced.power.limit"].as_u64(), Some(u(d, "power.enforced_limit_mw") / 1000), "{at}");
            assert_eq!(g["memory.total"].as_u64(), Some(u(d, "memory.total") >> 20), "{at}");
            assert_eq!(g["memory.used"].as_u64(), Some(u(d, "memory.used") >> 20), "{at}");
            // A GPU in MIG mode has no GPU-wide utilisation: N/A, as on a real one.
            let mig = mig_devices(d) > 0;
            assert_eq!(g["utilization.gpu"].as_u64(), (!mig).then(|| u(d, "utilization.gpu")), "{at}");
            assert_eq!(g["utilization.enc"].as_u64(), (!mig).then(|| u(d, "encoder.utilization")), "{at}");
            let shown: Vec<u64> =
                g["processes"].as_sequence().unwrap().iter().map(|p| p["gpu_memory_usage"].as_u64().unwrap()).collect();
            let want: Vec<u64> = processes(d).iter().map(|(_, mem)| mem >> 20).collect();
            assert_eq!(shown, want, "{at}: the processes gpustat shows (live pids) and their memory");
        }
    }
}

/// nvitop's API: every GPU with the profile's values, the MIG devices of a GPU in MIG mode,
/// and each process's SM utilisation; nvitop's one-shot table shows them too.
#[test]
fn nvitop_shows_the_profiles() {
    if !have("nvitop", "NVML_MOCK_REQUIRE_CLIENTS", "pip install nvitop") {
        return;
    }
    let script = r#"
import json
from nvitop import Device
out = []
for d in Device.all():
    out.append({
        "name": d.name(), "temperature": d.temperature(), "power": d.power_usage(), "limit": d.power_limit(),
        "util": d.gpu_utilization(), "total": d.memory_total(), "used": d.memory_used(),
        "sm_clock": d.sm_clock(), "max_sm_clock": d.max_sm_clock(), "mem_clock": d.memory_clock(),
        "mig": [[m.name(), m.memory_total(), m.gpu_instance_id(), m.compute_instance_id()] for m in d.mig_devices()],
        "processes": sorted([p.gpu_sm_utilization(), p.gpu_memory()] for p in d.processes().values()),
    })
print(json.dumps(out, default=str))
"#;
    for profile in PROFILES {
        let devices: Devices = nvml_mock::testing::profile_devices(profile).unwrap();
        let json: serde_yaml::Value = serde_yaml::from_str(&python(&["-c", script], profile)).unwrap();
        let gpus = json.as_sequence().unwrap();
        assert_eq!(gpus.len(), devices.len(), "{profile}");
        for (i, (g, d)) in gpus.iter().zip(&devices).enumerate() {
            let at = format!("{profile} GPU {i}");
            assert_eq!(g["name"].as_str(), d.get("name").and_then(|v| v.as_str()), "{at}");
            // nvitop reads the temperature through nvmlDeviceGetTemperatureV where the library
            // exports it (R570 and newer), through nvmlDeviceGetTemperature on older drivers.
            assert_eq!(g["temperature"].as_u64(), Some(u(d, "temperature.gpu")), "{at}");
            assert_eq!(g["power"].as_u64(), Some(u(d, "power.usage_mw")), "{at}");
            assert_eq!(g["limit"].as_u64(), Some(u(d, "power.limit_mw")), "{at}");
            assert_eq!(
                (g["total"].as_u64(), g["used"].as_u64()),
                (Some(u(d, "memory.total")), Some(u(d, "memory.used"))),
                "{at}"
            );
            assert_eq!(g["sm_clock"].as_u64(), Some(u(d, "clocks.sm")), "{at}");
            assert_eq!(g["max_sm_clock"].as_u64(), Some(u(d, "max_clocks.sm")), "{at}");
            assert_eq!(g["mem_clock"].as_u64(), Some(u(d, "clocks.memory")), "{at}");
            let mig = g["mig"].as_sequence().unwrap();
            assert_eq!(mig.len(), mig_devices(d), "{at}: its MIG devices");
            if mig.is_empty() {
                assert_eq!(g["util"].as_u64(), Some(u(d, "utilization.gpu")), "{at}");
            } else {
                assert_eq!(g["util"].as_str(), Some("N/A"), "{at}: utilization of a GPU in MIG mode");
                for m in mig {
                    assert!(m[0].as_str().is_some_and(|n| n.contains(" MIG ")), "{at}: {m:?}");
                    assert!(m[1].as_u64().is_some_and(|t| t > 0), "{at}: {m:?}");
                }
            }
            let mut want: Vec<(u64, u64)> = processes(d);
            want.sort_unstable();
            let shown: Vec<(u64, u64)> = g["processes"]
                .as_sequence()
                .unwrap()
                .iter()
                .map(|p| (p[0].as_u64().unwrap(), p[1].as_u64().unwrap()))
                .collect();
            assert_eq!(shown, want, "{at}: each process's SM % and memory");
        }
    }
    // The one-shot table: the MIG devices of the H100's GPU 7 and the processes' SM %.
    let text = python(
        &["-c", "import sys; from nvitop.cli import main; sys.argv = ['nvitop', '--once']; sys.exit(main())"],
        "h100",
    );
    for want in ["3g.40gb @ GI/CI: 1/0", "1c.3g.40gb @ GI/CI: 2/1", "%SM", " 38 ", " 21 "] {
        assert!(text.contains(want), "nvitop --once shows no `{want}`:\n{text}");
    }
}

/// Processes on MIG devices (a variant of `h100`: a 2 GiB one in GPU instance 1, a 1 GiB one
/// in compute instance 1 of GPU instance 2): nvitop shows each under its MIG device, with its
/// GPU instance's memory, and gpustat lists both under their GPU.
#[test]
fn clients_show_processes_on_mig_devices() {
    if !have("nvitop", "NVML_MOCK_REQUIRE_CLIENTS", "pip install nvitop")
        || !have("gpustat", "NVML_MOCK_REQUIRE_CLIENTS", "pip install gpustat")
    {
        return;
    }
    let (gib, mib) = (1u64 << 30, 1u64 << 20);
    let procs = format!(
        "memory: {{used: {}}}, processes: {{compute: [{{pid: 5100, used_memory: {}, name: vllm, gpu_instance_id: 1, compute_instance_id: 0}}, {{pid: 5200, used_memory: {gib}, name: jupyter, gpu_instance_id: 2, compute_instance_id: 1}}], graphics: []}}, mig:",
        3 * gib + 2 * mib,
        2 * gib
    );
    let text = nvml_mock::testing::builtin_profile("h100")
        .unwrap()
        .replace("pci: {bus: 0xDB}, mig:", &format!("pci: {{bus: 0xDB}}, {procs}"));
    assert!(text.contains("pid: 5100"), "h100's GPU 7 is no longer where this test expects it");
    let profile = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("h100-mig-processes.yaml");
    std::fs::write(&profile, text).unwrap();
    let profile = profile.to_str().unwrap();
    let script = r#"
import json
from nvitop import Device
d = Device(7)
print(json.dumps({"used": d.memory_used(), "processes": sorted(p.gpu_memory() for p in d.processes().values()),
    "mig": [[m.gpu_instance_id(), m.compute_instance_id(), m.memory_used(), [p.gpu_memory() for p in m.processes().values()]] for m in d.mig_devices()]}))
"#;
    let json: serde_yaml::Value = serde_yaml::from_str(&python(&["-c", script], profile)).unwrap();
    assert_eq!(json["used"].as_u64(), Some(3 * gib + 2 * mib));
    assert_eq!(json["processes"], serde_yaml::to_value([gib, 2 * gib]).unwrap());
    // GPU instance 1 (one compute instance), then GPU instance 2's two, which share its memory.
    let mig =
        serde_yaml::to_value([(1, 0, 2 * gib, vec![2 * gib]), (2, 0, gib, vec![]), (2, 1, gib, vec![gib])]).unwrap();
    assert_eq!(json["mig"], mig);
    let gpustat = "import sys, gpustat.cli; sys.argv = ['gpustat', '--json']; gpustat.cli.main()";
    let json: serde_yaml::Value = serde_yaml::from_str(&python(&["-c", gpustat], profile)).unwrap();
    let shown: Vec<u64> = json["gpus"][7]["processes"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|p| p["gpu_memory_usage"].as_u64().unwrap())
        .collect();
    assert_eq!(shown, [2048, 1024]);
}

/// The C client `tests/c/<name>.c`, compiled with `flags`.
fn compile(name: &str, flags: &[String]) -> PathBuf {
    let exe = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    let status = Command::new("cc")
        .arg(format!("{}/tests/c/{name}.c", env!("CARGO_MANIFEST_DIR")))
        .args(flags)
        .args(["-Wall", "-Werror", "-o"])
        .arg(&exe)
        .arg("-ldl")
        .status()
        .expect("needs a C compiler (`cc`)");
    assert!(status.success(), "the C client {name}.c does not compile");
    exe
}

/// The C client `tests/c/driver_symbols.c`, compiled once per test binary.
fn symbols_client() -> PathBuf {
    static CLIENT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    CLIENT.get_or_init(|| compile("driver_symbols", &[])).clone()
}

/// Runs the C client with the library in `dir`, `profile` and the symbols `names`: its stdout
/// and stderr.
fn c_client(dir: &std::path::Path, profile: &str, names: &[&str]) -> (String, String) {
    let mut cmd = Command::new(symbols_client());
    for var in CLEARED_ENV {
        cmd.env_remove(var);
    }
    let out = cmd.args(names).env("LD_LIBRARY_PATH", dir).env("NVML_MOCK_PROFILE", profile).output().unwrap();
    let (stdout, stderr) =
        (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned());
    assert!(out.status.success(), "the C client failed:\n{stdout}{stderr}");
    (stdout, stderr)
}

/// What the C client printed of each symbol: whether `dlsym` found it.
fn symbols_seen(stdout: &str) -> BTreeMap<String, bool> {
    stdout
        .lines()
        .filter_map(|l| l.split_once(' '))
        .filter(|(_, state)| ["present", "absent"].contains(state))
        .map(|(n, state)| (n.to_string(), state == "present"))
        .collect()
}

/// Symbols, and whether driver 525.147.05 and 580.82.07 have each: nvmlDeviceGetTemperatureV
/// is new in CUDA 12.8 (R570), nvmlDeviceGetModuleId in 12.2 (R535), nvmlSystemGetDriverBranch
/// in 12.6 (R560), nvmlDeviceGetAccountingStats_v2 in 13.3 (after R580).
const SYMBOLS: &[(&str, bool, bool)] = &[
    ("nvmlInit_v2", true, true),
    ("nvmlDeviceGetTemperature", true, true),
    ("nvmlDeviceGetTemperatureV", false, true),
    ("nvmlDeviceGetModuleId", false, true),
    ("nvmlSystemGetDriverBranch", false, true),
    ("nvmlDeviceGetAccountingStats_v2", false, false),
];

/// What `mock-lib` writes for an old driver lacks the newer symbols at `dlsym`, for a C client
/// and for NVIDIA's Python binding (`hasattr(pynvml.nvmlLib, ...)`, and `ctypes.CDLL`'s
/// attributes), and has them for a new one; each library answers its driver.
#[test]
fn mock_lib_exports_only_the_drivers_symbols() {
    let names: Vec<&str> = SYMBOLS.iter().map(|(n, _, _)| *n).collect();
    for (driver, profile) in [("525.147.05", "a100-r525"), ("580.82.07", "a100")] {
        let dir = mock_lib(driver);
        let want = |(n, old, new): &(&str, bool, bool)| {
            let has = if driver.starts_with("525") { *old } else { *new };
            (n.to_string(), has)
        };
        let expected: BTreeMap<String, bool> = SYMBOLS.iter().map(want).collect();
        let (stdout, stderr) = c_client(&dir, profile, &names);
        let seen = symbols_seen(&stdout);
        assert_eq!(seen, expected, "dlsym in the library of driver {driver}:\n{stdout}{stderr}");
        assert!(
            stdout.contains("nvmlInit_v2 0\n") && stdout.contains(&format!("driver {driver}\n")),
            "{stdout}{stderr}"
        );

        if !have("pynvml", "NVML_MOCK_REQUIRE_PYNVML", "pip install nvidia-ml-py") {
            continue;
        }
        let script = r#"
import ctypes, json, sys, pynvml
pynvml.nvmlInit()
lib = ctypes.CDLL(sys.argv[1])
print(json.dumps({"driver": pynvml.nvmlSystemGetDriverVersion(),
    "symbols": {n: [hasattr(pynvml.nvmlLib, n), hasattr(lib, n)] for n in sys.argv[2:]}}))
"#;
        let lib = dir.join("libnvidia-ml.so.1");
        let out = python3()
            .args(["-c", script, lib.to_str().unwrap()])
            .args(&names)
            .env("LD_LIBRARY_PATH", &dir)
            .env("NVML_MOCK_PROFILE", profile)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
        let json: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
        assert_eq!(json["driver"].as_str(), Some(driver), "{text}");
        for (name, has) in &expected {
            let seen = &json["symbols"][name.as_str()];
            assert_eq!(
                (seen[0].as_bool(), seen[1].as_bool()),
                (Some(*has), Some(*has)),
                "pynvml, driver {driver}: {name}"
            );
        }
    }
}

/// A library of one driver refuses a profile of another driver at `nvmlInit`, as a real driver
/// whose library and kernel module differ does (NVML_ERROR_LIB_RM_VERSION_MISMATCH, 18), with a
/// message that says which and what to do; a profile without a driver takes the library's; the
/// directory can be moved; without the mock beside it, every function answers
/// NVML_ERROR_LIBRARY_NOT_FOUND (12), and the host lives.
#[test]
fn mock_lib_refuses_a_profile_of_another_driver() {
    let dir = mock_lib("525.147.05");
    let (stdout, stderr) = c_client(&dir, "h100", &[]);
    assert!(stdout.contains("nvmlInit_v2 18\n"), "{stdout}{stderr}");
    for want in [
        "this libnvidia-ml.so.1 emulates driver 525.147.05 (built by `cargo xtask mock-lib --driver 525.147.05`)",
        "but profile `h100` runs driver 580.159.04: nvmlInit answers NVML_ERROR_LIB_RM_VERSION_MISMATCH",
        "`cargo xtask mock-lib --driver 580.159.04 --out DIR`",
    ] {
        assert!(stderr.contains(want), "the message lacks `{want}`:\n{stderr}");
    }

    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("mock-lib-moved-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    let profile = tmp.join("no-driver.yaml");
    std::fs::write(&profile, "devices: [{name: A GPU}]\n").unwrap();
    let (stdout, stderr) = c_client(&dir, profile.to_str().unwrap(), &[]);
    assert!(stdout.contains("nvmlInit_v2 0\ndriver 525.147.05\n"), "{stdout}{stderr}");

    // Moved: the library finds the mock beside it, wherever that is.
    let moved = tmp.join("moved");
    std::fs::create_dir_all(&moved).unwrap();
    for file in ["libnvidia-ml.so.1", "libnvml_mock.so"] {
        std::fs::copy(dir.join(file), moved.join(file)).unwrap();
    }
    let (stdout, stderr) = c_client(&moved, "a100-r525", &["nvmlDeviceGetTemperatureV"]);
    assert!(
        stdout.contains("nvmlDeviceGetTemperatureV absent\nnvmlInit_v2 0\ndriver 525.147.05\n"),
        "{stdout}{stderr}"
    );

    std::fs::remove_file(moved.join("libnvml_mock.so")).unwrap();
    let (stdout, stderr) = c_client(&moved, "a100-r525", &[]);
    assert!(stdout.contains("nvmlInit_v2 12\n"), "{stdout}{stderr}");
    assert!(stderr.contains("nvml-mock: cannot load libnvml_mock.so beside this libnvidia-ml.so.1"), "{stderr}");
    let _ = std::fs::remove_dir_all(&tmp);
}

/// A scratch directory of its own for a test, emptied first.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A library of one driver reached through a link in another directory (the usual way to
/// install it: a link in the system's library directory) loads the mock beside the file the
/// link leads to, through a link to it and through a relative link to that link.
#[test]
fn mock_lib_works_through_a_link_in_another_directory() {
    let dir = mock_lib("525.147.05");
    let tmp = scratch("mock-lib-linked");
    let (linked, relinked) = (tmp.join("linked"), tmp.join("relinked"));
    std::fs::create_dir_all(&linked).unwrap();
    std::fs::create_dir_all(&relinked).unwrap();
    std::os::unix::fs::symlink(dir.join("libnvidia-ml.so.1"), linked.join("libnvidia-ml.so.1")).unwrap();
    std::os::unix::fs::symlink("../linked/libnvidia-ml.so.1", relinked.join("libnvidia-ml.so.1")).unwrap();
    for d in [&linked, &relinked] {
        let (stdout, stderr) = c_client(d, "a100-r525", &["nvmlDeviceGetTemperatureV", "nvmlDeviceGetTemperature"]);
        assert_eq!(
            stdout,
            "nvmlDeviceGetTemperatureV absent\nnvmlDeviceGetTemperature present\nnvmlInit_v2 0\ndriver 525.147.05\n",
            "through {}:\n{stderr}",
            d.display()
        );
        assert!(!stderr.contains("nvml-mock"), "{stderr}");
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

/// A profile's `missing_functions` are not exported by the library `nvml-mock lib --profile`
/// writes for it: a client that looks a symbol up first (`dlsym`) does not find them, as on a
/// driver whose library lacks them, while the other functions of its driver are there.
#[test]
fn mock_lib_of_a_profile_leaves_out_its_missing_functions() {
    let tmp = scratch("mock-lib-missing");
    let profile = tmp.join("a100-missing.yaml");
    std::fs::write(
        &profile,
        "name: a100-missing\nbase: [a100]\nmissing_functions: [nvmlDeviceGetTemperatureV, nvmlDeviceGetModuleId]\n",
    )
    .unwrap();
    let dir = tmp.join("lib");
    let out = Command::new(env!("CARGO_BIN_EXE_nvml-mock"))
        .args(["lib", "--profile"])
        .arg(&profile)
        .arg("--out")
        .arg(&dir)
        .arg("--mock")
        .arg(mock_path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let names =
        ["nvmlDeviceGetTemperatureV", "nvmlDeviceGetModuleId", "nvmlDeviceGetTemperature", "nvmlSystemGetDriverBranch"];
    let (stdout, stderr) = c_client(&dir, profile.to_str().unwrap(), &names);
    let seen = symbols_seen(&stdout);
    let want: BTreeMap<String, bool> = names.iter().enumerate().map(|(i, n)| (n.to_string(), i >= 2)).collect();
    assert_eq!(seen, want, "{stdout}{stderr}");
    assert!(stdout.contains("nvmlInit_v2 0\ndriver 580.82.07\n"), "{stdout}{stderr}");
    let _ = std::fs::remove_dir_all(&tmp);
}

/// `nvml-mock lib --driver 580.159.04` exports what NVIDIA's library of that driver exports
/// (`tests/data/exports-580.159.04.txt`, read on an H200): the 401 functions of the header it
/// exports, three of which the headers date after that driver, and no other function of the
/// header; and `nvmlInternalGetExportTable`. The driver's only symbols the library lacks are
/// `nvmlGetBlacklistDeviceCount` and `nvmlGetBlacklistDeviceInfoByIndex`, old names that
/// nvml.h defines as macros of `nvmlGetExcludedDevice*`, so no client of the header calls them.
#[test]
fn mock_lib_of_580_159_04_exports_what_that_driver_exports() {
    let real: BTreeSet<&str> =
        include_str!("data/exports-580.159.04.txt").lines().filter(|l| !l.is_empty() && !l.starts_with('#')).collect();
    let header: BTreeSet<&str> = nvml_sys::SYMBOLS.iter().copied().collect();
    let names: Vec<&str> = header.union(&real).copied().collect();
    let tmp = scratch("mock-lib-580.159.04");
    let profile = tmp.join("h100-580.159.04.yaml");
    std::fs::write(&profile, "name: h100-580.159.04\nbase: [h100]\nsystem: {driver_version: \"580.159.04\"}\n")
        .unwrap();
    let (stdout, stderr) = c_client(&mock_lib("580.159.04"), profile.to_str().unwrap(), &names);
    assert!(stdout.contains("nvmlInit_v2 0\ndriver 580.159.04\n"), "{stdout}{stderr}");
    let present: BTreeSet<&str> = symbols_seen(&stdout)
        .into_iter()
        .filter(|(_, p)| *p)
        .filter_map(|(n, _)| names.iter().copied().find(|m| *m == n))
        .collect();

    let want: BTreeSet<&str> = real.intersection(&header).copied().collect();
    assert_eq!(want.len(), 401, "the driver's functions of the header, nvmlErrorString included");
    let got: BTreeSet<&str> = present.intersection(&header).copied().collect();
    let lacking: Vec<&&str> = want.difference(&got).collect();
    let beyond: Vec<&&str> = got.difference(&want).collect();
    assert!(lacking.is_empty() && beyond.is_empty(), "lacks {lacking:?}; exports beyond the driver {beyond:?}");
    for f in ["nvmlDeviceGetRemappedRows_v2", "nvmlDeviceGetUnrepairableMemoryFlag_v1", "nvmlDeviceReadPRMCounters_v1"]
    {
        assert!(got.contains(f), "{f}");
    }
    let not_exported: Vec<&&str> = real.difference(&present).collect();
    assert_eq!(not_exported, [&"nvmlGetBlacklistDeviceCount", &"nvmlGetBlacklistDeviceInfoByIndex"]);
    assert!(present.contains("nvmlInternalGetExportTable"));
    let _ = std::fs::remove_dir_all(&tmp);
}

/// `NVML_ERROR_*` codes the slots answer.
const NOT_SUPPORTED: i64 = 3;
const INVALID_ARGUMENT: i64 = 2;
const NOT_FOUND: i64 = 6;
const INSUFFICIENT_SIZE: i64 = 7;

/// The C client of `nvidia-smi`'s export table, `tests/c/export_table.c`, compiled with the
/// newest vendored nvml.h (for its types).
fn export_table_client() -> PathBuf {
    let headers = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../nvml-headers");
    let newest = std::fs::read_dir(&headers)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("nvml.h").is_file())
        .max_by_key(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            name.split('.').map(|n| n.parse::<u32>().unwrap_or(0)).collect::<Vec<_>>()
        })
        .expect("a vendored nvml.h");
    compile("export_table", &[format!("-I{}", newest.display())])
}

/// What the client printed: its lines of words, by their first word.
struct Answers(Vec<Vec<String>>);

impl Answers {
    /// The lines that start with `key`, without it.
    fn all(&self, key: &str) -> Vec<&[String]> {
        self.0.iter().filter(|l| l[0] == key).map(|l| &l[1..]).collect()
    }

    /// The one line that starts with `key`, its words as integers.
    fn one(&self, key: &str) -> Vec<i64> {
        let lines = self.all(key);
        assert_eq!(lines.len(), 1, "one line `{key}`");
        lines[0].iter().map(|w| w.parse().unwrap()).collect()
    }
}

/// Runs the client with the `libnvidia-ml.so.1` of `lib` and `profile`.
fn run_export_table(exe: &Path, lib: &Path, profile: &str) -> Answers {
    let mut cmd = Command::new(exe);
    for var in CLEARED_ENV {
        cmd.env_remove(var);
    }
    let out = cmd.env("LD_LIBRARY_PATH", lib).env("NVML_MOCK_PROFILE", profile).output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(
        out.status.success() && !text.contains("FAIL"),
        "the export table of {profile} ({}):\n{text}",
        lib.display()
    );
    Answers(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| l.split(' ').map(str::to_string).collect::<Vec<_>>())
            .collect(),
    )
}

/// A device's processes of one kind (`compute`, `graphics`) in the profile: (pid, used memory,
/// name).
fn named_processes(d: &BTreeMap<String, serde_yaml::Value>, kind: &str) -> Vec<(u64, u64, String)> {
    let list =
        d.get(&format!("processes.{kind}")).and_then(serde_yaml::Value::as_sequence).cloned().unwrap_or_default();
    let number = |p: &serde_yaml::Value, k: &str| p.get(k).and_then(serde_yaml::Value::as_u64).unwrap();
    let name = |p: &serde_yaml::Value| p.get("name").and_then(serde_yaml::Value::as_str).unwrap().to_string();
    list.iter().map(|p| (number(p, "pid"), number(p, "used_memory"), name(p))).collect()
}

/// Checks what the client read against `base`, the built-in profile the run's profile is.
fn check_export_table(a: &Answers, base: &str, label: &str) {
    let devices = profile_devices(base).unwrap();
    let gpus = devices.len() as i64;
    // Another GUID has no table; nvidia-smi's is larger than the 648 bytes nvidia-smi requires.
    assert_eq!(a.one("wrong_guid"), [NOT_SUPPORTED], "{label}");
    assert!(a.one("size")[0] > 648, "{label}");
    assert_eq!(a.one("handle_out_of_range"), [INVALID_ARGUMENT], "{label}");

    // The process lists: the profile's processes, with their names.
    for (i, d) in devices.iter().enumerate() {
        for (slot, kind) in [(213, Some("compute")), (214, Some("graphics")), (215, None)] {
            let want = kind.map(|k| named_processes(d, k)).unwrap_or_default();
            let list: Vec<i64> = a
                .all("list")
                .into_iter()
                .find(|l| l[0] == i.to_string() && l[1] == slot.to_string())
                .unwrap_or_else(|| panic!("{label}: no list of GPU {i}, slot {slot}"))[2..]
                .iter()
                .map(|w| w.parse().unwrap())
                .collect();
            assert_eq!(list, [0, want.len() as i64], "{label}: GPU {i}, slot {slot}: code and count");
            let got: Vec<(u64, u64, String)> = a
                .all("process")
                .into_iter()
                .filter(|p| p[0] == i.to_string() && p[1] == slot.to_string())
                .map(|p| (p[2].parse().unwrap(), p[3].parse().unwrap(), p[6..].join(" ")))
                .collect();
            assert_eq!(got, want, "{label}: GPU {i}, slot {slot}");
            if slot == 213 && !want.is_empty() {
                let short = a.all("short").into_iter().find(|s| s[0] == i.to_string()).unwrap();
                assert_eq!(short[2..], [INSUFFICIENT_SIZE.to_string(), want.len().to_string()], "{label}: GPU {i}");
            }
        }
    }
    assert!(!a.all("process").is_empty(), "{label}: the profile has processes to list");

    // dmon and pmon can monitor the GPU.
    assert_eq!(a.one("monitorable"), [0, 1], "{label}");

    // topo -m: NVLinks (4 + their number) between GPUs that have them, else the PCIe path
    // through the host bridge (same NUMA node, 2) or the system (4).
    let paths = a.all("path");
    assert_eq!(paths.len() as i64, gpus * (gpus - 1), "{label}");
    for p in paths {
        let [i, j, code, path] = [0, 1, 2, 3].map(|k| p[k].parse::<usize>().unwrap());
        let links = |d: &BTreeMap<String, serde_yaml::Value>| {
            d.get("nvlink.links").and_then(serde_yaml::Value::as_u64).unwrap_or(0)
        };
        let nvlinks = links(&devices[i]).min(links(&devices[j]));
        let numa = |d: &BTreeMap<String, serde_yaml::Value>| d.get("numa_node").and_then(serde_yaml::Value::as_u64);
        let want = match nvlinks {
            0 if numa(&devices[i]).is_some() && numa(&devices[i]) == numa(&devices[j]) => 2,
            0 => 4,
            n => 4 + n as usize,
        };
        assert_eq!((code, path), (0, want), "{label}: path from GPU {i} to GPU {j}");
    }
    assert_eq!(a.one("path_unknown"), [NOT_FOUND], "{label}");

    // -q's GPU part number: the profile's, or NOT_SUPPORTED (N/A) without one.
    let part = &a.all("part_number")[0];
    match devices[0].get("gpu_part_number").and_then(serde_yaml::Value::as_str) {
        Some(n) => assert_eq!(part.join(" "), format!("0 {n}"), "{label}"),
        None => assert_eq!(part[0], NOT_SUPPORTED.to_string(), "{label}"),
    }
    // Any other slot called with a device and a count: the count is 0.
    assert_eq!(a.one("other_slot"), [232, 0, 0], "{label}");
}

/// The h100 profile (8 GPUs on NVLink, two processes on GPU 0, GPU 7 in MIG mode) through the
/// mock itself and through the library of driver 580.159.04 (the driver whose nvidia-smi the
/// slots were recorded with), and the l40s profile (PCIe only, two NUMA nodes).
#[test]
fn a_c_client_calls_the_export_table_as_nvidia_smi_does() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("export-table");
    std::fs::create_dir_all(&dir).unwrap();
    let exe = export_table_client();
    let plain = mock_lib_dir(&dir);
    for base in ["h100", "l40s"] {
        check_export_table(&run_export_table(&exe, &plain, base), base, &format!("{base}, the mock"));
    }

    let forwarder = dir.join("lib-580.159.04");
    let out = Command::new(env!("CARGO_BIN_EXE_nvml-mock"))
        .args(["lib", "--driver", "580.159.04", "--out"])
        .arg(&forwarder)
        .arg("--mock")
        .arg(mock_path())
        .output()
        .unwrap();
    assert!(out.status.success(), "nvml-mock lib: {}", String::from_utf8_lossy(&out.stderr));
    let profile = dir.join("h100-580.159.04.yaml");
    std::fs::write(&profile, "name: h100-580.159.04\nbase: [h100]\nsystem: {driver_version: \"580.159.04\"}\n")
        .unwrap();
    let a = run_export_table(&exe, &forwarder, profile.to_str().unwrap());
    check_export_table(&a, "h100", "h100 on driver 580.159.04, `nvml-mock lib --driver 580.159.04`");
}
