/* The GPU's anti-cheat on the timed stream, without a GPU: the bound of
 * the events against a full synchronize (run/full_sync.h) and its run on a
 * fake backend, the work off the timed stream found in synthetic CUPTI
 * records (backend/side_streams.h), and the verdict that puts them
 * together (pipeline/timed_stream.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "backend/side_streams.h"
#include "pipeline/timed_stream.h"
#include "run/full_sync.h"

/* ---- the bound ------------------------------------------------------------ */

static harness_full_sync_check check_of(double sync_us, double events_us, double launch_us)
{
    harness_full_sync_check c = {.ran = 1, .sync_ns = sync_us * 1e3, .events_median_ns = events_us * 1e3,
                                 .launch_ns = launch_us * 1e3};
    harness_full_sync_judge(&c);
    return c;
}

static void the_bound_is_twice_events_and_launch_plus_50us(void **state)
{
    (void)state;
    harness_full_sync_check c = check_of(270, 10, 100);
    assert_float_equal(c.bound_ns, 270e3, 1e-6);
    assert_true(c.agrees);                 /* at the bound: agrees */
    c = check_of(270.001, 10, 100);
    assert_false(c.agrees);
    /* 100 launches of 1 us kernels, each launch 4 us: synchronized, the
     * step is about its launches plus a round trip; the launch is in the
     * bound, so launch overhead cannot trip it. */
    assert_true(check_of(400 + 20, 100, 400).agrees);
    /* A side stream hiding a 1 ms memset behind a 5 us launch: caught. */
    assert_false(check_of(1000, 2, 5).agrees);
}

/* ---- the run, on a fake backend -------------------------------------------- */

static double sync_times[8], sync_launches[8];
static int sync_calls, steps_called, fail_at = -1;

static int fake_full_sync_step(const harness_backend *b, int (*step)(void *), void *arg, double *ns,
                               double *launch_ns, harness_error *err)
{
    (void)b;
    if (step(arg) != 0 || sync_calls == fail_at)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "the step failed") ? -1 : -1;
    *launch_ns = sync_launches[sync_calls];
    *ns = sync_times[sync_calls++];
    return 0;
}

static int count_step(void *arg)
{
    (void)arg;
    steps_called++;
    return 0;
}

