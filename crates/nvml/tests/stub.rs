//! The safe crate against small C libraries built here with the system C compiler (`cc`):
//! drivers that lack symbols (old ones, or a partial library), lists that never stop growing,
//! and an `nvmlInit` that fails. Each test builds its own copy of its stub, so the stubs'
//! counters are not shared between tests running in parallel.

use std::path::PathBuf;

mod common;

use common::{build, counter, stub_with_header};
use nvml::sys;
use nvml::*;

/// Declarations every stub starts with (layouts of nvml.h).
const PRELUDE: &str = r#"
typedef struct { unsigned int pid; unsigned long long usedGpuMemory; unsigned int gpuInstanceId, computeInstanceId; } proc_v2_t;
typedef struct { unsigned int pid; unsigned long long usedGpuMemory; } proc_v1_t;
typedef struct { unsigned long long total, free, used; } memory_v1_t;
static int devices[4];
/* The handle of device `i` of `n`: the address of an int of this library. */
static unsigned int handle(unsigned int i, unsigned int n, void **d) {
    if (i >= n) return 2; /* NVML_ERROR_INVALID_ARGUMENT */
    *d = &devices[i];
    return 0;
}
"#;

/// A newer driver's library that is missing most of NVML, `nvmlShutdown` and `nvmlErrorString`
/// included. Its process lists: compute processes grow by one at every call (they never fit),
/// graphics processes are two (they fit at the second call).
const PARTIAL: &str = r#"
static unsigned int compute_calls, graphics_calls, listed;
unsigned int nvmlInit_v2(void) { return 0; }
unsigned int nvmlDeviceGetCount_v2(unsigned int *n) { *n = 3; return 0; }
unsigned int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void **d) { return handle(i, 3, d); }
static unsigned int fill(unsigned int n, unsigned int *count, proc_v2_t *infos) {
    unsigned int capacity = *count, i;
    *count = n;
    if (capacity < n || !infos) return 7; /* NVML_ERROR_INSUFFICIENT_SIZE */
    for (i = 0; i < n; i++) {
        infos[i].pid = 100 + i;
        infos[i].usedGpuMemory = (i + 1) << 20;
        infos[i].gpuInstanceId = 0xFFFFFFFF;
        infos[i].computeInstanceId = 0xFFFFFFFF;
    }
    return 0;
}
unsigned int nvmlDeviceGetComputeRunningProcesses_v3(void *d, unsigned int *count, proc_v2_t *infos) {
    compute_calls++;
    return fill(++listed, count, infos);
}
unsigned int nvmlDeviceGetGraphicsRunningProcesses_v3(void *d, unsigned int *count, proc_v2_t *infos) {
    graphics_calls++;
    return fill(2, count, infos);
}
unsigned int stub_compute_calls(void) { return compute_calls; }
unsigned int stub_graphics_calls(void) { return graphics_calls; }
"#;

/// An old driver: only the unversioned names (no `_v2`), with `nvmlShutdown` and
/// `nvmlErrorString`; it counts shutdowns.
const OLD: &str = r#"
static unsigned int shutdowns;
unsigned int nvmlInit(void) { return 0; }
unsigned int nvmlShutdown(void) { shutdowns++; return 0; }
const char *nvmlErrorString(unsigned int code) { return "old stub says no"; }
unsigned int nvmlDeviceGetCount(unsigned int *n) { *n = 2; return 0; }
unsigned int nvmlDeviceGetHandleByIndex(unsigned int i, void **d) { return handle(i, 2, d); }
unsigned int nvmlDeviceGetMemoryInfo(void *d, memory_v1_t *m) {
    m->total = 16ULL << 30; m->used = 3ULL << 30; m->free = 13ULL << 30;
    return 0;
}
unsigned int nvmlDeviceGetComputeRunningProcesses(void *d, unsigned int *count, proc_v1_t *infos) {
    unsigned int capacity = *count;
    *count = 1;
    if (capacity < 1 || !infos) return 7;
    infos[0].pid = 777; infos[0].usedGpuMemory = 5ULL << 20;
    return 0;
}
unsigned int stub_shutdowns(void) { return shutdowns; }
"#;

