//! The mock's rules: `mock.yaml` beside the rules file (`gen-config/mock.yaml`), the functions
//! the mock's engine implements by hand, by the module of `crates/nvml-mock/src/engine/` that
//! implements each.
//!
//! Regen dispatches each of them to its module (`generated/dispatch.rs`) and answers every
//! other function from a profile's values where its outputs allow (`generated/answers.rs`), or
//! `NVML_ERROR_NOT_SUPPORTED`: a function has one answer, never a generated one that the
//! engine overrides. The file is deserialised with unknown keys as errors; a function the
//! header lacks, or one listed twice, is an error naming the place. Without the file no
//! function is hand-written.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::diag::Diagnostics;
use crate::model::Model;

/// The file's name, beside the rules file.
pub const FILE_NAME: &str = "mock.yaml";

/// The contents of `mock.yaml`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MockRules {
    /// Engine module (`system` for `engine/system.rs`) → the functions it implements, each a
    /// `pub fn` of the function's name taking the engine and the C parameters.
    pub hand_written: BTreeMap<String, Vec<String>>,
}

/// The mock file beside the rules file `rules`.
pub fn path_for_rules(rules: &Path) -> PathBuf {
    rules.with_file_name(FILE_NAME)
}

/// Reads and parses `path`; a file that does not exist is the empty table. YAML errors carry
/// the file, line and column.
pub fn load(path: &Path) -> Result<MockRules> {
    if !path.exists() {
        return Ok(MockRules::default());
    }
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    parse(&text, &path.display().to_string())
}

pub fn parse(text: &str, origin: &str) -> Result<MockRules> {
    if text.trim().is_empty() {
        return Ok(MockRules::default());
    }
    serde_yaml::from_str(text).map_err(|e| match e.location() {
        Some(l) => anyhow::anyhow!("{origin}:{}:{}: {e}", l.line(), l.column()),
        None => anyhow::anyhow!("{origin}: {e}"),
    })
}

/// Checks `rules` (read from `file`, for messages) against `model`: function → engine module.
pub fn apply(model: &Model, rules: &MockRules, file: &str, d: &mut Diagnostics) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (module, functions) in &rules.hand_written {
        let place = format!("{file}: hand_written.{module}");
        let is_module = module.starts_with(|c: char| c.is_ascii_lowercase())
            && module.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if !is_module {
            d.error(place.clone(), format!("`{module}` is not an engine module's name (snake case)"));
            continue;
        }
        for f in functions {
            if !model.functions.contains_key(f) {
                d.error(place.clone(), format!("`{f}` is not a function of the header"));
            } else if let Some(first) = out.insert(f.clone(), module.clone()) {
                d.error(place.clone(), format!("`{f}` is listed twice (also under `{first}`)"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_keys_are_errors_with_a_location() {
        let err = parse("hand_written: {}\nanswers: 1\n", "mock.yaml").unwrap_err().to_string();
        assert!(err.starts_with("mock.yaml:2:1:"), "{err}");
        assert!(err.contains("answers"), "{err}");
    }

    #[test]
    fn the_table_parses() {
        let path = crate::workspace::project_root().join("gen-config").join(FILE_NAME);
        let rules = load(&path).unwrap();
        assert!(rules.hand_written.get("system").is_some_and(|f| f.iter().any(|f| f == "nvmlInit_v2")));
    }
}
