/* The one item of <stdlib.h> that cuda.h uses, as the generator's parse target
 * (x86_64-unknown-linux-gnu, LP64) defines it: the parse reads no header of the host. */
#ifndef NVMLKIT_CUDA_SYSROOT_STDLIB_H
#define NVMLKIT_CUDA_SYSROOT_STDLIB_H
typedef unsigned long size_t;
#endif