/// A driver whose `nvmlInit_v2` fails with `NVML_ERROR_DRIVER_NOT_LOADED`.
const NO_DRIVER: &str = r#"
static unsigned int shutdowns;
unsigned int nvmlInit_v2(void) { return 9; }
unsigned int nvmlShutdown(void) { shutdowns++; return 0; }
unsigned int stub_shutdowns(void) { return shutdowns; }
"#;

/// Builds `lib<name>.so` from `source` (after [`PRELUDE`]) with the system C compiler.
fn stub(name: &str, source: &str) -> PathBuf {
    build(name, &format!("{PRELUDE}{source}"), &[])
}

/// Runs test `name` in a child process with its own stub built from `source` (after
/// [`PRELUDE`]); see [`common::library_in_child`].
fn stub_in_child(name: &str, source: &str) -> Option<Nvml> {
    common::library_in_child(name, &format!("{PRELUDE}{source}"), &[])
}

#[test]
fn missing_symbols_name_themselves() {
    let path = stub("partial-symbols", PARTIAL);
    let nvml = Nvml::builder().library_path(&path).init().expect("init with only nvmlInit_v2");
    assert_eq!(nvml.device_count(), Ok(3), "nvmlDeviceGetCount_v2");
    let d = nvml.device_by_index(1).unwrap();
    assert_eq!(d.name(), Err(Error::FunctionNotFound(Some("nvmlDeviceGetName"))), "name()");
    assert_eq!(
        nvml.driver_version(),
        Err(Error::FunctionNotFound(Some("nvmlSystemGetDriverVersion"))),
        "driver_version()"
    );
    // A versioned family names its newest member.
    assert_eq!(d.memory_info(), Err(Error::FunctionNotFound(Some("nvmlDeviceGetMemoryInfo_v2"))), "memory_info()");
    let e = d.uuid().unwrap_err();
    assert_eq!(e.code(), sys::NVML_ERROR_FUNCTION_NOT_FOUND, "{e:?}");
    assert_eq!(
        e.to_string(),
        "the loaded NVML library does not export `nvmlDeviceGetUUID` (a driver older than this function?)"
    );
    // Errors the library returns still come through.
    assert_eq!(nvml.device_by_index(3).unwrap_err(), Error::InvalidArgument, "device_by_index(3)");
    // No nvmlShutdown: dropping does not panic (and does nothing).
    drop(d);
    drop(nvml);
}

#[test]
fn without_error_string_display_uses_the_header() {
    let Some(nvml) = stub_in_child("without_error_string_display_uses_the_header", PARTIAL) else { return };
    let e = nvml.device_by_index(3).unwrap_err();
    assert_eq!(
        e.to_string(),
        "A supplied argument is invalid (NVML error 2)",
        "no nvmlErrorString: nvml.h's description"
    );
    drop(nvml);
}

#[test]
fn init_flags_need_init_with_flags() {
    let path = stub("partial-flags", PARTIAL);
    let e = Nvml::builder().library_path(&path).flags(InitFlags::NO_GPUS).init().unwrap_err();
    assert_eq!(e, Error::FunctionNotFound(Some("nvmlInitWithFlags")), "the stub has no nvmlInitWithFlags");
}

#[test]
fn a_list_that_always_grows_gives_up_after_the_retry_bound() {
    let path = stub("partial-lists", PARTIAL);
    let nvml = Nvml::builder().library_path(&path).init().unwrap();
    let d = nvml.device_by_index(0).unwrap();
    // Steady state: a size query and a fill.
    let graphics = d.running_graphics_processes().unwrap();
    assert_eq!(
        graphics.iter().map(|p| (p.pid, p.used_gpu_memory)).collect::<Vec<_>>(),
        [(100, Some(1 << 20)), (101, Some(2 << 20))]
    );
    assert_eq!(counter(nvml.lib(), "stub_graphics_calls"), 2, "two calls when the list does not change");
    // A list longer at every call: the size query and three refills (4 attempts), then
    // INSUFFICIENT_SIZE.
    assert_eq!(d.running_compute_processes(), Err(Error::InsufficientSize), "the list never fits");
    assert_eq!(counter(nvml.lib(), "stub_compute_calls"), 4, "LIST_ATTEMPTS calls, no more");
}

