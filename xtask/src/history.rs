//! The function history: which published header first declares each function of the default
//! header, and which driver branch shipped that header.
//!
//! `gen-config/function-history.yaml` records, for each function symbol of the default header
//! (legacy symbols included), the oldest header of `nvml-headers/corpus.txt` that declares it,
//! with the table [`BRANCHES`] of the driver branch that shipped each CUDA toolkit's header.
//! `cargo xtask history` (`commands/history.rs`) computes it from the corpus; this module is
//! its file format and what the pipeline reads of it.
//!
//! `cargo xtask regen` reads the file beside its rules file ([`for_regen`]) and writes the
//! mock's `generated/history.rs`: the driver branch that introduced each function newer than
//! the oldest header, so that a profile with an older driver answers
//! `NVML_ERROR_FUNCTION_NOT_FOUND` for it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::Deserialize;

use crate::diag::Diagnostics;
use crate::model::version_key;
use crate::model::Model;

pub mod fields;
pub mod records;
pub mod sizes;

/// The history file of the default rules, `gen-config/function-history.yaml`.
pub const HISTORY_FILE: &str = "gen-config/function-history.yaml";

/// The name of the history file, which regen looks for beside its rules file.
pub const FILE_NAME: &str = "function-history.yaml";

/// CUDA toolkit release (the header's `major.minor`) → the driver branch that shipped it, from
/// the "CUDA Toolkit and Corresponding Driver Versions" table of NVIDIA's CUDA release notes.
/// Written by hand. Headers of toolkits after the last entry have no branch here: a function
/// they introduce counts as "newer than the last branch" (it needs a driver whose major version
/// is above it), rather than as a guessed branch. Add a line when a toolkit's branch is known.
pub const BRANCHES: &[(&str, u32)] = &[
    ("11.7", 515),
    ("11.8", 520),
    ("12.0", 525),
    ("12.1", 530),
    ("12.2", 535),
    ("12.3", 545),
    ("12.4", 550),
    ("12.5", 555),
    ("12.6", 560),
    ("12.8", 570),
    ("12.9", 575),
    ("13.0", 580),
];

/// The contents of a history file.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct History {
    /// The header whose functions are listed.
    pub default: String,
    /// The oldest header of the corpus: its functions are in every driver.
    pub oldest: String,
    /// Toolkit `major.minor` → driver branch.
    pub branches: BTreeMap<String, u32>,
    /// Function symbol → the first header version that declares it.
    pub functions: BTreeMap<String, String>,
    /// Every header of the corpus → the first driver version that shipped it, if known
    /// ([`fields::FIRST_DRIVERS`]). Absent from histories written before field ids were
    /// recorded (and from the fixtures): no field table then.
    #[serde(default)]
    pub drivers: BTreeMap<String, Option<String>>,
    /// Every `NVML_FI_*` field id → its number from each header where it changes
    /// ([`fields::changes`]).
    #[serde(default)]
    pub fields: BTreeMap<String, BTreeMap<String, Option<u32>>>,
    /// Every struct version constant of the default header (`nvmlPlatformInfo_v2`) → the first
    /// header that declares it ([`records`]). Absent from histories written before record
    /// versions were recorded: every driver then accepts every version.
    #[serde(default)]
    pub record_versions: BTreeMap<String, String>,
    /// The records whose size differs between headers under one version word
    /// ([`sizes::varying`]), by `symbol.parameter[.field]`. Absent from histories written
    /// before they were recorded.
    #[serde(default)]
    pub record_sizes: BTreeMap<String, sizes::Varying>,
}

/// `12.4.99` → `12.4`.
fn toolkit(version: &str) -> String {
    version.split('.').take(2).collect::<Vec<_>>().join(".")
}

/// For each name of `current`, the first of `headers` (oldest first: version, its functions)
/// that declares it; names no header declares are left out.
pub fn first_declared(headers: &[(String, BTreeSet<String>)], current: &BTreeSet<String>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for name in current {
        if let Some((v, _)) = headers.iter().find(|(_, fns)| fns.contains(name)) {
            out.insert(name.clone(), v.clone());
        }
    }
    out
}

