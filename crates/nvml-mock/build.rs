//! Gives the mock the soname of the real library, so programs linked against it with
//! `-lnvidia-ml` (and `-Wl,-z,now`) load it as `libnvidia-ml.so.1`; and parses the built-in
//! profiles (`profiles/*.yaml`, `profiles/base/*.yaml`), merges each with its bases
//! (`src/bases.rs`) and writes the packed form of the merged trees (`src/packed.rs`), which
//! the library reads at `nvmlInit` instead of the YAML.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[allow(dead_code)] // `unpack` is the library's.
#[path = "src/packed.rs"]
mod packed;

#[path = "src/bases.rs"]
mod bases;

fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-cdylib=-Wl,-soname,libnvidia-ml.so.1");
    }
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/packed.rs");
    println!("cargo:rerun-if-changed=src/bases.rs");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let mut trees = BTreeMap::new();
    for (dir, prefix) in [("profiles", ""), ("profiles/base", "base/")] {
        println!("cargo:rerun-if-changed={dir}");
        if let Err(e) = read_dir(Path::new(dir), prefix, &mut trees) {
            panic!("{dir}: {e}");
        }
    }
    let names: Vec<String> = trees.keys().cloned().collect();
    for name in names {
        let mut bytes = Vec::new();
        match merged(&name, &trees, 0) {
            Ok(v) => {
                if packed::pack(&v, &mut bytes).is_none() {
                    bytes.clear();
                }
            }
            Err(e) => println!("cargo:warning={name}: {e} (nvmlInit will report it)"),
        }
        // `b200-r580.65` → `profiles/b200-r580.65.bin`: the name whole, dots and all.
        let target = out.join("profiles").join(format!("{name}.bin"));
        let written =
            target.parent().map_or(Ok(()), std::fs::create_dir_all).and_then(|()| std::fs::write(&target, bytes));
        if let Err(e) = written {
            panic!("{}: {e}", target.display());
        }
    }
}

/// Reads the tree of each `.yaml` file of `dir` into `trees`, by its built-in name (`prefix`
/// and the file's stem): `Err` for one that does not parse, which then gets an empty packed
/// form: the library parses its text at `nvmlInit` and answers the parser's error, as it would
/// without the packed form.
fn read_dir(
    dir: &Path,
    prefix: &str,
    trees: &mut BTreeMap<String, Result<serde_yaml::Value, String>>,
) -> Result<(), String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{e}"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    for path in files {
        println!("cargo:rerun-if-changed={}", path.display());
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let stem = path.file_stem().and_then(|s| s.to_str()).ok_or("a file name that is not UTF-8")?;
        let tree = serde_yaml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()));
        trees.insert(format!("{prefix}{stem}"), tree);
    }
    Ok(())
}

/// The tree of built-in file `name` with its bases merged in, as the library merges it: a
/// base that is not a built-in (a file) is an error here, and the library merges that one
/// itself.
fn merged(
    name: &str,
    trees: &BTreeMap<String, Result<serde_yaml::Value, String>>,
    depth: usize,
) -> Result<serde_yaml::Value, String> {
    let tree = trees.get(name).ok_or_else(|| format!("`{name}` is not a built-in"))?.clone()?;
    bases::merge_bases(tree, name, depth, &mut |b, depth| merged(b, trees, depth))
}
