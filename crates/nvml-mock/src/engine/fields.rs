//! Field values (`nvmlDeviceGetFieldValues`): each field reads the value its getter answers
//! (ECC and retired-page counters, remapped rows, power, energy, temperatures and their
//! thresholds, PCIe replays, NVLink state and counters), so the two never disagree. The
//! profile's `nvmlDeviceGetFieldValues` gives the fields no getter has (PCIe counters, for
//! instance).
//!
//! Field ids are read in the numbering of the profile's driver (`Profile::fields`, from
//! `system.driver_version`), as that driver reads them: on an R575 profile, 251 is
//! `NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN` and 256 `NVML_FI_PWR_SMOOTHING_ENABLED`,
//! so a client that sends the newest header's numbers reads the wrong field there, as on a real
//! R575 driver. An id the driver's header does not name answers `INVALID_ARGUMENT`.

use std::ffi::c_int;

use nvml_sys::*;
use serde_yaml::Value;

use super::ecc::{ecc_count, remapped_rows};
use super::nvlink::{check_link, link_active};
use super::{need, now_us, Device, Engine, System};
use crate::answer::Object;
use crate::ffi::{get, put};
use crate::profile::const_value;

/// A field's value, or why it has none.
type Field = Result<u64, nvmlReturn_t>;

/// A number a getter answered from the profile's values, by function and selectors.
fn value_of(sys: &System, device: nvmlDevice_t, function: &str, selectors: &[i64]) -> Field {
    sys.value(function, Object::Device(device), selectors).map(|v| v.uint()).ok_or(NVML_ERROR_NOT_SUPPORTED)
}

/// NVLink error counter `counter` of `link`, or of every link for `scope` 0xFFFFFFFF... the
/// fields name the link in their id (`_L0` to `_L11`) or sum them (`_TOTAL`).
fn nvlink_errors(
    sys: &System,
    d: &Device,
    device: nvmlDevice_t,
    counter: nvmlNvLinkErrorCounter_t,
    link: Option<u32>,
) -> Field {
    let links = need(d.spec.u32("nvlink.links"))?;
    let one = |l: u32| value_of(sys, device, "nvmlDeviceGetNvLinkErrorCounter", &[l as i64, counter as i64]);
    match link {
        Some(l) => {
            check_link(d, l)?;
            one(l)
        }
        None => (0..links).map(one).sum(),
    }
}

/// A field of the NVLink families numbered by link: `(first of L0-L5, total, first of L6-L11)`.
fn by_link(id: i32, first: i32, total: i32, first_hi: i32) -> Option<Option<u32>> {
    match id {
        _ if (first..first + 6).contains(&id) => Some(Some((id - first) as u32)),
        _ if id == total => Some(None),
        _ if (first_hi..first_hi + 6).contains(&id) => Some(Some((id - first_hi + 6) as u32)),
        _ => None,
    }
}

