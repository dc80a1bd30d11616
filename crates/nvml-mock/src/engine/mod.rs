//! The mock's behaviour: one process-wide [`Engine`] that every exported function reaches
//! through [`entry`], which guards against panics crossing into C, applies injected faults,
//! older-driver emulation and the profile's declared errors, and enforces `nvmlInit` before
//! use. The generated exports go through [`api_entry`] and [`plain_entry`], which hand the call
//! to the [`hostile`] library instead when `NVML_MOCK_HOSTILE` is set.
//!
//! The hand-written functions are grouped by the header's areas, one module each;
//! `gen-config/mock.yaml` lists them, and the generated `dispatch/` calls them (the rest
//! answer from the profile's values, `generated/answers/`, or `NOT_SUPPORTED`). `api.rs`
//! hands those answers the profile's values.

// Handles are addresses of boxed objects: `Vec<Box<_>>` keeps them stable by construction.
#![allow(clippy::vec_box)]

mod api;
pub(crate) mod ctl;
pub(crate) mod device;
pub(crate) mod ecc;
pub(crate) mod event_set;
pub(crate) mod events;
pub(crate) mod fields;
pub(crate) mod gpm;
pub mod hostile;
pub(crate) mod internal;
pub(crate) mod log;
pub(crate) mod mig;
pub(crate) mod mig_change;
pub(crate) mod nvlink;
pub(crate) mod perf;
pub(crate) mod processes;
pub(crate) mod resolve;
pub(crate) mod system;
pub(crate) mod vgpu;

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use nvml_sys::*;

use crate::driver;
use crate::ffi;
use crate::generated::api::Api;
use crate::generated::names::id;
pub use event_set::EventSet;
pub use events::SystemEventSet;
pub use gpm::GpmSample;
pub use mig::{ComputeInstance, GpuInstance};

use crate::answer::{function_name, Call, Entry, Object, Val};
use crate::generated::tables::{PRIVILEGED, VERSIONED};
use crate::profile::{self, Entries, FaultSpec, Flat, Profile};
use crate::session::mig::{Gpu as MigTree, Table as MigTable};
use crate::session::Changes;
use resolve::{Pre, Resolved, Table};

/// Functions that work before `nvmlInit` (or decide that for themselves): those every driver
/// has.
const NO_INIT: &[&str] = driver::ALWAYS;

/// Mutable state of one device (what setters change).
#[derive(Debug, Default)]
pub struct DeviceState {
    pub persistence_mode: Option<bool>,
    pub compute_mode: Option<u32>,
    pub power_limit_mw: Option<u32>,
    pub application_clocks: Option<(u32, u32)>,
    /// Processes added by `grow_processes`.
    pub extra_processes: u32,
    pub grow_remaining: u32,
    /// `(soft, hard)` memory limits by cgroup namespace (`nvmlDeviceSetMemoryLimits_v1`);
    /// a namespace without limits is absent.
    pub memory_limits: BTreeMap<String, (u64, u64)>,
    /// The drain state (`nvmlDeviceModifyDrainState`).
    pub drain: bool,
}

/// One GPU. Its handle is the address of its mutable state, which a change by `nvml-mock ctl`
/// hands from the old system to the new one: stable while the library is initialised.
#[derive(Debug)]
pub struct Device {
    pub index: usize,
    pub spec: Arc<Flat>,
    pub state: Arc<Mutex<DeviceState>>,
    /// What the engine resolved of the profile for this GPU, by function id.
    pub table: Arc<Table>,
    /// What the GPU can be carved into (MIG).
    pub mig_table: Arc<MigTable>,
    /// Its MIG tree now (`None`: a GPU without MIG).
    pub mig: Option<MigTree>,
    /// Whether its MIG tree changed since the profile declared it (by a client or `ctl`).
    pub mig_changed: bool,
}

/// What a device handle refers to: a GPU, or a MIG device (a compute instance of one).
#[derive(Debug, Clone, Copy)]
pub enum DeviceRef<'a> {
    Gpu(&'a Device),
    Mig { parent: &'a Device, gi: &'a GpuInstance, ci: &'a ComputeInstance },
}

impl<'a> DeviceRef<'a> {
    /// The GPU, or the MIG device's parent.
    pub fn gpu(&self) -> &'a Device {
        match self {
            DeviceRef::Gpu(d) | DeviceRef::Mig { parent: d, .. } => d,
        }
    }
}

/// Everything that exists between the first `nvmlInit` and the last `nvmlShutdown`. A change
/// by `nvml-mock ctl` makes a new system of the changed profile that shares the old one's
/// state: handles, event sets, values set, the MIG tree.
#[derive(Debug)]
pub struct System {
    pub profile: Arc<Profile>,
    pub devices: Vec<Box<Device>>,
    /// Every device's GPU instances (MIG), in device order.
    pub gpu_instances: Instances,
    pub event_sets: Arc<Handles<EventSet>>,
    pub system_event_sets: Arc<Handles<SystemEventSet>>,
    pub gpm_samples: Arc<Handles<GpmSample>>,
    /// Functions the emulated driver lacks (see [`absent_functions`]).
    pub absent: Arc<BTreeSet<String>>,
    /// The profile's process ids → the ids clients see (live processes with `live_pids`).
    pub pids: Arc<BTreeMap<u32, u32>>,
    /// When the library was initialised (µs since the epoch): the time counters start from.
    pub started_us: u64,
    /// Values set while the system runs (by setters), by object, function and selector values:
    /// a getter answered from data answers them before the profile's.
    pub live: Arc<Live>,
    /// What the engine resolved of the profile for the system's own functions, by function id.
    pub table: Arc<Table>,
    /// Whether some object's values record function `id` (written by hand), by id
    /// ([`Resolved::recorded`]).
    pub recorded: Arc<[bool]>,
    /// Whether a GPU has been looked up since `nvmlInit` (`system.before_attach`); a `ctl`
    /// change keeps it.
    pub attached: Arc<AtomicBool>,
}

/// Values set while the system runs (see [`System::live`]).
#[derive(Debug, Default)]
pub struct Live {
    values: Mutex<BTreeMap<LiveKey, Vec<Val>>>,
    /// Whether any value was set: until one is, a getter does not look.
    any: AtomicBool,
}

/// The GPU instances of every device, shared by the systems a `ctl` change makes (their
/// addresses are their handles).
#[derive(Debug, Clone, Default)]
pub struct Instances(Arc<Vec<GpuInstance>>);

