/* copy_cpu.c - parallel copy: one contiguous chunk per thread.
 *
 * It is the yardstick memory-bound kernels are held to, so it must be the
 * best copy the machine can do. glibc's memcpy switches to non-temporal
 * (cache-bypassing) stores only above a threshold derived from the reported
 * L3 size, which on some VMs is hundreds of MiB; below it every destination
 * line is first read for ownership, costing a third more traffic. Large
 * copies therefore stream their stores here, as the kernels they are compared
 * with do. */
#include "copy.h"

#include <omp.h>
#include <stdint.h>
#include <string.h>

#include "common/stream_copy.h"

/* Below this a fork/join of the thread team costs more than the copy. */
#define PARALLEL_MIN_BYTES (256u << 10)

/* Streaming pays off once the data cannot stay in cache anyway. */
#define STREAM_MIN_BYTES (32u << 20)

/* Chunks start on cache-line boundaries (relative to dst) so no two threads
 * write the same line. */
#define LINE 64

void copy_cpu(void *dst, const void *src, size_t bytes)
{
    int stream = bytes >= STREAM_MIN_BYTES;
#pragma omp parallel if (bytes >= PARALLEL_MIN_BYTES)
    {
        size_t threads = (size_t)omp_get_num_threads();
        size_t t = (size_t)omp_get_thread_num();
        size_t share = bytes / threads + (bytes % threads != 0);   /* rounded up */
        size_t chunk = (share + LINE - 1) / LINE * LINE;
        size_t begin = t * chunk < bytes ? t * chunk : bytes;
        size_t end = bytes - begin > chunk ? begin + chunk : bytes;
        char *d = (char *)dst + begin;
        const char *s = (const char *)src + begin;
        if (end > begin && stream)
            stream_copy(d, s, end - begin);
        else if (end > begin)
            memcpy(d, s, end - begin);
    }
}
