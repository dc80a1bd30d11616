//! Helpers for tests of NVML clients: path of the built mock, run a test in a child process
//! with an environment.
//!
//! The mock's state (the `nvmlInit` reference count, the profile read at the first
//! `nvmlInit`, the faults of `NVML_MOCK_FAULTS`, what setters changed) belongs to the process
//! that loaded it. A test that needs its own profile or faults therefore runs in a child: the
//! test binary re-runs itself for that one test with the scenario's environment.
//!
//! ```no_run
//! use nvml_mock::testing::{in_child, mock_path};
//!
//! #[test]
//! fn t4_has_no_nvlink() {
//!     if !in_child("t4_has_no_nvlink", &[("NVML_MOCK_PROFILE", "t4")]) {
//!         return; // the parent: the child passed
//!     }
//!     // The child: load `mock_path()` and assert.
//! }
//! ```
//!
//! The built-in profiles' text is available through [`builtin_profile`], for tests that write
//! a variant of one (a file whose path goes into `NVML_MOCK_PROFILE`).

use std::path::PathBuf;
use std::process::Command;

/// Set in the environment of the child processes [`in_child`] starts.
pub const CHILD_ENV: &str = "NVML_MOCK_TEST_CHILD";

/// Variables [`in_child`] removes from a child's environment before adding the scenario's, so
/// that the caller's environment cannot leak into a scenario.
pub const CLEARED_ENV: &[&str] = &[
    "NVML_MOCK_PROFILE",
    "NVML_MOCK_FAULTS",
    "NVML_MOCK_STRICT",
    "NVML_MOCK_HOSTILE",
    "NVML_MOCK_CLOCK",
    "NVML_MOCK_LIVE_PIDS",
    "NVML_MOCK_LOG",
    "NVML_MOCK_SLOT_WRITE",
    "NVML_MOCK_SESSION",
    "NVML_MOCK_RUNTIME_DIR",
    "NVML_LIBRARY_PATH",
];

/// The variable that turns the mock's hostile mode on, with its seed (see the crate's README).
pub use crate::engine::hostile::ENV as HOSTILE_ENV;

/// The built mock, `libnvml_mock.so`, in `target/<profile>/deps/`: next to the running test
/// binary, or beside the directory of an example (`target/<profile>/examples/`). Cargo puts it
/// there when the package depends on `nvmlkit-mock` (a dev-dependency is enough: the library
/// is also an rlib, so cargo rebuilds the `.so` before the tests and examples).
///
/// # Panics
///
/// If it is in neither place, with a message saying how to build it.
pub fn mock_path() -> PathBuf {
    find_mock().unwrap_or_else(|e| panic!("{e}"))
}

/// [`mock_path`], or why it is not there.
fn find_mock() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("the path of the running binary: {e}"))?;
    let dir = exe.parent().ok_or_else(|| format!("{} has no directory", exe.display()))?;
    let candidates = [dir.join("libnvml_mock.so"), dir.join("../deps/libnvml_mock.so")];
    candidates.iter().find(|p| p.is_file()).cloned().ok_or_else(|| {
        format!(
            "{} is missing: build the mock first (`cargo build -p nvmlkit-mock`), or depend on `nvmlkit-mock` from the tested package",
            candidates[0].display()
        )
    })
}

/// A directory (under `base`, created if need be) where the built mock is called
/// `libnvidia-ml.so.1` and `libnvidia-ml.so`: for `LD_LIBRARY_PATH` and `-L`, so that
/// programs load it as they load the driver's library.
///
/// # Panics
///
/// If the directory or the links cannot be made.
pub fn mock_lib_dir(base: &std::path::Path) -> PathBuf {
    let dir = base.join("mock-lib");
    std::fs::create_dir_all(&dir).expect("a directory for the mock's links");
    let mock = mock_path();
    for name in ["libnvidia-ml.so.1", "libnvidia-ml.so"] {
        // A new link under a name of its own, renamed over the old one: tests that run at once
        // never see the name missing.
        let tmp = dir.join(format!("{name}.{}.{:?}", std::process::id(), std::thread::current().id()));
        let _ = std::fs::remove_file(&tmp);
        std::os::unix::fs::symlink(&mock, &tmp).expect("a link to the mock");
        std::fs::rename(&tmp, dir.join(name)).expect("a link to the mock");
    }
    dir
}

