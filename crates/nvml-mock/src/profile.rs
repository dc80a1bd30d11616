//! GPU profiles: YAML files describing a system and its devices.
//!
//! A profile has `system`, `device_defaults` and a `devices` list (one entry per GPU, each
//! overriding the defaults), and may start from other profiles (`base`: built-in bases such as
//! `base/hopper`, built-in profiles, or files), which it overrides mapping by mapping.
//! One vocabulary of keys: a value that exactly one function answers is keyed by that
//! function's name (`nvmlDeviceGetMemoryBusWidth`), a value several functions read by a dotted
//! path (`memory.total`), whether the mock answers the function through generated code or by
//! hand (the mock's README has the rule and its exceptions). Keys of the old vocabulary are
//! load errors naming the new one ([`RENAMED`]). Device values are flattened to dotted paths
//! and checked against [`DEVICE_KEYS`] when the profile loads, so a typo or a wrong kind is an
//! error naming its path; so are the own values of the few hand-written functions that have
//! one (`nvmlDeviceGetComputeMode`). Other function names are that function's values, checked
//! against the header's types (see [`crate::answer`]). A value a profile leaves
//! out means the GPU does not support that query: the engine answers
//! `NVML_ERROR_NOT_SUPPORTED`, as the driver does. In strings, `{index}` is replaced by the
//! device's index.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use serde_yaml::{Mapping, Value};

use crate::answer::constant;
use crate::answer::{self, Entry};
use crate::driver::Version;
use crate::generated::names::FUNCTIONS;
use crate::generated::tables::{HAND_SELECTORS, HAND_WRITTEN};
use crate::schema::ObjectKind;

/// Lists built-in YAML files by name: `$text` their texts, `$packed` their trees as
/// `build.rs` packed them (`crate::packed`), which [`yaml`] reads instead of parsing the text.
macro_rules! builtin {
    ($(#[$doc:meta])* $text:ident, $packed:ident: $($name:literal => $file:literal,)*) => {
        $(#[$doc])*
        pub const $text: &[(&str, &str)] = &[$(($name, include_str!(concat!("../profiles/", $file, ".yaml"))),)*];
        const $packed: &[(&str, &[u8])] =
            &[$(($name, include_bytes!(concat!(env!("OUT_DIR"), "/profiles/", $file, ".bin"))),)*];
    };
}

builtin!(
    /// The built-in profiles, by name.
    BUILTIN, BUILTIN_PACKED:
    "a100" => "a100",
    "a100-r525" => "a100-r525",
    "b200" => "b200",
    "b200-r575" => "b200-r575",
    "b200-r580.65" => "b200-r580.65",
    "gb200" => "gb200",
    "h100" => "h100",
    "h100-r560" => "h100-r560",
    "h200" => "h200",
    "l40s" => "l40s",
    "l40s-vgpu" => "l40s-vgpu",
    "t4" => "t4",
);

builtin!(
    /// The built-in bases: what GPUs of an architecture (or a driver) share, for profiles to
    /// start from (`base: [base/hopper]`).
    BASES, BASES_PACKED:
    "base/ampere" => "base/ampere",
    "base/blackwell" => "base/blackwell",
    "base/common" => "base/common",
    "base/h100-80gb-hbm3" => "base/h100-80gb-hbm3",
    "base/hopper" => "base/hopper",
    "base/nvlink" => "base/nvlink",
    "base/pcie-only" => "base/pcie-only",
    "base/renumbered-fields" => "base/renumbered-fields",
    "base/ada" => "base/ada",
    "base/turing" => "base/turing",
);

/// The tree of the built-in file (profile or base) whose text is `text`, its bases merged in,
/// as `build.rs` packed it; `None` for another text, and for a built-in file that did not
/// load when the library was built (its text is then parsed, for the error).
fn packed_tree(text: &str) -> Option<Value> {
    crate::packed::unpack(packed_bytes(text)?)
}

/// The packed tree of the built-in file whose text is `text`.
fn packed_bytes(text: &str) -> Option<&'static [u8]> {
    let texts = BUILTIN.iter().chain(BASES);
    let packed = BUILTIN_PACKED.iter().chain(BASES_PACKED);
    texts.zip(packed).find(|((_, t), _)| *t == text).map(|(_, (_, bytes))| *bytes)
}

/// The YAML tree of `text`, parsed; the error names `origin`.
fn parse_yaml(text: &str, origin: &str) -> Result<Value, String> {
    serde_yaml::from_str(text).map_err(|e| format!("profile {origin}: {e}"))
}

/// The profile used when `NVML_MOCK_PROFILE` is unset.
pub const DEFAULT: &str = "h100";

/// Kinds of profile values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A non-negative integer.
    UInt,
    /// A signed integer.
    Int,
    Bool,
    Str,
    /// An NVML constant by name (`NVML_COMPUTEMODE_DEFAULT`) or its number.
    Const,
    /// A YAML list, read by the function that needs it.
    List,
    /// A YAML mapping with free-form keys (e.g. field values by field name).
    Map,
}

/// Keys of the old vocabulary, `(old, new)`, as the `system` or a device writes them: what
/// exactly one function answers is keyed by that function's name. An old key (or one under
/// it) is a load error naming the new one.
pub const RENAMED: &[(&str, &str)] = &[
    ("brand", "nvmlDeviceGetBrand"),
    ("compute_mode", "nvmlDeviceGetComputeMode"),
    ("field_values", "nvmlDeviceGetFieldValues"),
    ("minor_number", "nvmlDeviceGetMinorNumber"),
    ("performance_state", "nvmlDeviceGetPerformanceState"),
    ("pgpu_metadata", "nvmlDeviceGetPgpuMetadataString"),
    ("system.cuda_driver_version", "system.nvmlSystemGetCudaDriverVersion"),
    ("system.nvml_version", "system.nvmlSystemGetNVMLVersion"),
];

/// Every key a device may have, after flattening. Dotted paths (and the few plain keys) are
/// values several functions read; a function's name is the value of that function alone,
/// which the engine answers by hand.
pub static DEVICE_KEYS: &[(&str, Kind)] = &[
    ("name", Kind::Str),
    ("uuid", Kind::Str),
    ("serial", Kind::Str),
    ("board_id", Kind::UInt),
    ("numa_node", Kind::Int),
    ("cpu_affinity", Kind::Str),
    ("topology", Kind::Map),
    ("memory_affinity", Kind::List),
    ("pci.domain", Kind::UInt),
    ("pci.bus", Kind::UInt),
    ("pci.device", Kind::UInt),
    ("pci.device_id", Kind::UInt),
    ("pci.subsystem_id", Kind::UInt),
    ("pci.base_class", Kind::UInt),
    ("pci.sub_class", Kind::UInt),
    ("pci.host_max_link_generation", Kind::UInt),
    ("gpu_part_number", Kind::Str),
    ("memory.total", Kind::UInt),
    ("memory.reserved", Kind::UInt),
    ("memory.used", Kind::UInt),
    ("bar1.total", Kind::UInt),
    ("bar1.used", Kind::UInt),
    ("clocks.graphics", Kind::UInt),
    ("clocks.sm", Kind::UInt),
    ("clocks.memory", Kind::UInt),
    ("clocks.video", Kind::UInt),
    ("max_clocks.graphics", Kind::UInt),
    ("max_clocks.sm", Kind::UInt),
    ("max_clocks.memory", Kind::UInt),
    ("max_clocks.video", Kind::UInt),
    ("application_clocks.graphics", Kind::UInt),
    ("application_clocks.memory", Kind::UInt),
    ("default_application_clocks.graphics", Kind::UInt),
    ("default_application_clocks.memory", Kind::UInt),
    ("supported_memory_clocks", Kind::List),
    ("supported_graphics_clocks", Kind::List),
    ("power.usage_mw", Kind::UInt),
    ("power.limit_mw", Kind::UInt),
    ("power.min_limit_mw", Kind::UInt),
    ("power.max_limit_mw", Kind::UInt),
    ("power.enforced_limit_mw", Kind::UInt),
    ("power.energy_mj", Kind::UInt),
    ("temperature.gpu", Kind::UInt),
    ("temperature.memory", Kind::UInt),
    ("fans", Kind::List),
    ("utilization.gpu", Kind::UInt),
    ("utilization.memory", Kind::UInt),
    ("encoder.utilization", Kind::UInt),
    ("encoder.sampling_period_us", Kind::UInt),
    ("decoder.utilization", Kind::UInt),
    ("decoder.sampling_period_us", Kind::UInt),
    ("persistence_mode", Kind::Bool),
    ("ecc.enabled", Kind::Bool),
    ("ecc.pending", Kind::Bool),
    ("ecc.volatile.corrected", Kind::UInt),
    ("ecc.volatile.uncorrected", Kind::UInt),
    ("ecc.aggregate.corrected", Kind::UInt),
    ("ecc.aggregate.uncorrected", Kind::UInt),
    ("ecc.sram_unique_uncorrected", Kind::List),
    ("retired_pages.single_bit", Kind::List),
    ("retired_pages.double_bit", Kind::List),
    ("retired_pages.pending", Kind::Bool),
    ("remapped_rows.corrected", Kind::UInt),
    ("remapped_rows.uncorrected", Kind::UInt),
    ("remapped_rows.pending", Kind::Bool),
    ("remapped_rows.failure", Kind::Bool),
    ("nvlink.links", Kind::UInt),
    ("nvlink.version", Kind::UInt),
    ("nvlink.inactive_links", Kind::List),
    ("nvlink.speed_mbps", Kind::UInt),
    ("nvlink.throughput.data_tx_kib", Kind::UInt),
    ("nvlink.throughput.data_rx_kib", Kind::UInt),
    ("nvlink.throughput.raw_tx_kib", Kind::UInt),
    ("nvlink.throughput.raw_rx_kib", Kind::UInt),
    ("mig.mode", Kind::Bool),
    ("mig.pending", Kind::Bool),
    ("mig.max_devices", Kind::UInt),
    ("mig.gpu_instance_profiles", Kind::List),
    ("mig.compute_instance_profiles", Kind::List),
    ("mig.slices", Kind::UInt),
    ("mig.gpu_instances", Kind::List),
    ("processes.compute", Kind::List),
    ("processes.graphics", Kind::List),
    ("vgpu.instances", Kind::List),
    ("supported_events", Kind::List),
    ("supported_pstates", Kind::List),
    ("gpm", Kind::Map),
    ("recorded_gpm", Kind::Bool),
    ("field_batches", Kind::Map),
    // How the driver orders its argument checks, by function (what a capture recorded).
    ("checks", Kind::Map),
    // Values of one function that the engine answers by hand, under the function's name.
    ("nvmlDeviceGetComputeMode", Kind::Const),
    ("nvmlDeviceGetFieldValues", Kind::Map),
    ("nvmlDeviceGetPgpuMetadataString", Kind::Str),
    // Field values as a driver answered them, by its field ids (what a capture recorded).
    ("recorded_fields", Kind::Map),
    // What the CUDA driver answered of the GPU (a capture's, `crate::cuda` replays it): its
    // name, total memory, and attributes by name without `CU_DEVICE_ATTRIBUTE_` (a number, or
    // the `CUresult` name the driver answered).
    ("cuda.name", Kind::Str),
    ("cuda.total_memory", Kind::UInt),
    ("cuda.attributes", Kind::Map),
];

