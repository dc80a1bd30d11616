//! End-to-end tests of the generator: fixture goldens, the real header, freshness of the
//! checked-in files, and bad input.
//!
//! Set `UPDATE_GOLDEN=1` to rewrite the fixtures' expected files.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{check_golden, fixture, scratch};
use xtask::commands::regen;
use xtask::emit::{GeneratedFile, Output};
use xtask::pipeline::{generate, Inputs};
use xtask::workspace::project_root;

fn fixture_inputs(case: &str) -> Inputs {
    let dir = fixture(case);
    Inputs {
        header: Some(dir.join("input.h").display().to_string()),
        rules: Some(dir.join("rules.yaml")),
        verbose: false,
        keep_from: None,
    }
}

#[test]
fn fixture_goldens() {
    let out = generate(&project_root(), &fixture_inputs("basic")).unwrap();
    let expected_dir = fixture("basic").join("expected");
    // `crates/nvml-sys/src/generated/x.rs` → `expected/sys/x.rs`, and likewise `mock`, `safe`.
    let short = |p: &Path| {
        let krate = p.components().nth(1).map(|c| c.as_os_str().to_string_lossy().into_owned()).unwrap_or_default();
        let dir = match krate.as_str() {
            "nvml-sys" => "sys",
            "nvml-mock" => "mock",
            _ => "safe",
        };
        let within = p.components().skip(4).collect::<PathBuf>(); // under `crates/<crate>/src/generated/`
        expected_dir.join(dir).join(within)
    };
    let mismatched: Vec<String> = out.files.iter().filter_map(|f| check_golden(&short(&f.path), &f.contents)).collect();
    assert!(mismatched.is_empty(), "goldens differ (rerun with UPDATE_GOLDEN=1 and review): {mismatched:?}");
}

#[test]
fn fixture_model_has_every_construct() {
    let b = xtask::pipeline::bindings(&project_root(), &fixture_inputs("basic")).unwrap();
    let m = &b.model;
    assert_eq!(m.functions.len(), 14);
    let legacy: Vec<&str> = m.functions.values().filter(|f| f.legacy).map(|f| f.name.as_str()).collect();
    assert_eq!(legacy, ["nvmlDeviceGetCount", "nvmlInit"]);
    assert!(m.functions["nvmlDeviceGetTemperature"].deprecated);
    assert!(!m.functions["nvmlDeviceGetTemperatureV"].deprecated);
    // Enum values above INT_MAX and duplicates survive.
    let flags = &m.enums["nvmlFlags_t"];
    assert_eq!(flags.constants[1].value, xtask::model::IntValue::Unsigned(0x8000_0000));
    let ret = &m.enums["nvmlReturn_enum"];
    assert_eq!(ret.constants.iter().filter(|c| c.value.as_i128() == 7).count(), 2);
    // Layout comes from clang: 4 + pad + 8 + 4 + 6 (align 1) + pad + 4 + 8.
    let mem = &m.records["nvmlMemory_v2_t"];
    assert_eq!((mem.size, mem.align), (40, 8));
    let offsets: Vec<(&str, u64)> = mem.fields.iter().map(|f| (f.name.as_str(), f.offset)).collect();
    assert_eq!(offsets, [("version", 0), ("total", 8), ("type", 16), ("anon0", 20), ("data", 28), ("value", 32)]);
    assert!(m.records.contains_key("nvmlMemory_v2_t_anon0"));
    assert!(m.records.contains_key("nvmlMemory_v2_t_data"));
    // The struct-version macro is evaluated by clang, sizeof included: 40 | 2 << 24.
    let v = &m.constants["nvmlMemory_v2"].value;
    assert_eq!(
        *v,
        xtask::model::ConstValue::Int {
            value: xtask::model::IntValue::Unsigned(40 | 2 << 24),
            ty: xtask::model::Ty::UInt
        }
    );
    assert!(!m.constants.contains_key("NVML_CAP_RANGE"));
    assert_eq!(m.aliases["nvmlInit"].target, "nvmlInit_v2");
    assert_eq!(m.aliases["nvmlBlacklistInfo_t"].kind, xtask::model::AliasKind::Type);
    // Families: derived newest-first, and the rule's override.
    assert_eq!(b.families["nvmlInit"], ["nvmlInit_v2", "nvmlInit"]);
    assert_eq!(b.families["nvmlDeviceGetTemperature"], ["nvmlDeviceGetTemperature", "nvmlDeviceGetTemperatureV"]);
    assert_eq!(b.strings["nvmlDeviceGetName"].size, Some((None, 96)));
    assert!(b.arrays.is_empty(), "the count and array of nvmlDeviceGetPids are derived, not ruled");
    assert!(b.skipped.contains_key("nvmlErrorString"));
}

#[test]
fn real_header_model_counts() {
    let b = xtask::pipeline::bindings(&project_root(), &Inputs::default()).unwrap();
    let m = &b.model;
    assert_eq!(m.header.version, "13.5.37");
    assert_eq!(m.functions.len(), 436);
    assert_eq!(m.functions.values().filter(|f| f.legacy).count(), 23);
    assert_eq!(m.current_functions().count(), 413);
    let top = |k| m.records.values().filter(|r| r.kind == k && r.parent.is_none()).count();
    assert_eq!(top(xtask::model::RecordKind::Struct), 194);
    assert_eq!(top(xtask::model::RecordKind::Union), 4);
    assert_eq!(m.enums.len(), 67);
    assert_eq!(m.handles.len(), 7);
    // The header's define table points nvmlEventSetWait at _v2; the family knows _v3.
    assert_eq!(m.aliases["nvmlEventSetWait"].target, "nvmlEventSetWait_v2");
    assert_eq!(b.families["nvmlEventSetWait"], ["nvmlEventSetWait_v3", "nvmlEventSetWait_v2", "nvmlEventSetWait"]);
    assert_eq!(
        b.families["nvmlDeviceGetPciInfo"],
        ["nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2", "nvmlDeviceGetPciInfo"]
    );
}

#[test]
fn checked_in_files_are_fresh() {
    let root = project_root();
    let out = generate(&root, &Inputs::default()).unwrap();
    let problems = regen::check(&root, &out).unwrap();
    let listed: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
    assert!(problems.is_empty(), "generated files are out of date, run `cargo xtask regen`:\n{}", listed.join("\n"));
}

#[test]
fn two_regens_are_byte_identical() {
    let a = generate(&project_root(), &Inputs::default()).unwrap();
    let b = generate(&project_root(), &Inputs::default()).unwrap();
    assert_eq!(a.files, b.files);
}

