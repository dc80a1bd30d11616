//! The examples run against the mock's profiles and print their values: `uuids` and `smi`, and
//! the ports of nvml-wrapper programs (`basic_usage`, `event_loop`, `gpu_processes`).
//!
//! `cargo test` builds the examples before it runs integration tests, into
//! `target/<profile>/examples/`, next to this test's `target/<profile>/deps/`. A run that
//! selects tests only (`cargo test --test examples_run`) does not build them: build them first
//! with `cargo build -p nvmlkit --examples`.

use std::process::Command;

use nvml_mock::testing::mock_path;

/// Runs the example `name` against the mock with `profile`; its stdout, after checking that it
/// succeeded and printed nothing on stderr.
fn run_example(name: &str, profile: &str) -> String {
    run_example_with(name, profile, &[])
}

/// [`run_example`] with command-line arguments.
fn run_example_with(name: &str, profile: &str, args: &[&str]) -> String {
    // This test runs in target/<profile>/deps/; the examples are in target/<profile>/examples/.
    let test_exe = std::env::current_exe().unwrap();
    let exe = test_exe.parent().unwrap().with_file_name("examples").join(name);
    assert!(
        exe.exists(),
        "{} is missing: build the examples first (`cargo build -p nvmlkit --examples`)",
        exe.display()
    );
    let out = Command::new(&exe)
        .args(args)
        .env("NVML_LIBRARY_PATH", mock_path())
        .env("NVML_MOCK_PROFILE", profile)
        .env_remove("NVML_MOCK_FAULTS")
        .env_remove("NVML_MOCK_STRICT")
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{name} failed ({}):\n{stdout}\n{stderr}", out.status);
    assert!(stderr.is_empty(), "{name} wrote on stderr:\n{stderr}");
    stdout
}

/// The H100 profile's UUIDs, in index order (crates/nvml-mock/profiles/h100.yaml).
const H100_UUIDS: [&str; 8] = [
    "GPU-74106407-f32f-0663-90a7-a1acf7eb04ae",
    "GPU-08f22e65-3b2d-59a7-2659-c71f416a3808",
    "GPU-126d4085-7b1a-a246-402b-e786f0d2a595",
    "GPU-d6a0ae3c-5011-a59d-c8a7-2b61c6a912e7",
    "GPU-bc97db74-b05a-c096-f734-a077a2237236",
    "GPU-9155b3d0-4dfb-67f2-c407-5f50917a65bd",
    "GPU-8fce64b5-a8f7-e90f-573b-75a9133b9b4c",
    "GPU-c451bde8-23fb-cff5-1365-8761e1e3168c",
];

#[test]
fn uuids_lists_every_gpu() {
    let out = run_example("uuids", "h100");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 8, "{out}");
    for (i, (line, uuid)) in lines.iter().zip(H100_UUIDS).enumerate() {
        assert_eq!(*line, format!("GPU {i}: NVIDIA H100 80GB HBM3 (UUID: {uuid})"));
    }
}

/// The cells of the rows of a table that start with a number (the GPU index).
fn rows(table: &str) -> Vec<Vec<&str>> {
    table
        .lines()
        .filter(|l| l.starts_with(|c: char| c.is_ascii_digit()))
        .map(|l| l.split("  ").map(str::trim).filter(|c| !c.is_empty()).collect())
        .collect()
}

#[test]
fn smi_prints_the_profile() {
    let out = run_example("smi", "h100");
    let (gpus, procs) = out.split_once("Processes:").unwrap_or_else(|| panic!("no processes table:\n{out}"));
    assert!(gpus.starts_with("NVML 13.580.159.04    Driver Version: 580.159.04    CUDA Version: 13.0\n"), "{out}");

    let gpu_rows = rows(gpus);
    assert_eq!(gpu_rows.len(), 8, "{out}");
    assert_eq!(
        gpu_rows[0],
        [
            "0",
            "NVIDIA H100 80GB HBM3",
            "On",
            "00000000:18:00.0",
            "33C",
            "70W / 700W",
            "1538MiB / 81559MiB",
            "37%",
            "Default"
        ],
        "{out}"
    );
    let bus_ids = ["18", "2A", "3A", "5D", "9A", "AB", "BA", "DB"];
    for (i, (row, bus)) in gpu_rows.iter().zip(bus_ids).enumerate() {
        assert_eq!(row[0], i.to_string());
        assert_eq!(row[3], format!("00000000:{bus}:00.0"));
        // GPU 7 is in MIG mode: the driver reports utilization per GPU instance, not per GPU
        // (N/A); every other GPU shows a percentage.
        let percent = row[7].strip_suffix('%').is_some_and(|n| n.parse::<u32>().is_ok_and(|n| n <= 100));
        assert_eq!((row[7] == "N/A", percent), (i == 7, i != 7), "GPU {i}: {out}");
        assert!(!row.contains(&"ERR!") && !row[..7].contains(&"N/A") && !row[8..].contains(&"N/A"), "{out}");
    }
    assert_eq!(gpu_rows[1][6], "0MiB / 81559MiB", "{out}");

    assert_eq!(
        rows(procs),
        [["0", "4242", "C", "python3", "1024MiB"], ["0", "4250", "C", "trainer", "512MiB"]],
        "{out}"
    );
}

/// The T4 has no MIG or NVLink, but everything the table shows; a different profile checks
/// that the values come from the library, not from the example.
#[test]
fn smi_prints_another_profile() {
    let out = run_example("smi", "t4");
    assert!(out.starts_with("NVML 12.535.247.01    Driver Version: 535.247.01    CUDA Version: 12.2\n"), "{out}");
    let gpu_rows = rows(out.split_once("Processes:").unwrap().0);
    assert_eq!(gpu_rows[0][1], "Tesla T4", "{out}");
    assert_eq!(gpu_rows[0][5], "9W / 70W", "{out}");
}

