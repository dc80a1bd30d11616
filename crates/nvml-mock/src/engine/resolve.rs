//! The profile resolved at `nvmlInit` (and again after an `nvml-mock ctl` change): for the
//! system and for each GPU, one row per function of nvml.h, indexed by the function's id
//! (`generated::names::id`), that holds what the engine decides before the function runs and
//! the profile's entry that answers it. A call then costs an index into its object's table,
//! not lookups by name; what depends on the call's arguments (a versioned record, a selector
//! value with an entry of its own) is marked [`Pre::ByName`] and decided as before.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, OnceLock};

use nvml_sys::*;

use crate::answer::Entry;
use crate::generated::names::FUNCTIONS;
use crate::generated::tables::{HAND_WRITTEN, MIN_ARCH, PRIVILEGED, VERSIONED};
use crate::profile::{Entries, Flat, Profile};
use crate::session::mig::Table as MigTable;
use crate::session::Changes;

/// Functions whose header names a newer architecture than the GPUs a real driver answers them
/// on: `nvmlDeviceReadPRMCounters_v1` ("For Blackwell or newer") answers `NVML_SUCCESS` on an
/// H200 with driver 580.159.04, each counter's status `NVML_ERROR_NOT_SUPPORTED`
/// (`crates/nvml-mock/tests/real/`).
const ANSWERED_BEFORE_ITS_ARCHITECTURE: &[&str] = &["nvmlDeviceReadPRMCounters_v1"];

/// What the header says of one function, by id: computed once per process from the generated
/// tables, which are sorted by name.
#[derive(Debug, Clone, Copy)]
pub struct Facts {
    pub privileged: bool,
    pub versioned: bool,
    /// The oldest architecture (`NVML_DEVICE_ARCH_*`) the function answers on, where the header
    /// names one.
    pub min_arch: Option<u32>,
    /// The other members of its versioned family answered from data (`FunctionSchema::family`).
    pub family: &'static [&'static str],
}

/// Every function's facts, by id.
pub fn facts() -> &'static [Facts] {
    static FACTS: OnceLock<Vec<Facts>> = OnceLock::new();
    FACTS.get_or_init(|| {
        // The functions and the tables are all sorted by name: one pass over each finds the
        // functions they name (a search per function and table cost most of a first `nvmlInit`).
        let (mut privileged, mut versioned, mut min_arch) =
            (sorted_walk(&PRIVILEGED, |f| f), sorted_walk(&VERSIONED, |(f, _)| f), sorted_walk(&MIN_ARCH, |(f, ..)| f));
        FUNCTIONS
            .iter()
            .enumerate()
            .map(|(id, name)| Facts {
                privileged: privileged(name).is_some(),
                versioned: versioned(name).is_some(),
                min_arch: min_arch(name).filter(|_| !ANSWERED_BEFORE_ITS_ARCHITECTURE.contains(name)).map(|m| m.2),
                family: crate::answer::schema_of(id).map(|s| s.family).unwrap_or_default(),
            })
            .collect()
    })
}

/// A look-up in `table` (sorted by `key`) for names asked in ascending order: each call steps
/// on from where the last one stopped.
fn sorted_walk<'t, R>(table: &'t [R], key: impl Fn(&'t R) -> &'t str) -> impl FnMut(&str) -> Option<&'t R> {
    let mut rows = table.iter().peekable();
    move |name| {
        while rows.next_if(|r| key(r) < name).is_some() {}
        rows.next_if(|r| key(r) == name)
    }
}

/// What the engine does with a call before the function runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Pre {
    /// The function runs.
    #[default]
    Run,
    /// The call answers this code: a function the driver lacks, one that needs privilege, the
    /// profile's error, or an architecture older than the header's.
    Answer(nvmlReturn_t),
    /// It depends on the call's arguments: the engine decides by name.
    ByName,
}

/// An error `nvml-mock ctl error` set for one function of one GPU: `code` always, or while the
/// session's shared counter `counter` is below `times`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CtlError {
    pub code: nvmlReturn_t,
    pub counted: Option<(usize, u64)>,
}

