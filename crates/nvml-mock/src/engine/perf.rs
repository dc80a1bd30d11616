//! Memory, clocks, power, P-states, thermal, cooling and utilisation: the values that move
//! together (samples, field values and setters derive from the same profile keys).

use std::ffi::{c_int, c_uint, c_ulonglong};

use nvml_sys::*;

use super::mig::{mig_memory, mig_mode};
use super::{enable, need, now_us, Device, DeviceRef, Engine, System};
use crate::answer::Object;
use crate::ffi::{check_version, get, put, put_filled, put_items, put_list, read_str, uint_value, Status};
use crate::profile::const_value;

// Memory.

/// `(total, reserved, used)` of a GPU or MIG device.
pub fn memory(d: DeviceRef) -> Result<(u64, u64, u64), nvmlReturn_t> {
    match d {
        // With what processes hold through the CUDA mock.
        DeviceRef::Gpu(d) => {
            let total = need(d.spec.u64("memory.total"))?;
            let reserved = d.spec.u64("memory.reserved").unwrap_or(0);
            let used = need(d.spec.u64("memory.used"))?;
            match crate::allocations::used_on(d.index) {
                0 => Ok((total, reserved, used)),
                cuda => Ok((total, reserved, (used + cuda).min(total.saturating_sub(reserved)))),
            }
        }
        DeviceRef::Mig { parent, gi, .. } => mig_memory(parent, gi),
    }
}

pub fn nvmlDeviceGetMemoryInfo(e: &Engine, device: nvmlDevice_t, memory_: *mut nvmlMemory_t) -> nvmlReturn_t {
    e.any_dev(device, |_, d| {
        let (total, reserved, used) = memory(d)?;
        // v1 counts reserved memory as used.
        let used = used + reserved;
        put(memory_, nvmlMemory_t { total, free: total.saturating_sub(used), used })
    })
}

pub fn nvmlDeviceGetMemoryInfo_v2(e: &Engine, device: nvmlDevice_t, memory_: *mut nvmlMemory_v2_t) -> nvmlReturn_t {
    e.any_dev(device, |_, d| {
        check_version(memory_, nvmlMemory_v2)?;
        let (total, reserved, used) = memory(d)?;
        let free = total.saturating_sub(used + reserved);
        put(memory_, nvmlMemory_v2_t { version: nvmlMemory_v2, total, reserved, free, used })
    })
}

/// The GPU's BAR1; a MIG device's share is its GPU instance's slices of `mig.slices`.
pub fn nvmlDeviceGetBAR1MemoryInfo(e: &Engine, device: nvmlDevice_t, bar1: *mut nvmlBAR1Memory_t) -> nvmlReturn_t {
    e.any_dev(device, |_, d| {
        let g = d.gpu();
        let (mut total, used) = (need(g.spec.u64("bar1.total"))?, need(g.spec.u64("bar1.used"))?);
        if let DeviceRef::Mig { gi, .. } = d {
            total = total / u64::from(g.spec.u32("mig.slices").unwrap_or(8)).max(1) * u64::from(gi.slices);
        }
        put(bar1, nvmlBAR1Memory_t { bar1Total: total, bar1Free: total.saturating_sub(used), bar1Used: used })
    })
}

/// `(soft, hard)` of a namespace without memory limits.
const NO_MEMORY_LIMITS: (u64, u64) = (0, NVML_DEVICE_MEMORY_LIMIT_MAX);

pub fn nvmlDeviceGetMemoryLimits_v1(
    e: &Engine,
    device: nvmlDevice_t,
    limits: *mut nvmlGetMemoryLimits_v1_t,
) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        let mut l = get(limits)?;
        let namespace = read_str(l.nameSpace)?;
        l.currentUsed = need(d.spec.u64("memory.used"))?;
        let state = d.state.lock().map_err(|_| NVML_ERROR_UNKNOWN)?;
        (l.softLimit, l.hardLimit) = state.memory_limits.get(&namespace).copied().unwrap_or(NO_MEMORY_LIMITS);
        put(limits, l)
    })
}

