//! What the mock implements: the `Api` methods the engine overrides, grouped by area. Every
//! other function of the header keeps the generated default (`NVML_ERROR_NOT_SUPPORTED`).
//!
//! Values come from the device's profile; a value the profile leaves out answers
//! `NVML_ERROR_NOT_SUPPORTED`. Legacy symbols behave as their legacy versions (the v1
//! process-info layout, the legacy PCI bus id).

use std::collections::BTreeSet;
use std::ffi::{c_char, c_int, c_uint, c_ulonglong};

use nvml_sys::*;
use serde_yaml::Value;

use super::ffi::{check_version, chars_str, code, get, put, put_all, put_bytes, put_items, put_list, put_list_in, put_sized_str, put_str, read_str, set_chars, Status};
use super::mig::{ci_handle, gi_handle, GpuInstance};
use super::{error_string, Device, Engine, EventSet, System, SystemEventSet};
use crate::generated::api::Api;
use crate::profile::{const_value, CperRecord};

/// `Some` value, or `NOT_SUPPORTED` when the profile leaves it out.
fn need<T>(v: Option<T>) -> Result<T, nvmlReturn_t> {
    v.ok_or(NVML_ERROR_NOT_SUPPORTED)
}

fn enable(b: bool) -> nvmlEnableState_t {
    if b {
        NVML_FEATURE_ENABLED
    } else {
        NVML_FEATURE_DISABLED
    }
}

/// The time stamp (µs since the epoch: 2023-11-14 22:13:20 UTC) of the mock's samples that
/// the profile does not date: process utilisation without a `time_stamp`, retired pages.
const SAMPLE_TIME_US: u64 = 1_700_000_000_000_000;

/// A running process of a profile: `{pid, used_memory, gpu_instance_id, compute_instance_id}`.
fn process(v: &Value) -> nvmlProcessInfo_v2_t {
    let field = |k: &str| v.get(k).and_then(Value::as_u64);
    nvmlProcessInfo_v2_t {
        pid: field("pid").unwrap_or(0) as u32,
        usedGpuMemory: field("used_memory").unwrap_or(NVML_VALUE_NOT_AVAILABLE as u64),
        gpuInstanceId: field("gpu_instance_id").unwrap_or(0xFFFF_FFFF) as u32,
        computeInstanceId: field("compute_instance_id").unwrap_or(0xFFFF_FFFF) as u32,
    }
}

/// `(soft, hard)` of a namespace without memory limits.
const NO_MEMORY_LIMITS: (u64, u64) = (0, NVML_DEVICE_MEMORY_LIMIT_MAX);

/// A running process, with its profile entry (`None` for one that `grow_processes` added).
type Proc<'d> = (nvmlProcessInfo_v2_t, Option<&'d Value>);

/// The processes of `kinds` (`compute`, `graphics`), in that order, then those that
/// `grow_processes` added; `NOT_SUPPORTED` when the profile has none of those lists. A size
/// query (`capacity` 0) grows the list once, after answering, while the profile's budget lasts.
fn processes<'d>(dev: &'d Device, kinds: &[&str], capacity: c_uint) -> Result<Vec<Proc<'d>>, nvmlReturn_t> {
    let lists: Vec<&[Value]> = kinds.iter().filter_map(|k| dev.spec.list(&format!("processes.{k}"))).collect();
    if lists.is_empty() {
        return Err(NVML_ERROR_NOT_SUPPORTED);
    }
    let mut list: Vec<Proc> = lists.iter().flat_map(|l| l.iter()).map(|v| (process(v), Some(v))).collect();
    let mut state = dev.state.lock().map_err(|_| NVML_ERROR_UNKNOWN)?;
    let next_pid = list.iter().map(|(p, _)| p.pid).max().unwrap_or(1000) + 1;
    list.extend((0..state.extra_processes).map(|i| {
        let info = nvmlProcessInfo_v2_t { pid: next_pid + i, usedGpuMemory: 256 << 20, gpuInstanceId: 0xFFFF_FFFF, computeInstanceId: 0xFFFF_FFFF };
        (info, None)
    }));
    if capacity == 0 && state.grow_remaining > 0 {
        state.grow_remaining -= 1;
        state.extra_processes += 1;
    }
    Ok(list)
}

/// A number from a process's profile entry (0 when absent).
fn process_u64(v: Option<&Value>, key: &str) -> u64 {
    v.and_then(|v| v.get(key)).and_then(Value::as_u64).unwrap_or(0)
}

/// A process's utilisation sample: its `*_util` keys and `time_stamp` (default
/// [`SAMPLE_TIME_US`]).
fn utilization_sample((p, v): &Proc) -> nvmlProcessUtilizationInfo_v1_t {
    let util = |key: &str| process_u64(*v, key) as c_uint;
    nvmlProcessUtilizationInfo_v1_t {
        timeStamp: v.and_then(|v| v.get("time_stamp")).and_then(Value::as_u64).unwrap_or(SAMPLE_TIME_US),
        pid: p.pid,
        smUtil: util("sm_util"),
        memUtil: util("mem_util"),
        encUtil: util("enc_util"),
        decUtil: util("dec_util"),
        jpgUtil: util("jpg_util"),
        ofaUtil: util("ofa_util"),
    }
}

/// An entry of `ecc.sram_unique_uncorrected`.
fn sram_entry(v: &Value) -> nvmlEccSramUniqueUncorrectedErrorEntry_v1_t {
    let u = |key: &str| v.get(key).and_then(Value::as_u64).unwrap_or(0) as c_uint;
    let parity = v.get("is_parity").and_then(|p| p.as_bool().map(c_uint::from)).unwrap_or_else(|| u("is_parity"));
    nvmlEccSramUniqueUncorrectedErrorEntry_v1_t {
        unit: u("unit"),
        location: u("location"),
        sublocation: u("sublocation"),
        extlocation: u("extlocation"),
        address: u("address"),
        isParity: parity,
        count: u("count"),
    }
}

/// `s`, cut to at most `max` bytes.
fn truncated(s: &str, max: usize) -> &str {
    let mut n = s.len().min(max);
    while !s.is_char_boundary(n) {
        n -= 1;
    }
    &s[..n]
}

impl Engine {
    /// Runs `f` on the device behind `h` (rejecting unknown handles).
    fn dev(&self, h: nvmlDevice_t, f: impl FnOnce(&System, &Device) -> Status) -> nvmlReturn_t {
        code(self.sys().and_then(|sys| f(&sys, sys.device(h)?)))
    }

