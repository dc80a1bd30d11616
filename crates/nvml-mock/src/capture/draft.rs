//! Step 2 of a capture: a profile from a recording. The engine's own values come from the
//! answers of the functions that read them (`memory.total` from `nvmlDeviceGetMemoryInfo_v2`,
//! the MIG tree from the instances found, ...); every function the mock answers from data gets
//! its recorded answers. What the engine then derives otherwise than the machine, the check
//! (step 3) records by name ([`Profile::take_recorded`]).

use std::collections::{BTreeMap, BTreeSet};

use serde_yaml::{Mapping, Value};

use super::record::{first_value, Answers, DeviceRec, Difference, FieldAnswer, Place, Recording};
use super::yaml::{code_name, entry, error, set};
use super::Options;
use crate::answer::{schema, Val};
use crate::generated::tables::HAND_WRITTEN;

/// One object's keys: dotted values (`memory.total`) and function values by name
/// (`nvmlDeviceGetBrand`, `mig.device.nvmlDeviceGetName`), as YAML.
pub type Node = BTreeMap<String, Value>;

/// A profile being written.
#[derive(Debug, Clone, Default)]
pub struct Profile {
    pub name: String,
    pub description: String,
    /// The comment at the top of the file.
    pub header: String,
    pub live_pids: bool,
    pub system: Node,
    pub devices: Vec<Node>,
    pub vgpu_types: BTreeMap<u32, Node>,
    /// `(device, type, data)`.
    pub events: Vec<(usize, u64, u64)>,
    /// `(type, GPU id)`.
    pub system_events: Vec<(u64, u32)>,
    /// The answers recorded by name because the mock derived them otherwise.
    recorded: BTreeSet<(Place, String)>,
}

/// The profile as YAML: the values every GPU shares in `device_defaults`, each GPU's own in
/// `devices`.
pub fn write(p: &Profile) -> String {
    let mut top = Mapping::new();
    top.insert("name".into(), Value::String(p.name.clone()));
    top.insert("description".into(), Value::String(p.description.clone()));
    if p.live_pids {
        top.insert("live_pids".into(), Value::Bool(true));
    }
    let mut system = Mapping::new();
    for (k, v) in &p.system {
        set(&mut system, k, v.clone());
    }
    top.insert("system".into(), Value::Mapping(system));
    // The keys whose value is the same on every GPU.
    let shared: Vec<&String> = match p.devices.split_first() {
        Some((first, rest)) if !rest.is_empty() => {
            first.iter().filter(|(k, v)| rest.iter().all(|d| d.get(*k) == Some(v))).map(|(k, _)| k).collect()
        }
        _ => Vec::new(),
    };
    let mut defaults = Mapping::new();
    if let Some(first) = p.devices.first() {
        for k in &shared {
            set(&mut defaults, k, first[*k].clone());
        }
    }
    if !defaults.is_empty() {
        top.insert("device_defaults".into(), Value::Mapping(defaults));
    }
    let devices = p
        .devices
        .iter()
        .map(|d| {
            let mut m = Mapping::new();
            for (k, v) in d {
                if !shared.contains(&k) {
                    set(&mut m, k, v.clone());
                }
            }
            Value::Mapping(m)
        })
        .collect();
    top.insert("devices".into(), Value::Sequence(devices));
    if !p.vgpu_types.is_empty() {
        let types = p
            .vgpu_types
            .iter()
            .map(|(id, node)| {
                let mut m = Mapping::new();
                m.insert("id".into(), Value::Number((*id).into()));
                for (k, v) in node {
                    m.insert(Value::String(k.clone()), v.clone());
                }
                Value::Mapping(m)
            })
            .collect();
        top.insert("vgpu_types".into(), Value::Sequence(types));
    }
    if !p.events.is_empty() {
        let events = p
            .events
            .iter()
            .map(|(device, ty, data)| {
                let mut m = Mapping::new();
                m.insert("device".into(), Value::Number((*device as u64).into()));
                m.insert("type".into(), Value::Number((*ty).into()));
                m.insert("data".into(), Value::Number((*data).into()));
                Value::Mapping(m)
            })
            .collect();
        top.insert("events".into(), Value::Sequence(events));
    }
    if !p.system_events.is_empty() {
        let events = p
            .system_events
            .iter()
            .map(|(ty, gpu)| {
                let mut m = Mapping::new();
                m.insert("type".into(), Value::Number((*ty).into()));
                m.insert("gpu_id".into(), Value::Number((*gpu).into()));
                Value::Mapping(m)
            })
            .collect();
        top.insert("system_events".into(), Value::Sequence(events));
    }
    let mut text = format!("# {}\n", p.header.replace('\n', "\n# "));
    text.push_str(&serde_yaml::to_string(&Value::Mapping(top)).unwrap_or_default());
    text
}

