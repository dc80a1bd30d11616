//! Event sets, of devices and of the system: registration, delivery and waiting with a timeout.

use std::collections::BTreeSet;
use std::ffi::{c_uint, c_ulonglong};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use nvml_sys::*;

use super::event_set::{EventSet, Pending};
use super::{entry, need, Device, Engine};
use crate::answer::{Call, Object};
use crate::ffi::{check_version, get, put, put_items};
use crate::profile::{const_value, SystemEventSpec};

/// An `nvmlSystemEventSet_t`: its handle is the address of this struct. The profile's
/// `system_events` are pending on a set once it registers for their type, and each is
/// delivered once per set.
#[derive(Debug, Default)]
pub struct SystemEventSet {
    state: Mutex<SystemSetState>,
    ready: Condvar,
}

#[derive(Debug, Default)]
struct SystemSetState {
    /// The registered `nvmlSystemEventType*` bits.
    mask: u64,
    /// Indices of the profile's system events this set has delivered.
    delivered: BTreeSet<usize>,
}

impl SystemSetState {
    fn pending(&self, events: &[SystemEventSpec]) -> Vec<usize> {
        let wanted = |(i, e): &(usize, &SystemEventSpec)| e.event_type & self.mask != 0 && !self.delivered.contains(i);
        events.iter().enumerate().filter(wanted).map(|(i, _)| i).collect()
    }
}

impl SystemEventSet {
    pub fn register(&self, mask: u64) {
        if let Ok(mut s) = self.state.lock() {
            s.mask |= mask;
            self.ready.notify_all();
        }
    }

    /// Up to `max` of `events` pending on this set, oldest first, waiting up to `timeout_ms`
    /// for one; what is returned counts as delivered.
    pub fn take(&self, events: &[SystemEventSpec], max: usize, timeout_ms: u32) -> Vec<SystemEventSpec> {
        let Ok(s) = self.state.lock() else { return Vec::new() };
        let timeout = Duration::from_millis(timeout_ms.into());
        let Ok((mut s, _)) = self.ready.wait_timeout_while(s, timeout, |s| s.pending(events).is_empty()) else {
            return Vec::new();
        };
        let taken: Vec<usize> = s.pending(events).into_iter().take(max).collect();
        s.delivered.extend(&taken);
        taken.iter().map(|i| events[*i].clone()).collect()
    }
}

/// Test hook, not part of NVML: delivers an event for `device` to every event set registered
/// for it. Returns `NVML_ERROR_NOT_FOUND` when no set wanted it.
#[no_mangle]
pub extern "C" fn nvmlMockInjectEvent(device: nvmlDevice_t, event_type: u64, data: u64) -> nvmlReturn_t {
    entry(Call::plain("nvmlMockInjectEvent", Object::Device(device)), |e| {
        let Ok(sys) = e.sys() else { return NVML_ERROR_UNINITIALIZED };
        let Ok(dev) = sys.device(device) else { return NVML_ERROR_INVALID_ARGUMENT };
        let delivered = sys.event_sets.all().iter().filter(|s| s.deliver(dev.index, event_type, data)).count();
        if delivered == 0 {
            NVML_ERROR_NOT_FOUND
        } else {
            NVML_SUCCESS
        }
    })
}

/// The event types a device supports: the mask of `supported_events`.
fn supported(d: &Device) -> Result<u64, nvmlReturn_t> {
    Ok(need(d.spec.list("supported_events"))?.iter().filter_map(const_value).fold(0u64, |m, v| m | v as u64))
}

