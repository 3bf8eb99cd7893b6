/* The schedule: step counts per phase, windows, auto stopping, failures, SIGINT. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "run/runner.h"

typedef struct counter {
    int64_t calls;
    int64_t fail_at;               /* call index that fails, -1 for none */
    int64_t interrupt_at;          /* call index that raises the SIGINT flag, -1 for none */
    int vary;                      /* busy-wait (calls % 7) x 300 ns, so samples differ */
} counter;

static int count_step(void *arg)
{
    counter *c = arg;
    int64_t i = c->calls++;
    if (i == c->interrupt_at)
        harness_interrupt_requested = 1;
    if (c->vary) {
        uint64_t until = harness_monotonic_ns() + (uint64_t)(i % 7) * 300;
        while (harness_monotonic_ns() < until)
            ;
    }
    return i == c->fail_at ? 1 : 0;
}

static harness_backend cpu;

static int setup(void **state)
{
    (void)state;
    harness_cpu_backend_init(&cpu, 0);
    harness_interrupt_requested = 0;
    return 0;
}

static void test_fixed_schedule_counts(void **state)
{
    (void)state;
    harness_schedule s = {.warmup_steps = 7, .wait_steps = 3, .measurement_steps = 11, .repeat = 4};
    counter c = {0, -1, -1, 0};
    harness_run_result r;
    harness_error err = {0};
    assert_int_equal(harness_runner_run(&s, &cpu, count_step, &c, NULL, &r, &err), 0);
    assert_int_equal(c.calls, 7 + 4 * (3 + 11));
    assert_int_equal(r.warmup_steps_run, 7);
    assert_int_equal(r.wait_steps_run, 12);
    assert_int_equal(r.n_samples, 44);
    assert_int_equal(r.n_windows, 4);
    for (size_t w = 0; w < 4; w++) {
        assert_int_equal(r.window_start[w], 11 * w);
        assert_int_equal(harness_window_size(&r, w), 11);
        assert_string_equal(r.stop_reason[w], "steps");
    }
    for (size_t i = 0; i < r.n_samples; i++)
        assert_true(r.samples_ns[i] >= 0);
    assert_false(r.interrupted);
    assert_false(r.step_failed);
    harness_run_result_free(&r);
}

static void test_zero_warmup_and_wait(void **state)
{
    (void)state;
    harness_schedule s = {.warmup_steps = 0, .wait_steps = 0, .measurement_steps = 1, .repeat = 1};
    counter c = {0, -1, -1, 0};
    harness_run_result r;
    harness_error err = {0};
    assert_int_equal(harness_runner_run(&s, &cpu, count_step, &c, NULL, &r, &err), 0);
    assert_int_equal(c.calls, 1);
    assert_int_equal(r.n_samples, 1);
    harness_run_result_free(&r);
}

static void test_failing_step_stops_and_is_located(void **state)
{
    (void)state;
    harness_schedule s = {.warmup_steps = 2, .wait_steps = 1, .measurement_steps = 5, .repeat = 3};
    /* calls: 0-1 warmup, 2 wait, 3-7 window 0, 8 wait, 9-13 window 1 -> call 11 is its 3rd step */
    counter c = {0, 11, -1, 0};
    harness_run_result r;
    harness_error err = {0};
    assert_int_equal(harness_runner_run(&s, &cpu, count_step, &c, NULL, &r, &err), 0);
    assert_true(r.step_failed);
    assert_int_equal(r.failed_phase, HARNESS_PHASE_MEASURE);
    assert_int_equal(r.failed_step, 2);
    assert_int_equal(r.n_samples, 5 + 2);
    assert_int_equal(r.n_windows, 2);
    assert_int_equal(c.calls, 12);
    harness_run_result_free(&r);
}

static void test_failure_in_warmup(void **state)
{
    (void)state;
    harness_schedule s = {.warmup_steps = 5, .wait_steps = 1, .measurement_steps = 5, .repeat = 1};
    counter c = {0, 3, -1, 0};
    harness_run_result r;
    harness_error err = {0};
    assert_int_equal(harness_runner_run(&s, &cpu, count_step, &c, NULL, &r, &err), 0);
    assert_true(r.step_failed);
    assert_int_equal(r.failed_phase, HARNESS_PHASE_WARMUP);
    assert_int_equal(r.failed_step, 3);
    assert_int_equal(r.n_samples, 0);
    assert_int_equal(r.n_windows, 0);
    harness_run_result_free(&r);
}