#[test]
fn regen_check_names_missing_and_extra_files() {
    let dir = scratch("check-cli");
    let extra = dir.join("crates/nvml-sys/src/generated/old.rs");
    std::fs::create_dir_all(extra.parent().unwrap()).unwrap();
    std::fs::write(&extra, "// left over").unwrap();
    let out =
        Command::new(env!("CARGO_BIN_EXE_xtask")).args(["regen", "--check", "--out-root"]).arg(&dir).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("missing: crates/nvml-sys/src/generated/device_structs.rs"), "{stderr}");
    assert!(stderr.contains("extra:   crates/nvml-sys/src/generated/old.rs"), "{stderr}");
    assert!(extra.exists(), "--check must not write or delete");
    // A regen there replaces the directory: the extra file goes, and a second check passes.
    let out = Command::new(env!("CARGO_BIN_EXE_xtask")).args(["regen", "--out-root"]).arg(&dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!extra.exists());
    let out =
        Command::new(env!("CARGO_BIN_EXE_xtask")).args(["regen", "--check", "--out-root"]).arg(&dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// The function history sits beside the rules file. A function it lacks, or no history at
/// all, is a warning: regen still writes everything, with those functions in every driver.
#[test]
fn missing_or_incomplete_history_warns() {
    let dir = scratch("history");
    let regen = |rules: &Path, out: &Path| {
        let mut args = vec!["regen".into(), "--header".into(), fixture("basic").join("input.h").into_os_string()];
        args.extend(["--rules".into(), rules.as_os_str().to_owned(), "--out-root".into(), out.as_os_str().to_owned()]);
        let out = common::xtask(args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let history = |out: &Path| std::fs::read_to_string(out.join("crates/nvml-mock/src/generated/history.rs")).unwrap();
    let stderr = regen(&fixture("basic").join("rules.yaml"), &dir.join("incomplete"));
    assert!(
        stderr.contains("warning: tests/fixtures/basic/function-history.yaml: 1 function(s) of input.h are not listed (treated as present in every driver; run `cargo xtask history`): nvmlDeviceGetPids"),
        "{stderr}"
    );
    assert!(history(&dir.join("incomplete")).contains(r#"("nvmlGetExcludedCount", "13.1.68", 581, "")"#));
    let rules = dir.join("rules.yaml");
    std::fs::copy(fixture("basic").join("rules.yaml"), &rules).unwrap();
    let stderr = regen(&rules, &dir.join("none"));
    assert!(
        stderr.contains("function-history.yaml: not found: every function is treated as present in every driver"),
        "{stderr}"
    );
    assert!(history(&dir.join("none")).contains("pub static INTRODUCED: [(&str, &str, u32, &str); 0] = [];"));
}

#[test]
fn broken_header_reports_clang_locations() {
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["regen", "--check", "--header"])
        .arg(fixture("broken").join("input.h"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr.contains("input.h:5:25: error: expected ';' at end of declaration list"), "{stderr}");
    assert!(stderr.contains("input.h:9:1: error: unknown type name 'nvmlReturn_t'"), "{stderr}");
}

fn rules_error(yaml: &str) -> String {
    let dir = scratch(&format!("rules-{:x}", yaml.len() * 31 + yaml.bytes().map(usize::from).sum::<usize>()));
    let rules = dir.join("bad.yaml");
    std::fs::write(&rules, yaml).unwrap();
    let inputs = Inputs { rules: Some(rules), ..fixture_inputs("basic") };
    format!("{:#}", xtask::pipeline::bindings(&project_root(), &inputs).unwrap_err())
}

/// The model alone (`cargo xtask model`) reads the rules for the releases it keeps from: a
/// rules file that does not parse is its error too, not a model without the kept items.
#[test]
fn the_model_reports_a_rules_file_that_does_not_parse() {
    let dir = scratch("model-bad-rules");
    let rules = dir.join("bad.yaml");
    std::fs::write(&rules, "released: [13.0.39\nrenamez: {}\n").unwrap();
    let inputs = Inputs { rules: Some(rules), ..fixture_inputs("basic") };
    let e = format!("{:#}", xtask::pipeline::header_model(&project_root(), &inputs).unwrap_err());
    assert!(e.contains("bad.yaml"), "{e}");
    let good = xtask::pipeline::header_model(&project_root(), &fixture_inputs("basic")).unwrap();
    assert!(good.functions.contains_key("nvmlInit_v2"), "{:?}", good.functions.keys().collect::<Vec<_>>());
}

#[test]
fn bad_rules_name_the_rule_and_the_file() {
    let e = rules_error("handles:\n  nvmlDevice_t: Device\nrenamez: {}\n");
    assert!(e.contains("bad.yaml:3:1: unknown field `renamez`"), "{e}");
    // Errors from one phase are reported together; the message counts them.
    let e = rules_error("versions:\n  nvmlInit: [nvmlInit_v9, nvmlInit]\nstrings:\n  nvmlDeviceGetName: { buffer: nom, length: length }\n");
    assert!(e.contains("rules phase failed with 2 error(s)"), "{e}");
    let e = rules_error("handles:\n  nvmlUnit_t: Unit\n");
    assert!(e.contains("rules phase failed with 1 error(s)"), "{e}");
    // Each error names its rule and says what is wrong.
    let stderr = regen_stderr("strings:\n  nvmlDeviceGetName: { buffer: name }\nbitflags:\n  Big:\n    prefix: NVML_BIG_\n    exclude: [NVML_API_VERSION_STR]\n");
    assert!(stderr.contains("strings.nvmlDeviceGetName: a buffer without a `length` needs a `size`"), "{stderr}");
    assert!(
        stderr.contains("bitflags.Big: exclude: `NVML_API_VERSION_STR` is not a constant starting with `NVML_BIG_`"),
        "{stderr}"
    );
    assert!(stderr.contains("rules phase failed with 2 error(s)"), "{stderr}");
}

/// The error of the pipeline for the basic fixture with `yaml` as its mock table
/// (`mock.yaml` beside its rules).
fn mock_error(yaml: &str) -> String {
    let dir = scratch(&format!("mock-{:x}", yaml.len() * 31 + yaml.bytes().map(usize::from).sum::<usize>()));
    let rules = dir.join("rules.yaml");
    std::fs::copy(fixture("basic").join("rules.yaml"), &rules).unwrap();
    std::fs::write(dir.join("mock.yaml"), yaml).unwrap();
    let inputs = Inputs { rules: Some(rules), ..fixture_inputs("basic") };
    format!("{:#}", xtask::pipeline::bindings(&project_root(), &inputs).unwrap_err())
}

#[test]
fn bad_mock_tables_name_the_place() {
    let e = mock_error(
        "hand_written:
  system: [nvmlInit_v2]
answers: {}
",
    );
    assert!(e.contains("mock.yaml:3:1: unknown field `answers`"), "{e}");
    let e = mock_error(
        "hand_written:
  system: [nvmlInit_v2, nvmlNope]
  device: [nvmlInit_v2]
",
    );
    assert!(e.contains("rules phase failed with 2 error(s)"), "{e}");
    let stderr = {
        let dir = scratch("mock-cli");
        let rules = dir.join("rules.yaml");
        std::fs::copy(fixture("basic").join("rules.yaml"), &rules).unwrap();
        std::fs::write(dir.join("mock.yaml"), "hand_written:\n  system: [nvmlNope]\n").unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
            .args(["regen", "--check", "--header"])
            .arg(fixture("basic").join("input.h"))
            .arg("--rules")
            .arg(&rules)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    assert!(stderr.contains("mock.yaml: hand_written.system: `nvmlNope` is not a function of the header"), "{stderr}");
}

/// The diagnostics `cargo xtask regen --check` prints for the basic fixture with `yaml` as
/// its rules.
fn regen_stderr(yaml: &str) -> String {
    let dir = scratch(&format!("rules-cli-{:x}", yaml.len()));
    let rules = dir.join("bad.yaml");
    std::fs::write(&rules, yaml).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["regen", "--check", "--header"])
        .arg(fixture("basic").join("input.h"))
        .arg("--rules")
        .arg(&rules)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn rule_diagnostics_are_specific() {
    let b = xtask::pipeline::bindings(&project_root(), &fixture_inputs("basic")).unwrap();
    let rules = xtask::rules::parse(
        "handles: {nvmlDevice_t: Device}\narrays:\n  nvmlDeviceGetPids: { count: count, array: pids }\nskip:\n  'nvmlVgpu*': none\n  nvmlNope: x\n",
        "r.yaml",
    )
    .unwrap();
    let (_, d) = xtask::pipeline::plan_model(b.model, &rules, "r.yaml").unwrap();
    let msgs: Vec<String> = d.iter().map(|x| x.to_string()).collect();
    assert!(
        msgs.contains(
            &"warning: r.yaml: arrays.nvmlDeviceGetPids: matches nothing: the same shape is derived from the header"
                .to_string()
        ),
        "{msgs:?}"
    );
    assert!(
        msgs.contains(&"warning: r.yaml: skip.nvmlVgpu*: matches no function of the header".to_string()),
        "{msgs:?}"
    );
    assert!(
        msgs.contains(&"error: r.yaml: skip.nvmlNope: `nvmlNope` is not a function of the header".to_string()),
        "{msgs:?}"
    );
}

/// The rules that rename (keeping 0.1's names as deprecated aliases) and the one that fills a
/// field from an older layout: each wrong name, missing subject or clash is an error at its
/// place, before anything is emitted.
#[test]
fn renaming_rules_are_checked_against_the_header() {
    let b = xtask::pipeline::bindings(&project_root(), &fixture_inputs("basic")).unwrap();
    let rules = xtask::rules::parse(
        "handles: {nvmlDevice_t: Device}
directions: {nvmlDeviceGetTemperature.temp: out}
former_methods:
  nvmlDeviceGetName: [Name]
  nvmlDeviceGetPids: [memory_info]
  nvmlNope: [x]
type_renames:
  nvmlFlags_t: {name: Flag, former: Memory}
  nvmlNope_t: {name: Nope}
constant_renames:
  NVML_FLAG_HIGH: {name: NONE, former: high}
fill_from_older:
  nvmlMemory_v2_t.total: nvmlNope_st
  nvmlMemory_v2_t.nope: nvmlMemory_v2_t
",
        "r.yaml",
    )
    .unwrap();
    let (_, d) = xtask::pipeline::plan_model(b.model, &rules, "r.yaml").unwrap();
    let msgs: Vec<String> = d.iter().map(|x| x.to_string()).collect();
    for msg in [
        "error: r.yaml: former_methods.nvmlDeviceGetName: `Name` is not a snake_case Rust method name",
        "error: r.yaml: former_methods.nvmlNope: `nvmlNope` is not a function of the header",
        "former_methods.nvmlDeviceGetPids: `memory_info` is already a method of Device",
        "error: r.yaml: type_renames.nvmlNope_t: `nvmlNope_t` is not an enum of the header (or a typedef of one)",
        "`Memory`, the former name of ",
        "error: r.yaml: constant_renames.NVML_FLAG_HIGH: `high` is not a SCREAMING_CASE Rust constant name",
        "error: r.yaml: constant_renames.NVML_FLAG_HIGH: `NONE` is already the name of another constant of ",
        "error: r.yaml: fill_from_older.nvmlMemory_v2_t.total: `nvmlNope_st` is not a record of the header",
        "error: r.yaml: fill_from_older.nvmlMemory_v2_t.nope: `nope` is not a field of `nvmlMemory_v2_t`",
    ] {
        assert!(msgs.iter().any(|m| m.contains(msg)), "no diagnostic `{msg}` in {msgs:#?}");
    }
}

#[test]
fn union_rules_are_checked_against_the_header() {
    let stderr = regen_stderr(
        "handles: {nvmlDevice_t: Device}
tagged_values:
  nvmlMemory_v2_t.total: type
  nvmlMemory_v2_t.value: nvmlDeviceGetName.length
tagged_unions:
  Nope:
    union: nvmlMemory_v2_t
    fields: {}
  Data:
    union: nvmlMemory_v2_t_data
    members: {NVML_FLAG_HIGH: x, NVML_NOPE: u}
    fields: {nvmlMemory_v2_t.value: total}
byte_unions:
  nvmlMemory_v2_t.data: bytes
",
    );
    for msg in [
        "tagged_values.nvmlMemory_v2_t.total: `total` is not an `nvmlValue_t` field of `nvmlMemory_v2_t`",
        "tagged_values.nvmlMemory_v2_t.value: parameter `length` of `nvmlDeviceGetName` has type `unsigned int`, which does not fit this rule",
        "tagged_unions.Nope: `nvmlMemory_v2_t` is not a union of the header",
        "tagged_unions.Data: members: `x` is not a member of `nvmlMemory_v2_t_data`",
        "tagged_unions.Data: members: `NVML_NOPE` is not an integer constant of the header",
        "tagged_unions.Data: fields: `value` is not a `nvmlMemory_v2_t_data` field of `nvmlMemory_v2_t`",
        "byte_unions.nvmlMemory_v2_t.data: the members of `nvmlMemory_v2_t_data` are not byte arrays of one size",
        // A union field no rule reads would be a raw C union in the safe record.
        "bad.yaml: tagged_unions: `nvmlMemory_v2_t.anon0` is a union no `tagged_values`, `tagged_unions` or `byte_unions` rule reads",
    ] {
        assert!(stderr.contains(msg), "{msg}\n{stderr}");
    }
}

#[test]
fn failed_write_leaves_existing_files_untouched() {
    let dir = scratch("unwritable");
    let good = PathBuf::from("good/generated");
    std::fs::create_dir_all(dir.join(&good)).unwrap();
    std::fs::write(dir.join(&good).join("a.rs"), "old").unwrap();
    // The second directory cannot be created: its parent is a regular file.
    std::fs::write(dir.join("blocked"), "a file").unwrap();
    let bad = PathBuf::from("blocked/generated");
    let file = |d: &Path, n: &str| GeneratedFile { path: d.join(n), contents: "new".into() };
    let out = Output {
        dirs: vec![good.clone(), bad.clone()],
        files: vec![file(&good, "a.rs"), file(&bad, "b.rs")],
        ..Output::default()
    };
    let err = format!("{:#}", regen::write(&dir, &out).unwrap_err());
    assert!(err.contains("the checked-in files are untouched"), "{err}");
    assert_eq!(std::fs::read_to_string(dir.join(&good).join("a.rs")).unwrap(), "old");
    let leftovers: Vec<_> = std::fs::read_dir(dir.join("good")).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(leftovers, ["generated"], "no staging directory may be left behind");
}

/// Field and constant comments that go on over more lines under their `//!<` (clang attaches
/// only the first, and plain `//` lines not at all) keep every line in the generated docs. Checked against the header's text: each
/// continuation line's words appear in nvmlkit-sys's generated doc comments.
#[test]
fn field_docs_keep_the_headers_continuation_lines() {
    let root = project_root();
    let header = std::fs::read_to_string(xtask::fetch::headers::resolve(&root, None).unwrap().path).unwrap();
    let normal = |s: &str| -> String {
        s.replace("\\ref ", "")
            .replace("\\a ", "")
            .replace("\\`", "")
            .replace('`', "")
            .replace("\\>", ">")
            .replace("\\<", "<")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let dir = root.join("crates/nvml-sys/src/generated");
    let generated: String =
        std::fs::read_dir(&dir).unwrap().map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap()).collect();
    let docs: String =
        generated.lines().filter_map(|l| l.trim().strip_prefix("///")).map(|l| l.trim()).collect::<Vec<_>>().join(" ");
    let docs = normal(&docs);
    let lines: Vec<&str> = header.lines().collect();
    let mut checked = 0;
    for (i, line) in lines.iter().enumerate() {
        let Some(col) = line.find("//!<") else { continue };
        if line[..col].trim().is_empty() {
            continue;
        }
        for next in &lines[i + 1..] {
            let body = next.trim_start();
            if next.len() - body.len() != col || !body.starts_with("//") {
                break;
            }
            let text = normal(body.trim_start_matches(['/', '!', '<']));
            if text.is_empty() {
                continue;
            }
            assert!(docs.contains(&text), "line {} of nvml.h is missing from the field docs: {text:?}", i + 1);
            checked += 1;
        }
    }
    assert!(checked >= 9, "the header has continuation lines ({checked} found)");
}

/// The header's terms ask for its disclaimer and notice in the user documentation: each README
/// quotes them as the header has them (checked against the model's copy of the header's
/// opening comment), and the generated files carry them.
#[test]
fn readmes_quote_the_headers_notice() {
    let root = project_root();
    let model = xtask::pipeline::header_model(&root, &Inputs::default()).unwrap();
    let notice = model.notice.expect("nvml.h opens with NVIDIA's notice");
    let words = |s: &str| s.split_whitespace().filter(|w| *w != ">").collect::<Vec<_>>().join(" ");
    let disclaimer = words(&notice[notice.find("NVIDIA MAKES").expect("the disclaimer")..]);
    for readme in ["README.md", "crates/nvml/README.md", "crates/nvml-sys/README.md", "crates/nvml-mock/README.md"] {
        let text = words(&std::fs::read_to_string(root.join(readme)).unwrap());
        assert!(
            text.contains(&disclaimer),
            "{readme} does not quote nvml.h's disclaimer and notice as the header has them"
        );
    }
    let generated = std::fs::read_to_string(root.join("crates/nvml/src/generated/device_queries.rs")).unwrap();
    let comments: String = generated
        .lines()
        .take_while(|l| l.starts_with("//") || l.is_empty())
        .map(|l| l.trim_start_matches("//"))
        .collect::<Vec<_>>()
        .join(" ");
    assert!(words(&comments).contains(&words(&notice)), "the generated files carry the header's notice");
}

/// Yes/no is `bool` (issue 25): every integer parameter or record field of the header whose
/// words say it holds a yes or a no (`NVML_FEATURE_ENABLED`/`_DISABLED`, `..._TRUE`/`_FALSE`,
/// "non-zero", "boolean", "whether", "1 for running") is one a `booleans` rule makes a `bool`, but for those the list
/// below names with the header's reason; and no public method of the safe crate takes or
/// returns `EnableState`.
#[test]
fn every_yes_no_is_a_bool() {
    use xtask::model::Ty;
    let b = xtask::pipeline::bindings(&project_root(), &Inputs::default()).unwrap();
    let m = &b.model;
    // Not a yes or no, though the words are there.
    let not_yes_no = [
        // "When zero, is set to the number of matching GPUs ...; when non-zero, deviceArray
        // will be filled with count number of device handles": a count.
        "nvmlDeviceGetTopologyNearestGpus.count",
        "nvmlSystemGetTopologyGpuSet.count",
    ];
    let says_yes_no = |text: &str| {
        let lower = text.to_ascii_lowercase();
        let cues = ["nvml_feature_enabled", "nvml_feature_disabled", "_true", "_false", "non-zero", "nonzero"];
        cues.iter().chain(&["boolean", "whether", "1 for ", "0/disabled"]).any(|cue| lower.contains(cue))
    };
    let integer = |t: &Ty| {
        let t = match m.resolve_typedef(t) {
            Ty::Pointer { pointee, .. } => m.resolve_typedef(pointee),
            t => t,
        };
        matches!(t, Ty::Int | Ty::UInt | Ty::UChar | Ty::Char | Ty::Short | Ty::UShort)
    };
    let mut missing = Vec::new();
    for f in m.current_functions() {
        for p in &f.params {
            let key = format!("{}.{}", f.name, p.name);
            let text = f.docs.param(&p.name).map(|d| d.text.as_str()).unwrap_or_default();
            if integer(&p.ty)
                && says_yes_no(text)
                && !b.boolean_param(&f.name, &p.name)
                && !not_yes_no.contains(&key.as_str())
            {
                missing.push(key);
            }
        }
    }
    // A field named as a yes or no (`isC2cEnabled`, `bTpcRepairPending`: Hungarian `b` for
    // bool), which the header may not describe at all.
    let named_yes_no = |n: &str| {
        ["is", "b"]
            .iter()
            .any(|p| n.strip_prefix(p).is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_uppercase())))
    };
    for r in m.records.values() {
        for field in &r.fields {
            let key = format!("{}.{}", r.name, field.name);
            let text = field.doc.as_deref().unwrap_or_default();
            if integer(&field.ty)
                && (says_yes_no(text) || named_yes_no(&field.name))
                && !b.boolean_field(&r.name, &field.name)
                && !not_yes_no.contains(&key.as_str())
            {
                missing.push(key);
            }
        }
    }
    assert!(missing.is_empty(), "integers the header says are a yes or no, with no `booleans` rule: {missing:#?}");

    let src = project_root().join("crates/nvml/src/generated");
    let mut enable_state = Vec::new();
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        // A method's signature, joined across the lines prettyplease gives it.
        for sig in text.split("pub fn ").skip(1).filter_map(|rest| rest.split_once('{').map(|(sig, _)| sig)) {
            if sig.contains("EnableState") {
                enable_state.push(sig.split('(').next().unwrap_or(sig).to_string());
            }
        }
    }
    assert!(enable_state.is_empty(), "methods that take or return EnableState: {enable_state:?}");
}

/// Every method of the safe crate that calls the library, generated or written by hand, says
/// which `Error`s it returns and can be found by the C names of the functions it calls.
#[test]
fn every_method_has_errors_and_c_aliases() {
    let src = project_root().join("crates/nvml/src");
    let mut paths = vec![src.join("nvml.rs")];
    for dir in ["generated", "manual"] {
        paths.extend(std::fs::read_dir(src.join(dir)).unwrap().map(|e| e.unwrap().path()));
    }
    let mut methods = 0;
    let mut missing = Vec::new();
    for path in paths {
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let t = line.trim_start();
            // Methods that call the library: indented `pub fn`s that return a `Result`.
            let end = lines[i..].iter().position(|l| l.trim_end().ends_with('{')).map_or(i, |n| i + n);
            let signature = lines[i..=end].join(" ");
            let calls = t.starts_with("pub fn ") && line.starts_with("    ") && signature.contains("-> Result<");
            if !calls || path.ends_with("exercise.rs") {
                continue;
            }
            // Its doc comment and attributes: the lines up to the end of the item before.
            let attrs: Vec<&str> = lines[..i]
                .iter()
                .rev()
                .take_while(|l| !(l.trim_end().ends_with('}') || l.trim_end().ends_with('{')))
                .copied()
                .collect();
            // A former name kept for a published release forwards to the method (`former_methods`).
            if attrs.iter().any(|l| l.contains("#[deprecated(note = \"renamed `")) {
                continue;
            }
            let c_names = attrs.iter().filter(|l| l.contains("#[doc(alias = \"nvml")).count();
            if attrs.iter().any(|l| l.contains("/// # Errors")) && c_names > 0 {
                methods += 1;
            } else {
                missing.push(format!("{}: {}", path.file_name().unwrap().to_string_lossy(), t));
            }
        }
    }
    assert!(methods > 350, "only {methods} generated methods found");
    assert!(missing.is_empty(), "methods without `# Errors` or a C alias:\n{}", missing.join("\n"));
}

/// A method with one output says what it returns in the header's words for that output, which
/// carry its unit ("Reference in which to return the clock speed in MHz").
#[test]
fn single_outputs_are_described_with_their_units() {
    let dir = project_root().join("crates/nvml/src/generated");
    let text: String = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect::<Vec<_>>()
        .join("\n");
    let doc_of = |method: &str| {
        let at = text.find(&format!("pub fn {method}(")).unwrap_or_else(|| panic!("no method {method}"));
        let start = text[..at].rfind("\n    }").unwrap_or(0);
        text[start..at].to_string()
    };
    for (method, returns) in [
        ("power_usage", "/// Returns the power usage information."),
        ("power_management_limit", "/// Returns the power management limit in milliwatts."),
        ("clock_info", "/// Returns the clock speed in MHz."),
        ("pcie_throughput", "/// Returns throughput in KB/s."),
        ("fan_speed_rpm", "/// Returns the fan speed in RPM."),
    ] {
        assert!(doc_of(method).contains(returns), "{method}: no `{returns}` in\n{}", doc_of(method));
    }
}

/// Generated code is split by the header's areas so that a reader can navigate it: no
/// generated file of any crate passes 4000 lines (a larger group needs an `areas` rule).
#[test]
fn no_generated_file_passes_4000_lines() {
    let mut files = Vec::new();
    let mut dirs: Vec<PathBuf> = ["nvml", "nvml-sys", "nvml-mock"]
        .iter()
        .map(|c| project_root().join("crates").join(c).join("src/generated"))
        .collect();
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else {
                files.push(p);
            }
        }
    }
    assert!(files.len() > 100, "only {} generated files found", files.len());
    let long: Vec<String> = files
        .iter()
        .filter_map(|p| {
            let n = std::fs::read_to_string(p).unwrap().lines().count();
            (n > 4000).then(|| format!("{} ({n} lines)", p.display()))
        })
        .collect();
    assert!(long.is_empty(), "generated files over 4000 lines: {long:?}");
}

