//! vGPU: the instances a host runs (`vgpu.instances` of a device: `{id, nvmlVgpuInstanceGet...:
//! ...}`) and what derives from their values. vGPU types (`vgpu_types`) and most instance
//! queries are values of the profile (`generated/answers.rs`).

use std::ffi::c_uint;

use nvml_sys::*;
use serde_yaml::Value;

use super::ffi::{put, put_list};
use super::{Device, Engine, System};
use crate::answer::{Entry, Object, Val};

/// The entry prefix of a vGPU instance's values in its device's entries.
pub fn instance_prefix(id: u32) -> String {
    format!("vgpu.instance.{id}.")
}

/// The ids of a device's vGPU instances.
fn instance_ids(d: &Device) -> Vec<u32> {
    d.spec.list("vgpu.instances").unwrap_or_default().iter().filter_map(|i| i.get("id").and_then(Value::as_u64)).map(|i| i as u32).collect()
}

/// The device running vGPU instance `id`.
pub fn instance(sys: &System, id: u32) -> Option<&Device> {
    sys.devices.iter().map(|d| &**d).find(|d| instance_ids(d).contains(&id))
}

/// The instances the host runs on a device.
pub fn nvmlDeviceGetActiveVgpus(e: &Engine, device: nvmlDevice_t, count: *mut c_uint, instances: *mut nvmlVgpuInstance_t) -> nvmlReturn_t {
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

/// Three scalars, as the header says: NULL for any of them is `INVALID_ARGUMENT`.
fn put_stats(stats: (u32, u32, u32), count: *mut c_uint, fps: *mut c_uint, latency: *mut c_uint) -> super::ffi::Status {
    if count.is_null() || fps.is_null() || latency.is_null() {
        return Err(NVML_ERROR_INVALID_ARGUMENT);
    }
    put(count, stats.0)?;
    put(fps, stats.1)?;
    put(latency, stats.2)
}

/// The sessions of `nvmlDeviceGetEncoderSessions`, summarised.
pub fn nvmlDeviceGetEncoderStats(e: &Engine, device: nvmlDevice_t, count: *mut c_uint, fps: *mut c_uint, latency: *mut c_uint) -> nvmlReturn_t {
    e.with(|sys| {
        sys.device(device)?;
        if count.is_null() || fps.is_null() || latency.is_null() {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        put_stats(encoder_stats(sys, "nvmlDeviceGetEncoderSessions", Object::Device(device))?, count, fps, latency)
    })
}

/// The sessions of `nvmlVgpuInstanceGetEncoderSessions`, summarised.
pub fn nvmlVgpuInstanceGetEncoderStats(e: &Engine, vgpu: nvmlVgpuInstance_t, count: *mut c_uint, fps: *mut c_uint, latency: *mut c_uint) -> nvmlReturn_t {
    e.with(|sys| {
        instance(sys, vgpu).ok_or(NVML_ERROR_INVALID_ARGUMENT)?;
        if count.is_null() || fps.is_null() || latency.is_null() {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        put_stats(encoder_stats(sys, "nvmlVgpuInstanceGetEncoderSessions", Object::VgpuInstance(vgpu))?, count, fps, latency)
    })
}
