/* Clocks per sample in a device window (run/device_clocks.h), with a fake
 * device whose clock follows a script and whose wall clock moves 100 us a
 * call (so a reading is due before every step): throttled steps are
 * dropped and run again, each sample keeps the clock read after it, and
 * the caps, the ranks and a window timed whole change what they should. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "run/runner.h"

static harness_backend cpu;

/* The device times the k-th marked step of the run at 1000 + k ns. */
static struct {
    size_t marked, handed;
    int readings, syncs;
    const double *script;          /* the SM clock of reading i (edges included); past its end: 2000 */
    size_t n_script;
    uint64_t wall;
} dev;

static int ok_op(const harness_backend *b, harness_error *err)
{
    (void)b, (void)err;
    return 0;
}
static int mark_end(const harness_backend *b, harness_error *err)
{
    (void)b, (void)err;
    dev.marked++;
    return 0;
}
static long collect(const harness_backend *b, double *out, size_t max, harness_error *err)
{
    (void)b, (void)err;
    size_t n = 0;
    while (dev.handed < dev.marked && n < max)
        out[n++] = 1000.0 + (double)dev.handed++;
    return (long)n;
}
static int synchronize(const harness_backend *b, harness_error *err)
{
    (void)b, (void)err;
    dev.syncs++;
    return 0;
}
static int device_state(const harness_backend *b, harness_device_state *out)
{
    (void)b;
    size_t i = (size_t)dev.readings++;
    out->sm_clock_mhz = i < dev.n_script ? dev.script[i] : 2000;
    out->sm_clock_max_mhz = 2000;
    out->throttle_reasons = out->sm_clock_mhz < 1500 ? 0x4 : 0;   /* sw power cap */
    return 0;
}
static uint64_t fake_wall(const harness_backend *b)
{
    (void)b;
    return dev.wall += 100000;
}

static harness_backend device(harness_backend_ops *ops, const double *script, size_t n)
{
    harness_backend b = cpu;
    *ops = *cpu.ops;
    ops->window_begin = ops->window_end = ops->step_begin = ok_op;
    ops->step_end = mark_end;
    ops->collect = collect;
    ops->synchronize = synchronize;
    ops->device_state = device_state;
    ops->wall_ns = fake_wall;
    b.ops = ops;
    memset(&dev, 0, sizeof dev);
    dev.script = script;
    dev.n_script = n;
    return b;
}

static int step(void *arg)
{
    (void)arg;
    return 0;
}

static int setup(void **state)
{
    (void)state;
    harness_cpu_backend_init(&cpu, 0);
    harness_interrupt_requested = 0;
    return 0;
}

/* Readings: 0 the window's start edge; 1..5 before steps 1..5, each for the
 * step before; 6 before the step run again; 7 after the last; 8 the end
 * edge. Reading 2 (step 1's) is throttled: step 1 is dropped, the device
 * waits and pauses, and one more step runs. */
static void test_a_throttled_step_is_dropped_and_run_again(void **state)
{
    (void)state;
    static const double script[] = {2000, 1990, 900, 1980, 1970, 1960, 1950, 1940, 1930};
    harness_backend_ops ops;
    harness_backend b = device(&ops, script, sizeof script / sizeof *script);
    harness_schedule s = {.measurement_steps = 6, .repeat = 1, .throttle_threshold = 0.75};
    harness_run_result r;
    harness_error err = {0};
    assert_int_equal(harness_runner_run(&s, &b, step, NULL, NULL, &r, &err), 0);
    assert_int_equal(dev.marked, 7);
    assert_int_equal(r.n_samples, 6);
    static const double kept[] = {1000, 1002, 1003, 1004, 1005, 1006};
    static const double clock[] = {1990, 1980, 1970, 1960, 1950, 1940};
    for (size_t i = 0; i < 6; i++) {
        assert_true(r.samples_ns[i] == kept[i]);
        assert_true(r.sample_clock_mhz[i] == clock[i]);
        assert_true(r.host_samples_ns[i] >= 0);
    }
    assert_int_equal(r.window_clocks[0].dropped, 1);
    assert_int_equal(r.window_clocks[0].kept_throttled, 0);
    assert_int_equal(r.window_clocks[0].readings, 7);
    assert_true(r.window_clocks[0].paused_ns == 5e6);
    assert_true(r.window_clocks[0].throttle_reasons == 0x4);
    assert_int_equal(dev.syncs, 1);        /* the device idles through the pause */
    assert_int_equal(dev.readings, 9);
    harness_run_result_free(&r);
}

/* A clock held down for good: at most as many steps again as the window
 * plans, then the throttled steps are kept and counted. */
static void test_a_device_held_down_is_bounded(void **state)
{
    (void)state;
    static const double script[] = {900, 900, 900, 900, 900, 900, 900, 900, 900, 900, 900, 900};
    harness_backend_ops ops;
    harness_backend b = device(&ops, script, sizeof script / sizeof *script);
    harness_schedule s = {.measurement_steps = 4, .repeat = 1, .throttle_threshold = 0.75};
    harness_run_result r;
    harness_error err = {0};
    assert_int_equal(harness_runner_run(&s, &b, step, NULL, NULL, &r, &err), 0);
    assert_int_equal(dev.marked, 8);
    assert_int_equal(r.n_samples, 4);
    assert_int_equal(r.window_clocks[0].dropped, 4);
    assert_int_equal(r.window_clocks[0].kept_throttled, 4);
    assert_true(r.window_clocks[0].paused_ns == (5 + 10 + 20 + 40) * 1e6);
    for (size_t i = 0; i < 4; i++)
        assert_true(r.samples_ns[i] == 1004.0 + (double)i);   /* the last four, kept throttled */
    harness_run_result_free(&r);
}

