//! Fetching headers with pip: `cargo xtask update-header` (vendoring) and the header cache.
//!
//! Every download goes through `python3 -m pip download` of NVIDIA's `nvidia-nvml-dev*`
//! wheels (see [`headers::package_for`]), so the code names no network address, and pip's own
//! configuration (index, proxy, certificates) applies. The wheel is a zip file that
//! `python3 -m zipfile` unpacks; the header is its `*/include/nvml.h`. Everything is staged in
//! a directory next to its destination and moved into place only when complete, so a failed
//! fetch changes nothing.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{bail, Context, Result};

use crate::diff::HeaderDiff;
use crate::headers::{self, version_key, CorpusEntry, Provenance};

/// The platform tags pip is asked for: the wheels are built for x86-64 Linux only (the header
/// inside is the same on every platform), so every host asks for those.
const PLATFORMS: &[&str] =
    &["manylinux_2_28_x86_64", "manylinux_2_27_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64", "manylinux1_x86_64"];

/// How to run pip.
#[derive(Debug, Clone, Default)]
pub struct Pip {
    /// Look for wheels only in this directory (`--no-index --find-links DIR`), for tests and
    /// offline mirrors; `None` for pip's configured index.
    pub find_links: Option<PathBuf>,
}

/// A header read out of a downloaded wheel.
#[derive(Debug, Clone)]
pub struct Fetched {
    pub provenance: Provenance,
    pub header: Vec<u8>,
    /// The wheel's licence file, if it has one.
    pub license: Option<Vec<u8>>,
}

/// A directory removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    /// Creates `<parent>/<name>`, replacing whatever a failed earlier run left there.
    fn new(parent: &Path, name: &str) -> Result<TempDir> {
        let dir = parent.join(name);
        if dir.exists() {
            std::fs::remove_dir_all(&dir).with_context(|| format!("cannot clear {}", dir.display()))?;
        }
        std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
        Ok(TempDir(dir))
    }

    /// A fresh directory in the system's temporary directory, unique to this call.
    fn unique(what: &str) -> Result<TempDir> {
        TempDir::new(&std::env::temp_dir(), &format!("nvmlkit-{what}-{}-{}", std::process::id(), next_id()))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A number unique within this process, for names of staging directories.
fn next_id() -> usize {
    static COUNT: AtomicUsize = AtomicUsize::new(0);
    COUNT.fetch_add(1, Ordering::Relaxed)
}

fn python() -> Command {
    Command::new("python3")
}

/// Runs `cmd`; on failure, the error names what was run and quotes the end of its output.
fn run(mut cmd: Command, what: &str) -> Result<()> {
    let out = cmd.output().with_context(|| format!("cannot run python3 for {what} (is Python 3 with pip installed?)"))?;
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let tail: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    let tail = tail[tail.len().saturating_sub(6)..].join("\n  ");
    bail!("{what} failed ({}):\n  {tail}", out.status)
}

/// Downloads the wheel of `package` (`==version`, or the newest without one) and reads the
/// header and licence out of it.
pub fn fetch(package: &str, version: Option<&str>, pip: &Pip) -> Result<Fetched> {
    let tmp = TempDir::unique("fetch")?;
    let wheels = tmp.0.join("wheel");
    let requirement = match version {
        Some(v) => format!("{package}=={v}"),
        None => package.to_string(),
    };
    let mut cmd = python();
    cmd.args(["-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--disable-pip-version-check", "--no-input", "--quiet"]);
    for p in PLATFORMS {
        cmd.args(["--platform", p]);
    }
    if let Some(dir) = &pip.find_links {
        cmd.arg("--no-index").arg("--find-links").arg(dir);
    }
    cmd.arg("--dest").arg(&wheels).arg(&requirement);
    run(cmd, &format!("`pip download {requirement}`"))
        .with_context(|| format!("cannot download {requirement} (does that version exist? `pip index versions {package}` lists them)"))?;

    let wheel = single_wheel(&wheels)?;
    let file_name = wheel.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    // `{distribution}-{version}-{python}-{abi}-{platform}.whl`
    let found = file_name.split('-').nth(1).unwrap_or_default().to_string();
    if version_key(&found).is_none() {
        bail!("cannot read a version from the wheel's name {file_name}");
    }
    if let Some(v) = version.filter(|v| *v != found) {
        bail!("asked pip for {package}=={v} and got {file_name}");
    }

    let unpacked = tmp.0.join("unpacked");
    let mut cmd = python();
    cmd.args(["-m", "zipfile", "-e"]).arg(&wheel).arg(&unpacked);
    run(cmd, &format!("unpacking {file_name}"))?;
    let files = list_files(&unpacked)?;
    let headers: Vec<&String> = files.iter().filter(|f| f.ends_with("/include/nvml.h")).collect();
    let [file] = headers.as_slice() else {
        bail!("{file_name} holds {} files named */include/nvml.h, expected one", headers.len());
    };
    let header = std::fs::read(unpacked.join(file)).with_context(|| format!("cannot read {file} from {file_name}"))?;
    let license = files
        .iter()
        .find(|f| {
            let name = f.rsplit('/').next().unwrap_or_default().to_ascii_lowercase();
            f.contains(".dist-info/") && name.starts_with("license")
        })
        .map(|f| std::fs::read(unpacked.join(f)).with_context(|| format!("cannot read {f} from {file_name}")))
        .transpose()?;
    let provenance =
        Provenance { package: package.to_string(), version: found, file: file.to_string(), sha256: headers::sha256_hex(&header) };
    Ok(Fetched { provenance, header, license })
}

fn single_wheel(dir: &Path) -> Result<PathBuf> {
    let mut wheels = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("pip left no download directory {}", dir.display()))? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "whl") {
            wheels.push(path);
        }
    }
    match wheels.len() {
        1 => Ok(wheels.remove(0)),
        n => bail!("pip downloaded {n} wheels into {}, expected one", dir.display()),
    }
}

