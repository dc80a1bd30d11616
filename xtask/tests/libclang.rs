//! Where the generator's libclang comes from (see `xtask/src/fetch/libclang.rs`): the pip
//! wheel alone regenerates the checked-in files byte for byte, a system libclang produces the
//! same bytes, and every way the fetch can fail is a clear error that leaves nothing in the
//! cache.
//!
//! Each case runs the `xtask` binary in a child process, since libclang is loaded once per
//! process. The wheel is fetched with pip into the workspace's cache (once; later runs find
//! it there), so `regen_check_passes_with_the_wheel_alone` needs the package index the first
//! time.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{fixture, scratch};

/// Runs `xtask args` with `env` set and `LIBCLANG_PATH` removed.
fn xtask_with(args: &[&str], env: &[(&str, &std::ffi::OsStr)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_xtask"));
    cmd.args(args).env_remove("LIBCLANG_PATH").env_remove("NVMLKIT_CACHE");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn text(out: &Output) -> (String, String) {
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn regen_check_passes_with_the_wheel_alone() {
    let out = xtask_with(&["regen", "--check"], &[("NVMLKIT_LIBCLANG", "wheel".as_ref())]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("libclang: ") && stderr.contains("(the pip wheel libclang==18.1.1, in the cache)"),
        "{stderr}"
    );
    assert!(stdout.contains("generated files are up to date"), "{stdout}");
}

#[test]
fn a_system_libclang_gives_the_same_bytes_as_the_wheel() {
    let out = xtask_with(&["regen", "--check"], &[("NVMLKIT_LIBCLANG", "system".as_ref())]);
    let (stdout, stderr) = text(&out);
    if !out.status.success() && stderr.contains("libclang could not be found") {
        assert!(
            std::env::var_os("NVMLKIT_REQUIRE_SYSTEM_LIBCLANG").is_none(),
            "NVMLKIT_REQUIRE_SYSTEM_LIBCLANG is set but no system libclang was found:\n{stderr}"
        );
        eprintln!("a_system_libclang_gives_the_same_bytes_as_the_wheel: skipped, no system libclang (install libclang-dev to run it)");
        return;
    }
    // The checked-in files are what the wheel produces (the test above); the system's
    // libclang must produce them too.
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stderr.contains("(found on the system)"), "{stderr}");
    assert!(stdout.contains("generated files are up to date"), "{stdout}");
}

/// A cache of its own, so that a failed fetch can be seen to leave it empty.
fn empty_cache(name: &str) -> std::path::PathBuf {
    scratch(name).join("cache")
}

/// Everything under `dir` (nothing when it does not exist).
fn contents(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            out.push(e.path().display().to_string());
            if e.path().is_dir() {
                stack.push(e.path());
            }
        }
    }
    out
}

/// `model` of a small fixture with the wheel required and `env` added: the fetch has to run.
fn model_with_wheel(cache: &Path, env: &[(&str, &std::ffi::OsStr)]) -> (bool, String) {
    let header = fixture("basic").join("input.h");
    let mut all: Vec<(&str, &std::ffi::OsStr)> =
        vec![("NVMLKIT_LIBCLANG", "wheel".as_ref()), ("NVMLKIT_CACHE", cache.as_os_str())];
    all.extend_from_slice(env);
    let out = xtask_with(&["model", "--header", &header.display().to_string()], &all);
    (out.status.success(), text(&out).1)
}

fn assert_both_fixes_named(stderr: &str) {
    assert!(stderr.contains("libclang could not be found or fetched"), "{stderr}");
    assert!(stderr.contains("apt-get install libclang-dev") && stderr.contains("LIBCLANG_PATH"), "{stderr}");
    assert!(stderr.contains("python3 -m pip download libclang==18.1.1"), "{stderr}");
}

#[test]
fn without_python_the_error_names_the_step_and_both_fixes() {
    let cache = empty_cache("libclang-no-python");
    // A PATH with no python3 on it.
    let empty_path = cache.parent().unwrap().join("bin");
    std::fs::create_dir_all(&empty_path).unwrap();
    let (ok, stderr) = model_with_wheel(&cache, &[("PATH", empty_path.as_os_str())]);
    assert!(!ok);
    assert!(stderr.contains("downloading `libclang==18.1.1` with pip: cannot run `python3`"), "{stderr}");
    assert_both_fixes_named(&stderr);
    assert_eq!(contents(&cache), Vec::<String>::new(), "nothing may be left in the cache");
}

#[test]
fn without_the_package_index_the_error_names_the_step() {
    let cache = empty_cache("libclang-no-index");
    // pip's own configuration: no index, and a folder of wheels that holds none.
    let links = cache.parent().unwrap().join("no-wheels");
    std::fs::create_dir_all(&links).unwrap();
    let (ok, stderr) =
        model_with_wheel(&cache, &[("PIP_NO_INDEX", "1".as_ref()), ("PIP_FIND_LINKS", links.as_os_str())]);
    assert!(!ok);
    assert!(stderr.contains("cannot download libclang==18.1.1 (is the package index reachable?"), "{stderr}");
    assert!(stderr.contains("downloading `libclang==18.1.1` with pip failed"), "{stderr}");
    assert_both_fixes_named(&stderr);
    assert_eq!(contents(&cache), Vec::<String>::new(), "nothing may be left in the cache");
}

#[test]
fn a_corrupt_wheel_is_refused_and_not_cached() {
    let cache = empty_cache("libclang-corrupt");
    let links = cache.parent().unwrap().join("wheels");
    std::fs::create_dir_all(&links).unwrap();
    // A wheel named like the real one whose library does not match its RECORD.
    let script = r#"
import sys, zipfile
out = sys.argv[1] + "/libclang-18.1.1-py2.py3-none-any.whl"
lib = "libclang-18.1.1.data/platlib/clang/native/libclang.so"
info = "libclang-18.1.1.dist-info"
with zipfile.ZipFile(out, "w") as z:
    z.writestr(lib, b"\x7fELF truncated")
    z.writestr(info + "/METADATA", "Metadata-Version: 2.1\nName: libclang\nVersion: 18.1.1\n")
    z.writestr(info + "/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: py2.py3-none-any\n")
    z.writestr(info + "/RECORD", lib + ",sha256=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA,14\n" + info + "/RECORD,,\n")
"#;
    let status = Command::new("python3").arg("-c").arg(script).arg(&links).status().unwrap();
    assert!(status.success());
    let (ok, stderr) =
        model_with_wheel(&cache, &[("PIP_NO_INDEX", "1".as_ref()), ("PIP_FIND_LINKS", links.as_os_str())]);
    assert!(!ok);
    assert!(stderr.contains("clang/native/libclang.so does not match the sha256 in the wheel's RECORD"), "{stderr}");
    assert_both_fixes_named(&stderr);
    assert_eq!(contents(&cache), Vec::<String>::new(), "nothing may be left in the cache");
}

#[test]
fn an_explicit_libclang_path_that_holds_none_is_an_error() {
    let dir = scratch("libclang-bad-path");
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["model", "--header", &fixture("basic").join("input.h").display().to_string()])
        .env("LIBCLANG_PATH", &dir)
        .env_remove("NVMLKIT_LIBCLANG")
        .output()
        .unwrap();
    let (_, stderr) = text(&out);
    assert!(!out.status.success());
    assert!(stderr.contains(&format!("LIBCLANG_PATH={} holds no loadable libclang", dir.display())), "{stderr}");
    // The explicit choice is not silently replaced by the wheel.
    assert!(!stderr.contains("fetching the pip wheel"), "{stderr}");
}
