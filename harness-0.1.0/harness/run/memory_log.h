/* memory_log.h - memory sampled during a run: every memory_log_steps steps
 * and at every phase edge. On the CPU "allocated" is what went through the
 * tracked allocator and "reserved" the process's resident set; on a GPU they
 * are the tracked device allocations and the device's used memory. */
#ifndef HARNESS_MEMORY_LOG_H
#define HARNESS_MEMORY_LOG_H

#include <stddef.h>
#include <stdint.h>

typedef struct harness_memory_sample {
    double t_us;                   /* since the trace's base time */
    int64_t step;                  /* steps run so far, all phases counted */
    int phase;                     /* harness_phase: 0 warmup, 1 wait, 2 measure */
    int window;                    /* measurement window, -1 during warmup */
    uint64_t allocated;            /* tracked bytes live now */
    uint64_t peak_allocated;       /* tracked high-water mark so far */
    uint64_t reserved;             /* resident set (CPU) or device used memory (GPU) */
} harness_memory_sample;

typedef struct harness_memory_log {
    harness_memory_sample *samples;
    size_t n, cap;
    uint64_t peak_reserved;        /* max of `reserved` over the samples */
} harness_memory_log;

#endif
