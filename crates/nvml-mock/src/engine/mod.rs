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
pub(crate) mod device;
pub(crate) mod ecc;
pub(crate) mod events;
pub(crate) mod fields;
pub(crate) mod gpm;
pub mod hostile;
pub(crate) mod internal;
pub(crate) mod log;
pub(crate) mod mig;
pub(crate) mod nvlink;
pub(crate) mod perf;
pub(crate) mod processes;
pub(crate) mod system;
pub(crate) mod vgpu;

use std::collections::{BTreeMap, BTreeSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use nvml_sys::*;

use crate::driver;
use crate::ffi;
use crate::generated::api::Api;
pub use events::{EventSet, SystemEventSet};
pub use gpm::GpmSample;
pub use mig::{ComputeInstance, GpuInstance};

use crate::answer::{Call, Entry, Object, Val};
use crate::generated::tables::{MIN_ARCH, PRIVILEGED, VERSIONED};
use crate::profile::{self, Entries, FaultSpec, Flat, Profile};

/// Functions whose header names a newer architecture than the GPUs a real driver answers them
/// on: `nvmlDeviceReadPRMCounters_v1` ("For Blackwell or newer") answers `NVML_SUCCESS` on an
/// H200 with driver 580.159.04, each counter's status `NVML_ERROR_NOT_SUPPORTED`
/// (`crates/nvml-mock/tests/real/`).
const ANSWERED_BEFORE_ITS_ARCHITECTURE: &[&str] = &["nvmlDeviceReadPRMCounters_v1"];

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
    /// The MIG mode set to take effect after a reset (`nvmlDeviceSetMigMode`).
    pub mig_pending: Option<bool>,
}

/// One GPU: its handle is the address of this struct, stable while the library is initialised.
#[derive(Debug)]
pub struct Device {
    pub index: usize,
    pub spec: Flat,
    pub state: Mutex<DeviceState>,
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

/// Everything that exists between the first `nvmlInit` and the last `nvmlShutdown`.
#[derive(Debug)]
pub struct System {
    pub profile: Profile,
    pub devices: Vec<Box<Device>>,
    /// Every device's GPU instances (MIG), in device order.
    pub gpu_instances: Vec<Box<GpuInstance>>,
    pub event_sets: Handles<EventSet>,
    pub system_event_sets: Handles<SystemEventSet>,
    pub gpm_samples: Handles<GpmSample>,
    /// Functions the emulated driver lacks (see [`absent_functions`]).
    pub absent: BTreeSet<String>,
    /// The profile's process ids → the ids clients see (live processes with `live_pids`).
    pub pids: BTreeMap<u32, u32>,
    /// When the library was initialised (µs since the epoch): the time counters start from.
    pub started_us: u64,
    /// Values set while the system runs (by setters), by object, function and selector values:
    /// a getter answered from data answers them before the profile's.
    pub live: Mutex<BTreeMap<LiveKey, Vec<Val>>>,
    /// Whether a GPU has been looked up since `nvmlInit` (`system.before_attach`).
    pub attached: std::sync::atomic::AtomicBool,
}

/// What a value set while the system runs is for: the object, the function and its selector
/// values.
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
    /// The system a profile describes; a MIG tree its instance profiles cannot hold is an
    /// error (see [`mig::check_tree`]).
    pub(crate) fn new(profile: Profile, live_pids: Option<BTreeMap<u32, u32>>) -> Result<System, String> {
        let devices: Vec<Box<Device>> = profile
            .devices
            .iter()
            .enumerate()
            .map(|(index, spec)| {
                let state = DeviceState { grow_remaining: profile.grow_processes, ..DeviceState::default() };
                Box::new(Device { index, spec: spec.clone(), state: Mutex::new(state) })
            })
            .collect();
        for d in &devices {
            mig::check_tree(d)?;
        }
        let gpu_instances = devices.iter().flat_map(|d| mig::gpu_instances(d)).collect();
        let absent = absent_functions(&profile);
        let pids = processes::pid_map(&profile, live_pids);
        Ok(System {
            profile,
            devices,
            gpu_instances,
            event_sets: Handles::default(),
            system_event_sets: Handles::default(),
            gpm_samples: Handles::default(),
            absent,
            pids,
            started_us: now_us(),
            live: Mutex::new(BTreeMap::new()),
            attached: std::sync::atomic::AtomicBool::new(false),
        })
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
        let key = self.live_object(object)?;
        let live = self.live.lock().ok()?;
        live.iter().find(|((o, f, s), _)| *o == key && *f == function && s == selectors).map(|(_, v)| v.clone())
    }

