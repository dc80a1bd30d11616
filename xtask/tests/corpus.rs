//! The corpus: every published nvml.h (`nvml-headers/corpus.txt`) through the generator and a
//! compiler, real header pairs through header-diff, and update-header against PyPI.
//!
//! Opt-in, because pip fetches the headers (into the header cache, once): run with
//! `NVML_CORPUS=1 cargo test -p xtask --test corpus`. CI sets it (`.ci/run`). Without it each
//! test prints that it was skipped and passes.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use common::{corpus_enabled, scratch, xtask};
use xtask::commands::regen;
use xtask::diag::Level;
use xtask::diff::{between, HeaderDiff, Section};
use xtask::fetch::headers::{self, header_path, Provenance};
use xtask::fetch::Pip;
use xtask::pipeline::{self, Inputs};
use xtask::workspace::{project_root, RULES_FILE};

/// The files of nvml-sys that are written by hand; the generated ones come from the header.
const SYS_FILES: &[&str] = &["src/lib.rs", "src/loader.rs", "src/macros.rs", "src/fields.rs"];

/// Generates nvmlkit-sys for each published header, each as a member of one throwaway
/// workspace (named `nvml-sys-<version>`), and compiles them all with one `cargo check`, which
/// evaluates the layout assertions. One target directory serves all 33, so libloading is
/// built once; the headers are generated on as many threads as there are cores.
///
/// Each header gets `gen-config/nvml.yaml` adapted to it (`pipeline::adapted`: less the rules
/// whose subject it lacks, as `xtask::rules::adapt` says; older headers predate some handles,
/// `nvmlSystemEventSet_t` is new in 12.9, functions and record layouts). Every rule left must
/// hold for the header: any rule error or warning fails the test, so the rules are checked
/// against every header they cover. The safe crate is generated too (its names must not clash), but
/// only the sys crate is compiled.
#[test]
fn every_published_header_generates_a_sys_crate_that_compiles() {
    if !corpus_enabled("every_published_header_generates_a_sys_crate_that_compiles") {
        return;
    }
    let root = project_root();
    let entries = headers::corpus(&root).unwrap();
    assert_eq!(entries.len(), 33, "the corpus lists every published header");
    let ws = scratch("corpus");
    let sys = root.join("crates/nvml-sys");
    let manifest = std::fs::read_to_string(sys.join("Cargo.toml")).unwrap();
    assert!(manifest.contains("name = \"nvmlkit-sys\"") && manifest.contains("name = \"nvml_sys\""), "{manifest}");
    // Fetched one at a time, so that pip's output and failures come in order.
    let headers: Vec<PathBuf> =
        entries.iter().map(|e| header_path(&root, &e.version, &Pip::default()).unwrap()).collect();

    let default = pipeline::planned(&root, &Inputs::default()).unwrap();
    let started = Instant::now();
    let (failures, applied) = (Mutex::new(Vec::new()), Mutex::new(std::collections::BTreeSet::new()));
    let workers = on_every_core(entries.len(), |i| {
        let e = &entries[i];
        match generate_member(&root, &default, &headers[i], &ws.join(&e.version), &e.version, &manifest) {
            Ok(older) => applied.lock().unwrap().extend(older),
            Err(err) => failures.lock().unwrap().push(format!("{}: {err:#}", e.version)),
        }
    });
    let generated = started.elapsed();
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "the generator failed on {} header(s):\n{}", failures.len(), failures.join("\n"));
    // Every `older_headers` rule changes the reading of some published header.
    let applied = applied.into_inner().unwrap();
    let (rules, _) = pipeline::load_rules(&root, &Inputs::default()).unwrap();
    let older = &rules.older_headers;
    let keys =
        older.signed.keys().map(|k| format!("signed.{k}")).chain(older.inputs.keys().map(|k| format!("inputs.{k}")));
    let keys: Vec<String> = keys.chain(older.directions.keys().map(|k| format!("directions.{k}"))).collect();
    let unused: Vec<&String> = keys.iter().filter(|k| !applied.contains(*k)).collect();
    assert!(unused.is_empty(), "older_headers rules that change no published header: {unused:?}");

    // The workspace manifest of this repository (edition, dependencies, profiles), with the
    // corpus as its members.
    let members: Vec<String> = entries.iter().map(|e| format!("\"{}/crates/nvml-sys\"", e.version)).collect();
    let workspace = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let members_line = workspace.lines().find(|l| l.starts_with("members = ")).expect("a members line in Cargo.toml");
    let workspace = workspace.replace(members_line, &format!("members = [{}]", members.join(", ")));
    std::fs::write(ws.join("Cargo.toml"), workspace).unwrap();
    std::fs::copy(root.join("Cargo.lock"), ws.join("Cargo.lock")).unwrap();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args(["check", "--workspace", "--lib", "--quiet", "--message-format", "short"])
        .current_dir(&ws)
        .env("CARGO_TARGET_DIR", ws.join("target"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the corpus does not compile:\n{stderr}");
    eprintln!(
        "corpus: {} headers generated in {:.1?} on {workers} thread(s), compiled in {:.1?}",
        entries.len(),
        generated,
        started.elapsed() - generated
    );
}

/// Calls `f` with `0..n`, spread over a thread per core; returns how many threads ran.
fn on_every_core(n: usize, f: impl Fn(usize) + Sync) -> usize {
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                f(i);
            });
        }
    });
    workers
}

