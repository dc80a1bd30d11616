// A C client of the release archive's library, as a C agent or go-nvml opens it: dlopen of
// libnvidia-ml.so.1 (found by LD_LIBRARY_PATH), the devices' names, the driver version, and
// whether the library exports nvmlDeviceGetTemperatureV (new in R570). Prints one line:
//   <count> <driver> <name of GPU 0> TemperatureV=<present|absent>
#include <dlfcn.h>
#include <stdio.h>

typedef int (*init_t)(void);
typedef int (*count_t)(unsigned int *);
typedef int (*handle_t)(unsigned int, void **);
typedef int (*name_t)(void *, char *, unsigned int);
typedef int (*version_t)(char *, unsigned int);

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
    printf("%u %s %s TemperatureV=%s\n", n, driver, gpu, dlsym(lib, "nvmlDeviceGetTemperatureV") ? "present" : "absent");
    return 0;
}
