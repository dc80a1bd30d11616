/*
 * Guarded buffers for the C clients of tests/c/ (and the guard-page harness that
 * xtask/tests/guard_pages.rs generates): a caller's record placed so that the memory
 * around it is unusable (a PROT_NONE page) or holds a canary pattern that must stay unchanged.
 *
 * guarded_end(size) gives `size` bytes that end exactly where a PROT_NONE page begins; the
 * bytes of their page before them (and of the pages before, for a record longer than a page)
 * back to a PROT_NONE page hold CANARY_BYTE. guarded_start(size) gives `size` bytes that
 * start right after a PROT_NONE page, followed by CANARY_BYTE up to the next one.
 * guard_intact(g) says whether every canary byte is unchanged; guard_free(g) unmaps it.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define CANARY_BYTE 0xA5

typedef struct {
    unsigned char *map;   /* the whole mapping: guard page, usable pages, guard page */
    size_t map_len;
    unsigned char *usable; /* the usable pages */
    size_t usable_len;
    unsigned char *buf;   /* the caller's record, inside the usable pages */
    size_t size;
} guarded_t;

static guarded_t guarded_place(size_t size, int at_end) {
    guarded_t g = {0};
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t pages = size == 0 ? 1 : (size + page - 1) / page;
    g.usable_len = pages * page;
    g.map_len = g.usable_len + 2 * page;
    void *m = mmap(NULL, g.map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        g.map = NULL;
        return g;
    }
    g.map = m;
    g.usable = g.map + page;
    mprotect(g.map, page, PROT_NONE);
    mprotect(g.usable + g.usable_len, page, PROT_NONE);
    memset(g.usable, CANARY_BYTE, g.usable_len);
    g.size = size;
    g.buf = at_end ? g.usable + g.usable_len - size : g.usable;
    return g;
}

static guarded_t guarded_end(size_t size) { return guarded_place(size, 1); }
static guarded_t guarded_start(size_t size) { return guarded_place(size, 0); }

/* Whether every byte of the usable pages outside the record still holds CANARY_BYTE. */
static int guard_intact(const guarded_t *g) {
    for (unsigned char *p = g->usable; p < g->buf; p++)
        if (*p != CANARY_BYTE) return 0;
    for (unsigned char *p = g->buf + g->size; p < g->usable + g->usable_len; p++)
        if (*p != CANARY_BYTE) return 0;
    return 1;
}

static void guard_free(guarded_t *g) {
    if (g->map) munmap(g->map, g->map_len);
    g->map = NULL;
}
