//! vGPU: the instances a host runs (`vgpu.instances` of a device: `{id, nvmlVgpuInstanceGet...:
//! ...}`) and what derives from their values. vGPU types (`vgpu_types`) and most instance
//! queries are values of the profile (`generated/answers.rs`).

use std::ffi::{c_uint, c_ulonglong};

use nvml_sys::*;
use serde_yaml::Value;

use super::{now_us, Device, Engine, System};
use crate::answer::{Entry, Object, Val};
use crate::ffi::{check_version, get, put, put_all, put_list, put_list_in, set_chars, uint_value};

/// The entry prefix of a vGPU instance's values in its device's entries.
pub fn instance_prefix(id: u32) -> String {
    format!("vgpu.instance.{id}.")
}

/// The ids of a device's vGPU instances.
fn instance_ids(d: &Device) -> Vec<u32> {
    d.spec
        .list("vgpu.instances")
        .unwrap_or_default()
        .iter()
        .filter_map(|i| i.get("id").and_then(Value::as_u64))
        .map(|i| i as u32)
        .collect()
}

/// The device running vGPU instance `id`.
pub fn instance(sys: &System, id: u32) -> Option<&Device> {
    sys.devices.iter().map(|d| &**d).find(|d| instance_ids(d).contains(&id))
}

/// The instances the host runs on a device.
pub fn nvmlDeviceGetActiveVgpus(
    e: &Engine,
    device: nvmlDevice_t,
    count: *mut c_uint,
    instances: *mut nvmlVgpuInstance_t,
) -> nvmlReturn_t {
    e.dev(device, |_, d| put_list(count, instances, &instance_ids(d)))
}

/// Encoder statistics derived from the session list the profile gives `function`: `(sessions,
/// average fps, average latency)`, or the error it gives the list.
fn encoder_stats(sys: &System, function: &str, object: Object) -> Result<(u32, u32, u32), nvmlReturn_t> {
    let sessions = match sys.entry(function, object).and_then(|e| e.select(&[])) {
        Some(Entry::Values(v)) => v.first().map(Val::items).unwrap_or_default(),
        Some(Entry::Error { code, .. }) => return Err(*code),
        _ => return Err(NVML_ERROR_NOT_SUPPORTED),
    };
    let n = sessions.len() as u64;
    let avg = |f: &str| sessions.iter().map(|s| s.field(f).uint()).sum::<u64>().checked_div(n).unwrap_or(0) as u32;
    Ok((n as u32, avg("averageFps"), avg("averageLatency")))
}

/// Three scalars, as the header says: NULL for any of them is `INVALID_ARGUMENT` (before
/// `stats` is asked for).
fn put_stats(
    stats: impl FnOnce() -> Result<(u32, u32, u32), nvmlReturn_t>,
    count: *mut c_uint,
    fps: *mut c_uint,
    latency: *mut c_uint,
) -> crate::ffi::Status {
    if count.is_null() || fps.is_null() || latency.is_null() {
        return Err(NVML_ERROR_INVALID_ARGUMENT);
    }
    let stats = stats()?;
    put(count, stats.0)?;
    put(fps, stats.1)?;
    put(latency, stats.2)
}

/// The sessions of `nvmlDeviceGetEncoderSessions`, summarised.
pub fn nvmlDeviceGetEncoderStats(
    e: &Engine,
    device: nvmlDevice_t,
    count: *mut c_uint,
    fps: *mut c_uint,
    latency: *mut c_uint,
) -> nvmlReturn_t {
    e.with(|sys| {
        sys.device(device)?;
        put_stats(|| encoder_stats(sys, "nvmlDeviceGetEncoderSessions", Object::Device(device)), count, fps, latency)
    })
}

