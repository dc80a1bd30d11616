/*
 * A client of NVML written from nvml.h's text (the vendored 13.5.37 header, included as is),
 * not from the generator's model: each check quotes the sentence of the header it follows.
 * It runs against the mock with the profile tests/header_protocols.rs writes: the T4 of the
 * `t4` profile with three retired pages on device 0, and the L40S's encoder on device 1 (see
 * that file). Prints one line per failed check; exits with the number of failures.
 */
#include <stdio.h>
#include <string.h>
#include "nvml.h"
#include "check.h"

/* A value no check expects: what a function must not write. */
#define CANARY 0xC0FFEEC0FFEEULL

int main(void) {
    if (nvmlInit_v2() != NVML_SUCCESS) {
        printf("FAIL nvmlInit_v2\n");
        return 1;
    }
    nvmlDevice_t d0, d1;
    CHECK(nvmlDeviceGetHandleByIndex_v2(0, &d0) == NVML_SUCCESS);
    CHECK(nvmlDeviceGetHandleByIndex_v2(1, &d1) == NVML_SUCCESS);

    /* nvmlDeviceGetRetiredPages_v2: "pageCount: Reference in which to provide the addresses
     * buffer size, and to return the number of retired pages that match cause. Set to 0 to
     * query the size without allocating an addresses buffer"; "INSUFFICIENT_SIZE if pageCount
     * indicates the buffer is not large enough to store all the matching page addresses.
     * pageCount is set to the needed size."; "timestamps: Buffer to write the timestamps of
     * page retirement": a buffer of pageCount entries, like addresses. */
    {
        nvmlPageRetirementCause_t cause = NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS;
        unsigned int count = 0;
        CHECK(nvmlDeviceGetRetiredPages_v2(d0, cause, &count, NULL, NULL) == NVML_ERROR_INSUFFICIENT_SIZE);
        CHECK(count == 3);
        unsigned long long addresses[4], timestamps[4];
        for (int i = 0; i < 4; i++) addresses[i] = timestamps[i] = CANARY;
        count = 2;
        CHECK(nvmlDeviceGetRetiredPages_v2(d0, cause, &count, addresses, timestamps) == NVML_ERROR_INSUFFICIENT_SIZE);
        CHECK(count == 3);
        count = 3;
        CHECK(nvmlDeviceGetRetiredPages_v2(d0, cause, &count, addresses, timestamps) == NVML_SUCCESS);
        CHECK(count == 3);
        CHECK(addresses[0] == 0x1000 && addresses[1] == 0x2000 && addresses[2] == 0x3000);
        for (int i = 0; i < 3; i++) CHECK(timestamps[i] != 0 && timestamps[i] != CANARY);
        CHECK(addresses[3] == CANARY && timestamps[3] == CANARY);
        /* "INVALID_ARGUMENT if ... pageCount is NULL". */
        CHECK(nvmlDeviceGetRetiredPages_v2(d0, cause, NULL, addresses, timestamps) == NVML_ERROR_INVALID_ARGUMENT);
    }

    /* nvmlDeviceGetEncoderStats: "sessionCount: Reference to an unsigned int for count of
     * active encoder sessions", "averageFps: Reference to an unsigned int for trailing average
     * FPS of all active sessions", "averageLatency: Reference to an unsigned int for encode
     * latency in microseconds"; "INVALID_ARGUMENT if sessionCount, or device or averageFps, or
     * averageLatency is NULL". Device 1 has two sessions (60 and 30 fps, 1000 and 3000 us). */
    {
        unsigned int sessions = 99, fps = 99, latency = 99;
        CHECK(nvmlDeviceGetEncoderStats(d1, NULL, &fps, &latency) == NVML_ERROR_INVALID_ARGUMENT);
        CHECK(nvmlDeviceGetEncoderStats(d1, &sessions, NULL, &latency) == NVML_ERROR_INVALID_ARGUMENT);
        CHECK(nvmlDeviceGetEncoderStats(d1, &sessions, &fps, NULL) == NVML_ERROR_INVALID_ARGUMENT);
        CHECK(sessions == 99 && fps == 99 && latency == 99);
        CHECK(nvmlDeviceGetEncoderStats(d1, &sessions, &fps, &latency) == NVML_SUCCESS);
        CHECK(sessions == 2 && fps == 45 && latency == 2000);
        /* Device 0 encodes nothing: "sessionCount ... count of active encoder sessions". */
        CHECK(nvmlDeviceGetEncoderStats(d0, &sessions, &fps, &latency) == NVML_SUCCESS);
        CHECK(sessions == 0);
    }

    /* nvmlDeviceGetSupportedPerformanceStates: "size: Size of the supplied pstates array in
     * bytes"; "If the number of supported P-States is fewer than the size of the array supplied
     * missing elements would contain NVML_PSTATE_UNKNOWN"; "INSUFFICIENT_SIZE if the the
     * container supplied was not large enough to hold the resulting list". The T4 supports
     * P0 and P8. */
    {
        nvmlPstates_t pstates[8];
        for (int i = 0; i < 8; i++) pstates[i] = (nvmlPstates_t)77;
        CHECK(nvmlDeviceGetSupportedPerformanceStates(d0, pstates, 4 * sizeof(nvmlPstates_t)) == NVML_SUCCESS);
        CHECK(pstates[0] == NVML_PSTATE_0 && pstates[1] == NVML_PSTATE_8);
        CHECK(pstates[2] == NVML_PSTATE_UNKNOWN && pstates[3] == NVML_PSTATE_UNKNOWN);
        /* Four entries' bytes: nothing past them. */
        CHECK(pstates[4] == (nvmlPstates_t)77 && pstates[7] == (nvmlPstates_t)77);
        CHECK(nvmlDeviceGetSupportedPerformanceStates(d0, pstates, sizeof(nvmlPstates_t)) == NVML_ERROR_INSUFFICIENT_SIZE);
        /* "INVALID_ARGUMENT if device or pstates is invalid". */
        CHECK(nvmlDeviceGetSupportedPerformanceStates(d0, NULL, sizeof(pstates)) == NVML_ERROR_INVALID_ARGUMENT);
    }

    /* nvmlSystemGetHicVersion: "The hwbcCount argument is expected to be set to the size of
     * the input hwbcEntries array"; "INVALID_ARGUMENT if either hwbcCount or hwbcEntries is
     * NULL". No HIC is attached: the count becomes 0. Driver 580.159.04 answers a NULL array
     * with a count of 0 (NVIDIA's Python binding's call) with NVML_SUCCESS, which the mock does
     * too (crates/nvml-mock/tests/real/). */
    {
        nvmlHwbcEntry_t entries[4];
        unsigned int count = 4;
        CHECK(nvmlSystemGetHicVersion(NULL, entries) == NVML_ERROR_INVALID_ARGUMENT);
        CHECK(nvmlSystemGetHicVersion(&count, NULL) == NVML_ERROR_INVALID_ARGUMENT);
        count = 0;
        CHECK(nvmlSystemGetHicVersion(&count, NULL) == NVML_SUCCESS);
        CHECK(count == 0);
        count = 4;
        CHECK(nvmlSystemGetHicVersion(&count, entries) == NVML_SUCCESS);
        CHECK(count == 0);
    }

    /* nvmlUnitGetDevices: "The deviceCount argument is expected to be set to the size of the
     * input devices array"; "INVALID_ARGUMENT if unit is invalid, either of deviceCount or
     * devices is NULL". nvmlUnitGetCount: no unit here, so no handle is valid. */
    {
        unsigned int units = 99, count = 4;
        nvmlDevice_t devices[4];
        CHECK(nvmlUnitGetCount(&units) == NVML_SUCCESS && units == 0);
        CHECK(nvmlUnitGetDevices((nvmlUnit_t)0, NULL, devices) == NVML_ERROR_INVALID_ARGUMENT);
        CHECK(nvmlUnitGetDevices((nvmlUnit_t)0, &count, NULL) == NVML_ERROR_INVALID_ARGUMENT);
    }

    /* nvmlDeviceGetName: "INVALID_ARGUMENT if device is invalid, or name is NULL";
     * "INSUFFICIENT_SIZE if length is too small". */
    {
        char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
        CHECK(nvmlDeviceGetName(d0, NULL, sizeof(name)) == NVML_ERROR_INVALID_ARGUMENT);
        CHECK(nvmlDeviceGetName(d0, name, 3) == NVML_ERROR_INSUFFICIENT_SIZE);
        CHECK(nvmlDeviceGetName(d0, name, sizeof(name)) == NVML_SUCCESS && strcmp(name, "Tesla T4") == 0);
        CHECK(nvmlDeviceGetName((nvmlDevice_t)0x10, name, sizeof(name)) == NVML_ERROR_INVALID_ARGUMENT);
    }

    /* nvmlDeviceGetComputeRunningProcesses_v3: "infoCount: Reference in which to provide the
     * infos array size, and to return the number of returned elements"; "INSUFFICIENT_SIZE if
     * infoCount indicates that the infos array is too small"; "INVALID_ARGUMENT if ... either
     * of infoCount or infos is NULL". Device 0 runs two. */
    {
        nvmlProcessInfo_t infos[2];
        unsigned int count = 1;
        CHECK(nvmlDeviceGetComputeRunningProcesses_v3(d0, &count, infos) == NVML_ERROR_INSUFFICIENT_SIZE);
        CHECK(count == 2);
        CHECK(nvmlDeviceGetComputeRunningProcesses_v3(d0, &count, infos) == NVML_SUCCESS);
        CHECK(count == 2 && infos[0].pid == 4242 && infos[1].pid == 4250);
        CHECK(nvmlDeviceGetComputeRunningProcesses_v3(d0, NULL, infos) == NVML_ERROR_INVALID_ARGUMENT);
    }

    /* nvmlDeviceGetFieldValues: "SUCCESS if any values in values were populated";
     * "INVALID_ARGUMENT if device is invalid or values is NULL". */
    {
        nvmlFieldValue_t v;
        memset(&v, 0, sizeof(v));
        v.fieldId = NVML_FI_DEV_ECC_CURRENT;
        CHECK(nvmlDeviceGetFieldValues(d0, 1, NULL) == NVML_ERROR_INVALID_ARGUMENT);
        CHECK(nvmlDeviceGetFieldValues(d0, 0, &v) != NVML_SUCCESS);
        CHECK(nvmlDeviceGetFieldValues(d0, 1, &v) == NVML_SUCCESS && v.nvmlReturn == NVML_SUCCESS);
    }

    /* nvmlDeviceGetTopologyNearestGpus: "count: When zero, is set to the number of matching
     * GPUs such that deviceArray can be malloc'd. When non-zero, deviceArray will be filled
     * with count number of device handles"; "INVALID_ARGUMENT if ... deviceArray is NULL with
     * a non-zero count". */
    {
        unsigned int count = 0;
        nvmlDevice_t near[8];
        CHECK(nvmlDeviceGetTopologyNearestGpus(d0, NVML_TOPOLOGY_SYSTEM, &count, NULL) == NVML_SUCCESS);
        CHECK(count == 7);
        CHECK(nvmlDeviceGetTopologyNearestGpus(d0, NVML_TOPOLOGY_SYSTEM, &count, NULL) == NVML_ERROR_INVALID_ARGUMENT);
        CHECK(nvmlDeviceGetTopologyNearestGpus(d0, NVML_TOPOLOGY_SYSTEM, &count, near) == NVML_SUCCESS);
        CHECK(count == 7 && near[0] == d1);
    }

    /* nvmlDeviceGetCpuAffinity: "INVALID_ARGUMENT if device is invalid, cpuSetSize == 0, or
     * cpuSet is NULL". */
    {
        unsigned long set[4];
        CHECK(nvmlDeviceGetCpuAffinity(d0, 0, set) == NVML_ERROR_INVALID_ARGUMENT);
        CHECK(nvmlDeviceGetCpuAffinity(d0, 4, NULL) == NVML_ERROR_INVALID_ARGUMENT);
        CHECK(nvmlDeviceGetCpuAffinity(d0, 4, set) == NVML_SUCCESS);
    }

    /* nvmlDeviceGetSamples: "INVALID_ARGUMENT if device is invalid, samplesCount is NULL or
     * reference to sampleCount is 0 for non null samples". */
    {
        nvmlValueType_t type;
        unsigned int count = 0;
        nvmlSample_t samples[4];
        CHECK(nvmlDeviceGetSamples(d0, NVML_TOTAL_POWER_SAMPLES, 0, &type, NULL, samples) == NVML_ERROR_INVALID_ARGUMENT);
        CHECK(nvmlDeviceGetSamples(d0, NVML_TOTAL_POWER_SAMPLES, 0, &type, &count, samples) == NVML_ERROR_INVALID_ARGUMENT);
        count = 4;
        CHECK(nvmlDeviceGetSamples(d0, NVML_TOTAL_POWER_SAMPLES, 0, &type, &count, samples) == NVML_SUCCESS);
        CHECK(count == 4 && type == NVML_VALUE_TYPE_UNSIGNED_INT && samples[3].sampleValue.uiVal == 9000);
    }

    /* nvmlDeviceGetPgpuMetadataString: "If the string is too large to fit in the supplied
     * buffer, the function returns NVML_ERROR_INSUFFICIENT_SIZE with the size needed in
     * bufferSize"; "INVALID_ARGUMENT If bufferSize is NULL ...; if pgpuMetadata is NULL and
     * the value of bufferSize is not 0". The T4 is no vGPU host: NOT_SUPPORTED after the
     * argument checks. */
    {
        unsigned int size = 4;
        CHECK(nvmlDeviceGetPgpuMetadataString(d1, NULL, NULL) == NVML_ERROR_INVALID_ARGUMENT);
        CHECK(nvmlDeviceGetPgpuMetadataString(d1, NULL, &size) == NVML_ERROR_INVALID_ARGUMENT);
        size = 0;
        CHECK(nvmlDeviceGetPgpuMetadataString(d1, NULL, &size) == NVML_ERROR_INSUFFICIENT_SIZE);
        CHECK(size > 1);
        char buf[256];
        unsigned int short_size = size - 1;
        CHECK(nvmlDeviceGetPgpuMetadataString(d1, buf, &short_size) == NVML_ERROR_INSUFFICIENT_SIZE);
        CHECK(short_size == size);
        CHECK(nvmlDeviceGetPgpuMetadataString(d1, buf, &size) == NVML_SUCCESS && strlen(buf) == size - 1);
    }

    /* nvmlDeviceGetMaxMigDeviceCount: "Returns zero if MIG is not supported or enabled". The
     * T4 predates MIG: nvml.h documents the function "For Ampere or newer". */
    {
        unsigned int count = 99;
        CHECK(nvmlDeviceGetMaxMigDeviceCount(d0, &count) == NVML_ERROR_NOT_SUPPORTED);
    }

    /* nvmlDeviceGetMemoryInfo_v2: "INVALID_ARGUMENT if device is invalid or memory is NULL".
     * nvml.h lists no code for another version of the struct: driver 580.159.04 answers
     * FUNCTION_NOT_FOUND (read on an H200 and an H100), and so does the mock. */
    {
        nvmlMemory_v2_t memory;
        memset(&memory, 0, sizeof(memory));
        CHECK(nvmlDeviceGetMemoryInfo_v2(d0, NULL) == NVML_ERROR_INVALID_ARGUMENT);
        memory.version = 1;
        CHECK(nvmlDeviceGetMemoryInfo_v2(d0, &memory) == NVML_ERROR_FUNCTION_NOT_FOUND);
        memory.version = nvmlMemory_v2;
        CHECK(nvmlDeviceGetMemoryInfo_v2(d0, &memory) == NVML_SUCCESS);
        CHECK(memory.used + memory.reserved + memory.free == memory.total);
    }

    CHECK(nvmlShutdown() == NVML_SUCCESS);
    return failures;
}