/// Functions of `current` that a header declares, a later one drops and a later one declares
/// again: `(name, the first header without it)`. Informational: the history keeps the first.
pub fn gaps(headers: &[(String, BTreeSet<String>)], current: &BTreeSet<String>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for name in current {
        let seen: Vec<bool> = headers.iter().map(|(_, fns)| fns.contains(name)).collect();
        let Some(first) = seen.iter().position(|s| *s) else { continue };
        if let Some(hole) = seen[first..].iter().position(|s| !*s) {
            out.push((name.clone(), headers[first + hole].0.clone()));
        }
    }
    out
}

/// The text of `gen-config/function-history.yaml`.
pub fn render(default: &str, oldest: &str, corpus_len: usize, functions: &BTreeMap<String, String>) -> String {
    let mut s = format!(
        "# @generated by `cargo xtask history` from the {corpus_len} headers of nvml-headers/corpus.txt\n\
         # ({oldest} to {default}); `cargo xtask history --check` fails when this file is stale.\n\
         # Do not edit by hand: the branch table is `BRANCHES` in xtask/src/history.rs.\n\
         #\n\
         # functions: every function symbol of nvml.h {default} (legacy symbols included) and the\n\
         # first header version that declares it.\n\
         # branches: the driver branch that shipped each CUDA toolkit's header (major.minor). A\n\
         # function first declared by a later toolkit's header counts as newer than the last\n\
         # branch listed; one declared by {oldest} counts as present in every driver.\n\
         # `cargo xtask regen` turns this into crates/nvml-mock/src/generated/history.rs: the mock\n\
         # answers NVML_ERROR_FUNCTION_NOT_FOUND for a function newer than its profile's driver.\n\
         default: {default}\n\
         oldest: {oldest}\n\
         branches:\n"
    );
    for (tk, branch) in BRANCHES {
        s.push_str(&format!("  '{tk}': {branch}\n"));
    }
    s.push_str("functions:\n");
    for (name, version) in functions {
        s.push_str(&format!("  {name}: {version}\n"));
    }
    s
}

pub fn parse(text: &str, origin: &str) -> Result<History> {
    serde_yaml::from_str(text).map_err(|e| match e.location() {
        Some(l) => anyhow::anyhow!("{origin}:{}:{}: {e}", l.line(), l.column()),
        None => anyhow::anyhow!("{origin}: {e}"),
    })
}

/// The history file for a rules file: `function-history.yaml` beside it.
pub fn path_for_rules(rules: &Path) -> PathBuf {
    rules.with_file_name(FILE_NAME)
}

/// One function (or struct version constant) newer than the oldest header, as the mock's
/// `generated/history.rs` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Introduced {
    /// The function symbol, or the struct version constant.
    pub function: String,
    /// The first header that declares it.
    pub header: String,
    /// The lowest driver major version that has it: the branch of its toolkit, or the newest
    /// known branch + 1 for a toolkit after [`BRANCHES`].
    pub min_driver: u32,
    /// The first driver version that shipped that header, where the history's `drivers` know it
    /// (a finer bound than the branch: 13.0.87 is 580.82.07, 13.0.39 580.65.06).
    pub first_driver: Option<String>,
}

/// What regen tells the mock about driver versions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DriverTable {
    /// Sorted by function name.
    pub introduced: Vec<Introduced>,
    /// The struct version constants newer than the oldest header, sorted by name: a driver
    /// older than one answers `NVML_ERROR_ARGUMENT_VERSION_MISMATCH` to it.
    pub record_versions: Vec<Introduced>,
    /// The newest branch of the history's table (0 without a history).
    pub newest_branch: u32,
    /// The history's table, toolkit `major.minor` → driver branch, oldest first: the drivers
    /// the mock can emulate (`cargo xtask mock-lib`).
    pub branches: Vec<(String, u32)>,
    /// How each header numbers the field ids of the header being generated (empty without a
    /// field history, or for a header the history does not list).
    pub fields: fields::FieldTable,
}

