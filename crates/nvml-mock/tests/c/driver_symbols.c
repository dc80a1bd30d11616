// A C client of a library of one driver's symbols (`cargo xtask mock-lib`): loads
// libnvidia-ml.so.1 from the library path as a client of the driver does, prints for each
// symbol named on the command line whether dlsym finds it, then nvmlInit_v2's code and, when it
// succeeds, the driver version the library answers.
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv) {
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "%s\n", dlerror());
        return 2;
    }
    for (int i = 1; i < argc; i++)
        printf("%s %s\n", argv[i], dlsym(lib, argv[i]) ? "present" : "absent");
    int (*init)(void) = (int (*)(void))dlsym(lib, "nvmlInit_v2");
    int (*version)(char *, unsigned) = (int (*)(char *, unsigned))dlsym(lib, "nvmlSystemGetDriverVersion");
    if (!init || !version) {
        fprintf(stderr, "no nvmlInit_v2 or nvmlSystemGetDriverVersion\n");
        return 2;
    }
    int code = init();
    printf("nvmlInit_v2 %d\n", code);
    char buf[96] = "";
    if (code == 0 && version(buf, sizeof buf) == 0)
        printf("driver %s\n", buf);
    return 0;
}
