//! The GPU memory processes hold through the CUDA mock ([`crate::cuda`]), which NVML counts as
//! used memory and lists, with each process's pid and bytes, among the compute processes.
//!
//! A process's own allocations are held here in memory. In a session of `nvml-mock ctl`
//! (`NVML_MOCK_SESSION`), each process that holds CUDA memory also writes it to a file of its
//! own, `NAME.cuda/<pid>` in the session's runtime directory (replaced whole at each change,
//! removed when it holds nothing), so every process of the session sees it. A file whose
//! process has exited (no `/proc/<pid>`, or another process under that pid: the start time
//! the file records differs) is left out, and removed: memory is released when its process
//! exits, however it exits.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use crate::session::{self, Files};

/// Memory a process holds on one GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Held {
    pub pid: u32,
    /// The GPU's NVML index.
    pub gpu: usize,
    pub bytes: u64,
}

/// This process's bytes by GPU.
static OWN: Mutex<BTreeMap<usize, u64>> = Mutex::new(BTreeMap::new());

/// The directory of the session's allocation files, when this process is in a session.
fn dir() -> Option<&'static PathBuf> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        let name = std::env::var(session::ENV).ok().filter(|n| !n.is_empty())?;
        let files = Files::of(&name).ok()?;
        Some(files.dir.join(format!("{name}.cuda")))
    })
    .as_ref()
}

/// A process's start time (field 22 of `/proc/<pid>/stat`), which tells it from a later
/// process with the same pid.
fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name, in parentheses, may hold spaces: count from after it.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// Adds `delta` bytes (negative: frees) to this process's memory on `gpu`, and publishes it
/// to the session.
pub fn change(gpu: usize, delta: i128) {
    let snapshot = {
        let Ok(mut own) = OWN.lock() else { return };
        let now = own.get(&gpu).copied().unwrap_or(0) as i128 + delta;
        if now <= 0 {
            own.remove(&gpu);
        } else {
            own.insert(gpu, now as u64);
        }
        own.clone()
    };
    publish(&snapshot);
}

fn publish(own: &BTreeMap<usize, u64>) {
    let Some(dir) = dir() else { return };
    let pid = std::process::id();
    let path = dir.join(pid.to_string());
    if own.is_empty() {
        let _ = std::fs::remove_file(&path);
        return;
    }
    if crate::private::own_dir(dir).is_err() {
        return;
    }
    let mut text = format!("start {}\n", start_time(pid).unwrap_or(0));
    for (gpu, bytes) in own {
        text.push_str(&format!("{gpu} {bytes}\n"));
    }
    if let Err(e) = crate::private::replace(&path, text.as_bytes(), 0o600) {
        eprintln!("nvml-mock: cannot record this process's CUDA memory in {}: {e}", path.display());
    }
}

/// Every process's memory: this process's, then (in a session) that of the session's other
/// running processes, by pid.
pub fn held() -> Vec<Held> {
    let me = std::process::id();
    let mut out: Vec<Held> = match OWN.lock() {
        Ok(own) => own.iter().map(|(&gpu, &bytes)| Held { pid: me, gpu, bytes }).collect(),
        Err(_) => Vec::new(),
    };
    let Some(dir) = dir() else { return out };
    let Ok(entries) = std::fs::read_dir(dir) else { return out };
    let mut others: Vec<(u32, PathBuf)> = entries
        .flatten()
        .filter_map(|e| Some((e.file_name().to_str()?.parse::<u32>().ok()?, e.path())))
        .filter(|(pid, _)| *pid != me)
        .collect();
    others.sort();
    for (pid, path) in others {
        let Ok(Some(mut file)) = crate::private::open_read(&path) else { continue };
        let mut text = String::new();
        if std::io::Read::read_to_string(&mut file, &mut text).is_err() {
            continue;
        }
        let mut lines = text.lines();
        let recorded = lines.next().and_then(|l| l.strip_prefix("start ")).and_then(|s| s.trim().parse::<u64>().ok());
        if recorded.is_none() || start_time(pid) != recorded {
            // Its process has exited: the memory is free.
            let _ = std::fs::remove_file(&path);
            continue;
        }
        for line in lines {
            let mut words = line.split_whitespace();
            if let (Some(Ok(gpu)), Some(Ok(bytes))) = (words.next().map(str::parse), words.next().map(str::parse)) {
                out.push(Held { pid, gpu, bytes });
            }
        }
    }
    out
}

/// The bytes every process holds on GPU `gpu`.
pub fn used_on(gpu: usize) -> u64 {
    held().iter().filter(|h| h.gpu == gpu).map(|h| h.bytes).sum()
}