/// Compiles a C client of NVML, `sources` with the `nvml.h` of directory `include` (and the
/// directory of the first source, for its own headers), with `-Wall -Werror`, into `exe`,
/// linked against the `libnvidia-ml.so` of `lib` (a [`mock_lib_dir`]) with every symbol bound
/// at load. `Err` says why it did not compile, with the compiler's messages.
pub fn compile_c_client(
    sources: &[&std::path::Path],
    include: &std::path::Path,
    exe: &std::path::Path,
    lib: &std::path::Path,
) -> Result<(), String> {
    let mut cc = Command::new(std::env::var_os("CC").unwrap_or_else(|| "cc".into()));
    cc.args(sources).arg(format!("-I{}", include.display()));
    if let Some(own) = sources.first().and_then(|s| s.parent()) {
        cc.arg(format!("-I{}", own.display()));
    }
    cc.args(["-Wall", "-Werror", "-o"])
        .arg(exe)
        .arg(format!("-L{}", lib.display()))
        .args(["-lnvidia-ml", "-Wl,-z,now"]);
    let out = cc.output().map_err(|e| format!("cannot run the C compiler `cc` (`$CC`): {e}"))?;
    if !out.status.success() {
        return Err(format!("{} does not compile:\n{}", exe.display(), String::from_utf8_lossy(&out.stderr)));
    }
    Ok(())
}

/// Runs the C client `exe` (from [`compile_c_client`]) against the mock of `lib`, with the
/// [`CLEARED_ENV`] variables removed and `env` set: its exit code (`None` when a signal ended
/// it, a fault among them) and its output, stdout then stderr.
pub fn run_c_client(
    exe: &std::path::Path,
    lib: &std::path::Path,
    env: &[(&str, &std::ffi::OsStr)],
) -> Result<(Option<i32>, String), String> {
    let mut client = Command::new(exe);
    for var in CLEARED_ENV {
        client.env_remove(var);
    }
    client.env("LD_LIBRARY_PATH", lib).envs(env.iter().copied());
    let out = client.output().map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    Ok((out.status.code(), text))
}

/// Like [`mock_lib_dir`], but the `libnvidia-ml.so.1` there exports only the functions the
/// driver of `profile` (a built-in name or a profile file, as `NVML_MOCK_PROFILE` takes) has:
/// a driver older than a function lacks its symbol, as a real one does. Clients that look a
/// symbol up before they call it (nvitop reads temperatures through
/// `nvmlDeviceGetTemperatureV` only where the library exports it) then take the path they take
/// on that driver. The profile itself is still chosen by `NVML_MOCK_PROFILE`; one whose driver
/// differs fails `nvmlInit` (see the crate's README).
///
/// The library is the one `cargo xtask mock-lib --driver <the profile's driver>` writes (the
/// profile's `missing_functions` are left out too; a profile without a driver exports every
/// function), compiled with the C compiler `cc` (`$CC`), with a copy of the built mock beside
/// it. Directory: `base/driver-lib-<profile>`.
///
/// # Errors
///
/// If the mock is not built (see [`mock_path`]), the profile does not load, the compiler is
/// missing or fails, or the target is neither x86-64 nor AArch64 Linux.
pub fn driver_lib_dir(base: &std::path::Path, profile: &str) -> Result<PathBuf, String> {
    let tag: String = profile.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
    let dir = base.join(format!("driver-lib-{tag}"));
    crate::driver_lib::write_for_profile(&dir, profile, &find_mock()?)?;
    Ok(dir)
}

/// The driver version a profile (a built-in name or a profile file) runs, `system.driver_version`;
/// `None` when it names none.
///
/// # Errors
///
/// If the profile does not load.
pub fn profile_driver(profile: &str) -> Result<Option<String>, String> {
    Ok(crate::profile::load(profile)?.system.str("driver_version").map(str::to_string))
}

/// Runs the test `name` in a child process with `env`.
///
/// In the parent (the test run by the harness): re-runs this test binary for test `name` alone
/// (`--exact`) with [`CHILD_ENV`] and `env` set and the variables of [`CLEARED_ENV`] removed
/// first, asserts that the child passed that one test (its output is in the panic message
/// otherwise), and returns `false`: the caller returns.
///
/// In the child: returns `true` at once, and the caller runs the test body. A test that
/// calls `in_child` in a loop over several environments runs its body once per child, with
/// the environment of that iteration.
///
/// `name` must be the test's full path as the harness prints it (a test function at the top
/// of an integration test file is just its name).
///
/// # Panics
///
/// In the parent, when the child cannot be started or does not pass: the calling test fails
/// with the child's output.
pub fn in_child(name: &str, env: &[(&str, &str)]) -> bool {
    if std::env::var_os(CHILD_ENV).is_some() {
        return true;
    }
    let mut cmd = Command::new(std::env::current_exe().expect("the path of the running test binary"));
    // `--include-ignored`: the parent runs, so the test was selected, `#[ignore]` or not.
    cmd.args([name, "--exact", "--include-ignored", "--nocapture", "--test-threads=1"]).env(CHILD_ENV, "1");
    for var in CLEARED_ENV {
        cmd.env_remove(var);
    }
    let out = cmd.envs(env.iter().copied()).output().expect("could not start the test binary as a child");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "scenario {name} with {env:?} failed:\n{text}");
    assert!(text.contains("1 passed"), "scenario {name} did not run (is the name exact?):\n{text}");
    false
}