/// Generates nvmlkit-sys from `header` under `member/`, with the hand-written files of
/// nvml-sys beside the generated ones and `manifest` renamed after `version`. The rules are
/// the default header's (`default` is its plan), adapted to `header`.
fn generate_member(
    root: &Path,
    default: &pipeline::Planned,
    header: &Path,
    member: &Path,
    version: &str,
    manifest: &str,
) -> anyhow::Result<Vec<String>> {
    let inputs = Inputs { header: Some(header.display().to_string()), ..Inputs::default() };
    let (planned, diags, adapted) = pipeline::adapted(root, &inputs, Some(default))?;
    let expected = |d: &String| adapted.left_raw.iter().any(|k| d.contains(&format!("`{k}` is a union no")));
    let problems: Vec<String> =
        diags.iter().filter(|d| d.level != Level::Note).map(|d| d.to_string()).filter(|d| !expected(d)).collect();
    anyhow::ensure!(problems.is_empty(), "rules: {}", problems.join("; "));
    let history = xtask::history::DriverTable::default();
    let mut emit = xtask::diag::Diagnostics::new("emit");
    let out = xtask::emit::emit_all(&planned.bindings, &planned.plan, &history, &mut emit)?;
    let problems: Vec<String> = emit.items().iter().filter(|d| d.level != Level::Note).map(|d| d.to_string()).collect();
    anyhow::ensure!(problems.is_empty(), "emit: {}", problems.join("; "));
    regen::write(member, &out)?;
    let crate_dir = member.join("crates/nvml-sys");
    for f in SYS_FILES {
        std::fs::copy(root.join("crates/nvml-sys").join(f), crate_dir.join(f))?;
    }
    let own = manifest
        .replace("name = \"nvmlkit-sys\"", &format!("name = \"nvml-sys-{}\"", version.replace('.', "-")))
        .replace("name = \"nvml_sys\"", &format!("name = \"nvml_sys_{}\"", version.replace('.', "_")));
    std::fs::write(crate_dir.join("Cargo.toml"), own)?;
    Ok(adapted.older_applied)
}

/// header-diff of the 32 consecutive pairs of the corpus by version, in corpus order: made once
/// (on every core) for the tests that read them all.
fn corpus_pairs() -> &'static [HeaderDiff] {
    static PAIRS: std::sync::OnceLock<Vec<HeaderDiff>> = std::sync::OnceLock::new();
    PAIRS.get_or_init(|| {
        let entries = headers::corpus(&project_root()).unwrap();
        let results = Mutex::new(Vec::new());
        on_every_core(entries.len() - 1, |i| {
            let diff = real_diff(&entries[i].version, &entries[i + 1].version);
            results.lock().unwrap().push((i, diff));
        });
        let mut results = results.into_inner().unwrap();
        results.sort_by_key(|(i, _)| *i);
        results.into_iter().map(|(_, d)| d).collect()
    })
}

fn real_diff(old: &str, new: &str) -> HeaderDiff {
    let root = project_root();
    let diff = between(&root, old, new, None, &Pip::default()).unwrap();
    assert_eq!((diff.old.version.as_str(), diff.new.version.as_str()), (old, new));
    diff
}

