//! Sessions of `nvml-mock ctl`: changes made to a running mock from another process.
//!
//! A mock started with `NVML_MOCK_SESSION=NAME` joins session `NAME` at its first `nvmlInit`
//! and stays in it until the process exits; the first process to join a session that no
//! running process uses starts it afresh, with its profile. The session lives in files of a
//! runtime directory (`NVML_MOCK_RUNTIME_DIR`, else `$XDG_RUNTIME_DIR/nvml-mock`, else
//! `/tmp/nvml-mock-<uid>`):
//!
//! - `NAME.yaml`, the state: what `ctl` changed (values set, errors, lost GPUs) and the events
//!   it injected, written whole and renamed into place by each command;
//! - `NAME.shm`, 64-bit words every process maps: the generation, which each command bumps
//!   after it writes the state, so a mock looks at one number per call and reads the state
//!   only after a change; then the counters of the errors limited by `--times`;
//! - `NAME.users`, which each mock in the session holds a shared lock on (so `ctl` knows
//!   whether one runs), and `NAME.lock`, which each command holds while it reads, checks and
//!   writes the state (so two commands at once both take effect).
//!
//! A command is checked against the session's profile before anything is written: a change
//! the profile cannot take is an error that names the key, GPU, function or code, and leaves
//! the state as it was.
//!
//! The runtime directory is the caller's alone ([`crate::private`]): made 0700, or refused if
//! it is a link, another user's, or open to group or others; its files are never opened
//! through a link, and must be regular files of the caller's own. No lock is waited for longer
//! than [`LOCK_TIMEOUT`]: then `nvmlInit` answers `NVML_ERROR_UNKNOWN` and `ctl` fails, each
//! naming the file. A process killed while it holds a lock loses it (the kernel drops `flock`
//! locks with the process), and one killed while it writes the state leaves the old state
//! (the new one is renamed into place whole).

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_yaml::{Mapping, Value};

use crate::answer::{constant, function_id};
use crate::generated::names::CONSTANTS;
use crate::generated::tables::OBJECTS;
use crate::profile::{self, Overlay, Put};
use crate::schema::ObjectKind;

pub mod mig;

/// The variable that names a mock's session.
pub const ENV: &str = "NVML_MOCK_SESSION";
/// The variable that names the directory of the sessions' files.
pub const DIR_ENV: &str = "NVML_MOCK_RUNTIME_DIR";
/// The words of `NAME.shm`: the generation, then the counters of `error --times`.
const WORDS: usize = 512;
/// How many of the events a session injected its state keeps (a mock that falls further
/// behind misses the oldest).
const KEPT_EVENTS: usize = 1000;
/// The longest a process waits for a lock of a session's files before it gives up with an
/// error naming the file.
pub const LOCK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Keys that shape the MIG tree, which `set` does not change: the tree changes as on a GPU
/// (instances created and destroyed through NVML, the mode at `reset-gpu`; [`mig`]).
const MIG_TREE: &[&str] =
    &["mig.mode", "mig.gpu_instances", "mig.gpu_instance_profiles", "mig.compute_instance_profiles"];

/// The files of one session.
#[derive(Debug)]
pub struct Files {
    pub name: String,
    pub dir: PathBuf,
}

impl Files {
    /// The files of session `name` (letters, digits, `.`, `_` and `-`).
    pub fn of(name: &str) -> Result<Files, String> {
        let ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
        if name.is_empty() || name.len() > 64 || name.starts_with('.') || !name.chars().all(ok) {
            return Err(format!(
                "`{name}` is not a session name (1 to 64 letters, digits, `.`, `_` or `-`, not starting with `.`)"
            ));
        }
        let env = |v: &str| std::env::var_os(v).filter(|d| !d.is_empty()).map(PathBuf::from);
        let dir = env(DIR_ENV)
            .or_else(|| env("XDG_RUNTIME_DIR").map(|d| d.join("nvml-mock")))
            .unwrap_or_else(|| std::env::temp_dir().join(format!("nvml-mock-{}", crate::ffi::user_id())));
        Ok(Files { name: name.to_string(), dir })
    }

    fn path(&self, ext: &str) -> PathBuf {
        self.dir.join(format!("{}.{ext}", self.name))
    }

    /// Opens (creating it and its directory if need be) the session's file `NAME.ext`, in a
    /// runtime directory of the caller's own, never through a link.
    fn open(&self, ext: &str) -> Result<File, String> {
        crate::private::own_dir(&self.dir)?;
        crate::private::open_rw(&self.path(ext))
    }

    /// Whether a running process uses the session (holds `NAME.users`).
    pub fn in_use(&self) -> Result<bool, String> {
        crate::private::own_dir(&self.dir)?;
        let path = self.path("users");
        let Some(users) = crate::private::open_read(&path)? else { return Ok(false) };
        let free = crate::ffi::lock_file(&users, true, None).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(!free)
    }

    /// Checks the session's files that exist: each must be a regular file of the caller's own
    /// in a directory of the caller's own.
    fn check(&self) -> Result<(), String> {
        crate::private::own_dir(&self.dir)?;
        for ext in ["users", "shm", "lock", "yaml"] {
            crate::private::open_read(&self.path(ext))?;
        }
        Ok(())
    }

