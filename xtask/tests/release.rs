//! `cargo xtask release` end to end, with no network beyond pip's cache: pip reads wheels built
//! here (`--find-links`, which also keeps it off the index), and each release goes into a
//! temporary workspace (`--root`) with its own staging copy (`--work-dir`).
//!
//! The quick tests use a scaffold: the old side of the `diff-api` fixture vendored as 98.0.1,
//! and the three packages at 0.1.0 with a changelog entry and the rules' `released` that bind
//! it, but without sources, so every step up to `cargo package` runs. They check that a failing
//! step (a rules error, the tests, the packages) leaves the workspace as it was; that a release
//! (the packages given sources) keeps what the new header removed, moves `released` forward and
//! leaves a workspace that regenerates as it did, and that the next release still keeps it; that
//! `--publish` refuses a dirty tree and a wrong tag; and that the CI workflows name only
//! commands that exist.
//!
//! The simulated release (opt-in with `NVML_CORPUS=1`, as CI runs it, since the function
//! history reads every published header from the cache) goes from nvml.h 13.4.92 to 13.5.37
//! in a copy of this repository as it would have been with 13.4.92, twice.
//! `NVMLKIT_RELEASE_TEST_CMD` replaces its test step (default: a reduced set; the release's own
//! default is `cargo test --workspace`).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{corpus_enabled, fixture, header_workspace, scratch, wheel, xtask};
use xtask::commands::release::stage::{git, workspace_files};
use xtask::fetch::headers;
use xtask::workspace::{project_root, RULES_FILE};

const PACKAGES: [(&str, &str); 3] =
    [("nvmlkit-sys", "crates/nvml-sys"), ("nvmlkit-mock", "crates/nvml-mock"), ("nvmlkit", "crates/nvml")];

/// The scaffold: [`header_workspace`] (98.0.1 vendored, wheels of 99.0.1 and 99.0.2) with the
/// three packages at 0.1.0, their changelogs and the rules' `released` binding 98.0.1, and no
/// sources.
fn scaffold(name: &str) -> (PathBuf, PathBuf) {
    let (root, wheels) = header_workspace(name);
    // The wheels are no file of the workspace: move them out of it.
    let moved = root.with_file_name(format!("{name}-wheels"));
    let _ = std::fs::remove_dir_all(&moved);
    std::fs::rename(&wheels, &moved).unwrap();
    // 99.0.1 removes `nvmlDeviceGetGone_v2`, which the release keeps (98.0.1 declares it): the
    // rules hold the direction of its undocumented parameter, as the rules of a release of
    // 98.0.1 had to.
    let rules = read(&root, RULES_FILE);
    assert!(rules.ends_with("  nvmlDeviceGetTemp.temp: out\n"), "the directions come last: {rules}");
    write(&root, RULES_FILE, &format!("{rules}  nvmlDeviceGetGone_v2.info: out\nreleased: 98.0.1\n"));
    let members: Vec<String> = PACKAGES.iter().map(|(_, d)| format!("\"{d}\"")).collect();
    write(&root, "Cargo.toml", &format!("[workspace]\nresolver = \"2\"\nmembers = [{}]\n", members.join(", ")));
    for (package, dir) in PACKAGES {
        let deps = match package {
            "nvmlkit-sys" => String::new(),
            "nvmlkit-mock" => "nvmlkit-sys = { path = \"../nvml-sys\", version = \"0.1.0\" }\n".into(),
            _ => "nvml-sys = { package = \"nvmlkit-sys\", path = \"../nvml-sys\", version = \"0.1.0\" }\n".into(),
        };
        let manifest = format!(
            "[package]\nname = \"{package}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n{deps}"
        );
        write(&root, &format!("{dir}/Cargo.toml"), &manifest);
        write(&root, &format!("{dir}/CHANGELOG.md"), "# Changelog\n\n## 0.1.0 (nvml.h 98.0.1)\n\nThe first release.\n");
    }
    (root, moved)
}

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn read(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap_or_else(|e| panic!("{}: {e}", root.join(rel).display()))
}

/// Every file of the workspace (`target/` and `.git` aside) with its contents.
fn snapshot(root: &Path) -> Vec<(String, Vec<u8>)> {
    let files = workspace_files(root).unwrap();
    files.into_iter().map(|f| (f.clone(), std::fs::read(root.join(&f)).unwrap())).collect()
}

