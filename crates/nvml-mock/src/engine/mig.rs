//! MIG: a GPU's MIG tree (`crate::session::mig`: its mode, GPU instances and compute
//! instances, as its profile declares it or as clients changed it since), its profiles,
//! placements and remaining capacity, and the MIG devices (one per compute instance) that
//! clients use as device handles. Creating and destroying instances and changing the mode is
//! `engine/mig_change.rs`.
//!
//! A handle is an address this process gives the instance (or its MIG device) by its GPU and
//! serial ([`handle_of`]), kept for the life of the process: a destroyed instance's handle is
//! never another's, and answers `INVALID_ARGUMENT`, as a handle that is no longer valid does.

use std::collections::BTreeMap;
use std::ffi::c_uint;
use std::sync::Mutex;

use nvml_sys::*;
use serde_yaml::Value;

use super::{need, Device, DeviceRef, Engine, System};
use crate::ffi::{check_version, put, put_all, set_chars, Status};
use crate::profile::const_value;
use crate::session::mig::{Gpu as Tree, Table};

/// A compute instance inside a GPU instance, and its MIG device.
#[derive(Debug)]
pub struct ComputeInstance {
    /// Its serial on its GPU (see `crate::session::mig`).
    pub serial: u64,
    pub id: u32,
    /// The profile's `NVML_COMPUTE_INSTANCE_PROFILE_*` index.
    pub profile: u32,
    /// The unique id of the instance's profile (`nvmlComputeInstanceProfileInfo_t::id`).
    pub profile_id: u32,
    pub placement: (u32, u32),
    /// Its MIG device's index among its GPU's MIG devices.
    pub mig_index: u32,
    /// Its MIG device's UUID, where it has one of its own (a created instance's, a capture's);
    /// else derived from its GPU's.
    pub uuid: Option<String>,
    handle: usize,
    mig_handle: usize,
}

/// A GPU instance of a device.
#[derive(Debug)]
pub struct GpuInstance {
    pub device: usize,
    pub serial: u64,
    pub id: u32,
    /// The `NVML_GPU_INSTANCE_PROFILE_*` index of its profile.
    pub profile: u32,
    /// The unique id of the instance's profile (`nvmlGpuInstanceProfileInfo_t::id`).
    pub profile_id: u32,
    pub placement: (u32, u32),
    /// Its compute slices.
    pub slices: u32,
    pub compute_instances: Vec<ComputeInstance>,
    handle: usize,
}

/// What a handle is of: a GPU instance, a compute instance, a MIG device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Gi,
    Ci,
    Mig,
}

/// The handle of the instance of GPU `gpu` with serial `serial` (of `kind`): the address of a
/// word this process keeps for it from its first use to its exit, so the same instance has the
/// same handle in every system the process makes, and no other object has it, even after the
/// instance is destroyed (a few bytes per instance the process saw).
pub fn handle_of(gpu: usize, serial: u64, kind: Kind) -> usize {
    static HANDLES: Mutex<BTreeMap<(usize, u64, Kind), Box<u64>>> = Mutex::new(BTreeMap::new());
    let mut all = HANDLES.lock().unwrap_or_else(|p| p.into_inner());
    let word = all.entry((gpu, serial, kind)).or_insert_with(|| Box::new(serial));
    &**word as *const u64 as usize
}

fn u32_of(v: &Value, key: &str) -> u32 {
    v.get(key).and_then(const_value).unwrap_or(0) as u32
}

/// Whether a GPU is in MIG mode now.
pub fn mig_mode(d: &Device) -> bool {
    d.mig.as_ref().is_some_and(|t| t.mode)
}

/// The entry of `profiles` (a `mig.*_instance_profiles` list) for a profile index.
fn profile_entry(profiles: &[Value], index: u32) -> Option<&Value> {
    profiles.iter().find(|p| p.get("profile").and_then(const_value) == Some(index as i128))
}

