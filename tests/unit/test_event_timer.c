/* The event timer's bookkeeping (backend/event_timer.h), driven by a fake
 * device whose events carry the times a test chooses: which pair times which
 * step, when the host waits, and what comes out, with no GPU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/event_timer.h"

/* A fake stream: each record stamps the event with the fake clock, which
 * the test advances; synchronize checks the event was recorded. */
typedef struct fake_event {
    double t_ms;
    int recorded;
} fake_event;

typedef struct fake_device {
    double now_ms;
    int created, destroyed, records, syncs;
    int fail_create_at;            /* create call that fails, -1: none */
    int fail_record;
    char log[160];                 /* F: flush, B: block, R: record, s: a step, U: release, W: a host wait */
    int n_log;
    /* The blocking kernel: held until released, or until its timeout when
     * the stream is waited on (a step that synchronizes). */
    int held, timed_out, released;
    double timeout_ms;
} fake_device;

static void log_op(fake_device *d, char c)
{
    if (d->n_log < (int)sizeof d->log - 1)
        d->log[d->n_log++] = c;
    d->log[d->n_log] = '\0';
}

static int fake_create(void *self, void **ev)
{
    fake_device *d = self;
    if (d->created == d->fail_create_at)
        return -1;
    d->created++;
    *ev = calloc(1, sizeof(fake_event));
    return *ev ? 0 : -1;
}

static void fake_destroy(void *self, void *ev)
{
    ((fake_device *)self)->destroyed++;
    free(ev);
}

static int fake_record(void *self, void *ev)
{
    fake_device *d = self;
    if (d->fail_record)
        return -1;
    d->records++;
    log_op(d, 'R');
    ((fake_event *)ev)->t_ms = d->now_ms;
    ((fake_event *)ev)->recorded = 1;
    return 0;
}

/* A wait behind a held block would hang: the fake refuses it. */
static int fake_sync(void *self, void *ev)
{
    fake_device *d = self;
    d->syncs++;
    log_op(d, 'W');
    return ((fake_event *)ev)->recorded && !d->held ? 0 : -1;
}

static int fake_elapsed(void *self, void *a, void *b, float *ms)
{
    (void)self;
    *ms = (float)(((fake_event *)b)->t_ms - ((fake_event *)a)->t_ms);
    return 0;
}

/* A flush that keeps the device busy 2 ms, then waits for it. */
static int fake_flush(void *self)
{
    fake_device *d = self;
    d->now_ms += 2.0;
    log_op(d, 'F');
    return d->held ? -1 : 0;       /* the flush's wait would hang behind a block */
}

static int fake_block(void *self)
{
    fake_device *d = self;
    log_op(d, 'B');
    d->held = 1;
    return 0;
}

static int fake_release(void *self, int *timed_out)
{
    fake_device *d = self;
    log_op(d, 'U');
    d->held = 0;
    d->released++;
    *timed_out = d->timed_out;
    d->timed_out = 0;
    return 0;
}

static uint64_t fake_now_ns(void *self)
{
    return (uint64_t)(((fake_device *)self)->now_ms * 1e6);
}

/* What a step() that synchronizes the stream does behind a held block:
 * waits until the kernel's timeout frees the stream. */
static void fake_stream_sync(fake_device *d)
{
    if (!d->held)
        return;
    d->now_ms += d->timeout_ms;
    d->held = 0;
    d->timed_out = 1;
}

static harness_event_ops fake_ops(fake_device *d)
{
    return (harness_event_ops){.self = d, .create = fake_create, .destroy = fake_destroy, .record = fake_record,
                               .synchronize = fake_sync, .elapsed_ms = fake_elapsed};
}

/* With the blocking kernel, its 100 ms timeout watched by the host clock. */
static harness_event_ops blocking_ops(fake_device *d)
{
    d->timeout_ms = 100;
    harness_event_ops ops = fake_ops(d);
    ops.block = fake_block;
    ops.release = fake_release;
    ops.now_ns = fake_now_ns;
    ops.block_timeout_ns = 100000000;
    return ops;
}


/* One step that takes `ms` on the device, with `gap` ms between steps. */
static void step(harness_event_timer *t, fake_device *d, double ms, double gap)
{
    d->now_ms += gap;
    assert_int_equal(harness_event_timer_step_begin(t), 0);
    log_op(d, 's');
    d->now_ms += ms;
    assert_int_equal(harness_event_timer_step_end(t), 0);
}