impl std::ops::Deref for Instances {
    type Target = [GpuInstance];
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl<'a> IntoIterator for &'a Instances {
    type Item = &'a GpuInstance;
    type IntoIter = std::slice::Iter<'a, GpuInstance>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

/// A value set while the system runs: its object, function and selector values.
pub type LiveKey = (LiveObject, &'static str, Vec<i64>);

/// An object whose values can be set while the system runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LiveObject {
    System,
    Gpu(usize),
    VgpuInstance(u32),
}

/// The functions a profile's driver lacks, which answer `NVML_ERROR_FUNCTION_NOT_FOUND`: its
/// `missing_functions`, and every function that a driver newer than its
/// `system.driver_version` introduced ([`crate::driver::has`]), legacy symbols included (each
/// has its own history). Init, shutdown and `nvmlErrorString` are always present.
pub fn absent_functions(profile: &Profile) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = BTreeSet::new();
    if let Some(version) = &profile.driver {
        out.extend(driver::lacking(version).into_iter().map(String::from));
    }
    for f in &profile.exports_extra {
        out.remove(f);
    }
    out.extend(profile.missing_functions.iter().cloned());
    out
}

/// The driver the library that loaded the mock emulates: set by [`nvmlMockSetDriverLibrary`],
/// which a library of one driver's symbols (`cargo xtask mock-lib`, [`crate::driver_lib`])
/// calls when it loads the mock.
static LIBRARY_DRIVER: OnceLock<driver::Version> = OnceLock::new();

/// Hook of the libraries of one driver's symbols, not part of NVML: the driver they emulate
/// (`"525.147.05"`), called once when such a library loads the mock, before any `nvmlInit`.
/// `NVML_ERROR_INVALID_ARGUMENT` for a version that does not parse, `NVML_ERROR_ALREADY_INITIALIZED`
/// when another driver was set before.
#[no_mangle]
pub extern "C" fn nvmlMockSetDriverLibrary(version: *const std::ffi::c_char) -> nvmlReturn_t {
    let run = || {
        let Ok(text) = ffi::read_str(version) else { return NVML_ERROR_INVALID_ARGUMENT };
        let Ok(v) = driver::Version::parse(&text) else { return NVML_ERROR_INVALID_ARGUMENT };
        match LIBRARY_DRIVER.get_or_init(|| v.clone()) {
            set if *set == v => NVML_SUCCESS,
            _ => NVML_ERROR_ALREADY_INITIALIZED,
        }
    };
    catch_unwind(run).unwrap_or(NVML_ERROR_UNKNOWN)
}

/// The profile under the library's driver, if a library of one driver loaded the mock: a
/// profile without a driver takes the library's; one whose driver differs is the error
/// `nvmlInit` reports, as a real driver whose library and kernel module differ does
/// (`NVML_ERROR_LIB_RM_VERSION_MISMATCH`).
fn with_library_driver(profile: &mut Profile) -> Result<(), String> {
    let Some(library) = LIBRARY_DRIVER.get() else { return Ok(()) };
    let Some(own) = profile.system.str("driver_version").map(str::to_string) else {
        profile.set_driver(library);
        return Ok(());
    };
    if profile.driver.as_ref() == Some(library) {
        return Ok(());
    }
    Err(format!(
        "this libnvidia-ml.so.1 emulates driver {library} (built by `cargo xtask mock-lib --driver {library}`), \
         but profile `{name}` runs driver {own}: nvmlInit answers NVML_ERROR_LIB_RM_VERSION_MISMATCH, as a real \
         driver whose library and kernel module differ does. Use a profile of driver {library} (a profile file \
         with `base: [{name}]` and `system: {{driver_version: \"{library}\"}}`), or build the library for driver {own} \
         (`cargo xtask mock-lib --driver {own} --out DIR`)",
        name = profile.name
    ))
}

/// The current time in µs since the epoch; with `NVML_MOCK_CLOCK=<µs>`, that moment, always
/// (samples, counters that grow with time and timestamps then read the same in every
/// process: for tests that compare two clients' readings).
pub fn now_us() -> u64 {
    static FROZEN: OnceLock<Option<u64>> = OnceLock::new();
    let frozen = FROZEN.get_or_init(|| frozen_clock().ok().flatten());
    frozen.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_micros() as u64).unwrap_or(0)
    })
}

/// The moment `NVML_MOCK_CLOCK` stops the clock at (unset or empty: none); anything but a
/// number of µs is an error, which fails `nvmlInit`.
fn frozen_clock() -> Result<Option<u64>, String> {
    parse_clock(&std::env::var("NVML_MOCK_CLOCK").unwrap_or_default())
}

/// Parses a value of `NVML_MOCK_CLOCK` (see [`frozen_clock`]).
pub fn parse_clock(env: &str) -> Result<Option<u64>, String> {
    match env.trim() {
        "" => Ok(None),
        v => v.parse().map(Some).map_err(|_| format!("NVML_MOCK_CLOCK: `{v}`: expected microseconds since the epoch")),
    }
}

impl System {
    /// The system a resolved profile describes; a MIG tree its instance profiles cannot hold
    /// is an error (see [`mig::check_tree`]). `carried` is the system a `ctl` change replaces:
    /// the new one shares its state (and so its handles). `mig` holds the MIG trees that
    /// changed since the profile declared them, by GPU (the session's, or this process's).
    pub(crate) fn new(
        r: &Resolved,
        live_pids: Option<BTreeMap<u32, u32>>,
        carried: Option<&System>,
        mig: &BTreeMap<usize, MigTree>,
    ) -> Result<System, String> {
        let devices: Vec<Box<Device>> = (r.specs.iter().zip(&r.tables).zip(&r.mig_tables).enumerate())
            .map(|(index, ((spec, table), mig_table))| {
                let state = match carried.and_then(|c| c.devices.get(index)) {
                    Some(old) => old.state.clone(),
                    None => {
                        let state = DeviceState { grow_remaining: r.profile.grow_processes, ..DeviceState::default() };
                        Arc::new(Mutex::new(state))
                    }
                };
                // A GPU of the same values as in the system replaced keeps its tree where
                // neither changed.
                let same = carried.and_then(|c| c.devices.get(index)).filter(|o| Arc::ptr_eq(&o.spec, spec));
                let mig_table = mig_table.clone();
                let tree = match (mig.get(&index), same.filter(|o| !o.mig_changed)) {
                    (Some(t), _) => Some(t.clone()),
                    (None, Some(o)) => o.mig.clone(),
                    (None, None) => MigTree::declared(spec, &mig_table),
                };
                let mig_changed = mig.contains_key(&index);
                Box::new(Device {
                    index,
                    spec: spec.clone(),
                    state,
                    table: table.clone(),
                    mig_table,
                    mig: tree,
                    mig_changed,
                })
            })
            .collect();
        let gpu_instances = Instances(Arc::new(devices.iter().flat_map(|d| mig::gpu_instances(d)).collect()));
        let Some(c) = carried else {
            for d in devices.iter().filter(|d| !d.mig_changed) {
                mig::check_tree(d)?;
            }
            return Ok(System {
                profile: r.profile.clone(),
                devices,
                gpu_instances,
                event_sets: Arc::default(),
                system_event_sets: Arc::default(),
                gpm_samples: Arc::default(),
                absent: r.absent.clone(),
                pids: Arc::new(processes::pid_map(&r.profile, live_pids)),
                started_us: now_us(),
                live: Arc::default(),
                table: r.system.clone(),
                recorded: r.recorded.clone(),
                attached: Arc::default(),
            });
        };
        Ok(System {
            profile: r.profile.clone(),
            devices,
            gpu_instances,
            event_sets: c.event_sets.clone(),
            system_event_sets: c.system_event_sets.clone(),
            gpm_samples: c.gpm_samples.clone(),
            absent: r.absent.clone(),
            pids: c.pids.clone(),
            started_us: c.started_us,
            live: c.live.clone(),
            table: r.system.clone(),
            recorded: r.recorded.clone(),
            attached: c.attached.clone(),
        })
    }

