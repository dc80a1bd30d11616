//! The records whose size a call does not tell: a record a function takes through a pointer
//! (or that such a record points to) whose size differs between two published headers while
//! the call looks the same, the same symbol with the same version word.
//!
//! A client is compiled against the header of its day and the mock against the newest, so
//! wherever a record grew under one version word the mock must take the caller's size from
//! the call itself (`nvmlGpmMetricsGet_t`: `NVML_GPM_METRICS_GET_VERSION` is 1 in every
//! header while its `metrics[]` grew from 98 to 477 entries). A version word made by
//! `NVML_STRUCT_VERSION` holds the record's size, so a record that has one never varies
//! under one word; a record without a version field varies under one symbol.
//!
//! `cargo xtask history` computes the table from every header of the corpus ([`taken`] for
//! each, [`varying`] across them) into the `record_sizes:` section of
//! `gen-config/function-history.yaml`; the mock declares the entries it handles in
//! `gen-config/caller-sized.yaml` ([`Handled`]). `history`, `history --check` and `regen`
//! ([`check`]) fail on an entry of the table the mock does not declare, and on a declaration
//! the table lacks.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::{Context, Result};
use serde::Deserialize;

use super::records::version_constants;
use crate::diag::Diagnostics;
use crate::model::{version_key, ConstValue, Model, Record, Ty};

/// The mock's declarations, beside the rules file: `gen-config/caller-sized.yaml`.
pub const HANDLED_FILE_NAME: &str = "caller-sized.yaml";

/// A record as one header lays it out where a function takes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Taken {
    /// The record's model name.
    pub record: String,
    pub size: u64,
    /// The value of the version word the caller sets, if the call has one a constant names.
    pub word: Option<i128>,
    /// That word in words, for the table: `NVML_GPM_METRICS_GET_VERSION = 1`.
    pub word_text: String,
}

/// The record behind a pointer type, if it points to one.
fn pointee_record<'a>(model: &'a Model, ty: &Ty) -> Option<&'a Record> {
    let Ty::Pointer { pointee, .. } = model.resolve_typedef(ty) else { return None };
    match model.resolve_typedef(pointee) {
        Ty::Named(n) => model.records.get(n),
        _ => None,
    }
}

/// The struct version constants of `model` by the record of their layout: record → (the
/// constant, its value).
pub fn encoded_versions(model: &Model) -> BTreeMap<String, (String, i128)> {
    let mut encoded = BTreeMap::new();
    for name in version_constants(model) {
        let Some(ConstValue::Int { value, .. }) = model.constants.get(&name).map(|c| &c.value) else { continue };
        if let Ty::Named(r) = model.resolve_typedef(&Ty::Named(format!("{name}_t"))) {
            encoded.insert(r.clone(), (name.clone(), value.as_i128()));
        }
    }
    encoded
}

/// The integer constant the comment of `record`'s leading `version` field names
/// (`IN: Set to NVML_GPM_METRICS_GET_VERSION`), and its value; `None` for a record without
/// that field or a comment that names none.
pub fn named_version(model: &Model, record: &Record) -> Option<(String, i128)> {
    let first = record.fields.first().filter(|f| f.name == "version" && f.offset == 0)?;
    first
        .doc
        .as_deref()
        .unwrap_or("")
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter_map(|w| model.constants.get(w))
        .find_map(|c| match &c.value {
            ConstValue::Int { value, .. } => Some((c.name.clone(), value.as_i128())),
            _ => None,
        })
}

/// The version word a caller sets in `record`: the struct version constant whose layout it
/// is (the word holds its size), else the constant its `version` field's comment names, else
/// none that a constant names; `None` for a record without a leading `version` field.
fn version_word(
    model: &Model,
    record: &Record,
    encoded: &BTreeMap<String, (String, i128)>,
) -> Option<(Option<i128>, String)> {
    record.fields.first().filter(|f| f.name == "version" && f.offset == 0)?;
    if let Some((name, value)) = encoded.get(&record.name) {
        return Some((Some(*value), format!("{name} = {value:#x} (NVML_STRUCT_VERSION: it holds the size)")));
    }
    Some(match named_version(model, record) {
        Some((name, value)) => (Some(value), format!("{name} = {value}")),
        None => (None, "a version field no constant names".to_string()),
    })
}