/// Whether Python 3 can import `module` (a client such as NVIDIA's binding, `pynvml`). When it
/// cannot, the test using it is skipped with a message, unless the variable `require` is set
/// (as CI sets `NVML_MOCK_REQUIRE_PYNVML`): then this panics, saying how to install it
/// (`install`).
pub fn have_python_module(module: &str, require: &str, install: &str) -> bool {
    let ok = Command::new("python3").args(["-c", &format!("import {module}")]).status().is_ok_and(|s| s.success());
    if !ok {
        assert!(std::env::var_os(require).is_none(), "{module} is required here ({require} is set): {install}");
        eprintln!("skipped: {module} is not installed ({install})");
    }
    ok
}

/// Runs `nvml-mock ctl --session SESSION COMMAND...` (the same code as the program's): changes
/// the mocks that processes run with `NVML_MOCK_SESSION=SESSION` (`NVML_MOCK_RUNTIME_DIR`, if
/// set in this process, must be theirs). Returns what the command prints, or its error.
///
/// ```no_run
/// // A device plugin's health check sees GPU 3 report XID 79.
/// nvml_mock::testing::ctl("plugin-test", &["event", "3", "xid", "79"]).unwrap();
/// ```
pub fn ctl(session: &str, command: &[&str]) -> Result<String, String> {
    let args: Vec<String> = ["--session", session].iter().chain(command).map(|s| s.to_string()).collect();
    crate::session::ctl(&args)
}

/// The names of the built-in profiles.
pub fn builtin_profiles() -> Vec<&'static str> {
    crate::profile::BUILTIN.iter().map(|(n, _)| *n).collect()
}

/// The YAML text of a built-in profile (`a100`, `a100-r525`, `b200`, `b200-r575`,
/// `b200-r580.65`, `gb200`, `h100`, `h100-r560`, `l40s`, `l40s-vgpu`, `t4`), to write a variant
/// of it; `None` for another name.
pub fn builtin_profile(name: &str) -> Option<&'static str> {
    crate::profile::BUILTIN.iter().find(|(n, _)| *n == name).map(|(_, text)| *text)
}

/// The README's tables of what each built-in profile answers instead of a value (generated from
/// the profiles; a test keeps the README's copy fresh).
pub fn answers_markdown() -> Result<String, String> {
    crate::answers_doc::markdown()
}

/// The functions a built-in profile documents answering `code` (`"NOT_SUPPORTED"`,
/// `"INVALID_ARGUMENT"`, ...) somewhere, MIG devices aside: by an error entry, by nvml.h's
/// "For `<architecture>` or newer", or by the GPU's MIG mode.
pub fn documented_functions(profile: &str, code: &str) -> Result<std::collections::BTreeSet<String>, String> {
    crate::answers_doc::documented(profile, code)
}

/// Where a built-in profile documents answering `code` for a function whatever its other
/// arguments: function → subjects (`system`, `gpu0`, ...), as NVIDIA's Python binding census
/// (`scripts/pynvml_census.py`) names them.
pub fn documented_subjects(
    profile: &str,
    code: &str,
) -> Result<std::collections::BTreeMap<String, std::collections::BTreeSet<String>>, String> {
    crate::answers_doc::documented_subjects(profile, code)
}

/// A built-in profile's devices, as the mock reads them: each device's values by dotted key
/// (`memory.total`, `processes.compute`), its defaults and bases merged in; for tests that
/// check what a client shows against the profile.
pub fn profile_devices(name: &str) -> Result<Vec<std::collections::BTreeMap<String, serde_yaml::Value>>, String> {
    let text = builtin_profile(name).ok_or_else(|| format!("no built-in profile `{name}`"))?;
    let p = crate::profile::parse(text, name)?;
    let owned = |d: &crate::profile::Flat| d.values().into_iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
    Ok(p.devices.iter().map(|d| owned(d)).collect())
}
