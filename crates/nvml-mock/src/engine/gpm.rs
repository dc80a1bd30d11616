//! GPU Performance Monitoring: samples of a GPU's (or a GPU instance's) counters and the
//! metrics computed from two of them.
//!
//! A sample records when it was taken; the counters it holds are each metric's rate times the
//! time since the library was initialised, so the metrics computed from two samples (the
//! counters' difference over the time between them) are the profile's rates: `gpm`
//! (`{NVML_GPM_METRIC_SM_UTIL: 37}`), else the reading of the getter that measures the same
//! thing (utilisation, encoder and decoder utilisation, PCIe throughput), else 0. A capture's
//! rates (`recorded_gpm: true`) are all there is: a metric it lacks is `NOT_SUPPORTED`.

use std::collections::BTreeMap;
use std::sync::Mutex;

use nvml_sys::*;
use serde_yaml::Value;

use super::{now_us, DeviceRef, Engine, System};
use crate::answer::Object;
use crate::ffi::{get, put};
use crate::generated::names::CONSTANTS;
use crate::profile::const_value;

/// What a sample holds once taken.
#[derive(Debug, Clone)]
struct Taken {
    device: usize,
    /// The GPU instance sampled (`nvmlGpmMigSampleGet`, or a MIG device), if any.
    gpu_instance: Option<u32>,
    time_us: u64,
    /// Each metric's counter at `time_us`.
    counters: BTreeMap<u32, f64>,
}

/// An `nvmlGpmSample_t`: its handle is the address of this struct.
#[derive(Debug, Default)]
pub struct GpmSample(Mutex<Option<Taken>>);

/// Whether the profile says the device supports GPM (`nvmlGpmQueryDeviceSupport`).
fn supported(sys: &System, device: nvmlDevice_t) -> bool {
    sys.value("nvmlGpmQueryDeviceSupport", Object::Device(device), &[])
        .is_some_and(|s| s.field("isSupportedDevice").uint() == 1)
}

/// Every metric id of the header.
fn metric_ids() -> impl Iterator<Item = u32> {
    CONSTANTS
        .iter()
        .filter(|(n, _)| n.starts_with("NVML_GPM_METRIC_") && *n != "NVML_GPM_METRIC_MAX")
        .map(|(_, v)| *v as u32)
}

/// The rate of each metric on a device. A capture's `gpm` (`recorded_gpm: true`) holds every
/// metric the driver answered: the others answer `NOT_SUPPORTED`, as it did.
fn rates(sys: &System, device: nvmlDevice_t) -> BTreeMap<u32, f64> {
    let Ok(d) = sys.any_device(device).map(|d| d.gpu()) else { return BTreeMap::new() };
    let s = &d.spec;
    let given = || {
        s.value("gpm")
            .and_then(Value::as_mapping)
            .into_iter()
            .flatten()
            .filter_map(|(k, v)| Some((const_value(k)? as u32, v.as_f64()?)))
    };
    if s.bool("recorded_gpm") == Some(true) {
        return given().collect();
    }
    let mut out: BTreeMap<u32, f64> = metric_ids().map(|m| (m, 0.0)).collect();
    let pcie = |counter: nvmlPcieUtilCounter_t| {
        sys.value("nvmlDeviceGetPcieThroughput", Object::Device(sys.handle(d.index)), &[counter as i64])
            .map(|v| v.float())
    };
    let derived = [
        (NVML_GPM_METRIC_GRAPHICS_UTIL, s.u64("utilization.gpu").map(|v| v as f64)),
        (NVML_GPM_METRIC_SM_UTIL, s.u64("utilization.gpu").map(|v| v as f64)),
        (NVML_GPM_METRIC_DRAM_BW_UTIL, s.u64("utilization.memory").map(|v| v as f64)),
        (NVML_GPM_METRIC_NVDEC_0_UTIL, s.u64("decoder.utilization").map(|v| v as f64)),
        // KB/s as the getter answers it, in MiB/s as GPM reports it.
        (NVML_GPM_METRIC_PCIE_TX_PER_SEC, pcie(NVML_PCIE_UTIL_TX_BYTES).map(|kb| kb * 1000.0 / 1048576.0)),
        (NVML_GPM_METRIC_PCIE_RX_PER_SEC, pcie(NVML_PCIE_UTIL_RX_BYTES).map(|kb| kb * 1000.0 / 1048576.0)),
    ];
    for (m, v) in derived {
        if let Some(v) = v {
            out.insert(m, v);
        }
    }
    out.extend(given());
    out
}

fn sample(e: &Engine, device: nvmlDevice_t, gpu_instance: Option<u32>, handle: nvmlGpmSample_t) -> nvmlReturn_t {
    e.with(|sys| {
        let d = sys.any_device(device)?;
        let set = sys.gpm_samples.get(handle.cast())?;
        if !supported(sys, device) {
            return Err(NVML_ERROR_NOT_SUPPORTED);
        }
        let gi = match (d, gpu_instance) {
            (DeviceRef::Mig { gi, .. }, None) => Some(gi.id),
            // A GPU with MIG off has no GPU instance to sample: driver 580.159.04 answers
            // INVALID_ARGUMENT on an H200.
            (DeviceRef::Gpu(g), Some(_)) if !super::mig::mig_mode(g) => return Err(NVML_ERROR_INVALID_ARGUMENT),
            (DeviceRef::Gpu(g), Some(id)) => {
                sys.gpu_instances.iter().find(|x| x.device == g.index && x.id == id).ok_or(NVML_ERROR_NOT_FOUND)?;
                Some(id)
            }
            (DeviceRef::Mig { .. }, Some(_)) => return Err(NVML_ERROR_INVALID_ARGUMENT),
            (DeviceRef::Gpu(_), None) => None,
        };
        let time_us = now_us();
        let elapsed = time_us.saturating_sub(sys.started_us) as f64 / 1e6;
        let counters = rates(sys, device).into_iter().map(|(m, r)| (m, r * elapsed)).collect();
        let mut s = set.0.lock().map_err(|_| NVML_ERROR_UNKNOWN)?;
        *s = Some(Taken { device: d.gpu().index, gpu_instance: gi, time_us, counters });
        Ok(())
    })
}

