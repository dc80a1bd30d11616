//! The differential test against a real driver: pynvml and nvmlkit on the machine's own GPUs.
//!
//! `against_pynvml_on_real_driver` (`#[ignore]`; it runs only when asked for, and then only
//! with `NVML_DIFF_REAL_LIBRARY=/path/to/libnvidia-ml.so.1`) makes the comparison of
//! `against_pynvml` against that library, with these differences:
//!
//! - Getters only. `pynvml_dump.py --getters-only` leaves out every setter, the MIG lifecycle
//!   and the PRM register access, and refuses (before calling) any function whose name
//!   `changes_state` does not clear; the parent checks pynvml's calls with the same rule, and
//!   the child that replays them through nvmlkit refuses such a call too. Event sets and GPM
//!   samples are created, registered and freed: they belong to the calling process.
//! - pynvml runs twice, before and after nvmlkit's replay, so that a value is known to change
//!   when its two readings differ.
//! - A legacy member of a versioned family (`nvmlDeviceGetMemoryInfo` beside `_v2`) cannot be
//!   reached: nvmlkit calls it only where the driver lacks the newer member, and a real driver
//!   cannot be told to pretend. Those calls are counted as "legacy, not replayed".
//! - A difference is **live** (a reading that changed between the calls, not a misreading)
//!   when one of these holds, checked in this order and written into the report:
//!   1. the function and field are in [`LIVE`] (temperatures, power, energy, utilisation,
//!      current clocks and PCIe link state, fan speeds, memory in use, process lists, samples,
//!      events, counters of traffic, a field value's `value`), or the field is a timestamp
//!      ([`LIVE_FIELDS`]), whatever the function;
//!   2. pynvml's two runs differ at that place (the value moved while the test ran);
//!   3. nvmlkit's answer equals the second run's at that place (it moved between pynvml's
//!      first reading and nvmlkit's, and stayed).
//!
//!   Anything else is a **mismatch**, or a **known** one for a function of `KNOWN_MISMATCHES`.
//!   An error code against a value, or two error codes, is judged the same way for the whole
//!   answer (a process that exits between the calls).
//! - Nothing fails on a difference: the test writes a report and passes. It fails only when
//!   the setup breaks: pynvml's first run fails or changes state, the library does not
//!   initialise through nvmlkit, or no call gives a value both agree on.
//! - The child that replays the calls writes each answer as it goes: a crash or a hang (past
//!   `NVML_DIFF_TIMEOUT_S`, 300 by default) is reported on the call it stopped at, and a new
//!   child goes on after it (at most 5 times). Objects made by earlier calls (event sets, GPM
//!   samples) do not survive into the new child, so calls on them then differ.
//!
//! Files, in `NVML_DIFF_REPORT_DIR` (default `target/tmp/differential/real/`):
//! `pynvml.1.json` and `pynvml.2.json` (the dumps), `calls.json` (what nvmlkit replays),
//! `nvmlkit.N.jsonl` and `nvmlkit.N.log` (each child's answers and output), `report.json`
//! (counts, per-function counts and every difference with both answers), `report.txt` (the same
//! for reading) and `summary.txt`. `real_driver.sh` runs it from a prebuilt test binary where
//! there is no cargo (`NVML_DIFF_SCRIPT` then names `pynvml_dump.py`).

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value as J};

use super::{
    calls, changes_state, judge, norm_key, read_replayed, short, Call, Diff, Verdict, CALLS_ENV, CHILD_ENV,
    CLEARED_ENV, FUNCTION_NOT_FOUND, GETTERS_ONLY_ENV, KNOWN_MISMATCHES, LIBRARY_ENV, OUT_ENV,
};

/// The library under test (the driver's `libnvidia-ml.so.1`).
pub const REAL_LIBRARY_ENV: &str = "NVML_DIFF_REAL_LIBRARY";
/// Where the report goes.
pub const REPORT_DIR_ENV: &str = "NVML_DIFF_REPORT_DIR";
/// `pynvml_dump.py`, where the source tree is not where the test binary was built.
pub const SCRIPT_ENV: &str = "NVML_DIFF_SCRIPT";
/// The Python interpreter (default `python3`).
pub const PYTHON_ENV: &str = "NVML_DIFF_PYTHON";
/// Seconds each process (a pynvml run, an nvmlkit child) may take.
pub const TIMEOUT_ENV: &str = "NVML_DIFF_TIMEOUT_S";

