//! Files only their owner can use, in places other users may share (`/tmp`).
//!
//! A directory of the mock's is created mode 0700, or, if it exists, must be a directory (not
//! a link) of the caller's own with no access for group or others, as the XDG Base Directory
//! specification requires of a runtime directory and tmux of its socket directory. Files in it
//! are opened without following links and created 0600, and a file that is not a regular file
//! of the caller's own with one name is refused. Output files are written under a fresh name
//! and renamed into place, so that nothing planted at their path is written through.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Makes sure `dir` is a directory only the caller can use: creates it (and its missing
/// parents) mode 0700, or checks the one there. The error names the path and what is wrong.
pub fn own_dir(dir: &Path) -> Result<(), String> {
    let shown = || dir.display().to_string();
    match std::fs::symlink_metadata(dir) {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
                std::fs::DirBuilder::new()
                    .recursive(true)
                    .mode(0o700)
                    .create(parent)
                    .map_err(|e| format!("{}: {e}", parent.display()))?;
            }
            match std::fs::DirBuilder::new().mode(0o700).create(dir) {
                Ok(()) => {}
                // Made by another process meanwhile: checked below like any other.
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(format!("{}: {e}", shown())),
            }
        }
        Err(e) => return Err(format!("{}: {e}", shown())),
    }
    let meta = std::fs::symlink_metadata(dir).map_err(|e| format!("{}: {e}", shown()))?;
    let uid = crate::ffi::user_id();
    let refuse = |what: String| {
        Err(format!("{}: {what}; refusing to use it (remove it, or set NVML_MOCK_RUNTIME_DIR to a directory of your own, mode 0700)", shown()))
    };
    if meta.file_type().is_symlink() {
        return refuse("is a symbolic link, not a directory".into());
    }
    if !meta.is_dir() {
        return refuse("is not a directory".into());
    }
    if meta.uid() != uid {
        return refuse(format!("is owned by user {} and this process runs as user {uid}", meta.uid()));
    }
    if meta.mode() & 0o077 != 0 {
        return refuse(format!("has mode {:o}: group or other users can use it", meta.mode() & 0o777));
    }
    Ok(())
}

/// Checks that the open file at `path` is a regular file of the caller's own with one name.
fn check_own_file(file: &File, path: &Path) -> Result<(), String> {
    let meta = file.metadata().map_err(|e| format!("{}: {e}", path.display()))?;
    let uid = crate::ffi::user_id();
    let what = if !meta.is_file() {
        "is not a regular file".to_string()
    } else if meta.uid() != uid {
        format!("is owned by user {} and this process runs as user {uid}", meta.uid())
    } else if meta.nlink() != 1 {
        format!("has {} names (hard links)", meta.nlink())
    } else {
        return Ok(());
    };
    Err(format!("{}: {what}; refusing to use it", path.display()))
}

fn no_follow() -> OpenOptions {
    let mut o = OpenOptions::new();
    o.custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC).mode(0o600);
    o
}

/// The error of opening `path`, where `ELOOP` means it is a link.
fn open_error(path: &Path, e: std::io::Error) -> String {
    if e.raw_os_error() == Some(libc::ELOOP) {
        format!("{}: is a symbolic link; refusing to follow it", path.display())
    } else {
        format!("{}: {e}", path.display())
    }
}

/// Opens `path` (in a directory [`own_dir`] checked) to read and write, creating it 0600 if
/// missing; never through a link, and only a regular file of the caller's own.
pub fn open_rw(path: &Path) -> Result<File, String> {
    let file =
        no_follow().read(true).write(true).create(true).truncate(false).open(path).map_err(|e| open_error(path, e))?;
    check_own_file(&file, path)?;
    Ok(file)
}

/// Opens `path` to read, as [`open_rw`] does; `None` if there is no such file.
pub fn open_read(path: &Path) -> Result<Option<File>, String> {
    // A file with no name left was replaced ([`replace`]) between the open and the check: the
    // one there now is opened instead (a few times at most: each replace is one command's).
    for _ in 0..100 {
        let file = match no_follow().read(true).open(path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(open_error(path, e)),
        };
        if file.metadata().is_ok_and(|m| m.nlink() == 0) {
            continue;
        }
        return check_own_file(&file, path).map(|()| Some(file));
    }
    Err(format!("{}: replaced 100 times while being opened; giving up", path.display()))
}

/// Writes `bytes` to a new file `path` of `mode`: never one that exists, never through a link.
pub fn write_new(path: &Path, bytes: &[u8], mode: u32) -> Result<(), String> {
    let mut f = no_follow().write(true).create_new(true).mode(mode).open(path).map_err(|e| open_error(path, e))?;
    f.write_all(bytes).map_err(|e| {
        let _ = std::fs::remove_file(path);
        format!("{}: {e}", path.display())
    })
}

