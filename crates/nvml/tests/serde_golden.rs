//! The `serde` form of a few records, enums and bit flags against a golden file
//! (`tests/serde/golden.txt`: a line `name: JSON` per value, as `serde_json` writes it, fields
//! in their order): Rust field and type names, enum constants by their Rust name
//! (a value the header does not name as its number), bit flags as their bits, `Option`s as
//! `null`, unions as a derive writes an enum. Set `UPDATE_GOLDEN=1` to rewrite the file, then
//! review the diff.

// The package's dev-dependency on itself turns the feature on in the workspace; a packaged
// copy without it builds this test as nothing.
#![cfg(feature = "serde")]

use std::path::PathBuf;

use nvml::*;
use serde_json::Value as J;

/// A value as `serde_json` writes it (its fields in the order it serializes them).
fn j<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("the value serializes")
}

/// Each value, named, in the order of the golden file.
fn values() -> Vec<(&'static str, String)> {
    let mut pci = PciInfo::default();
    pci.bus_id_legacy = "0000:3B:00.0".into();
    pci.domain = 0;
    pci.bus = 0x3b;
    pci.device = 0;
    pci.pci_device_id = 0x2330_10de;
    pci.pci_sub_system_id = 0x16c1_10de;
    pci.bus_id = "00000000:3B:00.0".into();

    let mut process = ProcessInfo::default();
    process.pid = 4242;
    process.used_gpu_memory = Some(512 << 20);
    process.gpu_instance_id = None;
    process.compute_instance_id = None;

    let mut ecc = EccMode::default();
    ecc.current = true;
    ecc.pending = false;

    let mut field = FieldValue::default();
    field.field_id = FieldId::DEV_ECC_CURRENT;
    field.scope_id = 0;
    field.timestamp = 1_700_000_000_000_000;
    field.latency_usec = 12;
    field.nvml_return = Return::SUCCESS;
    field.value = Value::UnsignedInt(1);

    let mut arr = VgpuSchedulerParamsVgpuSchedDataWithARR::default();
    arr.avg_factor = 33;
    arr.timeslice = 2000;
    let mut entry = VgpuSchedulerLogEntry::default();
    entry.timestamp = 10;
    entry.time_run_total = 20;
    entry.time_run = 5;
    entry.sw_runlist_id = 3;
    entry.target_time_slice = 2000;
    entry.cumulative_preemption_time = 1;
    let mut log = VgpuSchedulerLog::default();
    log.engine_id = 1;
    log.scheduler_policy = 2;
    log.scheduler_params = VgpuSchedulerParams::VgpuSchedDataWithArr(arr);
    log.entries_count = 1;
    log.log_entries = vec![entry];
    let mut unknown = log.clone();
    unknown.scheduler_params = VgpuSchedulerParams::Unknown { tag: 9, bytes: vec![1, 2] };
    unknown.log_entries = vec![];
    unknown.entries_count = 0;

    vec![
        ("PciInfo", j(&pci)),
        ("ProcessInfo", j(&process)),
        ("EccMode", j(&ecc)),
        ("FieldValue", j(&field)),
        ("VgpuSchedulerLog", j(&log)),
        ("VgpuSchedulerLog, an unknown tag", j(&unknown)),
        ("DeviceArchitecture::HOPPER", j(&DeviceArchitecture::HOPPER)),
        ("DeviceArchitecture(99)", j(&DeviceArchitecture(99))),
        ("EventTypes", j(&(EventTypes::XID_CRITICAL_ERROR | EventTypes::SINGLE_BIT_ECC_ERROR))),
        ("Value::Double", j(&Value::Double(1.5))),
    ]
}

#[test]
fn serde_output_matches_the_golden_file() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/serde/golden.txt");
    let got: String = values().iter().map(|(name, v)| format!("{name}: {v}\n")).collect();
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &got).expect("the golden file is written");
        return;
    }
    let want = std::fs::read_to_string(&path).expect("tests/serde/golden.txt (UPDATE_GOLDEN=1 writes it)");
    assert_eq!(got, want, "the serde form changed: review it, then UPDATE_GOLDEN=1 rewrites the file");
}

/// No key of any serialized record is a C name: each is the Rust field's (lower case, words
/// joined by `_`), and no struct is named after its C layout.
#[test]
fn serde_keys_are_rust_field_names() {
    fn keys(v: &J, out: &mut Vec<String>) {
        match v {
            J::Object(m) => m.iter().for_each(|(k, v)| {
                out.push(k.clone());
                keys(v, out)
            }),
            J::Array(a) => a.iter().for_each(|v| keys(v, out)),
            _ => {}
        }
    }
    let mut all = Vec::new();
    for (_, v) in values() {
        keys(&serde_json::from_str(&v).expect("JSON"), &mut all);
    }
    // The variant names of a union are the Rust enum's (`VgpuSchedDataWithArr`, `Unknown`).
    let variants = ["VgpuSchedDataWithArr", "Unknown"];
    let bad: Vec<&String> = all
        .iter()
        .filter(|k| !variants.contains(&k.as_str()))
        .filter(|k| k.chars().any(|c| c.is_ascii_uppercase()))
        .collect();
    assert!(bad.is_empty(), "keys that are not Rust field names: {bad:?}");
    assert!(all.iter().any(|k| k == "bus_id_legacy"), "{all:?}");
}