    /// Takes `file`'s lock (`NAME.ext`), waiting at most [`LOCK_TIMEOUT`].
    fn lock(&self, file: &File, ext: &str, exclusive: bool) -> Result<(), String> {
        let path = self.path(ext);
        match crate::ffi::lock_file(file, exclusive, Some(LOCK_TIMEOUT)) {
            Ok(true) => Ok(()),
            Ok(false) => Err(format!(
                "{}: another process has held its lock for {} s; giving up (a process stuck in nvml-mock?)",
                path.display(),
                LOCK_TIMEOUT.as_secs()
            )),
            Err(e) => Err(format!("{}: {e}", path.display())),
        }
    }

    /// Waits for and takes the lock of the commands (released when the file is dropped).
    fn writer(&self) -> Result<File, String> {
        let lock = self.open("lock")?;
        self.lock(&lock, "lock", true)?;
        Ok(lock)
    }
}

/// Whether two open files are one file (the same device and inode).
fn same_file(a: &File, b: &File) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (a.metadata(), b.metadata()) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// The words every process of a session maps (`NAME.shm`).
#[derive(Debug)]
pub struct Shared {
    words: &'static [AtomicU64],
}

impl Shared {
    pub fn open(files: &Files) -> Result<Shared, String> {
        let file = files.open("shm")?;
        let path = || files.path("shm").display().to_string();
        let len = file.metadata().map_err(|e| format!("{}: {e}", path()))?.len();
        if len < (WORDS * 8) as u64 {
            file.set_len((WORDS * 8) as u64).map_err(|e| format!("{}: {e}", path()))?;
        }
        let words = crate::ffi::map_words(&file, WORDS).map_err(|e| format!("{}: {e}", path()))?;
        Ok(Shared { words })
    }

    /// The session's generation: how many times its state was written.
    pub fn generation(&self) -> u64 {
        self.words[0].load(Ordering::Acquire)
    }

    /// Bumps the generation: the new one.
    fn bump(&self) -> u64 {
        self.words[0].fetch_add(1, Ordering::AcqRel) + 1
    }

    /// Counter `i` of the errors limited by `--times` (1 and up).
    pub fn counter(&self, i: usize) -> Option<&AtomicU64> {
        self.words.get(i).filter(|_| i > 0)
    }
}

/// What `ctl set` sets: a profile key, or a field value by the driver's field id.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Target {
    Key(String),
    Field(u32),
}

/// An error set by `ctl error`: the code, and how many calls answer it (all without `times`),
/// counted by the session's counter `counter`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorRule {
    pub code: u32,
    pub times: Option<u64>,
    pub counter: usize,
}

/// What `ctl` changed in the session's GPUs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Changes {
    /// Values set, by GPU.
    pub set: BTreeMap<usize, BTreeMap<Target, Value>>,
    /// Errors, by GPU and function.
    pub errors: BTreeMap<(usize, String), ErrorRule>,
    /// GPUs fallen off the bus.
    pub lost: BTreeSet<usize>,
}

impl Changes {
    /// The values set, as put over the profile's devices.
    pub fn overlay(&self) -> Overlay {
        self.set
            .iter()
            .map(|(gpu, values)| {
                let puts = values
                    .iter()
                    .map(|(t, v)| match t {
                        Target::Key(k) => Put::Key(k.clone(), v.clone()),
                        Target::Field(id) => Put::Field(*id, v.clone()),
                    })
                    .collect();
                (*gpu, puts)
            })
            .collect()
    }
}

/// An event `ctl event` injected, numbered in the session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub seq: u64,
    pub gpu: usize,
    pub event_type: u64,
    pub data: u64,
}

/// A session's state (`NAME.yaml`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct State {
    pub name: String,
    /// The profile of the process that started the session (`NVML_MOCK_PROFILE`'s syntax),
    /// which the commands are checked against.
    pub profile: String,
    pub changes: Changes,
    /// The last events injected, oldest first.
    pub events: Vec<Event>,
    /// The number of the last event injected.
    pub last_event: u64,
    /// The MIG trees the session's processes (or `ctl reset-gpu`) changed, by GPU; a GPU
    /// without one has the tree its profile declares ([`mig`]).
    pub mig: BTreeMap<usize, mig::Gpu>,
}

fn int(v: &Value, path: &str) -> Result<u64, String> {
    v.as_u64().ok_or_else(|| format!("{path}: expected a number"))
}

