//! Device queries whose records hold pointers: SRAM ECC entries, PRM counters, cgroup memory
//! limits and NVLink telemetry; the speed a PCIe link code stands for; and `Debug` of a device,
//! by its UUID.

use std::ffi::{c_uint, c_ulonglong};
use std::fmt;

use nvml_sys as sys;

use crate::ffi;
use crate::raw::{FromRaw, ToRaw};
use crate::{Device, Error, NvlinkTelemetrySampleType, PRMCounter, PcieLinkMaxSpeed};

impl PcieLinkMaxSpeed {
    /// The speed the code stands for, in MB/s per lane as nvml.h names it (`SPEED_32000MBPS`
    /// is 32000, which is 32 GT/s): `None` for `INVALID` and for a code the header does not
    /// name.
    pub fn mbps(self) -> Option<u32> {
        match self {
            PcieLinkMaxSpeed::SPEED_2500MBPS => Some(2500),
            PcieLinkMaxSpeed::SPEED_5000MBPS => Some(5000),
            PcieLinkMaxSpeed::SPEED_8000MBPS => Some(8000),
            PcieLinkMaxSpeed::SPEED_16000MBPS => Some(16000),
            PcieLinkMaxSpeed::SPEED_32000MBPS => Some(32000),
            PcieLinkMaxSpeed::SPEED_64000MBPS => Some(64000),
            _ => None,
        }
    }
}

/// The memory limits of a device inside a cgroup.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MemoryLimits {
    /// Memory guaranteed before allocations may fail under memory pressure, in bytes.
    pub soft_limit: u64,
    /// The most memory that can be allocated, in bytes (`sys::NVML_DEVICE_MEMORY_LIMIT_MAX`
    /// with a zero soft limit: no limit).
    pub hard_limit: u64,
    /// Memory used now, in bytes (only in what [`Device::memory_limits`] returns).
    pub current_used: u64,
}

/// One (link, sample type) slot of [`Device::nvlink_telemetry_samples`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NvlinkTelemetryRequest {
    /// The link, below [`crate::NVLINK_MAX_LINKS`].
    pub link_id: u32,
    /// What to sample on it.
    pub sample_type: NvlinkTelemetrySampleType,
}

/// The samples of one requested slot, or why there are none.
#[derive(Debug, Clone, PartialEq)]
pub struct NvlinkTelemetry {
    /// The slot asked for.
    pub request: NvlinkTelemetryRequest,
    /// About one sample per 100 ms, oldest first; the slot's own error when it failed.
    pub samples: Result<Vec<u64>, Error>,
}

/// A device by its UUID (`Device { uuid: "GPU-…" }`, `"MIG-…"` for a MIG device), or by its
/// raw handle (`Device(0x…)`) where the library does not answer the UUID.
impl fmt::Debug for Device<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.uuid() {
            Ok(uuid) => f.debug_struct("Device").field("uuid", &uuid).finish(),
            Err(_) => f.debug_tuple("Device").field(&self.raw).finish(),
        }
    }
}