/// Why a recorded error is what it is.
fn reason(r: &Recording) -> String {
    format!("recorded: driver {}", r.driver_version().unwrap_or("unknown"))
}

fn is_hand_written(f: &str) -> bool {
    HAND_WRITTEN.iter().any(|(h, _)| *h == f)
}

/// The profile of a recording, before the check.
pub fn draft(r: &Recording, opts: &Options) -> Profile {
    let why = reason(r);
    let driver = r.driver_version().unwrap_or("unknown").to_string();
    let gpus: Vec<String> = r
        .devices
        .iter()
        .filter_map(|d| first_value(&d.answers, "nvmlDeviceGetName", &[]).map(|v| v.str().to_string()))
        .collect();
    let mut p = Profile {
        name: if opts.name.is_empty() { "captured".to_string() } else { opts.name.clone() },
        description: format!("{} on driver {driver}, captured by `nvml-mock capture`", summary(&gpus)),
        header: format!(
            "Captured by `nvml-mock capture` from {} (driver {driver}).\nEvery answer is the machine's: replayed as recorded by the mock.{}",
            summary(&gpus),
            if opts.keep_ids { "" } else { "\nSerial numbers, UUIDs and the hostname are synthetic (capture --keep-ids keeps them)." }
        ),
        ..Profile::default()
    };
    // The system.
    let s = &mut p.system;
    s.insert("driver_version".into(), Value::String(driver.clone()));
    functions(&r.system, s, "", &why, false);
    if !r.refused.is_empty() {
        s.insert(
            "refused_versions".into(),
            Value::Sequence(r.refused.iter().map(|c| Value::String(c.to_string())).collect()),
        );
    }
    let checks = checks_value(&r.system_checks);
    if !checks.is_empty() {
        s.insert("checks".into(), Value::Mapping(checks));
    }
    if let Some(exports) = exports(r) {
        s.insert("exports".into(), exports);
    }
    let strings: Mapping = r
        .error_strings
        .iter()
        .filter(|(code, text)| crate::engine::error_string(**code).to_str().ok() != Some(text.as_str()))
        .map(|(code, text)| (Value::Number((*code).into()), Value::String(text.clone())))
        .collect();
    if !strings.is_empty() {
        s.insert("error_strings".into(), Value::Mapping(strings));
    }
    // An error the driver answers before any GPU is looked up, where it answers otherwise after.
    let early: Mapping = r
        .before_attach
        .iter()
        .filter(|(f, by)| r.system.get(*f) != Some(by))
        .filter_map(|(f, by)| {
            let codes: BTreeSet<u32> = by.values().map(|a| a.as_ref().err().copied()).collect::<Option<_>>()?;
            let code = (codes.len() == 1).then(|| codes.into_iter().next())??;
            Some((Value::String((*f).to_string()), code_name(code)))
        })
        .collect();
    if !early.is_empty() {
        s.insert("before_attach".into(), Value::Mapping(early));
    }
    numa_cpus(r, &mut p.system);
    if let Some(Ok(b)) = &r.driver_branch {
        p.system.insert("driver_branch".into(), Value::String(b.clone()));
    }
    for (i, d) in r.devices.iter().enumerate() {
        let mut node = Node::new();
        device(d, r, &mut node, &why);
        let checks = checks_value(&d.checks);
        if !checks.is_empty() {
            node.insert("checks".into(), Value::Mapping(checks));
        }
        for (ty, data) in &d.events {
            p.events.push((i, *ty, *data));
        }
        p.devices.push(node);
    }
    p.system_events = r.system_events.clone();
    for (id, a) in &r.vgpu_types {
        let mut node = Node::new();
        functions(a, &mut node, "", &why, false);
        p.vgpu_types.insert(*id, node);
    }
    p
}

fn summary(gpus: &[String]) -> String {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for g in gpus {
        *counts.entry(g).or_default() += 1;
    }
    let parts: Vec<String> = counts.iter().map(|(g, n)| format!("{n}x {g}")).collect();
    if parts.is_empty() {
        "no GPU".to_string()
    } else {
        parts.join(", ")
    }
}

/// The recorded values of the functions the mock answers from data (not those written by
/// hand unless `all`), as function values under `prefix`.
fn functions(a: &Answers, node: &mut Node, prefix: &str, why: &str, all: bool) {
    for (f, by) in a {
        if !all && is_hand_written(f) {
            continue;
        }
        if let Some(v) = entry(f, by, why) {
            node.insert(format!("{prefix}{f}"), v);
        }
    }
}