/// The safe crate's README maps nvml-wrapper's calls to nvmlkit's; the rust block after the
/// table is compiled by the README's doctest, and every call of the table's nvmlkit column
/// must be in it, so the table cannot name a method that does not compile.
#[test]
fn the_migration_table_is_compiled() {
    let readme = std::fs::read_to_string(project_root().join("crates/nvml/README.md")).unwrap();
    let section = &readme[readme.find("## Coming from nvml-wrapper").expect("the migration section")..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |i| i + 3)];
    let block_start = section.find("```rust").expect("a rust block after the table");
    let block = &section[block_start..];
    let calls: Vec<&str> = section[..block_start]
        .lines()
        .filter(|l| l.starts_with("| `"))
        .filter_map(|l| l.split('|').nth(2))
        .map(|cell| cell.trim().trim_matches('`'))
        .collect();
    assert!(calls.len() >= 50, "only {} rows", calls.len());
    let missing: Vec<&&str> = calls.iter().filter(|c| !block.contains(**c)).collect();
    assert!(missing.is_empty(), "calls of the table the compiled block lacks: {missing:?}");
}

/// Inputs the fuzz targets found (`fuzz/`; each is in its target's corpus too): a `::` made
/// libclang parse the header forever (the `header` target's timeout). The generator refuses it
/// at its place, before clang sees it.
#[test]
fn fuzz_finding_a_scope_operator_is_refused_at_its_place() {
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["model", "--header"])
        .arg(fixture("fuzz").join("header-hangs-on-scope-operator.h"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "header-hangs-on-scope-operator.h:56:14: `::` is not C (the generator refuses it outside `[[...]]`"
        ),
        "{stderr}"
    );
}