/* Off: the clocks are still read and kept, nothing is dropped. Among ranks
 * (a step meeting): throttled steps are kept and counted, the window does
 * not grow. */
static int no_meeting(void *arg, int window, int64_t index, harness_error *err)
{
    (void)arg, (void)window, (void)index, (void)err;
    return 0;
}

static void test_off_and_among_ranks_keep_every_step(void **state)
{
    (void)state;
    static const double script[] = {2000, 2000, 900, 2000, 2000, 2000};
    harness_backend_ops ops;
    harness_backend b = device(&ops, script, sizeof script / sizeof *script);
    harness_schedule s = {.measurement_steps = 4, .repeat = 1, .throttle_threshold = 0};
    harness_run_result r;
    harness_error err = {0};
    assert_int_equal(harness_runner_run(&s, &b, step, NULL, NULL, &r, &err), 0);
    assert_int_equal(r.n_samples, 4);
    assert_true(r.sample_clock_mhz[1] == 900);
    assert_int_equal(r.window_clocks[0].dropped + r.window_clocks[0].kept_throttled, 0);
    harness_run_result_free(&r);

    b = device(&ops, script, sizeof script / sizeof *script);
    s.throttle_threshold = 0.75;
    harness_runner_hooks ranks = {.step_begin = no_meeting};
    assert_int_equal(harness_runner_run(&s, &b, step, NULL, &ranks, &r, &err), 0);
    assert_int_equal(dev.marked, 4);
    assert_int_equal(r.n_samples, 4);
    assert_int_equal(r.window_clocks[0].dropped, 0);
    assert_int_equal(r.window_clocks[0].kept_throttled, 1);
    assert_int_equal(dev.syncs, 0);
    harness_run_result_free(&r);
}

/* timing: batch times the window with one pair: no reading inside it (the
 * edges only), the samples' clocks unknown; with flush_l2 each step is
 * timed alone again, so they are read. */
static void test_a_window_timed_whole_is_not_read_inside(void **state)
{
    (void)state;
    harness_backend_ops ops;
    harness_backend b = device(&ops, NULL, 0);
    b.opts.batch_timing = 1;
    harness_schedule s = {.measurement_steps = 5, .repeat = 2, .throttle_threshold = 0.75};
    harness_run_result r;
    harness_error err = {0};
    assert_int_equal(harness_runner_run(&s, &b, step, NULL, NULL, &r, &err), 0);
    assert_int_equal(dev.readings, 4);
    for (size_t i = 0; i < r.n_samples; i++)
        assert_true(isnan(r.sample_clock_mhz[i]));
    harness_run_result_free(&r);

    b = device(&ops, NULL, 0);
    b.opts.batch_timing = b.opts.flush_l2 = 1;
    assert_int_equal(harness_runner_run(&s, &b, step, NULL, NULL, &r, &err), 0);
    assert_int_equal(dev.readings, 2 * (2 + 5));
    assert_true(r.sample_clock_mhz[9] == 2000);
    harness_run_result_free(&r);
}

/* An auto window judges at each stopping check too: what it counts has
 * every throttled step gone. */
static void test_auto_windows_stop_on_kept_steps(void **state)
{
    (void)state;
    static const double script[] = {2000, 2000, 2000, 800, 2000};
    harness_backend_ops ops;
    harness_backend b = device(&ops, script, sizeof script / sizeof *script);
    harness_schedule s = {.measurement_steps = 0, .repeat = 1, .max_rel_ci = 1e-9, .min_steps = 5,
                          .max_steps = 20, .max_time_s = 60, .throttle_threshold = 0.75};
    harness_run_result r;
    harness_error err = {0};
    assert_int_equal(harness_runner_run(&s, &b, step, NULL, NULL, &r, &err), 0);
    assert_string_equal(r.stop_reason[0], "max_steps");
    assert_int_equal(r.n_samples, 20);     /* max_steps kept */
    assert_int_equal(r.window_clocks[0].dropped, 1);
    assert_int_equal(dev.marked, 21);
    for (size_t i = 0; i < r.n_samples; i++)
        assert_true(r.samples_ns[i] != 1002.0);
    harness_run_result_free(&r);
}

/* The CPU: no device state, nothing read, no clocks kept. */
static void test_the_cpu_has_no_clocks(void **state)
{
    (void)state;
    harness_schedule s = {.measurement_steps = 3, .repeat = 1, .throttle_threshold = 0.75};
    harness_run_result r;
    harness_error err = {0};
    assert_int_equal(harness_runner_run(&s, &cpu, step, NULL, NULL, &r, &err), 0);
    assert_null(r.sample_clock_mhz);
    assert_int_equal(r.window_clocks[0].readings, 0);
    harness_run_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_a_throttled_step_is_dropped_and_run_again, setup),
        cmocka_unit_test_setup(test_a_device_held_down_is_bounded, setup),
        cmocka_unit_test_setup(test_off_and_among_ranks_keep_every_step, setup),
        cmocka_unit_test_setup(test_a_window_timed_whole_is_not_read_inside, setup),
        cmocka_unit_test_setup(test_auto_windows_stop_on_kept_steps, setup),
        cmocka_unit_test_setup(test_the_cpu_has_no_clocks, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
