//! `nvml-mock ctl` against mocks that other processes run: a change reaches a running client
//! at its next call, an event reaches an event set that waits already, two commands at once
//! both take effect, and bad input is refused without touching the session.
//!
//! Each test has its own session in its own runtime directory (`NVML_MOCK_RUNTIME_DIR`). The
//! mocks in the sessions are run by this test binary re-run as a child
//! ([`session_holder_process`]), and by NVIDIA's Python binding when it is installed.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Output, Stdio};

use nvml_mock::testing::{have_python_module, mock_lib_dir, mock_path, CHILD_ENV};
use nvml_sys::*;

/// The runtime directory of a test's session.
fn runtime_dir(test: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ctl-sessions").join(test)
}

/// `program`, to run the mock (profile h100) in `session`, with pipes for its input and output.
fn in_session(program: impl AsRef<std::ffi::OsStr>, session: &str) -> Command {
    let mut cmd = Command::new(program);
    cmd.env("NVML_MOCK_PROFILE", "h100")
        .env("NVML_MOCK_SESSION", session)
        .env("NVML_MOCK_RUNTIME_DIR", runtime_dir(session))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
    cmd
}

/// `nvml-mock ctl --session SESSION ARGS...` with the test's runtime directory.
fn ctl(session: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nvml-mock"))
        .args(["ctl", "--session", session])
        .args(args)
        .env("NVML_MOCK_RUNTIME_DIR", runtime_dir(session))
        .env_remove("NVML_MOCK_SESSION")
        .output()
        .expect("nvml-mock runs")
}

/// `ctl`, which must succeed: its output.
fn ctl_ok(session: &str, args: &[&str]) -> String {
    let out = ctl(session, args);
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "ctl {args:?} failed: {text}");
    text
}

