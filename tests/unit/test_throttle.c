/* The throttled-step rule (run/throttle.h): a reading below threshold x
 * the most drops its group, with a pause that doubles while the clock
 * stays down, within the caps; unknown clocks and a threshold of 0 say
 * nothing; past the re-measure cap, or among ranks, a throttled group is
 * kept and counted. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "run/throttle.h"

static harness_clock_verdict judge(harness_throttle *t, double mhz, int64_t group, double *pause)
{
    return harness_throttle_judge(t, mhz, 2000, group, pause);
}

static void test_below_the_threshold_is_dropped_at_it_is_kept(void **state)
{
    (void)state;
    harness_throttle t;
    double pause;
    harness_throttle_init(&t, 0.75, 100, 1);
    assert_int_equal(judge(&t, 1500, 3, &pause), HARNESS_CLOCK_KEEP);   /* exactly 0.75 x 2000 */
    assert_true(pause == 0);
    assert_int_equal(judge(&t, 1499, 3, &pause), HARNESS_CLOCK_DROP);
    assert_true(pause == HARNESS_THROTTLE_PAUSE_NS);
    assert_int_equal(t.dropped, 3);
    assert_int_equal(t.throttled_readings, 1);
    assert_int_equal(t.kept_throttled, 0);
}

static void test_unknown_or_off_says_nothing(void **state)
{
    (void)state;
    harness_throttle t;
    double pause;
    harness_throttle_init(&t, 0.75, 100, 1);
    assert_int_equal(judge(&t, NAN, 2, &pause), HARNESS_CLOCK_KEEP);
    assert_int_equal(harness_throttle_judge(&t, 100, NAN, 2, &pause), HARNESS_CLOCK_KEEP);
    assert_int_equal(harness_throttle_judge(&t, 100, 0, 2, &pause), HARNESS_CLOCK_KEEP);
    assert_int_equal(judge(&t, 100, 0, &pause), HARNESS_CLOCK_KEEP);       /* an empty group */
    harness_throttle_init(&t, 0, 100, 1);
    assert_int_equal(judge(&t, 100, 2, &pause), HARNESS_CLOCK_KEEP);
    assert_int_equal(t.throttled_readings + t.dropped + t.kept_throttled, 0);
}

/* 5, 10, 20, 40, 80, 80 ... ms while throttled; short again once recovered;
 * never more than the total per window. */
static void test_pauses_double_reset_and_stop_at_the_total(void **state)
{
    (void)state;
    harness_throttle t;
    double pause, want[] = {5e6, 10e6, 20e6, 40e6, 80e6, 80e6};
    harness_throttle_init(&t, 0.75, 1000, 1);
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        assert_int_equal(judge(&t, 900, 1, &pause), HARNESS_CLOCK_DROP);
        assert_true(pause == want[i]);
    }
    assert_int_equal(judge(&t, 1900, 1, &pause), HARNESS_CLOCK_KEEP);
    assert_int_equal(judge(&t, 900, 1, &pause), HARNESS_CLOCK_DROP);
    assert_true(pause == 5e6);
    double total = t.paused_ns;
    assert_true(total == 240e6);
    for (int i = 0; i < 40; i++)
        judge(&t, 900, 1, &pause);
    assert_true(t.paused_ns == HARNESS_THROTTLE_PAUSE_TOTAL_NS);
    assert_int_equal(judge(&t, 900, 1, &pause), HARNESS_CLOCK_DROP);   /* still dropped, */
    assert_true(pause == 0);                                            /* but no more pausing */
}

static void test_redo_cap_keeps_and_counts(void **state)
{
    (void)state;
    harness_throttle t;
    double pause;
    harness_throttle_init(&t, 0.75, 5, 1);
    assert_int_equal(judge(&t, 1000, 4, &pause), HARNESS_CLOCK_DROP);
    assert_int_equal(judge(&t, 1000, 2, &pause), HARNESS_CLOCK_KEEP_THROTTLED);   /* 4 + 2 > 5 */
    assert_true(pause == 0);
    assert_int_equal(judge(&t, 1000, 1, &pause), HARNESS_CLOCK_DROP);             /* 4 + 1 fits */
    assert_int_equal(judge(&t, 1000, 1, &pause), HARNESS_CLOCK_KEEP_THROTTLED);
    assert_int_equal(t.dropped, 5);
    assert_int_equal(t.kept_throttled, 3);
    assert_int_equal(t.throttled_readings, 4);
}

static void test_among_ranks_nothing_is_dropped(void **state)
{
    (void)state;
    harness_throttle t;
    double pause;
    harness_throttle_init(&t, 0.75, 100, 0);
    assert_int_equal(judge(&t, 1000, 3, &pause), HARNESS_CLOCK_KEEP_THROTTLED);
    assert_true(pause == 0);
    assert_int_equal(t.dropped, 0);
    assert_int_equal(t.kept_throttled, 3);
}

static void test_read_period(void **state)
{
    (void)state;
    assert_false(harness_clock_read_due(HARNESS_CLOCK_READ_PERIOD_NS - 1));
    assert_true(harness_clock_read_due(HARNESS_CLOCK_READ_PERIOD_NS));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_below_the_threshold_is_dropped_at_it_is_kept),
        cmocka_unit_test(test_unknown_or_off_says_nothing),
        cmocka_unit_test(test_pauses_double_reset_and_stop_at_the_total),
        cmocka_unit_test(test_redo_cap_keeps_and_counts),
        cmocka_unit_test(test_among_ranks_nothing_is_dropped),
        cmocka_unit_test(test_read_period),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
