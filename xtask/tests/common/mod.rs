//! Helpers shared by the generator's integration tests.
#![allow(dead_code)] // Each test file uses its own subset.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use xtask::workspace::project_root;

/// `tests/fixtures/<case>`.
pub fn fixture(case: &str) -> PathBuf {
    project_root().join("tests/fixtures").join(case)
}

/// A fresh empty directory under the target dir.
pub fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the `xtask` binary with `args`.
pub fn xtask<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    Command::new(env!("CARGO_BIN_EXE_xtask")).args(args).output().unwrap()
}

/// Whether `UPDATE_GOLDEN` asks for expected files to be rewritten.
pub fn updating_goldens() -> bool {
    std::env::var_os("UPDATE_GOLDEN").is_some()
}

/// Compares `actual` with the golden file `path`, or rewrites it under `UPDATE_GOLDEN=1`.
/// Returns the path when they differ.
pub fn check_golden(path: &Path, actual: &str) -> Option<String> {
    if updating_goldens() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, actual).unwrap();
        return None;
    }
    let expected = std::fs::read_to_string(path).ok().map(|s| s.replace("\r\n", "\n"));
    (expected.as_deref() != Some(actual)).then(|| path.display().to_string())
}

/// Whether the opt-in tests that fetch every published header with pip should run.
pub fn corpus_enabled(test: &str) -> bool {
    let on = std::env::var_os("NVML_CORPUS").is_some_and(|v| !v.is_empty() && v != "0");
    if !on {
        eprintln!("{test}: skipped; set NVML_CORPUS=1 to run it (it fetches headers with pip)");
    }
    on
}
