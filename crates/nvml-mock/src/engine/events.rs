//! Event sets: registration, delivery and waiting with a timeout.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use nvml_sys::*;

use super::{entry, System};
use crate::profile::EventSpec;

/// One queued event: device index, type, data.
pub type Pending = (usize, u64, u64);

/// An `nvmlEventSet_t`: its handle is the address of this struct.
#[derive(Debug, Default)]
pub struct EventSet {
    /// (device index, event-type mask) per registration.
    registrations: Mutex<Vec<(usize, u64)>>,
    queue: Mutex<VecDeque<Pending>>,
    ready: Condvar,
}

impl EventSet {
    /// Registers `mask` for a device and queues the profile's events that match.
    pub fn register(&self, device: usize, mask: u64, profile_events: &[EventSpec]) {
        if let Ok(mut r) = self.registrations.lock() {
            r.push((device, mask));
        }
        for e in profile_events.iter().filter(|e| e.device == device && e.event_type & mask != 0) {
            self.push((e.device, e.event_type, e.data));
        }
    }

    /// Queues an event if this set is registered for its device and type.
    pub fn deliver(&self, device: usize, event_type: u64, data: u64) -> bool {
        let wanted = self.registrations.lock().is_ok_and(|r| r.iter().any(|(d, m)| *d == device && m & event_type != 0));
        if wanted {
            self.push((device, event_type, data));
        }
        wanted
    }

    fn push(&self, p: Pending) {
        if let Ok(mut q) = self.queue.lock() {
            q.push_back(p);
            self.ready.notify_all();
        }
    }

    /// The next event, waiting up to `timeout_ms`.
    pub fn wait(&self, timeout_ms: u32) -> Option<Pending> {
        let q = self.queue.lock().ok()?;
        let (mut q, _) = self.ready.wait_timeout_while(q, Duration::from_millis(timeout_ms.into()), |q| q.is_empty()).ok()?;
        q.pop_front()
    }
}

impl System {
    pub fn create_event_set(&self) -> nvmlEventSet_t {
        let set = Arc::new(EventSet::default());
        let handle = Arc::as_ptr(&set) as nvmlEventSet_t;
        if let Ok(mut sets) = self.event_sets.lock() {
            sets.push(set);
        }
        handle
    }

    pub fn event_set(&self, handle: nvmlEventSet_t) -> Result<Arc<EventSet>, nvmlReturn_t> {
        let sets = self.event_sets.lock().map_err(|_| NVML_ERROR_UNKNOWN)?;
        sets.iter().find(|s| std::ptr::eq(Arc::as_ptr(s), handle as *const EventSet)).cloned().ok_or(NVML_ERROR_INVALID_ARGUMENT)
    }

    pub fn free_event_set(&self, handle: nvmlEventSet_t) -> Result<(), nvmlReturn_t> {
        let mut sets = self.event_sets.lock().map_err(|_| NVML_ERROR_UNKNOWN)?;
        let before = sets.len();
        sets.retain(|s| !std::ptr::eq(Arc::as_ptr(s), handle as *const EventSet));
        if sets.len() == before {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        Ok(())
    }
}

/// Test hook, not part of NVML: delivers an event for `device` to every event set registered
/// for it. Returns `NVML_ERROR_NOT_FOUND` when no set wanted it.
#[no_mangle]
pub extern "C" fn nvmlMockInjectEvent(device: nvmlDevice_t, event_type: u64, data: u64) -> nvmlReturn_t {
    entry("nvmlMockInjectEvent", |e| {
        let Ok(sys) = e.sys() else { return NVML_ERROR_UNINITIALIZED };
        let Ok(dev) = sys.device(device) else { return NVML_ERROR_INVALID_ARGUMENT };
        let sets: Vec<Arc<EventSet>> = sys.event_sets.lock().map(|s| s.clone()).unwrap_or_default();
        let delivered = sets.iter().filter(|s| s.deliver(dev.index, event_type, data)).count();
        if delivered == 0 {
            NVML_ERROR_NOT_FOUND
        } else {
            NVML_SUCCESS
        }
    })
}