impl State {
    /// Reads the state of a session (a session without one has none of its own yet).
    pub fn read(files: &Files) -> Result<State, String> {
        use std::io::Read;
        let path = files.path("yaml");
        let mut text = String::new();
        if let Some(mut file) = crate::private::open_read(&path)? {
            file.read_to_string(&mut text).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        State::parse(&files.name, &text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The state of session `name` in the text of its file.
    pub(crate) fn parse(name: &str, text: &str) -> Result<State, String> {
        let mut s = State { name: name.to_string(), ..State::default() };
        let root: Value = serde_yaml::from_str(text).map_err(|e| e.to_string())?;
        if root.is_null() {
            return Ok(s);
        }
        let get = |k: &str| root.get(k).filter(|v| !v.is_null());
        s.profile = get("profile").and_then(Value::as_str).unwrap_or_default().to_string();
        s.last_event = get("last_event").map(|v| int(v, "last_event")).transpose()?.unwrap_or(0);
        for (gpu, values) in get("set").and_then(Value::as_mapping).into_iter().flatten() {
            let gpu = int(gpu, "set")? as usize;
            let values = values.as_mapping().ok_or_else(|| format!("set.{gpu}: expected a mapping"))?;
            let mut out = BTreeMap::new();
            for (k, v) in values {
                let target = match k {
                    Value::Number(n) => Target::Field(n.as_u64().unwrap_or_default() as u32),
                    _ => Target::Key(k.as_str().unwrap_or_default().to_string()),
                };
                out.insert(target, v.clone());
            }
            s.changes.set.insert(gpu, out);
        }
        for (i, e) in get("errors").and_then(Value::as_sequence).into_iter().flatten().enumerate() {
            let path = format!("errors[{i}]");
            let field = |k: &str| e.get(k).map(|v| int(v, &format!("{path}.{k}"))).transpose();
            let function = e.get("function").and_then(Value::as_str).unwrap_or_default().to_string();
            let rule = ErrorRule {
                code: field("code")?.unwrap_or(0) as u32,
                times: field("times")?,
                counter: field("counter")?.unwrap_or(0) as usize,
            };
            s.changes.errors.insert((field("gpu")?.unwrap_or(0) as usize, function), rule);
        }
        for g in get("lost").and_then(Value::as_sequence).into_iter().flatten() {
            s.changes.lost.insert(int(g, "lost")? as usize);
        }
        for (gpu, tree) in get("mig").and_then(Value::as_mapping).into_iter().flatten() {
            let gpu = int(gpu, "mig")? as usize;
            s.mig.insert(gpu, mig::Gpu::from_value(tree, &format!("mig.{gpu}"))?);
        }
        for (i, e) in get("events").and_then(Value::as_sequence).into_iter().flatten().enumerate() {
            let field = |k: &str| e.get(k).map_or(Ok(0), |v| int(v, &format!("events[{i}].{k}")));
            s.events.push(Event {
                seq: field("seq")?,
                gpu: field("gpu")? as usize,
                event_type: field("type")?,
                data: field("data")?,
            });
        }
        Ok(s)
    }

    /// The text of the state's file.
    pub(crate) fn to_yaml(&self) -> String {
        let map = |pairs: Vec<(&str, Value)>| {
            Value::Mapping(pairs.into_iter().map(|(k, v)| (Value::from(k), v)).collect::<Mapping>())
        };
        let set: Mapping = (self.changes.set.iter())
            .map(|(gpu, values)| {
                let values: Mapping = (values.iter())
                    .map(|(t, v)| match t {
                        Target::Key(k) => (Value::from(k.as_str()), v.clone()),
                        Target::Field(id) => (Value::from(*id), v.clone()),
                    })
                    .collect();
                (Value::from(*gpu as u64), Value::Mapping(values))
            })
            .collect();
        let errors = (self.changes.errors.iter())
            .map(|((gpu, function), r)| {
                let mut pairs = vec![
                    ("gpu", Value::from(*gpu as u64)),
                    ("function", Value::from(function.as_str())),
                    ("code", Value::from(r.code)),
                ];
                if let Some(t) = r.times {
                    pairs.push(("times", Value::from(t)));
                    pairs.push(("counter", Value::from(r.counter as u64)));
                }
                map(pairs)
            })
            .collect();
        let events = (self.events.iter())
            .map(|e| {
                map(vec![
                    ("seq", Value::from(e.seq)),
                    ("gpu", Value::from(e.gpu as u64)),
                    ("type", Value::from(e.event_type)),
                    ("data", Value::from(e.data)),
                ])
            })
            .collect();
        let root = map(vec![
            ("profile", Value::from(self.profile.as_str())),
            ("set", Value::Mapping(set)),
            ("errors", Value::Sequence(errors)),
            ("lost", Value::Sequence(self.changes.lost.iter().map(|g| Value::from(*g as u64)).collect())),
            ("events", Value::Sequence(events)),
            ("last_event", Value::from(self.last_event)),
            ("mig", Value::Mapping(self.mig.iter().map(|(g, t)| (Value::from(*g as u64), t.to_value())).collect())),
        ]);
        let body = serde_yaml::to_string(&root).unwrap_or_default();
        format!("# The state of nvml-mock session `{}`, written by `nvml-mock ctl`.\n{body}", self.name)
    }

    /// Writes the state whole, renamed into place (a reader sees the old state or the new).
    fn write(&self, files: &Files) -> Result<(), String> {
        let path = files.path("yaml");
        // What is there must be the session's own state (or nothing), as for a read.
        crate::private::open_read(&path)?;
        crate::private::replace(&path, self.to_yaml().as_bytes(), 0o600)
    }

    /// The session's profile, loaded with `changes` over it.
    fn profile_with(&self, changes: &Changes) -> Result<profile::Profile, String> {
        let (origin, text) = profile::source(&self.profile)?;
        profile::parse_with(&text, &origin, &changes.overlay())
    }

    /// Whether the session's profile loads with `changes` over it, and its number of GPUs
    /// ([`profile::check_with`]: of a built-in profile, only the GPUs changed are made).
    fn check_with(&self, changes: &Changes) -> Result<usize, String> {
        let (origin, text) = profile::source(&self.profile)?;
        profile::check_with(&text, &origin, &changes.overlay())
    }

    /// A description of the state, for `ctl show` (with the counters of `--times` in `shared`).
    pub(crate) fn show(&self, files: &Files, in_use: bool, shared: Option<&Shared>) -> String {
        let mut out = vec![
            format!(
                "session `{}` ({}): {}",
                self.name,
                files.dir.display(),
                if in_use { "in use" } else { "not in use" }
            ),
            format!("profile: {}", if self.profile.is_empty() { "(none yet)" } else { &self.profile }),
        ];
        for (gpu, values) in &self.changes.set {
            for (t, v) in values {
                let v = serde_yaml::to_string(v).unwrap_or_default();
                match t {
                    Target::Key(k) => out.push(format!("GPU {gpu}: set {k} {}", v.trim_end())),
                    Target::Field(id) => out.push(format!("GPU {gpu}: set field {id} {}", v.trim_end())),
                }
            }
        }
        for ((gpu, function), r) in &self.changes.errors {
            let times = match (r.times, shared.and_then(|s| s.counter(r.counter))) {
                (Some(t), Some(c)) => format!(" ({} of {t} calls left)", t.saturating_sub(c.load(Ordering::Relaxed))),
                (Some(t), None) => format!(" (--times {t})"),
                (None, _) => String::new(),
            };
            out.push(format!("GPU {gpu}: error {function} {}{times}", any_code_name(function, r.code)));
        }
        for gpu in &self.changes.lost {
            out.push(format!("GPU {gpu}: lost"));
        }
        for e in &self.events {
            out.push(format!("GPU {}: event #{} {}", e.gpu, e.seq, event_name(e.event_type, e.data)));
        }
        if out.len() == 2 {
            out.push("no changes".to_string());
        }
        out.extend(self.show_mig());
        out.join("\n")
    }

    /// The MIG tree of every MIG-capable GPU, as the session's processes see it (the profile's
    /// names; without a profile that loads, the trees the state holds).
    fn show_mig(&self) -> Vec<String> {
        let Ok(p) = self.profile_with(&Changes::default()) else {
            return self.mig.iter().flat_map(|(gpu, t)| t.show(*gpu, &mig::Table::default())).collect();
        };
        let mut out = Vec::new();
        for (gpu, spec) in p.devices.iter().enumerate() {
            let table = mig::Table::of(spec);
            let tree = self.mig.get(&gpu).cloned().or_else(|| mig::Gpu::declared(spec, &table));
            if let Some(t) = tree {
                out.extend(t.show(gpu, &table));
            }
        }
        out
    }

    /// The MIG tree of `gpu` now: the state's, else as the session's profile declares it;
    /// `None` for a GPU without MIG.
    fn mig_tree(&self, gpu: usize) -> Result<Option<mig::Gpu>, String> {
        if let Some(t) = self.mig.get(&gpu) {
            return Ok(Some(t.clone()));
        }
        let p = self.profile_with(&Changes::default())?;
        Ok(p.devices.get(gpu).and_then(|spec| mig::Gpu::declared(spec, &mig::Table::of(spec))))
    }

    /// Applies `cmd`, checked against the session's profile; on error the state is as it was.
    /// Returns what changed, in words. Nothing outside the state changes until [`State::arm`].
    pub(crate) fn apply(&mut self, cmd: &Command) -> Result<String, String> {
        let gpus = || self.check_with(&Changes::default());
        let check_gpu = |gpu: usize| -> Result<(), String> {
            let n = gpus()?;
            if gpu >= n {
                return Err(format!("GPU {gpu} does not exist: session `{}` has GPUs 0 to {}", self.name, n - 1));
            }
            Ok(())
        };
        match cmd {
            Command::Show => Ok(String::new()),
            Command::Set { gpu, key, value } => {
                let parsed: Value = serde_yaml::from_str(value)
                    .map_err(|e| format!("set {gpu} {key}: `{value}` is not a YAML value: {e}"))?;
                if MIG_TREE.contains(&key.as_str()) {
                    return Err(format!(
                        "set {gpu} {key}: `{key}` shapes the MIG tree: give it in a profile, or change the tree as on a GPU (NVML's create and destroy functions, nvmlDeviceSetMigMode, then `reset-gpu {gpu}`)"
                    ));
                }
                let target = self.target(key).map_err(|e| format!("set {gpu} {key}: {e}"))?;
                let mut changes = self.changes.clone();
                changes.set.entry(*gpu).or_default().insert(target.clone(), parsed);
                self.check_with(&changes).map_err(|e| format!("set {gpu} {key} {value}: {e}"))?;
                self.changes = changes;
                Ok(match target {
                    Target::Field(id) => format!("GPU {gpu}: field {id} ({key}) is {value}"),
                    Target::Key(_) => format!("GPU {gpu}: {key} is {value}"),
                })
            }
            Command::Error { gpu, function, code, times } => {
                check_gpu(*gpu)?;
                let value = if is_cuda_function(function) {
                    cuda_code_value(code).ok_or_else(|| {
                        format!("error {gpu} {function} {code}: `{code}` is not a CUDA error code (CUDA_ERROR_OUT_OF_MEMORY, 2, ...)")
                    })?
                } else {
                    let id = function_id(function).ok_or_else(|| {
                        format!("error {gpu} {function}: `{function}` is not a function of nvml.h or cuda.h")
                    })?;
                    if OBJECTS[id] != ObjectKind::Device {
                        return Err(format!("error {gpu} {function}: `{function}` is not called on a GPU (its first parameter is not an nvmlDevice_t)"));
                    }
                    code_value(code).ok_or_else(|| {
                        format!("error {gpu} {function} {code}: `{code}` is not an NVML error code (NVML_ERROR_GPU_IS_LOST, 15, ...)")
                    })?
                };
                if *times == Some(0) {
                    return Err(format!("error {gpu} {function} {code}: --times must be at least 1"));
                }
                let counter = match times {
                    None => 0,
                    Some(_) => {
                        let used: BTreeSet<usize> = self.changes.errors.values().map(|r| r.counter).collect();
                        let free = (1..WORDS).find(|c| !used.contains(c));
                        free.ok_or_else(|| format!("error {gpu} {function}: the session holds {} errors with --times already; `reset` frees them", WORDS - 1))?
                    }
                };
                self.changes.errors.insert((*gpu, function.clone()), ErrorRule { code: value, times: *times, counter });
                let times = times.map(|t| format!(" for {t} calls")).unwrap_or_default();
                Ok(format!("GPU {gpu}: {function} answers {}{times}", any_code_name(function, value)))
            }
            Command::Event { gpu, event_type, data } => {
                check_gpu(*gpu)?;
                self.last_event += 1;
                self.events.push(Event { seq: self.last_event, gpu: *gpu, event_type: *event_type, data: *data });
                let extra = self.events.len().saturating_sub(KEPT_EVENTS);
                self.events.drain(..extra);
                Ok(format!("GPU {gpu}: event {} queued", event_name(*event_type, *data)))
            }
            Command::Lost { gpu } => {
                check_gpu(*gpu)?;
                self.changes.lost.insert(*gpu);
                Ok(format!("GPU {gpu}: lost (every call on it answers NVML_ERROR_GPU_IS_LOST)"))
            }
            Command::Reset { gpu: Some(gpu) } => {
                check_gpu(*gpu)?;
                self.changes.set.remove(gpu);
                self.changes.errors.retain(|(g, _), _| g != gpu);
                self.changes.lost.remove(gpu);
                Ok(format!("GPU {gpu}: as its profile says again"))
            }
            Command::Reset { gpu: None } => {
                self.changes = Changes::default();
                Ok("every GPU as its profile says again".to_string())
            }
            Command::ResetGpu { gpu } => {
                check_gpu(*gpu)?;
                let Some(mut tree) = self.mig_tree(*gpu)? else {
                    return Ok(format!("GPU {gpu}: reset (it has no MIG mode)"));
                };
                let gone = tree.gis.len();
                tree.reset();
                let on = if tree.mode { "on" } else { "off" };
                self.mig.insert(*gpu, tree);
                Ok(format!("GPU {gpu}: reset: MIG {on}, {gone} GPU instances destroyed"))
            }
        }
    }

    /// Arms what `cmd`, applied, needs beside the state: the counter of an `error --times`
    /// starts from 0.
    pub(crate) fn arm(&self, cmd: &Command, shared: &Shared) {
        if let Command::Error { gpu, function, times: Some(_), .. } = cmd {
            let rule = self.changes.errors.get(&(*gpu, function.clone()));
            if let Some(counter) = rule.and_then(|r| shared.counter(r.counter)) {
                counter.store(0, Ordering::Release);
            }
        }
    }

    /// What `key` of `ctl set` names: a field id (a number, or an `NVML_FI_*` name, read in
    /// the numbering of the profile's driver), else a profile key.
    fn target(&self, key: &str) -> Result<Target, String> {
        if let Ok(id) = key.parse::<u32>() {
            return Ok(Target::Field(id));
        }
        if key.starts_with("NVML_FI_") {
            let id = constant(key).and_then(|v| u32::try_from(v).ok());
            let id = id.ok_or_else(|| format!("`{key}` is not a field id of nvml.h"))?;
            let (origin, text) = profile::source(&self.profile)?;
            let numbering = profile::field_numbering(&text, &origin)?;
            let id = numbering.to_driver(id).ok_or_else(|| format!("the profile's driver has no field `{key}`"))?;
            return Ok(Target::Field(id));
        }
        Ok(Target::Key(key.to_string()))
    }
}

/// The name of a return code (its number where the header names none).
fn code_name(code: u32) -> String {
    CONSTANTS
        .iter()
        .find(|(n, v)| *v == i128::from(code) && n.starts_with("NVML_ERROR_"))
        .map(|(n, _)| (*n).to_string())
        .unwrap_or_else(|| code.to_string())
}

/// Whether `function` is one of `cuda.h`'s (the CUDA mock's, [`crate::cuda`]).
fn is_cuda_function(function: &str) -> bool {
    crate::generated::cuda::names::FUNCTIONS.binary_search(&function).is_ok()
}

/// A CUDA error code by name or number: one of `cuda.h`'s `CUresult` codes but success.
fn cuda_code_value(text: &str) -> Option<u32> {
    let results = crate::generated::cuda::names::RESULTS;
    let v = match text.parse::<u32>() {
        Ok(v) => v,
        Err(_) => results.iter().find(|(_, n, _)| *n == text)?.0,
    };
    (v != 0 && results.iter().any(|(c, _, _)| *c == v)).then_some(v)
}

/// The name of `code` as `function`'s API names it.
fn any_code_name(function: &str, code: u32) -> String {
    if !is_cuda_function(function) {
        return code_name(code);
    }
    let results = crate::generated::cuda::names::RESULTS;
    results.iter().find(|(c, _, _)| *c == code).map_or_else(|| code.to_string(), |(_, n, _)| (*n).to_string())
}

/// An error code by name or number: one of the header's `NVML_ERROR_*` codes.
fn code_value(text: &str) -> Option<u32> {
    let v = match text.parse::<i128>() {
        Ok(v) => v,
        Err(_) if text.starts_with("NVML_ERROR_") => constant(text)?,
        Err(_) => return None,
    };
    let known = CONSTANTS.iter().any(|(n, c)| *c == v && n.starts_with("NVML_ERROR_"));
    known.then(|| u32::try_from(v).ok()).flatten()
}

/// The event types `ctl event` injects: `(word, nvmlEventType*, whether it takes data)`.
const EVENT_KINDS: &[(&str, &str, bool)] = &[
    ("xid", "nvmlEventTypeXidCriticalError", true),
    ("ecc-dbe", "nvmlEventTypeDoubleBitEccError", false),
    ("ecc-sbe", "nvmlEventTypeSingleBitEccError", false),
];

fn event_name(event_type: u64, data: u64) -> String {
    match EVENT_KINDS.iter().find(|(_, c, _)| constant(c) == Some(i128::from(event_type))) {
        Some((word, _, true)) => format!("{word} {data}"),
        Some((word, _, false)) => word.to_string(),
        None => format!("type {event_type:#x} data {data}"),
    }
}

/// A command of `nvml-mock ctl`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Set {
        gpu: usize,
        key: String,
        value: String,
    },
    Error {
        gpu: usize,
        function: String,
        code: String,
        times: Option<u64>,
    },
    Event {
        gpu: usize,
        event_type: u64,
        data: u64,
    },
    Lost {
        gpu: usize,
    },
    Reset {
        gpu: Option<usize>,
    },
    /// A GPU reset: its pending MIG mode becomes current and its MIG instances are destroyed.
    ResetGpu {
        gpu: usize,
    },
    Show,
}

/// How `nvml-mock ctl` is used.
pub const USAGE: &str = "nvml-mock ctl [--session NAME] COMMAND
      Changes a running mock: the processes that run it with NVML_MOCK_SESSION=NAME (the session
      is NAME, else $NVML_MOCK_SESSION) see the change at their next call. Commands:
        set GPU KEY VALUE      a profile key (temperature.gpu 92), a function's value
                               (nvmlDeviceGetPowerUsage 350000) or a field value by id
                               (141 5, NVML_FI_DEV_ECC_DBE_VOL_TOTAL 5)
        error GPU FUNCTION CODE [--times N]
                               FUNCTION answers CODE on GPU (N calls, counted across processes);
                               a CUDA function (cuMemAlloc_v2 CUDA_ERROR_OUT_OF_MEMORY) too
        event GPU xid N | event GPU ecc-dbe | event GPU ecc-sbe
                               queued for the event sets registered for it
        lost GPU               the GPU has fallen off the bus: NVML_ERROR_GPU_IS_LOST from then on
        reset [GPU]            undoes the changes (of GPU, or all)
        reset-gpu GPU          resets the GPU: its pending MIG mode becomes current, its MIG
                               instances are destroyed
        show                   the session's changes and MIG trees";

fn gpu_arg(s: &str) -> Result<usize, String> {
    s.parse().map_err(|_| format!("`{s}` is not a GPU index (0, 1, ...)"))
}

impl Command {
    /// The command in `args` (after the session).
    pub fn parse(args: &[String]) -> Result<Command, String> {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let bad = |what: &str| format!("{what}\nusage: {USAGE}");
        Ok(match a.as_slice() {
            ["set", gpu, key, value] => {
                Command::Set { gpu: gpu_arg(gpu)?, key: key.to_string(), value: value.to_string() }
            }
            ["error", gpu, function, code, rest @ ..] => {
                let times = match rest {
                    [] => None,
                    ["--times", n] => {
                        Some(n.parse().map_err(|_| format!("--times `{n}`: expected a number of calls"))?)
                    }
                    _ => return Err(bad(&format!("error: unexpected `{}`", rest.join(" ")))),
                };
                Command::Error { gpu: gpu_arg(gpu)?, function: function.to_string(), code: code.to_string(), times }
            }
            ["event", gpu, kind, rest @ ..] => {
                let gpu = gpu_arg(gpu)?;
                let known = || EVENT_KINDS.iter().map(|(w, _, _)| *w).collect::<Vec<_>>().join(", ");
                let (_, constant_name, takes_data) =
                    EVENT_KINDS.iter().find(|(w, _, _)| w == kind).ok_or_else(|| {
                        format!("event {gpu} {kind}: `{kind}` is not an event this command injects ({})", known())
                    })?;
                let data = match (rest, takes_data) {
                    ([n], true) => n.parse().map_err(|_| format!("event {gpu} {kind} {n}: `{n}` is not a number"))?,
                    ([], false) => 0,
                    ([], true) => {
                        return Err(format!("event {gpu} {kind}: give the {kind} number (event {gpu} {kind} 79)"))
                    }
                    _ => return Err(format!("event {gpu} {kind}: unexpected `{}`", rest.join(" "))),
                };
                let event_type = constant(constant_name).unwrap_or_default() as u64;
                Command::Event { gpu, event_type, data }
            }
            ["lost", gpu] => Command::Lost { gpu: gpu_arg(gpu)? },
            ["reset"] => Command::Reset { gpu: None },
            ["reset", gpu] => Command::Reset { gpu: Some(gpu_arg(gpu)?) },
            ["reset-gpu", gpu] => Command::ResetGpu { gpu: gpu_arg(gpu)? },
            ["show"] => Command::Show,
            [] => return Err(bad("no command")),
            [cmd, ..] if ["set", "error", "event", "lost", "reset", "reset-gpu", "show"].contains(cmd) => {
                return Err(bad(&format!("`{}`: wrong arguments for `{cmd}`", a.join(" "))))
            }
            [cmd, ..] => return Err(bad(&format!("unknown command `{cmd}`"))),
        })
    }
}

/// The session and the command of `nvml-mock ctl ARGS`.
pub(crate) fn parse_args(args: &[String]) -> Result<(Files, Command), String> {
    let (name, rest) = match args {
        [flag, name, rest @ ..] if flag == "--session" => (name.clone(), rest),
        _ => match std::env::var(ENV).ok().filter(|s| !s.is_empty()) {
            Some(name) => (name, args),
            None => return Err(format!("no session: give --session NAME or set {ENV}\nusage: {USAGE}")),
        },
    };
    let cmd = Command::parse(rest)?;
    Ok((Files::of(&name)?, cmd))
}

/// `nvml-mock ctl ARGS`: runs one command on a session; the text to print, or the error.
pub fn ctl(args: &[String]) -> Result<String, String> {
    let (files, cmd) = parse_args(args)?;
    let name = &files.name;
    files.check()?;
    let in_use = files.in_use()?;
    if cmd == Command::Show {
        return Ok(State::read(&files)?.show(&files, in_use, Shared::open(&files).ok().as_ref()));
    }
    if !in_use {
        return Err(format!(
            "session `{name}` is not in use: no running process has the mock initialised with {ENV}={name} (sessions are in {})",
            files.dir.display()
        ));
    }
    // The command is checked (the costly part: the profile is loaded with the changes) on the
    // state as read without a lock, and written under the lock only if no other command wrote
    // one meanwhile; else checked again on that one. So the lock is held for a read and a
    // write, however many commands run at once, and each retry follows another's success.
    let shared = Shared::open(&files)?;
    for _ in 0..RETRIES {
        let base = State::read(&files)?;
        let mut state = base.clone();
        let done = state.apply(&cmd)?;
        let _lock = files.writer()?;
        if State::read(&files)? != base {
            continue;
        }
        state.arm(&cmd, &shared);
        state.write(&files)?;
        shared.bump();
        return Ok(done);
    }
    Err(format!("session `{name}`: {RETRIES} other commands took effect while this one was checked; try again"))
}

/// How many times `ctl` checks a command again after another command changed the state.
const RETRIES: usize = 1000;

/// A mock's membership of a session: the shared lock on `NAME.users` lasts as long as this.
#[derive(Debug)]
pub struct Member {
    pub files: Files,
    pub shared: Shared,
    _users: File,
}

/// Joins session `name` with the profile `profile` (`NVML_MOCK_PROFILE`'s syntax): the first
/// process of a session that no running process uses starts it afresh. A warning (to print)
/// comes with the membership when the session runs another profile.
pub fn join(name: &str, profile: &str) -> Result<(Member, Option<String>), String> {
    let files = Files::of(name).map_err(|e| format!("{ENV}: {e}"))?;
    let users = files.open("users")?;
    let shared = Shared::open(&files)?;
    let spec = profile_spec(profile);
    let mut warning = None;
    let first =
        crate::ffi::lock_file(&users, true, None).map_err(|e| format!("{}: {e}", files.path("users").display()))?;
    if first {
        let lock = files.open("lock")?;
        if same_file(&users, &lock) {
            return Err(format!(
                "{} and {} are one file; refusing to use them",
                files.path("users").display(),
                files.path("lock").display()
            ));
        }
        files.lock(&lock, "lock", true)?;
        State { name: name.to_string(), profile: spec, ..State::default() }.write(&files)?;
        shared.bump();
    } else {
        let state = State::read(&files)?;
        if state.profile != spec {
            warning = Some(format!(
                "session `{name}` runs profile `{}` and this process `{spec}`: `nvml-mock ctl` checks its changes against `{}`",
                state.profile, state.profile
            ));
        }
    }
    // Takes the shared lock (from the exclusive one, for the first process).
    files.lock(&users, "users", false)?;
    Ok((Member { files, shared, _users: users }, warning))
}

/// A profile named as `ctl` will load it from another directory: a built-in by its name, a
/// file by its absolute path.
fn profile_spec(spec: &str) -> String {
    let builtin = profile::BUILTIN.iter().find(|(n, _)| n.eq_ignore_ascii_case(spec)).map(|(n, _)| n.to_string());
    match builtin {
        Some(n) => n,
        None if spec.is_empty() => profile::DEFAULT.to_string(),
        None => std::fs::canonicalize(spec).map(|p| p.display().to_string()).unwrap_or_else(|_| spec.to_string()),
    }
}

impl Member {
    /// The session's state now, with the generation it was read at.
    pub fn state(&self) -> Result<(u64, State), String> {
        let generation = self.shared.generation();
        Ok((generation, State::read(&self.files)?))
    }

