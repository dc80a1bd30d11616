//! Device queries: count, ordinals, name, UUID, memory, PCI bus ids both ways, compute
//! capability, properties, attributes and peer access, each what NVML answers of the device.

use std::ffi::{c_char, c_int, c_uint, c_ulong};

use super::{code, device, devices, put, Cu};
use crate::generated::cuda::names::P2P_ATTRIBUTES;
use crate::generated::cuda::types::*;

pub fn cuDeviceGetCount(count: *mut c_int) -> CUresult {
    code(devices().and_then(|d| put(count, d.list.len() as c_int)))
}

pub fn cuDeviceGet(dev: *mut CUdevice, ordinal: c_int) -> CUresult {
    if dev.is_null() {
        return CUDA_ERROR_INVALID_VALUE;
    }
    code(device(ordinal).and_then(|_| put(dev, ordinal)))
}

/// Copies `s` into `buf` of `len` bytes, cut to fit with its NUL, as the driver does.
fn put_text(buf: *mut c_char, len: c_int, s: &str) -> Cu<()> {
    let len = usize::try_from(len).map_err(|_| CUDA_ERROR_INVALID_VALUE)?;
    if buf.is_null() || len == 0 {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    let cut = crate::ffi::crop(s, len);
    crate::ffi::put_str(buf, len as c_uint, cut).map_err(|_| CUDA_ERROR_INVALID_VALUE)
}

pub fn cuDeviceGetName(name: *mut c_char, len: c_int, dev: CUdevice) -> CUresult {
    code(device(dev).and_then(|(d, i)| put_text(name, len, &d.list[i].nvml.name)))
}

/// The 16 bytes of a `GPU-…` or `MIG-…` UUID's hex digits.
fn uuid_bytes(uuid: &str) -> Cu<[c_char; 16]> {
    let hex: Vec<u8> =
        uuid.split_once('-').map_or(uuid, |(_, rest)| rest).bytes().filter(u8::is_ascii_hexdigit).collect();
    let digit = |b: u8| (b as char).to_digit(16).unwrap_or(0) as u8;
    let mut out = [0 as c_char; 16];
    if hex.len() < 32 {
        return Err(CUDA_ERROR_UNKNOWN);
    }
    for (i, o) in out.iter_mut().enumerate() {
        *o = (digit(hex[2 * i]) << 4 | digit(hex[2 * i + 1])) as c_char;
    }
    Ok(out)
}

fn uuid(out: *mut CUuuid, dev: CUdevice) -> CUresult {
    code(device(dev).and_then(|(d, i)| put(out, CUuuid { bytes: uuid_bytes(&d.list[i].nvml.uuid)? })))
}

pub fn cuDeviceGetUuid(uuid_: *mut CUuuid, dev: CUdevice) -> CUresult {
    uuid(uuid_, dev)
}

/// The UUID NVML answers (a MIG device's own, as `_v2` gives it).
pub fn cuDeviceGetUuid_v2(uuid_: *mut CUuuid, dev: CUdevice) -> CUresult {
    uuid(uuid_, dev)
}

fn total(dev: CUdevice) -> Cu<u64> {
    let (d, i) = device(dev)?;
    d.list[i].nvml.memory.map(|(t, _)| t).map_err(|_| CUDA_ERROR_UNKNOWN)
}

/// The legacy 32-bit total, cut at `u32::MAX` as the driver's is.
pub fn cuDeviceTotalMem(bytes: *mut c_uint, dev: CUdevice) -> CUresult {
    code(total(dev).and_then(|t| put(bytes, t.min(u64::from(c_uint::MAX)) as c_uint)))
}

pub fn cuDeviceTotalMem_v2(bytes: *mut c_ulong, dev: CUdevice) -> CUresult {
    code(total(dev).and_then(|t| put(bytes, t as c_ulong)))
}

/// `domain:bus:device.0` in the driver's spelling (`0000:18:00.0`).
pub fn bus_id(d: &super::Device) -> String {
    let p = &d.nvml.pci;
    format!("{:04x}:{:02x}:{:02x}.0", p.domain, p.bus, p.device)
}

pub fn cuDeviceGetPCIBusId(pciBusId: *mut c_char, len: c_int, dev: CUdevice) -> CUresult {
    code(device(dev).and_then(|(d, i)| put_text(pciBusId, len, &bus_id(&d.list[i]).to_ascii_uppercase())))
}

/// The numbers of a PCI bus id in any of the forms the driver takes: `domain:bus:device.function`,
/// `domain:bus:device` or `bus:device.function`, hex, any case.
fn parse_bus_id(s: &str) -> Option<(u32, u32, u32)> {
    let s = s.trim();
    let (head, _function) = s.rsplit_once('.').unwrap_or((s, "0"));
    let parts: Vec<&str> = head.split(':').collect();
    let hex = |p: &str| u32::from_str_radix(p, 16).ok();
    match parts.as_slice() {
        [domain, bus, dev] => Some((hex(domain)?, hex(bus)?, hex(dev)?)),
        [bus, dev] => Some((0, hex(bus)?, hex(dev)?)),
        _ => None,
    }
}

pub fn cuDeviceGetByPCIBusId(dev: *mut CUdevice, pciBusId: *const c_char) -> CUresult {
    let run = || -> Cu<()> {
        let d = devices()?;
        if dev.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let text = crate::ffi::read_str(pciBusId).map_err(|_| CUDA_ERROR_INVALID_VALUE)?;
        let wanted = parse_bus_id(&text).ok_or(CUDA_ERROR_INVALID_VALUE)?;
        let found = d.list.iter().position(|x| (x.nvml.pci.domain, x.nvml.pci.bus, x.nvml.pci.device) == wanted);
        put(dev, found.ok_or(CUDA_ERROR_INVALID_DEVICE)? as CUdevice)
    };
    code(run())
}

pub fn cuDeviceComputeCapability(major: *mut c_int, minor: *mut c_int, dev: CUdevice) -> CUresult {
    if major.is_null() || minor.is_null() {
        return CUDA_ERROR_INVALID_VALUE;
    }
    let run = || -> Cu<()> {
        let (d, i) = device(dev)?;
        let (a, b) = d.list[i].nvml.compute_capability.map_err(|_| CUDA_ERROR_UNKNOWN)?;
        put(major, a)?;
        put(minor, b)
    };
    code(run())
}

/// An attribute of device `dev`; `CUDA_ERROR_INVALID_VALUE` for a number that is not one.
fn attribute(attrib: c_int, dev: CUdevice) -> Cu<c_int> {
    let (d, i) = device(dev)?;
    let slot = usize::try_from(attrib).ok().and_then(|a| d.list[i].attributes.get(a).copied());
    slot.unwrap_or(Err(CUDA_ERROR_INVALID_VALUE))
}

pub fn cuDeviceGetAttribute(pi: *mut c_int, attrib: CUdevice_attribute, dev: CUdevice) -> CUresult {
    if pi.is_null() {
        return CUDA_ERROR_INVALID_VALUE;
    }
    code(attribute(attrib as c_int, dev).and_then(|v| put(pi, v)))
}

pub fn cuDeviceGetProperties(prop: *mut CUdevprop, dev: CUdevice) -> CUresult {
    if prop.is_null() {
        return CUDA_ERROR_INVALID_VALUE;
    }
    let run = || -> Cu<()> {
        let a = |attr: CUdevice_attribute| attribute(attr as c_int, dev);
        let p = CUdevprop {
            maxThreadsPerBlock: a(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            maxThreadsDim: [
                a(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?,
                a(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?,
                a(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?,
            ],
            maxGridSize: [
                a(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
                a(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
                a(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
            ],
            sharedMemPerBlock: a(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)?,
            totalConstantMemory: a(CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY)?,
            SIMDWidth: a(CU_DEVICE_ATTRIBUTE_WARP_SIZE)?,
            memPitch: a(CU_DEVICE_ATTRIBUTE_MAX_PITCH)?,
            regsPerBlock: a(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK)?,
            clockRate: a(CU_DEVICE_ATTRIBUTE_CLOCK_RATE)?,
            textureAlign: a(CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT)?,
        };
        put(prop, p)
    };
    code(run())
}

/// Whether two devices reach each other's memory, and over NVLink: what NVML's
/// `nvmlDeviceGetP2PStatus` says of their GPUs (a device and itself: no).
fn peer(dev: CUdevice, peer_dev: CUdevice) -> Cu<(bool, bool)> {
    let (d, a) = device(dev)?;
    let (_, b) = device(peer_dev)?;
    if a == b {
        return Ok((false, false));
    }
    let (x, y) = (&d.list[a].nvml, &d.list[b].nvml);
    // MIG devices have no peer access (the MIG user guide).
    if x.mig.is_some() || y.mig.is_some() {
        return Ok((false, false));
    }
    Ok(super::nvml::p2p(x.handle(), y.handle()))
}

pub fn cuDeviceCanAccessPeer(canAccessPeer: *mut c_int, dev: CUdevice, peerDev: CUdevice) -> CUresult {
    if canAccessPeer.is_null() {
        return CUDA_ERROR_INVALID_VALUE;
    }
    code(peer(dev, peerDev).and_then(|(ok, _)| put(canAccessPeer, c_int::from(ok))))
}

/// Access and atomics where NVML reports peer access; NVLink ranks 0, PCIe 1; CUDA arrays
/// over NVLink only.
pub fn cuDeviceGetP2PAttribute(
    value: *mut c_int,
    attrib: CUdevice_P2PAttribute,
    srcDevice: CUdevice,
    dstDevice: CUdevice,
) -> CUresult {
    if value.is_null() {
        return CUDA_ERROR_INVALID_VALUE;
    }
    let run = || -> Cu<()> {
        let name = P2P_ATTRIBUTES.iter().find(|(v, _)| *v == attrib as i32).map(|(_, n)| *n);
        let name = name.ok_or(CUDA_ERROR_INVALID_VALUE)?;
        if srcDevice == dstDevice {
            device(srcDevice)?;
            return Err(CUDA_ERROR_INVALID_DEVICE);
        }
        let (ok, nvlink) = peer(srcDevice, dstDevice)?;
        let v = match name {
            "CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK" => i32::from(ok && !nvlink),
            "CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED" => i32::from(ok && nvlink),
            "CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED" => 0,
            _ => i32::from(ok),
        };
        put(value, v)
    };
    code(run())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bus_ids_parse_in_the_drivers_forms() {
        assert_eq!(parse_bus_id("0000:18:00.0"), Some((0, 0x18, 0)));
        assert_eq!(parse_bus_id("00000001:AB:1f.0"), Some((1, 0xab, 0x1f)));
        assert_eq!(parse_bus_id("18:00.0"), Some((0, 0x18, 0)));
        assert_eq!(parse_bus_id("0000:18:00"), Some((0, 0x18, 0)));
        assert_eq!(parse_bus_id("zz"), None);
        assert_eq!(parse_bus_id(""), None);
    }

    #[test]
    fn uuids_become_their_16_bytes() {
        let b = uuid_bytes("GPU-9d5f3c1e-0a2b-4c6d-8e0f-1a2b3c4d5e6f").unwrap();
        assert_eq!(b[0] as u8, 0x9d);
        assert_eq!(b[15] as u8, 0x6f);
        assert!(uuid_bytes("GPU-12").is_err());
    }
}
