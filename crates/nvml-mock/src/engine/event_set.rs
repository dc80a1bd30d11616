//! A device event set, `nvmlEventSet_t`: registrations and a queue that a wait takes from.
//! Its own file so that both the event functions (`events.rs`) and the delivery of
//! `nvml-mock ctl`'s injected events (`ctl.rs`) take it from below.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

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
        let wanted =
            self.registrations.lock().is_ok_and(|r| r.iter().any(|(d, m)| *d == device && m & event_type != 0));
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
        let (mut q, _) =
            self.ready.wait_timeout_while(q, Duration::from_millis(timeout_ms.into()), |q| q.is_empty()).ok()?;
        q.pop_front()
    }
}
