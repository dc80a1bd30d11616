//! The vendored headers under `nvml-headers/<version>/`, each with a `provenance.yaml`.
//! The default header is the newest vendored version.
//!
//! Headers that are not vendored can live in the header cache, `nvml-header-cache/<version>/`
//! under the target directory, in the same layout (see [`cache_dir`]); `cargo xtask
//! header-diff` and the corpus test fill it with pip. `nvml-headers/corpus.txt` lists every
//! published header with its pip package.

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

/// The header cache: `$NVML_HEADER_CACHE` if set, else `nvml-header-cache/` in the target
/// directory (`$CARGO_TARGET_DIR`, or `target/` under the workspace root).
pub fn cache_dir(root: &Path) -> PathBuf {
    if let Some(dir) = std::env::var_os("NVML_HEADER_CACHE") {
        return root.join(dir);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR").map(|t| root.join(t)).unwrap_or_else(|| root.join("target"));
    target.join("nvml-header-cache")
}

/// The header of a version in the cache, if it is there.
pub fn cached(root: &Path, version: &str) -> Option<PathBuf> {
    let path = cache_dir(root).join(version).join("nvml.h");
    (version_key(version).is_some() && path.is_file()).then_some(path)
}

/// The pip package that publishes the header of `version`: `nvidia-nvml-dev-cu11` and
/// `nvidia-nvml-dev-cu12` for 11.x and 12.x, `nvidia-nvml-dev` from 13.x on.
pub fn package_for(version: &str) -> Result<&'static str> {
    match version_key(version).as_deref() {
        Some([11, ..]) => Ok("nvidia-nvml-dev-cu11"),
        Some([12, ..]) => Ok("nvidia-nvml-dev-cu12"),
        Some([major, ..]) if *major >= 13 => Ok("nvidia-nvml-dev"),
        Some(_) => bail!("no pip package publishes nvml.h {version} (the first is 11.7.91)"),
        None => bail!("`{version}` is not a version such as 13.5.37"),
    }
}

/// One line of `nvml-headers/corpus.txt`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorpusEntry {
    pub version: String,
    pub package: String,
}

pub const CORPUS_FILE: &str = "nvml-headers/corpus.txt";

/// Every published header, oldest first, from `nvml-headers/corpus.txt` (`VERSION PACKAGE`
/// per line, `#` comments).
pub fn corpus(root: &Path) -> Result<Vec<CorpusEntry>> {
    let path = root.join(CORPUS_FILE);
    let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let place = format!("{}:{}", path.display(), i + 1);
        let (version, package) = line.split_once(char::is_whitespace).with_context(|| format!("{place}: expected `VERSION PACKAGE`"))?;
        if version_key(version).is_none() {
            bail!("{place}: `{version}` is not a version");
        }
        out.push(CorpusEntry { version: version.to_string(), package: package.trim().to_string() });
    }
    out.sort_by_key(|e| version_key(&e.version));
    Ok(out)
}

/// Resolves `spec` — a vendored version, a version in the header cache, a path to a header,
/// or `None` for the default — and checks the header against the `provenance.yaml` beside
/// it, if there is one.
pub fn resolve(root: &Path, spec: Option<&str>) -> Result<Header> {
    let spec = match spec {
        Some(s) => s.to_string(),
        None => default_version(root)?,
    };
    let vendored = headers_dir(root).join(&spec).join("nvml.h");
    let path = if version_key(&spec).is_some() && vendored.is_file() {
        vendored
    } else if let Some(path) = cached(root, &spec) {
        path
    } else if Path::new(&spec).is_file() {
        PathBuf::from(&spec)
    } else if version_key(&spec).is_some() {
        let known = vendored_versions(root).unwrap_or_default().join(", ");
        bail!(
            "header version {spec} is neither vendored (vendored: {known}) nor in the header cache ({}); \
             vendor it with `cargo xtask update-header {spec}`, or `cargo xtask header-diff` fetches it into the cache",
            cache_dir(root).display()
        );
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

impl Provenance {
    /// The text of a `provenance.yaml`, in the layout of the vendored ones.
    pub fn to_yaml(&self) -> String {
        format!(
            "# Where this header came from: `pip download --no-deps {}=={}`, unzipped.\n\
             package: {}\nversion: {}\nfile: {}\nsha256: {}\n",
            self.package, self.version, self.package, self.version, self.file, self.sha256
        )
    }
}

pub fn read_provenance(path: &Path) -> Result<Provenance> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_yaml::from_str(&text).with_context(|| format!("{} is not a valid provenance file", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provenance_files_have_the_written_layout() {
        let root = crate::project_root();
        for v in vendored_versions(&root).unwrap() {
            let path = headers_dir(&root).join(&v).join("provenance.yaml");
            let text = std::fs::read_to_string(&path).unwrap();
            assert_eq!(read_provenance(&path).unwrap().to_yaml(), text, "{}", path.display());
        }
    }

    #[test]
    fn corpus_lists_each_version_with_its_package() {
        let entries = corpus(&crate::project_root()).unwrap();
        assert_eq!(entries.len(), 33);
        for e in &entries {
            assert_eq!(package_for(&e.version).unwrap(), e.package, "{}", e.version);
        }
        let first_and_last = (entries[0].version.as_str(), entries[32].version.as_str());
        assert_eq!(first_and_last, ("11.7.91", "13.5.37"));
        for v in vendored_versions(&crate::project_root()).unwrap() {
            assert!(entries.iter().any(|e| e.version == v), "vendored {v} is missing from the corpus");
        }
        assert!(package_for("10.1.0").is_err());
        assert!(package_for("latest").is_err());
    }
}
