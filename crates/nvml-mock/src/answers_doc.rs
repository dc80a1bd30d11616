//! What each built-in profile answers instead of a value, and why: the table the README
//! lists (generated from the profiles, so it stays true) and the sets tests check real clients'
//! answers against.
//!
//! Four sources, as the engine answers: the profile's error entries (`{error, reason}`), the
//! functions nvml.h documents for a newer architecture than a GPU's ("For Hopper or newer",
//! when the profile gives no value), the answers the engine derives from a GPU's state (MIG
//! mode, ECC off), and the functions newer than the profile's driver (`FUNCTION_NOT_FOUND`).

use std::collections::{BTreeMap, BTreeSet};

use nvml_sys::*;

use crate::answer::{Entry, Val};
use crate::generated::names::CONSTANTS;
use crate::generated::tables::MIN_ARCH;
use crate::profile::{parse, Flat, Profile, BUILTIN};

/// Hand-written answers that depend on a GPU's state: `(function, reason)`, for GPUs in MIG
/// mode, for GPUs with MIG that have it off, and for GPUs that are not MIG devices.
pub const IN_MIG_MODE: &[(&str, &str)] = &[
    ("nvmlDeviceGetUtilizationRates", "in MIG mode utilization is per GPU instance (nvml.h; GPM measures it)"),
    ("nvmlDeviceGetEncoderUtilization", "in MIG mode utilization is per GPU instance (nvml.h; GPM measures it)"),
    ("nvmlDeviceGetDecoderUtilization", "in MIG mode utilization is per GPU instance (nvml.h; GPM measures it)"),
    ("nvmlDeviceGetDynamicPstatesInfo", "in MIG mode utilization is per GPU instance (nvml.h; GPM measures it)"),
    ("nvmlDeviceGetSamples", "nvml.h: the utilization samples are not supported on MIG-enabled GPUs"),
    ("nvmlDeviceGetProcessUtilization", "nvml.h: process utilization is not supported on MIG-enabled GPUs"),
    ("nvmlDeviceGetProcessesUtilizationInfo", "nvml.h: process utilization is not supported on MIG-enabled GPUs"),
];

pub const WITHOUT_MIG_MODE: &[(&str, nvmlReturn_t, &str)] = &[
    ("nvmlDeviceGetGpuInstanceById", NVML_ERROR_NOT_FOUND, "MIG mode is off: no GPU instances"),
    ("nvmlDeviceGetMigDeviceHandleByIndex", NVML_ERROR_NOT_SUPPORTED, "MIG mode is off: no MIG devices"),
];

pub const GPU_NOT_MIG_DEVICE: &[(&str, nvmlReturn_t, &str)] = &[
    (
        "nvmlDeviceGetGpuInstanceId",
        NVML_ERROR_INVALID_ARGUMENT,
        "a GPU is not a MIG device: only MIG devices have instance ids",
    ),
    (
        "nvmlDeviceGetComputeInstanceId",
        NVML_ERROR_INVALID_ARGUMENT,
        "a GPU is not a MIG device: only MIG devices have instance ids",
    ),
    ("nvmlDeviceGetAttributes", NVML_ERROR_NOT_SUPPORTED, "nvml.h: only MIG device handles have attributes"),
    ("nvmlDeviceGetAttributes_v2", NVML_ERROR_NOT_SUPPORTED, "nvml.h: only MIG device handles have attributes"),
];

/// Hand-written answers of a GPU with ECC off (`ecc.enabled: false`).
pub const ECC_OFF: &[(&str, &str)] = &[
    ("nvmlDeviceGetTotalEccErrors", "ECC is off (nvml.h: requires ECC mode to be enabled)"),
    ("nvmlDeviceGetDetailedEccErrors", "ECC is off (nvml.h: requires ECC mode to be enabled)"),
    ("nvmlDeviceGetMemoryErrorCounter", "ECC is off (nvml.h: requires ECC mode to be enabled)"),
];

/// One answer that is not a value.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Row {
    /// `NOT_SUPPORTED`, `INVALID_ARGUMENT`, ...
    pub code: String,
    pub reason: String,
    /// What answers it: `system`, `every GPU`, `GPUs 0, 3`, `MIG devices`, `GPU instances`.
    pub on: String,
    /// The function, with the selector values it answers this for (`nvmlDeviceGetInforomVersion(NVML_INFOROM_POWER)`).
    pub function: String,
}

fn code_name(code: nvmlReturn_t) -> String {
    let name =
        CONSTANTS.iter().find(|(n, v)| *v == code as i128 && (n.starts_with("NVML_ERROR_") || *n == "NVML_SUCCESS"));
    name.map(|(n, _)| n.trim_start_matches("NVML_ERROR_").to_string()).unwrap_or_else(|| code.to_string())
}

