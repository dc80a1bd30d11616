//! Which devices CUDA shows, in which order: `CUDA_DEVICE_ORDER` and `CUDA_VISIBLE_DEVICES`,
//! as NVIDIA's CUDA programming guide ("CUDA Environment Variables") and MIG user guide
//! ("CUDA Device Enumeration") describe them.
//!
//! - The order: `FASTEST_FIRST` (the default, also for an unknown value) puts the fastest
//!   device first (multiprocessors × clock; equal ones by PCI bus id), `PCI_BUS_ID` orders by
//!   PCI domain, bus and device.
//! - A GPU in MIG mode is not a CUDA device; its MIG devices are, and a process enumerates one
//!   MIG device at most (the first, in the order above), as the MIG user guide says of CUDA.
//! - `CUDA_VISIBLE_DEVICES` unset: every device. Set, a comma-separated list of entries, each
//!   an index into that order, a `GPU-` UUID or a unique prefix of one, or a `MIG-` UUID (or a
//!   prefix); the first entry that names no device, or one named before, ends the list (the
//!   devices before it stay). Empty: no device. A `GPU-` entry of a GPU in MIG mode names
//!   its first MIG device.

/// A GPU as the enumeration sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub uuid: String,
    /// `(domain, bus, device)`.
    pub pci: (u32, u32, u32),
    /// Multiprocessors × clock (any unit): the `FASTEST_FIRST` order.
    pub speed: u64,
    /// The UUIDs of its MIG devices, when it is in MIG mode (then it is not a device itself).
    pub mig: Option<Vec<String>>,
}

/// A CUDA device: a GPU (its index among the candidates) or a MIG device of one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Visible {
    pub gpu: usize,
    pub mig: Option<usize>,
}

/// The CUDA devices, in CUDA's order, of `gpus` under `order` (`CUDA_DEVICE_ORDER`) and
/// `visible` (`CUDA_VISIBLE_DEVICES`, `None` when unset).
pub fn enumerate(gpus: &[Candidate], order: Option<&str>, visible: Option<&str>) -> Vec<Visible> {
    let mut ranked: Vec<usize> = (0..gpus.len()).collect();
    match order.map(str::trim) {
        Some("PCI_BUS_ID") => ranked.sort_by_key(|&i| gpus[i].pci),
        _ => ranked.sort_by_key(|&i| (std::cmp::Reverse(gpus[i].speed), gpus[i].pci)),
    }
    // Every device in that order: a GPU, or the MIG devices of one in MIG mode.
    let all: Vec<Visible> = ranked
        .iter()
        .flat_map(|&gpu| match &gpus[gpu].mig {
            None => vec![Visible { gpu, mig: None }],
            Some(m) => (0..m.len()).map(|i| Visible { gpu, mig: Some(i) }).collect(),
        })
        .collect();
    let Some(list) = visible else { return one_mig_device(all) };
    let uuid = |v: &Visible| match v.mig {
        None => gpus[v.gpu].uuid.as_str(),
        Some(i) => gpus[v.gpu].mig.as_ref().map_or("", |m| m[i].as_str()),
    };
    // Indices count the devices a process may use: the GPUs, and one MIG device.
    let indexed = one_mig_device(all.clone());
    let mut out: Vec<Visible> = Vec::new();
    for entry in list.split(',').map(str::trim) {
        let found = if entry.starts_with("GPU-") || entry.starts_with("MIG-") {
            let matches: Vec<&Visible> = all.iter().filter(|v| uuid(v).starts_with(entry)).collect();
            let by_gpu: Vec<Visible> = if entry.starts_with("GPU-") {
                // A GPU's UUID: the GPU, or its first MIG device.
                let gpus_named: Vec<usize> = (0..gpus.len()).filter(|&g| gpus[g].uuid.starts_with(entry)).collect();
                match gpus_named.as_slice() {
                    [g] => all.iter().filter(|v| v.gpu == *g).take(1).copied().collect(),
                    _ => Vec::new(),
                }
            } else {
                matches.iter().map(|v| **v).collect()
            };
            match by_gpu.as_slice() {
                [one] => Some(*one),
                _ => None,
            }
        } else {
            entry.parse::<usize>().ok().and_then(|i| indexed.get(i).copied())
        };
        match found {
            Some(v) if !out.contains(&v) => out.push(v),
            _ => break,
        }
    }
    one_mig_device(out)
}

