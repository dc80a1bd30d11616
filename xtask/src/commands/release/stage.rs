//! The staging copy a release is made in: the workspace's files (what git tracks, and what it
//! does not ignore) copied into a scratch git repository, where every step writes; the tree
//! itself is written only at the end, when every step passed, with exactly the files the
//! release changed.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

/// A file the release changed, relative to the workspace root.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Changed {
    Added(String),
    Modified(String),
    Deleted(String),
}

impl Changed {
    pub fn path(&self) -> &str {
        match self {
            Changed::Added(p) | Changed::Modified(p) | Changed::Deleted(p) => p,
        }
    }
}

impl std::fmt::Display for Changed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Changed::Added(p) => write!(f, "added:    {p}"),
            Changed::Modified(p) => write!(f, "modified: {p}"),
            Changed::Deleted(p) => write!(f, "deleted:  {p}"),
        }
    }
}

/// The staging copy: `<work>/tree`, a git repository whose one commit is the workspace as it
/// was.
pub struct Stage {
    pub tree: PathBuf,
    /// The cargo target directory of the staging copy's builds, `<work>/target`: kept between
    /// releases, so that a second run builds only what changed.
    pub target: PathBuf,
}

impl Stage {
    /// Copies `root`'s files into `<work>/tree` (cleared first) and commits them there.
    pub fn create(root: &Path, work: &Path) -> Result<Stage> {
        let tree = work.join("tree");
        if tree.exists() {
            std::fs::remove_dir_all(&tree).with_context(|| format!("cannot clear {}", tree.display()))?;
        }
        std::fs::create_dir_all(&tree).with_context(|| format!("cannot create {}", tree.display()))?;
        for rel in workspace_files(root)? {
            let (from, to) = (root.join(&rel), tree.join(&rel));
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
            }
            std::fs::copy(&from, &to).with_context(|| format!("cannot copy {} to {}", from.display(), to.display()))?;
        }
        git(&tree, &["init", "-q"])?;
        git(&tree, &["add", "-A"])?;
        git(&tree, &["commit", "-q", "--no-gpg-sign", "--no-verify", "-m", "the workspace before the release"])?;
        Ok(Stage { tree, target: work.join("target") })
    }

    /// What the release has changed so far, against the workspace as it was.
    pub fn changes(&self) -> Result<Vec<Changed>> {
        git(&self.tree, &["add", "-A"])?;
        let out = git(&self.tree, &["diff", "--cached", "--no-renames", "--name-status", "-z"])?;
        let mut fields = out.split('\0').filter(|f| !f.is_empty());
        let mut changes = Vec::new();
        while let (Some(status), Some(path)) = (fields.next(), fields.next()) {
            changes.push(match status {
                "A" => Changed::Added(path.to_string()),
                "D" => Changed::Deleted(path.to_string()),
                _ => Changed::Modified(path.to_string()),
            });
        }
        changes.sort();
        Ok(changes)
    }

    /// What the release has changed so far, as a patch that `git apply` applies to the
    /// workspace as it was.
    pub fn patch(&self) -> Result<String> {
        git(&self.tree, &["add", "-A"])?;
        git(&self.tree, &["diff", "--cached", "--no-renames", "--binary"])
    }

    /// Writes `changes` from the staging copy into `root`: every new content is first written
    /// beside its file, then renamed over it, then the deleted files go. Before anything is
    /// written, each file must still be as it was when the release copied it: a file edited
    /// meanwhile stops the release, and nothing is written.
    pub fn write_back(&self, root: &Path, changes: &[Changed]) -> Result<()> {
        for c in changes {
            let now = std::fs::read(root.join(c.path())).ok();
            let before = match c {
                Changed::Added(_) => None,
                _ => Some(git_bytes(&self.tree, &["show", &format!("HEAD:{}", c.path())])?),
            };
            if now != before {
                bail!("{} changed in the workspace while the release ran; nothing was written", c.path());
            }
        }
        let mut staged = Vec::new();
        let result = (|| -> Result<()> {
            for c in changes.iter().filter(|c| !matches!(c, Changed::Deleted(_))) {
                let dest = root.join(c.path());
                let tmp = PathBuf::from(format!("{}.release-new", dest.display()));
                if let Some(parent) = dest.parent() {
                    std::fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
                }
                std::fs::copy(self.tree.join(c.path()), &tmp)
                    .with_context(|| format!("cannot write {}", tmp.display()))?;
                staged.push((tmp, dest));
            }
            Ok(())
        })();
        if let Err(e) = result {
            for (tmp, _) in &staged {
                let _ = std::fs::remove_file(tmp);
            }
            return Err(e.context("nothing was written"));
        }
        for (tmp, dest) in &staged {
            std::fs::rename(tmp, dest).with_context(|| format!("cannot move {} into place", tmp.display()))?;
        }
        for c in changes.iter().filter(|c| matches!(c, Changed::Deleted(_))) {
            let path = root.join(c.path());
            std::fs::remove_file(&path).with_context(|| format!("cannot remove {}", path.display()))?;
            // Directories the deletions emptied go too.
            let mut dir = path.parent();
            while let Some(d) = dir.filter(|d| *d != root) {
                if std::fs::remove_dir(d).is_err() {
                    break;
                }
                dir = d.parent();
            }
        }
        Ok(())
    }
}