/// The name of a selector value: the constant of its function's selector type, else the number.
fn selector_name(function: &str, level: usize, value: i64) -> String {
    let Some(schema) = crate::answer::schema(function) else { return value.to_string() };
    let Some(sel) = schema.selectors.get(level) else { return value.to_string() };
    if let crate::schema::T::Enum(e) = sel.ty {
        if let Some(name) =
            crate::answer::enum_constants(e).iter().find(|n| crate::answer::constant(n) == Some(value as i128))
        {
            return name.to_string();
        }
    }
    value.to_string()
}

/// The error entries of one entry tree: `(selector path, code, reason)`.
fn errors(function: &str, e: &Entry, path: &mut Vec<String>, out: &mut Vec<(String, nvmlReturn_t, String)>) {
    match e {
        Entry::Values(_) => {}
        Entry::Error { code, reason } => {
            let sel = if path.is_empty() { String::new() } else { format!("({})", path.join(", ")) };
            out.push((format!("{function}{sel}"), *code, reason.clone()));
        }
        Entry::Select { by, other } => {
            for (v, sub) in by {
                path.push(selector_name(function, path.len(), *v));
                errors(function, sub, path, out);
                path.pop();
            }
            if let Some(sub) = other {
                path.push("others".into());
                errors(function, sub, path, out);
                path.pop();
            }
        }
    }
}

/// The error entries of an object's values at `prefix`.
fn object_errors(flat: &Flat, prefix: &str) -> Vec<(String, nvmlReturn_t, String)> {
    let mut out = Vec::new();
    for (f, e) in flat.entries(prefix) {
        errors(f, e, &mut Vec::new(), &mut out);
    }
    out
}

fn architecture(d: &Flat) -> Option<u32> {
    match d.entry("", "nvmlDeviceGetArchitecture")? {
        Entry::Values(v) => v.first().map(Val::uint).map(|a| a as u32),
        _ => None,
    }
}

/// Whether a device's values name `function` (or a member of its family).
fn has_entry(d: &Flat, function: &str) -> bool {
    let family = crate::answer::schema(function).map(|s| s.family).unwrap_or_default();
    std::iter::once(function).chain(family.iter().copied()).any(|f| d.entry("", f).is_some())
}

/// "every GPU", or the indices of the GPUs.
fn gpus(of: &BTreeSet<usize>, all: usize) -> String {
    if of.len() == all {
        return "every GPU".into();
    }
    let list: Vec<String> = of.iter().map(usize::to_string).collect();
    format!("GPU{} {}", if of.len() > 1 { "s" } else { "" }, list.join(", "))
}

/// Every answer of a profile that is not a value, FUNCTION_NOT_FOUND aside.
pub fn rows(p: &Profile) -> Vec<Row> {
    let mut out = BTreeSet::new();
    let mut add = |code: nvmlReturn_t, reason: &str, on: &str, function: &str| {
        out.insert(Row {
            code: code_name(code),
            reason: reason.to_string(),
            on: on.to_string(),
            function: function.to_string(),
        });
    };
    let absent = crate::engine::absent_functions(p);
    for (f, code, reason) in object_errors(&p.system, "") {
        if !absent.contains(f.split('(').next().unwrap_or("")) {
            add(code, &reason, "system", &f);
        }
    }
    // Per device, then grouped: the same answer on several GPUs is one row.
    let mut per: BTreeMap<(String, nvmlReturn_t, String, &str), BTreeSet<usize>> = BTreeMap::new();
    let mig_mode = |d: &Flat| d.bool("mig.mode") == Some(true);
    for (i, d) in p.devices.iter().enumerate() {
        let mut note = |f: String, code: nvmlReturn_t, reason: String, on: &'static str| {
            per.entry((f, code, reason, on)).or_default().insert(i);
        };
        for (f, code, reason) in object_errors(d, "") {
            note(f, code, reason, "gpu");
        }
        if let Some(arch) = architecture(d) {
            for (f, name, _) in MIN_ARCH.iter().filter(|(_, _, min)| arch < *min) {
                if !has_entry(d, f) {
                    note(f.to_string(), NVML_ERROR_NOT_SUPPORTED, format!("nvml.h: for {name} or newer"), "gpu");
                }
            }
        }
        let instances = d.list("vgpu.instances").unwrap_or_default();
        for id in instances.iter().filter_map(|i| i.get("id").and_then(serde_yaml::Value::as_u64)) {
            for (f, code, reason) in object_errors(d, &format!("vgpu.instance.{id}.")) {
                note(f, code, reason, "vgpu");
            }
        }
        if d.bool("ecc.enabled") == Some(false) {
            for (f, reason) in ECC_OFF.iter().filter(|(f, _)| !has_entry(d, f)) {
                note(f.to_string(), NVML_ERROR_NOT_SUPPORTED, reason.to_string(), "gpu");
            }
        }
        let has_mig = d.list("mig.gpu_instance_profiles").is_some();
        if has_mig && mig_mode(d) {
            for (f, reason) in IN_MIG_MODE {
                note(f.to_string(), NVML_ERROR_NOT_SUPPORTED, reason.to_string(), "gpu");
            }
            for (f, code, reason) in object_errors(d, "mig.device.") {
                note(f, code, reason, "mig");
            }
            for (f, code, reason) in object_errors(d, "mig.gpu_instance.") {
                note(f, code, reason, "gi");
            }
        }
        if has_mig && !mig_mode(d) {
            for (f, code, reason) in WITHOUT_MIG_MODE {
                note(f.to_string(), *code, reason.to_string(), "gpu");
            }
        }
        if has_mig {
            for (f, code, reason) in GPU_NOT_MIG_DEVICE {
                note(f.to_string(), *code, reason.to_string(), "gpu");
            }
        }
    }
    for entries in p.vgpu_types.values() {
        for (f, e) in entries {
            let mut errs = Vec::new();
            errors(f, e, &mut Vec::new(), &mut errs);
            for (f, code, reason) in errs {
                add(code, &reason, "vGPU types", &f);
            }
        }
    }
    let all = p.devices.len();
    let absent = crate::engine::absent_functions(p);
    for ((f, code, reason, on), devices) in per {
        if absent.contains(f.split('(').next().unwrap_or("")) {
            continue;
        }
        let on = match on {
            "mig" => format!("MIG devices of {}", gpus(&devices, all)),
            "gi" => format!("GPU instances of {}", gpus(&devices, all)),
            "vgpu" => format!("vGPU instances of {}", gpus(&devices, all)),
            _ => gpus(&devices, all),
        };
        add(code, &reason, &on, &f);
    }
    out.into_iter().collect()
}