pub fn nvmlEventSetCreate(e: &Engine, set: *mut nvmlEventSet_t) -> nvmlReturn_t {
    e.with(|sys| {
        if set.is_null() {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        put(set, sys.event_sets.add(EventSet::default()) as nvmlEventSet_t)
    })
}

pub fn nvmlDeviceGetSupportedEventTypes(e: &Engine, device: nvmlDevice_t, types: *mut c_ulonglong) -> nvmlReturn_t {
    e.dev(device, |_, d| put(types, supported(d)?))
}

pub fn nvmlDeviceRegisterEvents(
    e: &Engine,
    device: nvmlDevice_t,
    types: c_ulonglong,
    set: nvmlEventSet_t,
) -> nvmlReturn_t {
    e.dev(device, |sys, d| {
        if types & !supported(d)? != 0 {
            return Err(NVML_ERROR_NOT_SUPPORTED);
        }
        sys.event_sets.get(set.cast())?.register(d.index, types, &sys.profile.events);
        Ok(())
    })
}

/// The next event of `set`, waiting up to `timeout_ms`; in a session of `nvml-mock ctl`, the
/// wait looks for the session's changes every few milliseconds, so that an event injected
/// from another process reaches a set that waits already.
fn wait_for_session(e: &Engine, set: &EventSet, timeout_ms: u32) -> Option<Pending> {
    if !super::ctl::active() {
        return set.wait(timeout_ms);
    }
    let deadline = Instant::now() + Duration::from_millis(timeout_ms.into());
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if let Some(p) = set.wait(left.min(SESSION_POLL).as_millis() as u32) {
            return Some(p);
        }
        if super::ctl::changed() {
            e.refresh();
        }
        if left.is_zero() {
            return set.wait(0);
        }
    }
}

/// How often a wait for events looks for the changes of an `nvml-mock ctl` session.
const SESSION_POLL: Duration = Duration::from_millis(10);

fn event_wait(e: &Engine, set: nvmlEventSet_t, data: *mut nvmlEventData_t, timeout_ms: c_uint) -> nvmlReturn_t {
    e.with(|sys| {
        let es = sys.event_sets.get(set.cast())?;
        if data.is_null() {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        let (device, event_type, event_data) = wait_for_session(e, &es, timeout_ms).ok_or(NVML_ERROR_TIMEOUT)?;
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
    })
}

pub fn nvmlEventSetWait(
    e: &Engine,
    set: nvmlEventSet_t,
    data: *mut nvmlEventData_t,
    timeout_ms: c_uint,
) -> nvmlReturn_t {
    event_wait(e, set, data, timeout_ms)
}

pub fn nvmlEventSetWait_v2(
    e: &Engine,
    set: nvmlEventSet_t,
    data: *mut nvmlEventData_t,
    timeout_ms: c_uint,
) -> nvmlReturn_t {
    event_wait(e, set, data, timeout_ms)
}

pub fn nvmlEventSetFree(e: &Engine, set: nvmlEventSet_t) -> nvmlReturn_t {
    e.with(|sys| sys.event_sets.remove(set.cast()))
}

pub fn nvmlSystemEventSetCreate(e: &Engine, request: *mut nvmlSystemEventSetCreateRequest_t) -> nvmlReturn_t {
    e.with(|sys| {
        check_version(request, nvmlSystemEventSetCreateRequest_v1)?;
        let mut r = get(request)?;
        r.set = sys.system_event_sets.add(SystemEventSet::default()) as nvmlSystemEventSet_t;
        put(request, r)
    })
}

pub fn nvmlSystemRegisterEvents(e: &Engine, request: *mut nvmlSystemRegisterEventRequest_t) -> nvmlReturn_t {
    e.with(|sys| {
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
    })
}

pub fn nvmlSystemEventSetWait(e: &Engine, request: *mut nvmlSystemEventSetWaitRequest_t) -> nvmlReturn_t {
    e.with(|sys| {
        check_version(request, nvmlSystemEventSetWaitRequest_v1)?;
        let mut r = get(request)?;
        let set = sys.system_event_sets.get(r.set.cast())?;
        if r.data.is_null() || r.dataSize == 0 {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        let events = set.take(&sys.profile.system_events, r.dataSize as usize, r.timeoutms);
        let data: Vec<nvmlSystemEventData_v1_t> =
            events.iter().map(|e| nvmlSystemEventData_v1_t { eventType: e.event_type, gpuId: e.gpu_id }).collect();
        put_items(r.data, &data)?;
        r.numEvent = data.len() as c_uint;
        // No event within the time: `NVML_SUCCESS` with none, as driver 580.159.04 answers.
        put(request, r)
    })
}

pub fn nvmlSystemEventSetFree(e: &Engine, request: *mut nvmlSystemEventSetFreeRequest_t) -> nvmlReturn_t {
    e.with(|sys| {
        check_version(request, nvmlSystemEventSetFreeRequest_v1)?;
        sys.system_event_sets.remove(get(request)?.set.cast())
    })
}