/// Reads the history file `file` (shown as `shown`) for the functions of `model`. A missing
/// file, or a function it lacks, is a warning: that function is treated as present in every
/// driver. A file that does not parse is an error.
pub fn for_regen(file: &Path, shown: &str, model: &Model) -> (DriverTable, Diagnostics) {
    let mut d = Diagnostics::new("history");
    let history = match std::fs::read_to_string(file) {
        Ok(text) => match parse(&text, shown) {
            Ok(h) => h,
            Err(e) => {
                d.error("", format!("{e:#}"));
                return (DriverTable::default(), d);
            }
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            d.warn(
                shown,
                "not found: every function is treated as present in every driver (run `cargo xtask history`)",
            );
            return (DriverTable::default(), d);
        }
        Err(e) => {
            d.error(shown, format!("cannot read: {e}"));
            return (DriverTable::default(), d);
        }
    };
    let handled_file = file.with_file_name(sizes::HANDLED_FILE_NAME);
    let handled_shown = Path::new(shown).with_file_name(sizes::HANDLED_FILE_NAME).display().to_string();
    match sizes::load_handled(&handled_file, &handled_shown) {
        Ok(handled) => sizes::check(&history.record_sizes, shown, &handled, &handled_shown, &mut d),
        Err(e) => d.error("", format!("{e:#}")),
    }
    (table(&history, shown, model, &mut d), d)
}

/// The [`DriverTable`] of `model`'s functions under `history`.
pub fn table(history: &History, shown: &str, model: &Model, d: &mut Diagnostics) -> DriverTable {
    let newest_branch = history.branches.values().copied().max().unwrap_or(0);
    let mut lacking = Vec::new();
    let mut introduced = Vec::new();
    for name in model.functions.keys() {
        match history.functions.get(name) {
            Some(header) => introduced.extend(first_driver(history, shown, "functions", name, header, d)),
            None => lacking.push(name.as_str()),
        }
    }
    let mut record_versions = Vec::new();
    if !history.record_versions.is_empty() {
        let mut unlisted = Vec::new();
        for name in records::version_constants(model) {
            match history.record_versions.get(&name) {
                Some(header) => {
                    record_versions.extend(first_driver(history, shown, "record_versions", &name, header, d))
                }
                None => unlisted.push(name),
            }
        }
        if !unlisted.is_empty() {
            d.warn(
                shown,
                format!(
                    "{} record version(s) are not listed (accepted by every driver; run `cargo xtask history`): {}",
                    unlisted.len(),
                    unlisted.join(", ")
                ),
            );
        }
    }
    if !lacking.is_empty() {
        d.warn(
            shown,
            format!(
                "{} function(s) of {} are not listed (treated as present in every driver; run `cargo xtask history`): {}",
                lacking.len(),
                match version_key(&model.header.version) {
                    Some(_) => format!("nvml.h {}", model.header.version),
                    None => model.header.version.clone(),
                },
                lacking.join(", ")
            ),
        );
    }
    let fields = if history.fields.is_empty() {
        fields::FieldTable::default()
    } else if !history.drivers.contains_key(&model.header.version) {
        d.warn(
            shown,
            format!(
                "nvml.h {} is not one of its `drivers`: no field-id numbering per driver (run `cargo xtask history`)",
                model.header.version
            ),
        );
        fields::FieldTable::default()
    } else {
        match fields::table(&history.drivers, &history.fields, &model.header.version) {
            Ok(t) => t,
            Err(e) => {
                d.error(shown, e);
                fields::FieldTable::default()
            }
        }
    };
    let mut branches: Vec<(String, u32)> = history.branches.iter().map(|(tk, b)| (tk.clone(), *b)).collect();
    branches.sort_by_key(|(tk, _)| version_key(tk));
    DriverTable { introduced, record_versions, newest_branch, branches, fields }
}