/// (added, removed, changed).
fn counts(s: &Section) -> (usize, usize, usize) {
    (s.added.len(), s.removed.len(), s.changed.len())
}

fn automatic(d: &HeaderDiff) -> usize {
    d.wrapping.iter().filter(|w| matches!(w.wrapping, xtask::plan::Wrapping::Automatic(_))).count()
}

// The expected counts of the real pairs below were checked by hand against the header text,
// with a regex and brace-matching script that does not use clang: prototypes
// `… DECLDIR name(…);` compared by name and text; `#define NAME VALUE` compared by name and
// value text (aliases `#define nvmlX nvmlY` apart); top-level struct, union and enum bodies
// compared after whitespace normalisation; one-line typedefs; and `@deprecated` in the doc
// block before each prototype. No function changed signature between any two published
// headers; the fixtures in tests/fixtures/diff-api cover that.

/// 13.4.92 → 13.5.37: 8 new functions (two of them `_v2`/`_v3` of existing ones), their 8
/// structs, 15 new constants (`NVML_FI_DEV_GPU_TEMP` = 308 and `NVML_FI_PWR_SMOOTHING_LIMITED_TIME`
/// = 309 among them) and `NVML_FI_MAX` 308 → 310, and `NVML_DEVICE_VGPU_CAP_UVM_STUN` = 12
/// inserted before `NVML_DEVICE_VGPU_CAP_COUNT`, which moves 12 → 13.
#[test]
fn real_pair_13_4_92_to_13_5_37() {
    if !corpus_enabled("real_pair_13_4_92_to_13_5_37") {
        return;
    }
    let d = real_diff("13.4.92", "13.5.37");
    assert_eq!(counts(&d.functions), (8, 0, 0));
    assert_eq!(counts(&d.versioned_defines), (0, 0, 0));
    assert_eq!(counts(&d.records), (8, 0, 0));
    assert_eq!(counts(&d.enums), (0, 0, 1));
    assert_eq!(counts(&d.constants), (15, 0, 1));
    assert_eq!(counts(&d.types), (0, 0, 0));
    assert_eq!(d.deprecations.len(), 0);
    assert_eq!(d.api_changes, 33);
    let versions: Vec<(&str, &str)> = d.new_versions.iter().map(|v| (v.name.as_str(), v.previous.as_str())).collect();
    assert_eq!(
        versions,
        [
            ("nvmlDeviceGetNvLinkInfo_v3", "nvmlDeviceGetNvLinkInfo"),
            ("nvmlSystemGetConfComputeSettings_v2", "nvmlSystemGetConfComputeSettings")
        ]
    );
    assert_eq!((automatic(&d), d.wrapping.len()), (8, 8));
    let fi_max = d.constants.changed.iter().find(|c| c.name == "NVML_FI_MAX").unwrap();
    assert_eq!((fi_max.old.as_str(), fi_max.new.as_str()), ("308", "310"));
    assert!(d.rules.is_empty(), "{:?}", d.rules);
}

/// 12.9.79 → 13.0.39: 9 new functions; 12 new top-level structs plus the anonymous union inside
/// `nvmlPRMTLV_v1_t`; one new enum, a new return code and `NVML_BRAND_COUNT` 17 → 18; 31 new
/// constants, `NVML_DEVICE_ARCH_T23X` removed and `NVML_API_VERSION(_STR)` 12 → 13; 5 new
/// typedefs and `nvmlGpuFabricInfoV_t` now `nvmlGpuFabricInfo_v3_t`; and 15 functions plus
/// `nvmlGpuFabricInfo_v2_t` documented as deprecated (13.0's `DEPRECATED(ver)` expands to
/// nothing, so no attribute yet).
#[test]
fn real_pair_12_9_79_to_13_0_39() {
    if !corpus_enabled("real_pair_12_9_79_to_13_0_39") {
        return;
    }
    let d = real_diff("12.9.79", "13.0.39");
    assert_eq!(counts(&d.functions), (9, 0, 0));
    assert_eq!(counts(&d.versioned_defines), (0, 0, 0));
    assert_eq!(counts(&d.records), (13, 0, 0));
    assert_eq!(counts(&d.enums), (1, 0, 2));
    assert_eq!(counts(&d.constants), (31, 1, 2));
    assert_eq!(counts(&d.types), (5, 0, 1));
    assert_eq!(d.deprecations.len(), 16);
    assert!(d.deprecations.iter().all(|x| x.new == xtask::diff::Deprecated::Documented));
    assert_eq!(d.new_versions.len(), 0);
    assert_eq!(d.api_changes, 81);
    // nvmlDeviceGetSramUniqueUncorrectedEccErrorCounts, a list inside a versioned record, too.
    assert_eq!((automatic(&d), d.wrapping.len()), (9, 9));
}