/* The log without the steps' own letters repeated: n copies of unit. */
static char *repeat(char *out, const char *unit, int n)
{
    out[0] = '\0';
    for (int i = 0; i < n; i++)
        strcat(out, unit);
    return out;
}

static void per_step_reads_once_at_the_end(void **state)
{
    (void)state;
    fake_device d = {.fail_create_at = -1};
    harness_event_ops ops = fake_ops(&d);
    harness_event_timer t;
    assert_int_equal(harness_event_timer_init(&t, &ops, HARNESS_TIMING_PER_STEP, 16), 0);
    assert_int_equal(d.created, 32);
    assert_int_equal(harness_event_timer_window_begin(&t), 0);
    for (int i = 0; i < 5; i++)
        step(&t, &d, 0.001 * (i + 1), 0.5);
    assert_int_equal(d.syncs, 0);          /* no host wait between steps */
    assert_int_equal(harness_event_timer_window_end(&t), 0);
    assert_int_equal(harness_event_timer_drain(&t), 0);
    assert_int_equal(d.syncs, 1);
    double out[8];
    assert_int_equal(harness_event_timer_take(&t, out, 8), 5);
    for (int i = 0; i < 5; i++)            /* the gaps are not in the steps' times */
        assert_float_equal(out[i], 1000.0 * (i + 1), 1.0);
    assert_int_equal(harness_event_timer_take(&t, out, 8), 0);
    harness_event_timer_destroy(&t);
    assert_int_equal(d.destroyed, 32);
}

static void a_full_pool_is_read_and_reused(void **state)
{
    (void)state;
    fake_device d = {.fail_create_at = -1};
    harness_event_ops ops = fake_ops(&d);
    harness_event_timer t;
    assert_int_equal(harness_event_timer_init(&t, &ops, HARNESS_TIMING_PER_STEP, 4), 0);
    assert_int_equal(harness_event_timer_window_begin(&t), 0);
    for (int i = 0; i < 10; i++)
        step(&t, &d, 0.002 * (i + 1), 0.1);
    /* Pairs 1-4 and 5-8 were read when the pool filled; 9-10 wait for the drain. */
    assert_int_equal(d.syncs, 2);
    assert_int_equal(t.n_ready, 8);
    assert_int_equal(harness_event_timer_window_end(&t), 0);
    assert_int_equal(harness_event_timer_drain(&t), 0);
    assert_int_equal(d.syncs, 3);
    double out[10];
    assert_int_equal(harness_event_timer_take(&t, out, 10), 10);
    for (int i = 0; i < 10; i++)
        assert_float_equal(out[i], 2000.0 * (i + 1), 1.0);
    harness_event_timer_destroy(&t);
}

static void drains_in_the_middle_keep_the_order(void **state)
{
    (void)state;
    fake_device d = {.fail_create_at = -1};
    harness_event_ops ops = fake_ops(&d);
    harness_event_timer t;
    assert_int_equal(harness_event_timer_init(&t, &ops, HARNESS_TIMING_PER_STEP, 64), 0);
    assert_int_equal(harness_event_timer_window_begin(&t), 0);
    double out[4];
    step(&t, &d, 0.003, 0);
    step(&t, &d, 0.004, 0);
    assert_int_equal(harness_event_timer_drain(&t), 0);   /* an auto stopping check */
    assert_int_equal(harness_event_timer_take(&t, out, 1), 1);  /* take in parts */
    assert_float_equal(out[0], 3000.0, 1.0);
    step(&t, &d, 0.005, 0);
    assert_int_equal(harness_event_timer_window_end(&t), 0);
    assert_int_equal(harness_event_timer_drain(&t), 0);
    assert_int_equal(harness_event_timer_take(&t, out, 4), 2);
    assert_float_equal(out[0], 4000.0, 1.0);
    assert_float_equal(out[1], 5000.0, 1.0);
    assert_int_equal(harness_event_timer_drain(&t), 0);   /* nothing left: no wait */
    assert_int_equal(d.syncs, 2);
    harness_event_timer_destroy(&t);
}

