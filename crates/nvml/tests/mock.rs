//! The safe crate against the mock library (`nvmlkit-mock`), asserting the values of its
//! profiles (`crates/nvml-mock/profiles/*.yaml`).
//!
//! The mock's state is per process (the profile is read at the first `nvmlInit`, faults come
//! from the environment, setters change what getters return), so every scenario that loads it
//! runs in a child process with its own environment: see `nvml_mock::testing::in_child`.

use std::ffi::CStr;
use std::path::PathBuf;

use nvml::sys;
use nvml::*;
use nvml_mock::testing::{builtin_profile, in_child, mock_path};

/// The mock, loaded and initialised.
fn nvml() -> Nvml {
    Nvml::builder().library_path(mock_path()).init().expect("the mock initialises")
}

/// The mock through the raw crate, to watch its state without initialising it.
fn raw() -> sys::NvmlLib {
    sys::NvmlLib::open_path(mock_path()).expect("the mock loads")
}

/// Whether the mock is between a successful `nvmlInit` and the matching `nvmlShutdown`.
fn initialised(raw: &sys::NvmlLib) -> bool {
    let mut n = 0;
    // SAFETY: `n` is a valid out-pointer for the call.
    let code = unsafe { raw.nvmlDeviceGetCount_v2().unwrap()(&mut n) };
    match code {
        sys::NVML_SUCCESS => true,
        sys::NVML_ERROR_UNINITIALIZED => false,
        other => panic!("nvmlDeviceGetCount_v2 answered {other}"),
    }
}

/// `nvmlErrorString(code)` of the loaded library, called directly.
fn raw_error_string(nvml: &Nvml, code: u32) -> String {
    let f = nvml.lib().nvmlErrorString().expect("the mock exports nvmlErrorString");
    // SAFETY: nvmlErrorString returns a static NUL-terminated string of the library, which
    // `nvml` keeps loaded while it is read.
    unsafe { CStr::from_ptr(f(code)) }.to_string_lossy().into_owned()
}

/// Runs `test` in a child with `NVML_MOCK_PROFILE` set to `profile` (a built-in's name or a
/// file's path): `None` in the parent (the child passed), the initialised mock in the child.
fn in_profile(test: &str, profile: &str) -> Option<Nvml> {
    in_child(test, &[("NVML_MOCK_PROFILE", profile)]).then(nvml)
}

/// Writes a profile for a scenario; returns its path, for `NVML_MOCK_PROFILE`.
fn profile_file(name: &str, text: &str) -> String {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("nvmlkit-profiles");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.yaml"));
    std::fs::write(&path, text).unwrap();
    path.to_str().expect("a UTF-8 path").to_string()
}

/// A built-in profile with top-level keys added (`missing_functions`, `grow_processes`, ...).
fn builtin_with(base: &str, name: &str, extra: &str) -> String {
    let text = builtin_profile(base).unwrap_or_else(|| panic!("no built-in profile `{base}`"));
    profile_file(name, &format!("{text}\n{extra}\n"))
}

/// The H100 profile's devices: UUID, serial, PCI bus, board id, NUMA node.
const H100: [(&str, &str, u32, u32, u32); 8] = [
    ("GPU-74106407-f32f-0663-90a7-a1acf7eb04ae", "1683565926974", 0x18, 6144, 0),
    ("GPU-08f22e65-3b2d-59a7-2659-c71f416a3808", "1634427083753", 0x2A, 10752, 0),
    ("GPU-126d4085-7b1a-a246-402b-e786f0d2a595", "1685996873690", 0x3A, 14848, 0),
    ("GPU-d6a0ae3c-5011-a59d-c8a7-2b61c6a912e7", "1654153652767", 0x5D, 23808, 0),
    ("GPU-bc97db74-b05a-c096-f734-a077a2237236", "1662972611623", 0x9A, 39424, 1),
    ("GPU-9155b3d0-4dfb-67f2-c407-5f50917a65bd", "1625876244317", 0xAB, 43776, 1),
    ("GPU-8fce64b5-a8f7-e90f-573b-75a9133b9b4c", "1663879725763", 0xBA, 47616, 1),
    ("GPU-c451bde8-23fb-cff5-1365-8761e1e3168c", "1610267814479", 0xDB, 56064, 1),
];

const H100_NAME: &str = "NVIDIA H100 80GB HBM3";
const H100_MEMORY_TOTAL: u64 = 85_520_809_984;
const H100_MEMORY_RESERVED: u64 = 503_316_480;

// ---------------------------------------------------------------------------------------------
// Values of the H100 profile (the default).

#[test]
fn h100_system_versions() {
    let Some(nvml) = in_profile("h100_system_versions", "h100") else { return };
    assert_eq!(nvml.driver_version().as_deref(), Ok("580.159.04"), "system.driver_version");
    assert_eq!(nvml.nvml_version().as_deref(), Ok("13.580.159.04"), "system.nvmlSystemGetNVMLVersion");
    assert_eq!(nvml.cuda_driver_version(), Ok(13000), "system.nvmlSystemGetCudaDriverVersion");
    assert_eq!(nvml.device_count(), Ok(8), "the H100 profile has 8 devices");
}

#[test]
fn h100_identity_of_every_device() {
    let Some(nvml) = in_profile("h100_identity_of_every_device", "h100") else { return };
    let mut platform_ids = std::collections::BTreeSet::new();
    for (i, &(uuid, serial, bus, board, numa)) in H100.iter().enumerate() {
        let i = i as u32;
        let d = nvml.device_by_index(i).unwrap();
        assert_eq!(d.index(), Ok(i), "index of device {i}");
        assert_eq!(d.name().as_deref(), Ok(H100_NAME), "name of device {i}");
        assert_eq!(d.uuid().as_deref(), Ok(uuid), "uuid of device {i}");
        assert_eq!(d.serial().as_deref(), Ok(serial), "serial of device {i}");
        assert_eq!(d.minor_number(), Ok(i), "minor_number of device {i}");
        assert_eq!(d.module_id(), Ok(i + 1), "module_id of device {i}");
        assert_eq!(d.board_id(), Ok(board), "board_id of device {i}");
        assert_eq!(d.numa_node_id(), Ok(numa), "numa_node of device {i}");
        platform_ids.insert(d.pdi().unwrap().value);
        let pci = d.pci_info().unwrap();
        assert_eq!(pci.bus_id, format!("00000000:{bus:02X}:00.0"), "pci.bus of device {i}");
        assert_eq!(pci.bus_id_legacy, format!("0000:{bus:02X}:00.0"), "legacy bus id of device {i}");
        assert_eq!((pci.domain, pci.bus, pci.device), (0, bus, 0), "PCI location of device {i}");
        assert_eq!((pci.pci_device_id, pci.pci_sub_system_id), (0x2330_10DE, 0x16C1_10DE), "PCI ids of device {i}");
        // Lookups find the same handle.
        assert_eq!(nvml.device_by_uuid(uuid).as_ref(), Ok(&d), "device_by_uuid({uuid})");
        assert_eq!(nvml.device_by_pci_bus_id(&pci.bus_id).as_ref(), Ok(&d), "device_by_pci_bus_id({})", pci.bus_id);
        #[allow(deprecated)]
        let by_serial = nvml.device_by_serial(serial);
        assert_eq!(by_serial.as_ref(), Ok(&d), "device_by_serial({serial})");
    }
    assert_eq!(platform_ids.len(), H100.len(), "each GPU has its own platform identifier: {platform_ids:x?}");
    let d0 = nvml.device_by_index(0).unwrap();
    assert_eq!(d0.brand(), Ok(BrandType::NVIDIA), "brand");
    assert_eq!(d0.architecture(), Ok(DeviceArchitecture::HOPPER), "architecture");
    // Values print as nvidia-smi writes them.
    assert_eq!(
        (d0.brand().unwrap().to_string(), d0.architecture().unwrap().to_string()),
        ("NVIDIA".into(), "Hopper".into())
    );
    assert_eq!(
        d0.cuda_compute_capability(),
        Ok({
            let mut v = CudaComputeCapability::default();
            v.major = 9;
            v.minor = 0;
            v
        }),
        "cuda_compute_capability"
    );
    assert_eq!(d0.num_cores(), Ok(16896), "gpu_cores");
    assert_eq!(d0.vbios_version().as_deref(), Ok("96.00.DA.00.0C"), "vbios_version");
    assert_eq!(d0.inforom_image_version().as_deref(), Ok("G520.0200.00.05"), "inforom.image");
    assert_eq!(d0.multi_gpu_board(), Ok(false), "multi_gpu_board");
    // Indices past the last device and unknown identifiers.
    assert_eq!(nvml.device_by_index(8).unwrap_err(), Error::InvalidArgument, "device_by_index(8)");
    assert_eq!(nvml.device_by_uuid("GPU-00000000-0000-0000-0000-000000000000").unwrap_err(), Error::NotFound);
    assert_eq!(nvml.device_by_pci_bus_id("00000000:01:00.0").unwrap_err(), Error::NotFound);
    // A string with an interior NUL never reaches the library.
    assert_eq!(nvml.device_by_uuid("GPU-\0").unwrap_err(), Error::InvalidArgument, "interior NUL");
}

