//! A summary like `nvidia-smi`'s: the driver and CUDA versions, a row per GPU, then the
//! processes using them. A value the GPU does not report prints as `N/A` (`ERR!` for a real
//! error), as nvidia-smi does; nothing here panics on what the library answers.
//!
//! ```sh
//! cargo run -p nvmlkit --example smi
//! # without a GPU, against the mock:
//! cargo build -p nvmlkit --examples
//! NVML_LIBRARY_PATH=target/debug/deps/libnvml_mock.so NVML_MOCK_PROFILE=h100 target/debug/examples/smi
//! ```

use std::io::{self, Write};

use nvml::{ComputeMode, Device, EnableState, Error, Nvml, ProcessInfo, TemperatureSensors};

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let nvml = Nvml::init()?;
    // Written with `?`, not `println!`: a closed pipe (`smi | head`) ends the program quietly.
    let mut out = io::stdout().lock();

    let driver = cell(nvml.driver_version(), |v| v);
    let cuda = cell(nvml.cuda_driver_version(), |v| format!("{}.{}", v / 1000, v % 1000 / 10));
    writeln!(out, "NVML {}    Driver Version: {driver}    CUDA Version: {cuda}", cell(nvml.nvml_version(), |v| v))?;
    writeln!(out)?;

    let mut gpus = Table::new(&[
        "GPU",
        "Name",
        "Persistence-M",
        "Bus-Id",
        "Temp",
        "Pwr:Usage/Cap",
        "Memory-Usage",
        "GPU-Util",
        "Compute M.",
    ]);
    let mut procs = Table::new(&["GPU", "PID", "Type", "Process name", "GPU Memory"]);
    let count = nvml.device_count()?;
    for i in 0..count {
        let gpu = match nvml.device_by_index(i) {
            Ok(gpu) => gpu,
            Err(e) => {
                // A GPU NVML cannot open (fallen off the bus, no permission): a row that says so.
                let mut row = vec![i.to_string(), format!("({e})")];
                row.resize(gpus.width(), na(&e));
                gpus.row(row);
                continue;
            }
        };
        gpus.row(vec![
            i.to_string(),
            cell(gpu.name(), |s| s),
            // 0.1.0: `cell(gpu.persistence_mode(), on_off)`; a break CHANGELOG.md lists (`bool`, was `EnableState`).
            cell(
                gpu.persistence_mode().map(|on| if on { EnableState::ENABLED } else { EnableState::DISABLED }),
                on_off,
            ),
            cell(gpu.pci_info(), |p| p.bus_id),
            cell(gpu.temperature(TemperatureSensors::GPU), |t| format!("{t}C")),
            format!(
                "{} / {}",
                cell(gpu.power_usage(), watts),
                cell(gpu.enforced_power_limit().or_else(|_| gpu.power_management_limit()), watts)
            ),
            match gpu.memory_info() {
                Ok(m) => format!("{}MiB / {}MiB", m.used >> 20, m.total >> 20),
                Err(e) => na(&e),
            },
            cell(gpu.utilization_rates(), |u| format!("{}%", u.gpu)),
            cell(gpu.compute_mode(), compute_mode),
        ]);
        add_processes(&nvml, &gpu, i, &mut procs);
    }
    gpus.print(&mut out)?;
    writeln!(out)?;
    writeln!(out, "Processes:")?;
    if procs.is_empty() {
        writeln!(out, "  No running processes found")?;
    } else {
        procs.print(&mut out)?;
    }
    Ok(())
}