    /// The resolved table of the object a call is for, when that is the system or a GPU (a
    /// MIG device, an instance or a vGPU is looked up by name).
    pub fn table_of(&self, object: Object) -> Option<&Table> {
        match object {
            Object::System => Some(&self.table),
            Object::Device(h) => self.device(h).ok().map(|d| &*d.table),
            _ => None,
        }
    }

    /// The object of a call whose values can be set: the system, a GPU, a vGPU instance.
    fn live_object(&self, object: Object) -> Option<LiveObject> {
        match object {
            Object::System => Some(LiveObject::System),
            Object::Device(h) => self.device(h).ok().map(|d| LiveObject::Gpu(d.index)),
            Object::VgpuInstance(id) => Some(LiveObject::VgpuInstance(id)),
            _ => None,
        }
    }

    /// The value set for `function` of `object` with these selector values, if any.
    pub fn live(&self, function: &str, object: Object, selectors: &[i64]) -> Option<Vec<Val>> {
        if !self.live.any.load(Ordering::Acquire) {
            return None;
        }
        let key = self.live_object(object)?;
        let live = self.live.values.lock().ok()?;
        live.iter().find(|((o, f, s), _)| *o == key && *f == function && s == selectors).map(|(_, v)| v.clone())
    }

    /// Sets the value `function` of `object` answers for these selector values.
    pub fn set_live(&self, function: &'static str, object: Object, selectors: &[i64], values: Vec<Val>) -> ffi::Status {
        let key = self.live_object(object).ok_or(NVML_ERROR_INVALID_ARGUMENT)?;
        let mut live = self.live.values.lock().map_err(|_| NVML_ERROR_UNKNOWN)?;
        live.insert((key, function, selectors.to_vec()), values);
        self.live.any.store(true, Ordering::Release);
        Ok(())
    }

    /// What the engine decides before a call by the function's name (see [`Engine::checks`]):
    /// where the function's row leaves it to the call's arguments, and for the objects
    /// without a table.
    fn checks_by_name(&self, call: &Call) -> Option<Intercepted> {
        let name = call.name;
        let answer = |code| Some(Intercepted::Answer(code));
        if self.absent.contains(name) {
            return answer(NVML_ERROR_FUNCTION_NOT_FOUND);
        }
        if !self.profile.privileged && PRIVILEGED.binary_search(&name).is_ok() {
            return answer(NVML_ERROR_NO_PERMISSION);
        }
        let mut as_version = None;
        if let Some(layouts) = versioned(name) {
            match self.record_check(name, call.object, call.record, layouts) {
                Some(RecordCheck::Answer(code)) => return answer(code),
                Some(RecordCheck::AsVersion(own, caller)) => as_version = Some(Intercepted::AsVersion(own, caller)),
                None => {}
            }
        }
        match self.entry(name, call.object) {
            Some(e) => match e.select(call.selectors) {
                Some(Entry::Error { code, .. }) => answer(*code),
                _ => as_version,
            },
            None if self.too_old(name, call.object) => answer(NVML_ERROR_NOT_SUPPORTED),
            None => as_version,
        }
    }

    /// The GPU behind a handle; anything that is not one of ours (a MIG device included) is
    /// rejected without being dereferenced.
    pub fn device(&self, handle: nvmlDevice_t) -> Result<&Device, nvmlReturn_t> {
        let handle = handle as *const Mutex<DeviceState>;
        self.devices
            .iter()
            .find(|d| std::ptr::eq(Arc::as_ptr(&d.state), handle))
            .map(|d| &**d)
            .ok_or(NVML_ERROR_INVALID_ARGUMENT)
    }

