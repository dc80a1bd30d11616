//! Device enumeration and identity, PCI, topology and affinity. MIG devices answer the
//! identity queries with their own name and UUID; the rest of their answers are in `mig.rs`.

use std::collections::BTreeSet;
use std::ffi::{c_char, c_int, c_uint, c_ulong};

use nvml_sys::*;

use super::mig::{mig_name, mig_uuid};
use super::{need, Device, DeviceRef, Engine, System};
use crate::ffi::{
    chars_str, check_version, get, put, put_filled, put_items, put_sized_str, put_str, read_str, read_uuid, set_chars,
    Status,
};
use crate::profile::const_value;

pub fn nvmlDeviceGetCount(e: &Engine, count: *mut c_uint) -> nvmlReturn_t {
    e.with(|s| put(count, s.devices.len() as c_uint))
}

pub fn nvmlDeviceGetCount_v2(e: &Engine, count: *mut c_uint) -> nvmlReturn_t {
    nvmlDeviceGetCount(e, count)
}

pub fn nvmlDeviceGetHandleByIndex(e: &Engine, index: c_uint, device: *mut nvmlDevice_t) -> nvmlReturn_t {
    e.with(|sys| {
        if index as usize >= sys.devices.len() {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        put(device, sys.hand_out(index as usize))
    })
}

pub fn nvmlDeviceGetHandleByIndex_v2(e: &Engine, index: c_uint, device: *mut nvmlDevice_t) -> nvmlReturn_t {
    nvmlDeviceGetHandleByIndex(e, index, device)
}

/// The handle of the GPU or MIG device whose UUID is `uuid`.
fn by_uuid(sys: &System, uuid: &str, device: *mut nvmlDevice_t) -> Status {
    if device.is_null() {
        return Err(NVML_ERROR_INVALID_ARGUMENT);
    }
    if let Some(d) = sys.devices.iter().find(|d| d.spec.str("uuid") == Some(uuid)) {
        return put(device, sys.hand_out(d.index));
    }
    for gi in &sys.gpu_instances {
        for ci in &gi.compute_instances {
            if mig_uuid(&sys.devices[gi.device], gi, ci) == uuid {
                return put(device, super::mig::mig_handle(ci));
            }
        }
    }
    Err(NVML_ERROR_NOT_FOUND)
}

pub fn nvmlDeviceGetHandleByUUID(e: &Engine, uuid: *const c_char, device: *mut nvmlDevice_t) -> nvmlReturn_t {
    e.with(|sys| by_uuid(sys, &read_str(uuid)?, device))
}

/// The UUID in ASCII (`GPU-...`) or as its 16 bytes.
pub fn nvmlDeviceGetHandleByUUIDV(e: &Engine, uuid: *const nvmlUUID_t, device: *mut nvmlDevice_t) -> nvmlReturn_t {
    e.with(|sys| {
        check_version(uuid as *mut nvmlUUID_t, nvmlUUID_v1)?;
        let (kind, text, bytes) = read_uuid(uuid)?;
        let text = match kind {
            NVML_UUID_TYPE_ASCII => text,
            NVML_UUID_TYPE_BINARY => {
                let found = sys.devices.iter().find(|d| d.spec.str("uuid").map(uuid_bytes) == Some(bytes));
                found.and_then(|d| d.spec.str("uuid")).ok_or(NVML_ERROR_NOT_FOUND)?.to_string()
            }
            _ => return Err(NVML_ERROR_INVALID_ARGUMENT),
        };
        by_uuid(sys, &text, device)
    })
}

/// The 16 bytes of a UUID written `GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`.
fn uuid_bytes(uuid: &str) -> [u8; 16] {
    let hex: Vec<u8> = uuid.bytes().filter(u8::is_ascii_hexdigit).collect();
    let mut out = [0u8; 16];
    for (o, pair) in out.iter_mut().zip(hex.chunks(2)) {
        *o = std::str::from_utf8(pair).ok().and_then(|p| u8::from_str_radix(p, 16).ok()).unwrap_or(0);
    }
    out
}

pub fn nvmlDeviceGetHandleBySerial(e: &Engine, serial: *const c_char, device: *mut nvmlDevice_t) -> nvmlReturn_t {
    e.with(|sys| {
        let serial = read_str(serial)?;
        let d =
            sys.devices.iter().find(|d| d.spec.str("serial") == Some(serial.as_str())).ok_or(NVML_ERROR_NOT_FOUND)?;
        put(device, sys.hand_out(d.index))
    })
}

pub fn nvmlDeviceGetHandleByPciBusId(e: &Engine, bus_id: *const c_char, device: *mut nvmlDevice_t) -> nvmlReturn_t {
    nvmlDeviceGetHandleByPciBusId_v2(e, bus_id, device)
}

pub fn nvmlDeviceGetHandleByPciBusId_v2(e: &Engine, bus_id: *const c_char, device: *mut nvmlDevice_t) -> nvmlReturn_t {
    e.with(|sys| {
        let d = by_bus_id(sys, &read_str(bus_id)?).ok_or(NVML_ERROR_NOT_FOUND)?;
        put(device, sys.hand_out(d.index))
    })
}

/// The GPU at a PCI bus id, in the 8-digit or the legacy 4-digit domain form.
pub(super) fn by_bus_id<'s>(sys: &'s System, want: &str) -> Option<&'s Device> {
    let matches = |d: &Device| {
        let id = bus_id_of(d);
        !id.is_empty() && (id.eq_ignore_ascii_case(want) || id[4..].eq_ignore_ascii_case(want))
    };
    sys.devices.iter().map(|d| &**d).find(|d| matches(d))
}

