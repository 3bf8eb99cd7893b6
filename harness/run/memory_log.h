/* memory_log.h - memory sampled during a run: every memory_log_steps steps
 * and at every phase edge. On the CPU "allocated" is what went through the
 * tracked allocator and "reserved" the process's resident set; on a GPU they
 * are the tracked device allocations and the device's used memory.
 *
 * Bounded: at most HARNESS_MEMORY_LOG_MAX points whatever the step count
 * (2,000,000 steps once made 200,000 samples, 288 MB of RSS and a 37.8 MB
 * summary). When the log is full, each two neighbouring points become one
 * that spans both, keeping the max and the min of each series over its
 * span, and the sampling stride doubles: the points stay evenly spread over
 * the run and every peak survives. */
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
    /* A point that stands for several samples (merged when the log was
     * full) starts where the first did (t_us, step, phase, window) and
     * holds the max of each series above and the min here; for one
     * sample they are equal. */
    uint64_t allocated_min, reserved_min;
} harness_memory_sample;

/* Points a log keeps at most: the summary's memory.samples_bound. */
#define HARNESS_MEMORY_LOG_MAX 1024

typedef struct harness_memory_log {
    harness_memory_sample *samples;
    size_t n, cap;
    uint64_t peak_reserved;        /* max of `reserved` over every sample taken, merged or not */
    int64_t every_steps;           /* the stride now: memory_log_steps, doubled at each merge */
    uint64_t taken;                /* samples taken, before any merge */
} harness_memory_log;

/* Append one sample (the max and min fields set from it), merging pairs
 * first when the log holds HARNESS_MEMORY_LOG_MAX points. -1 when out of
 * memory (a gap in the timeline, not a failed run). */
int harness_memory_log_add(harness_memory_log *m, const harness_memory_sample *s);

#endif