/// Checks the MIG tree of a device in MIG mode against its instance profiles: every instance's
/// profile exists, and no profile has more instances than its profile info's `instanceCount`
/// (`instances` for a GPU instance; for a compute instance, its GPU instance's slices over its
/// own). NVML's instance lists have no capacity argument: a caller allocates what that count
/// says, so a tree beyond it would be written past the caller's array.
pub fn check_tree(d: &Device) -> Result<(), String> {
    if d.spec.bool("mig.mode") != Some(true) {
        return Ok(());
    }
    let at = |what: String| format!("device {}: mig.gpu_instances: {what}", d.index);
    let (gi_profiles, ci_profiles) = (
        d.spec.list("mig.gpu_instance_profiles").unwrap_or_default(),
        d.spec.list("mig.compute_instance_profiles").unwrap_or_default(),
    );
    let mut gis_per_profile: BTreeMap<u32, u32> = BTreeMap::new();
    for (i, gi) in d.spec.list("mig.gpu_instances").unwrap_or_default().iter().enumerate() {
        let profile = u32_of(gi, "profile");
        let info = profile_entry(gi_profiles, profile)
            .ok_or_else(|| at(format!("[{i}]: profile {profile} is not in mig.gpu_instance_profiles")))?;
        let n = gis_per_profile.entry(profile).or_default();
        *n += 1;
        if *n > u32_of(info, "instances") {
            return Err(at(format!(
                "more GPU instances of profile {profile} than its `instances` ({})",
                u32_of(info, "instances")
            )));
        }
        let mut cis_per_profile: BTreeMap<u32, u32> = BTreeMap::new();
        for (j, ci) in gi
            .get("compute_instances")
            .and_then(Value::as_sequence)
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .enumerate()
        {
            let profile = u32_of(ci, "profile");
            let ci_info = profile_entry(ci_profiles, profile).ok_or_else(|| {
                at(format!("[{i}].compute_instances[{j}]: profile {profile} is not in mig.compute_instance_profiles"))
            })?;
            let n = cis_per_profile.entry(profile).or_default();
            *n += 1;
            let most = u32_of(info, "slices") / u32_of(ci_info, "slices").max(1);
            if *n > most {
                return Err(at(format!(
                    "[{i}]: more compute instances of profile {profile} than fit its slices ({most})"
                )));
            }
        }
    }
    Ok(())
}

/// The GPU instances of a device's tree (none unless MIG mode is on), with their handles.
pub fn gpu_instances(d: &Device) -> Vec<GpuInstance> {
    let Some(tree) = d.mig.as_ref().filter(|t| t.mode) else { return Vec::new() };
    let table = &d.mig_table;
    let mut index = 0;
    (tree.gis.iter())
        .map(|g| {
            let compute_instances = (g.cis.iter())
                .map(|c| {
                    index += 1;
                    ComputeInstance {
                        serial: c.serial,
                        id: c.id,
                        profile: c.profile,
                        profile_id: table.ci_by_index(c.profile).map_or(0, |p| p.id),
                        placement: c.placement,
                        mig_index: index - 1,
                        uuid: c.uuid.clone(),
                        handle: handle_of(d.index, c.serial, Kind::Ci),
                        mig_handle: handle_of(d.index, c.serial, Kind::Mig),
                    }
                })
                .collect();
            GpuInstance {
                device: d.index,
                serial: g.serial,
                id: g.id,
                profile: g.profile,
                profile_id: table.gi_by_index(g.profile).map_or(0, |p| p.id),
                placement: g.placement,
                slices: table.gi_slices(g.profile),
                compute_instances,
                handle: handle_of(d.index, g.serial, Kind::Gi),
            }
        })
        .collect()
}

/// The tree of a GPU that can run MIG: `NOT_SUPPORTED` for one without MIG.
pub fn tree(d: &Device) -> Result<&Tree, nvmlReturn_t> {
    d.mig.as_ref().ok_or(NVML_ERROR_NOT_SUPPORTED)
}

impl System {
    pub fn gpu_instance(&self, h: nvmlGpuInstance_t) -> Result<&GpuInstance, nvmlReturn_t> {
        let h = h as usize;
        self.gpu_instances.iter().find(|g| g.handle == h).ok_or(NVML_ERROR_INVALID_ARGUMENT)
    }

    /// The compute instance behind a handle, with its GPU instance.
    pub fn compute_instance(&self, h: nvmlComputeInstance_t) -> Result<(&GpuInstance, &ComputeInstance), nvmlReturn_t> {
        self.find_ci(|c| c.handle == h as usize)
    }

    /// The compute instance whose MIG device a device handle is.
    pub fn mig_device(&self, h: nvmlDevice_t) -> Result<(&GpuInstance, &ComputeInstance), nvmlReturn_t> {
        self.find_ci(|c| c.mig_handle == h as usize)
    }

