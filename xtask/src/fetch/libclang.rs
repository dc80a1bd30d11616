//! libclang for the clang stage: found on the system, or fetched with pip.
//!
//! The order: `LIBCLANG_PATH` (a directory or the library itself), then the system's usual
//! places (as clang-sys searches them: `llvm-config`, `LD_LIBRARY_PATH`, `/usr/lib*/**`; never
//! `libclang-cpp`), then PyPI's `libclang` wheel, which ships `clang/native/libclang.so`:
//! fetched once into `libclang/<version>/` of the cache (see [`super::cache_dir`]).
//! `NVMLKIT_LIBCLANG=system` forbids the wheel, `NVMLKIT_LIBCLANG=wheel` skips the system (CI
//! uses it to prove that the wheel alone regenerates the checked-in files byte for byte).
//!
//! The library is loaded once per process and shared by every thread; one line on stderr
//! says which one and where it came from.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use anyhow::{bail, Context, Result};
use clang_sys::SharedLibrary;

use super::{install_dir, wheel, Pip};

/// The `libclang` wheel fetched when the system has none: pinned, so that every machine that
/// falls back on it parses with the same clang.
pub const WHEEL_VERSION: &str = "18.1.1";

/// Where the loaded libclang came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// `LIBCLANG_PATH`.
    EnvPath,
    /// The system's usual places.
    System,
    /// The `libclang` wheel in the cache.
    Wheel,
}

/// The loaded library.
#[derive(Debug, Clone)]
pub struct Found {
    pub path: PathBuf,
    pub origin: Origin,
}

impl std::fmt::Display for Found {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let from = match self.origin {
            Origin::EnvPath => "from LIBCLANG_PATH".to_string(),
            Origin::System => "found on the system".to_string(),
            Origin::Wheel => format!("the pip wheel libclang=={WHEEL_VERSION}, in the cache"),
        };
        write!(f, "{} ({from})", self.path.display())
    }
}

/// What `NVMLKIT_LIBCLANG` allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Policy {
    Any,
    SystemOnly,
    WheelOnly,
}

fn policy() -> Result<Policy> {
    match std::env::var("NVMLKIT_LIBCLANG").as_deref() {
        Err(_) | Ok("") => Ok(Policy::Any),
        Ok("system") => Ok(Policy::SystemOnly),
        Ok("wheel") => Ok(Policy::WheelOnly),
        Ok(other) => bail!("NVMLKIT_LIBCLANG={other}: expected `system` or `wheel` (or unset for either)"),
    }
}

type Loaded = (Arc<SharedLibrary>, Found);

/// Makes libclang available to the calling thread: found and loaded on the first call of the
/// process, shared with every thread after.
pub fn ensure_loaded(root: &Path) -> Result<Found> {
    static LOADED: OnceLock<Result<Loaded, String>> = OnceLock::new();
    let loaded = LOADED.get_or_init(|| {
        let r = load(root).map_err(|e| format!("{e:#}"));
        if let Ok((_, found)) = &r {
            eprintln!("libclang: {found}");
        }
        r
    });
    match loaded {
        Ok((lib, found)) => {
            if !clang_sys::is_loaded() {
                clang_sys::set_library(Some(lib.clone()));
            }
            Ok(found.clone())
        }
        Err(e) => bail!("{e}"),
    }
}