/// A field's value; `id` is an `NVML_FI_*` constant (an `int` in the header).
fn field(sys: &System, d: &Device, device: nvmlDevice_t, id: i32, scope: u32) -> Field {
    let s = &d.spec;
    let flag = |b: bool| u64::from(b);
    let ecc = |e, c| ecc_count(d, e, c);
    let pages = |key: &str| need(s.list(key)).map(|l| l.len() as u64);
    let threshold =
        |t: nvmlTemperatureThresholds_t| value_of(sys, device, "nvmlDeviceGetTemperatureThreshold", &[t as i64]);
    let link_errors = |c| {
        let (f, t, h) = match c {
            NVML_NVLINK_ERROR_DL_CRC_FLIT => (
                NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L0,
                NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL,
                NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L6,
            ),
            NVML_NVLINK_ERROR_DL_CRC_DATA => (
                NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L0,
                NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL,
                NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L6,
            ),
            NVML_NVLINK_ERROR_DL_REPLAY => (
                NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L0,
                NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL,
                NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L6,
            ),
            _ => (
                NVML_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L0,
                NVML_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL,
                NVML_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L6,
            ),
        };
        by_link(id, f, t, h)
    };
    for counter in [
        NVML_NVLINK_ERROR_DL_CRC_FLIT,
        NVML_NVLINK_ERROR_DL_CRC_DATA,
        NVML_NVLINK_ERROR_DL_REPLAY,
        NVML_NVLINK_ERROR_DL_RECOVERY,
    ] {
        if let Some(link) = link_errors(counter) {
            return nvlink_errors(sys, d, device, counter, link);
        }
    }
    // Every link runs at the common speed.
    if let Some(link) = by_link(
        id,
        NVML_FI_DEV_NVLINK_SPEED_MBPS_L0,
        NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON,
        NVML_FI_DEV_NVLINK_SPEED_MBPS_L6,
    ) {
        if let Some(l) = link {
            check_link(d, l)?;
        }
        return need(s.u64("nvlink.speed_mbps"));
    }
    let scoped_link = || -> Result<u32, nvmlReturn_t> {
        check_link(d, scope)?;
        Ok(scope)
    };
    match id {
        NVML_FI_DEV_ECC_CURRENT => s.bool("ecc.enabled").map(flag).ok_or(NVML_ERROR_NOT_SUPPORTED),
        NVML_FI_DEV_ECC_PENDING => {
            s.bool("ecc.pending").or(s.bool("ecc.enabled")).map(flag).ok_or(NVML_ERROR_NOT_SUPPORTED)
        }
        NVML_FI_DEV_ECC_SBE_VOL_TOTAL | NVML_FI_DEV_ECC_SBE_VOL_DEV => {
            ecc(NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC)
        }
        NVML_FI_DEV_ECC_DBE_VOL_TOTAL | NVML_FI_DEV_ECC_DBE_VOL_DEV => {
            ecc(NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC)
        }
        NVML_FI_DEV_ECC_SBE_AGG_TOTAL | NVML_FI_DEV_ECC_SBE_AGG_DEV => {
            ecc(NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_AGGREGATE_ECC)
        }
        NVML_FI_DEV_ECC_DBE_AGG_TOTAL | NVML_FI_DEV_ECC_DBE_AGG_DEV => {
            ecc(NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC)
        }
        NVML_FI_DEV_RETIRED_SBE => pages("retired_pages.single_bit"),
        NVML_FI_DEV_RETIRED_DBE => pages("retired_pages.double_bit"),
        NVML_FI_DEV_RETIRED_PENDING => need(s.bool("retired_pages.pending")).map(flag),
        NVML_FI_DEV_REMAPPED_COR => remapped_rows(d).map(|r| r.0.into()),
        NVML_FI_DEV_REMAPPED_UNC => remapped_rows(d).map(|r| r.1.into()),
        NVML_FI_DEV_REMAPPED_PENDING => remapped_rows(d).map(|r| flag(r.2)),
        NVML_FI_DEV_REMAPPED_FAILURE => remapped_rows(d).map(|r| flag(r.3)),
        NVML_FI_DEV_MEMORY_TEMP => need(s.u64("temperature.memory")),
        NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION | NVML_FI_DEV_ENERGY => super::perf::energy_mj(sys, d),
        NVML_FI_DEV_POWER_INSTANT | NVML_FI_DEV_POWER_AVERAGE => need(s.u64("power.usage_mw")),
        NVML_FI_DEV_POWER_MIN_LIMIT => need(s.u64("power.min_limit_mw")),
        NVML_FI_DEV_POWER_MAX_LIMIT => need(s.u64("power.max_limit_mw")),
        NVML_FI_DEV_POWER_DEFAULT_LIMIT => value_of(sys, device, "nvmlDeviceGetPowerManagementDefaultLimit", &[]),
        NVML_FI_DEV_POWER_CURRENT_LIMIT | NVML_FI_DEV_POWER_REQUESTED_LIMIT => {
            let set = d.state.lock().map_err(|_| NVML_ERROR_UNKNOWN)?.power_limit_mw;
            need(set.map(u64::from).or(s.u64("power.limit_mw")))
        }
        NVML_FI_DEV_TEMPERATURE_SHUTDOWN_TLIMIT => threshold(NVML_TEMPERATURE_THRESHOLD_SHUTDOWN),
        NVML_FI_DEV_TEMPERATURE_SLOWDOWN_TLIMIT => threshold(NVML_TEMPERATURE_THRESHOLD_SLOWDOWN),
        NVML_FI_DEV_TEMPERATURE_MEM_MAX_TLIMIT => threshold(NVML_TEMPERATURE_THRESHOLD_MEM_MAX),
        NVML_FI_DEV_TEMPERATURE_GPU_MAX_TLIMIT => threshold(NVML_TEMPERATURE_THRESHOLD_GPU_MAX),
        NVML_FI_DEV_PCIE_REPLAY_COUNTER => value_of(sys, device, "nvmlDeviceGetPcieReplayCounter", &[]),
        NVML_FI_DEV_NVLINK_LINK_COUNT => need(s.u64("nvlink.links")),
        NVML_FI_DEV_NVLINK_GET_STATE => scoped_link().map(|l| flag(link_active(d, l))),
        NVML_FI_DEV_NVLINK_GET_VERSION => scoped_link().and_then(|_| need(s.u64("nvlink.version"))),
        NVML_FI_DEV_NVLINK_GET_SPEED => need(s.u64("nvlink.speed_mbps")),
        NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX => need(s.u64("nvlink.throughput.data_tx_kib")),
        NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX => need(s.u64("nvlink.throughput.data_rx_kib")),
        NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_TX => need(s.u64("nvlink.throughput.raw_tx_kib")),
        NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_RX => need(s.u64("nvlink.throughput.raw_rx_kib")),
        NVML_FI_DEV_NVLINK_ERROR_DL_CRC => nvlink_errors(sys, d, device, NVML_NVLINK_ERROR_DL_CRC_FLIT, None),
        NVML_FI_DEV_NVLINK_ERROR_DL_REPLAY => nvlink_errors(sys, d, device, NVML_NVLINK_ERROR_DL_REPLAY, None),
        NVML_FI_DEV_NVLINK_ERROR_DL_RECOVERY => nvlink_errors(sys, d, device, NVML_NVLINK_ERROR_DL_RECOVERY, None),
        _ => {
            let table = s.value("nvmlDeviceGetFieldValues").and_then(Value::as_mapping);
            let found = table.and_then(|t| t.iter().find(|(k, _)| const_value(k) == Some(id as i128)));
            found.and_then(|(_, v)| v.as_u64()).ok_or(NVML_ERROR_NOT_SUPPORTED)
        }
    }
}

