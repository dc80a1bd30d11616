/* The guard-page harness of the CUDA mock (tests/clients.rs): every function the mock answers
 * (gen-config/cuda.yaml's `hand_written`) that takes a pointer is called with each pointed-to
 * buffer placed so that it ends exactly where a PROT_NONE page begins, and again so that it
 * starts right after one (tests/c/guard.h of the NVML mock); the bytes of its pages outside it
 * hold a canary that must come back unchanged. Sizes are cuda.h's (`sizeof`), strings and text
 * buffers end at the guard, text buffers are given lengths 0, 1, a few bytes and plenty. The
 * header is compiled with __CUDA_API_VERSION_INTERNAL, so every name is the symbol it spells:
 * `cuDeviceTotalMem` is the legacy 32-bit one, `cuDeviceTotalMem_v2` today's.
 *
 * Prints "CALLED name" once for each function it calls, "FAIL ..." for each buffer a call
 * touched outside itself, and "ok (N failures)" at the end; a fault prints "FAULT name" and
 * exits 139.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda.h"
#include "guard.h"

static const char *current = "(start)";
static int current_place = -1;
static long failures;

static void on_fault(int sig) {
    char line[256];
    int n = snprintf(line, sizeof line, "FAULT %s place %s (signal %d)\n", current,
                     current_place == 0 ? "start" : "end", sig);
    if (n > 0) { ssize_t w = write(1, line, (size_t)n); (void)w; }
    _exit(139);
}

/* The functions called so far, each printed once. */
static const char *called[256];
static int n_called;

static void begin(const char *fn, int place) {
    current = fn;
    current_place = place;
    for (int i = 0; i < n_called; i++)
        if (strcmp(called[i], fn) == 0) return;
    if (n_called < 256) called[n_called++] = fn;
    printf("CALLED %s\n", fn);
}

static guarded_t guarded(size_t size, int place) {
    guarded_t g = place ? guarded_end(size) : guarded_start(size);
    if (!g.map) { printf("FAIL mmap\n"); exit(2); }
    return g;
}

static void check(guarded_t *g, const char *what) {
    if (!guard_intact(g)) {
        printf("FAIL %s: %s place %s: a byte outside its %zu bytes changed\n", current, what,
               current_place == 0 ? "start" : "end", g->size);
        failures++;
    }
    guard_free(g);
}

/* `text` copied into a guarded buffer that ends (place 1) or starts (place 0) at a guard page,
 * its NUL the buffer's last byte. */
static guarded_t guarded_text(const char *text, int place) {
    guarded_t g = guarded(strlen(text) + 1, place);
    memcpy(g.buf, text, strlen(text) + 1);
    return g;
}

