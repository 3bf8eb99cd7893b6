/* copy_cpu.c - parallel memcpy: one contiguous chunk per thread, so each
 * thread streams through its own pages and memcpy picks its large-copy path
 * (non-temporal stores) by the chunk's size, as it would for one big copy. */
#include "copy.h"

#include <omp.h>
#include <string.h>

/* Below this a fork/join of the thread team costs more than the copy. */
#define PARALLEL_MIN_BYTES (256u << 10)

/* Chunks start on cache-line boundaries (relative to dst) so no two threads
 * write the same line. */
#define LINE 64

void copy_cpu(void *dst, const void *src, size_t bytes)
{
#pragma omp parallel if (bytes >= PARALLEL_MIN_BYTES)
    {
        size_t threads = (size_t)omp_get_num_threads();
        size_t t = (size_t)omp_get_thread_num();
        size_t share = bytes / threads + (bytes % threads != 0);   /* rounded up */
        size_t chunk = (share + LINE - 1) / LINE * LINE;
        size_t begin = t * chunk < bytes ? t * chunk : bytes;
        size_t end = bytes - begin > chunk ? begin + chunk : bytes;
        if (end > begin)
            memcpy((char *)dst + begin, (const char *)src + begin, end - begin);
    }
}