static void batch_gives_every_step_the_window_mean(void **state)
{
    (void)state;
    fake_device d = {.fail_create_at = -1};
    harness_event_ops ops = fake_ops(&d);
    harness_event_timer t;
    assert_int_equal(harness_event_timer_init(&t, &ops, HARNESS_TIMING_BATCH, 1024), 0);
    assert_int_equal(d.created, 2);        /* one pair is all batch needs */
    for (int w = 0; w < 2; w++) {
        assert_int_equal(harness_event_timer_window_begin(&t), 0);
        for (int i = 0; i < 4; i++)
            step(&t, &d, 0.001 * (w + 1), 0);
        assert_int_equal(harness_event_timer_drain(&t), 0);   /* window still open: nothing yet */
        assert_int_equal(t.n_ready, 0);
        assert_int_equal(harness_event_timer_window_end(&t), 0);
    assert_int_equal(d.records, 2 * (w + 1));              /* no event per step */
        assert_int_equal(harness_event_timer_drain(&t), 0);
        double out[4];
        assert_int_equal(harness_event_timer_take(&t, out, 4), 4);
        for (int i = 0; i < 4; i++)
            assert_float_equal(out[i], 1000.0 * (w + 1), 1.0);
    }
    harness_event_timer_destroy(&t);
}

/* flush_l2: flush, wait, then the start event, in both timing modes; the
 * 2 ms flush is never in a step's time. batch cannot keep the flushes out
 * of one window pair, so it times each step alone and says so. */
static void flushes_stay_outside_the_timed_pairs(void **state)
{
    (void)state;
    for (int batch = 0; batch < 2; batch++) {
        fake_device d = {.fail_create_at = -1};
        harness_event_ops ops = fake_ops(&d);
        ops.flush = fake_flush;
        harness_event_timer t;
        assert_int_equal(harness_event_timer_init(&t, &ops, batch ? HARNESS_TIMING_BATCH : HARNESS_TIMING_PER_STEP,
                                                  16), 0);
        assert_int_equal(t.batch_per_step, batch);
        assert_int_equal(harness_event_timer_window_begin(&t), 0);
        for (int i = 0; i < 3; i++)
            step(&t, &d, 0.001, 0);
        assert_int_equal(harness_event_timer_window_end(&t), 0);
        assert_int_equal(harness_event_timer_drain(&t), 0);
        assert_string_equal(d.log, "FRsRFRsRFRsRW");
        double out[4];
        assert_int_equal(harness_event_timer_take(&t, out, 4), 3);
        for (int i = 0; i < 3; i++)
            assert_float_equal(out[i], 1000.0, 1.0);
        harness_event_timer_destroy(&t);
    }
}

static void misuse_and_device_errors_are_reported(void **state)
{
    (void)state;
    fake_device d = {.fail_create_at = 3};
    harness_event_ops ops = fake_ops(&d);
    harness_event_timer t;
    assert_int_equal(harness_event_timer_init(&t, &ops, HARNESS_TIMING_PER_STEP, 4), -1);
    assert_non_null(t.error[0] ? t.error : NULL);
    assert_int_equal(d.destroyed, 3);      /* what was created is released */

    d = (fake_device){.fail_create_at = -1};
    assert_int_equal(harness_event_timer_init(&t, &ops, HARNESS_TIMING_PER_STEP, 4), 0);
    assert_int_equal(harness_event_timer_step_end(&t), -1);
    assert_int_equal(harness_event_timer_step_begin(&t), 0);
    assert_int_equal(harness_event_timer_step_begin(&t), -1);
    assert_int_equal(harness_event_timer_window_end(&t), -1);
    d.fail_record = 1;
    assert_int_equal(harness_event_timer_step_end(&t), -1);
    harness_event_timer_destroy(&t);

    d = (fake_device){.fail_create_at = -1};
    assert_int_equal(harness_event_timer_init(&t, &ops, HARNESS_TIMING_BATCH, 0), 0);
    assert_int_equal(harness_event_timer_step_begin(&t), -1);  /* outside a window */
    assert_int_equal(harness_event_timer_window_end(&t), -1);
    harness_event_timer_destroy(&t);
}

/* per_step: one block in front of a group of 32 steps, released once they
 * are enqueued; the window's last, shorter group is released at its end;
 * the drain waits only after that (the fake refuses a wait behind a block). */