/// One function for one object.
#[derive(Debug, Clone, Default)]
pub struct Row {
    pub pre: Pre,
    /// The profile's entry of the function (or of a member of its family) for the object.
    pub entry: Option<Arc<Entry>>,
    pub ctl: Option<CtlError>,
}

/// The rows of one object (the system or a GPU), by function id.
#[derive(Debug, Clone, Default)]
pub struct Table {
    pub rows: Box<[Row]>,
    /// Whether every call on the GPU answers `NVML_ERROR_GPU_IS_LOST` (`nvml-mock ctl lost`).
    pub lost: bool,
    /// The errors `nvml-mock ctl error` gave CUDA functions on the GPU, by function, for the
    /// CUDA engine ([`crate::cuda`]).
    pub cuda_errors: BTreeMap<String, CtlError>,
}

impl Table {
    /// The table of an object with function values `entries`: `absent` says by function id
    /// which functions the driver lacks, `arch` is the GPU's architecture (none for the system).
    pub fn new(profile: &Profile, absent: &[bool], entries: &Entries, arch: Option<u32>) -> Table {
        let facts = facts();
        // The functions and the entries are both sorted by name: one pass over the two finds
        // each function's own entry, where a lookup per function cost most of the table.
        let mut own = entries.iter().peekable();
        let rows = FUNCTIONS
            .iter()
            .zip(facts)
            .enumerate()
            .map(|(id, (name, f))| {
                while own.next_if(|(k, _)| &***k < *name).is_some() {}
                let direct = own.peek().filter(|(k, _)| &***k == *name).map(|(_, e)| *e);
                let entry = direct.or_else(|| f.family.iter().find_map(|n| entries.get(*n)));
                let shown = entry.map(|e| &**e);
                let pre = if absent.get(id).copied().unwrap_or(false) {
                    Pre::Answer(NVML_ERROR_FUNCTION_NOT_FOUND)
                } else if !profile.privileged && f.privileged {
                    Pre::Answer(NVML_ERROR_NO_PERMISSION)
                } else if f.versioned {
                    Pre::ByName
                } else {
                    match shown {
                        Some(Entry::Error { code, .. }) => Pre::Answer(*code),
                        Some(Entry::Select { .. }) => Pre::ByName,
                        Some(Entry::Values(_)) => Pre::Run,
                        None if arch.zip(f.min_arch).is_some_and(|(a, min)| a < min) => {
                            Pre::Answer(NVML_ERROR_NOT_SUPPORTED)
                        }
                        None => Pre::Run,
                    }
                };
                Row { pre, entry: entry.cloned(), ctl: None }
            })
            .collect();
        Table { rows, lost: false, cuda_errors: BTreeMap::new() }
    }

    /// The row of function `id`, if it is one of nvml.h's.
    pub fn row(&self, id: usize) -> Option<&Row> {
        self.rows.get(id)
    }
}

/// A profile resolved for the engine, with what `nvml-mock ctl` changed in it: every
/// `nvmlInit` of the same profile and changes shares it.
#[derive(Debug)]
pub struct Resolved {
    pub profile: Arc<Profile>,
    /// Each GPU's values.
    pub specs: Vec<Arc<Flat>>,
    /// Each GPU's table.
    pub tables: Vec<Arc<Table>>,
    /// Each GPU's MIG instance profiles and placements (made once per resolved profile, not
    /// at each `nvmlInit`).
    pub mig_tables: Vec<Arc<MigTable>>,
    /// The system's table.
    pub system: Arc<Table>,
    pub absent: Arc<BTreeSet<String>>,
    /// Whether the profile records a value of function `id` (written by hand) for some object
    /// (a capture's), by id: until it does, the function does not look for one.
    pub recorded: Arc<[bool]>,
}

