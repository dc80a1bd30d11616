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
/// Each header gets `gen-config/nvml.yaml` less the rules naming handles and functions it
/// lacks, and the `absent_fields` its families do not use: the rules are written for the
/// default header, and older headers predate some handles (`nvmlSystemEventSet_t` is new in
/// 12.9, `nvmlGpmSample_t` in 11.8), functions and record layouts, which the rules stage
/// rightly reports for a regen. Any other rule error or
/// warning fails the test. The safe crate is generated too (its names must not clash), but
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
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(e) = entries.get(i) else { break };
                let member = ws.join(&e.version);
                if let Err(err) = generate_member(&root, &default, &headers[i], &member, &e.version, &manifest) {
                    failures.lock().unwrap().push(format!("{}: {err:#}", e.version));
                }
            });
        }
    });
    let generated = started.elapsed();
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "the generator failed on {} header(s):\n{}", failures.len(), failures.join("\n"));

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
) -> anyhow::Result<()> {
    let inputs = Inputs { header: Some(header.display().to_string()), ..Inputs::default() };
    let model = pipeline::header_model(root, &inputs)?;
    let (mut rules, shown) = pipeline::load_rules(root, &inputs)?;
    rules.handles.retain(|handle, _| model.handles.contains_key(handle));
    let has = |f: &str| model.functions.contains_key(f.split('.').next().unwrap_or(f));
    rules.renames.retain(|f, _| has(f));
    rules.manual.retain(|f, _| has(f));
    rules.directions.retain(|f, _| has(f));
    rules.bitflags.retain(|_, flags| model.constants.keys().any(|c| c.starts_with(&flags.prefix)));
    for flags in rules.bitflags.values_mut() {
        flags.params.retain(|p| has(p));
    }
    rules.owned.retain(|handle, _| model.handles.contains_key(handle));
    rules.not_arrays.retain(|f, _| has(f));
    rules.arrays.retain(|f, _| has(f));
    rules.booleans.retain(|f| has(f));
    let has_record = |k: &str| model.records.contains_key(k.split('.').next().unwrap_or(k));
    rules.tagged_values.retain(|k, tag| has_record(k) && (!tag.contains('.') || has(tag) || has_record(tag)));
    let has_field = |k: &str, other: &str| {
        let (r, f) = k.split_once('.').unwrap_or((k, ""));
        model.records.get(r).is_some_and(|r| [f, other].iter().all(|f| r.fields.iter().any(|g| g.name == *f)))
    };
    let is_constant = |c: &str| {
        model.constants.contains_key(c) || model.enums.values().any(|e| e.constants.iter().any(|k| k.name == c))
    };
    // A union whose tag an older header names otherwise (before 12.2.140 the scheduler's
    // `arrMode` was the flag `isEnabledARR`) stays raw there; its warning is expected.
    let mut left_raw = Vec::new();
    for rule in rules.tagged_unions.values_mut() {
        left_raw.extend(rule.fields.keys().filter(|k| has_field(k, k.split_once('.').map_or("", |(_, f)| f))).cloned());
        rule.fields.retain(|k, tag| has_field(k, tag));
        left_raw.retain(|k| !rule.fields.contains_key(k));
        rule.members.retain(|c, _| is_constant(c));
    }
    rules.tagged_unions.retain(|_, rule| model.records.contains_key(&rule.union) && !rule.fields.is_empty());
    rules.byte_unions.retain(|k, _| has_field(k, k.split_once('.').map_or("", |(_, f)| f)));
    rules.inputs.retain(|r, _| model.records.contains_key(r));
    rules.former_names.retain(|k, _| has_record(k));
    rules.list_fields.retain(|k, _| has_record(k));
    rules.values.retain(|_, v| v.typedef.as_ref().is_none_or(|t| model.typedefs.contains_key(t)));
    // Words of the areas that name functions or types the header does not have yet.
    for (group, sub, word) in xtask::rules::areas::Areas::unused_words(&rules.areas, &model) {
        if let Some(words) = rules.areas.get_mut(&group).and_then(|subs| subs.get_mut(&sub)) {
            words.retain(|w| *w != word);
        }
    }
    for subs in rules.areas.values_mut() {
        subs.retain(|_, words| !words.is_empty());
    }
    rules.areas.retain(|group, subs| !subs.is_empty() && model.groups.iter().any(|g| &g.name == group));
    // Planned once to adapt the rest. Values of fields an older layout lacks matter only where
    // the header's family converts such a layout into the record, which older headers may not.
    // Directions an older header documents itself are not needed; parameters it leaves
    // undocumented are read as the default header documents them.
    let (probe, _) = pipeline::plan_model(model.clone(), &rules, &shown)?;
    for key in probe.plan.unused_absent_fields(&probe.bindings) {
        rules.absent_fields.remove(&key);
    }
    for (key, _) in xtask::plan::redundant_directions(&probe.bindings, &rules) {
        rules.directions.remove(&key);
    }
    for call in probe.plan.functions.values().filter_map(|c| c.as_ref().ok()) {
        for key in call.undocumented_directions() {
            let param = key.split_once('.').map_or("", |(_, p)| p);
            let documented = default.plan.functions.get(&call.symbol).and_then(|c| c.as_ref().ok());
            let direction = documented
                .and_then(|c| c.params.iter().find(|p| p.name == param))
                .filter(|p| !matches!(&p.basis, xtask::plan::Basis::Doc(cue) if cue.is_empty()));
            if let Some(dir) = direction.and_then(|p| p.role.direction()) {
                rules.directions.insert(key, dir);
            }
        }
    }
    let (planned, diags) = pipeline::plan_model(model, &rules, &shown)?;
    let expected = |d: &String| left_raw.iter().any(|k| d.contains(&format!("`{k}` is a union no")));
    let problems: Vec<String> =
        diags.iter().filter(|d| d.level != Level::Note).map(|d| d.to_string()).filter(|d| !expected(d)).collect();
    anyhow::ensure!(problems.is_empty(), "rules: {}", problems.join("; "));
    let history = xtask::history::DriverTable::default();
    regen::write(member, &xtask::emit::emit_all(&planned.bindings, &planned.plan, &history)?)?;
    let crate_dir = member.join("crates/nvml-sys");
    for f in SYS_FILES {
        std::fs::copy(root.join("crates/nvml-sys").join(f), crate_dir.join(f))?;
    }
    let own = manifest
        .replace("name = \"nvmlkit-sys\"", &format!("name = \"nvml-sys-{}\"", version.replace('.', "-")))
        .replace("name = \"nvml_sys\"", &format!("name = \"nvml_sys_{}\"", version.replace('.', "_")));
    std::fs::write(crate_dir.join("Cargo.toml"), own)?;
    Ok(())
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
    // nvmlDeviceGetSramUniqueUncorrectedEccErrorCounts takes a record that holds a pointer.
    assert_eq!((automatic(&d), d.wrapping.len()), (8, 9));
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