static void test_interrupt_keeps_what_was_measured(void **state)
{
    (void)state;
    harness_schedule s = {.warmup_steps = 1, .wait_steps = 0, .measurement_steps = 100, .repeat = 2};
    counter c = {0, -1, 10, 0}; /* raised during measured step 10 (the 10th sample) */
    harness_run_result r;
    harness_error err = {0};
    assert_int_equal(harness_runner_run(&s, &cpu, count_step, &c, NULL, &r, &err), 0);
    assert_true(r.interrupted);
    assert_int_equal(r.n_samples, 10);
    assert_int_equal(r.n_windows, 1);
    assert_string_equal(r.stop_reason[0], "interrupted");
    harness_interrupt_requested = 0;
    harness_run_result_free(&r);
}

static void test_auto_stops_at_max_steps(void **state)
{
    (void)state;
    /* Samples that differ by design never reach a 1e-12 precision: the
     * max_steps cap must end each window. */
    harness_schedule s = {.warmup_steps = 0, .wait_steps = 0, .measurement_steps = 0, .repeat = 2,
                          .max_rel_ci = 1e-12, .min_steps = 10, .max_steps = 50, .max_time_s = 1e9};
    counter c = {0, -1, -1, 1};
    harness_run_result r;
    harness_error err = {0};
    assert_int_equal(harness_runner_run(&s, &cpu, count_step, &c, NULL, &r, &err), 0);
    assert_int_equal(r.n_windows, 2);
    for (size_t w = 0; w < 2; w++) {
        assert_int_equal(harness_window_size(&r, w), 50);
        assert_string_equal(r.stop_reason[w], "max_steps");
    }
    harness_run_result_free(&r);
}

static void test_auto_converges_on_a_loose_target(void **state)
{
    (void)state;
    /* Any CI is within 1e6 x the median: the window stops at min_steps. */
    harness_schedule s = {.warmup_steps = 0, .wait_steps = 0, .measurement_steps = 0, .repeat = 1,
                          .max_rel_ci = 1e6, .min_steps = 20, .max_steps = 100000, .max_time_s = 1e9};
    counter c = {0, -1, -1, 0};
    harness_run_result r;
    harness_error err = {0};
    assert_int_equal(harness_runner_run(&s, &cpu, count_step, &c, NULL, &r, &err), 0);
    assert_int_equal(r.n_samples, 20);
    assert_string_equal(r.stop_reason[0], "converged");
    harness_run_result_free(&r);
}

typedef struct seen {
    int phase_begins[3];
    int64_t step_ends[3];
    int64_t timed_ends;            /* step_end calls that carried t0 < t1 or t0 == t1 != 0 */
    int run_ends;
    int last_window;
} seen;

static int on_phase(void *arg, harness_phase phase, int window, harness_error *err)
{
    (void)err;
    seen *s = arg;
    s->phase_begins[phase]++;
    s->last_window = window;
    return 0;
}

static void on_step(void *arg, harness_phase phase, int window, int64_t index, uint64_t t0, uint64_t t1)
{
    (void)window;
    (void)index;
    seen *s = arg;
    s->step_ends[phase]++;
    if (phase == HARNESS_PHASE_MEASURE && t0 != 0 && t1 >= t0)
        s->timed_ends++;
}

static void on_end(void *arg)
{
    ((seen *)arg)->run_ends++;
}

static void test_hooks_see_every_phase_and_step(void **state)
{
    (void)state;
    harness_schedule s = {.warmup_steps = 4, .wait_steps = 2, .measurement_steps = 6, .repeat = 3};
    counter c = {0, -1, -1, 0};
    seen got = {{0}, {0}, 0, 0, 0};
    harness_runner_hooks hooks = {.arg = &got, .phase_begin = on_phase, .step_end = on_step, .run_end = on_end};
    harness_run_result r;
    harness_error err = {0};
    assert_int_equal(harness_runner_run(&s, &cpu, count_step, &c, &hooks, &r, &err), 0);
    assert_int_equal(got.phase_begins[HARNESS_PHASE_WARMUP], 1);
    assert_int_equal(got.phase_begins[HARNESS_PHASE_WAIT], 3);
    assert_int_equal(got.phase_begins[HARNESS_PHASE_MEASURE], 3);
    assert_int_equal(got.step_ends[HARNESS_PHASE_WARMUP], 4);
    assert_int_equal(got.step_ends[HARNESS_PHASE_WAIT], 6);
    assert_int_equal(got.step_ends[HARNESS_PHASE_MEASURE], 18);
    assert_int_equal(got.timed_ends, 18);
    assert_int_equal(got.run_ends, 1);
    assert_int_equal(got.last_window, 2);
    harness_run_result_free(&r);
}

