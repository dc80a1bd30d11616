//! The safe crate against a library written from nvml.h's text, not from the generator's
//! model: each function below does what its comment in the header says (quoted), so a method
//! that reads the header wrong fails here even though the mock, generated from the same model
//! as the method, would agree with it. Each test runs in a child process: a reading that
//! overwrites memory crashes the child and fails the test, instead of corrupting the others.
//!
//! One test per defect the readings had: parallel arrays that share a count, scalars that look
//! like a count and an array, one value read as an array beside the count's (the vGPU samples'
//! value type), a value to set read as one to get, a retry that reused a
//! capacity the library had overwritten, counts no list has, a length in bytes, counts whose
//! NULL probe the header refuses, bits spelled under another prefix, and handles whose objects
//! are freed or destroyed.

mod common;

use common::{counter, library_in_child};
use nvml::sys;
use nvml::*;

/// Compiler arguments: the vendored nvml.h, which the library includes.
fn header_args() -> Vec<String> {
    let headers =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../nvml-headers").join(sys::HEADER_VERSION);
    vec![format!("-I{}", headers.display())]
}

/// The library: one device and one S-class unit with 40 devices.
const LIBRARY: &str = r#"
#define NVML_NO_UNVERSIONED_FUNC_DEFS
#include <stddef.h>
#include <string.h>
#include "nvml.h"

static int device, unit, unit_devices[40], gpu_instance, event_sets[8], gpm_samples[8], system_event_sets[8];
static unsigned int event_set_frees, gpm_sample_frees, system_event_set_frees, destroys, shutdowns, double_frees;
static unsigned char freed[3][8];

nvmlReturn_t nvmlInit_v2(void) { return NVML_SUCCESS; }
nvmlReturn_t nvmlShutdown(void) { shutdowns++; return NVML_SUCCESS; }
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d) {
    if (i != 0 || !d) return NVML_ERROR_INVALID_ARGUMENT;
    *d = (nvmlDevice_t)&device;
    return NVML_SUCCESS;
}
#define DEVICE(d) if ((d) != (nvmlDevice_t)&device) return NVML_ERROR_INVALID_ARGUMENT

/* "pageCount: Reference in which to provide the addresses buffer size, and to return the
 * number of retired pages that match cause. Set to 0 to query the size without allocating an
 * addresses buffer"; "addresses: Buffer to write the page addresses into"; "timestamps: Buffer
 * to write the timestamps of page retirement"; "NVML_ERROR_INSUFFICIENT_SIZE if pageCount
 * indicates the buffer is not large enough ... pageCount is set to the needed size." */
#define PAGES 3
nvmlReturn_t nvmlDeviceGetRetiredPages_v2(nvmlDevice_t d, nvmlPageRetirementCause_t cause, unsigned int *pageCount,
                                          unsigned long long *addresses, unsigned long long *timestamps) {
    unsigned int capacity, i;
    DEVICE(d);
    if (!pageCount) return NVML_ERROR_INVALID_ARGUMENT;
    capacity = *pageCount;
    *pageCount = PAGES;
    if (capacity < PAGES) return NVML_ERROR_INSUFFICIENT_SIZE;
    if (!addresses || !timestamps) return NVML_ERROR_INVALID_ARGUMENT;
    for (i = 0; i < PAGES; i++) {
        addresses[i] = 0x1000ULL * (i + 1) + cause;
        timestamps[i] = 1700000000ULL + i;
    }
    return NVML_SUCCESS;
}

/* "sessionCount: Reference to an unsigned int for count of active encoder sessions";
 * "averageFps: Reference to an unsigned int for trailing average FPS of all active sessions";
 * "averageLatency: Reference to an unsigned int for encode latency in microseconds";
 * "NVML_ERROR_INVALID_ARGUMENT if sessionCount, or device or averageFps, or averageLatency is NULL" */
nvmlReturn_t nvmlDeviceGetEncoderStats(nvmlDevice_t d, unsigned int *sessionCount, unsigned int *averageFps, unsigned int *averageLatency) {
    DEVICE(d);
    if (!sessionCount || !averageFps || !averageLatency) return NVML_ERROR_INVALID_ARGUMENT;
    *sessionCount = 2;
    *averageFps = 60;
    *averageLatency = 1500;
    return NVML_SUCCESS;
}

