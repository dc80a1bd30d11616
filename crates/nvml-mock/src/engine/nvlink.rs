//! NVLink: links, their state and version, and where they lead. Capabilities, error counters
//! and the remote device type are values of the profile (`generated/answers/`); their
//! field values (`fields.rs`) read the same values.

use std::ffi::c_uint;

use nvml_sys::*;

use super::{enable, need, Device, Engine};
use crate::ffi::{put, set_chars, Status};

/// `INVALID_ARGUMENT` for a link past the last.
pub fn check_link(d: &Device, link: c_uint) -> Status {
    let links = need(d.spec.u32("nvlink.links"))?;
    if link >= links {
        return Err(NVML_ERROR_INVALID_ARGUMENT);
    }
    Ok(())
}

/// Whether a link is up (`nvlink.inactive_links` lists those that are not).
pub fn link_active(d: &Device, link: c_uint) -> bool {
    !d.spec.list("nvlink.inactive_links").unwrap_or_default().iter().any(|v| v.as_u64() == Some(link.into()))
}

pub fn nvmlDeviceGetNvLinkState(
    e: &Engine,
    device: nvmlDevice_t,
    link: c_uint,
    active: *mut nvmlEnableState_t,
) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        check_link(d, link)?;
        put(active, enable(link_active(d, link)))
    })
}

pub fn nvmlDeviceGetNvLinkVersion(
    e: &Engine,
    device: nvmlDevice_t,
    link: c_uint,
    version: *mut c_uint,
) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        check_link(d, link)?;
        put(version, need(d.spec.u32("nvlink.version"))?)
    })
}

/// Links of an HGX board lead to NVSwitches, which enumerate as bus 0xFF devices, four links
/// per switch.
pub fn nvmlDeviceGetNvLinkRemotePciInfo_v2(
    e: &Engine,
    device: nvmlDevice_t,
    link: c_uint,
    pci: *mut nvmlPciInfo_t,
) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        check_link(d, link)?;
        let mut p =
            nvmlPciInfo_t { domain: 0, bus: 0xFF, device: link / 4, pciDeviceId: 0x22A3_10DE, ..Default::default() };
        set_chars(&mut p.busId, &format!("00000000:FF:{:02X}.0", link / 4));
        set_chars(&mut p.busIdLegacy, &format!("0000:FF:{:02X}.0", link / 4));
        put(pci, p)
    })
}

pub fn nvmlDeviceGetNvLinkRemotePciInfo(
    e: &Engine,
    device: nvmlDevice_t,
    link: c_uint,
    pci: *mut nvmlPciInfo_t,
) -> nvmlReturn_t {
    nvmlDeviceGetNvLinkRemotePciInfo_v2(e, device, link, pci)
}

/// The profiles give no PRM (port register) counter: each counter asked for reads
/// `NOT_SUPPORTED` in its own status and the call succeeds, as driver 580.159.04 answers on an
/// H200.
pub fn nvmlDeviceReadPRMCounters_v1(
    e: &Engine,
    device: nvmlDevice_t,
    list: *mut nvmlPRMCounterList_v1_t,
) -> nvmlReturn_t {
    e.dev(device, |_, _| {
        let l = crate::ffi::get(list)?;
        if l.numCounters > 0 && l.counters.is_null() {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        for i in 0..l.numCounters as usize {
            // `counters` holds `numCounters` entries; each goes through the checked helpers.
            let slot = l.counters.wrapping_add(i);
            let mut c = crate::ffi::get(slot)?;
            c.counterValue.status = NVML_ERROR_NOT_SUPPORTED;
            crate::ffi::put(slot, c)?;
        }
        Ok(())
    })
}
