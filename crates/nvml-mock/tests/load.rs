//! A session under load: client processes with several threads each poll every GPU's power while
//! parallel `nvml-mock ctl` streams set values, inject events and limit an error by
//! `--times`. Then every event reached every waiting event set exactly once, the error was
//! answered exactly `--times` times in all, no change was lost, and every poller reads the
//! last value written. Not timed: the machine may be shared.
//!
//! The clients are this test binary re-run as children in a role ([`ROLE`]).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use nvml_mock::testing::{mock_path, CHILD_ENV, CLEARED_ENV};
use nvml_sys::*;

/// The variable that gives a child its role: `poller` or `waiter`.
const ROLE: &str = "NVML_MOCK_LOAD_ROLE";
const SESSION: &str = "load";
const PROFILE: &str = "t4";
const GPUS: u32 = 8;
const POLLERS: usize = 3;
const THREADS: usize = 3;
const WAITERS: usize = 2;
const STREAMS: u32 = 4;
const STEPS: u32 = 3;
const TIMES: u64 = 200;
/// The XID that ends the waiters' collection.
const LAST_XID: u64 = 99_999;

/// The power (mW) stream `k` sets at step `j`.
fn value(k: u32, j: u32) -> u32 {
    100_000 + 1000 * k + j
}

fn runtime_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("load-session")
}

fn ctl(args: &[String]) -> Result<String, String> {
    let out = Command::new(env!("CARGO_BIN_EXE_nvml-mock"))
        .args(["ctl", "--session", SESSION])
        .args(args)
        .env("NVML_MOCK_RUNTIME_DIR", runtime_dir())
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!("ctl {args:?}: {}", String::from_utf8_lossy(&out.stderr)))
    }
}

fn words(s: &str) -> Vec<String> {
    s.split(' ').map(String::from).collect()
}

/// A client process of the session in `role`, after it said it started.
struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: std::io::Lines<BufReader<std::process::ChildStdout>>,
}

impl Client {
    fn start(role: &str) -> Client {
        let mut cmd = Command::new(std::env::current_exe().expect("the test binary"));
        for v in CLEARED_ENV {
            cmd.env_remove(v);
        }
        let mut child = cmd
            .args(["client_process", "--exact", "--nocapture", "--test-threads=1"])
            .env(CHILD_ENV, "1")
            .env(ROLE, role)
            .env("NVML_MOCK_PROFILE", PROFILE)
            .env("NVML_MOCK_SESSION", SESSION)
            .env("NVML_MOCK_RUNTIME_DIR", runtime_dir())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the test binary starts");
        let mut lines = BufReader::new(child.stdout.take().expect("piped")).lines();
        assert!(lines.by_ref().map_while(Result::ok).any(|l| l.ends_with("started")), "a {role} did not start");
        let stdin = child.stdin.take();
        Client { child, stdin, lines }
    }

    /// The lines the client prints until it ends.
    fn finish(mut self) -> Vec<String> {
        self.stdin.take();
        let lines: Vec<String> = self.lines.by_ref().map_while(Result::ok).collect();
        let status = self.child.wait().expect("the client ends");
        assert!(
            status.success() && lines.iter().any(|l| l.contains("1 passed")),
            "a client failed:\n{}",
            lines.join("\n")
        );
        lines
    }
}

/// The value of `key` in a client's `key value...` line.
fn line_of<'a>(lines: &'a [String], key: &str) -> &'a str {
    lines.iter().find_map(|l| l.strip_prefix(key)).unwrap_or_else(|| panic!("no `{key}` in:\n{}", lines.join("\n")))
}

