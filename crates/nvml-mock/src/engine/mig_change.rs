//! MIG as a client changes it: GPU and compute instances created and destroyed, and the MIG
//! mode set (`nvmlDeviceSetMigMode`; the mode changes at a GPU reset, `nvml-mock ctl
//! reset-gpu`). Each change is checked and made by the GPU's tree (`crate::session::mig`)
//! where the session keeps it, under the session's lock, so every process of the session sees
//! it at its next call; without a session, in this process. The process then makes a new
//! system of the changed tree (keeping every handle of what did not change).
//!
//! The driver requires root for these functions (nvml.h: "Requires privileged user"): a caller
//! that is not root gets `NVML_ERROR_NO_PERMISSION` unless the profile grants the MIG
//! configuration capability (`system.mig_config_capability: true`, as an administrator grants
//! `/proc/driver/nvidia/capabilities/mig/config` to a user); `system.privileged: false` denies
//! them to root too.

use std::collections::BTreeMap;
use std::ffi::c_uint;

use nvml_sys::*;
use serde_yaml::Value;

use super::mig::{handle_of, Kind};
use super::{ctl, Device, Engine, System};
use crate::ffi::{self, put, Status};
use crate::session::mig::{Gpu as Tree, Table};

impl Engine {
    /// Without a session, the MIG trees this process changed since `NVML_MOCK_PROFILE` last
    /// named another profile (a new profile starts from its own trees).
    pub(crate) fn local_trees(&self) -> BTreeMap<usize, Tree> {
        let spec = std::env::var("NVML_MOCK_PROFILE").unwrap_or_default();
        let text = crate::profile::source(&spec).map(|(_, t)| t.into_owned()).unwrap_or_default();
        let key = format!("{spec}\0{text}");
        let Ok(mut local) = self.local_mig.lock() else { return BTreeMap::new() };
        if local.0 != key {
            *local = (key, BTreeMap::new());
        }
        local.1.clone()
    }

    /// Changes the MIG tree of GPU `gpu` by `f` (given the GPU's profile table), and makes
    /// this process's system of the changed tree. In a session the change is the session's
    /// (see [`crate::session::Member::change_mig`]); an error of the session's files is said
    /// on stderr and answers `NVML_ERROR_UNKNOWN`.
    fn change_mig<T>(
        &self,
        gpu: usize,
        f: impl Fn(&mut Tree, &Table) -> Result<T, nvmlReturn_t>,
    ) -> Result<T, nvmlReturn_t> {
        if let Some(member) = ctl::member() {
            let sys = self.sys()?;
            let d = sys.devices.get(gpu).ok_or(NVML_ERROR_INVALID_ARGUMENT)?;
            let (spec, table) = (d.spec.clone(), d.mig_table.clone());
            // Checked first on the tree as this call found it (the session's, taken in at the
            // call's start): a change it refuses is refused without the session's lock.
            f(&mut d.mig.clone().ok_or(NVML_ERROR_NOT_SUPPORTED)?, &table)?;
            drop(sys);
            let done = member.change_mig(gpu, || Tree::declared(&spec, &table), |t| f(t, &table));
            let (done, generation, state) = done.map_err(|e| {
                eprintln!("nvml-mock: session `{}`: {e}", member.files.name);
                NVML_ERROR_UNKNOWN
            })??;
            // This process takes in the state it wrote (a later change of another process
            // follows at the next call, as the generation then moved again).
            let count = self.lifecycle.lock().map_err(|_| NVML_ERROR_UNKNOWN)?;
            self.take_in(*count, generation, &state);
            return Ok(done);
        }
        // The lifecycle lock first, as `nvmlInit` takes it before it reads the trees.
        let count = self.lifecycle.lock().map_err(|_| NVML_ERROR_UNKNOWN)?;
        if *count == 0 {
            return Err(NVML_ERROR_UNINITIALIZED);
        }
        let old = self.sys()?;
        let d = old.devices.get(gpu).ok_or(NVML_ERROR_INVALID_ARGUMENT)?;
        let mut local = self.local_mig.lock().map_err(|_| NVML_ERROR_UNKNOWN)?;
        let mut tree = local.1.get(&gpu).cloned().or_else(|| d.mig.clone()).ok_or(NVML_ERROR_NOT_SUPPORTED)?;
        let done = f(&mut tree, &d.mig_table)?;
        local.1.insert(gpu, tree);
        let r = self.resolve(None).map_err(|(code, _)| code)?;
        let system = System::new(&r, None, Some(&old), &local.1).map_err(|e| {
            eprintln!("nvml-mock: {e}");
            NVML_ERROR_UNKNOWN
        })?;
        drop(old);
        match self.install(system, &r) {
            NVML_SUCCESS => Ok(done),
            code => Err(code),
        }
    }
}

