//! The hand-written half of the differential test: for each C function that the Python side
//! (`pynvml_dump.py`) calls, the safe method that reaches it, as a one-line closure.
//!
//! Nothing here is derived from the generator: the mapping C function → method is written by
//! hand from the method's `Calls ...` doc line, and each closure turns the method's value into
//! what the C function writes (the shape `pynvml_dump.py` normalises pynvml's answer to):
//! records through the crate's `serde` feature (keys are C field names), enums as their
//! integer value, several out-parameters as a list in parameter order, handles as tokens
//! (`device:<uuid>`, `gi:<id>`, `ci:<id>`, `handle`).
//!
//! An entry's `faults` are the newer members of its family that the mock is made to answer
//! `NVML_ERROR_FUNCTION_NOT_FOUND` (through `NVML_MOCK_FAULTS`), so that the safe method falls
//! back to the older member pynvml calls: that is how nvmlkit reaches a legacy member, as on
//! a driver that predates the newer one.

use std::cell::RefCell;
use std::collections::BTreeMap;

use nvml::*;
use serde_json::{json, Map, Value as J};

/// What a call gave: a JSON value, or the error (compared by its `nvmlReturn_t` code).
pub type Out = Result<J, Error>;

/// A call through the safe crate: (context, object path, arguments).
pub type Handler = fn(&Ctx, &str, &Args) -> Out;

/// One C function and how nvmlkit reaches it.
pub struct Entry {
    /// The C function, as pynvml calls it.
    pub c: &'static str,
    /// Newer members of its family the mock answers FUNCTION_NOT_FOUND for, so that the
    /// method falls back to this one.
    pub faults: &'static [&'static str],
    /// The method calls this member first and falls back to older ones when the library
    /// answers FUNCTION_NOT_FOUND: where pynvml gets FUNCTION_NOT_FOUND for this member, the
    /// method's answer belongs to an older member (compared under that member's name).
    pub newest: bool,
    pub call: Handler,
}

/// The state of one run: the library, and the objects earlier calls created.
pub struct Ctx {
    pub nvml: Nvml,
    events: RefCell<BTreeMap<String, EventSet<'static>>>,
    sysevents: RefCell<BTreeMap<String, SystemEventSet<'static>>>,
    gpm: RefCell<BTreeMap<String, GpmSample<'static>>>,
}

/// A call's arguments, as `pynvml_dump.py` wrote them.
pub struct Args<'a>(pub &'a Map<String, J>);

impl Args<'_> {
    fn get(&self, k: &str) -> &J {
        self.0.get(k).unwrap_or_else(|| panic!("argument `{k}` missing in {:?}", self.0))
    }
    pub fn u(&self, k: &str) -> u32 {
        self.u64(k).try_into().unwrap_or_else(|_| panic!("argument `{k}` is not a u32"))
    }
    pub fn u64(&self, k: &str) -> u64 {
        self.get(k).as_u64().unwrap_or_else(|| panic!("argument `{k}` is not an integer"))
    }
    pub fn get_i32(&self, k: &str) -> i32 {
        self.get(k)
            .as_i64()
            .and_then(|v| i32::try_from(v).ok())
            .unwrap_or_else(|| panic!("argument `{k}` is not an i32"))
    }
    pub fn f64(&self, k: &str) -> f64 {
        self.get(k).as_f64().unwrap_or_else(|| panic!("argument `{k}` is not a number"))
    }
    pub fn s(&self, k: &str) -> &str {
        self.get(k).as_str().unwrap_or_else(|| panic!("argument `{k}` is not a string"))
    }
    pub fn list(&self, k: &str) -> Vec<u32> {
        let v = self.get(k).as_array().unwrap_or_else(|| panic!("argument `{k}` is not a list"));
        v.iter().map(|x| x.as_u64().and_then(|x| u32::try_from(x).ok()).expect("a u32 list")).collect()
    }
}

/// The integer after `/<name>/` in an object path.
fn seg(path: &str, name: &str) -> u32 {
    let mut parts = path.split('/');
    while let Some(p) = parts.next() {
        if p == name {
            if let Some(n) = parts.next().and_then(|n| n.parse().ok()) {
                return n;
            }
        }
    }
    panic!("object path `{path}` has no `{name}/<n>`")
}

impl Ctx {
    pub fn new(nvml: Nvml) -> Ctx {
        Ctx { nvml, events: Default::default(), sysevents: Default::default(), gpm: Default::default() }
    }