pub fn nvmlDeviceSetMemoryLimits_v1(
    e: &Engine,
    device: nvmlDevice_t,
    limits: *mut nvmlSetMemoryLimits_v1_t,
) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        let l = get(limits)?;
        let namespace = read_str(l.nameSpace)?;
        let total = need(d.spec.u64("memory.total"))?;
        let (soft, hard) = (l.softLimit, l.hardLimit);
        if soft > hard || soft > total || (hard > total && hard != NO_MEMORY_LIMITS.1) {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        let mut state = d.state.lock().map_err(|_| NVML_ERROR_UNKNOWN)?;
        if (soft, hard) == NO_MEMORY_LIMITS {
            state.memory_limits.remove(&namespace);
        } else {
            state.memory_limits.insert(namespace, (soft, hard));
        }
        Ok(())
    })
}

// Clocks.

fn clock(d: &Device, section: &str, clock_type: nvmlClockType_t) -> Result<u32, nvmlReturn_t> {
    let index = match clock_type {
        NVML_CLOCK_GRAPHICS => 0,
        NVML_CLOCK_SM => 1,
        NVML_CLOCK_MEM => 2,
        NVML_CLOCK_VIDEO => 3,
        _ => return Err(NVML_ERROR_INVALID_ARGUMENT),
    };
    // The keys written out: no string is made on every call.
    let keys = match section {
        "clocks" => ["clocks.graphics", "clocks.sm", "clocks.memory", "clocks.video"],
        _ => ["max_clocks.graphics", "max_clocks.sm", "max_clocks.memory", "max_clocks.video"],
    };
    need(d.spec.u32(keys[index]))
}

/// The application clocks `(memory, graphics)`: set ones, else the profile's.
fn app_clocks(d: &Device) -> Result<(u32, u32), nvmlReturn_t> {
    let state = d.state.lock().map_err(|_| NVML_ERROR_UNKNOWN)?;
    match state.application_clocks {
        Some(c) => Ok(c),
        None => Ok((need(d.spec.u32("application_clocks.memory"))?, need(d.spec.u32("application_clocks.graphics"))?)),
    }
}

fn default_app_clocks(d: &Device) -> Result<(u32, u32), nvmlReturn_t> {
    Ok((
        need(d.spec.u32("default_application_clocks.memory"))?,
        need(d.spec.u32("default_application_clocks.graphics"))?,
    ))
}

/// A list of numbers (or constants' names).
fn list(d: &Device, key: &str) -> Result<Vec<c_uint>, nvmlReturn_t> {
    Ok(need(d.spec.list(key))?.iter().filter_map(const_value).map(|v| v as c_uint).collect())
}

pub fn nvmlDeviceGetClockInfo(
    e: &Engine,
    device: nvmlDevice_t,
    clock_type: nvmlClockType_t,
    mhz: *mut c_uint,
) -> nvmlReturn_t {
    e.dev(device, |_, d| put(mhz, clock(d, "clocks", clock_type)?))
}

pub fn nvmlDeviceGetMaxClockInfo(
    e: &Engine,
    device: nvmlDevice_t,
    clock_type: nvmlClockType_t,
    mhz: *mut c_uint,
) -> nvmlReturn_t {
    e.dev(device, |_, d| put(mhz, clock(d, "max_clocks", clock_type)?))
}

pub fn nvmlDeviceGetClock(
    e: &Engine,
    device: nvmlDevice_t,
    clock_type: nvmlClockType_t,
    id: nvmlClockId_t,
    mhz: *mut c_uint,
) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        let v = match id {
            NVML_CLOCK_ID_CURRENT => clock(d, "clocks", clock_type)?,
            NVML_CLOCK_ID_CUSTOMER_BOOST_MAX => clock(d, "max_clocks", clock_type)?,
            NVML_CLOCK_ID_APP_CLOCK_TARGET | NVML_CLOCK_ID_APP_CLOCK_DEFAULT => {
                let (mem, gfx) =
                    if id == NVML_CLOCK_ID_APP_CLOCK_TARGET { app_clocks(d)? } else { default_app_clocks(d)? };
                match clock_type {
                    NVML_CLOCK_MEM => mem,
                    NVML_CLOCK_GRAPHICS | NVML_CLOCK_SM => gfx,
                    _ => return Err(NVML_ERROR_NOT_SUPPORTED),
                }
            }
            _ => return Err(NVML_ERROR_INVALID_ARGUMENT),
        };
        put(mhz, v)
    })
}

