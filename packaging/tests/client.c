// A C client of the release archive's library, as a C agent or go-nvml opens it: dlopen of
// libnvidia-ml.so.1 (found by LD_LIBRARY_PATH), the devices' names, the driver version, and
// whether the library exports nvmlDeviceGetTemperatureV (new in R570); then the CUDA driver
// API of libcuda.so.1 (found the same way), compared with NVML: the device count, GPU 0's name
// and the CUDA driver version. Prints one line:
//   <count> <driver> <name of GPU 0> TemperatureV=<present|absent> cuda=<same|what differs>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

typedef int (*init_t)(void);
typedef int (*count_t)(unsigned int *);
typedef int (*handle_t)(unsigned int, void **);
typedef int (*name_t)(void *, char *, unsigned int);
typedef int (*version_t)(char *, unsigned int);

/* "same" where libcuda.so.1 sees the GPUs NVML sees (count, GPU 0's name, driver version). */
static const char *cuda_agrees(void *nvml, unsigned int n, const char *gpu) {
    static char why[160];
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW);
    if (!cuda)
        return "no-libcuda";
    int (*cu_init)(unsigned int) = (int (*)(unsigned int))dlsym(cuda, "cuInit");
    int (*cu_count)(int *) = (int (*)(int *))dlsym(cuda, "cuDeviceGetCount");
    int (*cu_get)(int *, int) = (int (*)(int *, int))dlsym(cuda, "cuDeviceGet");
    int (*cu_name)(char *, int, int) = (int (*)(char *, int, int))dlsym(cuda, "cuDeviceGetName");
    int (*cu_version)(int *) = (int (*)(int *))dlsym(cuda, "cuDriverGetVersion");
    int (*nvml_cuda)(int *) = (int (*)(int *))dlsym(nvml, "nvmlSystemGetCudaDriverVersion");
    if (!cu_init || !cu_count || !cu_get || !cu_name || !cu_version || !nvml_cuda)
        return "missing-function";
    int count = 0, dev = 0, version = 0, nvml_version = 0;
    char name[96] = "";
    int rc = cu_init(0);
    if (rc != 0) {
        snprintf(why, sizeof why, "cuInit-%d", rc);
        return why;
    }
    if (cu_count(&count) || cu_get(&dev, 0) || cu_name(name, sizeof name, dev) || cu_version(&version) ||
        nvml_cuda(&nvml_version))
        return "call-failed";
    if ((unsigned int)count != n || strcmp(name, gpu) != 0 || version != nvml_version) {
        snprintf(why, sizeof why, "%d/%s/%d", count, name, version);
        return why;
    }
    return "same";
}

int main(void) {
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    if (!lib) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 2;
    }
    init_t init = (init_t)dlsym(lib, "nvmlInit_v2");
    count_t count = (count_t)dlsym(lib, "nvmlDeviceGetCount_v2");
    handle_t handle = (handle_t)dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
    name_t name = (name_t)dlsym(lib, "nvmlDeviceGetName");
    version_t version = (version_t)dlsym(lib, "nvmlSystemGetDriverVersion");
    if (!init || !count || !handle || !name || !version) {
        fprintf(stderr, "a function of every driver is missing\n");
        return 2;
    }
    int rc = init();
    if (rc != 0) {
        fprintf(stderr, "nvmlInit_v2: %d\n", rc);
        return 3;
    }
    unsigned int n = 0;
    char driver[96] = "", gpu[96] = "";
    void *dev = 0;
    if (count(&n) || version(driver, sizeof driver) || handle(0, &dev) || name(dev, gpu, sizeof gpu)) {
        fprintf(stderr, "a call failed\n");
        return 4;
    }
    printf("%u %s %s TemperatureV=%s", n, driver, gpu, dlsym(lib, "nvmlDeviceGetTemperatureV") ? "present" : "absent");
    printf(" cuda=%s\n", cuda_agrees(lib, n, gpu));
    return 0;
}