/// A GPU's NVML index; a MIG device's index among its GPU's MIG devices, as nvml.h says ("indices
/// that can be passed to nvmlDeviceGetMigDeviceHandleByIndex"; `nvidia-smi` lists a MIG device
/// under that index, and leaves out one without).
pub fn nvmlDeviceGetIndex(e: &Engine, device: nvmlDevice_t, index: *mut c_uint) -> nvmlReturn_t {
    e.any_dev(device, |_, d| match d {
        DeviceRef::Gpu(d) => put(index, d.index as c_uint),
        DeviceRef::Mig { ci, .. } => put(index, ci.mig_index),
    })
}

pub fn nvmlDeviceGetName(e: &Engine, device: nvmlDevice_t, name: *mut c_char, length: c_uint) -> nvmlReturn_t {
    e.any_dev(device, |_, d| match d {
        DeviceRef::Gpu(d) => put_str(name, length, need(d.spec.str("name"))?),
        DeviceRef::Mig { parent, gi, ci } => put_str(name, length, &mig_name(parent, gi, ci)),
    })
}

pub fn nvmlDeviceGetUUID(e: &Engine, device: nvmlDevice_t, uuid: *mut c_char, length: c_uint) -> nvmlReturn_t {
    e.any_dev(device, |_, d| match d {
        DeviceRef::Gpu(d) => put_str(uuid, length, need(d.spec.str("uuid"))?),
        DeviceRef::Mig { parent, gi, ci } => put_str(uuid, length, &mig_uuid(parent, gi, ci)),
    })
}

pub fn nvmlDeviceGetSerial(e: &Engine, device: nvmlDevice_t, serial: *mut c_char, length: c_uint) -> nvmlReturn_t {
    e.dev(device, |_, d| put_str(serial, length, need(d.spec.str("serial"))?))
}

/// The opaque metadata of a vGPU-capable GPU: the profile's `nvmlDeviceGetPgpuMetadataString`.
pub fn nvmlDeviceGetPgpuMetadataString(
    e: &Engine,
    device: nvmlDevice_t,
    metadata: *mut c_char,
    size: *mut c_uint,
) -> nvmlReturn_t {
    e.dev(device, |_, d| put_sized_str(metadata, size, need(d.spec.str("nvmlDeviceGetPgpuMetadataString"))?))
}

/// The infoROM's checksum is valid.
pub fn nvmlDeviceValidateInforom(e: &Engine, device: nvmlDevice_t) -> nvmlReturn_t {
    e.dev(device, |_, _| Ok(()))
}

pub fn nvmlDeviceGetBoardId(e: &Engine, device: nvmlDevice_t, id: *mut c_uint) -> nvmlReturn_t {
    e.dev(device, |_, d| put(id, need(d.spec.u32("board_id"))?))
}

pub fn nvmlDeviceGetNumaNodeId(e: &Engine, device: nvmlDevice_t, node: *mut c_uint) -> nvmlReturn_t {
    e.dev(device, |_, d| put(node, need(d.spec.i64("numa_node"))? as c_uint))
}