    /// The GPU or MIG device behind a handle.
    pub fn any_device(&self, handle: nvmlDevice_t) -> Result<DeviceRef<'_>, nvmlReturn_t> {
        if let Ok(d) = self.device(handle) {
            return Ok(DeviceRef::Gpu(d));
        }
        let (gi, ci) = self.mig_device(handle)?;
        Ok(DeviceRef::Mig { parent: &self.devices[gi.device], gi, ci })
    }

    pub fn handle(&self, index: usize) -> nvmlDevice_t {
        Arc::as_ptr(&self.devices[index].state) as nvmlDevice_t
    }

    /// The handle of device `index`, handed to a client that looked the GPU up: from then on
    /// the system is attached (`system.before_attach` no longer answers).
    pub fn hand_out(&self, index: usize) -> nvmlDevice_t {
        self.attached.store(true, Ordering::Relaxed);
        self.handle(index)
    }

    /// The function values of the object a call is for: `None` for a handle that is not ours
    /// (or an object the profile gives no values).
    pub fn entries(&self, object: Object) -> Option<(&Entries, String)> {
        Some(match object {
            Object::System => (&self.profile.system.1, String::new()),
            Object::Device(h) => match self.any_device(h).ok()? {
                DeviceRef::Gpu(d) => (&d.spec.1, String::new()),
                DeviceRef::Mig { parent, .. } => (&parent.spec.1, "mig.device.".to_string()),
            },
            Object::VgpuType(id) => (self.profile.vgpu_types.get(&id)?, String::new()),
            Object::VgpuInstance(id) => (&vgpu::instance(self, id)?.spec.1, vgpu::instance_prefix(id)),
            Object::GpuInstance(h) => {
                (&self.devices[self.gpu_instance(h).ok()?.device].spec.1, "mig.gpu_instance.".to_string())
            }
            Object::ComputeInstance(h) => {
                (&self.devices[self.compute_instance(h).ok()?.0.device].spec.1, "mig.compute_instance.".to_string())
            }
            Object::Unit(_) => return None,
        })
    }

    /// The entry of `function` for `object`, or of another member of its family (the schema's
    /// `family`) when the profile names only that one. A MIG device has its parent's values
    /// unless its GPU's `mig.device` says otherwise.
    pub fn entry(&self, function: &str, object: Object) -> Option<&Entry> {
        let (entries, prefix) = self.entries(object)?;
        let family = crate::answer::schema(function).map(|s| s.family).unwrap_or_default();
        let names = std::iter::once(function).chain(family.iter().copied());
        let mut prefixes = vec![prefix.as_str()];
        if prefix == "mig.device." {
            prefixes.push("");
        }
        prefixes.iter().find_map(|p| {
            names
                .clone()
                .find_map(|f| if p.is_empty() { entries.get(f) } else { entries.get(format!("{p}{f}").as_str()) })
                .map(|e| &**e)
        })
    }

    /// Whether the profile's driver knows the record version `constant` (`nvmlPlatformInfo_v2`):
    /// a profile without a driver knows every version (see [`driver::knows_version`]).
    pub fn knows_version(&self, constant: &str) -> bool {
        !self.profile.refused_versions.iter().any(|r| r == constant)
            && self.profile.driver.as_ref().map_or(true, |d| driver::knows_version(d, constant))
    }

    /// The checks the driver makes first on the versioned record of `function` (`layouts`: the
    /// versions of its family): a NULL record answers what the profile recorded (else the
    /// function checks it itself), a version the driver does not know answers what the
    /// profile recorded, else `NVML_ERROR_ARGUMENT_VERSION_MISMATCH`, before the GPU's support
    /// is looked at, as the real driver orders them.
    ///
    /// A driver recorded answering `NVML_SUCCESS` to a version it does not know does not check
    /// it: the function then runs with its own layout's version.
    pub fn record_check(
        &self,
        function: &str,
        object: Object,
        record: *const std::ffi::c_uint,
        layouts: &[(u32, &str)],
    ) -> Option<RecordCheck> {
        let checks = self.checks(function, object);
        if record.is_null() {
            return checks.null.map(RecordCheck::Answer);
        }
        let version = ffi::get(record).ok()?;
        if layouts.iter().any(|(v, c)| *v == version && self.knows_version(c)) {
            return None;
        }
        match checks.wrong_version {
            Some(NVML_SUCCESS) => layouts.first().map(|(own, _)| RecordCheck::AsVersion(*own, version)),
            Some(code) => Some(RecordCheck::Answer(code)),
            None => Some(RecordCheck::Answer(unknown_version_answer(function))),
        }
    }

    /// The recorded checks of `function` for the device (its GPU's for a MIG device) or the
    /// system a call is for.
    fn checks(&self, function: &str, object: Object) -> profile::Checks {
        let of_device = match object {
            Object::Device(h) => self.any_device(h).ok().and_then(|d| self.profile.device_checks.get(d.gpu().index)),
            _ => None,
        };
        of_device.or(Some(&self.profile.system_checks)).and_then(|c| c.get(function)).copied().unwrap_or_default()
    }

    /// Whether nvml.h says `function` needs a newer architecture than the device's ("For
    /// Hopper or newer"): such a function answers `NOT_SUPPORTED` there unless the profile
    /// gives it a value.
    pub fn too_old(&self, function: &str, object: Object) -> bool {
        let min = crate::answer::function_id(function).and_then(|id| resolve::facts()[id].min_arch);
        let Some(min) = min else { return false };
        self.architecture(object).is_some_and(|arch| arch < min)
    }

    /// The architecture (`NVML_DEVICE_ARCH_*`) of the GPU (or MIG device) a call is for.
    pub fn architecture(&self, object: Object) -> Option<u32> {
        let Object::Device(h) = object else { return None };
        let gpu = self.handle(self.any_device(h).ok()?.gpu().index);
        self.value("nvmlDeviceGetArchitecture", Object::Device(gpu), &[]).map(|v| v.uint() as u32)
    }

    /// The profile's value of a function answered from data (its first output), for
    /// hand-written code that derives other answers from it: `None` when the profile gives none
    /// (or an error) for these selectors.
    pub fn value(&self, function: &str, object: Object, selectors: &[i64]) -> Option<&Val> {
        match self.entry(function, object)?.select(selectors)? {
            Entry::Values(v) => v.first(),
            _ => None,
        }
    }
}

/// What a driver answers a record version it does not know with, where the profile records no
/// check of the function: `ARGUMENT_VERSION_MISMATCH`, but `FUNCTION_NOT_FOUND` from
/// `nvmlDeviceGetMemoryInfo_v2`, as driver 580.159.04 answers on an H200 and an H100
/// (`crates/nvml-mock/tests/real/`).
fn unknown_version_answer(function: &str) -> nvmlReturn_t {
    match function {
        "nvmlDeviceGetMemoryInfo_v2" => NVML_ERROR_FUNCTION_NOT_FOUND,
        _ => NVML_ERROR_ARGUMENT_VERSION_MISMATCH,
    }
}

/// What the checks of a versioned record decide (see [`System::record_check`]).
pub enum RecordCheck {
    Answer(nvmlReturn_t),
    /// Run with the function's own version (`.0`), the caller's (`.1`) put back after.
    AsVersion(std::ffi::c_uint, std::ffi::c_uint),
}

/// Objects handed to C by address (event sets): a handle is looked up among them by address,
/// never dereferenced, and stays valid until it is removed.
#[derive(Debug)]
pub struct Handles<T>(Mutex<Vec<Arc<T>>>);

impl<T> Default for Handles<T> {
    fn default() -> Self {
        Handles(Mutex::new(Vec::new()))
    }
}

impl<T> Handles<T> {
    /// Keeps `v` and returns its handle.
    pub fn add(&self, v: T) -> *const T {
        let v = Arc::new(v);
        let handle = Arc::as_ptr(&v);
        if let Ok(mut all) = self.0.lock() {
            all.push(v);
        }
        handle
    }

    /// The object behind a handle; `INVALID_ARGUMENT` for anything that is not one of ours.
    pub fn get(&self, handle: *const T) -> Result<Arc<T>, nvmlReturn_t> {
        let all = self.0.lock().map_err(|_| NVML_ERROR_UNKNOWN)?;
        all.iter().find(|v| std::ptr::eq(Arc::as_ptr(v), handle)).cloned().ok_or(NVML_ERROR_INVALID_ARGUMENT)
    }

