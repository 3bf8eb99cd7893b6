/* The output probe after timing (run/after_timing.h) and the declared
 * buffers' list (run/declared_io.h), with fake steps and a fake device
 * whose "deferred" work lands only at a full synchronize: the checks that
 * catch skipped and deferred work, proven with no GPU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "run/after_timing.h"

#define N 64

static void test_wait_is_ten_medians_within_bounds(void **state)
{
    (void)state;
    assert_true(harness_probe_wait_ns(1e3) == 10e6);       /* a 1 us step: the 10 ms floor */
    assert_true(harness_probe_wait_ns(5e6) == 50e6);
    assert_true(harness_probe_wait_ns(1e9) == 1e9);        /* a 1 s step: the 1 s cap */
    assert_true(harness_probe_wait_ns(NAN) == 10e6);       /* unknown: the floor */
}

static void test_declared_list(void **state)
{
    (void)state;
    harness_declared_buffer list[HARNESS_MAX_DECLARED];
    int n = 0;
    char why[96];
    float a[4], b[4];
    assert_int_equal(harness_declared_add(list, &n, a, 4, HARNESS_DTYPE_F32, 0, why, sizeof why), 0);
    assert_int_equal(harness_declared_add(list, &n, a, 2, HARNESS_DTYPE_BF16, 0, why, sizeof why), 0);
    assert_int_equal(n, 1);                                 /* declared again: replaced */
    assert_int_equal(list[0].bytes, 4);
    assert_int_equal(harness_declared_add(list, &n, NULL, 4, HARNESS_DTYPE_F32, 0, why, sizeof why), -1);
    assert_string_equal(why, "a NULL buffer");
    assert_int_equal(harness_declared_add(list, &n, b, SIZE_MAX / 2, HARNESS_DTYPE_F32, 0, why, sizeof why), -1);
    assert_non_null(strstr(why, "overflow"));
    assert_int_equal(harness_declared_add(list, &n, b, 4, (harness_dtype)99, 0, why, sizeof why), -1);
    assert_string_equal(why, "an unknown dtype 99");
    char many[HARNESS_MAX_DECLARED + 1];
    for (int i = 1; i < HARNESS_MAX_DECLARED; i++)
        assert_int_equal(harness_declared_add(list, &n, &many[i], 1, HARNESS_DTYPE_F32, 0, why, sizeof why), 0);
    assert_int_equal(n, HARNESS_MAX_DECLARED);
    assert_int_equal(harness_declared_add(list, &n, &many[0], 1, HARNESS_DTYPE_F32, 0, why, sizeof why), -1);
    assert_string_equal(why, "more than 16 buffers");
}

static void test_difference_and_poison(void **state)
{
    (void)state;
    float x[N], y[N];
    harness_declared_buffer d = {x, N, sizeof x, HARNESS_DTYPE_F32, 0};
    for (int i = 0; i < N; i++)
        x[i] = y[i] = (float)i;
    assert_int_equal(harness_first_difference(x, y, &d), -1);
    y[17] = -1;
    assert_int_equal(harness_first_difference(x, y, &d), 17);
    assert_int_equal(harness_first_poisoned(x, &d), -1);
    memset(&x[5], HARNESS_PROBE_POISON, sizeof x[5]);
    assert_int_equal(harness_first_poisoned(x, &d), 5);
    char text[64];
    harness_format_element(x, &d, 5, text, sizeof text);
    assert_string_equal(text, "nan (0xffffffff)");
    harness_format_element(x, &d, 4, text, sizeof text);
    assert_string_equal(text, "4");
    /* A computed NaN is not the poison. */
    x[5] = NAN;
    assert_int_equal(harness_first_poisoned(x, &d), -1);

    uint16_t h[4] = {0x3f80, 0xffff, 0x4000, 0};           /* bf16 1, poison, 2, 0 */
    harness_declared_buffer bd = {h, 4, sizeof h, HARNESS_DTYPE_BF16, 0};
    assert_int_equal(harness_first_poisoned(h, &bd), 1);
    harness_format_element(h, &bd, 0, text, sizeof text);
    assert_string_equal(text, "1");

    /* i32: -1 is an ordinary value; only an output all poison is unwritten. */
    int32_t k[4] = {3, -1, 4, 5};
    harness_declared_buffer kd = {k, 4, sizeof k, HARNESS_DTYPE_I32, 0};
    assert_int_equal(harness_first_poisoned(k, &kd), -1);
    memset(k, HARNESS_PROBE_POISON, sizeof k);
    assert_int_equal(harness_first_poisoned(k, &kd), 0);
}

/* ---- the probe with fake steps -------------------------------------------- */

typedef enum { WRITES, SKIPS_EVERY_OTHER, NEVER_WRITES, DEFERS } behaviour;

typedef struct fake_component {
    behaviour how;
    float out[N];
    int calls;
    int deferred;                  /* DEFERS: work waits for the device's full synchronize */
    int device_syncs;
} fake_component;