/// The workspace's files, relative to `root`: in a git work tree whose top is `root`, what git
/// tracks and what it does not ignore (as they are on disk, uncommitted changes included);
/// elsewhere every file but `target/` and `.git`.
pub fn workspace_files(root: &Path) -> Result<Vec<String>> {
    let top = git(root, &["rev-parse", "--show-toplevel"]).ok();
    let same = |top: &str| {
        let (a, b) = (std::fs::canonicalize(top.trim()), std::fs::canonicalize(root));
        matches!((a, b), (Ok(a), Ok(b)) if a == b)
    };
    if top.as_deref().is_some_and(same) {
        let out = git(root, &["ls-files", "-z", "--cached", "--others", "--exclude-standard"])?;
        let mut files: Vec<String> =
            out.split('\0').filter(|f| !f.is_empty() && root.join(f).is_file()).map(String::from).collect();
        files.sort();
        files.dedup();
        return Ok(files);
    }
    let mut files = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let dir = root.join(&rel);
        for entry in std::fs::read_dir(&dir).with_context(|| format!("cannot list {}", dir.display()))? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = rel.join(&name);
            if entry.file_type()?.is_dir() {
                if !(rel.as_os_str().is_empty() && (name == "target" || name == ".git")) {
                    stack.push(path);
                }
            } else {
                files.push(path.to_string_lossy().into_owned());
            }
        }
    }
    files.sort();
    Ok(files)
}

/// Whether `root`'s git work tree has changes, untracked files included: `git status
/// --porcelain`'s lines, empty when clean.
pub fn uncommitted(root: &Path) -> Result<Vec<String>> {
    let out = git(root, &["status", "--porcelain"]).context("`cargo xtask release --publish` needs a git work tree")?;
    Ok(out.lines().map(String::from).collect())
}

/// Runs git in `dir` with a fixed identity (the staging repository's commit), returning its
/// standard output; a failure quotes git's error.
pub fn git(dir: &Path, args: &[&str]) -> Result<String> {
    Ok(String::from_utf8_lossy(&git_bytes(dir, args)?).into_owned())
}

fn git_bytes(dir: &Path, args: &[&str]) -> Result<Vec<u8>> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=nvmlkit release", "-c", "user.email=release@nvmlkit.invalid"])
        .args(args)
        .output()
        .context("cannot run `git` (is it installed and on PATH?)")?;
    if !out.status.success() {
        bail!("`git {}` in {} failed: {}", args.join(" "), dir.display(), String::from_utf8_lossy(&out.stderr).trim());
    }
    Ok(out.stdout)
}