#[test]
fn h100_memory() {
    let Some(nvml) = in_profile("h100_memory", "h100") else { return };
    // Device 0 overrides memory.used; the others keep the recorded idle GPU's (none).
    for (i, used) in [(0, 1_612_709_888u64), (1, 0)] {
        let m = nvml.device_by_index(i).unwrap().memory_info().unwrap();
        assert_eq!(m.total, H100_MEMORY_TOTAL, "memory.total of device {i}");
        // Only the v2 layout has `reserved`: memory_info of device {i} uses it.
        assert_eq!(m.reserved, H100_MEMORY_RESERVED, "memory.reserved of device {i}");
        assert_eq!(m.used, used, "memory.used of device {i}");
        assert_eq!(m.free, H100_MEMORY_TOTAL - used - H100_MEMORY_RESERVED, "free memory of device {i}");
    }
    let bar1 = nvml.device_by_index(0).unwrap().bar1_memory_info().unwrap();
    assert_eq!(
        (bar1.bar1_total, bar1.bar1_used, bar1.bar1_free),
        (137_438_953_472, 1_703_936, 137_438_953_472 - 1_703_936),
        "bar1"
    );
}

#[test]
#[allow(deprecated)] // nvml.h deprecates some of these getters; the mock implements them
fn h100_thermal_and_power() {
    let Some(nvml) = in_profile("h100_thermal_and_power", "h100") else { return };
    let d = nvml.device_by_index(0).unwrap();
    assert_eq!(d.temperature(TemperatureSensor::GPU), Ok(33), "temperature.gpu through nvmlDeviceGetTemperatureV");
    for (kind, want) in [
        (TemperatureThresholds::SHUTDOWN, 95),
        (TemperatureThresholds::SLOWDOWN, 89),
        (TemperatureThresholds::GPU_MAX, 87),
        (TemperatureThresholds::MEM_MAX, 95),
    ] {
        assert_eq!(d.temperature_threshold(kind), Ok(want), "temperature threshold {kind:?}");
    }
    assert_eq!(d.power_usage(), Ok(70_815), "power.usage_mw");
    assert_eq!(d.power_management_limit(), Ok(700_000), "power.limit_mw");
    assert_eq!(d.power_management_default_limit(), Ok(700_000), "power.default_limit_mw");
    assert_eq!(d.enforced_power_limit(), Ok(700_000), "power.enforced_limit_mw");
    assert_eq!(
        d.power_management_limit_constraints(),
        Ok({
            let mut v = PowerManagementLimitConstraints::default();
            v.min_limit = 200_000;
            v.max_limit = 700_000;
            v
        }),
        "power.min/max_limit_mw"
    );
    assert_eq!(d.power_management_mode(), Ok(true), "power.management");
    // A counter: the profile's value at init, growing at the power draw since.
    let energy = d.total_energy_consumption().unwrap();
    assert!(energy >= 2_131_855 && d.total_energy_consumption().unwrap() >= energy, "power.energy_mj: {energy}");
    assert_eq!(d.performance_state(), Ok(Pstates::PSTATE_0), "performance_state");
    assert_eq!(d.power_state(), Ok(Pstates::PSTATE_0), "power_state");
    // Passive cooling: `fans: []`.
    assert_eq!(d.num_fans(), Ok(0), "num_fans");
    assert_eq!(d.fan_speed(), Err(Error::NotSupported), "fan_speed without fans");
}

#[test]
#[allow(deprecated)] // nvml.h deprecates some of these getters; the mock implements them
fn h100_clocks() {
    let Some(nvml) = in_profile("h100_clocks", "h100") else { return };
    let d = nvml.device_by_index(0).unwrap();
    // The H100 has a customer boost clock for graphics and SM only (recorded).
    for (clock, current, max, boost) in [
        (ClockType::GRAPHICS, 345, 1980, Ok(1980)),
        (ClockType::SM, 345, 1980, Ok(1980)),
        (ClockType::MEMORY, 2619, 2619, Err(Error::NotSupported)),
        (ClockType::VIDEO, 765, 1545, Err(Error::NotSupported)),
    ] {
        assert_eq!(d.clock_info(clock), Ok(current), "clocks of {clock:?}");
        assert_eq!(d.max_clock_info(clock), Ok(max), "max_clocks of {clock:?}");
        assert_eq!(d.clock(clock, ClockId::CURRENT), Ok(current), "clock({clock:?}, CURRENT)");
        assert_eq!(d.clock(clock, ClockId::CUSTOMER_BOOST_MAX), boost, "clock({clock:?}, CUSTOMER_BOOST_MAX)");
    }
    assert_eq!(d.applications_clock(ClockType::GRAPHICS), Ok(1980), "application_clocks.graphics");
    assert_eq!(d.applications_clock(ClockType::MEMORY), Ok(2619), "application_clocks.memory");
    assert_eq!(d.default_applications_clock(ClockType::GRAPHICS), Ok(1980), "default_application_clocks.graphics");
    assert_eq!(d.default_applications_clock(ClockType::MEMORY), Ok(2619), "default_application_clocks.memory");
    assert_eq!(d.supported_memory_clocks(), Ok(vec![2619, 1593]), "supported_memory_clocks");
    let graphics = d.supported_graphics_clocks(2619).unwrap();
    let want: Vec<u32> = (0..=109).map(|i| 1980 - 15 * i).collect();
    assert_eq!(graphics, want, "supported_graphics_clocks: 1980 down to 345 by 15");
    assert_eq!(
        d.supported_graphics_clocks(1234),
        Err(Error::NotFound),
        "graphics clocks of an unsupported memory clock"
    );
}

#[test]
fn h100_running_processes() {
    let Some(nvml) = in_profile("h100_running_processes", "h100") else { return };
    let d0 = nvml.device_by_index(0).unwrap();
    let procs = d0.running_compute_processes().unwrap();
    let got: Vec<(u32, Option<u64>)> = procs.iter().map(|p| (p.pid, p.used_gpu_memory)).collect();
    assert_eq!(
        got,
        [(4242, Some(1 << 30)), (4250, Some(512 << 20))],
        "device 0 runs python3 (1 GiB) and trainer (512 MiB)"
    );
    assert!(
        procs.iter().all(|p| p.gpu_instance_id.is_none() && p.compute_instance_id.is_none()),
        "no MIG instance: {procs:?}"
    );
    assert_eq!(d0.running_graphics_processes(), Ok(vec![]), "no graphics processes");
    assert_eq!(nvml.device_by_index(1).unwrap().running_compute_processes(), Ok(vec![]), "device 1 runs nothing");
    // The header's size query alone: how many, without the list.
    assert_eq!(d0.running_compute_process_count(), Ok(2), "two compute processes on device 0");
    assert_eq!(d0.running_graphics_process_count(), Ok(0), "no graphics processes");
    assert_eq!(nvml.device_by_index(1).unwrap().running_compute_process_count(), Ok(0), "device 1 runs nothing");
    // "Set it to 0 to read utilization based on all the samples": `None` passes the 0.
    let samples = |since| -> Vec<(u32, u32)> {
        d0.process_utilization(since).unwrap().iter().map(|s| (s.pid, s.sm_util)).collect()
    };
    assert_eq!(samples(None), samples(Some(0)), "every sample");
    assert_eq!(samples(None), [(4242, 38), (4250, 21)], "a sample of each process");
    let clocks = d0.supported_memory_clocks().unwrap();
    assert_eq!(d0.supported_memory_clock_count(), Ok(clocks.len() as u32), "as many as supported_memory_clocks lists");
}

