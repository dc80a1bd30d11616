//! Step 1 of a capture: every answer of a library, by object, function and selector values.
//!
//! Only getters are called (the generated readers, whose functions `cargo xtask regen` picks
//! with the same rule as the mock's answers: no `Set`, no read-write access), plus
//! `nvmlInit_v2`, `nvmlShutdown`, `nvmlErrorString`, the handle lookups, and an event set of
//! this process (created, registered, drained without waiting and freed).

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::c_uint;
use std::fmt;

use nvml_sys::*;

use crate::answer::{enum_constants, schema, Object, Val};
use crate::ffi::{call, read_str};
use crate::generated::capture::READERS;
use crate::generated::names::FUNCTIONS;
use crate::generated::tables::VERSIONED;
use crate::profile::Checks;
use crate::reading::{Cx, Mode};
use crate::schema::{Field, ObjectKind, T};

/// A function's answer: its outputs' values, or the code it returned.
pub type Answer = Result<Vec<Val>, u32>;

/// The answers of each function for one object, by selector values.
pub type Answers = BTreeMap<&'static str, BTreeMap<Vec<i64>, Answer>>;

/// A field value as the driver answered it.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldAnswer {
    /// `valueType` and the value (an integer, or a float for `NVML_VALUE_TYPE_DOUBLE`).
    Value(u32, Val),
    Error(u32),
    /// The driver wrote nothing into the entry (not even its `nvmlReturn`).
    Unwritten,
}

/// What a request of several fields does on a GPU: the fields it leaves unwritten when it also
/// asks for one of the triggers (driver 580.159.04 on an H100 or H200: a C2C field, which these
/// GPUs do not have, leaves the power limits, thermal limits and power-smoothing fields
/// unwritten). Both lists empty when a request of every field answers each as alone.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FieldBatches {
    pub triggers: Vec<u32>,
    pub unwritten: Vec<u32>,
}

/// What a field entry holds before the call, to tell an entry the driver left alone.
const UNWRITTEN: i32 = 0x5a5a_5a5a;

/// A field entry for `id` and `scope`, its outputs set to [`UNWRITTEN`].
fn field_entry(id: u32, scope: u32) -> nvmlFieldValue_t {
    nvmlFieldValue_t {
        fieldId: id,
        scopeId: scope,
        nvmlReturn: UNWRITTEN as nvmlReturn_t,
        valueType: UNWRITTEN as nvmlValueType_t,
        ..Default::default()
    }
}

/// A GPU instance and what its functions answered.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GpuInstanceRec {
    pub id: u32,
    pub profile_id: u32,
    pub start: u32,
    pub size: u32,
    pub answers: Answers,
    pub compute_instances: Vec<ComputeInstanceRec>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ComputeInstanceRec {
    pub id: u32,
    pub profile_id: u32,
    pub start: u32,
    pub size: u32,
    pub answers: Answers,
}

/// A GPU and everything recorded of it.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceRec {
    pub answers: Answers,
    /// How the argument checks of its functions that take a versioned record are ordered.
    pub checks: BTreeMap<&'static str, Checks>,
    /// The GPM metrics over a tenth of a second, by metric id (those the driver answered;
    /// NaN included), rounded to a millionth as the mock computes them.
    pub gpm: BTreeMap<u32, f64>,
    /// The GPU part number `nvidia-smi -q` shows, from slot 231 of the driver's export table
    /// (driver branch 580 only, where that slot was recorded), or the code it answered.
    pub part_number: Option<Result<String, u32>>,
    /// Field values by field id (the driver's numbering) and scope.
    pub fields: BTreeMap<(u32, u32), FieldAnswer>,
    /// What a request of several fields leaves unwritten.
    pub field_batches: FieldBatches,
    /// Its MIG devices, by index.
    pub mig_devices: Vec<Answers>,
    pub gpu_instances: Vec<GpuInstanceRec>,
    /// Its vGPU instances, by id.
    pub vgpu_instances: BTreeMap<u32, Answers>,
    /// Events pending for an event set registered for every type it supports: `(type, data)`.
    pub events: Vec<(u64, u64)>,
    /// Its CPU affinity, as a bit mask in 64-bit words.
    pub cpu_affinity: Option<Vec<u64>>,
    /// Its supported P-states (`NVML_PSTATE_UNKNOWN` left out), or the code it answered.
    pub pstates: Option<Result<Vec<u32>, u32>>,
    /// Its memory affinity (NUMA nodes) as a bit mask in 64-bit words.
    pub memory_affinity: Option<Vec<u64>>,
    /// What the functions without a reader answered one plain call (see [`statuses`]).
    pub statuses: BTreeMap<&'static str, u32>,
    /// The topology level it shares with each other GPU (`nvmlDeviceGetTopologyCommonAncestor`),
    /// by index, or the code answered.
    pub topology: BTreeMap<usize, Result<u32, u32>>,
    /// Its vGPU metadata string (`nvmlDeviceGetPgpuMetadataString`), or the code answered.
    pub pgpu_metadata: Result<String, u32>,
    /// Its unique uncorrected SRAM ECC errors (`nvmlDeviceGetSramUniqueUncorrectedEccErrorCounts`'s
    /// entries as records), or the code it answered.
    pub sram_errors: Result<Vec<Val>, u32>,
}

impl Default for DeviceRec {
    fn default() -> Self {
        DeviceRec {
            answers: Answers::new(),
            checks: BTreeMap::new(),
            fields: BTreeMap::new(),
            field_batches: FieldBatches::default(),
            gpm: BTreeMap::new(),
            part_number: None,
            mig_devices: Vec::new(),
            gpu_instances: Vec::new(),
            vgpu_instances: BTreeMap::new(),
            events: Vec::new(),
            cpu_affinity: None,
            pstates: None,
            memory_affinity: None,
            statuses: BTreeMap::new(),
            sram_errors: Err(NVML_ERROR_FUNCTION_NOT_FOUND),
            topology: BTreeMap::new(),
            pgpu_metadata: Err(NVML_ERROR_FUNCTION_NOT_FOUND),
        }
    }
}

/// Everything a capture recorded.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Recording {
    /// How many calls the recording made.
    pub calls: usize,
    pub system: Answers,
    /// The answers of `BEFORE_ATTACH` before any GPU was looked up.
    pub before_attach: Answers,
    pub system_checks: BTreeMap<&'static str, Checks>,
    pub devices: Vec<DeviceRec>,
    pub vgpu_types: BTreeMap<u32, Answers>,
    /// The functions of the header the library exports.
    pub exports: BTreeSet<&'static str>,
    /// Whether it exports `nvmlInternalGetExportTable` (what `nvidia-smi` needs).
    pub export_table: bool,
    /// Record versions the library refused with `NVML_ERROR_ARGUMENT_VERSION_MISMATCH`.
    pub refused: BTreeSet<&'static str>,
    /// `nvmlErrorString` of each code of the header, and of one it does not know (`999`).
    pub error_strings: BTreeMap<u32, String>,
    /// The probes the library crashed on (`object: function (status)`).
    pub crashed: Vec<String>,
    /// `nvmlSystemGetDriverBranch`.
    pub driver_branch: Option<Result<String, u32>>,
    /// System events pending for a set registered for every type: `(type, GPU id)`.
    pub system_events: Vec<(u64, u32)>,
    /// What the system functions without a reader answered one plain call.
    pub statuses: BTreeMap<&'static str, u32>,
}

impl Recording {
    /// The driver version the library reported.
    pub fn driver_version(&self) -> Option<&str> {
        match self.system.get("nvmlSystemGetDriverVersion")?.get(&Vec::new())? {
            Ok(v) => v.first().map(Val::str),
            Err(_) => None,
        }
    }

    /// The value of a function without selectors for the system.
    pub fn system_value(&self, function: &str) -> Option<&Val> {
        first_value(&self.system, function, &[])
    }
}

