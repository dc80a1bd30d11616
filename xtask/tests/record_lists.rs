//! Which functions of the default header the plan reads as a list inside a versioned record
//! (`Role::RecordList`), and why the others of that look are not: the reading's own decisions,
//! which the goldens show for one fixture function only.

mod common;

use common::{fixture, scratch};
use xtask::diag::Diagnostics;
use xtask::pipeline::{bindings, Inputs};
use xtask::plan::{plan, Call, ListRecord, Plan, Role, Val};
use xtask::workspace::project_root;

fn the_plan() -> Plan {
    let b = bindings(&project_root(), &Inputs::default()).expect("the default header's bindings");
    let mut d = Diagnostics::new("plan");
    plan(&b, &mut d)
}

fn read<'p>(plan: &'p Plan, f: &str) -> &'p Result<Call, String> {
    plan.functions.get(f).unwrap_or_else(|| panic!("{f} is not read"))
}

/// The list of `f`'s record, if it reads one.
fn list<'p>(plan: &'p Plan, f: &str) -> Option<&'p ListRecord> {
    read(plan, f).as_ref().ok()?.params.iter().find_map(|p| match &p.role {
        Role::RecordList(l) => Some(l),
        _ => None,
    })
}

#[test]
fn lists_inside_versioned_records_are_read_with_their_inputs() {
    let plan = the_plan();
    let l = list(&plan, "nvmlDeviceGetRunningProcessDetailList").expect("a record list");
    assert_eq!(
        (l.record.as_str(), l.version.as_deref(), l.count.as_str(), l.array.as_str()),
        ("nvmlProcessDetailList_v1_t", Some("nvmlProcessDetailList_v1"), "numProcArrayEntries", "procArray")
    );
    assert_eq!(l.elem, Val::Record("nvmlProcessDetail_v1_t".into()));
    // "Process mode, One of \ref nvmlProcessMode_t": the enum, an input by its `inputs` rule.
    assert_eq!(l.inputs, [("mode".to_string(), Val::Enum("nvmlProcessMode_enum".into()))]);

    let l = list(&plan, "nvmlGpuInstanceGetActiveVgpus").expect("a record list");
    assert_eq!((l.count.as_str(), l.array.as_str()), ("vgpuCount", "vgpuInstances"));
    assert_eq!(l.elem, Val::Handle("nvmlVgpuInstance_t".into()));
    assert!(l.inputs.is_empty());

    let l = list(&plan, "nvmlDeviceGetProcessesUtilizationInfo").expect("a record list");
    assert_eq!(l.inputs, [("lastSeenTimeStamp".to_string(), Val::Scalar(xtask::model::Ty::ULongLong))]);

    // Each is a generated method of its handle, under its former hand-written name.
    for (f, method) in [
        ("nvmlDeviceGetRunningProcessDetailList", "running_process_detail_list"),
        ("nvmlDeviceGetProcessesUtilizationInfo", "processes_utilization_info"),
        ("nvmlDeviceGetVgpuProcessesUtilizationInfo", "vgpu_processes_utilization_info"),
        ("nvmlDeviceGetSramUniqueUncorrectedEccErrorCounts", "sram_unique_uncorrected_ecc_error_counts"),
        ("nvmlGpuInstanceGetActiveVgpus", "active_vgpus"),
        ("nvmlGpuInstanceGetCreatableVgpus", "creatable_vgpus"),
        ("nvmlDeviceGetVgpuTypeSupportedPlacements", "vgpu_type_supported_placements"),
        ("nvmlDeviceGetVgpuTypeCreatablePlacements", "vgpu_type_creatable_placements"),
        ("nvmlGpuInstanceGetVgpuTypeCreatablePlacements", "vgpu_type_creatable_placements"),
        ("nvmlDeviceGetVgpuInstancesUtilizationInfo", "vgpu_instances_utilization_info"),
        ("nvmlEventSetGetContextData_v1", "context_data"),
        ("nvmlSystemGetCPER_v1", "cper_next"),
    ] {
        let key = plan.wrapped_by.get(f).unwrap_or_else(|| panic!("{f} has no generated method"));
        let m = plan.method(key).expect("the method");
        assert_eq!((m.name.as_str(), m.shape), (method, "list inside a record"), "{f}");
    }
}

