/*
 * nvmlGpmMetricsGet with the record of each header: NVML_GPM_METRICS_GET_VERSION is 1 in
 * every header, while NVML_GPM_METRIC_MAX (the length of `metrics[]`) is 98 up to 12.8, 210 in
 * 12.9 to 13.1, 333 in 13.2 and 13.3 (go-nvml's) and 477 from 13.4 on. A client built against
 * an older header passes a shorter record: the mock must touch only the `numMetrics` entries
 * asked for. Each record is placed so that it ends where a PROT_NONE page begins (a read or
 * write past it faults), and again so that it starts right after one with a canary after it.
 * Runs against the `h100` profile: GPU 0's GPM rates are SM_UTIL 37 and DRAM_BW_UTIL 12.
 * Prints one line per failed check; exits with the number of failures.
 */
#include <stdio.h>
#include <string.h>
#include "nvml.h"
#include "check.h"
#include "guard.h"

/* The record of a header whose NVML_GPM_METRIC_MAX is N. */
#define LAYOUT(N)                            \
    typedef struct {                         \
        unsigned int version;                \
        unsigned int numMetrics;             \
        nvmlGpmSample_t sample1;             \
        nvmlGpmSample_t sample2;             \
        nvmlGpmMetric_t metrics[N];          \
    } metrics_##N##_t;
LAYOUT(98)
LAYOUT(210)
LAYOUT(333)
LAYOUT(477)

/* The newest layout is the vendored header's own. */
_Static_assert(sizeof(metrics_477_t) == sizeof(nvmlGpmMetricsGet_t), "477 metrics: 13.5.37's record");
_Static_assert(sizeof(metrics_333_t) == 13344, "333 metrics: go-nvml's 13.3.29 record");

static nvmlGpmSample_t s1, s2;

/* Asks for `asked` metrics of a record of `capacity` entries placed as `at_end` says: the
 * first is SM_UTIL, the second DRAM_BW_UTIL, the rest GRAPHICS_UTIL. */
static void one(size_t capacity, unsigned int asked, int at_end) {
    size_t size = offsetof(nvmlGpmMetricsGet_t, metrics) + capacity * sizeof(nvmlGpmMetric_t);
    guarded_t g = at_end ? guarded_end(size) : guarded_start(size);
    CHECK(g.map != NULL);
    if (!g.map) return;
    nvmlGpmMetricsGet_t *m = (nvmlGpmMetricsGet_t *)g.buf;
    memset(m, 0, size);
    m->version = NVML_GPM_METRICS_GET_VERSION;
    m->numMetrics = asked;
    m->sample1 = s1;
    m->sample2 = s2;
    for (unsigned int i = 0; i < asked; i++) {
        m->metrics[i].metricId = i == 0 ? NVML_GPM_METRIC_SM_UTIL
                               : i == 1 ? NVML_GPM_METRIC_DRAM_BW_UTIL
                                        : NVML_GPM_METRIC_GRAPHICS_UTIL;
        m->metrics[i].nvmlReturn = NVML_ERROR_UNKNOWN;
        m->metrics[i].value = -1.0;
    }
    nvmlReturn_t r = nvmlGpmMetricsGet(m);
    if (r != NVML_SUCCESS) printf("capacity %zu, %u asked: %s\n", capacity, asked, nvmlErrorString(r));
    CHECK(r == NVML_SUCCESS);
    if (asked > 0) {
        CHECK(m->metrics[0].nvmlReturn == NVML_SUCCESS);
        CHECK(m->metrics[0].value == 37.0);
    }
    if (asked > 1) {
        CHECK(m->metrics[1].nvmlReturn == NVML_SUCCESS);
        CHECK(m->metrics[1].value == 12.0);
    }
    for (unsigned int i = 2; i < asked; i++) {
        CHECK(m->metrics[i].nvmlReturn == NVML_SUCCESS);
        CHECK(m->metrics[i].value == 37.0);
    }
    /* Entries past numMetrics are the caller's own: left as they were (zero). */
    for (size_t i = asked; i < capacity; i++) {
        CHECK(m->metrics[i].metricId == 0 && m->metrics[i].nvmlReturn == 0 && m->metrics[i].value == 0.0);
    }
    CHECK(m->version == NVML_GPM_METRICS_GET_VERSION && m->numMetrics == asked);
    CHECK(guard_intact(&g));
    guard_free(&g);
}