/// The PCI location of a GPU (a MIG device has its parent's).
pub fn pci_info(d: &Device) -> Result<nvmlPciInfo_t, nvmlReturn_t> {
    let s = &d.spec;
    let (domain, bus, dev) = (need(s.u32("pci.domain"))?, need(s.u32("pci.bus"))?, s.u32("pci.device").unwrap_or(0));
    let mut p = nvmlPciInfo_t {
        domain,
        bus,
        device: dev,
        pciDeviceId: s.u32("pci.device_id").unwrap_or(0),
        pciSubSystemId: s.u32("pci.subsystem_id").unwrap_or(0),
        ..Default::default()
    };
    set_chars(&mut p.busId, &format!("{domain:08X}:{bus:02X}:{dev:02X}.0"));
    set_chars(&mut p.busIdLegacy, &format!("{domain:04X}:{bus:02X}:{dev:02X}.0"));
    Ok(p)
}

/// `DDDDDDDD:BB:DD.F`, or empty when the profile has no PCI location.
pub fn bus_id_of(d: &Device) -> String {
    pci_info(d).map(|p| chars_str(&p.busId)).unwrap_or_default()
}

/// The fields of the older layouts alone, as driver 580.159.04 answers them on an H100 and an
/// H200 (`nvml-mock capture`): v1 fills the legacy bus id, domain, bus, device and device id;
/// v2 the sub-system id too; v3 the bus id as well.
pub fn nvmlDeviceGetPciInfo(e: &Engine, device: nvmlDevice_t, pci: *mut nvmlPciInfo_t) -> nvmlReturn_t {
    e.any_dev(device, |_, d| put(pci, nvmlPciInfo_t { pciSubSystemId: 0, busId: [0; 32], ..pci_info(d.gpu())? }))
}

pub fn nvmlDeviceGetPciInfo_v2(e: &Engine, device: nvmlDevice_t, pci: *mut nvmlPciInfo_t) -> nvmlReturn_t {
    e.any_dev(device, |_, d| put(pci, nvmlPciInfo_t { busId: [0; 32], ..pci_info(d.gpu())? }))
}

pub fn nvmlDeviceGetPciInfo_v3(e: &Engine, device: nvmlDevice_t, pci: *mut nvmlPciInfo_t) -> nvmlReturn_t {
    e.any_dev(device, |_, d| put(pci, pci_info(d.gpu())?))
}

pub fn nvmlDeviceGetPciInfoExt(e: &Engine, device: nvmlDevice_t, pci: *mut nvmlPciInfoExt_t) -> nvmlReturn_t {
    e.any_dev(device, |_, d| {
        check_version(pci, nvmlPciInfoExt_v1)?;
        let d = d.gpu();
        let p = pci_info(d)?;
        let ext = nvmlPciInfoExt_t {
            version: nvmlPciInfoExt_v1,
            domain: p.domain,
            bus: p.bus,
            device: p.device,
            pciDeviceId: p.pciDeviceId,
            pciSubSystemId: p.pciSubSystemId,
            baseClass: d.spec.u32("pci.base_class").unwrap_or(3),
            subClass: d.spec.u32("pci.sub_class").unwrap_or(2),
            busId: p.busId,
        };
        put(pci, ext)
    })
}

// Topology: GPUs on one NUMA node share a host bridge; others meet at the system level.

pub(super) fn common_ancestor(a: &Device, b: &Device) -> nvmlGpuTopologyLevel_t {
    // The level a capture recorded (`topology: {1: NVML_TOPOLOGY_NODE}`, by the other GPU's
    // index) comes first.
    let recorded = a
        .spec
        .value("topology")
        .and_then(|t| t.as_mapping())
        .and_then(|t| t.iter().find(|(k, _)| k.as_u64() == Some(b.index as u64)).and_then(|(_, v)| const_value(v)));
    if let Some(level) = recorded {
        return level as nvmlGpuTopologyLevel_t;
    }
    let numa = |d: &Device| d.spec.i64("numa_node");
    if a.index == b.index {
        NVML_TOPOLOGY_INTERNAL
    } else if numa(a).is_some() && numa(a) == numa(b) {
        NVML_TOPOLOGY_HOSTBRIDGE
    } else {
        NVML_TOPOLOGY_SYSTEM
    }
}

pub fn nvmlDeviceGetTopologyCommonAncestor(
    e: &Engine,
    a: nvmlDevice_t,
    b: nvmlDevice_t,
    path: *mut nvmlGpuTopologyLevel_t,
) -> nvmlReturn_t {
    e.with(|sys| put(path, common_ancestor(sys.device(a)?, sys.device(b)?)))
}

