//! `cargo xtask dist --out DIR`: the release archive `nvmlkit-mock-<version>-<target>.tar.gz`,
//! for users of Go, C and containers: the tree of [`bundle`](super::bundle) (links kept) in a
//! directory of the archive's name, with `README.md`, the licenses and `container/Dockerfile`
//! from `packaging/dist/`. `--wheel` writes the wheel of the same build beside it.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::bundle::{self, tar, Entry, Tree};
use super::wheel::{self, Scratch};

/// The archive's README and container recipe, below the workspace root.
pub const DIST_DIR: &str = "packaging/dist";

/// Builds the tree once and writes the archive into `out` (and the wheel, with `with_wheel`);
/// returns their paths.
pub fn run(root: &Path, out: &Path, with_wheel: bool) -> Result<Vec<PathBuf>> {
    let scratch = Scratch::new(root)?;
    let tree = bundle::build(root, &scratch.0.join("tree"))?;
    let mut written = vec![write(root, &tree, out)?];
    if with_wheel {
        written.push(wheel::write(root, &tree, out)?);
    }
    Ok(written)
}

/// Writes the archive of `tree` into `out`.
pub fn write(root: &Path, tree: &Tree, out: &Path) -> Result<PathBuf> {
    let name = format!("nvmlkit-mock-{}-{}", tree.version, bundle::host_target()?);
    let mut entries = vec![Entry::Dir { path: name.clone() }];
    let dist = root.join(DIST_DIR);
    let file = |path: String, source: PathBuf| Entry::File { path, source, mode: 0o644 };
    entries.push(file(format!("{name}/README.md"), dist.join("README.md")));
    entries.push(file(format!("{name}/LICENSE-MIT"), root.join("LICENSE-MIT")));
    entries.push(file(format!("{name}/LICENSE-APACHE"), root.join("LICENSE-APACHE")));
    entries.push(Entry::Dir { path: format!("{name}/container") });
    entries.push(file(format!("{name}/container/Dockerfile"), dist.join("Dockerfile")));
    entries.extend(bundle::entries(&tree.root, &format!("{name}/"))?);
    for e in &entries {
        if let Entry::File { source, .. } = e {
            if !source.is_file() {
                anyhow::bail!("{} is missing", source.display());
            }
        }
    }
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let path = out.join(format!("{name}.tar.gz"));
    std::fs::write(&path, tar::tar_gz(&entries, bundle::timestamp())?)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}
