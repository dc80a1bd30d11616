/* The items of <stdint.h> that cuda.h uses, as the generator's parse target
 * (x86_64-unknown-linux-gnu, LP64) defines them: the parse reads no header of the host. */
#ifndef NVMLKIT_CUDA_SYSROOT_STDINT_H
#define NVMLKIT_CUDA_SYSROOT_STDINT_H
typedef unsigned int uint32_t;
typedef unsigned long uint64_t;
#endif