#[test]
fn client_process() {
    if std::env::var_os(CHILD_ENV).is_none() {
        return; // run by `a_session_under_load_loses_nothing`
    }
    let lib = Arc::new(NvmlLib::open_path(mock_path()).unwrap());
    // SAFETY: every function is called with its prototype and pointers valid for the call.
    unsafe {
        assert_eq!(lib.nvmlInit_v2().unwrap()(), NVML_SUCCESS);
        let by_index = lib.nvmlDeviceGetHandleByIndex_v2().unwrap();
        let devices: Vec<usize> = (0..GPUS)
            .map(|i| {
                let mut d = std::ptr::null_mut();
                assert_eq!(by_index(i, &mut d), NVML_SUCCESS);
                d as usize
            })
            .collect();
        let power = lib.nvmlDeviceGetPowerUsage().unwrap();
        let read_all = || -> Vec<u32> {
            devices
                .iter()
                .map(|d| {
                    let mut t = 0;
                    assert_eq!(power(*d as nvmlDevice_t, &mut t), NVML_SUCCESS);
                    t
                })
                .collect()
        };
        match std::env::var(ROLE).as_deref() {
            Ok("poller") => {
                let stop = Arc::new(AtomicBool::new(false));
                let errors = Arc::new(AtomicU64::new(0));
                let calls = Arc::new(AtomicU64::new(0));
                let threads: Vec<_> = (0..THREADS)
                    .map(|_| {
                        let (lib, devices, stop, errors, calls) =
                            (lib.clone(), devices.clone(), stop.clone(), errors.clone(), calls.clone());
                        std::thread::spawn(move || {
                            let power = lib.nvmlDeviceGetPowerUsage().unwrap();
                            let serial = lib.nvmlDeviceGetSerial().unwrap();
                            let mut buf = [0 as std::ffi::c_char; 64];
                            while !stop.load(Ordering::Relaxed) {
                                for d in &devices {
                                    let mut t = 0;
                                    let rc = power(*d as nvmlDevice_t, &mut t);
                                    assert_eq!(rc, NVML_SUCCESS);
                                }
                                match serial(devices[1] as nvmlDevice_t, buf.as_mut_ptr(), 64) {
                                    NVML_SUCCESS => {}
                                    NVML_ERROR_UNKNOWN => {
                                        errors.fetch_add(1, Ordering::Relaxed);
                                    }
                                    rc => panic!("nvmlDeviceGetSerial answered {rc}"),
                                }
                                calls.fetch_add(GPUS as u64 + 1, Ordering::Relaxed);
                            }
                        })
                    })
                    .collect();
                println!("started");
                std::io::stdout().flush().unwrap();
                let _ = std::io::stdin().lines().count();
                stop.store(true, Ordering::Relaxed);
                for t in threads {
                    t.join().unwrap();
                }
                let last: Vec<String> = read_all().iter().map(u32::to_string).collect();
                println!("power {}", last.join(" "));
                println!("errors {}", errors.load(Ordering::Relaxed));
                println!("calls {}", calls.load(Ordering::Relaxed));
            }
            Ok("waiter") => {
                let mut set = std::ptr::null_mut();
                assert_eq!(lib.nvmlEventSetCreate().unwrap()(&mut set), NVML_SUCCESS);
                let register = lib.nvmlDeviceRegisterEvents().unwrap();
                for d in &devices {
                    assert_eq!(register(*d as nvmlDevice_t, nvmlEventTypeXidCriticalError as u64, set), NVML_SUCCESS);
                }
                println!("started");
                std::io::stdout().flush().unwrap();
                let wait = lib.nvmlEventSetWait_v2().unwrap();
                let index = lib.nvmlDeviceGetIndex().unwrap();
                let start = Instant::now();
                loop {
                    assert!(start.elapsed() < Duration::from_secs(300), "the last event never came");
                    let mut data = nvmlEventData_t::default();
                    match wait(set, &mut data, 500) {
                        NVML_ERROR_TIMEOUT => continue,
                        NVML_SUCCESS => {}
                        rc => panic!("nvmlEventSetWait_v2 answered {rc}"),
                    }
                    let mut i = 0;
                    assert_eq!(index(data.device, &mut i), NVML_SUCCESS);
                    println!("event {i} {}", data.eventData);
                    if data.eventData == LAST_XID {
                        break;
                    }
                }
            }
            role => panic!("unknown role {role:?}"),
        }
        assert_eq!(lib.nvmlShutdown().unwrap()(), NVML_SUCCESS);
    }
}

#[test]
fn a_session_under_load_loses_nothing() {
    if std::env::var_os(CHILD_ENV).is_some() {
        return;
    }
    let _ = std::fs::remove_dir_all(runtime_dir());
    let pollers: Vec<Client> = (0..POLLERS).map(|_| Client::start("poller")).collect();
    let waiters: Vec<Client> = (0..WAITERS).map(|_| Client::start("waiter")).collect();
    ctl(&words(&format!("error 1 nvmlDeviceGetSerial NVML_ERROR_UNKNOWN --times {TIMES}"))).unwrap();

    // Stream k sets GPUs k and k + STREAMS and injects an XID on each, STEPS times.
    let streams: Vec<_> = (0..STREAMS)
        .map(|k| {
            std::thread::spawn(move || -> Result<(), String> {
                for j in 0..STEPS {
                    for gpu in [k, k + STREAMS] {
                        ctl(&words(&format!("set {gpu} power.usage_mw {}", value(k, j))))?;
                        ctl(&words(&format!("event {gpu} xid {}", 1000 * gpu + j)))?;
                    }
                }
                Ok(())
            })
        })
        .collect();
    for s in streams {
        s.join().expect("a stream ran").unwrap();
    }
    ctl(&words(&format!("event 0 xid {LAST_XID}"))).unwrap();

    let mut expected: Vec<String> =
        (0..GPUS).flat_map(|g| (0..STEPS).map(move |j| format!("event {g} {}", 1000 * g + j))).collect();
    expected.push(format!("event 0 {LAST_XID}"));
    expected.sort();
    for (n, w) in waiters.into_iter().enumerate() {
        let mut got: Vec<String> = w.finish().into_iter().filter(|l| l.starts_with("event ")).collect();
        got.sort();
        assert_eq!(got, expected, "waiter {n}: each event exactly once");
    }

    // The pollers go on until the error is spent.
    let start = Instant::now();
    while !ctl(&words("show")).unwrap().contains(&format!("(0 of {TIMES} calls left)")) {
        assert!(start.elapsed() < Duration::from_secs(300), "the pollers did not spend the error");
        std::thread::sleep(Duration::from_millis(100));
    }
    let last: Vec<String> = (0..GPUS).map(|g| value(g % STREAMS, STEPS - 1).to_string()).collect();
    let mut errors = 0;
    let mut calls = BTreeMap::new();
    for (n, p) in pollers.into_iter().enumerate() {
        let lines = p.finish();
        assert_eq!(line_of(&lines, "power "), last.join(" "), "poller {n} reads the last values written");
        errors += line_of(&lines, "errors ").parse::<u64>().unwrap();
        calls.insert(n, line_of(&lines, "calls ").parse::<u64>().unwrap());
    }
    assert_eq!(errors, TIMES, "`--times {TIMES}` answered exactly {TIMES} times in all (calls per poller: {calls:?})");
    let show = ctl(&words("show")).unwrap();
    for g in 0..GPUS {
        assert!(show.contains(&format!("GPU {g}: set power.usage_mw {}", last[g as usize])), "{show}");
    }
}