    /// Changes the MIG tree of `gpu` under the session's lock (a mock's create, destroy or
    /// mode change): `f` runs on the state's tree, else on `declared` (the tree the GPU's
    /// profile declares), and what it changed is written and the generation bumped, so every
    /// process of the session sees it at its next call; with what `f` returned come the state
    /// written and its generation. The outer error is the session's (a file, a lock), the
    /// inner one `f`'s (`NOT_SUPPORTED` for a GPU without MIG).
    pub fn change_mig<T>(
        &self,
        gpu: usize,
        declared: impl FnOnce() -> Option<mig::Gpu>,
        f: impl FnOnce(&mut mig::Gpu) -> Result<T, mig::Code>,
    ) -> Result<Result<(T, u64, State), mig::Code>, String> {
        let _lock = self.files.writer()?;
        let mut state = State::read(&self.files)?;
        let Some(mut tree) = state.mig.get(&gpu).cloned().or_else(declared) else {
            return Ok(Err(nvml_sys::NVML_ERROR_NOT_SUPPORTED));
        };
        let done = match f(&mut tree) {
            Ok(done) => done,
            Err(code) => return Ok(Err(code)),
        };
        state.mig.insert(gpu, tree);
        state.write(&self.files)?;
        let generation = self.shared.bump();
        Ok(Ok((done, generation, state)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_state_reads_back_as_written() {
        let mut s = State { name: "t".into(), profile: "h100".into(), last_event: 2, ..State::default() };
        s.changes.set.entry(3).or_default().insert(Target::Key("temperature.gpu".into()), Value::from(92));
        s.changes.set.entry(3).or_default().insert(Target::Field(141), Value::from(5));
        s.changes.errors.insert((1, "nvmlDeviceGetName".into()), ErrorRule { code: 15, times: Some(2), counter: 1 });
        s.changes.lost.insert(4);
        s.events.push(Event { seq: 2, gpu: 3, event_type: 8, data: 79 });
        assert_eq!(State::parse("t", &s.to_yaml()).unwrap(), s);
        assert_eq!(State::parse("t", "").unwrap(), State { name: "t".into(), ..State::default() });
    }

    #[test]
    fn commands_parse_and_bad_ones_say_why() {
        let args = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
        assert_eq!(
            Command::parse(&args("error 2 nvmlDeviceGetName NVML_ERROR_UNKNOWN --times 3")).unwrap(),
            Command::Error {
                gpu: 2,
                function: "nvmlDeviceGetName".into(),
                code: "NVML_ERROR_UNKNOWN".into(),
                times: Some(3)
            }
        );
        assert_eq!(
            Command::parse(&args("event 3 xid 79")).unwrap(),
            Command::Event { gpu: 3, event_type: 8, data: 79 }
        );
        for (bad, says) in [
            ("set x temperature.gpu 1", "`x` is not a GPU index"),
            ("event 0 xid", "give the xid number"),
            ("event 0 boom", "`boom` is not an event"),
            ("error 0 nvmlDeviceGetName 3 --times many", "--times `many`"),
            ("frobnicate", "unknown command `frobnicate`"),
            ("lost", "wrong arguments for `lost`"),
        ] {
            let e = Command::parse(&args(bad)).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
        assert_eq!(code_value("NVML_ERROR_GPU_IS_LOST"), Some(15));
        assert_eq!(code_value("15"), Some(15));
        assert_eq!(code_value("NVML_SUCCESS"), None);
        assert_eq!(code_value("12345"), None);
    }

    #[test]
    fn session_names_are_checked() {
        for bad in ["", "../x", ".hidden", "a b", "x/y"] {
            assert!(Files::of(bad).unwrap_err().contains("is not a session name"), "{bad}");
        }
        assert!(Files::of("ci-job_1.2").is_ok());
    }
}