/// A field of the profile's `recorded_fields` (a capture's, by the driver's field id, and
/// `ID/SCOPE` for a scope other than 0): its value type and value (`{type: 0, value: 1.5}`, or
/// a number: an unsigned long long), or its error (`{error: CODE}`).
fn recorded_field(d: &Device, id: u32, scope: u32) -> Option<Result<(nvmlValueType_t, nvmlValue_t), nvmlReturn_t>> {
    let table = d.spec.value("recorded_fields")?.as_mapping()?;
    let scoped = format!("{id}/{scope}");
    let (_, v) = table.iter().find(|(k, _)| match scope {
        0 => const_value(k) == Some(i128::from(id)),
        _ => k.as_str() == Some(scoped.as_str()),
    })?;
    if v.get("unwritten").and_then(Value::as_bool) == Some(true) {
        return Some(Err(UNWRITTEN));
    }
    if let Some(code) = v.get("error").and_then(const_value) {
        return Some(Err(code as nvmlReturn_t));
    }
    let (value_type, value) = match v {
        Value::Number(_) => (NVML_VALUE_TYPE_UNSIGNED_LONG_LONG, v),
        _ => (v.get("type").and_then(const_value).unwrap_or(3) as nvmlValueType_t, v.get("value")?),
    };
    Some(Ok((
        value_type,
        crate::ffi::value_from(
            value_type,
            value.as_f64(),
            value.as_i64().map(i128::from).or(value.as_u64().map(i128::from)),
        ),
    )))
}

