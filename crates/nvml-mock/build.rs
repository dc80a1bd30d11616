//! Gives the mock the soname of the real library, so programs linked against it with
//! `-lnvidia-ml` (and `-Wl,-z,now`) load it as `libnvidia-ml.so.1`; and parses the built-in
//! profiles (`profiles/*.yaml`, `profiles/base/*.yaml`) into the packed form of their YAML
//! trees (`src/packed.rs`), which the library reads at `nvmlInit` instead of the YAML.

use std::path::{Path, PathBuf};

#[allow(dead_code)] // `unpack` is the library's.
#[path = "src/packed.rs"]
mod packed;

fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-cdylib=-Wl,-soname,libnvidia-ml.so.1");
    }
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/packed.rs");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    for dir in ["profiles", "profiles/base"] {
        println!("cargo:rerun-if-changed={dir}");
        if let Err(e) = pack_dir(Path::new(dir), &out.join(dir)) {
            panic!("{dir}: {e}");
        }
    }
}

/// Writes the packed tree of each `.yaml` file of `dir` into `out` (`a100.yaml` →
/// `a100.bin`). A file that does not parse gets an empty one: the library then parses its
/// text at `nvmlInit` and answers the parser's error, as it would without the packed form.
fn pack_dir(dir: &Path, out: &Path) -> Result<(), String> {
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{e}"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    for path in files {
        println!("cargo:rerun-if-changed={}", path.display());
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut bytes = Vec::new();
        match serde_yaml::from_str::<serde_yaml::Value>(&text) {
            Ok(v) => {
                if packed::pack(&v, &mut bytes).is_none() {
                    bytes.clear();
                }
            }
            Err(e) => println!("cargo:warning={}: {e} (nvmlInit will report it)", path.display()),
        }
        let stem = path.file_stem().and_then(|s| s.to_str()).ok_or("a file name that is not UTF-8")?;
        // `b200-r580.65.yaml` → `b200-r580.65.bin`: the stem whole, dots and all.
        let target = out.join(format!("{stem}.bin"));
        std::fs::write(&target, bytes).map_err(|e| format!("{}: {e}", target.display()))?;
    }
    Ok(())
}
