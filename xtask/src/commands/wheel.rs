//! `cargo xtask wheel --out DIR`: the mock as a Python wheel, `nvmlkit_mock-<version>-py3-none-
//! manylinux_2_N_<arch>.whl`: the package `nvmlkit_mock` (`packaging/python/`) with the tree of
//! [`bundle`](super::bundle) under `nvmlkit_mock/_data/`, and its `.dist-info` (the licenses, the
//! `pytest11` entry point of the `nvml_mock` fixture). The platform tag is the newest glibc
//! symbol version the tree's ELF files need. `cargo xtask dist` writes the release archive of
//! the same tree.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::bundle::{self, elf, zip::Zip, Entry, Tree};
use crate::fetch::{base64_urlsafe, headers};

/// The Python package's sources and README, below the workspace root.
pub const PYTHON_DIR: &str = "packaging/python";
/// The distribution's name, and the import name of its package.
const NAME: &str = "nvmlkit-mock";
const PACKAGE: &str = "nvmlkit_mock";

/// Builds the tree and writes the wheel into `out`; returns its path.
pub fn run(root: &Path, out: &Path) -> Result<PathBuf> {
    let scratch = Scratch::new(root)?;
    let tree = bundle::build(root, &scratch.0.join("tree"))?;
    write(root, &tree, out)
}

/// A directory under `target/nvmlkit-dist/` for one build, removed when dropped.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(root: &Path) -> Result<Scratch> {
        let dir = root.join("target/nvmlkit-dist").join(format!("build-{}", std::process::id()));
        if dir.exists() {
            std::fs::remove_dir_all(&dir).with_context(|| format!("cannot remove {}", dir.display()))?;
        }
        std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The version as Python writes it (PEP 440): `0.2.0-rc.1` is `0.2.0rc1`.
pub fn python_version(cargo: &str) -> Result<String> {
    let (release, pre) = cargo.split_once('-').unwrap_or((cargo, ""));
    if release.split('.').count() != 3
        || !release.split('.').all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
    {
        bail!("version `{cargo}` is not MAJOR.MINOR.PATCH");
    }
    if pre.is_empty() {
        return Ok(release.to_string());
    }
    let (word, n) = pre.split_once('.').unwrap_or((pre, "0"));
    let short = match word {
        "alpha" | "a" => "a",
        "beta" | "b" => "b",
        "rc" => "rc",
        _ => bail!("version `{cargo}`: a pre-release must be alpha.N, beta.N or rc.N for Python"),
    };
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        bail!("version `{cargo}`: a pre-release must be alpha.N, beta.N or rc.N for Python");
    }
    Ok(format!("{release}{short}{n}"))
}

/// The platform tag the tree's ELF files need.
pub fn platform_tag(tree: &Tree) -> Result<String> {
    let mut needs = Vec::new();
    for e in bundle::entries(&tree.root, "")? {
        if let Entry::File { source, .. } = e {
            let bytes = std::fs::read(&source).with_context(|| format!("cannot read {}", source.display()))?;
            if let Some(n) = elf::needs(&bytes).with_context(|| source.display().to_string())? {
                needs.push(n);
            }
        }
    }
    elf::platform_tag(&needs)
}

/// A line of `key = "value"` in the workspace's `Cargo.toml`.
fn workspace_value(root: &Path, key: &str) -> Result<String> {
    let text = std::fs::read_to_string(root.join("Cargo.toml")).context("cannot read Cargo.toml")?;
    text.lines()
        .find_map(|l| l.trim().strip_prefix(&format!("{key} = ")).map(|v| v.trim_matches('"').to_string()))
        .with_context(|| format!("Cargo.toml has no `{key}`"))
}