/// The compute ("C") and graphics ("G") processes of `gpu`; a process in both lists is "C+G".
fn add_processes(nvml: &Nvml, gpu: &Device<'_>, index: u32, procs: &mut Table) {
    let mut list: Vec<(ProcessInfo, &str)> = Vec::new();
    match gpu.compute_running_processes() {
        Ok(ps) => list.extend(ps.into_iter().map(|p| (p, "C"))),
        Err(e) => procs.row(vec![index.to_string(), na(&e), "C".into(), String::new(), String::new()]),
    }
    match gpu.graphics_running_processes() {
        Ok(ps) => {
            for p in ps {
                match list.iter_mut().find(|(q, _)| q.pid == p.pid) {
                    Some(entry) => entry.1 = "C+G",
                    None => list.push((p, "G")),
                }
            }
        }
        Err(e) => procs.row(vec![index.to_string(), na(&e), "G".into(), String::new(), String::new()]),
    }
    for (p, kind) in list {
        procs.row(vec![
            index.to_string(),
            p.pid.to_string(),
            kind.to_string(),
            process_name(nvml, p.pid),
            // `None` where NVML reports NVML_VALUE_NOT_AVAILABLE (it does not know).
            p.used_gpu_memory.map_or("N/A".into(), |m| format!("{}MiB", m >> 20)),
        ]);
    }
}

/// `nvmlSystemGetProcessName` through the raw layer: the safe crate has no method for it (its
/// buffer length is the caller's choice, which the generator's rules do not cover).
fn process_name(nvml: &Nvml, pid: u32) -> String {
    let Ok(f) = nvml.lib().nvmlSystemGetProcessName() else { return "N/A".into() };
    let mut buf = [0 as std::ffi::c_char; 256];
    // SAFETY: `f` is nvmlSystemGetProcessName of the library `nvml` keeps loaded; `buf` is
    // valid for writes of the length passed, which NVML does not exceed (NUL included).
    let code = unsafe { f(pid, buf.as_mut_ptr(), buf.len() as u32) };
    if code != nvml::sys::NVML_SUCCESS {
        return Error::from_code(code).map(|e| na(&e)).unwrap_or_default();
    }
    let bytes: Vec<u8> = buf.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The text of a value, or what nvidia-smi prints in its place.
fn cell<T>(r: Result<T, Error>, f: impl FnOnce(T) -> String) -> String {
    match r {
        Ok(v) => f(v),
        Err(e) => na(&e),
    }
}

/// `N/A` where the GPU or driver does not report the value, `ERR!` for a failure.
fn na(e: &Error) -> String {
    match e {
        Error::NotSupported | Error::FunctionNotFound(_) | Error::NoPermission | Error::NotFound | Error::NoData => {
            "N/A".into()
        }
        _ => "ERR!".into(),
    }
}

fn on_off(s: EnableState) -> String {
    match s {
        EnableState::ENABLED => "On".into(),
        EnableState::DISABLED => "Off".into(),
        other => format!("{other:?}"),
    }
}

fn watts(mw: u32) -> String {
    format!("{}W", mw / 1000)
}

fn compute_mode(m: ComputeMode) -> String {
    match m {
        ComputeMode::DEFAULT => "Default".into(),
        ComputeMode::EXCLUSIVE_THREAD => "E. Thread".into(),
        ComputeMode::EXCLUSIVE_PROCESS => "E. Process".into(),
        ComputeMode::PROHIBITED => "Prohibited".into(),
        other => format!("{other:?}"),
    }
}

/// Left-aligned columns as wide as their widest cell.
struct Table {
    rows: Vec<Vec<String>>,
}

impl Table {
    fn new(header: &[&str]) -> Table {
        Table { rows: vec![header.iter().map(|s| s.to_string()).collect()] }
    }

    fn width(&self) -> usize {
        self.rows[0].len()
    }

    fn row(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }

    fn is_empty(&self) -> bool {
        self.rows.len() == 1
    }

    fn print(&self, out: &mut impl Write) -> io::Result<()> {
        let mut widths = vec![0; self.width()];
        for row in &self.rows {
            for (w, c) in widths.iter_mut().zip(row) {
                *w = (*w).max(c.chars().count());
            }
        }
        for row in &self.rows {
            let line: Vec<String> = row.iter().zip(&widths).map(|(c, w)| format!("{c:<w$}")).collect();
            writeln!(out, "{}", line.join("  ").trim_end())?;
        }
        Ok(())
    }
}