/// The sessions of `nvmlVgpuInstanceGetEncoderSessions`, summarised.
pub fn nvmlVgpuInstanceGetEncoderStats(
    e: &Engine,
    vgpu: nvmlVgpuInstance_t,
    count: *mut c_uint,
    fps: *mut c_uint,
    latency: *mut c_uint,
) -> nvmlReturn_t {
    e.with(|sys| {
        if vgpu == 0 {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        let stats = || {
            instance(sys, vgpu).ok_or(NVML_ERROR_NOT_FOUND)?;
            encoder_stats(sys, "nvmlVgpuInstanceGetEncoderSessions", Object::VgpuInstance(vgpu))
        };
        put_stats(stats, count, fps, latency)
    })
}

/// What a host GPU's vGPU state derives from: its supported types (the profile's
/// `nvmlDeviceGetSupportedVgpus`) and its instances' types and placements.
struct Host {
    /// `(type, max instances)` of each supported type.
    types: Vec<(u32, u32)>,
    /// `(instance, type, placement)` of each running instance.
    running: Vec<(u32, u32, u32)>,
    /// The GPU's placement slots: as many as the smallest type has instances.
    slots: u32,
}

impl Host {
    fn of(sys: &System, d: &Device) -> Result<Host, nvmlReturn_t> {
        let h = Object::Device(sys.handle(d.index));
        let supported = sys.value("nvmlDeviceGetSupportedVgpus", h, &[]).ok_or(NVML_ERROR_NOT_SUPPORTED)?;
        let types: Vec<(u32, u32)> = supported
            .items()
            .iter()
            .map(|t| t.uint() as u32)
            .map(|t| {
                (t, sys.value("nvmlVgpuTypeGetMaxInstances", h, &[t as i64]).map(|m| m.uint() as u32).unwrap_or(0))
            })
            .collect();
        let slots = types.iter().map(|t| t.1).max().unwrap_or(0);
        let scalar = |f: &str, id: u32, field: Option<&str>| {
            let v = sys.value(f, Object::VgpuInstance(id), &[]);
            v.map(|v| field.map_or(v, |n| v.field(n)).uint() as u32).unwrap_or(0)
        };
        let running = instance_ids(d)
            .into_iter()
            .map(|id| {
                (
                    id,
                    scalar("nvmlVgpuInstanceGetType", id, None),
                    scalar("nvmlVgpuInstanceGetPlacementId", id, Some("placementId")),
                )
            })
            .collect();
        Ok(Host { types, running, slots })
    }

    /// The slots an instance of `ty` takes (`None`: not a supported type).
    fn size(&self, ty: u32) -> Option<u32> {
        self.types.iter().find(|t| t.0 == ty).filter(|t| t.1 > 0).map(|t| self.slots / t.1)
    }

    /// Every placement of `ty`: the multiples of its size.
    fn supported(&self, ty: u32) -> Option<Vec<u32>> {
        let size = self.size(ty)?;
        Some((0..self.slots / size).map(|i| i * size).collect())
    }

    /// The placements of `ty` free now: homogeneous mode runs one type per GPU, and a
    /// placement must not overlap a running instance's slots.
    fn creatable(&self, ty: u32) -> Option<Vec<u32>> {
        let size = self.size(ty)?;
        if self.running.iter().any(|r| r.1 != ty) {
            return Some(Vec::new());
        }
        let taken = |p: u32| self.running.iter().any(|r| p < r.2 + size && r.2 < p + size);
        Some(self.supported(ty)?.into_iter().filter(|p| !taken(*p)).collect())
    }
}

/// The types with a free placement.
pub fn nvmlDeviceGetCreatableVgpus(
    e: &Engine,
    device: nvmlDevice_t,
    count: *mut c_uint,
    types: *mut nvmlVgpuTypeId_t,
) -> nvmlReturn_t {
    e.dev(device, |sys, d| {
        let host = Host::of(sys, d)?;
        let creatable: Vec<u32> =
            host.types.iter().map(|t| t.0).filter(|t| host.creatable(*t).is_some_and(|p| !p.is_empty())).collect();
        put_list(count, types, &creatable)
    })
}

/// A placement list: `nvmlVgpuPlacementList_v2`, whose `count` is in and out (the count
/// protocol: `INSUFFICIENT_SIZE` with the count needed), or `_v1`, whose `count` is out only
/// ("Count of placement IDs fetched"; the caller sizes the array by the type's maximum
/// instances, as the header says). The `mode` of v2 changes nothing in homogeneous mode.
fn put_placements(sys: &System, list: *mut nvmlVgpuPlacementList_t, size: u32, ids: &[u32]) -> crate::ffi::Status {
    let version = get(list as *const c_uint)?;
    // A driver before v2 answers it as an unknown version.
    if version == nvmlVgpuPlacementList_v2 && !sys.knows_version("nvmlVgpuPlacementList_v2") {
        return Err(NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    }
    // The fields up to `placementIds` are those of v1: a v1 caller's struct is no longer.
    let v1 = list as *mut nvmlVgpuPlacementList_v1_t;
    let mut l = get(v1)?;
    l.placementSize = size;
    let status = if version == nvmlVgpuPlacementList_v2 {
        put_list(&mut l.count, l.placementIds, ids)
    } else if version == nvmlVgpuPlacementList_v1 {
        put_all(&mut l.count, l.placementIds, ids)
    } else {
        return Err(NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    };
    put(v1, l)?;
    status
}

fn placements(
    e: &Engine,
    device: nvmlDevice_t,
    ty: nvmlVgpuTypeId_t,
    list: *mut nvmlVgpuPlacementList_t,
    creatable: bool,
) -> nvmlReturn_t {
    e.dev(device, |sys, d| {
        if list.is_null() {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        let host = Host::of(sys, d)?;
        let size = host.size(ty).ok_or(NVML_ERROR_INVALID_ARGUMENT)?;
        let ids = if creatable { host.creatable(ty) } else { host.supported(ty) };
        put_placements(sys, list, size, &ids.unwrap_or_default())
    })
}

pub fn nvmlDeviceGetVgpuTypeSupportedPlacements(
    e: &Engine,
    device: nvmlDevice_t,
    ty: nvmlVgpuTypeId_t,
    list: *mut nvmlVgpuPlacementList_t,
) -> nvmlReturn_t {
    placements(e, device, ty, list, false)
}

pub fn nvmlDeviceGetVgpuTypeCreatablePlacements(
    e: &Engine,
    device: nvmlDevice_t,
    ty: nvmlVgpuTypeId_t,
    list: *mut nvmlVgpuPlacementList_t,
) -> nvmlReturn_t {
    placements(e, device, ty, list, true)
}

/// One utilisation sample per instance, taken now: `[sm, memory, encoder, decoder]` percent
/// (each instance's `utilization`, which its GPU's utilisation sums).
fn instance_samples(d: &Device) -> Vec<(u32, [u32; 4])> {
    let instances = d.spec.list("vgpu.instances").unwrap_or_default();
    instances
        .iter()
        .filter_map(|i| {
            let id = i.get("id")?.as_u64()? as u32;
            let u = |k: &str| i.get("utilization").and_then(|u| u.get(k)).and_then(Value::as_u64).unwrap_or(0) as u32;
            Some((id, [u("sm"), u("memory"), u("encoder"), u("decoder")]))
        })
        .collect()
}

/// Samples of the instances newer than `last_seen`: `NOT_FOUND` when there are instances but
/// none is newer (a real GPU keeps samples only since the last read).
fn fresh_samples(d: &Device, last_seen: u64) -> Result<Vec<(u64, u32, [u32; 4])>, nvmlReturn_t> {
    let now = now_us();
    let all = instance_samples(d);
    let fresh: Vec<_> = if now > last_seen { all.iter().map(|(id, u)| (now, *id, *u)).collect() } else { Vec::new() };
    if fresh.is_empty() && !all.is_empty() {
        return Err(NVML_ERROR_NOT_FOUND);
    }
    Ok(fresh)
}

pub fn nvmlDeviceGetVgpuUtilization(
    e: &Engine,
    device: nvmlDevice_t,
    last_seen: c_ulonglong,
    ty: *mut nvmlValueType_t,
    count: *mut c_uint,
    samples: *mut nvmlVgpuInstanceUtilizationSample_t,
) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        if ty.is_null() || count.is_null() || (!samples.is_null() && get(count)? == 0) {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        put(ty, NVML_VALUE_TYPE_UNSIGNED_INT)?;
        let items: Vec<_> = fresh_samples(d, last_seen)?
            .into_iter()
            .map(|(ts, id, u)| nvmlVgpuInstanceUtilizationSample_t {
                vgpuInstance: id,
                timeStamp: ts,
                smUtil: uint_value(u[0]),
                memUtil: uint_value(u[1]),
                encUtil: uint_value(u[2]),
                decUtil: uint_value(u[3]),
            })
            .collect();
        put_list(count, samples, &items)
    })
}

pub fn nvmlDeviceGetVgpuInstancesUtilizationInfo(
    e: &Engine,
    device: nvmlDevice_t,
    info: *mut nvmlVgpuInstancesUtilizationInfo_t,
) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        check_version(info, nvmlVgpuInstancesUtilizationInfo_v1)?;
        let req = get(info)?;
        if !req.vgpuUtilArray.is_null() && req.vgpuInstanceCount == 0 {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        let zero = uint_value(0);
        let items: Vec<_> = fresh_samples(d, req.lastSeenTimeStamp)?
            .into_iter()
            .map(|(ts, id, u)| nvmlVgpuInstanceUtilizationInfo_v1_t {
                timeStamp: ts,
                vgpuInstance: id,
                smUtil: uint_value(u[0]),
                memUtil: uint_value(u[1]),
                encUtil: uint_value(u[2]),
                decUtil: uint_value(u[3]),
                jpgUtil: zero,
                ofaUtil: zero,
            })
            .collect();
        let mut out = req;
        out.sampleValType = NVML_VALUE_TYPE_UNSIGNED_INT;
        put(info, out)?;
        put_list_in(info, |i| (&mut i.vgpuInstanceCount, i.vgpuUtilArray), &items)
    })
}

