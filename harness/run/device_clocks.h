/* device_clocks.h - the SM clock read between a device window's steps, and
 * the throttled steps dropped and measured again (run/throttle.h has the
 * rule; docs/timing-integrity.md, "Clocks per sample").
 *
 * When: before a step's begin mark (the backend's between_steps and the
 * ranks' meeting are done; nothing of it is timed), once at least
 * HARNESS_CLOCK_READ_PERIOD_NS of host time has passed since the last
 * reading, and once after the window's last step. A reading stands for the
 * group of steps marked since the one before: the device runs a step after
 * the host marks it, so the clock read after a step is the nearer one. A
 * device far behind the host (long steps, a queue the host filled) runs a
 * group later than it was read; throttling lasts milliseconds to seconds,
 * so a group is judged by the clock of its time, give or take the queue.
 *
 * Not for a window timed whole (timing: batch without flush_l2): one event
 * pair spans it, so a reading between its steps would be timed; its steps'
 * clocks stay unknown and the window's edges are read as before. */
#ifndef HARNESS_DEVICE_CLOCKS_H
#define HARNESS_DEVICE_CLOCKS_H

#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"
#include "run/throttle.h"

/* A device window's readings, kept in the run result (run/runner.h);
 * zero on the CPU and for a window timed whole. */
typedef struct harness_window_clocks {
    int64_t readings;              /* readings that stood for steps of the window */
    int64_t dropped;               /* steps read below the threshold, dropped and measured again */
    int64_t kept_throttled;        /* steps read below it but kept (a cap reached, or among ranks) */
    double paused_ns;              /* recovery pauses after throttled readings */
    uint64_t throttle_reasons;     /* NVML's reason bits of every reading */
} harness_window_clocks;

/* The runner's per-sample columns (run/runner.h), n of them; what is
 * dropped leaves all three. */
typedef struct harness_sample_columns {
    double *device_ns, *host_ns, *clock_mhz;
    size_t *n;
} harness_sample_columns;

typedef struct harness_device_clocks {
    int on;                        /* the backend reads clocks and the steps are timed one by one */
    harness_throttle throttle;
    size_t window_start;           /* the window's first sample */
    size_t group_start;            /* the first sample the next reading stands for */
    uint64_t last_read_ns;         /* host wall time of the last reading */
    uint64_t reasons;              /* reason bits of every reading */
    int64_t readings;
    unsigned char *drop;           /* per sample from window_start: dropped */
    size_t drop_cap;
} harness_device_clocks;

/* At a window's start, whose first sample is `first`: `planned` steps
 * (measurement_steps, or max_steps for auto) bound the steps measured
 * again; `ranks`: other ranks run the same steps, so none is. */
void harness_device_clocks_begin(harness_device_clocks *dc, size_t first, int64_t planned, double threshold,
                                 const harness_backend *b, int ranks);

/* Before a step (force 0), or after the window's last one and at a
 * stopping check (force 1): a reading if one is due, for the samples since
 * the last (their clocks set in c). Returns how many steps the window must
 * run more (the group dropped), 0, or -1 with err set (the device failed
 * while waiting for it to pause). */
int64_t harness_device_clocks_read(harness_device_clocks *dc, const harness_sample_columns *c,
                                   const harness_backend *b, int force, harness_error *err);

/* Once every sample of the window so far has its device time: the dropped
 * ones leave the columns. */
void harness_device_clocks_compact(harness_device_clocks *dc, const harness_sample_columns *c);

/* At the window's end: its counts; frees. */
harness_window_clocks harness_device_clocks_end(harness_device_clocks *dc);

#endif