pub fn nvmlGpmSampleAlloc(e: &Engine, sample: *mut nvmlGpmSample_t) -> nvmlReturn_t {
    e.with(|sys| {
        if sample.is_null() {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        put(sample, sys.gpm_samples.add(GpmSample::default()) as nvmlGpmSample_t)
    })
}

pub fn nvmlGpmSampleFree(e: &Engine, sample: nvmlGpmSample_t) -> nvmlReturn_t {
    e.with(|sys| sys.gpm_samples.remove(sample.cast()))
}

pub fn nvmlGpmSampleGet(e: &Engine, device: nvmlDevice_t, handle: nvmlGpmSample_t) -> nvmlReturn_t {
    sample(e, device, None, handle)
}

pub fn nvmlGpmMigSampleGet(
    e: &Engine,
    device: nvmlDevice_t,
    gpu_instance: u32,
    handle: nvmlGpmSample_t,
) -> nvmlReturn_t {
    sample(e, device, Some(gpu_instance), handle)
}

/// The part of an `nvmlGpmMetricsGet_t` before its `metrics` array, the same in every header.
///
/// `NVML_GPM_METRICS_GET_VERSION` is 1 in every header while `NVML_GPM_METRIC_MAX`, the array's
/// length, grew from 98 (12.8 and before) to 210, 333 and 477 (13.4 on): the caller's record
/// is as long as its own header made it, which the version word does not tell. So the mock
/// reads this part, then exactly `numMetrics` entries, and writes back only those entries.
#[repr(C)]
#[derive(Clone, Copy)]
struct MetricsGetHead {
    version: std::ffi::c_uint,
    num_metrics: std::ffi::c_uint,
    sample1: nvmlGpmSample_t,
    sample2: nvmlGpmSample_t,
}

/// Where the `metrics` array starts: right after the head, in every header.
const METRICS_OFFSET: usize = std::mem::offset_of!(nvmlGpmMetricsGet_t, metrics);
const _: () = assert!(std::mem::size_of::<MetricsGetHead>() == METRICS_OFFSET);
const _: () = assert!(std::mem::offset_of!(MetricsGetHead, num_metrics) == 4);
const _: () =
    assert!(std::mem::offset_of!(MetricsGetHead, sample2) == std::mem::offset_of!(nvmlGpmMetricsGet_t, sample2));

/// The most metrics any header's record holds: `NVML_GPM_METRIC_MAX` of the newest header,
/// the one the mock is built with.
const MAX_METRICS: usize = NVML_GPM_METRIC_MAX as usize;

/// Entry `i` of the caller's `metrics` array (a place only; nothing is read).
fn metric_entry(metrics: *mut nvmlGpmMetricsGet_t, i: usize) -> *mut nvmlGpmMetric_t {
    metrics.cast::<u8>().wrapping_add(METRICS_OFFSET).cast::<nvmlGpmMetric_t>().wrapping_add(i)
}

/// Each requested metric: the difference of its counters over the time between the samples.
/// Reads and writes the caller's first `numMetrics` entries and nothing past them (see
/// [`MetricsGetHead`]); a count above what any header's record holds is `INVALID_ARGUMENT`.
pub fn nvmlGpmMetricsGet(e: &Engine, metrics: *mut nvmlGpmMetricsGet_t) -> nvmlReturn_t {
    e.with(|sys| {
        let head = get(metrics.cast::<MetricsGetHead>())?;
        if head.version != NVML_GPM_METRICS_GET_VERSION as u32 {
            return Err(NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
        }
        let count = head.num_metrics as usize;
        if count > MAX_METRICS {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        let taken = |h: nvmlGpmSample_t| -> Result<Taken, nvmlReturn_t> {
            let s = sys.gpm_samples.get(h.cast())?;
            let t = s.0.lock().map_err(|_| NVML_ERROR_UNKNOWN)?.clone();
            t.ok_or(NVML_ERROR_INVALID_ARGUMENT)
        };
        let (a, b) = (taken(head.sample1)?, taken(head.sample2)?);
        if a.device != b.device || a.gpu_instance != b.gpu_instance || b.time_us <= a.time_us {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        let seconds = (b.time_us - a.time_us) as f64 / 1e6;
        for i in 0..count {
            let place = metric_entry(metrics, i);
            let mut metric = get(place)?;
            match (a.counters.get(&metric.metricId), b.counters.get(&metric.metricId)) {
                (Some(x), Some(y)) => {
                    metric.nvmlReturn = NVML_SUCCESS;
                    // Rounded to a millionth: the rate without the noise of the subtraction.
                    metric.value = ((y - x) / seconds * 1e6).round() / 1e6;
                }
                _ => metric.nvmlReturn = NVML_ERROR_NOT_SUPPORTED,
            }
            put(place, metric)?;
        }
        Ok(())
    })
}