/// The fields beside a list that the reading takes: an output returned with it, an output
/// that types its elements, older layouts of the record, a record without a version, bytes.
#[test]
fn lists_beside_outputs_older_layouts_and_bytes_are_read() {
    let plan = the_plan();
    let u32_ = Val::Scalar(xtask::model::Ty::UInt);
    // "OUT: The number of slots occupied by the vGPU type", beside "IN: The vGPU mode"; the
    // header's nvmlVgpuPlacementList_v1_t is the layout an older driver takes.
    let l = list(&plan, "nvmlDeviceGetVgpuTypeSupportedPlacements").expect("a record list");
    assert_eq!((l.count.as_str(), l.array.as_str()), ("count", "placementIds"));
    assert_eq!(l.inputs, [("mode".to_string(), u32_.clone())]);
    assert_eq!(l.outputs, [("placementSize".to_string(), u32_.clone())]);
    assert_eq!(l.older, [("nvmlVgpuPlacementList_v1_t".to_string(), "nvmlVgpuPlacementList_v1".to_string())]);
    // The placements of both owners return one struct, named by the `results` rules.
    let returns = |f: &str| plan.method(&plan.wrapped_by[f]).and_then(|m| m.returns.clone());
    for f in [
        "nvmlDeviceGetVgpuTypeSupportedPlacements",
        "nvmlDeviceGetVgpuTypeCreatablePlacements",
        "nvmlGpuInstanceGetVgpuTypeCreatablePlacements",
    ] {
        assert_eq!(returns(f).as_deref(), Some("VgpuPlacements"), "{f}");
    }
    assert_eq!(plan.results["VgpuPlacements"].outputs, ["placementSize", "placementIds"]);

    let l = list(&plan, "nvmlGpuInstanceGetVgpuTypeCreatablePlacements").expect("a record list");
    assert_eq!(l.inputs, [("vgpuTypeId".to_string(), Val::Handle("nvmlVgpuTypeId_t".into()))]);
    assert!(l.older.is_empty());

    // `sampleValType` types the samples (a `tagged_values` rule): read, not returned.
    let l = list(&plan, "nvmlDeviceGetVgpuInstancesUtilizationInfo").expect("a record list");
    assert_eq!(l.typed_by.as_deref(), Some("sampleValType"));
    assert!(l.outputs.is_empty());
    assert_eq!(returns("nvmlDeviceGetVgpuInstancesUtilizationInfo"), None);

    // An in/out field beside the list, by the hand-written type of its `field_types` rule; "0
    // means no (more) records": an empty answer is `None`.
    let l = list(&plan, "nvmlSystemGetCPER_v1").expect("a record list");
    assert_eq!(l.in_out, [("cursor".to_string(), "CperCursor".to_string())]);
    assert!(l.none_when_empty && l.version.is_none());
    assert_eq!(plan.method(&plan.wrapped_by["nvmlSystemGetCPER_v1"]).map(|m| m.name.as_str()), Some("cper_next"));

    // No `version`, a `void *` its `[in,out]` size counts in bytes.
    let l = list(&plan, "nvmlEventSetGetContextData_v1").expect("a record list");
    assert_eq!((l.version.as_deref(), l.bytes, l.count.as_str()), (None, true, "dataSize"));
    assert_eq!(l.inputs, [("index".to_string(), u32_)]);
}