/// Fields that are readings of a changing quantity in every function: timestamps.
pub const LIVE_FIELDS: &[&str] = &["timestamp", "lastseentimestamp", "latencyusec"];

/// An argument a call must have, by name and value.
pub type ArgIs = Option<(&'static str, u64)>;

/// Readings of a quantity that changes between two calls, by function: `["*"]` for the whole
/// answer (its error code included: a process list of a process that exits), otherwise the
/// fields (compared as keys are: lowercase, no underscores), with an argument the call must
/// have (`nvmlDeviceGetClock` is live for the current clock only).
#[rustfmt::skip]
pub const LIVE: &[(&str, &[&str], ArgIs)] = &[
    // Temperatures.
    ("nvmlDeviceGetTemperature", &["*"], None),
    ("nvmlDeviceGetTemperatureV", &["*"], None),
    ("nvmlDeviceGetMarginTemperature", &["*"], None),
    ("nvmlUnitGetTemperature", &["*"], None),
    ("nvmlDeviceGetThermalSettings", &["currenttemp"], None),
    // Power and energy.
    ("nvmlDeviceGetPowerUsage", &["*"], None),
    ("nvmlDeviceGetTotalEnergyConsumption", &["*"], None),
    ("nvmlDeviceGetPowerState", &["*"], None),
    ("nvmlDeviceGetPerformanceState", &["*"], None),
    // Utilisation.
    ("nvmlDeviceGetUtilizationRates", &["*"], None),
    ("nvmlDeviceGetEncoderUtilization", &["*"], None),
    ("nvmlDeviceGetDecoderUtilization", &["*"], None),
    ("nvmlDeviceGetJpgUtilization", &["*"], None),
    ("nvmlDeviceGetOfaUtilization", &["*"], None),
    ("nvmlDeviceGetDynamicPstatesInfo", &["*"], None),
    ("nvmlDeviceGetSamples", &["*"], None),
    ("nvmlDeviceGetProcessUtilization", &["*"], None),
    ("nvmlDeviceGetProcessesUtilizationInfo", &["*"], None),
    ("nvmlDeviceGetVgpuUtilization", &["*"], None),
    ("nvmlDeviceGetVgpuProcessUtilization", &["*"], None),
    ("nvmlDeviceGetVgpuInstancesUtilizationInfo", &["*"], None),
    ("nvmlDeviceGetVgpuProcessesUtilizationInfo", &["*"], None),
    ("nvmlDevicePerfMetricsGetSamples_v1", &["*"], None),
    ("nvmlGpmMetricsGet", &["value"], None),
    // Current clocks, and the PCIe link, which slows down when the GPU idles.
    ("nvmlDeviceGetClockInfo", &["*"], None),
    ("nvmlDeviceGetClock", &["*"], Some(("id", 0))),
    ("nvmlDeviceGetCurrentClockFreqs", &["*"], None),
    ("nvmlDeviceGetCurrentClocksEventReasons", &["*"], None),
    ("nvmlDeviceGetCurrentClocksThrottleReasons", &["*"], None),
    ("nvmlDeviceGetViolationStatus", &["*"], None),
    ("nvmlDeviceGetCurrPcieLinkGeneration", &["*"], None),
    ("nvmlDeviceGetCurrPcieLinkWidth", &["*"], None),
    ("nvmlDeviceGetPcieSpeed", &["*"], None),
    ("nvmlDeviceGetPcieThroughput", &["*"], None),
    // Fans.
    ("nvmlDeviceGetFanSpeed", &["*"], None),
    ("nvmlDeviceGetFanSpeed_v2", &["*"], None),
    ("nvmlDeviceGetFanSpeedRPM", &["*"], None),
    ("nvmlDeviceGetTargetFanSpeed", &["*"], None),
    // Memory in use (an NVML client's own context takes some).
    ("nvmlDeviceGetMemoryInfo_v2", &["free", "used"], None),
    ("nvmlDeviceGetMemoryInfo", &["free", "used"], None),
    ("nvmlDeviceGetBAR1MemoryInfo", &["bar1free", "bar1used"], None),
    ("nvmlDeviceGetConfComputeProtectedMemoryUsage", &["free", "used"], None),
    ("nvmlDeviceGetMemoryLimits_v1", &["currentused"], None),
    // Processes.
    ("nvmlDeviceGetComputeRunningProcesses_v3", &["*"], None),
    ("nvmlDeviceGetComputeRunningProcesses_v2", &["*"], None),
    ("nvmlDeviceGetGraphicsRunningProcesses_v3", &["*"], None),
    ("nvmlDeviceGetGraphicsRunningProcesses_v2", &["*"], None),
    ("nvmlDeviceGetMPSComputeRunningProcesses_v3", &["*"], None),
    ("nvmlDeviceGetMPSComputeRunningProcesses_v2", &["*"], None),
    ("nvmlDeviceGetRunningProcessDetailList", &["*"], None),
    ("nvmlDeviceGetAccountingPids", &["*"], None),
    ("nvmlDeviceGetAccountingStats", &["*"], None),
    ("nvmlDeviceGetAccountingStats_v2", &["*"], None),
    ("nvmlSystemGetProcessName", &["*"], None),
    // Sessions and traffic.
    ("nvmlDeviceGetEncoderStats", &["*"], None),
    ("nvmlDeviceGetEncoderSessions", &["*"], None),
    ("nvmlDeviceGetFBCStats", &["*"], None),
    ("nvmlDeviceGetFBCSessions", &["*"], None),
    ("nvmlDeviceGetNvLinkUtilizationCounter", &["*"], None),
    ("nvmlDeviceGetNvLinkTelemetrySamples_v1", &["samples"], None),
    ("nvmlDeviceReadPRMCounters_v1", &["outputvalue"], None),
    // Field values: the readings (their ids, types and return codes must agree).
    ("nvmlDeviceGetFieldValues", &["value"], None),
    // Events that arrive, and the black box's clock.
    ("nvmlEventSetWait_v2", &["*"], None),
    ("nvmlEventSetWait_v3", &["*"], None),
    ("nvmlSystemEventSetWait", &["*"], None),
    ("nvmlDeviceGetBBXTimeData_v1", &["*"], None),
    ("nvmlDeviceGetLastBBXFlushTime", &["*"], None),
];

/// How the run is set up.
pub struct Setup {
    pub library: PathBuf,
    pub report_dir: PathBuf,
    pub script: PathBuf,
    pub python: String,
    pub timeout: Duration,
    /// The test whose child replays the calls (it must call `replay` in a child).
    pub child_test: &'static str,
    /// More environment for pynvml's runs and the children (the mock's profile, in the test
    /// of this mode against the mock).
    pub env: Vec<(String, String)>,
}

impl Setup {
    /// From the environment: `None` (with a notice) without `NVML_DIFF_REAL_LIBRARY`.
    pub fn from_env(child_test: &'static str) -> Option<Setup> {
        let Some(library) = std::env::var_os(REAL_LIBRARY_ENV) else {
            eprintln!(
                "skipped: set {REAL_LIBRARY_ENV} to the driver's libnvidia-ml.so.1 (see differential/real_driver.sh)"
            );
            return None;
        };
        let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
        Some(Setup {
            library: PathBuf::from(library),
            report_dir: var(REPORT_DIR_ENV)
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("differential/real")),
            script: var(SCRIPT_ENV).map(PathBuf::from).unwrap_or_else(super::dump_script),
            python: var(PYTHON_ENV).and_then(|v| v.into_string().ok()).unwrap_or_else(|| "python3".into()),
            timeout: Duration::from_secs(var(TIMEOUT_ENV).and_then(|v| v.to_str()?.parse().ok()).unwrap_or(300)),
            child_test,
            env: Vec::new(),
        })
    }
}