/// Writes `bytes` to `path` whole: into a file of a fresh name beside it (never one that
/// exists, never through a link), renamed into place, so that a reader sees the old file or
/// the new and whatever was planted at `path` is replaced, not written through. The file gets
/// `mode`.
pub fn replace(path: &Path, bytes: &[u8], mode: u32) -> Result<(), String> {
    static WRITES: AtomicUsize = AtomicUsize::new(0);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = loop {
        let n = WRITES.fetch_add(1, Ordering::Relaxed);
        let tmp = path.with_file_name(format!(".{name}.{}-{n}.tmp", std::process::id()));
        match no_follow().write(true).create_new(true).mode(mode).open(&tmp) {
            Ok(mut f) => {
                // No fsync: the rename is what makes the file whole for the processes that read
                // it; a runtime directory does not outlive the machine's power.
                if let Err(e) = f.write_all(bytes) {
                    let _ = std::fs::remove_file(&tmp);
                    return Err(format!("{}: {e}", tmp.display()));
                }
                break tmp;
            }
            // A name left by a process of this id before (or planted): try the next.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 1_000_000 => continue,
            Err(e) => return Err(open_error(&tmp, e)),
        }
    };
    // A regular file there is swapped with the new one, and the old one then removed: on ext4
    // a rename over a file waits for the new file's data to be written out (its
    // `auto_da_alloc`), which took 10 to 40 ms under the load of other builds where an
    // exchange takes 0.1 ms. Anything else there (nothing, a link, a directory) is replaced by
    // the rename, as is a regular file where the file system cannot exchange.
    let regular = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file());
    if regular && crate::ffi::exchange(&tmp, path).is_ok() {
        return std::fs::remove_file(&tmp).map_err(|e| {
            format!("{}: the file it replaced, moved to {}, is left: {e}", path.display(), tmp.display())
        });
    }
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("{}: {e}", path.display())
    })
}

/// A directory of the caller's own, made fresh (0700) under the system's temporary directory
/// and removed when dropped.
#[derive(Debug)]
pub struct TempDir(PathBuf);

impl TempDir {
    /// A new directory named after `prefix`, the process and a counter: a name that exists
    /// (planted or left over) is never used.
    pub fn new(prefix: &str) -> Result<TempDir, String> {
        static DIRS: AtomicUsize = AtomicUsize::new(0);
        let base = std::env::temp_dir();
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
        for _ in 0..1000 {
            let n = DIRS.fetch_add(1, Ordering::Relaxed);
            let dir = base.join(format!("{prefix}-{}-{nanos:x}-{n}", std::process::id()));
            match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
                Ok(()) => return Ok(TempDir(dir)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(format!("{}: {e}", dir.display())),
            }
        }
        Err(format!("{}: no free name for a directory `{prefix}-*`", base.display()))
    }

    /// Where the directory is.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_others_can_use_or_a_link_is_refused() {
        let tmp = TempDir::new("nvml-mock-private-test").unwrap();
        let dir = tmp.path().join("run");
        own_dir(&dir).unwrap();
        assert_eq!(std::fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
        own_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
        let e = own_dir(&dir).unwrap_err();
        assert!(e.contains("has mode 777: group or other users can use it"), "{e}");
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(tmp.path(), &link).unwrap();
        let e = own_dir(&link).unwrap_err();
        assert!(e.contains("is a symbolic link"), "{e}");
    }

    #[test]
    fn files_are_not_opened_through_links_and_replace_writes_no_link() {
        let tmp = TempDir::new("nvml-mock-private-test").unwrap();
        let victim = tmp.path().join("victim");
        std::fs::write(&victim, "secret").unwrap();
        let planted = tmp.path().join("s.shm");
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        assert!(open_rw(&planted).unwrap_err().contains("is a symbolic link"));
        assert!(open_read(&planted).unwrap_err().contains("is a symbolic link"));
        let hard = tmp.path().join("s.users");
        std::fs::hard_link(&victim, &hard).unwrap();
        assert!(open_rw(&hard).unwrap_err().contains("has 2 names"));
        replace(&planted, b"new", 0o600).unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "secret");
        assert_eq!(std::fs::read_to_string(&planted).unwrap(), "new");
        assert!(!std::fs::symlink_metadata(&planted).unwrap().file_type().is_symlink());
        let made = open_rw(&tmp.path().join("fresh")).unwrap();
        assert_eq!(made.metadata().unwrap().mode() & 0o777, 0o600);
    }

    #[test]
    fn replace_puts_the_new_file_in_place_and_leaves_nothing_else() {
        let tmp = TempDir::new("nvml-mock-private-test").unwrap();
        let victim = tmp.path().join("victim");
        std::fs::write(&victim, "secret").unwrap();
        let state = tmp.path().join("s.yaml");
        std::fs::hard_link(&victim, &state).unwrap();
        // A regular file there (here one with another name: the victim's) is exchanged and
        // removed, the victim left as it was; then the new file is replaced again.
        for text in ["one", "two"] {
            replace(&state, text.as_bytes(), 0o600).unwrap();
            assert_eq!(std::fs::read_to_string(&state).unwrap(), text);
            assert_eq!(std::fs::metadata(&state).unwrap().mode() & 0o777, 0o600);
        }
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "secret");
        assert_eq!(std::fs::metadata(&victim).unwrap().nlink(), 1);
        let mut names: Vec<String> = std::fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["s.yaml", "victim"]);
    }
}