static fake_component comp;

static void compute(void)
{
    for (int i = 0; i < N; i++)
        comp.out[i] = 2.0f * (float)i;
}

static int fake_step(void *arg)
{
    (void)arg;
    comp.calls++;
    if (comp.how == WRITES || (comp.how == SKIPS_EVERY_OTHER && comp.calls % 2 == 0))
        compute();
    if (comp.how == DEFERS)
        comp.deferred = 1;
    return 0;
}

/* The fake device: its memory is this process's; a full synchronize runs
 * the work a step deferred (another stream's kernel, in the real thing). */
static int fake_copy(const harness_backend *b, void *dst, const void *src, size_t bytes, int to_device,
                     harness_error *err)
{
    (void)b, (void)to_device, (void)err;
    memcpy(dst, src, bytes);
    return 0;
}
static int fake_sync_device(const harness_backend *b, harness_error *err)
{
    (void)b, (void)err;
    comp.device_syncs++;
    if (comp.deferred)
        compute();
    comp.deferred = 0;
    return 0;
}

static const harness_backend_ops cpu_ops;
static const harness_backend_ops device_ops = {.copy = fake_copy, .synchronize_device = fake_sync_device};

static harness_probe_report probe(behaviour how, const harness_backend_ops *ops, int device)
{
    memset(&comp, 0, sizeof comp);
    comp.how = how;
    compute();                     /* the output as the timed steps left it */
    harness_backend b = {.ops = ops};
    harness_declared_io io = {.n_outputs = 1};
    io.outputs[0] = (harness_declared_buffer){comp.out, N, sizeof comp.out, HARNESS_DTYPE_F32, device};
    harness_probe p = {&b, &io, fake_step, NULL, 1000.0};
    harness_probe_report rep;
    harness_error err = {0};
    assert_int_equal(harness_probe_outputs(&p, &rep, &err), 0);
    assert_int_equal(err.code, 0);
    return rep;
}

static void test_honest_step_passes_both_probes(void **state)
{
    (void)state;
    harness_probe_report rep = probe(WRITES, &cpu_ops, 0);
    assert_string_equal(rep.failure, "");
    assert_int_equal(rep.probes, HARNESS_PROBE_STEPS);
    assert_int_equal(comp.calls, HARNESS_PROBE_STEPS);
    assert_true(rep.wait_ns == 10e6);
    rep = probe(WRITES, &device_ops, 1);
    assert_string_equal(rep.failure, "");
    assert_int_equal(comp.device_syncs, HARNESS_PROBE_STEPS);
}

static void test_skipping_step_is_caught(void **state)
{
    (void)state;
    harness_probe_report rep = probe(NEVER_WRITES, &cpu_ops, 0);
    assert_non_null(strstr(rep.failure, "step() did not write its output after timing: element 0 of output 1 "
                                        "(f32 x 64) still holds the bytes the host wrote there before the step "
                                        "(nan (0xffffffff); probe step 1)"));
    /* Working on every other call only: the first probe meets a skip. */
    rep = probe(SKIPS_EVERY_OTHER, &cpu_ops, 0);
    assert_non_null(strstr(rep.failure, "did not write its output"));
    assert_non_null(strstr(rep.failure, "probe step 1"));
    assert_int_equal(comp.calls, HARNESS_PROBE_STEPS);     /* both probes ran all the same (ranks stay in step) */
}

static void test_deferred_work_is_caught_at_the_full_synchronize(void **state)
{
    (void)state;
    harness_probe_report rep = probe(DEFERS, &device_ops, 1);
    assert_non_null(strstr(rep.failure, "output changed after timing: element 0 of output 1 (f32 x 64, device "
                                        "memory) was nan (0xffffffff) when step() was over and 0 10 ms later"));
    /* The same step on the CPU, where nothing ever runs the deferred work:
     * the output is never written. */
    rep = probe(DEFERS, &cpu_ops, 0);
    assert_non_null(strstr(rep.failure, "did not write its output"));
}

static void test_no_declared_output_runs_nothing(void **state)
{
    (void)state;
    memset(&comp, 0, sizeof comp);
    harness_backend b = {.ops = &cpu_ops};
    harness_declared_io io = {0};
    harness_probe p = {&b, &io, fake_step, NULL, 1000.0};
    harness_probe_report rep;
    harness_error err = {0};
    assert_int_equal(harness_probe_outputs(&p, &rep, &err), 0);
    assert_int_equal(rep.probes, 0);
    assert_int_equal(comp.calls, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wait_is_ten_medians_within_bounds),
        cmocka_unit_test(test_declared_list),
        cmocka_unit_test(test_difference_and_poison),
        cmocka_unit_test(test_honest_step_passes_both_probes),
        cmocka_unit_test(test_skipping_step_is_caught),
        cmocka_unit_test(test_deferred_work_is_caught_at_the_full_synchronize),
        cmocka_unit_test(test_no_declared_output_runs_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