/* The stopping rule is checked every ~10% of the samples; a max_steps that
 * falls between two checks must still cap the window exactly. */
static void test_auto_never_exceeds_max_steps(void **state)
{
    (void)state;
    harness_schedule s = {.warmup_steps = 0, .wait_steps = 0, .measurement_steps = 0, .repeat = 1,
                          .max_rel_ci = 1e-12, .min_steps = 100, .max_steps = 105, .max_time_s = 1e9};
    counter c = {0, -1, -1, 1};
    harness_run_result r;
    harness_error err = {0};
    assert_int_equal(harness_runner_run(&s, &cpu, count_step, &c, NULL, &r, &err), 0);
    assert_int_equal(harness_window_size(&r, 0), 105);
    assert_int_equal(c.calls, 105);
    assert_string_equal(r.stop_reason[0], "max_steps");
    harness_run_result_free(&r);
}

/* Each window records its wall and CPU time; a busy-waiting step keeps
 * the process on the CPU, so CPU time is most of the wall time. */
static void test_windows_record_wall_and_cpu_time(void **state)
{
    (void)state;
    harness_schedule s = {.warmup_steps = 0, .wait_steps = 0, .measurement_steps = 200, .repeat = 2};
    counter c = {0, -1, -1, 1};
    harness_run_result r;
    harness_error err = {0};
    assert_int_equal(harness_runner_run(&s, &cpu, count_step, &c, NULL, &r, &err), 0);
    for (size_t w = 0; w < 2; w++) {
        double sum = 0;
        for (size_t i = r.window_start[w]; i < r.window_start[w + 1]; i++)
            sum += r.samples_ns[i];
        assert_true(r.window_wall_ns[w] >= sum);
        assert_true(r.window_cpu_ns[w] > 0);
        assert_true(r.window_cpu_ns[w] <= 1.5 * r.window_wall_ns[w] + 1e6);
    }
    harness_run_result_free(&r);
}

/* A hook that fails (a broken barrier) stops the run with its error. */
static int failing_barrier(void *arg, harness_phase phase, int window, harness_error *err)
{
    (void)arg;
    if (phase == HARNESS_PHASE_MEASURE && window == 1)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "barrier broke before window %d", window);
    return 0;
}

static void test_failing_hook_stops_the_run(void **state)
{
    (void)state;
    harness_schedule s = {.warmup_steps = 2, .wait_steps = 1, .measurement_steps = 5, .repeat = 3};
    counter c = {0, -1, -1, 0};
    harness_runner_hooks hooks = {.phase_begin = failing_barrier};
    harness_run_result r;
    harness_error err = {0};
    assert_int_equal(harness_runner_run(&s, &cpu, count_step, &c, &hooks, &r, &err), HARNESS_EXIT_RUNTIME);
    assert_string_equal(err.msg, "barrier broke before window 1");
    assert_int_equal(r.n_samples, 5);          /* window 0 only */
    assert_int_equal(c.calls, 2 + 1 + 5 + 1);  /* window 1's wait ran, its steps did not */
    harness_run_result_free(&r);
}

/* Another rank stopped, learnt at the meeting before measured step 3 of
 * window 1 (sync_steps): the run stops there, that step not taken. */
static int stop_at_meeting(void *arg, int window, int64_t index, harness_error *err)
{
    (void)arg, (void)err;
    if (window == 1 && index == 3) {
        harness_interrupt_requested = 15;
        return 1;
    }
    return 0;
}

static void test_stop_agreed_at_a_step_meeting(void **state)
{
    (void)state;
    harness_schedule s = {.warmup_steps = 2, .wait_steps = 1, .measurement_steps = 5, .repeat = 3};
    counter c = {0, -1, -1, 0};
    harness_runner_hooks hooks = {.step_begin = stop_at_meeting};
    harness_run_result r;
    harness_error err = {0};
    assert_int_equal(harness_runner_run(&s, &cpu, count_step, &c, &hooks, &r, &err), 0);
    assert_true(r.interrupted);
    assert_int_equal(r.n_samples, 5 + 3);
    assert_int_equal(c.calls, 2 + 1 + 5 + 1 + 3);
    harness_run_result_free(&r);
}