/// The first output of `function` for these selectors, if it answered.
pub fn first_value<'a>(answers: &'a Answers, function: &str, selectors: &[i64]) -> Option<&'a Val> {
    answers.get(function)?.get(selectors)?.as_ref().ok()?.first()
}

/// Output `index` of `function` for these selectors, if it answered.
pub fn value_at<'a>(answers: &'a Answers, function: &str, selectors: &[i64], index: usize) -> Option<&'a Val> {
    answers.get(function)?.get(selectors)?.as_ref().ok()?.get(index)
}

/// Where a recorded answer was given.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Place {
    System,
    Device(usize),
    MigDevice(usize, usize),
    GpuInstance(usize, u32),
    ComputeInstance(usize, u32, u32),
    VgpuType(u32),
    VgpuInstance(usize, u32),
}

/// An answer (or a set of answers) of the mock that differs from the machine's.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Difference {
    pub place: Place,
    /// A function's name, or `field <id>`, `checks`, `events`, `exports`, ...
    pub what: String,
    pub selectors: Vec<i64>,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}: {}", self.place, self.what)?;
        if !self.selectors.is_empty() {
            write!(f, " {:?}", self.selectors)?;
        }
        Ok(())
    }
}

/// Records every answer of `lib` (initialised and shut down here).
pub fn record(lib: &NvmlLib, probes: Option<&Prober>) -> Result<Recording, String> {
    let mut r = Recording::default();
    for f in FUNCTIONS.iter() {
        if lib.has_symbol(f) {
            r.exports.insert(f);
        }
    }
    r.export_table = lib.has_symbol("nvmlInternalGetExportTable");
    if let Ok(f) = lib.nvmlErrorString() {
        let codes = crate::generated::names::CONSTANTS
            .iter()
            .filter(|(n, _)| *n == "NVML_SUCCESS" || n.starts_with("NVML_ERROR_"))
            .filter_map(|(_, v)| u32::try_from(*v).ok())
            .chain([999]);
        for code in codes {
            let text = call!(f(code));
            if let Ok(s) = read_str(text) {
                r.error_strings.insert(code, s);
            }
        }
    }
    let init = lib.nvmlInit_v2().map_err(|e| format!("the library has no nvmlInit_v2: {e}"))?;
    let code = call!(init());
    if code != NVML_SUCCESS {
        return Err(format!(
            "nvmlInit_v2 answered {code} ({})",
            r.error_strings.get(&code).map_or("?", String::as_str)
        ));
    }
    let result = record_initialised(lib, &mut r, probes);
    if let Ok(shutdown) = lib.nvmlShutdown() {
        call!(shutdown());
    }
    result.map(|()| r)
}

fn record_initialised(lib: &NvmlLib, r: &mut Recording, probes: Option<&Prober>) -> Result<(), String> {
    let mut cx = Cx::new(lib);
    let mut calls = 0usize;
    // What the driver answers before any GPU is looked up, first.
    for (function, reader, selectors) in readers_of(ObjectKind::System) {
        if BEFORE_ATTACH.contains(&function) {
            let mut by = BTreeMap::new();
            for values in combinations(function, selectors, &Answers::new(), &Answers::new()) {
                calls += 1;
                by.insert(values.clone(), reader(&mut cx, Object::System, &values));
            }
            r.before_attach.insert(function, by);
        }
    }
    // Then the GPUs are looked up (which attaches them), and the system read as it answers
    // from then on.
    let handles = device_handles(lib);
    read_object(&mut cx, &mut calls, ObjectKind::System, Object::System, &mut r.system, &Answers::new());
    if let Some(p) = probes {
        r.system_checks =
            probe_checks(&mut cx, &mut calls, p, ObjectKind::System, Object::System, "system", &mut r.crashed);
    }
    r.driver_branch = driver_branch(lib);
    r.statuses = system_statuses(lib);
    for (i, &h) in handles.iter().enumerate() {
        let mut d = DeviceRec::default();
        read_object(&mut cx, &mut calls, ObjectKind::Device, Object::Device(h), &mut d.answers, &r.system);
        gpu_instance_profile_names(lib, h, &mut d.answers, &mut calls);
        if let Some(p) = probes {
            let name = i.to_string();
            d.checks =
                probe_checks(&mut cx, &mut calls, p, ObjectKind::Device, Object::Device(h), &name, &mut r.crashed);
        }
        d.fields = fields(lib, h, &mut calls);
        d.field_batches = field_batches(lib, h, &d.fields, &mut calls);
        d.gpm = gpm(lib, h, &mut calls);
        if driver_of(&r.system).is_some_and(|v| v.starts_with("580.")) {
            calls += 1;
            d.part_number = crate::ffi::export_table_string(lib, PART_NUMBER_SLOT, h);
        }
        d.cpu_affinity = cpu_affinity(lib, h);
        d.memory_affinity = memory_affinity(lib, h);
        d.pstates = pstates(lib, h);
        d.statuses = statuses(lib, h);
        d.sram_errors = sram_errors(lib, h);
        d.pgpu_metadata = pgpu_metadata(lib, h);
        // MIG devices, and the GPU and compute instances.
        for m in mig_devices(lib, h) {
            let mut a = Answers::new();
            read_object(&mut cx, &mut calls, ObjectKind::Device, Object::Device(m), &mut a, &r.system);
            d.mig_devices.push(a);
        }
        d.gpu_instances = gpu_instances(&mut cx, &mut calls, h, &d.answers, &r.system);
        for id in list_ints(&d.answers, "nvmlDeviceGetActiveVgpus") {
            let mut a = Answers::new();
            read_object(
                &mut cx,
                &mut calls,
                ObjectKind::VgpuInstance,
                Object::VgpuInstance(id as u32),
                &mut a,
                &d.answers,
            );
            d.vgpu_instances.insert(id as u32, a);
        }
        for id in list_ints(&d.answers, "nvmlDeviceGetSupportedVgpus") {
            r.vgpu_types.entry(id as u32).or_insert_with(|| {
                let mut a = Answers::new();
                read_object(&mut cx, &mut calls, ObjectKind::VgpuType, Object::VgpuType(id as u32), &mut a, &d.answers);
                a
            });
        }
        r.devices.push(d);
    }
    if let Ok(f) = lib.nvmlDeviceGetTopologyCommonAncestor() {
        for (i, &a) in handles.iter().enumerate() {
            for (j, &b) in handles.iter().enumerate().filter(|(j, _)| *j != i) {
                let mut level: nvmlGpuTopologyLevel_t = 0;
                let code = call!(f(a, b, &mut level));
                r.devices[i].topology.insert(j, if code == NVML_SUCCESS { Ok(level) } else { Err(code) });
            }
        }
    }
    for (i, events) in pending_events(lib, &handles, &r.devices) {
        r.devices[i].events = events;
    }
    r.system_events = pending_system_events(lib);
    // The names of the processes the GPUs run (read once their pids are known).
    let pids: BTreeSet<i64> = r
        .devices
        .iter()
        .flat_map(|d| {
            ["nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetGraphicsRunningProcesses_v3"]
                .into_iter()
                .filter_map(|f| first_value(&d.answers, f, &[]))
                .flat_map(|v| v.items().iter().map(|p| p.field("pid").int()).collect::<Vec<_>>())
        })
        .collect();
    if let Some((f, reader, _)) =
        readers_of(ObjectKind::System).into_iter().find(|(f, _, _)| *f == "nvmlSystemGetProcessName")
    {
        let by = r.system.entry(f).or_default();
        for pid in pids {
            calls += 1;
            by.insert(vec![pid], reader(&mut cx, Object::System, &[pid]));
        }
    }
    r.refused = std::mem::take(&mut cx.refused);
    r.calls = calls;
    Ok(())
}