/// Keys of the `system` section.
pub static SYSTEM_KEYS: &[(&str, Kind)] = &[
    ("driver_version", Kind::Str),
    ("driver_branch", Kind::Str),
    ("privileged", Kind::Bool),
    // A caller that is not root may change MIG (the mig/config capability granted).
    ("mig_config_capability", Kind::Bool),
    ("numa_cpus", Kind::Map),
    ("checks", Kind::Map),
    ("refused_versions", Kind::List),
    ("exports", Kind::Map),
    ("error_strings", Kind::Map),
    ("before_attach", Kind::Map),
    // What `cuDriverGetVersion` answered (a capture's).
    ("cuda.driver_version", Kind::Int),
];

pub const TOP_KEYS: &[&str] = &[
    "name",
    "description",
    "base",
    "live_pids",
    "vgpu_types",
    "system",
    "device_defaults",
    "devices",
    "faults",
    "missing_functions",
    "grow_processes",
    "events",
    "system_events",
    "cper_records",
];

/// Values by dotted path, and function values by function name (prefixed by the path of the
/// object they belong to: `mig.device.nvmlDeviceGetName`). The values are hashed: the
/// functions written by hand look them up on every call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Flat(Values, pub Entries);

/// Values by dotted path, each shared: the GPUs of a profile share its defaults' values
/// (a recorded GPU's are thousands), not copies of them.
type Values = HashMap<Arc<str>, Arc<Value>, BuildHasherDefault<KeyHasher>>;

/// Function values by function name.
pub type Entries = BTreeMap<Arc<str>, std::sync::Arc<Entry>>;

/// A hasher for a profile's keys (short, trusted strings): a word at a time, multiplied
/// (the Fx hash), deterministic.
#[derive(Debug, Clone, Copy, Default)]
pub struct KeyHasher(u64);

impl KeyHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        let n = bytes.len();
        let word = |i: usize| bytes.get(i..i + 8).map_or(0, |w| u64::from_le_bytes(w.try_into().unwrap_or_default()));
        if n >= 8 {
            // Whole words, then the last eight bytes (which may overlap the last word).
            let mut i = 0;
            while i + 8 < n {
                self.add(word(i));
                i += 8;
            }
            self.add(word(n - 8));
        } else {
            self.add(bytes.iter().fold(n as u64, |w, b| w << 8 | u64::from(*b)));
        }
    }

    fn write_u8(&mut self, b: u8) {
        self.add(u64::from(b));
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

impl Flat {
    /// Every value by dotted path (function values aside), sorted.
    pub fn values(&self) -> BTreeMap<&str, &Value> {
        self.0.iter().map(|(k, v)| (&**k, &**v)).collect()
    }

    /// The function values of the object at `prefix` (`""`: this one).
    pub fn entries<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = (&'a str, &'a Entry)> + 'a {
        self.1.iter().filter_map(move |(k, e)| {
            let rest = k.strip_prefix(prefix)?;
            (!rest.contains('.')).then_some((rest, &**e))
        })
    }

    /// The function value of `function` for the object at `prefix`.
    pub fn entry(&self, prefix: &str, function: &str) -> Option<&Entry> {
        if prefix.is_empty() {
            return self.1.get(function).map(|e| &**e);
        }
        self.1.get(format!("{prefix}{function}").as_str()).map(|e| &**e)
    }

    pub fn value(&self, key: &str) -> Option<&Value> {
        self.0.get(key).map(|v| &**v)
    }

    pub fn u64(&self, key: &str) -> Option<u64> {
        self.value(key).and_then(Value::as_u64)
    }

    pub fn u32(&self, key: &str) -> Option<u32> {
        self.u64(key).and_then(|v| u32::try_from(v).ok())
    }

    pub fn i64(&self, key: &str) -> Option<i64> {
        self.value(key).and_then(Value::as_i64)
    }

    pub fn bool(&self, key: &str) -> Option<bool> {
        self.value(key).and_then(Value::as_bool)
    }

    pub fn str(&self, key: &str) -> Option<&str> {
        self.value(key).and_then(Value::as_str)
    }

    pub fn list(&self, key: &str) -> Option<&[Value]> {
        self.value(key).and_then(Value::as_sequence).map(|s| s.as_slice())
    }

    /// A `Const` value: a constant's name or a number.
    pub fn constant(&self, key: &str) -> Option<i128> {
        const_value(self.value(key)?)
    }
}

/// A number, or the name of an NVML constant.
pub fn const_value(v: &Value) -> Option<i128> {
    match v {
        Value::Number(n) => n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from)),
        Value::String(s) => constant(s),
        _ => None,
    }
}

/// A fault: `function` (a trailing `*` matches a prefix) returns `code` once it has been
/// called `after` times.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FaultSpec {
    pub function: String,
    pub code: u32,
    pub after: u64,
}

impl FaultSpec {
    pub fn matches(&self, function: &str) -> bool {
        match self.function.strip_suffix('*') {
            Some(prefix) => function.starts_with(prefix),
            None => self.function == function,
        }
    }
}

/// An event delivered to event sets that register for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventSpec {
    pub device: usize,
    pub event_type: u64,
    pub data: u64,
}

/// A system event (`nvmlSystemEventSetWait`), queued for every system event set that
/// registers for its type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemEventSpec {
    pub event_type: u64,
    /// The GPU in the header's "PCI format": `(bus << 8) | device` for PCI domain 0.
    pub gpu_id: u32,
}

/// A Common Platform Error Record (`nvmlSystemGetCPER_v1`) of a device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CperRecord {
    pub device: usize,
    pub data: Vec<u8>,
}

/// How the driver answers a function that takes a versioned record before it looks at
/// anything else, where a capture recorded it: a NULL record, and a version it does not know.
/// `None`: the function's own checks (NULL), `NVML_ERROR_ARGUMENT_VERSION_MISMATCH` (a version).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Checks {
    pub null: Option<u32>,
    pub wrong_version: Option<u32>,
}

/// `checks: {nvmlX: {null: CODE, wrong_version: CODE}}`, by function.
fn parse_checks(v: Option<&Value>, path: &str) -> Result<BTreeMap<String, Checks>, (String, String)> {
    let mut out = BTreeMap::new();
    let Some(v) = v.filter(|v| !v.is_null()) else { return Ok(out) };
    let m = v.as_mapping().ok_or_else(|| (path.to_string(), "expected a mapping by function".to_string()))?;
    for (f, c) in m {
        // The paths are written out only for a message: a recorded GPU checks dozens.
        let f = f.as_str().unwrap_or("");
        let fpath = || format!("{path}.{f}");
        if FUNCTIONS.binary_search(&f).is_err() {
            return Err((fpath(), format!("`{f}` is not a function of nvml.h")));
        }
        let c = c.as_mapping().ok_or_else(|| (fpath(), "expected `null` and `wrong_version` codes".into()))?;
        let mut checks = Checks::default();
        for (k, code) in c {
            let k = k.as_str().unwrap_or("");
            let kpath = || format!("{}.{k}", fpath());
            let code = const_value(code)
                .and_then(|c| u32::try_from(c).ok())
                .ok_or_else(|| (kpath(), "expected an NVML return code".to_string()))?;
            match k {
                "null" => checks.null = Some(code),
                "wrong_version" => checks.wrong_version = Some(code),
                _ => return Err((kpath(), "unknown key (expected `null` or `wrong_version`)".into())),
            }
        }
        out.insert(f.to_string(), checks);
    }
    Ok(out)
}

/// The strings of a list, each checked to be a name.
fn names_in(list: &[Value], path: &str) -> Result<Vec<String>, (String, String)> {
    list.iter()
        .enumerate()
        .map(|(i, v)| v.as_str().map(String::from).ok_or_else(|| (format!("{path}[{i}]"), "expected a name".into())))
        .collect()
}

/// A loaded profile.
#[derive(Debug, Clone, Default)]
pub struct Profile {
    pub name: String,
    pub system: Flat,
    /// Each GPU's values, shared with what the engine resolves of them.
    pub devices: Vec<std::sync::Arc<Flat>>,
    pub faults: Vec<FaultSpec>,
    /// Functions the emulated driver lacks: they answer `NVML_ERROR_FUNCTION_NOT_FOUND`.
    pub missing_functions: Vec<String>,
    /// The major version of `system.driver_version` (`535.104.05` → 535): functions a later
    /// driver branch introduced answer `NVML_ERROR_FUNCTION_NOT_FOUND`. `None` without a
    /// driver version: every function is present.
    pub driver_branch: Option<u32>,
    /// `system.driver_version` as a version, for the functions it has (`crate::driver::has`);
    /// a version the driver module cannot read whole (`535.104.05-custom`) counts as the first
    /// of its branch.
    pub driver: Option<Version>,
    /// How the driver of `system.driver_version` numbers the field ids: the mock reads the ids
    /// of `nvmlDeviceGetFieldValues` by it, as that driver does. The newest numbering without a
    /// driver version, or for one that is not `major.minor.patch` numbers.
    pub fields: nvml_sys::FieldNumbering,
    /// How many times a process list grows by one between a size query and the fill.
    pub grow_processes: u32,
    pub events: Vec<EventSpec>,
    pub system_events: Vec<SystemEventSpec>,
    pub cper_records: Vec<CperRecord>,
    /// Whether the caller runs as root (`system.privileged`, default true): otherwise the
    /// functions nvml.h says need a privileged user answer `NVML_ERROR_NO_PERMISSION`.
    pub privileged: bool,
    /// `live_pids: true`: the profile's process ids become those of live processes (the
    /// caller and its ancestors), for clients that hide processes that do not exist.
    pub live_pids: bool,
    /// vGPU types by id, with their function values.
    pub vgpu_types: BTreeMap<u32, Entries>,
    /// How the driver checks versioned records, by function: of the system, and of each device.
    pub system_checks: BTreeMap<String, Checks>,
    pub device_checks: Vec<BTreeMap<String, Checks>>,
    /// Record versions (`nvmlNvLinkInfo_v2`) the driver refuses although the header history
    /// dates them no later than the driver (`system.refused_versions`, as a capture saw).
    pub refused_versions: Vec<String>,
    /// Functions the driver exports although the history dates them later
    /// (`system.exports.extra`, as a capture saw); `system.exports.missing` joins
    /// `missing_functions`.
    pub exports_extra: Vec<String>,
    /// The error some functions answer until a GPU has been looked up since `nvmlInit`
    /// (`system.before_attach`, as a capture saw: `{nvmlGetVgpuDriverCapabilities:
    /// NVML_ERROR_UNKNOWN}`).
    pub before_attach: BTreeMap<String, nvml_sys::nvmlReturn_t>,
}

impl Profile {
    /// Makes the profile's driver `version` (`system.driver_version` and what derives from it),
    /// for a profile that names none.
    pub fn set_driver(&mut self, version: &Version) {
        self.system.0.insert(Arc::from("driver_version"), Arc::new(Value::String(version.as_str().to_string())));
        self.driver_branch = Some(version.branch());
        self.driver = Some(version.clone());
    }
}

/// Loads a profile by `NVML_MOCK_PROFILE`'s syntax: a built-in name or a path to a YAML file
/// (empty: the default profile).
pub fn load(spec: &str) -> Result<Profile, String> {
    let (origin, text) = source(spec)?;
    parse(&text, &origin)
}