/// `devices` with every MIG device after the first left out.
fn one_mig_device(devices: Vec<Visible>) -> Vec<Visible> {
    let mut seen_mig = false;
    devices
        .into_iter()
        .filter(|v| match v.mig {
            None => true,
            Some(_) if seen_mig => false,
            Some(_) => {
                seen_mig = true;
                true
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gpu(uuid: &str, bus: u32, speed: u64, mig: Option<&[&str]>) -> Candidate {
        let mig = mig.map(|m| m.iter().map(|s| s.to_string()).collect());
        Candidate { uuid: uuid.into(), pci: (0, bus, 0), speed, mig }
    }

    fn ids(v: &[Visible]) -> Vec<(usize, Option<usize>)> {
        v.iter().map(|v| (v.gpu, v.mig)).collect()
    }

    #[test]
    fn the_visible_list_selects_orders_and_stops_at_an_invalid_entry() {
        let g =
            [gpu("GPU-aaaa-1", 0x18, 10, None), gpu("GPU-bbbb-2", 0x2a, 10, None), gpu("GPU-abcd-3", 0x3a, 10, None)];
        assert_eq!(ids(&enumerate(&g, None, None)), [(0, None), (1, None), (2, None)]);
        assert_eq!(ids(&enumerate(&g, None, Some(""))), []);
        assert_eq!(ids(&enumerate(&g, None, Some("2,0"))), [(2, None), (0, None)]);
        // An index past the end, an unknown UUID, an ambiguous prefix, a repeat: the list ends.
        assert_eq!(ids(&enumerate(&g, None, Some("1,7,0"))), [(1, None)]);
        assert_eq!(ids(&enumerate(&g, None, Some("GPU-bbbb,GPU-zzzz,0"))), [(1, None)]);
        assert_eq!(ids(&enumerate(&g, None, Some("0,GPU-a,2"))), [(0, None)]);
        assert_eq!(ids(&enumerate(&g, None, Some("GPU-ab,GPU-ab"))), [(2, None)]);
        assert_eq!(ids(&enumerate(&g, None, Some("x,0"))), []);
        assert_eq!(ids(&enumerate(&g, None, Some(" 1 , GPU-aaaa-1"))), [(1, None), (0, None)]);
    }

    #[test]
    fn the_order_is_fastest_first_unless_pci_bus_id() {
        let g = [gpu("GPU-slow", 0x18, 5, None), gpu("GPU-fast", 0x2a, 9, None)];
        assert_eq!(ids(&enumerate(&g, None, None)), [(1, None), (0, None)]);
        assert_eq!(ids(&enumerate(&g, Some("FASTEST_FIRST"), None)), [(1, None), (0, None)]);
        assert_eq!(ids(&enumerate(&g, Some("PCI_BUS_ID"), None)), [(0, None), (1, None)]);
        assert_eq!(ids(&enumerate(&g, Some("PCI_BUS_ID"), Some("0"))), [(0, None)]);
    }

    #[test]
    fn a_mig_gpu_shows_one_mig_device() {
        let g = [gpu("GPU-a", 1, 1, None), gpu("GPU-m", 2, 1, Some(&["MIG-x", "MIG-y"]))];
        assert_eq!(ids(&enumerate(&g, None, None)), [(0, None), (1, Some(0))]);
        assert_eq!(ids(&enumerate(&g, None, Some("MIG-y"))), [(1, Some(1))]);
        assert_eq!(ids(&enumerate(&g, None, Some("GPU-m"))), [(1, Some(0))]);
        assert_eq!(ids(&enumerate(&g, None, Some("MIG-x,MIG-y"))), [(1, Some(0))]);
        assert_eq!(ids(&enumerate(&g, None, Some("1,0"))), [(1, Some(0)), (0, None)]);
    }
}
