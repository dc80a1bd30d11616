//! The examples `uuids` and `smi` run against the mock's H100 profile and print its values.
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
    // This test runs in target/<profile>/deps/; the examples are in target/<profile>/examples/.
    let test_exe = std::env::current_exe().unwrap();
    let exe = test_exe.parent().unwrap().with_file_name("examples").join(name);
    assert!(
        exe.exists(),
        "{} is missing: build the examples first (`cargo build -p nvmlkit --examples`)",
        exe.display()
    );
    let out = Command::new(&exe)
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