#[test]
fn h100_modes_ecc_pcie_and_utilisation() {
    let Some(nvml) = in_profile("h100_modes_ecc_pcie_and_utilisation", "h100") else { return };
    let d = nvml.device_by_index(0).unwrap();
    assert_eq!(d.compute_mode(), Ok(ComputeMode::DEFAULT), "compute_mode");
    assert_eq!(d.persistence_mode(), Ok(true), "persistence_mode");
    // Recorded: the H100 answers its display mode enabled, with no display active.
    assert_eq!(d.display_mode(), Ok(true), "display_mode");
    assert_eq!(d.display_active(), Ok(false), "display_active");
    // ECC.
    assert_eq!(
        d.ecc_mode(),
        Ok({
            let mut v = EccMode::default();
            v.current = true;
            v.pending = true;
            v
        }),
        "ecc.enabled, ecc.pending"
    );
    for error in [MemoryErrorType::CORRECTED, MemoryErrorType::UNCORRECTED] {
        for counter in [EccCounterType::VOLATILE_ECC, EccCounterType::AGGREGATE_ECC] {
            assert_eq!(d.total_ecc_errors(error, counter), Ok(0), "total_ecc_errors({error:?}, {counter:?})");
        }
    }
    assert_eq!(
        d.remapped_rows(),
        Ok({
            let mut v = RemappedRows::default();
            v.corr_rows = 0;
            v.unc_rows = 0;
            v.is_pending = false;
            v.failure_occurred = false;
            v
        }),
        "remapped_rows"
    );
    // The H100 profile has no retired-pages section: not supported.
    assert_eq!(d.retired_pages_pending_status(), Err(Error::NotSupported), "retired_pages.pending is left out");
    // PCIe.
    assert_eq!(d.max_pcie_link_generation(), Ok(5), "pcie.max_link_gen");
    assert_eq!(d.gpu_max_pcie_link_generation(), Ok(5), "pcie.gpu_max_link_gen");
    assert_eq!(d.max_pcie_link_width(), Ok(16), "pcie.max_link_width");
    assert_eq!(d.current_pcie_link_generation(), Ok(5), "pcie.link_gen");
    assert_eq!(d.current_pcie_link_width(), Ok(16), "pcie.link_width");
    assert_eq!(d.pcie_throughput(PcieUtilCounter::TX_BYTES), Ok(880), "pcie.tx_kbps");
    assert_eq!(d.pcie_throughput(PcieUtilCounter::RX_BYTES), Ok(531), "pcie.rx_kbps");
    assert_eq!(d.pcie_replay_counter(), Ok(1), "pcie.replay_counter");
    assert_eq!(d.pcie_link_speed(), Ok(32000), "pcie.speed_mbps");
    let max_speed = d.max_pcie_link_speed();
    assert_eq!(max_speed, Ok(PcieLinkMaxSpeed::SPEED_32000MBPS), "nvmlDeviceGetPcieLinkMaxSpeed: the code of 32 GT/s");
    assert_eq!(max_speed.map(PcieLinkMaxSpeed::mbps), Ok(Some(32000)), "the speed the code stands for");
    assert_eq!(PcieLinkMaxSpeed::INVALID.mbps(), None);
    assert_eq!(PcieLinkMaxSpeed(77).mbps(), None, "a code the header does not name");
    // Utilisation: device 0 overrides the defaults.
    assert_eq!(
        d.utilization_rates(),
        Ok({
            let mut v = Utilization::default();
            v.gpu = 37;
            v.memory = 12;
            v
        }),
        "utilization of device 0"
    );
    assert_eq!(
        nvml.device_by_index(1).unwrap().utilization_rates(),
        Ok({
            let mut v = Utilization::default();
            v.gpu = 0;
            v.memory = 0;
            v
        }),
        "utilization of device 1"
    );
    assert_eq!(
        d.encoder_utilization(),
        Ok({
            let mut v = EncoderUtilization::default();
            v.utilization = 0;
            v.sampling_period_us = 100_000;
            v
        }),
        "encoder"
    );
    assert_eq!(
        d.decoder_utilization(),
        Ok({
            let mut v = DecoderUtilization::default();
            v.utilization = 0;
            v.sampling_period_us = 100_000;
            v
        }),
        "decoder"
    );
    // Events and field values.
    let events = EventTypes::SINGLE_BIT_ECC_ERROR
        | EventTypes::DOUBLE_BIT_ECC_ERROR
        | EventTypes::P_STATE
        | EventTypes::XID_CRITICAL_ERROR
        | EventTypes::CLOCK
        | EventTypes::POWER_SOURCE_CHANGE
        | EventTypes::MIG_CONFIG_CHANGE
        | EventTypes::SINGLE_BIT_ECC_ERROR_STORM
        | EventTypes::DRAM_RETIREMENT_EVENT
        | EventTypes::DRAM_RETIREMENT_FAILURE
        | EventTypes::NON_FATAL_POISON_ERROR
        | EventTypes::FATAL_POISON_ERROR
        | EventTypes::GPU_UNAVAILABLE_ERROR
        | EventTypes::GPU_RECOVERY_ACTION;
    assert_eq!(d.supported_event_types(), Ok(events), "supported_events");
    let values = d.field_values(&[FieldId::DEV_POWER_INSTANT, FieldId::DEV_MEMORY_TEMP, FieldId(9999)]).unwrap();
    assert_eq!(values.len(), 3);
    let value = |i: usize| values[i].as_ref().map(|f| f.value);
    // As recorded: an unsigned int, read at another moment than nvmlDeviceGetPowerUsage.
    assert_eq!(value(0), Ok(Value::UnsignedInt(70_978)), "field NVML_FI_DEV_POWER_INSTANT");
    assert_eq!(value(1).map(|v| v.as_u64()), Ok(Some(36)), "field NVML_FI_DEV_MEMORY_TEMP");
    // An id no header names is one the driver does not know (driver 580.159.04 answers so).
    assert_eq!(value(2), Err(&Error::InvalidArgument), "an unknown field id");
}

#[test]
fn h100_nvlink() {
    let Some(nvml) = in_profile("h100_nvlink", "h100") else { return };
    let d = nvml.device_by_index(2).unwrap();
    for link in 0..18 {
        assert_eq!(d.nvlink_state(link), Ok(true), "state of link {link}");
        // The profile's number, which nvml.h's `nvmlNvlinkVersion_t` reads (4 is
        // `NvlinkVersion::VERSION_3_0`; drivers answer that enum, hwloc issue 658).
        assert_eq!(d.nvlink_version(link).map(|v| v.0), Ok(4), "version of link {link}");
    }
    assert_eq!(d.nvlink_state(18), Err(Error::InvalidArgument), "the H100 has 18 links");
    // Links lead to NVSwitches (bus 0xFF), four links per switch.
    let remote = d.nvlink_remote_pci_info(9).unwrap();
    assert_eq!(
        (remote.bus, remote.device, remote.bus_id.as_str()),
        (0xFF, 2, "00000000:FF:02.0"),
        "remote end of link 9"
    );
}

#[test]
fn h100_mig_device_7() {
    let Some(nvml) = in_profile("h100_mig_device_7", "h100") else { return };
    let (d0, d7) = (nvml.device_by_index(0).unwrap(), nvml.device_by_index(7).unwrap());
    assert_eq!(
        d0.mig_mode(),
        Ok({
            let mut v = MigMode::default();
            v.current_mode = false;
            v.pending_mode = false;
            v
        }),
        "MIG is off on device 0"
    );
    assert_eq!(
        d7.mig_mode(),
        Ok({
            let mut v = MigMode::default();
            v.current_mode = true;
            v.pending_mode = true;
            v
        }),
        "MIG is on on device 7"
    );
    assert_eq!(d7.max_mig_device_count(), Ok(7), "mig.max_devices");
    let p = d7.gpu_instance_profile_info(GpuInstanceProfile::PROFILE_3_SLICE).unwrap();
    assert_eq!(
        (p.id, p.slice_count, p.instance_count, p.multiprocessor_count, p.memory_size_mb, p.name.as_str()),
        (9, 3, 2, 60, 40448, "MIG 3g.40gb"),
        "the 3g.40gb profile"
    );
    assert_eq!((p.copy_engine_count, p.decoder_count, p.encoder_count, p.jpeg_count, p.ofa_count), (3, 3, 0, 3, 0));
    let seven = d7.gpu_instance_profile_info(GpuInstanceProfile::PROFILE_7_SLICE).unwrap();
    assert_eq!((seven.id, seven.slice_count, seven.memory_size_mb), (0, 7, 81152), "the 7g.80gb profile");
    // Its two GPU instances: ids 1 and 2, at slices 0 and 4, each over 4 of the 8 memory slices
    // (the recorded placements of the 3g.40gb profile).
    for (id, start) in [(1, 0), (2, 4)] {
        let gi = d7.gpu_instance_by_id(id).unwrap();
        let info = gi.info().unwrap();
        assert_eq!(info.device.as_ptr(), d7.as_raw(), "GPU instance {id} belongs to device 7");
        assert_eq!(Device::from_raw_handle(&nvml, info.device), d7, "the raw handle in the record is device 7");
        assert_eq!(
            (info.id, info.profile_id, info.placement.start, info.placement.size),
            (id, 9, start, 4),
            "GPU instance {id}"
        );
        // Compute-instance profiles that fit a 3-slice GPU instance.
        let shared = ComputeInstanceEngineProfile::SHARED;
        let one = gi.compute_instance_profile_info(ComputeInstanceProfile::PROFILE_1_SLICE, shared).unwrap();
        assert_eq!(
            (one.slice_count, one.instance_count, one.multiprocessor_count, one.name.as_str()),
            (1, 3, 16, "1c")
        );
        let too_big = gi.compute_instance_profile_info(ComputeInstanceProfile::PROFILE_7_SLICE, shared);
        assert_eq!(too_big, Err(Error::NotSupported), "a 7-slice compute instance in a 3-slice GPU instance");
    }
    assert_eq!(d7.gpu_instance_by_id(3).unwrap_err(), Error::NotFound, "no GPU instance 3");
    // Recorded on an H200 (driver 580.159.04) with MIG mode off: no such instance.
    assert_eq!(d0.gpu_instance_by_id(1).unwrap_err(), Error::NotFound, "no GPU instances without MIG mode");
}