/// What a run found (also in `report.json`).
#[derive(Default, Debug)]
pub struct Counts {
    pub calls: usize,
    pub replayed: usize,
    pub same_value: usize,
    pub same_error: usize,
    pub live: usize,
    pub known: usize,
    pub mismatch: usize,
    pub legacy: usize,
    pub fell_back: usize,
    pub refused: usize,
    pub crashed: usize,
    pub not_in_table: usize,
}

/// Waits for `child` at most `timeout`; kills it past that. `None`: it was killed.
fn wait_for(mut child: Child, timeout: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + timeout;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
}

fn tail(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let start = text.char_indices().rev().nth(3000).map_or(0, |(i, _)| i);
    text[start..].to_string()
}

/// One run of `pynvml_dump.py --getters-only`: its dump, or why there is none.
fn pynvml_run(s: &Setup, n: u32) -> Result<J, String> {
    let out = s.report_dir.join(format!("pynvml.{n}.json"));
    let err = s.report_dir.join(format!("pynvml.{n}.stderr"));
    let mut cmd = Command::new(&s.python);
    for var in CLEARED_ENV {
        cmd.env_remove(var);
    }
    cmd.arg(&s.script).arg(&s.library).arg("--getters-only").envs(s.env.iter().map(|(k, v)| (k, v)));
    let files = File::create(&out).and_then(|o| Ok((o, File::create(&err)?)));
    let (o, e) = files.map_err(|e| format!("{}: {e}", s.report_dir.display()))?;
    let child = cmd
        .stdout(Stdio::from(o))
        .stderr(Stdio::from(e))
        .spawn()
        .map_err(|e| format!("{} {} could not start: {e}", s.python, s.script.display()))?;
    match wait_for(child, s.timeout) {
        None => Err(format!("pynvml_dump.py ran past {:?}:\n{}", s.timeout, tail(&err))),
        Some(st) if !st.success() => Err(format!("pynvml_dump.py failed ({st}):\n{}", tail(&err))),
        Some(_) => {
            let text = std::fs::read_to_string(&out).map_err(|e| format!("{}: {e}", out.display()))?;
            serde_json::from_str(&text).map_err(|e| format!("pynvml_dump.py did not print JSON ({e}):\n{}", tail(&err)))
        }
    }
}