/// The boost clock a customer can reach: the profile's maximum clock.
pub fn nvmlDeviceGetMaxCustomerBoostClock(
    e: &Engine,
    device: nvmlDevice_t,
    clock_type: nvmlClockType_t,
    mhz: *mut c_uint,
) -> nvmlReturn_t {
    e.dev(device, |_, d| put(mhz, clock(d, "max_clocks", clock_type)?))
}

pub fn nvmlDeviceGetApplicationsClock(
    e: &Engine,
    device: nvmlDevice_t,
    clock_type: nvmlClockType_t,
    mhz: *mut c_uint,
) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        let (mem, gfx) = app_clocks(d)?;
        put(mhz, if clock_type == NVML_CLOCK_MEM { mem } else { gfx })
    })
}

pub fn nvmlDeviceGetDefaultApplicationsClock(
    e: &Engine,
    device: nvmlDevice_t,
    clock_type: nvmlClockType_t,
    mhz: *mut c_uint,
) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        let (mem, gfx) = default_app_clocks(d)?;
        put(mhz, if clock_type == NVML_CLOCK_MEM { mem } else { gfx })
    })
}

pub fn nvmlDeviceSetApplicationsClocks(
    e: &Engine,
    device: nvmlDevice_t,
    mem: c_uint,
    graphics: c_uint,
) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        if !list(d, "supported_memory_clocks")?.contains(&mem)
            || !list(d, "supported_graphics_clocks")?.contains(&graphics)
        {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        d.state.lock().map_err(|_| NVML_ERROR_UNKNOWN)?.application_clocks = Some((mem, graphics));
        Ok(())
    })
}

pub fn nvmlDeviceResetApplicationsClocks(e: &Engine, device: nvmlDevice_t) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        d.state.lock().map_err(|_| NVML_ERROR_UNKNOWN)?.application_clocks = None;
        Ok(())
    })
}

pub fn nvmlDeviceGetSupportedMemoryClocks(
    e: &Engine,
    device: nvmlDevice_t,
    count: *mut c_uint,
    clocks: *mut c_uint,
) -> nvmlReturn_t {
    e.dev(device, |_, d| put_list(count, clocks, &list(d, "supported_memory_clocks")?))
}

pub fn nvmlDeviceGetSupportedGraphicsClocks(
    e: &Engine,
    device: nvmlDevice_t,
    mem: c_uint,
    count: *mut c_uint,
    clocks: *mut c_uint,
) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        if !list(d, "supported_memory_clocks")?.contains(&mem) {
            return Err(NVML_ERROR_NOT_FOUND);
        }
        put_list(count, clocks, &list(d, "supported_graphics_clocks")?)
    })
}

/// One clock level in the text of `nvmlDeviceGetPerformanceModes` and
/// `nvmlDeviceGetCurrentClockFreqs`, as driver 580.159.04 writes it on an H100 and an H200: the
/// graphics clock and its range (never editable on these GPUs), the memory clock, and its
/// transfer rate (twice the memory clock).
fn clock_level(d: &Device, graphics: c_uint, memory: c_uint) -> Result<String, nvmlReturn_t> {
    let g = list(d, "supported_graphics_clocks")?;
    let (min, max) = (need(g.iter().min().copied())?, need(g.iter().max().copied())?);
    let rate = 2 * memory;
    Ok(format!(
        "nvclock={graphics}, nvclockmin={min}, nvclockmax={max}, nvclockeditable=0, memclock={memory}, memclockmin={memory}, memclockmax={memory}, memclockeditable=0, memTransferRate={rate}, memTransferRatemin={rate}, memTransferRatemax={rate}, memTransferRateeditable=0"
    ))
}

