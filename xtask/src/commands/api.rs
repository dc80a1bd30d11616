//! `cargo xtask api`: the safe crate's public API as a listing (see `diff::listing`), or what
//! breaks a release's API.

use std::path::Path;

use anyhow::{bail, Result};

use crate::diff::listing;
use crate::diff::SafeApi;

/// Prints the listing of the sources under `src`, or, `since` a release, its breaks as
/// changelog lines (`false`, exit 1, when there are any).
pub fn run(root: &Path, src: &Path, since: Option<&str>) -> Result<bool> {
    let api = SafeApi::of_sources(src)?;
    let Some(version) = since else {
        print!("{}", listing::write(&api));
        return Ok(true);
    };
    let Some(old) = listing::released(root, version)? else {
        bail!("{}/{version}.txt does not exist: no listing of release {version}", listing::DIR)
    };
    let breaks = listing::breaks(&old, &api);
    for b in &breaks {
        println!("{}", listing::changelog_line(b));
    }
    eprintln!("{} change(s) break the API of {version}", breaks.len());
    Ok(breaks.is_empty())
}