/// The text of the profile `spec` names (`NVML_MOCK_PROFILE`'s syntax), and where it comes
/// from, as [`parse`] takes them.
pub fn source(spec: &str) -> Result<(String, std::borrow::Cow<'static, str>), String> {
    let spec = if spec.is_empty() { DEFAULT } else { spec };
    if let Some((name, text)) = BUILTIN.iter().find(|(n, _)| n.eq_ignore_ascii_case(spec)) {
        return Ok((format!("built-in profile `{name}`"), std::borrow::Cow::Borrowed(text)));
    }
    let text = std::fs::read_to_string(spec).map_err(|e| {
        let names: Vec<&str> = BUILTIN.iter().map(|(n, _)| *n).collect();
        format!("profile `{spec}` is neither a built-in ({}) nor a readable file: {e}", names.join(", "))
    })?;
    Ok((spec.to_string(), std::borrow::Cow::Owned(text)))
}

/// A value put over a device of a profile once it is read (`nvml-mock ctl set`).
#[derive(Debug, Clone, PartialEq)]
pub enum Put {
    /// A key as the device's values are flattened (`temperature.gpu`, a function's name) and
    /// its value, checked as the profile's own.
    Key(String, Value),
    /// A field value by the driver's field id, as `recorded_fields` records one.
    Field(u32, Value),
}

/// What is put over each device (by index) of a profile once it is read.
pub type Overlay = BTreeMap<usize, Vec<Put>>;

/// Puts `puts` over a device's flattened values.
fn put_over<'a>(flat: &mut Flattened<'a>, puts: &'a [Put]) {
    for p in puts {
        match p {
            Put::Key(k, v) => {
                flat.insert(k.clone(), Cow::Borrowed(v));
            }
            Put::Field(id, v) => {
                let fields = flat
                    .entry("recorded_fields".to_string())
                    .or_insert_with(|| Cow::Owned(Value::Mapping(Mapping::new())));
                if !fields.is_mapping() {
                    *fields = Cow::Owned(Value::Mapping(Mapping::new()));
                }
                if let Some(m) = fields.to_mut().as_mapping_mut() {
                    m.insert(Value::from(*id), v.clone());
                }
            }
        }
    }
}

/// A device's values by dotted path as [`flatten`] leaves them, those made for the device
/// (templated, put over) owned, the others borrowed from the profile's tree.
type Flattened<'a> = BTreeMap<String, Cow<'a, Value>>;

/// A profile's text with its `base`s merged in (recursively): each base in order, then the
/// profile, mapping by mapping; lists and values replace. `origin` is the profile's file (whose
/// directory relative bases are read from) or name. A built-in file's (the same text) is
/// read from its packed form, merged when the library was built.
fn with_bases(text: &str, origin: &str, depth: usize) -> Result<Value, String> {
    if let Some(tree) = packed_tree(text) {
        return Ok(tree);
    }
    merge_with_bases(parse_yaml(text, origin)?, origin, depth, &mut with_bases)
}

/// [`crate::bases::merge_bases`] of `root` (from `origin`), each base's tree made by `tree`
/// (its text, origin and depth): a built-in base's text by name, else a file's beside `origin`.
fn merge_with_bases(
    root: Value,
    origin: &str,
    depth: usize,
    tree: &mut dyn FnMut(&str, &str, usize) -> Result<Value, String>,
) -> Result<Value, String> {
    crate::bases::merge_bases(root, origin, depth, &mut |b, depth| {
        if let Some((n, t)) = BASES.iter().chain(BUILTIN).find(|(n, _)| *n == b) {
            return tree(t, n, depth);
        }
        let dir = std::path::Path::new(origin).parent().unwrap_or(std::path::Path::new("."));
        let path = dir.join(b);
        let t = std::fs::read_to_string(&path).map_err(|e| {
            let names: Vec<&str> = BASES.iter().chain(BUILTIN).map(|(n, _)| *n).collect();
            format!(
                "profile {origin}: base `{b}` is neither a built-in ({}) nor a readable file: {e}",
                names.join(", ")
            )
        })?;
        tree(&t, &path.display().to_string(), depth)
    })
}

/// Parses and checks a profile; the error names `origin` and the offending path.
pub fn parse(text: &str, origin: &str) -> Result<Profile, String> {
    parse_with(text, origin, &Overlay::new())
}

/// Parses and checks a profile with `overlay` put over its devices, each put checked as the
/// profile's own values are (a device the profile lacks is an error).
pub fn parse_with(text: &str, origin: &str, overlay: &Overlay) -> Result<Profile, String> {
    parse_devices(text, origin, overlay, false)
}

/// Whether the profile loads with `overlay` put over its devices, as [`parse_with`] says, and
/// its number of GPUs. A built-in profile's devices that `overlay` leaves as they are load (a
/// test loads every built-in), so only those it changes are made (`nvml-mock ctl` checks each
/// command so, in a process of its own).
pub fn check_with(text: &str, origin: &str, overlay: &Overlay) -> Result<usize, String> {
    let builtin = BUILTIN.iter().any(|(_, t)| *t == text);
    if builtin {
        if let Some(checked) = check_alone(origin, text, overlay) {
            return checked;
        }
    }
    parse_devices(text, origin, overlay, builtin).map(|p| p.devices.len())
}

/// How the profile's driver numbers the field ids (`Profile::fields`): of a built-in profile,
/// read from its packed tree's `system.driver_version` without loading the profile (`nvml-mock
/// ctl set` of an `NVML_FI_*` name reads it so); of another, from the profile loaded.
pub fn field_numbering(text: &str, origin: &str) -> Result<nvml_sys::FieldNumbering, String> {
    let packed = packed_bytes(text).and_then(|b| crate::packed::get(b, "system")).map(|system| {
        match crate::packed::get(system, "driver_version").map(crate::packed::unpack) {
            // No driver version: the newest numbering, as `parse_devices` has it.
            None => Some(nvml_sys::FieldNumbering::default()),
            // One that the profile loads with (its major version a number).
            Some(Some(Value::String(v))) if v.split('.').next().is_some_and(|m| m.parse::<u32>().is_ok()) => {
                Some(nvml_sys::FieldNumbering::for_driver(&v).unwrap_or_default())
            }
            Some(_) => None,
        }
    });
    match packed.flatten() {
        Some(numbering) => Ok(numbering),
        None => parse(text, origin).map(|p| p.fields),
    }
}

/// Keys whose value a device's other values are checked against (its processes' memory
/// against `memory.used`, a vGPU host's instances against the types), or that change how
/// other puts apply (`recorded_fields` and field values): a put of one needs its device made.
const CHECKED_TOGETHER: &[&str] =
    &["memory.used", "processes.compute", "processes.graphics", "vgpu.instances", "checks", "recorded_fields"];

/// [`check_with`] of a built-in profile (`text`) without making a device, where each put is a
/// key and value checked alone: a put goes into its device as it is (after the device's own
/// keys are flattened and templated), and the device's other values load, so a put fails only
/// on what it is. A field value goes into the device's `recorded_fields`, which the engine
/// reads when a client asks for the field (nothing checks it as the profile loads): it fails
/// only on a GPU that does not exist. `None` where that does not hold (a key of
/// [`CHECKED_TOGETHER`]) or the profile's GPUs cannot be counted from its packed form.
fn check_alone(origin: &str, text: &str, overlay: &Overlay) -> Option<Result<usize, String>> {
    let together = |k: &str| {
        CHECKED_TOGETHER.iter().any(|c| k.strip_prefix(c).is_some_and(|r| r.is_empty() || r.starts_with('.')))
    };
    if !overlay.values().flatten().all(|p| matches!(p, Put::Field(..)) || matches!(p, Put::Key(k, _) if !together(k))) {
        return None;
    }
    let gpus = builtin_gpus(text)?;
    let fail = |path: &str, msg: String| format!("profile {origin}: {path}: {msg}");
    if let Some(i) = overlay.keys().find(|i| **i >= gpus) {
        return Some(Err(fail("devices", format!("GPU {i} does not exist (the profile has GPUs 0 to {})", gpus - 1))));
    }
    for (i, puts) in overlay {
        let mut own = Flattened::new();
        for p in puts {
            if let Put::Key(k, v) = p {
                own.insert(k.clone(), Cow::Borrowed(v));
            }
        }
        let flat = match made(own, ObjectKind::Device, "") {
            Ok(flat) => flat,
            Err(m) => return Some(Err(fail(&format!("devices[{i}]"), m))),
        };
        if let Err((path, m)) = check_keys(&flat, DEVICE_KEYS, "") {
            return Some(Err(fail(&format!("devices[{i}].{path}"), m)));
        }
    }
    Some(Ok(gpus))
}

/// The number of GPUs of the built-in profile (or base) whose text is `text`, read from its
/// packed tree (its bases merged in).
fn builtin_gpus(text: &str) -> Option<usize> {
    crate::packed::items(crate::packed::get(packed_bytes(text)?, "devices")?)
}