/// A fuzz finding: C names Rust cannot spell (`$`, a GNU extension clang accepts, in the
/// header target's input; a soft hyphen, which C11 allows in identifiers) made the emitters
/// panic. The clang stage refuses them, naming the name and its line.
#[test]
fn fuzz_finding_names_rust_cannot_spell_are_refused_at_their_line() {
    let model = |path: &std::path::Path| {
        let out = Command::new(env!("CARGO_BIN_EXE_xtask")).args(["model", "--header"]).arg(path).output().unwrap();
        assert_eq!(out.status.code(), Some(1));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let e = model(&fixture("fuzz").join("header-dollar-in-identifier.h"));
    assert!(e.contains("header-dollar-in-identifier.h:1: `NVML_$SUCCESS` is not a name Rust can spell"), "{e}");
    let header = scratch("soft-hyphen").join("soft.h");
    std::fs::write(&header, "typedef enum { NVML_A\u{ad}B = 1 } e_t;\n").unwrap();
    let e = model(&header);
    assert!(e.contains("soft.h:1: `NVML_A\\u{ad}B` is not a name Rust can spell"), "{e}");
}

/// A fuzz finding: a header whose `NVML_SUCCESS` has the value of an error code made the safe
/// emitter panic (a variant with no name). That code gets no variant: header-diff reports the
/// `Error` without it, a major release.
#[test]
fn fuzz_finding_a_code_of_successs_value_has_no_variant() {
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["header-diff"])
        .arg(fixture("basic").join("input.h"))
        .arg(fixture("fuzz").join("header-success-shares-a-code.h"))
        .arg("--rules")
        .arg(fixture("basic").join("rules.yaml"))
        .output()
        .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stdout.contains("constant `NVML_SUCCESS`: 0 → 1"), "{stdout}");
    assert!(stdout.contains("→ `pub enum Error { InsufficientSize, Unknown(u32),"), "{stdout}");
    assert!(stdout.contains("a major release"), "{stdout}");
}