/// Writes the wheel of `tree` into `out`.
pub fn write(root: &Path, tree: &Tree, out: &Path) -> Result<PathBuf> {
    let version = python_version(&tree.version)?;
    let tag = format!("py3-none-{}", platform_tag(tree)?);
    let info = format!("{PACKAGE}-{version}.dist-info");
    let mut files: Vec<(String, Vec<u8>, u32)> = Vec::new();
    let read = |p: &Path| std::fs::read(p).with_context(|| format!("cannot read {}", p.display()));

    let sources = root.join(PYTHON_DIR).join(PACKAGE);
    for e in bundle::entries(&sources, &format!("{PACKAGE}/"))? {
        if let Entry::File { path, source, .. } = e {
            if path.ends_with(".py") {
                files.push((path, read(&source)?, 0o644));
            }
        }
    }
    if !files.iter().any(|f| f.0 == format!("{PACKAGE}/__init__.py")) {
        bail!("{} has no __init__.py", sources.display());
    }
    let data = format!("{PACKAGE}/_data/");
    for e in bundle::entries(&tree.root, &data)? {
        match e {
            Entry::Dir { .. } => {}
            Entry::File { path, source, mode } => files.push((path, read(&source)?, mode)),
            // A wheel holds no links: a copy of what the link names.
            Entry::Link { path, target } => {
                let at = Path::new(&path).parent().map(|p| p.join(&target)).unwrap_or_default();
                let rel = at.strip_prefix(&data).context("a link out of the tree")?;
                files.push((path, read(&tree.root.join(rel))?, 0o755));
            }
        }
    }

    let readme =
        String::from_utf8(read(&root.join(PYTHON_DIR).join("README.md"))?).context("README.md is not UTF-8")?;
    let metadata = format!(
        "Metadata-Version: 2.4\nName: {NAME}\nVersion: {version}\n\
         Summary: A mock NVML (libnvidia-ml.so.1) with GPU profiles: run pynvml, gpustat, nvitop and any NVML client without a GPU\n\
         License-Expression: {}\nLicense-File: LICENSE-MIT\nLicense-File: LICENSE-APACHE\n\
         Project-URL: Repository, {}\nRequires-Python: >=3.8\n\
         Classifier: Framework :: Pytest\nClassifier: Operating System :: POSIX :: Linux\nClassifier: Topic :: Software Development :: Testing\n\
         Description-Content-Type: text/markdown\n\n{readme}",
        workspace_value(root, "license")?,
        workspace_value(root, "repository")?,
    );
    let wheel = format!("Wheel-Version: 1.0\nGenerator: cargo xtask wheel\nRoot-Is-Purelib: false\nTag: {tag}\n");
    let entry_points = "[console_scripts]\nnvml-mock = nvmlkit_mock.__main__:nvml_mock\n\n[pytest11]\nnvml_mock = nvmlkit_mock.pytest_plugin\n";
    files.push((format!("{info}/METADATA"), metadata.into_bytes(), 0o644));
    files.push((format!("{info}/WHEEL"), wheel.into_bytes(), 0o644));
    files.push((format!("{info}/entry_points.txt"), entry_points.as_bytes().to_vec(), 0o644));
    for license in ["LICENSE-MIT", "LICENSE-APACHE"] {
        files.push((format!("{info}/licenses/{license}"), read(&root.join(license))?, 0o644));
    }

    let mut record = String::new();
    let mut zip = Zip::new(bundle::timestamp());
    for (path, bytes, mode) in &files {
        zip.add(path, bytes, *mode)?;
        record.push_str(&format!("{path},sha256={},{}\n", base64_urlsafe(&headers::sha256(bytes)), bytes.len()));
    }
    record.push_str(&format!("{info}/RECORD,,\n"));
    zip.add(&format!("{info}/RECORD"), record.as_bytes(), 0o644)?;

    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let path = out.join(format!("{PACKAGE}-{version}-{tag}.whl"));
    std::fs::write(&path, zip.finish()?).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_written_as_python_does() {
        assert_eq!(python_version("0.1.0").unwrap(), "0.1.0");
        assert_eq!(python_version("0.2.0-rc.1").unwrap(), "0.2.0rc1");
        assert_eq!(python_version("1.0.0-alpha.3").unwrap(), "1.0.0a3");
        assert!(python_version("1.0").is_err());
        assert!(python_version("1.0.0-dev.1").unwrap_err().to_string().contains("alpha.N, beta.N or rc.N"));
    }
}
