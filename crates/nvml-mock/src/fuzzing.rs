//! The entry points the workspace's fuzz targets drive (`fuzz/` in the repository): every
//! parser of what a user hands the mock, called as the mock calls it. Only with the `fuzzing`
//! feature, and not part of the crate's API.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

use crate::{driver, engine, profile, session};

/// Loads a profile from its text as `NVML_MOCK_PROFILE` would load a file of that text
/// (`origin` names it, and relative bases are read beside it), then builds the system it
/// describes, as `nvmlInit` does; the device count, or the error that `nvmlInit` prints.
pub fn profile(text: &str, origin: &str) -> Result<usize, String> {
    let p = profile::parse(text, origin)?;
    let devices = p.devices.len();
    engine::System::new(&engine::resolve::Resolved::new(p, None), None, None, &Default::default())?;
    Ok(devices)
}

/// `NVML_MOCK_FAULTS`: the number of faults, or the error `nvmlInit` prints.
pub fn faults(text: &str) -> Result<usize, String> {
    profile::parse_faults(text).map(|f| f.len())
}

/// `NVML_MOCK_LIVE_PIDS`: the pids mapped one by one (`None`: none asked; empty: the caller and
/// its ancestors), or the error `nvmlInit` prints.
pub fn live_pids(text: &str) -> Result<Option<Vec<(u32, u32)>>, String> {
    Ok(engine::processes::parse_live_pids(text)?.map(|m| m.into_iter().collect()))
}

/// `NVML_MOCK_CLOCK`: the moment the clock stands still at, or the error `nvmlInit` prints.
pub fn clock(text: &str) -> Result<Option<u64>, String> {
    engine::parse_clock(text)
}

/// `NVML_MOCK_HOSTILE`: the seed the text names.
pub fn hostile_seed(text: &str) -> u64 {
    engine::hostile::seed(text)
}

/// A driver version as a profile's `system.driver_version` or `cargo xtask mock-lib
/// --driver` gives it: the version as the mock reads it, and whether its branch is one the
/// history knows.
pub fn driver_version(text: &str) -> Result<(String, bool), String> {
    let v = driver::Version::parse(text)?;
    Ok((v.to_string(), driver::known(text).is_ok()))
}

/// The words of a profile: its keys (top level, device and system keys with their dotted
/// paths split, old keys), the built-in profiles and bases, the functions a profile may name
/// with their outputs, selectors and record fields, and the header's constants; sorted, each
/// once.
pub fn profile_words() -> Vec<String> {
    use crate::generated::names::CONSTANTS;
    use crate::generated::tables::{FUNCTIONS, HAND_WRITTEN, RECORDS};
    let mut words = std::collections::BTreeSet::new();
    let keys = profile::DEVICE_KEYS.iter().chain(profile::SYSTEM_KEYS).map(|(k, _)| *k);
    let renamed = profile::RENAMED.iter().map(|(old, _)| *old);
    for k in keys.chain(renamed).chain(profile::TOP_KEYS.iter().copied()) {
        words.insert(k.to_string());
        words.extend(k.split('.').map(String::from));
    }
    words.extend(profile::BUILTIN.iter().chain(profile::BASES).map(|(n, _)| n.to_string()));
    for f in FUNCTIONS.iter().flat_map(|area| area.iter()) {
        words.insert(f.name.to_string());
        words.extend(f.outputs.iter().map(|o| o.name.to_string()));
        words.extend(f.selectors.iter().map(|s| s.name.to_string()));
    }
    words.extend(HAND_WRITTEN.iter().map(|(f, _)| f.to_string()));
    for r in RECORDS.iter().flat_map(|area| area.iter()) {
        words.extend(r.fields.iter().map(|f| f.name.to_string()));
    }
    words.extend(CONSTANTS.iter().map(|(c, _)| c.to_string()));
    words.extend(
        ["error", "reason", "id", "pid", "used_memory", "device", "type", "data", "gpu_id", "*"].map(String::from),
    );
    words.into_iter().collect()
}