/* This rank's own signal comes while it waits at step 3's meeting, after
 * it told the others "go on": they take step 3 (a collective in it needs
 * this rank), so it does too, and stops before step 4. */
static int signal_during_meeting(void *arg, int window, int64_t index, harness_error *err)
{
    (void)arg, (void)err;
    if (window == 1 && index == 3)
        harness_interrupt_requested = 15;
    return 0;
}

static void test_signal_during_a_meeting_takes_that_step(void **state)
{
    (void)state;
    harness_schedule s = {.warmup_steps = 2, .wait_steps = 1, .measurement_steps = 5, .repeat = 3};
    counter c = {0, -1, -1, 0};
    harness_runner_hooks hooks = {.step_begin = signal_during_meeting};
    harness_run_result r;
    harness_error err = {0};
    assert_int_equal(harness_runner_run(&s, &cpu, count_step, &c, &hooks, &r, &err), 0);
    assert_true(r.interrupted);
    assert_int_equal(r.n_samples, 5 + 4);
    harness_run_result_free(&r);
}

/* The ranks' last meeting: when it says the job stops, a rank that
 * measured every step still counts as interrupted (its peers were), and
 * it is not held when a step failed (the job is aborted instead). */
static int job_stops(void *arg, harness_error *err)
{
    (void)err;
    (*(int *)arg)++;
    return 1;
}

static void test_last_meeting_can_interrupt_a_complete_run(void **state)
{
    (void)state;
    harness_schedule s = {.warmup_steps = 1, .wait_steps = 0, .measurement_steps = 4, .repeat = 2};
    counter c = {0, -1, -1, 0};
    int meetings = 0;
    harness_runner_hooks hooks = {.arg = &meetings, .schedule_end = job_stops};
    harness_run_result r;
    harness_error err = {0};
    assert_int_equal(harness_runner_run(&s, &cpu, count_step, &c, &hooks, &r, &err), 0);
    assert_int_equal(meetings, 1);
    assert_true(r.interrupted);
    assert_int_equal(r.n_samples, 8);
    harness_run_result_free(&r);

    counter failing = {0, 3, -1, 0};
    assert_int_equal(harness_runner_run(&s, &cpu, count_step, &failing, &hooks, &r, &err), 0);
    assert_int_equal(meetings, 1);
    assert_true(r.step_failed);
    assert_false(r.interrupted);
    harness_run_result_free(&r);
}

/* A device backend whose "device" times step k (counted over the run) at
 * 1000 + k ns, known only when collected: the runner must mark every
 * measured step, never ask between steps of a fixed window, and put the
 * collected times in order beside the host's launch times. */
typedef struct fake_gpu {
    int windows_begun, windows_ended, begins, ends, collects, between;
    size_t marked, handed;         /* steps marked; times handed over */
    char log[64];                  /* W/w window begin/end, A/a activity on/off */
    int n_log;
    int recording;
} fake_gpu;
static fake_gpu gpu;

static int gpu_window_begin(const harness_backend *b, harness_error *err)
{
    (void)b, (void)err;
    gpu.windows_begun++;
    gpu.log[gpu.n_log++] = 'W';
    return 0;
}
static int gpu_window_end(const harness_backend *b, harness_error *err)
{
    (void)b, (void)err;
    gpu.windows_ended++;
    gpu.log[gpu.n_log++] = 'w';
    return 0;
}
static int gpu_step_begin(const harness_backend *b, harness_error *err)
{
    (void)b, (void)err;
    gpu.begins++;
    assert_false(gpu.recording);   /* no timed step is ever traced */
    return 0;
}
static int gpu_step_end(const harness_backend *b, harness_error *err)
{
    (void)b, (void)err;
    gpu.ends++;
    gpu.marked++;
    return 0;
}
static int gpu_between(const harness_backend *b, harness_error *err)
{
    (void)b, (void)err;
    gpu.between++;
    return 0;
}
static long gpu_collect(const harness_backend *b, double *out, size_t max, harness_error *err)
{
    (void)b, (void)err;
    gpu.collects++;
    size_t n = 0;
    while (gpu.handed < gpu.marked && n < max)
        out[n++] = 1000.0 + (double)gpu.handed++;
    return (long)n;
}

