//! The proofs of the claims in `KNOWN_MISMATCHES` (and of the dump's reading of a record that
//! pynvml mistypes): each quotes nvml.h's text, shows what pynvml passes and which function's
//! answer it reports by calling it against the mock (`pynvml_spy.py` records every C function
//! pynvml calls and how it passes each argument), and checks nvmlkit's answer on the same
//! profile (in a child: the mock's profile is per process). The C side is
//! `crates/nvml-mock/tests/c/header_protocols.c`, a client written from the header that checks
//! the mock answers each protocol as the header says.

use std::path::Path;
use std::process::Command;

use nvml::{Device, Error, Nvml, VgpuTypeId};
use nvml_mock::testing::{in_child, mock_path, CHILD_ENV, CLEARED_ENV};
use serde_json::{json, Value as J};

use super::{default_header, have_pynvml, FUNCTION_NOT_FOUND};

/// The documentation comment of `function` in the vendored header, with the comment's `*`s,
/// Doxygen's `\a` and `\ref` markers and line breaks folded into single spaces.
fn header_doc(function: &str) -> String {
    let text = std::fs::read_to_string(default_header()).expect("the vendored header");
    let proto = format!("DECLDIR {function}(");
    let at = text.find(&proto).unwrap_or_else(|| panic!("the header has no prototype of {function}"));
    let start = text[..at].rfind("/**").expect("a documentation comment before the prototype");
    text[start..at].split_whitespace().filter(|w| !matches!(*w, "*" | "\\a" | "\\ref")).collect::<Vec<_>>().join(" ")
}

fn assert_header_says(function: &str, sentence: &str) {
    let doc = header_doc(function);
    assert!(doc.contains(sentence), "nvml.h's text of {function} does not say {sentence:?}:\n{doc}");
}

/// `pynvml_spy.py`: the expression evaluated against the mock with `profile`.
fn spy(profile: &str, expr: &str) -> J {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/differential/pynvml_spy.py");
    let mut python = Command::new("python3");
    for var in CLEARED_ENV {
        python.env_remove(var);
    }
    let out =
        python.arg(script).arg(mock_path()).arg(expr).env("NVML_MOCK_PROFILE", profile).output().expect("python3");
    assert!(out.status.success(), "pynvml_spy.py failed:\n{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("pynvml_spy.py prints JSON")
}

/// The mock with the profile of the child's environment, and its first device.
fn mock() -> Nvml {
    Nvml::builder().library_path(mock_path()).init().expect("the mock initialises")
}

fn first(nvml: &Nvml) -> Device<'_> {
    nvml.device_by_index(0).expect("device 0")
}

/// nvmlSystemGetHicVersion: the header refuses a NULL array, pynvml sizes the list with one (a
/// count of 0), and driver 580.159.04 answers that with NVML_SUCCESS and no entry
/// (`nvml-mock capture` and the pynvml dump on an H200, `crates/nvml-mock/tests/real/`): the
/// mock answers as the driver does, so pynvml and nvmlkit (which passes an array, as the header
/// asks) agree.
#[test]
fn hic_version_pynvml_probes_with_null_as_the_driver_accepts() {
    if std::env::var_os(CHILD_ENV).is_none() {
        assert_header_says(
            "nvmlSystemGetHicVersion",
            "The hwbcCount argument is expected to be set to the size of the input hwbcEntries array.",
        );
        assert_header_says(
            "nvmlSystemGetHicVersion",
            "NVML_ERROR_INVALID_ARGUMENT if either hwbcCount or hwbcEntries is NULL",
        );
        if have_pynvml() {
            let got = spy("h100", "n.nvmlSystemGetHicVersion()");
            assert_eq!(
                got,
                json!({"calls": [{"fn": "nvmlSystemGetHicVersion", "args": ["ref", "NULL"]}], "ok": []}),
                "pynvml's first call passes hwbcEntries = NULL, which the driver (and the mock) accepts"
            );
        }
    }
    if !in_child("proofs::hic_version_pynvml_probes_with_null_as_the_driver_accepts", &[("NVML_MOCK_PROFILE", "h100")])
    {
        return;
    }
    assert_eq!(mock().hic_version(), Ok(vec![]));
}