    /// Frees a handle; `INVALID_ARGUMENT` for an unknown or already freed one.
    pub fn remove(&self, handle: *const T) -> Result<(), nvmlReturn_t> {
        let mut all = self.0.lock().map_err(|_| NVML_ERROR_UNKNOWN)?;
        let before = all.len();
        all.retain(|v| !std::ptr::eq(Arc::as_ptr(v), handle));
        if all.len() == before {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        Ok(())
    }

    pub fn all(&self) -> Vec<Arc<T>> {
        self.0.lock().map(|all| all.clone()).unwrap_or_default()
    }
}

/// A fault and how often its function has been called.
#[derive(Debug)]
struct Fault {
    spec: FaultSpec,
    calls: AtomicU64,
}

/// What a profile was resolved from: an `nvmlInit` from the same reuses it.
#[derive(Debug, PartialEq)]
struct ResolveKey {
    spec: String,
    text: String,
    changes: Option<Changes>,
}

/// The process-wide mock.
#[derive(Debug)]
pub struct Engine {
    /// Serialises init, shutdown and the changes of `nvml-mock ctl`; holds the reference count.
    lifecycle: Mutex<u32>,
    system: RwLock<Option<Arc<System>>>,
    /// Faults from `NVML_MOCK_FAULTS` (fixed) and from the profile (set at init).
    env_faults: Vec<Fault>,
    profile_faults: RwLock<Vec<Arc<Fault>>>,
    /// Whether the profile has faults: until it has, a call does not look for one.
    any_profile_faults: AtomicBool,
    /// Bumped whenever the system is replaced (init, shutdown, a `ctl` change): a thread's
    /// view of the system ([`Engine::current`]) is good while this is what it was.
    epoch: AtomicU64,
    /// The functions some object's values record (see [`Engine::recorded`]), by id: set as
    /// systems are installed, never cleared (a stale one only costs a look).
    recorded_ids: Vec<AtomicBool>,
    /// The last profile resolved, and what from.
    resolved: Mutex<Option<(ResolveKey, Arc<Resolved>)>>,
    /// Without a session, the MIG trees this process changed, by GPU, with the profile they
    /// are of (`NVML_MOCK_PROFILE` and its text): they outlive `nvmlShutdown`, as a GPU's do,
    /// until the profile changes.
    local_mig: Mutex<(String, BTreeMap<usize, MigTree>)>,
    env_error: Option<String>,
    strict: bool,
}

static ENGINE: OnceLock<Engine> = OnceLock::new();

thread_local! {
    /// This thread's view of the system: the engine's epoch it was taken at, and the system
    /// (see [`Engine::current`]).
    static VIEW: RefCell<(u64, Option<Arc<System>>)> = const { RefCell::new((u64::MAX, None)) };
}

pub fn engine() -> &'static Engine {
    ENGINE.get_or_init(|| {
        let (env_faults, env_error) =
            match profile::parse_faults(&std::env::var("NVML_MOCK_FAULTS").unwrap_or_default()) {
                Ok(f) => (f, None),
                Err(e) => (Vec::new(), Some(e)),
            };
        Engine {
            lifecycle: Mutex::new(0),
            system: RwLock::new(None),
            env_faults: env_faults.into_iter().map(|spec| Fault { spec, calls: AtomicU64::new(0) }).collect(),
            profile_faults: RwLock::new(Vec::new()),
            any_profile_faults: AtomicBool::new(false),
            epoch: AtomicU64::new(0),
            recorded_ids: crate::generated::names::FUNCTIONS.iter().map(|_| AtomicBool::new(false)).collect(),
            resolved: Mutex::new(None),
            local_mig: Mutex::new((String::new(), BTreeMap::new())),
            env_error,
            strict: std::env::var("NVML_MOCK_STRICT").is_ok_and(|v| !v.is_empty() && v != "0"),
        }
    })
}

/// Runs an exported function that returns `nvmlReturn_t`: the changes of `nvml-mock ctl` since
/// the last call, then faults, driver emulation, the init check and the argument checks the
/// driver makes first ([`Engine::intercept`]), then `f`.
pub fn entry(call: Call, f: impl FnOnce(&Engine) -> nvmlReturn_t) -> nvmlReturn_t {
    let e = engine();
    if ctl::changed() {
        e.refresh();
    }
    let run = AssertUnwindSafe(|| match e.intercept(&call) {
        Some(Intercepted::Answer(code)) => code,
        // A driver that does not check this record's version: the function runs with its own
        // layout's, and the caller's comes back as it was.
        Some(Intercepted::AsVersion(own, caller)) => {
            let record = call.record as *mut std::ffi::c_uint;
            let _ = ffi::put(record, own);
            let code = f(e);
            let _ = ffi::put(record, caller);
            code
        }
        None => f(e),
    });
    let code = catch_unwind(run).unwrap_or_else(|_| {
        eprintln!("nvml-mock: {} panicked; answering NVML_ERROR_UNKNOWN (this is a bug in the mock)", call.name);
        NVML_ERROR_UNKNOWN
    });
    log::call(call.name, None, code);
    code
}

/// Runs a generated export: on the hostile library when there is one (without faults or the
/// init check), else on the engine through [`entry`].
pub fn api_entry(call: Call, f: impl FnOnce(&dyn Api) -> nvmlReturn_t) -> nvmlReturn_t {
    if hostile::library().is_some() {
        return plain_entry(call.name, NVML_ERROR_UNKNOWN, f);
    }
    entry(call, |e| f(e))
}

/// Runs an exported function with another return type (`nvmlErrorString`), on the hostile
/// library when there is one.
pub fn plain_entry<R>(name: &'static str, fallback: R, f: impl FnOnce(&dyn Api) -> R) -> R {
    let api: &dyn Api = match hostile::library() {
        Some(h) => h,
        None => engine(),
    };
    catch_unwind(AssertUnwindSafe(|| f(api))).unwrap_or_else(|_| {
        eprintln!("nvml-mock: {name} panicked (this is a bug in the mock)");
        fallback
    })
}

/// What the engine makes of a call before the function runs.
enum Intercepted {
    /// The call answers this code.
    Answer(nvmlReturn_t),
    /// The function runs as if the caller had set version `.0` in its record (the caller's,
    /// `.1`, which the driver does not check, is put back after).
    AsVersion(std::ffi::c_uint, std::ffi::c_uint),
}

/// The layouts a caller may ask for of the versioned record `function` takes (`VERSIONED`):
/// its prototype's first.
fn versioned(function: &str) -> Option<&'static [(u32, &'static str)]> {
    VERSIONED.binary_search_by(|(f, _)| (*f).cmp(function)).ok().map(|i| VERSIONED[i].1)
}

