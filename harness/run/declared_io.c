/* The declared buffers' list (run/declared_io.h). */
#include "run/declared_io.h"

#include <stdio.h>

#include "dist/dist.h"

int harness_declared_add(harness_declared_buffer *list, int *n, void *buf, size_t count, harness_dtype dtype,
                         int device, char *why, size_t cap)
{
    size_t elem = harness_dtype_size(dtype), bytes;
    if (!buf) {
        snprintf(why, cap, "a NULL buffer");
        return -1;
    }
    if (!elem) {
        snprintf(why, cap, "an unknown dtype %d", (int)dtype);
        return -1;
    }
    if (__builtin_mul_overflow(count, elem, &bytes)) {
        snprintf(why, cap, "%zu elements overflow size_t", count);
        return -1;
    }
    int at = 0;
    while (at < *n && list[at].ptr != buf)
        at++;
    if (at == HARNESS_MAX_DECLARED) {
        snprintf(why, cap, "more than %d buffers", HARNESS_MAX_DECLARED);
        return -1;
    }
    list[at] = (harness_declared_buffer){buf, count, bytes, dtype, device};
    if (at == *n)
        (*n)++;
    return 0;
}
