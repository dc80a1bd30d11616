//! Headers: the vendored ones under `nvml-headers/<version>/`, each with a `provenance.yaml`,
//! and the others in the cache. The default header is the newest vendored version.
//!
//! Headers that are not vendored live in the cache, `headers/<version>/` under
//! [`super::cache_dir`], in the same layout; [`header_path`] fetches them there with pip from
//! NVIDIA's `nvidia-nvml-dev*` wheels. `nvml-headers/corpus.txt` lists every published header
//! with its pip package.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{install_dir, wheel, Pip};
use crate::model::{version_key, HeaderInfo};

/// The platform tags pip is asked for: the header wheels are built for x86-64 Linux only (the
/// header inside is the same on every platform), so every host asks for those.
const PLATFORMS: &[&str] = &[
    "manylinux_2_28_x86_64",
    "manylinux_2_27_x86_64",
    "manylinux_2_17_x86_64",
    "manylinux2014_x86_64",
    "manylinux1_x86_64",
];

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
    vendored_versions(root)?
        .pop()
        .with_context(|| format!("no header is vendored under {}", headers_dir(root).display()))
}

pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    sha256(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// Where headers that are not vendored are cached: `headers/` in [`super::cache_dir`].
pub fn cache_dir(root: &Path) -> PathBuf {
    super::cache_dir(root).join("headers")
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
    /// The sha256 of the header, which names it whatever its path: a header given as a file
    /// is the published version whose hash it has.
    pub sha256: String,
}

pub const CORPUS_FILE: &str = "nvml-headers/corpus.txt";

/// Every published header, oldest first, from `nvml-headers/corpus.txt` (`VERSION PACKAGE
/// SHA256` per line, `#` comments).
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
        let [version, package, sha256] = line.split_whitespace().collect::<Vec<_>>()[..] else {
            bail!("{place}: expected `VERSION PACKAGE SHA256`");
        };
        if version_key(version).is_none() {
            bail!("{place}: `{version}` is not a version");
        }
        if sha256.len() != 64 || !sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
            bail!("{place}: `{sha256}` is not a sha256 in hex");
        }
        out.push(CorpusEntry { version: version.into(), package: package.into(), sha256: sha256.to_ascii_lowercase() });
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
        // A published header, however it is named, is its version: the rules adapt to it and
        // header-diff judges it as they do for the version's name. Some releases ship the
        // header of the one before; such a header is the newest release that has it.
        match corpus(root).ok().and_then(|c| c.into_iter().rev().find(|e| e.sha256 == sha256)) {
            Some(e) => e.version,
            None => path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default(),
        }
    };
    Ok(Header { path, info: HeaderInfo { version, sha256 } })
}

/// A header read out of a downloaded wheel.
#[derive(Debug, Clone)]
pub struct Fetched {
    pub provenance: Provenance,
    pub header: Vec<u8>,
    /// The wheel's licence file, if it has one.
    pub license: Option<Vec<u8>>,
}

/// Downloads the wheel of `package` (`==version`, or the newest without one) and reads the
/// header and licence out of it.
pub fn fetch(package: &str, version: Option<&str>, pip: &Pip) -> Result<Fetched> {
    fetch_header(package, version, "nvml.h", pip)
}

/// [`fetch`] of the header named `header` (`cuda.h`, see [`super::cuda`]).
pub fn fetch_header(package: &str, version: Option<&str>, header: &str, pip: &Pip) -> Result<Fetched> {
    let requirement = match version {
        Some(v) => format!("{package}=={v}"),
        None => package.to_string(),
    };
    let w = wheel(&requirement, PLATFORMS, pip)?;
    if version_key(&w.version).is_none() {
        bail!("cannot read a version from the wheel's name {}", w.name);
    }
    if let Some(v) = version.filter(|v| *v != w.version) {
        bail!("asked pip for {package}=={v} and got {}", w.name);
    }
    let suffix = format!("/include/{header}");
    let headers: Vec<&String> = w.files.iter().filter(|f| f.ends_with(&suffix)).collect();
    let [file] = headers.as_slice() else {
        bail!("{} holds {} files named *{suffix}, expected one", w.name, headers.len());
    };
    let header = std::fs::read(w.dir.join(file)).with_context(|| format!("cannot read {file} from {}", w.name))?;
    let license = w
        .files
        .iter()
        .find(|f| {
            let name = f.rsplit('/').next().unwrap_or_default().to_ascii_lowercase();
            f.contains(".dist-info/") && name.starts_with("license")
        })
        .map(|f| std::fs::read(w.dir.join(f)).with_context(|| format!("cannot read {f} from {}", w.name)))
        .transpose()?;
    let provenance = Provenance {
        package: package.to_string(),
        version: w.version.clone(),
        file: file.to_string(),
        sha256: sha256_hex(&header),
    };
    Ok(Fetched { provenance, header, license })
}