/// The port of nvml-wrapper's `basic_usage`: the first GPU of two profiles, every number of the
/// sentence from the library (the H100 profile's PCIe gen 5 and 32 GT/s, where the driver
/// answers the link's maximum as the code `NVML_PCIE_LINK_MAX_SPEED_32000MBPS`, 5).
#[test]
fn basic_usage_describes_the_first_gpu() {
    let out = run_example("basic_usage", "h100");
    assert!(
        out.contains(
            "Your NVIDIA H100 80GB HBM3 (architecture: Hopper, CUDA cores: 16896) is currently sitting at 33 °C \
             with a graphics clock of 345 MHz and a memory clock of 2619 MHz. Memory usage is 1.61 GB out of an \
             available 85.52 GB. Right now the device is connected via a PCIe gen 5 x16 interface with a transfer \
             rate of 32 GT/s per lane; the max your hardware supports is PCIe gen 5 x16 at a transfer rate of \
             32 GT/s per lane."
        ),
        "{out}"
    );
    assert!(out.contains("This device is not on a multi-GPU board.\n"), "{out}");
    assert!(out.contains("System CUDA version: 13.0\n"), "{out}");

    let out = run_example("basic_usage", "t4");
    assert!(out.contains("Your Tesla T4 (architecture: Turing, CUDA cores: 2560)"), "{out}");
    assert!(out.contains("PCIe gen 3 x16 at a transfer rate of 8 GT/s per lane."), "{out}");
    assert!(out.contains("System CUDA version: 12.2\n"), "{out}");
}

/// The port of nvml-wrapper's `event_loop`, against an H100 profile whose GPU 0 has a clock
/// change, a P-state change and XID 79 pending, and GPU 1 a clock change that the example,
/// which registers GPU 0 only, must not see. It handles three events and exits.
#[test]
fn event_loop_prints_the_first_gpus_events() {
    let profile = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("event-loop.yaml");
    std::fs::write(
        &profile,
        "base: h100\n\
         events:\n\
         \x20 - {device: 1, type: nvmlEventTypeClock}\n\
         \x20 - {device: 0, type: nvmlEventTypeClock}\n\
         \x20 - {device: 0, type: nvmlEventTypePState}\n\
         \x20 - {device: 0, type: nvmlEventTypeXidCriticalError, data: 79}\n",
    )
    .unwrap();
    let out = run_example_with("event_loop", profile.to_str().unwrap(), &["3"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert_eq!(lines[0], format!("ClockChange      event for device with UUID {:?}", H100_UUIDS[0]));
    assert_eq!(lines[1], format!("PowerStateChange event for device with UUID {:?}", H100_UUIDS[0]));
    assert_eq!(
        lines[2],
        format!(
            "A different event occurred: XidCriticalError {{ device: Device {{ uuid: {:?} }}, xid: 79, \
             gpu_instance_id: None, compute_instance_id: None }}",
            H100_UUIDS[0]
        )
    );
}

/// The port of a gpustat-like program: a line per GPU with its processes by name, the MIG
/// devices of GPU 7 (in MIG mode in the H100 profile) and the 18 NVLink links of each GPU.
#[test]
fn gpu_processes_lists_gpus_mig_devices_and_links() {
    let out = run_example("gpu_processes", "h100");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "driver 580.159.04", "{out}");
    assert_eq!(
        lines[1],
        "[0] NVIDIA H100 80GB HBM3 | 33'C | 37 % | 1538 / 81559 MB | python3/4242(1024M),trainer/4250(512M)"
    );
    let gpus: Vec<&&str> = lines.iter().filter(|l| l.starts_with('[')).collect();
    assert_eq!(gpus.len(), 8, "{out}");
    assert_eq!(*gpus[1], "[1] NVIDIA H100 80GB HBM3 | 33'C | 0 % | 0 / 81559 MB", "no processes: {out}");
    // GPU 7 reports utilization per GPU instance, not per GPU: that part is left out.
    assert_eq!(*gpus[7], "[7] NVIDIA H100 80GB HBM3 | 33'C | 0 / 81559 MB", "{out}");
    let mig: Vec<&&str> = lines.iter().filter(|l| l.trim_start().starts_with("MIG ")).collect();
    assert_eq!(mig.len(), 3, "{out}");
    assert!(mig[0].starts_with("    MIG 0 (GPU instance 1) | 0 / 40448 MB"), "{out}");
    let after_gpu7 = out.split_once(*gpus[7]).unwrap().1;
    assert!(after_gpu7.trim_start().starts_with("MIG 0"), "the MIG devices follow GPU 7: {out}");
    let nvlink: Vec<&&str> = lines.iter().filter(|l| l.trim_start().starts_with("NVLink: ")).collect();
    assert_eq!(nvlink.len(), 8, "{out}");
    assert!(nvlink.iter().all(|l| l.starts_with("    NVLink: 18 links active, to ")), "{out}");

    // The T4 has neither MIG nor NVLink.
    let out = run_example("gpu_processes", "t4");
    assert_eq!(out.lines().count(), 9, "{out}");
    assert!(out.lines().skip(1).all(|l| l.starts_with('[')), "{out}");
    assert!(
        out.lines().nth(1).unwrap().starts_with("[0] Tesla T4 | 35'C | 37 % | 1538 / 15360 MB | python3/4242"),
        "{out}"
    );
}