/// The functions a built-in profile answers `code` for somewhere (`NOT_SUPPORTED`, ...),
/// MIG devices aside.
pub fn documented(profile: &str, code: &str) -> Result<BTreeSet<String>, String> {
    let p = builtin(profile)?;
    Ok(rows(&p)
        .into_iter()
        .filter(|r| r.code == code && !r.on.starts_with("MIG devices"))
        .map(|r| r.function.split('(').next().unwrap_or("").to_string())
        .collect())
}

/// Where a built-in profile documents answering `code` for a function whatever its other
/// arguments (rows for one selector value aside): function → `system` or `gpu<index>`, the
/// subjects the census of `scripts/pynvml_census.py` names.
pub fn documented_subjects(profile: &str, code: &str) -> Result<BTreeMap<String, BTreeSet<String>>, String> {
    let p = builtin(profile)?;
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for r in rows(&p).into_iter().filter(|r| r.code == code && !r.function.contains('(')) {
        let gpus: Vec<String> = match r.on.as_str() {
            "system" => vec!["system".into()],
            "every GPU" => (0..p.devices.len()).map(|i| format!("gpu{i}")).collect(),
            on => match on.strip_prefix("GPUs ").or_else(|| on.strip_prefix("GPU ")) {
                Some(list) => list.split(", ").map(|i| format!("gpu{i}")).collect(),
                None => continue,
            },
        };
        out.entry(r.function).or_default().extend(gpus);
    }
    Ok(out)
}

fn builtin(name: &str) -> Result<Profile, String> {
    let text = BUILTIN
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| *t)
        .ok_or_else(|| format!("no built-in profile `{name}`"))?;
    parse(text, name)
}

/// The README's section: per built-in profile, its answers that are not values, grouped by
/// answer, reason and scope.
pub fn markdown() -> Result<String, String> {
    let mut s = String::new();
    for (name, _) in BUILTIN {
        let p = builtin(name)?;
        let driver = p.system.str("driver_version").unwrap_or("any");
        let absent = crate::engine::absent_functions(&p).len();
        s.push_str(&format!("#### `{name}`\n\n"));
        s.push_str(&format!(
            "Driver {driver}: {absent} functions newer than the driver answer `FUNCTION_NOT_FOUND`. The other answers that are not values:\n\n"
        ));
        s.push_str("| answer | on | why | functions |\n|---|---|---|---|\n");
        let mut groups: BTreeMap<(String, String, String), Vec<String>> = BTreeMap::new();
        for r in rows(&p) {
            groups.entry((r.code, r.on, r.reason)).or_default().push(format!("`{}`", r.function));
        }
        for ((code, on, reason), functions) in groups {
            s.push_str(&format!("| {code} | {on} | {} | {} |\n", reason.replace('|', "\\|"), functions.join(", ")));
        }
        s.push('\n');
    }
    Ok(s)
}