fn checks_value(checks: &BTreeMap<&'static str, crate::profile::Checks>) -> Mapping {
    checks
        .iter()
        .map(|(f, c)| {
            let mut m = Mapping::new();
            if let Some(n) = c.null {
                m.insert("null".into(), code_name(n));
            }
            if let Some(w) = c.wrong_version {
                m.insert("wrong_version".into(), code_name(w));
            }
            (Value::String(f.to_string()), Value::Mapping(m))
        })
        .collect()
}

/// The exported functions as the difference from what the history gives the driver.
fn exports(r: &Recording) -> Option<Value> {
    let version = crate::driver::Version::parse(r.driver_version()?).ok()?;
    let extra: Vec<Value> =
        r.exports.iter().filter(|f| !crate::driver::has(&version, f)).map(|f| Value::String(f.to_string())).collect();
    let missing: Vec<Value> = crate::generated::names::FUNCTIONS
        .iter()
        .filter(|f| crate::driver::has(&version, f) && !r.exports.contains(*f))
        .map(|f| Value::String(f.to_string()))
        .collect();
    let mut m = Mapping::new();
    if !extra.is_empty() {
        m.insert("extra".into(), Value::Sequence(extra));
    }
    if !missing.is_empty() {
        m.insert("missing".into(), Value::Sequence(missing));
    }
    (!m.is_empty()).then_some(Value::Mapping(m))
}

/// `system.numa_cpus` from the GPUs' CPU affinities, by their NUMA nodes.
fn numa_cpus(r: &Recording, system: &mut Node) {
    let mut m = Mapping::new();
    for d in &r.devices {
        let (Some(node), Some(mask)) = (first_value(&d.answers, "nvmlDeviceGetNumaNodeId", &[]), &d.cpu_affinity)
        else {
            continue;
        };
        m.insert(Value::Number(node.uint().into()), Value::String(cpu_list(mask)));
    }
    if !m.is_empty() {
        system.insert("numa_cpus".into(), Value::Mapping(m));
    }
}

/// A CPU mask in Linux's list format (`0-55,112-167`).
fn cpu_list(mask: &[u64]) -> String {
    let cpus: Vec<usize> = (0..mask.len() * 64).filter(|i| mask[i / 64] >> (i % 64) & 1 == 1).collect();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let start = cpus[i];
        while i + 1 < cpus.len() && cpus[i + 1] == cpus[i] + 1 {
            i += 1;
        }
        parts.push(if cpus[i] == start { start.to_string() } else { format!("{start}-{}", cpus[i]) });
        i += 1;
    }
    parts.join(",")
}

fn num(v: &Val) -> Value {
    match v {
        Val::Float(f) => Value::Number((*f).into()),
        v => Value::Number(v.uint().into()),
    }
}