/// A call's key for finding it in the other run: function, object, arguments and how many
/// times the same call came before.
fn keys(calls: &[Call]) -> Vec<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    calls
        .iter()
        .map(|c| {
            let k = format!("{} {} {}", c.c, c.obj, c.args);
            let n = seen.entry(k.clone()).or_default();
            *n += 1;
            format!("{k} #{n}")
        })
        .collect()
}

/// Whether two difference paths overlap (one is the other or contains it).
fn overlaps(a: &str, b: &str) -> bool {
    let within = |x: &str, y: &str| x == y || (x.starts_with(y) && matches!(x.as_bytes()[y.len()], b'.' | b'['));
    within(a, b) || within(b, a)
}

/// The field a path ends in (`.sensor[0].currentTemp` → `currenttemp`), compared as keys are.
fn leaf(path: &str) -> String {
    let last = path.rsplit('.').next().unwrap_or("");
    norm_key(last.split('[').next().unwrap_or(""))
}

/// The differences between two answers, by path (the empty path for a difference of kind).
fn diff_paths(a: &J, b: &J) -> Vec<String> {
    if a == b {
        // `judge` counts a pynvml exception as a difference even against the same one.
        return Vec::new();
    }
    match judge(a, b) {
        Verdict::Differ(d) => d.into_iter().map(|d| d.path).collect(),
        _ => Vec::new(),
    }
}

/// Why a difference is live, or `None`: see the module's doc comment.
fn live_because(call: &Call, d: &Diff, nvmlkit: &J, again: Option<&J>) -> Option<String> {
    // An error against a value is never a reading that moved (it hid nvmlkit's answer to the
    // accounting PIDs' size probe on 580.159.04).
    let answered = |a: &J| a.get("ok").is_some();
    if answered(&call.answer) != answered(nvmlkit) {
        return None;
    }
    let field = leaf(&d.path);
    if LIVE_FIELDS.contains(&field.as_str()) {
        return Some(format!("a timestamp ({field})"));
    }
    for (c, fields, when) in LIVE {
        let applies = *c == call.c
            && match when {
                None => true,
                Some((arg, v)) => call.args.get(arg).and_then(J::as_u64) == Some(*v),
            };
        if applies && (fields.contains(&"*") || (!d.path.is_empty() && fields.contains(&field.as_str()))) {
            return Some(if fields.contains(&"*") {
                "a reading (the whole answer is)".to_string()
            } else {
                format!("a reading (field {field})")
            });
        }
    }
    let again = again?;
    if diff_paths(&call.answer, again).iter().any(|p| overlaps(p, &d.path)) {
        return Some("pynvml's two runs differ here".to_string());
    }
    if !diff_paths(again, nvmlkit).iter().any(|p| overlaps(p, &d.path)) {
        return Some("nvmlkit agrees with pynvml's second run here".to_string());
    }
    None
}