/// System functions whose answer changes once a GPU has been looked up: driver 580.159.04 answers
/// `nvmlGetVgpuDriverCapabilities` `UNKNOWN` before (what NVIDIA's Python binding sees, which
/// asks first) and `NOT_SUPPORTED` after, on a host without vGPU. A capture reads them first.
pub const BEFORE_ATTACH: &[&str] = &["nvmlGetVgpuDriverCapabilities"];

/// The integers of a recorded list (`nvmlDeviceGetActiveVgpus`' ids).
fn list_ints(answers: &Answers, function: &str) -> Vec<i64> {
    first_value(answers, function, &[]).map(|v| v.items().iter().map(Val::int).collect()).unwrap_or_default()
}

/// The handle of each GPU.
fn device_handles(lib: &NvmlLib) -> Vec<nvmlDevice_t> {
    let (Ok(count_f), Ok(by_index)) = (lib.nvmlDeviceGetCount_v2(), lib.nvmlDeviceGetHandleByIndex_v2()) else {
        return Vec::new();
    };
    let mut count: c_uint = 0;
    if call!(count_f(&mut count)) != NVML_SUCCESS {
        return Vec::new();
    }
    (0..count)
        .filter_map(|i| {
            let mut h: nvmlDevice_t = std::ptr::null_mut();
            (call!(by_index(i, &mut h)) == NVML_SUCCESS).then_some(h)
        })
        .collect()
}

/// The readers of the functions called on objects of `kind`, those without selectors first
/// (the selector values of the others come from their answers).
fn readers_of(kind: ObjectKind) -> Vec<(&'static str, crate::reading::Reader, &'static [Field])> {
    let mut out: Vec<_> = READERS
        .iter()
        .filter_map(|(f, reader)| {
            let s = schema(f)?;
            (s.object == kind).then_some((*f, *reader, s.selectors))
        })
        .collect();
    // Functions without selectors first, then those whose selector values the header
    // enumerates, then those whose values come from other answers (the profiles a GPU lists,
    // its processes, ...).
    out.sort_by_key(|(f, _, sels)| {
        (!sels.is_empty(), sels.iter().any(|s| DERIVED.contains(&s.name) && !matches!(s.ty, T::Enum(_))), *f)
    });
    out
}

/// Selectors whose values come from other answers.
const DERIVED: &[&str] = &["profileId", "pid", "memoryClockMHz", "vgpuTypeId", "fan", "index"];

/// Calls every reader of `kind` on `object`, with every selector value, into `out`.
/// `parent`: the answers of the object above it (the GPU of a vGPU instance, the system of a
/// GPU), where some selector values come from.
fn read_object(cx: &mut Cx, calls: &mut usize, kind: ObjectKind, object: Object, out: &mut Answers, parent: &Answers) {
    for (function, reader, selectors) in readers_of(kind) {
        let mut by = BTreeMap::new();
        for values in combinations(function, selectors, out, parent) {
            *calls += 1;
            by.insert(values.clone(), reader(cx, object, &values));
        }
        out.insert(function, by);
    }
}

/// Every combination of the values of `selectors`.
fn combinations(function: &str, selectors: &[Field], own: &Answers, parent: &Answers) -> Vec<Vec<i64>> {
    let mut out = vec![Vec::new()];
    for s in selectors {
        let values = selector_values(function, s, own, parent);
        out = out
            .into_iter()
            .flat_map(|prefix| {
                values.iter().map(move |v| {
                    let mut p = prefix.clone();
                    p.push(*v);
                    p
                })
            })
            .collect();
    }
    out
}

fn constant(name: &str) -> i64 {
    crate::answer::constant(name).unwrap_or(0) as i64
}

/// The values the header enumerates for one selector: an enum's constants, and for integers
/// what their name says (links up to `NVML_NVLINK_MAX_LINKS`, the fans the GPU reports, the
/// MIG profiles it lists, the processes it runs, ...).
fn selector_values(function: &str, s: &Field, own: &Answers, parent: &Answers) -> Vec<i64> {
    let recorded = |f: &str| first_value(own, f, &[]);
    let ids_of = |f: &str, field: &str| -> Vec<i64> {
        own.get(f)
            .map(|by| by.values().filter_map(|a| a.as_ref().ok()?.first()?.get(field).map(Val::int)).collect())
            .unwrap_or_default()
    };
    let mut values: Vec<i64> = match (&s.ty, s.name) {
        // An enum's constants, the values between them and the one after the last: a driver
        // answers those it does not know too.
        (T::Enum(e), _) => {
            let known: Vec<i64> = enum_constants(e).iter().map(|c| constant(c)).collect();
            let max = known.iter().copied().max().unwrap_or(0);
            let min = known.iter().copied().min().unwrap_or(0);
            if (0..=64).contains(&min) && max <= 64 {
                (0..=max + 1).collect()
            } else {
                known.into_iter().chain([max.saturating_add(1)]).collect()
            }
        }
        (_, "link") => (0..constant("NVML_NVLINK_MAX_LINKS")).collect(),
        (_, "counter") => vec![0, 1],
        (_, "fan") => (0..recorded("nvmlDeviceGetNumFans").map_or(1, Val::int).max(1)).collect(),
        (_, "sensorIndex") => (0..=constant("NVML_THERMAL_TARGET_ALL")).collect(),
        (_, "index") => (0..recorded("nvmlGetExcludedDeviceCount").map_or(1, Val::int).max(1)).collect(),
        (_, "profile") if function.starts_with("nvmlGpuInstance") => {
            (0..constant("NVML_COMPUTE_INSTANCE_PROFILE_COUNT")).collect()
        }
        (_, "profile") => (0..constant("NVML_GPU_INSTANCE_PROFILE_COUNT")).collect(),
        (_, "engProfile") => vec![0],
        (_, "profileId") if function.starts_with("nvmlGpuInstance") => {
            ids_of("nvmlGpuInstanceGetComputeInstanceProfileInfoV", "id")
        }
        (_, "profileId") => ids_of("nvmlDeviceGetGpuInstanceProfileInfoV", "id"),
        (_, "pid") => {
            let mut pids = BTreeSet::new();
            for f in [
                "nvmlDeviceGetComputeRunningProcesses_v3",
                "nvmlDeviceGetGraphicsRunningProcesses_v3",
                "nvmlDeviceGetMPSComputeRunningProcesses_v3",
            ] {
                for a in [own, parent] {
                    if let Some(v) = first_value(a, f, &[]) {
                        pids.extend(v.items().iter().map(|p| p.field("pid").int()));
                    }
                }
            }
            for f in ["nvmlDeviceGetAccountingPids", "nvmlVgpuInstanceGetAccountingPids"] {
                if let Some(v) = first_value(own, f, &[]) {
                    pids.extend(v.items().iter().map(Val::int));
                }
            }
            pids.into_iter().collect()
        }
        (_, "memoryClockMHz") => recorded("nvmlDeviceGetSupportedMemoryClocks")
            .map(|v| v.items().iter().map(Val::int).collect())
            .unwrap_or_default(),
        (_, "type") => (0..3).collect(),
        (_, "vgpuTypeId") => list_ints(own, "nvmlDeviceGetSupportedVgpus"),
        _ => vec![0],
    };
    values.sort_unstable();
    values.dedup();
    if values.is_empty() {
        values.push(0);
    }
    values
}

/// The probes of an object of `kind`: each function that takes a versioned record, with the
/// selector values it is probed with (the first the header enumerates), in a fixed order.
fn probes_of(kind: ObjectKind) -> Vec<(&'static str, crate::reading::Reader, Vec<i64>)> {
    readers_of(kind)
        .into_iter()
        .filter(|(f, _, _)| VERSIONED.binary_search_by(|(v, _)| (*v).cmp(f)).is_ok())
        .map(|(f, reader, sels)| {
            let first = combinations(f, sels, &Answers::new(), &Answers::new()).into_iter().next().unwrap_or_default();
            (f, reader, first)
        })
        .collect()
}