/// Every record a function of `model` takes through a pointer parameter, and those such a
/// record points to (to a depth of three), by `symbol.parameter[.field…]`.
pub fn taken(model: &Model) -> BTreeMap<String, Taken> {
    let encoded = encoded_versions(model);
    let mut out = BTreeMap::new();
    for f in model.functions.values() {
        for p in &f.params {
            let Some(r) = pointee_record(model, &p.ty) else { continue };
            let (word, word_text) =
                version_word(model, r, &encoded).unwrap_or((None, "none: no version field".to_string()));
            let key = format!("{}.{}", f.name, p.name);
            let mut seen = BTreeSet::new();
            pointed(model, r, &key, (word, &word_text), 0, &mut seen, &mut out);
            out.insert(key, Taken { record: r.name.clone(), size: r.size, word, word_text });
        }
    }
    out
}

/// The records `r`'s pointer fields point to, under the word of the call (`word`): that word
/// tells the outer record's layout, not theirs.
fn pointed(
    model: &Model,
    r: &Record,
    key: &str,
    word: (Option<i128>, &str),
    depth: usize,
    seen: &mut BTreeSet<String>,
    out: &mut BTreeMap<String, Taken>,
) {
    if depth >= 3 || !seen.insert(r.name.clone()) {
        return;
    }
    for field in &r.fields {
        let Some(inner) = pointee_record(model, &field.ty) else { continue };
        let inner_key = format!("{key}.{}", field.name);
        pointed(model, inner, &inner_key, word, depth + 1, seen, out);
        out.insert(
            inner_key,
            Taken {
                record: inner.name.clone(),
                size: inner.size,
                word: word.0,
                word_text: format!("the word of the record that points to it: {}", word.1),
            },
        );
    }
}

/// An entry of the table: a record whose size differs between headers under one word.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Varying {
    /// The record in the newest header that takes it.
    pub record: String,
    /// The word under which the size varies.
    pub word: String,
    /// Its size from each header where it changes (and the first that has it).
    pub sizes: BTreeMap<String, u64>,
}

/// The entries of `headers` (oldest first: version, [`taken`]) whose size differs between two
/// headers with the same word (no word included).
pub fn varying(headers: &[(String, BTreeMap<String, Taken>)]) -> BTreeMap<String, Varying> {
    let keys: BTreeSet<&String> = headers.iter().flat_map(|(_, t)| t.keys()).collect();
    let mut out = BTreeMap::new();
    for key in keys {
        let seen: Vec<(&String, &Taken)> = headers.iter().filter_map(|(v, t)| Some((v, t.get(key)?))).collect();
        // Word → its sizes, and the newest taking of each word that varies.
        let mut by_word: BTreeMap<Option<i128>, BTreeSet<u64>> = BTreeMap::new();
        for (_, t) in &seen {
            by_word.entry(t.word).or_default().insert(t.size);
        }
        // The newest header's taking under a word that varies.
        let Some(word) = seen.iter().rev().map(|(_, t)| t.word).find(|w| by_word.get(w).is_some_and(|s| s.len() > 1))
        else {
            continue;
        };
        let under: Vec<&(&String, &Taken)> = seen.iter().filter(|(_, t)| t.word == word).collect();
        let mut sizes = BTreeMap::new();
        let mut last = None;
        for (v, t) in &under {
            if last != Some(t.size) {
                sizes.insert((*v).clone(), t.size);
                last = Some(t.size);
            }
        }
        let Some((_, newest)) = under.last() else { continue };
        out.insert(key.clone(), Varying { record: newest.record.clone(), word: newest.word_text.clone(), sizes });
    }
    out
}

/// The `record_sizes:` section of the history file.
pub fn render(table: &BTreeMap<String, Varying>) -> String {
    let mut s = String::from(
        "# record_sizes: every record a function takes through a pointer (symbol.parameter, and\n\
         # .field for a record one points to) whose size differs between two headers of the\n\
         # corpus under the same version word (or with none): a client of an older header\n\
         # passes a smaller one. Its size from each header where it changes. The mock must take\n\
         # the size from the call: each entry is declared in gen-config/caller-sized.yaml, or\n\
         # `cargo xtask history` and `cargo xtask regen` fail.\n\
         record_sizes:",
    );
    if table.is_empty() {
        s.push_str(" {}\n");
        return s;
    }
    s.push('\n');
    for (key, v) in table {
        s.push_str(&format!(
            "  {key}:\n    record: {}\n    word: '{}'\n    sizes:\n",
            v.record,
            v.word.replace('\'', "''")
        ));
        let mut sizes: Vec<(&String, &u64)> = v.sizes.iter().collect();
        sizes.sort_by_key(|(h, _)| version_key(h));
        for (h, size) in sizes {
            s.push_str(&format!("      {h}: {size}\n"));
        }
    }
    s
}