    /// Sets the value `function` of `object` answers for these selector values.
    pub fn set_live(&self, function: &'static str, object: Object, selectors: &[i64], values: Vec<Val>) -> ffi::Status {
        let key = self.live_object(object).ok_or(NVML_ERROR_INVALID_ARGUMENT)?;
        let mut live = self.live.lock().map_err(|_| NVML_ERROR_UNKNOWN)?;
        live.insert((key, function, selectors.to_vec()), values);
        Ok(())
    }

    /// The GPU behind a handle; anything that is not one of ours (a MIG device included) is
    /// rejected without being dereferenced.
    pub fn device(&self, handle: nvmlDevice_t) -> Result<&Device, nvmlReturn_t> {
        self.devices
            .iter()
            .find(|d| std::ptr::eq::<Device>(&***d, handle as *const Device))
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
        &*self.devices[index] as *const Device as nvmlDevice_t
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
            names.clone().find_map(|f| if p.is_empty() { entries.get(f) } else { entries.get(&format!("{p}{f}")) })
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
        if ANSWERED_BEFORE_ITS_ARCHITECTURE.contains(&function) {
            return false;
        }
        let Ok(i) = MIN_ARCH.binary_search_by(|(f, _, _)| (*f).cmp(function)) else { return false };
        self.architecture(object).is_some_and(|arch| arch < MIN_ARCH[i].2)
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

/// The process-wide mock.
#[derive(Debug)]
pub struct Engine {
    /// Serialises init and shutdown; holds the reference count.
    lifecycle: Mutex<u32>,
    system: RwLock<Option<Arc<System>>>,
    /// Faults from `NVML_MOCK_FAULTS` (fixed) and from the profile (set at init).
    env_faults: Vec<Fault>,
    profile_faults: RwLock<Vec<Arc<Fault>>>,
    env_error: Option<String>,
    strict: bool,
}

static ENGINE: OnceLock<Engine> = OnceLock::new();

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
            env_error,
            strict: std::env::var("NVML_MOCK_STRICT").is_ok_and(|v| !v.is_empty() && v != "0"),
        }
    })
}

