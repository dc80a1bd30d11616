//! Running processes and their utilisation: the lists (legacy v1 layout, v2/v3, MPS, the
//! detail list) and the samples (`nvmlDeviceGetProcessUtilization`,
//! `nvmlDeviceGetProcessesUtilizationInfo`) all come from a device's `processes.compute` and
//! `processes.graphics`. A MIG device lists the processes of its instances.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::{c_uint, c_ulonglong};

use nvml_sys::*;
use serde_yaml::Value;

use super::mig::mig_mode;
use super::{need, now_us, Device, DeviceRef, Engine, System};
use crate::ffi::{check_version, get, put_list, put_list_in, Status};
use crate::profile::Profile;

/// A running process, with its profile entry (`None` for one that `grow_processes` added).
type Proc<'d> = (nvmlProcessInfo_v2_t, Option<&'d Value>);

/// Processes that `grow_processes` adds use this much memory.
const GROWN_PROCESS_MEMORY: u64 = 256 << 20;

/// What `NVML_MOCK_LIVE_PIDS` asks for: nothing (empty or `0`), the caller and its ancestors
/// (`1`), or pids mapped one by one (`4242=1234,4250=5678`); anything else is an error.
pub fn live_pids_env() -> Result<Option<BTreeMap<u32, u32>>, String> {
    parse_live_pids(&std::env::var("NVML_MOCK_LIVE_PIDS").unwrap_or_default())
}

/// Parses a value of `NVML_MOCK_LIVE_PIDS` (see [`live_pids_env`]).
pub fn parse_live_pids(env: &str) -> Result<Option<BTreeMap<u32, u32>>, String> {
    match env.trim() {
        "" | "0" => return Ok(None),
        "1" => return Ok(Some(BTreeMap::new())),
        _ => {}
    }
    let pair = |item: &str| {
        let (a, b) = item.split_once('=')?;
        Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
    };
    let map = env.split(',').map(|item| {
        pair(item).ok_or_else(|| {
            format!(
                "NVML_MOCK_LIVE_PIDS: `{}`: expected 1, or PROFILE_PID=LIVE_PID pairs separated by commas",
                item.trim()
            )
        })
    });
    map.collect::<Result<_, _>>().map(Some)
}

/// The profile's process ids (in the order they first appear) → the ids clients see: with
/// `live_pids: true` or `NVML_MOCK_LIVE_PIDS=1`, those of the calling process and its
/// ancestors, so that clients which hide processes that do not exist show them;
/// `NVML_MOCK_LIVE_PIDS=4242=1234,4250=5678` maps them one by one. `live` is what
/// [`live_pids_env`] read.
pub fn pid_map(profile: &Profile, live: Option<BTreeMap<u32, u32>>) -> BTreeMap<u32, u32> {
    match live {
        Some(explicit) if !explicit.is_empty() => return explicit,
        None if !profile.live_pids => return BTreeMap::new(),
        _ => {}
    }
    let mut seen = Vec::new();
    for d in &profile.devices {
        for kind in ["processes.compute", "processes.graphics"] {
            for p in d.list(kind).unwrap_or_default() {
                if let Some(pid) = p.get("pid").and_then(Value::as_u64) {
                    if !seen.contains(&(pid as u32)) {
                        seen.push(pid as u32);
                    }
                }
            }
        }
    }
    seen.into_iter().zip(ancestors()).collect()
}

/// The calling process and its ancestors, from `/proc`.
fn ancestors() -> Vec<u32> {
    let mut out = vec![std::process::id()];
    while out.len() < 64 {
        let Some(&last) = out.last() else { break };
        let stat = std::fs::read_to_string(format!("/proc/{last}/stat")).unwrap_or_default();
        // `pid (comm) state ppid ...`: the command may hold spaces and parentheses.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok());
        match ppid {
            Some(p) if p > 0 && !out.contains(&p) => out.push(p),
            _ => break,
        }
    }
    out
}

impl System {
    /// The id clients see for a profile's process id.
    pub fn pid(&self, profile_pid: u32) -> u32 {
        self.pids.get(&profile_pid).copied().unwrap_or(profile_pid)
    }
}