/// `nvmlDeviceGetGpuInstances` and `nvmlGpuInstanceGetComputeInstances` fill an array the
/// caller sizes (`count` is out only): the lists of device 7.
#[test]
fn h100_mig_instance_lists() {
    let Some(nvml) = in_profile("h100_mig_instance_lists", "h100") else { return };
    let d7 = nvml.device_by_index(7).unwrap();
    let gis = d7.gpu_instances(9).expect("gpu_instances(3g.40gb)");
    let ids: Vec<u32> = gis.iter().map(|g| g.info().unwrap().id).collect();
    assert_eq!(ids, [1, 2], "device 7's 3g.40gb instances");
    let cis =
        gis[1].compute_instances(sys::NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE as u32).expect("compute_instances(1c)");
    let placements: Vec<(u32, u32)> =
        cis.iter().map(|c| c.info().map(|i| (i.id, i.placement.start)).unwrap()).collect();
    assert_eq!(placements, [(0, 0), (1, 1)], "GPU instance 2's 1-slice compute instances");
    let info = cis[1].info().unwrap();
    assert_eq!(
        (info.device.as_ptr(), info.gpu_instance.as_ptr()),
        (d7.as_raw(), gis[1].as_raw()),
        "the parents of a compute instance"
    );
    let three = gis[0].compute_instances(sys::NVML_COMPUTE_INSTANCE_PROFILE_3_SLICE as u32).unwrap();
    assert_eq!(three.len(), 1, "GPU instance 1 has one 3-slice compute instance");
    assert_eq!(d7.gpu_instances(19).map(|l| l.len()), Ok(0), "no 1g.10gb instances");
    // A MIG-capable GPU with MIG mode off lists no instances (recorded on an H200, 580.159.04).
    assert_eq!(nvml.device_by_index(0).unwrap().gpu_instances(9).map(|l| l.len()), Ok(0), "no MIG on device 0");
}

/// The safe crate's own methods partition device 7 of `h100` as a MIG manager does: its
/// instances destroyed, seven 1g.10gb GPU instances with a compute instance each, read back
/// through `mig_device_by_index`, an eighth refused, then 4g.40gb + 3g.40gb. (The profile grants
/// the MIG capability, so that the test also runs as a user who is not root.)
#[test]
fn h100_mig_partition_through_the_safe_methods() {
    let profile = profile_file("h100-mig-config", "base: [h100]\nsystem: {mig_config_capability: true}\n");
    let Some(nvml) = in_profile("h100_mig_partition_through_the_safe_methods", &profile) else { return };
    let d7 = nvml.device_by_index(7).unwrap();
    let (one_g, three_g, four_g) = (19, 9, 5);
    for gi in d7.gpu_instances(three_g).unwrap() {
        for profile in [sys::NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE, sys::NVML_COMPUTE_INSTANCE_PROFILE_3_SLICE] {
            for ci in gi.compute_instances(profile as u32).unwrap() {
                ci.destroy().unwrap();
            }
        }
        gi.destroy().unwrap();
    }
    assert_eq!(d7.mig_device_by_index(0).unwrap_err(), Error::NotFound, "no MIG device left");
    let mut made = Vec::new();
    for i in 0..7 {
        assert_eq!(d7.gpu_instance_remaining_capacity(one_g), Ok(7 - i), "capacity before instance {i}");
        let gi = d7.create_gpu_instance(one_g).unwrap();
        let ci = gi.create_compute_instance(sys::NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE as u32).unwrap();
        made.push((gi, ci));
    }
    assert_eq!(d7.gpu_instance_remaining_capacity(one_g), Ok(0));
    assert_eq!(d7.create_gpu_instance(one_g).unwrap_err(), Error::InsufficientResources, "an eighth 1g.10gb");
    let mut uuids = Vec::new();
    for i in 0..7 {
        let m = d7.mig_device_by_index(i).unwrap();
        assert_eq!(m.name().as_deref(), Ok("NVIDIA H100 80GB HBM3 MIG 1g.10gb"), "MIG device {i}");
        assert_eq!(m.memory_info().map(|mem| mem.total), Ok(9984 << 20), "MIG device {i}'s memory");
        assert_eq!(m.mig_parent_device(), Ok(d7.clone()), "MIG device {i}'s GPU");
        assert_eq!(m.gpu_instance_id(), Ok(7 + i), "MIG device {i}'s GPU instance: the eighth at slice {i}");
        uuids.push(m.uuid().unwrap());
    }
    uuids.sort();
    uuids.dedup();
    assert!(uuids.len() == 7 && uuids.iter().all(|u| u.starts_with("MIG-")), "{uuids:?}");
    assert_eq!(d7.mig_device_by_index(7).unwrap_err(), Error::NotFound);
    for (gi, ci) in made {
        ci.destroy().unwrap();
        gi.destroy().unwrap();
    }
    let four = d7.create_gpu_instance(four_g).unwrap();
    let three = d7.create_gpu_instance(three_g).unwrap();
    let placements = [four.info().unwrap().placement, three.info().unwrap().placement];
    assert_eq!(placements.map(|p| (p.start, p.size)), [(0, 4), (4, 4)], "4g.40gb at 0, 3g.40gb at 4");
    three.create_compute_instance(sys::NVML_COMPUTE_INSTANCE_PROFILE_3_SLICE as u32).unwrap();
    assert_eq!(
        d7.mig_device_by_index(0).and_then(|m| m.name()).as_deref(),
        Ok("NVIDIA H100 80GB HBM3 MIG 3g.40gb"),
        "the 3g.40gb's MIG device"
    );
    assert_eq!(d7.gpu_instance_remaining_capacity(0), Ok(0), "no room for 7g.80gb");
    assert_eq!(three.destroy().unwrap_err(), Error::InUse, "a GPU instance with a compute instance");
}

#[test]
#[allow(deprecated)] // nvml.h deprecates some of these getters; the mock implements them
fn setters_change_what_getters_return() {
    let Some(nvml) = in_profile("setters_change_what_getters_return", "h100") else { return };
    let d = nvml.device_by_index(4).unwrap();
    d.set_power_management_limit(450_000).unwrap();
    assert_eq!(d.power_management_limit(), Ok(450_000), "limit after set_power_management_limit");
    assert_eq!(d.set_power_management_limit(10), Err(Error::InvalidArgument), "a limit below power.min_limit_mw");
    d.set_compute_mode(ComputeMode::PROHIBITED).unwrap();
    assert_eq!(d.compute_mode(), Ok(ComputeMode::PROHIBITED), "compute mode after set_compute_mode");
    // The application clocks are recorded by name (base/h100-80gb-hbm3): the set ones answer
    // over them until reset.
    d.set_applications_clocks(2619, 1410).unwrap();
    assert_eq!(d.applications_clock(ClockType::GRAPHICS), Ok(1410), "application clock after set_applications_clocks");
    d.reset_applications_clocks().unwrap();
    assert_eq!(
        d.applications_clock(ClockType::GRAPHICS),
        Ok(1980),
        "application clock after reset_applications_clocks"
    );
    d.set_persistence_mode(false).unwrap();
    assert_eq!(d.persistence_mode(), Ok(false), "persistence mode after set_persistence_mode");
    // Other devices keep the profile's values.
    assert_eq!(nvml.device_by_index(5).unwrap().power_management_limit(), Ok(700_000), "device 5 is untouched");
}

// ---------------------------------------------------------------------------------------------
// Other profiles.

#[test]
fn t4_values_and_what_it_lacks() {
    let Some(nvml) = in_profile("t4_values_and_what_it_lacks", "t4") else { return };
    assert_eq!(nvml.driver_version().as_deref(), Ok("535.247.01"), "system.driver_version");
    assert_eq!(nvml.cuda_driver_version(), Ok(12020), "system.nvmlSystemGetCudaDriverVersion");
    assert_eq!(nvml.device_count(), Ok(8));
    let d = nvml.device_by_index(5).unwrap();
    assert_eq!(d.name().as_deref(), Ok("Tesla T4"), "name");
    assert_eq!(d.uuid().as_deref(), Ok("GPU-9ccd41c3-8c23-c458-09cc-c9b0a464f9d5"), "uuid of device 5");
    assert_eq!(d.serial().as_deref(), Ok("1687052004610"), "serial of device 5");
    assert_eq!(d.pci_info().map(|p| p.bus_id), Ok("00000000:AB:00.0".to_string()), "bus id of device 5");
    assert_eq!(d.brand(), Ok(BrandType::TESLA), "brand");
    assert_eq!(d.architecture(), Ok(DeviceArchitecture::TURING), "architecture");
    assert_eq!(
        d.cuda_compute_capability(),
        Ok({
            let mut v = CudaComputeCapability::default();
            v.major = 7;
            v.minor = 5;
            v
        }),
        "compute capability"
    );
    let m = d.memory_info().unwrap();
    assert_eq!((m.total, m.reserved, m.used), (16_106_127_360, 269_484_032, 2_097_152), "memory");
    assert_eq!(d.power_management_limit(), Ok(70_000), "power.limit_mw");
    assert_eq!(
        d.power_management_limit_constraints(),
        Ok({
            let mut v = PowerManagementLimitConstraints::default();
            v.min_limit = 60_000;
            v.max_limit = 70_000;
            v
        }),
        "power.min/max_limit_mw"
    );
    assert_eq!(d.max_clock_info(ClockType::GRAPHICS), Ok(1590), "max graphics clock");
    assert_eq!(d.supported_memory_clocks(), Ok(vec![5001]), "supported_memory_clocks");
    assert_eq!(d.supported_graphics_clocks(5001).map(|c| c.len()), Ok(87), "1590 down to 300 by 15");
    assert_eq!(d.max_pcie_link_generation(), Ok(3), "pcie.max_link_gen");
    assert_eq!(d.retired_pages(PageRetirementCause::DOUBLE_BIT_ECC_ERROR), Ok(vec![]), "retired_pages.double_bit");
    assert_eq!(d.retired_pages_pending_status(), Ok(false), "retired_pages.pending");
    // Keys the T4 profile leaves out: the functions answer NOT_SUPPORTED.
    assert_eq!(d.nvlink_state(0), Err(Error::NotSupported), "no nvlink section");
    assert_eq!(d.nvlink_version(0), Err(Error::NotSupported), "no nvlink section");
    assert_eq!(d.mig_mode(), Err(Error::NotSupported), "no mig section");
    assert_eq!(d.max_mig_device_count(), Err(Error::NotSupported), "no mig section");
    assert_eq!(d.remapped_rows(), Err(Error::NotSupported), "no remapped_rows section");
    assert_eq!(
        d.temperature_threshold(TemperatureThresholds::MEM_MAX),
        Err(Error::NotSupported),
        "no temperature.memory_max"
    );
    // Bare metal: no virtualization.
    assert_eq!(d.virtualization_mode(), Ok(GpuVirtualizationMode::NONE), "nvmlDeviceGetVirtualizationMode");
}