static void the_run_takes_the_least_of_three_synchronized_steps(void **state)
{
    (void)state;
    harness_backend_ops ops = {.full_sync_step = fake_full_sync_step};
    harness_backend b = {.ops = &ops};
    double dev[5] = {10e3, 12e3, 11e3, 30e3, 9e3}, host[5] = {5e3, 5e3, 6e3, 4e3, 5e3};
    harness_run_result r = {.samples_ns = dev, .host_samples_ns = host, .n_samples = 5};
    sync_times[0] = 900e3, sync_times[1] = 40e3, sync_times[2] = 60e3;
    sync_launches[0] = 7e3, sync_launches[1] = 5e3, sync_launches[2] = 3e3;
    sync_calls = steps_called = 0;
    harness_full_sync_check c;
    harness_error err = {0};
    assert_int_equal(harness_full_sync_run(&b, count_step, NULL, &r, 0, &c, &err), 0);
    assert_int_equal(steps_called, HARNESS_FULL_SYNC_STEPS);
    assert_true(c.ran);
    assert_float_equal(c.sync_ns, 40e3, 1e-6);       /* the preempted 900 us one left out */
    assert_float_equal(c.events_median_ns, 11e3, 1e-6);
    assert_float_equal(c.launch_ns, 5e3, 1e-6);      /* the launch of that same step */
    assert_float_equal(c.bound_ns, 2 * 16e3 + 50e3, 1e-6);
    assert_true(c.agrees);
    assert_float_equal(dev[3], 30e3, 0);             /* the samples stay in step order */

    /* cheat/after_end on an H200: work forked past the end event backs up
     * the queues, so every measured launch waited 1.6 ms; the synchronized
     * step starts on empty queues and launches in 5 us. The bound takes
     * that launch, not the measured ones, and the 2.7 ms step is caught. */
    double backed_up[5] = {1.6e6, 1.5e6, 1.6e6, 1.7e6, 1.6e6};
    harness_run_result cheat = {.samples_ns = dev, .host_samples_ns = backed_up, .n_samples = 5};
    for (int i = 0; i < 3; i++)
        sync_times[i] = 2.74e6, sync_launches[i] = 5e3;
    sync_calls = 0;
    assert_int_equal(harness_full_sync_run(&b, count_step, NULL, &cheat, 0, &c, &err), 0);
    assert_float_equal(c.bound_ns, 2 * 16e3 + 50e3, 1e-6);
    assert_false(c.agrees);

    /* The CPU has no such op: nothing runs, nothing is said. */
    harness_backend_ops cpu = {0};
    harness_backend cb = {.ops = &cpu};
    assert_int_equal(harness_full_sync_run(&cb, count_step, NULL, &r, 0, &c, &err), 0);
    assert_false(c.ran);
    assert_null(c.skipped);
    /* A job whose steps call collectives, and a run with no measured step: skipped, saying why. */
    assert_int_equal(harness_full_sync_run(&b, count_step, NULL, &r, 1, &c, &err), 0);
    assert_false(c.ran);
    assert_non_null(strstr(c.skipped, "collectives"));
    harness_run_result none = {0};
    assert_int_equal(harness_full_sync_run(&b, count_step, NULL, &none, 0, &c, &err), 0);
    assert_false(c.ran);
    assert_non_null(c.skipped);
    /* A step that fails there fails the run with its error. */
    sync_calls = 0, fail_at = 1;
    assert_int_equal(harness_full_sync_run(&b, count_step, NULL, &r, 0, &c, &err), HARNESS_EXIT_RUNTIME);
    assert_false(c.ran);
    fail_at = -1;
}

/* ---- work off the timed stream ---------------------------------------------- */

static void add(harness_gpu_activity_list *l, harness_gpu_activity_kind kind, const char *name, uint32_t stream,
                uint64_t t0, uint64_t t1)
{
    harness_gpu_activity a = {.kind = kind, .name = name, .stream = stream, .start_ns = t0, .end_ns = t1};
    assert_int_equal(harness_gpu_activity_append(l, &a), 0);
}

/* The timed stream is 7; a cheat's kernel on 9, a memset on 11, a runtime
 * call (host side, no stream of its own) and the timed stream's kernels
 * are not side work. */
static void fill_cheat(harness_gpu_activity_list *l)
{
    harness_gpu_activity_list_init(l);
    l->timed_stream = 7;
    l->timed_stream_known = 1;
    for (int i = 0; i < 3; i++) {
        add(l, HARNESS_GPU_RUNTIME, "cudaLaunchKernel", 0, 100 * i, 100 * i + 5);
        add(l, HARNESS_GPU_KERNEL, "rms_norm_kernel", 7, 100 * i + 10, 100 * i + 20);
        add(l, HARNESS_GPU_KERNEL, "cheat_kernel", 9, 100 * i + 10, 100 * i + 60);
    }
    add(l, HARNESS_GPU_MEMSET, NULL, 11, 400, 410);
    add(l, HARNESS_GPU_MEMCPY, "DtoD", 7, 500, 510);
}