impl Device<'_> {
    /// Reads PRM counters: each request gives `counter_id` and `in_data`; the result is the
    /// same list with each `counter_value` (and its own `status`) filled in.
    ///
    /// Calls `nvmlDeviceReadPRMCounters_v1` once.
    ///
    /// # Errors
    ///
    /// - [`Error::InvalidArgument`] if the device is invalid
    /// - [`Error::NoPermission`] if user does not have permission to perform this operation
    /// - [`Error::NotSupported`] if this feature is not supported by the device
    /// - [`Error::Unknown`] on any other error
    /// - [`Error::FunctionNotFound`] if the loaded library has no `nvmlDeviceReadPRMCounters_v1` (a driver older than the function)
    #[doc(alias = "nvmlDeviceReadPRMCounters_v1")]
    pub fn read_prm_counters(&self, requests: &[PRMCounter]) -> Result<Vec<PRMCounter>, Error> {
        let sym = self.nvml.lib().nvmlDeviceReadPRMCounters_v1()?;
        let mut raw: Vec<sys::nvmlPRMCounter_v1_t> = requests.iter().map(ToRaw::to_raw).collect();
        let mut list =
            sys::nvmlPRMCounterList_v1_t { numCounters: ffi::length(raw.len(), 1)?, counters: raw.as_mut_ptr() };
        ffi::check(call!(sym(self.raw, &mut list)))?;
        Ok(raw.iter().map(PRMCounter::from_raw).collect())
    }

    /// The memory limits set for the cgroup at `namespace` (full sysfs path of its file),
    /// and the memory it uses now.
    ///
    /// Calls `nvmlDeviceGetMemoryLimits_v1`.
    ///
    /// # Errors
    ///
    /// - [`Error::Uninitialized`] if the library has not been successfully initialized
    /// - [`Error::InvalidArgument`] if the device is invalid
    /// - [`Error::NotSupported`] if the device does not support this feature
    /// - [`Error::NotFound`] if the limits were not found for this device and cgroup
    /// - [`Error::OperatingSystem`] if the cgroup path cannot be opened
    /// - [`Error::Unknown`] on any unexpected error
    /// - [`Error::FunctionNotFound`] if the loaded library has no `nvmlDeviceGetMemoryLimits_v1` (a driver older than the function)
    #[doc(alias = "nvmlDeviceGetMemoryLimits_v1")]
    pub fn memory_limits(&self, namespace: &str) -> Result<MemoryLimits, Error> {
        let sym = self.nvml.lib().nvmlDeviceGetMemoryLimits_v1()?;
        let ns = ffi::cstring(namespace)?;
        let mut r =
            sys::nvmlGetMemoryLimits_v1_t { nameSpace: ns.as_ptr(), softLimit: 0, hardLimit: 0, currentUsed: 0 };
        ffi::check(call!(sym(self.raw, &mut r)))?;
        Ok(MemoryLimits { soft_limit: r.softLimit, hard_limit: r.hardLimit, current_used: r.currentUsed })
    }

    /// Sets the soft and hard memory limits of the cgroup at `namespace`
    /// (`current_used` is ignored). A soft limit of 0 and a hard limit of
    /// `sys::NVML_DEVICE_MEMORY_LIMIT_MAX` clear them.
    ///
    /// Calls `nvmlDeviceSetMemoryLimits_v1`.
    ///
    /// # Errors
    ///
    /// - [`Error::Uninitialized`] if the library has not been successfully initialized
    /// - [`Error::NoPermission`] if the user doesn't have permission to perform this operation
    /// - [`Error::InvalidArgument`] if the device is invalid, the softLimit exceeds the hardLimit, or a limit exceeds total device memory
    /// - [`Error::NotSupported`] if the device does not support this feature
    /// - [`Error::OperatingSystem`] if the cgroup path cannot be opened
    /// - [`Error::Unknown`] on any unexpected error
    /// - [`Error::FunctionNotFound`] if the loaded library has no `nvmlDeviceSetMemoryLimits_v1` (a driver older than the function)
    #[doc(alias = "nvmlDeviceSetMemoryLimits_v1")]
    pub fn set_memory_limits(&self, namespace: &str, limits: &MemoryLimits) -> Result<(), Error> {
        let sym = self.nvml.lib().nvmlDeviceSetMemoryLimits_v1()?;
        let ns = ffi::cstring(namespace)?;
        let mut r = sys::nvmlSetMemoryLimits_v1_t {
            nameSpace: ns.as_ptr(),
            softLimit: limits.soft_limit,
            hardLimit: limits.hard_limit,
        };
        ffi::check(call!(sym(self.raw, &mut r)))
    }

    /// Recent NVLink telemetry samples for each (link, sample type) request, as many as the
    /// driver keeps for each.
    ///
    /// Calls `nvmlDeviceGetNvLinkTelemetrySamples_v1` twice: once with no room for samples, to
    /// learn how many samples each request has, once to fetch them. A request that fails has
    /// its own error; the call as a whole fails only when the library does.
    ///
    /// # Errors
    ///
    /// - [`Error::InvalidArgument`] if a request's [`NvlinkTelemetryRequest::sample_type`] or
    ///   [`NvlinkTelemetryRequest::link_id`] is out of range
    /// - [`Error::GpuIsLost`] if the target GPU has fallen off the bus, or is otherwise inaccessible
    /// - [`Error::NotSupported`] if the given device does not support this API
    /// - [`Error::Unknown`] On any unexpected error
    /// - [`Error::FunctionNotFound`] if the loaded library has no `nvmlDeviceGetNvLinkTelemetrySamples_v1` (a driver older than the function)
    #[doc(alias = "nvmlDeviceGetNvLinkTelemetrySamples_v1")]
    pub fn nvlink_telemetry_samples(&self, requests: &[NvlinkTelemetryRequest]) -> Result<Vec<NvlinkTelemetry>, Error> {
        let sym = self.nvml.lib().nvmlDeviceGetNvLinkTelemetrySamples_v1()?;
        let mut slots: Vec<sys::nvmlNvlinkTelemetrySample_v1_t> = requests
            .iter()
            .map(|q| sys::nvmlNvlinkTelemetrySample_v1_t {
                linkId: q.link_id,
                sampleType: q.sample_type.0,
                sampleCount: 0,
                samples: std::ptr::null_mut(),
                nvmlReturn: sys::NVML_SUCCESS,
            })
            .collect();
        let count = ffi::length(slots.len(), 1)?;
        let fetch = |slots: &mut [sys::nvmlNvlinkTelemetrySample_v1_t]| {
            let mut batch =
                sys::nvmlNvlinkTelemetrySamples_v1_t { telemetryCount: count, telemetrySamples: slots.as_mut_ptr() };
            ffi::check(call!(sym(self.raw, &mut batch)))
        };
        fetch(&mut slots)?;
        // One buffer per slot that has samples, sized as the driver said (a count no link has
        // is an error, not an allocation); kept alive (and unmoved) until the second call
        // returns.
        let sizes: Vec<usize> = slots
            .iter()
            .map(|s| {
                if s.nvmlReturn == sys::NVML_SUCCESS {
                    ffi::check_count(s.sampleCount, std::mem::size_of::<c_ulonglong>())
                } else {
                    Ok(0)
                }
            })
            .collect::<Result<_, _>>()?;
        let total = sizes
            .iter()
            .try_fold(0usize, |acc, n| acc.checked_add(*n))
            .and_then(|n| c_uint::try_from(n).ok())
            .ok_or(Error::Implausible("the library answered more telemetry samples than a list can hold"))?;
        ffi::check_count(total, std::mem::size_of::<c_ulonglong>())?;
        let mut buffers: Vec<Vec<c_ulonglong>> = sizes.into_iter().map(|n| vec![0; n]).collect();
        let first: Vec<sys::nvmlReturn_t> = slots.iter().map(|s| s.nvmlReturn).collect();
        for (slot, buf) in slots.iter_mut().zip(buffers.iter_mut()) {
            slot.sampleCount = buf.len() as c_uint;
            slot.samples = if buf.is_empty() { std::ptr::null_mut() } else { buf.as_mut_ptr() };
        }
        fetch(&mut slots)?;
        Ok(requests
            .iter()
            .zip(slots.iter().zip(buffers).zip(first))
            .map(|(q, ((slot, mut buf), first))| {
                let code = if first == sys::NVML_SUCCESS { slot.nvmlReturn } else { first };
                let samples = ffi::check(code).map(|()| {
                    buf.truncate(slot.sampleCount as usize);
                    buf
                });
                NvlinkTelemetry { request: *q, samples }
            })
            .collect())
    }
}