/// The processes inside the VMs: the profiles sample none (the guests' processes are the
/// guests' to report), so the list is empty.
pub fn nvmlDeviceGetVgpuProcessesUtilizationInfo(
    e: &Engine,
    device: nvmlDevice_t,
    info: *mut nvmlVgpuProcessesUtilizationInfo_t,
) -> nvmlReturn_t {
    e.dev(device, |_, _| {
        check_version(info, nvmlVgpuProcessesUtilizationInfo_v1)?;
        put_list_in(info, |i| (&mut i.vgpuProcessCount, i.vgpuProcUtilArray), &[])
    })
}

/// The `bufferSize` protocol of the metadata getters: NULL size is `INVALID_ARGUMENT`, so is
/// a NULL buffer with a non-zero size; a short size answers `INSUFFICIENT_SIZE` with the size
/// needed, the struct's (whose 4 bytes of opaque data the mock fills, `opaqueDataSize` 4).
fn put_metadata<T>(buf: *mut T, size: *mut c_uint, value: T) -> crate::ffi::Status {
    let have = get(size)?;
    if buf.is_null() && have != 0 {
        return Err(NVML_ERROR_INVALID_ARGUMENT);
    }
    let need = std::mem::size_of::<T>() as u32;
    if have < need {
        put(size, need)?;
        return Err(NVML_ERROR_INSUFFICIENT_SIZE);
    }
    put(size, need)?;
    put(buf, value)
}