/// Write `text` into the `str` of a versioned record of version `expected`.
fn put_text<T: Copy>(
    p: *mut T,
    expected: c_uint,
    text: &str,
    field: impl Fn(&mut T) -> &mut [std::ffi::c_char; 2048],
) -> Status {
    check_version(p, expected)?;
    let mut r = get(p)?;
    crate::ffi::set_chars(field(&mut r), text);
    put(p, r)
}

/// A level per supported memory clock, slowest first, at the lowest graphics clock: what the
/// H100 and H200 recordings answer (`perf=0` and `perf=1` for their two memory clocks).
pub fn nvmlDeviceGetPerformanceModes(
    e: &Engine,
    device: nvmlDevice_t,
    modes: *mut nvmlDevicePerfModes_t,
) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        let mut memory = list(d, "supported_memory_clocks")?;
        memory.sort_unstable();
        let lowest = need(list(d, "supported_graphics_clocks")?.into_iter().min())?;
        let levels: Vec<String> = memory
            .iter()
            .enumerate()
            .map(|(i, m)| clock_level(d, lowest, *m).map(|l| format!("perf={i}, {l}")))
            .collect::<Result<_, _>>()?;
        put_text(modes, nvmlDevicePerfModes_v1, &levels.join(" ; "), |r| &mut r.str)
    })
}

/// The current graphics and memory clocks as one level.
pub fn nvmlDeviceGetCurrentClockFreqs(
    e: &Engine,
    device: nvmlDevice_t,
    freqs: *mut nvmlDeviceCurrentClockFreqs_t,
) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        let level = clock_level(d, need(d.spec.u32("clocks.graphics"))?, need(d.spec.u32("clocks.memory"))?)?;
        put_text(freqs, nvmlDeviceCurrentClockFreqs_v1, &level, |r| &mut r.str)
    })
}

// Power and performance.

/// The power limit in force: the one set, else the profile's.
fn power_limit(d: &Device, key: &str) -> Result<u32, nvmlReturn_t> {
    let set = d.state.lock().map_err(|_| NVML_ERROR_UNKNOWN)?.power_limit_mw;
    need(set.or(d.spec.u32(key)))
}

pub fn nvmlDeviceGetPowerUsage(e: &Engine, device: nvmlDevice_t, mw: *mut c_uint) -> nvmlReturn_t {
    e.dev(device, |_, d| put(mw, need(d.spec.u32("power.usage_mw"))?))
}

pub fn nvmlDeviceGetPowerManagementLimit(e: &Engine, device: nvmlDevice_t, mw: *mut c_uint) -> nvmlReturn_t {
    e.dev(device, |_, d| put(mw, power_limit(d, "power.limit_mw")?))
}

pub fn nvmlDeviceGetEnforcedPowerLimit(e: &Engine, device: nvmlDevice_t, mw: *mut c_uint) -> nvmlReturn_t {
    e.dev(device, |_, d| put(mw, power_limit(d, "power.enforced_limit_mw")?))
}

pub fn nvmlDeviceGetPowerManagementLimitConstraints(
    e: &Engine,
    device: nvmlDevice_t,
    min: *mut c_uint,
    max: *mut c_uint,
) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        if min.is_null() || max.is_null() {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        put(min, need(d.spec.u32("power.min_limit_mw"))?)?;
        put(max, need(d.spec.u32("power.max_limit_mw"))?)
    })
}

pub fn nvmlDeviceSetPowerManagementLimit(e: &Engine, device: nvmlDevice_t, limit: c_uint) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        let (min, max) = (need(d.spec.u32("power.min_limit_mw"))?, need(d.spec.u32("power.max_limit_mw"))?);
        if !(min..=max).contains(&limit) {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        d.state.lock().map_err(|_| NVML_ERROR_UNKNOWN)?.power_limit_mw = Some(limit);
        Ok(())
    })
}

