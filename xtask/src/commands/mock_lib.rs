//! `cargo xtask mock-lib --driver VERSION --out DIR [--debug]`: a mock `libnvidia-ml.so.1`
//! that emulates one NVIDIA driver. Builds the mock (`cargo build --release -p nvmlkit-mock`:
//! the library and its `nvml-mock` program; `--debug`: the dev profile) and runs `nvml-mock
//! lib`, which writes DIR: `libnvidia-ml.so.1` exporting exactly the functions of that
//! driver (the function history, `crates/nvml-mock/src/driver.rs`), `libnvidia-ml.so` linking
//! to it, the mock it forwards to (`libnvml_mock.so`, found beside it at run time) and the
//! forwarder's C source. The version is checked by the program (the mock's copy of the
//! history), so the knowledge of which driver has which function stays in one place.

use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};

/// The mock's package, its library target and the program that writes the directory.
pub const PACKAGE: &str = "nvmlkit-mock";
pub const LIB_TARGET: &str = "nvml_mock";
pub const PROGRAM: &str = "nvml-mock";

/// Reads cargo's `--message-format=json` output for what it built: each library target's
/// shared library (`.so`) and each program's executable, by target name.
pub fn artifacts(json_lines: impl Iterator<Item = String>) -> BTreeMap<String, PathBuf> {
    let mut found = BTreeMap::new();
    for line in json_lines {
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(&line) else { continue };
        if msg["reason"] != "compiler-artifact" {
            continue;
        }
        let Some(name) = msg["target"]["name"].as_str() else { continue };
        if let Some(exe) = msg["executable"].as_str() {
            found.insert(name.to_string(), PathBuf::from(exe));
            continue;
        }
        let mut files = msg["filenames"].as_array().into_iter().flatten().filter_map(|f| f.as_str());
        if let Some(so) = files.find(|f| f.ends_with(".so")) {
            found.insert(name.to_string(), PathBuf::from(so));
        }
    }
    found
}

/// Builds the libraries of `packages` and the programs `bins` (`cargo build --release`;
/// `debug`: the dev profile) and returns what cargo reports it built, by target name.
pub fn build(root: &Path, packages: &[&str], bins: &[&str], debug: bool) -> Result<BTreeMap<String, PathBuf>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut build = Command::new(&cargo);
    build.current_dir(root).arg("build").arg("--lib");
    for p in packages {
        build.args(["-p", p]);
    }
    for b in bins {
        build.args(["--bin", b]);
    }
    build.arg("--message-format=json-render-diagnostics");
    if !debug {
        build.arg("--release");
    }
    let what = format!("`{cargo} build -p {}`", packages.join(" -p "));
    let mut child =
        build.stdout(Stdio::piped()).stderr(Stdio::inherit()).spawn().with_context(|| format!("cannot run {what}"))?;
    let stdout = child.stdout.take().context("cargo's output")?;
    let found = artifacts(std::io::BufReader::new(stdout).lines().map_while(|l| l.ok()));
    let status = child.wait().context("waiting for cargo")?;
    if !status.success() {
        bail!("{what} failed ({status})");
    }
    Ok(found)
}

/// Builds the mock and writes the library for `driver` into `out`.
pub fn run(root: &Path, driver: &str, out: &Path, debug: bool) -> Result<()> {
    let found = build(root, &[PACKAGE], &[PROGRAM], debug)?;
    let (Some(mock), Some(program)) = (found.get(LIB_TARGET), found.get(PROGRAM)) else {
        bail!("`cargo build -p {PACKAGE}` did not report lib{LIB_TARGET}.so and {PROGRAM}");
    };
    let status = Command::new(program)
        .arg("lib")
        .arg("--driver")
        .arg(driver)
        .arg("--out")
        .arg(out)
        .arg("--mock")
        .arg(mock)
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
        assert_eq!(found.get("nvml_mock").map(PathBuf::as_path), Some(Path::new("/t/release/libnvml_mock.so")));
        assert_eq!(found.get("nvml-mock").map(PathBuf::as_path), Some(Path::new("/t/release/nvml-mock")));
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(artifacts(std::iter::empty()).is_empty());
    }
}
