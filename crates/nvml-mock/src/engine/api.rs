//! What the mock implements: the `Api` methods the engine overrides, grouped by area. Every
//! other function of the header keeps the generated default (`NVML_ERROR_NOT_SUPPORTED`).
//!
//! Values come from the device's profile; a value the profile leaves out answers
//! `NVML_ERROR_NOT_SUPPORTED`. Legacy symbols behave as their legacy versions (the v1
//! process-info layout, the legacy PCI bus id).

use std::ffi::{c_char, c_int, c_uint, c_ulonglong, CStr};

use nvml_sys::*;
use serde_yaml::Value;

use super::ffi::{check_version, code, get, put, put_all, put_list, put_str, read_str, set_chars, Status};
use super::mig::{ci_handle, gi_handle, GpuInstance};
use super::{error_string, Device, Engine, System};
use crate::generated::api::Api;
use crate::profile::const_value;

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

impl Engine {
    /// Runs `f` on the device behind `h` (rejecting unknown handles).
    fn dev(&self, h: nvmlDevice_t, f: impl FnOnce(&System, &Device) -> Status) -> nvmlReturn_t {
        code(self.sys().and_then(|sys| f(&sys, sys.device(h)?)))
    }

    /// The processes of a kind (`compute` or `graphics`), growing the list once per size
    /// query while the profile's `grow_processes` budget lasts.
    fn processes(&self, dev: &Device, kind: &str, count: *mut c_uint) -> Result<Vec<nvmlProcessInfo_v2_t>, nvmlReturn_t> {
        let mut list: Vec<nvmlProcessInfo_v2_t> = need(dev.spec.list(&format!("processes.{kind}")))?.iter().map(process).collect();
        let mut state = dev.state.lock().map_err(|_| NVML_ERROR_UNKNOWN)?;
        let next_pid = list.iter().map(|p| p.pid).max().unwrap_or(1000) + 1;
        list.extend((0..state.extra_processes).map(|i| nvmlProcessInfo_v2_t {
            pid: next_pid + i,
            usedGpuMemory: 256 << 20,
            gpuInstanceId: 0xFFFF_FFFF,
            computeInstanceId: 0xFFFF_FFFF,
        }));
        // A size query (capacity 0) that sees the budget left grows the list after answering.
        if get(count)? == 0 && state.grow_remaining > 0 {
            state.grow_remaining -= 1;
            state.extra_processes += 1;
        }
        Ok(list)
    }

    fn processes_v1(&self, device: nvmlDevice_t, kind: &str, count: *mut c_uint, infos: *mut nvmlProcessInfo_v1_t) -> nvmlReturn_t {
        self.dev(device, |_, d| {
            let list: Vec<nvmlProcessInfo_v1_t> = self
                .processes(d, kind, count)?
                .iter()
                .map(|p| nvmlProcessInfo_v1_t { pid: p.pid, usedGpuMemory: p.usedGpuMemory })
                .collect();
            put_list(count, infos, &list)
        })
    }

    fn processes_v2(&self, device: nvmlDevice_t, kind: &str, count: *mut c_uint, infos: *mut nvmlProcessInfo_v2_t) -> nvmlReturn_t {
        self.dev(device, |_, d| put_list(count, infos, &self.processes(d, kind, count)?))
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
        let Ok(p) = Self::pci_info(d) else { return String::new() };
        let bytes = p.busId.map(|c| c as u8);
        CStr::from_bytes_until_nul(&bytes).map(|c| c.to_string_lossy().into_owned()).unwrap_or_default()
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
        if !need(d.spec.bool("ecc.enabled"))? {
            return Err(NVML_ERROR_NOT_SUPPORTED);
        }
        need(d.spec.u64(&format!("ecc.{scope}.{kind}")))
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
            let es = sys.event_set(set)?;
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
            let stamps: Vec<u64> = (0..pages.len() as u64).map(|i| 1_700_000_000_000_000 + i).collect();
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
            put(set, sys.create_event_set())
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
            sys.event_set(set)?.register(d.index, types, &sys.profile.events);
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
        code(self.sys().and_then(|sys| sys.free_event_set(set)))
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
