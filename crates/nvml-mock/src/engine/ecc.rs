//! ECC mode and counters, retired pages, remapped rows and SRAM errors. The field values of
//! the same counters (`fields.rs`) read them through [`ecc_count`] and [`remapped_rows`].

use std::ffi::c_uint;

use nvml_sys::*;
use serde_yaml::Value;

use super::{enable, need, Device, Engine};
use crate::ffi::{check_version, get, put, put_items, put_list, put_list_in, Status};

/// The time stamp (µs since the epoch: 2023-11-14 22:13:20 UTC) of the first retired page.
const RETIRED_AT_US: u64 = 1_700_000_000_000_000;

/// ECC counters answer only while ECC is on.
pub fn ecc_enabled(d: &Device) -> Status {
    match need(d.spec.bool("ecc.enabled"))? {
        true => Ok(()),
        false => Err(NVML_ERROR_NOT_SUPPORTED),
    }
}

/// The `ecc.<volatile|aggregate>.<corrected|uncorrected>` counter.
pub fn ecc_count(
    d: &Device,
    error_type: nvmlMemoryErrorType_t,
    counter: nvmlEccCounterType_t,
) -> Result<u64, nvmlReturn_t> {
    let kind = match error_type {
        NVML_MEMORY_ERROR_TYPE_CORRECTED => "corrected",
        NVML_MEMORY_ERROR_TYPE_UNCORRECTED => "uncorrected",
        _ => return Err(NVML_ERROR_INVALID_ARGUMENT),
    };
    let scope = match counter {
        NVML_VOLATILE_ECC => "volatile",
        NVML_AGGREGATE_ECC => "aggregate",
        _ => return Err(NVML_ERROR_INVALID_ARGUMENT),
    };
    ecc_enabled(d)?;
    need(d.spec.u64(&format!("ecc.{scope}.{kind}")))
}

pub fn nvmlDeviceGetEccMode(
    e: &Engine,
    device: nvmlDevice_t,
    current: *mut nvmlEnableState_t,
    pending: *mut nvmlEnableState_t,
) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        if current.is_null() || pending.is_null() {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        let on = need(d.spec.bool("ecc.enabled"))?;
        put(current, enable(on))?;
        put(pending, enable(d.spec.bool("ecc.pending").unwrap_or(on)))
    })
}

pub fn nvmlDeviceGetTotalEccErrors(
    e: &Engine,
    device: nvmlDevice_t,
    error: nvmlMemoryErrorType_t,
    counter: nvmlEccCounterType_t,
    count: *mut u64,
) -> nvmlReturn_t {
    e.dev(device, |_, d| put(count, ecc_count(d, error, counter)?))
}

/// The profile keeps totals, all in device memory (DRAM): the other locations count 0.
pub fn nvmlDeviceGetMemoryErrorCounter(
    e: &Engine,
    device: nvmlDevice_t,
    error: nvmlMemoryErrorType_t,
    counter: nvmlEccCounterType_t,
    location: nvmlMemoryLocation_t,
    count: *mut u64,
) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        let total = ecc_count(d, error, counter)?;
        if location >= NVML_MEMORY_LOCATION_COUNT {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        put(
            count,
            if location == NVML_MEMORY_LOCATION_DEVICE_MEMORY || location == NVML_MEMORY_LOCATION_DRAM {
                total
            } else {
                0
            },
        )
    })
}

/// The legacy per-location counts: the totals are in device memory.
pub fn nvmlDeviceGetDetailedEccErrors(
    e: &Engine,
    device: nvmlDevice_t,
    error: nvmlMemoryErrorType_t,
    counter: nvmlEccCounterType_t,
    counts: *mut nvmlEccErrorCounts_t,
) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        put(counts, nvmlEccErrorCounts_t { deviceMemory: ecc_count(d, error, counter)?, ..Default::default() })
    })
}

fn retired_pages(d: &Device, cause: nvmlPageRetirementCause_t) -> Result<Vec<u64>, nvmlReturn_t> {
    let key = match cause {
        NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS => "retired_pages.single_bit",
        NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR => "retired_pages.double_bit",
        _ => return Err(NVML_ERROR_INVALID_ARGUMENT),
    };
    Ok(need(d.spec.list(key))?.iter().filter_map(Value::as_u64).collect())
}