impl Resolved {
    pub fn new(profile: Profile, changes: Option<&Changes>) -> Resolved {
        let absent = super::absent_functions(&profile);
        let mut absent_ids = vec![false; FUNCTIONS.len()];
        for id in absent.iter().filter_map(|f| crate::answer::function_id(f)) {
            absent_ids[id] = true;
        }
        let mut tables: Vec<Table> = profile
            .devices
            .iter()
            .map(|d| {
                let arch = match d.1.get("nvmlDeviceGetArchitecture").map(|e| &**e) {
                    Some(Entry::Values(v)) => v.first().map(|a| a.uint() as u32),
                    _ => None,
                };
                Table::new(&profile, &absent_ids, &d.1, arch)
            })
            .collect();
        if let Some(c) = changes {
            for ((gpu, function), rule) in &c.errors {
                let error = CtlError { code: rule.code, counted: rule.times.map(|t| (rule.counter, t)) };
                if function.starts_with("cu") {
                    if let Some(t) = tables.get_mut(*gpu) {
                        t.cuda_errors.insert(function.clone(), error);
                    }
                    continue;
                }
                let row = crate::answer::function_id(function).and_then(|id| tables.get_mut(*gpu)?.rows.get_mut(id));
                if let Some(row) = row {
                    row.ctl = Some(error);
                }
            }
            for gpu in &c.lost {
                if let Some(t) = tables.get_mut(*gpu) {
                    t.lost = true;
                }
            }
        }
        let system = Table::new(&profile, &absent_ids, &profile.system.1, None);
        let mut recorded = vec![false; FUNCTIONS.len()];
        let all = std::iter::once(&profile.system.1)
            .chain(profile.devices.iter().map(|d| &d.1))
            .chain(profile.vgpu_types.values());
        // An error entry never answers before the behaviour: only values do.
        let values = all.flat_map(|entries| entries.iter().filter(|(_, e)| !matches!(***e, Entry::Error { .. })));
        for (key, _) in values {
            let function = key.rsplit('.').next().unwrap_or_default();
            if HAND_WRITTEN.binary_search_by(|(h, _)| (*h).cmp(function)).is_ok() {
                if let Some(id) = crate::answer::function_id(function) {
                    recorded[id] = true;
                }
            }
        }
        Resolved {
            specs: profile.devices.clone(),
            tables: tables.into_iter().map(Arc::new).collect(),
            mig_tables: profile.devices.iter().map(|d| Arc::new(MigTable::of(d))).collect(),
            system: Arc::new(system),
            absent: Arc::new(absent),
            recorded: recorded.into(),
            profile: Arc::new(profile),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_facts_are_what_searching_each_table_finds() {
        for (name, f) in FUNCTIONS.iter().zip(facts()) {
            assert_eq!(f.privileged, PRIVILEGED.binary_search(name).is_ok(), "{name}");
            assert_eq!(f.versioned, VERSIONED.binary_search_by(|(v, _)| v.cmp(name)).is_ok(), "{name}");
            let arch = MIN_ARCH.iter().find(|(m, ..)| m == name).map(|m| m.2);
            assert_eq!(f.min_arch, arch.filter(|_| !ANSWERED_BEFORE_ITS_ARCHITECTURE.contains(name)), "{name}");
            let family = crate::generated::tables::FUNCTIONS.iter().flat_map(|a| a.iter()).find(|s| s.name == *name);
            assert_eq!(f.family, family.map(|s| s.family).unwrap_or_default(), "{name}");
        }
        assert!(facts().iter().any(|f| f.privileged) && facts().iter().any(|f| f.min_arch.is_some()));
    }

    #[test]
    fn each_row_holds_the_entry_of_its_function_or_of_its_family() {
        assert!(FUNCTIONS.windows(2).all(|w| w[0] < w[1]), "the functions are sorted by name");
        for (name, _) in crate::profile::BUILTIN {
            let profile = crate::profile::load(name).unwrap_or_else(|e| panic!("{e}"));
            let absent = vec![false; FUNCTIONS.len()];
            let objects = std::iter::once(&profile.system.1).chain(profile.devices.iter().map(|d| &d.1));
            for entries in objects {
                let table = Table::new(&profile, &absent, entries, None);
                for ((function, f), row) in FUNCTIONS.iter().zip(facts()).zip(table.rows.iter()) {
                    let looked_up =
                        std::iter::once(*function).chain(f.family.iter().copied()).find_map(|n| entries.get(n));
                    assert_eq!(row.entry.as_deref(), looked_up.map(|e| &**e), "{name}: {function}");
                }
            }
        }
    }
}
