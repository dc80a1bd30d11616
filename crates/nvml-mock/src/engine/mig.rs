//! MIG: GPU instances and their compute instances, built from a device's
//! `mig.gpu_instances` when its `mig.mode` is on. Their handles are the addresses of these
//! objects, checked like device handles.

// Handles are addresses of boxed objects: `Vec<Box<_>>` keeps them stable by construction.
#![allow(clippy::vec_box)]

use nvml_sys::*;
use serde_yaml::Value;

use super::{Device, System};
use crate::profile::const_value;

/// A compute instance inside a GPU instance.
#[derive(Debug)]
pub struct ComputeInstance {
    pub id: u32,
    /// The profile's `NVML_COMPUTE_INSTANCE_PROFILE_*` index.
    pub profile: u32,
    pub placement: (u32, u32),
}

/// A GPU instance of a device.
#[derive(Debug)]
pub struct GpuInstance {
    pub device: usize,
    pub id: u32,
    /// The unique id of the instance's profile (`nvmlGpuInstanceProfileInfo_t::id`).
    pub profile_id: u32,
    pub placement: (u32, u32),
    pub slices: u32,
    pub compute_instances: Vec<Box<ComputeInstance>>,
}

fn u32_of(v: &Value, key: &str) -> u32 {
    v.get(key).and_then(const_value).unwrap_or(0) as u32
}

/// The GPU instances a device's profile declares (none unless MIG mode is on).
pub fn gpu_instances(d: &Device) -> Vec<Box<GpuInstance>> {
    if d.spec.bool("mig.mode") != Some(true) {
        return Vec::new();
    }
    let profiles = d.spec.list("mig.gpu_instance_profiles").unwrap_or_default();
    d.spec
        .list("mig.gpu_instances")
        .unwrap_or_default()
        .iter()
        .map(|gi| {
            let profile = u32_of(gi, "profile");
            let info = profiles.iter().find(|p| p.get("profile").and_then(const_value) == Some(profile as i128));
            let slices = info.map(|p| u32_of(p, "slices")).unwrap_or(1);
            let cis = gi
                .get("compute_instances")
                .and_then(Value::as_sequence)
                .map(|s| s.as_slice())
                .unwrap_or_default()
                .iter()
                .map(|ci| {
                    let start = u32_of(ci, "start");
                    let size = ci.get("size").and_then(Value::as_u64).map(|s| s as u32).unwrap_or(slices);
                    Box::new(ComputeInstance { id: u32_of(ci, "id"), profile: u32_of(ci, "profile"), placement: (start, size) })
                })
                .collect();
            Box::new(GpuInstance {
                device: d.index,
                id: u32_of(gi, "id"),
                profile_id: info.map(|p| u32_of(p, "id")).unwrap_or(0),
                placement: (u32_of(gi, "start"), slices),
                slices,
                compute_instances: cis,
            })
        })
        .collect()
}

impl System {
    pub fn gpu_instance(&self, h: nvmlGpuInstance_t) -> Result<&GpuInstance, nvmlReturn_t> {
        self.gpu_instances
            .iter()
            .find(|g| std::ptr::eq::<GpuInstance>(&***g, h as *const GpuInstance))
            .map(|g| &**g)
            .ok_or(NVML_ERROR_INVALID_ARGUMENT)
    }

    /// The compute instance behind a handle, with its GPU instance.
    pub fn compute_instance(&self, h: nvmlComputeInstance_t) -> Result<(&GpuInstance, &ComputeInstance), nvmlReturn_t> {
        for g in &self.gpu_instances {
            if let Some(c) = g.compute_instances.iter().find(|c| std::ptr::eq::<ComputeInstance>(&***c, h as *const ComputeInstance)) {
                return Ok((g, c));
            }
        }
        Err(NVML_ERROR_INVALID_ARGUMENT)
    }
}

pub fn gi_handle(g: &GpuInstance) -> nvmlGpuInstance_t {
    g as *const GpuInstance as nvmlGpuInstance_t
}

pub fn ci_handle(c: &ComputeInstance) -> nvmlComputeInstance_t {
    c as *const ComputeInstance as nvmlComputeInstance_t
}
