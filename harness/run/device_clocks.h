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
#include "run/runner.h"
#include "run/throttle.h"

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

/* At a window's start (r->n_samples is its first sample). `ranks`: other
 * ranks run the same steps, so nothing is re-measured. */
void harness_device_clocks_begin(harness_device_clocks *dc, const harness_run_result *r, const harness_schedule *s,
                                 const harness_backend *b, int ranks);

/* Before a step (force 0), or after the window's last one (force 1): a
 * reading if one is due, for the steps since the last. Returns how many
 * steps the window must run more (the group dropped), 0, or -1 with err
 * set (the device failed while waiting for it to pause). */
int64_t harness_device_clocks_read(harness_device_clocks *dc, harness_run_result *r, const harness_backend *b,
                                   int force, harness_error *err);

/* Once every sample of the window so far has its device time: the dropped
 * ones leave samples_ns, host_samples_ns and sample_clock_mhz. */
void harness_device_clocks_compact(harness_device_clocks *dc, harness_run_result *r);

/* At the window's end: its counts into r->window_clocks[w]; frees. */
void harness_device_clocks_end(harness_device_clocks *dc, harness_run_result *r, size_t w);

#endif