#[test]
fn a100_values() {
    let Some(nvml) = in_profile("a100_values", "a100") else { return };
    let d = nvml.device_by_index(0).unwrap();
    assert_eq!(d.name().as_deref(), Ok("NVIDIA A100-SXM4-80GB"), "name");
    assert_eq!(d.uuid().as_deref(), Ok("GPU-c4f82fda-f11d-4492-a176-950eab898aad"), "uuid of device 0");
    assert_eq!(d.memory_info().map(|m| m.total), Ok(85_899_345_920), "memory.total");
    assert_eq!(d.power_management_limit(), Ok(400_000), "power.limit_mw");
    assert_eq!(
        d.cuda_compute_capability(),
        Ok({
            let mut v = CudaComputeCapability::default();
            v.major = 8;
            v.minor = 0;
            v
        }),
        "compute capability"
    );
    assert_eq!(d.nvlink_version(11), Ok(NvlinkVersion::VERSION_2_2), "the profile's 3 on link 11");
    assert_eq!(d.nvlink_state(12), Err(Error::InvalidArgument), "the A100 has 12 links");
    let pids: Vec<u32> = d.running_compute_processes().unwrap().iter().map(|p| p.pid).collect();
    assert_eq!(pids, [4242, 4250], "device 0's processes");
}

// ---------------------------------------------------------------------------------------------
// Errors.

/// Every `nvmlReturn_t` code of the header, `NVML_ERROR_UNKNOWN` and an unknown code, each
/// injected into `nvmlDeviceGetName` in its own child.
#[test]
fn every_return_code_maps_to_its_variant() {
    const CODE: &str = "NVMLKIT_TEST_CODE";
    let codes: Vec<u32> = (1..=30).chain([999, 1234]).collect();
    for code in &codes {
        let faults = format!("nvmlDeviceGetName={code}");
        if !in_child(
            "every_return_code_maps_to_its_variant",
            &[("NVML_MOCK_FAULTS", &faults), (CODE, &code.to_string())],
        ) {
            continue;
        }
        let code: u32 = std::env::var(CODE).unwrap().parse().unwrap();
        let nvml = nvml();
        let e = nvml.device_by_index(0).unwrap().name().unwrap_err();
        assert_eq!(e.code(), code, "{e:?}.code()");
        assert_eq!(Some(&e), Error::from_code(code).as_ref(), "the variant of code {code}");
        match code {
            999 => assert_eq!(e, Error::Unknown(999)),
            1234 => assert_eq!(e, Error::Unknown(1234), "a code newer than the header is kept"),
            13 => assert_eq!(e, Error::FunctionNotFound(None), "a code, not a missing symbol"),
            12 => assert_eq!(e, Error::LibraryNotFound(None), "a code, not a load failure"),
            _ => assert!(!matches!(e, Error::Unknown(_)), "code {code} is in the header: {e:?}"),
        }
        // Display is the library's own nvmlErrorString while it is loaded.
        let text = raw_error_string(&nvml, code);
        assert_eq!(e.to_string(), format!("{text} (NVML error {code})"), "Display of code {code}");
        return;
    }
    // The parent: codes and variants agree without a library too.
    for code in codes {
        assert_eq!(Error::from_code(code).map(|e| e.code()), Some(code), "from_code({code}).code()");
    }
    assert_eq!(Error::from_code(sys::NVML_SUCCESS), None, "NVML_SUCCESS is not an error");
}

#[test]
fn faults_from_the_environment() {
    let faults = "nvmlDeviceGetPowerUsage=NVML_ERROR_GPU_IS_LOST@2,\
                  nvmlDeviceGetComputeRunningProcesses_v3=NVML_ERROR_INSUFFICIENT_SIZE,\
                  nvmlDeviceGetUUID=NVML_ERROR_NO_PERMISSION";
    if !in_child("faults_from_the_environment", &[("NVML_MOCK_FAULTS", faults)]) {
        return;
    }
    let nvml = nvml();
    let d = nvml.device_by_index(0).unwrap();
    // After 2 calls, every call fails.
    assert_eq!(d.power_usage(), Ok(70_815), "call 1 of nvmlDeviceGetPowerUsage");
    assert_eq!(d.power_usage(), Ok(70_815), "call 2 of nvmlDeviceGetPowerUsage");
    assert_eq!(d.power_usage(), Err(Error::GpuIsLost), "call 3 of nvmlDeviceGetPowerUsage");
    assert_eq!(d.power_usage(), Err(Error::GpuIsLost), "call 4 of nvmlDeviceGetPowerUsage");
    // A list call that answers INSUFFICIENT_SIZE without a larger count is not retried forever.
    assert_eq!(d.running_compute_processes(), Err(Error::InsufficientSize), "INSUFFICIENT_SIZE with no new count");
    assert_eq!(d.uuid(), Err(Error::NoPermission), "always");
    // Other functions are unaffected.
    assert_eq!(d.name().as_deref(), Ok(H100_NAME));
}

#[test]
fn faults_from_a_profile() {
    let profile = builtin_with(
        "h100",
        "faults",
        "faults:\n  - {function: nvmlDeviceGetTemperatureThreshold, error: NVML_ERROR_NOT_READY, after: 1}\n  - {function: nvmlDeviceGetPcie*, error: 1234}",
    );
    let Some(nvml) = in_profile("faults_from_a_profile", &profile) else { return };
    let d = nvml.device_by_index(0).unwrap();
    assert_eq!(d.temperature_threshold(TemperatureThresholds::SHUTDOWN), Ok(95), "call 1");
    assert_eq!(d.temperature_threshold(TemperatureThresholds::SHUTDOWN), Err(Error::NotReady), "call 2");
    // A prefix matches several functions.
    assert_eq!(d.pcie_link_speed(), Err(Error::Unknown(1234)), "nvmlDeviceGetPcieSpeed");
    assert_eq!(d.pcie_replay_counter(), Err(Error::Unknown(1234)), "nvmlDeviceGetPcieReplayCounter");
    assert_eq!(
        d.current_pcie_link_generation(),
        Ok(5),
        "nvmlDeviceGetCurrPcieLinkGeneration does not match the prefix"
    );
}

/// `missing_functions`: the symbols exist but answer `NVML_ERROR_FUNCTION_NOT_FOUND`. A
/// single function gives `FunctionNotFound(None)` (a code, no symbol name); a versioned family
/// falls back to the next older member, with that member's layout.
#[test]
fn missing_functions_answer_function_not_found() {
    let profile = builtin_with(
        "t4",
        "missing-functions",
        "missing_functions: [nvmlDeviceGetName, nvmlDeviceGetMemoryInfo_v2, nvmlDeviceGetComputeRunningProcesses_v3, \
         nvmlSystemGetCudaDriverVersion_v2, nvmlSystemGetCudaDriverVersion]",
    );
    let Some(nvml) = in_profile("missing_functions_answer_function_not_found", &profile) else { return };
    let (d0, d1) = (nvml.device_by_index(0).unwrap(), nvml.device_by_index(1).unwrap());
    let e = d1.name().unwrap_err();
    assert_eq!(e, Error::FunctionNotFound(None), "nvmlDeviceGetName answers code 13");
    assert_eq!(e.to_string(), format!("{} (NVML error 13)", raw_error_string(&nvml, 13)), "Display of code 13");
    // nvmlDeviceGetMemoryInfo_v2 answers 13: the v1 layout, where reserved memory counts as used.
    let m = d1.memory_info().expect("memory_info falls back to nvmlDeviceGetMemoryInfo");
    let (total, used) = (16_106_127_360u64, 2_097_152 + 269_484_032);
    assert_eq!((m.total, m.reserved, m.used, m.free), (total, 0, used, total - used), "v1 memory: {m:?}");
    // The _v2 process layout: same pids and memory.
    let pids: Vec<(u32, Option<u64>)> =
        d0.running_compute_processes().unwrap().iter().map(|p| (p.pid, p.used_gpu_memory)).collect();
    assert_eq!(pids, [(4242, Some(1 << 30)), (4250, Some(512 << 20))], "running_compute_processes falls back to _v2");
    // Every member of the family answers 13.
    let e = nvml.cuda_driver_version().unwrap_err();
    assert!(matches!(e, Error::FunctionNotFound(_)), "cuda_driver_version: {e:?}");
    assert_eq!(e.code(), sys::NVML_ERROR_FUNCTION_NOT_FOUND);
    // The rest of the driver works.
    assert_eq!(d1.uuid().as_deref(), Ok("GPU-0af65fe4-442d-f2b8-ba9a-8d7daa72b6d3"));
    assert_eq!(d1.bar1_memory_info().map(|b| b.bar1_total), Ok(268_435_456), "bar1.total");
}

