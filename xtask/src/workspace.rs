//! Where things are in the workspace.

use std::path::PathBuf;

/// The workspace root (the parent of this crate).
pub fn project_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().map(PathBuf::from).unwrap_or_default()
}

/// The default rules file.
pub const RULES_FILE: &str = "gen-config/nvml.yaml";