/// `cargo xtask release ARGS` for the workspace `root`, pip reading only `wheels`.
fn release(root: &Path, wheels: &Path, args: &[&str]) -> (bool, String, String) {
    let work = root.with_file_name(format!("{}-work", root.file_name().unwrap().to_string_lossy()));
    let mut all: Vec<std::ffi::OsString> = vec!["release".into()];
    all.extend(args.iter().map(Into::into));
    all.extend(["--root".into(), root.into(), "--find-links".into(), wheels.into(), "--work-dir".into(), work.into()]);
    // From the workspace, as CI runs it (relative paths are the workspace's).
    outcome(Command::new(env!("CARGO_BIN_EXE_xtask")).args(all).current_dir(root).output().unwrap())
}

fn outcome(out: Output) -> (bool, String, String) {
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn commit_all(root: &Path) {
    if !root.join(".git").exists() {
        git(root, &["init", "-q"]).unwrap();
    }
    git(root, &["add", "-A"]).unwrap();
    git(root, &["commit", "-q", "--no-gpg-sign", "-m", "a commit of the test"]).unwrap();
}

#[test]
fn a_rule_naming_a_removed_function_stops_the_release_before_anything_is_written() {
    let (root, wheels) = scaffold("release-rules");
    // 99.0.3 removes `nvmlDeviceGetGone_v2` as 99.0.1 does, but defines its record otherwise:
    // the function cannot be kept, and the rules' direction for it names a removed function.
    let new = read(&fixture("diff-api"), "new.h");
    let (body, end) = new.rsplit_once("#endif").unwrap();
    let header = scratch("release-rules-99.0.3").join("nvml.h");
    std::fs::write(
        &header,
        format!("{body}typedef struct nvmlGoneInfo_st\n{{\n    long long y;\n}} nvmlGoneInfo_t;\n\n#endif{end}"),
    )
    .unwrap();
    wheel(&wheels, &header, "99.0.3");
    let before = snapshot(&root);
    let (ok, stdout, stderr) = release(&root, &wheels, &["99.0.3", "--test-cmd", "true"]);
    assert!(!ok, "{stdout}");
    assert!(
        stderr.contains(
            "`nvmlDeviceGetGone_v2`, which nvml.h 99.0.3 removed, cannot be kept: `nvmlGoneInfo_st` has another definition in the new header"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("the rules cannot handle nvml.h 99.0.3"), "{stderr}");
    assert!(
        stderr.contains(
            "error: gen-config/nvml.yaml: directions.nvmlDeviceGetGone_v2.info: `nvmlDeviceGetGone_v2` is not a function of the header"
        ),
        "{stderr}"
    );
    // It stopped at the header-diff: no history, regen, versions or tests.
    assert!(stdout.contains("[2/7] header-diff 98.0.1 → 99.0.3") && !stdout.contains("[3/7]"), "{stdout}");
    assert_eq!(snapshot(&root), before, "a failed release must leave the workspace as it was");

    // The rules' `released` must name the last release's header: regen keeps what it declared.
    let rules = read(&root, RULES_FILE);
    write(&root, RULES_FILE, &rules.replace("released: 98.0.1\n", "released: 97.0.1\n"));
    let before = snapshot(&root);
    let (ok, stdout, stderr) = release(&root, &wheels, &["99.0.1", "--test-cmd", "true"]);
    assert!(!ok, "{stdout}");
    assert!(
        stderr
            .contains("gen-config/nvml.yaml: released: the newest is 97.0.1, but the last release binds nvml.h 98.0.1"),
        "{stderr}"
    );
    assert!(!stdout.contains("[1/7]"), "{stdout}");
    assert_eq!(snapshot(&root), before);
}

#[test]
fn a_failing_test_or_package_leaves_the_workspace_as_it_was() {
    let (root, wheels) = scaffold("release-fails");
    let before = snapshot(&root);
    let (ok, stdout, stderr) = release(&root, &wheels, &["99.0.1", "--test-cmd", "exit 3"]);
    assert!(!ok, "{stdout}");
    assert!(stderr.contains("the tests failed (exit status: 3) in the staging copy"), "{stderr}");
    assert!(stderr.contains("nothing was written into the workspace"), "{stderr}");
    // Every step before ran in the staging copy: the versions, changelog entries and `released`
    // were made.
    assert!(stdout.contains("nvmlkit-sys   0.1.0 → 0.2.0  (major: "), "{stdout}");
    assert!(stdout.contains("## 0.2.0 (nvml.h 99.0.1)"), "{stdout}");
    assert!(stdout.contains("gen-config/nvml.yaml: released: 98.0.1 → 98.0.1, 99.0.1"), "{stdout}");
    assert_eq!(snapshot(&root), before);
    // The scaffold's packages have no sources: they do not build.
    let (ok, stdout, stderr) = release(&root, &wheels, &["99.0.1", "--test-cmd", "true"]);
    assert!(!ok, "{stdout}");
    assert!(stderr.contains("`cargo package` failed"), "{stderr}");
    assert_eq!(snapshot(&root), before);
}

/// Gives the scaffold's packages a source file and the metadata `cargo publish` asks for.
fn with_sources(root: &Path) {
    for (_, dir) in PACKAGES {
        write(root, &format!("{dir}/src/lib.rs"), "//! A package of the scaffold.\n");
        let manifest = read(root, &format!("{dir}/Cargo.toml"))
            .replace("edition = \"2021\"\n", "edition = \"2021\"\nlicense = \"MIT\"\ndescription = \"A test.\"\n");
        write(root, &format!("{dir}/Cargo.toml"), &manifest);
    }
}

/// `cargo xtask regen --check` in `root`: whether the generated files are what the header and
/// the rules give.
fn regen_check(root: &Path) -> anyhow::Result<bool> {
    xtask::commands::regen::run(root, &xtask::pipeline::Inputs::default(), true, root)
}

#[test]
fn a_release_keeps_what_the_header_removed_and_moves_released_forward() {
    let (root, wheels) = scaffold("release-keeps");
    with_sources(&root);
    let report = root.with_file_name("release-keeps-report");
    let (ok, stdout, stderr) =
        release(&root, &wheels, &["99.0.1", "--test-cmd", "true", "--report-dir", report.to_str().unwrap()]);
    assert!(ok, "{stdout}\n{stderr}");
    // 99.0.1 removes `nvmlDeviceGetGone_v2`: the release keeps it, deprecated, and says so.
    let diff: serde_json::Value = serde_json::from_str(&read(&report, "header-diff.json")).unwrap();
    let kept = diff["safe"]["kept"].as_array().unwrap();
    assert!(kept.iter().any(|k| k == "nvmlDeviceGetGone_v2"), "{kept:?}");
    let note = "Removed from nvml.h 99.0.1; kept as nvml.h 98.0.1 declared it";
    let sys = read(&root, "crates/nvml-sys/src/generated/ungrouped.rs");
    assert!(sys.contains("nvmlDeviceGetGone_v2") && sys.contains(note), "{sys}");
    // `released` moved forward, 98.0.1 with it: what it declared stays kept.
    assert!(read(&root, RULES_FILE).ends_with("\nreleased: [98.0.1, 99.0.1]\n"));
    assert!(regen_check(&root).unwrap(), "the released workspace regenerates as the release did");
    // 99.0.1 alone would keep nothing: the function would be gone at the next regen, and the
    // rules' direction for it would name a function the header lacks.
    let rules = read(&root, RULES_FILE);
    write(&root, RULES_FILE, &rules.replace("released: [98.0.1, 99.0.1]", "released: 99.0.1"));
    let err = regen_check(&root).unwrap_err().to_string();
    assert!(err.contains("rules phase failed with 1 error(s)"), "{err}");
    write(&root, RULES_FILE, &rules);

    // The next release (99.0.2 declares what 99.0.1 does) still keeps it, from 98.0.1, and
    // reports nothing newly kept.
    let (ok, stdout, stderr) =
        release(&root, &wheels, &["99.0.2", "--test-cmd", "true", "--report-dir", report.to_str().unwrap()]);
    assert!(ok, "{stdout}\n{stderr}");
    assert!(stdout.contains("nvmlkit       0.2.0 → 0.2.1  (patch: "), "{stdout}");
    let diff: serde_json::Value = serde_json::from_str(&read(&report, "header-diff.json")).unwrap();
    assert_eq!(diff["safe"]["kept"], serde_json::json!([]));
    // The same bindings; the banner names the new header.
    let body = |text: &str| text.lines().skip(1).map(String::from).collect::<Vec<_>>();
    assert_eq!(body(&read(&root, "crates/nvml-sys/src/generated/ungrouped.rs")), body(&sys));
    assert!(read(&root, RULES_FILE).ends_with("\nreleased: [98.0.1, 99.0.1, 99.0.2]\n"));
    assert!(regen_check(&root).unwrap());
}

#[test]
fn nothing_new_and_publishing_refusals() {
    let (root, _) = scaffold("release-nothing");
    let wheels = scratch("release-nothing-98");
    wheel(&wheels, &fixture("diff-api").join("old.h"), "98.0.1");
    let report = root.with_file_name("release-nothing-report");
    let before = snapshot(&root);
    let (ok, stdout, stderr) = release(&root, &wheels, &["--dry-run", "--report-dir", report.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("nothing to release: nvml.h 98.0.1 is the newest"), "{stdout}");
    let json: serde_json::Value = serde_json::from_str(&read(&report, "release.json")).unwrap();
    assert_eq!(json, serde_json::json!({"release": false, "header": "98.0.1"}));
    assert!(!report.join("release.patch").exists());
    assert_eq!(snapshot(&root), before);

    // --publish: only from a clean git work tree, with the right tag, before any cargo command.
    commit_all(&root);
    write(&root, "notes.txt", "uncommitted\n");
    let (ok, _, stderr) = release(&root, &wheels, &["--publish", "--dry-run", "--tag", "v0.1.0"]);
    assert!(!ok && stderr.contains("uncommitted changes") && stderr.contains("?? notes.txt"), "{stderr}");
    std::fs::remove_file(root.join("notes.txt")).unwrap();
    let (ok, _, stderr) = release(&root, &wheels, &["--publish", "--dry-run", "--tag", "v0.2.0"]);
    assert!(!ok && stderr.contains("the tag v0.2.0 is not v0.1.0"), "{stderr}");
    // A version without its changelog entry was not made by `cargo xtask release`.
    let manifest =
        read(&root, "crates/nvml/Cargo.toml").replace("version = \"0.1.0\"\nedition", "version = \"0.1.1\"\nedition");
    write(&root, "crates/nvml/Cargo.toml", &manifest);
    commit_all(&root);
    let (ok, _, stderr) = release(&root, &wheels, &["--publish", "--dry-run"]);
    assert!(
        !ok && stderr
            .contains("crates/nvml/Cargo.toml says 0.1.1, but the newest entry of crates/nvml/CHANGELOG.md is 0.1.0"),
        "{stderr}"
    );
}

/// The `cargo xtask` command lines of a workflow's `run` steps, as words (`\` continuations
/// joined; a line's command ends at a shell operator).
fn xtask_commands(workflow: &str) -> Vec<Vec<String>> {
    let yaml: serde_yaml::Value = serde_yaml::from_str(workflow).unwrap();
    let mut out = Vec::new();
    for job in yaml["jobs"].as_mapping().unwrap().values() {
        for step in job["steps"].as_sequence().unwrap() {
            let Some(run) = step["run"].as_str() else { continue };
            for line in run.replace("\\\n", " ").lines() {
                let Some((_, rest)) = line.split_once("cargo xtask ") else { continue };
                let words = rest
                    .split_whitespace()
                    .take_while(|w| !["|", "||", "&&", ";", ">", "2>", ")"].contains(w))
                    .map(|w| w.trim_matches('"').to_string())
                    .collect();
                out.push(words);
            }
        }
    }
    out
}

#[test]
fn the_workflows_name_only_commands_that_exist_and_run() {
    let dir = project_root().join(".github/workflows");
    let watch = std::fs::read_to_string(dir.join("header-watch.yml")).unwrap();
    let publish = std::fs::read_to_string(dir.join("release.yml")).unwrap();
    let mut named = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        named.extend(xtask_commands(&std::fs::read_to_string(entry.unwrap().path()).unwrap()));
    }
    // Every subcommand exists, and its help lists every option used.
    for words in &named {
        let out = xtask([words[0].as_str(), "--help"]);
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "`cargo xtask {}` does not exist", words[0]);
        for option in words.iter().filter(|w| w.starts_with("--")) {
            assert!(
                help.contains(&format!("{option} ")) || help.contains(&format!("{option}\n")),
                "`cargo xtask {}` has no {option}",
                words[0]
            );
        }
    }
    let watch = xtask_commands(&watch);
    let publish = xtask_commands(&publish);
    assert_eq!(watch, [["release", "--dry-run", "--report-dir", "target/release-report"]]);
    assert_eq!(publish, [["release", "--publish", "--tag", "$GITHUB_REF_NAME", "--dist", "target/dist"]]);

    // The watch job's command, as written, in a workspace with nothing new: the job opens a
    // pull request only when release.patch exists.
    let (root, _) = scaffold("release-watch");
    let wheels = scratch("release-watch-98");
    wheel(&wheels, &fixture("diff-api").join("old.h"), "98.0.1");
    let args: Vec<&str> = watch[0][1..].iter().map(String::as_str).collect();
    let (ok, _, stderr) = release(&root, &wheels, &args);
    assert!(ok, "{stderr}");
    assert!(read(&root, "target/release-report/release.json").contains("\"release\": false"));
    assert!(!root.join("target/release-report/release.patch").exists());
    // The release job's command, as written, with a tag that is not the release's: refused
    // before cargo publish (the simulated release below publishes with --dry-run).
    commit_all(&root);
    let args: Vec<&str> = publish[0][1..].iter().map(|w| if w == "$GITHUB_REF_NAME" { "v9.9.9" } else { w }).collect();
    let (ok, _, stderr) = release(&root, &wheels, &args);
    assert!(!ok && stderr.contains("the tag v9.9.9 is not v0.1.0"), "{stderr}");
}

/// The reduced test step of the simulated release: the freshness and real-header checks of
/// the generator, and the safe crate's call of every generated method (the 8 new ones
/// included) against the mock, with a short hostile-mode run.
const REDUCED_TESTS: &str = "cargo test -p xtask --test pipeline && \
     NVMLKIT_HOSTILE_SEEDS=2 NVMLKIT_HOSTILE_ROUNDS=10 cargo test -p nvmlkit --lib";

/// A copy of this repository as it would be had its 0.1.0 release bound nvml.h 13.4.92: that
/// header vendored instead of 13.5.37 (which the corpus list then lacks), its function history
/// and generated code, and changelogs and the rules' `released` that bind it. Its rules are
/// this repository's, ready for 13.5.37 (a maintainer writes those a new header needs before
/// the release, which stops at a rules error otherwise): they name items 13.4.92 lacks, so its
/// code is generated with them adapted to 13.4.92, as header-diff reads that header. A git work
/// tree with one commit. Its cache is this repository's (a link), so it reads headers pip has
/// fetched.
fn repository_at_13_4_92(name: &str) -> PathBuf {
    let here = project_root();
    let root = scratch(name);
    for f in workspace_files(&here).unwrap() {
        if f.starts_with("nvml-headers/13.5.37/") {
            continue;
        }
        let to = root.join(&f);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(here.join(&f), to).unwrap();
    }
    std::fs::create_dir_all(root.join("target")).unwrap();
    std::os::unix::fs::symlink(xtask::fetch::cache_dir(&here), root.join("target/nvmlkit-cache")).unwrap();
    let cached = headers::header_path(&here, "13.4.92", &Default::default()).unwrap();
    let old = cached.parent().unwrap();
    for f in ["nvml.h", "LICENSE.txt", "provenance.yaml"] {
        let to = root.join("nvml-headers/13.4.92").join(f);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(old.join(f), to).unwrap();
    }
    let corpus = read(&root, headers::CORPUS_FILE);
    let corpus: String = corpus.lines().filter(|l| !l.starts_with("13.5.37 ")).map(|l| format!("{l}\n")).collect();
    write(&root, headers::CORPUS_FILE, &corpus);
    for (_, dir) in PACKAGES {
        let file = format!("{dir}/CHANGELOG.md");
        write(&root, &file, &read(&root, &file).replace("13.5.37", "13.4.92"));
    }
    let rules = read(&root, RULES_FILE);
    assert!(rules.contains("\nreleased: 13.5.37\n"), "{RULES_FILE} binds the release of 13.5.37");
    write(&root, RULES_FILE, &rules.replace("\nreleased: 13.5.37\n", "\nreleased: 13.4.92\n"));
    let pip = Default::default();
    assert!(xtask::commands::history::run(&root, false, &pip).unwrap());
    let model = xtask::pipeline::header_model(&root, &Default::default()).unwrap();
    let mut rules = xtask::rules::load(&root.join(RULES_FILE)).unwrap();
    let adapted = xtask::rules::adapt::to_header(&mut rules, &model);
    assert!(!adapted.left_out.is_empty(), "the rules name items 13.5.37 adds");
    // Beside the rules file, where regen finds the mock's table and the function history.
    let file = root.join("gen-config/nvml-13.4.92.yaml");
    std::fs::write(&file, serde_yaml::to_string(&rules).unwrap()).unwrap();
    let inputs = xtask::pipeline::Inputs { rules: Some(file.clone()), ..Default::default() };
    assert!(xtask::commands::regen::run(&root, &inputs, false, &root).unwrap());
    std::fs::remove_file(&file).unwrap();
    commit_all(&root);
    root
}

/// The version in a `Cargo.toml`.
fn version_of(root: &Path, dir: &str) -> String {
    let text = read(root, &format!("{dir}/Cargo.toml"));
    let line = text.lines().find(|l| l.starts_with("version = ")).unwrap();
    line.trim_start_matches("version = ").trim_matches('"').to_string()
}

#[test]
fn a_release_from_13_4_92_to_13_5_37() {
    if !corpus_enabled("a_release_from_13_4_92_to_13_5_37") {
        return;
    }
    let here = project_root();
    // The history reads every published header: fetch into the cache what is not there (CI's
    // corpus test has fetched them all); from here on pip reads only the wheel directory.
    for e in headers::corpus(&here).unwrap() {
        headers::header_path(&here, &e.version, &Default::default()).unwrap();
    }
    let wheels = scratch("release-13.5.37-wheels");
    wheel(&wheels, &here.join("nvml-headers/13.5.37/nvml.h"), "13.5.37");
    let work = scratch("release-13.5.37-work");
    let test_cmd = std::env::var("NVMLKIT_RELEASE_TEST_CMD").unwrap_or_else(|_| REDUCED_TESTS.to_string());
    let run = |root: &Path, test_cmd: &str, report: &Path| {
        let start = std::time::Instant::now();
        let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
            .args(["release", "--test-cmd", test_cmd, "--report-dir"])
            .arg(report)
            .arg("--root")
            .arg(root)
            .arg("--find-links")
            .arg(&wheels)
            .arg("--work-dir")
            .arg(&work)
            .output()
            .unwrap();
        let (ok, stdout, stderr) = outcome(out);
        eprintln!("the release in {} took {:.0?}", root.display(), start.elapsed());
        assert!(ok, "{stdout}\n{stderr}");
        stdout
    };

    let a = repository_at_13_4_92("release-a");
    let report_a = scratch("release-a-report");
    let stdout = run(&a, &test_cmd, &report_a);

    // The versions follow the verdicts: header-diff's for the safe crate, and the header's own
    // changes for nvmlkit-sys and the mock. Before 1.0, breaking bumps the minor, else the patch.
    let out = xtask(["header-diff", "13.4.92", "13.5.37", "--format", "json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let diff: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let none = |v: &serde_json::Value| v.as_array().is_some_and(|a| a.is_empty());
    let sections = ["functions", "versioned_defines", "records", "enums", "constants", "types"];
    assert!(sections.iter().all(|s| none(&diff[s]["removed"])), "13.5.37 removes nothing");
    assert!(["functions", "records", "types"].iter().all(|s| none(&diff[s]["changed"])));
    let bump = |breaking: bool| if breaking { "0.2.0" } else { "0.1.1" };
    assert_eq!(version_of(&a, "crates/nvml-sys"), bump(false), "the header adds items and breaks none");
    assert_eq!(version_of(&a, "crates/nvml-mock"), bump(false), "8 new exports, none removed");
    // A header that removes nothing is a minor release of the stable API (issue 25): new
    // methods and types, and fields added to `#[non_exhaustive]` records.
    let verdict = diff["safe"]["semver"].as_str().unwrap();
    assert_eq!(verdict, "minor", "{}", diff["safe"]);
    // The crate's own changes since 0.1.0 (against the listing 0.1.0 left) break its API: a
    // major release whatever header-diff says.
    let listed = xtask::diff::listing::released(&here, "0.1.0").unwrap().expect("crates/nvml/api/0.1.0.txt");
    let sources = xtask::diff::SafeApi::of_sources(&a.join("crates/nvml/src")).unwrap();
    let own = xtask::diff::listing::breaks(&listed, &sources);
    let nvmlkit_version = bump(verdict == "major" || !own.is_empty());
    assert_eq!(version_of(&a, "crates/nvml"), nvmlkit_version, "header-diff says {verdict}, {} own breaks", own.len());
    assert!(a.join(format!("crates/nvml/api/{nvmlkit_version}.txt")).is_file(), "the release's listing");
    for (package, version) in [("nvmlkit-sys", "0.1.1"), ("nvmlkit-mock", "0.1.1"), ("nvmlkit", nvmlkit_version)] {
        assert!(read(&a, "Cargo.lock").contains(&format!("name = \"{package}\"\nversion = \"{version}\"\n")));
    }
    let nvmlkit = read(&a, "crates/nvml/Cargo.toml");
    assert!(nvmlkit.contains("path = \"../nvml-sys\", version = \"0.1.1\" }"), "{nvmlkit}");
    assert!(nvmlkit.contains("nvmlkit-mock = { path = \"../nvml-mock\", version = \"0.1.1\" }"), "{nvmlkit}");
    assert_eq!(read(&a, "crates/nvml-mock/Cargo.toml").matches("version = \"0.1.1\" }").count(), 2);
    let short = &nvmlkit_version[..3];
    assert!(read(&a, "crates/nvml/README.md").contains(&format!("nvmlkit = \"{short}\"")));

    // The changelogs: the 8 new functions, with their methods and signatures in nvmlkit's.
    let added: Vec<&str> =
        diff["functions"]["added"].as_array().unwrap().iter().map(|f| f["name"].as_str().unwrap()).collect();
    assert_eq!(added.len(), 8, "{added:?}");
    let sys = read(&a, "crates/nvml-sys/CHANGELOG.md");
    let mock = read(&a, "crates/nvml-mock/CHANGELOG.md");
    let safe = read(&a, "crates/nvml/CHANGELOG.md");
    assert!(
        sys.contains(
            "\n## 0.1.1 (nvml.h 13.5.37)\n\nBinds nvml.h 13.5.37 (the previous release, 0.1.0, bound 13.4.92)."
        ),
        "{sys}"
    );
    assert!(sys.contains("### New functions (8)") && mock.contains("### New exported functions (8)"), "{sys}\n{mock}");
    assert!(safe.contains(&format!("\n## {nvmlkit_version} (nvml.h 13.5.37)\n")), "{safe}");
    assert!(safe.contains("### New functions and their methods (8)"), "{safe}");
    // nvmlkit's hand-written `## Unreleased` changes end its new entry and leave the file.
    let entry = &safe[safe.find(&format!("\n## {nvmlkit_version} ")).unwrap()..];
    let entry = &entry[..entry[1..].find("\n## ").map_or(entry.len(), |i| i + 1)];
    let unreleased = read(&here, "crates/nvml/CHANGELOG.md");
    let first_change = unreleased
        .split("\n## Unreleased\n\n")
        .nth(1)
        .and_then(|rest| rest.lines().next())
        .expect("crates/nvml/CHANGELOG.md lists its own changes under ## Unreleased");
    assert!(entry.contains(&format!("\n### Changes of the crate itself\n\n{first_change}\n")), "{entry}");
    assert!(!safe.contains("\n## Unreleased\n"), "{safe}");
    for f in &added {
        assert!(sys.contains(&format!("- `{f}`: `nvmlReturn_t {f}(")), "{f}\n{sys}");
        assert!(mock.contains(&format!("- `{f}`\n")), "{f}\n{mock}");
        let line = safe.lines().find(|l| l.starts_with(&format!("- `{f}`"))).unwrap_or_else(|| panic!("{f}\n{safe}"));
        assert!(line.contains("`Device::") || line.contains("`Nvml::"), "{line}");
        assert!(line.contains(": `fn "), "{line}");
    }
    assert!(
        safe.contains(
            "- `nvmlDeviceGetGpuUptime_v1`: `Device::gpu_uptime`: `fn gpu_uptime(&self) -> Result<GpuUptime, Error>`"
        ),
        "{safe}"
    );
    assert!(
        safe.contains("- `nvmlDeviceGetNvLinkInfo_v3`, a new version of `nvmlDeviceGetNvLinkInfo`: `Device::nvlink_info` calls it first"),
        "{safe}"
    );
    // The field 13.5.37 adds to a returned record is a change, not a break.
    assert!(!safe.contains("### Breaking changes") && safe.contains("### Changes"), "{safe}");
    assert!(safe.contains("- `NvLinkInfo`: field `is_nvle_ready: bool` added"), "{safe}");
    // The 0.1.0 entries are kept, below.
    assert!(safe.contains("\n## 0.1.0 (nvml.h 13.4.92)\n"));

    // History and regen ran: the generated files and the history are this repository's, which
    // are generated from 13.5.37 by the same rules.
    let generated = |root: &Path| -> Vec<(String, Vec<u8>)> {
        snapshot(root)
            .into_iter()
            .filter(|(f, _)| {
                f.contains("/src/generated/")
                    || f == "gen-config/function-history.yaml"
                    || f == "nvml-headers/13.5.37/nvml.h"
            })
            .collect()
    };
    let ours = generated(&here);
    assert!(ours.len() > 100);
    assert!(generated(&a) == ours, "the release's generated files differ from this repository's");
    // 13.5.37 keeps nothing of 13.4.92 (it removes nothing): `released` moved forward to it
    // alone, as this repository's rules say.
    assert_eq!(read(&a, RULES_FILE), read(&here, RULES_FILE));
    // The tests and the packages.
    assert!(stdout.contains(&format!("[5/7] tests: {test_cmd}")) && stdout.contains("[6/7] cargo package"), "{stdout}");
    for (package, version) in [("nvmlkit-sys", "0.1.1"), ("nvmlkit-mock", "0.1.1"), ("nvmlkit", nvmlkit_version)] {
        assert!(work.join(format!("target/package/{package}-{version}.crate")).is_file(), "{package} {version}");
    }

    // The same release again, from a fresh copy: the same changelogs, versions and patch. (The
    // tests passed above; this run checks that the release is deterministic.)
    let b = repository_at_13_4_92("release-b");
    let report_b = scratch("release-b-report");
    run(&b, "true", &report_b);
    for f in ["release.patch", "body.md", "title.txt", "release.json"] {
        assert!(read(&report_a, f) == read(&report_b, f), "{f} differs between two runs");
    }
    for (_, dir) in PACKAGES {
        for f in ["CHANGELOG.md", "Cargo.toml"] {
            assert_eq!(read(&a, &format!("{dir}/{f}")), read(&b, &format!("{dir}/{f}")));
        }
    }
    // The patch is what the watch job applies: it turns the 13.4.92 state into the release.
    git(&b, &["apply", "-R", "--check", report_a.join("release.patch").to_str().unwrap()]).unwrap();

    // Publishing, as the release job does it, but with --dry-run.
    commit_all(&a);
    let tag = format!("v{nvmlkit_version}");
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["release", "--publish", "--dry-run", "--tag", &tag, "--root"])
        .arg(&a)
        .env("CARGO_TARGET_DIR", work.join("target"))
        .output()
        .unwrap();
    let (ok, stdout, stderr) = outcome(out);
    assert!(ok, "{stdout}\n{stderr}");
    assert!(
        stdout.contains(&format!("publishing nvmlkit-sys 0.1.1, nvmlkit-mock 0.1.1, nvmlkit {nvmlkit_version}")),
        "{stdout}"
    );
    assert!(stderr.contains("Uploading nvmlkit v") && stderr.contains("aborting upload due to dry run"), "{stderr}");
}

/// Every change of the safe crate since its last release that breaks that release's API (its
/// listing, `crates/nvml/api/<version>.txt`, against the sources) is listed in the changelog's
/// `## Unreleased` section, which the next release's entry takes in.
#[test]
fn the_changelog_lists_each_break_of_the_last_release() {
    let here = project_root();
    let version = version_of(&here, "crates/nvml");
    let Some(listed) = xtask::diff::listing::released(&here, &version).unwrap() else {
        panic!("crates/nvml/api/{version}.txt: the release of {version} left no listing")
    };
    let sources = xtask::diff::SafeApi::of_sources(&here.join("crates/nvml/src")).unwrap();
    let changelog = read(&here, "crates/nvml/CHANGELOG.md");
    let start = changelog.find("\n## Unreleased\n").map(|i| i + 1);
    let unreleased = start.map_or("", |s| {
        let rest = &changelog[s + 1..];
        &changelog[s..s + 1 + rest.find("\n## ").unwrap_or(rest.len())]
    });
    let missing: Vec<String> = xtask::diff::listing::breaks(&listed, &sources)
        .iter()
        .map(xtask::diff::listing::changelog_line)
        .filter(|line| !unreleased.contains(line.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "{} break(s) of {version}'s API that crates/nvml/CHANGELOG.md's Unreleased section does not list \
         (`cargo xtask api --since {version}` prints each line):\n{}",
        missing.len(),
        missing.join("\n")
    );
}