/// What `nvml-mock ctl` decides for a call with this row (`lost`: of a GPU that `ctl lost`
/// took): a function the driver lacks stays so, then the GPU is lost, then `ctl error`.
fn by_ctl(row: &resolve::Row, lost: bool) -> Option<Intercepted> {
    if row.pre == Pre::Answer(NVML_ERROR_FUNCTION_NOT_FOUND) {
        return Some(Intercepted::Answer(NVML_ERROR_FUNCTION_NOT_FOUND));
    }
    if lost {
        return Some(Intercepted::Answer(NVML_ERROR_GPU_IS_LOST));
    }
    row.ctl.and_then(ctl::fires).map(Intercepted::Answer)
}

/// What the row of a function decides before it runs ([`by_ctl`], then the profile's):
/// `Some(None)` that it runs, `None` that the engine decides by name.
fn by_row(row: &resolve::Row, lost: bool) -> Option<Option<Intercepted>> {
    if let Some(i) = by_ctl(row, lost) {
        return Some(Some(i));
    }
    match row.pre {
        Pre::Run => Some(None),
        Pre::Answer(code) => Some(Some(Intercepted::Answer(code))),
        Pre::ByName => None,
    }
}

impl Engine {
    /// Faults, older-driver emulation, the init check, privileges, the checks of a versioned
    /// record that the driver makes before anything else, and the profile's declared errors,
    /// before the function itself runs.
    fn intercept(&self, call: &Call) -> Option<Intercepted> {
        let name = call.name;
        let fire = |f: &Fault| f.spec.matches(name) && f.calls.fetch_add(1, Ordering::Relaxed) >= f.spec.after;
        if let Some(f) = self.env_faults.iter().find(|f| fire(f)) {
            return Some(Intercepted::Answer(f.spec.code));
        }
        if self.any_profile_faults.load(Ordering::Relaxed) {
            if let Ok(faults) = self.profile_faults.read() {
                if let Some(f) = faults.iter().find(|f| fire(f)) {
                    return Some(Intercepted::Answer(f.spec.code));
                }
            }
        }
        self.checks(call)
    }

    /// What the system decides before the function runs (see [`Engine::intercept`]): from the
    /// row of the function in its GPU's or the system's table, or by name where that depends
    /// on the call's arguments or the object is another.
    fn checks(&self, call: &Call) -> Option<Intercepted> {
        self.current(|s| self.checks_on(s.map(|s| &**s), call))
    }

    fn checks_on(&self, s: Option<&System>, call: &Call) -> Option<Intercepted> {
        let s = match s {
            None if !NO_INIT.contains(&call.name) => return Some(Intercepted::Answer(NVML_ERROR_UNINITIALIZED)),
            None => return None,
            Some(s) => s,
        };
        // Runtime state, so never resolved into a row: answers before a GPU is looked up.
        if !s.profile.before_attach.is_empty() && !s.attached.load(Ordering::Relaxed) {
            if let Some(code) = s.profile.before_attach.get(call.name) {
                let code = if s.absent.contains(call.name) { NVML_ERROR_FUNCTION_NOT_FOUND } else { *code };
                return Some(Intercepted::Answer(code));
            }
        }
        let decided = match call.object {
            Object::Device(h) => match s.any_device(h) {
                Ok(DeviceRef::Gpu(d)) => d.table.row(call.id).and_then(|row| by_row(row, d.table.lost)),
                // A MIG device is lost with its GPU, and has its GPU's errors from `ctl`.
                Ok(DeviceRef::Mig { parent, .. }) => {
                    parent.table.row(call.id).and_then(|row| by_ctl(row, parent.table.lost)).map(Some)
                }
                Err(_) => None,
            },
            Object::System => {
                let lost_index =
                    call.id == id::nvmlDeviceGetHandleByIndex || call.id == id::nvmlDeviceGetHandleByIndex_v2;
                let lost = lost_index
                    && call
                        .selectors
                        .first()
                        .and_then(|i| s.devices.get(usize::try_from(*i).ok()?))
                        .is_some_and(|d| d.table.lost);
                s.table.row(call.id).and_then(|row| by_row(row, lost))
            }
            _ => None,
        };
        match decided {
            Some(d) => d,
            None => s.checks_by_name(call),
        }
    }

    /// Whether the profile records values of function `id` (written by hand) for this object
    /// and these selector values: a capture's recording, which answers before the behaviour,
    /// until a setter changes the state the function reads (see [`set_since_init`]).
    pub fn recorded(&self, id: usize, object: Object, selectors: &[i64]) -> bool {
        if !self.recorded_ids.get(id).is_some_and(|r| r.load(Ordering::Relaxed)) {
            return false;
        }
        self.current(|s| {
            let Some(s) = s.filter(|s| s.recorded.get(id) == Some(&true)) else { return false };
            if set_since_init(s, object, function_name(id), selectors) {
                return false;
            }
            if let Some(t) = s.table_of(object) {
                let entry = t.row(id).and_then(|r| r.entry.as_deref());
                return matches!(entry.and_then(|e| e.select(selectors)), Some(Entry::Values(_)));
            }
            matches!(s.entry(function_name(id), object).and_then(|e| e.select(selectors)), Some(Entry::Values(_)))
        })
    }

