//! A port of a `gpustat`-like program written on nvml-wrapper (a line per GPU: index, name,
//! temperature, utilization, memory, and the compute processes with their memory), extended
//! the way its users extend it: the MIG devices of a GPU in MIG mode with their own processes,
//! and the GPU's active NVLink links, by the PCI bus id at their other end. nvml-wrapper 0.13
//! ships only two examples (`basic_usage`, `event_loop`, ported beside this one); the
//! side-by-side comparison is in the crate's `PORTING.md`.
//!
//! A value the GPU does not report leaves its part of the line out; nothing here panics on
//! what the library answers.
//!
//! ```sh
//! cargo run -p nvmlkit --example gpu_processes
//! ```

use std::collections::BTreeMap;
use std::io::{self, Write};

use nvml::{Device, Error, Nvml, TemperatureSensor, NVLINK_MAX_LINKS};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let nvml = Nvml::init()?;
    let mut out = io::stdout().lock();
    writeln!(out, "driver {}", nvml.driver_version()?)?;
    for index in 0..nvml.device_count()? {
        let device = nvml.device_by_index(index)?;
        let memory = device.memory_info()?;
        let mut line = format!("[{index}] {}", device.name()?);
        if let Ok(t) = device.temperature(TemperatureSensor::GPU) {
            line += &format!(" | {t}'C");
        }
        if let Ok(u) = device.utilization_rates() {
            line += &format!(" | {} %", u.gpu);
        }
        line += &format!(" | {} / {} MB", memory.used >> 20, memory.total >> 20);
        let procs = processes(&nvml, &device);
        if !procs.is_empty() {
            line += &format!(" | {procs}");
        }
        writeln!(out, "{line}")?;

        // MIG: each MIG device of a GPU whose MIG mode is on, with its processes.
        if device.mig_mode().is_ok_and(|m| m.current_mode) {
            for i in 0..device.max_mig_device_count()? {
                let mig = match device.mig_device_by_index(i) {
                    Ok(mig) => mig,
                    // Slots without a MIG device.
                    Err(Error::NotFound | Error::InvalidArgument) => continue,
                    Err(e) => return Err(e.into()),
                };
                let mem = mig.memory_info()?;
                writeln!(
                    out,
                    "    MIG {i} (GPU instance {}) | {} / {} MB | {}",
                    mig.gpu_instance_id()?,
                    mem.used >> 20,
                    mem.total >> 20,
                    processes(&nvml, &mig)
                )?;
            }
        }

        // NVLink: the active links, counted by the bus id at their other end.
        let (mut active, mut peers) = (0, BTreeMap::<String, u32>::new());
        for link in 0..NVLINK_MAX_LINKS {
            match device.nvlink_state(link) {
                Ok(true) => {
                    active += 1;
                    if let Ok(peer) = device.nvlink_remote_pci_info(link) {
                        *peers.entry(peer.bus_id).or_default() += 1;
                    }
                }
                Ok(false) => {}
                // A GPU without NVLink, or past its last link.
                Err(Error::NotSupported | Error::InvalidArgument) => break,
                Err(e) => return Err(e.into()),
            }
        }
        if active > 0 {
            let to: Vec<String> = peers.iter().map(|(bus_id, n)| format!("{bus_id} x{n}")).collect();
            writeln!(out, "    NVLink: {active} links active, to {}", to.join(", "))?;
        }
    }
    Ok(())
}

/// `name/pid(memory)` for each compute process, as the original prints them.
fn processes(nvml: &Nvml, device: &Device<'_>) -> String {
    let list = match device.running_compute_processes() {
        Ok(list) => list,
        Err(e) => return format!("({e})"),
    };
    let each: Vec<String> = list
        .iter()
        .map(|p| {
            let name = nvml.process_name(p.pid).unwrap_or_else(|_| "?".into());
            let used = p.used_gpu_memory.map_or_else(|| "Unavailable".into(), |m| format!("{}M", m >> 20));
            format!("{name}/{}({used})", p.pid)
        })
        .collect();
    each.join(",")
}