#[test]
fn a_bad_profile_fails_init() {
    let profile = profile_file("bad", "devices:\n  - {memory: {total: -5}}\n");
    if !in_child("a_bad_profile_fails_init", &[("NVML_MOCK_PROFILE", &profile)]) {
        return;
    }
    let e = Nvml::builder().library_path(mock_path()).init().unwrap_err();
    assert_eq!(e, Error::Unknown(sys::NVML_ERROR_UNKNOWN), "nvmlInit fails with NVML_ERROR_UNKNOWN");
    // No library is alive: Display uses the header's description.
    assert_eq!(e.to_string(), "An internal driver error occurred, or a code newer than this crate (NVML error 999)");
}

#[test]
fn a_missing_library_lists_what_was_tried() {
    let e = Nvml::builder().library_path("/nonexistent/libnvidia-ml.so.1").init().unwrap_err();
    let Error::LibraryNotFound(Some(load)) = &e else { panic!("expected LibraryNotFound(Some(_)), got {e:?}") };
    assert_eq!(load.attempts.len(), 1, "{load:?}");
    assert_eq!(load.attempts[0].0, PathBuf::from("/nonexistent/libnvidia-ml.so.1"));
    assert_eq!(e.code(), sys::NVML_ERROR_LIBRARY_NOT_FOUND);
    let text = e.to_string();
    assert!(text.contains("tried /nonexistent/libnvidia-ml.so.1"), "Display names the path: {text}");
}

#[test]
fn library_path_from_the_environment() {
    let path = mock_path();
    if !in_child("library_path_from_the_environment", &[("NVML_LIBRARY_PATH", path.to_str().unwrap())]) {
        return;
    }
    let nvml = Nvml::init().expect("Nvml::init loads NVML_LIBRARY_PATH");
    assert_eq!(nvml.lib().path(), mock_path().as_path());
    assert_eq!(nvml.device_count(), Ok(8));
    assert!(format!("{nvml:?}").contains("libnvml_mock.so"), "Debug shows the library: {nvml:?}");
    drop(nvml);
    std::env::set_var("NVML_LIBRARY_PATH", "/nonexistent/override.so");
    let e = Nvml::init().unwrap_err();
    assert!(matches!(e, Error::LibraryNotFound(Some(_))), "{e:?}");
    assert!(e.to_string().contains("NVML_LIBRARY_PATH"), "Display says where the path came from: {e}");
}

#[test]
fn init_with_flags() {
    if !in_child("init_with_flags", &[]) {
        return;
    }
    let nvml = Nvml::builder().library_path(mock_path()).flags(InitFlags::NO_GPUS).init().expect("nvmlInitWithFlags");
    assert_eq!(nvml.device_count(), Ok(8));
}

// ---------------------------------------------------------------------------------------------
// Lists that change between the size query and the fill.

/// `grow_processes: 2`: the first two size queries each add a process after answering, so the
/// fill that follows finds a longer list and the method retries with the new count.
#[test]
fn a_list_that_grows_is_fetched_again() {
    let profile = builtin_with("h100", "grow", "grow_processes: 2");
    let Some(nvml) = in_profile("a_list_that_grows_is_fetched_again", &profile) else { return };
    let d0 = nvml.device_by_index(0).unwrap();
    let pids = |l: Vec<ProcessInfo>| l.iter().map(|p| p.pid).collect::<Vec<_>>();
    assert_eq!(
        d0.running_compute_processes().map(pids),
        Ok(vec![4242, 4250, 4251]),
        "grew by one after the size query"
    );
    assert_eq!(d0.running_compute_processes().map(pids), Ok(vec![4242, 4250, 4251, 4252]), "grew again");
    assert_eq!(
        d0.running_compute_processes().map(pids),
        Ok(vec![4242, 4250, 4251, 4252]),
        "the growth budget is spent"
    );
    let added = d0.running_compute_processes().unwrap().pop().unwrap();
    assert_eq!(added.used_gpu_memory, Some(256 << 20), "the mock's added processes use 256 MiB");
}

// ---------------------------------------------------------------------------------------------
// Enum values the header does not define.

#[test]
fn unknown_enum_values_are_kept() {
    let profile = profile_file(
        "odd-enums",
        "name: odd\ndevices:\n  - {name: Odd GPU, nvmlDeviceGetComputeMode: 77, nvmlDeviceGetPerformanceState: 40, nvmlDeviceGetBrand: 1234, ecc: {enabled: true, pending: false}}\n",
    );
    let Some(nvml) = in_profile("unknown_enum_values_are_kept", &profile) else { return };
    let d = nvml.device_by_index(0).unwrap();
    let mode = d.compute_mode().unwrap();
    assert_eq!(mode, ComputeMode(77), "nvmlDeviceGetComputeMode: 77");
    assert_eq!(mode.name(), None, "77 is not in the header");
    assert_eq!(format!("{mode:?}"), "ComputeMode(77)");
    let p = d.performance_state().unwrap();
    assert_eq!((p, p.name()), (Pstates(40), None), "nvmlDeviceGetPerformanceState: 40");
    assert_eq!(format!("{p:?}"), "Pstates(40)");
    let brand = d.brand().unwrap();
    assert_eq!(
        (brand, format!("{brand:?}"), brand.to_string()),
        (BrandType(1234), "BrandType(1234)".to_string(), "1234".to_string()),
        "nvmlDeviceGetBrand: 1234"
    );
    // Known values display in words: nvidia-smi's "Exclusive_Process" and so on.
    let shown: Vec<String> = [ComputeMode::DEFAULT, ComputeMode::EXCLUSIVE_PROCESS, ComputeMode::PROHIBITED]
        .iter()
        .map(|m| m.to_string())
        .collect();
    assert_eq!(shown, ["Default", "Exclusive Process", "Prohibited"]);
    assert_eq!(
        (BrandType::NVIDIA_RTX.to_string(), BrandType::GEFORCE.to_string(), Pstates::PSTATE_0.to_string()),
        ("NVIDIA RTX".to_string(), "GeForce".to_string(), "P0".to_string())
    );
    // A yes or no is a `bool` (nvmlEnableState_t: NVML_FEATURE_ENABLED or _DISABLED).
    assert_eq!(format!("{:?}", d.ecc_mode().unwrap()), "EccMode { current: true, pending: false }");
    assert_eq!(ComputeMode::PROHIBITED.name(), Some("PROHIBITED"));
    // The one-device profile: everything it leaves out is not supported.
    assert_eq!(nvml.device_count(), Ok(1));
    assert_eq!(d.uuid(), Err(Error::NotSupported), "no uuid in the profile");
    assert_eq!(d.memory_info(), Err(Error::NotSupported), "no memory in the profile");
    assert_eq!(nvml.driver_version(), Err(Error::NotSupported), "no system section");
}

// ---------------------------------------------------------------------------------------------
// Threads and lifetimes.

#[test]
fn many_threads_share_one_nvml() {
    let Some(nvml) = in_profile("many_threads_share_one_nvml", "h100") else { return };
    // Borrowed handles in scoped threads.
    std::thread::scope(|s| {
        for t in 0..8u32 {
            let nvml = &nvml;
            s.spawn(move || {
                for round in 0..200u32 {
                    let i = (t + round) % 8;
                    let d = nvml.device_by_index(i).unwrap();
                    let (uuid, serial, bus, _, _) = H100[i as usize];
                    assert_eq!(d.uuid().as_deref(), Ok(uuid), "thread {t}, device {i}");
                    assert_eq!(d.serial().as_deref(), Ok(serial), "thread {t}, device {i}");
                    assert_eq!(d.pci_info().map(|p| p.bus), Ok(bus), "thread {t}, device {i}");
                    assert_eq!(d.memory_info().map(|m| m.total), Ok(H100_MEMORY_TOTAL), "thread {t}, device {i}");
                    assert_eq!(d.index(), Ok(i), "thread {t}, device {i}");
                }
            });
        }
    });
    // Owned handles moved into plain threads.
    let threads: Vec<_> = (0..8u32)
        .map(|i| {
            let d: Device<'static> = nvml.device_by_index(i).unwrap().into_owned();
            std::thread::spawn(move || {
                for _ in 0..200 {
                    assert_eq!(d.uuid().as_deref(), Ok(H100[i as usize].0), "owned device {i}");
                    assert_eq!(d.name().as_deref(), Ok(H100_NAME), "owned device {i}");
                    assert_eq!(d.power_usage(), Ok(70_815), "owned device {i}");
                }
                let pids: Vec<u32> = d.running_compute_processes().unwrap().iter().map(|p| p.pid).collect();
                assert_eq!(pids, if i == 0 { vec![4242, 4250] } else { vec![] }, "processes of owned device {i}");
            })
        })
        .collect();
    for t in threads {
        t.join().expect("a thread panicked");
    }
}