int main(void) {
    if (nvmlInit_v2() != NVML_SUCCESS) {
        printf("FAIL nvmlInit_v2\n");
        return 1;
    }
    nvmlDevice_t d0;
    CHECK(nvmlDeviceGetHandleByIndex_v2(0, &d0) == NVML_SUCCESS);
    CHECK(nvmlGpmSampleAlloc(&s1) == NVML_SUCCESS);
    CHECK(nvmlGpmSampleAlloc(&s2) == NVML_SUCCESS);
    CHECK(nvmlGpmSampleGet(d0, s1) == NVML_SUCCESS);
    usleep(2000);
    CHECK(nvmlGpmSampleGet(d0, s2) == NVML_SUCCESS);

    size_t capacities[] = {98, 210, 333, 477};
    for (int c = 0; c < 4; c++) {
        size_t cap = capacities[c];
        unsigned int counts[] = {0, 1, 2, (unsigned int)cap};
        for (int k = 0; k < 4; k++) {
            one(cap, counts[k], 1);
            one(cap, counts[k], 0);
        }
    }

    /* A count above what any header's record holds: INVALID_ARGUMENT, and nothing written
     * (the record read is only its head, so a record of any size is safe). */
    {
        size_t size = offsetof(nvmlGpmMetricsGet_t, metrics) + sizeof(nvmlGpmMetric_t);
        guarded_t g = guarded_end(size);
        CHECK(g.map != NULL);
        if (g.map) {
            nvmlGpmMetricsGet_t *m = (nvmlGpmMetricsGet_t *)g.buf;
            memset(m, 0, size);
            m->version = NVML_GPM_METRICS_GET_VERSION;
            m->numMetrics = NVML_GPM_METRIC_MAX + 1;
            m->sample1 = s1;
            m->sample2 = s2;
            m->metrics[0].metricId = NVML_GPM_METRIC_SM_UTIL;
            CHECK(nvmlGpmMetricsGet(m) == NVML_ERROR_INVALID_ARGUMENT);
            CHECK(m->metrics[0].nvmlReturn == 0 && m->metrics[0].value == 0.0);
            m->numMetrics = 0xFFFFFFFFu;
            CHECK(nvmlGpmMetricsGet(m) == NVML_ERROR_INVALID_ARGUMENT);
            CHECK(guard_intact(&g));
            guard_free(&g);
        }
    }

    /* Another version word: ARGUMENT_VERSION_MISMATCH, whatever the count. */
    {
        size_t size = offsetof(nvmlGpmMetricsGet_t, metrics);
        guarded_t g = guarded_end(size);
        if (g.map) {
            nvmlGpmMetricsGet_t *m = (nvmlGpmMetricsGet_t *)g.buf;
            memset(m, 0, size);
            m->version = NVML_GPM_METRICS_GET_VERSION + 1;
            m->numMetrics = 1;
            CHECK(nvmlGpmMetricsGet(m) == NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
            CHECK(guard_intact(&g));
            guard_free(&g);
        }
    }

    CHECK(nvmlGpmSampleFree(s1) == NVML_SUCCESS);
    CHECK(nvmlGpmSampleFree(s2) == NVML_SUCCESS);
    CHECK(nvmlShutdown() == NVML_SUCCESS);
    if (failures == 0) printf("ok: nvmlGpmMetricsGet with the records of 98, 210, 333 and 477 metrics\n");
    return failures;
}