static int gpu_activity_window(const harness_backend *b, int on, harness_error *err)
{
    (void)b, (void)err;
    gpu.recording = on;
    gpu.log[gpu.n_log++] = on ? 'A' : 'a';
    return 0;
}

static harness_backend device_backend(harness_backend_ops *ops)
{
    harness_backend b = cpu;
    *ops = *cpu.ops;
    ops->window_begin = gpu_window_begin;
    ops->window_end = gpu_window_end;
    ops->step_begin = gpu_step_begin;
    ops->step_end = gpu_step_end;
    ops->collect = gpu_collect;
    ops->between_steps = gpu_between;
    b.ops = ops;
    memset(&gpu, 0, sizeof gpu);
    return b;
}

static void test_device_timer_collects_after_each_window(void **state)
{
    (void)state;
    harness_backend_ops ops;
    harness_backend b = device_backend(&ops);
    harness_schedule s = {.warmup_steps = 3, .wait_steps = 2, .measurement_steps = 6, .repeat = 3};
    counter c = {0, -1, -1, 0};
    harness_run_result r;
    harness_error err = {0};
    assert_int_equal(harness_runner_run(&s, &b, count_step, &c, NULL, &r, &err), 0);
    assert_int_equal(gpu.begins, 18);      /* measured steps only */
    assert_int_equal(gpu.ends, 18);
    assert_int_equal(gpu.between, 18);
    assert_int_equal(gpu.windows_begun, 3);
    assert_int_equal(gpu.windows_ended, 3);
    assert_int_equal(gpu.collects, 3);     /* once per window: no wait between steps */
    assert_int_equal(r.n_samples, 18);
    assert_non_null(r.host_samples_ns);
    for (size_t i = 0; i < r.n_samples; i++) {
        assert_true(r.samples_ns[i] == 1000.0 + (double)i);
        assert_true(r.host_samples_ns[i] >= 0);
    }
    harness_run_result_free(&r);
}

/* CUPTI's contract: the timeline has its own untimed window after the
 * measured ones (as many steps as the first window, at most trace_steps);
 * no measured window records it. */
static void test_trace_window_after_the_measured_ones(void **state)
{
    (void)state;
    harness_backend_ops ops;
    harness_backend b = device_backend(&ops);
    ops.activity_window = gpu_activity_window;
    harness_schedule s = {.warmup_steps = 2, .measurement_steps = 6, .repeat = 2, .trace_steps = 4};
    counter c = {0, -1, -1, 0};
    harness_run_result r;
    harness_error err = {0};
    assert_int_equal(harness_runner_run(&s, &b, count_step, &c, NULL, &r, &err), 0);
    gpu.log[gpu.n_log] = '\0';
    assert_string_equal(gpu.log, "WwWwAa");
    assert_int_equal(r.trace_steps_run, 4);
    assert_int_equal(c.calls, 2 + 12 + 4);
    assert_int_equal(r.n_samples, 12);        /* trace steps are not samples */
    harness_run_result_free(&r);

    b = device_backend(&ops);
    ops.activity_window = gpu_activity_window;
    s.trace_steps = 100;                       /* no more than the first window ran */
    assert_int_equal(harness_runner_run(&s, &b, count_step, &c, NULL, &r, &err), 0);
    assert_int_equal(r.trace_steps_run, 6);
    harness_run_result_free(&r);

    b = device_backend(&ops);                  /* no activity_window: no trace window */
    assert_int_equal(harness_runner_run(&s, &b, count_step, &c, NULL, &r, &err), 0);
    assert_int_equal(r.trace_steps_run, 0);
    harness_run_result_free(&r);
}

static void test_device_timer_collects_at_auto_checks(void **state)
{
    (void)state;
    harness_backend_ops ops;
    harness_backend b = device_backend(&ops);
    harness_schedule s = {.measurement_steps = 0, .repeat = 1, .max_rel_ci = 1e-9, .min_steps = 10,
                          .max_steps = 50, .max_time_s = 60};
    counter c = {0, -1, -1, 0};
    harness_run_result r;
    harness_error err = {0};
    assert_int_equal(harness_runner_run(&s, &b, count_step, &c, NULL, &r, &err), 0);
    assert_int_equal(r.n_samples, 50);
    assert_string_equal(r.stop_reason[0], "max_steps");
    assert_true(gpu.collects > 1);         /* each stopping check saw device times */
    for (size_t i = 0; i < r.n_samples; i++)
        assert_true(r.samples_ns[i] == 1000.0 + (double)i);
    harness_run_result_free(&r);
}

