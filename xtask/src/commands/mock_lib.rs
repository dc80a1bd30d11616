//! `cargo xtask mock-lib --driver VERSION --out DIR [--debug]`: a mock `libnvidia-ml.so.1`
//! that emulates one NVIDIA driver. Builds the mock (`cargo build --release -p nvmlkit-mock`:
//! the library and its `nvml-mock` program; `--debug`: the dev profile) and runs `nvml-mock
//! lib`, which writes DIR: `libnvidia-ml.so.1` exporting exactly the functions of that
//! driver (the function history, `crates/nvml-mock/src/driver.rs`), `libnvidia-ml.so` linking
//! to it, the mock it forwards to (`libnvml_mock.so`, found beside it at run time) and the
//! forwarder's C source. The version is checked by the program (the mock's copy of the
//! history), so the knowledge of which driver has which function stays in one place.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};

/// The mock's package, its library target and the program that writes the directory.
const PACKAGE: &str = "nvmlkit-mock";
const LIB_TARGET: &str = "nvml_mock";
const PROGRAM: &str = "nvml-mock";

/// What the build produced: the mock (`libnvml_mock.so`) and the program.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Artifacts {
    pub mock: Option<PathBuf>,
    pub program: Option<PathBuf>,
}

/// Reads cargo's `--message-format=json` output for the mock's shared library and the
/// program's executable.
pub fn artifacts(json_lines: impl Iterator<Item = String>) -> Artifacts {
    let mut found = Artifacts::default();
    for line in json_lines {
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(&line) else { continue };
        if msg["reason"] != "compiler-artifact" {
            continue;
        }
        let name = msg["target"]["name"].as_str().unwrap_or_default();
        let files = msg["filenames"].as_array().into_iter().flatten().filter_map(|f| f.as_str());
        if name == LIB_TARGET {
            if let Some(so) = files.into_iter().find(|f| f.ends_with(".so")) {
                found.mock = Some(PathBuf::from(so));
            }
        } else if name == PROGRAM {
            found.program = msg["executable"].as_str().map(PathBuf::from);
        }
    }
    found
}

/// Builds the mock and writes the library for `driver` into `out`.
pub fn run(root: &Path, driver: &str, out: &Path, debug: bool) -> Result<()> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut build = Command::new(&cargo);
    build.current_dir(root).args(["build", "-p", PACKAGE, "--lib", "--bin", PROGRAM]);
    build.arg("--message-format=json-render-diagnostics");
    if !debug {
        build.arg("--release");
    }
    let mut child = build
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .with_context(|| format!("cannot run `{cargo} build -p {PACKAGE}`"))?;
    let stdout = child.stdout.take().context("cargo's output")?;
    let found = artifacts(std::io::BufReader::new(stdout).lines().map_while(|l| l.ok()));
    let status = child.wait().context("waiting for cargo")?;
    if !status.success() {
        bail!("`cargo build -p {PACKAGE}` failed ({status})");
    }
    let (Some(mock), Some(program)) = (found.mock, found.program) else {
        bail!("`cargo build -p {PACKAGE}` did not report lib{LIB_TARGET}.so and {PROGRAM}");
    };
    let status = Command::new(&program)
        .arg("lib")
        .arg("--driver")
        .arg(driver)
        .arg("--out")
        .arg(out)
        .arg("--mock")
        .arg(&mock)
        .status()
        .with_context(|| format!("cannot run {}", program.display()))?;
    if !status.success() {
        bail!("no library written for driver `{driver}` (the reason is above)");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cargo_reports_the_mock_and_the_program() {
        let lines = [
            r#"{"reason":"compiler-artifact","target":{"name":"nvml_sys"},"filenames":["/t/release/deps/libnvml_sys.rlib"],"executable":null}"#,
            r#"{"reason":"compiler-artifact","target":{"name":"nvml_mock"},"filenames":["/t/release/libnvml_mock.so","/t/release/libnvml_mock.rlib"],"executable":null}"#,
            r#"{"reason":"compiler-artifact","target":{"name":"nvml-mock"},"filenames":["/t/release/nvml-mock"],"executable":"/t/release/nvml-mock"}"#,
            "not json",
            r#"{"reason":"build-finished","success":true}"#,
        ];
        let found = artifacts(lines.iter().map(|l| l.to_string()));
        assert_eq!(found.mock.as_deref(), Some(Path::new("/t/release/libnvml_mock.so")));
        assert_eq!(found.program.as_deref(), Some(Path::new("/t/release/nvml-mock")));
        assert_eq!(artifacts(std::iter::empty()), Artifacts::default());
    }
}