/// One difference as the report shows it.
fn diff_json(d: &Diff, live: &Option<String>) -> J {
    json!({ "path": d.path, "text": d.text, "live": live })
}

/// Runs the children over `calls` (with `seq`), restarting after a crash or a hang.
fn replay_all(s: &Setup, calls: &[J], crashes: &mut Vec<J>) -> BTreeMap<u64, J> {
    let mut answers = BTreeMap::new();
    let mut rest: Vec<J> = calls.to_vec();
    for n in 0.. {
        if rest.is_empty() {
            break;
        }
        let calls_file = s.report_dir.join(if n == 0 { "calls.json".to_string() } else { format!("calls.{n}.json") });
        let out_file = s.report_dir.join(format!("nvmlkit.{n}.jsonl"));
        let log = s.report_dir.join(format!("nvmlkit.{n}.log"));
        std::fs::write(&calls_file, serde_json::to_string(&rest).expect("JSON")).expect("write the calls");
        let exe = std::env::current_exe().expect("the path of the running test binary");
        let mut cmd = Command::new(exe);
        cmd.args([s.child_test, "--exact", "--include-ignored", "--nocapture", "--test-threads=1"]);
        for var in CLEARED_ENV {
            cmd.env_remove(var);
        }
        cmd.env(CHILD_ENV, "1")
            .env(CALLS_ENV, &calls_file)
            .env(OUT_ENV, &out_file)
            .env(LIBRARY_ENV, &s.library)
            .env(GETTERS_ONLY_ENV, "1")
            .envs(s.env.iter().map(|(k, v)| (k, v)));
        let log_file = File::create(&log).expect("the child's log");
        let child = cmd
            .stdout(Stdio::from(log_file.try_clone().expect("the child's log")))
            .stderr(Stdio::from(log_file))
            .spawn()
            .expect("the test binary starts as a child");
        let status = wait_for(child, s.timeout);
        let r = read_replayed(&out_file);
        match &r.init {
            Some(init) if init.get("ok").is_some() => {}
            other => panic!(
                "nvmlkit could not initialise {} ({}):\n{}",
                s.library.display(),
                other.as_ref().map_or("no answer".to_string(), |v| v.to_string()),
                tail(&log)
            ),
        }
        let done = r.done && status.is_some_and(|st| st.success());
        answers.extend(r.answers);
        if done {
            break;
        }
        // The first call without an answer is the one the child stopped at.
        let Some(at) = rest.iter().position(|c| c["seq"].as_u64().is_some_and(|q| !answers.contains_key(&q))) else {
            break;
        };
        let how = status.map_or_else(|| format!("hung (killed after {:?})", s.timeout), |st| format!("died ({st})"));
        let seq = rest[at]["seq"].as_u64().expect("seq");
        crashes.push(json!({ "seq": seq, "fn": rest[at]["fn"], "obj": rest[at]["obj"], "args": rest[at]["args"],
                             "how": how, "log": tail(&log) }));
        answers.insert(seq, json!({ "crash": how }));
        rest.drain(..=at);
        if n == 4 {
            for c in &rest {
                answers.insert(c["seq"].as_u64().expect("seq"), json!({ "crash": "not replayed: too many crashes" }));
            }
            break;
        }
    }
    answers
}

/// Per function: how its calls came out.
#[derive(Default)]
struct PerFn {
    calls: usize,
    same_value: usize,
    same_error: usize,
    live: usize,
    known: usize,
    mismatch: usize,
    other: usize,
}