/// Whether the caller may change MIG (see the module's docs).
fn permitted(sys: &System) -> Status {
    let capability = sys.profile.system.bool("mig_config_capability") == Some(true);
    if !sys.profile.privileged || (ffi::effective_user_id() != 0 && !capability) {
        return Err(NVML_ERROR_NO_PERMISSION);
    }
    Ok(())
}

/// Whether a process of the GPU's profile runs in GPU instance `gi` (and compute instance
/// `ci`, when given).
fn busy(d: &Device, gi: u32, ci: Option<u32>) -> bool {
    let id = |p: &Value, k: &str| p.get(k).and_then(Value::as_u64);
    ["processes.compute", "processes.graphics"].iter().flat_map(|k| d.spec.list(k).unwrap_or_default()).any(|p| {
        id(p, "gpu_instance_id") == Some(gi.into())
            && ci.map_or(true, |c| id(p, "compute_instance_id") == Some(c.into()))
    })
}

/// The GPU behind a handle: `NOT_SUPPORTED` for a MIG device, `INVALID_ARGUMENT` for what is
/// no handle.
fn gpu(sys: &System, device: nvmlDevice_t) -> Result<&Device, nvmlReturn_t> {
    sys.device(device).map_err(|_| match sys.any_device(device) {
        Ok(_) => NVML_ERROR_NOT_SUPPORTED,
        Err(code) => code,
    })
}

/// The GPU behind a handle, after the permission check: the GPU's index.
fn gpu_of(e: &Engine, device: nvmlDevice_t) -> Result<usize, nvmlReturn_t> {
    let sys = e.sys()?;
    let d = gpu(&sys, device)?;
    permitted(&sys)?;
    Ok(d.index)
}

/// The GPU instance behind a handle, after the permission check: its GPU and serial.
fn gi_of(e: &Engine, gi: nvmlGpuInstance_t) -> Result<(usize, u64), nvmlReturn_t> {
    let sys = e.sys()?;
    let g = sys.gpu_instance(gi)?;
    permitted(&sys)?;
    Ok((g.device, g.serial))
}

