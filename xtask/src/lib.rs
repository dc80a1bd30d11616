//! The NVML binding generator behind `cargo xtask`.
//!
//! Pipeline: [`clang`] parses `nvml.h` into the plain-data [`model`]; [`rules`] applies
//! `gen-config/nvml.yaml` to it; [`emit`] turns the result into formatted Rust; [`regen`]
//! swaps that into place, or compares it with what is checked in.

pub mod bench;
pub mod clang;
pub mod coverage;
pub mod diag;
pub mod diff;
pub mod emit;
pub mod headers;
pub mod history;
pub mod model;
pub mod regen;
pub mod rules;
pub mod update;

use std::path::{Path, PathBuf};

use anyhow::Result;

/// The workspace root (the parent of this crate).
pub fn project_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().map(PathBuf::from).unwrap_or_default()
}

/// The default rules file.
pub const RULES_FILE: &str = "gen-config/nvml.yaml";

/// What to generate from.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    /// A vendored version or a header path; `None` for the newest vendored header.
    pub header: Option<String>,
    /// The rules file; `None` for `gen-config/nvml.yaml`.
    pub rules: Option<PathBuf>,
    /// Print notes too, not only warnings and errors.
    pub verbose: bool,
}

/// Parses the header of `inputs` into its model; the parse diagnostics are printed, and an
/// error among them fails.
pub fn header_model(root: &Path, inputs: &Inputs) -> Result<model::Model> {
    let header = headers::resolve(root, inputs.header.as_deref())?;
    let (model, diags) = clang::parse_header(&header.path, header.info)?;
    diags.finish(inputs.verbose)?;
    Ok(model)
}

/// Parses the header and applies the rules: every phase's diagnostics are printed, and an
/// error in a phase stops the pipeline there.
pub fn bindings(root: &Path, inputs: &Inputs) -> Result<rules::Bindings> {
    let model = header_model(root, inputs)?;
    let (rules, shown) = load_rules(root, inputs)?;
    let (bindings, diags) = rules::apply(model, &rules, &shown);
    diags.finish(inputs.verbose)?;
    Ok(bindings)
}

/// Reads the rules file of `inputs`; returns it with its path as diagnostics name it.
pub fn load_rules(root: &Path, inputs: &Inputs) -> Result<(rules::Rules, String)> {
    let rules_path = inputs.rules.clone().unwrap_or_else(|| root.join(RULES_FILE));
    let shown = rules_path.strip_prefix(root).unwrap_or(&rules_path).display().to_string();
    Ok((rules::load(&rules_path)?, shown))
}

/// The whole pipeline up to formatted files.
pub fn generate(root: &Path, inputs: &Inputs) -> Result<emit::Output> {
    let b = bindings(root, inputs)?;
    check_manual(root, &b).finish(inputs.verbose)?;
    let table = driver_table(root, inputs, &b.model)?;
    let mut out = emit::emit_all(&b)?;
    emit::mock::emit_history(&b, &table, &mut out)?;
    Ok(out)
}

/// Each `manual` rule should name a file under `root` that mentions its function: a warning
/// otherwise, so that a hand-written wrapper that went away is noticed.
pub fn check_manual(root: &Path, b: &rules::Bindings) -> diag::Diagnostics {
    let mut d = diag::Diagnostics::new("emit");
    for (func, file) in &b.manual {
        let text = std::fs::read_to_string(root.join(file)).unwrap_or_default();
        if !text.contains(func.as_str()) {
            d.warn(format!("{RULES_FILE}: manual.{func}"), format!("`{file}` does not exist or never mentions `{func}`"));
        }
    }
    d
}

/// Reads the function history beside the rules file of `inputs`
/// (`gen-config/function-history.yaml` for the default rules) for the functions of `model`; its
/// warnings are printed, and a file that does not parse fails.
pub fn driver_table(root: &Path, inputs: &Inputs, model: &model::Model) -> Result<history::DriverTable> {
    let rules_path = inputs.rules.clone().unwrap_or_else(|| root.join(RULES_FILE));
    let file = history::path_for_rules(&rules_path);
    let shown = file.strip_prefix(root).unwrap_or(&file).display().to_string();
    let (table, diags) = history::for_regen(&file, &shown, model);
    diags.finish(inputs.verbose)?;
    Ok(table)
}
