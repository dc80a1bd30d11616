//! `cargo xtask update-header VERSION | --latest`: vendors a newer header as the default.
//!
//! The header is fetched with pip ([`crate::fetch::headers`]), compared with the current
//! default while it is still staged (a header the generator cannot parse is never vendored),
//! then written under `nvml-headers/<version>/` and added to `nvml-headers/corpus.txt`.

use std::path::Path;

use anyhow::{bail, Context, Result};

use crate::diff::HeaderDiff;
use crate::fetch::headers::{self, install, CorpusEntry, Provenance};
use crate::fetch::{Pip, TempDir};
use crate::model::version_key;

/// What `update-header` is asked for.
#[derive(Debug, Clone)]
pub enum Wanted {
    Version(String),
    /// The newest `nvidia-nvml-dev`.
    Latest,
}

/// What `update-header` did.
#[derive(Debug)]
pub enum Updated {
    /// The version was vendored already and is the default.
    AlreadyDefault(String),
    Vendored {
        provenance: Provenance,
        /// The default before the update, if any header was vendored.
        previous: Option<String>,
        /// The header-diff against `previous`.
        diff: Option<Box<HeaderDiff>>,
    },
}

impl Updated {
    /// What `update-header` prints: what was vendored, the diff, and the next steps.
    pub fn report(&self, root: &Path) -> String {
        let (p, previous, diff) = match self {
            Updated::AlreadyDefault(v) => {
                return format!("nvml.h {v} is vendored already and is the default; nothing to do\n")
            }
            Updated::Vendored { provenance, previous, diff } => (provenance, previous, diff),
        };
        let at = headers::headers_dir(root).join(&p.version);
        let mut out = format!(
            "vendored nvml.h {} from {} under {}; it is now the default header\n",
            p.version,
            p.package,
            at.display()
        );
        if let (Some(prev), Some(diff)) = (previous, diff) {
            out.push_str(&format!("\nChanges since the previous default, {prev}:\n\n{}", diff.to_markdown()));
        }
        out.push_str("\nNext steps:\n");
        let rule_errors = diff.as_ref().map_or(0, |d| d.rules.iter().filter(|r| r.starts_with("error:")).count());
        if rule_errors > 0 {
            out.push_str(&format!(
                "  0. fix gen-config/nvml.yaml: {rule_errors} rule error(s) against the new header (listed above); regen fails until then\n"
            ));
        }
        out.push_str(
            "  1. cargo xtask history            # record the new functions in gen-config/function-history.yaml\n",
        );
        out.push_str(&format!(
            "  2. cargo xtask regen              # regenerate crates/*/src/generated/ from {}\n",
            p.version
        ));
        out.push_str("  3. review the diff above and `git diff`; give new functions that need one a rule in gen-config/nvml.yaml\n");
        out.push_str("  4. cargo test --workspace         # goldens, freshness, the real header's counts\n");
        out
    }
}

/// Vendors a header under `root/nvml-headers/<version>/` (which makes it the default, being
/// the newest) and adds it to `nvml-headers/corpus.txt`. A version that is not newer than
/// the default, or that pip cannot fetch, or whose header the generator cannot parse, is an
/// error and changes nothing.
pub fn update_header(root: &Path, wanted: &Wanted, pip: &Pip) -> Result<Updated> {
    let dir = headers::headers_dir(root);
    let previous = headers::vendored_versions(root)?.pop();
    let check_newer = |v: &str| -> Result<()> {
        if let Some(p) = previous.as_deref().filter(|p| version_key(v) < version_key(p)) {
            bail!(
                "{v} is older than the default header {p}; the default is always the newest vendored \
                 header, so vendoring {v} would not make it the default (use `--header {v}` or \
                 `cargo xtask header-diff` to work with it instead)"
            );
        }
        Ok(())
    };
    let fetched = match wanted {
        Wanted::Version(v) => {
            let package = headers::package_for(v)?;
            if previous.as_deref() == Some(v.as_str()) {
                return Ok(Updated::AlreadyDefault(v.clone()));
            }
            check_newer(v)?;
            if dir.join(v).exists() {
                bail!("{} exists already", dir.join(v).display());
            }
            headers::fetch(package, Some(v), pip)?
        }
        Wanted::Latest => {
            let fetched = headers::fetch("nvidia-nvml-dev", None, pip)?;
            let v = &fetched.provenance.version;
            if previous.as_deref() == Some(v.as_str()) {
                return Ok(Updated::AlreadyDefault(v.clone()));
            }
            check_newer(v)?;
            fetched
        }
    };
    let version = fetched.provenance.version.clone();

    // Compare while the header is still staged: a header the generator cannot parse is never
    // vendored.
    let staging = TempDir::unique("update")?;
    let staged = install(staging.path(), &fetched)?;
    let diff = match &previous {
        Some(p) => {
            let new_spec = staged.join("nvml.h").display().to_string();
            // As the regen that follows will read it (keeping what the rules' `released` headers
            // declare and this one lacks).
            let d = crate::diff::between_keeping(root, p, &new_spec, None, pip, crate::diff::Keep::AsRegen)
                .with_context(|| format!("nvml.h {version} was not vendored"))?;
            Some(Box::new(d))
        }
        None => None,
    };
    let vendored = install(&dir, &fetched)?;
    drop(staging);
    if let Err(e) = add_to_corpus(root, &fetched.provenance) {
        let _ = std::fs::remove_dir_all(&vendored);
        return Err(e.context(format!("nvml.h {version} was not vendored")));
    }
    Ok(Updated::Vendored { provenance: fetched.provenance, previous, diff })
}

/// Adds the version to `nvml-headers/corpus.txt`, keeping its comments and version order.
fn add_to_corpus(root: &Path, prov: &Provenance) -> Result<()> {
    let path = root.join(headers::CORPUS_FILE);
    let mut entries = headers::corpus(root)?;
    if entries.iter().any(|e| e.version == prov.version) {
        return Ok(());
    }
    let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let comments: String =
        text.lines().take_while(|l| l.trim().is_empty() || l.starts_with('#')).map(|l| format!("{l}\n")).collect();
    entries.push(CorpusEntry {
        version: prov.version.clone(),
        package: prov.package.clone(),
        sha256: prov.sha256.clone(),
    });
    entries.sort_by_key(|e| version_key(&e.version));
    let body: String = entries.iter().map(|e| format!("{} {} {}\n", e.version, e.package, e.sha256)).collect();
    let tmp = path.with_extension("txt.update-new");
    std::fs::write(&tmp, format!("{comments}{body}")).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, &path).with_context(|| format!("cannot replace {}", path.display()))
}