/// The run: see the module's doc comment. Writes the report; panics only on a broken setup.
pub fn run(s: &Setup) -> Counts {
    std::fs::create_dir_all(&s.report_dir).unwrap_or_else(|e| panic!("{}: {e}", s.report_dir.display()));
    let first = pynvml_run(s, 1).unwrap_or_else(|e| panic!("pynvml's run against {}: {e}", s.library.display()));
    let version = first["pynvml"].as_str().unwrap_or("?").to_string();
    let py: Vec<Call> = first["calls"].as_array().expect("calls").iter().map(Call::from_json).collect();
    assert!(!py.is_empty(), "pynvml_dump.py made no call");
    let changed: BTreeSet<&str> = py.iter().map(|c| c.c.as_str()).filter(|c| changes_state(c)).collect();
    assert!(changed.is_empty(), "pynvml_dump.py --getters-only called functions that change state: {changed:?}");

    let mut counts = Counts { calls: py.len(), ..Counts::default() };
    let mut to_replay = Vec::new();
    let mut legacy: BTreeMap<&str, usize> = BTreeMap::new();
    let mut not_in_table: BTreeSet<&str> = BTreeSet::new();
    for (seq, call) in py.iter().enumerate() {
        match calls::TABLE.iter().find(|e| e.c == call.c) {
            None => {
                not_in_table.insert(&call.c);
            }
            Some(e) if !e.faults.is_empty() => *legacy.entry(e.c).or_default() += 1,
            Some(_) => to_replay.push(json!({"fn": call.c, "obj": call.obj, "args": call.args, "seq": seq})),
        }
    }
    counts.legacy = legacy.values().sum();
    counts.not_in_table = py.len() - counts.legacy - to_replay.len();
    let mut crashes = Vec::new();
    let rust = replay_all(s, &to_replay, &mut crashes);
    counts.crashed = crashes.len();

    let second = pynvml_run(s, 2);
    let again: BTreeMap<String, J> = match &second {
        Ok(d) => {
            let calls: Vec<Call> =
                d["calls"].as_array().map(|a| a.iter().map(Call::from_json).collect()).unwrap_or_default();
            keys(&calls).into_iter().zip(calls).map(|(k, c)| (k, c.answer)).collect()
        }
        Err(_) => BTreeMap::new(),
    };

    let mut per_fn: BTreeMap<String, PerFn> = BTreeMap::new();
    let mut mismatches = Vec::new();
    let mut lives = Vec::new();
    let mut known = Vec::new();
    let mut text = String::new();
    let first_keys = keys(&py);
    for (seq, call) in py.iter().enumerate() {
        let Some(rs) = rust.get(&(seq as u64)) else { continue };
        counts.replayed += 1;
        let f = per_fn.entry(call.c.clone()).or_default();
        f.calls += 1;
        if rs.get("refused").is_some() || rs.get("crash").is_some() {
            counts.refused += usize::from(rs.get("refused").is_some());
            f.other += 1;
            continue;
        }
        let newest = calls::TABLE.iter().any(|e| e.c == call.c && e.newest);
        if newest
            && call.answer.get("err") == Some(&json!(FUNCTION_NOT_FOUND))
            && rs.get("err") != Some(&json!(FUNCTION_NOT_FOUND))
        {
            counts.fell_back += 1;
            f.other += 1;
            continue;
        }
        let again = again.get(&first_keys[seq]);
        match judge(&call.answer, rs) {
            Verdict::SameValue => {
                counts.same_value += 1;
                f.same_value += 1;
            }
            Verdict::SameError => {
                counts.same_error += 1;
                f.same_error += 1;
            }
            Verdict::Differ(diffs) => {
                let why: Vec<Option<String>> = diffs.iter().map(|d| live_because(call, d, rs, again)).collect();
                let entry = json!({
                    "fn": call.c, "obj": call.obj, "args": call.args,
                    "pynvml": call.answer, "nvmlkit": rs, "pynvml_again": again,
                    "diffs": diffs.iter().zip(&why).map(|(d, w)| diff_json(d, w)).collect::<Vec<_>>(),
                });
                let line = format!("{} on {} {}: {}", call.c, call.obj, short(&call.args), Verdict::text(&diffs));
                if why.iter().all(Option::is_some) {
                    counts.live += 1;
                    f.live += 1;
                    let reasons: BTreeSet<&str> = why.iter().flatten().map(String::as_str).collect();
                    text.push_str(&format!(
                        "live     {line} [{}]\n",
                        reasons.into_iter().collect::<Vec<_>>().join(", ")
                    ));
                    lives.push(entry);
                } else if KNOWN_MISMATCHES.iter().any(|(k, _)| *k == call.c) {
                    counts.known += 1;
                    f.known += 1;
                    text.push_str(&format!("known    {line}\n"));
                    known.push(entry);
                } else {
                    counts.mismatch += 1;
                    f.mismatch += 1;
                    text.push_str(&format!("MISMATCH {line}\n"));
                    mismatches.push(entry);
                }
            }
        }
    }

    let answer_of = |c: &str| py.iter().find(|x| x.c == c).and_then(|x| x.answer.get("ok")).cloned();
    let devices: Vec<J> =
        py.iter().filter(|x| x.c == "nvmlDeviceGetName").filter_map(|x| x.answer.get("ok").cloned()).collect();
    let error_only: Vec<&String> =
        per_fn.iter().filter(|(_, f)| f.same_value == 0 && f.same_error > 0).map(|(c, _)| c).collect();
    let mut summary = format!(
        "nvmlkit against pynvml {version} on {} (driver {}, NVML {}; devices {})\n",
        s.library.display(),
        answer_of("nvmlSystemGetDriverVersion").map_or("?".into(), |v| v.to_string()),
        answer_of("nvmlSystemGetNVMLVersion").map_or("?".into(), |v| v.to_string()),
        J::Array(devices.clone()),
    );
    summary.push_str(&format!(
        "{} calls by pynvml (getters only), {} replayed through nvmlkit: {} same value, {} same error, {} live, \
         {} known mismatch, {} MISMATCH; {} legacy members not replayed, {} fell back to an older member, {} \
         refused, {} crashed or hung, {} without a calls.rs entry\n",
        counts.calls,
        counts.replayed,
        counts.same_value,
        counts.same_error,
        counts.live,
        counts.known,
        counts.mismatch,
        counts.legacy,
        counts.fell_back,
        counts.refused,
        counts.crashed,
        counts.not_in_table,
    ));
    if let Err(e) = &second {
        summary.push_str(&format!("pynvml's second run failed, so only the LIVE table decides what is live: {e}\n"));
    }
    for c in &crashes {
        summary.push_str(&format!("CRASH    nvmlkit {} on {} {} {}\n", c["how"], c["fn"], c["obj"], c["args"]));
    }
    let mism_fns: BTreeSet<&str> = mismatches.iter().filter_map(|m| m["fn"].as_str()).collect();
    summary.push_str(&format!("functions with a mismatch: {mism_fns:?}\n"));

    let mut report = format!("{summary}\n");
    report.push_str(&format!("legacy members not replayed: {legacy:?}\n"));
    report.push_str(&format!("functions pynvml called that calls.rs lacks: {not_in_table:?}\n"));
    report.push_str(&format!("compared by error code only: {error_only:?}\n\n"));
    report.push_str(&text);
    report.push_str("\nper function: calls, same value, same error, live, known, mismatch, other\n");
    for (c, f) in &per_fn {
        report.push_str(&format!(
            "{c:<60} {:>5} {:>5} {:>5} {:>5} {:>5} {:>5} {:>5}\n",
            f.calls, f.same_value, f.same_error, f.live, f.known, f.mismatch, f.other
        ));
    }
    let json_report = json!({
        "library": s.library.display().to_string(),
        "pynvml": version,
        "driver": answer_of("nvmlSystemGetDriverVersion"),
        "nvml": answer_of("nvmlSystemGetNVMLVersion"),
        "devices": devices,
        "second_run": second.as_ref().err(),
        "counts": {
            "calls": counts.calls, "replayed": counts.replayed, "same_value": counts.same_value,
            "same_error": counts.same_error, "live": counts.live, "known": counts.known,
            "mismatch": counts.mismatch, "legacy_not_replayed": counts.legacy, "fell_back": counts.fell_back,
            "refused": counts.refused, "crashed": counts.crashed, "not_in_table": counts.not_in_table,
        },
        "legacy_not_replayed": legacy,
        "not_in_table": not_in_table,
        "compared_by_error_only": error_only,
        "crashes": crashes,
        "mismatches": mismatches,
        "known": known,
        "live": lives,
        "per_function": per_fn.iter().map(|(c, f)| (c.clone(), json!({
            "calls": f.calls, "same_value": f.same_value, "same_error": f.same_error, "live": f.live,
            "known": f.known, "mismatch": f.mismatch, "other": f.other,
        }))).collect::<serde_json::Map<_, _>>(),
    });
    let write = |name: &str, text: &str| {
        let p = s.report_dir.join(name);
        std::fs::write(&p, text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    };
    write("report.json", &serde_json::to_string_pretty(&json_report).expect("JSON"));
    write("report.txt", &report);
    write("summary.txt", &summary);
    eprintln!("{summary}(report: {})", s.report_dir.join("report.txt").display());
    assert!(
        counts.same_value > 0,
        "no call gave a value both agree on: the setup is broken (see {})",
        s.report_dir.join("report.txt").display()
    );
    counts
}