static void test_device_window_keeps_what_was_measured_on_interrupt(void **state)
{
    (void)state;
    harness_backend_ops ops;
    harness_backend b = device_backend(&ops);
    harness_schedule s = {.measurement_steps = 10, .repeat = 1};
    counter c = {0, -1, 4, 0};
    harness_run_result r;
    harness_error err = {0};
    assert_int_equal(harness_runner_run(&s, &b, count_step, &c, NULL, &r, &err), 0);
    assert_true(r.interrupted);
    assert_int_equal(r.n_samples, 5);
    assert_int_equal(gpu.windows_ended, 1);    /* closed even so */
    assert_true(r.samples_ns[4] == 1004.0);
    harness_run_result_free(&r);
}

/* The device's clocks, read at each window's start and end and once after
 * its last step (between steps too once 50 us of host time pass: never,
 * with a wall clock that stands still): window 2's end finds the clock
 * held down by a power cap. */
static int clock_reads;
static int gpu_device_state(const harness_backend *b, harness_device_state *out)
{
    (void)b;
    clock_reads++;
    out->sm_clock_max_mhz = 1980;
    out->sm_clock_mhz = clock_reads == 6 ? 1485 : 1980;
    out->throttle_reasons = clock_reads == 6 ? 0x4 : 0x1;   /* sw power cap; else idle */
    return 0;
}
static uint64_t still_wall(const harness_backend *b)
{
    (void)b;
    return 1;
}

static void test_device_state_per_window(void **state)
{
    (void)state;
    harness_backend_ops ops;
    harness_backend b = device_backend(&ops);
    ops.device_state = gpu_device_state;
    ops.wall_ns = still_wall;
    clock_reads = 0;
    harness_schedule s = {.warmup_steps = 1, .wait_steps = 1, .measurement_steps = 4, .repeat = 2};
    counter c = {0, -1, -1, 0};
    harness_run_result r;
    harness_error err = {0};
    assert_int_equal(harness_runner_run(&s, &b, count_step, &c, NULL, &r, &err), 0);
    assert_int_equal(clock_reads, 6);      /* three a window, outside the steps */
    assert_true(r.sample_clock_mhz[3] == 1980 && r.sample_clock_mhz[7] == 1980);
    assert_true(r.window_device[0].sm_clock_mhz == 1980 && r.window_device[0].throttle_reasons == 0x1);
    assert_true(r.window_device[1].sm_clock_mhz == 1485 && r.window_device[1].sm_clock_max_mhz == 1980);
    assert_true(r.window_device[1].throttle_reasons == (0x1 | 0x4));
    harness_run_result_free(&r);
    /* on the CPU there is no device state: unknown */
    assert_int_equal(harness_runner_run(&s, &cpu, count_step, &c, NULL, &r, &err), 0);
    assert_true(isnan(r.window_device[0].sm_clock_mhz));
    harness_run_result_free(&r);
}

/* One table, two spellings: messages and status.json say "measurement",
 * the files the profiler writes keep "measure" as they always have. */
static void test_phase_names(void **state)
{
    (void)state;
    assert_string_equal(harness_phase_name(HARNESS_PHASE_WARMUP), "warmup");
    assert_string_equal(harness_phase_name(HARNESS_PHASE_WAIT), "wait");
    assert_string_equal(harness_phase_name(HARNESS_PHASE_MEASURE), "measurement");
    assert_string_equal(harness_phase_file_name(HARNESS_PHASE_WARMUP), "warmup");
    assert_string_equal(harness_phase_file_name(HARNESS_PHASE_WAIT), "wait");
    assert_string_equal(harness_phase_file_name(HARNESS_PHASE_MEASURE), "measure");
    assert_string_equal(harness_phase_file_name(HARNESS_PHASE_TRACE), "trace");
    assert_string_equal(harness_phase_name(HARNESS_PHASE_AFTER_TIMING), "after-timing check");
    assert_string_equal(harness_phase_file_name(HARNESS_PHASE_AFTER_TIMING), "after_timing");
    assert_string_equal(harness_phase_file_name(HARNESS_PHASE_AFTER_TIMING + 1), "other");
    assert_string_equal(harness_phase_file_name(-1), "other");
}