/// A fuzz finding (the rules target): a handle whose safe name is empty (`!EventSet`, a YAML
/// tag with no value) made the plan, which header-diff runs past the rules' errors, look for
/// that name as a prefix forever. Now the rules report the handle and the plan finishes.
#[test]
fn fuzz_finding_an_empty_handle_name_is_an_error_not_a_hang() {
    let file = fixture("fuzz").join("rules-empty-handle-name.yaml");
    let rules = xtask::rules::parse(&std::fs::read_to_string(&file).unwrap(), "empty.yaml").unwrap();
    assert_eq!(rules.handles.get("nvmlEventSet_t").map(String::as_str), Some(""));
    let model = xtask::pipeline::header_model(&project_root(), &fixture_inputs("basic")).unwrap();
    let (planned, diags) = xtask::pipeline::plan_model(model, &rules, "empty.yaml").unwrap();
    let handle = diags.iter().find(|d| d.place == "empty.yaml: handles.nvmlEventSet_t");
    assert_eq!(handle.map(|d| d.message.as_str()), Some("`nvmlEventSet_t` is not an opaque handle of the header"));
    assert!(planned.bindings.handles.values().any(String::is_empty));
}

/// The safe crate's generated docs speak Rust (issue 25): an `# Errors` list names no NULL
/// pointer and no parameter the method does not take; a C function that a method calls is a
/// link to that method (the `Calls` line and the missing-symbol error aside, which name the C
/// symbols on purpose); a record field reads as a value, not as an out-parameter; no HTML
/// entity, `\code` or unexpanded `%...%` placeholder is left.
#[test]
fn generated_docs_speak_rust() {
    let src = project_root().join("crates/nvml/src");
    let mut files = Vec::new();
    // The generated files, and (for their `# Errors`) the methods written by hand.
    let mut paths: Vec<PathBuf> = vec![src.join("nvml.rs")];
    for dir in ["generated", "manual"] {
        paths.extend(std::fs::read_dir(src.join(dir)).unwrap().map(|e| e.unwrap().path()));
    }
    for path in paths {
        if path.extension().is_some_and(|e| e == "rs") && !path.ends_with("exercise.rs") {
            files.push((path.clone(), syn::parse_file(&std::fs::read_to_string(&path).unwrap()).unwrap()));
        }
    }
    let is_generated = |path: &Path| path.components().any(|c| c.as_os_str() == "generated");
    let doc_of = |attrs: &[syn::Attribute]| -> Vec<String> {
        attrs
            .iter()
            .filter_map(|a| match &a.meta {
                syn::Meta::NameValue(nv) if nv.path.is_ident("doc") => match &nv.value {
                    syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(s.value()),
                    _ => None,
                },
                _ => None,
            })
            .collect()
    };
    let aliases_of = |attrs: &[syn::Attribute]| -> Vec<String> {
        attrs
            .iter()
            .filter(|a| a.path().is_ident("doc"))
            .filter_map(|a| {
                let t = quote::ToTokens::to_token_stream(&a.meta).to_string();
                let i = t.find("alias = \"")?;
                t[i + 9..].split('"').next().map(String::from)
            })
            .collect()
    };
    // The C functions a method calls (its aliases).
    let mut wrapped = std::collections::BTreeSet::new();
    let mut methods: Vec<(String, Vec<String>, Vec<String>)> = Vec::new();
    let mut fields: Vec<(String, Vec<String>)> = Vec::new();
    for (path, file) in &files {
        for item in &file.items {
            match item {
                syn::Item::Impl(i) if i.trait_.is_none() => {
                    for m in &i.items {
                        if let syn::ImplItem::Fn(f) = m {
                            if !matches!(f.vis, syn::Visibility::Public(_)) {
                                continue;
                            }
                            let aliases = aliases_of(&f.attrs);
                            wrapped.extend(aliases.iter().filter(|a| a.starts_with("nvml")).cloned());
                            let args: Vec<String> = f
                                .sig
                                .inputs
                                .iter()
                                .filter_map(|a| match a {
                                    syn::FnArg::Typed(t) => match &*t.pat {
                                        syn::Pat::Ident(p) => Some(p.ident.to_string()),
                                        _ => None,
                                    },
                                    _ => None,
                                })
                                .collect();
                            let by_hand = if is_generated(path) { "" } else { " (by hand)" };
                            let name =
                                format!("{}{by_hand}: {}", path.file_name().unwrap().to_string_lossy(), f.sig.ident);
                            methods.push((name, doc_of(&f.attrs), args));
                        }
                    }
                }
                syn::Item::Struct(st) if is_generated(path) => {
                    for f in &st.fields {
                        let name =
                            format!("{}.{}", st.ident, f.ident.as_ref().map(|i| i.to_string()).unwrap_or_default());
                        fields.push((name, doc_of(&f.attrs)));
                    }
                }
                _ => {}
            }
        }
    }
    let mut problems = Vec::new();
    let mut errors_sections = 0;
    for (name, doc, args) in &methods {
        let errors = doc.iter().skip_while(|l| l.trim() != "# Errors");
        let mut in_errors = false;
        for line in errors {
            in_errors = true;
            if line.contains("NULL") {
                problems.push(format!("{name}: NULL in `# Errors`: {line}"));
            }
            if line.contains("Error::FunctionNotFound") {
                continue;
            }
            // Code spans that are not links: the method's arguments only.
            for (i, span) in line.split('`').enumerate().filter(|(i, _)| i % 2 == 1) {
                let linked = line.split('`').take(i).collect::<Vec<_>>().join("`").ends_with('[');
                let word = span.trim();
                // A C symbol the binding looks up (`nvmlShutdown`) is no parameter.
                let symbol = word.starts_with("nvml");
                if !linked
                    && !symbol
                    && !args.iter().any(|a| a == word)
                    && word.chars().all(|c| c.is_alphanumeric() || c == '_')
                {
                    problems.push(format!("{name}: `{word}` in `# Errors` is no argument of the method: {line}"));
                }
            }
        }
        errors_sections += usize::from(in_errors);
        if name.contains("(by hand)") {
            continue;
        }
        for line in
            doc.iter().filter(|l| !l.trim_start().starts_with("Calls ") && !l.contains("Error::FunctionNotFound"))
        {
            for span in line.split('`').skip(1).step_by(2) {
                if wrapped.contains(span) && !line.contains(&format!("[`{span}`]")) {
                    problems.push(format!("{name}: `{span}` has a method but is not a link: {line}"));
                }
            }
        }
    }
    for (name, doc) in &fields {
        let out_parameter = |l: &String| {
            let l = l.trim_start().to_ascii_lowercase();
            ["reference to", "reference in which", "reference for", "reference that", "pointer to"]
                .iter()
                .any(|p| l.starts_with(p))
        };
        if doc.first().is_some_and(out_parameter) {
            problems.push(format!("{name}: described as an out-parameter: {}", doc[0]));
        }
    }
    for (name, doc) in methods.iter().map(|(n, d, _)| (n, d)).chain(fields.iter().map(|(n, d)| (n, d))) {
        for line in doc {
            let placeholder = line
                .split('%')
                .skip(1)
                .step_by(2)
                .any(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_uppercase() || c == '_'));
            if ["&lt;", "&gt;", "&amp;", "&tm;", "&reg;", "\\code"].iter().any(|e| line.contains(e)) || placeholder {
                problems.push(format!("{name}: HTML entity, \\code or placeholder: {line}"));
            }
        }
    }
    assert!(errors_sections > 350, "only {errors_sections} `# Errors` sections");
    assert!(problems.is_empty(), "{} place(s) in C terms:\n{}", problems.len(), problems.join("\n"));
}

