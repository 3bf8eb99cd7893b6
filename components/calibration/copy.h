/* copy.h - the machine's copy bandwidth: what memory-bound kernels are held to. */
#ifndef COMPONENTS_COPY_H
#define COMPONENTS_COPY_H

#include <stddef.h>

/* dst and src must not overlap. OpenMP-parallel: each thread copies one
 * contiguous chunk. */
void copy_cpu(void *dst, const void *src, size_t bytes);

#endif