/// The energy counter (mJ): `power.energy_mj` at `nvmlInit`, growing at the power draw
/// (`power.usage_mw`: a mW for a second is a mJ) since, as a real GPU's counts.
pub fn energy_mj(sys: &System, d: &Device) -> Result<u64, nvmlReturn_t> {
    let at_init = need(d.spec.u64("power.energy_mj"))?;
    let elapsed_us = now_us().saturating_sub(sys.started_us);
    Ok(at_init + d.spec.u64("power.usage_mw").unwrap_or(0) * elapsed_us / 1_000_000)
}

pub fn nvmlDeviceGetTotalEnergyConsumption(e: &Engine, device: nvmlDevice_t, mj: *mut c_ulonglong) -> nvmlReturn_t {
    e.dev(device, |sys, d| put(mj, energy_mj(sys, d)?))
}

/// `supported_pstates`, into an array of `size` bytes; the rest of it is
/// `NVML_PSTATE_UNKNOWN`, as the header says.
pub fn nvmlDeviceGetSupportedPerformanceStates(
    e: &Engine,
    device: nvmlDevice_t,
    pstates: *mut nvmlPstates_t,
    size: c_uint,
) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        if pstates.is_null() {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        let states = list(d, "supported_pstates")?;
        let room = size as usize / std::mem::size_of::<nvmlPstates_t>();
        if room < states.len() {
            return Err(NVML_ERROR_INSUFFICIENT_SIZE);
        }
        put_filled(pstates, &states, room, NVML_PSTATE_UNKNOWN)
    })
}

/// The clocks a P-state runs at: P0 from the lowest supported graphics clock (the memory
/// clock: its only one) to the maximum; the other supported P-states likewise.
pub fn nvmlDeviceGetMinMaxClockOfPState(
    e: &Engine,
    device: nvmlDevice_t,
    kind: nvmlClockType_t,
    pstate: nvmlPstates_t,
    min: *mut c_uint,
    max: *mut c_uint,
) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        if min.is_null() || max.is_null() {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        if !list(d, "supported_pstates")?.contains(&pstate) {
            return Err(NVML_ERROR_NOT_SUPPORTED);
        }
        let top = clock(d, "max_clocks", kind)?;
        let low = match kind {
            NVML_CLOCK_GRAPHICS | NVML_CLOCK_SM => {
                list(d, "supported_graphics_clocks")?.into_iter().min().unwrap_or(top)
            }
            NVML_CLOCK_MEM => list(d, "supported_memory_clocks")?.into_iter().min().unwrap_or(top),
            _ => clock(d, "clocks", kind)?,
        };
        put(min, low)?;
        put(max, top)
    })
}

/// The P-state heuristics' view: the graphics, frame buffer and video domains' utilisation
/// (the utilisation getters' values), with the driver's usual thresholds.
pub fn nvmlDeviceGetDynamicPstatesInfo(
    e: &Engine,
    device: nvmlDevice_t,
    info: *mut nvmlGpuDynamicPstatesInfo_t,
) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        not_in_mig_mode(d)?;
        let u = |k: &str| d.spec.u32(k).unwrap_or(0);
        let mut out = nvmlGpuDynamicPstatesInfo_t::default();
        let domains = [
            (NVML_GPU_UTILIZATION_DOMAIN_GPU, need(d.spec.u32("utilization.gpu"))?, 30, 15),
            (NVML_GPU_UTILIZATION_DOMAIN_FB, need(d.spec.u32("utilization.memory"))?, 30, 15),
            (NVML_GPU_UTILIZATION_DOMAIN_VID, u("encoder.utilization").max(u("decoder.utilization")), 15, 10),
            (NVML_GPU_UTILIZATION_DOMAIN_BUS, 0, 30, 15),
        ];
        for (i, busy, inc, dec) in domains {
            let slot = &mut out.utilization[i as usize];
            (slot.bIsPresent, slot.percentage, slot.incThreshold, slot.decThreshold) = (1, busy, inc, dec);
        }
        put(info, out)
    })
}

// Thermal and cooling.