/// The safe crate's method descriptions speak Rust (issue 37): outside the "Calls" line and
/// `# Errors`, no C identifier (a camelCase parameter or field name), no "call nvmlX" (the
/// method is linked instead), no "See `EnableState`" (no method answers one), no text about a
/// buffer the method owns, and no "`false` or `true`" repeating a `bool`'s range.
/// Each kind is counted, and each count must be 0.
#[test]
fn method_descriptions_speak_rust() {
    let src = project_root().join("crates/nvml/src");
    let mut paths = vec![src.join("nvml.rs")];
    for dir in ["generated", "manual"] {
        paths.extend(std::fs::read_dir(src.join(dir)).unwrap().map(|e| e.unwrap().path()));
    }
    // Words of the header's prose that look like identifiers and are not.
    let words = ["vGPU", "vGPUs", "iGPU", "infoROM", "mW", "mJ"];
    let mut found: std::collections::BTreeMap<&str, Vec<String>> = Default::default();
    let mut methods = 0;
    for path in paths.iter().filter(|p| p.extension().is_some_and(|e| e == "rs") && !p.ends_with("exercise.rs")) {
        let text = std::fs::read_to_string(path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let t = line.trim_start();
            if !(t.starts_with("pub fn ") && line.starts_with("    ")) {
                continue;
            }
            let docs: Vec<&str> = lines[..i]
                .iter()
                .rev()
                .take_while(|l| !(l.trim_end().ends_with('}') || l.trim_end().ends_with('{')))
                .filter_map(|l| l.trim_start().strip_prefix("///"))
                .collect();
            if docs.is_empty() {
                continue;
            }
            methods += 1;
            let name = t.trim_start_matches("pub fn ").split('(').next().unwrap_or(t);
            let at = format!("{}: {name}", path.file_name().unwrap().to_string_lossy());
            let mut description: Vec<&str> = docs.into_iter().rev().collect();
            if let Some(e) = description.iter().position(|l| l.trim() == "# Errors") {
                description.truncate(e);
            }
            let (mut fenced, mut calls) = (false, false);
            for l in description {
                if l.trim_start().starts_with("```") {
                    fenced = !fenced;
                }
                // The "Calls" paragraph names the C functions, as it should.
                calls = l.trim_start().starts_with("Calls `") || (calls && !l.trim().is_empty());
                if fenced || calls {
                    continue;
                }
                // Links name Rust items: their text is no C.
                let mut prose = String::new();
                let mut rest = l;
                while let Some(open) = rest.find('[') {
                    prose.push_str(&rest[..open]);
                    rest = rest[open..].find(']').map_or("", |close| &rest[open + close + 1..]);
                }
                prose.push_str(rest);
                for w in prose.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
                    let lower_first = w.chars().next().is_some_and(|c| c.is_ascii_lowercase());
                    let c_name = lower_first && w.chars().any(|c| c.is_ascii_uppercase()) && !words.contains(&w);
                    // NVML's and CUDA's own names (`nvmlMpsDeviceEnumeration`, a group of the
                    // header; `cuDeviceGetAttribute`) are the reader's to look up.
                    if c_name && !w.starts_with("nvml") && !w.starts_with("cu") {
                        found.entry("C identifier").or_default().push(format!("{at}: {w}"));
                    }
                }
                let lower = prose.to_ascii_lowercase();
                if ["call nvml", "call `nvml", "calling nvml", "calling `nvml"].iter().any(|c| lower.contains(c)) {
                    found.entry("call nvmlX").or_default().push(format!("{at}: {}", l.trim()));
                }
                if prose.contains("See `EnableState`") || l.contains("See [`EnableState`]") {
                    found.entry("See EnableState").or_default().push(at.clone());
                }
                for b in [
                    "caller-supplied buffer",
                    "Caller-supplied buffer",
                    "Buffer to read samples into",
                    "cropped to provided length",
                ] {
                    if l.contains(b) {
                        found.entry("a buffer the method owns").or_default().push(format!("{at}: {b}"));
                    }
                }
                if l.contains("`false` or `true`") {
                    found.entry("`false` or `true`").or_default().push(at.clone());
                }
            }
        }
    }
    assert!(methods > 400, "only {methods} documented methods found");
    let counts: Vec<String> = found.iter().map(|(k, v)| format!("{k}: {} ({:?})", v.len(), v)).collect();
    assert!(found.is_empty(), "method descriptions that speak C:\n{}", counts.join("\n"));
}

