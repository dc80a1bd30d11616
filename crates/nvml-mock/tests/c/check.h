/*
 * The checks of the C clients of tests/c/ and of crates/cuda-mock/tests/c/: CHECK(cond) prints
 * `FAIL file:line: cond` when cond is false and counts the failure in `failures`, which a client
 * returns from main.
 */
#include <stdio.h>

static int failures = 0;

#define CHECK(cond)                                                               \
    do {                                                                          \
        if (!(cond)) {                                                            \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                \
            failures++;                                                           \
        }                                                                         \
    } while (0)
