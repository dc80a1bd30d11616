//! `cargo xtask update-header` end to end, offline: pip reads wheels built here from fixture
//! headers (`--find-links`), and the update goes into a scratch workspace (`--root`) whose
//! default header is the old side of the `diff-api` fixture, vendored as 98.0.1.

mod common;

use std::path::{Path, PathBuf};

use common::{build_wheel, fixture, header_workspace, wheel, xtask};
use xtask::commands::regen;
use xtask::fetch::headers;
use xtask::pipeline::{generate, Inputs};

fn update(root: &Path, wheels: &Path, version: &[&str]) -> (bool, String, String) {
    let mut args: Vec<std::ffi::OsString> = vec!["update-header".into()];
    args.extend(version.iter().map(|v| v.into()));
    args.extend(["--root".into(), root.into(), "--find-links".into(), wheels.into()]);
    let out = xtask(args);
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Every file under `root/nvml-headers` with its contents.
fn snapshot(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.join("nvml-headers")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn update_vendors_makes_default_and_regen_works() {
    let (root, wheels) = header_workspace("update-version");
    let (ok, stdout, stderr) = update(&root, &wheels, &["99.0.1"]);
    assert!(ok, "{stderr}");
    let dir = root.join("nvml-headers/99.0.1");
    assert_eq!(std::fs::read(dir.join("nvml.h")).unwrap(), std::fs::read(fixture("diff-api").join("new.h")).unwrap());
    assert_eq!(std::fs::read_to_string(dir.join("LICENSE.txt")).unwrap(), "A test licence.\n");
    let prov = headers::read_provenance(&dir.join("provenance.yaml")).unwrap();
    assert_eq!(
        (prov.package.as_str(), prov.version.as_str(), prov.file.as_str()),
        ("nvidia-nvml-dev", "99.0.1", "nvidia/cu13/include/nvml.h")
    );
    assert_eq!(std::fs::read_to_string(dir.join("provenance.yaml")).unwrap(), prov.to_yaml());
    assert_eq!(headers::default_version(&root).unwrap(), "99.0.1");
    let corpus = std::fs::read_to_string(root.join(headers::CORPUS_FILE)).unwrap();
    let sha = |h: &Path| headers::sha256_hex(&std::fs::read(h).unwrap());
    let (old, new) = (sha(&fixture("diff-api").join("old.h")), sha(&fixture("diff-api").join("new.h")));
    // Each version with its header's hash, by which a copy of the header is known.
    assert_eq!(corpus, format!("# Test corpus.\n98.0.1 nvidia-nvml-dev {old}\n99.0.1 nvidia-nvml-dev {new}\n"));
    // The report: the diff against the previous default, then what to do next.
    assert!(stdout.contains("vendored nvml.h 99.0.1 from nvidia-nvml-dev"), "{stdout}");
    assert!(stdout.contains("# nvml.h 98.0.1 → nvml.h 99.0.1"), "{stdout}");
    assert!(stdout.contains("| functions | 11 | 2 | 4 |"), "{stdout}");
    assert!(stdout.contains("cargo xtask regen"), "{stdout}");
    // A regen of that workspace just works, from the new default header.
    let out = generate(&root, &Inputs::default()).unwrap();
    regen::write(&root, &out).unwrap();
    let symbols = std::fs::read_to_string(root.join("crates/nvml-sys/src/generated/symbols.rs")).unwrap();
    assert!(symbols.contains("from nvml.h 99.0.1"), "{}", &symbols[..300]);
    let sys: String = std::fs::read_dir(root.join("crates/nvml-sys/src/generated"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    assert!(sys.contains("pub struct nvmlProcess_st"));
    // Asking again changes nothing.
    let (ok, stdout, _) = update(&root, &wheels, &["99.0.1"]);
    assert!(ok && stdout.contains("nothing to do"), "{stdout}");
}

#[test]
fn latest_takes_the_newest_wheel_and_rule_errors_come_first() {
    let (root, wheels) = header_workspace("update-latest");
    // A rule for a handle the new header lacks: regen would fail, so the next steps say so.
    let rules = root.join("gen-config/nvml.yaml");
    let text = std::fs::read_to_string(&rules).unwrap().replace("handles:\n", "handles:\n  nvmlUnit_t: Unit\n");
    std::fs::write(&rules, text).unwrap();
    let (ok, stdout, stderr) = update(&root, &wheels, &["--latest"]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("vendored nvml.h 99.0.2"), "{stdout}");
    assert_eq!(headers::vendored_versions(&root).unwrap(), ["98.0.1", "99.0.2"]);
    assert!(
        stdout.contains("- error: gen-config/nvml.yaml: handles.nvmlUnit_t: `nvmlUnit_t` is not an opaque handle"),
        "{stdout}"
    );
    assert!(stdout.contains("0. fix gen-config/nvml.yaml: 1 rule error(s) against the new header"), "{stdout}");
}

#[test]
fn failed_updates_change_nothing() {
    let (root, wheels) = header_workspace("update-fail");
    let before = snapshot(&root);
    // A version pip cannot find.
    let (ok, _, stderr) = update(&root, &wheels, &["99.0.3"]);
    assert!(!ok);
    assert!(
        stderr.contains("error: cannot download nvidia-nvml-dev==99.0.3 (")
            && stderr.contains("does that version exist?"),
        "{stderr}"
    );
    assert!(stderr.contains("No matching distribution found"), "{stderr}");
    // A version older than the default.
    let (ok, _, stderr) = update(&root, &wheels, &["97.0.1"]);
    assert!(!ok);
    assert!(stderr.contains("97.0.1 is older than the default header 98.0.1"), "{stderr}");
    // Not a version, and a major version no package publishes.
    let (ok, _, stderr) = update(&root, &wheels, &["latest"]);
    assert!(!ok && stderr.contains("`latest` is not a version such as 13.5.37"), "{stderr}");
    let (ok, _, stderr) = update(&root, &wheels, &["10.0.1"]);
    assert!(!ok && stderr.contains("no pip package publishes nvml.h 10.0.1"), "{stderr}");
    // A corrupt wheel: its header does not match the wheel's RECORD.
    build_wheel(&wheels, &fixture("diff-api").join("new.h"), "99.0.4", true);
    let (ok, _, stderr) = update(&root, &wheels, &["99.0.4"]);
    assert!(!ok);
    assert!(stderr.contains("nvidia/cu13/include/nvml.h does not match the sha256 in the wheel's RECORD"), "{stderr}");
    // A header the generator cannot parse is not vendored.
    wheel(&wheels, &fixture("broken").join("input.h"), "99.0.5");
    let (ok, _, stderr) = update(&root, &wheels, &["99.0.5"]);
    assert!(!ok);
    assert!(stderr.contains("nvml.h 99.0.5 was not vendored"), "{stderr}");
    assert_eq!(snapshot(&root), before, "a failed update must leave nvml-headers/ as it was");
}