#[test]
fn an_owned_device_keeps_the_library_initialised() {
    let Some(nvml) = in_profile("an_owned_device_keeps_the_library_initialised", "h100") else { return };
    let raw = raw();
    let d = nvml.device_by_index(3).unwrap().into_owned();
    drop(nvml);
    assert!(initialised(&raw), "an owned device holds the library after the Nvml is dropped");
    assert_eq!(d.uuid().as_deref(), Ok(H100[3].0), "the owned device still works");
    // In another thread too.
    let d = std::thread::spawn(move || {
        assert_eq!(d.serial().as_deref(), Ok(H100[3].1));
        d
    })
    .join()
    .unwrap();
    // The Nvml a handle gives back shares the library.
    let again = d.nvml();
    assert_eq!(again.device_count(), Ok(8));
    drop(d);
    assert!(initialised(&raw), "the Nvml from the handle still holds it");
    drop(again);
    assert!(!initialised(&raw), "nvmlShutdown once the last owner is gone");
}

#[test]
fn two_inits_and_their_drops() {
    if !in_child("two_inits_and_their_drops", &[]) {
        return;
    }
    let raw = raw();
    let header_text = "The requested operation is not available on target device (NVML error 3)";
    assert_eq!(Error::NotSupported.to_string(), header_text, "no library yet: the header's description");
    let a = nvml();
    let b = nvml();
    let library_text = format!("{} (NVML error 3)", raw_error_string(&a, 3));
    assert_ne!(library_text, header_text, "the mock's text differs from the header's");
    assert_eq!(Error::NotSupported.to_string(), library_text, "nvmlErrorString while the library is alive");
    let a2 = a.clone();
    drop(b);
    assert!(initialised(&raw), "`a` is still alive");
    assert_eq!(Error::NotSupported.to_string(), library_text, "the older Nvml is alive: still nvmlErrorString");
    drop(a);
    assert!(initialised(&raw), "a clone of `a` is still alive");
    assert_eq!(a2.device_count(), Ok(8));
    drop(a2);
    assert!(!initialised(&raw), "both inits are shut down: the mock's reference count is back to 0");
    assert_eq!(Error::NotSupported.to_string(), header_text, "after the last drop: the header's description");
    // And a new init after all of that.
    let c = nvml();
    assert_eq!(c.device_count(), Ok(8));
    drop(c);
    assert!(!initialised(&raw));
}

// The hand-written wrappers of `src/manual/` and the buffers sized by `strings` rules.

#[test]
fn h100_process_details_utilisation_and_names() {
    let Some(nvml) = in_profile("h100_process_details_utilisation_and_names", "h100") else { return };
    let d0 = nvml.device_by_index(0).unwrap();
    assert_eq!(d0.gsp_firmware_version().as_deref(), Ok("580.159.04"), "a fixed buffer without a length parameter");
    assert_eq!(nvml.process_name(4250).as_deref(), Ok("trainer"));
    // Any other running process is named as the driver names it: its program's path.
    let argv0 = std::env::args().next().unwrap();
    assert_eq!(nvml.process_name(std::process::id()), Ok(argv0));
    assert_eq!(nvml.process_name(0x7fff_fff0), Err(Error::NotFound), "beyond any pid_max");

    let compute = d0.running_process_detail_list(ProcessMode::COMPUTE).unwrap();
    let got: Vec<_> = compute
        .iter()
        .map(|p| (p.pid, p.used_gpu_memory, p.gpu_instance_id, p.compute_instance_id, p.used_gpu_cc_protected_memory))
        .collect();
    assert_eq!(
        got,
        [(4242, Some(1 << 30), None, None, 0), (4250, Some(512 << 20), None, None, 0)],
        "no MIG: instance ids 0xFFFFFFFF, which is none"
    );
    // Driver 580 refuses the `ALL` mode (recorded on an H200, 580.159.04); the h100 profile is 580.
    assert_eq!(d0.running_process_detail_list(ProcessMode::ALL), Err(Error::InvalidArgument));
    assert_eq!(d0.running_process_detail_list(ProcessMode::GRAPHICS), Ok(vec![]));
    assert_eq!(nvml.device_by_index(1).unwrap().running_process_detail_list(ProcessMode::COMPUTE), Ok(vec![]));

    // The processes are sampled at the time of the call, as a real GPU's are.
    let now = || std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_micros() as u64;
    let before = now();
    let util = d0.processes_utilization_info(0).unwrap();
    let got: Vec<_> = util.iter().map(|u| (u.pid, u.sm_util, u.mem_util, u.dec_util)).collect();
    assert_eq!(got, [(4242, 38, 11, 0), (4250, 21, 6, 3)]);
    assert!(util.iter().all(|u| u.time_stamp >= before && u.time_stamp <= now()), "{util:?}");
    // Only samples newer than the last one seen.
    assert_eq!(d0.processes_utilization_info(u64::MAX), Err(Error::NotFound));
    // The v1 legacy process list, converted: its layout has no instance ids.
    let t4_like = d0.running_compute_processes().unwrap();
    assert!(t4_like.iter().all(|p| p.gpu_instance_id.is_none() && p.compute_instance_id.is_none()), "{t4_like:?}");
}

#[test]
fn b200_sram_ecc_entries() {
    // nvml.h documents the unique SRAM error counts for Blackwell or newer: the H100 lacks them.
    let Some(nvml) = in_profile("b200_sram_ecc_entries", "b200") else { return };
    let entries = nvml.device_by_index(3).unwrap().sram_unique_uncorrected_ecc_error_counts().unwrap();
    let got: Vec<_> =
        entries.iter().map(|e| (e.unit, e.location, e.sublocation, e.address, e.is_parity, e.count)).collect();
    assert_eq!(got, [(2, 5, 1, 0x1A40, false, 1), (7, 0, 3, 0xC8, true, 2)]);
    assert_eq!(
        nvml.device_by_index(0).unwrap().sram_unique_uncorrected_ecc_error_counts(),
        Ok(vec![]),
        "no errors: one call, no fill"
    );
}

#[test]
fn h100_system_events() {
    let Some(nvml) = in_profile("h100_system_events", "h100") else { return };
    let set = nvml.system_event_set_create().unwrap();
    // Nothing registered yet: success without events (recorded on an H200, 580.159.04).
    assert_eq!(set.wait(0, 8).map(|l| l.len()), Ok(0), "nothing registered yet");
    set.register(SystemEventTypes::GPU_DRIVER_UNBIND | SystemEventTypes::GPU_DRIVER_BIND).unwrap();
    let first = set.wait(10, 1).unwrap();
    assert_eq!(
        first.iter().map(|e| (e.event_type, e.gpu_id)).collect::<Vec<_>>(),
        [(SystemEventTypes::GPU_DRIVER_UNBIND, 0x1800)],
        "at most max_events"
    );
    let rest = set.wait(10, 8).unwrap();
    assert_eq!(
        rest.iter().map(|e| (e.event_type, e.gpu_id)).collect::<Vec<_>>(),
        [(SystemEventTypes::GPU_DRIVER_BIND, 0x1800)]
    );
    assert_eq!(set.wait(0, 8).map(|e| e.len()), Ok(0), "each event is delivered once");
    // A second set sees the events again; freeing one leaves the other working.
    let other = nvml.system_event_set_create().unwrap();
    other.register(SystemEventTypes::GPU_DRIVER_BIND).unwrap();
    assert_eq!(other.wait(0, 8).map(|e| e.len()), Ok(1), "only the registered type");
    assert_eq!(set.free(), Ok(()));
    assert_eq!(other.free(), Ok(()));
}

/// `Nvml::event_set_for` registers every device it is given, and each `Event` carries the
/// device it happened on and, for an XID, its number; a wait with nothing pending is `None`.
#[test]
fn events_carry_their_device() {
    let profile = profile_file(
        "events-carry-their-device",
        "base: h100\n\
         events:\n\
         \x20 - {device: 1, type: nvmlEventTypeClock}\n\
         \x20 - {device: 0, type: nvmlEventTypePState}\n\
         \x20 - {device: 2, type: nvmlEventTypeClock}\n\
         \x20 - {device: 0, type: nvmlEventTypeXidCriticalError, data: 79}\n\
         \x20 - {device: 1, type: nvmlEventTypeDoubleBitEccError}\n",
    );
    let Some(nvml) = in_profile("events_carry_their_device", &profile) else { return };
    let (gpu0, gpu1) = (nvml.device_by_index(0).unwrap(), nvml.device_by_index(1).unwrap());
    let set = nvml.event_set_for([&gpu0, &gpu1]).unwrap();
    // The mock queues a device's events when it is registered: GPU 0's, then GPU 1's; GPU 2
    // is not registered.
    let mut events: Vec<Event<'_>> = (0..3).map(|_| set.next_event(0).unwrap().expect("an event")).collect();
    // The same conversion from what `wait` returns.
    events.push(set.event(&set.wait(0).unwrap()));
    let uuids: Vec<String> = events.iter().map(|e| e.device().uuid().unwrap()).collect();
    assert_eq!(uuids, [H100[0].0, H100[0].0, H100[1].0, H100[1].0]);
    assert!(matches!(&events[0], Event::PStateChange(d) if *d == gpu0), "{events:?}");
    match &events[1] {
        Event::XidCriticalError { device, xid, gpu_instance_id, compute_instance_id } => {
            assert_eq!(device.uuid().as_deref(), Ok(H100[0].0));
            assert_eq!((*xid, *gpu_instance_id, *compute_instance_id), (79, None, None));
        }
        other => panic!("not an XID: {other:?}"),
    }
    assert!(matches!(&events[2], Event::ClockChange(d) if *d == gpu1), "{events:?}");
    assert!(matches!(&events[3], Event::DoubleBitEccError(d) if *d == gpu1), "{events:?}");
    let types: Vec<EventTypes> = events.iter().map(Event::event_type).collect();
    assert_eq!(
        types,
        [EventTypes::P_STATE, EventTypes::XID_CRITICAL_ERROR, EventTypes::CLOCK, EventTypes::DOUBLE_BIT_ECC_ERROR]
    );
    // Debug names the device by UUID.
    assert_eq!(format!("{:?}", events[2]), format!("ClockChange(Device {{ uuid: {:?} }})", H100[1].0));
    // Nothing pending: the wait times out, which is no event rather than an error.
    assert_eq!(set.next_event(0), Ok(None));
    assert_eq!(set.next_event(10), Ok(None));
}