/// nvmlDeviceGetTopologyNearestGpus and nvmlSystemGetTopologyGpuSet with nothing to list: the
/// zero-count probe answers SUCCESS and 0, which nvmlkit returns as the empty list; pynvml calls
/// again with a count of 0 and a zero-length, non-NULL array, which driver 580.159.04 refuses
/// with INVALID_ARGUMENT (checked with ctypes on that driver: `real/topology-580.159.04.txt`),
/// as the mock does, and pynvml reports the refusal.
#[test]
fn topology_pynvml_calls_again_with_a_zero_count() {
    if std::env::var_os(CHILD_ENV).is_none() {
        for function in ["nvmlDeviceGetTopologyNearestGpus", "nvmlSystemGetTopologyGpuSet"] {
            assert_header_says(
                function,
                "count When zero, is set to the number of matching GPUs such that deviceArray can be malloc'd.",
            );
        }
        let record = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/differential/real/topology-580.159.04.txt");
        let record = std::fs::read_to_string(&record).expect("the record of the run on 580.159.04");
        for line in [
            "nearest level 0 probe(count 0, NULL): 0 count 0",
            "nearest level 0 count 0, zero-length non-NULL array: 2 count 0",
        ] {
            assert!(record.contains(line), "the driver's record has no {line:?}:\n{record}");
        }
        if have_pynvml() {
            let got = spy("a100", "n.nvmlDeviceGetTopologyNearestGpus(n.nvmlDeviceGetHandleByIndex(0), 0)");
            let nearest: Vec<&J> = got["calls"]
                .as_array()
                .expect("calls")
                .iter()
                .filter(|c| c["fn"] == "nvmlDeviceGetTopologyNearestGpus")
                .collect();
            assert_eq!(
                nearest.iter().map(|c| c["args"][3].clone()).collect::<Vec<_>>(),
                [json!("NULL"), json!("array[0]")],
                "pynvml probes, then passes a zero-length array: {got}"
            );
            assert_eq!(got["err"], json!(2), "and reports INVALID_ARGUMENT: {got}");
            // The same with the GPUs near a CPU, on the recording of an H200 (16 CPUs), whose
            // driver answered pynvml INVALID_ARGUMENT for CPU 63 (`crates/nvml-mock/tests/real/`).
            let got = spy("h200", "n.nvmlSystemGetTopologyGpuSet(63)");
            let set: Vec<&J> = got["calls"]
                .as_array()
                .expect("calls")
                .iter()
                .filter(|c| c["fn"] == "nvmlSystemGetTopologyGpuSet")
                .collect();
            assert_eq!(
                set.iter().map(|c| c["args"][2].clone()).collect::<Vec<_>>(),
                [json!("NULL"), json!("array[0]")],
                "pynvml probes, then passes a zero-length array: {got}"
            );
            assert_eq!(got["err"], json!(2), "and reports INVALID_ARGUMENT: {got}");
        }
    }
    if !in_child("proofs::topology_pynvml_calls_again_with_a_zero_count", &[("NVML_MOCK_PROFILE", "a100")]) {
        return;
    }
    let nvml = mock();
    assert_eq!(first(&nvml).topology_nearest_gpus(nvml::GpuTopologyLevel::INTERNAL).map(|v| v.len()), Ok(0));
}