/// A GPU's keys.
fn device(d: &DeviceRec, r: &Recording, node: &mut Node, why: &str) {
    let a = &d.answers;
    let v = |f: &str| first_value(a, f, &[]);
    let vs = |f: &str, s: &[i64]| first_value(a, f, s);
    let c = |name: &str| crate::answer::constant(name).unwrap_or(0) as i64;
    let mut put = |k: &str, v: Option<Value>| {
        if let Some(v) = v {
            node.insert(k.to_string(), v);
        }
    };
    put("name", v("nvmlDeviceGetName").map(|x| Value::String(x.str().into())));
    put("uuid", v("nvmlDeviceGetUUID").map(|x| Value::String(x.str().into())));
    put("serial", v("nvmlDeviceGetSerial").map(|x| Value::String(x.str().into())));
    put("board_id", v("nvmlDeviceGetBoardId").map(num));
    put("numa_node", v("nvmlDeviceGetNumaNodeId").map(num));
    put("cpu_affinity", d.cpu_affinity.as_deref().map(|m| Value::String(cpu_list(m))));
    if !d.field_batches.unwritten.is_empty() {
        let ids = |l: &[u32]| Value::Sequence(l.iter().map(|id| Value::Number((*id).into())).collect());
        let mut m = Mapping::new();
        m.insert("triggers".into(), ids(&d.field_batches.triggers));
        m.insert("unwritten".into(), ids(&d.field_batches.unwritten));
        put("field_batches", Some(Value::Mapping(m)));
    }
    if let Some(Ok(n)) = &d.part_number {
        put("gpu_part_number", Some(Value::String(n.clone())));
    }
    if !d.gpm.is_empty() {
        let name = |id: u32| {
            crate::generated::names::CONSTANTS
                .iter()
                .find(|(n, v)| n.starts_with("NVML_GPM_METRIC_") && *v == i128::from(id))
                .map(|(n, _)| Value::String((*n).to_string()))
                .unwrap_or(Value::Number(id.into()))
        };
        let rates: Mapping = d.gpm.iter().map(|(id, v)| (name(*id), Value::Number((*v).into()))).collect();
        put("gpm", Some(Value::Mapping(rates)));
        put("recorded_gpm", Some(Value::Bool(true)));
    }
    if let Some(mask) = &d.memory_affinity {
        let nodes = (0..mask.len() * 64).filter(|i| mask[i / 64] >> (i % 64) & 1 == 1);
        put("memory_affinity", Some(Value::Sequence(nodes.map(|n| Value::Number((n as u64).into())).collect())));
    }
    if let Some(pci) = v("nvmlDeviceGetPciInfo_v3") {
        for (k, f) in [
            ("domain", "domain"),
            ("bus", "bus"),
            ("device", "device"),
            ("device_id", "pciDeviceId"),
            ("subsystem_id", "pciSubSystemId"),
        ] {
            put(&format!("pci.{k}"), Some(num(pci.field(f))));
        }
    }
    if let Some(ext) = v("nvmlDeviceGetPciInfoExt") {
        put("pci.base_class", Some(num(ext.field("baseClass"))));
        put("pci.sub_class", Some(num(ext.field("subClass"))));
    }
    if let Some(m) = v("nvmlDeviceGetMemoryInfo_v2") {
        for k in ["total", "reserved", "used"] {
            put(&format!("memory.{k}"), Some(num(m.field(k))));
        }
    }
    if let Some(b) = v("nvmlDeviceGetBAR1MemoryInfo") {
        put("bar1.total", Some(num(b.field("bar1Total"))));
        put("bar1.used", Some(num(b.field("bar1Used"))));
    }
    let clocks = [
        ("graphics", "NVML_CLOCK_GRAPHICS"),
        ("sm", "NVML_CLOCK_SM"),
        ("memory", "NVML_CLOCK_MEM"),
        ("video", "NVML_CLOCK_VIDEO"),
    ];
    for (section, f) in [("clocks", "nvmlDeviceGetClockInfo"), ("max_clocks", "nvmlDeviceGetMaxClockInfo")] {
        for (k, t) in clocks {
            put(&format!("{section}.{k}"), vs(f, &[c(t)]).map(num));
        }
    }
    for (section, f) in [
        ("application_clocks", "nvmlDeviceGetApplicationsClock"),
        ("default_application_clocks", "nvmlDeviceGetDefaultApplicationsClock"),
    ] {
        put(&format!("{section}.graphics"), vs(f, &[c("NVML_CLOCK_GRAPHICS")]).map(num));
        put(&format!("{section}.memory"), vs(f, &[c("NVML_CLOCK_MEM")]).map(num));
    }
    let list = |x: &Val| Value::Sequence(x.items().iter().map(num).collect());
    put("supported_memory_clocks", v("nvmlDeviceGetSupportedMemoryClocks").map(list));
    let first_mem = v("nvmlDeviceGetSupportedMemoryClocks").and_then(|x| x.items().first().map(Val::int));
    put(
        "supported_graphics_clocks",
        first_mem.and_then(|m| vs("nvmlDeviceGetSupportedGraphicsClocks", &[m])).map(list),
    );
    put("power.usage_mw", v("nvmlDeviceGetPowerUsage").map(num));
    put("power.limit_mw", v("nvmlDeviceGetPowerManagementLimit").map(num));
    put("power.enforced_limit_mw", v("nvmlDeviceGetEnforcedPowerLimit").map(num));
    if let Some(Ok(vals)) = a.get("nvmlDeviceGetPowerManagementLimitConstraints").and_then(|b| b.get(&Vec::new())) {
        put("power.min_limit_mw", vals.first().map(num));
        put("power.max_limit_mw", vals.get(1).map(num));
    }
    put("power.energy_mj", v("nvmlDeviceGetTotalEnergyConsumption").map(num));
    put("temperature.gpu", vs("nvmlDeviceGetTemperature", &[c("NVML_TEMPERATURE_GPU")]).map(num));
    if let Some(FieldAnswer::Value(_, t)) = d.fields.get(&(c("NVML_FI_DEV_MEMORY_TEMP") as u32, 0)) {
        put("temperature.memory", Some(num(t)));
    }
    let fans = v("nvmlDeviceGetNumFans").map(Val::int).unwrap_or(0);
    let speeds: Vec<Value> = (0..fans).filter_map(|i| vs("nvmlDeviceGetFanSpeed_v2", &[i]).map(num)).collect();
    put("fans", Some(Value::Sequence(speeds)));
    if let Some(u) = v("nvmlDeviceGetUtilizationRates") {
        put("utilization.gpu", Some(num(u.field("gpu"))));
        put("utilization.memory", Some(num(u.field("memory"))));
    }
    for (key, f) in [("encoder", "nvmlDeviceGetEncoderUtilization"), ("decoder", "nvmlDeviceGetDecoderUtilization")] {
        if let Some(Ok(vals)) = a.get(f).and_then(|b| b.get(&Vec::new())) {
            put(&format!("{key}.utilization"), vals.first().map(num));
            put(&format!("{key}.sampling_period_us"), vals.get(1).map(num));
        }
    }
    put(
        "persistence_mode",
        v("nvmlDeviceGetPersistenceMode").map(|x| Value::Bool(x.int() == c("NVML_FEATURE_ENABLED"))),
    );
    put("nvmlDeviceGetComputeMode", v("nvmlDeviceGetComputeMode").map(num));
    if let Some(Ok(vals)) = a.get("nvmlDeviceGetEccMode").and_then(|b| b.get(&Vec::new())) {
        put("ecc.enabled", vals.first().map(|x| Value::Bool(x.int() == 1)));
        put("ecc.pending", vals.get(1).map(|x| Value::Bool(x.int() == 1)));
    }
    for (scope, counter) in [("volatile", "NVML_VOLATILE_ECC"), ("aggregate", "NVML_AGGREGATE_ECC")] {
        for (kind, err) in
            [("corrected", "NVML_MEMORY_ERROR_TYPE_CORRECTED"), ("uncorrected", "NVML_MEMORY_ERROR_TYPE_UNCORRECTED")]
        {
            put(&format!("ecc.{scope}.{kind}"), vs("nvmlDeviceGetTotalEccErrors", &[c(err), c(counter)]).map(num));
        }
    }
    for (key, cause) in [
        ("single_bit", "NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS"),
        ("double_bit", "NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR"),
    ] {
        put(&format!("retired_pages.{key}"), vs("nvmlDeviceGetRetiredPages", &[c(cause)]).map(list));
    }
    put(
        "retired_pages.pending",
        v("nvmlDeviceGetRetiredPagesPendingStatus").map(|x| Value::Bool(x.int() == c("NVML_FEATURE_ENABLED"))),
    );
    if !d.topology.is_empty() && d.topology.values().all(Result::is_ok) {
        let levels = d.topology.iter().map(|(j, l)| {
            let level =
                super::yaml::value(&crate::schema::T::Enum("nvmlGpuLevel_enum"), &Val::Int((*l).unwrap_or(0).into()));
            (Value::Number((*j as u64).into()), level)
        });
        put("topology", Some(Value::Mapping(levels.collect())));
    }
    match &d.pgpu_metadata {
        Ok(text) => put("nvmlDeviceGetPgpuMetadataString", Some(Value::String(text.clone()))),
        Err(code) if *code != crate::reading::FUNCTION_NOT_FOUND => {
            put("nvmlDeviceGetPgpuMetadataString", Some(error(*code, why)))
        }
        Err(_) => {}
    }
    if let Ok(entries) = &d.sram_errors {
        let items = entries.iter().map(|e| super::yaml::value(&crate::schema::T::Record(""), e)).collect();
        put("ecc.sram_unique_uncorrected", Some(Value::Sequence(items)));
    }
    if let Some(Ok(vals)) = a.get("nvmlDeviceGetRemappedRows").and_then(|b| b.get(&Vec::new())) {
        put("remapped_rows.corrected", vals.first().map(num));
        put("remapped_rows.uncorrected", vals.get(1).map(num));
        put("remapped_rows.pending", vals.get(2).map(|x| Value::Bool(x.int() != 0)));
        put("remapped_rows.failure", vals.get(3).map(|x| Value::Bool(x.int() != 0)));
    }
    // NVLink: the links that answer a state, those of them disabled.
    if let Some(states) = a.get("nvmlDeviceGetNvLinkState") {
        let answered: Vec<(i64, i64)> =
            states.iter().filter_map(|(k, r)| Some((*k.first()?, r.as_ref().ok()?.first()?.int()))).collect();
        if !answered.is_empty() {
            put("nvlink.links", Some(Value::Number((answered.len() as u64).into())));
            let inactive: Vec<Value> =
                answered.iter().filter(|(_, s)| *s == 0).map(|(l, _)| Value::Number((*l).into())).collect();
            put("nvlink.inactive_links", Some(Value::Sequence(inactive)));
            put("nvlink.version", vs("nvmlDeviceGetNvLinkVersion", &[answered[0].0]).map(num));
        }
    }
    mig(d, node);
    for kind in ["compute", "graphics"] {
        let f =
            format!("nvmlDevice{}RunningProcesses_v3", if kind == "compute" { "GetCompute" } else { "GetGraphics" });
        if let Some(Ok(_)) = a.get(f.as_str()).and_then(|b| b.get(&Vec::new())) {
            let list = processes(d, &f).into_iter().map(|p| process(p, d, r)).collect();
            node.insert(format!("processes.{kind}"), Value::Sequence(list));
        }
    }
    match &d.pstates {
        Some(Ok(states)) => {
            let names = states
                .iter()
                .map(|s| super::yaml::value(&crate::schema::T::Enum("nvmlPStates_enum"), &Val::Int((*s).into())));
            node.insert("supported_pstates".into(), Value::Sequence(names.collect()));
        }
        Some(Err(code)) => {
            node.insert("nvmlDeviceGetSupportedPerformanceStates".into(), error(*code, why));
        }
        None => {}
    }
    if let Some(mask) = v("nvmlDeviceGetSupportedEventTypes") {
        let bits: Vec<Value> =
            (0..64).filter(|b| mask.uint() >> b & 1 == 1).map(|b| Value::Number((1u64 << b).into())).collect();
        node.insert("supported_events".into(), Value::Sequence(bits));
    }
    // vGPU instances: their function values.
    if !d.vgpu_instances.is_empty() {
        let list = d
            .vgpu_instances
            .iter()
            .map(|(id, a)| {
                let mut m = Mapping::new();
                m.insert("id".into(), Value::Number((*id).into()));
                // Its utilisation, from its GPU's samples.
                let samples = super::record::value_at(&d.answers, "nvmlDeviceGetVgpuUtilization", &[0], 1);
                if let Some(s) =
                    samples.and_then(|v| v.items().iter().find(|s| s.field("vgpuInstance").uint() == u64::from(*id)))
                {
                    let mut u = Mapping::new();
                    for (k, f) in
                        [("sm", "smUtil"), ("memory", "memUtil"), ("encoder", "encUtil"), ("decoder", "decUtil")]
                    {
                        let value = s.field(f).member().map(|(_, x)| x.uint() & 0xFFFF_FFFF).unwrap_or(0);
                        u.insert(k.into(), Value::Number(value.into()));
                    }
                    m.insert("utilization".into(), Value::Mapping(u));
                }
                let mut n = Node::new();
                functions(a, &mut n, "", why, false);
                for (k, v) in n {
                    m.insert(Value::String(k), v);
                }
                Value::Mapping(m)
            })
            .collect();
        node.insert("vgpu.instances".into(), Value::Sequence(list));
    }
    functions(a, node, "", why, false);
}