/// The README's claim that a `#define` family a method takes has a type: no argument the
/// header documents as "One of the NVML_X_*" (or a yes or no) is a bare integer.
#[test]
fn define_families_methods_take_have_types() {
    let src = project_root().join("crates/nvml/src/generated");
    let mut bare = Vec::new();
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "rs") || path.ends_with("exercise.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let mut family_args: Vec<String> = Vec::new();
        for line in text.lines() {
            let t = line.trim_start();
            if let Some(doc) = t.strip_prefix("/// * `") {
                let (arg, rest) = doc.split_once("`:").unwrap_or((doc, ""));
                let family =
                    rest.split_whitespace().any(|w| w.starts_with("NVML_") && w.trim_end_matches('.').ends_with("_*"));
                if family {
                    family_args.push(arg.to_string());
                }
            } else if t.starts_with("pub fn ") {
                let sig = t.to_string();
                family_args.drain(..).for_each(|arg| {
                    // The signature may span lines: look for the argument in the file after it.
                    let at = text.find(&sig).unwrap_or(0);
                    let after = &text[at..];
                    let end = after.find('{').unwrap_or(after.len());
                    let decl = after[..end]
                        .split(&format!("{arg}: "))
                        .nth(1)
                        .map(|r| r.split([',', ')']).next().unwrap_or(r).trim().to_string());
                    if let Some(ty) = decl.filter(|ty| ["u32", "i32", "u64", "u8"].contains(&ty.as_str())) {
                        bare.push(format!("{}: {}: `{arg}: {ty}`", path.file_name().unwrap().to_string_lossy(), sig));
                    }
                });
            } else if !t.starts_with("///") && !t.starts_with("#[") {
                family_args.clear();
            }
        }
    }
    assert!(
        bare.is_empty(),
        "arguments of a `#define` family that are bare integers (a `values` rule gives them a type):\n{}",
        bare.join("\n")
    );
}

