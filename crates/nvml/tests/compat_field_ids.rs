//! Field ids on every driver whose numbering differs: NVIDIA renumbered 25 `NVML_FI_*` fields
//! between releases, and the mock reads field ids as its profile's driver numbers them (as the
//! driver does). The safe crate reads the driver's version at init and sends each field by that
//! driver's number, so `field_values` reads the field asked for on each of them; a field the
//! driver lacks is `Error::FieldNotInDriver` without a call. Each scenario runs in its own
//! child process (the mock's profile is per process).

use std::path::PathBuf;

use nvml::sys;
use nvml::*;
use nvml_mock::testing::{in_child, mock_path};

const TEST: &str = "each_driver_reads_the_field_asked_for";
const SCENARIO: &str = "NVMLKIT_TEST_FIELD_SCENARIO";

/// The values of `profiles/base/renumbered-fields.yaml`, which every scenario's profile has.
const MIG_QUERY_CAPABLE: u64 = 1;
const POWER_THRESHOLD_MAX: u64 = 8191;
const SMOOTHING_ENABLED: u64 = 1;
const SMOOTHING_PRIV_LVL: u64 = 2;
const SW_THERM_SLOWDOWN: u64 = 1234567;
const SYNC_BALANCING_AF: u64 = 42;

/// A profile file: `base` (a built-in) with the renumbered fields' values on driver `driver`.
fn profile_file(name: &str, base: &str, driver: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("compat-field-ids");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.yaml"));
    let text = format!(
        "name: {name}\nbase: [{base}, base/renumbered-fields]\nsystem:\n  driver_version: \"{driver}\"\n  nvmlSystemGetNVMLVersion: \"12.{driver}\"\n"
    );
    std::fs::write(&path, text).unwrap();
    path
}

/// Each field's value, or its error.
fn read(gpu: &Device<'_>, ids: &[FieldId]) -> Vec<Result<u64, Error>> {
    let answers = gpu.field_values(ids).expect("the call as a whole");
    assert_eq!(answers.len(), ids.len());
    answers
        .into_iter()
        .zip(ids)
        .map(|(a, id)| {
            a.map(|v| {
                assert_eq!(v.field_id, *id, "the answer names the field asked for");
                // The renumbered fields' values are unsigned long longs; the H100's recorded
                // ones (`recorded_fields`) are as its driver typed them.
                match v.value {
                    Value::UnsignedLongLong(x) => x,
                    Value::UnsignedInt(x) => x.into(),
                    other => panic!("{id:?}: {other:?}"),
                }
            })
        })
        .collect()
}

/// What one driver answers for the two moved families.
struct Expect {
    header: &'static str,
    mig: Result<u64, Error>,
    threshold: Result<u64, Error>,
    smoothing: Result<u64, Error>,
}