/// The topology protocol of nearest GPUs and GPU sets: "count: When zero, is set to the
/// number of matching GPUs ... When non-zero, deviceArray will be filled with count number of
/// device handles". A non-zero `count` is left as the caller gave it, as driver 580.159.04
/// does: asked for 32 with one GPU found, it answers SUCCESS, one handle and a count of 32
/// (seen by the differential test's real-driver run), so a client must size the array by the
/// zero-count probe.
///
/// A count of 0 with a non-NULL array and nothing found is refused with INVALID_ARGUMENT, as
/// that driver answers it (`crates/nvml/tests/differential/real/topology-580.159.04.txt`:
/// pynvml's second call after a probe that found nothing).
pub fn put_nearest(count: *mut c_uint, devices: *mut nvmlDevice_t, found: &[nvmlDevice_t]) -> Status {
    let n = get(count)?;
    if n == 0 && !devices.is_null() && found.is_empty() {
        return Err(NVML_ERROR_INVALID_ARGUMENT);
    }
    if n == 0 {
        return put(count, found.len() as c_uint);
    }
    if devices.is_null() {
        return Err(NVML_ERROR_INVALID_ARGUMENT);
    }
    put_items(devices, &found[..found.len().min(n as usize)])
}

/// The other GPUs that meet `device` at `level` or closer.
pub fn nvmlDeviceGetTopologyNearestGpus(
    e: &Engine,
    device: nvmlDevice_t,
    level: nvmlGpuTopologyLevel_t,
    count: *mut c_uint,
    devices: *mut nvmlDevice_t,
) -> nvmlReturn_t {
    e.dev(device, |sys, d| {
        if level > NVML_TOPOLOGY_SYSTEM {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        let found: Vec<nvmlDevice_t> = sys
            .devices
            .iter()
            .filter(|o| o.index != d.index && common_ancestor(d, o) <= level)
            .map(|o| sys.hand_out(o.index))
            .collect();
        put_nearest(count, devices, &found)
    })
}

pub fn nvmlDeviceGetP2PStatus(
    e: &Engine,
    a: nvmlDevice_t,
    b: nvmlDevice_t,
    caps: nvmlGpuP2PCapsIndex_t,
    status: *mut nvmlGpuP2PStatus_t,
) -> nvmlReturn_t {
    e.with(|sys| {
        let (da, db) = (sys.device(a)?, sys.device(b)?);
        // A GPU and itself: OK for `NVML_P2P_CAPS_INDEX_UNKNOWN` and the indexes after it, not
        // supported for the others, as driver 580.159.04 answers on an H200 alone; two GPUs:
        // over NVLink.
        let ok = if da.index == db.index {
            caps >= NVML_P2P_CAPS_INDEX_UNKNOWN
        } else {
            da.spec.u32("nvlink.links").is_some_and(|n| n > 0)
        };
        put(status, if ok { NVML_P2P_STATUS_OK } else { NVML_P2P_STATUS_NOT_SUPPORTED })
    })
}

/// GPUs with the same `board_id` are on one board.
pub fn nvmlDeviceOnSameBoard(e: &Engine, a: nvmlDevice_t, b: nvmlDevice_t, same: *mut c_int) -> nvmlReturn_t {
    e.with(|sys| {
        let (da, db) = (sys.device(a)?, sys.device(b)?);
        put(
            same,
            c_int::from(
                da.index == db.index
                    || da.spec.u32("board_id").is_some() && da.spec.u32("board_id") == db.spec.u32("board_id"),
            ),
        )
    })
}

/// The CPUs of a device's NUMA node: `system.numa_cpus` (`{0: "0-55,112-167"}`, Linux's list
/// format).
/// A device's own `cpu_affinity` (a capture's) comes first.
pub fn cpus(sys: &System, d: &Device) -> BTreeSet<u32> {
    let list = match d.spec.str("cpu_affinity") {
        Some(own) => own,
        None => {
            let Some(node) = d.spec.i64("numa_node") else { return BTreeSet::new() };
            let nodes = sys.profile.system.value("numa_cpus").and_then(|m| m.as_mapping());
            nodes.and_then(|m| m.get(serde_yaml::Value::from(node))).and_then(|v| v.as_str()).unwrap_or("")
        }
    };
    let mut out = BTreeSet::new();
    for part in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (lo, hi) = part.split_once('-').unwrap_or((part, part));
        if let (Ok(lo), Ok(hi)) = (lo.trim().parse::<u32>(), hi.trim().parse::<u32>()) {
            out.extend(lo..=hi);
        }
    }
    out
}