pub fn nvmlDeviceGetRetiredPages(
    e: &Engine,
    device: nvmlDevice_t,
    cause: nvmlPageRetirementCause_t,
    count: *mut c_uint,
    addresses: *mut u64,
) -> nvmlReturn_t {
    e.dev(device, |_, d| put_list(count, addresses, &retired_pages(d, cause)?))
}

/// `pageCount` sizes both `addresses` and `timestamps`, as the header says: a count of 0 asks
/// for the size; a short count answers `INSUFFICIENT_SIZE` with the count needed.
pub fn nvmlDeviceGetRetiredPages_v2(
    e: &Engine,
    device: nvmlDevice_t,
    cause: nvmlPageRetirementCause_t,
    count: *mut c_uint,
    addresses: *mut u64,
    timestamps: *mut u64,
) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        let pages = retired_pages(d, cause)?;
        let capacity = get(count)? as usize;
        put(count, pages.len() as c_uint)?;
        if pages.is_empty() {
            return Ok(());
        }
        if capacity < pages.len() {
            return Err(NVML_ERROR_INSUFFICIENT_SIZE);
        }
        if addresses.is_null() {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        put_items(addresses, &pages)?;
        if !timestamps.is_null() {
            let stamps: Vec<u64> = (0..pages.len() as u64).map(|i| RETIRED_AT_US + i * 1_000_000).collect();
            put_items(timestamps, &stamps)?;
        }
        Ok(())
    })
}

pub fn nvmlDeviceGetRetiredPagesPendingStatus(
    e: &Engine,
    device: nvmlDevice_t,
    pending: *mut nvmlEnableState_t,
) -> nvmlReturn_t {
    e.dev(device, |_, d| put(pending, enable(need(d.spec.bool("retired_pages.pending"))?)))
}

/// `(corrected, uncorrected, pending, failure)` rows.
pub fn remapped_rows(d: &Device) -> Result<(u32, u32, bool, bool), nvmlReturn_t> {
    Ok((
        need(d.spec.u32("remapped_rows.corrected"))?,
        need(d.spec.u32("remapped_rows.uncorrected"))?,
        d.spec.bool("remapped_rows.pending").unwrap_or(false),
        d.spec.bool("remapped_rows.failure").unwrap_or(false),
    ))
}

pub fn nvmlDeviceGetRemappedRows(
    e: &Engine,
    device: nvmlDevice_t,
    corr: *mut c_uint,
    unc: *mut c_uint,
    pending: *mut c_uint,
    failure: *mut c_uint,
) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        if corr.is_null() || unc.is_null() || pending.is_null() || failure.is_null() {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        let (c, u, p, f) = remapped_rows(d)?;
        put(corr, c)?;
        put(unc, u)?;
        put(pending, p as c_uint)?;
        put(failure, f as c_uint)
    })
}

/// An entry of `ecc.sram_unique_uncorrected`.
fn sram_entry(v: &Value) -> nvmlEccSramUniqueUncorrectedErrorEntry_v1_t {
    let u = |key: &str| v.get(key).and_then(Value::as_u64).unwrap_or(0) as c_uint;
    let parity = v.get("is_parity").and_then(|p| p.as_bool().map(c_uint::from)).unwrap_or_else(|| u("is_parity"));
    nvmlEccSramUniqueUncorrectedErrorEntry_v1_t {
        unit: u("unit"),
        location: u("location"),
        sublocation: u("sublocation"),
        extlocation: u("extlocation"),
        address: u("address"),
        isParity: parity,
        count: u("count"),
    }
}

pub fn nvmlDeviceGetSramUniqueUncorrectedEccErrorCounts(
    e: &Engine,
    device: nvmlDevice_t,
    counts: *mut nvmlEccSramUniqueUncorrectedErrorCounts_t,
) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        check_version(counts, nvmlEccSramUniqueUncorrectedErrorCounts_v1)?;
        ecc_enabled(d)?;
        let entries: Vec<_> =
            d.spec.list("ecc.sram_unique_uncorrected").unwrap_or_default().iter().map(sram_entry).collect();
        put_list_in(counts, |c| (&mut c.entryCount, c.entries), &entries)
    })
}
