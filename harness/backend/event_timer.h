/* event_timer.h - the bookkeeping of timing steps with device events, apart
 * from the device: which event opens and closes which step, when the pool
 * of events is full and must be read, and how a window's durations come out
 * in step order. The CUDA backend drives it with cudaEvent_t; the unit
 * tests drive it with a fake, so all of this is checked on any machine.
 *
 * per_step: an event pair around each step, recorded on the component's
 *   stream; the host never waits between steps. The pairs are read (one
 *   synchronize on the last event, then elapsed times) when the window ends,
 *   when the runner asks (auto stopping checks), or when the pool is full.
 * batch: one pair around the whole window; each step gets the window's mean
 *   (for steps shorter than the event resolution, about 0.5 us).
 *
 * Cold cache (ops.flush set, schedule.flush_l2): before each step's start
 * event the timer flushes and waits for the flush to finish (nvbench's
 * order), so no flush is ever between a start event and its end event.
 * One pair around a batch of steps cannot leave the flushes between them
 * out, so batch with a flush times each step with its own pair
 * (t->batch_per_step says so). */
#ifndef HARNESS_EVENT_TIMER_H
#define HARNESS_EVENT_TIMER_H

#include <stddef.h>

/* What the timer needs of a device's events; every call returns 0 on success. */
typedef struct harness_event_ops {
    void *self;
    int (*create)(void *self, void **ev);
    void (*destroy)(void *self, void *ev);
    int (*record)(void *self, void *ev);                  /* enqueue on the component's stream */
    int (*synchronize)(void *self, void *ev);             /* wait until ev has happened */
    int (*elapsed_ms)(void *self, void *start, void *end, float *ms);
    /* NULL: warm cache. Else: evict the cache on the stream and return once
     * the stream is idle (the flush done); called before a step's start. */
    int (*flush)(void *self);
} harness_event_ops;

typedef enum { HARNESS_TIMING_PER_STEP = 0, HARNESS_TIMING_BATCH = 1 } harness_timing_mode;

typedef struct harness_event_timer {
    harness_event_ops ops;
    harness_timing_mode mode;
    int batch_per_step;            /* batch was asked with a flush: timed per step */
    void **events;                 /* the pool: start, end, start, end, ... */
    size_t pool_pairs;             /* its size in pairs */
    size_t used_pairs;             /* pairs recorded and not yet read */
    int open;                      /* per_step: a step's start is recorded, its end not yet */
    int window_open;               /* batch: the window's start is recorded */
    size_t batch_steps;            /* batch: steps of the open window */
    double *ready;                 /* durations read, in step order, not yet taken (ns) */
    size_t n_ready, cap_ready;
    size_t syncs;                  /* host waits so far (tests; the summary) */
    char error[256];               /* why the last call failed */
} harness_event_timer;

/* Creates the pool (2 x pool_pairs events; batch needs one pair). 0, or -1
 * with t->error set (events already created are destroyed). */
int harness_event_timer_init(harness_event_timer *t, const harness_event_ops *ops, harness_timing_mode mode,
                             size_t pool_pairs);
void harness_event_timer_destroy(harness_event_timer *t);

/* The window's edges (batch records its pair here; per_step only checks). */
int harness_event_timer_window_begin(harness_event_timer *t);
int harness_event_timer_window_end(harness_event_timer *t);
/* Right before and right after one measured step. */
int harness_event_timer_step_begin(harness_event_timer *t);
int harness_event_timer_step_end(harness_event_timer *t);
/* Waits once for what is recorded and reads every complete pair into the
 * ready list (batch: only once the window has ended). */
int harness_event_timer_drain(harness_event_timer *t);
/* Moves up to max ready durations (ns, oldest first) to out; returns how many. */
size_t harness_event_timer_take(harness_event_timer *t, double *out, size_t max);

#endif
