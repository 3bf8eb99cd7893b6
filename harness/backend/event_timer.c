/* Event pairs to step durations; see event_timer.h. */
#include "backend/event_timer.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failf(harness_event_timer *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->error, sizeof t->error, fmt, ap);
    va_end(ap);
    return -1;
}

int harness_event_timer_init(harness_event_timer *t, const harness_event_ops *ops, harness_timing_mode mode,
                             size_t pool_pairs)
{
    memset(t, 0, sizeof *t);
    t->ops = *ops;
    t->mode = mode;
    if (mode == HARNESS_TIMING_BATCH && ops->flush) {
        /* A window's single pair would hold every flush but the first. */
        t->mode = HARNESS_TIMING_PER_STEP;
        t->batch_per_step = 1;
        mode = HARNESS_TIMING_PER_STEP;
    }
    t->pool_pairs = mode == HARNESS_TIMING_BATCH || pool_pairs == 0 ? 1 : pool_pairs;
    t->blocking = ops->block && ops->release;
    /* A flush waits for the stream, which a held block would never let
     * finish: one step per block then. A group never outgrows the pool
     * either (a full pool is drained, which releases). */
    t->group_steps = ops->flush ? 1 : HARNESS_BLOCK_GROUP_STEPS;
    if (mode != HARNESS_TIMING_BATCH && t->group_steps > t->pool_pairs)
        t->group_steps = t->pool_pairs;
    t->events = calloc(2 * t->pool_pairs, sizeof *t->events);
    if (!t->events)
        return failf(t, "out of memory for %zu events", 2 * t->pool_pairs);
    for (size_t i = 0; i < 2 * t->pool_pairs; i++)
        if (t->ops.create(t->ops.self, &t->events[i]) != 0) {
            harness_event_timer_destroy(t);
            return failf(t, "cannot create event %zu of %zu", i + 1, 2 * pool_pairs);
        }
    return 0;
}

static int let_go(harness_event_timer *t);

void harness_event_timer_destroy(harness_event_timer *t)
{
    let_go(t);                     /* nothing may spin on after us */
    for (size_t i = 0; t->events && i < 2 * t->pool_pairs; i++)
        if (t->events[i])
            t->ops.destroy(t->ops.self, t->events[i]);
    free(t->events);
    free(t->ready);
    t->events = NULL;
    t->ready = NULL;
    t->n_ready = t->cap_ready = 0;
}

static int push_ready(harness_event_timer *t, double ns, size_t copies)
{
    if (t->n_ready + copies > t->cap_ready) {
        size_t cap = t->cap_ready ? t->cap_ready : 256;
        while (cap < t->n_ready + copies)
            cap *= 2;
        double *r = realloc(t->ready, cap * sizeof *r);
        if (!r)
            return failf(t, "out of memory for %zu step times", cap);
        t->ready = r;
        t->cap_ready = cap;
    }
    for (size_t i = 0; i < copies; i++)
        t->ready[t->n_ready++] = ns;
    return 0;
}

/* One elapsed time, in ns. */
static int pair_ns(harness_event_timer *t, size_t pair, double *ns)
{
    float ms = 0;
    if (t->ops.elapsed_ms(t->ops.self, t->events[2 * pair], t->events[2 * pair + 1], &ms) != 0)
        return failf(t, "cannot read the elapsed time of event pair %zu", pair);
    *ns = (double)ms * 1e6;
    return 0;
}

/* ---- the blocking kernel ----------------------------------------------- */

static uint64_t now(const harness_event_timer *t)
{
    return t->ops.now_ns ? t->ops.now_ns(t->ops.self) : 0;
}

/* Whether the host has held the block half its timeout: released now, it
 * still lets go before the kernel gives up. */
static int held_long(const harness_event_timer *t)
{
    return t->ops.now_ns && t->ops.block_timeout_ns && now(t) - t->held_since_ns >= t->ops.block_timeout_ns / 2;
}

/* Enqueues a block unless one is held or blocking is off. */
static int hold(harness_event_timer *t)
{
    if (!t->blocking || t->held)
        return 0;
    if (t->ops.block(t->ops.self) != 0)
        return failf(t, "cannot enqueue the blocking kernel");
    t->held = 1;
    t->held_steps = 0;
    t->held_since_ns = now(t);
    t->blocks++;
    return 0;
}

/* Releases the held block. A block that timed out (the kernel says so, or
 * a step() call lasted the timeout) means a step waited on the stream:
 * blocking is off from here on. */
static int let_go(harness_event_timer *t)
{
    if (!t->held)
        return 0;
    int timed_out = 0;
    t->held = 0;
    if (t->ops.release(t->ops.self, &timed_out) != 0)
        return failf(t, "cannot release the blocking kernel");
    if (timed_out || t->slow_step) {
        t->blocking = 0;
        t->fell_back = 1;
    }
    return 0;
}