/// `ctl`, which must fail: its error.
fn ctl_err(session: &str, args: &[&str]) -> String {
    let out = ctl(session, args);
    assert!(!out.status.success(), "ctl {args:?} succeeded: {}", String::from_utf8_lossy(&out.stdout));
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A process that runs the mock (profile h100) in a session until it is dropped.
struct Holder {
    child: Child,
    stdin: Option<ChildStdin>,
}

impl Holder {
    fn start(session: &str) -> Holder {
        let exe = std::env::current_exe().expect("the test binary");
        let mut child = in_session(exe, session)
            .args(["session_holder_process", "--exact", "--nocapture", "--test-threads=1"])
            .env(CHILD_ENV, "1")
            .spawn()
            .expect("the test binary starts");
        let stdout = child.stdout.take().expect("piped");
        let ready = BufReader::new(stdout).lines().map_while(Result::ok).any(|l| l.ends_with("holding"));
        assert!(ready, "the holder did not start");
        let stdin = child.stdin.take();
        Holder { child, stdin }
    }
}

impl Drop for Holder {
    fn drop(&mut self) {
        self.stdin.take();
        let _ = self.child.wait();
    }
}

/// The child of [`Holder`]: initialises the mock in its session and holds it until its input
/// ends. Run by the harness, it checks that a session is in use exactly while a holder runs.
#[test]
fn session_holder_process() {
    if std::env::var_os(CHILD_ENV).is_some() {
        let lib = NvmlLib::open_path(mock_path()).unwrap();
        // SAFETY: the functions are called with their prototypes, without pointers.
        unsafe { assert_eq!(lib.nvmlInit_v2().unwrap()(), NVML_SUCCESS) };
        println!("holding");
        std::io::stdout().flush().unwrap();
        let _ = std::io::stdin().lines().count();
        // SAFETY: as above.
        unsafe { assert_eq!(lib.nvmlShutdown().unwrap()(), NVML_SUCCESS) };
        return;
    }
    let session = "held";
    let _ = std::fs::remove_dir_all(runtime_dir(session));
    let holder = Holder::start(session);
    assert!(ctl_ok(session, &["show"]).contains("session `held`"), "show names the session");
    assert!(ctl_ok(session, &["show"]).contains(": in use"));
    drop(holder);
    assert!(ctl_ok(session, &["show"]).contains(": not in use"));
    let e = ctl_err(session, &["lost", "1"]);
    assert!(e.contains("session `held` is not in use"), "{e}");
}

#[test]
fn ctl_against_a_session_no_mock_uses_says_so() {
    let session = "nobody-here";
    let e = ctl_err(session, &["set", "0", "temperature.gpu", "90"]);
    assert!(e.contains("session `nobody-here` is not in use: no running process has the mock initialised"), "{e}");
    let out = Command::new(env!("CARGO_BIN_EXE_nvml-mock"))
        .args(["ctl", "show"])
        .env_remove("NVML_MOCK_SESSION")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no session: give --session NAME or set NVML_MOCK_SESSION"));
}

/// The bytes of a session's state and its generation.
fn snapshot(session: &str) -> (Vec<u8>, Vec<u8>) {
    let dir = runtime_dir(session);
    let state = std::fs::read(dir.join(format!("{session}.yaml"))).unwrap();
    let shm = std::fs::read(dir.join(format!("{session}.shm"))).unwrap();
    (state, shm[..8].to_vec())
}

#[test]
fn malformed_input_names_what_is_wrong_and_changes_nothing() {
    let session = "malformed";
    let _holder = Holder::start(session);
    ctl_ok(session, &["set", "2", "temperature.gpu", "50"]);
    ctl_ok(session, &["error", "1", "nvmlDeviceGetName", "NVML_ERROR_UNKNOWN", "--times", "3"]);
    let before = snapshot(session);
    let cases: &[(&[&str], &str)] = &[
        (&["set", "3", "temprature.gpu", "90"], "devices[3].temprature.gpu: unknown key"),
        (&["set", "3", "temperature.gpu", "hot"], "devices[3].temperature.gpu: expected a non-negative integer"),
        (
            &["set", "3", "nvmlDeviceGetPowerUsage", "{watts: 1}"],
            "devices[3]: nvmlDeviceGetPowerUsage: expected an integer",
        ),
        (
            &["set", "3", "nvmlSystemGetDriverVersion", "1.0"],
            "nvmlSystemGetDriverVersion is called on a System, not a Device",
        ),
        (&["set", "8", "temperature.gpu", "90"], "GPU 8 does not exist"),
        (&["set", "x", "temperature.gpu", "90"], "`x` is not a GPU index"),
        (&["set", "3", "NVML_FI_DEV_NOTHING", "1"], "`NVML_FI_DEV_NOTHING` is not a field id of nvml.h"),
        (&["set", "3", "mig.mode", "true"], "`mig.mode` shapes the MIG tree"),
        (&["set", "3", "temperature.gpu", "[unclosed"], "`[unclosed` is not a YAML value"),
        (&["error", "3", "nvmlDeviceGetName", "NVML_ERROR_NOPE"], "`NVML_ERROR_NOPE` is not an NVML error code"),
        (&["error", "3", "nvmlDeviceGetName", "NVML_SUCCESS"], "`NVML_SUCCESS` is not an NVML error code"),
        (&["error", "3", "nvmlDeviceGetNope", "15"], "`nvmlDeviceGetNope` is not a function of nvml.h"),
        (&["error", "3", "nvmlSystemGetDriverVersion", "15"], "`nvmlSystemGetDriverVersion` is not called on a GPU"),
        (&["error", "9", "nvmlDeviceGetName", "15"], "GPU 9 does not exist"),
        (&["error", "3", "nvmlDeviceGetName", "15", "--times", "0"], "--times must be at least 1"),
        (&["error", "3", "nvmlDeviceGetName", "15", "--times", "x"], "--times `x`"),
        (&["event", "3", "xid"], "give the xid number"),
        (&["event", "3", "xid", "many"], "`many` is not a number"),
        (&["event", "3", "meltdown"], "`meltdown` is not an event this command injects"),
        (&["event", "42", "ecc-dbe"], "GPU 42 does not exist"),
        (&["lost", "8"], "GPU 8 does not exist"),
        (&["reset", "8"], "GPU 8 does not exist"),
        (&["frobnicate"], "unknown command `frobnicate`"),
        (&["lost"], "wrong arguments for `lost`"),
    ];
    for (args, says) in cases {
        let e = ctl_err(session, args);
        assert!(e.contains(says), "ctl {args:?}: expected `{says}` in: {e}");
        assert!(snapshot(session) == before, "ctl {args:?} changed the session");
    }
    let show = ctl_ok(session, &["show"]);
    assert!(show.contains("GPU 2: set temperature.gpu 50"), "{show}");
    assert!(show.contains("GPU 1: error nvmlDeviceGetName NVML_ERROR_UNKNOWN (3 of 3 calls left)"), "{show}");
}

#[test]
fn concurrent_commands_lose_no_change() {
    let session = "concurrent";
    let _holder = Holder::start(session);
    let commands: Vec<Vec<String>> = (0..8)
        .flat_map(|gpu| {
            [
                vec!["set".into(), gpu.to_string(), "temperature.gpu".into(), (40 + gpu).to_string()],
                vec!["set".into(), gpu.to_string(), "power.usage_mw".into(), (100_000 + gpu).to_string()],
                vec!["error".into(), gpu.to_string(), "nvmlDeviceGetSerial".into(), "NVML_ERROR_UNKNOWN".into()],
            ]
        })
        .collect();
    let children: Vec<Child> = commands
        .iter()
        .map(|args| {
            Command::new(env!("CARGO_BIN_EXE_nvml-mock"))
                .args(["ctl", "--session", session])
                .args(args)
                .env("NVML_MOCK_RUNTIME_DIR", runtime_dir(session))
                .stdout(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let show = ctl_ok(session, &["show"]);
    for gpu in 0..8 {
        for line in [
            format!("GPU {gpu}: set temperature.gpu {}", 40 + gpu),
            format!("GPU {gpu}: set power.usage_mw {}", 100_000 + gpu),
            format!("GPU {gpu}: error nvmlDeviceGetSerial NVML_ERROR_UNKNOWN"),
        ] {
            assert!(show.contains(&line), "lost `{line}`:\n{show}");
        }
    }
}

/// A Python client of NVIDIA's binding that answers commands on its input: `read` (GPU 3's
/// temperature, power and name, or the error), `wait MS` (the next event of its set, registered
/// for GPU 3's XID and double-bit ECC events: type, data and GPU index), `count` (from a second
/// `nvmlInit`, the handle of GPU 3 by index, or the error).
const PYNVML_CLIENT: &str = r#"
import sys, pynvml as n
n.nvmlInit()
h = n.nvmlDeviceGetHandleByIndex(3)
es = n.nvmlEventSetCreate()
n.nvmlDeviceRegisterEvents(h, n.nvmlEventTypeXidCriticalError | n.nvmlEventTypeDoubleBitEccError, es)
print("ready", flush=True)
for line in sys.stdin:
    cmd = line.split()
    try:
        if cmd[0] == "read":
            out = [n.nvmlDeviceGetTemperature(h, n.NVML_TEMPERATURE_GPU), n.nvmlDeviceGetPowerUsage(h), n.nvmlDeviceGetName(h)]
        elif cmd[0] == "wait":
            e = n.nvmlEventSetWait(es, int(cmd[1]))
            out = [e.eventType, e.eventData, n.nvmlDeviceGetIndex(e.device)]
        elif cmd[0] == "handle":
            n.nvmlDeviceGetHandleByIndex(3)
            out = ["found"]
        print(" ".join(map(str, out)), flush=True)
    except n.NVMLError as e:
        print("error", e.value, flush=True)
"#;

/// A running Python client.
struct Client {
    child: Child,
    input: ChildStdin,
    output: std::io::Lines<BufReader<ChildStdout>>,
}

impl Client {
    fn ask(&mut self, command: &str) -> String {
        writeln!(self.input, "{command}").unwrap();
        self.input.flush().unwrap();
        self.output.next().expect("the client answers").unwrap()
    }
}

#[test]
fn a_running_pynvml_client_sees_each_change() {
    if !have_python_module("pynvml", "NVML_MOCK_REQUIRE_PYNVML", "pip install nvidia-ml-py") {
        return;
    }
    let session = "pynvml";
    let mut child = in_session("python3", session)
        .args(["-c", PYNVML_CLIENT])
        .env("LD_LIBRARY_PATH", mock_lib_dir(std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))))
        .spawn()
        .expect("python3 runs");
    let (input, output) = (child.stdin.take().unwrap(), child.stdout.take().unwrap());
    let mut client = Client { child, input, output: BufReader::new(output).lines() };
    assert_eq!(client.output.next().unwrap().unwrap(), "ready");
    let profile = client.ask("read");
    assert_eq!(profile, "33 70815 NVIDIA H100 80GB HBM3", "the profile's values (the recorded H100's)");

    // `set`: a profile key, and a function's value.
    ctl_ok(session, &["set", "3", "temperature.gpu", "92"]);
    ctl_ok(session, &["set", "3", "nvmlDeviceGetPowerUsage", "350000"]);
    assert_eq!(client.ask("read"), "92 350000 NVIDIA H100 80GB HBM3");

    // `error --times 2`: two calls fail (999: NVML_ERROR_UNKNOWN), then the values again.
    ctl_ok(session, &["error", "3", "nvmlDeviceGetTemperature", "NVML_ERROR_UNKNOWN", "--times", "2"]);
    assert_eq!(client.ask("read"), "error 999");
    assert_eq!(client.ask("read"), "error 999");
    assert_eq!(client.ask("read"), "92 350000 NVIDIA H100 80GB HBM3");

    // `event`: a wait in progress receives the XID (type 8), then a double-bit ECC error (2).
    writeln!(client.input, "wait 60000").unwrap();
    client.input.flush().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(200));
    ctl_ok(session, &["event", "3", "xid", "79"]);
    assert_eq!(client.output.next().unwrap().unwrap(), "8 79 3");
    ctl_ok(session, &["event", "3", "ecc-dbe"]);
    assert_eq!(client.ask("wait 60000"), "2 0 3");
    // An event of another GPU is not for this set.
    ctl_ok(session, &["event", "2", "xid", "48"]);
    assert_eq!(client.ask("wait 0"), "error 10", "NVML_ERROR_TIMEOUT");

    // `lost`: GPU_IS_LOST (15) from then on, its handle by index included.
    ctl_ok(session, &["lost", "3"]);
    assert_eq!(client.ask("read"), "error 15");
    assert_eq!(client.ask("handle"), "error 15");

    // `reset`: the profile's values again.
    ctl_ok(session, &["reset"]);
    assert_eq!(client.ask("read"), profile);
    assert_eq!(client.ask("handle"), "found");
    drop(client.input);
    assert!(client.child.wait().unwrap().success());
}

/// A process that holds the commands' lock and never lets go makes `ctl` fail within the
/// bound, naming the file; SIGKILLed, it loses the lock and the next `ctl` works. `ctl`
/// commands SIGKILLed at any moment (under the lock, writing) lose nothing: every command that
/// said it succeeded is in the state, the state reads, and the next command works. A client
/// SIGKILLed leaves the session to the next one.
#[test]
fn processes_killed_holding_a_lock_or_writing_lose_nothing() {
    let session = "killed";
    let _ = std::fs::remove_dir_all(runtime_dir(session));
    let holder = Holder::start(session);
    let lock = runtime_dir(session).join(format!("{session}.lock"));
    // One process that takes the lock and sleeps (Python is a prerequisite of the workspace).
    let take = "import fcntl, sys, time\nf = open(sys.argv[1], 'a')\nfcntl.flock(f, fcntl.LOCK_EX)\nprint('held', flush=True)\ntime.sleep(600)";
    let mut stuck =
        Command::new("python3").args(["-c", take]).arg(&lock).stdout(Stdio::piped()).spawn().expect("python3 runs");
    let held = BufReader::new(stuck.stdout.take().unwrap()).lines().next();
    assert!(matches!(held, Some(Ok(l)) if l == "held"), "the process did not take the lock");
    let start = std::time::Instant::now();
    let e = ctl_err(session, &["set", "0", "temperature.gpu", "70"]);
    let took = start.elapsed();
    assert!(e.contains(&format!("{}: another process has held its lock for 5 s", lock.display())), "{e}");
    assert!(took < std::time::Duration::from_secs(30), "ctl waited {took:?}");
    stuck.kill().unwrap(); // SIGKILL
    stuck.wait().unwrap();
    ctl_ok(session, &["set", "0", "temperature.gpu", "71"]);

    // Commands killed at staggered moments of their run, each setting a key of its own.
    const KEYS: [&str; 3] = ["power.usage_mw", "clocks.sm", "clocks.memory"];
    let mut children = Vec::new();
    for i in 0..24u32 {
        let (gpu, key, value) = (i % 8, KEYS[(i / 8) as usize], 1000 + i);
        let child = Command::new(env!("CARGO_BIN_EXE_nvml-mock"))
            .args(["ctl", "--session", session, "set", &gpu.to_string(), key, &value.to_string()])
            .env("NVML_MOCK_RUNTIME_DIR", runtime_dir(session))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        children.push((format!("GPU {gpu}: set {key} {value}"), format!("GPU {gpu}: set {key} "), child));
    }
    let mut outcomes = Vec::new();
    for (n, (line, prefix, mut child)) in children.into_iter().enumerate() {
        if n % 2 == 0 {
            std::thread::sleep(std::time::Duration::from_millis(3 * n as u64));
            let _ = child.kill(); // SIGKILL
        }
        outcomes.push((line, prefix, child.wait().unwrap().success()));
    }
    ctl_ok(session, &["set", "1", "temperature.gpu", "72"]);
    let show = ctl_ok(session, &["show"]);
    assert!(show.contains("GPU 0: set temperature.gpu 71") && show.contains("GPU 1: set temperature.gpu 72"), "{show}");
    assert!(outcomes.iter().any(|(_, _, ok)| *ok), "no command was left to succeed");
    for (line, prefix, ok) in &outcomes {
        if *ok {
            assert!(show.lines().any(|l| l == line), "lost `{line}`, which said it succeeded:\n{show}");
        } else {
            // A command killed took effect whole or not at all.
            let shown: Vec<&str> = show.lines().filter(|l| l.starts_with(prefix.as_str())).collect();
            assert!(shown.is_empty() || shown == [line.as_str()], "`{line}`: {shown:?}");
        }
    }

    // The client killed: the session is free, and the next client starts it afresh.
    let mut holder = holder;
    holder.child.kill().unwrap();
    holder.child.wait().unwrap();
    drop(holder);
    assert!(ctl_ok(session, &["show"]).contains(": not in use"));
    let _again = Holder::start(session);
    ctl_ok(session, &["set", "2", "temperature.gpu", "73"]);
    let show = ctl_ok(session, &["show"]);
    assert!(show.contains("GPU 2: set temperature.gpu 73") && !show.contains("temperature.gpu 71"), "{show}");
}