/// The vGPU version range the host supports (`nvmlGetVgpuVersion`'s `supported`).
fn host_range(sys: &System) -> nvmlVgpuVersion_t {
    let v = sys.value("nvmlGetVgpuVersion", Object::System, &[]);
    let field = |n: &str| v.map(|v| v.field(n).uint() as u32).unwrap_or(0);
    nvmlVgpuVersion_t { minVersion: field("minVersion"), maxVersion: field("maxVersion") }
}

fn host_driver(sys: &System) -> &str {
    sys.profile.system.str("driver_version").unwrap_or("")
}

/// A running instance's metadata: its guest's driver (`nvmlVgpuInstanceGetVmDriverVersion`),
/// the host's, and the guest's vGPU version (the newest the host supports).
pub fn nvmlVgpuInstanceGetMetadata(
    e: &Engine,
    vgpu: nvmlVgpuInstance_t,
    meta: *mut nvmlVgpuMetadata_t,
    size: *mut c_uint,
) -> nvmlReturn_t {
    e.with(|sys| {
        if vgpu == 0 || size.is_null() {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        instance(sys, vgpu).ok_or(NVML_ERROR_NOT_FOUND)?;
        let guest = sys
            .value("nvmlVgpuInstanceGetVmDriverVersion", Object::VgpuInstance(vgpu), &[])
            .map(|v| v.str().to_string());
        let mut m = nvmlVgpuMetadata_t { version: 1, revision: 1, ..Default::default() };
        m.guestInfoState = if guest.is_some() {
            NVML_VGPU_INSTANCE_GUEST_INFO_STATE_INITIALIZED
        } else {
            NVML_VGPU_INSTANCE_GUEST_INFO_STATE_UNINITIALIZED
        };
        set_chars(&mut m.guestDriverVersion, guest.as_deref().unwrap_or(""));
        set_chars(&mut m.hostDriverVersion, host_driver(sys));
        m.guestVgpuVersion = host_range(sys).maxVersion;
        m.opaqueDataSize = 4;
        put_metadata(meta, size, m)
    })
}

/// The host GPU's metadata: the host driver and the vGPU versions it supports.
pub fn nvmlDeviceGetVgpuMetadata(
    e: &Engine,
    device: nvmlDevice_t,
    meta: *mut nvmlVgpuPgpuMetadata_t,
    size: *mut c_uint,
) -> nvmlReturn_t {
    e.dev(device, |sys, _| {
        if size.is_null() {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        let mut m = nvmlVgpuPgpuMetadata_t { version: 1, revision: 1, ..Default::default() };
        set_chars(&mut m.hostDriverVersion, host_driver(sys));
        m.pgpuVirtualizationCaps = NVML_VGPU_PGPU_VIRTUALIZATION_CAP_MIGRATION_YES as u32;
        m.hostSupportedVgpuRange = host_range(sys);
        m.opaqueDataSize = 4;
        put_metadata(meta, size, m)
    })
}

/// A guest whose vGPU version the host's range holds boots live; otherwise the guest driver
/// limits it.
pub fn nvmlGetVgpuCompatibility(
    e: &Engine,
    vgpu: *mut nvmlVgpuMetadata_t,
    pgpu: *mut nvmlVgpuPgpuMetadata_t,
    info: *mut nvmlVgpuPgpuCompatibility_t,
) -> nvmlReturn_t {
    e.with(|_| {
        if info.is_null() {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        let (guest, host) = (get(vgpu)?, get(pgpu)?);
        let range = host.hostSupportedVgpuRange;
        let ok = (range.minVersion..=range.maxVersion).contains(&guest.guestVgpuVersion);
        let answer = if ok {
            nvmlVgpuPgpuCompatibility_t {
                vgpuVmCompatibility: NVML_VGPU_VM_COMPATIBILITY_LIVE,
                compatibilityLimitCode: NVML_VGPU_COMPATIBILITY_LIMIT_NONE,
            }
        } else {
            nvmlVgpuPgpuCompatibility_t {
                vgpuVmCompatibility: NVML_VGPU_VM_COMPATIBILITY_NONE,
                compatibilityLimitCode: NVML_VGPU_COMPATIBILITY_LIMIT_GUEST_DRIVER,
            }
        };
        put(info, answer)
    })
}

/// Sets the vGPU versions the host accepts (`nvmlGetVgpuVersion`'s `current`): a range within
/// the supported one.
pub fn nvmlSetVgpuVersion(e: &Engine, version: *mut nvmlVgpuVersion_t) -> nvmlReturn_t {
    e.with(|sys| {
        let want = get(version)?;
        let supported = sys.value("nvmlGetVgpuVersion", Object::System, &[]).ok_or(NVML_ERROR_NOT_SUPPORTED)?;
        let range = host_range(sys);
        if want.minVersion > want.maxVersion || want.minVersion < range.minVersion || want.maxVersion > range.maxVersion
        {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        let current = Val::Record(
            [("minVersion", Val::Int(want.minVersion.into())), ("maxVersion", Val::Int(want.maxVersion.into()))].into(),
        );
        let supported = supported.clone();
        sys.set_live("nvmlGetVgpuVersion", Object::System, &[], vec![supported, current])
    })
}

/// Sets a running instance's encoder capacity (0 to 100), which it then answers.
pub fn nvmlVgpuInstanceSetEncoderCapacity(e: &Engine, vgpu: nvmlVgpuInstance_t, capacity: c_uint) -> nvmlReturn_t {
    e.with(|sys| {
        if vgpu == 0 || capacity > 100 {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        instance(sys, vgpu).ok_or(NVML_ERROR_NOT_FOUND)?;
        let f = "nvmlVgpuInstanceGetEncoderCapacity";
        sys.set_live(f, Object::VgpuInstance(vgpu), &[], vec![Val::Int(capacity.into())])
    })
}

/// Empties a running instance's accounting list (where it keeps one: its error otherwise).
pub fn nvmlVgpuInstanceClearAccountingPids(e: &Engine, vgpu: nvmlVgpuInstance_t) -> nvmlReturn_t {
    e.with(|sys| {
        if vgpu == 0 {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        instance(sys, vgpu).ok_or(NVML_ERROR_NOT_FOUND)?;
        let f = "nvmlVgpuInstanceGetAccountingPids";
        match sys.entry(f, Object::VgpuInstance(vgpu)).and_then(|e| e.select(&[])) {
            Some(Entry::Error { code, .. }) => Err(*code),
            _ => sys.set_live(f, Object::VgpuInstance(vgpu), &[], vec![Val::List(Vec::new())]),
        }
    })
}

/// How many instances of a vGPU type the GPU runs at most: the profile's value, else
/// `INVALID_ARGUMENT` for a type the GPU does not support, and the GPU's answer of its
/// supported types (`NOT_SUPPORTED` on bare metal) when it supports none.
pub fn nvmlVgpuTypeGetMaxInstances(
    e: &Engine,
    device: nvmlDevice_t,
    ty: nvmlVgpuTypeId_t,
    count: *mut c_uint,
) -> nvmlReturn_t {
    e.dev(device, |sys, _| {
        let h = Object::Device(device);
        if let Some(v) = sys.value("nvmlVgpuTypeGetMaxInstances", h, &[ty as i64]) {
            return put(count, v.uint() as c_uint);
        }
        match sys.entry("nvmlDeviceGetSupportedVgpus", h).and_then(|e| e.select(&[])) {
            Some(Entry::Values(v))
                if !v.first().is_some_and(|l| l.items().iter().any(|t| t.uint() == u64::from(ty))) =>
            {
                Err(NVML_ERROR_INVALID_ARGUMENT)
            }
            Some(Entry::Error { code, .. }) => Err(*code),
            _ => Err(NVML_ERROR_NOT_SUPPORTED),
        }
    })
}
