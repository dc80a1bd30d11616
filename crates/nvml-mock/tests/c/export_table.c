/*
 * A client of nvidia-smi's export table, `nvmlInternalGetExportTable` (nvml.h does not declare
 * it), that calls it as nvidia-smi 580 does: it loads libnvidia-ml.so.1 from the library path
 * with dlopen, asks for the table of nvidia-smi's GUID, and calls the slots nvidia-smi calls
 * with the arguments it passes (the protocol is in crates/nvml-mock/src/engine/internal.rs).
 *
 * Checks that hold whatever the profile print `FAIL ...`; what the slots answer prints as
 * lines of words for tests/export_table.rs to compare with the profile:
 *   size BYTES                  word 0 of the table
 *   wrong_guid CODE             the table of another GUID
 *   handle_out_of_range CODE    slot 81 with the index after the last GPU
 *   list GPU SLOT CODE COUNT    slots 213-215 with room for 8 entries
 *   process GPU SLOT PID MEMORY GI CI NAME
 *   short GPU SLOT CODE COUNT   slot 213 with room for one entry less than it has
 *   monitorable CODE VALUE      slot 72 of GPU 0
 *   path GPU GPU CODE PATH      slot 23 between two GPUs' PCI bus ids
 *   path_unknown CODE           slot 23 with a bus id no GPU has
 *   part_number CODE TEXT       slot 231 of GPU 0
 *   other_slot SLOT CODE COUNT  a slot with no answer of its own, its count on the stack
 * Exits with the number of failed checks (2 when the library cannot be used at all).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include "nvml.h"
#include "check.h"

/* nvidia-smi's GUID, 6c3efec4-8fc9-4e6c-a327-ee696e12f7c4, as the bytes it passes. */
static const unsigned char SMI_GUID[16] = {0xc4, 0xfe, 0x3e, 0x6c, 0xc9, 0x8f, 0x6c, 0x4e,
                                           0xa3, 0x27, 0xee, 0x69, 0x6e, 0x12, 0xf7, 0xc4};

/* The bytes of one entry of the process lists of slots 213 to 215. */
#define ENTRY 4128
#define CAPACITY 8

typedef nvmlReturn_t (*GetTable)(const void **table, const unsigned char *guid);
typedef nvmlReturn_t (*HandleByIndex)(unsigned int index, nvmlDevice_t *device, unsigned int flags);
typedef nvmlReturn_t (*ProcessList)(nvmlDevice_t device, unsigned int *count, unsigned char *entries);
typedef nvmlReturn_t (*Monitorable)(nvmlDevice_t device, unsigned long long *supported);
typedef nvmlReturn_t (*PathBetween)(const char *bus_a, const char *bus_b, unsigned int *path);
typedef nvmlReturn_t (*PartNumber)(nvmlDevice_t device, char *buffer, unsigned int length);
typedef nvmlReturn_t (*Counted)(nvmlDevice_t device, unsigned int *count);

static unsigned int u32_at(const unsigned char *p) {
    unsigned int v;
    memcpy(&v, p, sizeof v);
    return v;
}

static unsigned long long u64_at(const unsigned char *p) {
    unsigned long long v;
    memcpy(&v, p, sizeof v);
    return v;
}

static unsigned char entries[CAPACITY * ENTRY];

int main(void) {
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "%s\n", dlerror());
        return 2;
    }
