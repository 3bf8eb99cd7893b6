/* test_clock.c - harness/clock.c. The machine running this may be loaded,
 * so nothing here bounds a duration from above or compares two timings. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "backend/clock.h"

static void assert_monotonic(const harness_clock *c)
{
    uint64_t prev = harness_clock_ticks(c);
    for (int i = 0; i < 1000000; i++) {
        uint64_t t = harness_clock_ticks(c);
        if (t < prev)
            fail_msg("%s went back: %llu after %llu", c->name, (unsigned long long)t,
                     (unsigned long long)prev);
        prev = t;
    }
}

/* A 20 ms sleep can only take longer, never shorter; allow 1 ms for the
 * calibration error and the stamps. */
static void assert_measures_sleep(const harness_clock *c)
{
    struct timespec ts = {0, 20000000L};
    uint64_t t0 = harness_clock_ticks(c);
    while (nanosleep(&ts, &ts) != 0)
        ;
    uint64_t t1 = harness_clock_ticks(c);
    double ms = harness_clock_ns(c, t1 - t0) / 1e6;
    if (!(ms >= 19.0))
        fail_msg("%s measured a 20 ms sleep as %.3f ms", c->name, ms);
}

static void test_default_clock(void **state)
{
    (void)state;
    harness_clock c;
    harness_clock_init(&c, 0);
    assert_non_null(c.name);
    assert_true(c.ns_per_tick > 0.0);
    assert_true(c.read_overhead_ns >= 0.0);
    assert_true(c.gettime_overhead_ns >= 0.0);
    if (c.use_tsc) {
        assert_string_equal(c.name, "tsc");
        assert_true(c.tsc_ghz >= 0.5 && c.tsc_ghz <= 10.0);
        assert_true(c.ns_per_tick >= 0.1 && c.ns_per_tick <= 2.0);
    } else {
        assert_string_equal(c.name, "clock_gettime");
        assert_true(c.ns_per_tick == 1.0);
    }
    /* Finer than a microsecond on any machine this runs on, and positive. */
    assert_true(c.resolution_ns > 0.0 && c.resolution_ns < 1000.0);
    assert_true(c.why[0] != '\0');
    assert_true(c.kernel_clocksource[0] != '\0');
    /* The TSC only where the kernel itself keeps time with it. */
    if (c.use_tsc)
        assert_string_equal(c.kernel_clocksource, "tsc");
    assert_monotonic(&c);
    assert_measures_sleep(&c);
}

/* The CPUID bit alone never selects the TSC: the kernel must agree. */
static void test_tsc_needs_the_kernel(void **state)
{
    (void)state;
    assert_true(harness_clock_tsc_usable(1, "tsc"));
    assert_false(harness_clock_tsc_usable(1, "kvm-clock"));
    assert_false(harness_clock_tsc_usable(1, "hpet"));
    assert_false(harness_clock_tsc_usable(1, "unknown"));
    assert_false(harness_clock_tsc_usable(1, NULL));
    assert_false(harness_clock_tsc_usable(0, "tsc"));
}

static void test_forced_gettime(void **state)
{
    (void)state;
    harness_clock c;
    harness_clock_init(&c, 1);
    assert_int_equal(c.use_tsc, 0);
    assert_string_equal(c.name, "clock_gettime");
    assert_true(c.ns_per_tick == 1.0);
    assert_true(c.tsc_ghz == 0.0);
    assert_true(c.read_overhead_ns == c.gettime_overhead_ns);
    assert_true(c.resolution_ns > 0.0 && c.resolution_ns < 1000.0);
    assert_monotonic(&c);
    assert_measures_sleep(&c);
}

static void test_monotonic_ns(void **state)
{
    (void)state;
    uint64_t prev = harness_monotonic_ns();
    assert_true(prev > 0);
    for (int i = 0; i < 100000; i++) {
        uint64_t t = harness_monotonic_ns();
        assert_true(t >= prev);
        prev = t;
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_clock),
        cmocka_unit_test(test_tsc_needs_the_kernel),
        cmocka_unit_test(test_forced_gettime),
        cmocka_unit_test(test_monotonic_ns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