/* CALL with P, a guarded buffer of SIZE bytes, at both places. */
#define GUARDED(FN, P, SIZE, CALL)                                                           \
    for (int place_ = 0; place_ < 2; place_++) {                                             \
        begin(FN, place_);                                                                   \
        guarded_t g_ = guarded((SIZE), place_);                                              \
        void *P = g_.buf;                                                                    \
        (void)(CALL);                                                                        \
        check(&g_, #P);                                                                      \
    }

/* CALL with P and Q, two guarded buffers, at both places. */
#define GUARDED2(FN, P, PSIZE, Q, QSIZE, CALL)                                               \
    for (int place_ = 0; place_ < 2; place_++) {                                             \
        begin(FN, place_);                                                                   \
        guarded_t gp_ = guarded((PSIZE), place_), gq_ = guarded((QSIZE), place_);            \
        void *P = gp_.buf, *Q = gq_.buf;                                                     \
        (void)(CALL);                                                                        \
        check(&gp_, #P);                                                                     \
        check(&gq_, #Q);                                                                     \
    }

static void init_and_versions(void) {
    GUARDED("cuDriverGetVersion", v, sizeof(int), cuDriverGetVersion(v));
    /* Every code the header names, and one it does not. */
    for (int code = 0; code <= 1000; code++) {
        GUARDED("cuGetErrorName", s, sizeof(const char *), cuGetErrorName((CUresult)code, s));
        GUARDED("cuGetErrorString", s, sizeof(const char *), cuGetErrorString((CUresult)code, s));
    }
    const char *symbols[] = {"cuInit", "cuDeviceGetName", "cuMemAlloc", "cuNoSuchFunction", ""};
    for (unsigned k = 0; k < sizeof symbols / sizeof *symbols; k++)
        for (int place = 0; place < 2; place++) {
            guarded_t name = guarded_text(symbols[k], place);
            GUARDED("cuGetProcAddress", pfn, sizeof(void *),
                    cuGetProcAddress((const char *)name.buf, pfn, 12000, CU_GET_PROC_ADDRESS_DEFAULT));
            GUARDED2("cuGetProcAddress_v2", pfn, sizeof(void *), status, sizeof(CUdriverProcAddressQueryResult),
                     cuGetProcAddress_v2((const char *)name.buf, pfn, 13000, CU_GET_PROC_ADDRESS_DEFAULT, status));
            check(&name, "symbol");
        }
}

static void devices(int count) {
    const int lens[] = {0, 1, 4, 13, 256};
    GUARDED("cuDeviceGetCount", n, sizeof(int), cuDeviceGetCount(n));
    for (int ordinal = -1; ordinal <= count; ordinal++)
        GUARDED("cuDeviceGet", d, sizeof(CUdevice), cuDeviceGet(d, ordinal));
    for (CUdevice dev = -1; dev <= count; dev++) {
        for (unsigned k = 0; k < sizeof lens / sizeof *lens; k++) {
            GUARDED("cuDeviceGetName", name, (size_t)lens[k], cuDeviceGetName(name, lens[k], dev));
            GUARDED("cuDeviceGetPCIBusId", id, (size_t)lens[k], cuDeviceGetPCIBusId(id, lens[k], dev));
        }
        GUARDED("cuDeviceGetUuid", u, sizeof(CUuuid), cuDeviceGetUuid(u, dev));
        GUARDED("cuDeviceGetUuid_v2", u, sizeof(CUuuid), cuDeviceGetUuid_v2(u, dev));
        GUARDED("cuDeviceTotalMem", b, sizeof(unsigned int), cuDeviceTotalMem(b, dev));
        GUARDED("cuDeviceTotalMem_v2", b, sizeof(size_t), cuDeviceTotalMem_v2(b, dev));
        GUARDED2("cuDeviceComputeCapability", major, sizeof(int), minor, sizeof(int),
                 cuDeviceComputeCapability(major, minor, dev));
        GUARDED("cuDeviceGetProperties", p, sizeof(CUdevprop), cuDeviceGetProperties(p, dev));
        for (int a = 0; a <= CU_DEVICE_ATTRIBUTE_MAX + 1; a++)
            GUARDED("cuDeviceGetAttribute", v, sizeof(int), cuDeviceGetAttribute(v, (CUdevice_attribute)a, dev));
        for (CUdevice peer = -1; peer <= count; peer++) {
            GUARDED("cuDeviceCanAccessPeer", v, sizeof(int), cuDeviceCanAccessPeer(v, dev, peer));
            for (int a = 0; a <= CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED + 1; a++)
                GUARDED("cuDeviceGetP2PAttribute", v, sizeof(int),
                        cuDeviceGetP2PAttribute(v, (CUdevice_P2PAttribute)a, dev, peer));
        }
        GUARDED2("cuDevicePrimaryCtxGetState", flags, sizeof(unsigned int), active, sizeof(int),
                 cuDevicePrimaryCtxGetState(dev, flags, active));
    }
    /* Bus ids as strings that end at the guard: each GPU's own, in the cases the driver takes,
     * and ones that name nothing. */
    for (CUdevice dev = 0; dev <= count; dev++) {
        char id[64] = "";
        if (dev < count && cuDeviceGetPCIBusId(id, sizeof id, dev) != CUDA_SUCCESS) continue;
        const char *forms[] = {id, dev < count ? id + 5 : "zz", "0000:ff:1f.0", ":", ""};
        for (unsigned k = 0; k < sizeof forms / sizeof *forms; k++)
            for (int place = 0; place < 2; place++) {
                guarded_t text = guarded_text(forms[k], place);
                GUARDED("cuDeviceGetByPCIBusId", d, sizeof(CUdevice),
                        cuDeviceGetByPCIBusId(d, (const char *)text.buf));
                check(&text, "pciBusId");
            }
    }
}

/* Contexts and memory on device `dev`: each context made is destroyed at once. */
static void contexts(CUdevice dev) {
    CUcontext ctx = NULL;
    GUARDED("cuDevicePrimaryCtxRetain", p, sizeof(CUcontext),
            (cuDevicePrimaryCtxRetain(p, dev) == CUDA_SUCCESS ? cuDevicePrimaryCtxRelease_v2(dev) : 0));
    GUARDED("cuCtxCreate", p, sizeof(CUcontext),
            (cuCtxCreate(p, 0, dev) == CUDA_SUCCESS ? cuCtxDestroy(*(CUcontext *)p) : 0));
    GUARDED("cuCtxCreate_v2", p, sizeof(CUcontext),
            (cuCtxCreate_v2(p, 0, dev) == CUDA_SUCCESS ? cuCtxDestroy_v2(*(CUcontext *)p) : 0));
    for (int n = 0; n <= 1; n++)
        GUARDED2("cuCtxCreate_v3", p, sizeof(CUcontext), params, n * sizeof(CUexecAffinityParam),
                 (memset(params, 0, n * sizeof(CUexecAffinityParam)),
                  cuCtxCreate_v3(p, params, n, 0, dev) == CUDA_SUCCESS ? cuCtxDestroy_v2(*(CUcontext *)p) : 0));
    GUARDED2("cuCtxCreate_v4", p, sizeof(CUcontext), params, sizeof(CUctxCreateParams),
             (memset(params, 0, sizeof(CUctxCreateParams)),
              cuCtxCreate_v4(p, params, 0, dev) == CUDA_SUCCESS ? cuCtxDestroy_v2(*(CUcontext *)p) : 0));

    /* With no context current, then with one. */
    for (int with = 0; with < 2; with++) {
        if (with && cuCtxCreate_v2(&ctx, 0, dev) != CUDA_SUCCESS) { printf("FAIL cuCtxCreate_v2\n"); failures++; return; }
        GUARDED("cuCtxGetCurrent", p, sizeof(CUcontext), cuCtxGetCurrent(p));
        GUARDED("cuCtxGetDevice", d, sizeof(CUdevice), cuCtxGetDevice(d));
        GUARDED("cuCtxGetDevice_v2", d, sizeof(CUdevice), cuCtxGetDevice_v2(d, ctx));
        GUARDED("cuCtxGetFlags", f, sizeof(unsigned int), cuCtxGetFlags(f));
        GUARDED2("cuMemGetInfo", free_, sizeof(unsigned int), total, sizeof(unsigned int), cuMemGetInfo(free_, total));
        GUARDED2("cuMemGetInfo_v2", free_, sizeof(size_t), total, sizeof(size_t), cuMemGetInfo_v2(free_, total));
        GUARDED("cuMemAlloc", p, sizeof(CUdeviceptr_v1),
                (cuMemAlloc(p, 1 << 20) == CUDA_SUCCESS ? cuMemFree(*(CUdeviceptr_v1 *)p) : 0));
        GUARDED("cuMemAlloc_v2", p, sizeof(CUdeviceptr),
                (cuMemAlloc_v2(p, 1 << 20) == CUDA_SUCCESS ? cuMemFree_v2(*(CUdeviceptr *)p) : 0));
        GUARDED("cuMemAllocHost", p, sizeof(void *),
                (cuMemAllocHost(p, 4096) == CUDA_SUCCESS ? cuMemFreeHost(*(void **)p) : 0));
        GUARDED("cuMemAllocHost_v2", p, sizeof(void *),
                (cuMemAllocHost_v2(p, 4096) == CUDA_SUCCESS ? cuMemFreeHost(*(void **)p) : 0));
        GUARDED("cuMemHostAlloc", p, sizeof(void *),
                (cuMemHostAlloc(p, 4096, 0) == CUDA_SUCCESS ? cuMemFreeHost(*(void **)p) : 0));
        /* Each allocation above is freed by cuMemFreeHost: the pointer it was given. */
        begin("cuMemFreeHost", -1);
        /* Pushed twice, so that each pop has one to take. */
        if (with) { cuCtxPushCurrent_v2(ctx); cuCtxPushCurrent(ctx); }
        GUARDED("cuCtxPopCurrent", p, sizeof(CUcontext), cuCtxPopCurrent(p));
        GUARDED("cuCtxPopCurrent_v2", p, sizeof(CUcontext), cuCtxPopCurrent_v2(p));
    }
    cuCtxDestroy_v2(ctx);
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    signal(SIGSEGV, on_fault);
    signal(SIGBUS, on_fault);
    /* Before cuInit: the functions that answer CUDA_ERROR_NOT_INITIALIZED must not write. */
    devices(1);
    if (cuInit(0) != CUDA_SUCCESS) { printf("FAIL cuInit\n"); return 2; }
    int count = 0;
    if (cuDeviceGetCount(&count) != CUDA_SUCCESS) { printf("FAIL cuDeviceGetCount\n"); return 2; }
    printf("DEVICES %d\n", count);
    init_and_versions();
    devices(count);
    if (count > 0) contexts(0);
    printf("ok (%ld failures)\n", failures);
    return failures ? 1 : 0;
}
