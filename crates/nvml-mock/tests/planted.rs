//! A runtime directory that another user planted, or that others can use, and session files
//! that are links, as two users meet them on a shared machine: the victim's `nvmlInit` and
//! `nvml-mock ctl` refuse each case with an error that names the path and says what is
//! wrong, return well within the lock bound, and leave the victim's private file byte for
//! byte as it was.
//!
//! The two users are two user ids that the test (as root) runs its processes as: the victim
//! runs a C client that loads the mock and calls `nvmlInit_v2`, and `nvml-mock ctl`, with no
//! runtime directory set, so the sessions' directory is `$TMPDIR/nvml-mock-<uid>`; `$TMPDIR`
//! is a sticky, world-writable directory of the test's, as `/tmp` is. Without root the test
//! says it is skipped, unless `NVML_MOCK_REQUIRE_TWO_USERS` is set (as CI sets it): then it
//! fails.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use nvml_mock::testing::{mock_path, CLEARED_ENV};

const VICTIM: u32 = 54_321;
const ATTACKER: u32 = 54_322;
/// The victim's private file: what the attack tries to change.
const SECRET: &[u8] = b"victim secret\n";
/// Longer than any lock is waited for (`nvml_mock::session::LOCK_TIMEOUT`): a process still
/// running then is hung, and is killed.
const HUNG: Duration = Duration::from_secs(30);

const CLIENT: &str = r#"
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv) {
    void *lib = dlopen(argv[1], RTLD_NOW);
    if (!lib) { printf("dlopen: %s\n", dlerror()); return 2; }
    int (*init)(void) = (int (*)(void))dlsym(lib, "nvmlInit_v2");
    if (!init) { printf("no nvmlInit_v2\n"); return 2; }
    printf("nvmlInit_v2 %d\n", init());
    return 0;
}
"#;

