//! The mock's side of `nvml-mock ctl` (`crate::session`): at its first `nvmlInit` a process
//! with `NVML_MOCK_SESSION` set joins the session; from then on each call compares the
//! session's generation with the one its system was made at ([`changed`]), one atomic load,
//! and only after a change reads the state again ([`pending`]) for the engine to rebuild its
//! system and deliver the events injected since ([`deliver`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use nvml_sys::nvmlReturn_t;

use super::event_set::EventSet;
use super::resolve::CtlError;
use crate::session::{self, Member, State};

/// This process's membership, and what it has taken in.
#[derive(Debug)]
struct Joined {
    member: Member,
    /// The generation the current system was made at.
    seen: AtomicU64,
    /// The number of the last event delivered.
    delivered: AtomicU64,
}

static SESSION: OnceLock<Joined> = OnceLock::new();

/// Whether `ctl` changed the session since the system was made (false without a session).
#[inline]
pub fn changed() -> bool {
    SESSION.get().is_some_and(|j| j.member.shared.generation() != j.seen.load(Ordering::Relaxed))
}

/// Whether this process is in a session.
pub fn active() -> bool {
    SESSION.get().is_some()
}

/// This process's membership of its session, if it is in one.
pub fn member() -> Option<&'static Member> {
    SESSION.get().map(|j| &j.member)
}

/// At `nvmlInit`: joins the session `NVML_MOCK_SESSION` names (once per process), and reads
/// its state with the generation it was read at; `None` without a session.
pub fn join() -> Result<Option<(u64, State)>, String> {
    let joined = match SESSION.get() {
        Some(j) => j,
        None => {
            let name = std::env::var(session::ENV).unwrap_or_default();
            if name.is_empty() {
                return Ok(None);
            }
            // `nvmlInit` holds the engine's lifecycle lock: one thread at a time gets here.
            let profile = std::env::var("NVML_MOCK_PROFILE").unwrap_or_default();
            let (member, warning) = session::join(&name, &profile)?;
            if let Some(w) = warning {
                eprintln!("nvml-mock: {w}");
            }
            let joined = Joined { member, seen: AtomicU64::new(0), delivered: AtomicU64::new(0) };
            SESSION.get_or_init(|| joined)
        }
    };
    joined.member.state().map(Some)
}

/// After `nvmlInit` made its system of `state` (read at `generation`): the events injected
/// before are not delivered.
pub fn joined_at(generation: u64, state: &State) {
    if let Some(j) = SESSION.get() {
        j.seen.store(generation, Ordering::Relaxed);
        j.delivered.store(state.last_event, Ordering::Relaxed);
    }
}

/// The session's state after a change, with the generation it was read at; `None` when there
/// is none since (another thread took it in) or it cannot be read (said on stderr once).
pub fn pending() -> Option<(u64, State)> {
    let j = SESSION.get()?;
    let generation = j.member.shared.generation();
    if generation == j.seen.load(Ordering::Relaxed) {
        return None;
    }
    match j.member.state() {
        Ok(s) => Some(s),
        Err(e) => {
            eprintln!("nvml-mock: session `{}`: {e}", j.member.files.name);
            j.seen.store(generation, Ordering::Relaxed);
            None
        }
    }
}

/// The system reflects `state`, read at `generation`.
pub fn seen(generation: u64, state: &State) {
    if let Some(j) = SESSION.get() {
        j.seen.store(generation, Ordering::Relaxed);
        j.delivered.fetch_max(state.last_event, Ordering::Relaxed);
    }
}

/// Delivers the events of `state` injected since the last delivery to `sets` (each takes
/// those it is registered for).
pub fn deliver(state: &State, sets: &[Arc<EventSet>]) {
    let Some(j) = SESSION.get() else { return };
    let after = j.delivered.load(Ordering::Relaxed);
    for e in state.events.iter().filter(|e| e.seq > after) {
        for set in sets {
            set.deliver(e.gpu, e.event_type, e.data);
        }
    }
}

/// The code a call answers for an error of `ctl error`, if it answers one this time: always,
/// or while its shared counter is below its `--times`.
pub fn fires(c: CtlError) -> Option<nvmlReturn_t> {
    let Some((counter, times)) = c.counted else { return Some(c.code) };
    let counter = SESSION.get()?.member.shared.counter(counter)?;
    (counter.fetch_add(1, Ordering::AcqRel) < times).then_some(c.code)
}
