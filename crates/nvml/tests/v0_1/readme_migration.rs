#![allow(deprecated)]
use nvml::*;

fn port(path: &str, i: u32, uuid: &str, bus_id: &str, pid: u32, fan: u32, mw: u32, since: u64) -> Result<(), Error> {
    let nvml = Nvml::init()?;
    let _ = Nvml::builder().library_path(path).init()?;
    let gpu = nvml.device_by_index(i)?;
    let _ = nvml.device_count();
    let _ = nvml.device_by_index(i);
    let _ = nvml.device_by_uuid(uuid);
    let _ = nvml.device_by_pci_bus_id(bus_id);
    let _ = nvml.driver_version();
    let _ = nvml.nvml_version();
    let _ = nvml.cuda_driver_version();
    let _ = nvml.process_name(pid);
    let _ = nvml.unit_count();
    let _ = nvml.event_set_create();
    let _ = gpu.name();
    let _ = gpu.uuid();
    let _ = gpu.serial();
    let _ = gpu.index();
    let _ = gpu.minor_number();
    let _ = gpu.brand();
    let _ = gpu.architecture();
    let _ = gpu.cuda_compute_capability();
    let _ = gpu.vbios_version();
    let _ = gpu.board_part_number();
    let _ = gpu.pci_info();
    let _ = gpu.memory_info();
    let _ = gpu.bar1_memory_info();
    let _ = gpu.utilization_rates();
    let _ = gpu.encoder_utilization();
    let _ = gpu.decoder_utilization();
    let _ = gpu.temperature(TemperatureSensors::GPU);
    let _ = gpu.temperature_threshold(TemperatureThresholds::SLOWDOWN);
    let _ = gpu.fan_speed_of(fan);
    let _ = gpu.num_fans();
    let _ = gpu.power_usage();
    let _ = gpu.power_management_limit();
    let _ = gpu.power_management_limit_constraints();
    let _ = gpu.enforced_power_limit();
    let _ = gpu.total_energy_consumption();
    let _ = gpu.set_power_management_limit(mw);
    let _ = gpu.clock_info(ClockType::GRAPHICS);
    let _ = gpu.max_clock_info(ClockType::MEM);
    let _ = gpu.supported_memory_clocks();
    let _ = gpu.performance_state();
    let _ = gpu.current_clocks_event_reasons();
    let _ = gpu.ecc_mode();
    let _ = gpu.total_ecc_errors(MemoryErrorType::CORRECTED, EccCounterType::VOLATILE_ECC);
    let _ = gpu.retired_pages_with_timestamps(PageRetirementCause::DOUBLE_BIT_ECC_ERROR);
    let _ = gpu.compute_running_processes();
    let _ = gpu.graphics_running_processes();
    // 0.1.0: `gpu.process_utilization(since)`; a break CHANGELOG.md lists (the argument is an `Option`).
    let _ = gpu.process_utilization(Some(since));
    let _ = gpu.accounting_stats(pid);
    let _ = gpu.compute_mode();
    let _ = gpu.persistence_mode();
    let _ = gpu.mig_mode();
    let _ = gpu.max_mig_device_count();
    let _ = gpu.field_values(&[FieldId::DEV_POWER_INSTANT]);
    let _ = gpu.pcie_throughput(PcieUtilCounter::TX_BYTES);
    let _ = gpu.curr_pcie_link_generation();
    let _ = gpu.curr_pcie_link_width();
    let _ = gpu.num_gpu_cores();
    let _ = gpu.supported_event_types();
    Ok(())
}