int harness_event_timer_host_wait(harness_event_timer *t)
{
    if (t->in_step && t->blocking) {
        t->blocking = 0;
        t->fell_back = 1;
    }
    return let_go(t);
}

int harness_event_timer_window_begin(harness_event_timer *t)
{
    if (t->open || t->window_open)
        return failf(t, "window_begin while a step or window is still open");
    if (t->mode != HARNESS_TIMING_BATCH)
        return 0;
    if (hold(t) != 0)
        return -1;
    if (t->ops.record(t->ops.self, t->events[0]) != 0)
        return failf(t, "cannot record the window's start event");
    t->window_open = 1;
    t->batch_steps = 0;
    return 0;
}

int harness_event_timer_window_end(harness_event_timer *t)
{
    if (t->open)
        return failf(t, "window_end inside a step");
    if (t->mode != HARNESS_TIMING_BATCH)
        return let_go(t);
    if (!t->window_open)
        return failf(t, "window_end without window_begin");
    if (t->ops.record(t->ops.self, t->events[1]) != 0)
        return failf(t, "cannot record the window's end event");
    t->window_open = 0;
    t->used_pairs = 1;
    return let_go(t);
}

int harness_event_timer_step_begin(harness_event_timer *t)
{
    if (t->mode == HARNESS_TIMING_BATCH) {
        if (!t->window_open)
            return failf(t, "step_begin outside a window");
        t->step_call_ns = now(t);
        t->in_step = 1;
        return 0;
    }
    if (t->open)
        return failf(t, "step_begin twice without step_end");
    /* A full pool is read now: one host wait per pool, not per step. */
    if (t->used_pairs == t->pool_pairs && harness_event_timer_drain(t) != 0)
        return -1;
    /* The host spent long between steps: a new block before the kernel gives up. */
    if (t->held && held_long(t) && let_go(t) != 0)
        return -1;
    /* Flush, wait, then time: the flush's writes are over before the start. */
    if (t->ops.flush && t->ops.flush(t->ops.self) != 0)
        return failf(t, "cannot flush the cache before a step");
    if (hold(t) != 0)
        return -1;
    if (t->ops.record(t->ops.self, t->events[2 * t->used_pairs]) != 0)
        return failf(t, "cannot record the start event of a step");
    t->open = 1;
    t->in_step = 1;
    t->step_call_ns = now(t);
    return 0;
}

/* After a step is enqueued: whether its call lasted the block's timeout
 * (it waited on the stream), and whether its group is complete. */
static int after_step(harness_event_timer *t)
{
    t->in_step = 0;
    if (!t->held)
        return 0;
    t->held_steps++;
    if (t->ops.now_ns && t->ops.block_timeout_ns && now(t) - t->step_call_ns >= t->ops.block_timeout_ns)
        t->slow_step = 1;
    if (t->held_steps >= t->group_steps || t->slow_step || held_long(t))
        return let_go(t);
    return 0;
}

int harness_event_timer_step_end(harness_event_timer *t)
{
    if (t->mode == HARNESS_TIMING_BATCH) {
        if (!t->window_open)
            return failf(t, "step_end outside a window");
        t->batch_steps++;
        return after_step(t);
    }
    if (!t->open)
        return failf(t, "step_end without step_begin");
    if (t->ops.record(t->ops.self, t->events[2 * t->used_pairs + 1]) != 0)
        return failf(t, "cannot record the end event of a step");
    t->open = 0;
    t->used_pairs++;
    return after_step(t);
}

int harness_event_timer_drain(harness_event_timer *t)
{
    if (t->used_pairs == 0 || t->window_open)
        return 0;                  /* nothing complete to read (batch: until the window ends) */
    /* A held block would keep the last end event from ever happening. */
    if (let_go(t) != 0)
        return -1;
    /* The stream runs in order: once the last end event has happened, so has every earlier one. */
    if (t->ops.synchronize(t->ops.self, t->events[2 * t->used_pairs - 1]) != 0)
        return failf(t, "cannot wait for the step events");
    t->syncs++;
    if (t->mode == HARNESS_TIMING_BATCH) {
        double ns;
        if (pair_ns(t, 0, &ns) != 0)
            return -1;
        size_t n = t->batch_steps;
        t->used_pairs = 0;
        t->batch_steps = 0;
        return n ? push_ready(t, ns / (double)n, n) : 0;
    }
    for (size_t p = 0; p < t->used_pairs; p++) {
        double ns;
        if (pair_ns(t, p, &ns) != 0 || push_ready(t, ns, 1) != 0)
            return -1;
    }
    t->used_pairs = 0;
    return 0;
}

size_t harness_event_timer_take(harness_event_timer *t, double *out, size_t max)
{
    size_t n = t->n_ready < max ? t->n_ready : max;
    if (n == 0)
        return 0;
    memcpy(out, t->ready, n * sizeof *out);
    memmove(t->ready, t->ready + n, (t->n_ready - n) * sizeof *t->ready);
    t->n_ready -= n;
    return n;
}