static void side_work_is_found_by_stream_and_grouped(void **state)
{
    (void)state;
    harness_gpu_activity_list l;
    fill_cheat(&l);
    harness_side_work w[4];
    uint64_t left = 99;
    size_t n = harness_side_work_find(&l, 7, w, 4, &left);
    assert_int_equal(n, 2);
    assert_int_equal(left, 0);
    assert_string_equal(w[0].name, "cheat_kernel");
    assert_int_equal(w[0].kind, HARNESS_GPU_KERNEL);
    assert_int_equal(w[0].stream, 9);
    assert_int_equal(w[0].calls, 3);
    assert_int_equal(w[0].total_ns, 150);
    assert_string_equal(w[1].name, "memset");
    assert_int_equal(w[1].stream, 11);
    char text[256];
    harness_side_work_text(w, n, left, text, sizeof text);
    assert_string_equal(text, "cheat_kernel (stream 9, 3 calls), memset (stream 11, 1 call)");
    /* Room for one group: the other's records are counted, and said. */
    n = harness_side_work_find(&l, 7, w, 1, &left);
    assert_int_equal(n, 1);
    assert_int_equal(left, 1);
    harness_side_work_text(w, n, left, text, sizeof text);
    assert_string_equal(text, "cheat_kernel (stream 9, 3 calls) and 1 more record");
    /* Seen from stream 9, the rest is side work. */
    assert_int_equal(harness_side_work_find(&l, 9, w, 4, &left), 3);
    harness_gpu_activity_list_free(&l);
    /* No records: nothing. */
    assert_int_equal(harness_side_work_find(NULL, 7, w, 4, &left), 0);
}

/* ---- the verdict ------------------------------------------------------------- */

static harness_summary *summary_with(harness_full_sync_check c, const harness_gpu_activity_list *l)
{
    harness_summary *s = calloc(1, sizeof *s);
    assert_non_null(s);
    s->status = "ok";
    s->variant_key = "cheat/cuda";
    s->full_sync = c;
    s->gpu_activity = l;
    return s;
}

static void a_disagreeing_synchronize_fails_naming_the_side_work(void **state)
{
    (void)state;
    harness_gpu_activity_list l;
    fill_cheat(&l);
    harness_summary *s = summary_with(check_of(1000, 2, 5), &l);
    harness_error err = {0};
    assert_int_equal(harness_timed_stream_verdict(s, &err), HARNESS_EXIT_VERDICT);
    assert_string_equal(s->status, "failed");
    assert_non_null(strstr(err.msg, "cheat/cuda: work outside the timed stream: one step took 1 ms by a full "
                                    "device synchronize but the events measured 2 us"));
    assert_non_null(strstr(err.msg, "kernels on another stream or after the end event are not timed"));
    assert_non_null(strstr(err.msg, "cheat_kernel (stream 9, 3 calls)"));
    free(s);

    /* Agreeing: the same side work passes, and the warning says it. */
    s = summary_with(check_of(30, 20, 5), &l);
    err = (harness_error){0};
    assert_int_equal(harness_timed_stream_verdict(s, &err), 0);
    assert_string_equal(s->status, "ok");
    assert_int_equal(s->n_side_work, 2);
    harness_summary_collect_warnings(s);
    int said = 0;
    for (size_t i = 0; i < s->warnings.n; i++)
        said |= strstr(s->warnings.text[i], "off the timed stream in the trace window: cheat_kernel") != NULL;
    assert_true(said);
    free(s);
    harness_gpu_activity_list_free(&l);

    /* Work after the end event with nothing off the stream: said so. */
    harness_gpu_activity_list quiet;
    harness_gpu_activity_list_init(&quiet);
    quiet.timed_stream_known = 1;
    s = summary_with(check_of(1000, 2, 5), &quiet);
    char msg[2048];
    assert_int_equal(harness_timed_stream_verdict(s, &err), HARNESS_EXIT_VERDICT);
    assert_int_equal(harness_timed_stream_failure(s, msg, sizeof msg), 1);
    assert_non_null(strstr(msg, "recorded no kernel, copy or set off the timed stream"));
    free(s);

    /* Not run (the CPU): no verdict. */
    s = summary_with((harness_full_sync_check){0}, NULL);
    assert_int_equal(harness_timed_stream_verdict(s, &err), 0);
    assert_false(s->side_work_known);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_bound_is_twice_events_and_launch_plus_50us),
        cmocka_unit_test(the_run_takes_the_least_of_three_synchronized_steps),
        cmocka_unit_test(side_work_is_found_by_stream_and_grouped),
        cmocka_unit_test(a_disagreeing_synchronize_fails_naming_the_side_work),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
