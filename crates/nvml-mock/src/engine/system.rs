//! Initialisation, error strings, system queries (versions, process names, CPER records,
//! topology of the system), units and excluded GPUs.

use std::collections::BTreeMap;
use std::ffi::{c_char, c_uint};

use nvml_sys::*;
use serde_yaml::Value;

use super::{error_string, need, Engine, System};
use crate::ffi::{chars_str, check_version, crop, get, put, put_bytes, put_str, set_chars};
use crate::profile::{const_value, CperRecord};

pub fn nvmlInit(e: &Engine) -> nvmlReturn_t {
    e.init()
}

pub fn nvmlInit_v2(e: &Engine) -> nvmlReturn_t {
    e.init()
}

pub fn nvmlInitWithFlags(e: &Engine, _flags: c_uint) -> nvmlReturn_t {
    e.init()
}

pub fn nvmlShutdown(e: &Engine) -> nvmlReturn_t {
    e.shutdown()
}

/// The driver's text of a code, or the profile's (`system.error_strings`, where a capture of
/// another driver recorded other texts).
pub fn nvmlErrorString(e: &Engine, result: nvmlReturn_t) -> *const c_char {
    let own = e.system().and_then(|sys| {
        let table = sys.profile.system.value("error_strings")?.as_mapping()?;
        let (_, text) = table.iter().find(|(k, _)| const_value(k) == Some(i128::from(result)))?;
        text.as_str().map(interned)
    });
    own.unwrap_or_else(|| error_string(result)).as_ptr()
}

/// A `'static` C string of `text`: each distinct text is kept once for the life of the
/// process, since callers keep the pointer `nvmlErrorString` returns.
fn interned(text: &str) -> &'static std::ffi::CStr {
    static TEXTS: std::sync::Mutex<BTreeMap<String, &'static std::ffi::CStr>> = std::sync::Mutex::new(BTreeMap::new());
    let Ok(mut texts) = TEXTS.lock() else { return c"Unknown Error" };
    if let Some(t) = texts.get(text) {
        return t;
    }
    let Ok(c) = std::ffi::CString::new(text) else { return c"Unknown Error" };
    let leaked: &'static std::ffi::CStr = Box::leak(c.into_boxed_c_str());
    texts.insert(text.to_string(), leaked);
    leaked
}

fn driver_version(sys: &System) -> Result<&str, nvmlReturn_t> {
    need(sys.profile.system.str("driver_version"))
}

pub fn nvmlSystemGetDriverVersion(e: &Engine, version: *mut c_char, length: c_uint) -> nvmlReturn_t {
    e.with(|s| put_str(version, length, driver_version(s)?))
}

/// The branch of `system.driver_version`: `r580_00` for 580.82.07.
pub fn nvmlSystemGetDriverBranch(e: &Engine, info: *mut nvmlSystemDriverBranchInfo_t, length: c_uint) -> nvmlReturn_t {
    e.with(|s| {
        check_version(info, nvmlSystemDriverBranchInfo_v1)?;
        // The profile's (a capture's: 580.159.04 is `r582_49`), else the branch's first.
        let branch = match s.profile.system.str("driver_branch") {
            Some(b) => b.to_string(),
            None => format!("r{}_00", need(s.profile.driver_branch)?),
        };
        if (length as usize) < branch.len() + 1 {
            return Err(NVML_ERROR_INSUFFICIENT_SIZE);
        }
        let mut v = nvmlSystemDriverBranchInfo_t { version: nvmlSystemDriverBranchInfo_v1, ..Default::default() };
        set_chars(&mut v.branch, &branch);
        put(info, v)
    })
}