#[test]
fn an_old_driver_is_reached_through_the_unversioned_names() {
    let path = stub("old-driver", OLD);
    let raw = sys::NvmlLib::open_path(&path).unwrap();
    let nvml = Nvml::builder().library_path(&path).init().expect("init through the legacy nvmlInit");
    assert_eq!(nvml.device_count(), Ok(2), "device_count() falls back to nvmlDeviceGetCount");
    let d = nvml.device_by_index(1).expect("device_by_index falls back to nvmlDeviceGetHandleByIndex");
    assert_eq!(nvml.device_by_index(2).unwrap_err(), Error::InvalidArgument);
    // The v1 memory layout, converted: no reserved memory in it.
    let m = d.memory_info().expect("memory_info falls back to nvmlDeviceGetMemoryInfo");
    assert_eq!((m.total, m.used, m.free, m.reserved), (16 << 30, 3 << 30, 13 << 30, 0), "{m:?}");
    // The v1 process layout, converted.
    let procs = d.running_compute_processes().expect("falls back to nvmlDeviceGetComputeRunningProcesses");
    assert_eq!(procs.iter().map(|p| (p.pid, p.used_gpu_memory)).collect::<Vec<_>>(), [(777, Some(5 << 20))]);
    // Owned handles and clones share one init: one shutdown when the last is dropped.
    // Borrowed handles hold no count: cloning and dropping them shuts nothing down.
    drop((d.clone(), d.clone()));
    let owned = d.into_owned();
    let owned_too = owned.clone();
    let clone = nvml.clone();
    drop(nvml);
    drop(clone);
    assert_eq!(counter(&raw, "stub_shutdowns"), 0, "an owned device is alive");
    drop(owned);
    assert_eq!(counter(&raw, "stub_shutdowns"), 0, "a clone of the owned device is alive");
    assert_eq!(owned_too.nvml().device_count(), Ok(2), "the library is still initialised");
    drop(owned_too);
    assert_eq!(counter(&raw, "stub_shutdowns"), 1, "one nvmlShutdown for one init");
    // A second Nvml is a second init and a second shutdown.
    drop(Nvml::builder().library_path(&path).init().unwrap());
    assert_eq!(counter(&raw, "stub_shutdowns"), 2);
}

#[test]
fn an_old_drivers_error_string_is_used_while_it_is_alive() {
    let Some(nvml) = stub_in_child("an_old_drivers_error_string_is_used_while_it_is_alive", OLD) else { return };
    let e = nvml.device_by_index(2).unwrap_err();
    assert_eq!(e.to_string(), "old stub says no (NVML error 2)", "the library's nvmlErrorString");
    drop(nvml);
    assert_eq!(e.to_string(), "A supplied argument is invalid (NVML error 2)", "the header's text once it is gone");
}

#[test]
fn a_failed_init_is_an_error_and_not_shut_down() {
    let path = stub("no-driver", NO_DRIVER);
    let raw = sys::NvmlLib::open_path(&path).unwrap();
    let e = Nvml::builder().library_path(&path).init().unwrap_err();
    assert_eq!(e, Error::DriverNotLoaded, "nvmlInit_v2 answered NVML_ERROR_DRIVER_NOT_LOADED");
    assert_eq!(counter(&raw, "stub_shutdowns"), 0, "no nvmlShutdown after a failed nvmlInit");
}

#[test]
fn a_library_without_nvml_init_is_function_not_found() {
    // libc exports no NVML symbol at all.
    let e = Nvml::builder().library_path("libc.so.6").init().unwrap_err();
    assert_eq!(e, Error::FunctionNotFound(Some("nvmlInit_v2")), "the newest of the nvmlInit family is named");
    assert_eq!(
        e.to_string(),
        "the loaded NVML library does not export `nvmlInit_v2` (a driver older than this function?)"
    );
}