/// nvmlDeviceGetVgpuTypeSupportedPlacements and ...CreatablePlacements on the older-driver
/// profiles: pynvml's answer is nvmlVgpuTypeGetMaxInstances' (it sizes the array with it, as
/// the header advises, and stops at its NOT_SUPPORTED); the placement function itself, which
/// those drivers predate, answers FUNCTION_NOT_FOUND, as nvmlkit (which size-queries it, as
/// the header also allows) reports.
#[test]
fn vgpu_placements_pynvml_reports_max_instances() {
    const PROFILES: [&str; 2] = ["a100-r525", "t4"];
    let functions = ["nvmlDeviceGetVgpuTypeSupportedPlacements", "nvmlDeviceGetVgpuTypeCreatablePlacements"];
    if std::env::var_os(CHILD_ENV).is_none() {
        assert_header_says(
            functions[0],
            "The required memory for the placementIds array must be allocated based on the maximum number of vGPU \
             type instances, which is retrievable through nvmlVgpuTypeGetMaxInstances().",
        );
        assert_header_says(
            functions[1],
            "Memory needed for the placementIds array should be allocated based on maximum instances of a vGPU type \
             which can be queried via nvmlVgpuTypeGetMaxInstances().",
        );
        for f in functions {
            assert_header_says(
                f,
                "If the provided count by the caller is insufficient, the function will return \
                 NVML_ERROR_INSUFFICIENT_SIZE along with the number of required entries in pPlacementList->count.",
            );
        }
        if have_pynvml() {
            for profile in PROFILES {
                for f in functions {
                    let wrapper = spy(profile, &format!("n.{f}(dev[0], 1)"));
                    assert_eq!(
                        wrapper,
                        json!({"calls": [{"fn": "nvmlVgpuTypeGetMaxInstances", "args": ["handle", 1, "ref"]}], "err": 3}),
                        "{profile}: pynvml's {f} reports nvmlVgpuTypeGetMaxInstances' NOT_SUPPORTED, never calling {f}"
                    );
                    let itself = spy(
                        profile,
                        &format!(
                            "n._nvmlGetFunctionPointer('{f}')(dev[0], 1, ctypes.byref(n.c_nvmlVgpuPlacementList_v2_t()))"
                        ),
                    );
                    assert_eq!(itself["ok"], json!(13), "{profile}: {f} itself answers FUNCTION_NOT_FOUND: {itself}");
                }
            }
        }
    }
    for profile in PROFILES {
        let name = "proofs::vgpu_placements_pynvml_reports_max_instances";
        if std::env::var_os(CHILD_ENV).is_none() {
            in_child(name, &[("NVML_MOCK_PROFILE", profile), ("NVML_DIFF_PROOF_PROFILE", profile)]);
            continue;
        }
        if std::env::var("NVML_DIFF_PROOF_PROFILE").as_deref() != Ok(profile) {
            continue;
        }
        let nvml = mock();
        let d = first(&nvml);
        let t = VgpuTypeId::from_id(&nvml, 1);
        assert_eq!(d.vgpu_type_max_instances(&t), Err(Error::NotSupported), "{profile}");
        let code = |r: Result<_, Error>| r.map_err(|e| e.code());
        assert_eq!(code(d.vgpu_type_supported_placements(&t, 0)), Err(FUNCTION_NOT_FOUND), "{profile}");
        assert_eq!(code(d.vgpu_type_creatable_placements(&t, 0)), Err(FUNCTION_NOT_FOUND), "{profile}");
    }
}

/// nvmlGpuInstanceGetVgpuTypeCreatablePlacements on a GPU instance of the `h100` profile's GPU 7:
/// pynvml sizes the array with nvmlVgpuTypeGetMaxInstancesPerGpuInstance (as the header
/// advises) and stops at its error, which driver 580.159.04 answers INVALID_ARGUMENT for every
/// type without a vGPU manager (`nvml-mock capture` on an H100; the profile replays it); the
/// function itself, which nvmlkit size-queries (the header's INSUFFICIENT_SIZE protocol),
/// answers NOT_SUPPORTED there.
#[test]
fn gpu_instance_vgpu_placements_pynvml_reports_max_instances() {
    let f = "nvmlGpuInstanceGetVgpuTypeCreatablePlacements";
    if std::env::var_os(CHILD_ENV).is_none() {
        assert_header_says(
            f,
            "Memory needed for the placementIds array should be allocated based on maximum instances of a vGPU type \
             per GPU instance which can be queried via nvmlVgpuTypeGetMaxInstancesPerGpuInstance().",
        );
        assert_header_says(
            f,
            "If the provided count by the caller is insufficient, the function will return \
             NVML_ERROR_INSUFFICIENT_SIZE along with the number of required entries",
        );
        if have_pynvml() {
            let got = spy(
                "h100",
                &format!("n.{f}(n.nvmlDeviceGetGpuInstanceById(dev[7], 1), n.c_nvmlVgpuCreatablePlacementInfo_v1_t())"),
            );
            let calls: Vec<&str> = got["calls"].as_array().unwrap().iter().filter_map(|c| c["fn"].as_str()).collect();
            assert_eq!(
                (calls.last().copied(), got["err"].clone()),
                (Some("nvmlVgpuTypeGetMaxInstancesPerGpuInstance"), json!(2)),
                "pynvml reports nvmlVgpuTypeGetMaxInstancesPerGpuInstance's INVALID_ARGUMENT: {got}"
            );
            assert!(!calls.contains(&f), "pynvml never calls {f}: {got}");
        }
    }
    let name = "proofs::gpu_instance_vgpu_placements_pynvml_reports_max_instances";
    if !in_child(name, &[("NVML_MOCK_PROFILE", "h100")]) {
        return;
    }
    let nvml = mock();
    let gi = nvml.device_by_index(7).and_then(|d| d.gpu_instance_by_id(1)).expect("GPU 7's GPU instance 1");
    let got = gi.vgpu_type_creatable_placements(&VgpuTypeId::from_id(&nvml, 1));
    assert_eq!(got.map_err(|e| e.code()), Err(3), "NOT_SUPPORTED, from the function itself");
}