/// When `name` (of the history's `section`), first declared by `header`, came: `None` for the
/// oldest header (in every driver) or a toolkit without a branch (a warning).
fn first_driver(
    history: &History,
    shown: &str,
    section: &str,
    name: &str,
    header: &str,
    d: &mut Diagnostics,
) -> Option<Introduced> {
    if header == history.oldest {
        return None;
    }
    let newest_branch = history.branches.values().copied().max().unwrap_or(0);
    let newest_toolkit = history.branches.keys().filter_map(|k| version_key(k)).max();
    let tk = toolkit(header);
    let min_driver = match history.branches.get(&tk) {
        Some(b) => *b,
        None if version_key(&tk).is_some() && version_key(&tk) > newest_toolkit => newest_branch + 1,
        None => {
            d.warn(
                format!("{shown}: {section}.{name}"),
                format!("header {header}: toolkit {tk} has no driver branch under `branches`; treated as present in every driver"),
            );
            return None;
        }
    };
    let first_driver = history.drivers.get(header).cloned().flatten();
    Some(Introduced { function: name.to_string(), header: header.to_string(), min_driver, first_driver })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    fn corpus() -> Vec<(String, BTreeSet<String>)> {
        vec![
            ("11.7.91".into(), set(&["nvmlInit_v2", "nvmlDeviceGetCount", "nvmlGone"])),
            ("12.0.76".into(), set(&["nvmlInit_v2", "nvmlDeviceGetCount", "nvmlNew12"])),
            ("12.4.99".into(), set(&["nvmlInit_v2", "nvmlDeviceGetCount", "nvmlNew12", "nvmlNew124", "nvmlGone"])),
            (
                "13.1.68".into(),
                set(&["nvmlInit_v2", "nvmlDeviceGetCount", "nvmlNew12", "nvmlNew124", "nvmlGone", "nvmlNew131"]),
            ),
        ]
    }

    #[test]
    fn the_first_header_that_declares_a_function_wins() {
        let current = set(&[
            "nvmlInit_v2",
            "nvmlDeviceGetCount",
            "nvmlNew12",
            "nvmlNew124",
            "nvmlGone",
            "nvmlNew131",
            "nvmlNowhere",
        ]);
        let first = first_declared(&corpus(), &current);
        let got: Vec<(&str, &str)> = first.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(
            got,
            [
                ("nvmlDeviceGetCount", "11.7.91"),
                ("nvmlGone", "11.7.91"),
                ("nvmlInit_v2", "11.7.91"),
                ("nvmlNew12", "12.0.76"),
                ("nvmlNew124", "12.4.99"),
                ("nvmlNew131", "13.1.68"),
            ]
        );
        assert_eq!(gaps(&corpus(), &current), [("nvmlGone".to_string(), "12.0.76".to_string())]);
    }

    fn model_with(names: &[&str]) -> Model {
        let mut m = Model::default();
        m.header.version = "13.5.37".into();
        for n in names {
            m.functions.insert(
                n.to_string(),
                crate::model::Function {
                    name: n.to_string(),
                    ret: crate::model::Ty::Void,
                    params: Vec::new(),
                    doc: None,
                    docs: Default::default(),
                    deprecated: false,
                    legacy: false,
                    line: 0,
                },
            );
        }
        m
    }

    #[test]
    fn rendered_history_parses_and_maps_toolkits_to_branches() {
        let current = set(&["nvmlInit_v2", "nvmlNew12", "nvmlNew124", "nvmlNew131"]);
        let text = render("13.1.68", "11.7.91", 4, &first_declared(&corpus(), &current));
        let h = parse(&text, "h.yaml").unwrap();
        assert_eq!(h.branches["12.0"], 525);
        assert_eq!(h.branches.len(), BRANCHES.len());
        let model = model_with(&["nvmlInit_v2", "nvmlNew12", "nvmlNew124", "nvmlNew131", "nvmlUnlisted"]);
        let mut d = Diagnostics::new("history");
        let t = table(&h, "h.yaml", &model, &mut d);
        let got: Vec<(&str, u32)> = t.introduced.iter().map(|i| (i.function.as_str(), i.min_driver)).collect();
        // 13.1 has no branch in the table: newer than 580.
        assert_eq!(got, [("nvmlNew12", 525), ("nvmlNew124", 550), ("nvmlNew131", 581)]);
        assert_eq!(t.newest_branch, 580);
        assert_eq!(t.branches.len(), BRANCHES.len());
        assert_eq!((t.branches[0].1, t.branches[BRANCHES.len() - 1].1), (515, 580));
        let msgs: Vec<String> = d.items().iter().map(|x| x.to_string()).collect();
        assert_eq!(
            msgs,
            ["warning: h.yaml: 1 function(s) of nvml.h 13.5.37 are not listed (treated as present in every driver; run `cargo xtask history`): nvmlUnlisted"]
        );
        assert!(!d.has_errors());
    }

    #[test]
    fn record_versions_get_the_first_driver_of_their_header() {
        let mut model = model_with(&["nvmlInit_v2"]);
        for (name, n, size) in
            [("nvmlOld_v1", 1, 8), ("nvmlNew_v2", 2, 12), ("nvmlUnlisted_v1", 1, 4), ("nvmlBad_v3", 2, 4)]
        {
            let rec = format!("{name}_t");
            model.records.insert(
                rec.clone(),
                crate::model::Record {
                    name: rec,
                    kind: crate::model::RecordKind::Struct,
                    tag: None,
                    size,
                    align: 4,
                    fields: Vec::new(),
                    doc: None,
                    parent: None,
                    line: 0,
                },
            );
            let value = crate::model::IntValue::Unsigned((n << 24) | size);
            model.constants.insert(
                name.to_string(),
                crate::model::Constant {
                    name: name.to_string(),
                    value: crate::model::ConstValue::Int { value, ty: crate::model::Ty::UInt },
                    doc: None,
                    line: 0,
                },
            );
        }
        // nvmlBad_v3 says version 2 in its value: not a struct version constant.
        let found: Vec<String> = records::version_constants(&model).into_iter().collect();
        assert_eq!(found, ["nvmlNew_v2", "nvmlOld_v1", "nvmlUnlisted_v1"]);
        let functions = BTreeMap::from([("nvmlInit_v2".to_string(), "11.7.91".to_string())]);
        let text = render("13.1.68", "11.7.91", 2, &functions)
            + "drivers:\n  12.8.90: 570.124.06\n"
            + &records::render(
                "13.1.68",
                &[("nvmlOld_v1", "11.7.91"), ("nvmlNew_v2", "12.8.90")]
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            );
        let h = parse(&text, "h.yaml").unwrap();
        let mut d = Diagnostics::new("history");
        let t = table(&h, "h.yaml", &model, &mut d);
        let got: Vec<(&str, u32, Option<&str>)> =
            t.record_versions.iter().map(|i| (i.function.as_str(), i.min_driver, i.first_driver.as_deref())).collect();
        assert_eq!(got, [("nvmlNew_v2", 570, Some("570.124.06"))]);
        let msgs: Vec<String> = d.items().iter().map(|x| x.to_string()).collect();
        assert!(
            msgs.iter().any(|m| m.contains("1 record version(s) are not listed") && m.ends_with("nvmlUnlisted_v1")),
            "{msgs:?}"
        );
    }

    #[test]
    fn a_missing_history_warns_and_a_broken_one_fails() {
        let model = model_with(&["nvmlInit_v2"]);
        let (t, d) = for_regen(Path::new("/nonexistent/function-history.yaml"), "x/function-history.yaml", &model);
        assert_eq!(t, DriverTable::default());
        assert_eq!(d.count(crate::diag::Level::Warning), 1);
        assert!(
            d.items()[0].to_string().contains("not found: every function is treated as present"),
            "{:?}",
            d.items()
        );
        assert!(parse("default: 1\nbogus: 2\n", "b.yaml").unwrap_err().to_string().contains("b.yaml:"));
    }

    #[test]
    fn regen_fails_on_a_record_size_the_mock_does_not_declare() {
        let dir = std::env::temp_dir().join(format!("nvmlkit-history-sizes-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(FILE_NAME);
        let functions = BTreeMap::from([("nvmlInit_v2".to_string(), "11.7.91".to_string())]);
        let table = BTreeMap::from([(
            "nvmlGpmMetricsGet.metricsGet".to_string(),
            sizes::Varying {
                record: "nvmlGpmMetricsGet_t".into(),
                word: "NVML_GPM_METRICS_GET_VERSION = 1".into(),
                sizes: BTreeMap::from([("12.8.90".to_string(), 3944), ("13.4.61".to_string(), 19104)]),
            },
        )]);
        std::fs::write(&file, render("13.1.68", "11.7.91", 2, &functions) + &sizes::render(&table)).unwrap();
        let model = model_with(&["nvmlInit_v2"]);
        let handled = dir.join(sizes::HANDLED_FILE_NAME);
        let _ = std::fs::remove_file(&handled);
        let (_, d) = for_regen(&file, "g/function-history.yaml", &model);
        let msgs: Vec<String> = d.items().iter().map(|x| x.to_string()).collect();
        assert!(d.has_errors(), "{msgs:?}");
        assert!(
            msgs.iter().any(|m| m.contains("g/function-history.yaml: record_sizes.nvmlGpmMetricsGet.metricsGet")
                && m.contains("declare it in g/caller-sized.yaml")),
            "{msgs:?}"
        );
        std::fs::write(&handled, "handled:\n  nvmlGpmMetricsGet.metricsGet: engine/gpm.rs\n").unwrap();
        let (_, d) = for_regen(&file, "g/function-history.yaml", &model);
        assert!(!d.has_errors(), "{:?}", d.items());
        std::fs::write(&handled, "handled:\n  nvmlGpmMetricsGet.metricsGet: [not, text]\n").unwrap();
        let (_, d) = for_regen(&file, "g/function-history.yaml", &model);
        assert!(d.items().iter().any(|x| x.to_string().contains("g/caller-sized.yaml:")), "{:?}", d.items());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_checked_in_history_covers_the_default_header() {
        let root = crate::workspace::project_root();
        let text = std::fs::read_to_string(root.join(HISTORY_FILE)).unwrap();
        let h = parse(&text, HISTORY_FILE).unwrap();
        assert_eq!(h.default, crate::fetch::headers::default_version(&root).unwrap());
        let expected: BTreeMap<String, u32> = BRANCHES.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        assert_eq!(h.branches, expected, "regenerate with `cargo xtask history`");
        // nvmlPlatformInfo_v1 came with the function (12.8.55), v2 with 12.8.90.
        assert_eq!(h.record_versions["nvmlPlatformInfo_v1"], "12.8.55");
        assert_eq!(h.record_versions["nvmlPlatformInfo_v2"], "12.8.90");
        assert_eq!(h.record_versions["nvmlGpuFabricInfo_v3"], "13.0.39");
        // nvmlGpmMetricsGet_t grew under version 1: 98, 210, 333 and 477 metrics of 40 bytes
        // after a head of 24; 12.2.81 and 12.2.128 gave nvmlProcessInfo_t 8 more bytes.
        let gpm = &h.record_sizes["nvmlGpmMetricsGet.metricsGet"];
        let sizes: Vec<u64> = gpm.sizes.values().copied().collect();
        assert_eq!(sizes, [3944, 8424, 13344, 19104]);
        assert_eq!(gpm.sizes["13.2.51"], 24 + 333 * 40);
        assert_eq!(h.record_sizes["nvmlDeviceGetComputeRunningProcesses_v3.infos"].sizes["12.2.81"], 32);
        assert_eq!(h.record_sizes.len(), 4, "{:?}", h.record_sizes.keys());
    }
}
