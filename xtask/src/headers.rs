//! The vendored headers under `nvml-headers/<version>/`, each with a `provenance.yaml`.
//! The default header is the newest vendored version.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::model::HeaderInfo;

/// Where a vendored header came from.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Provenance {
    /// The pip package, e.g. `nvidia-nvml-dev`.
    pub package: String,
    pub version: String,
    /// The header's path inside the wheel.
    pub file: String,
    pub sha256: String,
}

/// A header ready to parse.
#[derive(Debug, Clone)]
pub struct Header {
    pub path: PathBuf,
    pub info: HeaderInfo,
}

pub fn headers_dir(root: &Path) -> PathBuf {
    root.join("nvml-headers")
}

/// `13.5.37` → `[13, 5, 37]`; `None` for a name that is not a version.
pub fn version_key(v: &str) -> Option<Vec<u32>> {
    v.split('.').map(|p| p.parse().ok()).collect()
}

/// Vendored versions, oldest first.
pub fn vendored_versions(root: &Path) -> Result<Vec<String>> {
    let dir = headers_dir(root);
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).with_context(|| format!("cannot list {}", dir.display()))? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if version_key(&name).is_some() && entry.path().join("nvml.h").is_file() {
            out.push(name);
        }
    }
    out.sort_by_key(|v| version_key(v));
    Ok(out)
}

pub fn default_version(root: &Path) -> Result<String> {
    vendored_versions(root)?.pop().with_context(|| format!("no header is vendored under {}", headers_dir(root).display()))
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// Resolves `spec` — a vendored version, a path to a header, or `None` for the default —
/// and checks a vendored header against its provenance.
pub fn resolve(root: &Path, spec: Option<&str>) -> Result<Header> {
    let spec = match spec {
        Some(s) => s.to_string(),
        None => default_version(root)?,
    };
    let vendored = headers_dir(root).join(&spec).join("nvml.h");
    let path = if version_key(&spec).is_some() && vendored.is_file() {
        vendored
    } else if Path::new(&spec).is_file() {
        PathBuf::from(&spec)
    } else if version_key(&spec).is_some() {
        let known = vendored_versions(root).unwrap_or_default().join(", ");
        bail!("header version {spec} is not vendored (vendored: {known}); fetch it with `cargo xtask update-header {spec}`");
    } else {
        bail!("no header at {spec}");
    };
    let bytes = std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let sha256 = sha256_hex(&bytes);
    let prov_path = path.with_file_name("provenance.yaml");
    let version = if prov_path.is_file() {
        let prov = read_provenance(&prov_path)?;
        if prov.sha256 != sha256 {
            bail!(
                "{} does not match its provenance: sha256 is {sha256}, {} says {}",
                path.display(),
                prov_path.display(),
                prov.sha256
            );
        }
        prov.version
    } else {
        path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default()
    };
    Ok(Header { path, info: HeaderInfo { version, sha256 } })
}

pub fn read_provenance(path: &Path) -> Result<Provenance> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_yaml::from_str(&text).with_context(|| format!("{} is not a valid provenance file", path.display()))
}