/* "size: Size of the supplied pstates array in bytes"; "If the number of supported P-States is
 * fewer than the size of the array supplied missing elements would contain NVML_PSTATE_UNKNOWN";
 * "NVML_ERROR_INSUFFICIENT_SIZE if the the container supplied was not large enough". */
nvmlReturn_t nvmlDeviceGetSupportedPerformanceStates(nvmlDevice_t d, nvmlPstates_t *pstates, unsigned int size) {
    static const nvmlPstates_t supported[] = {NVML_PSTATE_0, NVML_PSTATE_2, NVML_PSTATE_8};
    unsigned int n = size / sizeof(nvmlPstates_t), i;
    DEVICE(d);
    if (!pstates) return NVML_ERROR_INVALID_ARGUMENT;
    if (n < 3) return NVML_ERROR_INSUFFICIENT_SIZE;
    for (i = 0; i < n; i++) pstates[i] = i < 3 ? supported[i] : NVML_PSTATE_UNKNOWN;
    return NVML_SUCCESS;
}

/* "hwbcCount: Size of hwbcEntries array"; "NVML_ERROR_INVALID_ARGUMENT if either hwbcCount or
 * hwbcEntries is NULL"; "NVML_ERROR_INSUFFICIENT_SIZE if hwbcCount indicates that the
 * hwbcEntries array is too small". */
nvmlReturn_t nvmlSystemGetHicVersion(unsigned int *hwbcCount, nvmlHwbcEntry_t *hwbcEntries) {
    unsigned int capacity, i;
    if (!hwbcCount || !hwbcEntries) return NVML_ERROR_INVALID_ARGUMENT;
    capacity = *hwbcCount;
    *hwbcCount = 2;
    if (capacity < 2) return NVML_ERROR_INSUFFICIENT_SIZE;
    for (i = 0; i < 2; i++) {
        hwbcEntries[i].hwbcId = 10 + i;
        strcpy(hwbcEntries[i].firmwareVersion, i ? "2.0.1" : "1.4.7");
    }
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlUnitGetHandleByIndex(unsigned int index, nvmlUnit_t *u) {
    if (index != 0 || !u) return NVML_ERROR_INVALID_ARGUMENT;
    *u = (nvmlUnit_t)&unit;
    return NVML_SUCCESS;
}
/* "deviceCount: Reference in which to provide the devices array size, and to return the number
 * of attached GPU devices"; "NVML_ERROR_INSUFFICIENT_SIZE if deviceCount indicates that the
 * devices array is too small"; "NVML_ERROR_INVALID_ARGUMENT if unit is invalid, either of
 * deviceCount or devices is NULL". */
nvmlReturn_t nvmlUnitGetDevices(nvmlUnit_t u, unsigned int *deviceCount, nvmlDevice_t *devices) {
    unsigned int capacity, i;
    if (u != (nvmlUnit_t)&unit || !deviceCount || !devices) return NVML_ERROR_INVALID_ARGUMENT;
    capacity = *deviceCount;
    *deviceCount = 40;
    if (capacity < 40) return NVML_ERROR_INSUFFICIENT_SIZE;
    for (i = 0; i < 40; i++) devices[i] = (nvmlDevice_t)&unit_devices[i];
    return NVML_SUCCESS;
}

/* A driver that knows nvmlVgpuPlacementList_t only for the size query: its fill answers that
 * the layout changed, after writing into count how many entries it would have needed in it.
 * The v1 layout holds 16 placements: "count: in: the capacity of placementIds; out: the
 * number of placement ids"; it writes no more than the capacity allows. */
nvmlReturn_t nvmlDeviceGetVgpuTypeSupportedPlacements(nvmlDevice_t d, nvmlVgpuTypeId_t t, nvmlVgpuPlacementList_t *p) {
    nvmlVgpuPlacementList_v1_t *v1 = (nvmlVgpuPlacementList_v1_t *)p;
    unsigned int capacity, i;
    DEVICE(d);
    if (!p) return NVML_ERROR_INVALID_ARGUMENT;
    if (p->version == nvmlVgpuPlacementList_v2) {
        if (!p->placementIds) { p->count = 4; return NVML_SUCCESS; }
        p->count = 1000;
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    }
    if (v1->version != nvmlVgpuPlacementList_v1) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    capacity = v1->count;
    v1->count = 16;
    v1->placementSize = 1;
    if (!v1->placementIds || capacity < 16) return NVML_ERROR_INSUFFICIENT_SIZE;
    for (i = 0; i < 16; i++) v1->placementIds[i] = i;
    return NVML_SUCCESS;
}

/* Corrupted answers: counts no GPU has. */
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned int *infoCount, nvmlProcessInfo_t *infos) {
    DEVICE(d);
    *infoCount = 0xFFFFFFFFu;
    return NVML_ERROR_INSUFFICIENT_SIZE;
}
nvmlReturn_t nvmlVgpuInstanceGetMetadata(nvmlVgpuInstance_t v, nvmlVgpuMetadata_t *m, unsigned int *bufferSize) {
    *bufferSize = 0xFFFFFFFFu;
    return NVML_ERROR_INSUFFICIENT_SIZE;
}
nvmlReturn_t nvmlDeviceGetNvLinkTelemetrySamples_v1(nvmlDevice_t d, nvmlNvlinkTelemetrySamples_v1_t *batch) {
    unsigned int i;
    DEVICE(d);
    for (i = 0; i < batch->telemetryCount; i++) {
        batch->telemetrySamples[i].sampleCount = 0xFFFFFFFFu;
        batch->telemetrySamples[i].nvmlReturn = NVML_SUCCESS;
    }
    return NVML_SUCCESS;
}