/// A recorded field the driver writes nothing for (`{unwritten: true}`): its entry is left as
/// the caller filled it. Not a code any field answers.
const UNWRITTEN: nvmlReturn_t = nvmlReturn_t::MAX;

/// The profile's `field_batches` (a capture's): `{triggers: [ids], unwritten: [ids]}`, the
/// fields a request of several leaves unwritten when it also asks for a trigger.
fn batch_unwritten(d: &Device, ids: impl Iterator<Item = u32> + Clone) -> Vec<u32> {
    let Some(b) = d.spec.value("field_batches") else { return Vec::new() };
    let list = |k: &str| -> Vec<u32> {
        b.get(k)
            .and_then(Value::as_sequence)
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_u64())
            .map(|v| v as u32)
            .collect()
    };
    let triggers = list("triggers");
    if ids.clone().any(|id| triggers.contains(&id)) {
        list("unwritten")
    } else {
        Vec::new()
    }
}

/// Every requested field: its value, or its own error in `nvmlReturn`. The header answers
/// `SUCCESS` "if any values in values were populated", so an empty request is refused.
pub fn nvmlDeviceGetFieldValues(
    e: &Engine,
    device: nvmlDevice_t,
    count: c_int,
    values: *mut nvmlFieldValue_t,
) -> nvmlReturn_t {
    e.dev(device, |sys, d| {
        if count <= 0 || values.is_null() {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        let now = now_us() as i64;
        // A request of several fields that asks for a trigger leaves some unwritten, as the
        // driver the profile was captured on does.
        let unwritten = if count > 1 {
            let ids = (0..count as usize).filter_map(|i| get(values.wrapping_add(i)).ok().map(|v| v.fieldId));
            batch_unwritten(d, ids.collect::<Vec<_>>().into_iter())
        } else {
            Vec::new()
        };
        for i in 0..count as usize {
            // `values` holds `count` entries; each goes through the checked helpers.
            let slot = values.wrapping_add(i);
            let mut fv: nvmlFieldValue_t = get(slot)?;
            if unwritten.contains(&fv.fieldId) {
                continue;
            }
            fv.timestamp = now;
            fv.latencyUsec = 0;
            // A field the driver answered when the profile was captured, as it answered it.
            if let Some(recorded) = recorded_field(d, fv.fieldId, fv.scopeId) {
                match recorded {
                    Err(UNWRITTEN) => continue,
                    Ok((value_type, value)) => {
                        (fv.nvmlReturn, fv.valueType, fv.value) = (NVML_SUCCESS, value_type, value);
                    }
                    Err(code) => fv.nvmlReturn = code,
                }
                put(slot, fv)?;
                continue;
            }
            // A field the driver's header lacks (no header names 0, or an id from `NVML_FI_MAX`
            // on) is one the driver does not know: the driver answers it `INVALID_ARGUMENT`
            // (580.159.04 does, for each such field).
            let numbering = &sys.profile.fields;
            let id = numbering
                .from_driver(fv.fieldId)
                .filter(|id| (1..NVML_FI_MAX as u32).contains(id) && numbering.has(*id))
                .ok_or(NVML_ERROR_INVALID_ARGUMENT);
            match id.and_then(|id| field(sys, d, device, id as i32, fv.scopeId)) {
                Ok(v) => {
                    fv.nvmlReturn = NVML_SUCCESS;
                    fv.valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
                    fv.value = nvmlValue_t { ullVal: v };
                }
                Err(code) => fv.nvmlReturn = code,
            }
            put(slot, fv)?;
        }
        Ok(())
    })
}