#[test]
fn each_driver_reads_the_field_asked_for() {
    let not_in = |id: FieldId| Err(Error::FieldNotInDriver(id.0));
    let scenarios: Vec<(String, Expect)> = vec![
        (
            profile_file("h100-r550", "h100", "550.54.15").display().to_string(),
            Expect {
                header: "12.4.127",
                mig: Ok(MIG_QUERY_CAPABLE),
                threshold: not_in(FieldId::DEV_NVLINK_GET_POWER_THRESHOLD_MAX),
                smoothing: not_in(FieldId::PWR_SMOOTHING_ENABLED),
            },
        ),
        (
            "h100-r560".to_string(),
            Expect {
                header: "12.6.77",
                mig: Ok(MIG_QUERY_CAPABLE),
                threshold: Ok(POWER_THRESHOLD_MAX),
                smoothing: not_in(FieldId::PWR_SMOOTHING_ENABLED),
            },
        ),
        (
            profile_file("b200-r570", "b200", "570.124.06").display().to_string(),
            Expect {
                header: "12.8.90",
                mig: Ok(MIG_QUERY_CAPABLE),
                threshold: Ok(POWER_THRESHOLD_MAX),
                smoothing: Ok(SMOOTHING_ENABLED),
            },
        ),
        (
            "b200-r575".to_string(),
            Expect {
                header: "12.9.79",
                mig: Ok(MIG_QUERY_CAPABLE),
                threshold: Ok(POWER_THRESHOLD_MAX),
                smoothing: Ok(SMOOTHING_ENABLED),
            },
        ),
        (
            "b200-r580.65".to_string(),
            Expect {
                header: "13.0.39",
                mig: Ok(MIG_QUERY_CAPABLE),
                threshold: Ok(POWER_THRESHOLD_MAX),
                smoothing: Ok(SMOOTHING_ENABLED),
            },
        ),
        (
            profile_file("b200-r580.82", "b200", "580.82.07").display().to_string(),
            Expect {
                header: "13.0.87",
                mig: Ok(MIG_QUERY_CAPABLE),
                threshold: Ok(POWER_THRESHOLD_MAX),
                smoothing: Ok(SMOOTHING_ENABLED),
            },
        ),
    ];
    for (i, (profile, _)) in scenarios.iter().enumerate() {
        if !in_child(TEST, &[("NVML_MOCK_PROFILE", profile), (SCENARIO, &i.to_string())]) {
            continue;
        }
        let i: usize = std::env::var(SCENARIO).unwrap().parse().unwrap();
        let (profile, want) = &scenarios[i];
        let nvml = Nvml::builder().library_path(mock_path()).init().expect("the mock initialises");
        assert_eq!(nvml.field_numbering().header(), want.header, "{profile}: {}", nvml.driver_version().unwrap());
        let gpu = nvml.device_by_index(0).unwrap();
        let got = read(
            &gpu,
            &[
                FieldId::DEV_IS_MIG_MODE_INDEPENDENT_MIG_QUERY_CAPABLE,
                FieldId::DEV_NVLINK_GET_POWER_THRESHOLD_MAX,
                FieldId::PWR_SMOOTHING_ENABLED,
            ],
        );
        assert_eq!(got, [want.mig.clone(), want.threshold.clone(), want.smoothing.clone()], "{profile}");
        if want.smoothing.is_ok() {
            // The rest of the family, and two of the five fields R575 numbers 251-255 (which
            // R570 lacks).
            let (sw_therm, af) =
                (FieldId::DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN, FieldId::DEV_POWER_SYNC_BALANCING_AF);
            let got = read(&gpu, &[FieldId::PWR_SMOOTHING_PRIV_LVL, sw_therm, af]);
            let want = match want.header {
                "12.8.90" => [Ok(SMOOTHING_PRIV_LVL), not_in(sw_therm), not_in(af)],
                _ => [Ok(SMOOTHING_PRIV_LVL), Ok(SW_THERM_SLOWDOWN), Ok(SYNC_BALANCING_AF)],
            };
            assert_eq!(got, want, "{profile}");
        }
        // The mock reads raw ids as the driver does: 13.5.37's 251 and 199 are other fields on
        // R575 and 580.65 (the SW thermal slowdown counter) and on R560 (the NVLink power
        // threshold).
        let raw = |id: u32| {
            let mut v = [sys::nvmlFieldValue_t { fieldId: id, ..Default::default() }];
            let f = nvml.lib().nvmlDeviceGetFieldValues().unwrap();
            // SAFETY: `v` holds the one entry the count says, valid for the call.
            let code = unsafe { f(gpu.as_raw(), 1, v.as_mut_ptr()) };
            assert_eq!(code, sys::NVML_SUCCESS);
            // SAFETY: the mock answers every field as an unsigned long long.
            (v[0].nvmlReturn == sys::NVML_SUCCESS).then(|| unsafe { v[0].value.ullVal })
        };
        match want.header {
            "12.9.79" | "13.0.39" => assert_eq!(raw(251), Some(SW_THERM_SLOWDOWN), "{profile}"),
            "12.6.77" => assert_eq!(raw(199), Some(POWER_THRESHOLD_MAX), "{profile}"),
            "12.8.90" | "13.0.87" => assert_eq!(raw(251), Some(SMOOTHING_ENABLED), "{profile}"),
            _ => assert_eq!(raw(251), None, "{profile}: R550 has no field 251"),
        }
        return;
    }
}

/// A field the driver lacks is answered without a call: with every call of
/// `nvmlDeviceGetFieldValues` failing, a request of such fields alone still answers each, and
/// a request with one field the driver has fails as a whole.
#[test]
fn a_field_the_driver_lacks_is_an_error_without_a_call() {
    let profile = profile_file("h100-r550-lost", "h100", "550.54.15");
    let env = [
        ("NVML_MOCK_PROFILE", profile.to_str().unwrap()),
        ("NVML_MOCK_FAULTS", "nvmlDeviceGetFieldValues=NVML_ERROR_GPU_IS_LOST"),
    ];
    if !in_child("a_field_the_driver_lacks_is_an_error_without_a_call", &env) {
        return;
    }
    let nvml = Nvml::builder().library_path(mock_path()).init().unwrap();
    let gpu = nvml.device_by_index(0).unwrap();
    let ids = [FieldId::PWR_SMOOTHING_ENABLED, FieldId::DEV_NVLINK_GET_POWER_THRESHOLD_MAX];
    let got = gpu.field_values(&ids).expect("no call, so no failed call");
    assert_eq!(got, [Err(Error::FieldNotInDriver(251)), Err(Error::FieldNotInDriver(200))]);
    let e = &got[0].as_ref().unwrap_err();
    assert_eq!(e.code(), sys::NVML_ERROR_INVALID_ARGUMENT);
    assert!(e.to_string().contains("no field id 251"), "{e}");
    let with_one = [FieldId::PWR_SMOOTHING_ENABLED, FieldId::DEV_IS_MIG_MODE_INDEPENDENT_MIG_QUERY_CAPABLE];
    assert_eq!(gpu.field_values(&with_one), Err(Error::GpuIsLost));
}

