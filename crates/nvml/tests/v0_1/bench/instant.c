/* A stand-in for libnvidia-ml.so.1 whose functions return at once, for the getter benchmark:
 * timed against it, a binding's call shows its own cost (symbol lookup, error mapping,
 * conversions), not the library's work. Each function answers NVML_SUCCESS (0) and writes a
 * constant into its out-parameter; it exports only what nvmlkit and nvml-wrapper need to
 * initialise, reach device 0, read its power and shut down.
 *
 * Built by the `bench` example (instant.rs) and by benches/compare.sh with
 *   cc -O2 -shared -fPIC -Wl,-soname,libnvidia-ml.so.1 -o libnvidia-ml.so.1 instant.c
 * Prototypes as in nvml.h, with its types spelt out (nvmlReturn_t is an unsigned enum). */

#include <string.h>

#define NVML_SUCCESS 0u
#define NVML_ERROR_INVALID_ARGUMENT 2u

/* The one device's handle: the address of this object. */
static int device0;

unsigned int nvmlInit_v2(void) { return NVML_SUCCESS; }
unsigned int nvmlInit(void) { return NVML_SUCCESS; }
unsigned int nvmlInitWithFlags(unsigned int flags) { (void)flags; return NVML_SUCCESS; }
unsigned int nvmlShutdown(void) { return NVML_SUCCESS; }
const char *nvmlErrorString(unsigned int code) { return code == NVML_SUCCESS ? "Success" : "Unknown Error"; }

/* nvml-wrapper reads the driver version in its init (to pick its field-id numbering). */
unsigned int nvmlSystemGetDriverVersion(char *version, unsigned int length) {
    static const char v[] = "580.82.07";
    if (!version || length < sizeof v) return NVML_ERROR_INVALID_ARGUMENT;
    memcpy(version, v, sizeof v);
    return NVML_SUCCESS;
}

unsigned int nvmlDeviceGetCount_v2(unsigned int *count) { *count = 1; return NVML_SUCCESS; }
unsigned int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void **device) {
    if (index != 0) return NVML_ERROR_INVALID_ARGUMENT;
    *device = &device0;
    return NVML_SUCCESS;
}

/* The timed getter: no check of its arguments, a constant in milliwatts. */
unsigned int nvmlDeviceGetPowerUsage(void *device, unsigned int *power) {
    (void)device;
    *power = 123456;
    return NVML_SUCCESS;
}
