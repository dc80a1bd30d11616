//! What the generator fetches, and where it keeps it: the bottom of the house.
//!
//! Everything comes from pip: NVIDIA's `nvidia-nvml-dev*` wheels for headers ([`headers`]) and
//! the `libclang` wheel when the system has no libclang ([`libclang`]). Downloads go through
//! `python3 -m pip download`, so the code names no network address and pip's own
//! configuration (index, proxy, certificates) applies; wheels are unpacked with
//! `python3 -m zipfile` and their files checked against the wheel's `RECORD`.
//!
//! Fetched files live in one cache, `nvmlkit-cache/` in the target directory
//! (`$NVMLKIT_CACHE` overrides; see [`cache_dir`]): `headers/<version>/` and
//! `libclang/<version>/`. Everything is staged in a directory next to its destination and
//! renamed into place only when complete, so a failed or interrupted fetch leaves nothing
//! half-written.

pub mod cuda;
pub mod headers;
pub mod libclang;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{bail, Context, Result};

/// How to run pip.
#[derive(Debug, Clone, Default)]
pub struct Pip {
    /// Look for wheels only in this directory (`--no-index --find-links DIR`), for tests and
    /// offline mirrors; `None` for pip's configured index.
    pub find_links: Option<PathBuf>,
}

/// The cache of fetched files: `$NVMLKIT_CACHE` if set (relative to `root`), else
/// `nvmlkit-cache/` in the target directory (`$CARGO_TARGET_DIR`, or `target/` under `root`).
pub fn cache_dir(root: &Path) -> PathBuf {
    if let Some(dir) = std::env::var_os("NVMLKIT_CACHE") {
        return root.join(dir);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR").map(|t| root.join(t)).unwrap_or_else(|| root.join("target"));
    target.join("nvmlkit-cache")
}

/// A directory removed when dropped.
pub struct TempDir(PathBuf);

impl TempDir {
    /// Creates `<parent>/<name>`, replacing whatever a failed earlier run left there.
    pub fn new(parent: &Path, name: &str) -> Result<TempDir> {
        let dir = parent.join(name);
        if dir.exists() {
            std::fs::remove_dir_all(&dir).with_context(|| format!("cannot clear {}", dir.display()))?;
        }
        std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
        Ok(TempDir(dir))
    }

    /// A fresh directory in the system's temporary directory, unique to this call.
    pub fn unique(what: &str) -> Result<TempDir> {
        TempDir::new(&std::env::temp_dir(), &format!("nvmlkit-{what}-{}-{}", std::process::id(), next_id()))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A number unique within this process, for names of staging directories.
pub fn next_id() -> usize {
    static COUNT: AtomicUsize = AtomicUsize::new(0);
    COUNT.fetch_add(1, Ordering::Relaxed)
}

/// Runs `python3` with `args`; on failure, the error names `what` and quotes the end of the
/// output.
fn python(args: &[&std::ffi::OsStr], what: &str) -> Result<()> {
    let out = Command::new("python3")
        .args(args)
        .output()
        .with_context(|| format!("{what}: cannot run `python3` (is Python 3 with pip installed and on PATH?)"))?;
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let tail: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    let tail = tail[tail.len().saturating_sub(6)..].join("\n  ");
    bail!("{what} failed ({}):\n  {tail}", out.status)
}

/// A wheel downloaded and unpacked into a temporary directory (removed on drop).
pub struct Wheel {
    _tmp: TempDir,
    /// The wheel's file name.
    pub name: String,
    /// `{distribution}-{version}-...`: the version part of the name.
    pub version: String,
    /// Where it is unpacked.
    pub dir: PathBuf,
    /// Every file in it, `/`-separated and relative to `dir`, sorted.
    pub files: Vec<String>,
}

/// Downloads the wheel of `requirement` (`name==version`, or `name` for the newest) for
/// `platforms` (none: this machine's), and unpacks it; its files are checked against the
/// wheel's `RECORD`.
pub fn wheel(requirement: &str, platforms: &[&str], pip: &Pip) -> Result<Wheel> {
    let tmp = TempDir::unique("fetch")?;
    let download = tmp.0.join("wheel");
    let mut args: Vec<std::ffi::OsString> = [
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--disable-pip-version-check",
        "--no-input",
        "--quiet",
    ]
    .iter()
    .map(Into::into)
    .collect();
    for p in platforms {
        args.extend(["--platform".into(), (*p).into()]);
    }
    if let Some(dir) = &pip.find_links {
        args.extend(["--no-index".into(), "--find-links".into(), dir.into()]);
    }
    args.extend(["--dest".into(), download.clone().into(), requirement.into()]);
    let package = requirement.split("==").next().unwrap_or(requirement);
    let refs: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    python(&refs, &format!("downloading `{requirement}` with pip"))
        .with_context(|| format!("cannot download {requirement} (is the package index reachable? does that version exist? `pip index versions {package}` lists them)"))?;

    let file = single_wheel(&download)?;
    let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let version = name.split('-').nth(1).unwrap_or_default().to_string();
    let dir = tmp.0.join("unpacked");
    let unpack: [&std::ffi::OsStr; 5] =
        ["-m".as_ref(), "zipfile".as_ref(), "-e".as_ref(), file.as_os_str(), dir.as_os_str()];
    python(&unpack, &format!("unpacking {name} (a corrupt download?)"))?;
    let files = list_files(&dir)?;
    check_record(&dir, &files, &name)?;
    Ok(Wheel { _tmp: tmp, name, version, dir, files })
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

/// Checks every file the wheel's `*.dist-info/RECORD` lists with a sha256 against it: a
/// truncated or altered wheel is an error naming the file.
fn check_record(dir: &Path, files: &[String], wheel: &str) -> Result<()> {
    let Some(record) = files.iter().find(|f| f.ends_with(".dist-info/RECORD")) else {
        bail!("{wheel} has no .dist-info/RECORD: not a valid wheel");
    };
    let text = std::fs::read_to_string(dir.join(record)).with_context(|| format!("cannot read {record} of {wheel}"))?;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let mut cols = line.rsplitn(3, ',');
        let (_size, hash, path) = (cols.next(), cols.next().unwrap_or(""), cols.next().unwrap_or(""));
        let Some(expected) = hash.strip_prefix("sha256=") else { continue };
        let bytes = std::fs::read(dir.join(path))
            .with_context(|| format!("{wheel} lists {path} in its RECORD but does not hold it"))?;
        if base64_urlsafe(&headers::sha256(&bytes)) != expected {
            bail!("{wheel}: {path} does not match the sha256 in the wheel's RECORD (a corrupt download?)");
        }
    }
    Ok(())
}

/// Unpadded URL-safe base64, as wheel RECORDs spell hashes.
pub fn base64_urlsafe(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |acc, (i, b)| acc | (*b as u32) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(ABC[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
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
                let parts: Vec<String> =
                    rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
                out.push(parts.join("/"));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Writes `files` (name → bytes) as the directory `<parent>/<name>`: staged in a sibling
/// directory, then renamed into place, so the directory appears complete or not at all.
/// Returns it.
pub fn install_dir(parent: &Path, name: &str, files: &[(&str, &[u8])]) -> Result<PathBuf> {
    std::fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
    let dest = parent.join(name);
    let staged = parent.join(format!("{name}-{}-{}.update-new", std::process::id(), next_id()));
    let write = || -> Result<()> {
        if staged.exists() {
            std::fs::remove_dir_all(&staged).with_context(|| format!("cannot clear {}", staged.display()))?;
        }
        std::fs::create_dir_all(&staged).with_context(|| format!("cannot create {}", staged.display()))?;
        for (file, bytes) in files {
            std::fs::write(staged.join(file), bytes)
                .with_context(|| format!("cannot write {}", staged.join(file).display()))?;
        }
        std::fs::rename(&staged, &dest)
            .with_context(|| format!("cannot move {} to {}", staged.display(), dest.display()))
    };
    if let Err(e) = write() {
        let _ = std::fs::remove_dir_all(&staged);
        return Err(e);
    }
    Ok(dest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_wheel_spelling() {
        // sha256("") as wheel RECORDs write it.
        assert_eq!(base64_urlsafe(&headers::sha256(b"")), "47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU");
        assert_eq!(base64_urlsafe(b"f"), "Zg");
        assert_eq!(base64_urlsafe(b"fo"), "Zm8");
        assert_eq!(base64_urlsafe(b"foo"), "Zm9v");
    }
}