static void per_step_blocks_a_group_of_steps(void **state)
{
    (void)state;
    fake_device d = {.fail_create_at = -1};
    harness_event_ops ops = blocking_ops(&d);
    harness_event_timer t;
    assert_int_equal(harness_event_timer_init(&t, &ops, HARNESS_TIMING_PER_STEP, 64), 0);
    assert_int_equal(harness_event_timer_window_begin(&t), 0);
    for (int i = 0; i < 40; i++)
        step(&t, &d, 0.001, 0);
    assert_int_equal(harness_event_timer_window_end(&t), 0);
    assert_int_equal(harness_event_timer_drain(&t), 0);
    char want[200], a[140], b[40];
    snprintf(want, sizeof want, "B%sUB%sUW", repeat(a, "RsR", HARNESS_BLOCK_GROUP_STEPS), repeat(b, "RsR", 8));
    assert_string_equal(d.log, want);
    assert_int_equal(t.blocks, 2);
    assert_int_equal(t.fell_back, 0);
    double out[40];
    assert_int_equal(harness_event_timer_take(&t, out, 40), 40);
    harness_event_timer_destroy(&t);
}

/* A pool smaller than a group bounds it: the full pool's drain releases. */
static void a_group_never_outgrows_the_pool(void **state)
{
    (void)state;
    fake_device d = {.fail_create_at = -1};
    harness_event_ops ops = blocking_ops(&d);
    harness_event_timer t;
    assert_int_equal(harness_event_timer_init(&t, &ops, HARNESS_TIMING_PER_STEP, 2), 0);
    assert_int_equal(t.group_steps, 2);
    assert_int_equal(harness_event_timer_window_begin(&t), 0);
    for (int i = 0; i < 4; i++)
        step(&t, &d, 0.001, 0);
    assert_int_equal(harness_event_timer_window_end(&t), 0);
    assert_int_equal(harness_event_timer_drain(&t), 0);
    assert_string_equal(d.log, "BRsRRsRUWBRsRRsRUW");
    harness_event_timer_destroy(&t);
}

/* batch: block, start, the window's steps, end, release; a window longer
 * than a group is released after the group (the launch queue stays short). */
static void batch_blocks_the_window(void **state)
{
    (void)state;
    fake_device d = {.fail_create_at = -1};
    harness_event_ops ops = blocking_ops(&d);
    harness_event_timer t;
    assert_int_equal(harness_event_timer_init(&t, &ops, HARNESS_TIMING_BATCH, 16), 0);
    assert_int_equal(harness_event_timer_window_begin(&t), 0);
    for (int i = 0; i < 4; i++)
        step(&t, &d, 0.001, 0);
    assert_int_equal(harness_event_timer_window_end(&t), 0);
    assert_int_equal(harness_event_timer_drain(&t), 0);
    assert_string_equal(d.log, "BRssssRUW");

    d.n_log = 0;
    assert_int_equal(harness_event_timer_window_begin(&t), 0);
    for (int i = 0; i < 40; i++)
        step(&t, &d, 0.001, 0);
    assert_int_equal(harness_event_timer_window_end(&t), 0);
    assert_int_equal(harness_event_timer_drain(&t), 0);
    char want[100], a[40], b[10];
    snprintf(want, sizeof want, "BR%sU%sRW", repeat(a, "s", HARNESS_BLOCK_GROUP_STEPS), repeat(b, "s", 8));
    assert_string_equal(d.log, want);
    harness_event_timer_destroy(&t);
}

/* Cold (flush): flush, wait, block, start, step, end, release, each step;
 * in batch mode too, which then times each step alone. */