/// Writes `fetched` as `<parent>/<version>/` (`nvml.h`, `LICENSE.txt` if any,
/// `provenance.yaml`), all at once. Returns the directory.
pub fn install(parent: &Path, fetched: &Fetched) -> Result<PathBuf> {
    let prov = fetched.provenance.to_yaml();
    let mut files: Vec<(&str, &[u8])> = vec![("nvml.h", &fetched.header), ("provenance.yaml", prov.as_bytes())];
    if let Some(l) = &fetched.license {
        files.push(("LICENSE.txt", l));
    }
    install_dir(parent, &fetched.provenance.version, &files)
}

/// The header of `version`: vendored, or in the cache, where pip fetches it first if it is
/// not there yet (saying so on stderr).
pub fn header_path(root: &Path, version: &str, pip: &Pip) -> Result<PathBuf> {
    let vendored = headers_dir(root).join(version).join("nvml.h");
    if vendored.is_file() {
        return Ok(vendored);
    }
    if let Some(path) = cached(root, version) {
        return Ok(path);
    }
    let package = package_for(version)?;
    let cache = cache_dir(root);
    eprintln!("fetching {package}=={version} with pip into {}", cache.display());
    let fetched = fetch(package, Some(version), pip)?;
    match install(&cache, &fetched) {
        Ok(dir) => Ok(dir.join("nvml.h")),
        // Another process (or test thread) cached it in the meantime.
        Err(e) => cached(root, version).ok_or(e),
    }
}

/// A header spec for [`resolve`] with any version not vendored fetched into the cache first;
/// paths and vendored versions are returned as they are.
pub fn available(root: &Path, spec: &str, pip: &Pip) -> Result<String> {
    if version_key(spec).is_none() || Path::new(spec).is_file() {
        return Ok(spec.to_string());
    }
    Ok(header_path(root, spec, pip)?.display().to_string())
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
        let root = crate::workspace::project_root();
        for v in vendored_versions(&root).unwrap() {
            let path = headers_dir(&root).join(&v).join("provenance.yaml");
            let text = std::fs::read_to_string(&path).unwrap();
            assert_eq!(read_provenance(&path).unwrap().to_yaml(), text, "{}", path.display());
        }
    }

    /// A published header given as a file, with no provenance beside it, is its version.
    #[test]
    fn a_header_file_is_known_by_its_content() {
        let root = crate::workspace::project_root();
        let dir = std::env::temp_dir().join(format!("nvmlkit-by-content-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let copy = dir.join("nvml.h");
        let vendored = headers_dir(&root).join("13.5.37/nvml.h");
        std::fs::copy(&vendored, &copy).unwrap();
        let h = resolve(&root, Some(copy.to_str().unwrap())).unwrap();
        assert_eq!((h.path.as_path(), h.info.version.as_str()), (copy.as_path(), "13.5.37"));
        // Another header is named by its file.
        let mut text = std::fs::read_to_string(&vendored).unwrap();
        text.push_str("\n/* changed */\n");
        std::fs::write(&copy, text).unwrap();
        assert_eq!(resolve(&root, Some(copy.to_str().unwrap())).unwrap().info.version, "nvml.h");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn corpus_lists_each_version_with_its_package() {
        let entries = corpus(&crate::workspace::project_root()).unwrap();
        assert_eq!(entries.len(), 33);
        for e in &entries {
            assert_eq!(package_for(&e.version).unwrap(), e.package, "{}", e.version);
        }
        let first_and_last = (entries[0].version.as_str(), entries[32].version.as_str());
        assert_eq!(first_and_last, ("11.7.91", "13.5.37"));
        let root = crate::workspace::project_root();
        for v in vendored_versions(&root).unwrap() {
            let e = entries.iter().find(|e| e.version == v).unwrap_or_else(|| panic!("vendored {v} is missing"));
            let prov = read_provenance(&headers_dir(&root).join(&v).join("provenance.yaml")).unwrap();
            assert_eq!(e.sha256, prov.sha256, "the corpus's hash of {v}");
        }
        assert!(package_for("10.1.0").is_err());
        assert!(package_for("latest").is_err());
    }
}