    fn find_ci(
        &self,
        hit: impl Fn(&ComputeInstance) -> bool,
    ) -> Result<(&GpuInstance, &ComputeInstance), nvmlReturn_t> {
        for g in &self.gpu_instances {
            if let Some(c) = g.compute_instances.iter().find(|c| hit(c)) {
                return Ok((g, c));
            }
        }
        Err(NVML_ERROR_INVALID_ARGUMENT)
    }

    /// A GPU's GPU instances.
    pub fn instances_of(&self, d: &Device) -> impl Iterator<Item = &GpuInstance> {
        let index = d.index;
        self.gpu_instances.iter().filter(move |g| g.device == index)
    }
}

pub fn gi_handle(g: &GpuInstance) -> nvmlGpuInstance_t {
    g.handle as nvmlGpuInstance_t
}

pub fn ci_handle(c: &ComputeInstance) -> nvmlComputeInstance_t {
    c.handle as nvmlComputeInstance_t
}

pub fn mig_handle(c: &ComputeInstance) -> nvmlDevice_t {
    c.mig_handle as nvmlDevice_t
}

/// The profile entry (`mig.gpu_instance_profiles`) of a GPU instance profile index.
fn gi_profile(d: &Device, profile: c_uint) -> Result<&Value, nvmlReturn_t> {
    let profiles = need(d.spec.list("mig.gpu_instance_profiles"))?;
    profile_entry(profiles, profile).ok_or(NVML_ERROR_NOT_SUPPORTED)
}

/// The profile entry whose unique id is `id`.
fn gi_profile_by_id(d: &Device, id: c_uint) -> Result<&Value, nvmlReturn_t> {
    let profiles = need(d.spec.list("mig.gpu_instance_profiles"))?;
    profiles.iter().find(|p| u32_of(p, "id") == id).ok_or(NVML_ERROR_NOT_SUPPORTED)
}

/// A MIG device's name: its GPU's, then the profile (`MIG 1c.3g.40gb` for a compute
/// instance smaller than its GPU instance), as the driver names them.
pub fn mig_name(parent: &Device, gi: &GpuInstance, ci: &ComputeInstance) -> String {
    let gpu = parent.spec.str("name").unwrap_or("");
    let profile =
        gi_profile(parent, gi.profile).ok().and_then(|p| p.get("name")).and_then(Value::as_str).unwrap_or("MIG");
    match profile.strip_prefix("MIG ") {
        Some(gi_name) if ci.placement.1 < gi.slices => format!("{gpu} MIG {}c.{gi_name}", ci.placement.1),
        _ => format!("{gpu} {profile}"),
    }
}

/// A MIG device's UUID: `MIG-` and its GPU's UUID with the last four digits replaced by the GPU
/// and compute instance ids.
pub fn mig_uuid(parent: &Device, gi: &GpuInstance, ci: &ComputeInstance) -> String {
    if let Some(own) = &ci.uuid {
        return own.clone();
    }
    let gpu = parent.spec.str("uuid").unwrap_or("GPU-00000000-0000-0000-0000-000000000000");
    let body = gpu.strip_prefix("GPU-").unwrap_or(gpu);
    let keep: String = body.chars().take(body.chars().count().saturating_sub(4)).collect();
    format!("MIG-{keep}{:02x}{:02x}", gi.id & 0xFF, ci.id & 0xFF)
}

/// `(total, reserved, used)` of a MIG device: its GPU instance's memory, used by the processes
/// that run in it.
pub fn mig_memory(parent: &Device, gi: &GpuInstance) -> Result<(u64, u64, u64), nvmlReturn_t> {
    let total = u64::from(u32_of(gi_profile(parent, gi.profile)?, "memory_mb")) << 20;
    let in_gi = |p: &&Value| p.get("gpu_instance_id").and_then(Value::as_u64) == Some(gi.id.into());
    let used: u64 = ["processes.compute", "processes.graphics"]
        .iter()
        .flat_map(|k| parent.spec.list(k).unwrap_or_default())
        .filter(in_gi)
        .filter_map(|p| p.get("used_memory").and_then(Value::as_u64))
        .sum();
    Ok((total, 0, used))
}