/// A set as bit masks, 64 members per `unsigned long`.
fn put_mask(size: c_uint, set: *mut c_ulong, members: &BTreeSet<u32>) -> Status {
    if size == 0 || set.is_null() {
        return Err(NVML_ERROR_INVALID_ARGUMENT);
    }
    // The words up to the last member's (within `size`), then zeros.
    let used = members.last().map_or(0, |m| *m as usize / 64 + 1).min(size as usize);
    let mut words = vec![0 as c_ulong; used];
    for m in members {
        if let Some(w) = words.get_mut(*m as usize / 64) {
            *w |= 1 << (m % 64);
        }
    }
    put_filled(set, &words, size as usize, 0)
}

pub fn nvmlDeviceGetCpuAffinity(e: &Engine, device: nvmlDevice_t, size: c_uint, set: *mut c_ulong) -> nvmlReturn_t {
    e.dev(device, |sys, d| put_mask(size, set, &cpus(sys, d)))
}

pub fn nvmlDeviceGetCpuAffinityWithinScope(
    e: &Engine,
    device: nvmlDevice_t,
    size: c_uint,
    set: *mut c_ulong,
    scope: nvmlAffinityScope_t,
) -> nvmlReturn_t {
    e.dev(device, |sys, d| {
        if scope > NVML_AFFINITY_SCOPE_SOCKET as nvmlAffinityScope_t {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        put_mask(size, set, &cpus(sys, d))
    })
}

/// The device's NUMA nodes: its `memory_affinity`, else its node (one per socket in the
/// profiles' servers).
pub fn nvmlDeviceGetMemoryAffinity(
    e: &Engine,
    device: nvmlDevice_t,
    size: c_uint,
    set: *mut c_ulong,
    scope: nvmlAffinityScope_t,
) -> nvmlReturn_t {
    e.dev(device, |_, d| {
        if scope > NVML_AFFINITY_SCOPE_SOCKET as nvmlAffinityScope_t {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        // The device's own `memory_affinity` (NUMA nodes; a capture's), else its node.
        let nodes: BTreeSet<u32> = match d.spec.list("memory_affinity") {
            Some(own) => own.iter().filter_map(serde_yaml::Value::as_u64).map(|n| n as u32).collect(),
            None => BTreeSet::from([need(d.spec.i64("numa_node"))? as u32]),
        };
        put_mask(size, set, &nodes)
    })
}

/// The GPU at a PCI location (domain, bus, device).
fn by_pci(sys: &System, pci: *mut nvmlPciInfo_t) -> Result<&Device, nvmlReturn_t> {
    let want = get(pci)?;
    sys.devices
        .iter()
        .map(|d| &**d)
        .find(|d| pci_info(d).is_ok_and(|p| (p.domain, p.bus, p.device) == (want.domain, want.bus, want.device)))
        .ok_or(NVML_ERROR_NOT_FOUND)
}

/// Whether the GPU at a PCI location is drained (as `nvmlDeviceModifyDrainState` left it; not
/// drained at first, as driver 580.159.04 answers on an H200).
pub fn nvmlDeviceQueryDrainState(e: &Engine, pci: *mut nvmlPciInfo_t, state: *mut nvmlEnableState_t) -> nvmlReturn_t {
    e.with(|sys| {
        if state.is_null() {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        let d = by_pci(sys, pci)?;
        let drained = d.state.lock().map_err(|_| NVML_ERROR_UNKNOWN)?.drain;
        put(state, super::enable(drained))
    })
}

/// Drains the GPU at a PCI location, or ends the drain.
pub fn nvmlDeviceModifyDrainState(e: &Engine, pci: *mut nvmlPciInfo_t, new_state: nvmlEnableState_t) -> nvmlReturn_t {
    e.with(|sys| {
        let on = match new_state {
            NVML_FEATURE_ENABLED => true,
            NVML_FEATURE_DISABLED => false,
            _ => return Err(NVML_ERROR_INVALID_ARGUMENT),
        };
        let d = by_pci(sys, pci)?;
        d.state.lock().map_err(|_| NVML_ERROR_UNKNOWN)?.drain = on;
        Ok(())
    })
}

/// Every GPU of the profile is present, so there is nothing to rediscover.
pub fn nvmlDeviceDiscoverGpus(e: &Engine, pci: *mut nvmlPciInfo_t) -> nvmlReturn_t {
    e.with(|_| get(pci).map(|_| ()))
}