/// A vGPU host's library compiled against nvml.h, for the hand-written wrappers of records
/// that point to caller-allocated arrays (the mock has no vGPU, PRM, NVLink telemetry or GPM
/// data). Its creatable-placement query only knows the v1 record layout, as older drivers do.
const VGPU_HOST: &str = r#"
static int event_set, gpm_samples[2];
static unsigned int placement_calls;
nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set) { *set = (nvmlEventSet_t)&event_set; return NVML_SUCCESS; }
nvmlReturn_t nvmlGpmSampleAlloc(nvmlGpmSample_t *s) {
    static unsigned int n;
    *s = (nvmlGpmSample_t)&gpm_samples[n++ % 2];
    return NVML_SUCCESS;
}
/* Copies n ids into a caller array of *count entries, or asks for more room. */
static nvmlReturn_t ids(unsigned int *count, unsigned int *out, const unsigned int *src, unsigned int n) {
    unsigned int capacity = *count, i;
    *count = n;
    if (n == 0) return NVML_SUCCESS;
    if (!out || capacity < n) return NVML_ERROR_INSUFFICIENT_SIZE;
    for (i = 0; i < n; i++) out[i] = src[i];
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetVgpuTypeSupportedPlacements(nvmlDevice_t d, nvmlVgpuTypeId_t t, nvmlVgpuPlacementList_t *p) {
    static const unsigned int hetero[] = {0, 2, 4, 6}, homo[] = {0, 4};
    placement_calls++;
    if (p->version != nvmlVgpuPlacementList_v2) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    if (t != 5) return NVML_ERROR_INVALID_ARGUMENT;
    p->placementSize = 2;
    if (p->mode == NVML_VGPU_PGPU_HOMOGENEOUS_MODE) return ids(&p->count, p->placementIds, homo, 2);
    return ids(&p->count, p->placementIds, hetero, 4);
}
nvmlReturn_t nvmlDeviceGetVgpuTypeCreatablePlacements(nvmlDevice_t d, nvmlVgpuTypeId_t t, nvmlVgpuPlacementList_t *p) {
    static const unsigned int free_slots[] = {1, 3};
    nvmlVgpuPlacementList_v1_t *v1 = (nvmlVgpuPlacementList_v1_t *)p;
    if (v1->version != nvmlVgpuPlacementList_v1) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    v1->placementSize = 1;
    return ids(&v1->count, v1->placementIds, free_slots, 2);
}
nvmlReturn_t nvmlDeviceGetVgpuInstancesUtilizationInfo(nvmlDevice_t d, nvmlVgpuInstancesUtilizationInfo_t *u) {
    unsigned int capacity = u->vgpuInstanceCount, i;
    if (u->version != nvmlVgpuInstancesUtilizationInfo_v1) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    u->vgpuInstanceCount = 2;
    if (!u->vgpuUtilArray || capacity < 2) return NVML_ERROR_INSUFFICIENT_SIZE;
    u->sampleValType = NVML_VALUE_TYPE_UNSIGNED_INT;
    for (i = 0; i < 2; i++) {
        memset(&u->vgpuUtilArray[i], 0, sizeof u->vgpuUtilArray[i]);
        u->vgpuUtilArray[i].timeStamp = u->lastSeenTimeStamp + 100 + i;
        u->vgpuUtilArray[i].vgpuInstance = 11 + i;
        u->vgpuUtilArray[i].smUtil.uiVal = 40 + 10 * i;
        u->vgpuUtilArray[i].memUtil.uiVal = 7;
    }
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetVgpuProcessesUtilizationInfo(nvmlDevice_t d, nvmlVgpuProcessesUtilizationInfo_t *u) {
    unsigned int capacity = u->vgpuProcessCount;
    if (u->version != nvmlVgpuProcessesUtilizationInfo_v1) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    u->vgpuProcessCount = 1;
    if (!u->vgpuProcUtilArray || capacity < 1) return NVML_ERROR_INSUFFICIENT_SIZE;
    memset(u->vgpuProcUtilArray, 0, sizeof *u->vgpuProcUtilArray);
    strcpy(u->vgpuProcUtilArray[0].processName, "render-vm");
    u->vgpuProcUtilArray[0].pid = 99;
    u->vgpuProcUtilArray[0].vgpuInstance = 11;
    u->vgpuProcUtilArray[0].smUtil = 33;
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlGpuInstanceGetActiveVgpus(nvmlGpuInstance_t gi, nvmlActiveVgpuInstanceInfo_t *a) {
    static const unsigned int active[] = {21, 22};
    if (a->version != nvmlActiveVgpuInstanceInfo_v1) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    return ids(&a->vgpuCount, a->vgpuInstances, active, 2);
}
nvmlReturn_t nvmlGpuInstanceGetCreatableVgpus(nvmlGpuInstance_t gi, nvmlVgpuTypeIdInfo_t *a) {
    static const unsigned int types[] = {31};
    if (a->version != nvmlVgpuTypeIdInfo_v1) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    return ids(&a->vgpuCount, a->vgpuTypeIds, types, 1);
}
nvmlReturn_t nvmlGpuInstanceGetVgpuTypeCreatablePlacements(nvmlGpuInstance_t gi, nvmlVgpuCreatablePlacementInfo_t *p) {
    static const unsigned int slots[] = {0, 1, 2};
    if (p->version != nvmlVgpuCreatablePlacementInfo_v1) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    if (p->vgpuTypeId != 31) return NVML_ERROR_INVALID_ARGUMENT;
    p->placementSize = 1;
    return ids(&p->count, p->placementIds, slots, 3);
}
nvmlReturn_t nvmlDeviceReadPRMCounters_v1(nvmlDevice_t d, nvmlPRMCounterList_v1_t *l) {
    unsigned int i;
    for (i = 0; i < l->numCounters; i++) {
        nvmlPRMCounter_v1_t *c = &l->counters[i];
        c->counterValue.status = c->counterId == 0 ? NVML_ERROR_NOT_SUPPORTED : NVML_SUCCESS;
        c->counterValue.outputType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
        c->counterValue.outputValue.ullVal = 100ULL * c->counterId + c->inData.localPort;
    }
    return NVML_SUCCESS;
}
/* Link 0 keeps 3 samples, link 1 keeps none; other links do not exist. */
nvmlReturn_t nvmlDeviceGetNvLinkTelemetrySamples_v1(nvmlDevice_t d, nvmlNvlinkTelemetrySamples_v1_t *b) {
    unsigned int i, j;
    for (i = 0; i < b->telemetryCount; i++) {
        nvmlNvlinkTelemetrySample_v1_t *s = &b->telemetrySamples[i];
        unsigned int max = s->linkId == 0 ? 3 : 0;
        s->nvmlReturn = NVML_SUCCESS;
        if (s->linkId > 1) { s->nvmlReturn = NVML_ERROR_INVALID_ARGUMENT; continue; }
        if (s->sampleCount == 0) { s->sampleCount = max; continue; }
        if (!s->samples || s->sampleCount > max) return NVML_ERROR_INVALID_ARGUMENT;
        for (j = 0; j < s->sampleCount; j++) s->samples[j] = 1000ULL * (s->sampleType + 1) + j;
    }
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlGpmMetricsGet(nvmlGpmMetricsGet_t *g) {
    static char short_name[] = "gr_util", long_name[] = "graphics engine utilization", unit[] = "%";
    unsigned int i;
    if (g->version != NVML_GPM_METRICS_GET_VERSION) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    if (g->sample1 == g->sample2) return NVML_ERROR_INVALID_ARGUMENT;
    for (i = 0; i < g->numMetrics; i++) {
        nvmlGpmMetric_t *m = &g->metrics[i];
        if (m->metricId == NVML_GPM_METRIC_GRAPHICS_UTIL) {
            m->nvmlReturn = NVML_SUCCESS;
            m->value = 12.5;
            m->metricInfo.shortName = short_name;
            m->metricInfo.longName = long_name;
            m->metricInfo.unit = unit;
        } else {
            m->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
        }
    }
    return NVML_SUCCESS;
}
/* Context 0 of the last event carries 5 bytes, context 1 none; there are no others. */
nvmlReturn_t nvmlEventSetGetContextData_v1(nvmlEventSet_t set, nvmlEventSetGetContextData_v1_t *p) {
    static const unsigned char payload[] = {1, 2, 3, 4, 5};
    unsigned int need, capacity = p->dataSize;
    if (p->index > 1) return NVML_ERROR_INVALID_ARGUMENT;
    need = p->index == 0 ? 5 : 0;
    p->dataSize = need;
    if (need == 0) return NVML_SUCCESS;
    if (!p->data || capacity < need) return NVML_ERROR_INSUFFICIENT_SIZE;
    memcpy(p->data, payload, need);
    return NVML_SUCCESS;
}
/* Metadata: the fixed record followed by 10 bytes of opaque data. */
#define OPAQUE "migrate-me"
nvmlReturn_t nvmlDeviceGetVgpuMetadata(nvmlDevice_t d, nvmlVgpuPgpuMetadata_t *m, unsigned int *size) {
    unsigned int need = (unsigned int)(offsetof(nvmlVgpuPgpuMetadata_t, opaqueData) + sizeof OPAQUE - 1), capacity = *size;
    *size = need;
    if (!m || capacity < need) return NVML_ERROR_INSUFFICIENT_SIZE;
    memset(m, 0, capacity);
    m->version = 3; m->revision = 1;
    strcpy(m->hostDriverVersion, "580.82.07");
    m->hostSupportedVgpuRange.minVersion = 0x120000; m->hostSupportedVgpuRange.maxVersion = 0x130000;
    m->opaqueDataSize = sizeof OPAQUE - 1;
    memcpy(m->opaqueData, OPAQUE, sizeof OPAQUE - 1);
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlVgpuInstanceGetMetadata(nvmlVgpuInstance_t v, nvmlVgpuMetadata_t *m, unsigned int *size) {
    unsigned int need = (unsigned int)(offsetof(nvmlVgpuMetadata_t, opaqueData) + sizeof OPAQUE - 1), capacity = *size;
    if (v != 21) return NVML_ERROR_NOT_FOUND;
    *size = need;
    if (!m || capacity < need) return NVML_ERROR_INSUFFICIENT_SIZE;
    memset(m, 0, capacity);
    m->version = 3;
    strcpy(m->guestDriverVersion, "575.51.03");
    m->opaqueDataSize = sizeof OPAQUE - 1;
    memcpy(m->opaqueData, OPAQUE, sizeof OPAQUE - 1);
    return NVML_SUCCESS;
}
/* Compatible when both opaque blobs arrived whole and equal. */
nvmlReturn_t nvmlGetVgpuCompatibility(nvmlVgpuMetadata_t *v, nvmlVgpuPgpuMetadata_t *p, nvmlVgpuPgpuCompatibility_t *c) {
    int same = v->opaqueDataSize == p->opaqueDataSize && memcmp(v->opaqueData, p->opaqueData, v->opaqueDataSize) == 0;
    c->vgpuVmCompatibility = same ? NVML_VGPU_VM_COMPATIBILITY_LIVE : NVML_VGPU_VM_COMPATIBILITY_NONE;
    c->compatibilityLimitCode = same ? NVML_VGPU_COMPATIBILITY_LIMIT_NONE : NVML_VGPU_COMPATIBILITY_LIMIT_OTHER;
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlSystemGetDriverBranch(nvmlSystemDriverBranchInfo_t *b, unsigned int length) {
    if (b->version != nvmlSystemDriverBranchInfo_v1) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    if (length < sizeof "r580_00") return NVML_ERROR_INSUFFICIENT_SIZE;
    strcpy(b->branch, "r580_00");
    return NVML_SUCCESS;
}
unsigned int stub_placement_calls(void) { return placement_calls; }
"#;

#[test]
fn records_pointing_to_arrays_are_filled_in_two_calls() {
    let path = stub_with_header("vgpu-host", VGPU_HOST);
    let nvml = Nvml::builder().library_path(&path).init().expect("the stub initialises");
    let d = nvml.device_by_index(0).unwrap();
    let vgpu_type = VgpuTypeId::from_id(&nvml, 5);
    let p = d.vgpu_type_supported_placements(&vgpu_type, sys::NVML_VGPU_PGPU_HETEROGENEOUS_MODE as u32).unwrap();
    assert_eq!(p, VgpuPlacements { placement_size: 2, placement_ids: vec![0, 2, 4, 6] });
    assert_eq!(counter(nvml.lib(), "stub_placement_calls"), 2, "a size query and a fill");
    let p = d.vgpu_type_supported_placements(&vgpu_type, sys::NVML_VGPU_PGPU_HOMOGENEOUS_MODE as u32).unwrap();
    assert_eq!(p.placement_ids, [0, 4], "the mode reaches the library");
    assert_eq!(d.vgpu_type_supported_placements(&VgpuTypeId::from_id(&nvml, 6), 0), Err(Error::InvalidArgument));
    // Only the v1 layout: the wrapper retries with it.
    let p = d.vgpu_type_creatable_placements(&vgpu_type, 0).unwrap();
    assert_eq!(p, VgpuPlacements { placement_size: 1, placement_ids: vec![1, 3] });

    let u = d.vgpu_instances_utilization_info(1000).unwrap();
    let rows: Vec<_> = u.iter().map(|s| (s.time_stamp, s.vgpu_instance, s.sm_util, s.mem_util)).collect();
    assert_eq!(
        rows,
        [
            (1100, 11, Value::UnsignedInt(40), Value::UnsignedInt(7)),
            (1101, 12, Value::UnsignedInt(50), Value::UnsignedInt(7))
        ]
    );
    let procs = d.vgpu_processes_utilization_info(0).unwrap();
    assert_eq!(
        procs.iter().map(|p| (p.process_name.as_str(), p.pid, p.vgpu_instance, p.sm_util)).collect::<Vec<_>>(),
        [("render-vm", 99, 11, 33)]
    );

    let gi = d.gpu_instance_by_id(1).unwrap();
    assert_eq!(gi.active_vgpus().unwrap().iter().map(|v| v.as_raw()).collect::<Vec<_>>(), [21, 22]);
    let types = gi.creatable_vgpus().unwrap();
    assert_eq!(types.iter().map(|t| t.as_raw()).collect::<Vec<_>>(), [31]);
    assert_eq!(
        gi.vgpu_type_creatable_placements(&types[0]).unwrap(),
        VgpuPlacements { placement_size: 1, placement_ids: vec![0, 1, 2] }
    );
}

#[test]
fn per_item_results_of_batched_queries_stay_per_item() {
    let path = stub_with_header("vgpu-host-batches", VGPU_HOST);
    let nvml = Nvml::builder().library_path(&path).init().expect("the stub initialises");
    let d = nvml.device_by_index(0).unwrap();

    let request = |id: u32, port: u32| {
        let mut r = PRMCounter::default();
        r.counter_id = id;
        r.in_data.local_port = port;
        r
    };
    let read = d.read_prm_counters(&[request(3, 1), request(0, 2)]).unwrap();
    assert_eq!(read[0].counter_value.status, Return::SUCCESS);
    assert_eq!(read[0].counter_value.output_value, Value::UnsignedLongLong(301));
    assert_eq!(read[1].counter_value.status, Return::ERROR_NOT_SUPPORTED, "counter 0 fails alone");

    let slot = |link_id: u32, sample_type: u32| NvlinkTelemetryRequest {
        link_id,
        sample_type: NvlinkTelemetrySampleType(sample_type),
    };
    let t = d.nvlink_telemetry_samples(&[slot(0, 1), slot(1, 0), slot(7, 0)]).unwrap();
    assert_eq!(t[0].samples, Ok(vec![2000, 2001, 2002]), "link 0 keeps 3 samples");
    assert_eq!(t[1].samples, Ok(vec![]), "link 1 keeps none");
    assert_eq!(t[2].samples, Err(Error::InvalidArgument), "link 7 does not exist");
    assert_eq!(t[2].request, slot(7, 0));

    let (s1, s2) = (nvml.gpm_sample_alloc().unwrap(), nvml.gpm_sample_alloc().unwrap());
    let m = nvml.gpm_metrics_get(&s1, &s2, &[GpmMetricId::GRAPHICS_UTIL, GpmMetricId::SM_UTIL]).unwrap();
    assert_eq!(m[0].value, Ok(12.5));
    assert_eq!(
        (m[0].short_name.as_deref(), m[0].long_name.as_deref(), m[0].unit.as_deref()),
        (Some("gr_util"), Some("graphics engine utilization"), Some("%"))
    );
    assert_eq!((m[1].id, &m[1].value, &m[1].unit), (GpmMetricId::SM_UTIL, &Err(Error::NotSupported), &None));
    assert_eq!(nvml.gpm_metrics_get(&s1, &s1, &[GpmMetricId::GRAPHICS_UTIL]).map(|_| ()), Err(Error::InvalidArgument));
    // More metrics than one request holds: split across calls, order kept.
    let many: Vec<GpmMetricId> =
        (0..1000).map(|i| if i % 2 == 0 { GpmMetricId::GRAPHICS_UTIL } else { GpmMetricId::SM_UTIL }).collect();
    let m = nvml.gpm_metrics_get(&s1, &s2, &many).unwrap();
    assert_eq!(m.len(), 1000);
    assert!(m.iter().enumerate().all(|(i, x)| x.id == many[i] && x.value.is_ok() == (i % 2 == 0)));

    let set = nvml.create_event_set().unwrap();
    assert_eq!(set.context_data(0), Ok(vec![1, 2, 3, 4, 5]));
    assert_eq!(set.context_data(1), Ok(vec![]), "an empty payload");
    assert_eq!(set.context_data(2), Err(Error::InvalidArgument));
}

#[test]
fn variable_size_metadata_keeps_its_opaque_data() {
    let path = stub_with_header("vgpu-host-metadata", VGPU_HOST);
    let nvml = Nvml::builder().library_path(&path).init().expect("the stub initialises");
    assert_eq!(nvml.driver_branch().as_deref(), Ok("r580_00"), "a record sized by its string's length");
    let d = nvml.device_by_index(0).unwrap();
    let pgpu = d.vgpu_metadata().unwrap();
    let fixed = std::mem::offset_of!(sys::nvmlVgpuPgpuMetadata_t, opaqueData);
    assert_eq!(pgpu.as_bytes().len(), fixed + 10, "the record and its 10 opaque bytes");
    assert_eq!(&pgpu.as_bytes()[fixed..], b"migrate-me");
    let r = pgpu.record();
    assert_eq!((r.version, r.revision, r.host_driver_version.as_str(), r.opaque_data_size), (3, 1, "580.82.07", 10));
    assert_eq!(
        (r.host_supported_vgpu_range.min_version, r.host_supported_vgpu_range.max_version),
        (0x120000, 0x130000)
    );

    let vm = VgpuInstance::from_id(&nvml, 21).metadata().unwrap();
    assert_eq!(vm.record().guest_driver_version, "575.51.03");
    assert_eq!(VgpuInstance::from_id(&nvml, 5).metadata().map(|_| ()), Err(Error::NotFound));
    // Metadata travels as bytes (e.g. to the migration target) and is checked whole.
    let shipped = VgpuMetadataBlob::from_bytes(vm.as_bytes().to_vec());
    let ok = nvml.vgpu_compatibility(&shipped, &pgpu).unwrap();
    assert_eq!(
        (ok.vgpu_vm_compatibility, ok.compatibility_limit_code),
        (VgpuVmCompatibility::LIVE, VgpuPgpuCompatibilityLimitCode::NONE)
    );
    let mut other = vm.as_bytes().to_vec();
    *other.last_mut().unwrap() = b'!';
    let no = nvml.vgpu_compatibility(&VgpuMetadataBlob::from_bytes(other), &pgpu).unwrap();
    assert_eq!(no.vgpu_vm_compatibility, VgpuVmCompatibility::NONE, "the opaque data reaches the library");
}
