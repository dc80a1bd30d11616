//! `nvmlInternalGetExportTable`: the table of internal entry points that `nvidia-smi` asks the
//! library for (it is not in `nvml.h`), and the slots of it that `nvidia-smi` 580 calls.
//!
//! `nvidia-smi` asks for the table of GUID `6c3efec4-8fc9-4e6c-a327-ee696e12f7c4` and refuses
//! a library without it ("Mismatch in versions between nvidia-smi and NVML."). The table is an
//! array of 8-byte words: word 0 is its size in bytes, each later word a function pointer (a
//! slot). Every slot here is a function of its own, so a call says which slot it is for; the
//! slots `nvidia-smi` 580 calls, found by logging each view's calls (`NVML_MOCK_LOG`), answer
//! from the profile:
//!
//! - 81: a device handle by index, `(index, nvmlDevice_t *, 0x22)`;
//! - 23 (`topo -m`): the path between two GPUs, `(const char *busIdA, const char *busIdB,
//!   unsigned *path)`: 0 PIX, 1 PXB, 2 PHB, 3 NODE, 4 SYS (the common ancestor's
//!   `NVML_TOPOLOGY_SINGLE` to `_SYSTEM`), 4 + n for n NVLinks ("NVn");
//! - 72 (`dmon`, `pmon`): whether the device can be monitored, `(device, u64 *supported, ...)`:
//!   1, as the H200 answers (0 makes `nvidia-smi` refuse: "Not supported on the device(s)");
//! - 145 (`pmon`): the processes' utilisation samples since a time, `(device, u64 since,
//!   unsigned *a, unsigned *capacity, entries)`: `NVML_ERROR_NOT_FOUND` with 1 in `*a`, as an
//!   idle H200 answers (no sample; `pmon` shows a dash);
//! - 213, 214, 215: the processes of a device for the default view, `-q` and
//!   `--query-compute-apps`, `(device, unsigned *count, entries)`: the caller's capacity in
//!   `count`, each entry [`PROCESS_ENTRY`] bytes: pid (u32) at 0, used memory (u64) at 8, GPU
//!   and compute instance ids (u32) at 16 and 20, confidential-computing protected memory
//!   (u64) at 24, and the name, NUL-terminated, from 32;
//! - 230: the host side's maximum PCIe generation, `(device, unsigned *)`: the profile's
//!   `pci.host_max_link_generation` (none: `NOT_SUPPORTED`, which `nvidia-smi` shows as N/A,
//!   as the H200 of a virtual machine answers);
//! - 231 (`-q`, "GPU Part Number"): `(device, char *buffer, unsigned length)`: the profile's
//!   `gpu_part_number` (none: `NOT_SUPPORTED`);
//! - every other slot answers `NVML_SUCCESS`; called with a device handle and a pointer into
//!   the caller's stack after it, it sets the count there to 0, since `nvidia-smi` reads the
//!   capacity it passed as the number of entries otherwise (232 writes 0 there on the H200).
//!
//! What the driver answers was recorded on an H200 with driver 580.159.04 through a library
//! that logs each slot call's arguments and the memory they point at before and after the
//! driver's answer (`tests/nvidia-smi/`).
//!
//! A GPU reset (slots 20 and 197) changes nothing.

use std::ffi::{c_char, c_uint, c_void};

use nvml_sys::*;

use super::device::{by_bus_id, common_ancestor};
use super::{engine, DeviceRef, System};
use crate::ffi;

/// The number of slots (word 0, the size, included).
pub const SLOTS: usize = 256;

/// The bytes of one entry of the process lists of slots 213 to 215.
pub const PROCESS_ENTRY: usize = 4128;
/// Where an entry's name starts.
const PROCESS_NAME: usize = 32;

/// Slot functions take up to six integer or pointer arguments, in registers (the x86-64 and
/// AArch64 calling conventions pass those the same way whatever the callee declares).
type SlotFn = extern "C" fn(usize, usize, usize, usize, usize, usize) -> nvmlReturn_t;

