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
//! are freed or destroyed. And one test per C union of a public record, read (and written)
//! through the tag the header names: sample values by the type the function answers beside
//! them, scheduler parameters by the ARR mode, UUID values by their type, controller data by
//! the controller type (a tag the header names no member for keeps the bytes), and the PRM
//! buffer, one union of input and output bytes. And the smaller readings: a list longer than
//! the count beside it (the thermal sensors), a size query answered with success and no size
//! (metadata), field values read back by the ids asked for, the entries of a list inside a
//! record read by the value type beside them, and a byte buffer inside an unversioned record.

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

/* "Based on type, this method can be used to fetch the power, utilization or clock samples";
 * "Power, Utilization and Clock samples are returned as type "unsigned int" for the union
 * nvmlValue_t"; "sampleValType: Output parameter to represent the type of sample value". Power
 * samples are unsigned ints, as the text says; a sampling type the header does not have
 * answers doubles, and NVML_SAMPLINGTYPE_COUNT a value type newer than the header (42), so
 * that only a reading by the answered type gets each right. */
nvmlReturn_t nvmlDeviceGetSamples(nvmlDevice_t d, nvmlSamplingType_t type, unsigned long long lastSeenTimeStamp,
                                  nvmlValueType_t *sampleValType, unsigned int *sampleCount, nvmlSample_t *samples) {
    unsigned int capacity, i;
    DEVICE(d);
    if (!sampleCount || !sampleValType) return NVML_ERROR_INVALID_ARGUMENT;
    capacity = *sampleCount;
    *sampleCount = 2;
    if (!samples) return NVML_SUCCESS;
    if (capacity == 0) return NVML_ERROR_INVALID_ARGUMENT;
    if (capacity < 2) return NVML_ERROR_INSUFFICIENT_SIZE;
    for (i = 0; i < 2; i++) {
        memset(&samples[i], 0, sizeof samples[i]);
        samples[i].timeStamp = lastSeenTimeStamp + 1 + i;
        if (type == NVML_TOTAL_POWER_SAMPLES) samples[i].sampleValue.uiVal = 150000 + i;
        else if (type == NVML_SAMPLINGTYPE_COUNT) samples[i].sampleValue.ullVal = 0x0102030405060708ULL;
        else samples[i].sampleValue.dVal = 0.5 + i;
    }
    *sampleValType = type == NVML_TOTAL_POWER_SAMPLES ? NVML_VALUE_TYPE_UNSIGNED_INT
                   : type == NVML_SAMPLINGTYPE_COUNT ? (nvmlValueType_t)42 : NVML_VALUE_TYPE_DOUBLE;
    return NVML_SUCCESS;
}

/* The vGPU scheduler. nvmlDeviceSetVgpuSchedulerState: "In nvmlVgpuSchedulerSetState_t, IFF
 * enableARRMode is enabled then provide avgFactorForARR and frequency as input. If
 * enableARRMode is disabled then provide timeslice as input." nvmlVgpuSchedulerGetState_t:
 * "arrMode: Adaptive Round Robin scheduler mode. One of the NVML_VGPU_SCHEDULER_ARR_*", and the
 * union's vgpuSchedDataWithARR {avgFactor, timeslice} or vgpuSchedData {timeslice}. The state
 * starts in ARR mode; a set with ARR disabled switches it to the plain timeslice. */
static unsigned int sched_arr = NVML_VGPU_SCHEDULER_ARR_ENABLE, sched_avg = 3, sched_timeslice = 2000000,
                    set_frequency;
