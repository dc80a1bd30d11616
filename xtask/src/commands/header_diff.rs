//! `cargo xtask header-diff OLD NEW [--format md|json]`: the API changes between two headers
//! (see [`crate::diff`]).

use std::path::Path;

use anyhow::Result;

use crate::diff::between;
use crate::fetch::Pip;

/// How to print the diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Markdown, for a pull-request description.
    Markdown,
    /// JSON, for tools.
    Json,
}

pub fn run(root: &Path, old: &str, new: &str, rules: Option<&Path>, format: Format) -> Result<()> {
    let diff = between(root, old, new, rules, &Pip::default())?;
    match format {
        Format::Markdown => print!("{}", diff.to_markdown()),
        Format::Json => println!("{}", serde_json::to_string_pretty(&diff)?),
    }
    Ok(())
}
