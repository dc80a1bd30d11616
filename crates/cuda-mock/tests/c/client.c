/* A C client of the CUDA mock, linked with -lcuda -lnvidia-ml -Wl,-z,now (tests/clients.rs).
 *
 *   client check   the driver's codes for bad input, cuGetProcAddress, contexts, and memory
 *                  allocated through CUDA seen by NVML in the same process
 *   client hold N  allocates N MiB on device 0, prints "held PID", waits for stdin to close
 *   client report  prints NVML's used memory of GPU 0 and its compute processes
 *   client watch   prints what CUDA answers of devices 0 and 1 at each line of stdin
 *   client init    prints the code of cuInit(0)
 */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h" /* crates/nvml-mock/tests/c/: CHECK and `failures` */
#include "cuda.h"
#include "nvml.h"

/* Exported by the driver, declared by cuda.h only to builds with per-thread default streams. */
CUresult CUDAAPI cuMemcpyHtoD_v2_ptds(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount);

#define EXPECT(call, want)                                                                    \
    do {                                                                                      \
        CUresult got_ = (call);                                                               \
        if (got_ != (want)) {                                                                 \
            const char *name_ = 0;                                                            \
            cuGetErrorName(got_, &name_);                                                     \
            printf("FAIL %s:%d: %s = %d (%s), expected %d\n", __FILE__, __LINE__, #call,      \
                   (int)got_, name_ ? name_ : "?", (int)(want));                              \
            failures++;                                                                       \
        }                                                                                     \
    } while (0)


/* The address of the export `name` (a legacy version cuda.h declares only to the driver's build). */
static void *export_of(const char *name) { return dlsym(RTLD_DEFAULT, name); }

/* NVML's used memory of GPU 0, and the bytes its compute process `pid` uses (0: not listed). */
static void nvml_view(unsigned long long *used, unsigned long long *of_pid, unsigned int pid) {
    nvmlDevice_t gpu;
    nvmlMemory_t mem;
    nvmlProcessInfo_t procs[64];
    unsigned int n = 64, i;
    *used = 0;
    *of_pid = 0;
    if (nvmlInit_v2() != NVML_SUCCESS || nvmlDeviceGetHandleByIndex_v2(0, &gpu) != NVML_SUCCESS) {
        printf("FAIL: NVML does not start\n");
        failures++;
        return;
    }
    if (nvmlDeviceGetMemoryInfo(gpu, &mem) == NVML_SUCCESS) *used = mem.used;
    if (nvmlDeviceGetComputeRunningProcesses_v3(gpu, &n, procs) == NVML_SUCCESS) {
        for (i = 0; i < n; i++)
            if (procs[i].pid == pid) *of_pid = procs[i].usedGpuMemory;
    }
    nvmlShutdown();
}