/// [`parse_with`]; with `only_overlaid`, the devices `overlay` does not change are left empty.
fn parse_devices(text: &str, origin: &str, overlay: &Overlay, only_overlaid: bool) -> Result<Profile, String> {
    let fail = |path: &str, msg: String| format!("profile {origin}: {path}: {msg}");
    let prepared = prepare(text, origin)?;
    let root = &prepared.root;
    let top = root.as_mapping().ok_or_else(|| fail("(top level)", "expected a mapping".into()))?;
    for k in top.keys() {
        let k = k.as_str().unwrap_or("");
        if !TOP_KEYS.contains(&k) {
            return Err(fail(k, format!("unknown key (expected one of: {})", TOP_KEYS.join(", "))));
        }
    }
    let mut p =
        Profile { name: top.get("name").and_then(Value::as_str).unwrap_or(origin).to_string(), ..Profile::default() };

    let mut system = BTreeMap::new();
    if let Some(s) = top.get("system") {
        flatten("system", s, &mut system).map_err(|(path, m)| fail(&path, m))?;
    }
    let system = system.into_iter().map(|(k, v)| (k.trim_start_matches("system.").to_string(), v)).collect();
    p.system = made(borrowed(system), ObjectKind::System, "system.").map_err(|m| fail("system", m))?;
    check_keys(&p.system, SYSTEM_KEYS, "system.").map_err(|(path, m)| fail(&path, m))?;
    p.privileged = p.system.bool("privileged").unwrap_or(true);
    p.live_pids = top.get("live_pids").and_then(Value::as_bool).unwrap_or(false);
    if let Some(v) = p.system.str("driver_version") {
        let major = v.split('.').next().and_then(|m| m.parse::<u32>().ok());
        let major = major
            .ok_or_else(|| fail("system.driver_version", format!("`{v}` is not a driver version such as 580.82.07")))?;
        p.driver_branch = Some(major);
        p.driver = Some(Version::parse(v).unwrap_or_else(|_| Version::branch_start(major)));
        p.fields = nvml_sys::FieldNumbering::for_driver(v).unwrap_or_default();
    }

    let no_defaults = Value::Mapping(Mapping::new());
    let defaults = top.get("device_defaults").unwrap_or(&no_defaults);
    let devices = top
        .get("devices")
        .and_then(Value::as_sequence)
        .ok_or_else(|| fail("devices", "expected a list of devices".into()))?;
    if devices.is_empty() {
        return Err(fail("devices", "a profile needs at least one device".into()));
    }
    if let Some(i) = overlay.keys().find(|i| **i >= devices.len()) {
        return Err(fail(
            "devices",
            format!("GPU {i} does not exist (the profile has GPUs 0 to {})", devices.len() - 1),
        ));
    }
    // The defaults are flattened, parsed and checked once for every device (a recorded GPU's
    // are thousands of values); a device then only adds what it names itself.
    let shared = &prepared.defaults;
    let mut devices_made = Vec::with_capacity(devices.len());
    for (i, d) in devices.iter().enumerate() {
        if only_overlaid && !overlay.contains_key(&i) {
            devices_made.push(Flat::default());
            continue;
        }
        let puts = overlay.get(&i).map(Vec::as_slice).unwrap_or_default();
        let made = match (shared, defaults.as_mapping()) {
            (Some(shared), Some(defaults)) => shared.device(defaults, d, i, puts),
            _ => None,
        };
        let mut flat = match made.unwrap_or_else(|| whole_device(defaults, d, i, puts)) {
            Ok(flat) => flat,
            Err(Failed::Flatten(path, m) | Failed::Check(path, m)) => {
                return Err(fail(&format!("devices[{i}].{path}"), m))
            }
            Err(Failed::Entry(m)) => return Err(fail(&format!("devices[{i}]"), m)),
        };
        if let Some(instances) = flat.list("vgpu.instances").map(<[Value]>::to_vec) {
            for (j, inst) in instances.iter().enumerate() {
                let path = format!("devices[{i}].vgpu.instances[{j}]");
                let (id, entries) = object_entries(inst, ObjectKind::VgpuInstance, &path)
                    .map_err(|m| format!("profile {origin}: {m}"))?;
                flat.1.extend(entries.into_iter().map(|(f, e)| (Arc::from(format!("vgpu.instance.{id}.{f}")), e)));
            }
        }
        devices_made.push(flat);
    }
    for (i, t) in items(top, "vgpu_types").iter().enumerate() {
        let (id, entries) = object_entries(t, ObjectKind::VgpuType, &format!("vgpu_types[{i}]"))
            .map_err(|m| format!("profile {origin}: {m}"))?;
        p.vgpu_types.insert(id, entries);
    }
    for (i, d) in devices_made.iter_mut().enumerate() {
        vgpu_host_totals(d, &p.vgpu_types).map_err(|m| fail(&format!("devices[{i}].vgpu.instances"), m))?;
        processes_fit(d).map_err(|m| fail(&format!("devices[{i}].memory.used"), m))?;
    }
    p.devices = devices_made.into_iter().map(std::sync::Arc::new).collect();

    for (i, f) in items(top, "faults").iter().enumerate() {
        let path = format!("faults[{i}]");
        let function =
            f.get("function").and_then(Value::as_str).ok_or_else(|| fail(&path, "needs `function`".into()))?;
        let code = f
            .get("error")
            .and_then(const_value)
            .ok_or_else(|| fail(&path, "needs `error`: an NVML return code".into()))?;
        let after = f.get("after").and_then(Value::as_u64).unwrap_or(0);
        p.faults.push(FaultSpec { function: function.to_string(), code: code as u32, after });
    }
    for (i, m) in items(top, "missing_functions").iter().enumerate() {
        let name =
            m.as_str().ok_or_else(|| fail(&format!("missing_functions[{i}]"), "expected a function name".into()))?;
        p.missing_functions.push(name.to_string());
    }
    p.grow_processes = top.get("grow_processes").and_then(Value::as_u64).unwrap_or(0) as u32;
    p.system_checks = parse_checks(p.system.value("checks"), "system.checks").map_err(|(path, m)| fail(&path, m))?;
    for (i, d) in p.devices.iter().enumerate() {
        // The GPUs that share their defaults' checks (the same value) share what they parse to.
        let shared = d.0.get("checks");
        let same = |j: usize| p.devices[j].0.get("checks").zip(shared).is_some_and(|(a, b)| Arc::ptr_eq(a, b));
        if let Some(j) = (0..i).find(|j| same(*j)) {
            let checks = p.device_checks[j].clone();
            p.device_checks.push(checks);
            continue;
        }
        let path = format!("devices[{i}].checks");
        p.device_checks.push(parse_checks(d.value("checks"), &path).map_err(|(path, m)| fail(&path, m))?);
    }
    p.refused_versions = names_in(p.system.list("refused_versions").unwrap_or_default(), "system.refused_versions")
        .map_err(|(path, m)| fail(&path, m))?;
    for (k, v) in p.system.value("before_attach").and_then(Value::as_mapping).into_iter().flatten() {
        let name = k.as_str().unwrap_or("");
        let path = format!("system.before_attach.{name}");
        if FUNCTIONS.binary_search(&name).is_err() {
            return Err(fail(&path, format!("`{name}` is not a function of nvml.h")));
        }
        let code = const_value(v)
            .filter(|c| *c > 0)
            .ok_or_else(|| fail(&path, "expected an error code (NVML_ERROR_...)".into()))?;
        p.before_attach.insert(name.to_string(), code as nvml_sys::nvmlReturn_t);
    }
    if let Some(exports) = p.system.value("exports").and_then(Value::as_mapping) {
        for (k, v) in exports {
            let key = k.as_str().unwrap_or("");
            let path = format!("system.exports.{key}");
            let list = v
                .as_sequence()
                .map(Vec::as_slice)
                .ok_or_else(|| fail(&path, "expected a list of function names".into()))?;
            let names = names_in(list, &path).map_err(|(path, m)| fail(&path, m))?;
            if let Some(bad) = names.iter().find(|n| FUNCTIONS.binary_search(&n.as_str()).is_err()) {
                return Err(fail(&path, format!("`{bad}` is not a function of nvml.h")));
            }
            match key {
                "extra" => p.exports_extra = names,
                "missing" => p.missing_functions.extend(names),
                _ => return Err(fail(&path, "unknown key (expected `extra` or `missing`)".into())),
            }
        }
    }
    let device_of = |path: &str, e: &Value| {
        let device =
            e.get("device").and_then(Value::as_u64).ok_or_else(|| fail(path, "needs `device`: an index".into()))?
                as usize;
        if device >= p.devices.len() {
            return Err(fail(path, format!("device {device} does not exist")));
        }
        Ok(device)
    };
    let mut events = Vec::new();
    for (i, e) in items(top, "events").iter().enumerate() {
        let path = format!("events[{i}]");
        let device = device_of(&path, e)?;
        let event_type =
            e.get("type").and_then(const_value).ok_or_else(|| fail(&path, "needs `type`: an NVML event type".into()))?
                as u64;
        let data = e.get("data").and_then(Value::as_u64).unwrap_or(0);
        events.push(EventSpec { device, event_type, data });
    }
    let mut cper_records = Vec::new();
    for (i, r) in items(top, "cper_records").iter().enumerate() {
        let path = format!("cper_records[{i}]");
        let device = device_of(&path, r)?;
        let text = r
            .get("data")
            .and_then(Value::as_str)
            .ok_or_else(|| fail(&path, "needs `data`: the record's bytes in hex".into()))?;
        let data = hex_bytes(text).ok_or_else(|| {
            fail(&format!("{path}.data"), format!("`{text}` is not bytes in hex (two digits each, at least one byte)"))
        })?;
        cper_records.push(CperRecord { device, data });
    }
    (p.events, p.cper_records) = (events, cper_records);
    for (i, e) in items(top, "system_events").iter().enumerate() {
        let path = format!("system_events[{i}]");
        let event_type =
            e.get("type")
                .and_then(const_value)
                .ok_or_else(|| fail(&path, "needs `type`: an NVML system event type".into()))? as u64;
        let gpu_id = e.get("gpu_id").and_then(Value::as_u64).and_then(|g| u32::try_from(g).ok());
        let gpu_id =
            gpu_id.ok_or_else(|| fail(&path, "needs `gpu_id`: the GPU's PCI id, (bus << 8) | device".into()))?;
        p.system_events.push(SystemEventSpec { event_type, gpu_id });
    }
    Ok(p)
}

/// A profile's text with its bases merged in, and its defaults made once for every device: what
/// [`parse_with`] makes of a text before the devices and what is put over them.
struct Prepared {
    root: Value,
    /// `None` where the devices are made from the defaults whole ([`Defaults::of`]).
    defaults: Option<Defaults>,
}

/// What [`parse_with`] starts from: for a built-in profile's text, made once per process and
/// kept (a process that takes in `nvml-mock ctl` changes loads its profile again with each).
fn prepare(text: &str, origin: &str) -> Result<Arc<Prepared>, String> {
    let make = || -> Result<Prepared, String> {
        let root = with_bases(text, origin, 0)?;
        let no_defaults = Value::Mapping(Mapping::new());
        let defaults = root.get("device_defaults").unwrap_or(&no_defaults);
        let defaults = if root.is_mapping() { Defaults::of(defaults) } else { None };
        Ok(Prepared { root, defaults })
    };
    // The same text is the same tree: a built-in's has no bases but built-in ones.
    let Some((name, _)) = BUILTIN.iter().find(|(_, t)| *t == text) else { return make().map(Arc::new) };
    type Kept = std::sync::Mutex<BTreeMap<&'static str, Arc<Prepared>>>;
    static KEPT: std::sync::OnceLock<Kept> = std::sync::OnceLock::new();
    let kept = KEPT.get_or_init(Kept::default);
    if let Some(p) = kept.lock().ok().and_then(|k| k.get(name).cloned()) {
        return Ok(p);
    }
    let p = Arc::new(make()?);
    if let Ok(mut k) = kept.lock() {
        k.insert(name, p.clone());
    }
    Ok(p)
}

/// Why a device could not be made from the shared defaults: a key that does not flatten, a
/// function value that does not parse, or a key that is unknown or of the wrong kind.
enum Failed {
    Flatten(String, String),
    Entry(String),
    Check(String, String),
}

/// Device `index`, `d` merged over `defaults` whole, flattened, with `puts` over it.
fn whole_device(defaults: &Value, d: &Value, index: usize, puts: &[Put]) -> Result<Flat, Failed> {
    let mut merged = defaults.clone();
    merge(&mut merged, d);
    let mut flat = BTreeMap::new();
    flatten("", &merged, &mut flat).map_err(|(p, m)| Failed::Flatten(p, m))?;
    let mut flat = borrowed(flat);
    for v in flat.values_mut() {
        template(v, index);
    }
    put_over(&mut flat, puts);
    let flat = made(flat, ObjectKind::Device, "").map_err(Failed::Entry)?;
    check_keys(&flat, DEVICE_KEYS, "").map_err(|(p, m)| Failed::Check(p, m))?;
    Ok(flat)
}

/// What the devices of a profile share: `device_defaults` flattened, its function values
/// parsed and its keys checked, once. Making a device from it gives what merging the device
/// over the defaults and flattening the result gives: the defaults' keys under the top-level
/// keys the device names are replaced by the flattened merge of those keys alone.
struct Defaults {
    values: Values,
    entries: Entries,
    /// The values that hold `{index}`, made for each device.
    templated: BTreeMap<String, Value>,
}

impl Defaults {
    /// `None` where the devices are to be made from the defaults whole (an error entry at the
    /// top, or defaults that fail: each device then reports the failure at its own path).
    fn of(defaults: &Value) -> Option<Defaults> {
        let m = defaults.as_mapping()?;
        if m.contains_key("error") {
            return None;
        }
        let mut flat = BTreeMap::new();
        flatten("", defaults, &mut flat).ok()?;
        let templated: BTreeMap<String, Value> = (flat.iter())
            .filter(|(_, v)| v.as_str().is_some_and(|s| s.contains("{index}")))
            .map(|(k, v)| (k.clone(), (*v).clone()))
            .collect();
        flat.retain(|k, _| !templated.contains_key(k));
        let flat = made(borrowed(flat), ObjectKind::Device, "").ok()?;
        check_keys(&flat, DEVICE_KEYS, "").ok()?;
        Some(Defaults { values: flat.0, entries: flat.1, templated })
    }