static void cold_steps_flush_then_block_each(void **state)
{
    (void)state;
    for (int batch = 0; batch < 2; batch++) {
        fake_device d = {.fail_create_at = -1};
        harness_event_ops ops = blocking_ops(&d);
        ops.flush = fake_flush;
        harness_event_timer t;
        assert_int_equal(harness_event_timer_init(&t, &ops, batch ? HARNESS_TIMING_BATCH : HARNESS_TIMING_PER_STEP,
                                                  16), 0);
        assert_int_equal(t.group_steps, 1);
        assert_int_equal(harness_event_timer_window_begin(&t), 0);
        for (int i = 0; i < 3; i++)
            step(&t, &d, 0.001, 0);
        assert_int_equal(harness_event_timer_window_end(&t), 0);
        assert_int_equal(harness_event_timer_drain(&t), 0);
        assert_string_equal(d.log, "FBRsRUFBRsRUFBRsRUW");
        double out[3];
        assert_int_equal(harness_event_timer_take(&t, out, 3), 3);
        for (int i = 0; i < 3; i++)        /* the flush's 2 ms is in none */
            assert_float_equal(out[i], 1000.0, 1.0);
        harness_event_timer_destroy(&t);
    }
}

/* An auto stopping check in the middle of a group: the drain releases
 * before it waits, and the next step starts a new block. */
static void drain_releases_first(void **state)
{
    (void)state;
    fake_device d = {.fail_create_at = -1};
    harness_event_ops ops = blocking_ops(&d);
    harness_event_timer t;
    assert_int_equal(harness_event_timer_init(&t, &ops, HARNESS_TIMING_PER_STEP, 64), 0);
    assert_int_equal(harness_event_timer_window_begin(&t), 0);
    for (int i = 0; i < 3; i++)
        step(&t, &d, 0.001, 0);
    assert_int_equal(harness_event_timer_drain(&t), 0);
    step(&t, &d, 0.001, 0);
    assert_int_equal(harness_event_timer_window_end(&t), 0);
    assert_int_equal(harness_event_timer_drain(&t), 0);
    assert_string_equal(d.log, "BRsRRsRRsRUWBRsRUW");
    /* destroy with a block held releases it */
    assert_int_equal(harness_event_timer_window_begin(&t), 0);
    step(&t, &d, 0.001, 0);
    assert_int_equal(d.held, 1);
    harness_event_timer_destroy(&t);
    assert_int_equal(d.held, 0);
}

/* The host waiting on the stream between steps (the throttle's recovery
 * pause, a copy) lets the held block go first and keeps blocking on; a
 * wait from inside a step (the device_synchronize service) lets it go too,
 * and turns blocking off, as a timeout would, without waiting for one. */
static void host_waits_let_the_block_go(void **state)
{
    (void)state;
    fake_device d = {.fail_create_at = -1};
    harness_event_ops ops = blocking_ops(&d);
    harness_event_timer t;
    assert_int_equal(harness_event_timer_init(&t, &ops, HARNESS_TIMING_PER_STEP, 64), 0);
    assert_int_equal(harness_event_timer_window_begin(&t), 0);
    step(&t, &d, 0.001, 0);
    assert_int_equal(d.held, 1);
    assert_int_equal(harness_event_timer_host_wait(&t), 0);   /* between steps */
    assert_int_equal(d.held, 0);
    assert_int_equal(t.fell_back, 0);
    step(&t, &d, 0.001, 0);                                    /* a new block */
    assert_int_equal(harness_event_timer_step_begin(&t), 0);
    assert_int_equal(harness_event_timer_host_wait(&t), 0);   /* inside step() */
    log_op(&d, 's');
    assert_int_equal(harness_event_timer_step_end(&t), 0);
    assert_int_equal(t.fell_back, 1);
    step(&t, &d, 0.001, 0);
    assert_int_equal(harness_event_timer_window_end(&t), 0);
    assert_int_equal(harness_event_timer_drain(&t), 0);
    assert_string_equal(d.log, "BRsRUBRsRRUsRRsRW");
    assert_int_equal(t.blocks, 2);
    harness_event_timer_destroy(&t);
}

/* A step() that synchronizes the stream waits behind the block until the
 * kernel's timeout: the kernel says it timed out, and from then on no
 * block (the fallback), for the rest of the run. Without the host clock
 * the kernel's word alone decides. */