/// nvmlDeviceGetPlatformInfo: nvml.h declares `unsigned char ibGuid[16]` and
/// `unsigned char chassisSerialNumber[16]`; pynvml's structure declares them `c_char` and
/// decodes them as UTF-8 text, which fails on a binary GUID. The dump therefore reads their
/// bytes (`BYTE_ARRAYS` in pynvml_dump.py), which are nvmlkit's.
#[test]
fn platform_info_pynvml_reads_bytes_as_text() {
    let call =
        "(lambda s: (n.nvmlDeviceGetPlatformInfo(dev[0], ctypes.byref(s)), s.ibGuid))(n.c_nvmlPlatformInfo_v2_t())";
    let raw = "(lambda s: (n.nvmlDeviceGetPlatformInfo(dev[0], ctypes.byref(s)), \
               list(ctypes.string_at(ctypes.addressof(s) + type(s).ibGuid.offset, 16))))(n.c_nvmlPlatformInfo_v2_t())";
    let mut pynvml_bytes = J::Null;
    if std::env::var_os(CHILD_ENV).is_none() {
        let text = std::fs::read_to_string(default_header()).expect("the vendored header");
        let end = text.find("} nvmlPlatformInfo_v2_t;").expect("nvmlPlatformInfo_v2_t");
        let record = &text[text[..end].rfind("typedef struct").expect("the record's start")..end];
        assert!(record.contains("unsigned char ibGuid[16];"), "{record}");
        assert!(record.contains("unsigned char chassisSerialNumber[16];"), "{record}");
        if !have_pynvml() {
            return;
        }
        let decoded = spy("gb200", call);
        assert!(
            decoded["pyerr"].as_str().is_some_and(|e| e.starts_with("UnicodeDecodeError")),
            "pynvml reads gb200's ibGuid as text: {decoded}"
        );
        let got = spy("gb200", raw);
        assert_eq!(got["ok"][0], json!(0), "{got}");
        pynvml_bytes = got["ok"][1].clone();
        assert!(pynvml_bytes.as_array().is_some_and(|b| b.len() == 16 && b[0] == json!(0x94)), "{got}");
    }
    let bytes = pynvml_bytes.to_string();
    if !in_child(
        "proofs::platform_info_pynvml_reads_bytes_as_text",
        &[("NVML_MOCK_PROFILE", "gb200"), ("NVML_DIFF_PROOF_BYTES", &bytes)],
    ) {
        return;
    }
    let nvml = mock();
    let info = first(&nvml).platform_info().expect("gb200's platform info");
    let expected: J = serde_json::from_str(&std::env::var("NVML_DIFF_PROOF_BYTES").expect("the bytes")).expect("JSON");
    assert_eq!(json!(info.ib_guid), expected, "nvmlkit's ibGuid is the bytes pynvml's record holds");
}
