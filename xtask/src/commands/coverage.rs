//! `cargo xtask coverage [--json]`: how much of the header the safe crate wraps (see
//! [`crate::coverage`]).

use std::path::Path;

use anyhow::Result;

use crate::pipeline::{self, Inputs};

/// Prints the coverage report, as text or JSON.
pub fn run(root: &Path, inputs: &Inputs, json: bool) -> Result<()> {
    let report = crate::coverage::coverage(&pipeline::planned(root, inputs)?);
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.to_text());
    }
    Ok(())
}