/// What an emitter cannot serve is a diagnostic of `emit_all`: notes where the mock does less
/// for a function of the default header, and an error (the method left out, no
/// `compile_error!` written) where a safe method's call cannot pass a parameter.
#[test]
fn emit_all_reports_what_an_emitter_cannot_serve() {
    use xtask::diag::{Diagnostics, Level};
    use xtask::plan::Role;
    let root = project_root();
    let mut planned = xtask::pipeline::planned(&root, &Inputs::default()).unwrap();
    let history = xtask::history::DriverTable::default();
    let mut d = Diagnostics::new("emit");
    xtask::emit::emit_all(&planned.bindings, &planned.plan, &history, &mut d).unwrap();
    let shown: Vec<String> = d.items().iter().map(|i| i.to_string()).collect();
    assert_eq!(d.count(Level::Error) + d.count(Level::Warning), 0, "{shown:#?}");
    for expected in [
        "note: nvmlDeviceGetRetiredPages_v2: answered from a profile's values, but capture does not record it: two \
         lists in one call",
        "note: nvmlDeviceGetGpuInstances: not answered from a profile's values: parameter `gpuInstances` (array of an \
         out-only count): an array of an out-only count, which the answers do not write",
    ] {
        assert!(shown.iter().any(|s| s == expected), "no `{expected}` among {shown:#?}");
    }

    // A member of a family that reads a parameter otherwise than the newest member does.
    let m = planned
        .plan
        .methods
        .iter_mut()
        .find(|m| m.calls.len() > 1 && m.calls[1].params.iter().any(|p| matches!(p.role, Role::In(_))))
        .expect("a method of two members with an input by value");
    let name = m.name.clone();
    let older = m.calls[1].symbol.clone();
    let p = m.calls[1].params.iter_mut().find(|p| matches!(p.role, Role::In(_))).unwrap();
    p.role = Role::InStr;
    let param = p.name.clone();
    let mut d = Diagnostics::new("emit");
    let out = xtask::emit::emit_all(&planned.bindings, &planned.plan, &history, &mut d).unwrap();
    let errors: Vec<String> = d.items().iter().filter(|i| i.level == Level::Error).map(|i| i.to_string()).collect();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    let expected = format!(
        "parameter `{param}` (in string): `{older}` reads it as in string, the family's newest member (whose \
         parameters the method takes) as in"
    );
    assert!(errors[0].starts_with(&format!("error: method {name}: ")) && errors[0].ends_with(&expected), "{errors:#?}");
    assert!(out.files.iter().all(|f| !f.contents.contains("compile_error!")), "a compile_error! was written");
    let method = format!("pub fn {name}(");
    assert!(out.files.iter().all(|f| !f.contents.contains(&method)), "the method `{name}` was still written");
}