static void a_step_that_synchronizes_falls_back(void **state)
{
    (void)state;
    for (int clock = 0; clock < 2; clock++) {
        fake_device d = {.fail_create_at = -1};
        harness_event_ops ops = blocking_ops(&d);
        if (!clock)
            ops.now_ns = NULL;
        harness_event_timer t;
        assert_int_equal(harness_event_timer_init(&t, &ops, HARNESS_TIMING_PER_STEP, 64), 0);
        assert_int_equal(harness_event_timer_window_begin(&t), 0);
        step(&t, &d, 0.001, 0);
        assert_int_equal(harness_event_timer_step_begin(&t), 0);
        fake_stream_sync(&d);          /* inside step() */
        log_op(&d, 's');
        assert_int_equal(harness_event_timer_step_end(&t), 0);
        /* the host clock saw the call last the timeout: released at once */
        assert_int_equal(t.fell_back, clock);
        step(&t, &d, 0.001, 0);
        assert_int_equal(harness_event_timer_window_end(&t), 0);
        assert_int_equal(t.fell_back, 1);
        assert_int_equal(harness_event_timer_drain(&t), 0);
        assert_string_equal(d.log, clock ? "BRsRRsRURsRW" : "BRsRRsRRsRUW");
        d.n_log = 0;
        assert_int_equal(harness_event_timer_window_begin(&t), 0);
        step(&t, &d, 0.001, 0);
        assert_int_equal(harness_event_timer_window_end(&t), 0);
        assert_int_equal(harness_event_timer_drain(&t), 0);
        assert_string_equal(d.log, "RsRW");    /* no block any more */
        assert_int_equal(t.blocks, 1);
        harness_event_timer_destroy(&t);
    }
}

/* The host alone sees a step() call last the timeout (the kernel's word
 * never came): the same fallback. */
static void a_step_call_as_long_as_the_timeout_falls_back(void **state)
{
    (void)state;
    fake_device d = {.fail_create_at = -1};
    harness_event_ops ops = blocking_ops(&d);
    harness_event_timer t;
    assert_int_equal(harness_event_timer_init(&t, &ops, HARNESS_TIMING_PER_STEP, 64), 0);
    assert_int_equal(harness_event_timer_window_begin(&t), 0);
    assert_int_equal(harness_event_timer_step_begin(&t), 0);
    d.now_ms += 100;
    assert_int_equal(harness_event_timer_step_end(&t), 0);
    assert_int_equal(t.fell_back, 1);
    step(&t, &d, 0.001, 0);
    assert_string_equal(d.log, "BRRURsR");
    harness_event_timer_destroy(&t);
}

/* A host slow to launch (30 ms a step() call, a 100 ms timeout) or slow
 * between steps: the group is released once held half the timeout, so the
 * kernel never gives up and nothing falls back. */
static void a_slow_host_releases_early(void **state)
{
    (void)state;
    fake_device d = {.fail_create_at = -1};
    harness_event_ops ops = blocking_ops(&d);
    harness_event_timer t;
    assert_int_equal(harness_event_timer_init(&t, &ops, HARNESS_TIMING_PER_STEP, 64), 0);
    assert_int_equal(harness_event_timer_window_begin(&t), 0);
    for (int i = 0; i < 4; i++)
        step(&t, &d, 30, 0);
    assert_string_equal(d.log, "BRsRRsRUBRsRRsRU");
    d.n_log = 0;
    step(&t, &d, 1, 0);
    step(&t, &d, 1, 60);               /* 60 ms between steps: a new block first */
    assert_int_equal(harness_event_timer_window_end(&t), 0);
    assert_string_equal(d.log, "BRsRUBRsRU");
    assert_int_equal(t.fell_back, 0);
    harness_event_timer_destroy(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(per_step_reads_once_at_the_end),
        cmocka_unit_test(a_full_pool_is_read_and_reused),
        cmocka_unit_test(drains_in_the_middle_keep_the_order),
        cmocka_unit_test(batch_gives_every_step_the_window_mean),
        cmocka_unit_test(misuse_and_device_errors_are_reported),
        cmocka_unit_test(flushes_stay_outside_the_timed_pairs),
        cmocka_unit_test(per_step_blocks_a_group_of_steps),
        cmocka_unit_test(a_group_never_outgrows_the_pool),
        cmocka_unit_test(batch_blocks_the_window),
        cmocka_unit_test(cold_steps_flush_then_block_each),
        cmocka_unit_test(drain_releases_first),
        cmocka_unit_test(a_step_that_synchronizes_falls_back),
        cmocka_unit_test(host_waits_let_the_block_go),
        cmocka_unit_test(a_step_call_as_long_as_the_timeout_falls_back),
        cmocka_unit_test(a_slow_host_releases_early),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