/// Every file under `dir`, as `/`-separated paths relative to it, sorted.
fn list_files(dir: &Path) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).with_context(|| format!("cannot list {}", d.display()))? {
            let entry = entry?;
            let path = entry.path();
            if entry.file_type()?.is_dir() {
                stack.push(path);
            } else if let Ok(rel) = path.strip_prefix(dir) {
                let parts: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
                out.push(parts.join("/"));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Writes `fetched` as `<parent>/<version>/` (`nvml.h`, `LICENSE.txt` if any,
/// `provenance.yaml`): staged in a sibling directory, then renamed into place. Returns the
/// directory.
fn install(parent: &Path, fetched: &Fetched) -> Result<PathBuf> {
    let version = &fetched.provenance.version;
    let dest = parent.join(version);
    let staged = parent.join(format!("{version}-{}-{}.update-new", std::process::id(), next_id()));
    let write = || -> Result<()> {
        if staged.exists() {
            std::fs::remove_dir_all(&staged).with_context(|| format!("cannot clear {}", staged.display()))?;
        }
        std::fs::create_dir_all(&staged).with_context(|| format!("cannot create {}", staged.display()))?;
        let files = [("nvml.h", Some(&fetched.header)), ("LICENSE.txt", fetched.license.as_ref())];
        for (name, bytes) in files {
            if let Some(bytes) = bytes {
                std::fs::write(staged.join(name), bytes).with_context(|| format!("cannot write {}", staged.join(name).display()))?;
            }
        }
        let prov = staged.join("provenance.yaml");
        std::fs::write(&prov, fetched.provenance.to_yaml()).with_context(|| format!("cannot write {}", prov.display()))?;
        std::fs::rename(&staged, &dest).with_context(|| format!("cannot move {} to {}", staged.display(), dest.display()))
    };
    if let Err(e) = write() {
        let _ = std::fs::remove_dir_all(&staged);
        return Err(e);
    }
    Ok(dest)
}

/// The header of `version`: vendored, or in the header cache, where pip fetches it first if
/// it is not there yet (saying so on stderr).
pub fn header_path(root: &Path, version: &str, pip: &Pip) -> Result<PathBuf> {
    let vendored = headers::headers_dir(root).join(version).join("nvml.h");
    if vendored.is_file() {
        return Ok(vendored);
    }
    if let Some(path) = headers::cached(root, version) {
        return Ok(path);
    }
    let package = headers::package_for(version)?;
    let cache = headers::cache_dir(root);
    eprintln!("fetching {package}=={version} with pip into {}", cache.display());
    let fetched = fetch(package, Some(version), pip)?;
    std::fs::create_dir_all(&cache).with_context(|| format!("cannot create {}", cache.display()))?;
    match install(&cache, &fetched) {
        Ok(dir) => Ok(dir.join("nvml.h")),
        // Another process (or test thread) cached it in the meantime.
        Err(e) => headers::cached(root, version).ok_or(e),
    }
}

/// A header spec for [`headers::resolve`] with any version not vendored fetched into the
/// cache first; paths and vendored versions are returned as they are.
pub fn available(root: &Path, spec: &str, pip: &Pip) -> Result<String> {
    if version_key(spec).is_none() || Path::new(spec).is_file() {
        return Ok(spec.to_string());
    }
    Ok(header_path(root, spec, pip)?.display().to_string())
}

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
            Updated::AlreadyDefault(v) => return format!("nvml.h {v} is vendored already and is the default; nothing to do\n"),
            Updated::Vendored { provenance, previous, diff } => (provenance, previous, diff),
        };
        let at = headers::headers_dir(root).join(&p.version);
        let mut out = format!("vendored nvml.h {} from {} under {}; it is now the default header\n", p.version, p.package, at.display());
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
        out.push_str("  1. cargo xtask history            # record the new functions in gen-config/function-history.yaml\n");
        out.push_str(&format!("  2. cargo xtask regen              # regenerate crates/*/src/generated/ from {}\n", p.version));
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
            fetch(package, Some(v), pip)?
        }
        Wanted::Latest => {
            let fetched = fetch("nvidia-nvml-dev", None, pip)?;
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
    let staged = install(&staging.0, &fetched)?;
    let diff = match &previous {
        Some(p) => {
            let new_spec = staged.join("nvml.h").display().to_string();
            let d = crate::diff::between(root, p, &new_spec, None, pip).with_context(|| format!("nvml.h {version} was not vendored"))?;
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
    let comments: String = text.lines().take_while(|l| l.trim().is_empty() || l.starts_with('#')).map(|l| format!("{l}\n")).collect();
    entries.push(CorpusEntry { version: prov.version.clone(), package: prov.package.clone() });
    entries.sort_by_key(|e| version_key(&e.version));
    let body: String = entries.iter().map(|e| format!("{} {}\n", e.version, e.package)).collect();
    let tmp = path.with_extension("txt.update-new");
    std::fs::write(&tmp, format!("{comments}{body}")).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, &path).with_context(|| format!("cannot replace {}", path.display()))
}
