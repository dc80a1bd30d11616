//! The library the getter benchmark runs against by default: `instant.c`, a
//! `libnvidia-ml.so.1` whose functions return at once, compiled here with the system C
//! compiler (`$CC`, else `cc`) into a temporary directory. This example and
//! `benches/nvml-wrapper-compare` (which includes this file) both build it this way;
//! `benches/compare.sh` builds it once with the same command and passes it to both through
//! `NVML_LIBRARY_PATH`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The C source, compiled into the program so that it runs from any directory.
pub const SOURCE: &str = include_str!("instant.c");

/// The built library; its directory is removed on drop.
pub struct InstantLib {
    dir: PathBuf,
    path: PathBuf,
}

impl InstantLib {
    /// Compiles [`SOURCE`] into `libnvidia-ml.so.1` in a new temporary directory.
    pub fn build() -> Result<InstantLib, String> {
        let dir = std::env::temp_dir().join(format!("nvmlkit-bench-instant-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let lib = InstantLib { path: dir.join("libnvidia-ml.so.1"), dir };
        let src = lib.dir.join("instant.c");
        std::fs::write(&src, SOURCE).map_err(|e| format!("{}: {e}", src.display()))?;
        let cc = std::env::var_os("CC").filter(|c| !c.is_empty()).unwrap_or_else(|| "cc".into());
        let status = Command::new(&cc)
            .args(["-O2", "-shared", "-fPIC", "-Wl,-soname,libnvidia-ml.so.1", "-o"])
            .arg(&lib.path)
            .arg(&src)
            .status()
            .map_err(|e| format!("the benchmark compiles its library with a C compiler ({cc:?}): {e}"))?;
        if !status.success() {
            return Err(format!("{cc:?} failed to compile {} ({status})", src.display()));
        }
        Ok(lib)
    }

    /// The library's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for InstantLib {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