/// 12.2.140 → 12.3.52: records and enums are named as the signatures name them, the `_t`
/// typedef with the tag in parentheses, and the typedef that names a struct is not counted a
/// second time among the types. Checked against the header text: 2 new prototypes
/// (`nvmlDeviceGetC2cModeInfoV`, `nvmlDeviceGetLastBBXFlushTime`); 3 new struct typedefs, one
/// anonymous (`} nvmlC2cModeInfo_v1_t;`) and two tagged (`typedef struct
/// nvmlComputeInstanceProfileInfo_v3_st` … `} nvmlComputeInstanceProfileInfo_v3_t;`, and the
/// GPU instance's), and no other new typedef; `nvmlGpuFabricInfo_t` changed; the encoder query
/// type (`typedef enum nvmlEncoderQueryType_enum` … `} nvmlEncoderType_t;`) and the return
/// codes gained values; 6 new constants (3 of them the new structs' version macros) and
/// `NVML_VGPU_SCHEDULER_ARR_DEFAULT` gone. Before, the two tagged structs also counted as 2
/// added typedefs (17 changes).
#[test]
fn real_pair_12_2_140_to_12_3_52_names_c_types_as_signatures_do() {
    if !corpus_enabled("real_pair_12_2_140_to_12_3_52_names_c_types_as_signatures_do") {
        return;
    }
    let d = real_diff("12.2.140", "12.3.52");
    assert_eq!(counts(&d.functions), (2, 0, 0));
    assert_eq!(counts(&d.records), (3, 0, 1));
    assert_eq!(counts(&d.enums), (0, 0, 2));
    assert_eq!(counts(&d.constants), (6, 1, 0));
    assert_eq!(counts(&d.types), (0, 0, 0));
    assert_eq!(d.api_changes, 15);
    let added: Vec<&str> = d.records.added.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(
        added,
        [
            "nvmlC2cModeInfo_v1_t",
            "nvmlComputeInstanceProfileInfo_v3_t (nvmlComputeInstanceProfileInfo_v3_st)",
            "nvmlGpuInstanceProfileInfo_v3_t (nvmlGpuInstanceProfileInfo_v3_st)"
        ]
    );
    let enums: Vec<&str> = d.enums.changed.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(enums, ["nvmlEncoderType_t (nvmlEncoderQueryType_enum)", "nvmlReturn_t (nvmlReturn_enum)"]);
}

/// 13.0.39 → 13.0.87: the field IDs from 251 on were renumbered (23 of them), next to 2 new
/// functions, 1 struct and 3 constants.
#[test]
fn real_pair_13_0_39_to_13_0_87_shows_renumbered_field_ids() {
    if !corpus_enabled("real_pair_13_0_39_to_13_0_87_shows_renumbered_field_ids") {
        return;
    }
    let d = real_diff("13.0.39", "13.0.87");
    assert_eq!(counts(&d.functions), (2, 0, 0));
    assert_eq!(counts(&d.records), (1, 0, 0));
    assert_eq!(counts(&d.constants), (3, 0, 23));
    assert!(d.constants.changed.iter().all(|c| c.name.starts_with("NVML_FI_")));
    let md = d.to_markdown();
    assert!(md.contains("- `NVML_FI_PWR_SMOOTHING_ENABLED`: `256` → `251`"), "{md}");
    assert_eq!(d.api_changes, 29);
}