/// One probe: what `reader`'s function answers with its first output NULL, and with version 0
/// in its versioned record.
fn probe(cx: &mut Cx, reader: crate::reading::Reader, object: Object, selectors: &[i64]) -> Checks {
    let mut code = |mode| {
        cx.mode = mode;
        let code = reader(cx, object, selectors).err().unwrap_or(NVML_SUCCESS);
        cx.mode = Mode::Read;
        code
    };
    let null = code(Mode::Null);
    let wrong_version = code(Mode::WrongVersion);
    Checks { null: Some(null), wrong_version: Some(wrong_version) }
}

/// How the probes run: here, or in child processes (`PROGRAM __probe LIBRARY OBJECT START`,
/// see [`probe_child`]), so that a library that crashes on a NULL record (driver 580.159.04
/// does, on some functions) costs that probe alone.
#[derive(Debug, Clone)]
pub enum Prober {
    InProcess,
    Child { program: std::path::PathBuf, library: std::path::PathBuf },
}

/// For each function of `kind` that takes a versioned record: what it answers a NULL record
/// and a version it does not know (0). Probes the library crashed on are left out, and named
/// in `crashed`.
fn probe_checks(
    cx: &mut Cx,
    calls: &mut usize,
    prober: &Prober,
    kind: ObjectKind,
    object: Object,
    name: &str,
    crashed: &mut Vec<String>,
) -> BTreeMap<&'static str, Checks> {
    let probes = probes_of(kind);
    *calls += 2 * probes.len();
    let mut out = BTreeMap::new();
    let Prober::Child { program, library } = prober else {
        for (f, reader, sels) in &probes {
            out.insert(*f, probe(cx, *reader, object, sels));
        }
        return out;
    };
    let mut start = 0;
    while start < probes.len() {
        let child = std::process::Command::new(program)
            .arg("__probe")
            .arg(library)
            .arg(name)
            .arg(start.to_string())
            .stderr(std::process::Stdio::null())
            .output();
        let Ok(child) = child else {
            crashed.push(format!("{name}: cannot run {}", program.display()));
            return out;
        };
        let mut next = start;
        for line in String::from_utf8_lossy(&child.stdout).lines() {
            let w: Vec<&str> = line.split_whitespace().collect();
            let [i, null, wrong] = w[..] else { continue };
            let (Ok(i), Ok(null), Ok(wrong)) = (i.parse::<usize>(), null.parse::<u32>(), wrong.parse::<u32>()) else {
                continue;
            };
            if let Some((f, _, _)) = probes.get(i) {
                out.insert(*f, Checks { null: Some(null), wrong_version: Some(wrong) });
                next = i + 1;
            }
        }
        if child.status.success() {
            break;
        }
        if let Some((f, _, _)) = probes.get(next) {
            crashed.push(format!("{name}: {f} ({})", child.status));
        }
        start = next + 1;
    }
    out
}

/// The child of a probe (`nvml-mock __probe LIBRARY OBJECT START`): runs the probes of `object`
/// (`system`, or a device index) from `start`, printing `index null-code wrong-version-code`
/// for each as it goes.
pub fn probe_child(library: &std::path::Path, object: &str, start: usize) -> Result<(), String> {
    use std::io::Write;
    let lib = NvmlLib::open_path(library).map_err(|e| format!("cannot load {}: {e}", library.display()))?;
    let init = lib.nvmlInit_v2().map_err(|e| e.to_string())?;
    if call!(init()) != NVML_SUCCESS {
        return Err("nvmlInit_v2 failed".into());
    }
    let (kind, obj) = match object {
        "system" => (ObjectKind::System, Object::System),
        i => {
            let i: usize = i.parse().map_err(|_| format!("`{i}`: not a device index"))?;
            let h = *device_handles(&lib).get(i).ok_or_else(|| format!("no device {i}"))?;
            (ObjectKind::Device, Object::Device(h))
        }
    };
    let mut cx = Cx::new(&lib);
    let mut out = std::io::stdout();
    for (i, (_, reader, sels)) in probes_of(kind).iter().enumerate().skip(start) {
        let c = probe(&mut cx, *reader, obj, sels);
        let _ = writeln!(out, "{i} {} {}", c.null.unwrap_or(0), c.wrong_version.unwrap_or(0));
        let _ = out.flush();
    }
    if let Ok(shutdown) = lib.nvmlShutdown() {
        call!(shutdown());
    }
    Ok(())
}

/// Every field value from 0 to `NVML_FI_MAX`, as the driver numbers them, each asked for alone
/// (the answer to one field does not depend on the others asked with it), with scope 0; the
/// power fields (`NVML_FI_DEV_POWER_*`) also with the scopes of `nvmlPowerScopeType_t` (the
/// module and the memory), which `nvidia-smi -q` asks for. Keyed by (field, scope).
fn fields(lib: &NvmlLib, device: nvmlDevice_t, calls: &mut usize) -> BTreeMap<(u32, u32), FieldAnswer> {
    let mut out = BTreeMap::new();
    let Ok(f) = lib.nvmlDeviceGetFieldValues() else { return out };
    let max = constant("NVML_FI_MAX") as u32;
    let scoped: Vec<u32> = crate::generated::names::CONSTANTS
        .iter()
        .filter(|(n, _)| n.starts_with("NVML_FI_DEV_POWER_"))
        .map(|(_, v)| *v as u32)
        .collect();
    let scopes = [constant("NVML_POWER_SCOPE_MODULE") as u32, constant("NVML_POWER_SCOPE_MEMORY") as u32];
    let asks =
        (0..=max).map(|id| (id, 0)).chain(scoped.iter().flat_map(|&id| scopes.iter().map(move |&scope| (id, scope))));
    for (id, scope) in asks {
        let mut v = field_entry(id, scope);
        *calls += 1;
        let code = call!(f(device, 1, &mut v));
        let answer = if code != NVML_SUCCESS {
            FieldAnswer::Error(code)
        } else if v.nvmlReturn == UNWRITTEN as nvmlReturn_t {
            FieldAnswer::Unwritten
        } else if v.nvmlReturn != NVML_SUCCESS {
            FieldAnswer::Error(v.nvmlReturn)
        } else {
            FieldAnswer::Value(
                v.valueType,
                match crate::ffi::value_of(v.valueType, &v.value) {
                    crate::ffi::Number::Int(i) => Val::Int(i),
                    crate::ffi::Number::Float(f) => Val::Float(f),
                },
            )
        };
        out.insert((id, scope), answer);
    }
    out
}

/// The slot of driver 580's `nvidia-smi` export table that writes the GPU part number.
const PART_NUMBER_SLOT: usize = 231;

/// The driver version the system answers.
fn driver_of(system: &Answers) -> Option<String> {
    match first_value(system, "nvmlSystemGetDriverVersion", &[]) {
        Some(Val::Str(v)) => Some(v.clone()),
        _ => None,
    }
}

