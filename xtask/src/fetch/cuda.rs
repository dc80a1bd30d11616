//! `cuda.h`, the CUDA driver API's header, vendored under `cuda-headers/<version>/` (`cuda.h`,
//! `License.txt`, `provenance.yaml`) from NVIDIA's `nvidia-cuda-runtime` wheel, the way
//! [`super::headers`] vendors `nvml.h`. The newest vendored version is the one the mock's CUDA
//! exports are generated from; its sha256 is checked against its provenance on every run.
//! Beside it, from the same wheel, `cudaTypedefs.h` (with `cudaTypedefs.provenance.yaml`): its
//! `PFN_cuX_vNNNNN` typedefs say from which CUDA version each of a function's ABI versions
//! stands, which `cuGetProcAddress` chooses by.
//!
//! `cuda.h` includes `<stdlib.h>` and `<stdint.h>` for `size_t`, `uint32_t` and `uint64_t`:
//! `cuda-headers/sysroot/` holds the two, with those types as the LP64 target of the parse
//! has them, so the parse reads no header of the machine it runs on.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::headers::{self, Header};
use super::{install_dir, Pip};
use crate::model::{version_key, HeaderInfo};

/// The pip package whose wheels hold `cuda.h` (`nvidia/cu13/include/cuda.h` in 13.x).
pub const PACKAGE: &str = "nvidia-cuda-runtime";

/// The directory of the vendored `cuda.h` headers.
pub fn dir(root: &Path) -> PathBuf {
    root.join("cuda-headers")
}

/// The directory of the system headers `cuda.h` includes (see the module docs).
pub fn sysroot(root: &Path) -> PathBuf {
    dir(root).join("sysroot")
}

/// The clang arguments of `cuda.h`'s parse: its own system headers only, and
/// `__CUDA_API_VERSION_INTERNAL`, under which the header declares every symbol a driver
/// exports (the legacy `cuMemAlloc` beside `cuMemAlloc_v2`, the `_ptds` and `_ptsz` variants
/// of the per-thread default stream), as the driver's own build sees it.
pub fn clang_args(root: &Path) -> Vec<String> {
    vec![
        "-nostdinc".into(),
        "-isystem".into(),
        sysroot(root).display().to_string(),
        "-D__CUDA_API_VERSION_INTERNAL".into(),
    ]
}

/// The vendored versions, oldest first.
pub fn vendored_versions(root: &Path) -> Result<Vec<String>> {
    let dir = dir(root);
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).with_context(|| format!("cannot list {}", dir.display()))? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if version_key(&name).is_some() && dir.join(&name).join("cuda.h").is_file() {
            out.push(name);
        }
    }
    out.sort_by_key(|v| version_key(v));
    Ok(out)
}

/// The newest vendored `cuda.h`, checked against its `provenance.yaml`.
pub fn resolve(root: &Path) -> Result<Header> {
    let Some(version) = vendored_versions(root)?.pop() else {
        bail!("no cuda.h is vendored under {} (`cargo xtask update-cuda-header VERSION`)", dir(root).display());
    };
    let path = dir(root).join(&version).join("cuda.h");
    let bytes = std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let sha256 = headers::sha256_hex(&bytes);
    let prov_path = path.with_file_name("provenance.yaml");
    let prov = headers::read_provenance(&prov_path)?;
    if prov.sha256 != sha256 || prov.version != version || prov.package != PACKAGE {
        bail!(
            "{} does not match its provenance {} (sha256 {sha256}, version {version}; it says {} {} {})",
            path.display(),
            prov_path.display(),
            prov.package,
            prov.version,
            prov.sha256
        );
    }
    Ok(Header { path, info: HeaderInfo { version, sha256 } })
}

/// The header of the function-pointer typedefs.
pub const TYPEDEFS: &str = "cudaTypedefs.h";

/// The provenance file of [`TYPEDEFS`], beside it.
const TYPEDEFS_PROVENANCE: &str = "cudaTypedefs.provenance.yaml";

/// The text of `cudaTypedefs.h` beside `cuda` (a header [`resolve`] returned), checked against
/// its provenance: the same package and version as `cuda.h`'s.
pub fn typedefs(cuda: &Header) -> Result<String> {
    let path = cuda.path.with_file_name(TYPEDEFS);
    let bytes = std::fs::read(&path).with_context(|| {
        format!("cannot read {} (`cargo xtask update-cuda-header VERSION` vendors it)", path.display())
    })?;
    let sha256 = headers::sha256_hex(&bytes);
    let prov_path = path.with_file_name(TYPEDEFS_PROVENANCE);
    let prov = headers::read_provenance(&prov_path)?;
    if prov.sha256 != sha256 || prov.version != cuda.info.version || prov.package != PACKAGE {
        bail!(
            "{} does not match its provenance {} (sha256 {sha256}, version {}; it says {} {} {})",
            path.display(),
            prov_path.display(),
            cuda.info.version,
            prov.package,
            prov.version,
            prov.sha256
        );
    }
    String::from_utf8(bytes).with_context(|| format!("{} is not UTF-8", path.display()))
}

/// Fetches `cuda.h` and `cudaTypedefs.h` of `nvidia-cuda-runtime==version` with pip and
/// vendors them as `cuda-headers/<version>/`. Returns the directory.
pub fn vendor(root: &Path, version: &str, pip: &Pip) -> Result<PathBuf> {
    if version_key(version).is_none() {
        bail!("`{version}` is not a version such as 13.5.37");
    }
    let fetched = headers::fetch_header(PACKAGE, Some(version), "cuda.h", pip)?;
    let typedefs = headers::fetch_header(PACKAGE, Some(version), TYPEDEFS, pip)?;
    let (prov, typedefs_prov) = (fetched.provenance.to_yaml(), typedefs.provenance.to_yaml());
    let mut files: Vec<(&str, &[u8])> = vec![
        ("cuda.h", &fetched.header),
        ("provenance.yaml", prov.as_bytes()),
        (TYPEDEFS, &typedefs.header),
        (TYPEDEFS_PROVENANCE, typedefs_prov.as_bytes()),
    ];
    if let Some(l) = &fetched.license {
        files.push(("License.txt", l));
    }
    install_dir(&dir(root), version, &files)
}