/// Runs an exported function that returns `nvmlReturn_t`: faults, driver emulation, the init
/// check and the argument checks the driver makes first ([`Engine::intercept`]), then `f`.
pub fn entry(call: Call, f: impl FnOnce(&Engine) -> nvmlReturn_t) -> nvmlReturn_t {
    let e = engine();
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
        if let Ok(faults) = self.profile_faults.read() {
            if let Some(f) = faults.iter().find(|f| fire(f)) {
                return Some(Intercepted::Answer(f.spec.code));
            }
        }
        self.checks(call)
    }

    /// What the system decides before the function runs (see [`Engine::intercept`]).
    fn checks(&self, call: &Call) -> Option<Intercepted> {
        let name = call.name;
        let answer = |code| Some(Intercepted::Answer(code));
        // Looked at under the read lock: no `Arc` clone on every call just to check this.
        let guard = self.system.read().ok()?;
        let s = match guard.as_deref() {
            None if !NO_INIT.contains(&name) => return answer(NVML_ERROR_UNINITIALIZED),
            None => return None,
            Some(s) => s,
        };
        if s.absent.contains(name) {
            return answer(NVML_ERROR_FUNCTION_NOT_FOUND);
        }
        if !s.profile.before_attach.is_empty() && !s.attached.load(Ordering::Relaxed) {
            if let Some(code) = s.profile.before_attach.get(name) {
                return answer(*code);
            }
        }
        if !s.profile.privileged && PRIVILEGED.binary_search(&name).is_ok() {
            return answer(NVML_ERROR_NO_PERMISSION);
        }
        let mut as_version = None;
        if let Some(layouts) = versioned(name) {
            match s.record_check(name, call.object, call.record, layouts) {
                Some(RecordCheck::Answer(code)) => return answer(code),
                Some(RecordCheck::AsVersion(own, caller)) => as_version = Some(Intercepted::AsVersion(own, caller)),
                None => {}
            }
        }
        match s.entry(name, call.object) {
            Some(e) => match e.select(call.selectors) {
                Some(Entry::Error { code, .. }) => answer(*code),
                _ => as_version,
            },
            None if s.too_old(name, call.object) => answer(NVML_ERROR_NOT_SUPPORTED),
            None => as_version,
        }
    }

    /// Whether the profile records values of `function` (written by hand) for this object and
    /// these selector values: a capture's recording, which answers before the behaviour, until
    /// a setter changes the state the function reads (see [`set_since_init`]).
    pub fn recorded(&self, function: &str, object: Object, selectors: &[i64]) -> bool {
        let Ok(guard) = self.system.read() else { return false };
        let Some(s) = guard.as_deref() else { return false };
        if let Object::Device(h) = object {
            if let Ok(DeviceRef::Gpu(d)) = s.any_device(h) {
                if set_since_init(d, function, selectors) {
                    return false;
                }
            }
        }
        matches!(s.entry(function, object).and_then(|e| e.select(selectors)), Some(Entry::Values(_)))
    }

    /// The initialised system, if `nvmlInit` has succeeded more often than `nvmlShutdown`.
    pub fn system(&self) -> Option<Arc<System>> {
        self.system.read().ok()?.clone()
    }

    /// The system, or `UNINITIALIZED` (a shutdown may race with a call).
    pub fn sys(&self) -> Result<Arc<System>, nvmlReturn_t> {
        self.system().ok_or(NVML_ERROR_UNINITIALIZED)
    }

    /// `nvmlInit*`: the first call loads the profile; later ones only count.
    pub fn init(&self) -> nvmlReturn_t {
        let Ok(mut count) = self.lifecycle.lock() else { return NVML_ERROR_UNKNOWN };
        if *count == 0 {
            if let Some(e) = &self.env_error {
                eprintln!("nvml-mock: {e}");
                return NVML_ERROR_UNKNOWN;
            }
            let unknown = |e: String| (NVML_ERROR_UNKNOWN, e);
            let loaded = (|| {
                let mut profile = profile::load_from_env().map_err(unknown)?;
                let live_pids = processes::live_pids_env().map_err(unknown)?;
                with_library_driver(&mut profile).map_err(|e| (NVML_ERROR_LIB_RM_VERSION_MISMATCH, e))?;
                frozen_clock().map_err(unknown)?;
                System::new(profile, live_pids).map_err(unknown)
            })();
            let system = match loaded {
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
            let faults = system
                .profile
                .faults
                .iter()
                .map(|spec| Arc::new(Fault { spec: spec.clone(), calls: AtomicU64::new(0) }))
                .collect();
            if let Ok(mut f) = self.profile_faults.write() {
                *f = faults;
            }
            let Ok(mut sys) = self.system.write() else { return NVML_ERROR_UNKNOWN };
            *sys = Some(Arc::new(system));
        }
        *count += 1;
        NVML_SUCCESS
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
        ffi::code(self.sys().and_then(|sys| f(&sys)))
    }

    /// Runs `f` on the GPU behind `h`: unknown handles are `INVALID_ARGUMENT`, MIG devices
    /// `NOT_SUPPORTED` (a query the mock answers only for whole GPUs).
    pub fn dev(&self, h: nvmlDevice_t, f: impl FnOnce(&System, &Device) -> ffi::Status) -> nvmlReturn_t {
        ffi::code(self.sys().and_then(|sys| match sys.any_device(h)? {
            DeviceRef::Gpu(d) => f(&sys, d),
            DeviceRef::Mig { .. } => Err(NVML_ERROR_NOT_SUPPORTED),
        }))
    }

    /// Runs `f` on the GPU or MIG device behind `h`.
    pub fn any_dev(&self, h: nvmlDevice_t, f: impl FnOnce(&System, DeviceRef) -> ffi::Status) -> nvmlReturn_t {
        ffi::code(self.sys().and_then(|sys| f(&sys, sys.any_device(h)?)))
    }
}

/// Whether a setter has changed, since `nvmlInit`, the state that `function` reads on GPU `d`
/// for these selector values (application clocks, power limit, persistence and compute modes,
/// pending MIG mode): the engine then answers that state, not a value the profile records.
fn set_since_init(d: &Device, function: &str, selectors: &[i64]) -> bool {
    let Ok(state) = d.state.lock() else { return false };
    match function {
        "nvmlDeviceGetApplicationsClock" => state.application_clocks.is_some(),
        "nvmlDeviceGetClock" => {
            state.application_clocks.is_some() && selectors.get(1) == Some(&i64::from(NVML_CLOCK_ID_APP_CLOCK_TARGET))
        }
        "nvmlDeviceGetPowerManagementLimit" | "nvmlDeviceGetEnforcedPowerLimit" => state.power_limit_mw.is_some(),
        "nvmlDeviceGetPersistenceMode" => state.persistence_mode.is_some(),
        "nvmlDeviceGetComputeMode" => state.compute_mode.is_some(),
        "nvmlDeviceGetMigMode" => state.mig_pending.is_some(),
        _ => false,
    }
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