/// Every GPM metric the header names, from two samples a tenth of a second apart (GPM reads
/// counters: nothing changes on the GPU), where the GPU supports GPM.
fn gpm(lib: &NvmlLib, device: nvmlDevice_t, calls: &mut usize) -> BTreeMap<u32, f64> {
    let mut out = BTreeMap::new();
    let (Ok(support), Ok(alloc), Ok(get), Ok(metrics), Ok(free)) = (
        lib.nvmlGpmQueryDeviceSupport(),
        lib.nvmlGpmSampleAlloc(),
        lib.nvmlGpmSampleGet(),
        lib.nvmlGpmMetricsGet(),
        lib.nvmlGpmSampleFree(),
    ) else {
        return out;
    };
    let mut s = nvmlGpmSupport_t { version: NVML_GPM_SUPPORT_VERSION as c_uint, ..Default::default() };
    *calls += 1;
    if call!(support(device, &mut s)) != NVML_SUCCESS || s.isSupportedDevice == 0 {
        return out;
    }
    let (mut a, mut b): (nvmlGpmSample_t, nvmlGpmSample_t) = (std::ptr::null_mut(), std::ptr::null_mut());
    *calls += 2;
    if call!(alloc(&mut a)) != NVML_SUCCESS || call!(alloc(&mut b)) != NVML_SUCCESS {
        return out;
    }
    *calls += 2;
    let taken = call!(get(device, a)) == NVML_SUCCESS && {
        std::thread::sleep(std::time::Duration::from_millis(100));
        call!(get(device, b)) == NVML_SUCCESS
    };
    if taken {
        let ids: Vec<u32> = crate::generated::names::CONSTANTS
            .iter()
            .filter(|(n, _)| n.starts_with("NVML_GPM_METRIC_") && *n != "NVML_GPM_METRIC_MAX")
            .map(|(_, v)| *v as u32)
            .collect();
        for chunk in ids.chunks(32) {
            let mut m = nvmlGpmMetricsGet_t {
                version: NVML_GPM_METRICS_GET_VERSION as c_uint,
                numMetrics: chunk.len() as c_uint,
                sample1: a,
                sample2: b,
                ..Default::default()
            };
            for (slot, id) in m.metrics.iter_mut().zip(chunk) {
                slot.metricId = *id;
            }
            *calls += 1;
            if call!(metrics(&mut m)) != NVML_SUCCESS {
                continue;
            }
            for x in m.metrics.iter().take(chunk.len()).filter(|x| x.nvmlReturn == NVML_SUCCESS) {
                out.insert(x.metricId, (x.value * 1e6).round() / 1e6);
            }
        }
    }
    *calls += 2;
    call!(free(a));
    call!(free(b));
    out
}

/// Which fields a request of every field (scope 0) leaves unwritten that a request of one
/// answers, and which of the fields answered with an error alone makes a request of them leave
/// those unwritten.
fn field_batches(
    lib: &NvmlLib,
    device: nvmlDevice_t,
    single: &BTreeMap<(u32, u32), FieldAnswer>,
    calls: &mut usize,
) -> FieldBatches {
    let Ok(f) = lib.nvmlDeviceGetFieldValues() else { return FieldBatches::default() };
    let ask = |ids: &[u32]| {
        let mut values: Vec<nvmlFieldValue_t> = ids.iter().map(|&id| field_entry(id, 0)).collect();
        let code = call!(f(device, values.len() as i32, values.as_mut_ptr()));
        let left: Vec<u32> = values
            .iter()
            .filter(|v| v.nvmlReturn == UNWRITTEN as nvmlReturn_t)
            .map(|v| v.fieldId)
            .filter(|id| single.get(&(*id, 0)) != Some(&FieldAnswer::Unwritten))
            .collect();
        (code, left)
    };
    let all: Vec<u32> = single.keys().filter(|(_, scope)| *scope == 0).map(|(id, _)| *id).collect();
    *calls += 1;
    let (code, unwritten) = ask(&all);
    if code != NVML_SUCCESS || unwritten.is_empty() {
        return FieldBatches::default();
    }
    let mut triggers = Vec::new();
    for (&(id, scope), answer) in single {
        if scope != 0 || !matches!(answer, FieldAnswer::Error(_)) || unwritten.contains(&id) {
            continue;
        }
        let mut ids = vec![id];
        ids.extend(&unwritten);
        *calls += 1;
        if ask(&ids).1 == unwritten {
            triggers.push(id);
        }
    }
    FieldBatches { triggers, unwritten }
}

/// How a field is named in a difference and keyed in a profile's `recorded_fields`: `field ID`,
/// or `field ID/SCOPE` for a scope other than 0.
pub fn field_key(id: u32, scope: u32) -> String {
    if scope == 0 {
        format!("field {id}")
    } else {
        format!("field {id}/{scope}")
    }
}

/// The CPU affinity mask of a GPU (64 words).
fn cpu_affinity(lib: &NvmlLib, device: nvmlDevice_t) -> Option<Vec<u64>> {
    let f = lib.nvmlDeviceGetCpuAffinity().ok()?;
    let mut set = vec![0 as std::ffi::c_ulong; 64];
    (call!(f(device, set.len() as c_uint, set.as_mut_ptr())) == NVML_SUCCESS).then(|| set.into_iter().collect())
}

/// The names of a GPU's instance profiles, where the driver answered them empty in layout v3:
/// read again in layout v2. Driver 580.159.04 accepts v3 for these two functions but writes the
/// name where v2 has it, leaving v3's empty (`tests/real/README.md`, run 8), while v2 callers
/// (the Python binding, nvml-wrapper) get the name; the mock then answers both layouts with it.
fn gpu_instance_profile_names(lib: &NvmlLib, device: nvmlDevice_t, answers: &mut Answers, calls: &mut usize) {
    let by_index = lib.nvmlDeviceGetGpuInstanceProfileInfoV().ok();
    let by_id = lib.nvmlDeviceGetGpuInstanceProfileInfoByIdV().ok();
    for (function, f) in
        [("nvmlDeviceGetGpuInstanceProfileInfoV", by_index), ("nvmlDeviceGetGpuInstanceProfileInfoByIdV", by_id)]
    {
        let (Some(f), Some(by)) = (f, answers.get_mut(function)) else { continue };
        for (selectors, answer) in by.iter_mut() {
            let Ok(values) = answer else { continue };
            let Some(Val::Record(record)) = values.first_mut() else { continue };
            if !matches!(record.get("name"), Some(Val::Str(name)) if name.is_empty()) {
                continue;
            }
            let Some(&profile) = selectors.first() else { continue };
            let mut info =
                nvmlGpuInstanceProfileInfo_v2_t { version: nvmlGpuInstanceProfileInfo_v2, ..Default::default() };
            *calls += 1;
            if call!(f(device, profile as c_uint, &mut info)) == NVML_SUCCESS {
                record.insert("name", Val::Str(crate::reading::c_string(&info.name)));
            }
        }
    }
}

/// The vGPU metadata string of a GPU: the size, then the text.
fn pgpu_metadata(lib: &NvmlLib, device: nvmlDevice_t) -> Result<String, u32> {
    let f = lib.nvmlDeviceGetPgpuMetadataString().map_err(|_| NVML_ERROR_FUNCTION_NOT_FOUND)?;
    let mut size: c_uint = 0;
    let code = call!(f(device, std::ptr::null_mut(), &mut size));
    if code != NVML_SUCCESS && code != NVML_ERROR_INSUFFICIENT_SIZE {
        return Err(code);
    }
    let mut buf = vec![0 as std::ffi::c_char; size.max(1) as usize];
    let code = call!(f(device, buf.as_mut_ptr(), &mut size));
    if code != NVML_SUCCESS {
        return Err(code);
    }
    Ok(crate::reading::c_string(&buf))
}

/// The unique uncorrected SRAM ECC errors of a GPU: the count, then the entries.
fn sram_errors(lib: &NvmlLib, device: nvmlDevice_t) -> Result<Vec<Val>, u32> {
    let f = lib.nvmlDeviceGetSramUniqueUncorrectedEccErrorCounts().map_err(|_| NVML_ERROR_FUNCTION_NOT_FOUND)?;
    let mut c = nvmlEccSramUniqueUncorrectedErrorCounts_t {
        version: nvmlEccSramUniqueUncorrectedErrorCounts_v1,
        ..Default::default()
    };
    let code = call!(f(device, &mut c));
    if code != NVML_SUCCESS && code != NVML_ERROR_INSUFFICIENT_SIZE {
        return Err(code);
    }
    let mut entries = vec![nvmlEccSramUniqueUncorrectedErrorEntry_v1_t::default(); c.entryCount as usize];
    if entries.is_empty() {
        return Ok(Vec::new());
    }
    c.entries = entries.as_mut_ptr();
    let code = call!(f(device, &mut c));
    if code != NVML_SUCCESS {
        return Err(code);
    }
    let n = (c.entryCount as usize).min(entries.len());
    Ok(entries[..n]
        .iter()
        .map(|e| {
            let fields = [
                ("unit", e.unit),
                ("location", e.location),
                ("sublocation", e.sublocation),
                ("extlocation", e.extlocation),
                ("address", e.address),
                ("is_parity", e.isParity),
                ("count", e.count),
            ];
            Val::Record(fields.into_iter().map(|(k, v)| (k, Val::Int(v.into()))).collect())
        })
        .collect())
}