    /// The initialised system, if `nvmlInit` has succeeded more often than `nvmlShutdown`.
    /// Moves whenever the system is replaced (init, shutdown, a `ctl` change): the CUDA
    /// engine takes its devices again then ([`crate::cuda`]).
    pub fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::Acquire)
    }

    pub fn system(&self) -> Option<Arc<System>> {
        self.current(|s| s.cloned())
    }

    /// The system, or `UNINITIALIZED` (a shutdown may race with a call).
    pub fn sys(&self) -> Result<Arc<System>, nvmlReturn_t> {
        self.system().ok_or(NVML_ERROR_UNINITIALIZED)
    }

    /// Runs `f` on the system (`None` before init). Each thread keeps the system it saw last
    /// with the engine's epoch then, and takes it again only after the epoch moved: a call
    /// costs one load, not a lock and a reference count. (A thread's view holds the system it
    /// saw until its next call, or until it exits.)
    pub fn current<R>(&self, f: impl FnOnce(Option<&Arc<System>>) -> R) -> R {
        let epoch = self.epoch.load(Ordering::Acquire);
        VIEW.with(|v| {
            // Calls inside `f` share the view; one that finds the epoch moved while the view
            // is in use looks the system up without keeping it.
            let fresh = match v.try_borrow() {
                Ok(view) if view.0 == epoch => return f(view.1.as_ref()),
                // The epoch is read before the system: a system newer than its epoch is
                // taken again at the next call, never an older one kept.
                _ => self.system.read().ok().and_then(|g| g.clone()),
            };
            if let Ok(mut view) = v.try_borrow_mut() {
                *view = (epoch, fresh.clone());
            }
            f(fresh.as_ref())
        })
    }

    /// The profile `NVML_MOCK_PROFILE` names with `changes` (of `nvml-mock ctl`), resolved;
    /// the last one again when neither changed. The error is the code `nvmlInit` answers and
    /// why.
    fn resolve(&self, changes: Option<&Changes>) -> Result<Arc<Resolved>, (nvmlReturn_t, String)> {
        let unknown = |e: String| (NVML_ERROR_UNKNOWN, e);
        let spec = std::env::var("NVML_MOCK_PROFILE").unwrap_or_default();
        let (origin, text) = profile::source(&spec).map_err(unknown)?;
        let key = ResolveKey { spec, text: text.into_owned(), changes: changes.cloned() };
        let mut cache = self.resolved.lock().map_err(|_| unknown("the mock's state is poisoned".into()))?;
        if let Some((k, r)) = cache.as_ref() {
            if *k == key {
                return Ok(r.clone());
            }
        }
        let overlay = changes.map(Changes::overlay).unwrap_or_default();
        let mut profile = profile::parse_with(&key.text, &origin, &overlay).map_err(unknown)?;
        with_library_driver(&mut profile).map_err(|e| (NVML_ERROR_LIB_RM_VERSION_MISMATCH, e))?;
        let r = Arc::new(Resolved::new(profile, changes));
        *cache = Some((key, r.clone()));
        Ok(r)
    }

    /// Makes `system` the current one, with its profile's faults.
    fn install(&self, system: System, r: &Resolved) -> nvmlReturn_t {
        let faults: Vec<Arc<Fault>> = (r.profile.faults.iter())
            .map(|spec| Arc::new(Fault { spec: spec.clone(), calls: AtomicU64::new(0) }))
            .collect();
        self.any_profile_faults.store(!faults.is_empty(), Ordering::Relaxed);
        if let Ok(mut f) = self.profile_faults.write() {
            *f = faults;
        }
        for (flag, on) in self.recorded_ids.iter().zip(r.recorded.iter()) {
            if *on {
                flag.store(true, Ordering::Relaxed);
            }
        }
        let Ok(mut sys) = self.system.write() else { return NVML_ERROR_UNKNOWN };
        *sys = Some(Arc::new(system));
        self.epoch.fetch_add(1, Ordering::AcqRel);
        NVML_SUCCESS
    }

    /// `nvmlInit*`: the first call loads the profile (with the changes of the session
    /// `NVML_MOCK_SESSION` names, which it joins); later ones only count.
    pub fn init(&self) -> nvmlReturn_t {
        let Ok(mut count) = self.lifecycle.lock() else { return NVML_ERROR_UNKNOWN };
        if *count == 0 {
            if let Some(e) = &self.env_error {
                eprintln!("nvml-mock: {e}");
                return NVML_ERROR_UNKNOWN;
            }
            let unknown = |e: String| (NVML_ERROR_UNKNOWN, e);
            let loaded = (|| {
                let session = ctl::join().map_err(unknown)?;
                let resolved = self.resolve(session.as_ref().map(|(_, s)| &s.changes))?;
                let live_pids = processes::live_pids_env().map_err(unknown)?;
                frozen_clock().map_err(unknown)?;
                let mig = match &session {
                    Some((_, state)) => state.mig.clone(),
                    None => self.local_trees(),
                };
                let system = System::new(&resolved, live_pids, None, &mig).map_err(unknown)?;
                if let Some((generation, state)) = &session {
                    ctl::joined_at(*generation, state);
                }
                Ok((system, resolved))
            })();
            let (system, resolved) = match loaded {
                Ok(s) => s,
                Err((code, e)) => {
                    eprintln!("nvml-mock: {e}");
                    return code;
                }
            };
            if self.strict {
                let (p, absent) = (&system.profile, system.absent.len());
                eprintln!("nvml-mock (strict): loaded profile `{}` with {} devices; {absent} functions answer NVML_ERROR_FUNCTION_NOT_FOUND", p.name, p.devices.len());
            }
            let code = self.install(system, &resolved);
            if code != NVML_SUCCESS {
                return code;
            }
        }
        *count += 1;
        NVML_SUCCESS
    }

    /// Takes in the changes of `nvml-mock ctl` since the system was made: a new system of the
    /// changed profile, which shares the old one's state, and the events injected since,
    /// delivered to the event sets that want them. A change this process's profile cannot
    /// take is reported on stderr and left out.
    pub fn refresh(&self) {
        let Ok(count) = self.lifecycle.lock() else { return };
        let Some((generation, state)) = ctl::pending() else { return };
        self.take_in(*count, generation, &state);
    }

    /// Makes the system of the session's `state`, read (or written) at `generation` (see
    /// [`Engine::refresh`]); `count`: how often the library is initialised, under its lock.
    fn take_in(&self, count: u32, generation: u64, state: &crate::session::State) {
        let current = if count == 0 { None } else { self.system() };
        if let Some(old) = current {
            let rebuilt = self.resolve(Some(&state.changes)).map_err(|(_, e)| e).and_then(|r| {
                let system = System::new(&r, None, Some(&old), &state.mig)?;
                Ok((system, r))
            });
            match rebuilt {
                Ok((system, r)) => {
                    let events = system.event_sets.clone();
                    self.install(system, &r);
                    ctl::deliver(state, &events.all());
                }
                Err(e) => {
                    eprintln!("nvml-mock: session `{}`: {e}; this process keeps its GPUs as they were", state.name)
                }
            }
        }
        ctl::seen(generation, state);
    }

    /// `nvmlShutdown`: the last one drops the system and its handles.
    pub fn shutdown(&self) -> nvmlReturn_t {
        let Ok(mut count) = self.lifecycle.lock() else { return NVML_ERROR_UNKNOWN };
        if *count == 0 {
            return NVML_ERROR_UNINITIALIZED;
        }
        *count -= 1;
        if *count == 0 {
            if let Ok(mut sys) = self.system.write() {
                *sys = None;
                self.epoch.fetch_add(1, Ordering::AcqRel);
            }
        }
        NVML_SUCCESS
    }

    /// Called for every function the engine does not implement, or for which the profile
    /// gives no value.
    pub fn report_unimplemented(&self, function: &'static str) -> nvmlReturn_t {
        if self.strict {
            eprintln!("nvml-mock (strict): {function}: no value in the profile and no behaviour in the mock; answering NVML_ERROR_NOT_SUPPORTED");
        }
        NVML_ERROR_NOT_SUPPORTED
    }

    /// Runs `f` on the system (the usual body of a hand-written function).
    pub fn with(&self, f: impl FnOnce(&System) -> ffi::Status) -> nvmlReturn_t {
        self.current(|sys| ffi::code(sys.ok_or(NVML_ERROR_UNINITIALIZED).and_then(|sys| f(sys))))
    }

    /// Runs `f` on the GPU behind `h`: unknown handles are `INVALID_ARGUMENT`, MIG devices
    /// `NOT_SUPPORTED` (a query the mock answers only for whole GPUs).
    pub fn dev(&self, h: nvmlDevice_t, f: impl FnOnce(&System, &Device) -> ffi::Status) -> nvmlReturn_t {
        self.with(|sys| match sys.any_device(h)? {
            DeviceRef::Gpu(d) => f(sys, d),
            DeviceRef::Mig { .. } => Err(NVML_ERROR_NOT_SUPPORTED),
        })
    }

    /// Runs `f` on the GPU or MIG device behind `h`.
    pub fn any_dev(&self, h: nvmlDevice_t, f: impl FnOnce(&System, DeviceRef) -> ffi::Status) -> nvmlReturn_t {
        self.with(|sys| f(sys, sys.any_device(h)?))
    }
}