/// The records of a recorded process list.
fn processes<'a>(d: &'a DeviceRec, f: &str) -> Vec<&'a Val> {
    first_value(&d.answers, f, &[]).map(|v| v.items().iter().collect()).unwrap_or_default()
}

/// A process as a profile gives it: its ids, memory, name and utilisation.
fn process(p: &Val, d: &DeviceRec, r: &Recording) -> Value {
    let mut m = Mapping::new();
    let pid = p.field("pid").int();
    m.insert("pid".into(), Value::Number(pid.into()));
    let mem = p.field("usedGpuMemory").uint();
    if mem != u64::MAX {
        m.insert("used_memory".into(), Value::Number(mem.into()));
    }
    for (k, f) in [("gpu_instance_id", "gpuInstanceId"), ("compute_instance_id", "computeInstanceId")] {
        let id = p.field(f).uint();
        if id != 0xFFFF_FFFF {
            m.insert(k.into(), Value::Number(id.into()));
        }
    }
    let cc = p.field("usedGpuCcProtectedMemory").uint();
    if cc != 0 {
        m.insert("cc_protected_memory".into(), Value::Number(cc.into()));
    }
    if let Some(name) = first_value(&r.system, "nvmlSystemGetProcessName", &[pid]) {
        m.insert("name".into(), Value::String(name.str().to_string()));
    }
    let samples = first_value(&d.answers, "nvmlDeviceGetProcessUtilization", &[0]);
    if let Some(s) = samples.and_then(|v| v.items().iter().find(|s| s.field("pid").int() == pid)) {
        for (k, f) in [("sm_util", "smUtil"), ("mem_util", "memUtil"), ("enc_util", "encUtil"), ("dec_util", "decUtil")]
        {
            m.insert(k.into(), Value::Number(s.field(f).uint().into()));
        }
        m.insert("time_stamp".into(), Value::Number(s.field("timeStamp").uint().into()));
    }
    Value::Mapping(m)
}