/// Finds and loads libclang in the documented order.
fn load(root: &Path) -> Result<Loaded> {
    let policy = policy()?;
    let env_path = std::env::var_os("LIBCLANG_PATH").filter(|p| !p.is_empty());
    let mut tried = Vec::new();
    if policy != Policy::WheelOnly {
        match clang_sys::load_manually() {
            Ok(lib) => {
                let origin = if env_path.is_some() { Origin::EnvPath } else { Origin::System };
                let found = Found { path: lib.path().to_path_buf(), origin };
                return Ok((Arc::new(lib), found));
            }
            Err(e) => match &env_path {
                // An explicit path that holds no libclang is an error, not a reason to look
                // elsewhere.
                Some(p) => bail!("LIBCLANG_PATH={} holds no loadable libclang: {e}", Path::new(p).display()),
                None => tried.push(format!("the system's usual places: {e}")),
            },
        }
    } else {
        tried.push("the system: skipped (NVMLKIT_LIBCLANG=wheel)".to_string());
    }
    if policy == Policy::SystemOnly {
        tried.push("the pip wheel: skipped (NVMLKIT_LIBCLANG=system)".to_string());
        bail!(not_found(&tried));
    }
    let path = match wheel_library(root, &Pip::default()) {
        Ok(p) => p,
        Err(e) => {
            tried.push(format!("the pip wheel libclang=={WHEEL_VERSION}: {e:#}"));
            bail!(not_found(&tried));
        }
    };
    // clang-sys loads from the place `LIBCLANG_PATH` names: point it at the wheel's library
    // (the only way to choose a file through its API). This runs once, before any thread of
    // this process parses anything.
    std::env::set_var("LIBCLANG_PATH", &path);
    let lib = clang_sys::load_manually()
        .map_err(|e| anyhow::anyhow!("the libclang of the pip wheel at {} cannot be loaded: {e}", path.display()))?;
    Ok((Arc::new(lib), Found { path, origin: Origin::Wheel }))
}

fn not_found(tried: &[String]) -> String {
    format!(
        "libclang could not be found or fetched. Tried, in order:\n  - LIBCLANG_PATH: not set\n  - {}\n\
         Fix it either way:\n  \
         1. install libclang (Debian/Ubuntu: apt-get install libclang-dev; Fedora: dnf install clang-devel;\n     \
         macOS: brew install llvm), or set LIBCLANG_PATH to the directory that holds libclang.so;\n  \
         2. or let the generator fetch it: Python 3 with pip on PATH, able to reach the package index\n     \
         (`python3 -m pip download libclang=={WHEEL_VERSION}` must work).",
        tried.join("\n  - ")
    )
}

/// The directory of the wheel's library in the cache.
pub fn wheel_dir(root: &Path) -> PathBuf {
    super::cache_dir(root).join("libclang").join(WHEEL_VERSION)
}

/// The library of the `libclang` wheel: from the cache, or fetched with pip into it first.
pub fn wheel_library(root: &Path, pip: &Pip) -> Result<PathBuf> {
    let dir = wheel_dir(root);
    if let Some(lib) = library_in(&dir) {
        return Ok(lib);
    }
    eprintln!("libclang: fetching the pip wheel libclang=={WHEEL_VERSION} into {}", dir.display());
    let w = wheel(&format!("libclang=={WHEEL_VERSION}"), &[], pip)?;
    let native: Vec<&String> =
        w.files.iter().filter(|f| f.contains("/clang/native/") && is_library_name(file_name(f))).collect();
    let [lib] = native.as_slice() else {
        bail!("{} holds {} libraries under clang/native/, expected one", w.name, native.len());
    };
    let bytes = std::fs::read(w.dir.join(lib)).with_context(|| format!("cannot read {lib} from {}", w.name))?;
    let mut files: Vec<(&str, Vec<u8>)> = vec![(file_name(lib), bytes)];
    if let Some(license) =
        w.files.iter().find(|f| f.contains(".dist-info/") && file_name(f).to_ascii_lowercase().starts_with("license"))
    {
        files.push((
            "LICENSE.TXT",
            std::fs::read(w.dir.join(license)).with_context(|| format!("cannot read {license}"))?,
        ));
    }
    let refs: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (*n, b.as_slice())).collect();
    let parent = dir.parent().map(Path::to_path_buf).unwrap_or_default();
    match install_dir(&parent, WHEEL_VERSION, &refs) {
        Ok(_) => {}
        // Another process fetched it in the meantime.
        Err(_) if library_in(&dir).is_some() => {}
        Err(e) => return Err(e),
    }
    library_in(&dir).with_context(|| format!("{} holds no libclang after the fetch", dir.display()))
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn is_library_name(name: &str) -> bool {
    matches!(name, "libclang.so" | "libclang.dylib" | "libclang.dll")
}

fn library_in(dir: &Path) -> Option<PathBuf> {
    ["libclang.so", "libclang.dylib", "libclang.dll"].iter().map(|n| dir.join(n)).find(|p| p.is_file())
}