/// Whether a setter has changed, since `nvmlInit`, the state that `function` reads on the GPU
/// `object` for these selector values (application clocks, power limit, persistence and compute
/// modes, the MIG tree): the engine then answers that state, not a value the profile records.
fn set_since_init(s: &System, object: Object, function: &str, selectors: &[i64]) -> bool {
    let set: fn(&DeviceState, &[i64]) -> bool = match function {
        "nvmlDeviceGetApplicationsClock" => |state, _| state.application_clocks.is_some(),
        "nvmlDeviceGetClock" => |state, selectors| {
            state.application_clocks.is_some() && selectors.get(1) == Some(&i64::from(NVML_CLOCK_ID_APP_CLOCK_TARGET))
        },
        "nvmlDeviceGetPowerManagementLimit" | "nvmlDeviceGetEnforcedPowerLimit" => {
            |state, _| state.power_limit_mw.is_some()
        }
        "nvmlDeviceGetPersistenceMode" => |state, _| state.persistence_mode.is_some(),
        "nvmlDeviceGetComputeMode" => |state, _| state.compute_mode.is_some(),
        "nvmlDeviceGetMigMode" => {
            let Object::Device(h) = object else { return false };
            return matches!(s.any_device(h), Ok(DeviceRef::Gpu(d)) if d.mig_changed);
        }
        _ => return false,
    };
    let Object::Device(h) = object else { return false };
    let Ok(DeviceRef::Gpu(d)) = s.any_device(h) else { return false };
    d.state.lock().is_ok_and(|state| set(&state, selectors))
}

/// `Some` value, or `NOT_SUPPORTED` when the profile leaves it out.
pub fn need<T>(v: Option<T>) -> Result<T, nvmlReturn_t> {
    v.ok_or(NVML_ERROR_NOT_SUPPORTED)
}

/// `NVML_FEATURE_ENABLED` or `_DISABLED`.
pub fn enable(b: bool) -> nvmlEnableState_t {
    if b {
        NVML_FEATURE_ENABLED
    } else {
        NVML_FEATURE_DISABLED
    }
}

/// The text driver 580.159.04 gives each return code (`nvmlErrorString`), as `nvml-mock
/// capture` recorded it on an H200 (`crates/nvml-mock/tests/real/`); a code it does not know
/// is "Unknown Error".
const ERROR_STRINGS: &[(nvmlReturn_t, &std::ffi::CStr)] = &[
    (NVML_SUCCESS, c"Success"),
    (NVML_ERROR_UNINITIALIZED, c"Uninitialized"),
    (NVML_ERROR_INVALID_ARGUMENT, c"Invalid Argument"),
    (NVML_ERROR_NOT_SUPPORTED, c"Not Supported"),
    (NVML_ERROR_NO_PERMISSION, c"Insufficient Permissions"),
    (NVML_ERROR_ALREADY_INITIALIZED, c"Already Initialized"),
    (NVML_ERROR_NOT_FOUND, c"Not Found"),
    (NVML_ERROR_INSUFFICIENT_SIZE, c"Insufficient Size"),
    (NVML_ERROR_INSUFFICIENT_POWER, c"Insufficient External Power"),
    (NVML_ERROR_DRIVER_NOT_LOADED, c"Driver Not Loaded"),
    (NVML_ERROR_TIMEOUT, c"Timeout"),
    (NVML_ERROR_IRQ_ISSUE, c"Interrupt Request Issue"),
    (NVML_ERROR_LIBRARY_NOT_FOUND, c"NVML Shared Library Not Found"),
    (NVML_ERROR_FUNCTION_NOT_FOUND, c"Function Not Found"),
    (NVML_ERROR_CORRUPTED_INFOROM, c"Corrupted infoROM"),
    (NVML_ERROR_GPU_IS_LOST, c"GPU is lost"),
    (NVML_ERROR_RESET_REQUIRED, c"GPU requires reset"),
    (NVML_ERROR_OPERATING_SYSTEM, c"GPU access blocked by the operating system"),
    (NVML_ERROR_LIB_RM_VERSION_MISMATCH, c"Driver/library version mismatch"),
    (NVML_ERROR_IN_USE, c"In use by another client"),
    (NVML_ERROR_MEMORY, c"Insufficient Memory"),
    (NVML_ERROR_NO_DATA, c"No data"),
    (NVML_ERROR_VGPU_ECC_NOT_SUPPORTED, c"vGPU ECC not supported"),
    (NVML_ERROR_INSUFFICIENT_RESOURCES, c"Insufficient Resources"),
    (NVML_ERROR_FREQ_NOT_SUPPORTED, c"Invalid Frequency"),
    (NVML_ERROR_ARGUMENT_VERSION_MISMATCH, c"Argument version mismatch"),
    (NVML_ERROR_DEPRECATED, c"Requested functionality has been deprecated"),
    (NVML_ERROR_NOT_READY, c"System is not in ready state"),
    (NVML_ERROR_GPU_NOT_FOUND, c"No supported GPUs were found"),
    (NVML_ERROR_INVALID_STATE, c"Resource not in correct state to perform requested operation"),
    (NVML_ERROR_RESET_TYPE_NOT_SUPPORTED, c"Reset type is not supported for given device"),
];

/// The static text of every return code (`nvmlErrorString`).
pub fn error_string(code: nvmlReturn_t) -> &'static std::ffi::CStr {
    ERROR_STRINGS.iter().find(|(c, _)| *c == code).map(|(_, s)| *s).unwrap_or(c"Unknown Error")
}