/// Every header update of the corpus (the 32 consecutive pairs of `nvml-headers/corpus.txt`)
/// through header-diff: under the current rules and generator, at most 4 would be a major
/// release of nvmlkit, each only because of what NVIDIA changed in the header: it removed
/// something the crates cannot keep (a field of a record that is still there: the record's new
/// layout has no place for it; 12.2.128 → 12.2.140 and 12.2.140 → 12.3.52), or it added the
/// enum that a parameter's documentation names (`nvmlNvlinkVersion_t` in 12.8.55, which
/// `Device::nvlink_version` returns from then on) or a list record's field's
/// (`nvmlProcessMode_t` in 13.3.29, which `Device::running_process_detail_list` takes from then
/// on). Removed functions and constants are kept
/// (deprecated); fields, variants and layouts added are minor; the raw conversions are outside
/// the verdict. The report of every pair is printed (run with `--nocapture`).
#[test]
fn every_header_update_is_a_minor_release_but_for_what_nvidia_removed_or_typed() {
    if !corpus_enabled("every_header_update_is_a_minor_release_but_for_what_nvidia_removed_or_typed") {
        return;
    }
    let results = corpus_pairs();
    assert_eq!(results.len(), 32);
    let mut majors = Vec::new();
    for d in results {
        let (old, new) = (&d.old.version, &d.new.version);
        eprintln!("{old} → {new}: {} ({} kept)", d.safe.semver, d.safe.kept.len());
        for k in &d.safe.kept {
            eprintln!("    kept {k}");
        }
        for b in &d.safe.breaking {
            eprintln!("    major: `{}` {} ({:?}): {}", b.item, b.change, b.cause, b.why);
        }
        if d.safe.semver == "major" {
            majors.push(d);
        }
    }
    let not_removals: Vec<String> = majors
        .iter()
        .flat_map(|d| d.safe.breaking.iter().map(move |b| (d, b)))
        .filter(|(_, b)| !matches!(b.cause, xtask::diff::Cause::NvidiaRemoved | xtask::diff::Cause::NvidiaTyped))
        .map(|(d, b)| format!("{} → {}: `{}` {}: {}", d.old.version, d.new.version, b.item, b.change, b.why))
        .collect();
    assert!(
        not_removals.is_empty(),
        "majors not caused by a removal or a new enum in the header:\n{}",
        not_removals.join("\n")
    );
    let names: Vec<String> = majors.iter().map(|d| format!("{} → {}", d.old.version, d.new.version)).collect();
    assert!(majors.len() <= 4, "{} of 32 header updates would be major releases: {names:?}", majors.len());
}

/// A header is the same header however it is named: header-diff gives each of the 32 pairs of
/// the corpus the same report, its verdict included, when both headers are files with nothing
/// beside them (as a user with a header file has them) as when they are named by version. The
/// files are known by their content (their hash in `nvml-headers/corpus.txt`); the headers'
/// names are left out of the comparison, since five headers shipped in two or three releases
/// each (12.4.99 and 12.4.127, say), and a file of one is the newest of them.
#[test]
fn header_diff_judges_a_header_file_as_its_version() {
    if !corpus_enabled("header_diff_judges_a_header_file_as_its_version") {
        return;
    }
    let root = project_root();
    let entries = headers::corpus(&root).unwrap();
    let dir = scratch("corpus-by-path");
    let files: Vec<PathBuf> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let file = dir.join(i.to_string()).join("nvml.h");
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::copy(header_path(&root, &e.version, &Pip::default()).unwrap(), &file).unwrap();
            file
        })
        .collect();
    let pairs = corpus_pairs();
    let differences = Mutex::new(Vec::new());
    let verdicts = Mutex::new(Vec::new());
    on_every_core(entries.len() - 1, |i| {
        let (old, new) = (&entries[i].version, &entries[i + 1].version);
        let by_version = &pairs[i];
        let (old_file, new_file) = (files[i].display().to_string(), files[i + 1].display().to_string());
        let by_file = between(&root, &old_file, &new_file, None, &Pip::default()).unwrap();
        verdicts
            .lock()
            .unwrap()
            .push(format!("{old} → {new}: {} by version, {} by file", by_version.safe.semver, by_file.safe.semver));
        let report = |d: &HeaderDiff| {
            let mut v = serde_json::to_value(d).unwrap();
            let o = v.as_object_mut().unwrap();
            o.remove("old");
            o.remove("new");
            serde_json::to_string_pretty(&v).unwrap()
        };
        let (a, b) = (report(by_version), report(&by_file));
        if a != b {
            let first = a.lines().zip(b.lines()).find(|(x, y)| x != y).map(|(x, y)| format!("`{x}` / `{y}`"));
            differences.lock().unwrap().push(format!("{old} → {new}: the reports differ, first at {first:?}"));
        }
    });
    let mut verdicts = verdicts.into_inner().unwrap();
    verdicts.sort_by_key(|v| xtask::model::version_key(v.split(' ').next().unwrap_or("")));
    eprintln!("{}", verdicts.join("\n"));
    let differences = differences.into_inner().unwrap();
    assert!(differences.is_empty(), "{} of 32 pairs differ by name:\n{}", differences.len(), differences.join("\n"));
}