/// MIG: the mode, the instance profiles the GPU lists, and its instances.
fn mig(d: &DeviceRec, node: &mut Node) {
    let a = &d.answers;
    if let Some(Ok(vals)) = a.get("nvmlDeviceGetMigMode").and_then(|b| b.get(&Vec::new())) {
        node.insert("mig.mode".into(), Value::Bool(vals.first().map(Val::int) == Some(1)));
        node.insert("mig.pending".into(), Value::Bool(vals.get(1).map(Val::int) == Some(1)));
    }
    if let Some(n) = first_value(a, "nvmlDeviceGetMaxMigDeviceCount", &[]) {
        node.insert("mig.max_devices".into(), num(n));
    }
    let mut gi_ids = BTreeMap::new();
    let mut profiles = Vec::new();
    let mut slices = 0;
    if let Some(by) = a.get("nvmlDeviceGetGpuInstanceProfileInfoV") {
        for (k, ans) in by {
            let (Some(index), Ok(vals)) = (k.first(), ans) else { continue };
            let Some(info) = vals.first() else { continue };
            let id = info.field("id").int();
            gi_ids.insert(id, *index);
            slices = slices.max(info.field("sliceCount").int());
            let mut m = Mapping::new();
            m.insert("profile".into(), Value::Number((*index).into()));
            for (key, f) in [
                ("id", "id"),
                ("slices", "sliceCount"),
                ("instances", "instanceCount"),
                ("multiprocessors", "multiprocessorCount"),
                ("memory_mb", "memorySizeMB"),
                ("copy_engines", "copyEngineCount"),
                ("decoders", "decoderCount"),
                ("encoders", "encoderCount"),
                ("jpegs", "jpegCount"),
                ("ofas", "ofaCount"),
                ("p2p", "isP2pSupported"),
            ] {
                m.insert(key.into(), num(info.field(f)));
            }
            m.insert("name".into(), Value::String(info.field("name").str().to_string()));
            if let Some(p) = first_value(a, "nvmlDeviceGetGpuInstancePossiblePlacements_v2", &[id]) {
                let starts: Vec<Value> = p.items().iter().map(|x| num(x.field("start"))).collect();
                m.insert("placements".into(), Value::Sequence(starts));
                // The GPU's slices: where the last placement ends.
                let end = p.items().iter().map(|x| x.field("start").int() + x.field("size").int()).max();
                slices = slices.max(end.unwrap_or(0));
            }
            profiles.push(Value::Mapping(m));
        }
    }
    if !profiles.is_empty() {
        node.insert("mig.gpu_instance_profiles".into(), Value::Sequence(profiles));
        node.insert("mig.slices".into(), Value::Number(slices.into()));
    }
    // Compute instance profiles, as a GPU instance lists them.
    let mut ci_ids = BTreeMap::new();
    let mut ci_profiles = BTreeMap::new();
    for gi in &d.gpu_instances {
        let Some(by) = gi.answers.get("nvmlGpuInstanceGetComputeInstanceProfileInfoV") else { continue };
        for (k, ans) in by {
            let (Some(index), Ok(vals)) = (k.first(), ans) else { continue };
            let Some(info) = vals.first() else { continue };
            let id = info.field("id").int();
            ci_ids.insert(id, *index);
            let mut m = Mapping::new();
            m.insert("profile".into(), Value::Number((*index).into()));
            for (key, f) in [
                ("id", "id"),
                ("slices", "sliceCount"),
                ("multiprocessors", "multiprocessorCount"),
                ("copy_engines", "sharedCopyEngineCount"),
                ("decoders", "sharedDecoderCount"),
                ("encoders", "sharedEncoderCount"),
                ("jpegs", "sharedJpegCount"),
                ("ofas", "sharedOfaCount"),
            ] {
                m.insert(key.into(), num(info.field(f)));
            }
            m.insert("name".into(), Value::String(info.field("name").str().to_string()));
            ci_profiles.entry(*index).or_insert(Value::Mapping(m));
        }
    }
    if !ci_profiles.is_empty() {
        node.insert("mig.compute_instance_profiles".into(), Value::Sequence(ci_profiles.into_values().collect()));
    }
    if d.gpu_instances.is_empty() {
        return;
    }
    let instances = d
        .gpu_instances
        .iter()
        .map(|gi| {
            let mut m = Mapping::new();
            m.insert(
                "profile".into(),
                Value::Number(gi_ids.get(&i64::from(gi.profile_id)).copied().unwrap_or(0).into()),
            );
            m.insert("id".into(), Value::Number(gi.id.into()));
            m.insert("start".into(), Value::Number(gi.start.into()));
            let cis = gi
                .compute_instances
                .iter()
                .map(|ci| {
                    let mut c = Mapping::new();
                    let index = ci_ids.get(&i64::from(ci.profile_id)).copied().unwrap_or(0);
                    c.insert("profile".into(), Value::Number(index.into()));
                    c.insert("id".into(), Value::Number(ci.id.into()));
                    c.insert("start".into(), Value::Number(ci.start.into()));
                    c.insert("size".into(), Value::Number(ci.size.into()));
                    // The UUID of its MIG device (the one whose instance ids are these).
                    let ids = |m: &Answers, f: &str| first_value(m, f, &[]).map(Val::int);
                    let mig = d.mig_devices.iter().find(|m| {
                        ids(m, "nvmlDeviceGetGpuInstanceId") == Some(gi.id.into())
                            && ids(m, "nvmlDeviceGetComputeInstanceId") == Some(ci.id.into())
                    });
                    if let Some(uuid) = mig.and_then(|m| first_value(m, "nvmlDeviceGetUUID", &[])) {
                        c.insert("uuid".into(), Value::String(uuid.str().to_string()));
                    }
                    Value::Mapping(c)
                })
                .collect();
            m.insert("compute_instances".into(), Value::Sequence(cis));
            Value::Mapping(m)
        })
        .collect();
    node.insert("mig.gpu_instances".into(), Value::Sequence(instances));
}