/// `nvmlSystemGetDriverBranch`, written by hand (the safe crate wraps it by hand, so it has no
/// reader).
fn driver_branch(lib: &NvmlLib) -> Option<Result<String, u32>> {
    let Ok(f) = lib.nvmlSystemGetDriverBranch() else { return Some(Err(NVML_ERROR_FUNCTION_NOT_FOUND)) };
    let mut info = nvmlSystemDriverBranchInfo_t { version: nvmlSystemDriverBranchInfo_v1, ..Default::default() };
    let code = call!(f(&mut info, info.branch.len() as c_uint));
    Some(if code == NVML_SUCCESS { Ok(crate::reading::c_string(&info.branch)) } else { Err(code) })
}

/// The GPU's memory affinity (NUMA nodes, 4 words).
fn memory_affinity(lib: &NvmlLib, device: nvmlDevice_t) -> Option<Vec<u64>> {
    let f = lib.nvmlDeviceGetMemoryAffinity().ok()?;
    let mut set = vec![0 as std::ffi::c_ulong; 4];
    (call!(f(device, set.len() as c_uint, set.as_mut_ptr(), 0)) == NVML_SUCCESS).then(|| set.into_iter().collect())
}

/// What the device functions that have no reader (their outputs are handles, or buffers of a
/// protocol of their own) answer one plain call: the code alone, which the check compares so
/// that a function the machine refuses is refused by the mock too.
fn statuses(lib: &NvmlLib, device: nvmlDevice_t) -> BTreeMap<&'static str, u32> {
    let mut out = BTreeMap::new();
    if let Ok(f) = lib.nvmlDeviceGetVgpuMetadata() {
        let mut m = nvmlVgpuPgpuMetadata_t::default();
        let mut size = std::mem::size_of::<nvmlVgpuPgpuMetadata_t>() as c_uint;
        out.insert("nvmlDeviceGetVgpuMetadata", call!(f(device, &mut m, &mut size)));
    }
    if let Ok(f) = lib.nvmlDeviceGetVgpuInstancesUtilizationInfo() {
        let mut i =
            nvmlVgpuInstancesUtilizationInfo_t { version: nvmlVgpuInstancesUtilizationInfo_v1, ..Default::default() };
        out.insert("nvmlDeviceGetVgpuInstancesUtilizationInfo", call!(f(device, &mut i)));
    }
    if let Ok(f) = lib.nvmlDeviceGetVgpuProcessesUtilizationInfo() {
        let mut i =
            nvmlVgpuProcessesUtilizationInfo_t { version: nvmlVgpuProcessesUtilizationInfo_v1, ..Default::default() };
        out.insert("nvmlDeviceGetVgpuProcessesUtilizationInfo", call!(f(device, &mut i)));
    }
    if let Ok(f) = lib.nvmlDeviceGetTopologyCommonAncestor() {
        let mut level: nvmlGpuTopologyLevel_t = 0;
        out.insert("nvmlDeviceGetTopologyCommonAncestor", call!(f(device, device, &mut level)));
    }
    if let Ok(f) = lib.nvmlDeviceGetTopologyNearestGpus() {
        let mut count: c_uint = 0;
        out.insert(
            "nvmlDeviceGetTopologyNearestGpus",
            call!(f(device, NVML_TOPOLOGY_SYSTEM, &mut count, std::ptr::null_mut())),
        );
    }
    if let Ok(f) = lib.nvmlDeviceGetP2PStatus() {
        let mut status: nvmlGpuP2PStatus_t = 0;
        out.insert("nvmlDeviceGetP2PStatus", call!(f(device, device, 0, &mut status)));
    }
    if let Ok(f) = lib.nvmlDeviceOnSameBoard() {
        let mut same = 0;
        out.insert("nvmlDeviceOnSameBoard", call!(f(device, device, &mut same)));
    }
    if let (Ok(f), Ok(pci_f)) = (lib.nvmlDeviceQueryDrainState(), lib.nvmlDeviceGetPciInfo_v3()) {
        let mut pci = nvmlPciInfo_t::default();
        if call!(pci_f(device, &mut pci)) == NVML_SUCCESS {
            let mut state: nvmlEnableState_t = 0;
            out.insert("nvmlDeviceQueryDrainState", call!(f(&mut pci, &mut state)));
        }
    }
    out
}

/// What the system functions without a reader answer one plain call.
fn system_statuses(lib: &NvmlLib) -> BTreeMap<&'static str, u32> {
    let mut out = BTreeMap::new();
    if let Ok(f) = lib.nvmlSystemGetHicVersion() {
        let mut count: c_uint = 0;
        out.insert("nvmlSystemGetHicVersion", call!(f(&mut count, std::ptr::null_mut())));
    }
    if let Ok(f) = lib.nvmlSystemGetTopologyGpuSet() {
        let mut count: c_uint = 0;
        out.insert("nvmlSystemGetTopologyGpuSet", call!(f(0, &mut count, std::ptr::null_mut())));
    }
    out
}

/// The P-states a GPU supports (`nvmlDeviceGetSupportedPerformanceStates`, an array of the
/// size the header gives: `NVML_MAX_GPU_PERF_PSTATES`).
fn pstates(lib: &NvmlLib, device: nvmlDevice_t) -> Option<Result<Vec<u32>, u32>> {
    let Ok(f) = lib.nvmlDeviceGetSupportedPerformanceStates() else { return Some(Err(NVML_ERROR_FUNCTION_NOT_FOUND)) };
    let n = constant("NVML_MAX_GPU_PERF_PSTATES").max(1) as usize;
    let mut states = vec![NVML_PSTATE_UNKNOWN; n];
    let size = (n * std::mem::size_of::<nvmlPstates_t>()) as c_uint;
    let code = call!(f(device, states.as_mut_ptr(), size));
    Some(if code == NVML_SUCCESS {
        Ok(states.into_iter().filter(|s| *s != NVML_PSTATE_UNKNOWN).collect())
    } else {
        Err(code)
    })
}

/// The handles of a GPU's MIG devices, by index.
fn mig_devices(lib: &NvmlLib, device: nvmlDevice_t) -> Vec<nvmlDevice_t> {
    let (Ok(max_f), Ok(by_index)) = (lib.nvmlDeviceGetMaxMigDeviceCount(), lib.nvmlDeviceGetMigDeviceHandleByIndex())
    else {
        return Vec::new();
    };
    let mut max: c_uint = 0;
    if call!(max_f(device, &mut max)) != NVML_SUCCESS {
        return Vec::new();
    }
    (0..max)
        .filter_map(|i| {
            let mut h: nvmlDevice_t = std::ptr::null_mut();
            (call!(by_index(device, i, &mut h)) == NVML_SUCCESS && !h.is_null()).then_some(h)
        })
        .collect()
}