/// The name of a process the profile runs (by the pid clients see).
pub fn nvmlSystemGetProcessName(e: &Engine, pid: c_uint, name: *mut c_char, length: c_uint) -> nvmlReturn_t {
    e.with(|sys| {
        if name.is_null() || length == 0 {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        for d in &sys.devices {
            for kind in ["processes.compute", "processes.graphics"] {
                let pid_of = |p: &Value| p.get("pid").and_then(Value::as_u64).map(|p| sys.pid(p as u32));
                if let Some(p) = d.spec.list(kind).unwrap_or_default().iter().find(|p| pid_of(p) == Some(pid)) {
                    // The name is cropped to the buffer, as the header says.
                    let n = p.get("name").and_then(Value::as_str).unwrap_or("");
                    return put_str(name, length, crop(n, length as usize));
                }
            }
        }
        // Any other process of this machine, as the driver names it: the first word of its
        // command line (driver 580.159.04 answers pid 1 with its program's path).
        let n = live_process_name(pid).ok_or(NVML_ERROR_NOT_FOUND)?;
        put_str(name, length, crop(&n, length as usize))
    })
}

/// The program a running process was started with (`/proc/PID/cmdline`'s first word), or its
/// name where the command line is empty (a kernel thread).
fn live_process_name(pid: c_uint) -> Option<String> {
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    let first = cmdline.split(|b| *b == 0).next().unwrap_or_default();
    if !first.is_empty() {
        return Some(String::from_utf8_lossy(first).into_owned());
    }
    std::fs::read_to_string(format!("/proc/{pid}/comm")).ok().map(|c| c.trim_end().to_string())
}

pub fn nvmlSystemGetCPER_v1(e: &Engine, cper: *mut nvmlGetCPER_v1_t) -> nvmlReturn_t {
    // One record per call; the cursor's handle is the position of the next record among
    // those the filter (`cperTypeMask`, `uuid`: empty for all devices) selects.
    e.with(|sys| {
        let mut req = get(cper)?;
        if req.buffer.is_null() && req.bufferSize != 0 {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        let uuid = chars_str(&req.cursor.uuid);
        let gpu = req.cursor.cperTypeMask & NVML_CPER_ACCESS_TYPE_GPU != 0;
        let selected =
            |r: &&CperRecord| gpu && (uuid.is_empty() || sys.devices[r.device].spec.str("uuid") == Some(uuid.as_str()));
        let next = usize::try_from(req.cursor.handle)
            .ok()
            .and_then(|i| sys.profile.cper_records.iter().filter(selected).nth(i));
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
    })
}

/// The GPUs whose NUMA node's CPUs (`system.numa_cpus`) include `cpu`.
pub fn nvmlSystemGetTopologyGpuSet(
    e: &Engine,
    cpu: c_uint,
    count: *mut c_uint,
    devices: *mut nvmlDevice_t,
) -> nvmlReturn_t {
    e.with(|sys| {
        let found: Vec<nvmlDevice_t> = sys
            .devices
            .iter()
            .filter(|d| super::device::cpus(sys, d).contains(&cpu))
            .map(|d| sys.hand_out(d.index))
            .collect();
        super::device::put_nearest(count, devices, &found)
    })
}

/// No S-class unit is attached to the profiles' systems.
pub fn nvmlUnitGetCount(e: &Engine, count: *mut c_uint) -> nvmlReturn_t {
    e.with(|_| put(count, 0))
}

pub fn nvmlUnitGetHandleByIndex(e: &Engine, _index: c_uint, unit: *mut nvmlUnit_t) -> nvmlReturn_t {
    e.with(|_| {
        if unit.is_null() {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        // `index` must be below nvmlUnitGetCount, which is 0.
        Err(NVML_ERROR_INVALID_ARGUMENT)
    })
}

/// `deviceCount` gives the size of `devices` (NULL for either is refused, as the header says);
/// no unit exists, so any unit handle is invalid.
pub fn nvmlUnitGetDevices(
    e: &Engine,
    _unit: nvmlUnit_t,
    count: *mut c_uint,
    devices: *mut nvmlDevice_t,
) -> nvmlReturn_t {
    e.with(|_| {
        if count.is_null() || devices.is_null() {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        Err(NVML_ERROR_INVALID_ARGUMENT)
    })
}

/// No Host Interface Card: `hwbcCount` (the size of `hwbcEntries`) becomes 0. The header
/// refuses a NULL count or array.
/// No HIC: a count of 0. A NULL array with a count of 0 is accepted, although the header says
/// a NULL array is refused: driver 580.159.04 answers `NVML_SUCCESS` and a count of 0 to it
/// (NVIDIA's Python binding asks that way); with a capacity, NULL is refused.
pub fn nvmlSystemGetHicVersion(e: &Engine, count: *mut c_uint, entries: *mut nvmlHwbcEntry_t) -> nvmlReturn_t {
    e.with(|_| {
        if entries.is_null() && get(count)? != 0 {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        put(count, 0)
    })
}
