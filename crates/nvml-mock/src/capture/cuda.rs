//! The CUDA view of a machine, when it has `libcuda.so.1`: `cuDriverGetVersion`, and for each
//! CUDA device (matched to its NVML GPU by PCI bus id) its name, total memory and every
//! `CUdevice_attribute` of `cuda.h` (a value, or the `CUresult` the driver answered). The
//! draft keeps them under `cuda.*` (`system.cuda.driver_version`, and each GPU's `cuda.name`,
//! `cuda.total_memory` and `cuda.attributes`), which the CUDA mock answers before what it
//! derives. Only reading calls: `cuInit` and getters.

use std::collections::BTreeMap;
use std::ffi::{c_char, c_int, c_uint, c_ulong, c_void, CString};
use std::path::Path;

use serde_yaml::{Mapping, Value};

use super::draft::Profile;
use crate::generated::cuda::names::{DEVICE_ATTRIBUTES, RESULTS};

/// What the CUDA driver answered.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CudaView {
    pub driver_version: Option<i32>,
    /// By the NVML index of the GPU.
    pub devices: BTreeMap<usize, CudaDevice>,
    /// CUDA devices no NVML GPU has the PCI bus id of (MIG devices among them), left out.
    pub unmatched: usize,
}

/// One CUDA device.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CudaDevice {
    pub name: String,
    pub total_memory: u64,
    /// By name without `CU_DEVICE_ATTRIBUTE_`: the value, or the code answered.
    pub attributes: BTreeMap<String, Result<i32, u32>>,
}

type Init = unsafe extern "C" fn(c_uint) -> c_uint;
type Version = unsafe extern "C" fn(*mut c_int) -> c_uint;
type Count = unsafe extern "C" fn(*mut c_int) -> c_uint;
type Text = unsafe extern "C" fn(*mut c_char, c_int, c_int) -> c_uint;
type Total = unsafe extern "C" fn(*mut c_ulong, c_int) -> c_uint;
type Attribute = unsafe extern "C" fn(*mut c_int, c_int, c_int) -> c_uint;

/// Records the CUDA view through `library` (`None`: `libcuda.so.1` as the dynamic loader
/// finds it); `Ok(None)` when there is no such library. `nvml_index` gives the NVML index of
/// the GPU of a PCI bus id.
pub fn record(library: Option<&Path>, nvml_index: &dyn Fn(&str) -> Option<usize>) -> Result<Option<CudaView>, String> {
    let name = match library {
        Some(p) => CString::new(p.as_os_str().as_encoded_bytes()).map_err(|e| e.to_string())?,
        None => c"libcuda.so.1".to_owned(),
    };
    // SAFETY: `dlopen` with a NUL-terminated name; the handle is kept for the process (never
    // closed: a CUDA driver does not support being unloaded).
    let lib = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
    if lib.is_null() {
        return match library {
            Some(p) => Err(format!("cannot load the CUDA library {}", p.display())),
            None => Ok(None),
        };
    }
    let sym = |n: &str| -> Result<*mut c_void, String> {
        let c = CString::new(n).map_err(|e| e.to_string())?;
        // SAFETY: `lib` is a handle `dlopen` returned, `c` a NUL-terminated name.
        let p = unsafe { libc::dlsym(lib, c.as_ptr()) };
        (!p.is_null()).then_some(p).ok_or_else(|| format!("the CUDA library has no {n}"))
    };
    // SAFETY: each symbol is the CUDA driver's function of that name (`cuDeviceTotalMem_v2`,
    // `cuDriverGetVersion`, ...), whose prototype in cuda.h each type spells; they are called
    // with valid out-pointers and buffers of the sizes passed.
    unsafe {
        let init: Init = std::mem::transmute::<*mut c_void, Init>(sym("cuInit")?);
        let version: Version = std::mem::transmute::<*mut c_void, Version>(sym("cuDriverGetVersion")?);
        let count: Count = std::mem::transmute::<*mut c_void, Count>(sym("cuDeviceGetCount")?);
        let name_of: Text = std::mem::transmute::<*mut c_void, Text>(sym("cuDeviceGetName")?);
        let bus_of: Text = std::mem::transmute::<*mut c_void, Text>(sym("cuDeviceGetPCIBusId")?);
        let total: Total = std::mem::transmute::<*mut c_void, Total>(sym("cuDeviceTotalMem_v2")?);
        let attribute: Attribute = std::mem::transmute::<*mut c_void, Attribute>(sym("cuDeviceGetAttribute")?);
        let mut view = CudaView::default();
        let mut v: c_int = 0;
        if version(&mut v) == 0 {
            view.driver_version = Some(v);
        }
        let code = init(0);
        if code != 0 {
            return Err(format!("cuInit answered {}", result_name(code)));
        }
        let mut n: c_int = 0;
        if count(&mut n) != 0 {
            return Err("cuDeviceGetCount failed".into());
        }
        for dev in 0..n {
            let text = |f: Text| {
                let mut buf = [0 as c_char; 256];
                (f(buf.as_mut_ptr(), buf.len() as c_int, dev) == 0).then(|| crate::ffi::chars_str(&buf))
            };
            let Some(index) = text(bus_of).and_then(|b| nvml_index(&b)) else {
                view.unmatched += 1;
                continue;
            };
            let mut bytes: c_ulong = 0;
            let mut d = CudaDevice {
                name: text(name_of).unwrap_or_default(),
                total_memory: if total(&mut bytes, dev) == 0 { bytes } else { 0 },
                ..CudaDevice::default()
            };
            for (number, full) in DEVICE_ATTRIBUTES {
                let Some(short) = full.strip_prefix("CU_DEVICE_ATTRIBUTE_").filter(|s| *s != "MAX") else { continue };
                let code = attribute(&mut v, *number, dev);
                d.attributes.insert(short.to_string(), if code == 0 { Ok(v) } else { Err(code) });
            }
            // A GPU in MIG mode shows one MIG device under its bus id: the first device kept.
            view.devices.entry(index).or_insert(d);
        }
        Ok(Some(view))
    }
}

/// The `CUresult` name of `code` (its number when the header has none).
pub fn result_name(code: u32) -> String {
    RESULTS.iter().find(|(c, _, _)| *c == code).map_or_else(|| code.to_string(), |(_, n, _)| (*n).to_string())
}

/// Puts the view into the draft.
pub fn draft(view: &CudaView, profile: &mut Profile) {
    if let Some(v) = view.driver_version {
        profile.system.insert("cuda.driver_version".into(), Value::Number(v.into()));
    }
    for (index, d) in &view.devices {
        let Some(node) = profile.devices.get_mut(*index) else { continue };
        node.insert("cuda.name".into(), Value::String(d.name.clone()));
        node.insert("cuda.total_memory".into(), Value::Number(d.total_memory.into()));
        let mut attributes = Mapping::new();
        for (name, answer) in &d.attributes {
            let v = match answer {
                Ok(v) => Value::Number((*v).into()),
                Err(code) => Value::String(result_name(*code)),
            };
            attributes.insert(Value::String(name.clone()), v);
        }
        node.insert("cuda.attributes".into(), Value::Mapping(attributes));
    }
}
