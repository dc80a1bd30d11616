//! Real NVML clients against the mock, every built-in profile: NVIDIA's Python binding
//! (nvidia-ml-py) calling every query it wraps, gpustat and nvitop showing the profile's GPUs.
//!
//! Each client is skipped with a message when it is not installed, unless
//! `NVML_MOCK_REQUIRE_PYNVML` (the binding) or `NVML_MOCK_REQUIRE_CLIENTS` (gpustat, nvitop) is
//! set, as CI does.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

use nvml_mock::testing::{documented_functions, mock_lib_dir};

const PROFILES: &[&str] = &["a100", "a100-r525", "b200", "gb200", "h100", "l40s", "t4"];

/// A directory where the mock is called `libnvidia-ml.so.1` and `libnvidia-ml.so`.
fn mock_dir() -> PathBuf {
    mock_lib_dir(std::path::Path::new(env!("CARGO_TARGET_TMPDIR")))
}

/// Whether Python can import `module`; if not, the test is skipped unless `require` is set.
fn have(module: &str, require: &str, install: &str) -> bool {
    let ok = Command::new("python3").args(["-c", &format!("import {module}")]).status().is_ok_and(|s| s.success());
    if !ok {
        assert!(std::env::var_os(require).is_none(), "{module} is required here ({require} is set): {install}");
        eprintln!("skipped: {module} is not installed ({install})");
    }
    ok
}

/// Every query of nvidia-ml-py against every profile: each function that answers
/// NOT_SUPPORTED (on a GPU, the system, a GPU instance or a vGPU object) is one the profile
/// documents answering so (crates/nvml-mock/README.md), and the binding never crashes.
#[test]
fn python_binding_census_finds_only_documented_not_supported() {
    if !have("pynvml", "NVML_MOCK_REQUIRE_PYNVML", "pip install nvidia-ml-py") {
        return;
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/pynvml_census.py");
    let header = concat!(env!("CARGO_MANIFEST_DIR"), "/../../nvml-headers/13.5.37/nvml.h");
    let out = Command::new("python3").args([script, "--json", "--header", header]).args(PROFILES).env("LD_LIBRARY_PATH", mock_dir()).output().unwrap();
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let census: BTreeMap<String, BTreeMap<String, BTreeMap<String, String>>> = parse_json(&String::from_utf8_lossy(&out.stdout));
    let mut problems = Vec::new();
    for (profile, functions) in &census {
        let documented = documented_functions(profile, "NOT_SUPPORTED").unwrap();
        for (function, outcomes) in functions {
            for (subject, outcome) in outcomes {
                // `CODE@symbol`: the answer, and the C function that gave it.
                let (code, symbol) = outcome.split_once('@').unwrap_or((outcome, function));
                if code.starts_with("crash") {
                    problems.push(format!("{profile}: {function} on {subject} crashed the binding"));
                }
                // MIG devices answer NOT_SUPPORTED for what the mock answers per GPU only.
                if code == "NVML_ERROR_NOT_SUPPORTED" && !subject.contains("/mig") && !documented.contains(symbol) {
                    problems.push(format!("{profile}: {symbol} ({function}) on {subject} answers NOT_SUPPORTED, undocumented"));
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
    fn map<T>(c: &mut std::iter::Peekable<std::str::Chars>, value: impl Fn(&mut std::iter::Peekable<std::str::Chars>) -> T) -> BTreeMap<String, T> {
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