static int check(void) {
    int count = -1, v = 0, major = 0, minor = 0, dev = 0, version = 0;
    const char *s = 0;
    void *fn = 0;
    CUdriverProcAddressQueryResult status;
    CUcontext ctx = 0, ctx2 = 0, cur = 0;
    CUdeviceptr p = 0, q = 0;
    size_t free0 = 0, total = 0, free1 = 0;
    unsigned long long used0, used1, mine;
    char buf[64];
    unsigned int pid = (unsigned int)getpid();

    /* Before cuInit. */
    EXPECT(cuDeviceGetCount(&count), CUDA_ERROR_NOT_INITIALIZED);
    EXPECT(cuCtxGetCurrent(&cur), CUDA_ERROR_NOT_INITIALIZED);
    EXPECT(cuModuleLoad(NULL, "x.cubin"), CUDA_ERROR_NOT_INITIALIZED);
    EXPECT(cuDriverGetVersion(&version), CUDA_SUCCESS);
    CHECK(version >= 11000);
    EXPECT(cuDriverGetVersion(NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGetErrorName(CUDA_ERROR_INVALID_DEVICE, &s), CUDA_SUCCESS);
    CHECK(s && strcmp(s, "CUDA_ERROR_INVALID_DEVICE") == 0);
    EXPECT(cuGetErrorString(CUDA_ERROR_INVALID_DEVICE, &s), CUDA_SUCCESS);
    CHECK(s && strlen(s) > 10);
    EXPECT(cuGetErrorName((CUresult)12345, &s), CUDA_ERROR_INVALID_VALUE);
    CHECK(s == NULL);
    EXPECT(cuGetErrorName(CUDA_SUCCESS, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuInit(1), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuInit(0), CUDA_SUCCESS);
    {
        /* The driver's CUDA version, as NVML tells it. */
        int nvml_version = 0;
        CHECK(nvmlInit_v2() == NVML_SUCCESS);
        CHECK(nvmlSystemGetCudaDriverVersion(&nvml_version) == NVML_SUCCESS);
        nvmlShutdown();
        CHECK(version == nvml_version);
    }

    /* cuGetProcAddress: the current versions, and per-thread default streams. */
    EXPECT(cuGetProcAddress_v2("cuMemAlloc", &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &status), CUDA_SUCCESS);
    CHECK(fn == (void *)&cuMemAlloc_v2 && status == CU_GET_PROC_ADDRESS_SUCCESS);
    EXPECT(cuGetProcAddress_v2("cuMemcpyHtoD", &fn, 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &status), CUDA_SUCCESS);
    CHECK(fn == (void *)&cuMemcpyHtoD_v2_ptds);
    EXPECT(cuGetProcAddress_v2("cuInit", &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, NULL), CUDA_SUCCESS);
    CHECK(fn == (void *)&cuInit);
    EXPECT(cuGetProcAddress_v2("cuNoSuchFunction", &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &status), CUDA_ERROR_NOT_FOUND);
    CHECK(fn == NULL && status == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    /* The ABI version in force at the version asked for (cudaTypedefs.h's PFN_cuX_vN). */
    EXPECT(cuGetProcAddress_v2("cuMemAlloc", &fn, 3010, CU_GET_PROC_ADDRESS_DEFAULT, &status), CUDA_SUCCESS);
    CHECK(fn == export_of("cuMemAlloc") && fn != NULL && fn != (void *)&cuMemAlloc_v2);
    EXPECT(cuGetProcAddress_v2("cuMemAlloc", &fn, 3020, CU_GET_PROC_ADDRESS_DEFAULT, &status), CUDA_SUCCESS);
    CHECK(fn == (void *)&cuMemAlloc_v2);
    EXPECT(cuGetProcAddress_v2("cuCtxCreate", &fn, 11030, CU_GET_PROC_ADDRESS_DEFAULT, &status), CUDA_SUCCESS);
    CHECK(fn == export_of("cuCtxCreate_v2") && fn != NULL);
    EXPECT(cuGetProcAddress_v2("cuCtxCreate", &fn, 11040, CU_GET_PROC_ADDRESS_DEFAULT, &status), CUDA_SUCCESS);
    CHECK(fn == export_of("cuCtxCreate_v3") && fn != NULL);
    EXPECT(cuGetProcAddress_v2("cuGetProcAddress", &fn, 11030, CU_GET_PROC_ADDRESS_DEFAULT, &status), CUDA_SUCCESS);
    CHECK(fn == export_of("cuGetProcAddress") && fn != NULL && fn != (void *)&cuGetProcAddress_v2);
    EXPECT(cuGetProcAddress_v2("cuMemcpyHtoD", &fn, 2000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &status), CUDA_SUCCESS);
    CHECK(fn == export_of("cuMemcpyHtoD") && fn != NULL); /* the 32-bit legacy call has no per-thread variant */
    /* Older than the function: not found, and the status says why. */
    EXPECT(cuGetProcAddress_v2("cuMemAllocAsync", &fn, 11010, CU_GET_PROC_ADDRESS_DEFAULT, &status), CUDA_ERROR_NOT_FOUND);
    CHECK(fn == NULL && status == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
    EXPECT(cuGetProcAddress_v2("cuMemAllocAsync", &fn, 11020, CU_GET_PROC_ADDRESS_DEFAULT, &status), CUDA_SUCCESS);
    CHECK(fn == (void *)&cuMemAllocAsync && status == CU_GET_PROC_ADDRESS_SUCCESS);
    /* Newer than the driver: the reference's CUDA_ERROR_INVALID_VALUE. */
    EXPECT(cuGetProcAddress_v2("cuInit", &fn, version + 10, CU_GET_PROC_ADDRESS_DEFAULT, &status), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGetProcAddress_v2("cuInit", &fn, version, CU_GET_PROC_ADDRESS_DEFAULT, &status), CUDA_SUCCESS);
    EXPECT(cuGetProcAddress_v2(NULL, &fn, 12000, 0, &status), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGetProcAddress_v2("cuInit", &fn, 12000, 1u << 7, &status), CUDA_ERROR_INVALID_VALUE);

    /* Devices and the driver's codes for bad input. */
    EXPECT(cuDeviceGetCount(&count), CUDA_SUCCESS);
    CHECK(count > 0);
    EXPECT(cuDeviceGetCount(NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuDeviceGet(&dev, count), CUDA_ERROR_INVALID_DEVICE);
    EXPECT(cuDeviceGet(&dev, -1), CUDA_ERROR_INVALID_DEVICE);
    EXPECT(cuDeviceGet(NULL, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuDeviceGet(&dev, 0), CUDA_SUCCESS);
    EXPECT(cuDeviceGetName(buf, sizeof buf, dev), CUDA_SUCCESS);
    {
        /* The name NVML gives the GPU of the same PCI bus id. */
        char bus[32], nvml_name[96] = "";
        nvmlDevice_t gpu;
        EXPECT(cuDeviceGetPCIBusId(bus, sizeof bus, dev), CUDA_SUCCESS);
        CHECK(nvmlInit_v2() == NVML_SUCCESS);
        CHECK(nvmlDeviceGetHandleByPciBusId_v2(bus, &gpu) == NVML_SUCCESS);
        CHECK(nvmlDeviceGetName(gpu, nvml_name, sizeof nvml_name) == NVML_SUCCESS);
        nvmlShutdown();
        CHECK(strcmp(buf, nvml_name) == 0 && strlen(buf) > 0);
        /* A buffer too short for the name takes as much as fits. */
        EXPECT(cuDeviceGetName(bus, 5, dev), CUDA_SUCCESS);
        CHECK(strlen(bus) == 4 && strncmp(bus, nvml_name, 4) == 0);
    }
    EXPECT(cuDeviceGetName(NULL, sizeof buf, dev), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, dev), CUDA_SUCCESS);
    CHECK(v == 32);
    EXPECT(cuDeviceGetAttribute(&v, (CUdevice_attribute)100000, dev), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuDeviceGetAttribute(&v, (CUdevice_attribute)-1, dev), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuDeviceGetAttribute(NULL, CU_DEVICE_ATTRIBUTE_WARP_SIZE, dev), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, count), CUDA_ERROR_INVALID_DEVICE);
    EXPECT(cuDeviceComputeCapability(&major, &minor, dev), CUDA_SUCCESS);
    EXPECT(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev), CUDA_SUCCESS);
    CHECK(v == major && major >= 7);
    EXPECT(cuDeviceGetPCIBusId(buf, sizeof buf, dev), CUDA_SUCCESS);
    EXPECT(cuDeviceGetByPCIBusId(&v, buf), CUDA_SUCCESS);
    CHECK(v == dev);
    EXPECT(cuDeviceGetByPCIBusId(&v, "not a bus id"), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuDeviceGetByPCIBusId(&v, "ffff:ff:1f.0"), CUDA_ERROR_INVALID_DEVICE);
    if (count > 1) {
        EXPECT(cuDeviceCanAccessPeer(&v, 0, 1), CUDA_SUCCESS);
        EXPECT(cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 0), CUDA_ERROR_INVALID_DEVICE);
    }
    /* A function without behaviour. */
    EXPECT(cuModuleLoad(NULL, "x.cubin"), CUDA_ERROR_NOT_SUPPORTED);

    /* Contexts. */
    EXPECT(cuMemAlloc(&p, 1 << 20), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT(cuCtxGetCurrent(&cur), CUDA_SUCCESS);
    CHECK(cur == NULL);
    EXPECT(cuDevicePrimaryCtxRetain(&ctx, dev), CUDA_SUCCESS);
    EXPECT(cuDevicePrimaryCtxGetState(dev, (unsigned int *)&v, &major), CUDA_SUCCESS);
    CHECK(major == 1);
    EXPECT(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
    EXPECT(cuCtxGetCurrent(&cur), CUDA_SUCCESS);
    CHECK(cur == ctx);
    EXPECT(cuCtxGetDevice(&v), CUDA_SUCCESS);
    CHECK(v == dev);
    EXPECT(cuCtxSynchronize(), CUDA_SUCCESS);
    EXPECT(cuCtxDestroy((CUcontext)&v), CUDA_ERROR_INVALID_CONTEXT);

    /* Memory, as NVML sees it in this process. */
    nvml_view(&used0, &mine, pid);
    CHECK(mine == 0);
    EXPECT(cuMemGetInfo(&free0, &total), CUDA_SUCCESS);
    CHECK(total > free0 && free0 > 0);
    EXPECT(cuMemAlloc(&p, 1ull << 30), CUDA_SUCCESS);
    CHECK(p != 0 && p % 256 == 0);
    EXPECT(cuMemAlloc(&q, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemAlloc(&q, total), CUDA_ERROR_OUT_OF_MEMORY);
    EXPECT(cuMemGetInfo(&free1, &total), CUDA_SUCCESS);
    CHECK(free0 - free1 == 1ull << 30);
    nvml_view(&used1, &mine, pid);
    CHECK(used1 - used0 == 1ull << 30);
    CHECK(mine == 1ull << 30);
    EXPECT(cuMemFree(p), CUDA_SUCCESS);
    EXPECT(cuMemFree(p), CUDA_ERROR_INVALID_VALUE);
    nvml_view(&used1, &mine, pid);
    CHECK(used1 == used0 && mine == 0);

    /* A context's memory goes with it. */
    EXPECT(cuCtxCreate(&ctx2, NULL, 0, dev), CUDA_SUCCESS);
    EXPECT(cuCtxGetCurrent(&cur), CUDA_SUCCESS);
    CHECK(cur == ctx2);
    EXPECT(cuMemAlloc(&q, 512ull << 20), CUDA_SUCCESS);
    nvml_view(&used1, &mine, pid);
    CHECK(mine == 512ull << 20);
    EXPECT(cuCtxDestroy(ctx2), CUDA_SUCCESS);
    EXPECT(cuCtxDestroy(ctx2), CUDA_ERROR_CONTEXT_IS_DESTROYED);
    nvml_view(&used1, &mine, pid);
    CHECK(used1 == used0 && mine == 0);
    EXPECT(cuCtxGetCurrent(&cur), CUDA_SUCCESS);
    CHECK(cur == ctx);
    EXPECT(cuCtxPopCurrent(&cur), CUDA_SUCCESS);
    CHECK(cur == ctx);
    EXPECT(cuCtxPopCurrent(&cur), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT(cuDevicePrimaryCtxRelease(dev), CUDA_SUCCESS);
    EXPECT(cuDevicePrimaryCtxRelease(dev), CUDA_ERROR_INVALID_CONTEXT);

    printf("%s (%d failures)\n", failures ? "FAILED" : "ok", failures);
    return failures ? 1 : 0;
}

static int hold(unsigned long long mib) {
    CUcontext ctx;
    CUdeviceptr p;
    char c;
    if (cuInit(0) != CUDA_SUCCESS || cuDevicePrimaryCtxRetain(&ctx, 0) != CUDA_SUCCESS ||
        cuCtxSetCurrent(ctx) != CUDA_SUCCESS || cuMemAlloc(&p, mib << 20) != CUDA_SUCCESS) {
        printf("FAIL: cannot allocate\n");
        return 1;
    }
    printf("held %u\n", (unsigned int)getpid());
    fflush(stdout);
    while (read(0, &c, 1) > 0) {
    }
    /* Exits without freeing: the memory goes with the process. */
    return 0;
}

static int report(void) {
    nvmlDevice_t gpu;
    nvmlMemory_t mem;
    nvmlProcessInfo_t procs[64];
    unsigned int n = 64, i;
    if (nvmlInit_v2() != NVML_SUCCESS || nvmlDeviceGetHandleByIndex_v2(0, &gpu) != NVML_SUCCESS ||
        nvmlDeviceGetMemoryInfo(gpu, &mem) != NVML_SUCCESS) {
        printf("FAIL: NVML\n");
        return 1;
    }
    printf("used %llu\n", mem.used);
    if (nvmlDeviceGetComputeRunningProcesses_v3(gpu, &n, procs) == NVML_SUCCESS)
        for (i = 0; i < n; i++) printf("process %u %llu\n", procs[i].pid, procs[i].usedGpuMemory);
    nvmlShutdown();
    return 0;
}

static int watch(void) {
    char line[16], name[96];
    CUcontext ctx;
    size_t free_, total;
    int v, dev;
    if (cuInit(0) != CUDA_SUCCESS || cuDevicePrimaryCtxRetain(&ctx, 0) != CUDA_SUCCESS ||
        cuCtxSetCurrent(ctx) != CUDA_SUCCESS) {
        printf("FAIL: cannot start\n");
        return 1;
    }
    printf("ready\n");
    fflush(stdout);
    while (fgets(line, sizeof line, stdin)) {
        for (dev = 0; dev < 2; dev++) {
            CUresult n = cuDeviceGetName(name, sizeof name, dev);
            CUresult a = cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, dev);
            printf("device %d name %d %s attribute %d\n", dev, (int)n, n == CUDA_SUCCESS ? name : "-", (int)a);
        }
        if (cuMemGetInfo(&free_, &total) == CUDA_SUCCESS) printf("memory %zu %zu\n", free_, total);
        printf("end\n");
        fflush(stdout);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "check") == 0) return check();
    if (argc >= 3 && strcmp(argv[1], "hold") == 0) return hold(strtoull(argv[2], 0, 10));
    if (argc >= 2 && strcmp(argv[1], "report") == 0) return report();
    if (argc >= 2 && strcmp(argv[1], "watch") == 0) return watch();
    if (argc >= 2 && strcmp(argv[1], "init") == 0) {
        printf("cuInit %d\n", (int)cuInit(0));
        return 0;
    }
    fprintf(stderr, "usage: client check | hold MIB | report\n");
    return 2;
}