/// A running process of a profile: `{pid, used_memory, gpu_instance_id, compute_instance_id}`.
fn process(sys: &System, v: &Value) -> nvmlProcessInfo_v2_t {
    let field = |k: &str| v.get(k).and_then(Value::as_u64);
    nvmlProcessInfo_v2_t {
        pid: sys.pid(field("pid").unwrap_or(0) as u32),
        usedGpuMemory: field("used_memory").unwrap_or(NVML_VALUE_NOT_AVAILABLE as u64),
        gpuInstanceId: field("gpu_instance_id").unwrap_or(0xFFFF_FFFF) as u32,
        computeInstanceId: field("compute_instance_id").unwrap_or(0xFFFF_FFFF) as u32,
    }
}

/// The processes of `kinds` (`compute`, `graphics`) on a GPU (or those of a MIG device's
/// instances), in that order, then those that `grow_processes` added; `NOT_SUPPORTED` when the
/// profile has none of those lists. A size query (`capacity` 0) grows the list once, after
/// answering, while the profile's budget lasts.
fn processes<'d>(
    sys: &System,
    dev: DeviceRef<'d>,
    kinds: &[&str],
    capacity: c_uint,
) -> Result<Vec<Proc<'d>>, nvmlReturn_t> {
    let d = dev.gpu();
    let lists: Vec<&[Value]> = kinds.iter().filter_map(|k| d.spec.list(&format!("processes.{k}"))).collect();
    // The processes holding memory through the CUDA mock are compute processes of the GPU.
    let cuda: Vec<Proc> = match dev {
        DeviceRef::Gpu(_) if kinds.contains(&"compute") => crate::allocations::held()
            .into_iter()
            .filter(|h| h.gpu == d.index)
            .map(|h| {
                let info = nvmlProcessInfo_v2_t {
                    pid: h.pid,
                    usedGpuMemory: h.bytes,
                    gpuInstanceId: 0xFFFF_FFFF,
                    computeInstanceId: 0xFFFF_FFFF,
                };
                (info, None)
            })
            .collect(),
        _ => Vec::new(),
    };
    if lists.is_empty() && cuda.is_empty() {
        return Err(NVML_ERROR_NOT_SUPPORTED);
    }
    let mut list: Vec<Proc> = lists.iter().flat_map(|l| l.iter()).map(|v| (process(sys, v), Some(v))).collect();
    if let DeviceRef::Mig { gi, ci, .. } = dev {
        list.retain(|(p, _)| p.gpuInstanceId == gi.id && p.computeInstanceId == ci.id);
        return Ok(list);
    }
    list.extend(cuda);
    let mut state = d.state.lock().map_err(|_| NVML_ERROR_UNKNOWN)?;
    let next_pid = list.iter().map(|(p, _)| p.pid).max().unwrap_or(1000) + 1;
    list.extend((0..state.extra_processes).map(|i| {
        let info = nvmlProcessInfo_v2_t {
            pid: next_pid + i,
            usedGpuMemory: GROWN_PROCESS_MEMORY,
            gpuInstanceId: 0xFFFF_FFFF,
            computeInstanceId: 0xFFFF_FFFF,
        };
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

/// A process's utilisation sample: its `*_util` keys, dated `time_stamp` (µs since the epoch)
/// when the profile gives one, else `now` (a sample of the current period).
fn utilization_sample((p, v): &Proc, now: u64) -> nvmlProcessUtilizationInfo_v1_t {
    let util = |key: &str| process_u64(*v, key) as c_uint;
    nvmlProcessUtilizationInfo_v1_t {
        timeStamp: v.and_then(|v| v.get("time_stamp")).and_then(Value::as_u64).unwrap_or(now),
        pid: p.pid,
        smUtil: util("sm_util"),
        memUtil: util("mem_util"),
        encUtil: util("enc_util"),
        decUtil: util("dec_util"),
        jpgUtil: util("jpg_util"),
        ofaUtil: util("ofa_util"),
    }
}

fn list_v1(
    e: &Engine,
    device: nvmlDevice_t,
    kind: &str,
    count: *mut c_uint,
    infos: *mut nvmlProcessInfo_v1_t,
) -> nvmlReturn_t {
    e.any_dev(device, |sys, d| {
        let list: Vec<nvmlProcessInfo_v1_t> = processes(sys, d, &[kind], get(count)?)?
            .iter()
            .map(|(p, _)| nvmlProcessInfo_v1_t { pid: p.pid, usedGpuMemory: p.usedGpuMemory })
            .collect();
        put_list(count, infos, &list)
    })
}

fn list_v2(
    e: &Engine,
    device: nvmlDevice_t,
    kind: &str,
    count: *mut c_uint,
    infos: *mut nvmlProcessInfo_v2_t,
) -> nvmlReturn_t {
    e.any_dev(device, |sys, d| {
        let list: Vec<nvmlProcessInfo_v2_t> =
            processes(sys, d, &[kind], get(count)?)?.iter().map(|(p, _)| *p).collect();
        put_list(count, infos, &list)
    })
}

// The legacy symbols use the v1 layout, `_v2` and `_v3` the v2 layout.

pub fn nvmlDeviceGetComputeRunningProcesses(
    e: &Engine,
    device: nvmlDevice_t,
    count: *mut c_uint,
    infos: *mut nvmlProcessInfo_v1_t,
) -> nvmlReturn_t {
    list_v1(e, device, "compute", count, infos)
}

pub fn nvmlDeviceGetComputeRunningProcesses_v2(
    e: &Engine,
    device: nvmlDevice_t,
    count: *mut c_uint,
    infos: *mut nvmlProcessInfo_v2_t,
) -> nvmlReturn_t {
    list_v2(e, device, "compute", count, infos)
}

pub fn nvmlDeviceGetComputeRunningProcesses_v3(
    e: &Engine,
    device: nvmlDevice_t,
    count: *mut c_uint,
    infos: *mut nvmlProcessInfo_t,
) -> nvmlReturn_t {
    list_v2(e, device, "compute", count, infos)
}

pub fn nvmlDeviceGetGraphicsRunningProcesses(
    e: &Engine,
    device: nvmlDevice_t,
    count: *mut c_uint,
    infos: *mut nvmlProcessInfo_v1_t,
) -> nvmlReturn_t {
    list_v1(e, device, "graphics", count, infos)
}

pub fn nvmlDeviceGetGraphicsRunningProcesses_v2(
    e: &Engine,
    device: nvmlDevice_t,
    count: *mut c_uint,
    infos: *mut nvmlProcessInfo_v2_t,
) -> nvmlReturn_t {
    list_v2(e, device, "graphics", count, infos)
}

pub fn nvmlDeviceGetGraphicsRunningProcesses_v3(
    e: &Engine,
    device: nvmlDevice_t,
    count: *mut c_uint,
    infos: *mut nvmlProcessInfo_t,
) -> nvmlReturn_t {
    list_v2(e, device, "graphics", count, infos)
}

/// The profiles run no MPS server: an empty list where the device lists processes.
fn mps(e: &Engine, device: nvmlDevice_t, count: *mut c_uint) -> nvmlReturn_t {
    e.any_dev(device, |_, d| {
        need(d.gpu().spec.list("processes.compute"))?;
        put_list::<nvmlProcessInfo_v2_t>(count, std::ptr::null_mut(), &[])
    })
}

pub fn nvmlDeviceGetMPSComputeRunningProcesses(
    e: &Engine,
    device: nvmlDevice_t,
    count: *mut c_uint,
    _infos: *mut nvmlProcessInfo_v1_t,
) -> nvmlReturn_t {
    mps(e, device, count)
}

pub fn nvmlDeviceGetMPSComputeRunningProcesses_v2(
    e: &Engine,
    device: nvmlDevice_t,
    count: *mut c_uint,
    _infos: *mut nvmlProcessInfo_v2_t,
) -> nvmlReturn_t {
    mps(e, device, count)
}

pub fn nvmlDeviceGetMPSComputeRunningProcesses_v3(
    e: &Engine,
    device: nvmlDevice_t,
    count: *mut c_uint,
    _infos: *mut nvmlProcessInfo_t,
) -> nvmlReturn_t {
    mps(e, device, count)
}

pub fn nvmlDeviceGetRunningProcessDetailList(
    e: &Engine,
    device: nvmlDevice_t,
    plist: *mut nvmlProcessDetailList_t,
) -> nvmlReturn_t {
    e.any_dev(device, |sys, d| {
        check_version(plist, nvmlProcessDetailList_v1)?;
        let req = get(plist)?;
        let kinds: &[&str] = match req.mode {
            NVML_PROCESS_MODE_COMPUTE => &["compute"],
            NVML_PROCESS_MODE_GRAPHICS => &["graphics"],
            // The profiles run no MPS server.
            NVML_PROCESS_MODE_MPS => &[],
            // First declared by the 13.3.29 header, whose driver is newer than the 580 branch
            // (the history's rule for headers after 13.0): driver 580.159.04 refuses it.
            NVML_PROCESS_MODE_ALL if sys.profile.driver_branch.map_or(true, |b| b > 580) => &["compute", "graphics"],
            _ => return Err(NVML_ERROR_INVALID_ARGUMENT),
        };
        let list = match kinds {
            [] => need(d.gpu().spec.list("processes.compute")).map(|_| Vec::new())?,
            _ => processes(sys, d, kinds, req.numProcArrayEntries)?,
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

/// Every process of a GPU, each pid once (compute, then graphics); `NOT_SUPPORTED` in MIG
/// mode, as nvml.h says of process utilisation.
fn sampled<'d>(sys: &System, d: &'d Device, capacity: c_uint) -> Result<Vec<Proc<'d>>, nvmlReturn_t> {
    if mig_mode(d) {
        return Err(NVML_ERROR_NOT_SUPPORTED);
    }
    let mut pids = BTreeSet::new();
    Ok(processes(sys, DeviceRef::Gpu(d), &["compute", "graphics"], capacity)?
        .into_iter()
        .filter(|(p, _)| pids.insert(p.pid))
        .collect())
}

/// One sample per process newer than `lastSeenTimeStamp`; `NOT_FOUND` when the device has
/// processes but none is newer.
pub fn nvmlDeviceGetProcessesUtilizationInfo(
    e: &Engine,
    device: nvmlDevice_t,
    info: *mut nvmlProcessesUtilizationInfo_t,
) -> nvmlReturn_t {
    e.dev(device, |sys, d| {
        check_version(info, nvmlProcessesUtilizationInfo_v1)?;
        let req = get(info)?;
        let all = sampled(sys, d, req.processSamplesCount)?;
        let now = now_us();
        let fresh: Vec<_> =
            all.iter().map(|p| utilization_sample(p, now)).filter(|s| s.timeStamp > req.lastSeenTimeStamp).collect();
        put_list_in(info, |i| (&mut i.processSamplesCount, i.procUtilArray), &fresh)?;
        // No samples (no process, or none since `lastSeenTimeStamp`): "NOT_FOUND If sample
        // entries are not found", as the older layout answers.
        if fresh.is_empty() {
            return Err(NVML_ERROR_NOT_FOUND);
        }
        Ok(())
    })
}

/// The older sample layout of the same samples. A null array with a count of 0 asks for the
/// count (`INSUFFICIENT_SIZE`, as for every list of NVML).
pub fn nvmlDeviceGetProcessUtilization(
    e: &Engine,
    device: nvmlDevice_t,
    utilization: *mut nvmlProcessUtilizationSample_t,
    count: *mut c_uint,
    last_seen: c_ulonglong,
) -> nvmlReturn_t {
    e.dev(device, |sys, d| -> Status {
        let all = sampled(sys, d, get(count)?)?;
        let now = now_us();
        let fresh: Vec<nvmlProcessUtilizationSample_t> = all
            .iter()
            .map(|p| utilization_sample(p, now))
            .filter(|s| s.timeStamp > last_seen)
            .map(|s| nvmlProcessUtilizationSample_t {
                pid: s.pid,
                timeStamp: s.timeStamp,
                smUtil: s.smUtil,
                memUtil: s.memUtil,
                encUtil: s.encUtil,
                decUtil: s.decUtil,
            })
            .collect();
        if fresh.is_empty() {
            crate::ffi::put(count, 0)?;
            return Err(NVML_ERROR_NOT_FOUND);
        }
        put_list(count, utilization, &fresh)
    })
}

/// A process as `nvidia-smi` reads it through the export table: its record, the memory it
/// holds in confidential computing's protected region, and its name.
pub struct Named {
    pub info: nvmlProcessInfo_v2_t,
    pub cc_protected: u64,
    pub name: String,
}

/// The processes of `kinds` on a GPU or MIG device, with their names (what the profile says),
/// as `processes` lists them.
pub fn named(sys: &System, d: DeviceRef, kinds: &[&str]) -> Result<Vec<Named>, nvmlReturn_t> {
    Ok(processes(sys, d, kinds, u32::MAX)?
        .iter()
        .map(|(p, v)| Named {
            info: *p,
            cc_protected: process_u64(*v, "cc_protected_memory"),
            name: v.and_then(|v| v.get("name")).and_then(Value::as_str).unwrap_or("").to_string(),
        })
        .collect())
}