    /// `dev/<i>` or `dev/<i>/mig/<j>`.
    fn dev(&self, o: &str) -> Result<Device<'_>, Error> {
        let d = self.nvml.device_by_index(seg(o, "dev"))?;
        if o.contains("/mig/") {
            return d.mig_device_by_index(seg(o, "mig"));
        }
        Ok(d)
    }

    /// The device index an argument names (`device2`).
    fn dev_arg(&self, a: &Args, k: &str) -> Result<Device<'_>, Error> {
        self.nvml.device_by_index(a.u(k))
    }

    /// `dev/<i>/gi/<id>`.
    fn gi(&self, o: &str) -> Result<GpuInstance<'_>, Error> {
        self.nvml.device_by_index(seg(o, "dev"))?.gpu_instance_by_id(seg(o, "gi"))
    }

    /// `dev/<i>/gi/<id>/ci-profile/<p>/ci/<id>`: the instance `<id>` among those of profile
    /// `<p>` (as the Python side found it; `nvmlGpuInstanceGetComputeInstanceById` is compared
    /// on its own).
    fn ci(&self, o: &str) -> Result<ComputeInstance<'_>, Error> {
        let id = seg(o, "ci");
        for ci in self.gi(o)?.compute_instances(seg(o, "ci-profile"))? {
            if ci.info()?.id == id {
                return Ok(ci);
            }
        }
        Err(Error::NotFound)
    }

    fn unit(&self, o: &str) -> Result<Unit<'_>, Error> {
        self.nvml.unit_by_index(seg(o, "unit"))
    }

    fn vtype(&self, o: &str) -> VgpuTypeId<'_> {
        VgpuTypeId::from_id(&self.nvml, seg(o, "vgpu-type"))
    }

    fn vgpu(&self, o: &str) -> VgpuInstance<'_> {
        VgpuInstance::from_id(&self.nvml, seg(o, "vgpu"))
    }

    /// A device handle the library wrote into a record, as a token.
    fn raw_dev(&self, h: RawHandle<nvml::sys::nvmlDevice_st>) -> J {
        if h.is_null() {
            return J::Null;
        }
        dtok(&Device::from_raw_handle(&self.nvml, h))
    }

    fn with_event_set<T>(&self, o: &str, f: impl FnOnce(&EventSet<'static>) -> Result<T, Error>) -> Result<T, Error> {
        f(self.events.borrow().get(o).unwrap_or_else(|| panic!("no event set `{o}`")))
    }

    fn with_gpm<T>(&self, o: &str, f: impl FnOnce(&GpmSample<'static>) -> Result<T, Error>) -> Result<T, Error> {
        f(self.gpm.borrow().get(o).unwrap_or_else(|| panic!("no GPM sample `{o}`")))
    }
}

/// A value through its `serde::Serialize` (the crate's `serde` feature).
fn j<T: serde::Serialize>(v: T) -> J {
    serde_json::to_value(v).expect("nvmlkit's values serialize")
}

/// A device as `device:<uuid>` (its uuid through the safe crate).
fn dtok(d: &Device<'_>) -> J {
    match d.uuid() {
        Ok(u) => J::String(format!("device:{u}")),
        Err(e) => J::String(format!("device:?{}", e.code())),
    }
}

fn dtoks(v: Vec<Device<'_>>) -> J {
    J::Array(v.iter().map(dtok).collect())
}

fn gitok(g: &GpuInstance<'_>) -> Out {
    Ok(J::String(format!("gi:{}", g.info()?.id)))
}

fn citok(c: &ComputeInstance<'_>) -> Out {
    Ok(J::String(format!("ci:{}", c.info()?.id)))
}

/// A string an enum's `serde` form gives, back to the enum's value (the crate serializes
/// known values by name): `None` for a name the type does not have.
type Lookup = fn(&str) -> Option<i64>;

macro_rules! lk {
    ($t:ident) => {
        |s: &str| (0..=1100u32).chain([u32::MAX]).map(|v| $t(v as _)).find(|e| e.name() == Some(s)).map(|e| e.0 as i64)
    };
}

/// Replaces enum names by their values at the given keys (at any depth).
/// The v3 and older layouts' `cliqueId` of a `GpuFabricInfo` (the v4 layout): nvml.h, "The
/// legacy v3 cliqueId maps to the id of the first NVML_GPU_FABRIC_CLIQUE_TYPE_UNICAST_POINTER
/// entry".
fn legacy_clique(mut v: J) -> J {
    let unicast = v["cliques"].as_array().and_then(|c| {
        c.iter()
            .find(|e| e["type"] == json!(nvml::sys::NVML_GPU_FABRIC_CLIQUE_TYPE_UNICAST_POINTER))
            .map(|e| e["id"].clone())
    });
    if let (Some(id), J::Object(m)) = (unicast, &mut v) {
        m.insert("clique_id".into(), id);
    }
    v
}

fn fix(v: J, keys: &[(&str, Lookup)]) -> J {
    match v {
        J::Object(m) => J::Object(
            m.into_iter()
                .map(|(k, v)| {
                    let v = match (keys.iter().find(|(key, _)| *key == k), &v) {
                        (Some((_, f)), J::String(s)) => f(s).map_or(v.clone(), |x| json!(x)),
                        _ => fix(v, keys),
                    };
                    (k, v)
                })
                .collect(),
        ),
        J::Array(a) => J::Array(a.into_iter().map(|v| fix(v, keys)).collect()),
        v => v,
    }
}

/// Adds `extra` to the object `v` (fields `serde` leaves out: handles, unions).
fn with(mut v: J, extra: &[(&str, J)]) -> J {
    if let J::Object(m) = &mut v {
        for (k, x) in extra {
            m.insert(k.to_string(), x.clone());
        }
    }
    v
}

/// A field value as pynvml_dump.py writes it: its id and scope, and its type and value when
/// the field answered (nvml.h: "value is undefined if nvmlReturn != NVML_SUCCESS").
fn field_json(id: FieldId, f: &Result<FieldValue, Error>) -> J {
    match f {
        Ok(f) => json!({"fieldId": f.field_id.0, "scopeId": f.scope_id, "valueType": f.value.value_type().0,
                        "nvmlReturn": f.nvml_return.0, "value": j(f.value)}),
        Err(e) => json!({"fieldId": id.0, "scopeId": 0, "nvmlReturn": e.code()}),
    }
}

/// `e!(C name, [newest,] [faults &[...],] |ctx, object, args| call)`.
macro_rules! e {
    ($c:literal, |$ctx:ident, $o:ident, $a:ident| $body:expr) => {
        Entry { c: $c, faults: &[], newest: false, call: |$ctx, $o, $a| $body }
    };
    ($c:literal, newest, |$ctx:ident, $o:ident, $a:ident| $body:expr) => {
        Entry { c: $c, faults: &[], newest: true, call: |$ctx, $o, $a| $body }
    };
    ($c:literal, faults $f:expr, |$ctx:ident, $o:ident, $a:ident| $body:expr) => {
        Entry { c: $c, faults: $f, newest: false, call: |$ctx, $o, $a| $body }
    };
    ($c:literal, newest, faults $f:expr, |$ctx:ident, $o:ident, $a:ident| $body:expr) => {
        Entry { c: $c, faults: $f, newest: true, call: |$ctx, $o, $a| $body }
    };
}

/// Every C function the differential test compares, and the safe method that reaches it.
#[rustfmt::skip]
#[allow(unused_variables)]
pub static TABLE: &[Entry] = &[
    // System.
    e!("nvmlSystemGetDriverVersion", |c, o, a| c.nvml.driver_version().map(j)),
    e!("nvmlSystemGetNVMLVersion", |c, o, a| c.nvml.nvml_version().map(j)),
    e!("nvmlSystemGetCudaDriverVersion_v2", newest, |c, o, a| c.nvml.cuda_driver_version().map(j)),
    e!("nvmlSystemGetCudaDriverVersion", faults &["nvmlSystemGetCudaDriverVersion_v2"], |c, o, a| c.nvml.cuda_driver_version().map(j)),
    e!("nvmlSystemGetHicVersion", |c, o, a| c.nvml.hic_version().map(j)),
    e!("nvmlSystemGetDriverBranch", |c, o, a| c.nvml.driver_branch().map(j)),
    e!("nvmlDeviceGetCount_v2", newest, |c, o, a| c.nvml.device_count().map(j)),
    e!("nvmlUnitGetCount", |c, o, a| c.nvml.unit_count().map(j)),
    e!("nvmlGetExcludedDeviceCount", |c, o, a| c.nvml.excluded_device_count().map(j)),
    e!("nvmlGetExcludedDeviceInfoByIndex", |c, o, a| c.nvml.excluded_device_info_by_index(a.u("index")).map(j)),
    e!("nvmlGetVgpuVersion", |c, o, a| c.nvml.vgpu_version().map(|VgpuVersionInfo { supported: s, current: r, .. }| json!([[s.min_version, s.max_version], [r.min_version, r.max_version]]))),
    e!("nvmlGetVgpuDriverCapabilities", |c, o, a| c.nvml.vgpu_driver_capabilities(VgpuDriverCapability(a.u("capability"))).map(|v| j(v as u32))),
    e!("nvmlSystemGetTopologyGpuSet", |c, o, a| c.nvml.topology_gpu_set(a.u("cpu")).map(dtoks)),
    e!("nvmlSystemGetConfComputeGpusReadyState", |c, o, a| c.nvml.conf_compute_gpus_ready_state().map(|v| j(v as u32))),
    e!("nvmlSystemGetConfComputeCapabilities", |c, o, a| c.nvml.conf_compute_capabilities().map(j)),
    e!("nvmlSystemGetConfComputeState", |c, o, a| c.nvml.conf_compute_state().map(j)),
    e!("nvmlSystemGetConfComputeSettings", faults &["nvmlSystemGetConfComputeSettings_v2"], |c, o, a| c.nvml.conf_compute_settings().map(j)),
    e!("nvmlSystemGetConfComputeKeyRotationThresholdInfo", |c, o, a| c.nvml.conf_compute_key_rotation_threshold_info().map(j)),
    e!("nvmlSystemGetNvlinkBwMode", |c, o, a| c.nvml.nvlink_bw_mode().map(j)),
    e!("nvmlSystemGetProcessName", |c, o, a| c.nvml.process_name(a.u("pid")).map(j)),

    // Handles.
    e!("nvmlDeviceGetHandleByIndex_v2", newest, |c, o, a| c.nvml.device_by_index(a.u("index")).map(|d| dtok(&d))),
    e!("nvmlDeviceGetHandleByUUID", |c, o, a| c.nvml.device_by_uuid(a.s("uuid")).map(|d| dtok(&d))),
    e!("nvmlDeviceGetHandleBySerial", |c, o, a| c.nvml.device_by_serial(a.s("serial")).map(|d| dtok(&d))),
    e!("nvmlDeviceGetHandleByPciBusId_v2", newest, |c, o, a| c.nvml.device_by_pci_bus_id(a.s("busId")).map(|d| dtok(&d))),
    e!("nvmlDeviceGetHandleByUUIDV", |c, o, a| c.nvml.device_by_uuid_struct(&uuid_v1(a.s("uuid"), a.u("type"))).map(|d| dtok(&d))),
    e!("nvmlDeviceGetMigDeviceHandleByIndex", |c, o, a| c.dev(o)?.mig_device_by_index(a.u("index")).map(|d| dtok(&d))),
    e!("nvmlDeviceGetDeviceHandleFromMigDeviceHandle", |c, o, a| c.dev(o)?.mig_parent_device().map(|d| dtok(&d))),

    // Units.
    e!("nvmlUnitGetHandleByIndex", |c, o, a| c.nvml.unit_by_index(a.u("index")).map(|_| json!("handle"))),
    e!("nvmlUnitGetUnitInfo", |c, o, a| c.unit(o)?.unit_info().map(j)),
    e!("nvmlUnitGetLedState", |c, o, a| c.unit(o)?.led_state().map(|v| fix(j(v), &[("color", lk!(LedColor))]))),
    e!("nvmlUnitGetPsuInfo", |c, o, a| c.unit(o)?.psu_info().map(j)),
    e!("nvmlUnitGetTemperature", |c, o, a| c.unit(o)?.temperature(a.u("type")).map(j)),
    e!("nvmlUnitGetFanSpeedInfo", |c, o, a| c.unit(o)?.fan_speed_info().map(|v| fix(j(v), &[("state", lk!(FanState))]))),
    e!("nvmlUnitGetDevices", |c, o, a| c.unit(o)?.devices().map(dtoks)),
    e!("nvmlUnitSetLedState", |c, o, a| c.unit(o)?.set_led_state(LedColor(a.u("color"))).map(|_| J::Null)),

    // Identity.
    e!("nvmlDeviceGetName", |c, o, a| c.dev(o)?.name().map(j)),
    e!("nvmlDeviceGetUUID", |c, o, a| c.dev(o)?.uuid().map(j)),
    e!("nvmlDeviceGetSerial", |c, o, a| c.dev(o)?.serial().map(j)),
    e!("nvmlDeviceGetBoardPartNumber", |c, o, a| c.dev(o)?.board_part_number().map(j)),
    e!("nvmlDeviceGetVbiosVersion", |c, o, a| c.dev(o)?.vbios_version().map(j)),
    e!("nvmlDeviceGetInforomImageVersion", |c, o, a| c.dev(o)?.inforom_image_version().map(j)),
    e!("nvmlDeviceGetInforomVersion", |c, o, a| c.dev(o)?.inforom_version(InforomObject(a.u("object"))).map(j)),
    e!("nvmlDeviceGetInforomConfigurationChecksum", |c, o, a| c.dev(o)?.inforom_configuration_checksum().map(j)),
    e!("nvmlDeviceGetGspFirmwareVersion", |c, o, a| c.dev(o)?.gsp_firmware_version().map(j)),
    e!("nvmlDeviceGetGspFirmwareMode", |c, o, a| c.dev(o)?.gsp_firmware_mode().map(|GspFirmwareMode { is_enabled: x, default_mode: y, .. }| json!([x as u32, y as u32]))),
    e!("nvmlDeviceGetIndex", |c, o, a| c.dev(o)?.index().map(j)),
    e!("nvmlDeviceGetMinorNumber", |c, o, a| c.dev(o)?.minor_number().map(j)),
    e!("nvmlDeviceGetModuleId", |c, o, a| c.dev(o)?.module_id().map(j)),
    e!("nvmlDeviceGetBoardId", |c, o, a| c.dev(o)?.board_id().map(j)),
    e!("nvmlDeviceGetMultiGpuBoard", |c, o, a| c.dev(o)?.multi_gpu_board().map(j)),
    e!("nvmlDeviceGetBrand", |c, o, a| c.dev(o)?.brand().map(|v| j(v.0))),
    e!("nvmlDeviceGetArchitecture", |c, o, a| c.dev(o)?.architecture().map(|v| j(v.0))),
    e!("nvmlDeviceGetBusType", |c, o, a| c.dev(o)?.bus_type().map(|v| j(v.0))),
    e!("nvmlDeviceGetIrqNum", |c, o, a| c.dev(o)?.irq_num().map(j)),
    e!("nvmlDeviceGetNumGpuCores", |c, o, a| c.dev(o)?.num_cores().map(j)),
    e!("nvmlDeviceGetPowerSource", |c, o, a| c.dev(o)?.power_source().map(|v| j(v.0))),
    e!("nvmlDeviceGetMemoryBusWidth", |c, o, a| c.dev(o)?.memory_bus_width().map(j)),
    e!("nvmlDeviceGetPcieLinkMaxSpeed", |c, o, a| c.dev(o)?.max_pcie_link_speed().map(|v| j(v.0))),
    e!("nvmlDeviceGetPcieSpeed", |c, o, a| c.dev(o)?.pcie_link_speed().map(j)),
    e!("nvmlDeviceGetAdaptiveClockInfoStatus", |c, o, a| c.dev(o)?.adaptive_clock_info_status().map(j)),
    e!("nvmlDeviceGetNumaNodeId", |c, o, a| c.dev(o)?.numa_node_id().map(j)),
    e!("nvmlDeviceGetCudaComputeCapability", |c, o, a| c.dev(o)?.cuda_compute_capability().map(|CudaComputeCapability { major: x, minor: y, .. }| json!([x, y]))),
    // pynvml returns the record's `str`.
    e!("nvmlDeviceGetPerformanceModes", |c, o, a| c.dev(o)?.performance_modes().map(|v| j(v.str))),
    e!("nvmlDeviceGetCurrentClockFreqs", |c, o, a| c.dev(o)?.current_clock_freqs().map(|v| j(v.str))),
    e!("nvmlDeviceGetC2cModeInfoV", |c, o, a| c.dev(o)?.c2c_mode_info().map(j)),
    // pynvml returns the record's `value`.
    e!("nvmlDeviceGetAddressingMode", |c, o, a| c.dev(o)?.addressing_mode().map(|v| j(v.value))),
    e!("nvmlDeviceGetPciInfo_v3", newest, |c, o, a| c.dev(o)?.pci_info().map(j)),
    e!("nvmlDeviceGetPciInfoExt", |c, o, a| c.dev(o)?.pci_info_ext().map(j)),

    // PCIe and affinity.
    e!("nvmlDeviceGetMaxPcieLinkGeneration", |c, o, a| c.dev(o)?.max_pcie_link_generation().map(j)),
    e!("nvmlDeviceGetGpuMaxPcieLinkGeneration", |c, o, a| c.dev(o)?.gpu_max_pcie_link_generation().map(j)),
    e!("nvmlDeviceGetMaxPcieLinkWidth", |c, o, a| c.dev(o)?.max_pcie_link_width().map(j)),
    e!("nvmlDeviceGetCurrPcieLinkGeneration", |c, o, a| c.dev(o)?.current_pcie_link_generation().map(j)),
    e!("nvmlDeviceGetCurrPcieLinkWidth", |c, o, a| c.dev(o)?.current_pcie_link_width().map(j)),
    e!("nvmlDeviceGetPcieThroughput", |c, o, a| c.dev(o)?.pcie_throughput(PcieUtilCounter(a.u("counter"))).map(j)),
    e!("nvmlDeviceGetPcieReplayCounter", |c, o, a| c.dev(o)?.pcie_replay_counter().map(j)),
    e!("nvmlDeviceGetCpuAffinity", |c, o, a| c.dev(o)?.cpu_affinity(a.u("size")).map(j)),
    e!("nvmlDeviceGetCpuAffinityWithinScope", |c, o, a| c.dev(o)?.cpu_affinity_within_scope(a.u("size"), a.u("scope")).map(j)),
    e!("nvmlDeviceGetMemoryAffinity", |c, o, a| c.dev(o)?.memory_affinity(a.u("size"), a.u("scope")).map(j)),

    // Clocks.
    e!("nvmlDeviceGetClockInfo", |c, o, a| c.dev(o)?.clock_info(ClockType(a.u("type"))).map(j)),
    e!("nvmlDeviceGetMaxClockInfo", |c, o, a| c.dev(o)?.max_clock_info(ClockType(a.u("type"))).map(j)),
    e!("nvmlDeviceGetApplicationsClock", |c, o, a| c.dev(o)?.applications_clock(ClockType(a.u("type"))).map(j)),
    e!("nvmlDeviceGetDefaultApplicationsClock", |c, o, a| c.dev(o)?.default_applications_clock(ClockType(a.u("type"))).map(j)),
    e!("nvmlDeviceGetMaxCustomerBoostClock", |c, o, a| c.dev(o)?.max_customer_boost_clock(ClockType(a.u("type"))).map(j)),
    e!("nvmlDeviceGetClock", |c, o, a| c.dev(o)?.clock(ClockType(a.u("type")), ClockId(a.u("id"))).map(j)),
    e!("nvmlDeviceGetMinMaxClockOfPState", |c, o, a| c.dev(o)?.min_max_clock_of_pstate(ClockType(a.u("type")), Pstates(a.u("pstate"))).map(|MinMaxClockOfPstate { min_clock_m_hz: x, max_clock_m_hz: y, .. }| json!([x, y]))),
    e!("nvmlDeviceGetClockOffsets", |c, o, a| c.dev(o)?.clock_offsets(ClockType(a.u("type")), Pstates(a.u("pstate")))
        .map(|v| fix(j(v), &[("type", lk!(ClockType)), ("pstate", lk!(Pstates))]))),
    e!("nvmlDeviceGetSupportedMemoryClocks", |c, o, a| c.dev(o)?.supported_memory_clocks().map(j)),
    e!("nvmlDeviceGetSupportedGraphicsClocks", |c, o, a| c.dev(o)?.supported_graphics_clocks(a.u("memory")).map(j)),
    e!("nvmlDeviceGetAutoBoostedClocksEnabled", |c, o, a| c.dev(o)?.auto_boosted_clocks_enabled().map(|AutoBoostedClocksEnabled { is_enabled: x, default_is_enabled: y, .. }| json!([x as u32, y as u32]))),
    e!("nvmlDeviceGetClkMonStatus", |c, o, a| c.dev(o)?.clock_monitor_status().map(j)),
    e!("nvmlDeviceGetGpcClkVfOffset", |c, o, a| c.dev(o)?.gpc_clock_vf_offset().map(j)),
    e!("nvmlDeviceGetMemClkVfOffset", |c, o, a| c.dev(o)?.mem_clock_vf_offset().map(j)),
    e!("nvmlDeviceGetGpcClkMinMaxVfOffset", |c, o, a| c.dev(o)?.gpc_clock_min_max_vf_offset().map(|GpcClockMinMaxVfOffset { min_offset: x, max_offset: y, .. }| json!([x, y]))),
    e!("nvmlDeviceGetMemClkMinMaxVfOffset", |c, o, a| c.dev(o)?.mem_clock_min_max_vf_offset().map(|MemClockMinMaxVfOffset { min_offset: x, max_offset: y, .. }| json!([x, y]))),
    e!("nvmlDeviceGetSupportedClocksEventReasons", newest, |c, o, a| c.dev(o)?.supported_clocks_event_reasons().map(|v| j(v.bits()))),
    e!("nvmlDeviceGetSupportedClocksThrottleReasons", faults &["nvmlDeviceGetSupportedClocksEventReasons"], |c, o, a| c.dev(o)?.supported_clocks_event_reasons().map(|v| j(v.bits()))),
    e!("nvmlDeviceGetCurrentClocksEventReasons", newest, |c, o, a| c.dev(o)?.current_clocks_event_reasons().map(|v| j(v.bits()))),
    e!("nvmlDeviceGetCurrentClocksThrottleReasons", faults &["nvmlDeviceGetCurrentClocksEventReasons"], |c, o, a| c.dev(o)?.current_clocks_event_reasons().map(|v| j(v.bits()))),
    e!("nvmlDeviceGetDynamicPstatesInfo", |c, o, a| c.dev(o)?.dynamic_pstates_info().map(j)),
    // Both pass room for NVML_MAX_GPU_PERF_PSTATES entries and drop NVML_PSTATE_UNKNOWN ones.
    e!("nvmlDeviceGetSupportedPerformanceStates", |c, o, a| c.dev(o)?.supported_performance_states().map(|v| json!(v.into_iter().map(|p| p.0).collect::<Vec<_>>()))),
    e!("nvmlDeviceGetPerformanceState", |c, o, a| c.dev(o)?.performance_state().map(|v| j(v.0))),
    e!("nvmlDeviceGetPowerState", |c, o, a| c.dev(o)?.power_state().map(|v| j(v.0))),

    // Fans and temperatures.
    e!("nvmlDeviceGetNumFans", |c, o, a| c.dev(o)?.num_fans().map(j)),
    e!("nvmlDeviceGetFanSpeed", |c, o, a| c.dev(o)?.fan_speed().map(j)),
    e!("nvmlDeviceGetFanSpeed_v2", |c, o, a| c.dev(o)?.fan_speed_of(a.u("fan")).map(j)),
    e!("nvmlDeviceGetTargetFanSpeed", |c, o, a| c.dev(o)?.target_fan_speed(a.u("fan")).map(j)),
    e!("nvmlDeviceGetFanControlPolicy_v2", |c, o, a| c.dev(o)?.fan_control_policy(a.u("fan")).map(|p| j(p.0))),
    // pynvml returns the record's `speed`.
    e!("nvmlDeviceGetFanSpeedRPM", |c, o, a| c.dev(o)?.fan_speed_rpm(a.u("fan")).map(j)),
    e!("nvmlDeviceGetMinMaxFanSpeed", |c, o, a| c.dev(o)?.min_max_fan_speed().map(|MinMaxFanSpeed { min_speed: x, max_speed: y, .. }| json!([x, y]))),
    // pynvml returns [signalType, target].
    e!("nvmlDeviceGetCoolerInfo", |c, o, a| c.dev(o)?.cooler_info(a.u("index")).map(|v| json!([v.signal_type.0, v.target.0]))),
    e!("nvmlDeviceGetTemperature", faults &["nvmlDeviceGetTemperatureV"], |c, o, a| c.dev(o)?.temperature(TemperatureSensor(a.u("sensor"))).map(j)),
    // pynvml returns the record's `temperature`.
    e!("nvmlDeviceGetTemperatureV", newest, |c, o, a| c.dev(o)?.temperature(TemperatureSensor(a.u("sensor"))).map(j)),
    e!("nvmlDeviceGetTemperatureThreshold", |c, o, a| c.dev(o)?.temperature_threshold(TemperatureThresholds(a.u("threshold"))).map(j)),
    // pynvml returns the record's `marginTemperature`.
    e!("nvmlDeviceGetMarginTemperature", |c, o, a| c.dev(o)?.margin_temperature().map(j)),
    e!("nvmlDeviceGetThermalSettings", |c, o, a| c.dev(o)?.thermal_settings(a.u("sensor"))
        .map(|v| fix(j(v), &[("controller", lk!(ThermalController)), ("target", lk!(ThermalTarget))]))),

    // Power.
    e!("nvmlDeviceGetPowerManagementMode", |c, o, a| c.dev(o)?.power_management_mode().map(|v| j(v as u32))),
    e!("nvmlDeviceGetPowerManagementLimit", |c, o, a| c.dev(o)?.power_management_limit().map(j)),
    e!("nvmlDeviceGetPowerManagementLimitConstraints", |c, o, a| c.dev(o)?.power_management_limit_constraints().map(|PowerManagementLimitConstraints { min_limit: x, max_limit: y, .. }| json!([x, y]))),
    e!("nvmlDeviceGetPowerManagementDefaultLimit", |c, o, a| c.dev(o)?.power_management_default_limit().map(j)),
    e!("nvmlDeviceGetEnforcedPowerLimit", |c, o, a| c.dev(o)?.enforced_power_limit().map(j)),
    e!("nvmlDeviceGetPowerUsage", |c, o, a| c.dev(o)?.power_usage().map(j)),
    e!("nvmlDeviceGetTotalEnergyConsumption", |c, o, a| c.dev(o)?.total_energy_consumption().map(j)),
    e!("nvmlDeviceGetPowerMizerMode_v1", |c, o, a| c.dev(o)?.power_mizer_mode().map(j)),

    // Memory and ECC.
    e!("nvmlDeviceGetMemoryInfo_v2", newest, |c, o, a| c.dev(o)?.memory_info().map(j)),
    e!("nvmlDeviceGetMemoryInfo", faults &["nvmlDeviceGetMemoryInfo_v2"], |c, o, a| c.dev(o)?.memory_info().map(j)),
    e!("nvmlDeviceGetBAR1MemoryInfo", |c, o, a| c.dev(o)?.bar1_memory_info().map(j)),
    e!("nvmlDeviceGetEccMode", |c, o, a| c.dev(o)?.ecc_mode().map(|EccMode { current: x, pending: y, .. }| json!([x as u32, y as u32]))),
    e!("nvmlDeviceGetDefaultEccMode", |c, o, a| c.dev(o)?.default_ecc_mode().map(|v| j(v as u32))),
    e!("nvmlDeviceGetTotalEccErrors", |c, o, a| c.dev(o)?.total_ecc_errors(MemoryErrorType(a.u("error")), EccCounterType(a.u("counter"))).map(j)),
    e!("nvmlDeviceGetDetailedEccErrors", |c, o, a| c.dev(o)?.detailed_ecc_errors(MemoryErrorType(a.u("error")), EccCounterType(a.u("counter"))).map(j)),
    e!("nvmlDeviceGetMemoryErrorCounter", |c, o, a| c.dev(o)?.memory_error_counter(MemoryErrorType(a.u("error")), EccCounterType(a.u("counter")), MemoryLocation(a.u("location"))).map(j)),
    e!("nvmlDeviceGetRetiredPages", |c, o, a| c.dev(o)?.retired_pages(PageRetirementCause(a.u("cause"))).map(j)),
    e!("nvmlDeviceGetRetiredPages_v2", |c, o, a| c.dev(o)?.retired_pages_with_timestamps(PageRetirementCause(a.u("cause"))).map(|RetiredPagesWithTimestamps { addresses: p, timestamps: t, .. }| json!({"addresses": p, "timestamps": t}))),
    e!("nvmlDeviceGetRetiredPagesPendingStatus", |c, o, a| c.dev(o)?.retired_pages_pending_status().map(|v| j(v as u32))),
    e!("nvmlDeviceGetRemappedRows", |c, o, a| c.dev(o)?.remapped_rows().map(|RemappedRows { corr_rows: w, unc_rows: x, is_pending: y, failure_occurred: z, .. }| json!([w, x, y as u32, z as u32]))),
    e!("nvmlDeviceGetRemappedRows_v2", |c, o, a| c.dev(o)?.remapped_rows_detailed().map(j)),
    e!("nvmlDeviceGetRowRemapperHistogram", |c, o, a| c.dev(o)?.row_remapper_histogram().map(j)),
    e!("nvmlDeviceGetBankRemapperStatus_v1", |c, o, a| c.dev(o)?.bank_remapper_status().map(j)),
    e!("nvmlDeviceGetSramEccErrorStatus", |c, o, a| c.dev(o)?.sram_ecc_error_status().map(j)),
    e!("nvmlDeviceGetSramUniqueUncorrectedEccErrorCounts", |c, o, a| c.dev(o)?.sram_unique_uncorrected_ecc_error_counts().map(j)),
    e!("nvmlDeviceGetConfComputeMemSizeInfo", |c, o, a| c.dev(o)?.conf_compute_mem_size_info().map(j)),
    e!("nvmlDeviceGetConfComputeProtectedMemoryUsage", |c, o, a| c.dev(o)?.conf_compute_protected_memory_usage().map(j)),
    e!("nvmlDeviceGetConfComputeGpuCertificate", |c, o, a| c.dev(o)?.conf_compute_gpu_certificate().map(j)),
    e!("nvmlDeviceGetConfComputeGpuAttestationReport", |c, o, a| c.dev(o)?.conf_compute_gpu_attestation_report((0..32).collect()).map(j)),
    // pynvml returns [current.encryptionState, pending.encryptionState].
    e!("nvmlDeviceGetDramEncryptionMode", |c, o, a| c.dev(o)?.dram_encryption_mode().map(|DramEncryptionMode { current: x, pending: y, .. }| json!([x as u32, y as u32]))),

    // Modes.
    e!("nvmlDeviceGetDisplayMode", |c, o, a| c.dev(o)?.display_mode().map(|v| j(v as u32))),
    e!("nvmlDeviceGetDisplayActive", |c, o, a| c.dev(o)?.display_active().map(|v| j(v as u32))),
    e!("nvmlDeviceGetPersistenceMode", |c, o, a| c.dev(o)?.persistence_mode().map(|v| j(v as u32))),
    e!("nvmlDeviceGetComputeMode", |c, o, a| c.dev(o)?.compute_mode().map(|v| j(v.0))),
    e!("nvmlDeviceGetGpuOperationMode", |c, o, a| c.dev(o)?.gpu_operation_mode().map(|GpuOperationModeInfo { current: x, pending: y, .. }| json!([x.0, y.0]))),
    e!("nvmlDeviceGetDriverModel_v2", newest, |c, o, a| c.dev(o)?.driver_model().map(|DriverModelInfo { current: x, pending: y, .. }| json!([x.0, y.0]))),
    e!("nvmlDeviceGetDriverModel", faults &["nvmlDeviceGetDriverModel_v2"], |c, o, a| c.dev(o)?.driver_model().map(|DriverModelInfo { current: x, pending: y, .. }| json!([x.0, y.0]))),
    e!("nvmlDeviceGetAccountingMode", |c, o, a| c.dev(o)?.accounting_mode().map(|v| j(v as u32))),
    e!("nvmlDeviceGetAccountingBufferSize", |c, o, a| c.dev(o)?.accounting_buffer_size().map(j)),
    e!("nvmlDeviceGetAccountingPids", |c, o, a| c.dev(o)?.accounting_pids().map(j)),
    e!("nvmlDeviceGetAccountingStats", faults &["nvmlDeviceGetAccountingStats_v2"], |c, o, a| c.dev(o)?.accounting_stats(a.u("pid")).map(j)),
    e!("nvmlDeviceGetAccountingStats_v2", newest, |c, o, a| c.dev(o)?.accounting_stats(a.u("pid")).map(j)),
    e!("nvmlDeviceGetAPIRestriction", |c, o, a| c.dev(o)?.api_restriction(RestrictedAPI(a.u("api"))).map(|v| j(v as u32))),
    e!("nvmlDeviceGetVirtualizationMode", |c, o, a| c.dev(o)?.virtualization_mode().map(|v| j(v.0))),
    e!("nvmlDeviceGetHostVgpuMode", |c, o, a| c.dev(o)?.host_vgpu_mode().map(|v| j(v.0))),
    // pynvml returns the record's `mode`.
    e!("nvmlDeviceGetVgpuHeterogeneousMode", |c, o, a| c.dev(o)?.vgpu_heterogeneous_mode().map(|v| j(v.mode))),
    e!("nvmlDeviceGetMigMode", |c, o, a| c.dev(o)?.mig_mode().map(|MigMode { current_mode: x, pending_mode: y, .. }| json!([x as u32, y as u32]))),
    e!("nvmlDeviceIsMigDeviceHandle", |c, o, a| c.dev(o)?.is_mig_device_handle().map(|v| j(v as u32))),
    e!("nvmlDeviceGetGpuInstanceId", |c, o, a| c.dev(o)?.gpu_instance_id().map(j)),
    e!("nvmlDeviceGetComputeInstanceId", |c, o, a| c.dev(o)?.compute_instance_id().map(j)),
    e!("nvmlDeviceGetMaxMigDeviceCount", |c, o, a| c.dev(o)?.max_mig_device_count().map(j)),
    e!("nvmlDeviceGetAttributes_v2", newest, |c, o, a| c.dev(o)?.attributes().map(j)),
    e!("nvmlDeviceGetCapabilities", |c, o, a| c.dev(o)?.capabilities().map(j)),
    e!("nvmlDeviceGetPlatformInfo", |c, o, a| c.dev(o)?.platform_info().map(j)),
    // pynvml returns the record's `value`, [bChannelRepairPending, bTpcRepairPending], `value`
    // and the flag.
    e!("nvmlDeviceGetPdi", |c, o, a| c.dev(o)?.pdi().map(|v| j(v.value))),
    e!("nvmlDeviceGetRepairStatus", |c, o, a| c.dev(o)?.repair_status().map(|v| json!([v.b_channel_repair_pending, v.b_tpc_repair_pending]))),
    e!("nvmlDeviceGetHostname_v1", |c, o, a| c.dev(o)?.hostname().map(|v| j(v.value))),
    e!("nvmlDeviceGetUnrepairableMemoryFlag_v1", |c, o, a| c.dev(o)?.unrepairable_memory_flag().map(|v| j(v.b_unrepairable_memory))),
    e!("nvmlDeviceGetBBXTimeData_v1", |c, o, a| c.dev(o)?.bbx_time_data().map(j)),
    e!("nvmlDeviceGetLastBBXFlushTime", |c, o, a| c.dev(o)?.last_bbx_flush_time().map(|LastBbxFlushTime { timestamp: x, duration_us: y, .. }| json!([x, y]))),
    e!("nvmlDeviceGetAdaptiveTgpModeInfo_v1", |c, o, a| c.dev(o)?.adaptive_tgp_mode_info().map(|v| fix(j(v), &[
        ("inBandEnableRequest", lk!(EnableState)), ("featureAllowedByAdmin", lk!(EnableState)),
        ("adminOverrideEnabled", lk!(EnableState)), ("enablementStatus", lk!(EnableState))]))),
    e!("nvmlDeviceGetBridgeChipInfo", |c, o, a| c.dev(o)?.bridge_chip_info().map(|v| fix(j(v), &[("type", lk!(BridgeChipType))]))),
    e!("nvmlDeviceGetGridLicensableFeatures_v4", newest, |c, o, a| c.dev(o)?.grid_licensable_features().map(|v| fix(j(v), &[("feature_code", lk!(GridLicenseFeatureCode))]))),
    e!("nvmlDeviceWorkloadPowerProfileGetProfilesInfo", |c, o, a| c.dev(o)?.workload_power_profiles_info().map(j)),
    e!("nvmlDeviceWorkloadPowerProfileGetCurrentProfiles", |c, o, a| c.dev(o)?.workload_power_profile_current_profiles().map(j)),
    e!("nvmlDeviceGetGpuFabricInfo_v4", newest, |c, o, a| c.dev(o)?.gpu_fabric_info().map(|v| fix(j(v), &[("status", lk!(Return))]))),
    e!("nvmlDeviceGetGpuFabricInfoV", newest, faults &["nvmlDeviceGetGpuFabricInfo_v4"], |c, o, a| c.dev(o)?.gpu_fabric_info().map(|v| legacy_clique(fix(j(v), &[("status", lk!(Return))])))),
    e!("nvmlDeviceGetGpuFabricInfo", faults &["nvmlDeviceGetGpuFabricInfo_v4", "nvmlDeviceGetGpuFabricInfoV"], |c, o, a| c.dev(o)?.gpu_fabric_info().map(|v| legacy_clique(fix(j(v), &[("status", lk!(Return))])))),
    e!("nvmlDevicePerfMetricsGetSamples_v1", |c, o, a| c.dev(o)?.perf_metrics_samples().map(j)),

    // Utilisation and processes.
    e!("nvmlDeviceGetUtilizationRates", |c, o, a| c.dev(o)?.utilization_rates().map(j)),
    e!("nvmlDeviceGetEncoderUtilization", |c, o, a| c.dev(o)?.encoder_utilization().map(|EncoderUtilization { utilization: x, sampling_period_us: y, .. }| json!([x, y]))),
    e!("nvmlDeviceGetDecoderUtilization", |c, o, a| c.dev(o)?.decoder_utilization().map(|DecoderUtilization { utilization: x, sampling_period_us: y, .. }| json!([x, y]))),
    e!("nvmlDeviceGetJpgUtilization", |c, o, a| c.dev(o)?.jpg_utilization().map(|JpgUtilization { utilization: x, sampling_period_us: y, .. }| json!([x, y]))),
    e!("nvmlDeviceGetOfaUtilization", |c, o, a| c.dev(o)?.ofa_utilization().map(|OfaUtilization { utilization: x, sampling_period_us: y, .. }| json!([x, y]))),
    e!("nvmlDeviceGetEncoderCapacity", |c, o, a| c.dev(o)?.encoder_capacity(EncoderType(a.u("query"))).map(j)),
    // The header's three out-parameters: sessionCount, averageFps, averageLatency.
    e!("nvmlDeviceGetEncoderStats", |c, o, a| c.dev(o)?.encoder_stats().map(|EncoderStats { session_count: x, average_fps: y, average_latency: z, .. }| json!([x, y, z]))),
    e!("nvmlDeviceGetEncoderSessions", |c, o, a| c.dev(o)?.encoder_sessions().map(|v| fix(j(v), &[("codec_type", lk!(EncoderType))]))),
    e!("nvmlDeviceGetFBCStats", |c, o, a| c.dev(o)?.fbc_stats().map(j)),
    e!("nvmlDeviceGetFBCSessions", |c, o, a| c.dev(o)?.fbc_sessions().map(|v| fix(j(v), &[("session_type", lk!(FBCSessionType))]))),
    e!("nvmlDeviceGetComputeRunningProcesses_v3", newest, |c, o, a| c.dev(o)?.running_compute_processes().map(j)),
    e!("nvmlDeviceGetComputeRunningProcesses_v2", faults &["nvmlDeviceGetComputeRunningProcesses_v3"], |c, o, a| c.dev(o)?.running_compute_processes().map(j)),
    e!("nvmlDeviceGetGraphicsRunningProcesses_v3", newest, |c, o, a| c.dev(o)?.running_graphics_processes().map(j)),
    e!("nvmlDeviceGetGraphicsRunningProcesses_v2", faults &["nvmlDeviceGetGraphicsRunningProcesses_v3"], |c, o, a| c.dev(o)?.running_graphics_processes().map(j)),
    e!("nvmlDeviceGetMPSComputeRunningProcesses_v3", newest, |c, o, a| c.dev(o)?.running_mps_compute_processes().map(j)),
    e!("nvmlDeviceGetMPSComputeRunningProcesses_v2", faults &["nvmlDeviceGetMPSComputeRunningProcesses_v3"], |c, o, a| c.dev(o)?.running_mps_compute_processes().map(j)),
    e!("nvmlDeviceGetRunningProcessDetailList", |c, o, a| c.dev(o)?.running_process_detail_list(ProcessMode(a.u("mode"))).map(j)),
    e!("nvmlDeviceGetProcessUtilization", |c, o, a| c.dev(o)?.process_utilization(Some(a.u64("since"))).map(j)),
    e!("nvmlDeviceGetProcessesUtilizationInfo", |c, o, a| c.dev(o)?.processes_utilization_info(a.u64("since")).map(j)),
    e!("nvmlDeviceGetSamples", |c, o, a| c.dev(o)?.samples(SamplingType(a.u("type")), Some(a.u64("since")))
        // The samples' type: what each value was read as (none for no sample, as pynvml_dump.py says).
        .map(|v| json!([v.first().map(|s| s.sample_value.value_type().0), v.iter().map(|s| json!({"timeStamp": s.time_stamp, "sampleValue": j(s.sample_value)})).collect::<Vec<_>>()]))),
    e!("nvmlDeviceGetViolationStatus", |c, o, a| c.dev(o)?.violation_status(PerfPolicyType(a.u("policy"))).map(j)),
    e!("nvmlDeviceGetSupportedEventTypes", |c, o, a| c.dev(o)?.supported_event_types().map(|v| j(v.bits()))),
    e!("nvmlDeviceGetFieldValues", |c, o, a| {
        // pynvml sends its numbers as they are, which the driver reads in its own numbering;
        // nvmlkit's FieldIds are 13.5.37's and are sent by the driver's number. So the fields
        // pynvml's numbers name on this driver, and the answers' ids back in its numbering.
        let n = c.nvml.field_numbering();
        let raw = a.list("fieldIds");
        let ids: Vec<FieldId> = raw.iter().map(|&r| FieldId(n.from_driver(r).unwrap_or(r))).collect();
        let driver_ids = |f: &Result<FieldValue, Error>, r: u32| {
            f.clone().map(|mut v| {
                v.field_id = FieldId(n.to_driver(v.field_id.0).unwrap_or(r));
                v
            })
        };
        c.dev(o)?.field_values(&ids).map(|v| {
            J::Array(v.iter().zip(&raw).map(|(f, &r)| field_json(FieldId(r), &driver_ids(f, r))).collect())
        })
    }),
    e!("nvmlDeviceGetNvLinkState", |c, o, a| c.dev(o)?.nvlink_state(a.u("link")).map(|v| j(v as u32))),
    e!("nvmlDeviceGetNvLinkVersion", |c, o, a| c.dev(o)?.nvlink_version(a.u("link")).map(|v| j(v.0))),
    e!("nvmlDeviceGetNvLinkRemotePciInfo_v2", newest, |c, o, a| c.dev(o)?.nvlink_remote_pci_info(a.u("link")).map(j)),
    e!("nvmlDeviceGetNvLinkRemoteDeviceType", |c, o, a| c.dev(o)?.nvlink_remote_device_type(a.u("link")).map(|v| j(v.0))),
    e!("nvmlDeviceGetNvLinkCapability", |c, o, a| c.dev(o)?.nvlink_capability(a.u("link"), NvLinkCapability(a.u("capability"))).map(|v| j(v as u32))),
    e!("nvmlDeviceGetNvLinkErrorCounter", |c, o, a| c.dev(o)?.nvlink_error_counter(a.u("link"), NvLinkErrorCounter(a.u("counter"))).map(j)),
    e!("nvmlDeviceGetNvLinkUtilizationControl", |c, o, a| c.dev(o)?.nvlink_utilization_control(a.u("link"), a.u("counter"))
        .map(|v| fix(j(v), &[("units", lk!(NvLinkUtilizationCountUnits)), ("pktfilter", lk!(NvLinkUtilizationCountPktTypes))]))),
    e!("nvmlDeviceGetNvLinkUtilizationCounter", |c, o, a| c.dev(o)?.nvlink_utilization_counter(a.u("link"), a.u("counter")).map(|NvlinkUtilizationCounter { rxcounter: x, txcounter: y, .. }| json!([x, y]))),
    e!("nvmlDeviceGetNvLinkInfo", faults &["nvmlDeviceGetNvLinkInfo_v3"], |c, o, a| c.dev(o)?.nvlink_info().map(j)),
    e!("nvmlDeviceGetNvlinkSupportedBwModes", |c, o, a| c.dev(o)?.nvlink_supported_bw_modes().map(j)),
    e!("nvmlDeviceGetNvlinkBwMode", |c, o, a| c.dev(o)?.nvlink_bw_mode().map(j)),

    // Pairs of devices and topology.
    e!("nvmlDeviceOnSameBoard", |c, o, a| c.dev(o)?.on_same_board(&c.dev_arg(a, "device2")?).map(j)),
    e!("nvmlDeviceGetTopologyCommonAncestor", |c, o, a| c.dev(o)?.topology_common_ancestor(&c.dev_arg(a, "device2")?).map(|v| j(v.0))),
    e!("nvmlDeviceGetP2PStatus", |c, o, a| c.dev(o)?.p2p_status(&c.dev_arg(a, "device2")?, GpuP2PCapsIndex(a.u("index"))).map(|v| j(v.0))),
    e!("nvmlDeviceGetTopologyNearestGpus", |c, o, a| c.dev(o)?.topology_nearest_gpus(GpuTopologyLevel(a.u("level"))).map(dtoks)),

    // GPM.
    e!("nvmlGpmQueryDeviceSupport", |c, o, a| c.dev(o)?.gpm_support().map(j)),
    e!("nvmlGpmQueryIfStreamingEnabled", |c, o, a| c.dev(o)?.gpm_streaming_enabled().map(j)),
    e!("nvmlGpmSampleAlloc", |c, o, a| c.nvml.gpm_sample_alloc().map(|s| { c.gpm.borrow_mut().insert(o.to_string(), s.into_owned()); json!("handle") })),
    e!("nvmlGpmSampleGet", |c, o, a| c.with_gpm(a.s("sample"), |s| c.dev(o)?.gpm_sample(s)).map(|_| json!("handle"))),
    e!("nvmlGpmMigSampleGet", |c, o, a| c.with_gpm(a.s("sample"), |s| c.dev(o)?.gpm_mig_sample(a.u("gpuInstanceId"), s)).map(|_| json!("handle"))),
    e!("nvmlGpmMetricsGet", |c, o, a| {
        let ids: Vec<GpmMetricId> = a.list("metrics").into_iter().map(GpmMetricId).collect();
        c.with_gpm("gpm/0", |s1| c.with_gpm("gpm/1", |s2| c.nvml.gpm_metrics_get(s1, s2, &ids))).map(|v| J::Array(v.iter().map(|m| json!({
            "metricId": m.id.0, "nvmlReturn": m.value.as_ref().err().map_or(0, |e| e.code()), "value": m.value.as_ref().ok()})).collect()))
    }),
    e!("nvmlGpmSampleFree", |c, o, a| { let s = c.gpm.borrow_mut().remove(o).expect("allocated"); s.free().map(|_| J::Null) }),

    // MIG: GPU instances and compute instances.
    e!("nvmlDeviceGetGpuInstanceProfileInfoV", newest, |c, o, a| c.dev(o)?.gpu_instance_profile_info(GpuInstanceProfile(a.u("profile"))).map(j)),
    e!("nvmlDeviceGetGpuInstanceProfileInfo", faults &["nvmlDeviceGetGpuInstanceProfileInfoV"], |c, o, a| c.dev(o)?.gpu_instance_profile_info(GpuInstanceProfile(a.u("profile"))).map(j)),
    e!("nvmlDeviceGetGpuInstanceProfileInfoByIdV", |c, o, a| c.dev(o)?.gpu_instance_profile_info_by_id(a.u("profileId")).map(j)),
    e!("nvmlDeviceGetGpuInstanceRemainingCapacity", |c, o, a| c.dev(o)?.gpu_instance_remaining_capacity(a.u("profileId")).map(j)),
    e!("nvmlDeviceGetGpuInstancePossiblePlacements_v2", newest, |c, o, a| c.dev(o)?.gpu_instance_possible_placements(a.u("profileId")).map(j)),
    e!("nvmlDeviceGetGpuInstances", |c, o, a| c.dev(o)?.gpu_instances(a.u("profileId"))?.iter().map(gitok).collect::<Result<Vec<_>, _>>().map(J::Array)),
    e!("nvmlDeviceGetGpuInstanceById", |c, o, a| gitok(&c.dev(o)?.gpu_instance_by_id(a.u("id"))?)),
    e!("nvmlGpuInstanceGetInfo", |c, o, a| c.gi(o)?.info().map(|v| with(j(&v), &[("device", c.raw_dev(v.device))]))),
    e!("nvmlGpuInstanceGetComputeInstanceProfileInfoV", newest, |c, o, a| c.gi(o)?.compute_instance_profile_info(ComputeInstanceProfile(a.u("profile")), ComputeInstanceEngineProfile(a.u("engine"))).map(j)),
    e!("nvmlGpuInstanceGetComputeInstanceProfileInfo", faults &["nvmlGpuInstanceGetComputeInstanceProfileInfoV"], |c, o, a| c.gi(o)?.compute_instance_profile_info(ComputeInstanceProfile(a.u("profile")), ComputeInstanceEngineProfile(a.u("engine"))).map(j)),
    e!("nvmlGpuInstanceGetComputeInstanceRemainingCapacity", |c, o, a| c.gi(o)?.compute_instance_remaining_capacity(a.u("profileId")).map(j)),
    e!("nvmlGpuInstanceGetComputeInstancePossiblePlacements", |c, o, a| c.gi(o)?.compute_instance_possible_placements(a.u("profileId")).map(j)),
    e!("nvmlGpuInstanceGetComputeInstances", |c, o, a| c.gi(o)?.compute_instances(a.u("profileId"))?.iter().map(citok).collect::<Result<Vec<_>, _>>().map(J::Array)),
    e!("nvmlGpuInstanceGetComputeInstanceById", |c, o, a| citok(&c.gi(o)?.compute_instance_by_id(a.u("id"))?)),
    e!("nvmlComputeInstanceGetInfo_v2", newest, |c, o, a| c.ci(o)?.info().map(|v| with(j(&v), &[("device", c.raw_dev(v.device)), ("gpuInstance", json!(if v.gpu_instance.is_null() { None } else { Some("handle") }))]))),
    e!("nvmlGpuInstanceGetVgpuHeterogeneousMode", |c, o, a| c.gi(o)?.vgpu_heterogeneous_mode().map(|v| j(v.mode))),
    e!("nvmlGpuInstanceGetVgpuSchedulerState_v2", newest, |c, o, a| c.gi(o)?.vgpu_scheduler_state(VgpuSchedulerEngineType(a.u("engine"))).map(|v| fix(j(v), &[("engine_id", lk!(VgpuSchedulerEngineType))]))),
    e!("nvmlGpuInstanceGetVgpuSchedulerLog_v2", newest, |c, o, a| c.gi(o)?.vgpu_scheduler_log(VgpuSchedulerEngineType(a.u("engine"))).map(|v| fix(j(v), &[("engine_id", lk!(VgpuSchedulerEngineType))]))),
    e!("nvmlGpuInstanceGetCreatableVgpus", |c, o, a| c.gi(o)?.creatable_vgpus().map(|v| json!(v.iter().map(|t| t.as_raw()).collect::<Vec<_>>()))),
    e!("nvmlGpuInstanceGetActiveVgpus", |c, o, a| c.gi(o)?.active_vgpus().map(|v| json!(v.iter().map(|t| t.as_raw()).collect::<Vec<_>>()))),

    // vGPU on the physical GPU.
    e!("nvmlDeviceGetVgpuCapabilities", |c, o, a| c.dev(o)?.vgpu_capabilities(DeviceVgpuCapability(a.u("capability"))).map(j)),
    e!("nvmlDeviceGetSupportedVgpus", |c, o, a| c.dev(o)?.supported_vgpus().map(|v| json!(v.iter().map(|t| t.as_raw()).collect::<Vec<_>>()))),
    e!("nvmlDeviceGetCreatableVgpus", |c, o, a| c.dev(o)?.creatable_vgpus().map(|v| json!(v.iter().map(|t| t.as_raw()).collect::<Vec<_>>()))),
    e!("nvmlDeviceGetActiveVgpus", |c, o, a| c.dev(o)?.active_vgpus().map(|v| json!(v.iter().map(|t| t.as_raw()).collect::<Vec<_>>()))),
    e!("nvmlDeviceGetVgpuSchedulerState", |c, o, a| c.dev(o)?.vgpu_scheduler_state_legacy().map(j)),
    e!("nvmlDeviceGetVgpuSchedulerLog", |c, o, a| c.dev(o)?.vgpu_scheduler_log_legacy().map(j)),
    e!("nvmlDeviceGetVgpuSchedulerCapabilities", |c, o, a| c.dev(o)?.vgpu_scheduler_capabilities().map(j)),
    e!("nvmlDeviceGetVgpuSchedulerState_v2", |c, o, a| c.dev(o)?.vgpu_scheduler_state(VgpuSchedulerEngineType(a.u("engine"))).map(|v| fix(j(v), &[("engine_id", lk!(VgpuSchedulerEngineType))]))),
    e!("nvmlDeviceGetVgpuSchedulerLog_v2", |c, o, a| c.dev(o)?.vgpu_scheduler_log(VgpuSchedulerEngineType(a.u("engine"))).map(|v| fix(j(v), &[("engine_id", lk!(VgpuSchedulerEngineType))]))),
    e!("nvmlDeviceGetPgpuMetadataString", |c, o, a| c.dev(o)?.pgpu_metadata_string().map(j)),
    e!("nvmlDeviceGetVgpuMetadata", |c, o, a| c.dev(o)?.vgpu_metadata().map(|v| j(v.record()))),
    // pynvml returns the samples without their value type.
    e!("nvmlDeviceGetVgpuUtilization", |c, o, a| c.dev(o)?.vgpu_utilization(Some(a.u64("since"))).map(|v|
        J::Array(v.iter().map(|s| json!({"vgpuInstance": s.vgpu_instance, "timeStamp": s.time_stamp, "smUtil": j(s.sm_util),
            "memUtil": j(s.mem_util), "encUtil": j(s.enc_util), "decUtil": j(s.dec_util)})).collect()))),
    e!("nvmlDeviceGetVgpuProcessUtilization", |c, o, a| c.dev(o)?.vgpu_process_utilization(Some(a.u64("since"))).map(j)),
    e!("nvmlDeviceGetVgpuInstancesUtilizationInfo", |c, o, a| c.dev(o)?.vgpu_instances_utilization_info(a.u64("since")).map(j)),
    e!("nvmlDeviceGetVgpuProcessesUtilizationInfo", |c, o, a| c.dev(o)?.vgpu_processes_utilization_info(a.u64("since")).map(j)),
    e!("nvmlVgpuTypeGetMaxInstances", |c, o, a| c.dev(o)?.vgpu_type_max_instances(&VgpuTypeId::from_id(&c.nvml, a.u("type"))).map(j)),
    e!("nvmlDeviceGetVgpuTypeSupportedPlacements", |c, o, a| c.dev(o)?.vgpu_type_supported_placements(&VgpuTypeId::from_id(&c.nvml, a.u("type")), 0).map(j)),
    e!("nvmlDeviceGetVgpuTypeCreatablePlacements", |c, o, a| c.dev(o)?.vgpu_type_creatable_placements(&VgpuTypeId::from_id(&c.nvml, a.u("type")), 0).map(j)),

    // vGPU types.
    e!("nvmlVgpuTypeGetClass", |c, o, a| c.vtype(o).class().map(j)),
    e!("nvmlVgpuTypeGetName", |c, o, a| c.vtype(o).name().map(j)),
    e!("nvmlVgpuTypeGetGpuInstanceProfileId", |c, o, a| c.vtype(o).gpu_instance_profile_id().map(j)),
    e!("nvmlVgpuTypeGetDeviceID", |c, o, a| c.vtype(o).device_id().map(|DeviceId { device_id: x, subsystem_id: y, .. }| json!([x, y]))),
    e!("nvmlVgpuTypeGetFramebufferSize", |c, o, a| c.vtype(o).framebuffer_size().map(j)),
    e!("nvmlVgpuTypeGetNumDisplayHeads", |c, o, a| c.vtype(o).num_display_heads().map(j)),
    e!("nvmlVgpuTypeGetResolution", |c, o, a| c.vtype(o).resolution(a.u("display")).map(|Resolution { xdim: x, ydim: y, .. }| json!([x, y]))),
    e!("nvmlVgpuTypeGetLicense", |c, o, a| c.vtype(o).license().map(j)),
    e!("nvmlVgpuTypeGetFrameRateLimit", |c, o, a| c.vtype(o).frame_rate_limit().map(j)),
    e!("nvmlVgpuTypeGetGspHeapSize", |c, o, a| c.vtype(o).gsp_heap_size().map(j)),
    e!("nvmlVgpuTypeGetFbReservation", |c, o, a| c.vtype(o).fb_reservation().map(j)),
    e!("nvmlVgpuTypeGetMaxInstancesPerVm", |c, o, a| c.vtype(o).max_instances_per_vm().map(j)),
    e!("nvmlVgpuTypeGetBAR1Info", |c, o, a| c.vtype(o).bar1_info().map(j)),
    // pynvml returns the record's `maxInstancePerGI`.
    e!("nvmlVgpuTypeGetMaxInstancesPerGpuInstance", |c, o, a| c.nvml.vgpu_type_max_instances_per_gpu_instance(seg(o, "vgpu-type")).map(j)),
    e!("nvmlVgpuTypeGetCapabilities", |c, o, a| c.vtype(o).capabilities(VgpuCapability(a.u("capability"))).map(|v| j(v as u32))),

    // vGPU instances.
    e!("nvmlVgpuInstanceGetUUID", |c, o, a| c.vgpu(o).uuid().map(j)),
    e!("nvmlVgpuInstanceGetMdevUUID", |c, o, a| c.vgpu(o).mdev_uuid().map(j)),
    e!("nvmlVgpuInstanceGetVmID", |c, o, a| c.vgpu(o).vm_id().map(|VmId { vm_id: s, vm_id_type: t, .. }| json!([s, t.0]))),
    e!("nvmlVgpuInstanceGetVmDriverVersion", |c, o, a| c.vgpu(o).vm_driver_version().map(j)),
    e!("nvmlVgpuInstanceGetFbUsage", |c, o, a| c.vgpu(o).fb_usage().map(j)),
    e!("nvmlVgpuInstanceGetLicenseStatus", |c, o, a| c.vgpu(o).license_status().map(j)),
    e!("nvmlVgpuInstanceGetLicenseInfo_v2", newest, |c, o, a| c.vgpu(o).license_info().map(j)),
    e!("nvmlVgpuInstanceGetType", |c, o, a| c.vgpu(o).r#type().map(|t| j(t.as_raw()))),
    e!("nvmlVgpuInstanceGetFrameRateLimit", |c, o, a| c.vgpu(o).frame_rate_limit().map(j)),
    e!("nvmlVgpuInstanceGetEccMode", |c, o, a| c.vgpu(o).ecc_mode().map(|v| j(v as u32))),
    e!("nvmlVgpuInstanceGetEncoderCapacity", |c, o, a| c.vgpu(o).encoder_capacity().map(j)),
    e!("nvmlVgpuInstanceGetEncoderStats", |c, o, a| c.vgpu(o).encoder_stats().map(|EncoderStats { session_count: x, average_fps: y, average_latency: z, .. }| json!([x, y, z]))),
    e!("nvmlVgpuInstanceGetEncoderSessions", |c, o, a| c.vgpu(o).encoder_sessions().map(j)),
    e!("nvmlVgpuInstanceGetFBCStats", |c, o, a| c.vgpu(o).fbc_stats().map(j)),
    e!("nvmlVgpuInstanceGetFBCSessions", |c, o, a| c.vgpu(o).fbc_sessions().map(j)),
    e!("nvmlVgpuInstanceGetGpuInstanceId", |c, o, a| c.vgpu(o).gpu_instance_id().map(j)),
    e!("nvmlVgpuInstanceGetGpuPciId", |c, o, a| c.vgpu(o).gpu_pci_id().map(j)),
    e!("nvmlVgpuInstanceGetPlacementId", |c, o, a| c.vgpu(o).placement_id().map(|v| j(v.placement_id))),
    e!("nvmlVgpuInstanceGetRuntimeStateSize", |c, o, a| c.vgpu(o).runtime_state_size().map(j)),
    e!("nvmlVgpuInstanceGetMetadata", |c, o, a| c.vgpu(o).metadata().map(|v| fix(j(v.record()), &[("guest_info_state", lk!(VgpuGuestInfoState))]))),
    e!("nvmlVgpuInstanceGetAccountingMode", |c, o, a| c.vgpu(o).accounting_mode().map(|v| j(v as u32))),
    e!("nvmlVgpuInstanceGetAccountingPids", |c, o, a| c.vgpu(o).accounting_pids().map(j)),
    e!("nvmlVgpuInstanceGetAccountingStats", |c, o, a| c.vgpu(o).accounting_stats(a.u("pid")).map(j)),

    // Events.
    e!("nvmlEventSetCreate", |c, o, a| c.nvml.create_event_set().map(|s| { c.events.borrow_mut().insert(o.to_string(), s.into_owned()); json!("handle") })),
    e!("nvmlDeviceRegisterEvents", |c, o, a| c.with_event_set(a.s("set"), |s| c.dev(o)?.register_events(EventTypes::from_bits_retain(a.u64("types")), s)).map(|_| J::Null)),
    e!("nvmlEventSetWait_v2", newest, |c, o, a| c.with_event_set(o, |s| s.wait(a.u("timeout"))).map(|v| with(j(&v), &[("device", c.raw_dev(v.device))]))),
    e!("nvmlEventSetFree", |c, o, a| { let s = c.events.borrow_mut().remove(o).expect("created"); s.free().map(|_| J::Null) }),
    e!("nvmlSystemEventSetCreate", |c, o, a| c.nvml.system_event_set_create().map(|s| { c.sysevents.borrow_mut().insert(o.to_string(), s.into_owned()); json!("handle") })),
    e!("nvmlSystemRegisterEvents", |c, o, a| c.sysevents.borrow().get(o).expect("created").register(SystemEventTypes::from_bits_retain(a.u64("types"))).map(|_| J::Null)),
    e!("nvmlSystemEventSetWait", |c, o, a| c.sysevents.borrow().get(o).expect("created").wait(a.u("timeout"), a.u("max")).map(j)),
    e!("nvmlSystemEventSetFree", |c, o, a| { let s = c.sysevents.borrow_mut().remove(o).expect("created"); s.free().map(|_| J::Null) }),

    // Getters that take a request.
    e!("nvmlDeviceGetMemoryLimits_v1", |c, o, a| c.dev(o)?.memory_limits(a.s("namespace")).map(j)),
    e!("nvmlDeviceReadPRMCounters_v1", |c, o, a| {
        let req: Vec<PRMCounter> = a.list("counters").into_iter()
            .map(|id| { let mut r = PRMCounter::default(); r.counter_id = id; r.in_data.local_port = a.u("port"); r }).collect();
        c.dev(o)?.read_prm_counters(&req).map(|v| J::Array(v.iter().map(|x| { let cv = &x.counter_value; json!({"counterId": x.counter_id,
            "status": cv.status.0, "outputType": cv.output_value.value_type().0, "outputValue": if cv.status == Return::SUCCESS { j(cv.output_value) } else { J::Null }}) }).collect()))
    }),
    // The method takes no input: it sends an empty request (dataSize 0), as pynvml does here.
    e!("nvmlDeviceReadWritePRM_v1", |c, o, a| c.dev(o)?.read_write_prm(&{ let mut v = PRMTLV::default(); v.data_size = a.u("dataSize"); v }).map(j)),
    e!("nvmlSystemGetCPER_v1", |c, o, a| {
        let mut cursor = CperCursor::new(a.u("mask"), None);
        let mut out = Vec::new();
        while let Some(rec) = c.nvml.cper_next(&mut cursor)? {
            out.push(rec);
            if out.len() == 64 { break; }
        }
        Ok(j(out))
    }),

    // Operational events of an event set.
    e!("nvmlEventSetRegisterGpuOperationalEvents_v1", |c, o, a| c.with_event_set(o, |s| s.register_gpu_operational_events(&{ let mut v = GpuOperationalEventConfig::default(); v.uuid = a.s("uuid").to_string(); v.min_log_level = a.u("minLogLevel"); v.min_severity = a.u("minSeverity"); v })).map(|_| J::Null)),
    e!("nvmlEventSetWait_v3", |c, o, a| c.with_event_set(o, |s| s.wait_structured(a.u("timeout"))).map(j)),
    e!("nvmlEventSetGetContextCount_v1", |c, o, a| c.with_event_set(o, |s| s.context_count()).map(j)),
    e!("nvmlEventSetGetContextInfo_v1", |c, o, a| c.with_event_set(o, |s| s.context_info(a.u("index"))).map(j)),
    e!("nvmlEventSetGetGpuOperationalEventContextLegacyXid_v1", |c, o, a| c.with_event_set(o, |s| s.gpu_operational_event_context_legacy_xid(
        a.u("index"))).map(j)),

    // Setters and other calls that change state (each compared by its answer; the getters
    // that read back what they changed are compared after them).
    e!("nvmlSystemSetConfComputeGpusReadyState", |c, o, a| c.nvml.set_conf_compute_gpus_ready_state(a.u("state") != 0).map(|_| J::Null)),
    e!("nvmlSystemSetConfComputeKeyRotationThresholdInfo", |c, o, a| c.nvml.set_conf_compute_key_rotation_threshold_info(&{ let mut v = ConfComputeSetKeyRotationThresholdInfo::default(); v.max_attacker_advantage = a.u64("maxAttackerAdvantage"); v }).map(|_| J::Null)),
    e!("nvmlSystemSetNvlinkBwMode", |c, o, a| c.nvml.set_nvlink_bw_mode(a.u("mode")).map(|_| J::Null)),
    e!("nvmlDeviceSetPersistenceMode", |c, o, a| c.dev(o)?.set_persistence_mode(a.u("mode") != 0).map(|_| J::Null)),
    e!("nvmlDeviceSetComputeMode", |c, o, a| c.dev(o)?.set_compute_mode(ComputeMode(a.u("mode"))).map(|_| J::Null)),
    e!("nvmlDeviceSetEccMode", |c, o, a| c.dev(o)?.set_ecc_mode(a.u("mode") != 0).map(|_| J::Null)),
    e!("nvmlDeviceClearEccErrorCounts", |c, o, a| c.dev(o)?.clear_ecc_error_counts(EccCounterType(a.u("counter"))).map(|_| J::Null)),
    e!("nvmlDeviceSetAutoBoostedClocksEnabled", |c, o, a| c.dev(o)?.set_auto_boosted_clocks_enabled(a.u("enabled") != 0).map(|_| J::Null)),
    e!("nvmlDeviceSetDefaultAutoBoostedClocksEnabled", |c, o, a| c.dev(o)?.set_default_auto_boosted_clocks_enabled(a.u("enabled") != 0, a.u("flags")).map(|_| J::Null)),
    e!("nvmlDeviceSetGpuLockedClocks", |c, o, a| c.dev(o)?.set_gpu_locked_clocks(a.u("min"), a.u("max")).map(|_| J::Null)),
    e!("nvmlDeviceResetGpuLockedClocks", |c, o, a| c.dev(o)?.reset_gpu_locked_clocks().map(|_| J::Null)),
    e!("nvmlDeviceSetMemoryLockedClocks", |c, o, a| c.dev(o)?.set_memory_locked_clocks(a.u("min"), a.u("max")).map(|_| J::Null)),
    e!("nvmlDeviceResetMemoryLockedClocks", |c, o, a| c.dev(o)?.reset_memory_locked_clocks().map(|_| J::Null)),
    e!("nvmlDeviceSetApplicationsClocks", |c, o, a| c.dev(o)?.set_applications_clocks(a.u("memory"), a.u("graphics")).map(|_| J::Null)),
    e!("nvmlDeviceResetApplicationsClocks", |c, o, a| c.dev(o)?.reset_applications_clocks().map(|_| J::Null)),
    e!("nvmlDeviceSetPowerManagementLimit", |c, o, a| c.dev(o)?.set_power_management_limit(a.u("limit")).map(|_| J::Null)),
    e!("nvmlDeviceSetPowerManagementLimit_v2", |c, o, a| c.dev(o)?.set_power_management_limit_of_scope(&{ let mut v = PowerValue::default(); v.power_scope = a.u("scope") as u8; v.power_value_mw = a.u("limit"); v }).map(|_| J::Null)),
    e!("nvmlDeviceSetGpuOperationMode", |c, o, a| c.dev(o)?.set_gpu_operation_mode(GpuOperationMode(a.u("mode"))).map(|_| J::Null)),
    e!("nvmlDeviceSetAccountingMode", |c, o, a| c.dev(o)?.set_accounting_mode(a.u("mode") != 0).map(|_| J::Null)),
    e!("nvmlDeviceClearAccountingPids", |c, o, a| c.dev(o)?.clear_accounting_pids().map(|_| J::Null)),
    e!("nvmlDeviceSetAPIRestriction", |c, o, a| c.dev(o)?.set_api_restriction(RestrictedAPI(a.u("api")), a.u("restricted") != 0).map(|_| J::Null)),
    // The method has no parameter for the temperature to set (`temp` is read as an output).
    e!("nvmlDeviceSetTemperatureThreshold", |c, o, a| c.dev(o)?.set_temperature_threshold(TemperatureThresholds(a.u("threshold")), a.get_i32("temp")).map(|_| J::Null)),
    e!("nvmlDeviceSetDefaultFanSpeed_v2", |c, o, a| c.dev(o)?.set_default_fan_speed(a.u("fan")).map(|_| J::Null)),
    e!("nvmlDeviceSetFanControlPolicy", |c, o, a| c.dev(o)?.set_fan_control_policy(a.u("fan"), FanControlPolicy(a.u("policy"))).map(|_| J::Null)),
    e!("nvmlDeviceSetFanSpeed_v2", |c, o, a| c.dev(o)?.set_fan_speed(a.u("fan"), a.u("speed")).map(|_| J::Null)),
    e!("nvmlDeviceSetCpuAffinity", |c, o, a| c.dev(o)?.set_cpu_affinity().map(|_| J::Null)),
    e!("nvmlDeviceClearCpuAffinity", |c, o, a| c.dev(o)?.clear_cpu_affinity().map(|_| J::Null)),
    e!("nvmlDeviceSetGpcClkVfOffset", |c, o, a| c.dev(o)?.set_gpc_clock_vf_offset(a.get_i32("offset")).map(|_| J::Null)),
    e!("nvmlDeviceSetMemClkVfOffset", |c, o, a| c.dev(o)?.set_mem_clock_vf_offset(a.get_i32("offset")).map(|_| J::Null)),
    e!("nvmlDeviceSetVirtualizationMode", |c, o, a| c.dev(o)?.set_virtualization_mode(GpuVirtualizationMode(a.u("mode"))).map(|_| J::Null)),
    e!("nvmlDeviceSetVgpuCapabilities", |c, o, a| c.dev(o)?.set_vgpu_capabilities(DeviceVgpuCapability(a.u("capability")), a.u("state") != 0).map(|_| J::Null)),
    e!("nvmlDeviceSetVgpuHeterogeneousMode", |c, o, a| c.dev(o)?.set_vgpu_heterogeneous_mode(&{ let mut v = VgpuHeterogeneousMode::default(); v.mode = a.u("mode"); v }).map(|_| J::Null)),
    e!("nvmlDeviceValidateInforom", |c, o, a| c.dev(o)?.validate_inforom().map(|_| J::Null)),
    e!("nvmlDeviceSetConfComputeUnprotectedMemSize", |c, o, a| c.dev(o)?.set_conf_compute_unprotected_mem_size(a.u64("sizeKiB")).map(|_| J::Null)),
    e!("nvmlDeviceSetNvLinkDeviceLowPowerThreshold", |c, o, a| c.dev(o)?.set_nvlink_device_low_power_threshold(&{ let mut v = NvLinkPowerThres::default(); v.low_pwr_threshold = a.u("threshold"); v }).map(|_| J::Null)),
    e!("nvmlGpmSetStreamingEnabled", |c, o, a| c.dev(o)?.set_gpm_streaming_enabled(a.u("state") != 0).map(|_| J::Null)),
    e!("nvmlDeviceSetAdaptiveTgpMode_v1", |c, o, a| c.dev(o)?.set_adaptive_tgp_mode(a.u("mode") != 0).map(|_| J::Null)),
    e!("nvmlDeviceSetHostname_v1", |c, o, a| c.dev(o)?.set_hostname(&{ let mut v = Hostname::default(); v.value = a.s("hostname").to_string(); v }).map(|_| J::Null)),
    e!("nvmlDeviceSetDramEncryptionMode", |c, o, a| c.dev(o)?.set_dram_encryption_mode(&{ let mut v = DramEncryptionInfo::default(); v.encryption_state = a.u("mode") != 0; v }).map(|_| J::Null)),
    e!("nvmlDeviceSetMemoryLimits_v1", |c, o, a| c.dev(o)?.set_memory_limits(a.s("namespace"), &MemoryLimits { soft_limit: a.u64("soft"), hard_limit: a.u64("hard"), ..Default::default() }).map(|_| J::Null)),
    e!("nvmlDeviceResetNvLinkErrorCounters", |c, o, a| c.dev(o)?.reset_nvlink_error_counters(a.u("link")).map(|_| J::Null)),
    e!("nvmlDeviceFreezeNvLinkUtilizationCounter", |c, o, a| c.dev(o)?.freeze_nvlink_utilization_counter(a.u("link"), a.u("counter"), a.u("freeze") != 0).map(|_| J::Null)),
    e!("nvmlDeviceResetNvLinkUtilizationCounter", |c, o, a| c.dev(o)?.reset_nvlink_utilization_counter(a.u("link"), a.u("counter")).map(|_| J::Null)),
    e!("nvmlDeviceSetNvLinkUtilizationControl", |c, o, a| c.dev(o)?.set_nvlink_utilization_control(a.u("link"), a.u("counter"),
        &{ let mut v = NvLinkUtilizationControl::default(); v.units = NvLinkUtilizationCountUnits(a.u("units")); v.pktfilter = NvLinkUtilizationCountPktTypes(a.u("pktfilter")); v }, a.u("reset") != 0).map(|_| J::Null)),
    e!("nvmlDeviceClearFieldValues", |c, o, a| c.dev(o)?.clear_field_values(&a.list("fieldIds").into_iter().map(|id| { let mut v = FieldValue::default(); v.field_id = FieldId(id); v }).collect::<Vec<_>>())
        .map(|v| J::Array(v.iter().map(|f| field_json(f.field_id, &Error::from_code(f.nvml_return.0).map_or(Ok(f.clone()), Err))).collect()))),
    e!("nvmlDeviceQueryDrainState", |c, o, a| c.nvml.drain_state(&c.dev(o)?.pci_info()?).map(|v| j(v as u32))),
    e!("nvmlDeviceModifyDrainState", |c, o, a| c.nvml.set_drain_state(&c.dev(o)?.pci_info()?, a.u("state") != 0).map(|_| J::Null)),
    e!("nvmlDeviceDiscoverGpus", |c, o, a| c.nvml.discover_gpus(&c.dev(o)?.pci_info()?).map(|_| J::Null)),
    e!("nvmlDeviceSetMigMode", |c, o, a| c.dev(o)?.set_mig_mode(a.u("mode") != 0).map(|v| j(v.0))),
    e!("nvmlDeviceCreateGpuInstance", |c, o, a| gitok(&c.dev(o)?.create_gpu_instance(a.u("profileId"))?)),
    e!("nvmlGpuInstanceCreateComputeInstance", |c, o, a| citok(&c.gi(o)?.create_compute_instance(a.u("profileId"))?)),
    e!("nvmlComputeInstanceDestroy", |c, o, a| c.ci(o)?.destroy().map(|_| J::Null)),
    e!("nvmlGpuInstanceDestroy", |c, o, a| c.gi(o)?.destroy().map(|_| J::Null)),
    e!("nvmlDeviceSetClockOffsets", |c, o, a| c.dev(o)?.set_clock_offsets(&{ let mut v = ClockOffset::default(); v.r#type = ClockType(a.u("type")); v.pstate = Pstates(a.u("pstate")); v.clock_offset_m_hz = a.get_i32("offset"); v }).map(|_| J::Null)),
    e!("nvmlDeviceSetPowerMizerMode_v1", |c, o, a| c.dev(o)?.set_power_mizer_mode(&{ let mut v = DevicePowerMizerModes::default(); v.mode = a.u("mode"); v }).map(|_| J::Null)),
    e!("nvmlDeviceSetDriverModel", |c, o, a| c.dev(o)?.set_driver_model(DriverModel(a.u("model")), a.u("flags")).map(|_| J::Null)),
    e!("nvmlDeviceSetVgpuSchedulerState", |c, o, a| c.dev(o)?.set_vgpu_scheduler_state_legacy(&{ let mut v = VgpuSchedulerSetState::default(); v.scheduler_policy = a.u("policy"); v }).map(|_| J::Null)),
    e!("nvmlDeviceSetVgpuSchedulerState_v2", |c, o, a| c.dev(o)?.set_vgpu_scheduler_state(&{ let mut v = VgpuSchedulerState::default(); v.engine_id = VgpuSchedulerEngineType(a.u("engine")); v.scheduler_policy = a.u("policy"); v }).map(|_| J::Null)),
    e!("nvmlDeviceVgpuForceGspUnload", |c, o, a| c.dev(o)?.vgpu_force_gsp_unload().map(|_| J::Null)),
    e!("nvmlDeviceWorkloadPowerProfileSetRequestedProfiles", |c, o, a| c.dev(o)?.workload_power_profile_set_requested_profiles(&requested_profiles(a.u("mask0"))).map(|_| J::Null)),
    e!("nvmlDeviceWorkloadPowerProfileClearRequestedProfiles", |c, o, a| c.dev(o)?.workload_power_profile_clear_requested_profiles(&requested_profiles(a.u("mask0"))).map(|_| J::Null)),
    e!("nvmlDeviceWorkloadPowerProfileUpdateProfiles_v1", |c, o, a| c.dev(o)?.workload_power_profile_update_profiles(&{ let mut v = WorkloadPowerProfileUpdateProfiles::default(); v.operation = PowerProfileOperation(a.u("operation")); v.update_profiles_mask = mask255(a.u("mask0")); v }).map(|_| J::Null)),
    e!("nvmlDevicePowerSmoothingActivatePresetProfile", |c, o, a| c.dev(o)?.power_smoothing_activate_preset_profile(&{ let mut v = PowerSmoothingProfile::default(); v.profile_id = a.u("profile"); v }).map(|_| J::Null)),
    e!("nvmlDevicePowerSmoothingUpdatePresetProfileParam", |c, o, a| c.dev(o)?.power_smoothing_update_preset_profile_param(&{ let mut v = PowerSmoothingProfile::default(); v.profile_id = a.u("profile"); v.param_id = a.u("param"); v.value = a.f64("value"); v }).map(|_| J::Null)),
    e!("nvmlDevicePowerSmoothingSetState", |c, o, a| c.dev(o)?.power_smoothing_set_state(&{ let mut v = PowerSmoothingState::default(); v.state = a.u("state") != 0; v }).map(|_| J::Null)),
    e!("nvmlDeviceSetRusdSettings_v1", |c, o, a| c.dev(o)?.set_rusd_settings(&{ let mut v = RusdSettings::default(); v.poll_mask = a.u64("pollMask"); v }).map(|_| J::Null)),
    e!("nvmlDeviceSetNvlinkBwMode", |c, o, a| c.dev(o)?.set_nvlink_bw_mode(&{ let mut v = NvlinkSetBwMode::default(); v.b_set_best = a.u("best") != 0; v.bw_mode = a.u("mode") as u8; v }).map(|_| J::Null)),
    e!("nvmlDeviceSetNvlinkBwModeAsync_v1", |c, o, a| c.dev(o)?.set_nvlink_bw_mode_async(a.u("best") != 0, a.u("mode")).map(j)),
    e!("nvmlSetVgpuVersion", |c, o, a| c.nvml.set_vgpu_version(&{ let mut v = VgpuVersion::default(); v.min_version = a.u("min"); v.max_version = a.u("max"); v }).map(|_| J::Null)),
    e!("nvmlVgpuInstanceClearAccountingPids", |c, o, a| c.vgpu(o).clear_accounting_pids().map(|_| J::Null)),
    e!("nvmlVgpuInstanceSetEncoderCapacity", |c, o, a| c.vgpu(o).set_encoder_capacity(a.u("capacity")).map(|_| J::Null)),
    e!("nvmlGpuInstanceGetVgpuSchedulerState", faults &["nvmlGpuInstanceGetVgpuSchedulerState_v2"], |c, o, a| c.gi(o)?.vgpu_scheduler_state(VgpuSchedulerEngineType(a.u("engine"))).map(|v| fix(j(v), &[("engine_id", lk!(VgpuSchedulerEngineType))]))),
    e!("nvmlGpuInstanceGetVgpuSchedulerLog", faults &["nvmlGpuInstanceGetVgpuSchedulerLog_v2"], |c, o, a| c.gi(o)?.vgpu_scheduler_log(VgpuSchedulerEngineType(a.u("engine"))).map(|v| fix(j(v), &[("engine_id", lk!(VgpuSchedulerEngineType))]))),
    e!("nvmlGpuInstanceGetVgpuTypeCreatablePlacements", |c, o, a| c.gi(o)?.vgpu_type_creatable_placements(&VgpuTypeId::from_id(&c.nvml, a.u("type"))).map(j)),
    e!("nvmlGpuInstanceSetVgpuHeterogeneousMode", |c, o, a| c.gi(o)?.set_vgpu_heterogeneous_mode(&{ let mut v = VgpuHeterogeneousMode::default(); v.mode = a.u("mode"); v }).map(|_| J::Null)),
    e!("nvmlGpuInstanceSetVgpuSchedulerState", |c, o, a| c.gi(o)?.set_vgpu_scheduler_state_legacy(&{ let mut v = VgpuSchedulerState::default(); v.engine_id = VgpuSchedulerEngineType(a.u("engine")); v.scheduler_policy = a.u("policy"); v }).map(|_| J::Null)),
    e!("nvmlGpuInstanceSetVgpuSchedulerState_v2", |c, o, a| c.gi(o)?.set_vgpu_scheduler_state(&{ let mut v = VgpuSchedulerState::default(); v.engine_id = VgpuSchedulerEngineType(a.u("engine")); v.scheduler_policy = a.u("policy"); v }).map(|_| J::Null)),
    e!("nvmlDeviceCreateGpuInstanceWithPlacement", |c, o, a| gitok(&c.dev(o)?.create_gpu_instance_with_placement(a.u("profileId"), &{ let mut v = GpuInstancePlacement::default(); v.start = a.u("start"); v.size = a.u("size"); v })?)),
    e!("nvmlGpuInstanceCreateComputeInstanceWithPlacement", |c, o, a| citok(&c.gi(o)?.create_compute_instance_with_placement(a.u("profileId"), &{ let mut v = ComputeInstancePlacement::default(); v.start = a.u("start"); v.size = a.u("size"); v })?)),
    e!("nvmlEventSetGetContextData_v1", |c, o, a| c.with_event_set(o, |s| s.context_data(a.u("index"))).map(j)),
    e!("nvmlDeviceGetNvLinkTelemetrySamples_v1", |c, o, a| c.dev(o)?.nvlink_telemetry_samples(&[NvlinkTelemetryRequest { link_id: a.u("link"), sample_type: NvlinkTelemetrySampleType(a.u("type")) }])
        .map(|v| J::Array(v.iter().map(|t| json!({"linkId": t.request.link_id, "sampleType": t.request.sample_type.0,
            "nvmlReturn": t.samples.as_ref().err().map_or(0, |e| e.code()), "samples": t.samples.as_ref().ok()})).collect()))),
];

/// A `nvmlMask255_t` with its first word set.
fn mask255(word0: u32) -> Mask255 {
    let mut mask = vec![0; 8];
    mask[0] = word0;
    {
        let mut v = Mask255::default();
        v.mask = mask;
        v
    }
}

fn requested_profiles(word0: u32) -> WorkloadPowerProfileRequestedProfiles {
    {
        let mut v = WorkloadPowerProfileRequestedProfiles::default();
        v.requested_profiles_mask = mask255(word0);
        v
    }
}

/// An `nvmlUUID_v1_t` holding `uuid` in ASCII form, under the `type` pynvml passed.
fn uuid_v1(uuid: &str, kind: u32) -> UUID {
    let mut ascii = UUID::default();
    ascii.value = UuidValue::Str(uuid.to_string());
    let mut raw: nvml::sys::nvmlUUID_v1_t = nvml::raw::ToRaw::to_raw(&ascii);
    raw.r#type = kind as _;
    nvml::raw::FromRaw::from_raw(&raw)
}