    /// Device `index`, `d` over `defaults` (the mapping these were made of), with `puts` over
    /// it; `None` where `d` is to be merged whole (not a mapping, or an error entry).
    fn device(&self, defaults: &Mapping, d: &Value, index: usize, puts: &[Put]) -> Option<Result<Flat, Failed>> {
        let own_map = d.as_mapping().filter(|m| !m.contains_key("error"))?;
        Some((|| {
            // A key the device names over a value of the defaults is flattened over the
            // defaults' flattened values where the two are mappings of values alike
            // ([`flat_over`]); elsewhere (a mapping over a value, `null` or an error over a
            // mapping) the defaults' keys under it are dropped and the two merged whole.
            let mut whole: Vec<(&str, Value)> = Vec::new();
            let mut own = Flattened::new();
            // Entries made from the defaults' own (a recorded function's selector values removed).
            let mut ready: Vec<(&str, Entry)> = Vec::new();
            for (k, v) in own_map {
                let k = k.as_str().ok_or_else(|| Failed::Flatten(String::new(), "keys must be strings".into()))?;
                match defaults.get(k) {
                    Some(base) if self.without_selected(k, base, v).map(|e| ready.push((k, e))).is_some() => {}
                    Some(base) if !flat_over(k, base, v, &mut own).map_err(|(p, m)| Failed::Flatten(p, m))? => {
                        let mut base = base.clone();
                        merge(&mut base, v);
                        whole.push((k, base));
                    }
                    Some(_) => {}
                    None => flatten_into(k, v, &mut own).map_err(|(p, m)| Failed::Flatten(p, m))?,
                }
            }
            for (k, v) in &whole {
                flatten_into(k, v, &mut own).map_err(|(p, m)| Failed::Flatten(p, m))?;
            }
            let dropped = |k: &str| whole.iter().any(|(w, _)| *w == k.split('.').next().unwrap_or(k));
            for (k, v) in &self.templated {
                if !own.contains_key(k) && !dropped(k) {
                    own.insert(k.clone(), Cow::Borrowed(v));
                }
            }
            for v in own.values_mut() {
                template(v, index);
            }
            let fields = "recorded_fields";
            if puts.iter().any(|p| matches!(p, Put::Field(..))) && !own.contains_key(fields) && !dropped(fields) {
                if let Some(v) = self.values.get(fields) {
                    own.insert(fields.to_string(), Cow::Borrowed(&**v));
                }
            }
            put_over(&mut own, puts);
            ready.retain(|(k, _)| !own.contains_key(*k));
            let kept = |k: &str| !own.contains_key(k) && !dropped(k) && !ready.iter().any(|(r, _)| *r == k);
            let mut values: Values =
                (self.values.iter()).filter(|(k, _)| kept(k)).map(|(k, v)| (k.clone(), v.clone())).collect();
            let mut entries: Entries =
                (self.entries.iter()).filter(|(k, _)| kept(k)).map(|(k, e)| (k.clone(), e.clone())).collect();
            let flat = made(own, ObjectKind::Device, "").map_err(Failed::Entry)?;
            check_keys(&flat, DEVICE_KEYS, "").map_err(|(p, m)| Failed::Check(p, m))?;
            values.extend(flat.0);
            entries.extend(flat.1);
            entries.extend(ready.into_iter().map(|(k, e)| (Arc::from(k), Arc::new(e))));
            Ok(Flat(values, entries))
        })())
    }

    /// What merging `over` over the defaults' value `base` of function `key` and parsing the
    /// result gives, made from the defaults' entry without parsing: where `over` sets values of
    /// the function's first selector to `null` (a recorded GPU's samples of some kinds
    /// removed), each a key of `base` that alone names its value, and the defaults' entry is
    /// one by that selector, it is that entry less those values. `None` otherwise.
    fn without_selected(&self, key: &str, base: &Value, over: &Value) -> Option<Entry> {
        let (b, o) = (base.as_mapping()?, over.as_mapping()?);
        if key.contains('.') || o.is_empty() || o.contains_key("error") || !o.values().all(Value::is_null) {
            return None;
        }
        let sel = answer::schema(key).filter(|s| s.object == ObjectKind::Device)?.selectors.first()?;
        let Entry::Select { by, other } = &**self.entries.get(key)? else { return None };
        let (mut by, mut other) = (by.clone(), other.clone());
        for k in o.keys() {
            if !b.contains_key(k) {
                return None;
            }
            if k.as_str() == Some("*") {
                other = None;
                continue;
            }
            let value = answer::selector_value(sel, k)?;
            let named = b.keys().filter(|n| n.as_str() != Some("*") && answer::selector_value(sel, n) == Some(value));
            if named.count() != 1 {
                return None;
            }
            by.remove(&value);
        }
        Some(Entry::Select { by, other })
    }
}

/// [`flatten`] of `v` at `path`, its values borrowed into `out`.
fn flatten_into<'a>(path: &str, v: &'a Value, out: &mut Flattened<'a>) -> Result<(), (String, String)> {
    let mut flat = BTreeMap::new();
    flatten(path, v, &mut flat)?;
    out.extend(flat.into_iter().map(|(k, v)| (k, Cow::Borrowed(v))));
    Ok(())
}

/// Puts into `out` what flattening `over` merged over `base` at `path` gives that flattening
/// `base` alone does not, where the defaults' flattened values under `path` (`base`'s) stay
/// as they are but for the keys put: both mappings of values (neither an error entry),
/// recursively, or a value over a value, or a function's or a map's value over its own (the
/// two merged). `false`, with `out` as it was, where that does not hold: the caller merges
/// the two whole.
fn flat_over<'a>(path: &str, base: &Value, over: &'a Value, out: &mut Flattened<'a>) -> Result<bool, (String, String)> {
    let mut found = Flattened::new();
    if !flat_over_at(path, base, over, &mut found)? {
        return Ok(false);
    }
    out.extend(found);
    Ok(true)
}

fn flat_over_at<'a>(
    path: &str,
    base: &Value,
    over: &'a Value,
    out: &mut Flattened<'a>,
) -> Result<bool, (String, String)> {
    let is_error = |v: &Value| v.as_mapping().is_some_and(|m| m.contains_key("error"));
    let (Value::Mapping(b), Value::Mapping(o)) = (base, over) else {
        // A value over a value replaces it, as the merge does.
        if base.is_mapping() || over.is_mapping() {
            return Ok(false);
        }
        out.insert(path.to_string(), Cow::Borrowed(over));
        return Ok(true);
    };
    if is_whole(path) {
        let mut merged = base.clone();
        merge(&mut merged, over);
        out.insert(path.to_string(), Cow::Owned(merged));
        return Ok(true);
    }
    if is_error(base) || is_error(over) {
        return Ok(false);
    }
    for (k, v) in o {
        let k = k.as_str().ok_or_else(|| (path.to_string(), "keys must be strings".to_string()))?;
        let sub = format!("{path}.{k}");
        let fits = match b.get(k) {
            Some(bv) => flat_over_at(&sub, bv, v, out)?,
            None => {
                let mut flat = BTreeMap::new();
                flatten(&sub, v, &mut flat)?;
                out.extend(flat.into_iter().map(|(k, v)| (k, Cow::Borrowed(v))));
                true
            }
        };
        if !fits {
            return Ok(false);
        }
    }
    Ok(true)
}

/// A vGPU host's GPU is what its instances make it: its utilisation is the sum of theirs
/// (`utilization: {sm, memory, encoder, decoder}` of each instance, percent of the GPU) and
/// its used memory the framebuffers of their types. These replace the device's own values,
/// so the two never disagree.
fn vgpu_host_totals(d: &mut Flat, types: &BTreeMap<u32, Entries>) -> Result<(), String> {
    let Some(instances) = d.list("vgpu.instances").map(<[Value]>::to_vec) else { return Ok(()) };
    if instances.is_empty() {
        return Ok(());
    }
    let mut sums = [0u64; 4];
    let mut used = 0u64;
    for (j, inst) in instances.iter().enumerate() {
        let util = inst.get("utilization");
        for (sum, key) in sums.iter_mut().zip(["sm", "memory", "encoder", "decoder"]) {
            let v = util.and_then(|u| u.get(key));
            *sum += match v {
                None => 0,
                Some(v) => v
                    .as_u64()
                    .filter(|v| *v <= 100)
                    .ok_or_else(|| format!("[{j}].utilization.{key}: expected a percentage"))?,
            };
        }
        let ty = inst
            .get("nvmlVgpuInstanceGetType")
            .and_then(Value::as_u64)
            .ok_or_else(|| format!("[{j}]: needs `nvmlVgpuInstanceGetType`: a vGPU type id"))?;
        let fb = types.get(&(ty as u32)).and_then(|t| t.get("nvmlVgpuTypeGetFramebufferSize")).map(|e| &**e);
        used += match fb {
            Some(Entry::Values(v)) => v.first().map(answer::Val::uint).unwrap_or(0),
            _ => {
                return Err(format!(
                    "[{j}]: vGPU type {ty} is not in `vgpu_types` with a `nvmlVgpuTypeGetFramebufferSize`"
                ))
            }
        };
    }
    let keys = ["utilization.gpu", "utilization.memory", "encoder.utilization", "decoder.utilization"];
    for (key, sum) in keys.into_iter().zip(sums) {
        d.0.insert(Arc::from(key), Arc::new(Value::from(sum.min(100))));
    }
    d.0.insert(Arc::from("memory.used"), Arc::new(Value::from(used)));
    Ok(())
}

/// A GPU's used memory holds its processes' (those of its MIG devices included): the two are
/// written apart, so a profile that lets them disagree is a load error.
fn processes_fit(d: &Flat) -> Result<(), String> {
    let Some(used) = d.u64("memory.used") else { return Ok(()) };
    let lists = ["processes.compute", "processes.graphics"].map(|k| d.list(k).unwrap_or_default());
    // A process in both lists (compute and graphics) holds its memory once.
    let mut by_pid = BTreeMap::new();
    for p in lists.iter().flat_map(|l| l.iter()) {
        let (pid, mem) = (p.get("pid").and_then(Value::as_u64), p.get("used_memory").and_then(Value::as_u64));
        by_pid.insert(pid, mem.unwrap_or(0));
    }
    let held: u64 = by_pid.values().sum();
    if held > used {
        return Err(format!("{used} bytes, less than its processes' {held}"));
    }
    Ok(())
}

/// The entries of a top-level list (none when the key is absent).
fn items<'a>(top: &'a Mapping, key: &str) -> &'a [Value] {
    top.get(key).and_then(Value::as_sequence).map(|s| s.as_slice()).unwrap_or_default()
}

/// Bytes written as hex digits, two per byte, at least one byte; whitespace is ignored.
fn hex_bytes(text: &str) -> Option<Vec<u8>> {
    let digits: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    if digits.is_empty() || digits.len() % 2 != 0 || !digits.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    digits.chunks(2).map(|pair| u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok()).collect()
}