/// A session of `nvml-mock ctl` held in memory: each command is read as `ctl` reads its
/// arguments and applied to the state as `ctl` applies it, checked against the session's
/// profile, but the state is never written and no process need use the session. The counters
/// of `error --times` are the words of a file in the directory [`Ctl::new`] is first given.
#[derive(Debug)]
pub struct Ctl {
    state: session::State,
}

/// The words of the fuzzing sessions (mapped once: a mapping lives as long as the process).
static WORDS: OnceLock<Result<session::Shared, String>> = OnceLock::new();

fn words() -> Result<&'static session::Shared, String> {
    WORDS.get().ok_or("no session words yet")?.as_ref().map_err(Clone::clone)
}

thread_local! {
    /// The system a mock makes of each profile at `nvmlInit`, by profile.
    static SYSTEMS: RefCell<BTreeMap<String, engine::System>> = RefCell::default();
}

impl Ctl {
    /// A session, as the first process to join it starts it, that runs `profile`
    /// (`NVML_MOCK_PROFILE`'s syntax).
    pub fn new(profile: &str, dir: &Path) -> Result<Ctl, String> {
        let files = session::Files { name: "fuzz".to_string(), dir: dir.to_path_buf() };
        WORDS.get_or_init(|| session::Shared::open(&files));
        words()?;
        Ok(Ctl { state: session::State { name: files.name, profile: profile.to_string(), ..Default::default() } })
    }

    /// The session's state.
    pub fn state(&self) -> &session::State {
        &self.state
    }

    /// `nvml-mock ctl ARGS` on this session (whatever session ARGS name): what it prints, or
    /// the error (the state then as it was).
    pub fn run(&mut self, args: &[String]) -> Result<String, String> {
        let (files, cmd) = session::parse_args(args)?;
        if cmd == session::Command::Show {
            return Ok(self.state.show(&files, true, Some(words()?)));
        }
        let done = self.state.apply(&cmd)?;
        self.state.arm(&cmd, words()?);
        Ok(done)
    }

    /// The state as a mock reads it from the file `ctl` writes.
    pub fn read_back(&self) -> Result<session::State, String> {
        session::State::parse(&self.state.name, &self.state.to_yaml())
    }

    /// What a mock of the session makes of its state: the profile with the changes, resolved,
    /// and the system of it, both as a running process rebuilds its own (carrying its GPUs'
    /// state) and as a process that joins now makes it at `nvmlInit`.
    pub fn mock(&self) -> Result<(), String> {
        let (origin, text) = profile::source(&self.state.profile)?;
        let changes = &self.state.changes;
        let p = profile::parse_with(&text, &origin, &changes.overlay())?;
        let r = engine::resolve::Resolved::new(p, Some(changes));
        SYSTEMS.with(|systems| {
            let mut systems = systems.borrow_mut();
            if !systems.contains_key(&self.state.profile) {
                let p = profile::parse(&text, &origin)?;
                let old =
                    engine::System::new(&engine::resolve::Resolved::new(p, None), None, None, &Default::default())?;
                systems.insert(self.state.profile.clone(), old);
            }
            let old = systems.get(&self.state.profile);
            engine::System::new(&r, None, old, &self.state.mig).map(drop)
        })?;
        engine::System::new(&r, None, None, &self.state.mig).map(drop)
    }
}

/// The words of `nvml-mock ctl`: its commands, event kinds and options, and the header's
/// error codes; sorted.
pub fn ctl_words() -> Vec<String> {
    use crate::generated::names::CONSTANTS;
    let mut words: Vec<String> = [
        "set",
        "error",
        "event",
        "lost",
        "reset",
        "reset-gpu",
        "show",
        "xid",
        "ecc-dbe",
        "ecc-sbe",
        "--times",
        "--session",
    ]
    .map(String::from)
    .into();
    words.extend(
        CONSTANTS
            .iter()
            .filter(|(c, _)| c.starts_with("NVML_ERROR_") || c.starts_with("NVML_FI_"))
            .map(|(c, _)| c.to_string()),
    );
    words.sort();
    words
}

/// The names of the built-in profiles.
pub fn builtin_profiles() -> Vec<&'static str> {
    profile::BUILTIN.iter().map(|(n, _)| *n).collect()
}