/// An event of a type nvml.h does not name (a newer driver's bit, or several bits at once)
/// comes out as `Event::Unknown`, its type bits and data kept.
#[test]
fn events_newer_than_the_header_are_unknown() {
    let profile = profile_file(
        "events-newer-than-the-header",
        "name: t4-new-events\n\
         base: [t4]\n\
         device_defaults:\n\
         \x20 supported_events: [nvmlEventTypeClock, nvmlEventTypePState, 0x10000]\n\
         events:\n\
         \x20 - {device: 0, type: 0x10000, data: 5}\n\
         \x20 - {device: 0, type: 0x14, data: 0}\n\
         \x20 - {device: 0, type: nvmlEventTypePState}\n",
    );
    let Some(nvml) = in_profile("events_newer_than_the_header_are_unknown", &profile) else { return };
    let gpu = nvml.device_by_index(0).unwrap();
    let set = nvml.event_set_for([&gpu]).unwrap();
    let newer = EventTypes::from_bits_retain(0x10000);
    assert_eq!(set.next_event(0), Ok(Some(Event::Unknown { device: gpu.clone(), event_type: newer, data: 5 })));
    let both = EventTypes::CLOCK | EventTypes::P_STATE;
    assert_eq!(set.next_event(0), Ok(Some(Event::Unknown { device: gpu.clone(), event_type: both, data: 0 })));
    let pstate = set.next_event(0).unwrap().unwrap();
    assert_eq!(pstate, Event::PStateChange(gpu.clone()));
    assert_eq!((pstate.device(), pstate.event_type()), (&gpu, EventTypes::P_STATE));
    assert_eq!(set.next_event(0), Ok(None));
}

/// `EventSet::events` waits again when a wait times out, yields `Error::Unknown` and goes on,
/// and ends after an error that more waiting cannot cure.
#[test]
fn events_iterator_skips_timeouts_and_ends_after_a_lasting_error() {
    // nvmlEventSetWait_v2's calls: the event, two timeouts, UNKNOWN, then GPU_IS_LOST (each
    // fault answers from its call `after` on, the first that does wins; a fault's count moves
    // only when the ones before it do not answer).
    let profile = profile_file(
        "events-iterator",
        "base: h100\n\
         events:\n\
         \x20 - {device: 0, type: nvmlEventTypeClock}\n\
         faults:\n\
         \x20 - {function: nvmlEventSetWait_v2, error: NVML_ERROR_GPU_IS_LOST, after: 4}\n\
         \x20 - {function: nvmlEventSetWait_v2, error: NVML_ERROR_UNKNOWN, after: 3}\n\
         \x20 - {function: nvmlEventSetWait_v2, error: NVML_ERROR_TIMEOUT, after: 1}\n",
    );
    let Some(nvml) = in_profile("events_iterator_skips_timeouts_and_ends_after_a_lasting_error", &profile) else {
        return;
    };
    let gpu = nvml.device_by_index(0).unwrap();
    let set = nvml.event_set_for([&gpu]).unwrap();
    let seen: Vec<Result<Event<'_>, Error>> = set.events().collect();
    assert_eq!(
        seen,
        [Ok(Event::ClockChange(gpu.clone())), Err(Error::Unknown(sys::NVML_ERROR_UNKNOWN)), Err(Error::GpuIsLost)]
    );
}

#[test]
fn l40s_pgpu_metadata_and_a_vgpu_less_device() {
    let Some(nvml) = in_profile("l40s_pgpu_metadata_and_a_vgpu_less_device", "l40s") else { return };
    let d0 = nvml.device_by_index(0).unwrap();
    let meta = d0.pgpu_metadata_string().unwrap();
    assert!(
        meta.starts_with("version=1;hostDriverVersion=580.82.07;pciDeviceId=0x26B910DE;")
            && meta.ends_with("pgpuIndex=0"),
        "{meta}"
    );
    // Bare metal, no vGPU manager: the wrappers pass the library's answer through.
    assert_eq!(d0.vgpu_instances_utilization_info(0), Err(Error::NotSupported));
    assert_eq!(d0.vgpu_type_supported_placements(&VgpuTypeId::from_id(&nvml, 1), 0), Err(Error::NotSupported));
    // nvml.h: NOT_FOUND for a vGPU instance that is not running (INVALID_ARGUMENT for 0).
    assert_eq!(VgpuInstance::from_id(&nvml, 1).gpu_pci_id(), Err(Error::NotFound));
}

#[test]
fn t4_has_no_gsp_firmware_or_pgpu_metadata() {
    let Some(nvml) = in_profile("t4_has_no_gsp_firmware_or_pgpu_metadata", "t4") else { return };
    let d0 = nvml.device_by_index(0).unwrap();
    assert_eq!(d0.gsp_firmware_version(), Err(Error::NotSupported));
    assert_eq!(d0.pgpu_metadata_string(), Err(Error::NotSupported));
}

/// CPER records (13.3 header) and cgroup memory limits (13.4) are newer than driver 580: the
/// H100 profile lacks them, the same profile with driver 590 has them.
#[test]
fn cper_records_and_memory_limits_need_a_newer_driver() {
    let Some(nvml) = in_profile("cper_records_and_memory_limits_need_a_newer_driver", "h100") else { return };
    let mut cursor = CperCursor::new(sys::NVML_CPER_ACCESS_TYPE_GPU, None);
    // The mock exports every symbol; the emulated driver answers NVML_ERROR_FUNCTION_NOT_FOUND.
    assert_eq!(nvml.cper_next(&mut cursor), Err(Error::FunctionNotFound(None)));
    let d0 = nvml.device_by_index(0).unwrap();
    assert_eq!(d0.memory_limits("/sys/fs/cgroup/job"), Err(Error::FunctionNotFound(None)));
}

#[test]
fn cper_records_and_memory_limits_on_driver_590() {
    // The h100 profile's GPUs on a later driver.
    let path = profile_file("h100-590", "base: [h100]\nsystem: {driver_version: \"590.44.01\"}\n");
    let Some(nvml) = in_profile("cper_records_and_memory_limits_on_driver_590", &path) else { return };

    let mut all = CperCursor::new(sys::NVML_CPER_ACCESS_TYPE_GPU, None);
    let first = nvml.cper_next(&mut all).unwrap().expect("a first record");
    assert_eq!(first, [0x43, 0x50, 0x45, 0x52, 1, 1, 0xFF, 0xFF, 0xFF, 0xFF, 1, 0, 2, 0, 0, 0]);
    let second = nvml.cper_next(&mut all).unwrap().expect("a second record");
    assert_eq!(second.len(), 20);
    assert_eq!(nvml.cper_next(&mut all), Ok(None), "no more records");
    all.rewind();
    assert_eq!(nvml.cper_next(&mut all).unwrap().as_deref(), Some(&first[..]), "rewound");
    // Filtered by the UUID of device 3.
    let mut one = CperCursor::new(sys::NVML_CPER_ACCESS_TYPE_GPU, Some(H100[3].0));
    assert_eq!(nvml.cper_next(&mut one).unwrap().as_deref(), Some(&second[..]));
    assert_eq!(nvml.cper_next(&mut one), Ok(None));

    let d0 = nvml.device_by_index(0).unwrap();
    let ns = "/sys/fs/cgroup/job-17";
    let none = d0.memory_limits(ns).unwrap();
    assert_eq!((none.soft_limit, none.hard_limit), (0, u64::MAX), "no limit set: NVML_DEVICE_MEMORY_LIMIT_MAX");
    assert!(none.current_used > 0, "{none:?}");
    let want = MemoryLimits { soft_limit: 8 << 30, hard_limit: 16 << 30, current_used: 0 };
    d0.set_memory_limits(ns, &want).unwrap();
    let got = d0.memory_limits(ns).unwrap();
    assert_eq!((got.soft_limit, got.hard_limit), (8 << 30, 16 << 30));
    assert_eq!(d0.memory_limits("/sys/fs/cgroup/other").map(|l| l.soft_limit), Ok(0), "per namespace");
    let bad = MemoryLimits { soft_limit: 16 << 30, hard_limit: 8 << 30, current_used: 0 };
    assert_eq!(d0.set_memory_limits(ns, &bad), Err(Error::InvalidArgument), "soft above hard");
    assert_eq!(d0.memory_limits("bad\0path"), Err(Error::InvalidArgument), "an interior NUL never reaches the library");
}