nvmlReturn_t nvmlDeviceGetVgpuSchedulerState(nvmlDevice_t d, nvmlVgpuSchedulerGetState_t *s) {
    DEVICE(d);
    if (!s) return NVML_ERROR_INVALID_ARGUMENT;
    memset(s, 0, sizeof *s);
    s->schedulerPolicy = NVML_VGPU_SCHEDULER_POLICY_EQUAL_SHARE;
    s->arrMode = sched_arr;
    if (sched_arr == NVML_VGPU_SCHEDULER_ARR_ENABLE) {
        s->schedulerParams.vgpuSchedDataWithARR.avgFactor = sched_avg;
        s->schedulerParams.vgpuSchedDataWithARR.timeslice = sched_timeslice;
    } else {
        s->schedulerParams.vgpuSchedData.timeslice = sched_timeslice;
    }
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceSetVgpuSchedulerState(nvmlDevice_t d, nvmlVgpuSchedulerSetState_t *s) {
    DEVICE(d);
    if (!s) return NVML_ERROR_INVALID_ARGUMENT;
    if (s->enableARRMode == NVML_VGPU_SCHEDULER_ARR_ENABLE) {
        sched_avg = s->schedulerParams.vgpuSchedDataWithARR.avgFactor;
        set_frequency = s->schedulerParams.vgpuSchedDataWithARR.frequency;
    } else if (s->enableARRMode == NVML_VGPU_SCHEDULER_ARR_DISABLE) {
        sched_timeslice = s->schedulerParams.vgpuSchedData.timeslice;
    } else {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    sched_arr = s->enableARRMode;
    return NVML_SUCCESS;
}
unsigned int stub_set_frequency(void) { return set_frequency; }
/* A log in the mode NVML_VGPU_SCHEDULER_ARR_DEFAULT, for which the header names no member of
 * the union: the union's first word is 5, its second 6. */
nvmlReturn_t nvmlDeviceGetVgpuSchedulerLog(nvmlDevice_t d, nvmlVgpuSchedulerLog_t *l) {
    DEVICE(d);
    if (!l) return NVML_ERROR_INVALID_ARGUMENT;
    memset(l, 0, sizeof *l);
    l->arrMode = NVML_VGPU_SCHEDULER_ARR_DEFAULT;
    l->schedulerParams.vgpuSchedDataWithARR.avgFactor = 5;
    l->schedulerParams.vgpuSchedDataWithARR.timeslice = 6;
    return NVML_SUCCESS;
}

/* nvmlDeviceGetHandleByUUIDV: "NVML_ERROR_INVALID_ARGUMENT if uuid is invalid, device is null
 * or uuid->type is invalid"; "NVML_ERROR_NOT_FOUND if uuid does not match a valid device";
 * nvmlUUID_v1_t: "type: One of nvmlUUIDType_t", "value: One of nvmlUUIDValue_t, to be set based
 * on the UUID format" (str: "ASCII format value", bytes: "Binary format value"). */
static const char DEVICE_UUID[] = "GPU-00010203-0405-0607-0809-0a0b0c0d0e0f";
nvmlReturn_t nvmlDeviceGetHandleByUUIDV(const nvmlUUID_t *uuid, nvmlDevice_t *out) {
    unsigned int i;
    if (!uuid || !out || uuid->version != nvmlUUID_v1) return NVML_ERROR_INVALID_ARGUMENT;
    if (uuid->type == NVML_UUID_TYPE_ASCII) {
        if (strncmp(uuid->value.str, DEVICE_UUID, sizeof uuid->value.str) != 0) return NVML_ERROR_NOT_FOUND;
    } else if (uuid->type == NVML_UUID_TYPE_BINARY) {
        for (i = 0; i < NVML_DEVICE_UUID_BINARY_LEN; i++)
            if (uuid->value.bytes[i] != i) return NVML_ERROR_NOT_FOUND;
    } else {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    *out = (nvmlDevice_t)&device;
    return NVML_SUCCESS;
}

/* nvmlDeviceReadWritePRM_v1: "buffer: Structure holding the input data in TLV format as well as
 * the PRM register contents in TLV format (in the case of a successful read operation)";
 * "dataSize: Size of the input TLV data", inData "IN", outData "OUT", one union. The register
 * read here answers the request's bytes reversed, then 0xAB. */
nvmlReturn_t nvmlDeviceReadWritePRM_v1(nvmlDevice_t d, nvmlPRMTLV_v1_t *buffer) {
    unsigned char in[NVML_PRM_DATA_MAX_SIZE];
    unsigned int i, n;
    DEVICE(d);
    if (!buffer || buffer->dataSize >= NVML_PRM_DATA_MAX_SIZE) return NVML_ERROR_INVALID_ARGUMENT;
    n = buffer->dataSize;
    memcpy(in, buffer->inData, n);
    for (i = 0; i < n; i++) buffer->outData[i] = in[n - 1 - i];
    buffer->outData[n] = 0xAB;
    buffer->status = 0;
    return NVML_SUCCESS;
}

/* nvmlPerfMetricControllerSample_t: "controllerType: Controller type:
 * NVML_PERF_METRICS_CONTROLLER_TYPE_DLPPC_2X or NVML_PERF_METRICS_CONTROLLER_TYPE_PFPP_1X",
 * data: "Union containing controller-specific data" (dlppc2x, pfpp1x). One sample with a PFPP 1x
 * controller, and one of a type newer than the header (7) whose data starts with 0x5A. */
nvmlReturn_t nvmlDevicePerfMetricsGetSamples_v1(nvmlDevice_t d, nvmlPerfMetricsSamples_v1_t *samples) {
    DEVICE(d);
    if (!samples) return NVML_ERROR_INVALID_ARGUMENT;
    memset(samples, 0, sizeof *samples);
    samples->numSamples = 1;
    samples->samples[0].numControllerData = 2;
    samples->samples[0].controllerData[0].controllerType = NVML_PERF_METRICS_CONTROLLER_TYPE_PFPP_1X;
    samples->samples[0].controllerData[0].data.pfpp1x.estimatedMetrics.tgpHeadroommW = 1234;
    samples->samples[0].controllerData[1].controllerType = 7;
    memset(&samples->samples[0].controllerData[1].data, 0x5A, 1);
    return NVML_SUCCESS;
}

unsigned int stub_event_set_frees(void) { return event_set_frees; }
unsigned int stub_gpm_sample_frees(void) { return gpm_sample_frees; }
unsigned int stub_system_event_set_frees(void) { return system_event_set_frees; }
unsigned int stub_double_frees(void) { return double_frees; }
/* A driver that knows only the first layouts of versioned records. nvmlDeviceGetPlatformInfo:
 * "NVML_ERROR_ARGUMENT_VERSION_MISMATCH If the version of nvmlPlatformInfo_t is invalid";
 * nvmlDeviceGetGpuFabricInfoV: "The caller must set the nvmlGpuFabricInfoV_t.version field to
 * the appropriate version prior to calling this function. For example:
 * { .version = nvmlGpuFabricInfo_v2 }". Neither has nvmlDeviceGetGpuFabricInfo_v4. */
nvmlReturn_t nvmlDeviceGetPlatformInfo(nvmlDevice_t d, nvmlPlatformInfo_t *info) {
    nvmlPlatformInfo_v1_t *v1 = (nvmlPlatformInfo_v1_t *)info;
    DEVICE(d);
    if (!info) return NVML_ERROR_INVALID_ARGUMENT;
    if (v1->version != nvmlPlatformInfo_v1) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    memset(v1->ibGuid, 0xAB, sizeof v1->ibGuid);
    memcpy(v1->rackGuid, "RACK-0042", 9);
    v1->chassisPhysicalSlotNumber = 7;
    v1->computeSlotIndex = 3;
    v1->nodeIndex = 2;
    v1->peerType = 1;
    v1->moduleId = 5;
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t d, nvmlGpuFabricInfoV_t *info) {
    nvmlGpuFabricInfo_v2_t *v2 = (nvmlGpuFabricInfo_v2_t *)info;
    DEVICE(d);
    if (!info) return NVML_ERROR_INVALID_ARGUMENT;
    if (v2->version != nvmlGpuFabricInfo_v2) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    memset(v2->clusterUuid, 0x11, sizeof v2->clusterUuid);
    v2->status = NVML_SUCCESS;
    v2->cliqueId = 9;
    v2->state = NVML_GPU_FABRIC_STATE_COMPLETED;
    v2->healthMask = 0x5;
    return NVML_SUCCESS;
}

/* "info: Returns detailed profile information", in "a versioned nvmlGpuInstanceProfileInfo_v2_t
 * or later output structure". Here the library departs from the header as driver 580.159.04
 * does on a real H100 (crates/nvml-mock/tests/real/README.md, runs 8 and 9): it zeroes the
 * version word in every layout and, asked in layout v3, leaves the name empty: it writes a
 * name where layout v2 has it (8 bytes into v3's name; the driver's is built from v2's places,
 * "MIG 7g.0gb" for the 1g.10gb profile, this one is the right name). */
static nvmlReturn_t gi_profile(nvmlDevice_t d, unsigned int id, nvmlGpuInstanceProfileInfo_v2_t *info) {
    DEVICE(d);
    if (!info) return NVML_ERROR_INVALID_ARGUMENT;
    if (info->version == nvmlGpuInstanceProfileInfo_v3) {
        nvmlGpuInstanceProfileInfo_v3_t *v3 = (nvmlGpuInstanceProfileInfo_v3_t *)info;
        memset(v3, 0, sizeof *v3);
        v3->id = id;
        v3->sliceCount = 1;
        v3->instanceCount = 7;
        v3->memorySizeMB = 9984;
        v3->capabilities = 2;
        strcpy((char *)v3 + offsetof(nvmlGpuInstanceProfileInfo_v2_t, name), "MIG 1g.10gb");
        return NVML_SUCCESS;
    }
    if (info->version != nvmlGpuInstanceProfileInfo_v2) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    memset(info, 0, sizeof *info);
    info->id = id;
    info->sliceCount = 1;
    info->instanceCount = 7;
    info->memorySizeMB = 9984;
    strcpy(info->name, "MIG 1g.10gb");
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfoV(nvmlDevice_t d, unsigned int profile,
                                                  nvmlGpuInstanceProfileInfo_v2_t *info) {
    if (profile != NVML_GPU_INSTANCE_PROFILE_1_SLICE) return NVML_ERROR_INVALID_ARGUMENT;
    return gi_profile(d, 19, info);
}
nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfoByIdV(nvmlDevice_t d, unsigned int profileId,
                                                      nvmlGpuInstanceProfileInfo_v2_t *info) {
    if (profileId != 19) return NVML_ERROR_INVALID_ARGUMENT;
    return gi_profile(d, profileId, info);
}
/* "count: When zero, is set to the number of matching GPUs such that deviceArray can be
 * malloc'd. When non-zero, deviceArray will be filled with count number of device handles."
 * As driver 580.159.04 does, a non-zero count is left as given (asked for 32 with one GPU, it
 * answers one handle and a count of 32): only the zero-count probe says how many there are. */
nvmlReturn_t nvmlSystemGetTopologyGpuSet(unsigned int cpu, unsigned int *count, nvmlDevice_t *devices) {
    if (!count || cpu > 63) return NVML_ERROR_INVALID_ARGUMENT;
    if (*count == 0) { *count = 1; return NVML_SUCCESS; }
    if (!devices) return NVML_ERROR_INVALID_ARGUMENT;
    devices[0] = (nvmlDevice_t)&device;
    return NVML_SUCCESS;
}
/* "To query the number of processes under Accounting Mode, call this function with *count = 0
 * and pids=NULL. The return code will be NVML_ERROR_INSUFFICIENT_SIZE with an updated count
 * value indicating the number of processes." No process has run (driver 580.159.04 answers
 * so). */
nvmlReturn_t nvmlDeviceGetAccountingPids(nvmlDevice_t d, unsigned int *count, unsigned int *pids) {
    DEVICE(d);
    if (!count) return NVML_ERROR_INVALID_ARGUMENT;
    if (*count == 0) return NVML_ERROR_INSUFFICIENT_SIZE;
    (void)pids;
    return NVML_SUCCESS;
}
/* "Struct to hold the thermal sensor settings": driver 580.159.04 (an H200's recording, the
 * mock's `h200` profile) answers a sensor index below NVML_MAX_THERMAL_SENSORS_PER_GPU with a
 * count of 1 and the sensor in the entry of that index, the others left empty; as this does. */
nvmlReturn_t nvmlDeviceGetThermalSettings(nvmlDevice_t d, unsigned int sensorIndex, nvmlGpuThermalSettings_t *s) {
    unsigned int at;
    DEVICE(d);
    if (!s) return NVML_ERROR_INVALID_ARGUMENT;
    memset(s, 0, sizeof *s);
    at = sensorIndex < NVML_MAX_THERMAL_SENSORS_PER_GPU ? sensorIndex : 0;
    s->count = 1;
    s->sensor[at].controller = NVML_THERMAL_CONTROLLER_GPU_INTERNAL;
    s->sensor[at].defaultMinTemp = -10;
    s->sensor[at].defaultMaxTemp = 90;
    s->sensor[at].currentTemp = 40;
    s->sensor[at].target = NVML_THERMAL_TARGET_GPU;
    return NVML_SUCCESS;
}

/* "The caller passes in a buffer via pgpuMetadata, with the size of the buffer in bufferSize.
 * If the pgpuMetadata structure is too large to fit in the supplied buffer, the function
 * returns NVML_ERROR_INSUFFICIENT_SIZE with the size needed in bufferSize"; "NVML_SUCCESS GPU
 * metadata structure was successfully returned". A GPU with no metadata: it fits in 0 bytes. */
nvmlReturn_t nvmlDeviceGetVgpuMetadata(nvmlDevice_t d, nvmlVgpuPgpuMetadata_t *m, unsigned int *bufferSize) {
    DEVICE(d);
    if (!bufferSize || (!m && *bufferSize != 0)) return NVML_ERROR_INVALID_ARGUMENT;
    *bufferSize = 0;
    return NVML_SUCCESS;
}

/* "values: Array of valuesCount structures to hold field values. Each value's fieldId must be
 * populated prior to this call"; the library fills the value, its type and each value's
 * nvmlReturn. This one clears each record first: it answers no fieldId. */
nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t d, int valuesCount, nvmlFieldValue_t *values) {
    int i;
    DEVICE(d);
    if (valuesCount < 0 || (valuesCount > 0 && !values)) return NVML_ERROR_INVALID_ARGUMENT;
    for (i = 0; i < valuesCount; i++) {
        unsigned int id = values[i].fieldId;
        memset(&values[i], 0, sizeof values[i]);
        values[i].valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
        values[i].value.uiVal = id * 10;
        values[i].nvmlReturn = NVML_SUCCESS;
    }
    return NVML_SUCCESS;
}

/* A list inside a versioned record beside the output that types its entries: "sampleValType: Hold
 * the type of returned sample values"; "vgpuInstanceCount: Hold the number of vGPU instances";
 * "lastSeenTimeStamp: Return only samples with timestamp greater than lastSeenTimeStamp";
 * "NVML_ERROR_INSUFFICIENT_SIZE if the buffer size of vgpuUtilInfo->vgpuInstanceCount is too
 * small"; "NVML_ERROR_NOT_FOUND if sample entries are not found". Two vGPU instances sampled at
 * 10 and 20, their SM utilisation unsigned long longs above 2^32. */
nvmlReturn_t nvmlDeviceGetVgpuInstancesUtilizationInfo(nvmlDevice_t d, nvmlVgpuInstancesUtilizationInfo_t *info) {
    static const unsigned long long stamps[2] = {10, 20};
    unsigned int i, n = 0;
    DEVICE(d);
    if (!info) return NVML_ERROR_INVALID_ARGUMENT;
    if (info->version != nvmlVgpuInstancesUtilizationInfo_v1) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    for (i = 0; i < 2; i++) n += stamps[i] > info->lastSeenTimeStamp;
    if (n == 0) return NVML_ERROR_NOT_FOUND;
    info->sampleValType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
    if (!info->vgpuUtilArray || info->vgpuInstanceCount < n) {
        info->vgpuInstanceCount = n;
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    n = 0;
    for (i = 0; i < 2; i++) {
        if (stamps[i] <= info->lastSeenTimeStamp) continue;
        memset(&info->vgpuUtilArray[n], 0, sizeof info->vgpuUtilArray[n]);
        info->vgpuUtilArray[n].timeStamp = stamps[i];
        info->vgpuUtilArray[n].vgpuInstance = 7 + i;
        info->vgpuUtilArray[n].smUtil.ullVal = (1ULL << 40) + i;
        n++;
    }
    info->vgpuInstanceCount = n;
    return NVML_SUCCESS;
}

/* A byte buffer inside an unversioned record: "Passing params->data as NULL performs a size
 * query. In that case params->dataSize is set to the required payload size and the function
 * returns NVML_ERROR_INSUFFICIENT_SIZE when the payload is non-empty. If the context payload is
 * empty, params->dataSize is set to 0 and the function returns NVML_SUCCESS"; "dataSize: Size
 * of data on input; actual or required size on output"; "NVML_ERROR_INVALID_ARGUMENT if
 * arguments are invalid or params->index is out of range". Context 0 holds five bytes, context
 * 1 none. */
nvmlReturn_t nvmlEventSetGetContextData_v1(nvmlEventSet_t set, nvmlEventSetGetContextData_v1_t *params) {
    static const unsigned char payload[5] = {1, 2, 3, 4, 5};
    unsigned int size;
    if (!set || !params || params->index > 1) return NVML_ERROR_INVALID_ARGUMENT;
    size = params->index == 0 ? sizeof payload : 0;
    if (size == 0) {
        params->dataSize = 0;
        return NVML_SUCCESS;
    }
    if (!params->data || params->dataSize < size) {
        params->dataSize = size;
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    memcpy(params->data, payload, size);
    params->dataSize = size;
    return NVML_SUCCESS;
}

/* A list inside a versioned record: "processSamplesCount: Caller-supplied array size, and
 * returns number of processes running"; "lastSeenTimeStamp: Return only samples with timestamp
 * greater than lastSeenTimeStamp"; "NVML_ERROR_INSUFFICIENT_SIZE If procesesUtilInfo->procUtilArray
 * is NULL, or the buffer size of procesesUtilInfo->procUtilArray is too small" (with "the
 * recommended minimal buffer size at procesesUtilInfo->processSamplesCount");
 * "NVML_ERROR_ARGUMENT_VERSION_MISMATCH If the version of procesesUtilInfo is invalid";
 * "NVML_ERROR_NOT_FOUND If sample entries are not found". Three processes, sampled at 10, 20
 * and 30. */
nvmlReturn_t nvmlDeviceGetProcessesUtilizationInfo(nvmlDevice_t d, nvmlProcessesUtilizationInfo_t *info) {
    static const unsigned long long stamps[3] = {10, 20, 30};
    unsigned int i, n = 0;
    DEVICE(d);
    if (!info) return NVML_ERROR_INVALID_ARGUMENT;
    if (info->version != nvmlProcessesUtilizationInfo_v1) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    for (i = 0; i < 3; i++) n += stamps[i] > info->lastSeenTimeStamp;
    if (n == 0) return NVML_ERROR_NOT_FOUND;
    if (!info->procUtilArray || info->processSamplesCount < n) {
        info->processSamplesCount = n;
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    n = 0;
    for (i = 0; i < 3; i++) {
        if (stamps[i] <= info->lastSeenTimeStamp) continue;
        memset(&info->procUtilArray[n], 0, sizeof info->procUtilArray[n]);
        info->procUtilArray[n].timeStamp = stamps[i];
        info->procUtilArray[n].pid = 100 * (i + 1);
        info->procUtilArray[n].smUtil = 7 * (i + 1);
        n++;
    }
    info->processSamplesCount = n;
    return NVML_SUCCESS;
}

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
    let RetiredPagesWithTimestamps { addresses, timestamps, .. } =
        d.retired_pages_with_timestamps(cause).expect("three pages");
    let c = u64::from(sys::NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR);
    assert_eq!(addresses, [0x1000 + c, 0x2000 + c, 0x3000 + c]);
    assert_eq!(timestamps, [1_700_000_000, 1_700_000_001, 1_700_000_002], "one timestamp per page");
}

#[test]
fn vgpu_utilization_has_one_value_type_for_all_samples() {
    let Some(nvml) = library("vgpu_utilization_has_one_value_type_for_all_samples") else { return };
    let d = nvml.device_by_index(0).unwrap();
    // The one type the library answers types every sample (and is not returned beside them).
    let samples = d.vgpu_utilization(Some(100)).expect("three samples");
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
        Ok({
            let mut v = EncoderStats::default();
            v.session_count = 2;
            v.average_fps = 60;
            v.average_latency = 1500;
            v
        }),
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
    assert!(matches!(d.running_compute_processes(), Err(Error::Implausible(_))), "a process count of 0xFFFFFFFF");
    let v = VgpuInstance::from_id(&nvml, 1);
    assert!(matches!(v.metadata(), Err(Error::Implausible(_))), "a metadata size of 0xFFFFFFFF bytes");
    let request = NvlinkTelemetryRequest { link_id: 0, sample_type: NvlinkTelemetrySampleType(0) };
    assert!(matches!(d.nvlink_telemetry_samples(&[request]), Err(Error::Implausible(_))), "0xFFFFFFFF samples");
    let e = d.running_compute_processes().unwrap_err();
    assert_eq!(e.code(), sys::NVML_ERROR_UNKNOWN);
    assert!(e.to_string().starts_with("an implausible answer from the library"), "{e}");
}

#[test]
fn owned_sets_and_samples_are_freed_once() {
    let Some(nvml) = library("owned_sets_and_samples_are_freed_once") else { return };
    let frees = |what: &str| counter(nvml.lib(), &format!("stub_{what}_frees"));
    // Dropped: freed.
    drop(nvml.create_event_set().unwrap());
    assert_eq!(frees("event_set"), 1);
    // Freed explicitly: the library's answer, and nothing more on drop.
    assert_eq!(nvml.create_event_set().unwrap().free(), Ok(()));
    assert_eq!(frees("event_set"), 2);
    // Owned: still freed once, when the owned handle goes.
    let owned: EventSet<'static> = nvml.create_event_set().unwrap().into_owned();
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

#[test]
fn an_older_record_layout_is_retried_and_converted() {
    let Some(nvml) = library("an_older_record_layout_is_retried_and_converted") else { return };
    let d = nvml.device_by_index(0).unwrap();
    // nvmlPlatformInfo_v2 refused, v1 read; v2 renamed v1's fields (`former_names`).
    let p = d.platform_info().expect("the v1 layout after ARGUMENT_VERSION_MISMATCH");
    assert_eq!(p.ib_guid, vec![0xAB; 16]);
    assert_eq!(&p.chassis_serial_number[..9], b"RACK-0042", "rackGuid is v2's chassisSerialNumber");
    assert_eq!((p.slot_number, p.tray_index, p.host_id, p.peer_type, p.module_id), (7, 3, 2, 1, 5));
    // No _v4 symbol; nvmlDeviceGetGpuFabricInfoV refuses v3 and answers v2.
    let f = d.gpu_fabric_info().expect("the v2 layout after ARGUMENT_VERSION_MISMATCH");
    assert_eq!(f.cluster_uuid, vec![0x11; 16]);
    assert_eq!((f.status, f.state, f.health_mask), (Return::SUCCESS, sys::NVML_GPU_FABRIC_STATE_COMPLETED as u8, 5));
}

/// Driver 580.159.04 answers a GPU instance profile in layout v3 with an empty name and names
/// it in layout v2 (the library above does the same): both methods take the name from v2 and
/// the rest, `capabilities` included, from v3 (`fill_from_older`).
#[test]
fn a_profile_name_layout_v3_leaves_empty_is_taken_from_v2() {
    let Some(nvml) = library("a_profile_name_layout_v3_leaves_empty_is_taken_from_v2") else { return };
    let d = nvml.device_by_index(0).unwrap();
    let by_profile = d.gpu_instance_profile_info(GpuInstanceProfile::PROFILE_1_SLICE).unwrap();
    let by_id = d.gpu_instance_profile_info_by_id(19).unwrap();
    for p in [by_profile, by_id] {
        assert_eq!(p.name, "MIG 1g.10gb");
        assert_eq!((p.id, p.slice_count, p.instance_count, p.memory_size_mb, p.capabilities), (19, 1, 7, 9984, 2));
    }
    assert_eq!(d.gpu_instance_profile_info(GpuInstanceProfile(3)), Err(Error::InvalidArgument));
}

#[test]
fn samples_are_read_as_the_value_type_the_library_answers() {
    let Some(nvml) = library("samples_are_read_as_the_value_type_the_library_answers") else { return };
    let d = nvml.device_by_index(0).unwrap();
    let read = |t: u32| {
        let samples = d.samples(SamplingType(t), Some(10)).expect("two samples");
        samples.iter().map(|s| (s.time_stamp, s.sample_value)).collect::<Vec<_>>()
    };
    assert_eq!(
        read(sys::NVML_TOTAL_POWER_SAMPLES),
        vec![(11, Value::UnsignedInt(150_000)), (12, Value::UnsignedInt(150_001))]
    );
    assert_eq!(read(77), vec![(11, Value::Double(0.5)), (12, Value::Double(1.5))]);
    // A value type newer than the header: kept, with the union's bits, never read as another.
    let bits = 0x0102_0304_0506_0708;
    let unknown = Value::Unknown { value_type: ValueType(42), bits };
    assert_eq!(read(sys::NVML_SAMPLINGTYPE_COUNT), vec![(11, unknown), (12, unknown)]);
}

#[test]
fn vgpu_scheduler_params_are_read_by_the_arr_mode() {
    let Some(nvml) = library("vgpu_scheduler_params_are_read_by_the_arr_mode") else { return };
    let d = nvml.device_by_index(0).unwrap();
    #[allow(deprecated)]
    let state = d.vgpu_scheduler_state_legacy().expect("the state");
    let arr = {
        let mut v = VgpuSchedulerParamsVgpuSchedDataWithARR::default();
        v.avg_factor = 3;
        v.timeslice = 2_000_000;
        v
    };
    assert_eq!(state.scheduler_params, VgpuSchedulerParams::VgpuSchedDataWithArr(arr));
    assert_eq!(state.scheduler_params.tag(), sys::NVML_VGPU_SCHEDULER_ARR_ENABLE as u32);

    // Setting builds the union from the enum, and the tag (`enableARRMode`) with it.
    let with_arr = {
        let mut v = VgpuSchedulerSetParamsVgpuSchedDataWithARR::default();
        v.avg_factor = 9;
        v.frequency = 480;
        v
    };
    let set = |params| {
        let mut v = VgpuSchedulerSetState::default();
        v.scheduler_policy = 2;
        v.scheduler_params = params;
        v
    };
    #[allow(deprecated)]
    d.set_vgpu_scheduler_state_legacy(&set(VgpuSchedulerSetParams::VgpuSchedDataWithArr(with_arr))).expect("ARR set");
    assert_eq!(counter(nvml.lib(), "stub_set_frequency"), 480, "the frequency reached the ARR member");
    let plain = VgpuSchedulerSetParams::VgpuSchedData({
        let mut v = VgpuSchedulerSetParamsVgpuSchedData::default();
        v.timeslice = 1_000;
        v
    });
    #[allow(deprecated)]
    d.set_vgpu_scheduler_state_legacy(&set(plain)).expect("plain set");
    #[allow(deprecated)]
    let state = d.vgpu_scheduler_state_legacy().expect("the state");
    assert_eq!(
        state.scheduler_params,
        VgpuSchedulerParams::VgpuSchedData({
            let mut v = VgpuSchedulerParamsVgpuSchedData::default();
            v.timeslice = 1_000;
            v
        }),
        "ARR disabled: the timeslice is the union's first word"
    );
    // A tag no member is named for reaches the library as it is, which refuses it.
    let unknown = VgpuSchedulerSetParams::Unknown { tag: 7, bytes: vec![1, 0, 0, 0] };
    #[allow(deprecated)]
    let refused = d.set_vgpu_scheduler_state_legacy(&set(unknown));
    assert_eq!(refused, Err(Error::InvalidArgument));

    // ARR_DEFAULT: the header names no member; the bytes stay as the library wrote them.
    #[allow(deprecated)]
    let log = d.vgpu_scheduler_log_legacy().expect("the log");
    let mut bytes = 5u32.to_ne_bytes().to_vec();
    bytes.extend(6u32.to_ne_bytes());
    assert_eq!(
        log.scheduler_params,
        VgpuSchedulerParams::Unknown { tag: sys::NVML_VGPU_SCHEDULER_ARR_DEFAULT as u32, bytes }
    );
}

#[test]
fn uuid_values_are_written_by_their_type() {
    let Some(nvml) = library("uuid_values_are_written_by_their_type") else { return };
    let found = |value| {
        nvml.device_by_uuid_struct(&{
            let mut v = UUID::default();
            v.value = value;
            v
        })
        .map(|d| d.as_raw())
    };
    let device = nvml.device_by_index(0).unwrap().as_raw();
    assert_eq!(found(UuidValue::Str("GPU-00010203-0405-0607-0809-0a0b0c0d0e0f".into())), Ok(device));
    assert_eq!(found(UuidValue::Bytes((0..16).collect())), Ok(device));
    assert_eq!(found(UuidValue::Bytes((1..17).collect())), Err(Error::NotFound));
    assert_eq!(found(UuidValue::default()), Err(Error::InvalidArgument), "NVML_UUID_TYPE_NONE");
    assert_eq!(UuidValue::default().tag(), sys::NVML_UUID_TYPE_NONE);
}

#[test]
fn prm_data_is_one_buffer_in_and_out() {
    let Some(nvml) = library("prm_data_is_one_buffer_in_and_out") else { return };
    let d = nvml.device_by_index(0).unwrap();
    let out = d
        .read_write_prm(&{
            let mut v = PRMTLV::default();
            v.data_size = 4;
            v.data = vec![1, 2, 3, 4];
            v
        })
        .expect("read");
    assert_eq!(out.data.len(), sys::NVML_PRM_DATA_MAX_SIZE as usize);
    assert_eq!(out.data[..5], [4, 3, 2, 1, 0xAB], "the input reached inData, the answer came from outData");
}

#[test]
fn perf_metric_controller_data_is_read_by_its_type() {
    let Some(nvml) = library("perf_metric_controller_data_is_read_by_its_type") else { return };
    let d = nvml.device_by_index(0).unwrap();
    let samples = d.perf_metrics_samples().expect("samples");
    let data: Vec<&PerfMetricControllerData> =
        samples.samples[0].controller_data.iter().take(2).map(|c| &c.data).collect();
    match data[0] {
        PerfMetricControllerData::Pfpp1x(p) => assert_eq!(p.estimated_metrics.tgp_headroomm_w, 1234),
        other => panic!("PFPP 1x data read as {other:?}"),
    }
    match data[1] {
        PerfMetricControllerData::Unknown { tag: 7, bytes } => {
            assert_eq!(bytes.len(), core::mem::size_of::<sys::nvmlPerfMetricControllerSample_t_data>());
            assert_eq!(bytes[..2], [0x5A, 0]);
        }
        other => panic!("an unknown controller type read as {other:?}"),
    }
}

#[test]
fn a_count_the_library_leaves_unchanged_is_not_trusted() {
    let Some(nvml) = library("a_count_the_library_leaves_unchanged_is_not_trusted") else { return };
    let gpus = nvml.topology_gpu_set(0).expect("the GPUs of CPU 0");
    let device = nvml.device_by_index(0).unwrap();
    assert_eq!(gpus.len(), 1, "sized by the zero-count probe, not by a capacity the library echoes");
    assert_eq!(gpus[0].as_raw(), device.as_raw());
}

#[test]
fn a_size_probe_answering_insufficient_size_and_no_count_is_an_empty_list() {
    let Some(nvml) = library("a_size_probe_answering_insufficient_size_and_no_count_is_an_empty_list") else { return };
    let d = nvml.device_by_index(0).unwrap();
    assert_eq!(d.accounting_pids(), Ok(vec![]));
}

/// The thermal settings keep every entry of the record: the driver puts sensor `i` in entry
/// `i` with a count of 1 (recorded on an H200), so the count does not say which entries hold
/// sensors.
#[test]
fn thermal_settings_keep_every_entry() {
    let Some(nvml) = library("thermal_settings_keep_every_entry") else { return };
    let d = nvml.device_by_index(0).unwrap();
    for index in [0, 1, 2] {
        let s = d.thermal_settings(index).unwrap();
        assert_eq!(s.count, 1);
        let temps: Vec<i32> = s.sensor.iter().map(|x| x.current_temp).collect();
        let mut want = vec![0; sys::NVML_MAX_THERMAL_SENSORS_PER_GPU as usize];
        want[index as usize] = 40;
        assert_eq!(temps, want, "sensor {index} in entry {index}");
    }
}

/// A size query answered with success and a size of 0 is no metadata, not an error (as a
/// count of 0 is an empty list).
#[test]
fn metadata_of_no_size_is_empty() {
    let Some(nvml) = library("metadata_of_no_size_is_empty") else { return };
    let blob = nvml.device_by_index(0).unwrap().vgpu_metadata().expect("no metadata is no error");
    assert!(blob.as_bytes().is_empty());
}

/// Each field value answers for the id asked for, whatever the library left in the record.
#[test]
fn field_values_answer_for_the_ids_asked() {
    let Some(nvml) = library("field_values_answer_for_the_ids_asked") else { return };
    let d = nvml.device_by_index(0).unwrap();
    let asked = [FieldId::DEV_ECC_CURRENT, FieldId::DEV_POWER_INSTANT];
    let got: Vec<(FieldId, Value)> = d
        .field_values(&asked)
        .unwrap()
        .into_iter()
        .map(|v| {
            let v = v.unwrap();
            (v.field_id, v.value)
        })
        .collect();
    assert_eq!(
        got,
        [
            (FieldId::DEV_ECC_CURRENT, Value::UnsignedInt(FieldId::DEV_ECC_CURRENT.0 * 10)),
            (FieldId::DEV_POWER_INSTANT, Value::UnsignedInt(FieldId::DEV_POWER_INSTANT.0 * 10))
        ]
    );
}

/// A list inside a versioned record (a generated method of `Role::RecordList`): the record
/// goes with its version and its input (the filter), the size query's count sizes the array,
/// and the list is the entries the library wrote.
#[test]
fn a_list_inside_a_record_is_fetched_with_its_inputs() {
    let Some(nvml) = library("a_list_inside_a_record_is_fetched_with_its_inputs") else { return };
    let d = nvml.device_by_index(0).unwrap();
    let read = |since| -> Result<Vec<(u32, u64, u32)>, Error> {
        Ok(d.processes_utilization_info(since)?.iter().map(|p| (p.pid, p.time_stamp, p.sm_util)).collect())
    };
    assert_eq!(read(0), Ok(vec![(100, 10, 7), (200, 20, 14), (300, 30, 21)]));
    assert_eq!(read(15), Ok(vec![(200, 20, 14), (300, 30, 21)]));
    assert_eq!(read(30), Err(Error::NotFound));
}

/// A list inside a versioned record whose entries the output beside it types: each sample's
/// values read as the `sampleValType` the library answered (unsigned long longs, which an
/// unsigned int reading would cut).
#[test]
fn a_list_inside_a_record_is_read_by_the_type_beside_it() {
    let Some(nvml) = library("a_list_inside_a_record_is_read_by_the_type_beside_it") else { return };
    let d = nvml.device_by_index(0).unwrap();
    let read = |since| -> Result<Vec<(u64, u32, Value)>, Error> {
        Ok(d.vgpu_instances_utilization_info(since)?
            .iter()
            .map(|s| (s.time_stamp, s.vgpu_instance, s.sm_util))
            .collect())
    };
    let big = 1u64 << 40;
    assert_eq!(read(0), Ok(vec![(10, 7, Value::UnsignedLongLong(big)), (20, 8, Value::UnsignedLongLong(big + 1))]));
    assert_eq!(read(10), Ok(vec![(20, 8, Value::UnsignedLongLong(big + 1))]));
    assert_eq!(read(20), Err(Error::NotFound));
}

/// A byte buffer inside an unversioned record: the size query's answer sizes the buffer, an
/// empty payload is an empty list (success with no size), a bad index the library's error.
#[test]
fn a_byte_buffer_inside_a_record_is_fetched_by_its_size() {
    let Some(nvml) = library("a_byte_buffer_inside_a_record_is_fetched_by_its_size") else { return };
    let set = nvml.create_event_set().expect("an event set");
    assert_eq!(set.context_data(0), Ok(vec![1, 2, 3, 4, 5]));
    assert_eq!(set.context_data(1), Ok(Vec::new()));
    assert_eq!(set.context_data(2), Err(Error::InvalidArgument));
}
