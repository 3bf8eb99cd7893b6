/* declared_io.h - the buffers a component declared with the input and
 * output services (ABI 2.4): what the checks after timing rewrite and read
 * (run/after_timing.h) and what schedule.rotate_inputs rotates
 * (run/input_sets.h). */
#ifndef HARNESS_RUN_DECLARED_IO_H
#define HARNESS_RUN_DECLARED_IO_H

#include <stddef.h>

#include "harness/plugin.h"

#define HARNESS_MAX_DECLARED 16

typedef struct harness_declared_buffer {
    void *ptr;
    size_t count, bytes;
    harness_dtype dtype;
    int device;                    /* device memory: read and written through the backend's copy */
} harness_declared_buffer;

typedef struct harness_declared_io {
    harness_declared_buffer inputs[HARNESS_MAX_DECLARED], outputs[HARNESS_MAX_DECLARED];
    int n_inputs, n_outputs;
} harness_declared_io;

/* Records buf in list (n entries, at most HARNESS_MAX_DECLARED): a buffer
 * declared again replaces its entry. 0, or -1 when the list is full or the
 * size overflows (why says which). */
int harness_declared_add(harness_declared_buffer *list, int *n, void *buf, size_t count, harness_dtype dtype,
                         int device, char *why, size_t cap);

#endif