fn create_gi(
    e: &Engine,
    device: nvmlDevice_t,
    profile_id: c_uint,
    placement: Option<*const nvmlGpuInstancePlacement_t>,
    out: *mut nvmlGpuInstance_t,
) -> nvmlReturn_t {
    let run = || -> Status {
        let gpu = gpu_of(e, device)?;
        let at = placement.map(ffi::get).transpose()?.map(|p| (p.start, p.size));
        if out.is_null() {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        let serial = e.change_mig(gpu, |t, table| t.create_gi(table, profile_id, at))?;
        put(out, handle_of(gpu, serial, Kind::Gi) as nvmlGpuInstance_t)
    };
    ffi::code(run())
}

/// Creates a GPU instance at the profile's first free placement (`Tree::create_gi`).
pub fn nvmlDeviceCreateGpuInstance(
    e: &Engine,
    device: nvmlDevice_t,
    profile_id: c_uint,
    gpu_instance: *mut nvmlGpuInstance_t,
) -> nvmlReturn_t {
    create_gi(e, device, profile_id, None, gpu_instance)
}

/// Creates a GPU instance at `placement`, which must be one of the profile's and free.
pub fn nvmlDeviceCreateGpuInstanceWithPlacement(
    e: &Engine,
    device: nvmlDevice_t,
    profile_id: c_uint,
    placement: *const nvmlGpuInstancePlacement_t,
    gpu_instance: *mut nvmlGpuInstance_t,
) -> nvmlReturn_t {
    create_gi(e, device, profile_id, Some(placement), gpu_instance)
}

/// Destroys a GPU instance that has no compute instances and no processes (else `IN_USE`).
pub fn nvmlGpuInstanceDestroy(e: &Engine, gpu_instance: nvmlGpuInstance_t) -> nvmlReturn_t {
    let run = || -> Status {
        let (gpu, serial) = gi_of(e, gpu_instance)?;
        let sys = e.sys()?;
        let d = &sys.devices[gpu];
        e.change_mig(gpu, |t, _| t.destroy_gi(serial, |id| busy(d, id, None)))
    };
    ffi::code(run())
}

fn create_ci(
    e: &Engine,
    gpu_instance: nvmlGpuInstance_t,
    profile_id: c_uint,
    placement: Option<*const nvmlComputeInstancePlacement_t>,
    out: *mut nvmlComputeInstance_t,
) -> nvmlReturn_t {
    let run = || -> Status {
        let (gpu, gi) = gi_of(e, gpu_instance)?;
        let at = placement.map(ffi::get).transpose()?.map(|p| (p.start, p.size));
        if out.is_null() {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        let sys = e.sys()?;
        let parent =
            sys.devices[gpu].spec.str("uuid").unwrap_or("GPU-00000000-0000-0000-0000-000000000000").to_string();
        drop(sys);
        let uuid = |gi: u64, ci: u64| new_uuid(&parent, gi, ci);
        let serial = e.change_mig(gpu, |t, table| t.create_ci(table, gi, profile_id, at, uuid))?;
        put(out, handle_of(gpu, serial, Kind::Ci) as nvmlComputeInstance_t)
    };
    ffi::code(run())
}

/// The UUID of a created compute instance's MIG device: `MIG-` and its GPU's UUID with the
/// last group made of the GPU and compute instances' serials, so a MIG device created again
/// where another was destroyed has a new UUID, as on a GPU.
fn new_uuid(gpu: &str, gi: u64, ci: u64) -> String {
    let body = gpu.strip_prefix("GPU-").unwrap_or(gpu);
    let head = body.rsplit_once('-').map_or(body, |(h, _)| h);
    format!("MIG-{head}-{:06x}{:06x}", gi & 0xFF_FFFF, ci & 0xFF_FFFF)
}

/// Creates a compute instance at the profile's first free placement in the GPU instance.
pub fn nvmlGpuInstanceCreateComputeInstance(
    e: &Engine,
    gpu_instance: nvmlGpuInstance_t,
    profile_id: c_uint,
    compute_instance: *mut nvmlComputeInstance_t,
) -> nvmlReturn_t {
    create_ci(e, gpu_instance, profile_id, None, compute_instance)
}

/// Creates a compute instance at `placement`, which must be one of the profile's and free.
pub fn nvmlGpuInstanceCreateComputeInstanceWithPlacement(
    e: &Engine,
    gpu_instance: nvmlGpuInstance_t,
    profile_id: c_uint,
    placement: *const nvmlComputeInstancePlacement_t,
    compute_instance: *mut nvmlComputeInstance_t,
) -> nvmlReturn_t {
    create_ci(e, gpu_instance, profile_id, Some(placement), compute_instance)
}

/// Destroys a compute instance (and its MIG device) that runs no process (else `IN_USE`).
pub fn nvmlComputeInstanceDestroy(e: &Engine, compute_instance: nvmlComputeInstance_t) -> nvmlReturn_t {
    let run = || -> Status {
        let sys = e.sys()?;
        let (g, c) = sys.compute_instance(compute_instance)?;
        permitted(&sys)?;
        let (gpu, gi, ci) = (g.device, g.serial, c.serial);
        let d = &sys.devices[gpu];
        e.change_mig(gpu, |t, _| t.destroy_ci(gi, ci, |gi_id, ci_id| busy(d, gi_id, Some(ci_id))))
    };
    ffi::code(run())
}

/// Sets the MIG mode the GPU takes at its next reset (`Tree::set_mode`): the activation status
/// is `NVML_ERROR_RESET_REQUIRED` until then (`SUCCESS` when the mode is current already);
/// disabling MIG while GPU instances exist answers `NVML_ERROR_IN_USE`.
pub fn nvmlDeviceSetMigMode(e: &Engine, device: nvmlDevice_t, mode: c_uint, status: *mut nvmlReturn_t) -> nvmlReturn_t {
    let run = || -> Status {
        let sys = e.sys()?;
        let d = gpu(&sys, device)?;
        super::mig::tree(d)?;
        if mode > NVML_DEVICE_MIG_ENABLE as c_uint || status.is_null() {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        permitted(&sys)?;
        let gpu = d.index;
        drop(sys);
        let activation = e.change_mig(gpu, |t, _| t.set_mode(mode == NVML_DEVICE_MIG_ENABLE as c_uint))?;
        put(status, activation)
    };
    ffi::code(run())
}

#[cfg(test)]
mod tests {
    #[test]
    fn created_mig_devices_have_uuids_of_their_own() {
        let gpu = "GPU-74106407-f32f-0663-90a7-a1acf7eb04ae";
        assert_eq!(super::new_uuid(gpu, 3, 4), "MIG-74106407-f32f-0663-90a7-000003000004");
        assert_ne!(super::new_uuid(gpu, 3, 4), super::new_uuid(gpu, 5, 6));
    }
}