fn is_root() -> bool {
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

/// What the test's processes share: the client and the programs, readable by every user, and
/// the temporary directory that stands for `/tmp`.
struct Machine {
    root: PathBuf,
    tmp: PathBuf,
    client: PathBuf,
    mock: PathBuf,
    ctl: PathBuf,
}

impl Machine {
    fn new(test: &str) -> Machine {
        let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("planted").join(test);
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        // The way there must be open to the two users.
        let mut dir = Some(root.as_path());
        while let Some(d) = dir {
            let mode = std::fs::metadata(d).unwrap().mode();
            if mode & 0o005 != 0o005 {
                std::fs::set_permissions(d, PermissionsExt::from_mode((mode & 0o7777) | 0o005)).unwrap();
            }
            dir = d.parent();
        }
        let tmp = root.join("tmp");
        std::fs::create_dir(&tmp).unwrap();
        std::fs::set_permissions(&tmp, PermissionsExt::from_mode(0o1777)).unwrap();
        let source = root.join("client.c");
        std::fs::write(&source, CLIENT).unwrap();
        let client = root.join("client");
        let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
        let built = Command::new(&cc).arg("-o").arg(&client).arg(&source).arg("-ldl").status().unwrap();
        assert!(built.success(), "{cc} could not build the client");
        let mock = root.join("libnvml_mock.so");
        std::fs::copy(mock_path(), &mock).unwrap();
        let ctl = root.join("nvml-mock");
        std::fs::copy(env!("CARGO_BIN_EXE_nvml-mock"), &ctl).unwrap();
        for f in [&client, &mock, &ctl] {
            std::fs::set_permissions(f, PermissionsExt::from_mode(0o755)).unwrap();
        }
        Machine { root, tmp, client, mock, ctl }
    }

    /// The sessions' directory of the victim, by the default rule.
    fn victim_dir(&self) -> PathBuf {
        self.tmp.join(format!("nvml-mock-{VICTIM}"))
    }

    /// The victim's private file (mode 600, in a directory of the victim's own).
    fn secret(&self) -> PathBuf {
        let home = self.root.join("victim-home");
        std::fs::create_dir_all(&home).unwrap();
        std::os::unix::fs::chown(&home, Some(VICTIM), Some(VICTIM)).unwrap();
        std::fs::set_permissions(&home, PermissionsExt::from_mode(0o700)).unwrap();
        let secret = home.join("private");
        std::fs::write(&secret, SECRET).unwrap();
        std::os::unix::fs::chown(&secret, Some(VICTIM), Some(VICTIM)).unwrap();
        std::fs::set_permissions(&secret, PermissionsExt::from_mode(0o600)).unwrap();
        secret
    }

    /// Runs `program` as `uid` in session `s`, with the runtime directory by the default rule;
    /// its output, and how long it ran. A process that runs past [`HUNG`] fails the test.
    fn run_as(&self, uid: u32, program: &Path, args: &[&str]) -> (Output, Duration) {
        let mut cmd = Command::new(program);
        for v in CLEARED_ENV {
            cmd.env_remove(v);
        }
        cmd.args(args)
            .env_remove("XDG_RUNTIME_DIR")
            .env("TMPDIR", &self.tmp)
            .env("NVML_MOCK_PROFILE", "t4")
            .env("NVML_MOCK_SESSION", "s")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .uid(uid)
            .gid(uid);
        let start = Instant::now();
        let mut child = cmd.spawn().unwrap();
        loop {
            if child.try_wait().unwrap().is_some() {
                return (child.wait_with_output().unwrap(), start.elapsed());
            }
            if start.elapsed() > HUNG {
                let _ = child.kill();
                let out = child.wait_with_output().unwrap();
                panic!(
                    "{} hung: killed after {HUNG:?}\n{}{}",
                    program.display(),
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The victim's client and `ctl`: each must fail with an error containing `says`, in
    /// time, and leave `secret` as it was.
    fn victim_is_refused(&self, case: &str, secret: &Path, says: &str) {
        let (out, took) = self.run_as(VICTIM, &self.client, &[self.mock.to_str().unwrap()]);
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(
            stdout.contains("nvmlInit_v2 999"),
            "{case}: nvmlInit_v2 did not answer NVML_ERROR_UNKNOWN: {stdout}{stderr}"
        );
        assert!(stderr.contains(says), "{case}: the client's error does not say `{says}`:\n{stderr}");
        assert!(took < HUNG, "{case}: nvmlInit took {took:?}");
        let (out, _) = self.run_as(VICTIM, &self.ctl, &["ctl", "set", "0", "temperature.gpu", "90"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{case}: ctl succeeded");
        assert!(stderr.contains(says), "{case}: ctl's error does not say `{says}`:\n{stderr}");
        assert_eq!(std::fs::read(secret).unwrap(), SECRET, "{case}: the victim's file changed");
        let meta = std::fs::metadata(secret).unwrap();
        assert_eq!((meta.len(), meta.mode() & 0o777), (SECRET.len() as u64, 0o600), "{case}");
    }
}

/// Whether the test can run as two users; says why not, or fails where CI requires it.
fn two_users() -> bool {
    if is_root() {
        return true;
    }
    assert!(
        std::env::var_os("NVML_MOCK_REQUIRE_TWO_USERS").is_none(),
        "the planted-directory tests need root (to run as two users) and NVML_MOCK_REQUIRE_TWO_USERS is set"
    );
    eprintln!("skipped: the planted-directory tests need root, to run processes as two users");
    false
}

/// Makes `path` a directory of `uid` with `mode`, as that user would.
fn dir_of(path: &Path, uid: u32, mode: u32) {
    std::fs::create_dir(path).unwrap();
    std::os::unix::fs::chown(path, Some(uid), Some(uid)).unwrap();
    std::fs::set_permissions(path, PermissionsExt::from_mode(mode)).unwrap();
}

/// Plants, in `dir`, each file of session `s` as a link to `target`, as `uid`.
fn plant_links(dir: &Path, target: &Path, uid: u32) {
    for ext in ["shm", "users", "lock", "yaml"] {
        let link = dir.join(format!("s.{ext}"));
        std::os::unix::fs::symlink(target, &link).unwrap();
        std::os::unix::fs::lchown(&link, Some(uid), Some(uid)).unwrap();
    }
}

#[test]
fn a_directory_another_user_planted_is_refused() {
    if !two_users() {
        return;
    }
    let m = Machine::new("other-user");
    let secret = m.secret();
    // The measured attack: mode 777, the session's files linked to the victim's file.
    dir_of(&m.victim_dir(), ATTACKER, 0o777);
    plant_links(&m.victim_dir(), &secret, ATTACKER);
    m.victim_is_refused("another user's mode-777 directory", &secret, &format!("is owned by user {ATTACKER}"));
    // The same with no access for others: the owner is what counts.
    std::fs::remove_dir_all(m.victim_dir()).unwrap();
    dir_of(&m.victim_dir(), ATTACKER, 0o700);
    m.victim_is_refused("another user's mode-700 directory", &secret, &format!("is owned by user {ATTACKER}"));
}

#[test]
fn a_directory_others_can_use_is_refused() {
    if !two_users() {
        return;
    }
    let m = Machine::new("mode-777");
    let secret = m.secret();
    dir_of(&m.victim_dir(), VICTIM, 0o777);
    m.victim_is_refused(
        "the victim's own mode-777 directory",
        &secret,
        "has mode 777: group or other users can use it",
    );
    std::fs::set_permissions(m.victim_dir(), PermissionsExt::from_mode(0o750)).unwrap();
    m.victim_is_refused("the victim's own mode-750 directory", &secret, "has mode 750");
}

#[test]
fn a_directory_that_is_a_link_is_refused() {
    if !two_users() {
        return;
    }
    let m = Machine::new("dir-link");
    let secret = m.secret();
    // A link to a directory the victim owns, mode 700, with links planted in it: the link is
    // refused before anything in it is looked at.
    let elsewhere = m.tmp.join("elsewhere");
    dir_of(&elsewhere, VICTIM, 0o700);
    plant_links(&elsewhere, &secret, VICTIM);
    std::os::unix::fs::symlink(&elsewhere, m.victim_dir()).unwrap();
    std::os::unix::fs::lchown(m.victim_dir(), Some(ATTACKER), Some(ATTACKER)).unwrap();
    m.victim_is_refused("the directory a link", &secret, "is a symbolic link, not a directory");
}

#[test]
fn each_session_file_that_is_a_link_is_refused() {
    if !two_users() {
        return;
    }
    let m = Machine::new("file-links");
    let secret = m.secret();
    // The victim's own directory, as it should be, with one session file a link at a time.
    for ext in ["users", "shm", "lock", "yaml"] {
        let dir = m.victim_dir();
        let _ = std::fs::remove_dir_all(&dir);
        dir_of(&dir, VICTIM, 0o700);
        let link = dir.join(format!("s.{ext}"));
        std::os::unix::fs::symlink(&secret, &link).unwrap();
        std::os::unix::fs::lchown(&link, Some(VICTIM), Some(VICTIM)).unwrap();
        let says = format!("{}: is a symbolic link; refusing to follow it", link.display());
        m.victim_is_refused(&format!("s.{ext} a link"), &secret, &says);
    }
    // Once the directory is as it should be, the victim's session works.
    let dir = m.victim_dir();
    std::fs::remove_dir_all(&dir).unwrap();
    let (out, _) = m.run_as(VICTIM, &m.client, &[m.mock.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("nvmlInit_v2 0"), "{out:?}");
    let meta = std::fs::symlink_metadata(&dir).unwrap();
    assert_eq!((meta.uid(), meta.mode() & 0o7777), (VICTIM, 0o700), "the directory made for the victim");
    for ext in ["users", "shm", "lock", "yaml"] {
        let meta = std::fs::symlink_metadata(dir.join(format!("s.{ext}"))).unwrap();
        assert!(meta.is_file(), "s.{ext}");
        assert_eq!((meta.uid(), meta.mode() & 0o777), (VICTIM, 0o600), "s.{ext}");
    }
}
