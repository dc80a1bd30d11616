//! A port of nvml-wrapper 0.13's `basic_usage` example: the first GPU's name, architecture,
//! core count, temperature, clocks, memory and PCIe link, whether it is on a multi-GPU board,
//! and the system's CUDA version. The side-by-side comparison is in the crate's
//! `PORTING.md`.
//!
//! ```sh
//! cargo run -p nvmlkit --example basic_usage
//! # without a GPU, against the mock:
//! cargo build -p nvmlkit --examples
//! NVML_LIBRARY_PATH=target/debug/deps/libnvml_mock.so NVML_MOCK_PROFILE=h100 target/debug/examples/basic_usage
//! ```

use nvml::{cuda_driver_version_major, cuda_driver_version_minor, ClockType, Nvml, TemperatureSensor};

fn main() -> Result<(), nvml::Error> {
    let nvml = Nvml::init()?;

    let cuda_version = nvml.cuda_driver_version()?;

    // The first GPU, whichever one that is. To find the same physical GPU across reboots, look
    // it up by UUID or PCI bus id instead.
    let device = nvml.device_by_index(0)?;

    let name = device.name()?;
    let temperature = device.temperature(TemperatureSensor::GPU)?;
    let mem_info = device.memory_info()?;
    let graphics_clock = device.clock_info(ClockType::GRAPHICS)?;
    let mem_clock = device.clock_info(ClockType::MEMORY)?;
    let link_gen = device.current_pcie_link_generation()?;
    // Mbps per lane, that is, megatransfers per second.
    let link_speed = device.pcie_link_speed()?;
    let link_width = device.current_pcie_link_width()?;
    let max_link_gen = device.max_pcie_link_generation()?;
    let max_link_width = device.max_pcie_link_width()?;
    let max_link_speed = device.max_pcie_link_speed()?.mbps();
    let cuda_cores = device.num_cores()?;
    let architecture = device.architecture()?;

    print!("\n\n");
    println!(
        "Your {name} (architecture: {architecture}, CUDA cores: {cuda_cores}) is currently \
         sitting at {temperature} °C with a graphics clock of {graphics_clock} MHz and a memory \
         clock of {mem_clock} MHz. Memory usage is {used_mem} out of an available {total_mem}. \
         Right now the device is connected via a PCIe gen {link_gen} x{link_width} interface \
         with a transfer rate of {link_speed} per lane; the max your hardware supports is PCIe \
         gen {max_link_gen} x{max_link_width} at a transfer rate of {max_link_speed} per lane.",
        used_mem = bytes(mem_info.used),
        total_mem = bytes(mem_info.total),
        link_speed = transfers(link_speed),
        max_link_speed = max_link_speed.map_or_else(|| "<unknown>".into(), transfers),
    );

    println!();
    if device.multi_gpu_board()? {
        println!("This device is on a multi-GPU board.")
    } else {
        println!("This device is not on a multi-GPU board.")
    }

    println!();
    println!(
        "System CUDA version: {}.{}",
        cuda_driver_version_major(cuda_version),
        cuda_driver_version_minor(cuda_version)
    );

    print!("\n\n");
    Ok(())
}

/// A byte count in decimal units, as nvml-wrapper's example prints it with `pretty-bytes`.
fn bytes(n: u64) -> String {
    const UNITS: [&str; 6] = ["B", "kB", "MB", "GB", "TB", "PB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < UNITS.len() {
        value /= 1000.0;
        unit += 1;
    }
    let value = format!("{value:.2}");
    format!("{} {}", value.trim_end_matches('0').trim_end_matches('.'), UNITS[unit])
}

/// A rate in megatransfers per second, in the largest unit that keeps it above 1.
fn transfers(mega: u32) -> String {
    bytes(u64::from(mega) * 1_000_000).replace('B', "T") + "/s"
}