/// A GPU's GPU instances, their compute instances, and what their functions answer.
fn gpu_instances(
    cx: &mut Cx,
    calls: &mut usize,
    device: nvmlDevice_t,
    answers: &Answers,
    system: &Answers,
) -> Vec<GpuInstanceRec> {
    let lib = cx.lib;
    let (Ok(list_f), Ok(info_f)) = (lib.nvmlDeviceGetGpuInstances(), lib.nvmlGpuInstanceGetInfo()) else {
        return Vec::new();
    };
    let profiles: Vec<(i64, i64)> = answers
        .get("nvmlDeviceGetGpuInstanceProfileInfoV")
        .map(|by| {
            by.values()
                .filter_map(|a| a.as_ref().ok()?.first())
                .map(|v| (v.field("id").int(), v.field("instanceCount").int()))
                .collect()
        })
        .unwrap_or_default();
    let mut out = Vec::new();
    for (id, capacity) in profiles {
        let mut handles: Vec<nvmlGpuInstance_t> = vec![std::ptr::null_mut(); capacity.max(1) as usize];
        let mut count: c_uint = 0;
        *calls += 1;
        if call!(list_f(device, id as c_uint, handles.as_mut_ptr(), &mut count)) != NVML_SUCCESS {
            continue;
        }
        for &gi in handles.iter().take(count as usize) {
            let mut info = nvmlGpuInstanceInfo_t::default();
            if call!(info_f(gi, &mut info)) != NVML_SUCCESS {
                continue;
            }
            let mut rec = GpuInstanceRec {
                id: info.id,
                profile_id: info.profileId,
                start: info.placement.start,
                size: info.placement.size,
                ..Default::default()
            };
            read_object(cx, calls, ObjectKind::GpuInstance, Object::GpuInstance(gi), &mut rec.answers, answers);
            rec.compute_instances = compute_instances(cx, calls, gi, &rec.answers);
            let _ = system;
            out.push(rec);
        }
    }
    out.sort_by_key(|g| g.id);
    out
}

fn compute_instances(
    cx: &mut Cx,
    calls: &mut usize,
    gi: nvmlGpuInstance_t,
    answers: &Answers,
) -> Vec<ComputeInstanceRec> {
    let lib = cx.lib;
    let (Ok(list_f), Ok(info_f)) = (lib.nvmlGpuInstanceGetComputeInstances(), lib.nvmlComputeInstanceGetInfo_v2())
    else {
        return Vec::new();
    };
    let profiles: Vec<(i64, i64)> = answers
        .get("nvmlGpuInstanceGetComputeInstanceProfileInfoV")
        .map(|by| {
            by.values()
                .filter_map(|a| a.as_ref().ok()?.first())
                .map(|v| (v.field("id").int(), v.field("instanceCount").int()))
                .collect()
        })
        .unwrap_or_default();
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    for (id, capacity) in profiles {
        if !seen.insert(id) {
            continue;
        }
        let mut handles: Vec<nvmlComputeInstance_t> = vec![std::ptr::null_mut(); capacity.max(1) as usize];
        let mut count: c_uint = 0;
        *calls += 1;
        if call!(list_f(gi, id as c_uint, handles.as_mut_ptr(), &mut count)) != NVML_SUCCESS {
            continue;
        }
        for &ci in handles.iter().take(count as usize) {
            let mut info = nvmlComputeInstanceInfo_t::default();
            if call!(info_f(ci, &mut info)) != NVML_SUCCESS {
                continue;
            }
            let mut rec = ComputeInstanceRec {
                id: info.id,
                profile_id: info.profileId,
                start: info.placement.start,
                size: info.placement.size,
                ..Default::default()
            };
            read_object(cx, calls, ObjectKind::ComputeInstance, Object::ComputeInstance(ci), &mut rec.answers, answers);
            out.push(rec);
        }
    }
    out.sort_by_key(|c| c.id);
    out
}

/// The events pending for each GPU: an event set of this process, registered for every type
/// a GPU supports, drained without waiting, then freed.
fn pending_events(lib: &NvmlLib, handles: &[nvmlDevice_t], devices: &[DeviceRec]) -> Vec<(usize, Vec<(u64, u64)>)> {
    let (Ok(create), Ok(register), Ok(wait), Ok(free)) =
        (lib.nvmlEventSetCreate(), lib.nvmlDeviceRegisterEvents(), lib.nvmlEventSetWait_v2(), lib.nvmlEventSetFree())
    else {
        return Vec::new();
    };
    let mut set: nvmlEventSet_t = std::ptr::null_mut();
    if call!(create(&mut set)) != NVML_SUCCESS {
        return Vec::new();
    }
    for (h, d) in handles.iter().zip(devices) {
        if let Some(mask) = first_value(&d.answers, "nvmlDeviceGetSupportedEventTypes", &[]) {
            call!(register(*h, mask.uint(), set));
        }
    }
    let mut out: BTreeMap<usize, Vec<(u64, u64)>> = BTreeMap::new();
    for _ in 0..1024 {
        let mut data = nvmlEventData_t::default();
        if call!(wait(set, &mut data, 0)) != NVML_SUCCESS {
            break;
        }
        if let Some(i) = handles.iter().position(|h| *h == data.device) {
            out.entry(i).or_default().push((data.eventType, data.eventData));
        }
    }
    call!(free(set));
    out.into_iter().collect()
}

/// The system events pending for a set of this process registered for every type, then freed.
fn pending_system_events(lib: &NvmlLib) -> Vec<(u64, u32)> {
    let (Ok(create), Ok(register), Ok(wait), Ok(free)) = (
        lib.nvmlSystemEventSetCreate(),
        lib.nvmlSystemRegisterEvents(),
        lib.nvmlSystemEventSetWait(),
        lib.nvmlSystemEventSetFree(),
    ) else {
        return Vec::new();
    };
    let mut c =
        nvmlSystemEventSetCreateRequest_v1_t { version: nvmlSystemEventSetCreateRequest_v1, ..Default::default() };
    if call!(create(&mut c)) != NVML_SUCCESS {
        return Vec::new();
    }
    let mut reg = nvmlSystemRegisterEventRequest_v1_t {
        version: nvmlSystemRegisterEventRequest_v1,
        eventTypes: (nvmlSystemEventTypeGpuDriverUnbind | nvmlSystemEventTypeGpuDriverBind) as u64,
        set: c.set,
    };
    let mut out = Vec::new();
    if call!(register(&mut reg)) == NVML_SUCCESS {
        let mut data = vec![nvmlSystemEventData_v1_t::default(); 64];
        for _ in 0..16 {
            let mut w = nvmlSystemEventSetWaitRequest_v1_t {
                version: nvmlSystemEventSetWaitRequest_v1,
                timeoutms: 0,
                set: c.set,
                data: data.as_mut_ptr(),
                dataSize: data.len() as c_uint,
                numEvent: 0,
            };
            if call!(wait(&mut w)) != NVML_SUCCESS || w.numEvent == 0 {
                break;
            }
            out.extend(data.iter().take(w.numEvent as usize).map(|e| (e.eventType, e.gpuId)));
        }
    }
    let mut f = nvmlSystemEventSetFreeRequest_v1_t { version: nvmlSystemEventSetFreeRequest_v1, set: c.set };
    call!(free(&mut f));
    out
}