/* A step that busy-waits 100 us, counted. */
static int spin_step(void *arg)
{
    int64_t *calls = arg;
    (*calls)++;
    uint64_t until = harness_monotonic_ns() + 100000;
    while (harness_monotonic_ns() < until)
        ;
    return 0;
}

typedef struct budget_seen {
    int sized;
    harness_budget last;
    double agreed_batch_s;         /* > 0: agree_budget hands this out after the pilot's first batch */
    double agreed_window_s;        /* > 0: and this before a window */
    int agreements;
    int agree_stops;
} budget_seen;

static void on_sized(void *arg, const harness_budget *b)
{
    budget_seen *seen = arg;
    seen->sized++;
    seen->last = *b;
}

static int on_agree(void *arg, double *batch_s, double *spent_s, harness_error *err)
{
    (void)spent_s;
    (void)err;
    budget_seen *seen = arg;
    double agreed = seen->agreements++ == 0 ? seen->agreed_batch_s : seen->agreed_window_s;
    if (agreed > 0)
        *batch_s = agreed;
    return seen->agree_stops;
}

/* --time-budget: a pilot after the warmup, then the windows the rule
 * (run/time_budget.h) gives for what the pilot measured; the result holds
 * every input and the sizes, and the windows are those sizes. */
static void test_budget_sizes_the_windows(void **state)
{
    (void)state;
    harness_schedule s = {.warmup_steps = 2, .wait_steps = 1, .measurement_steps = 7, .repeat = 1,
                          .time_budget_s = 0.25};
    int64_t calls = 0;
    budget_seen seen = {0};
    harness_runner_hooks hooks = {.arg = &seen, .budget_sized = on_sized};
    harness_run_result r;
    harness_error err = {0};
    assert_int_equal(harness_runner_run(&s, &cpu, spin_step, &calls, &hooks, &r, &err), 0);
    const harness_budget *b = &r.budget;
    assert_int_equal(seen.sized, 1);
    assert_true(b->fits);
    assert_true(b->budget_s == 0.25 && b->wait_steps == 1 && b->config_steps == 7 && b->config_repeat == 1);
    assert_true(b->pilot_steps >= 3);
    assert_true(b->step_s >= 100e-6 && b->spent_s > 0 && b->spent_s < 0.25);
    harness_budget again = *b;     /* the sizes are the rule's for what was measured */
    harness_budget_size(&again);
    assert_int_equal(again.windows, b->windows);
    assert_int_equal(again.steps, b->steps);
    assert_int_equal(seen.last.windows, b->windows);
    assert_true(b->windows >= HARNESS_BUDGET_WANT_WINDOWS);
    /* How many run is the windows' own time's say: at least the minimum. */
    int64_t ran = (int64_t)r.n_windows;
    assert_true(ran >= HARNESS_BUDGET_MIN_WINDOWS && ran <= HARNESS_BUDGET_MAX_WINDOWS);
    for (size_t w = 0; w < r.n_windows; w++)
        assert_int_equal(harness_window_size(&r, w), (size_t)b->steps);
    assert_int_equal(r.warmup_steps_run, 2);
    assert_int_equal(r.wait_steps_run, ran);
    assert_int_equal(calls, 2 + b->pilot_steps + ran * (1 + b->steps));
    harness_run_result_free(&r);
}

/* A budget the warmup and pilot already spent: exit 2 naming the option,
 * nothing measured; the listener hears that it did not fit. */
static void test_budget_too_small(void **state)
{
    (void)state;
    harness_schedule s = {.warmup_steps = 1, .wait_steps = 0, .measurement_steps = 7, .repeat = 1,
                          .time_budget_s = 1e-4};
    int64_t calls = 0;
    budget_seen seen = {0};
    harness_runner_hooks hooks = {.arg = &seen, .budget_sized = on_sized};
    harness_run_result r;
    harness_error err = {0};
    assert_int_equal(harness_runner_run(&s, &cpu, spin_step, &calls, &hooks, &r, &err), HARNESS_EXIT_USAGE);
    assert_non_null(strstr(err.msg, "--time-budget 0.0001 s is too small: a step took "));
    assert_non_null(strstr(err.msg, "give --time-budget "));
    assert_int_equal(seen.sized, 1);
    assert_false(seen.last.fits);
    assert_int_equal(r.n_windows, 0);
    assert_int_equal(r.n_samples, 0);
    assert_false(r.interrupted);
    harness_run_result_free(&r);
}