/// `gen-config/caller-sized.yaml`: the entries of the table the mock handles, each with how it
/// takes the caller's size from the call.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Handled {
    /// `symbol.parameter[.field]` → where and how the mock handles it.
    #[serde(default)]
    pub handled: BTreeMap<String, String>,
}

/// Reads the declarations at `path`; a missing file declares none. YAML errors name the place.
pub fn load_handled(path: &Path, shown: &str) -> Result<Handled> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Handled::default()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {shown}")),
    };
    parse_handled(&text, shown)
}

pub fn parse_handled(text: &str, origin: &str) -> Result<Handled> {
    if text.trim().is_empty() {
        return Ok(Handled::default());
    }
    serde_yaml::from_str(text).map_err(|e| match e.location() {
        Some(l) => anyhow::anyhow!("{origin}:{}:{}: {e}", l.line(), l.column()),
        None => anyhow::anyhow!("{origin}: {e}"),
    })
}

/// An error for each entry of `table` (from `table_file`) that `handled` (from `handled_file`)
/// does not declare, and for each declaration the table lacks.
pub fn check(
    table: &BTreeMap<String, Varying>,
    table_file: &str,
    handled: &Handled,
    handled_file: &str,
    d: &mut Diagnostics,
) {
    for (key, v) in table {
        if !handled.handled.contains_key(key) {
            let mut sizes: Vec<(&String, &u64)> = v.sizes.iter().collect();
            sizes.sort_by_key(|(h, _)| version_key(h));
            let sizes: Vec<String> = sizes.iter().map(|(h, s)| format!("{s} bytes from {h}")).collect();
            d.error(
                format!("{table_file}: record_sizes.{key}"),
                format!(
                    "`{}` differs in size under one version word ({}): {}. A client of an older \
                     header passes a smaller record, so the mock must take its size from the call; \
                     handle it in the mock's engine and declare it in {handled_file}",
                    v.record,
                    v.word,
                    sizes.join(", ")
                ),
            );
        }
    }
    for key in handled.handled.keys() {
        if !table.contains_key(key) {
            d.error(
                format!("{handled_file}: handled.{key}"),
                format!("not in the `record_sizes` table of {table_file}: no header varies its size under one word"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Constant, Field, Function, IntValue, Param, RecordKind};

    fn record(name: &str, size: u64, fields: &[(&str, Ty, Option<&str>)]) -> Record {
        Record {
            name: name.into(),
            kind: RecordKind::Struct,
            tag: None,
            size,
            align: 8,
            fields: fields
                .iter()
                .enumerate()
                .map(|(i, (n, ty, doc))| Field {
                    name: n.to_string(),
                    ty: ty.clone(),
                    offset: 4 * i as u64,
                    bit_width: None,
                    doc: doc.map(str::to_string),
                })
                .collect(),
            doc: None,
            parent: None,
            line: 0,
        }
    }

    fn constant(m: &mut Model, name: &str, value: u64) {
        m.constants.insert(
            name.into(),
            Constant {
                name: name.into(),
                value: ConstValue::Int { value: IntValue::Unsigned(value), ty: Ty::UInt },
                doc: None,
                line: 0,
            },
        );
    }

    fn function(m: &mut Model, name: &str, param: &str, record: &str) {
        m.functions.insert(
            name.into(),
            Function {
                name: name.into(),
                ret: Ty::Named("nvmlReturn_t".into()),
                params: vec![Param { name: param.into(), ty: Ty::pointer(Ty::Named(record.into()), false) }],
                doc: None,
                docs: Default::default(),
                deprecated: false,
                legacy: false,
                line: 0,
            },
        );
    }

    /// A header whose metrics record holds `metrics` entries of 40 bytes under the plain word
    /// 1, whose struct-versioned record is `versioned` bytes, whose unversioned list entry is
    /// `entry` bytes, and whose struct-versioned list points to entries of `detail` bytes.
    fn header(metrics: u64, versioned: u64, entry: u64, detail: u64) -> Model {
        let mut m = Model::default();
        let version = ("version", Ty::UInt, Some("IN: Set to NVML_METRICS_VERSION"));
        m.records
            .insert("nvmlMetrics_t".into(), record("nvmlMetrics_t", 24 + 40 * metrics, std::slice::from_ref(&version)));
        constant(&mut m, "NVML_METRICS_VERSION", 1);
        function(&mut m, "nvmlMetricsGet", "metrics", "nvmlMetrics_t");
        m.records.insert(
            "nvmlInfo_v2_t".into(),
            record("nvmlInfo_v2_t", versioned, &[("version", Ty::UInt, Some("the API version"))]),
        );
        constant(&mut m, "nvmlInfo_v2", (2 << 24) | versioned);
        function(&mut m, "nvmlGetInfo", "info", "nvmlInfo_v2_t");
        m.records.insert("nvmlEntry_t".into(), record("nvmlEntry_t", entry, &[("pid", Ty::UInt, None)]));
        function(&mut m, "nvmlGetEntries", "entries", "nvmlEntry_t");
        m.records.insert("nvmlDetail_t".into(), record("nvmlDetail_t", detail, &[("pid", Ty::UInt, None)]));
        m.records.insert(
            "nvmlList_v1_t".into(),
            record(
                "nvmlList_v1_t",
                16,
                &[("version", Ty::UInt, None), ("items", Ty::pointer(Ty::Named("nvmlDetail_t".into()), false), None)],
            ),
        );
        constant(&mut m, "nvmlList_v1", (1 << 24) | 16);
        function(&mut m, "nvmlGetList", "list", "nvmlList_v1_t");
        m
    }

    #[test]
    fn a_record_that_grows_under_one_plain_word_or_none_is_in_the_table() {
        let corpus = vec![
            ("11.7.91".to_string(), taken(&header(98, 16, 16, 8))),
            ("12.9.40".to_string(), taken(&header(210, 24, 16, 8))),
            ("13.2.51".to_string(), taken(&header(333, 32, 24, 16))),
            ("13.4.61".to_string(), taken(&header(333, 32, 24, 16))),
        ];
        let got = varying(&corpus);
        // The struct-versioned record's word changes with its size: told apart.
        let keys: Vec<&str> = got.keys().map(String::as_str).collect();
        assert_eq!(keys, ["nvmlGetEntries.entries", "nvmlGetList.list.items", "nvmlMetricsGet.metrics"]);
        let m = &got["nvmlMetricsGet.metrics"];
        assert_eq!(m.word, "NVML_METRICS_VERSION = 1");
        let sizes: Vec<(&str, u64)> = m.sizes.iter().map(|(h, s)| (h.as_str(), *s)).collect();
        assert_eq!(sizes, [("11.7.91", 3944), ("12.9.40", 8424), ("13.2.51", 13344)]);
        assert_eq!(got["nvmlGetEntries.entries"].word, "none: no version field");
        assert_eq!(
            got["nvmlGetList.list.items"].word,
            "the word of the record that points to it: nvmlList_v1 = 0x1000010 (NVML_STRUCT_VERSION: it holds the size)"
        );
        let text = render(&got);
        #[derive(Deserialize)]
        struct Section {
            record_sizes: BTreeMap<String, Varying>,
        }
        let parsed: Section = serde_yaml::from_str(&text).unwrap();
        assert_eq!(parsed.record_sizes, got);
        assert!(render(&BTreeMap::new()).ends_with("record_sizes: {}\n"));
    }

    #[test]
    fn the_check_names_what_the_mock_does_not_handle_and_what_it_declares_in_vain() {
        let corpus = vec![
            ("12.8.90".to_string(), taken(&header(98, 16, 16, 8))),
            ("13.4.61".to_string(), taken(&header(477, 16, 16, 8))),
        ];
        let table = varying(&corpus);
        let handled = parse_handled("handled:\n  nvmlGone.param: engine/x.rs\n", "c.yaml").unwrap();
        let mut d = Diagnostics::new("history");
        check(&table, "h.yaml", &handled, "c.yaml", &mut d);
        let msgs: Vec<String> = d.items().iter().map(|x| x.to_string()).collect();
        assert_eq!(msgs.len(), 2, "{msgs:?}");
        assert!(msgs[0].contains("h.yaml: record_sizes.nvmlMetricsGet.metrics"), "{msgs:?}");
        assert!(msgs[0].contains("3944 bytes from 12.8.90, 19104 bytes from 13.4.61"), "{msgs:?}");
        assert!(msgs[0].contains("declare it in c.yaml"), "{msgs:?}");
        assert!(
            msgs[1].contains("c.yaml: handled.nvmlGone.param") && msgs[1].contains("not in the `record_sizes` table")
        );
        let handled = parse_handled("handled:\n  nvmlMetricsGet.metrics: engine/gpm.rs\n", "c.yaml").unwrap();
        let mut d = Diagnostics::new("history");
        check(&table, "h.yaml", &handled, "c.yaml", &mut d);
        assert!(!d.has_errors(), "{:?}", d.items());
        assert!(parse_handled("handled: {}\nother: 1\n", "c.yaml").unwrap_err().to_string().starts_with("c.yaml:"));
    }
}