/// A scratch workspace with rules, the corpus list and 13.4.92 as its newest header.
fn workspace_at_13_4_92(name: &str) -> PathBuf {
    let root = project_root();
    let ws = scratch(name);
    let cached = header_path(&root, "13.4.92", &Pip::default()).unwrap();
    let dir = ws.join("nvml-headers/13.4.92");
    std::fs::create_dir_all(&dir).unwrap();
    for f in ["nvml.h", "provenance.yaml", "LICENSE.txt"] {
        std::fs::copy(cached.with_file_name(f), dir.join(f)).unwrap();
    }
    std::fs::create_dir_all(ws.join("gen-config")).unwrap();
    std::fs::copy(root.join(RULES_FILE), ws.join(RULES_FILE)).unwrap();
    let corpus = std::fs::read_to_string(root.join(headers::CORPUS_FILE)).unwrap();
    let without: String = corpus.lines().filter(|l| !l.starts_with("13.5.37 ")).map(|l| format!("{l}\n")).collect();
    std::fs::write(ws.join(headers::CORPUS_FILE), without).unwrap();
    ws
}

fn files_under(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> =
        walk(dir).into_iter().map(|p| p.strip_prefix(dir).unwrap().display().to_string()).collect();
    out.sort();
    out
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .flat_map(|e| {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p)
            } else {
                vec![p]
            }
        })
        .collect()
}

/// update-header against PyPI reproduces the vendored 13.5.37 byte for byte, and `--latest`
/// finds a version at least that new.
#[test]
fn update_header_from_pypi_reproduces_the_vendored_header() {
    if !corpus_enabled("update_header_from_pypi_reproduces_the_vendored_header") {
        return;
    }
    let root = project_root();
    let ws = workspace_at_13_4_92("corpus-update");
    let out = xtask(["update-header".as_ref(), "13.5.37".as_ref(), "--root".as_ref(), ws.as_os_str()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("# nvml.h 13.4.92 → nvml.h 13.5.37"), "{stdout}");
    for f in ["nvml.h", "provenance.yaml", "LICENSE.txt"] {
        let ours = std::fs::read(ws.join("nvml-headers/13.5.37").join(f)).unwrap();
        assert!(
            ours == std::fs::read(root.join("nvml-headers/13.5.37").join(f)).unwrap(),
            "{f} differs from the vendored one"
        );
    }
    let corpus = std::fs::read_to_string(ws.join(headers::CORPUS_FILE)).unwrap();
    assert_eq!(corpus, std::fs::read_to_string(root.join(headers::CORPUS_FILE)).unwrap());

    // A version PyPI does not have changes nothing.
    let before = files_under(&ws.join("nvml-headers"));
    let out = xtask(["update-header".as_ref(), "13.5.999".as_ref(), "--root".as_ref(), ws.as_os_str()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("cannot download nvidia-nvml-dev==13.5.999"), "{stderr}");
    assert_eq!(files_under(&ws.join("nvml-headers")), before);

    // The newest release is 13.5.37 or later.
    let out = xtask(["update-header".as_ref(), "--latest".as_ref(), "--root".as_ref(), ws.as_os_str()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let latest = headers::default_version(&ws).unwrap();
    assert!(xtask::model::version_key(&latest) >= xtask::model::version_key("13.5.37"), "{latest}");
    let prov: Provenance =
        headers::read_provenance(&ws.join("nvml-headers").join(&latest).join("provenance.yaml")).unwrap();
    assert_eq!(prov.package, "nvidia-nvml-dev");
}