#[test]
fn records_with_more_than_a_list_and_directed_fields_are_not_lists() {
    let plan = the_plan();
    let why = |f: &str| read(&plan, f).as_ref().err().cloned().unwrap_or_else(|| panic!("{f} was read"));
    // A count the comment calls an output alone (`numEvent`, beside the `dataSize` capacity),
    // an unversioned record whose count no comment calls in/out (the PRM counters the caller
    // fills): no record list at all.
    for f in ["nvmlSystemEventSetWait", "nvmlDeviceReadPRMCounters_v1"] {
        assert!(list(&plan, f).is_none(), "{f} read as a record list");
    }
    // The event wait's record is then one that holds a pointer, which no role reads.
    assert!(why("nvmlSystemEventSetWait").contains("holds pointers or callbacks"));
}

/// The basic fixture with one more record that holds a list, and `extra` fields in it.
fn fixture_with(name: &str, extra: &str) -> Plan {
    let dir = scratch(name);
    let header = std::fs::read_to_string(fixture("basic").join("input.h")).expect("the fixture's header");
    let added = format!(
        "typedef struct\n{{\n    unsigned int version; //!< IN: The version number of this struct\n{extra}    unsigned int sampleCount; //!< IN/OUT: Caller-supplied array size, and the number written\n    unsigned int *samples; //!< OUT: The array (allocated by caller) of the samples\n}} nvmlSampleList_v1_t;\n#define nvmlSampleList_v1 NVML_STRUCT_VERSION(SampleList, 1)\n\n/**\n * Samples.\n *\n * @param device  The device\n * @param list    Reference in which to return the samples\n */\nnvmlReturn_t DECLDIR nvmlDeviceGetSampleList(nvmlDevice_t device, nvmlSampleList_v1_t *list);\n\n#endif\n"
    );
    let at = header.rfind("#endif").expect("the header's guard");
    std::fs::write(dir.join("input.h"), format!("{}{added}", &header[..at])).expect("write the header");
    for f in ["rules.yaml", "function-history.yaml", "mock.yaml"] {
        std::fs::copy(fixture("basic").join(f), dir.join(f)).expect("copy the fixture's rules");
    }
    let inputs = Inputs {
        header: Some(dir.join("input.h").display().to_string()),
        rules: Some(dir.join("rules.yaml")),
        verbose: false,
        keep_from: None,
    };
    let b = bindings(&project_root(), &inputs).expect("the fixture's bindings");
    plan(&b, &mut Diagnostics::new("plan"))
}

/// The two ways a record with a list is refused: an in/out field beside the list, and a field
/// no comment or rule directs; an input or an output beside it is taken.
#[test]
fn a_list_beside_an_in_out_or_an_undirected_field_is_not_read() {
    let plan = fixture_with("list_beside_in_out", "    unsigned int slots; //!< IN/OUT: The slots taken\n");
    let why = read(&plan, "nvmlDeviceGetSampleList").as_ref().expect_err("not read");
    assert!(why.contains("`slots` is an in/out field beside it"), "{why}");

    let plan = fixture_with("list_beside_output", "    unsigned int slots; //!< OUT: The slots taken\n");
    let l = list(&plan, "nvmlDeviceGetSampleList").expect("a record list");
    assert_eq!(l.outputs, [("slots".to_string(), Val::Scalar(xtask::model::Ty::UInt))]);
    assert!(l.inputs.is_empty());

    let plan = fixture_with("list_beside_undirected", "    unsigned int kind; //!< The kind of samples\n");
    let why = read(&plan, "nvmlDeviceGetSampleList").as_ref().expect_err("not read");
    assert!(why.contains("the direction of `kind` is not documented"), "{why}");

    let plan = fixture_with("list_beside_input", "    unsigned int kind; //!< IN: The kind of samples\n");
    let l = list(&plan, "nvmlDeviceGetSampleList").expect("a record list");
    assert_eq!(l.inputs, [("kind".to_string(), Val::Scalar(xtask::model::Ty::UInt))]);
    assert_eq!(l.elem, Val::Scalar(xtask::model::Ty::UInt));
}
