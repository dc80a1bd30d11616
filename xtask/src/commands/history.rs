//! `cargo xtask history [--check]`: computes `gen-config/function-history.yaml` from every
//! header of `nvml-headers/corpus.txt` (pip fetches the ones that are neither vendored nor
//! cached); `--check` recomputes it and fails when the file differs. The file's format is
//! [`crate::history`].

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::{bail, Context, Result};

use crate::fetch::headers;
use crate::fetch::Pip;
use crate::history::fields::{self, Changes};
use crate::history::{first_declared, gaps, records, render, sizes, HISTORY_FILE};

/// What `cargo xtask history` computed.
#[derive(Debug, Clone)]
pub struct Computed {
    pub text: String,
    pub default: String,
    pub oldest: String,
    pub functions: BTreeMap<String, String>,
    pub gaps: Vec<(String, String)>,
    /// Every `NVML_FI_*` field id → its number where it changes.
    pub fields: BTreeMap<String, Changes>,
    /// Every struct version constant of the default header → the first header that declares it.
    pub record_versions: BTreeMap<String, String>,
    /// The records whose size differs between headers under one version word.
    pub record_sizes: BTreeMap<String, sizes::Varying>,
}

/// Parses every header of the corpus (fetching with pip what is neither vendored nor cached)
/// and computes the history of the default header's functions.
pub fn compute(root: &Path, pip: &Pip) -> Result<Computed> {
    let entries = headers::corpus(root)?;
    let default = headers::default_version(root)?;
    if !entries.iter().any(|e| e.version == default) {
        bail!("the default header {default} is not listed in {}", headers::CORPUS_FILE);
    }
    // Fetched one at a time, so that pip's messages come in order; parsed on every core.
    let specs: Vec<String> =
        entries.iter().map(|e| headers::available(root, &e.version, pip)).collect::<Result<_>>()?;
    let parsed = parse_all(root, &specs)?;
    let mut field_ids = Vec::new();
    let mut headers: Vec<(String, BTreeSet<String>)> = Vec::new();
    let mut versions_by_header: Vec<(String, BTreeSet<String>)> = Vec::new();
    let mut taken = Vec::new();
    for (e, (fns, ids, record_versions, records)) in entries.iter().zip(parsed) {
        headers.push((e.version.clone(), fns));
        field_ids.push((e.version.clone(), ids));
        versions_by_header.push((e.version.clone(), record_versions));
        taken.push((e.version.clone(), records));
    }
    let current = headers.iter().find(|(v, _)| *v == default).map(|(_, f)| f.clone()).unwrap_or_default();
    let functions = first_declared(&headers, &current);
    let gaps = gaps(&headers, &current);
    let oldest = entries[0].version.clone();
    let versions: Vec<String> = entries.iter().map(|e| e.version.clone()).collect();
    let fields = fields::changes(&field_ids);
    let current_versions =
        versions_by_header.iter().find(|(v, _)| *v == default).map(|(_, c)| c.clone()).unwrap_or_default();
    let record_versions = first_declared(&versions_by_header, &current_versions);
    let record_sizes = sizes::varying(&taken);
    let text = render(&default, &oldest, entries.len(), &functions)
        + &fields::render(&versions, &fields)
        + &records::render(&default, &record_versions)
        + &sizes::render(&record_sizes);
    Ok(Computed { text, default, oldest, functions, gaps, fields, record_versions, record_sizes })
}

/// What one header declares: its function symbols, its field ids, its struct version
/// constants and the records its functions take.
type Declared = (BTreeSet<String>, BTreeMap<String, u32>, BTreeSet<String>, BTreeMap<String, sizes::Taken>);

/// The function symbols and field ids of each header, in the order of `specs`.
fn parse_all(root: &Path, specs: &[String]) -> Result<Vec<Declared>> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(specs.iter().map(|_| None).collect::<Vec<Option<Result<Declared>>>>());
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(specs.len().max(1));
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(spec) = specs.get(i) else { break };
                let r = declared_by(root, spec);
                results.lock().unwrap_or_else(|p| p.into_inner())[i] = Some(r);
            });
        }
    });
    let results = results.into_inner().unwrap_or_else(|p| p.into_inner());
    results.into_iter().map(|r| r.unwrap_or_else(|| bail!("a header was not parsed (a bug)"))).collect()
}

fn declared_by(root: &Path, spec: &str) -> Result<Declared> {
    let (model, diags) = crate::pipeline::parse(root, Some(spec))?;
    if diags.has_errors() {
        let errors: Vec<String> = diags.items().iter().map(|d| d.to_string()).collect();
        bail!("nvml.h {}: {}", model.header.version, errors.join("; "));
    }
    let ids = fields::field_ids(&model);
    let record_versions = records::version_constants(&model);
    let taken = sizes::taken(&model);
    Ok((model.functions.into_keys().collect(), ids, record_versions, taken))
}

/// `cargo xtask history [--check]`: writes the history file, or compares it; `Ok(false)` when
/// `--check` finds it stale.
pub fn run(root: &Path, check: bool, pip: &Pip) -> Result<bool> {
    let computed = compute(root, pip)?;
    let path = root.join(HISTORY_FILE);
    let newer = computed.functions.values().filter(|v| **v != computed.oldest).count();
    let summary = format!(
        "{} functions of nvml.h {}: {} declared by {}, {newer} first declared by a later header; \
         {} field ids, {} of them renumbered by some header; {} record versions, {} of them after {}",
        computed.functions.len(),
        computed.default,
        computed.functions.len() - newer,
        computed.oldest,
        computed.fields.len(),
        fields::renumbered(&computed.fields),
        computed.record_versions.len(),
        computed.record_versions.values().filter(|v| **v != computed.oldest).count(),
        computed.oldest,
    );
    for (name, missing_from) in &computed.gaps {
        println!("note: {name} is absent from nvml.h {missing_from}, after its first header");
    }
    // Every record whose size the call does not tell must be one the mock handles.
    let handled_file = Path::new(HISTORY_FILE).with_file_name(sizes::HANDLED_FILE_NAME).display().to_string();
    let handled = sizes::load_handled(&root.join(&handled_file), &handled_file)?;
    let mut d = crate::diag::Diagnostics::new("history");
    sizes::check(&computed.record_sizes, HISTORY_FILE, &handled, &handled_file, &mut d);
    for (key, v) in &computed.record_sizes {
        println!("note: {key} (`{}`) differs in size under one version word ({})", v.record, v.word);
    }
    d.finish(false)?;
    if check {
        let disk = std::fs::read_to_string(&path).unwrap_or_default().replace("\r\n", "\n");
        if disk == computed.text {
            println!("{HISTORY_FILE} is up to date ({summary})");
            return Ok(true);
        }
        let old: BTreeSet<&str> = disk.lines().collect();
        let new: BTreeSet<&str> = computed.text.lines().collect();
        for l in old.difference(&new).take(20) {
            eprintln!("- {l}");
        }
        for l in new.difference(&old).take(20) {
            eprintln!("+ {l}");
        }
        eprintln!("error: {HISTORY_FILE} is stale; run `cargo xtask history`");
        return Ok(false);
    }
    let staged = path.with_extension("yaml.new");
    std::fs::write(&staged, &computed.text).with_context(|| format!("cannot write {}", staged.display()))?;
    std::fs::rename(&staged, &path).with_context(|| format!("cannot move {} into place", staged.display()))?;
    println!("wrote {HISTORY_FILE} ({summary})");
    Ok(true)
}