#define LOAD(name)                                                       \
    __typeof__(&name) name##_ = (__typeof__(&name))dlsym(lib, #name);    \
    if (!name##_) {                                                      \
        fprintf(stderr, "the library has no %s\n", #name);               \
        return 2;                                                        \
    }
    LOAD(nvmlInit_v2)
    LOAD(nvmlShutdown)
    LOAD(nvmlDeviceGetCount_v2)
    LOAD(nvmlDeviceGetHandleByIndex_v2)
    LOAD(nvmlDeviceGetPciInfo_v3)
    LOAD(nvmlDeviceGetComputeRunningProcesses_v3)
    LOAD(nvmlDeviceGetGraphicsRunningProcesses_v3)
    LOAD(nvmlSystemGetProcessName)
    GetTable get_table = (GetTable)dlsym(lib, "nvmlInternalGetExportTable");
    if (!get_table) {
        fprintf(stderr, "the library has no nvmlInternalGetExportTable\n");
        return 2;
    }
    if (nvmlInit_v2_() != NVML_SUCCESS) {
        printf("FAIL nvmlInit_v2\n");
        return 2;
    }
    unsigned int gpus = 0;
    CHECK(nvmlDeviceGetCount_v2_(&gpus) == NVML_SUCCESS && gpus > 1 && gpus <= 64);

    /* Another GUID: no table, and nothing written. */
    const void *table = NULL;
    unsigned char other[16];
    memcpy(other, SMI_GUID, sizeof other);
    other[15] ^= 1;
    nvmlReturn_t code = get_table(&table, other);
    printf("wrong_guid %d\n", code);
    CHECK(table == NULL);

    /* nvidia-smi's: word 0 is the size in bytes, which nvidia-smi requires above 648; every
     * slot it calls (up to 231) lies inside. */
    CHECK(get_table(&table, SMI_GUID) == NVML_SUCCESS && table != NULL);
    if (!table) return failures + 1;
    const unsigned long long *words = table;
    unsigned long long size = words[0];
    printf("size %llu\n", size);
    CHECK(size > 648 && size % 8 == 0 && size / 8 > 232);
    if (size / 8 <= 232) return failures;
    for (unsigned long long i = 1; i < size / 8; i++) CHECK(words[i] != 0);

    /* Slot 81: a device handle by index, called as (index, &handle, 0x22): the handle of
     * nvmlDeviceGetHandleByIndex_v2. */
    HandleByIndex handle_by_index = (HandleByIndex)words[81];
    nvmlDevice_t devices[64];
    for (unsigned int i = 0; i < gpus; i++) {
        nvmlDevice_t h = NULL;
        CHECK(handle_by_index(i, &h, 0x22) == NVML_SUCCESS);
        CHECK(nvmlDeviceGetHandleByIndex_v2_(i, &devices[i]) == NVML_SUCCESS);
        CHECK(h == devices[i]);
    }
    nvmlDevice_t none = NULL;
    printf("handle_out_of_range %d\n", handle_by_index(gpus, &none, 0x22));
    CHECK(none == NULL);

    /* Slots 213 (compute processes), 214 (graphics) and 215: (device, &count, entries), the
     * capacity in count; each entry: pid (u32) at 0, used memory (u64) at 8, GPU and compute
     * instance ids (u32) at 16 and 20, the name from 32. Compared with the public functions. */
    for (unsigned int i = 0; i < gpus; i++) {
        for (int slot = 213; slot <= 215; slot++) {
            memset(entries, 0, sizeof entries);
            unsigned int count = CAPACITY;
            code = ((ProcessList)words[slot])(devices[i], &count, entries);
            printf("list %u %d %d %u\n", i, slot, code, count);
            if (code != NVML_SUCCESS) continue;
            CHECK(count <= CAPACITY);
            nvmlProcessInfo_t infos[CAPACITY];
            unsigned int public_count = CAPACITY;
            nvmlReturn_t public_code = NVML_SUCCESS;
            if (slot == 213) public_code = nvmlDeviceGetComputeRunningProcesses_v3_(devices[i], &public_count, infos);
            if (slot == 214) public_code = nvmlDeviceGetGraphicsRunningProcesses_v3_(devices[i], &public_count, infos);
            if (slot == 215) public_count = 0;
            if (public_code != NVML_SUCCESS) public_count = 0;
            CHECK(count == public_count);
            for (unsigned int e = 0; e < count && e < CAPACITY; e++) {
                const unsigned char *p = entries + e * ENTRY;
                const char *name = (const char *)p + 32;
                CHECK(memchr(name, 0, ENTRY - 32) != NULL);
                printf("process %u %d %u %llu %u %u %s\n", i, slot, u32_at(p), u64_at(p + 8), u32_at(p + 16),
                       u32_at(p + 20), name);
                if (e >= public_count) continue;
                CHECK(u32_at(p) == infos[e].pid && u64_at(p + 8) == infos[e].usedGpuMemory);
                CHECK(u32_at(p + 16) == infos[e].gpuInstanceId && u32_at(p + 20) == infos[e].computeInstanceId);
                char public_name[256] = "";
                CHECK(nvmlSystemGetProcessName_(infos[e].pid, public_name, sizeof public_name) == NVML_SUCCESS);
                CHECK(strcmp(name, public_name) == 0);
            }
            /* Room for one entry less than the list has: INSUFFICIENT_SIZE, the count needed,
             * no entry written. */
            if (slot == 213 && count > 0) {
                unsigned int needed = count;
                memset(entries, 0, sizeof entries);
                count = needed - 1;
                code = ((ProcessList)words[slot])(devices[i], &count, entries);
                printf("short %u %d %d %u\n", i, slot, code, count);
                for (size_t b = 0; b < sizeof entries; b++) {
                    if (entries[b] != 0) {
                        CHECK(!"a short list gets no entry");
                        break;
                    }
                }
            }
        }
    }

    /* Slot 72 (dmon, pmon): whether the GPU can be monitored, written through a pointer into
     * the caller's stack. */
    unsigned long long supported = 0;
    code = ((Monitorable)words[72])(devices[0], &supported);
    printf("monitorable %d %llu\n", code, supported);

    /* Slot 23 (topo -m): the path between two GPUs, by PCI bus id, for every ordered pair. */
    char bus[64][NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
    for (unsigned int i = 0; i < gpus; i++) {
        nvmlPciInfo_t pci;
        CHECK(nvmlDeviceGetPciInfo_v3_(devices[i], &pci) == NVML_SUCCESS);
        memcpy(bus[i], pci.busId, sizeof bus[i]);
    }
    for (unsigned int i = 0; i < gpus; i++) {
        for (unsigned int j = 0; j < gpus; j++) {
            if (i == j) continue;
            unsigned int path = 0xFFFF;
            code = ((PathBetween)words[23])(bus[i], bus[j], &path);
            printf("path %u %u %d %u\n", i, j, code, path);
        }
    }
    unsigned int path = 0xFFFF;
    code = ((PathBetween)words[23])(bus[0], "00000000:FE:1F.0", &path);
    printf("path_unknown %d\n", code);
    CHECK(path == 0xFFFF);

    /* Slot 231 (-q, "GPU Part Number"): a string into the caller's buffer. */
    char part[80] = "";
    code = ((PartNumber)words[231])(devices[0], part, sizeof part);
    CHECK(memchr(part, 0, sizeof part) != NULL);
    printf("part_number %d %s\n", code, part);

    /* A slot without an answer of its own, called with a device and a count on the stack
     * (232, as -q calls it): the count is set to 0, or nvidia-smi would read its capacity as
     * the number of entries. */
    unsigned int count = 77;
    code = ((Counted)words[232])(devices[0], &count);
    printf("other_slot 232 %d %u\n", code, count);

    CHECK(nvmlShutdown_() == NVML_SUCCESS);
    return failures;
}