/// Parses `NVML_MOCK_FAULTS`: `function=CODE` or `function=CODE@N`, comma-separated.
pub fn parse_faults(spec: &str) -> Result<Vec<FaultSpec>, String> {
    let mut out = Vec::new();
    for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (function, rest) =
            item.split_once('=').ok_or_else(|| format!("NVML_MOCK_FAULTS: `{item}`: expected function=CODE[@N]"))?;
        let (code, after) = match rest.split_once('@') {
            Some((c, n)) => {
                (c, n.parse::<u64>().map_err(|_| format!("NVML_MOCK_FAULTS: `{item}`: `{n}` is not a call count"))?)
            }
            None => (rest, 0),
        };
        let code = code
            .parse::<i128>()
            .ok()
            .or_else(|| constant(code))
            .ok_or_else(|| format!("NVML_MOCK_FAULTS: `{item}`: `{code}` is not an NVML return code"))?;
        out.push(FaultSpec { function: function.to_string(), code: code as u32, after });
    }
    Ok(out)
}

/// `over` replaces what it names in `base`, mapping by mapping. An error entry
/// (`{error: ...}`) replaces a value whole, and is replaced whole.
fn merge(base: &mut Value, over: &Value) {
    crate::bases::merge_owned(base, over.clone());
}

/// Whether a key names a function (`nvmlDevice...`), not a value (`driver_version`).
fn is_function_name(key: &str) -> bool {
    key.strip_prefix("nvml").is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_uppercase()))
}

/// `{id: N, nvmlX: ...}`: an object of a list (a vGPU type, a vGPU instance) with its id and
/// function values.
fn object_entries(v: &Value, kind: ObjectKind, path: &str) -> Result<(u32, Entries), String> {
    let m = v.as_mapping().ok_or_else(|| format!("{path}: expected a mapping with `id` and function values"))?;
    let id = m
        .get("id")
        .and_then(Value::as_u64)
        .and_then(|i| u32::try_from(i).ok())
        .ok_or_else(|| format!("{path}.id: expected a number"))?;
    let mut entries = Entries::new();
    for (k, val) in m {
        let k = k.as_str().unwrap_or("");
        // A vGPU instance's utilisation is behaviour's input (`engine/vgpu.rs`), not a value.
        if k == "id" || (k == "utilization" && kind == ObjectKind::VgpuInstance) {
            continue;
        }
        if !is_function_name(k) {
            return Err(format!("{path}.{k}: unknown key (expected `id` and function names)"));
        }
        entries.insert(Arc::from(k), parse_function_entry(k, val, kind, &format!("{path}.{k}"))?.into());
    }
    Ok((id, entries))
}

/// `flat`'s values (as [`flatten`] left them) with the keys that name functions parsed into
/// its entries, checked, in key order (the first bad one is the error); a function value is
/// parsed where it is, not copied: a recorded GPU's are thousands.
fn made(flat: Flattened<'_>, kind: ObjectKind, shown_prefix: &str) -> Result<Flat, String> {
    let mut out = Flat::default();
    for (key, v) in flat {
        match entry_of(&key, &v, kind, shown_prefix) {
            None => {
                out.0.insert(Arc::from(key), Arc::new(v.into_owned()));
            }
            Some(entry) => {
                if let Some(entry) = entry? {
                    out.1.insert(Arc::from(key), entry.into());
                }
            }
        }
    }
    Ok(out)
}

/// Whether the value at `key` is a function value, and if so the entry it makes (`None` for
/// `null`, which removes a base's value), checked; `None` for a value that stays one.
fn entry_of(key: &str, v: &Value, kind: ObjectKind, shown_prefix: &str) -> Option<Result<Option<Entry>, String>> {
    if !key.rsplit('.').next().is_some_and(is_function_name) {
        return None;
    }
    // A hand-written function's own value (`DEVICE_KEYS`) stays a value, unless it is an error.
    if kind == ObjectKind::Device && key_kind(DEVICE_KEYS, key).is_some() && answer::parse_error(v, key).is_none() {
        return None;
    }
    // `null` removes a base's value.
    if v.is_null() {
        return Some(Ok(None));
    }
    let (prefix, function) = key.rsplit_once('.').map(|(p, f)| (&key[..p.len() + 1], f)).unwrap_or(("", key));
    let object = match prefix {
        "" => kind,
        "mig.device." => ObjectKind::Device,
        "mig.gpu_instance." => ObjectKind::GpuInstance,
        "mig.compute_instance." => ObjectKind::ComputeInstance,
        _ => return Some(Err(format!("{shown_prefix}{key}: function values belong to a device, `system`, `mig.device`, `mig.gpu_instance`, `mig.compute_instance`, a vGPU type or instance"))),
    };
    Some(parse_function_entry(function, v, object, &format!("{shown_prefix}{key}")).map(Some))
}

/// One function's value for an object of `kind`: data checked against the function's schema,
/// or an error entry (`{error: CODE, reason: ...}`), which every function may have.
pub fn parse_function_entry(function: &str, v: &Value, kind: ObjectKind, path: &str) -> Result<Entry, String> {
    if FUNCTIONS.binary_search(&function).is_err() {
        return Err(format!("{path}: `{function}` is not a function of nvml.h"));
    }
    if let Some(e) = answer::parse_error(v, path) {
        return e;
    }
    // A function written by hand takes the values a capture records where its outputs are
    // data; otherwise only errors, by selector value where it has selectors.
    if HAND_WRITTEN.binary_search_by(|(f, _)| (*f).cmp(function)).is_ok() && answer::schema(function).is_none() {
        if let Ok(i) = HAND_SELECTORS.binary_search_by(|(f, _)| (*f).cmp(function)) {
            return answer::parse_selected_errors(function, HAND_SELECTORS[i].1, v, path);
        }
        return Err(format!("{path}: the mock answers {function} from other values (see its README); a profile can only give it an error"));
    }
    let Some(schema) = answer::schema(function) else {
        return Err(format!(
            "{path}: the mock does not answer {function} from values; a profile can only give it an error"
        ));
    };
    if schema.object != kind {
        return Err(format!("{path}: {function} is called on a {:?}, not a {kind:?}", schema.object));
    }
    answer::parse_entry(schema, v, path)
}

/// Flattens nested mappings into dotted keys; lists, function values and `Map`-kind values stay
/// whole.
fn flatten<'a>(prefix: &str, v: &'a Value, out: &mut BTreeMap<String, &'a Value>) -> Result<(), (String, String)> {
    let Value::Mapping(m) = v else {
        out.insert(prefix.to_string(), v);
        return Ok(());
    };
    if is_whole(prefix) {
        out.insert(prefix.to_string(), v);
        return Ok(());
    }
    for (k, val) in m {
        let k = k.as_str().ok_or_else(|| (prefix.to_string(), "keys must be strings".to_string()))?;
        let path = if prefix.is_empty() { k.to_string() } else { format!("{prefix}.{k}") };
        flatten(&path, val, out)?;
    }
    Ok(())
}

/// Whether [`flatten`] keeps a mapping at `path` whole: a function's value or a `Map` key's.
fn is_whole(path: &str) -> bool {
    let function = path.rsplit('.').next().is_some_and(is_function_name);
    let map = |keys: &'static [(&'static str, Kind)], p: &str| key_kind(keys, p) == Some(Kind::Map);
    function || map(DEVICE_KEYS, path) || path.strip_prefix("system.").is_some_and(|p| map(SYSTEM_KEYS, p))
}

/// [`flatten`]'s values, borrowed.
fn borrowed(flat: BTreeMap<String, &Value>) -> Flattened<'_> {
    flat.into_iter().map(|(k, v)| (k, Cow::Borrowed(v))).collect()
}

/// `{index}` in a string becomes the device's index.
fn template(v: &mut Cow<Value>, index: usize) {
    if let Some(s) = v.as_str().filter(|s| s.contains("{index}")) {
        *v = Cow::Owned(Value::String(s.replace("{index}", &index.to_string())));
    }
}

/// The kind of `key` in `schema` ([`DEVICE_KEYS`] or [`SYSTEM_KEYS`]), looked up in a map
/// made once: a profile's keys are looked up thousands of times as it loads.
fn key_kind(schema: &'static [(&'static str, Kind)], key: &str) -> Option<Kind> {
    type Kinds = HashMap<&'static str, Kind>;
    static DEVICE: std::sync::OnceLock<Kinds> = std::sync::OnceLock::new();
    static SYSTEM: std::sync::OnceLock<Kinds> = std::sync::OnceLock::new();
    let cell = if std::ptr::eq(schema, SYSTEM_KEYS) { &SYSTEM } else { &DEVICE };
    cell.get_or_init(|| schema.iter().copied().collect()).get(key).copied()
}