macro_rules! slots {
    ($($n:literal)*) => {
        /// One function per slot, by index (0, the size word, is not called).
        static SLOT_FNS: [SlotFn; SLOTS] = [$({
            extern "C" fn slot(a: usize, b: usize, c: usize, d: usize, e: usize, f: usize) -> nvmlReturn_t {
                call($n, [a, b, c, d, e, f])
            }
            slot
        }),*];
    };
}

slots!(
    0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
    32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63
    64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95
    96 97 98 99 100 101 102 103 104 105 106 107 108 109 110 111 112 113 114 115 116 117 118 119 120 121 122 123 124 125 126 127
    128 129 130 131 132 133 134 135 136 137 138 139 140 141 142 143 144 145 146 147 148 149 150 151 152 153 154 155 156 157 158 159
    160 161 162 163 164 165 166 167 168 169 170 171 172 173 174 175 176 177 178 179 180 181 182 183 184 185 186 187 188 189 190 191
    192 193 194 195 196 197 198 199 200 201 202 203 204 205 206 207 208 209 210 211 212 213 214 215 216 217 218 219 220 221 222 223
    224 225 226 227 228 229 230 231 232 233 234 235 236 237 238 239 240 241 242 243 244 245 246 247 248 249 250 251 252 253 254 255
);

/// The table: its size in bytes, then the slots.
struct Table([usize; SLOTS]);

fn table() -> &'static Table {
    static TABLE: std::sync::OnceLock<Table> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut words = [0usize; SLOTS];
        words[0] = SLOTS * 8;
        for (i, w) in words.iter_mut().enumerate().skip(1) {
            *w = SLOT_FNS[i] as usize;
        }
        Table(words)
    })
}

/// `nvmlInternalGetExportTable(const void **table, const nvmlUUID-like *guid)`: the table of
/// `nvidia-smi`'s GUID; any other GUID is `NVML_ERROR_NOT_SUPPORTED`.
#[no_mangle]
pub extern "C" fn nvmlInternalGetExportTable(out: *mut *const c_void, guid: *const [u8; 16]) -> nvmlReturn_t {
    let code = std::panic::catch_unwind(|| {
        let Ok(g) = ffi::get(guid) else { return NVML_ERROR_INVALID_ARGUMENT };
        if g != ffi::SMI_TABLE {
            return NVML_ERROR_NOT_SUPPORTED;
        }
        match ffi::put(out, table().0.as_ptr() as *const c_void) {
            Ok(()) => NVML_SUCCESS,
            Err(e) => e,
        }
    })
    .unwrap_or(NVML_ERROR_UNKNOWN);
    super::log::call("nvmlInternalGetExportTable", None, code);
    code
}

/// A call of slot `slot` with its arguments.
fn call(slot: usize, args: [usize; 6]) -> nvmlReturn_t {
    let code = std::panic::catch_unwind(|| answer(slot, args)).unwrap_or(NVML_ERROR_UNKNOWN);
    super::log::slot(slot, &args, code);
    code
}

fn answer(slot: usize, a: [usize; 6]) -> nvmlReturn_t {
    let Some(sys) = engine().system() else { return NVML_ERROR_UNINITIALIZED };
    let device = sys.any_device(a[0] as nvmlDevice_t).ok();
    let here = 0u8;
    let on_stack = |p: usize| ffi::stack_bytes(p, &here as *const u8 as usize).is_some();
    let status = match (slot, device) {
        (81, _) => handle_by_index(&sys, a),
        (23, _) => path_between(&sys, a),
        (72, Some(_)) if on_stack(a[1]) => ffi::put(a[1] as *mut u64, 1),
        (145, Some(_)) => ffi::put(a[2] as *mut c_uint, 1).and(Err(NVML_ERROR_NOT_FOUND)),
        (213, Some(d)) => process_list(&sys, d, &["compute"], a),
        (214, Some(d)) => process_list(&sys, d, &["graphics"], a),
        (215, Some(_)) => no_entries(a),
        (230, Some(d)) => {
            let gen = d.gpu().spec.u32("pci.host_max_link_generation");
            gen.ok_or(NVML_ERROR_NOT_SUPPORTED).and_then(|g| ffi::put(a[1] as *mut c_uint, g))
        }
        (231, Some(d)) => match d.gpu().spec.str("gpu_part_number") {
            Some(n) => ffi::put_str(a[1] as *mut c_char, a[2] as c_uint, n),
            None => Err(NVML_ERROR_NOT_SUPPORTED),
        },
        (_, Some(_)) if on_stack(a[1]) => no_entries(a),
        _ => Ok(()),
    };
    // An experiment's writes (`NVML_MOCK_SLOT_WRITE`) replace what the slot wrote.
    for &(s, arg, value) in super::log::slot_writes() {
        if s == slot {
            if let Some(&p) = a.get(arg) {
                let _ = ffi::put(p as *mut c_uint, value);
            }
        }
    }
    ffi::code(status)
}