/* Objects the process allocates, and the functions that free them; a second free of the same
 * object is counted. */
static nvmlReturn_t take(int *pool, unsigned char *freed_of, void **out) {
    static unsigned int next;
    unsigned int i = next++ % 8;
    freed_of[i] = 0;
    *out = &pool[i];
    return NVML_SUCCESS;
}
static nvmlReturn_t give_back(int *pool, unsigned char *freed_of, void *h, unsigned int *frees) {
    long i = (int *)h - pool;
    if (i < 0 || i >= 8) return NVML_ERROR_INVALID_ARGUMENT;
    if (freed_of[i]) { double_frees++; return NVML_ERROR_INVALID_ARGUMENT; }
    freed_of[i] = 1;
    (*frees)++;
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set) { return take(event_sets, freed[0], (void **)set); }
nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set) { return give_back(event_sets, freed[0], set, &event_set_frees); }
nvmlReturn_t nvmlGpmSampleAlloc(nvmlGpmSample_t *s) { return take(gpm_samples, freed[1], (void **)s); }
nvmlReturn_t nvmlGpmSampleFree(nvmlGpmSample_t s) { return give_back(gpm_samples, freed[1], s, &gpm_sample_frees); }
nvmlReturn_t nvmlSystemEventSetCreate(nvmlSystemEventSetCreateRequest_t *r) {
    if (!r || r->version != nvmlSystemEventSetCreateRequest_v1) return NVML_ERROR_INVALID_ARGUMENT;
    return take(system_event_sets, freed[2], (void **)&r->set);
}
nvmlReturn_t nvmlSystemEventSetFree(nvmlSystemEventSetFreeRequest_t *r) {
    if (!r || r->version != nvmlSystemEventSetFreeRequest_v1) return NVML_ERROR_INVALID_ARGUMENT;
    return give_back(system_event_sets, freed[2], r->set, &system_event_set_frees);
}
/* A GPU instance outlives the process: only nvmlGpuInstanceDestroy destroys it. */
nvmlReturn_t nvmlDeviceGetGpuInstanceById(nvmlDevice_t d, unsigned int id, nvmlGpuInstance_t *gi) {
    DEVICE(d);
    *gi = (nvmlGpuInstance_t)&gpu_instance;
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlGpuInstanceDestroy(nvmlGpuInstance_t gi) {
    if (gi != (nvmlGpuInstance_t)&gpu_instance) return NVML_ERROR_INVALID_ARGUMENT;
    destroys++;
    return NVML_SUCCESS;
}

/* "temp: Reference which hold the value to be set": an input behind a pointer. */
static int threshold = -1;
nvmlReturn_t nvmlDeviceSetTemperatureThreshold(nvmlDevice_t d, nvmlTemperatureThresholds_t t, int *temp) {
    DEVICE(d);
    if (!temp || t != NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_CURR) return NVML_ERROR_INVALID_ARGUMENT;
    threshold = *temp;
    return NVML_SUCCESS;
}
unsigned int stub_threshold(void) { return (unsigned int)threshold; }

/* "The function sets the caller-supplied sampleValType to NVML_VALUE_TYPE_UNSIGNED_INT to
 * indicate the returned value type"; "first determine the size of buffer required ... by
 * invoking the function with utilizationSamples set to NULL. The function will return
 * NVML_ERROR_INSUFFICIENT_SIZE, with the current vGPU instance count in
 * vgpuInstanceSamplesCount". The type is one value: what lies after it is left as found. */
#define VGPUS 3
nvmlReturn_t nvmlDeviceGetVgpuUtilization(nvmlDevice_t d, unsigned long long lastSeenTimeStamp,
                                          nvmlValueType_t *sampleValType, unsigned int *vgpuInstanceSamplesCount,
                                          nvmlVgpuInstanceUtilizationSample_t *utilizationSamples) {
    unsigned int capacity, i;
    DEVICE(d);
    if (!vgpuInstanceSamplesCount || !sampleValType) return NVML_ERROR_INVALID_ARGUMENT;
    capacity = *vgpuInstanceSamplesCount;
    *vgpuInstanceSamplesCount = VGPUS;
    if (!utilizationSamples) return NVML_ERROR_INSUFFICIENT_SIZE;
    if (capacity == 0) return NVML_ERROR_INVALID_ARGUMENT;
    if (capacity < VGPUS) return NVML_ERROR_INSUFFICIENT_SIZE;
    *sampleValType = NVML_VALUE_TYPE_UNSIGNED_INT;
    for (i = 0; i < VGPUS; i++) {
        memset(&utilizationSamples[i], 0, sizeof utilizationSamples[i]);
        utilizationSamples[i].vgpuInstance = 7 + i;
        utilizationSamples[i].timeStamp = lastSeenTimeStamp + 1 + i;
        utilizationSamples[i].smUtil.uiVal = 10 * (i + 1);
    }
    return NVML_SUCCESS;
}

unsigned int stub_event_set_frees(void) { return event_set_frees; }
unsigned int stub_gpm_sample_frees(void) { return gpm_sample_frees; }
unsigned int stub_system_event_set_frees(void) { return system_event_set_frees; }
unsigned int stub_double_frees(void) { return double_frees; }
unsigned int stub_destroys(void) { return destroys; }
unsigned int stub_shutdowns(void) { return shutdowns; }
"#;

fn library(name: &str) -> Option<Nvml> {
    library_in_child(name, LIBRARY, &header_args())
}

#[test]
fn retired_pages_fill_both_arrays_of_the_count() {
    let Some(nvml) = library("retired_pages_fill_both_arrays_of_the_count") else { return };
    let d = nvml.device_by_index(0).unwrap();
    let cause = PageRetirementCause(sys::NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR);
    let RetiredPagesV2 { addresses, timestamps } = d.retired_pages_v2(cause).expect("three pages");
    let c = u64::from(sys::NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR);
    assert_eq!(addresses, [0x1000 + c, 0x2000 + c, 0x3000 + c]);
    assert_eq!(timestamps, [1_700_000_000, 1_700_000_001, 1_700_000_002], "one timestamp per page");
}

#[test]
fn vgpu_utilization_has_one_value_type_for_all_samples() {
    let Some(nvml) = library("vgpu_utilization_has_one_value_type_for_all_samples") else { return };
    let d = nvml.device_by_index(0).unwrap();
    let VgpuUtilization { sample_val_type: ty, utilization_samples: samples } =
        d.vgpu_utilization(100).expect("three samples");
    assert_eq!(ty, ValueType(sys::NVML_VALUE_TYPE_UNSIGNED_INT), "one type, for every sample");
    let read: Vec<(u32, u64, Value)> = samples.iter().map(|s| (s.vgpu_instance, s.time_stamp, s.sm_util)).collect();
    assert_eq!(
        read,
        [(7, 101, Value::UnsignedInt(10)), (8, 102, Value::UnsignedInt(20)), (9, 103, Value::UnsignedInt(30))]
    );
}

#[test]
fn encoder_stats_are_three_values() {
    let Some(nvml) = library("encoder_stats_are_three_values") else { return };
    let d = nvml.device_by_index(0).unwrap();
    assert_eq!(
        d.encoder_stats(),
        Ok(EncoderStats { session_count: 2, average_fps: 60, average_latency: 1500 }),
        "(session count, average FPS, average latency)"
    );
}

#[test]
fn supported_performance_states_size_the_array_in_bytes() {
    let Some(nvml) = library("supported_performance_states_size_the_array_in_bytes") else { return };
    let d = nvml.device_by_index(0).unwrap();
    let states = d.supported_performance_states().expect("the states");
    assert_eq!(
        states,
        [Pstates(sys::NVML_PSTATE_0), Pstates(sys::NVML_PSTATE_2), Pstates(sys::NVML_PSTATE_8)],
        "unused entries dropped"
    );
}

#[test]
fn a_value_to_set_is_sent() {
    let Some(nvml) = library("a_value_to_set_is_sent") else { return };
    let d = nvml.device_by_index(0).unwrap();
    let acoustic = TemperatureThresholds(sys::NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_CURR);
    assert_eq!(d.set_temperature_threshold(acoustic, 83), Ok(()));
    assert_eq!(counter(nvml.lib(), "stub_threshold"), 83, "the library received the value to set");
}

#[test]
fn lists_whose_null_probe_the_header_refuses_are_fetched_without_one() {
    let Some(nvml) = library("lists_whose_null_probe_the_header_refuses_are_fetched_without_one") else { return };
    let hics = nvml.hic_version().expect("the HICs");
    let got: Vec<(u32, &str)> = hics.iter().map(|h| (h.hwbc_id, h.firmware_version.as_str())).collect();
    assert_eq!(got, [(10, "1.4.7"), (11, "2.0.1")]);
    // 40 devices: more than the first capacity, so the list grows to what the library asks.
    let unit = nvml.unit_by_index(0).unwrap();
    let devices = unit.devices().expect("the unit's devices");
    assert_eq!(devices.len(), 40);
    let distinct: std::collections::BTreeSet<usize> = devices.iter().map(|d| d.as_raw() as usize).collect();
    assert_eq!(distinct.len(), 40, "each device once");
}

#[test]
fn a_version_retry_passes_the_capacity_it_allocated() {
    let Some(nvml) = library("a_version_retry_passes_the_capacity_it_allocated") else { return };
    let d = nvml.device_by_index(0).unwrap();
    let t = VgpuTypeId::from_id(&nvml, 5);
    let p =
        d.vgpu_type_supported_placements(&t, sys::NVML_VGPU_PGPU_HETEROGENEOUS_MODE as u32).expect("the v1 placements");
    assert_eq!(p.placement_ids, (0..16).collect::<Vec<u32>>());
    assert_eq!(p.placement_size, 1);
}

#[test]
fn counts_no_list_has_are_errors() {
    let Some(nvml) = library("counts_no_list_has_are_errors") else { return };
    let d = nvml.device_by_index(0).unwrap();
    assert!(matches!(d.compute_running_processes(), Err(Error::Implausible(_))), "a process count of 0xFFFFFFFF");
    let v = VgpuInstance::from_id(&nvml, 1);
    assert!(matches!(v.metadata(), Err(Error::Implausible(_))), "a metadata size of 0xFFFFFFFF bytes");
    let request = NvlinkTelemetryRequest { link_id: 0, sample_type: NvlinkTelemetrySampleType(0) };
    assert!(matches!(d.nvlink_telemetry_samples(&[request]), Err(Error::Implausible(_))), "0xFFFFFFFF samples");
    let e = d.compute_running_processes().unwrap_err();
    assert_eq!(e.code(), sys::NVML_ERROR_UNKNOWN);
    assert!(e.to_string().starts_with("an implausible answer from the library"), "{e}");
}

#[test]
fn owned_sets_and_samples_are_freed_once() {
    let Some(nvml) = library("owned_sets_and_samples_are_freed_once") else { return };
    let frees = |what: &str| counter(nvml.lib(), &format!("stub_{what}_frees"));
    // Dropped: freed.
    drop(nvml.event_set_create().unwrap());
    assert_eq!(frees("event_set"), 1);
    // Freed explicitly: the library's answer, and nothing more on drop.
    assert_eq!(nvml.event_set_create().unwrap().free(), Ok(()));
    assert_eq!(frees("event_set"), 2);
    // Owned: still freed once, when the owned handle goes.
    let owned: EventSet<'static> = nvml.event_set_create().unwrap().into_owned();
    assert_eq!(frees("event_set"), 2);
    drop(owned);
    assert_eq!(frees("event_set"), 3);
    drop(nvml.gpm_sample_alloc().unwrap());
    assert_eq!(nvml.gpm_sample_alloc().unwrap().free(), Ok(()));
    assert_eq!(frees("gpm_sample"), 2);
    drop(nvml.system_event_set_create().unwrap());
    assert_eq!(nvml.system_event_set_create().unwrap().free(), Ok(()));
    assert_eq!(frees("system_event_set"), 2);
    assert_eq!(counter(nvml.lib(), "stub_double_frees"), 0);
}

#[test]
fn gpu_instances_are_destroyed_only_on_request() {
    let Some(nvml) = library("gpu_instances_are_destroyed_only_on_request") else { return };
    let d = nvml.device_by_index(0).unwrap();
    drop(d.gpu_instance_by_id(1).unwrap());
    assert_eq!(counter(nvml.lib(), "stub_destroys"), 0, "dropping a handle leaves the instance");
    assert_eq!(d.gpu_instance_by_id(1).unwrap().destroy(), Ok(()));
    assert_eq!(counter(nvml.lib(), "stub_destroys"), 1);
}

#[test]
fn shutdown_answers_for_the_last_user() {
    let Some(nvml) = library("shutdown_answers_for_the_last_user") else { return };
    let other = nvml.clone();
    assert_eq!(nvml.shutdown(), Err(Error::InUse), "a clone is alive");
    let lib = nvml_sys::NvmlLib::open_path(std::env::var(common::STUB_ENV).unwrap()).unwrap();
    assert_eq!(counter(&lib, "stub_shutdowns"), 0);
    assert_eq!(other.shutdown(), Ok(()), "the last user");
    assert_eq!(counter(&lib, "stub_shutdowns"), 1, "once, and not again on drop");
}

/// The header's clock event reason bits, from its text: every `#define nvmlClocksEventReason*`
/// and `nvmlClocksThrottleReason*` with a literal value is a named bit of the flags type.
#[test]
fn every_clock_event_reason_bit_of_the_header_is_named() {
    let header = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../nvml-headers")
        .join(sys::HEADER_VERSION)
        .join("nvml.h");
    let text = std::fs::read_to_string(header).unwrap();
    let mut bits = Vec::new();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        if words.next() != Some("#define") {
            continue;
        }
        let (Some(name), Some(value)) = (words.next(), words.next()) else { continue };
        if !(name.starts_with("nvmlClocksEventReason") || name.starts_with("nvmlClocksThrottleReason")) {
            continue;
        }
        let Some(hex) = value.strip_prefix("0x") else { continue };
        let v = u64::from_str_radix(hex.trim_end_matches("LL").trim_end_matches("ULL"), 16).unwrap();
        if v != 0 {
            bits.push((name, v));
        }
    }
    assert!(bits.len() >= 11, "the header's bits: {bits:?}");
    let named: Vec<u64> = ClocksEventReasons::all().iter_names().map(|(_, f)| f.bits()).collect();
    for (name, v) in &bits {
        assert!(named.contains(v), "{name} ({v:#x}) has no name in ClocksEventReasons");
    }
    assert_eq!(
        ClocksEventReasons::from_bits_retain(0x8).iter_names().map(|(n, _)| n).collect::<Vec<_>>(),
        ["HW_SLOWDOWN"]
    );
}