/// Every key must be known and of its kind; `null` (to remove a default) is allowed.
fn check_keys(
    flat: &Flat,
    schema: &'static [(&'static str, Kind)],
    shown_prefix: &str,
) -> Result<(), (String, String)> {
    for (k, v) in flat.values() {
        let Some(kind) = key_kind(schema, k) else {
            let shown = format!("{shown_prefix}{k}");
            let renamed = RENAMED
                .iter()
                .find(|(old, _)| shown.strip_prefix(old).is_some_and(|rest| rest.is_empty() || rest.starts_with('.')));
            if let Some((old, new)) = renamed {
                return Err((shown.clone(), format!("`{old}` is now `{new}` (the value of that function alone, keyed by its name: see the mock's README)")));
            }
            return Err((shown, "unknown key".into()));
        };
        let ok = match kind {
            _ if v.is_null() => true,
            Kind::UInt => v.as_u64().is_some(),
            Kind::Int => v.as_i64().is_some(),
            Kind::Bool => v.is_bool(),
            Kind::Str => v.is_string(),
            Kind::Const => const_value(v).is_some(),
            Kind::List => v.is_sequence(),
            Kind::Map => v.is_mapping(),
        };
        if !ok {
            let want = match kind {
                Kind::UInt => "a non-negative integer",
                Kind::Int => "an integer",
                Kind::Bool => "true or false",
                Kind::Str => "a string",
                Kind::Const => "an NVML constant name or a number",
                Kind::List => "a list",
                Kind::Map => "a mapping",
            };
            return Err((format!("{shown_prefix}{k}"), format!("expected {want}, found {v:?}")));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_profile_loads_with_at_least_eight_devices_or_is_a_recording() {
        for (name, text) in BUILTIN {
            let p = parse(text, name).unwrap_or_else(|e| panic!("{e}"));
            // A recording has the GPUs of the machine it was captured on.
            let recording = text.starts_with("# Captured by `nvml-mock capture`");
            assert!(recording || p.devices.len() >= 8, "{name} has {} devices", p.devices.len());
            let uuids: std::collections::BTreeSet<_> =
                p.devices.iter().map(|d| d.str("uuid").unwrap().to_string()).collect();
            assert_eq!(uuids.len(), p.devices.len(), "{name}: UUIDs must differ");
        }
    }

    /// [`with_bases`] from the YAML alone: every file's text parsed, none read packed.
    fn parsed_with_bases(text: &str, origin: &str, depth: usize) -> Result<Value, String> {
        merge_with_bases(parse_yaml(text, origin)?, origin, depth, &mut parsed_with_bases)
    }

    #[test]
    fn the_packed_form_of_every_built_in_file_is_its_parsed_yaml_with_its_bases() {
        let texts = BUILTIN.iter().chain(BASES);
        let packed = BUILTIN_PACKED.iter().chain(BASES_PACKED);
        assert_eq!(BUILTIN.len() + BASES.len(), BUILTIN_PACKED.len() + BASES_PACKED.len());
        let mut with_a_base = 0;
        for ((name, text), (packed_name, bytes)) in texts.zip(packed) {
            assert_eq!(name, packed_name);
            let parsed = parsed_with_bases(text, name, 0).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(parsed.is_mapping(), "{name}");
            assert_eq!(crate::packed::unpack(bytes).as_ref(), Some(&parsed), "{name}");
            assert_eq!(with_bases(text, name, 0).as_ref(), Ok(&parsed), "{name}");
            let own: Value = serde_yaml::from_str(text).unwrap_or_else(|e| panic!("{name}: {e}"));
            with_a_base += usize::from(own.get("base").is_some());
        }
        assert!(with_a_base >= BUILTIN.len(), "the built-in profiles start from bases");
        // Any other text is parsed, and its error names where it is from.
        let e = with_bases("a: [1", "x.yaml", 0).map_err(|e| e.starts_with("profile x.yaml: "));
        assert_eq!(e, Err(true));
    }

    #[test]
    fn bad_profiles_name_the_path() {
        let e = parse("devices:\n  - memory: {totl: 1}\n", "x.yaml").unwrap_err();
        assert_eq!(e, "profile x.yaml: devices[0].memory.totl: unknown key");
        let e = parse("devices:\n  - memory: {total: lots}\n", "x.yaml").unwrap_err();
        assert!(e.starts_with("profile x.yaml: devices[0].memory.total: expected a non-negative integer"), "{e}");
        let e = parse("devices: []\n", "x.yaml").unwrap_err();
        assert_eq!(e, "profile x.yaml: devices: a profile needs at least one device");
        let e = parse("devices:\n  - {}\n  bad", "x.yaml").unwrap_err();
        assert!(e.starts_with("profile x.yaml: "), "{e}");
        let procs = "processes: {compute: [{pid: 1, used_memory: 300}, {pid: 2, used_memory: 200}], graphics: [{pid: 1, used_memory: 300}]}";
        let e = parse(&format!("devices:\n  - {{memory: {{used: 400}}, {procs}}}\n"), "x.yaml").unwrap_err();
        assert_eq!(e, "profile x.yaml: devices[0].memory.used: 400 bytes, less than its processes' 500");
        assert!(parse(&format!("devices:\n  - {{memory: {{used: 500}}, {procs}}}\n"), "x.yaml").is_ok());
    }

    #[test]
    fn old_keys_name_the_new_ones() {
        let e = parse("devices:\n  - {brand: NVML_BRAND_NVIDIA}\n", "x.yaml").unwrap_err();
        assert!(e.starts_with("profile x.yaml: devices[0].brand: `brand` is now `nvmlDeviceGetBrand`"), "{e}");
        let e =
            parse("device_defaults: {field_values: {NVML_FI_DEV_PCIE_REPLAY_COUNTER: 0}}\ndevices: [{}]\n", "x.yaml")
                .unwrap_err();
        assert!(e.contains("`field_values` is now `nvmlDeviceGetFieldValues`"), "{e}");
        let e = parse("system: {nvml_version: '13.580.82.07'}\ndevices: [{}]\n", "x.yaml").unwrap_err();
        assert!(
            e.starts_with(
                "profile x.yaml: system.nvml_version: `system.nvml_version` is now `system.nvmlSystemGetNVMLVersion`"
            ),
            "{e}"
        );
        for (old, new) in RENAMED {
            let (section, key) = match old.strip_prefix("system.") {
                Some(k) => ("system", k),
                None => ("device_defaults", *old),
            };
            let e = parse(&format!("{section}: {{{key}: 1}}\ndevices: [{{}}]\n"), "x.yaml").unwrap_err();
            assert!(e.contains(&format!("is now `{new}`")), "{old}: {e}");
        }
        // The new keys load: a hand-written function's own value stays a value, an error an error.
        let p = parse(
            "system: {nvmlSystemGetNVMLVersion: '13.580.82.07'}\ndevices:\n  - {nvmlDeviceGetComputeMode: NVML_COMPUTEMODE_DEFAULT, nvmlDeviceGetFieldValues: {NVML_FI_DEV_PCIE_REPLAY_COUNTER: 0}, nvmlDeviceGetPgpuMetadataString: {error: NVML_ERROR_NOT_SUPPORTED, reason: none}}\n",
            "x.yaml",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let d = &p.devices[0];
        assert_eq!(d.constant("nvmlDeviceGetComputeMode"), constant("NVML_COMPUTEMODE_DEFAULT"));
        assert!(d.value("nvmlDeviceGetFieldValues").is_some_and(Value::is_mapping));
        assert!(matches!(d.entry("", "nvmlDeviceGetPgpuMetadataString"), Some(Entry::Error { .. })));
        assert!(p.system.entry("", "nvmlSystemGetNVMLVersion").is_some());
    }

    #[test]
    fn the_shared_defaults_make_each_device_as_the_whole_merge_does() {
        let puts = [
            Put::Key("temperature.gpu".into(), Value::from(91)),
            Put::Key("nvmlDeviceGetPowerUsage".into(), Value::from(123_000)),
            Put::Field(141, Value::from(5)),
        ];
        for (name, text) in BUILTIN {
            let root = with_bases(text, name, 0).unwrap();
            let defaults = root.get("device_defaults").cloned().unwrap_or(Value::Mapping(Mapping::new()));
            let shared = Defaults::of(&defaults).unwrap_or_else(|| panic!("{name}: the defaults are shared"));
            let devices = root.get("devices").and_then(Value::as_sequence).unwrap();
            for (i, d) in devices.iter().enumerate() {
                for puts in [&[][..], &puts[..]] {
                    let fast = shared.device(defaults.as_mapping().unwrap(), d, i, puts).unwrap();
                    let whole = whole_device(&defaults, d, i, puts);
                    let (Ok(fast), Ok(whole)) = (fast, whole) else {
                        panic!("{name} device {i}: one of the two failed")
                    };
                    assert_eq!(fast.values(), whole.values(), "{name} device {i}");
                    assert!(fast.1 == whole.1, "{name} device {i}: the entries differ");
                }
            }
        }
    }

    #[test]
    fn a_device_over_the_shared_defaults_is_the_whole_merge_whatever_it_puts_over_them() {
        let text = r#"
device_defaults:
  name: 'GPU {index}'
  pci: {domain: 0, bus: 1, device: 0}
  memory: {total: 10, used: 1}
  nvlink: {links: 2, version: 4, throughput: {data_tx_kib: 1}}
  temperature: {gpu: 30}
  nvmlDeviceGetIrqNum: 152
  nvmlDeviceGetEncoderCapacity: {NVML_ENCODER_QUERY_H264: 100, NVML_ENCODER_QUERY_HEVC: 50, '*': 0}
  gpm: {NVML_GPM_METRIC_SM_UTIL: 1.0}
devices:
  - {pci: {bus: 2}, nvlink: {throughput: {data_rx_kib: 2}}}
  - {pci: 5}
  - {memory: {used: {x: 1}}}
  - {memory: {total: {error: NVML_ERROR_NOT_SUPPORTED}}}
  - {nvlink: null}
  - {temperature: {error: NVML_ERROR_NOT_SUPPORTED}}
  - {nvmlDeviceGetIrqNum: null}
  - {nvmlDeviceGetIrqNum: {error: NVML_ERROR_NOT_SUPPORTED}}
  - {nvmlDeviceGetEncoderCapacity: {NVML_ENCODER_QUERY_H264: null}}
  - {nvmlDeviceGetEncoderCapacity: {'*': null, NVML_ENCODER_QUERY_HEVC: null}}
  - {nvmlDeviceGetEncoderCapacity: {0: null}}
  - {nvmlDeviceGetEncoderCapacity: {NVML_ENCODER_QUERY_H264: 7}}
  - {nvmlDeviceGetEncoderCapacity: {NVML_NOPE: null}}
  - {gpm: {NVML_GPM_METRIC_SM_UTIL: 2.0}}
  - {name: 'Mine {index}', temperature: {gpu: 31, memory: 40}}
  - {}
"#;
        let root: Value = serde_yaml::from_str(text).unwrap();
        let defaults = root.get("device_defaults").unwrap();
        let shared = Defaults::of(defaults).unwrap();
        let shown = |r: Result<Flat, Failed>| match r {
            Ok(flat) => Ok((format!("{:?}", flat.values()), flat.1)),
            Err(Failed::Flatten(p, m) | Failed::Check(p, m)) => Err(format!("{p}: {m}")),
            Err(Failed::Entry(m)) => Err(m),
        };
        let puts = [Put::Key("nvmlDeviceGetEncoderCapacity".into(), Value::from(3)), Put::Field(141, Value::from(5))];
        let devices = root.get("devices").and_then(Value::as_sequence).unwrap();
        let mut failed = 0;
        for (i, d) in devices.iter().enumerate() {
            for puts in [&[][..], &puts[..]] {
                let fast = shown(shared.device(defaults.as_mapping().unwrap(), d, i, puts).unwrap());
                let whole = shown(whole_device(defaults, d, i, puts));
                assert!(fast == whole, "device {i}: {fast:?} is not {whole:?}");
                failed += usize::from(whole.is_err());
            }
        }
        assert!(failed >= 4, "some devices fail to load: {failed}");
    }

    #[test]
    fn a_check_of_the_changed_devices_says_what_loading_the_whole_profile_says() {
        let put = |i: usize, key: &str, v: Value| Overlay::from([(i, vec![Put::Key(key.into(), v)])]);
        for (name, text) in BUILTIN {
            let p = parse(text, name).unwrap_or_else(|e| panic!("{e}"));
            let last = p.devices.len() - 1;
            let overlays = [
                Overlay::new(),
                put(0, "temperature.gpu", Value::from(91)),
                put(last, "nvmlDeviceGetPowerUsage", Value::from(123_000)),
                put(last, "memory.used", Value::from(1)),
                put(0, "temperature.gpu", Value::from("hot")),
                put(0, "nvmlDeviceGetPowerUsage", Value::from("lots")),
                put(0, "tempreature.gpu", Value::from(1)),
                put(last + 1, "temperature.gpu", Value::from(1)),
                Overlay::from([
                    (0, vec![Put::Field(141, Value::from(5))]),
                    (last, vec![Put::Field(142, Value::from(7))]),
                ]),
                put(1, "nvmlDeviceGetComputeMode", Value::from("NVML_COMPUTEMODE_PROHIBITED")),
                put(1, "nvmlDeviceGetComputeMode", Value::from("NVML_NOPE")),
                put(1, "nvmlDeviceGetName", Value::from("Renamed {index}")),
                put(1, "nvmlDeviceGetNmae", Value::from("x")),
                put(1, "nvmlDeviceGetCpuAffinity", Value::from(3)),
                put(1, "mig.device.nvmlDeviceGetName", Value::from("MIG")),
                put(1, "mig.nvmlDeviceGetName", Value::from("MIG")),
                put(1, "brand", Value::from("NVML_BRAND_NVIDIA")),
                put(1, "pci", Value::from(1)),
                put(1, "nvmlDeviceGetMemoryInfo", Value::from(1)),
                put(1, "nvmlDeviceGetEncoderCapacity", Value::from(1)),
                put(0, "processes.compute", Value::Sequence(vec![])),
                put(0, "recorded_fields", Value::from(5)),
                put(0, "memory.used_extra", Value::from(5)),
                Overlay::from([
                    (0, vec![Put::Key("recorded_fields".into(), Value::from(5)), Put::Field(141, Value::from(5))]),
                    (1, vec![Put::Key("uuid".into(), Value::from("GPU-x")), Put::Key("fans".into(), Value::from(2))]),
                ]),
                Overlay::from([
                    (0, vec![Put::Key("uuid".into(), Value::from("GPU-x"))]),
                    (1, vec![Put::Key("temperature.gpu".into(), Value::from(-3))]),
                ]),
                // Field values, alone and beside keys.
                Overlay::from([(last + 1, vec![Put::Field(141, Value::from(5))])]),
                Overlay::from([(
                    0,
                    vec![Put::Key("temperature.gpu".into(), Value::from("hot")), Put::Field(141, Value::from(5))],
                )]),
                Overlay::from([
                    (0, vec![Put::Key("uuid".into(), Value::from("GPU-x")), Put::Field(83, Value::from("text"))]),
                    (last, vec![Put::Field(142, Value::Sequence(vec![]))]),
                ]),
            ];
            let mut alone = 0;
            for overlay in &overlays {
                let whole = parse_with(text, name, overlay).map(|p| p.devices.len());
                assert_eq!(check_with(text, name, overlay), whole, "{name}: {overlay:?}");
                if let Some(checked) = check_alone(name, text, overlay) {
                    assert_eq!(checked, whole, "{name}: {overlay:?}");
                    alone += 1;
                }
            }
            assert_eq!(alone, 24, "{name}: the puts checked alone");
            // The field numbering `ctl set NVML_FI_...` reads is the loaded profile's.
            let numbering = field_numbering(text, name).unwrap_or_else(|e| panic!("{e}"));
            assert!((0..512).all(|id| numbering.to_driver(id) == p.fields.to_driver(id)), "{name}: field numbering");
        }
        let renumbered = |n: &str| {
            let text = BUILTIN.iter().find(|(b, _)| *b == n).map(|(_, t)| *t).unwrap_or_default();
            (0..512).filter(|id| field_numbering(text, n).ok().and_then(|f| f.to_driver(*id)) != Some(*id)).count()
        };
        assert!(renumbered("h100-r560") > 0 && renumbered("h100") == 0, "an older driver numbers some fields apart");
        // The GPUs of each built-in, counted from its packed form.
        assert!(BUILTIN.iter().all(|(n, t)| builtin_gpus(t) == parse(t, n).ok().map(|p| p.devices.len())));
        // Another profile is loaded whole.
        let text = "devices: [{memory: {used: 5}}, {memory: {total: lots}}]\n";
        assert!(check_with(text, "x.yaml", &put(0, "memory.used", Value::from(1))).is_err());
    }

    #[test]
    fn defaults_merge_and_templates_apply() {
        let p = parse(
            "device_defaults: {name: 'GPU {index}', memory: {total: 10, used: 1}}\ndevices:\n  - {}\n  - {memory: {used: 5}}\n",
            "t",
        )
        .unwrap();
        assert_eq!(p.devices[1].str("name"), Some("GPU 1"));
        assert_eq!((p.devices[1].u64("memory.total"), p.devices[1].u64("memory.used")), (Some(10), Some(5)));
        assert_eq!(p.devices[0].u64("memory.used"), Some(1));
    }

    #[test]
    fn a100_r525_is_the_a100_on_an_older_driver() {
        let profile = |name: &str| parse(BUILTIN.iter().find(|(n, _)| *n == name).unwrap().1, name).unwrap();
        let (new, old) = (profile("a100"), profile("a100-r525"));
        // The GSP firmware ships with the driver: the one value in which the devices differ.
        let firmware = "nvmlDeviceGetGspFirmwareVersion";
        let gsp = |p: &Profile, v: &str| {
            p.devices.iter().all(|d| d.entry("", firmware) == Some(&Entry::Values(vec![answer::Val::Str(v.into())])))
        };
        assert!(gsp(&new, "580.82.07") && gsp(&old, "525.147.05"));
        let without_gsp = |p: &Profile| -> Vec<Flat> {
            let mut devices: Vec<Flat> = p.devices.iter().map(|d| (**d).clone()).collect();
            for d in &mut devices {
                d.1.remove(firmware);
            }
            devices
        };
        assert_eq!(without_gsp(&old), without_gsp(&new), "a100-r525.yaml's devices must stay those of a100.yaml");
        assert_eq!((new.driver_branch, old.driver_branch), (Some(580), Some(525)));
    }

    #[test]
    fn a_profile_starts_from_its_bases() {
        let dir = std::env::temp_dir().join(format!("nvml-mock-bases-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("site.yaml"),
            "device_defaults: {name: Site GPU, nvmlDeviceGetMemoryBusWidth: 5120, memory: {total: 8}}\n",
        )
        .unwrap();
        let path = dir.join("gpu.yaml");
        std::fs::write(&path, "base: [base/hopper, site.yaml]\ndevice_defaults: {memory: {used: 1}}\ndevices: [{}]\n")
            .unwrap();
        let p = parse(&std::fs::read_to_string(&path).unwrap(), path.to_str().unwrap()).unwrap();
        let d = &p.devices[0];
        assert_eq!((d.str("name"), d.u64("memory.total"), d.u64("memory.used")), (Some("Site GPU"), Some(8), Some(1)));
        assert_eq!(d.entry("", "nvmlDeviceGetMemoryBusWidth"), Some(&Entry::Values(vec![answer::Val::Int(5120)])));
        let e = parse("base: base/nope\ndevices: [{}]\n", path.to_str().unwrap()).unwrap_err();
        assert!(e.contains("base `base/nope` is neither a built-in"), "{e}");
        let e = parse("devices: [{nvmlDeviceGetMemoryBusWidth: {busWidth: 1}}]\n", "x.yaml").unwrap_err();
        assert!(e.starts_with("profile x.yaml: devices[0]: nvmlDeviceGetMemoryBusWidth: expected an integer"), "{e}");
        let e = parse("devices: [{nvmlDeviceGetNmae: x}]\n", "x.yaml").unwrap_err();
        assert_eq!(e, "profile x.yaml: devices[0]: nvmlDeviceGetNmae: `nvmlDeviceGetNmae` is not a function of nvml.h");
        // A function written by hand takes a recorded value where its outputs are data...
        let p = parse("devices: [{nvmlDeviceGetName: x}]\n", "x.yaml").unwrap();
        assert_eq!(
            p.devices[0].entry("", "nvmlDeviceGetName"),
            Some(&Entry::Values(vec![answer::Val::Str("x".into())]))
        );
        // ... and only errors where they are not.
        let e = parse("devices: [{nvmlDeviceGetCpuAffinity: 3}]\n", "x.yaml").unwrap_err();
        assert!(e.contains("the mock answers nvmlDeviceGetCpuAffinity from other values"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn null_removes_a_base_value_for_one_selector_value() {
        let dir = std::env::temp_dir().join(format!("nvml-mock-null-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let values =
            "{NVML_CLOCK_GRAPHICS: 1980, NVML_CLOCK_MEM: 2619, NVML_CLOCK_VIDEO: {error: NVML_ERROR_NOT_SUPPORTED}}";
        std::fs::write(
            dir.join("base.yaml"),
            format!("device_defaults: {{nvmlDeviceGetApplicationsClock: {values}}}\n"),
        )
        .unwrap();
        let path = dir.join("gpu.yaml");
        let text = "base: [base.yaml]\ndevices: [{nvmlDeviceGetApplicationsClock: {NVML_CLOCK_GRAPHICS: null}}, {}]\n";
        let p = parse(text, path.to_str().unwrap()).unwrap();
        let selected = |d: usize, clock: u32| {
            p.devices[d].entry("", "nvmlDeviceGetApplicationsClock").unwrap().select(&[i64::from(clock)]).cloned()
        };
        let (gfx, mem, video) = (nvml_sys::NVML_CLOCK_GRAPHICS, nvml_sys::NVML_CLOCK_MEM, nvml_sys::NVML_CLOCK_VIDEO);
        assert_eq!(selected(0, gfx), None, "removed: the engine answers it");
        assert_eq!(selected(1, gfx), Some(Entry::Values(vec![answer::Val::Int(1980)])));
        assert_eq!(selected(0, mem), Some(Entry::Values(vec![answer::Val::Int(2619)])));
        assert!(matches!(selected(0, video), Some(Entry::Error { .. })));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_driver_branch_is_the_major_version() {
        let p = parse("system: {driver_version: '525.147.05'}\ndevices: [{}]\n", "x.yaml").unwrap();
        assert_eq!(p.driver_branch, Some(525));
        assert_eq!(p.driver.map(|v| v.to_string()).as_deref(), Some("525.147.05"));
        assert_eq!(parse("devices: [{}]\n", "x.yaml").unwrap().driver_branch, None);
        let odd = parse("system: {driver_version: '535.104.05-custom'}\ndevices: [{}]\n", "x.yaml").unwrap();
        assert_eq!(odd.driver.map(|v| v.to_string()).as_deref(), Some("535.0.0"));
        let e = parse("system: {driver_version: r525}\ndevices: [{}]\n", "x.yaml").unwrap_err();
        assert_eq!(e, "profile x.yaml: system.driver_version: `r525` is not a driver version such as 580.82.07");
    }

    #[test]
    fn faults_parse_names_and_counts() {
        let f = parse_faults("nvmlDeviceGetName=NVML_ERROR_GPU_IS_LOST, nvmlInit*=3@2").unwrap();
        assert_eq!(f[0], FaultSpec { function: "nvmlDeviceGetName".into(), code: NVML_GPU_IS_LOST, after: 0 });
        assert_eq!(f[1], FaultSpec { function: "nvmlInit*".into(), code: 3, after: 2 });
        assert!(f[1].matches("nvmlInit_v2"));
        assert!(parse_faults("nvmlInit=NVML_NOPE").unwrap_err().contains("not an NVML return code"));
    }

    #[test]
    fn system_events_and_cper_records_parse_and_check() {
        let p = parse(
            "devices: [{}, {}]\nsystem_events: [{type: nvmlSystemEventTypeGpuDriverBind, gpu_id: 0x1800}]\ncper_records: [{device: 1, data: '43 50 45 52 ff'}]\n",
            "x.yaml",
        )
        .unwrap();
        assert_eq!(p.system_events, [SystemEventSpec { event_type: 2, gpu_id: 0x1800 }]);
        assert_eq!(p.cper_records, [CperRecord { device: 1, data: vec![0x43, 0x50, 0x45, 0x52, 0xFF] }]);
        let e = parse("devices: [{}]\ncper_records: [{device: 0, data: 'abc'}]\n", "x.yaml").unwrap_err();
        assert_eq!(
            e,
            "profile x.yaml: cper_records[0].data: `abc` is not bytes in hex (two digits each, at least one byte)"
        );
        let e = parse("devices: [{}]\ncper_records: [{device: 0, data: ''}]\n", "x.yaml").unwrap_err();
        assert_eq!(
            e,
            "profile x.yaml: cper_records[0].data: `` is not bytes in hex (two digits each, at least one byte)"
        );
        let e = parse("devices: [{}]\ncper_records: [{device: 2, data: '00'}]\n", "x.yaml").unwrap_err();
        assert_eq!(e, "profile x.yaml: cper_records[0]: device 2 does not exist");
        let e =
            parse("devices: [{}]\nsystem_events: [{type: nvmlSystemEventTypeGpuDriverBind}]\n", "x.yaml").unwrap_err();
        assert!(e.starts_with("profile x.yaml: system_events[0]: needs `gpu_id`"), "{e}");
    }

    const NVML_GPU_IS_LOST: u32 = nvml_sys::NVML_ERROR_GPU_IS_LOST;
}