/// Slot 81: `(index, nvmlDevice_t *out, 0x22)`.
fn handle_by_index(sys: &System, a: [usize; 6]) -> ffi::Status {
    let index = a[0];
    if index >= sys.devices.len() {
        return Err(NVML_ERROR_INVALID_ARGUMENT);
    }
    ffi::put(a[1] as *mut nvmlDevice_t, sys.hand_out(index))
}

/// Slot 23: `(const char *busIdA, const char *busIdB, unsigned *path)`.
fn path_between(sys: &System, a: [usize; 6]) -> ffi::Status {
    let bus = |p: usize| ffi::read_str(p as *const c_char);
    let (x, y) = (bus(a[0])?, bus(a[1])?);
    let (Some(x), Some(y)) = (by_bus_id(sys, &x), by_bus_id(sys, &y)) else { return Err(NVML_ERROR_NOT_FOUND) };
    // NVLinks: those active on both sides, through the NVSwitches the links of an HGX board
    // lead to (`engine/nvlink.rs`).
    let links = |d: &super::Device| {
        (0..d.spec.u32("nvlink.links").unwrap_or(0)).filter(|&l| super::nvlink::link_active(d, l)).count() as c_uint
    };
    let nvlinks = links(x).min(links(y));
    let path = if nvlinks > 0 {
        4 + nvlinks
    } else {
        match common_ancestor(x, y) {
            NVML_TOPOLOGY_INTERNAL | NVML_TOPOLOGY_SINGLE => 0,
            NVML_TOPOLOGY_MULTIPLE => 1,
            NVML_TOPOLOGY_HOSTBRIDGE => 2,
            NVML_TOPOLOGY_NODE => 3,
            _ => 4,
        }
    };
    ffi::put(a[2] as *mut c_uint, path)
}

/// A list the profile has no entries for: a count of 0.
fn no_entries(a: [usize; 6]) -> ffi::Status {
    ffi::put(a[1] as *mut c_uint, 0)
}

/// Slots 213 to 215: `(device, unsigned *count, entries)`, `count` the capacity in, the
/// entries written out.
fn process_list(sys: &System, d: DeviceRef, kinds: &[&str], a: [usize; 6]) -> ffi::Status {
    let count = a[1] as *mut c_uint;
    let capacity = ffi::get(count)? as usize;
    let list = super::processes::named(sys, d, kinds).unwrap_or_default();
    if list.len() > capacity {
        ffi::put(count, list.len() as c_uint)?;
        return Err(NVML_ERROR_INSUFFICIENT_SIZE);
    }
    let entries = a[2] as *mut u8;
    for (i, p) in list.iter().enumerate() {
        let mut e = vec![0u8; PROCESS_ENTRY];
        e[0..4].copy_from_slice(&p.info.pid.to_ne_bytes());
        e[8..16].copy_from_slice(&p.info.usedGpuMemory.to_ne_bytes());
        e[16..20].copy_from_slice(&p.info.gpuInstanceId.to_ne_bytes());
        e[20..24].copy_from_slice(&p.info.computeInstanceId.to_ne_bytes());
        e[24..32].copy_from_slice(&p.cc_protected.to_ne_bytes());
        let name = ffi::crop(&p.name, PROCESS_ENTRY - PROCESS_NAME);
        e[PROCESS_NAME..PROCESS_NAME + name.len()].copy_from_slice(name.as_bytes());
        ffi::put_bytes_at(entries, i * PROCESS_ENTRY, &e)?;
    }
    ffi::put(count, list.len() as c_uint)
}