/// Every place where `mock` answered otherwise than `machine`.
pub fn differences(machine: &Recording, mock: &Recording) -> Vec<Difference> {
    let mut out = Vec::new();
    answers_differ(&Place::System, &machine.system, &mock.system, &mut out);
    let empty = DeviceRec::default();
    for (i, d) in machine.devices.iter().enumerate() {
        let m = mock.devices.get(i).unwrap_or(&empty);
        answers_differ(&Place::Device(i), &d.answers, &m.answers, &mut out);
        for (&(id, scope), f) in &d.fields {
            if m.fields.get(&(id, scope)) != Some(f) {
                out.push(Difference { place: Place::Device(i), what: field_key(id, scope), selectors: Vec::new() });
            }
        }
        // The probes the machine answered (one it crashed on has no answer to compare).
        let probed: BTreeMap<_, _> = m.checks.iter().filter(|(f, _)| d.checks.contains_key(*f)).collect();
        if d.checks.iter().collect::<BTreeMap<_, _>>() != probed {
            out.push(Difference { place: Place::Device(i), what: "checks".into(), selectors: Vec::new() });
        }
        for (j, a) in d.mig_devices.iter().enumerate() {
            let empty = Answers::new();
            answers_differ(&Place::MigDevice(i, j), a, m.mig_devices.get(j).unwrap_or(&empty), &mut out);
        }
        for gi in &d.gpu_instances {
            let other = m.gpu_instances.iter().find(|g| g.id == gi.id);
            let empty = GpuInstanceRec::default();
            let o = other.unwrap_or(&empty);
            answers_differ(&Place::GpuInstance(i, gi.id), &gi.answers, &o.answers, &mut out);
            for ci in &gi.compute_instances {
                let oc = o.compute_instances.iter().find(|c| c.id == ci.id);
                let empty = ComputeInstanceRec::default();
                answers_differ(
                    &Place::ComputeInstance(i, gi.id, ci.id),
                    &ci.answers,
                    &oc.unwrap_or(&empty).answers,
                    &mut out,
                );
            }
        }
        for (id, a) in &d.vgpu_instances {
            let empty = Answers::new();
            answers_differ(&Place::VgpuInstance(i, *id), a, m.vgpu_instances.get(id).unwrap_or(&empty), &mut out);
        }
        for (f, code) in &d.statuses {
            if m.statuses.get(f) != Some(code) {
                out.push(Difference { place: Place::Device(i), what: (*f).to_string(), selectors: Vec::new() });
            }
        }
        // NaN is a rate the driver answers (a metric with nothing to divide by).
        let bits = |g: &BTreeMap<u32, f64>| g.iter().map(|(k, v)| (*k, v.to_bits())).collect::<Vec<_>>();
        for (what, differ) in [
            ("gpm", bits(&d.gpm) != bits(&m.gpm)),
            ("gpu part number", d.part_number != m.part_number),
            ("field batches", d.field_batches != m.field_batches),
            ("memory affinity", d.memory_affinity != m.memory_affinity),
            ("cpu affinity", d.cpu_affinity != m.cpu_affinity),
        ] {
            if differ {
                out.push(Difference { place: Place::Device(i), what: what.into(), selectors: Vec::new() });
            }
        }
        for (what, differ) in
            [("topology", d.topology != m.topology), ("pgpu metadata", d.pgpu_metadata != m.pgpu_metadata)]
        {
            if differ {
                out.push(Difference { place: Place::Device(i), what: what.into(), selectors: Vec::new() });
            }
        }
        if d.sram_errors != m.sram_errors {
            out.push(Difference { place: Place::Device(i), what: "sram errors".into(), selectors: Vec::new() });
        }
        if d.pstates != m.pstates {
            out.push(Difference {
                place: Place::Device(i),
                what: "nvmlDeviceGetSupportedPerformanceStates".into(),
                selectors: Vec::new(),
            });
        }
        if d.events != m.events {
            out.push(Difference { place: Place::Device(i), what: "events".into(), selectors: Vec::new() });
        }
    }
    for (id, a) in &machine.vgpu_types {
        let empty = Answers::new();
        answers_differ(&Place::VgpuType(*id), a, mock.vgpu_types.get(id).unwrap_or(&empty), &mut out);
    }
    for (f, code) in &machine.statuses {
        if mock.statuses.get(f) != Some(code) {
            out.push(Difference { place: Place::System, what: (*f).to_string(), selectors: Vec::new() });
        }
    }
    if machine.system_events != mock.system_events {
        out.push(Difference { place: Place::System, what: "system events".into(), selectors: Vec::new() });
    }
    if machine.driver_branch != mock.driver_branch {
        out.push(Difference { place: Place::System, what: "driver branch".into(), selectors: Vec::new() });
    }
    // The exported symbols are not compared: the profile records them (`system.exports`), and
    // the mock that checks a profile is the library of every symbol.
    for (what, differ) in [
        ("checks", machine.system_checks != mock.system_checks),
        ("refused record versions", machine.refused != mock.refused),
        ("error strings", machine.error_strings != mock.error_strings),
    ] {
        if differ {
            out.push(Difference { place: Place::System, what: what.into(), selectors: Vec::new() });
        }
    }
    out
}

fn answers_differ(place: &Place, machine: &Answers, mock: &Answers, out: &mut Vec<Difference>) {
    for (f, by) in machine {
        for (sel, a) in by {
            if mock.get(f).and_then(|m| m.get(sel)) != Some(a) {
                out.push(Difference { place: place.clone(), what: f.to_string(), selectors: sel.clone() });
            }
        }
    }
}

/// Functions whose answer identifies a machine or a GPU.
const IDENTIFYING: &[&str] = &[
    "nvmlDeviceGetUUID",
    "nvmlDeviceGetSerial",
    "nvmlDeviceGetHostname_v1",
    "nvmlVgpuInstanceGetUUID",
    "nvmlVgpuInstanceGetVmID",
];

/// Whether a record field identifies a machine or a GPU.
fn identifying_field(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    ["uuid", "serial", "guid", "hostname"].iter().any(|w| n.contains(w))
}

/// Replaces identifying values (serial numbers, UUIDs, the hostname) by synthetic ones of the
/// same shape: the same value everywhere it appears, digits for digits, letters for letters,
/// separators and `GPU-`/`MIG-` prefixes kept.
pub fn anonymize(r: &mut Recording) {
    let mut names = Synthetic::default();
    let mut all: Vec<&mut Answers> = vec![&mut r.system];
    all.extend(r.vgpu_types.values_mut());
    for d in &mut r.devices {
        all.push(&mut d.answers);
        all.extend(d.mig_devices.iter_mut());
        all.extend(d.vgpu_instances.values_mut());
        for gi in &mut d.gpu_instances {
            all.push(&mut gi.answers);
            all.extend(gi.compute_instances.iter_mut().map(|c| &mut c.answers));
        }
    }
    for answers in all {
        for (f, by) in answers.iter_mut() {
            let whole = IDENTIFYING.contains(f);
            for vals in by.values_mut().flatten() {
                for v in vals.iter_mut() {
                    names.hide(v, whole);
                }
            }
        }
    }
}

/// Synthetic replacements, by original value.
#[derive(Default)]
struct Synthetic(BTreeMap<String, String>);

impl Synthetic {
    fn hide(&mut self, v: &mut Val, whole: bool) {
        match v {
            Val::Str(s) if whole && !s.is_empty() => *s = self.replace(s),
            Val::List(items) if whole => {
                let n = self.0.len() as i128 + 1;
                let len = items.len();
                for (i, x) in items.iter_mut().enumerate() {
                    *x = Val::Int(if i + 1 == len { n } else { 0 });
                }
            }
            Val::List(items) => items.iter_mut().for_each(|x| self.hide(x, false)),
            Val::Record(fields) => {
                for (name, x) in fields.iter_mut() {
                    self.hide(x, identifying_field(name));
                }
            }
            Val::Member(_, x) => self.hide(x, whole),
            _ => {}
        }
    }

    fn replace(&mut self, original: &str) -> String {
        let n = self.0.len() + 1;
        self.0
            .entry(original.to_string())
            .or_insert_with(|| {
                let (prefix, rest) = ["GPU-", "MIG-"]
                    .iter()
                    .find_map(|p| original.strip_prefix(p).map(|r| (*p, r)))
                    .unwrap_or(("", original));
                let seed = format!("{n:0>width$}", width = rest.len().max(1));
                let digits: Vec<u32> = seed.chars().rev().filter_map(|c| c.to_digit(10)).collect();
                let out: String = rest
                    .chars()
                    .rev()
                    .enumerate()
                    .map(|(i, c)| {
                        let d = digits.get(i).copied().unwrap_or(0);
                        if c.is_ascii_digit() {
                            char::from_digit(d, 10).unwrap_or('0')
                        } else if c.is_ascii_hexdigit() {
                            char::from_digit(d, 16).unwrap_or('0')
                        } else if c.is_ascii_alphabetic() {
                            (if c.is_ascii_uppercase() { b'A' } else { b'a' } + d as u8) as char
                        } else {
                            c
                        }
                    })
                    .collect::<Vec<char>>()
                    .into_iter()
                    .rev()
                    .collect();
                format!("{prefix}{out}")
            })
            .clone()
    }
}
