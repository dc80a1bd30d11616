//! `cargo xtask regen [--check]`: writing generated files, or checking them.
//!
//! A regen never leaves a half-written tree: every generator-owned directory is first written
//! in full next to its target (`<dir>.regen-new`), and only when all of them are complete is
//! each swapped into place. If anything fails before the swap, the staged copies are removed
//! and the checked-in files are untouched.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::emit::Output;
use crate::pipeline::{self, Inputs};

/// `cargo xtask regen`: generates every file and writes it under `target` (the workspace, or
/// `--out-root`), or with `check` compares instead; `Ok(false)` when `check` finds problems.
pub fn run(root: &Path, inputs: &Inputs, check: bool, target: &Path) -> Result<bool> {
    let out = pipeline::generate(root, inputs)?;
    if check {
        let problems = self::check(target, &out)?;
        if problems.is_empty() {
            println!("generated files are up to date ({} files)", out.files.len());
            return Ok(true);
        }
        for p in &problems {
            eprintln!("{p}");
        }
        eprintln!("error: {} generated file(s) out of date; run `cargo xtask regen`", problems.len());
        return Ok(false);
    }
    let changed = write(target, &out)?;
    println!("wrote {} files under {} ({} changed)", out.files.len(), target.display(), changed.len());
    for c in changed {
        println!("  {}", c.display());
    }
    Ok(true)
}

/// What `--check` found wrong.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Problem {
    Missing(PathBuf),
    Stale(PathBuf),
    Extra(PathBuf),
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Problem::Missing(p) => write!(f, "missing: {}", p.display()),
            Problem::Stale(p) => write!(f, "stale:   {}", p.display()),
            Problem::Extra(p) => write!(f, "extra:   {}", p.display()),
        }
    }
}

/// Compares `out` with the files under `root`; an empty list means up to date.
pub fn check(root: &Path, out: &Output) -> Result<Vec<Problem>> {
    let mut problems = Vec::new();
    let mut expected = BTreeSet::new();
    for f in &out.files {
        expected.insert(f.path.clone());
        match std::fs::read_to_string(root.join(&f.path)) {
            Ok(disk) if disk.replace("\r\n", "\n") == f.contents => {}
            Ok(_) => problems.push(Problem::Stale(f.path.clone())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => problems.push(Problem::Missing(f.path.clone())),
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", f.path.display())),
        }
    }
    for dir in &out.dirs {
        for path in list_files(root, dir)? {
            if !expected.contains(&path) {
                problems.push(Problem::Extra(path));
            }
        }
    }
    problems.sort();
    Ok(problems)
}

/// Files under `root/dir`, as paths relative to `root`.
fn list_files(root: &Path, dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = match std::fs::read_dir(root.join(&d)) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e).with_context(|| format!("cannot list {}", d.display())),
        };
        for entry in entries {
            let entry = entry?;
            let rel = d.join(entry.file_name());
            if entry.file_type()?.is_dir() {
                stack.push(rel);
            } else {
                out.push(rel);
            }
        }
    }
    Ok(out)
}

fn sibling(dir: &Path, suffix: &str) -> PathBuf {
    let mut name = dir.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(suffix);
    dir.with_file_name(name)
}

/// Writes `out` under `root`; returns the files whose contents changed.
pub fn write(root: &Path, out: &Output) -> Result<Vec<PathBuf>> {
    for f in &out.files {
        if !out.dirs.iter().any(|d| f.path.starts_with(d)) {
            bail!("{} is outside every generated directory (a generator bug)", f.path.display());
        }
    }
    // For the report only: a tree that cannot even be read fails below, while staging.
    let changed: Vec<PathBuf> = check(root, out)
        .unwrap_or_default()
        .into_iter()
        .map(|p| match p {
            Problem::Missing(p) | Problem::Stale(p) | Problem::Extra(p) => p,
        })
        .collect();
    let mut staged = Vec::new();
    if let Err(e) = stage(root, out, &mut staged) {
        for (_, tmp) in &staged {
            let _ = std::fs::remove_dir_all(tmp);
        }
        return Err(e.context("regen failed; the checked-in files are untouched"));
    }
    for (target, tmp) in staged {
        let old = sibling(&target, ".regen-old");
        let _ = std::fs::remove_dir_all(&old);
        if target.exists() {
            std::fs::rename(&target, &old).with_context(|| format!("cannot move {} aside", target.display()))?;
        }
        if let Err(e) = std::fs::rename(&tmp, &target) {
            // Put the old tree back before reporting.
            let _ = std::fs::rename(&old, &target);
            return Err(e).with_context(|| format!("cannot move the new {} into place", target.display()));
        }
        let _ = std::fs::remove_dir_all(&old);
    }
    Ok(changed)
}

fn stage(root: &Path, out: &Output, staged: &mut Vec<(PathBuf, PathBuf)>) -> Result<()> {
    for dir in &out.dirs {
        let target = root.join(dir);
        let tmp = sibling(&target, ".regen-new");
        if tmp.exists() {
            std::fs::remove_dir_all(&tmp).with_context(|| format!("cannot clear {}", tmp.display()))?;
        }
        std::fs::create_dir_all(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
        staged.push((target, tmp.clone()));
        for f in out.files.iter().filter(|f| f.path.starts_with(dir)) {
            let rel = f.path.strip_prefix(dir).unwrap_or(&f.path);
            let dest = tmp.join(rel);
            if let Some(parent) = dest.parent() {
                std::fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
            }
            std::fs::write(&dest, &f.contents).with_context(|| format!("cannot write {}", dest.display()))?;
        }
    }
    Ok(())
}