    fn processes_v1(&self, device: nvmlDevice_t, kind: &str, count: *mut c_uint, infos: *mut nvmlProcessInfo_v1_t) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            let list: Vec<nvmlProcessInfo_v1_t> =
                processes(d, &[kind], get(count)?)?.iter().map(|(p, _)| nvmlProcessInfo_v1_t { pid: p.pid, usedGpuMemory: p.usedGpuMemory }).collect();
            put_list(count, infos, &list)
        })
    }

    fn processes_v2(&self, device: nvmlDevice_t, kind: &str, count: *mut c_uint, infos: *mut nvmlProcessInfo_v2_t) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            let list: Vec<nvmlProcessInfo_v2_t> = processes(d, &[kind], get(count)?)?.iter().map(|(p, _)| *p).collect();
            put_list(count, infos, &list)
        })
    }

    fn handle_by_index(&self, index: c_uint, device: *mut nvmlDevice_t) -> nvmlReturn_t {
        code(self.sys().and_then(|sys| {
            if index as usize >= sys.devices.len() {
                return Err(NVML_ERROR_INVALID_ARGUMENT);
            }
            put(device, sys.handle(index as usize))
        }))
    }

    fn handle_by(&self, device: *mut nvmlDevice_t, matches: impl Fn(&Device) -> bool) -> nvmlReturn_t {
        code(self.sys().and_then(|sys| {
            let d = sys.devices.iter().find(|d| matches(d)).ok_or(NVML_ERROR_NOT_FOUND)?;
            put(device, sys.handle(d.index))
        }))
    }

    fn pci_info(d: &Device) -> Result<nvmlPciInfo_t, nvmlReturn_t> {
        let s = &d.spec;
        let (domain, bus, dev) = (need(s.u32("pci.domain"))?, need(s.u32("pci.bus"))?, s.u32("pci.device").unwrap_or(0));
        let mut p = nvmlPciInfo_t {
            domain,
            bus,
            device: dev,
            pciDeviceId: s.u32("pci.device_id").unwrap_or(0),
            pciSubSystemId: s.u32("pci.subsystem_id").unwrap_or(0),
            ..Default::default()
        };
        set_chars(&mut p.busId, &format!("{domain:08X}:{bus:02X}:{dev:02X}.0"));
        set_chars(&mut p.busIdLegacy, &format!("{domain:04X}:{bus:02X}:{dev:02X}.0"));
        Ok(p)
    }

    /// `DDDDDDDD:BB:DD.F`, or empty when the profile has no PCI location.
    fn bus_id(d: &Device) -> String {
        Self::pci_info(d).map(|p| chars_str(&p.busId)).unwrap_or_default()
    }

    fn clock(d: &Device, section: &str, clock_type: nvmlClockType_t) -> Result<u32, nvmlReturn_t> {
        let key = match clock_type {
            NVML_CLOCK_GRAPHICS => "graphics",
            NVML_CLOCK_SM => "sm",
            NVML_CLOCK_MEM => "memory",
            NVML_CLOCK_VIDEO => "video",
            _ => return Err(NVML_ERROR_INVALID_ARGUMENT),
        };
        need(d.spec.u32(&format!("{section}.{key}")))
    }

    fn app_clocks(d: &Device) -> Result<(u32, u32), nvmlReturn_t> {
        let state = d.state.lock().map_err(|_| NVML_ERROR_UNKNOWN)?;
        match state.application_clocks {
            Some(c) => Ok(c),
            None => Ok((need(d.spec.u32("application_clocks.memory"))?, need(d.spec.u32("application_clocks.graphics"))?)),
        }
    }

    fn ecc_count(d: &Device, error_type: nvmlMemoryErrorType_t, counter: nvmlEccCounterType_t) -> Result<u64, nvmlReturn_t> {
        let kind = match error_type {
            NVML_MEMORY_ERROR_TYPE_CORRECTED => "corrected",
            NVML_MEMORY_ERROR_TYPE_UNCORRECTED => "uncorrected",
            _ => return Err(NVML_ERROR_INVALID_ARGUMENT),
        };
        let scope = match counter {
            NVML_VOLATILE_ECC => "volatile",
            NVML_AGGREGATE_ECC => "aggregate",
            _ => return Err(NVML_ERROR_INVALID_ARGUMENT),
        };
        Self::ecc_enabled(d)?;
        need(d.spec.u64(&format!("ecc.{scope}.{kind}")))
    }

    /// ECC counters answer only while ECC is on.
    fn ecc_enabled(d: &Device) -> Status {
        match need(d.spec.bool("ecc.enabled"))? {
            true => Ok(()),
            false => Err(NVML_ERROR_NOT_SUPPORTED),
        }
    }

    fn retired_pages(d: &Device, cause: nvmlPageRetirementCause_t) -> Result<Vec<u64>, nvmlReturn_t> {
        let key = match cause {
            NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS => "retired_pages.single_bit",
            NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR => "retired_pages.double_bit",
            _ => return Err(NVML_ERROR_INVALID_ARGUMENT),
        };
        Ok(need(d.spec.list(key))?.iter().filter_map(Value::as_u64).collect())
    }

    fn nvlink(d: &Device, link: c_uint) -> Result<(), nvmlReturn_t> {
        let links = need(d.spec.u32("nvlink.links"))?;
        if link >= links {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        Ok(())
    }

    fn gpu_instance_profile(d: &Device, profile: c_uint) -> Result<&Value, nvmlReturn_t> {
        let profiles = need(d.spec.list("mig.gpu_instance_profiles"))?;
        profiles
            .iter()
            .find(|p| p.get("profile").and_then(const_value) == Some(profile as i128))
            .ok_or(NVML_ERROR_NOT_SUPPORTED)
    }

    fn fill_gpu_instance_profile(p: &Value, info: &mut nvmlGpuInstanceProfileInfo_v2_t) {
        let u = |k: &str| p.get(k).and_then(Value::as_u64).unwrap_or(0);
        info.id = u("id") as u32;
        info.isP2pSupported = u("p2p") as u32;
        info.sliceCount = u("slices") as u32;
        info.instanceCount = u("instances") as u32;
        info.multiprocessorCount = u("multiprocessors") as u32;
        info.copyEngineCount = u("copy_engines") as u32;
        info.decoderCount = u("decoders") as u32;
        info.encoderCount = u("encoders") as u32;
        info.jpegCount = u("jpegs") as u32;
        info.ofaCount = u("ofas") as u32;
        info.memorySizeMB = u("memory_mb");
        set_chars(&mut info.name, p.get("name").and_then(Value::as_str).unwrap_or(""));
    }

    /// A compute-instance profile usable in `gi`: `(info, found)`.
    fn compute_instance_profile(sys: &System, gi: &GpuInstance, profile: c_uint) -> Result<nvmlComputeInstanceProfileInfo_v2_t, nvmlReturn_t> {
        let d = &sys.devices[gi.device];
        let p = need(d.spec.list("mig.compute_instance_profiles"))?
            .iter()
            .find(|p| p.get("profile").and_then(const_value) == Some(profile as i128))
            .ok_or(NVML_ERROR_NOT_SUPPORTED)?;
        let u = |k: &str| p.get(k).and_then(Value::as_u64).unwrap_or(0) as u32;
        if u("slices") > gi.slices {
            return Err(NVML_ERROR_NOT_SUPPORTED);
        }
        let mut info = nvmlComputeInstanceProfileInfo_v2_t {
            version: nvmlComputeInstanceProfileInfo_v2,
            id: u("id"),
            sliceCount: u("slices"),
            instanceCount: gi.slices / u("slices").max(1),
            multiprocessorCount: u("multiprocessors"),
            sharedCopyEngineCount: u("copy_engines"),
            sharedDecoderCount: u("decoders"),
            sharedEncoderCount: u("encoders"),
            sharedJpegCount: u("jpegs"),
            sharedOfaCount: u("ofas"),
            ..Default::default()
        };
        set_chars(&mut info.name, p.get("name").and_then(Value::as_str).unwrap_or(""));
        Ok(info)
    }

    fn compute_instance_info(&self, ci: nvmlComputeInstance_t, info: *mut nvmlComputeInstanceInfo_t) -> nvmlReturn_t {
        code(self.sys().and_then(|sys| {
            let (gi, c) = sys.compute_instance(ci)?;
            put(
                info,
                nvmlComputeInstanceInfo_t {
                    device: sys.handle(gi.device),
                    gpuInstance: gi_handle(gi),
                    id: c.id,
                    profileId: c.profile,
                    placement: nvmlComputeInstancePlacement_t { start: c.placement.0, size: c.placement.1 },
                },
            )
        }))
    }

    fn temperature(d: &Device, sensor: nvmlTemperatureSensors_t) -> Result<u32, nvmlReturn_t> {
        if sensor != NVML_TEMPERATURE_GPU {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        need(d.spec.u32("temperature.gpu"))
    }

    fn event_wait(&self, set: nvmlEventSet_t, data: *mut nvmlEventData_t, timeout_ms: c_uint) -> nvmlReturn_t {
        code(self.sys().and_then(|sys| {
            let es = sys.event_sets.get(set.cast())?;
            if data.is_null() {
                return Err(NVML_ERROR_INVALID_ARGUMENT);
            }
            let (device, event_type, event_data) = es.wait(timeout_ms).ok_or(NVML_ERROR_TIMEOUT)?;
            put(
                data,
                nvmlEventData_t {
                    device: sys.handle(device),
                    eventType: event_type,
                    eventData: event_data,
                    gpuInstanceId: 0xFFFF_FFFF,
                    computeInstanceId: 0xFFFF_FFFF,
                },
            )
        }))
    }
}

impl Api for Engine {
    fn unimplemented(&self, function: &'static str) -> nvmlReturn_t {
        self.report_unimplemented(function)
    }

    // Initialisation and errors.

    fn nvmlInit(&self) -> nvmlReturn_t {
        self.init()
    }

    fn nvmlInit_v2(&self) -> nvmlReturn_t {
        self.init()
    }

    fn nvmlInitWithFlags(&self, _flags: c_uint) -> nvmlReturn_t {
        self.init()
    }

    fn nvmlShutdown(&self) -> nvmlReturn_t {
        self.shutdown()
    }

    fn nvmlErrorString(&self, result: nvmlReturn_t) -> *const c_char {
        error_string(result).as_ptr()
    }

    // System.

    fn nvmlSystemGetDriverVersion(&self, version: *mut c_char, length: c_uint) -> nvmlReturn_t {
        code(self.sys().and_then(|s| put_str(version, length, need(s.profile.system.str("driver_version"))?)))
    }

    fn nvmlSystemGetNVMLVersion(&self, version: *mut c_char, length: c_uint) -> nvmlReturn_t {
        code(self.sys().and_then(|s| put_str(version, length, need(s.profile.system.str("nvml_version"))?)))
    }

    fn nvmlSystemGetCudaDriverVersion(&self, v: *mut c_int) -> nvmlReturn_t {
        code(self.sys().and_then(|s| put(v, need(s.profile.system.i64("cuda_driver_version"))? as c_int)))
    }

    fn nvmlSystemGetCudaDriverVersion_v2(&self, v: *mut c_int) -> nvmlReturn_t {
        self.nvmlSystemGetCudaDriverVersion(v)
    }

    fn nvmlSystemGetCPER_v1(&self, cper: *mut nvmlGetCPER_v1_t) -> nvmlReturn_t {
        // One record per call; the cursor's handle is the position of the next record among
        // those the filter (`cperTypeMask`, `uuid`: empty for all devices) selects.
        code(self.sys().and_then(|sys| {
            let mut req = get(cper)?;
            if req.buffer.is_null() && req.bufferSize != 0 {
                return Err(NVML_ERROR_INVALID_ARGUMENT);
            }
            let uuid = chars_str(&req.cursor.uuid);
            let gpu = req.cursor.cperTypeMask & NVML_CPER_ACCESS_TYPE_GPU != 0;
            let selected = |r: &&CperRecord| gpu && (uuid.is_empty() || sys.devices[r.device].spec.str("uuid") == Some(uuid.as_str()));
            let next = usize::try_from(req.cursor.handle).ok().and_then(|i| sys.profile.cper_records.iter().filter(selected).nth(i));
            let Some(record) = next else {
                req.bufferSize = 0;
                return put(cper, req);
            };
            let status = put_bytes(req.buffer, req.bufferSize, &record.data);
            req.bufferSize = record.data.len() as c_uint;
            if status.is_ok() {
                req.cursor.handle += 1;
            }
            put(cper, req)?;
            status
        }))
    }

    fn nvmlSystemGetProcessName(&self, pid: c_uint, name: *mut c_char, length: c_uint) -> nvmlReturn_t {
        code(self.sys().and_then(|sys| {
            for d in &sys.devices {
                for kind in ["processes.compute", "processes.graphics"] {
                    let found = d.spec.list(kind).unwrap_or_default().iter().find(|p| p.get("pid").and_then(Value::as_u64) == Some(pid.into()));
                    if let Some(p) = found {
                        return put_str(name, length, p.get("name").and_then(Value::as_str).unwrap_or(""));
                    }
                }
            }
            Err(NVML_ERROR_NOT_FOUND)
        }))
    }

    fn nvmlUnitGetCount(&self, count: *mut c_uint) -> nvmlReturn_t {
        code(put(count, 0))
    }

    // Enumeration and identity.

    fn nvmlDeviceGetCount(&self, count: *mut c_uint) -> nvmlReturn_t {
        code(self.sys().and_then(|s| put(count, s.devices.len() as c_uint)))
    }

    fn nvmlDeviceGetCount_v2(&self, count: *mut c_uint) -> nvmlReturn_t {
        self.nvmlDeviceGetCount(count)
    }

    fn nvmlDeviceGetHandleByIndex(&self, index: c_uint, device: *mut nvmlDevice_t) -> nvmlReturn_t {
        self.handle_by_index(index, device)
    }

    fn nvmlDeviceGetHandleByIndex_v2(&self, index: c_uint, device: *mut nvmlDevice_t) -> nvmlReturn_t {
        self.handle_by_index(index, device)
    }

    fn nvmlDeviceGetHandleByUUID(&self, uuid: *const c_char, device: *mut nvmlDevice_t) -> nvmlReturn_t {
        match read_str(uuid) {
            Ok(u) => self.handle_by(device, |d| d.spec.str("uuid") == Some(u.as_str())),
            Err(e) => e,
        }
    }

    fn nvmlDeviceGetHandleBySerial(&self, serial: *const c_char, device: *mut nvmlDevice_t) -> nvmlReturn_t {
        match read_str(serial) {
            Ok(s) => self.handle_by(device, |d| d.spec.str("serial") == Some(s.as_str())),
            Err(e) => e,
        }
    }

    fn nvmlDeviceGetHandleByPciBusId(&self, bus_id: *const c_char, device: *mut nvmlDevice_t) -> nvmlReturn_t {
        self.nvmlDeviceGetHandleByPciBusId_v2(bus_id, device)
    }

    fn nvmlDeviceGetHandleByPciBusId_v2(&self, bus_id: *const c_char, device: *mut nvmlDevice_t) -> nvmlReturn_t {
        match read_str(bus_id) {
            // Both the 8-digit and the legacy 4-digit domain forms are accepted.
            Ok(want) => self.handle_by(device, |d| {
                let id = Self::bus_id(d);
                !id.is_empty() && (id.eq_ignore_ascii_case(&want) || id[4..].eq_ignore_ascii_case(&want))
            }),
            Err(e) => e,
        }
    }

    fn nvmlDeviceGetIndex(&self, device: nvmlDevice_t, index: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| put(index, d.index as c_uint))
    }

    fn nvmlDeviceGetName(&self, device: nvmlDevice_t, name: *mut c_char, length: c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| put_str(name, length, need(d.spec.str("name"))?))
    }

    fn nvmlDeviceGetUUID(&self, device: nvmlDevice_t, uuid: *mut c_char, length: c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| put_str(uuid, length, need(d.spec.str("uuid"))?))
    }

    fn nvmlDeviceGetSerial(&self, device: nvmlDevice_t, serial: *mut c_char, length: c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| put_str(serial, length, need(d.spec.str("serial"))?))
    }

    fn nvmlDeviceGetBoardPartNumber(&self, device: nvmlDevice_t, part: *mut c_char, length: c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| put_str(part, length, need(d.spec.str("board_part_number"))?))
    }

    fn nvmlDeviceGetVbiosVersion(&self, device: nvmlDevice_t, version: *mut c_char, length: c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| put_str(version, length, need(d.spec.str("vbios_version"))?))
    }

    fn nvmlDeviceGetInforomImageVersion(&self, device: nvmlDevice_t, version: *mut c_char, length: c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| put_str(version, length, need(d.spec.str("inforom.image"))?))
    }

    fn nvmlDeviceGetGspFirmwareVersion(&self, device: nvmlDevice_t, version: *mut c_char) -> nvmlReturn_t {
        // The caller's buffer is NVML_GSP_FIRMWARE_VERSION_BUF_SIZE bytes: a longer profile
        // value is cut to fit with its NUL.
        const SIZE: usize = NVML_GSP_FIRMWARE_VERSION_BUF_SIZE as usize;
        self.dev(device, |_, d| put_str(version, SIZE as c_uint, truncated(need(d.spec.str("gsp_firmware_version"))?, SIZE - 1)))
    }

    fn nvmlDeviceGetPgpuMetadataString(&self, device: nvmlDevice_t, metadata: *mut c_char, size: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| put_sized_str(metadata, size, need(d.spec.str("pgpu_metadata"))?))
    }

    fn nvmlDeviceGetBrand(&self, device: nvmlDevice_t, brand: *mut nvmlBrandType_t) -> nvmlReturn_t {
        self.dev(device, |_, d| put(brand, need(d.spec.constant("brand"))? as nvmlBrandType_t))
    }

    fn nvmlDeviceGetArchitecture(&self, device: nvmlDevice_t, arch: *mut nvmlDeviceArchitecture_t) -> nvmlReturn_t {
        self.dev(device, |_, d| put(arch, need(d.spec.constant("architecture"))? as nvmlDeviceArchitecture_t))
    }

    fn nvmlDeviceGetBoardId(&self, device: nvmlDevice_t, id: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| put(id, need(d.spec.u32("board_id"))?))
    }

    fn nvmlDeviceGetModuleId(&self, device: nvmlDevice_t, id: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| put(id, need(d.spec.u32("module_id"))?))
    }

    fn nvmlDeviceGetMinorNumber(&self, device: nvmlDevice_t, minor: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| put(minor, need(d.spec.u32("minor_number"))?))
    }

    fn nvmlDeviceGetMultiGpuBoard(&self, device: nvmlDevice_t, multi: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| put(multi, need(d.spec.bool("multi_gpu_board"))? as c_uint))
    }

    fn nvmlDeviceGetNumGpuCores(&self, device: nvmlDevice_t, cores: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| put(cores, need(d.spec.u32("gpu_cores"))?))
    }

    fn nvmlDeviceGetCudaComputeCapability(&self, device: nvmlDevice_t, major: *mut c_int, minor: *mut c_int) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            put(major, need(d.spec.i64("cuda_compute_capability.major"))? as c_int)?;
            put(minor, need(d.spec.i64("cuda_compute_capability.minor"))? as c_int)
        })
    }

    fn nvmlDeviceGetNumaNodeId(&self, device: nvmlDevice_t, node: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| put(node, need(d.spec.i64("numa_node"))? as c_uint))
    }

    // PCI and PCIe.

    fn nvmlDeviceGetPciInfo(&self, device: nvmlDevice_t, pci: *mut nvmlPciInfo_t) -> nvmlReturn_t {
        // The legacy v1 call fills only the legacy bus id format.
        self.dev(device, |_, d| {
            let mut p = Self::pci_info(d)?;
            p.busId = [0; 32];
            p.busId[..16].copy_from_slice(&p.busIdLegacy);
            put(pci, p)
        })
    }

    fn nvmlDeviceGetPciInfo_v2(&self, device: nvmlDevice_t, pci: *mut nvmlPciInfo_t) -> nvmlReturn_t {
        self.dev(device, |_, d| put(pci, Self::pci_info(d)?))
    }

    fn nvmlDeviceGetPciInfo_v3(&self, device: nvmlDevice_t, pci: *mut nvmlPciInfo_t) -> nvmlReturn_t {
        self.dev(device, |_, d| put(pci, Self::pci_info(d)?))
    }

    fn nvmlDeviceGetPciInfoExt(&self, device: nvmlDevice_t, pci: *mut nvmlPciInfoExt_t) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            check_version(pci, nvmlPciInfoExt_v1)?;
            let p = Self::pci_info(d)?;
            let ext = nvmlPciInfoExt_t {
                version: nvmlPciInfoExt_v1,
                domain: p.domain,
                bus: p.bus,
                device: p.device,
                pciDeviceId: p.pciDeviceId,
                pciSubSystemId: p.pciSubSystemId,
                baseClass: d.spec.u32("pci.base_class").unwrap_or(3),
                subClass: d.spec.u32("pci.sub_class").unwrap_or(2),
                busId: p.busId,
            };
            put(pci, ext)
        })
    }

    fn nvmlDeviceGetMaxPcieLinkGeneration(&self, device: nvmlDevice_t, v: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| put(v, need(d.spec.u32("pcie.max_link_gen"))?))
    }

    fn nvmlDeviceGetGpuMaxPcieLinkGeneration(&self, device: nvmlDevice_t, v: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| put(v, need(d.spec.u32("pcie.gpu_max_link_gen").or(d.spec.u32("pcie.max_link_gen")))?))
    }

    fn nvmlDeviceGetMaxPcieLinkWidth(&self, device: nvmlDevice_t, v: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| put(v, need(d.spec.u32("pcie.max_link_width"))?))
    }

    fn nvmlDeviceGetCurrPcieLinkGeneration(&self, device: nvmlDevice_t, v: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| put(v, need(d.spec.u32("pcie.link_gen"))?))
    }

    fn nvmlDeviceGetCurrPcieLinkWidth(&self, device: nvmlDevice_t, v: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| put(v, need(d.spec.u32("pcie.link_width"))?))
    }

    fn nvmlDeviceGetPcieThroughput(&self, device: nvmlDevice_t, counter: nvmlPcieUtilCounter_t, v: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            let key = match counter {
                NVML_PCIE_UTIL_TX_BYTES => "pcie.tx_kbps",
                NVML_PCIE_UTIL_RX_BYTES => "pcie.rx_kbps",
                _ => return Err(NVML_ERROR_INVALID_ARGUMENT),
            };
            put(v, need(d.spec.u32(key))?)
        })
    }

    fn nvmlDeviceGetPcieReplayCounter(&self, device: nvmlDevice_t, v: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| put(v, need(d.spec.u32("pcie.replay_counter"))?))
    }

    fn nvmlDeviceGetPcieSpeed(&self, device: nvmlDevice_t, v: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| put(v, need(d.spec.u32("pcie.speed_mbps"))?))
    }

    fn nvmlDeviceGetPcieLinkMaxSpeed(&self, device: nvmlDevice_t, v: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| put(v, need(d.spec.u32("pcie.max_speed_mbps"))?))
    }

    // Memory.

    fn nvmlDeviceGetMemoryInfo(&self, device: nvmlDevice_t, memory: *mut nvmlMemory_t) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            let (total, used) = (need(d.spec.u64("memory.total"))?, need(d.spec.u64("memory.used"))?);
            // v1 counts reserved memory as used.
            let used = used + d.spec.u64("memory.reserved").unwrap_or(0);
            put(memory, nvmlMemory_t { total, free: total.saturating_sub(used), used })
        })
    }

    fn nvmlDeviceGetMemoryInfo_v2(&self, device: nvmlDevice_t, memory: *mut nvmlMemory_v2_t) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            check_version(memory, nvmlMemory_v2)?;
            let (total, used) = (need(d.spec.u64("memory.total"))?, need(d.spec.u64("memory.used"))?);
            let reserved = d.spec.u64("memory.reserved").unwrap_or(0);
            let free = total.saturating_sub(used + reserved);
            put(memory, nvmlMemory_v2_t { version: nvmlMemory_v2, total, reserved, free, used })
        })
    }

    fn nvmlDeviceGetBAR1MemoryInfo(&self, device: nvmlDevice_t, bar1: *mut nvmlBAR1Memory_t) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            let (total, used) = (need(d.spec.u64("bar1.total"))?, need(d.spec.u64("bar1.used"))?);
            put(bar1, nvmlBAR1Memory_t { bar1Total: total, bar1Free: total.saturating_sub(used), bar1Used: used })
        })
    }

    fn nvmlDeviceGetMemoryLimits_v1(&self, device: nvmlDevice_t, limits: *mut nvmlGetMemoryLimits_v1_t) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            let mut l = get(limits)?;
            let namespace = read_str(l.nameSpace)?;
            l.currentUsed = need(d.spec.u64("memory.used"))?;
            let state = d.state.lock().map_err(|_| NVML_ERROR_UNKNOWN)?;
            (l.softLimit, l.hardLimit) = state.memory_limits.get(&namespace).copied().unwrap_or(NO_MEMORY_LIMITS);
            put(limits, l)
        })
    }

    fn nvmlDeviceSetMemoryLimits_v1(&self, device: nvmlDevice_t, limits: *mut nvmlSetMemoryLimits_v1_t) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            let l = get(limits)?;
            let namespace = read_str(l.nameSpace)?;
            let total = need(d.spec.u64("memory.total"))?;
            let (soft, hard) = (l.softLimit, l.hardLimit);
            if soft > hard || soft > total || (hard > total && hard != NO_MEMORY_LIMITS.1) {
                return Err(NVML_ERROR_INVALID_ARGUMENT);
            }
            let mut state = d.state.lock().map_err(|_| NVML_ERROR_UNKNOWN)?;
            if (soft, hard) == NO_MEMORY_LIMITS {
                state.memory_limits.remove(&namespace);
            } else {
                state.memory_limits.insert(namespace, (soft, hard));
            }
            Ok(())
        })
    }

    // Clocks.

    fn nvmlDeviceGetClockInfo(&self, device: nvmlDevice_t, clock_type: nvmlClockType_t, clock: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| put(clock, Self::clock(d, "clocks", clock_type)?))
    }

    fn nvmlDeviceGetMaxClockInfo(&self, device: nvmlDevice_t, clock_type: nvmlClockType_t, clock: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| put(clock, Self::clock(d, "max_clocks", clock_type)?))
    }

    fn nvmlDeviceGetClock(&self, device: nvmlDevice_t, clock_type: nvmlClockType_t, id: nvmlClockId_t, mhz: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            let v = match id {
                NVML_CLOCK_ID_CURRENT => Self::clock(d, "clocks", clock_type)?,
                NVML_CLOCK_ID_CUSTOMER_BOOST_MAX => Self::clock(d, "max_clocks", clock_type)?,
                NVML_CLOCK_ID_APP_CLOCK_TARGET | NVML_CLOCK_ID_APP_CLOCK_DEFAULT => {
                    let (mem, gfx) = if id == NVML_CLOCK_ID_APP_CLOCK_TARGET {
                        Self::app_clocks(d)?
                    } else {
                        (need(d.spec.u32("default_application_clocks.memory"))?, need(d.spec.u32("default_application_clocks.graphics"))?)
                    };
                    match clock_type {
                        NVML_CLOCK_MEM => mem,
                        NVML_CLOCK_GRAPHICS | NVML_CLOCK_SM => gfx,
                        _ => return Err(NVML_ERROR_NOT_SUPPORTED),
                    }
                }
                _ => return Err(NVML_ERROR_INVALID_ARGUMENT),
            };
            put(mhz, v)
        })
    }

    fn nvmlDeviceGetApplicationsClock(&self, device: nvmlDevice_t, clock_type: nvmlClockType_t, mhz: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            let (mem, gfx) = Self::app_clocks(d)?;
            put(mhz, if clock_type == NVML_CLOCK_MEM { mem } else { gfx })
        })
    }

    fn nvmlDeviceGetDefaultApplicationsClock(&self, device: nvmlDevice_t, clock_type: nvmlClockType_t, mhz: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            let key = if clock_type == NVML_CLOCK_MEM { "memory" } else { "graphics" };
            put(mhz, need(d.spec.u32(&format!("default_application_clocks.{key}")))?)
        })
    }

    fn nvmlDeviceSetApplicationsClocks(&self, device: nvmlDevice_t, mem: c_uint, graphics: c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            let mems: Vec<u64> = need(d.spec.list("supported_memory_clocks"))?.iter().filter_map(Value::as_u64).collect();
            let gfx: Vec<u64> = need(d.spec.list("supported_graphics_clocks"))?.iter().filter_map(Value::as_u64).collect();
            if !mems.contains(&mem.into()) || !gfx.contains(&graphics.into()) {
                return Err(NVML_ERROR_INVALID_ARGUMENT);
            }
            d.state.lock().map_err(|_| NVML_ERROR_UNKNOWN)?.application_clocks = Some((mem, graphics));
            Ok(())
        })
    }

    fn nvmlDeviceResetApplicationsClocks(&self, device: nvmlDevice_t) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            d.state.lock().map_err(|_| NVML_ERROR_UNKNOWN)?.application_clocks = None;
            Ok(())
        })
    }

    fn nvmlDeviceGetSupportedMemoryClocks(&self, device: nvmlDevice_t, count: *mut c_uint, clocks: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            let list: Vec<c_uint> = need(d.spec.list("supported_memory_clocks"))?.iter().filter_map(Value::as_u64).map(|v| v as c_uint).collect();
            put_list(count, clocks, &list)
        })
    }

    fn nvmlDeviceGetSupportedGraphicsClocks(&self, device: nvmlDevice_t, mem: c_uint, count: *mut c_uint, clocks: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            let mems = need(d.spec.list("supported_memory_clocks"))?;
            if !mems.iter().any(|m| m.as_u64() == Some(mem.into())) {
                return Err(NVML_ERROR_NOT_FOUND);
            }
            let list: Vec<c_uint> = need(d.spec.list("supported_graphics_clocks"))?.iter().filter_map(Value::as_u64).map(|v| v as c_uint).collect();
            put_list(count, clocks, &list)
        })
    }

    // Power and performance.

    fn nvmlDeviceGetPowerUsage(&self, device: nvmlDevice_t, mw: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| put(mw, need(d.spec.u32("power.usage_mw"))?))
    }

    fn nvmlDeviceGetPowerManagementMode(&self, device: nvmlDevice_t, mode: *mut nvmlEnableState_t) -> nvmlReturn_t {
        self.dev(device, |_, d| put(mode, enable(need(d.spec.bool("power.management"))?)))
    }

    fn nvmlDeviceGetPowerManagementLimit(&self, device: nvmlDevice_t, mw: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            let set = d.state.lock().map_err(|_| NVML_ERROR_UNKNOWN)?.power_limit_mw;
            put(mw, need(set.or(d.spec.u32("power.limit_mw")))?)
        })
    }

    fn nvmlDeviceGetPowerManagementDefaultLimit(&self, device: nvmlDevice_t, mw: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| put(mw, need(d.spec.u32("power.default_limit_mw"))?))
    }

    fn nvmlDeviceGetPowerManagementLimitConstraints(&self, device: nvmlDevice_t, min: *mut c_uint, max: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            put(min, need(d.spec.u32("power.min_limit_mw"))?)?;
            put(max, need(d.spec.u32("power.max_limit_mw"))?)
        })
    }

    fn nvmlDeviceGetEnforcedPowerLimit(&self, device: nvmlDevice_t, mw: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            let set = d.state.lock().map_err(|_| NVML_ERROR_UNKNOWN)?.power_limit_mw;
            put(mw, need(set.or(d.spec.u32("power.enforced_limit_mw")))?)
        })
    }

    fn nvmlDeviceSetPowerManagementLimit(&self, device: nvmlDevice_t, limit: c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            let (min, max) = (need(d.spec.u32("power.min_limit_mw"))?, need(d.spec.u32("power.max_limit_mw"))?);
            if !(min..=max).contains(&limit) {
                return Err(NVML_ERROR_INVALID_ARGUMENT);
            }
            d.state.lock().map_err(|_| NVML_ERROR_UNKNOWN)?.power_limit_mw = Some(limit);
            Ok(())
        })
    }

    fn nvmlDeviceGetTotalEnergyConsumption(&self, device: nvmlDevice_t, mj: *mut c_ulonglong) -> nvmlReturn_t {
        self.dev(device, |_, d| put(mj, need(d.spec.u64("power.energy_mj"))?))
    }

    fn nvmlDeviceGetPerformanceState(&self, device: nvmlDevice_t, p: *mut nvmlPstates_t) -> nvmlReturn_t {
        self.dev(device, |_, d| put(p, need(d.spec.u32("performance_state"))?))
    }

    fn nvmlDeviceGetPowerState(&self, device: nvmlDevice_t, p: *mut nvmlPstates_t) -> nvmlReturn_t {
        self.nvmlDeviceGetPerformanceState(device, p)
    }

    // Thermal and cooling.

    fn nvmlDeviceGetTemperature(&self, device: nvmlDevice_t, sensor: nvmlTemperatureSensors_t, temp: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| put(temp, Self::temperature(d, sensor)?))
    }

    fn nvmlDeviceGetTemperatureV(&self, device: nvmlDevice_t, t: *mut nvmlTemperature_t) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            check_version(t, nvmlTemperature_v1)?;
            let req = get(t)?;
            let value = Self::temperature(d, req.sensorType)? as c_int;
            put(t, nvmlTemperature_t { temperature: value, ..req })
        })
    }

    fn nvmlDeviceGetTemperatureThreshold(&self, device: nvmlDevice_t, kind: nvmlTemperatureThresholds_t, temp: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            let key = match kind {
                NVML_TEMPERATURE_THRESHOLD_SHUTDOWN => "temperature.shutdown",
                NVML_TEMPERATURE_THRESHOLD_SLOWDOWN => "temperature.slowdown",
                NVML_TEMPERATURE_THRESHOLD_MEM_MAX => "temperature.memory_max",
                NVML_TEMPERATURE_THRESHOLD_GPU_MAX => "temperature.gpu_max",
                _ => return Err(NVML_ERROR_NOT_SUPPORTED),
            };
            put(temp, need(d.spec.u32(key))?)
        })
    }

    fn nvmlDeviceGetNumFans(&self, device: nvmlDevice_t, n: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| put(n, need(d.spec.list("fans"))?.len() as c_uint))
    }

    fn nvmlDeviceGetFanSpeed(&self, device: nvmlDevice_t, speed: *mut c_uint) -> nvmlReturn_t {
        self.nvmlDeviceGetFanSpeed_v2(device, 0, speed)
    }

    fn nvmlDeviceGetFanSpeed_v2(&self, device: nvmlDevice_t, fan: c_uint, speed: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            let fans = need(d.spec.list("fans"))?;
            if fans.is_empty() {
                return Err(NVML_ERROR_NOT_SUPPORTED);
            }
            let v = fans.get(fan as usize).ok_or(NVML_ERROR_INVALID_ARGUMENT)?;
            put(speed, v.as_u64().unwrap_or(0) as c_uint)
        })
    }

    // Utilisation.

    fn nvmlDeviceGetUtilizationRates(&self, device: nvmlDevice_t, u: *mut nvmlUtilization_t) -> nvmlReturn_t {
        self.dev(device, |_, d| put(u, nvmlUtilization_t { gpu: need(d.spec.u32("utilization.gpu"))?, memory: need(d.spec.u32("utilization.memory"))? }))
    }

    fn nvmlDeviceGetEncoderUtilization(&self, device: nvmlDevice_t, u: *mut c_uint, period: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            put(u, need(d.spec.u32("encoder.utilization"))?)?;
            put(period, d.spec.u32("encoder.sampling_period_us").unwrap_or(167_000))
        })
    }

    fn nvmlDeviceGetDecoderUtilization(&self, device: nvmlDevice_t, u: *mut c_uint, period: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            put(u, need(d.spec.u32("decoder.utilization"))?)?;
            put(period, d.spec.u32("decoder.sampling_period_us").unwrap_or(167_000))
        })
    }

    // Modes.

    fn nvmlDeviceGetComputeMode(&self, device: nvmlDevice_t, mode: *mut nvmlComputeMode_t) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            let set = d.state.lock().map_err(|_| NVML_ERROR_UNKNOWN)?.compute_mode;
            put(mode, need(set.or(d.spec.constant("compute_mode").map(|v| v as u32)))?)
        })
    }

    fn nvmlDeviceSetComputeMode(&self, device: nvmlDevice_t, mode: nvmlComputeMode_t) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            if mode >= NVML_COMPUTEMODE_COUNT {
                return Err(NVML_ERROR_INVALID_ARGUMENT);
            }
            d.state.lock().map_err(|_| NVML_ERROR_UNKNOWN)?.compute_mode = Some(mode);
            Ok(())
        })
    }

    fn nvmlDeviceGetPersistenceMode(&self, device: nvmlDevice_t, mode: *mut nvmlEnableState_t) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            let set = d.state.lock().map_err(|_| NVML_ERROR_UNKNOWN)?.persistence_mode;
            put(mode, enable(need(set.or(d.spec.bool("persistence_mode")))?))
        })
    }

    fn nvmlDeviceSetPersistenceMode(&self, device: nvmlDevice_t, mode: nvmlEnableState_t) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            let on = match mode {
                NVML_FEATURE_ENABLED => true,
                NVML_FEATURE_DISABLED => false,
                _ => return Err(NVML_ERROR_INVALID_ARGUMENT),
            };
            need(d.spec.bool("persistence_mode"))?;
            d.state.lock().map_err(|_| NVML_ERROR_UNKNOWN)?.persistence_mode = Some(on);
            Ok(())
        })
    }

    fn nvmlDeviceGetDisplayMode(&self, device: nvmlDevice_t, v: *mut nvmlEnableState_t) -> nvmlReturn_t {
        self.dev(device, |_, d| put(v, enable(need(d.spec.bool("display_mode"))?)))
    }

    fn nvmlDeviceGetDisplayActive(&self, device: nvmlDevice_t, v: *mut nvmlEnableState_t) -> nvmlReturn_t {
        self.dev(device, |_, d| put(v, enable(need(d.spec.bool("display_active"))?)))
    }

    // ECC, retired pages, remapped rows.

    fn nvmlDeviceGetEccMode(&self, device: nvmlDevice_t, current: *mut nvmlEnableState_t, pending: *mut nvmlEnableState_t) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            let on = need(d.spec.bool("ecc.enabled"))?;
            put(current, enable(on))?;
            put(pending, enable(d.spec.bool("ecc.pending").unwrap_or(on)))
        })
    }

    fn nvmlDeviceGetTotalEccErrors(&self, device: nvmlDevice_t, e: nvmlMemoryErrorType_t, c: nvmlEccCounterType_t, count: *mut c_ulonglong) -> nvmlReturn_t {
        self.dev(device, |_, d| put(count, Self::ecc_count(d, e, c)?))
    }

    fn nvmlDeviceGetMemoryErrorCounter(
        &self,
        device: nvmlDevice_t,
        e: nvmlMemoryErrorType_t,
        c: nvmlEccCounterType_t,
        location: nvmlMemoryLocation_t,
        count: *mut c_ulonglong,
    ) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            let total = Self::ecc_count(d, e, c)?;
            // The profile keeps totals; they are all in device memory.
            put(count, if location == NVML_MEMORY_LOCATION_DEVICE_MEMORY || location == NVML_MEMORY_LOCATION_DRAM { total } else { 0 })
        })
    }

    fn nvmlDeviceGetRetiredPages(&self, device: nvmlDevice_t, cause: nvmlPageRetirementCause_t, count: *mut c_uint, addresses: *mut c_ulonglong) -> nvmlReturn_t {
        self.dev(device, |_, d| put_list(count, addresses, &Self::retired_pages(d, cause)?))
    }

    fn nvmlDeviceGetRetiredPages_v2(
        &self,
        device: nvmlDevice_t,
        cause: nvmlPageRetirementCause_t,
        count: *mut c_uint,
        addresses: *mut c_ulonglong,
        timestamps: *mut c_ulonglong,
    ) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            let pages = Self::retired_pages(d, cause)?;
            let capacity = get(count)?;
            put_list(count, addresses, &pages)?;
            let stamps: Vec<u64> = (0..pages.len() as u64).map(|i| SAMPLE_TIME_US + i).collect();
            if !timestamps.is_null() {
                put(count, capacity)?;
                put_list(count, timestamps, &stamps)?;
            }
            Ok(())
        })
    }

    fn nvmlDeviceGetRetiredPagesPendingStatus(&self, device: nvmlDevice_t, pending: *mut nvmlEnableState_t) -> nvmlReturn_t {
        self.dev(device, |_, d| put(pending, enable(need(d.spec.bool("retired_pages.pending"))?)))
    }

    fn nvmlDeviceGetRemappedRows(&self, device: nvmlDevice_t, corr: *mut c_uint, unc: *mut c_uint, pending: *mut c_uint, failure: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            put(corr, need(d.spec.u32("remapped_rows.corrected"))?)?;
            put(unc, need(d.spec.u32("remapped_rows.uncorrected"))?)?;
            put(pending, d.spec.bool("remapped_rows.pending").unwrap_or(false) as c_uint)?;
            put(failure, d.spec.bool("remapped_rows.failure").unwrap_or(false) as c_uint)
        })
    }

    fn nvmlDeviceGetSramUniqueUncorrectedEccErrorCounts(&self, device: nvmlDevice_t, counts: *mut nvmlEccSramUniqueUncorrectedErrorCounts_t) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            check_version(counts, nvmlEccSramUniqueUncorrectedErrorCounts_v1)?;
            Self::ecc_enabled(d)?;
            let entries: Vec<_> = d.spec.list("ecc.sram_unique_uncorrected").unwrap_or_default().iter().map(sram_entry).collect();
            put_list_in(counts, |c| (&mut c.entryCount, c.entries), &entries)
        })
    }

    // NVLink.

    fn nvmlDeviceGetNvLinkState(&self, device: nvmlDevice_t, link: c_uint, active: *mut nvmlEnableState_t) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            Self::nvlink(d, link)?;
            let inactive = d.spec.list("nvlink.inactive_links").unwrap_or_default().iter().any(|v| v.as_u64() == Some(link.into()));
            put(active, enable(!inactive))
        })
    }

    fn nvmlDeviceGetNvLinkVersion(&self, device: nvmlDevice_t, link: c_uint, version: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            Self::nvlink(d, link)?;
            put(version, need(d.spec.u32("nvlink.version"))?)
        })
    }

    fn nvmlDeviceGetNvLinkRemotePciInfo_v2(&self, device: nvmlDevice_t, link: c_uint, pci: *mut nvmlPciInfo_t) -> nvmlReturn_t {
        // Links of an HGX board lead to NVSwitches, which enumerate as bus 0xFF devices.
        self.dev(device, |_, d| {
            Self::nvlink(d, link)?;
            let mut p = nvmlPciInfo_t { domain: 0, bus: 0xFF, device: link / 4, pciDeviceId: 0x22A3_10DE, ..Default::default() };
            set_chars(&mut p.busId, &format!("00000000:FF:{:02X}.0", link / 4));
            set_chars(&mut p.busIdLegacy, &format!("0000:FF:{:02X}.0", link / 4));
            put(pci, p)
        })
    }

    // MIG.

    fn nvmlDeviceGetMigMode(&self, device: nvmlDevice_t, current: *mut c_uint, pending: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            let mode = need(d.spec.bool("mig.mode"))?;
            put(current, mode as c_uint)?;
            put(pending, d.spec.bool("mig.pending").unwrap_or(mode) as c_uint)
        })
    }

    fn nvmlDeviceGetMaxMigDeviceCount(&self, device: nvmlDevice_t, count: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |_, d| put(count, need(d.spec.u32("mig.max_devices"))?))
    }

    fn nvmlDeviceGetGpuInstanceProfileInfo(&self, device: nvmlDevice_t, profile: c_uint, info: *mut nvmlGpuInstanceProfileInfo_t) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            let mut v2 = nvmlGpuInstanceProfileInfo_v2_t::default();
            Self::fill_gpu_instance_profile(Self::gpu_instance_profile(d, profile)?, &mut v2);
            put(
                info,
                nvmlGpuInstanceProfileInfo_t {
                    id: v2.id,
                    isP2pSupported: v2.isP2pSupported,
                    sliceCount: v2.sliceCount,
                    instanceCount: v2.instanceCount,
                    multiprocessorCount: v2.multiprocessorCount,
                    copyEngineCount: v2.copyEngineCount,
                    decoderCount: v2.decoderCount,
                    encoderCount: v2.encoderCount,
                    jpegCount: v2.jpegCount,
                    ofaCount: v2.ofaCount,
                    memorySizeMB: v2.memorySizeMB,
                },
            )
        })
    }

    fn nvmlDeviceGetGpuInstanceProfileInfoV(&self, device: nvmlDevice_t, profile: c_uint, info: *mut nvmlGpuInstanceProfileInfo_v2_t) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            check_version(info, nvmlGpuInstanceProfileInfo_v2)?;
            let mut v2 = nvmlGpuInstanceProfileInfo_v2_t { version: nvmlGpuInstanceProfileInfo_v2, ..Default::default() };
            Self::fill_gpu_instance_profile(Self::gpu_instance_profile(d, profile)?, &mut v2);
            put(info, v2)
        })
    }

    fn nvmlDeviceGetGpuInstances(&self, device: nvmlDevice_t, profile_id: c_uint, gis: *mut nvmlGpuInstance_t, count: *mut c_uint) -> nvmlReturn_t {
        self.dev(device, |sys, d| {
            if d.spec.bool("mig.mode") != Some(true) {
                return Err(NVML_ERROR_NOT_SUPPORTED);
            }
            let found: Vec<nvmlGpuInstance_t> =
                sys.gpu_instances.iter().filter(|g| g.device == d.index && g.profile_id == profile_id).map(|g| gi_handle(g)).collect();
            put_all(count, gis, &found)
        })
    }

    fn nvmlDeviceGetGpuInstanceById(&self, device: nvmlDevice_t, id: c_uint, gi: *mut nvmlGpuInstance_t) -> nvmlReturn_t {
        self.dev(device, |sys, d| {
            if d.spec.bool("mig.mode") != Some(true) {
                return Err(NVML_ERROR_NOT_SUPPORTED);
            }
            let g = sys.gpu_instances.iter().find(|g| g.device == d.index && g.id == id).ok_or(NVML_ERROR_NOT_FOUND)?;
            put(gi, gi_handle(g))
        })
    }

    fn nvmlGpuInstanceGetInfo(&self, gi: nvmlGpuInstance_t, info: *mut nvmlGpuInstanceInfo_t) -> nvmlReturn_t {
        code(self.sys().and_then(|sys| {
            let g = sys.gpu_instance(gi)?;
            put(
                info,
                nvmlGpuInstanceInfo_t {
                    device: sys.handle(g.device),
                    id: g.id,
                    profileId: g.profile_id,
                    placement: nvmlGpuInstancePlacement_t { start: g.placement.0, size: g.placement.1 },
                },
            )
        }))
    }

    fn nvmlGpuInstanceGetComputeInstanceProfileInfo(&self, gi: nvmlGpuInstance_t, profile: c_uint, eng: c_uint, info: *mut nvmlComputeInstanceProfileInfo_t) -> nvmlReturn_t {
        code(self.sys().and_then(|sys| {
            if eng != NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED as c_uint {
                return Err(NVML_ERROR_NOT_SUPPORTED);
            }
            let v2 = Self::compute_instance_profile(&sys, sys.gpu_instance(gi)?, profile)?;
            put(
                info,
                nvmlComputeInstanceProfileInfo_t {
                    id: v2.id,
                    sliceCount: v2.sliceCount,
                    instanceCount: v2.instanceCount,
                    multiprocessorCount: v2.multiprocessorCount,
                    sharedCopyEngineCount: v2.sharedCopyEngineCount,
                    sharedDecoderCount: v2.sharedDecoderCount,
                    sharedEncoderCount: v2.sharedEncoderCount,
                    sharedJpegCount: v2.sharedJpegCount,
                    sharedOfaCount: v2.sharedOfaCount,
                },
            )
        }))
    }

    fn nvmlGpuInstanceGetComputeInstanceProfileInfoV(&self, gi: nvmlGpuInstance_t, profile: c_uint, eng: c_uint, info: *mut nvmlComputeInstanceProfileInfo_v2_t) -> nvmlReturn_t {
        code(self.sys().and_then(|sys| {
            check_version(info, nvmlComputeInstanceProfileInfo_v2)?;
            if eng != NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED as c_uint {
                return Err(NVML_ERROR_NOT_SUPPORTED);
            }
            put(info, Self::compute_instance_profile(&sys, sys.gpu_instance(gi)?, profile)?)
        }))
    }

    fn nvmlGpuInstanceGetComputeInstances(&self, gi: nvmlGpuInstance_t, profile_id: c_uint, cis: *mut nvmlComputeInstance_t, count: *mut c_uint) -> nvmlReturn_t {
        code(self.sys().and_then(|sys| {
            let g = sys.gpu_instance(gi)?;
            let found: Vec<nvmlComputeInstance_t> = g.compute_instances.iter().filter(|c| c.profile == profile_id).map(|c| ci_handle(c)).collect();
            put_all(count, cis, &found)
        }))
    }

    fn nvmlComputeInstanceGetInfo(&self, ci: nvmlComputeInstance_t, info: *mut nvmlComputeInstanceInfo_t) -> nvmlReturn_t {
        self.compute_instance_info(ci, info)
    }

    fn nvmlComputeInstanceGetInfo_v2(&self, ci: nvmlComputeInstance_t, info: *mut nvmlComputeInstanceInfo_t) -> nvmlReturn_t {
        self.compute_instance_info(ci, info)
    }

    // Processes: the legacy symbols use the v1 layout, `_v2` and `_v3` the v2 layout.

    fn nvmlDeviceGetComputeRunningProcesses(&self, device: nvmlDevice_t, count: *mut c_uint, infos: *mut nvmlProcessInfo_v1_t) -> nvmlReturn_t {
        self.processes_v1(device, "compute", count, infos)
    }

    fn nvmlDeviceGetComputeRunningProcesses_v2(&self, device: nvmlDevice_t, count: *mut c_uint, infos: *mut nvmlProcessInfo_v2_t) -> nvmlReturn_t {
        self.processes_v2(device, "compute", count, infos)
    }

    fn nvmlDeviceGetComputeRunningProcesses_v3(&self, device: nvmlDevice_t, count: *mut c_uint, infos: *mut nvmlProcessInfo_t) -> nvmlReturn_t {
        self.processes_v2(device, "compute", count, infos)
    }

    fn nvmlDeviceGetGraphicsRunningProcesses(&self, device: nvmlDevice_t, count: *mut c_uint, infos: *mut nvmlProcessInfo_v1_t) -> nvmlReturn_t {
        self.processes_v1(device, "graphics", count, infos)
    }

    fn nvmlDeviceGetGraphicsRunningProcesses_v2(&self, device: nvmlDevice_t, count: *mut c_uint, infos: *mut nvmlProcessInfo_v2_t) -> nvmlReturn_t {
        self.processes_v2(device, "graphics", count, infos)
    }

    fn nvmlDeviceGetGraphicsRunningProcesses_v3(&self, device: nvmlDevice_t, count: *mut c_uint, infos: *mut nvmlProcessInfo_t) -> nvmlReturn_t {
        self.processes_v2(device, "graphics", count, infos)
    }

    fn nvmlDeviceGetRunningProcessDetailList(&self, device: nvmlDevice_t, plist: *mut nvmlProcessDetailList_t) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            check_version(plist, nvmlProcessDetailList_v1)?;
            let req = get(plist)?;
            let kinds: &[&str] = match req.mode {
                NVML_PROCESS_MODE_COMPUTE => &["compute"],
                NVML_PROCESS_MODE_GRAPHICS => &["graphics"],
                // The profiles run no MPS server.
                NVML_PROCESS_MODE_MPS => &[],
                NVML_PROCESS_MODE_ALL => &["compute", "graphics"],
                _ => return Err(NVML_ERROR_INVALID_ARGUMENT),
            };
            let list = match kinds {
                [] => need(d.spec.list("processes.compute")).map(|_| Vec::new())?,
                _ => processes(d, kinds, req.numProcArrayEntries)?,
            };
            let details: Vec<nvmlProcessDetail_v1_t> = list
                .iter()
                .map(|(p, v)| nvmlProcessDetail_v1_t {
                    pid: p.pid,
                    usedGpuMemory: p.usedGpuMemory,
                    gpuInstanceId: p.gpuInstanceId,
                    computeInstanceId: p.computeInstanceId,
                    usedGpuCcProtectedMemory: process_u64(*v, "cc_protected_memory"),
                })
                .collect();
            put_list_in(plist, |l| (&mut l.numProcArrayEntries, l.procArray), &details)
        })
    }

    fn nvmlDeviceGetProcessesUtilizationInfo(&self, device: nvmlDevice_t, info: *mut nvmlProcessesUtilizationInfo_t) -> nvmlReturn_t {
        // One sample per process (compute, then graphics, each pid once); only those newer
        // than `lastSeenTimeStamp`, and NOT_FOUND when the device has processes but none is.
        self.dev(device, |_, d| {
            check_version(info, nvmlProcessesUtilizationInfo_v1)?;
            if d.spec.bool("mig.mode") == Some(true) {
                return Err(NVML_ERROR_NOT_SUPPORTED);
            }
            let req = get(info)?;
            let mut pids = BTreeSet::new();
            let all: Vec<Proc> = processes(d, &["compute", "graphics"], req.processSamplesCount)?.into_iter().filter(|(p, _)| pids.insert(p.pid)).collect();
            let fresh: Vec<_> = all.iter().map(utilization_sample).filter(|s| s.timeStamp > req.lastSeenTimeStamp).collect();
            put_list_in(info, |i| (&mut i.processSamplesCount, i.procUtilArray), &fresh)?;
            if fresh.is_empty() && !all.is_empty() {
                return Err(NVML_ERROR_NOT_FOUND);
            }
            Ok(())
        })
    }

    // Topology.

    fn nvmlDeviceGetTopologyCommonAncestor(&self, a: nvmlDevice_t, b: nvmlDevice_t, path: *mut nvmlGpuTopologyLevel_t) -> nvmlReturn_t {
        code(self.sys().and_then(|sys| {
            let (da, db) = (sys.device(a)?, sys.device(b)?);
            let numa = |d: &Device| d.spec.i64("numa_node");
            let level = if da.index == db.index {
                NVML_TOPOLOGY_INTERNAL
            } else if numa(da).is_some() && numa(da) == numa(db) {
                NVML_TOPOLOGY_HOSTBRIDGE
            } else {
                NVML_TOPOLOGY_SYSTEM
            };
            put(path, level)
        }))
    }

    fn nvmlDeviceGetP2PStatus(&self, a: nvmlDevice_t, b: nvmlDevice_t, _caps: nvmlGpuP2PCapsIndex_t, status: *mut nvmlGpuP2PStatus_t) -> nvmlReturn_t {
        code(self.sys().and_then(|sys| {
            let (da, db) = (sys.device(a)?, sys.device(b)?);
            let ok = da.index != db.index && da.spec.u32("nvlink.links").is_some_and(|n| n > 0);
            put(status, if ok { NVML_P2P_STATUS_OK } else { NVML_P2P_STATUS_NOT_SUPPORTED })
        }))
    }

    // Field values.

    fn nvmlDeviceGetFieldValues(&self, device: nvmlDevice_t, count: c_int, values: *mut nvmlFieldValue_t) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            if count < 0 || (count > 0 && values.is_null()) {
                return Err(NVML_ERROR_INVALID_ARGUMENT);
            }
            let table = d.spec.value("field_values").and_then(Value::as_mapping);
            for i in 0..count as usize {
                // `values` holds `count` entries; each goes through the checked helpers.
                let slot = values.wrapping_add(i);
                let mut fv: nvmlFieldValue_t = get(slot)?;
                let found = table.and_then(|t| t.iter().find(|(k, _)| const_value(k) == Some(fv.fieldId as i128)));
                match found.and_then(|(_, v)| v.as_u64()) {
                    Some(v) => {
                        fv.nvmlReturn = NVML_SUCCESS;
                        fv.valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
                        fv.value = nvmlValue_t { ullVal: v };
                    }
                    None => fv.nvmlReturn = NVML_ERROR_NOT_SUPPORTED,
                }
                put(slot, fv)?;
            }
            Ok(())
        })
    }

    // Events.

    fn nvmlEventSetCreate(&self, set: *mut nvmlEventSet_t) -> nvmlReturn_t {
        code(self.sys().and_then(|sys| {
            if set.is_null() {
                return Err(NVML_ERROR_INVALID_ARGUMENT);
            }
            put(set, sys.event_sets.add(EventSet::default()) as nvmlEventSet_t)
        }))
    }

    fn nvmlDeviceGetSupportedEventTypes(&self, device: nvmlDevice_t, types: *mut c_ulonglong) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            let mask = need(d.spec.list("supported_events"))?.iter().filter_map(const_value).fold(0u64, |m, v| m | v as u64);
            put(types, mask)
        })
    }

    fn nvmlDeviceRegisterEvents(&self, device: nvmlDevice_t, types: c_ulonglong, set: nvmlEventSet_t) -> nvmlReturn_t {
        self.dev(device, |sys, d| {
            let supported = need(d.spec.list("supported_events"))?.iter().filter_map(const_value).fold(0u64, |m, v| m | v as u64);
            if types & !supported != 0 {
                return Err(NVML_ERROR_NOT_SUPPORTED);
            }
            sys.event_sets.get(set.cast())?.register(d.index, types, &sys.profile.events);
            Ok(())
        })
    }

    fn nvmlEventSetWait(&self, set: nvmlEventSet_t, data: *mut nvmlEventData_t, timeout_ms: c_uint) -> nvmlReturn_t {
        self.event_wait(set, data, timeout_ms)
    }

    fn nvmlEventSetWait_v2(&self, set: nvmlEventSet_t, data: *mut nvmlEventData_t, timeout_ms: c_uint) -> nvmlReturn_t {
        self.event_wait(set, data, timeout_ms)
    }

    fn nvmlEventSetFree(&self, set: nvmlEventSet_t) -> nvmlReturn_t {
        code(self.sys().and_then(|sys| sys.event_sets.remove(set.cast())))
    }

    // System events.

    fn nvmlSystemEventSetCreate(&self, request: *mut nvmlSystemEventSetCreateRequest_t) -> nvmlReturn_t {
        code(self.sys().and_then(|sys| {
            check_version(request, nvmlSystemEventSetCreateRequest_v1)?;
            let mut r = get(request)?;
            r.set = sys.system_event_sets.add(SystemEventSet::default()) as nvmlSystemEventSet_t;
            put(request, r)
        }))
    }

    fn nvmlSystemRegisterEvents(&self, request: *mut nvmlSystemRegisterEventRequest_t) -> nvmlReturn_t {
        code(self.sys().and_then(|sys| {
            check_version(request, nvmlSystemRegisterEventRequest_v1)?;
            let r = get(request)?;
            let set = sys.system_event_sets.get(r.set.cast())?;
            // Unknown types register nothing, as the header says of NOT_SUPPORTED.
            let known = (nvmlSystemEventTypeGpuDriverUnbind | nvmlSystemEventTypeGpuDriverBind) as u64;
            if r.eventTypes & !known != 0 {
                return Err(NVML_ERROR_NOT_SUPPORTED);
            }
            set.register(r.eventTypes);
            Ok(())
        }))
    }

    fn nvmlSystemEventSetWait(&self, request: *mut nvmlSystemEventSetWaitRequest_t) -> nvmlReturn_t {
        code(self.sys().and_then(|sys| {
            check_version(request, nvmlSystemEventSetWaitRequest_v1)?;
            let mut r = get(request)?;
            let set = sys.system_event_sets.get(r.set.cast())?;
            if r.data.is_null() || r.dataSize == 0 {
                return Err(NVML_ERROR_INVALID_ARGUMENT);
            }
            let events = set.take(&sys.profile.system_events, r.dataSize as usize, r.timeoutms);
            let data: Vec<nvmlSystemEventData_v1_t> = events.iter().map(|e| nvmlSystemEventData_v1_t { eventType: e.event_type, gpuId: e.gpu_id }).collect();
            put_items(r.data, &data)?;
            r.numEvent = data.len() as c_uint;
            put(request, r)?;
            if data.is_empty() {
                return Err(NVML_ERROR_TIMEOUT);
            }
            Ok(())
        }))
    }

    fn nvmlSystemEventSetFree(&self, request: *mut nvmlSystemEventSetFreeRequest_t) -> nvmlReturn_t {
        code(self.sys().and_then(|sys| {
            check_version(request, nvmlSystemEventSetFreeRequest_v1)?;
            sys.system_event_sets.remove(get(request)?.set.cast())
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::constant;

    #[test]
    fn constants_resolve_by_name() {
        assert_eq!(constant("NVML_ERROR_GPU_IS_LOST"), Some(NVML_ERROR_GPU_IS_LOST as i128));
        assert_eq!(constant("NVML_NOT_A_CONSTANT"), None);
    }
}