/* Among ranks each pilot batch's agreed time decides when the pilot ends
 * and sizes the windows, and the windows' agreed time how many run (every
 * rank alike); a stop agreed there ends the run as interrupted. */
static void test_budget_agreed_among_ranks(void **state)
{
    (void)state;
    harness_schedule s = {.warmup_steps = 0, .wait_steps = 0, .measurement_steps = 7, .repeat = 1,
                          .time_budget_s = 0.2};
    int64_t calls = 0;
    /* Another rank's 3 steps took 30 ms: past 20, the pilot ends; and its
     * windows took 1 s each: none fits past the minimum of 2. */
    budget_seen seen = {.agreed_batch_s = 0.03, .agreed_window_s = 1};
    harness_runner_hooks hooks = {.arg = &seen, .agree_budget = on_agree, .budget_sized = on_sized};
    harness_run_result r;
    harness_error err = {0};
    assert_int_equal(harness_runner_run(&s, &cpu, spin_step, &calls, &hooks, &r, &err), 0);
    assert_int_equal(seen.agreements, 2);          /* the pilot's batch, then before the third window */
    assert_int_equal(r.budget.pilot_steps, 3);
    assert_true(fabs(r.budget.step_s - 0.01) < 1e-15);
    assert_int_equal(r.budget.windows, 5);         /* (0.2 - spent) / 10 ms: fewer than 20 slots, 5 windows */
    assert_int_equal(r.n_windows, 2);
    assert_int_equal(harness_window_size(&r, 1), (size_t)r.budget.steps);
    assert_true(r.budget.steps >= 1 && r.budget.steps <= 4);
    harness_run_result_free(&r);

    seen = (budget_seen){.agree_stops = 1};
    calls = 0;
    assert_int_equal(harness_runner_run(&s, &cpu, spin_step, &calls, &hooks, &r, &err), 0);
    assert_true(r.interrupted);
    assert_int_equal(seen.agreements, 1);
    assert_int_equal(seen.sized, 0);
    assert_int_equal(r.n_windows, 0);
    harness_run_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_phase_names),
        cmocka_unit_test_setup(test_fixed_schedule_counts, setup),
        cmocka_unit_test_setup(test_zero_warmup_and_wait, setup),
        cmocka_unit_test_setup(test_failing_step_stops_and_is_located, setup),
        cmocka_unit_test_setup(test_failure_in_warmup, setup),
        cmocka_unit_test_setup(test_interrupt_keeps_what_was_measured, setup),
        cmocka_unit_test_setup(test_auto_stops_at_max_steps, setup),
        cmocka_unit_test_setup(test_auto_converges_on_a_loose_target, setup),
        cmocka_unit_test_setup(test_hooks_see_every_phase_and_step, setup),
        cmocka_unit_test_setup(test_auto_never_exceeds_max_steps, setup),
        cmocka_unit_test_setup(test_windows_record_wall_and_cpu_time, setup),
        cmocka_unit_test_setup(test_failing_hook_stops_the_run, setup),
        cmocka_unit_test_setup(test_stop_agreed_at_a_step_meeting, setup),
        cmocka_unit_test_setup(test_signal_during_a_meeting_takes_that_step, setup),
        cmocka_unit_test_setup(test_last_meeting_can_interrupt_a_complete_run, setup),
        cmocka_unit_test_setup(test_device_timer_collects_after_each_window, setup),
        cmocka_unit_test_setup(test_trace_window_after_the_measured_ones, setup),
        cmocka_unit_test_setup(test_device_timer_collects_at_auto_checks, setup),
        cmocka_unit_test_setup(test_device_window_keeps_what_was_measured_on_interrupt, setup),
        cmocka_unit_test_setup(test_device_state_per_window, setup),
        cmocka_unit_test_setup(test_budget_sizes_the_windows, setup),
        cmocka_unit_test_setup(test_budget_too_small, setup),
        cmocka_unit_test_setup(test_budget_agreed_among_ranks, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