impl Profile {
    /// How many answers the check recorded by name.
    pub fn overrides(&self) -> usize {
        self.recorded.len()
    }

    /// Gives the profile the machine's answers where the mock's `d` differs.
    pub fn take_recorded(&mut self, machine: &Recording, d: &Difference) {
        let why = reason(machine);
        let key = (d.place.clone(), d.what.clone());
        let node = match &d.place {
            Place::System => &mut self.system,
            Place::Device(i) | Place::MigDevice(i, _) | Place::GpuInstance(i, _) | Place::ComputeInstance(i, _, _) => {
                let Some(n) = self.devices.get_mut(*i) else { return };
                n
            }
            Place::VgpuType(id) => self.vgpu_types.entry(*id).or_default(),
            Place::VgpuInstance(..) => return,
        };
        let answers = match &d.place {
            Place::System => Some(&machine.system),
            Place::Device(i) => machine.devices.get(*i).map(|x| &x.answers),
            Place::MigDevice(i, j) => machine.devices.get(*i).and_then(|x| x.mig_devices.get(*j)),
            Place::GpuInstance(i, id) => {
                machine.devices.get(*i).and_then(|x| x.gpu_instances.iter().find(|g| g.id == *id)).map(|g| &g.answers)
            }
            Place::ComputeInstance(i, gi, ci) => machine
                .devices
                .get(*i)
                .and_then(|x| x.gpu_instances.iter().find(|g| g.id == *gi))
                .and_then(|g| g.compute_instances.iter().find(|c| c.id == *ci))
                .map(|c| &c.answers),
            Place::VgpuType(id) => machine.vgpu_types.get(id),
            Place::VgpuInstance(..) => None,
        };
        let prefix = match &d.place {
            Place::MigDevice(..) => "mig.device.",
            Place::GpuInstance(..) => "mig.gpu_instance.",
            Place::ComputeInstance(..) => "mig.compute_instance.",
            _ => "",
        };
        if let Some((id, scope)) = d.what.strip_prefix("field ").and_then(parse_field_key) {
            let Place::Device(i) = d.place else { return };
            let Some(f) = machine.devices.get(i).and_then(|x| x.fields.get(&(id, scope))) else { return };
            let v = match f {
                FieldAnswer::Unwritten => {
                    let mut m = Mapping::new();
                    m.insert("unwritten".into(), Value::Bool(true));
                    Value::Mapping(m)
                }
                FieldAnswer::Error(code) => error(*code, &why),
                FieldAnswer::Value(ty, v) => {
                    let mut m = Mapping::new();
                    m.insert("type".into(), Value::Number((*ty).into()));
                    m.insert("value".into(), num(v));
                    Value::Mapping(m)
                }
            };
            let mut fields = match node.get("recorded_fields") {
                Some(Value::Mapping(m)) => m.clone(),
                _ => Mapping::new(),
            };
            let k = if scope == 0 { Value::Number(id.into()) } else { Value::String(format!("{id}/{scope}")) };
            fields.insert(k, v);
            node.insert("recorded_fields".into(), Value::Mapping(fields));
            self.recorded.insert(key);
            return;
        }
        // A function without a reader that the machine refused: refused by name.
        let status = match &d.place {
            Place::System => machine.statuses.get(d.what.as_str()),
            Place::Device(i) => machine.devices.get(*i).and_then(|x| x.statuses.get(d.what.as_str())),
            _ => None,
        };
        if let Some(&code) = status {
            if code != crate::reading::SUCCESS && !node.contains_key(&d.what) {
                node.insert(d.what.clone(), error(code, &why));
                self.recorded.insert(key);
            }
            return;
        }
        if schema(&d.what).is_none() {
            return;
        }
        let Some(by) = answers.and_then(|a| a.iter().find(|(f, _)| **f == d.what)).map(|(_, by)| by) else { return };
        if let Some(v) = entry(&d.what, by, &why) {
            node.insert(format!("{prefix}{}", d.what), v);
            self.recorded.insert(key);
        }
    }
}

/// `ID` or `ID/SCOPE` (see `record::field_key`).
fn parse_field_key(k: &str) -> Option<(u32, u32)> {
    match k.split_once('/') {
        Some((id, scope)) => Some((id.parse().ok()?, scope.parse().ok()?)),
        None => Some((k.parse().ok()?, 0)),
    }
}