/// The GPU's internal sensor (index 0): its reading and the slowdown threshold as its maximum.
pub fn nvmlDeviceGetThermalSettings(
    e: &Engine,
    device: nvmlDevice_t,
    index: c_uint,
    settings: *mut nvmlGpuThermalSettings_t,
) -> nvmlReturn_t {
    e.dev(device, |sys, d| {
        if settings.is_null() {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        if index > NVML_THERMAL_TARGET_ALL as c_uint {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        let slowdown = sys.value(
            "nvmlDeviceGetTemperatureThreshold",
            Object::Device(device),
            &[NVML_TEMPERATURE_THRESHOLD_SLOWDOWN as i64],
        );
        // As driver 580.159.04 answers on an H200 and an H100 (one sensor): a count of 1 for
        // every index up to NVML_THERMAL_TARGET_ALL; the sensor in entry 0 for index 0 and ALL;
        // for indices 1 and 2, the entry of that index names the controller and target alone;
        // the other indices fill no entry.
        let mut out = nvmlGpuThermalSettings_t { count: 1, ..Default::default() };
        let at = index as usize;
        if at < out.sensor.len() && at > 0 {
            out.sensor[at].controller = NVML_THERMAL_CONTROLLER_GPU_INTERNAL;
            out.sensor[at].target = NVML_THERMAL_TARGET_GPU;
        }
        if index != 0 && index != NVML_THERMAL_TARGET_ALL as c_uint {
            return put(settings, out);
        }
        let s = &mut out.sensor[0];
        s.controller = NVML_THERMAL_CONTROLLER_GPU_INTERNAL;
        s.target = NVML_THERMAL_TARGET_GPU;
        s.currentTemp = need(d.spec.i64("temperature.gpu"))? as c_int;
        s.defaultMaxTemp = slowdown.map(|v| v.int() as c_int).unwrap_or(0);
        put(settings, out)
    })
}

fn temperature(d: &Device, sensor: nvmlTemperatureSensors_t) -> Result<u32, nvmlReturn_t> {
    if sensor != NVML_TEMPERATURE_GPU {
        return Err(NVML_ERROR_INVALID_ARGUMENT);
    }
    need(d.spec.u32("temperature.gpu"))
}

pub fn nvmlDeviceGetTemperature(
    e: &Engine,
    device: nvmlDevice_t,
    sensor: nvmlTemperatureSensors_t,
    temp: *mut c_uint,
) -> nvmlReturn_t {
    e.dev(device, |_, d| put(temp, temperature(d, sensor)?))
}

pub fn nvmlDeviceGetTemperatureV(e: &Engine, device: nvmlDevice_t, t: *mut nvmlTemperature_t) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        check_version(t, nvmlTemperature_v1)?;
        let req = get(t)?;
        let value = temperature(d, req.sensorType)? as c_int;
        put(t, nvmlTemperature_t { temperature: value, ..req })
    })
}

pub fn nvmlDeviceGetNumFans(e: &Engine, device: nvmlDevice_t, n: *mut c_uint) -> nvmlReturn_t {
    e.dev(device, |_, d| put(n, need(d.spec.list("fans"))?.len() as c_uint))
}

pub fn nvmlDeviceGetFanSpeed(e: &Engine, device: nvmlDevice_t, speed: *mut c_uint) -> nvmlReturn_t {
    nvmlDeviceGetFanSpeed_v2(e, device, 0, speed)
}

pub fn nvmlDeviceGetFanSpeed_v2(e: &Engine, device: nvmlDevice_t, fan: c_uint, speed: *mut c_uint) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        let fans = need(d.spec.list("fans"))?;
        if fans.is_empty() {
            return Err(NVML_ERROR_NOT_SUPPORTED);
        }
        let v = fans.get(fan as usize).ok_or(NVML_ERROR_INVALID_ARGUMENT)?;
        put(speed, v.as_u64().unwrap_or(0) as c_uint)
    })
}

// Utilisation.

/// Utilisation is per GPU instance in MIG mode: the GPU-wide readings answer
/// `NOT_SUPPORTED`, as nvml.h notes.
fn not_in_mig_mode(d: &Device) -> Status {
    if mig_mode(d) {
        return Err(NVML_ERROR_NOT_SUPPORTED);
    }
    Ok(())
}