/// A driver version the crate cannot parse, or cannot read, gets the newest header's numbers.
/// The profiles are R560's H100 (whose driver swaps 199 and 200): with a version that does not
/// parse, the mock reads ids by the newest numbering too and the MIG field reads right; with
/// `nvmlSystemGetDriverVersion` failing, the crate sends 13.5.37's 199, which this R560 driver
/// reads as its NVLink power threshold, as a real one would.
#[test]
fn an_unknown_driver_version_gets_the_newest_numbering() {
    const CASE: &str = "NVMLKIT_TEST_FIELD_CASE";
    let odd = profile_file("h100-odd-version", "h100-r560", "560.custom-build");
    let cases = [
        ("odd", vec![("NVML_MOCK_PROFILE", odd.to_str().unwrap()), (CASE, "odd")]),
        (
            "unreadable",
            vec![
                ("NVML_MOCK_PROFILE", "h100-r560"),
                ("NVML_MOCK_FAULTS", "nvmlSystemGetDriverVersion=NVML_ERROR_UNKNOWN"),
                (CASE, "unreadable"),
            ],
        ),
    ];
    for (_, env) in &cases {
        if !in_child("an_unknown_driver_version_gets_the_newest_numbering", env) {
            continue;
        }
        let nvml = Nvml::builder().library_path(mock_path()).init().unwrap();
        assert_eq!(nvml.field_numbering().header(), sys::HEADER_VERSION);
        let gpu = nvml.device_by_index(0).unwrap();
        let got = read(&gpu, &[FieldId::DEV_IS_MIG_MODE_INDEPENDENT_MIG_QUERY_CAPABLE]);
        match std::env::var(CASE).unwrap().as_str() {
            "odd" => {
                assert_eq!(nvml.driver_version().unwrap(), "560.custom-build");
                assert_eq!(got, [Ok(MIG_QUERY_CAPABLE)]);
            }
            _ => assert_eq!(got, [Ok(POWER_THRESHOLD_MAX)], "13.5.37's 199 on an R560 driver"),
        }
        return;
    }
}

/// "All events" is what the device reports supporting, unknown bits included: the newest
/// header's `nvmlEventTypeAll` is refused where the device supports less (the mock, like a
/// driver, refuses a bit it does not support).
#[test]
fn all_events_are_the_supported_ones() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("compat-field-ids");
    std::fs::create_dir_all(&dir).unwrap();
    let profile = dir.join("t4-events.yaml");
    // 0x10000: a bit no header names yet.
    let text = "name: t4-events\nbase: [t4]\ndevice_defaults:\n  supported_events: [nvmlEventTypePState, nvmlEventTypeClock, nvmlEventMigConfigChange, 0x10000]\n";
    std::fs::write(&profile, text).unwrap();
    if !in_child("all_events_are_the_supported_ones", &[("NVML_MOCK_PROFILE", profile.to_str().unwrap())]) {
        return;
    }
    let nvml = Nvml::builder().library_path(mock_path()).init().unwrap();
    let gpu = nvml.device_by_index(0).unwrap();
    let set = nvml.create_event_set().unwrap();
    assert_eq!(gpu.register_events(EventTypes::ALL, &set), Err(Error::NotSupported));
    let registered = gpu.register_supported_events(&set).unwrap();
    let named = EventTypes::P_STATE | EventTypes::CLOCK | EventTypes::MIG_CONFIG_CHANGE;
    assert_eq!(registered, named | EventTypes::from_bits_retain(0x10000));
    assert_eq!(registered.bits(), 0x4 | 0x10 | 0x100 | 0x10000);
    assert_eq!(EventTypes::ALL.bits(), 65439, "13.5.37's nvmlEventTypeAll, every named bit");
    // Every bit of nvmlEventTypeAll has a name of its own (ALL itself is not needed to cover it).
    let names: Vec<&str> = EventTypes::ALL.iter_names().map(|(n, _)| n).collect();
    assert!(!names.contains(&"ALL") && names.contains(&"MIG_CONFIG_CHANGE"), "{names:?}");
    assert_eq!(EventTypes::ALL.iter_names().fold(0, |m, (_, f)| m | f.bits()), 65439, "{names:?}");
}
