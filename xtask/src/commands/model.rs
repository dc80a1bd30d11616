//! `cargo xtask model [--json]`: what the generator sees in a header.

use std::path::Path;

use anyhow::Result;

use crate::model::RecordKind;
use crate::pipeline::{self, Inputs};

/// Prints a summary of the header's model, or the whole model as JSON.
pub fn run(root: &Path, inputs: &Inputs, json: bool) -> Result<()> {
    let b = pipeline::bindings(root, inputs)?;
    let m = &b.model;
    if json {
        println!("{}", serde_json::to_string_pretty(m)?);
        return Ok(());
    }
    let top = |kind| m.records.values().filter(|r| r.kind == kind && r.parent.is_none()).count();
    let nested = m.records.values().filter(|r| r.parent.is_some()).count();
    let legacy = m.functions.values().filter(|f| f.legacy).count();
    println!("header {} (sha256 {})", m.header.version, m.header.sha256);
    println!("functions: {} ({legacy} only in the legacy block)", m.functions.len());
    println!(
        "records:   {} structs, {} unions (+{nested} nested anonymous)",
        top(RecordKind::Struct),
        top(RecordKind::Union)
    );
    println!("enums:     {}", m.enums.len());
    println!("handles:   {}", m.handles.len());
    println!("typedefs:  {}", m.typedefs.len());
    println!("constants: {}", m.constants.len());
    println!("aliases:   {} (#define nvmlX nvmlY)", m.aliases.len());
    println!("families:  {} versioned", b.families.len());
    println!("shapes:    {} string buffers, {} count+array", b.strings.len(), b.arrays.len());
    Ok(())
}