pub fn nvmlDeviceGetUtilizationRates(e: &Engine, device: nvmlDevice_t, u: *mut nvmlUtilization_t) -> nvmlReturn_t {
    e.any_dev(device, |_, d| {
        let DeviceRef::Gpu(d) = d else { return Err(NVML_ERROR_NOT_SUPPORTED) };
        not_in_mig_mode(d)?;
        put(
            u,
            nvmlUtilization_t {
                gpu: need(d.spec.u32("utilization.gpu"))?,
                memory: need(d.spec.u32("utilization.memory"))?,
            },
        )
    })
}

fn engine_utilization(
    e: &Engine,
    device: nvmlDevice_t,
    key: &str,
    u: *mut c_uint,
    period: *mut c_uint,
) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        if u.is_null() || period.is_null() {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        not_in_mig_mode(d)?;
        put(u, need(d.spec.u32(&format!("{key}.utilization")))?)?;
        put(period, d.spec.u32(&format!("{key}.sampling_period_us")).unwrap_or(167_000))
    })
}

pub fn nvmlDeviceGetEncoderUtilization(
    e: &Engine,
    device: nvmlDevice_t,
    u: *mut c_uint,
    period: *mut c_uint,
) -> nvmlReturn_t {
    engine_utilization(e, device, "encoder", u, period)
}

pub fn nvmlDeviceGetDecoderUtilization(
    e: &Engine,
    device: nvmlDevice_t,
    u: *mut c_uint,
    period: *mut c_uint,
) -> nvmlReturn_t {
    engine_utilization(e, device, "decoder", u, period)
}

/// How often the driver samples (µs), and how many samples its buffer keeps.
const SAMPLE_PERIOD_US: u64 = 1_000_000 / 6;
const SAMPLES_KEPT: u64 = 12;

/// The value of a sample type, from the keys the matching getters read.
fn sample_value(
    sys: &super::System,
    d: &Device,
    device: nvmlDevice_t,
    kind: nvmlSamplingType_t,
) -> Result<u32, nvmlReturn_t> {
    let per_engine = |f: &str| sys.value(f, Object::Device(device), &[]).map(|v| v.uint() as u32);
    Ok(match kind {
        NVML_TOTAL_POWER_SAMPLES => need(d.spec.u32("power.usage_mw"))?,
        NVML_GPU_UTILIZATION_SAMPLES => need(d.spec.u32("utilization.gpu"))?,
        NVML_MEMORY_UTILIZATION_SAMPLES => need(d.spec.u32("utilization.memory"))?,
        NVML_ENC_UTILIZATION_SAMPLES => need(d.spec.u32("encoder.utilization"))?,
        NVML_DEC_UTILIZATION_SAMPLES => need(d.spec.u32("decoder.utilization"))?,
        NVML_PROCESSOR_CLK_SAMPLES => need(d.spec.u32("clocks.graphics"))?,
        NVML_MEMORY_CLK_SAMPLES => need(d.spec.u32("clocks.memory"))?,
        NVML_JPG_UTILIZATION_SAMPLES => need(per_engine("nvmlDeviceGetJpgUtilization"))?,
        NVML_OFA_UTILIZATION_SAMPLES => need(per_engine("nvmlDeviceGetOfaUtilization"))?,
        NVML_MODULE_POWER_SAMPLES => return Err(NVML_ERROR_NOT_SUPPORTED),
        _ => return Err(NVML_ERROR_INVALID_ARGUMENT),
    })
}

