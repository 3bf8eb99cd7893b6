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
 * (t->batch_per_step says so).
 *
 * The blocking kernel (ops.block and ops.release set; nvbench's idea): the
 * start event must not fire before the GPU has the step's work, or the
 * host's launch latency is timed. So a kernel that spins on a host flag is
 * enqueued first, the start event, the step(s) and the end event behind
 * it, and only then is it released: the GPU runs them back to back.
 *   per_step: block, start, step, end, [start, step, end, ...], release.
 *     One block covers a group of up to HARNESS_BLOCK_GROUP_STEPS steps (the
 *     launch queue stays bounded: a full queue would stall the host behind
 *     the block until its timeout), fewer once the group has been held
 *     half the timeout by the host (a slow step() or a meeting of ranks
 *     between steps), and exactly one with a flush:
 *     flush, wait, block, start, step, end, release.
 *   batch: block, start, steps, end, release; a window longer than a group
 *     is released after the group's steps (the GPU runs ahead from there).
 *   drain releases before it waits; window_end and destroy release too.
 * A step() that synchronizes the stream waits behind the block until the
 * kernel's timeout (ops.block_timeout_ns) frees it: the kernel records
 * that it timed out, release reports it (or the host saw one step() call
 * last the timeout), and blocking stops for the rest of the run
 * (t->fell_back; the backend says so once, the summary records it). */
#ifndef HARNESS_EVENT_TIMER_H
#define HARNESS_EVENT_TIMER_H

#include <stddef.h>
#include <stdint.h>

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
    /* Both NULL: no blocking kernel. block: enqueue the blocking kernel on
     * the stream. release: let every block enqueued so far go, and set
     * *timed_out when one gave up waiting (its timeout) since the last
     * release. now_ns: the host clock, for a group's age and a step()'s
     * duration (NULL: neither is watched). */
    int (*block)(void *self);
    int (*release)(void *self, int *timed_out);
    uint64_t (*now_ns)(void *self);
    uint64_t block_timeout_ns;     /* the kernel's timeout; 0 with now_ns: not watched */
} harness_event_ops;

/* Most steps enqueued behind one blocking kernel: a step of a few launches
 * times 32 stays well inside the device's launch queue (about a thousand
 * entries), so the host never stalls behind the block. */
#define HARNESS_BLOCK_GROUP_STEPS 32

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
    /* The blocking kernel (ops.block): on until a step synchronized. */
    int blocking;                  /* a block goes in front of timed launches */
    int fell_back;                 /* a block timed out: blocking stopped */
    int held;                      /* a block is enqueued, not yet released */
    size_t held_steps;             /* steps enqueued behind it */
    size_t group_steps;            /* most steps behind one block */
    uint64_t held_since_ns;        /* host time it was enqueued */
    uint64_t step_call_ns;         /* host time step_begin returned */
    int slow_step;                 /* a step() call lasted the timeout */
    int in_step;                   /* between step_begin and step_end (either mode) */
    size_t blocks;                 /* blocks enqueued so far (tests) */
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
/* The host is about to wait for the stream (a copy, a synchronize, the
 * throttle's recovery pause): a held block is let go first, or the wait
 * would last until the kernel's timeout. A wait inside a step is the step
 * waiting on its own stream: blocking stops from here on (t->fell_back), as
 * when a block times out. 0, or -1 with t->error set. */
int harness_event_timer_host_wait(harness_event_timer *t);
/* Waits once for what is recorded and reads every complete pair into the
 * ready list (batch: only once the window has ended). */
int harness_event_timer_drain(harness_event_timer *t);
/* Moves up to max ready durations (ns, oldest first) to out; returns how many. */
size_t harness_event_timer_take(harness_event_timer *t, double *out, size_t max);

#endif