/// GPU instances exist only in MIG mode.
/// A GPU that can run MIG (its profile has a MIG mode), in MIG mode or not: a GPU with MIG
/// off has no GPU instances (driver 580.159.04 lists none and finds none by id on an H200 with
/// MIG off), one without MIG answers `NOT_SUPPORTED`.
fn mig_capable(d: &Device) -> Status {
    if d.spec.bool("mig.mode").is_none() {
        return Err(NVML_ERROR_NOT_SUPPORTED);
    }
    Ok(())
}

pub fn nvmlDeviceGetMigMode(
    e: &Engine,
    device: nvmlDevice_t,
    current: *mut c_uint,
    pending: *mut c_uint,
) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        if current.is_null() || pending.is_null() {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        let t = tree(d)?;
        put(current, t.mode as c_uint)?;
        put(pending, t.pending as c_uint)
    })
}

/// In MIG mode, `mig.max_devices` (default the GPU's compute slices, 7); with MIG off 0, as
/// driver 580.159.04 answers on an H100 and an H200 with MIG off; 0 for a GPU without MIG, as
/// nvml.h says.
pub fn nvmlDeviceGetMaxMigDeviceCount(e: &Engine, device: nvmlDevice_t, count: *mut c_uint) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        let max = d.spec.u32("mig.max_devices").filter(|m| *m > 0).unwrap_or(d.mig_table.compute_slices);
        put(count, if mig_mode(d) { max } else { 0 })
    })
}

/// A GPU instance profile as the v2 record, the layout the others derive from.
fn gi_profile_info(p: &Value) -> nvmlGpuInstanceProfileInfo_v2_t {
    let u = |k: &str| u32_of(p, k);
    let mut info = nvmlGpuInstanceProfileInfo_v2_t {
        version: nvmlGpuInstanceProfileInfo_v2,
        id: u("id"),
        isP2pSupported: u("p2p"),
        sliceCount: u("slices"),
        instanceCount: u("instances"),
        multiprocessorCount: u("multiprocessors"),
        copyEngineCount: u("copy_engines"),
        decoderCount: u("decoders"),
        encoderCount: u("encoders"),
        jpegCount: u("jpegs"),
        ofaCount: u("ofas"),
        memorySizeMB: p.get("memory_mb").and_then(Value::as_u64).unwrap_or(0),
        ..Default::default()
    };
    set_chars(&mut info.name, p.get("name").and_then(Value::as_str).unwrap_or(""));
    info
}

/// Writes a GPU instance profile in the layout the caller's `version` asks for (v2, or v3 with
/// its `capabilities`, none of which the profiles have, where the profile's driver knows v3).
fn put_gi_profile_info(sys: &System, info: *mut nvmlGpuInstanceProfileInfo_v2_t, p: &Value) -> Status {
    let v = gi_profile_info(p);
    if crate::ffi::get(info as *const c_uint)? == nvmlGpuInstanceProfileInfo_v3
        && sys.knows_version("nvmlGpuInstanceProfileInfo_v3")
    {
        let v3 = nvmlGpuInstanceProfileInfo_v3_t {
            version: nvmlGpuInstanceProfileInfo_v3,
            id: v.id,
            sliceCount: v.sliceCount,
            instanceCount: v.instanceCount,
            multiprocessorCount: v.multiprocessorCount,
            copyEngineCount: v.copyEngineCount,
            decoderCount: v.decoderCount,
            encoderCount: v.encoderCount,
            jpegCount: v.jpegCount,
            ofaCount: v.ofaCount,
            memorySizeMB: v.memorySizeMB,
            name: v.name,
            capabilities: 0,
        };
        return put(info as *mut nvmlGpuInstanceProfileInfo_v3_t, v3);
    }
    check_version(info, nvmlGpuInstanceProfileInfo_v2)?;
    put(info, v)
}

/// The legacy layout: the v2 record's fields without its version and name.
pub fn nvmlDeviceGetGpuInstanceProfileInfo(
    e: &Engine,
    device: nvmlDevice_t,
    profile: c_uint,
    info: *mut nvmlGpuInstanceProfileInfo_t,
) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        let v = gi_profile_info(gi_profile(d, profile)?);
        let (id, isP2pSupported, sliceCount, instanceCount) = (v.id, v.isP2pSupported, v.sliceCount, v.instanceCount);
        let (multiprocessorCount, copyEngineCount, decoderCount, encoderCount) =
            (v.multiprocessorCount, v.copyEngineCount, v.decoderCount, v.encoderCount);
        let (jpegCount, ofaCount, memorySizeMB) = (v.jpegCount, v.ofaCount, v.memorySizeMB);
        let v1 = nvmlGpuInstanceProfileInfo_t {
            id,
            isP2pSupported,
            sliceCount,
            instanceCount,
            multiprocessorCount,
            copyEngineCount,
            decoderCount,
            encoderCount,
            jpegCount,
            ofaCount,
            memorySizeMB,
        };
        put(info, v1)
    })
}