/// The driver's recent samples of a reading: one every sixth of a second, the last at the
/// time of the call, each the profile's value; those after `lastSeenTimeStamp`.
pub fn nvmlDeviceGetSamples(
    e: &Engine,
    device: nvmlDevice_t,
    kind: nvmlSamplingType_t,
    last_seen: c_ulonglong,
    value_type: *mut nvmlValueType_t,
    count: *mut c_uint,
    samples: *mut nvmlSample_t,
) -> nvmlReturn_t {
    e.dev(device, |sys, d| {
        if count.is_null() || value_type.is_null() {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        if mig_mode(d)
            && [
                NVML_GPU_UTILIZATION_SAMPLES,
                NVML_MEMORY_UTILIZATION_SAMPLES,
                NVML_ENC_UTILIZATION_SAMPLES,
                NVML_DEC_UTILIZATION_SAMPLES,
            ]
            .contains(&kind)
        {
            return Err(NVML_ERROR_NOT_SUPPORTED);
        }
        let value = sample_value(sys, d, device, kind)?;
        let capacity = get(count)?;
        if !samples.is_null() && capacity == 0 {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        let last = now_us() / SAMPLE_PERIOD_US * SAMPLE_PERIOD_US;
        let all: Vec<nvmlSample_t> = (0..SAMPLES_KEPT)
            .rev()
            .filter_map(|i| last.checked_sub(i * SAMPLE_PERIOD_US))
            .filter(|t| *t > last_seen)
            .map(|t| nvmlSample_t { timeStamp: t, sampleValue: uint_value(value) })
            .collect();
        put(value_type, NVML_VALUE_TYPE_UNSIGNED_INT)?;
        if all.is_empty() {
            put(count, 0)?;
            return Err(NVML_ERROR_NOT_FOUND);
        }
        if samples.is_null() {
            return put(count, all.len() as c_uint);
        }
        // The newest that fit.
        let fit = &all[all.len().saturating_sub(capacity as usize)..];
        put_items(samples, fit)?;
        put(count, fit.len() as c_uint)
    })
}

// Modes.

pub fn nvmlDeviceGetComputeMode(e: &Engine, device: nvmlDevice_t, mode: *mut nvmlComputeMode_t) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        let set = d.state.lock().map_err(|_| NVML_ERROR_UNKNOWN)?.compute_mode;
        put(mode, need(set.or(d.spec.constant("nvmlDeviceGetComputeMode").map(|v| v as u32)))?)
    })
}

pub fn nvmlDeviceSetComputeMode(e: &Engine, device: nvmlDevice_t, mode: nvmlComputeMode_t) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        if mode >= NVML_COMPUTEMODE_COUNT {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        d.state.lock().map_err(|_| NVML_ERROR_UNKNOWN)?.compute_mode = Some(mode);
        Ok(())
    })
}

pub fn nvmlDeviceGetPersistenceMode(e: &Engine, device: nvmlDevice_t, mode: *mut nvmlEnableState_t) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        let set = d.state.lock().map_err(|_| NVML_ERROR_UNKNOWN)?.persistence_mode;
        put(mode, enable(need(set.or(d.spec.bool("persistence_mode")))?))
    })
}

pub fn nvmlDeviceSetPersistenceMode(e: &Engine, device: nvmlDevice_t, mode: nvmlEnableState_t) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        let on = match mode {
            NVML_FEATURE_ENABLED => true,
            NVML_FEATURE_DISABLED => false,
            _ => return Err(NVML_ERROR_INVALID_ARGUMENT),
        };
        need(d.spec.bool("persistence_mode"))?;
        d.state.lock().map_err(|_| NVML_ERROR_UNKNOWN)?.persistence_mode = Some(on);
        Ok(())
    })
}

/// A threshold the profile gives (`nvmlDeviceGetTemperatureThreshold`'s value of that type)
/// takes the value set; one it does not give is not settable.
pub fn nvmlDeviceSetTemperatureThreshold(
    e: &Engine,
    device: nvmlDevice_t,
    kind: nvmlTemperatureThresholds_t,
    temp: *mut c_int,
) -> nvmlReturn_t {
    e.dev(device, |sys, _| {
        let t = get(temp)?;
        let f = "nvmlDeviceGetTemperatureThreshold";
        sys.value(f, Object::Device(device), &[kind as i64]).ok_or(NVML_ERROR_NOT_SUPPORTED)?;
        sys.set_live(f, Object::Device(device), &[kind as i64], vec![crate::answer::Val::Int(t.into())])
    })
}