pub fn nvmlDeviceGetGpuInstanceProfileInfoV(
    e: &Engine,
    device: nvmlDevice_t,
    profile: c_uint,
    info: *mut nvmlGpuInstanceProfileInfo_v2_t,
) -> nvmlReturn_t {
    e.dev(device, |sys, d| put_gi_profile_info(sys, info, gi_profile(d, profile)?))
}

pub fn nvmlDeviceGetGpuInstanceProfileInfoByIdV(
    e: &Engine,
    device: nvmlDevice_t,
    profile_id: c_uint,
    info: *mut nvmlGpuInstanceProfileInfo_v2_t,
) -> nvmlReturn_t {
    e.dev(device, |sys, d| put_gi_profile_info(sys, info, gi_profile_by_id(d, profile_id)?))
}

pub fn nvmlDeviceGetGpuInstances(
    e: &Engine,
    device: nvmlDevice_t,
    profile_id: c_uint,
    gis: *mut nvmlGpuInstance_t,
    count: *mut c_uint,
) -> nvmlReturn_t {
    e.dev(device, |sys, d| {
        mig_capable(d)?;
        let found: Vec<nvmlGpuInstance_t> =
            sys.instances_of(d).filter(|g| g.profile_id == profile_id).map(gi_handle).collect();
        put_all(count, gis, &found)
    })
}

pub fn nvmlDeviceGetGpuInstanceById(
    e: &Engine,
    device: nvmlDevice_t,
    id: c_uint,
    gi: *mut nvmlGpuInstance_t,
) -> nvmlReturn_t {
    e.dev(device, |sys, d| {
        mig_capable(d)?;
        let g = sys.instances_of(d).find(|g| g.id == id).ok_or(NVML_ERROR_NOT_FOUND)?;
        put(gi, gi_handle(g))
    })
}

/// Every placement of a GPU instance profile, free or not (see [`Table::of`]).
fn gi_placements(d: &Device, profile_id: c_uint) -> Result<Vec<nvmlGpuInstancePlacement_t>, nvmlReturn_t> {
    let p = d.mig_table.gi_by_id(profile_id).ok_or(NVML_ERROR_NOT_SUPPORTED)?;
    Ok(p.placements.iter().map(|&(start, size)| nvmlGpuInstancePlacement_t { start, size }).collect())
}

/// The placements of `mig.gpu_instance_profiles`, whether MIG is on or not; a NULL array asks
/// for their number.
pub fn nvmlDeviceGetGpuInstancePossiblePlacements_v2(
    e: &Engine,
    device: nvmlDevice_t,
    profile_id: c_uint,
    placements: *mut nvmlGpuInstancePlacement_t,
    count: *mut c_uint,
) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        let all = gi_placements(d, profile_id)?;
        if placements.is_null() {
            return put(count, all.len() as c_uint);
        }
        put_all(count, placements, &all)
    })
}

pub fn nvmlDeviceGetGpuInstancePossiblePlacements(
    e: &Engine,
    device: nvmlDevice_t,
    profile_id: c_uint,
    placements: *mut nvmlGpuInstancePlacement_t,
    count: *mut c_uint,
) -> nvmlReturn_t {
    nvmlDeviceGetGpuInstancePossiblePlacements_v2(e, device, profile_id, placements, count)
}

/// How many more instances of a profile fit now (`Tree::gi_capacity`).
pub fn nvmlDeviceGetGpuInstanceRemainingCapacity(
    e: &Engine,
    device: nvmlDevice_t,
    profile_id: c_uint,
    count: *mut c_uint,
) -> nvmlReturn_t {
    e.dev(device, |_, d| put(count, tree(d)?.gi_capacity(&d.mig_table, profile_id)?))
}

pub fn nvmlGpuInstanceGetInfo(e: &Engine, gi: nvmlGpuInstance_t, info: *mut nvmlGpuInstanceInfo_t) -> nvmlReturn_t {
    e.with(|sys| {
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
    })
}

/// A compute-instance profile usable in `gi` (one that fits its slices).
fn ci_profile(
    sys: &System,
    gi: &GpuInstance,
    select: impl Fn(&Value) -> bool,
) -> Result<nvmlComputeInstanceProfileInfo_v3_t, nvmlReturn_t> {
    let d = &sys.devices[gi.device];
    let p = need(d.spec.list("mig.compute_instance_profiles"))?
        .iter()
        .find(|p| select(p))
        .ok_or(NVML_ERROR_NOT_SUPPORTED)?;
    let u = |k: &str| u32_of(p, k);
    if u("slices") > gi.slices {
        return Err(NVML_ERROR_NOT_SUPPORTED);
    }
    let mut info = nvmlComputeInstanceProfileInfo_v3_t {
        version: nvmlComputeInstanceProfileInfo_v3,
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

fn ci_profile_by_index(
    sys: &System,
    gi: &GpuInstance,
    profile: c_uint,
) -> Result<nvmlComputeInstanceProfileInfo_v3_t, nvmlReturn_t> {
    ci_profile(sys, gi, |p| p.get("profile").and_then(const_value) == Some(profile as i128))
}

fn ci_profile_by_id(
    sys: &System,
    gi: &GpuInstance,
    id: c_uint,
) -> Result<nvmlComputeInstanceProfileInfo_v3_t, nvmlReturn_t> {
    ci_profile(sys, gi, |p| u32_of(p, "id") == id)
}

fn shared_engines(eng: c_uint) -> Status {
    if eng != NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED as c_uint {
        return Err(NVML_ERROR_NOT_SUPPORTED);
    }
    Ok(())
}

pub fn nvmlGpuInstanceGetComputeInstanceProfileInfo(
    e: &Engine,
    gi: nvmlGpuInstance_t,
    profile: c_uint,
    eng: c_uint,
    info: *mut nvmlComputeInstanceProfileInfo_t,
) -> nvmlReturn_t {
    e.with(|sys| {
        shared_engines(eng)?;
        let v = ci_profile_by_index(sys, sys.gpu_instance(gi)?, profile)?;
        put(
            info,
            nvmlComputeInstanceProfileInfo_t {
                id: v.id,
                sliceCount: v.sliceCount,
                instanceCount: v.instanceCount,
                multiprocessorCount: v.multiprocessorCount,
                sharedCopyEngineCount: v.sharedCopyEngineCount,
                sharedDecoderCount: v.sharedDecoderCount,
                sharedEncoderCount: v.sharedEncoderCount,
                sharedJpegCount: v.sharedJpegCount,
                sharedOfaCount: v.sharedOfaCount,
            },
        )
    })
}

/// The v2 layout, or the v3 one (with `capabilities`) when the caller's version asks for it
/// and the profile's driver knows v3.
pub fn nvmlGpuInstanceGetComputeInstanceProfileInfoV(
    e: &Engine,
    gi: nvmlGpuInstance_t,
    profile: c_uint,
    eng: c_uint,
    info: *mut nvmlComputeInstanceProfileInfo_v2_t,
) -> nvmlReturn_t {
    e.with(|sys| {
        let version = crate::ffi::get(info as *const c_uint)?;
        if version == nvmlComputeInstanceProfileInfo_v3 && !sys.knows_version("nvmlComputeInstanceProfileInfo_v3") {
            return Err(NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
        }
        if version != nvmlComputeInstanceProfileInfo_v3 {
            check_version(info, nvmlComputeInstanceProfileInfo_v2)?;
        }
        shared_engines(eng)?;
        let v = ci_profile_by_index(sys, sys.gpu_instance(gi)?, profile)?;
        if version == nvmlComputeInstanceProfileInfo_v3 {
            return put(info as *mut nvmlComputeInstanceProfileInfo_v3_t, v);
        }
        let v2 = nvmlComputeInstanceProfileInfo_v2_t {
            version: nvmlComputeInstanceProfileInfo_v2,
            id: v.id,
            sliceCount: v.sliceCount,
            instanceCount: v.instanceCount,
            multiprocessorCount: v.multiprocessorCount,
            sharedCopyEngineCount: v.sharedCopyEngineCount,
            sharedDecoderCount: v.sharedDecoderCount,
            sharedEncoderCount: v.sharedEncoderCount,
            sharedJpegCount: v.sharedJpegCount,
            sharedOfaCount: v.sharedOfaCount,
            name: v.name,
        };
        put(info, v2)
    })
}

pub fn nvmlGpuInstanceGetComputeInstances(
    e: &Engine,
    gi: nvmlGpuInstance_t,
    profile_id: c_uint,
    cis: *mut nvmlComputeInstance_t,
    count: *mut c_uint,
) -> nvmlReturn_t {
    e.with(|sys| {
        let g = sys.gpu_instance(gi)?;
        let found: Vec<nvmlComputeInstance_t> =
            g.compute_instances.iter().filter(|c| c.profile_id == profile_id).map(ci_handle).collect();
        put_all(count, cis, &found)
    })
}

pub fn nvmlGpuInstanceGetComputeInstanceById(
    e: &Engine,
    gi: nvmlGpuInstance_t,
    id: c_uint,
    ci: *mut nvmlComputeInstance_t,
) -> nvmlReturn_t {
    e.with(|sys| {
        let g = sys.gpu_instance(gi)?;
        let c = g.compute_instances.iter().find(|c| c.id == id).ok_or(NVML_ERROR_NOT_FOUND)?;
        put(ci, ci_handle(c))
    })
}

/// The tree's GPU instance of `g`, with its GPU's profile table.
fn tree_gi<'a>(sys: &'a System, g: &GpuInstance) -> Result<(&'a crate::session::mig::Gi, &'a Table), nvmlReturn_t> {
    let d = &sys.devices[g.device];
    let gi = tree(d)?.gi(g.serial).ok_or(NVML_ERROR_INVALID_ARGUMENT)?;
    Ok((gi, &d.mig_table))
}

/// The placements of a compute instance profile in a GPU instance: every multiple of its size.
fn ci_placements(
    sys: &System,
    g: &GpuInstance,
    profile_id: c_uint,
) -> Result<Vec<nvmlComputeInstancePlacement_t>, nvmlReturn_t> {
    let (gi, table) = tree_gi(sys, g)?;
    ci_profile_by_id(sys, g, profile_id)?;
    let all = Tree::ci_placements(table, gi, profile_id)?;
    Ok(all.into_iter().map(|(start, size)| nvmlComputeInstancePlacement_t { start, size }).collect())
}

pub fn nvmlGpuInstanceGetComputeInstancePossiblePlacements(
    e: &Engine,
    gi: nvmlGpuInstance_t,
    profile_id: c_uint,
    placements: *mut nvmlComputeInstancePlacement_t,
    count: *mut c_uint,
) -> nvmlReturn_t {
    e.with(|sys| {
        let all = ci_placements(sys, sys.gpu_instance(gi)?, profile_id)?;
        if placements.is_null() {
            return put(count, all.len() as c_uint);
        }
        put_all(count, placements, &all)
    })
}

pub fn nvmlGpuInstanceGetComputeInstanceRemainingCapacity(
    e: &Engine,
    gi: nvmlGpuInstance_t,
    profile_id: c_uint,
    count: *mut c_uint,
) -> nvmlReturn_t {
    e.with(|sys| {
        let g = sys.gpu_instance(gi)?;
        ci_profile_by_id(sys, g, profile_id)?;
        let (gi, table) = tree_gi(sys, g)?;
        put(count, Tree::ci_free(table, gi, profile_id)?.len() as c_uint)
    })
}

fn compute_instance_info(e: &Engine, ci: nvmlComputeInstance_t, info: *mut nvmlComputeInstanceInfo_t) -> nvmlReturn_t {
    e.with(|sys| {
        let (gi, c) = sys.compute_instance(ci)?;
        put(
            info,
            nvmlComputeInstanceInfo_t {
                device: sys.handle(gi.device),
                gpuInstance: gi_handle(gi),
                id: c.id,
                profileId: c.profile_id,
                placement: nvmlComputeInstancePlacement_t { start: c.placement.0, size: c.placement.1 },
            },
        )
    })
}

pub fn nvmlComputeInstanceGetInfo(
    e: &Engine,
    ci: nvmlComputeInstance_t,
    info: *mut nvmlComputeInstanceInfo_t,
) -> nvmlReturn_t {
    compute_instance_info(e, ci, info)
}

pub fn nvmlComputeInstanceGetInfo_v2(
    e: &Engine,
    ci: nvmlComputeInstance_t,
    info: *mut nvmlComputeInstanceInfo_t,
) -> nvmlReturn_t {
    compute_instance_info(e, ci, info)
}

// MIG devices.

/// The `index`-th MIG device of a GPU in MIG mode (its compute instances, in order).
pub fn nvmlDeviceGetMigDeviceHandleByIndex(
    e: &Engine,
    device: nvmlDevice_t,
    index: c_uint,
    mig: *mut nvmlDevice_t,
) -> nvmlReturn_t {
    e.dev(device, |sys, d| {
        if mig.is_null() {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        // A MIG-capable GPU with MIG mode off has no MIG device at any index (an H200 with
        // driver 580.159.04 answers NOT_FOUND); one without MIG, NOT_SUPPORTED.
        mig_capable(d)?;
        let ci = sys
            .instances_of(d)
            .flat_map(|g| g.compute_instances.iter())
            .find(|c| mig_mode(d) && c.mig_index == index)
            .ok_or(NVML_ERROR_NOT_FOUND)?;
        put(mig, mig_handle(ci))
    })
}

/// A MIG device's engines and memory: its compute instance's and GPU instance's profiles.
/// nvml.h: "This API currently only supports MIG device handles".
pub fn nvmlDeviceGetAttributes_v2(
    e: &Engine,
    device: nvmlDevice_t,
    attributes: *mut nvmlDeviceAttributes_t,
) -> nvmlReturn_t {
    e.any_dev(device, |sys, d| {
        let DeviceRef::Mig { parent, gi, ci } = d else { return Err(NVML_ERROR_NOT_SUPPORTED) };
        let c = ci_profile_by_index(sys, gi, ci.profile)?;
        let g = gi_profile_info(gi_profile(parent, gi.profile)?);
        put(
            attributes,
            nvmlDeviceAttributes_t {
                multiprocessorCount: c.multiprocessorCount,
                sharedCopyEngineCount: c.sharedCopyEngineCount,
                sharedDecoderCount: c.sharedDecoderCount,
                sharedEncoderCount: c.sharedEncoderCount,
                sharedJpegCount: c.sharedJpegCount,
                sharedOfaCount: c.sharedOfaCount,
                gpuInstanceSliceCount: gi.slices,
                computeInstanceSliceCount: c.sliceCount,
                memorySizeMB: g.memorySizeMB,
            },
        )
    })
}

pub fn nvmlDeviceGetAttributes(
    e: &Engine,
    device: nvmlDevice_t,
    attributes: *mut nvmlDeviceAttributes_t,
) -> nvmlReturn_t {
    nvmlDeviceGetAttributes_v2(e, device, attributes)
}

/// 1 for a MIG device, 0 for a GPU.
pub fn nvmlDeviceIsMigDeviceHandle(e: &Engine, device: nvmlDevice_t, is_mig: *mut c_uint) -> nvmlReturn_t {
    e.any_dev(device, |_, d| put(is_mig, matches!(d, DeviceRef::Mig { .. }) as c_uint))
}

pub fn nvmlDeviceGetDeviceHandleFromMigDeviceHandle(
    e: &Engine,
    mig: nvmlDevice_t,
    device: *mut nvmlDevice_t,
) -> nvmlReturn_t {
    e.with(|sys| {
        let (gi, _) = sys.mig_device(mig)?;
        put(device, sys.handle(gi.device))
    })
}

pub fn nvmlDeviceGetGpuInstanceId(e: &Engine, device: nvmlDevice_t, id: *mut c_uint) -> nvmlReturn_t {
    e.any_dev(device, |_, d| match d {
        DeviceRef::Mig { gi, .. } => put(id, gi.id),
        // A GPU is no MIG device: driver 580.159.04 answers INVALID_ARGUMENT (an H200).
        DeviceRef::Gpu(_) => Err(NVML_ERROR_INVALID_ARGUMENT),
    })
}

pub fn nvmlDeviceGetComputeInstanceId(e: &Engine, device: nvmlDevice_t, id: *mut c_uint) -> nvmlReturn_t {
    e.any_dev(device, |_, d| match d {
        DeviceRef::Mig { ci, .. } => put(id, ci.id),
        DeviceRef::Gpu(_) => Err(NVML_ERROR_INVALID_ARGUMENT),
    })
}
