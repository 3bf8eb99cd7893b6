/* test_time_budget.c - run/time_budget.c, the sizing rule of `harness run
 * --time-budget`: (step time, budget, the config's schedule) -> windows and
 * steps, by hand at each branch of the rule, then as properties over a grid
 * of inputs (the windows fit the budget; more budget never sizes less). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "run/time_budget.h"

/* The rule applied to a step of step_s, budget_s of which spent_s is
 * spent, and the config's wait, measurement_steps and repeat. */
static harness_budget size(double step_s, double budget_s, double spent_s, int64_t wait, int64_t steps,
                           int64_t repeat)
{
    harness_budget b = {.budget_s = budget_s, .spent_s = spent_s, .step_s = step_s, .wait_steps = wait,
                        .config_steps = steps, .config_repeat = repeat};
    harness_budget_size(&b);
    return b;
}

static void test_five_windows_then_steps_rounded(void **state)
{
    (void)state;
    /* 1 ms steps, 2 s less 50 ms spent: 1950 slots, 390 a window, 1 of them
     * a wait step: 389, rounded down to two digits. */
    harness_budget b = size(1e-3, 2, 0.05, 1, 50, 2);
    assert_true(b.fits);
    assert_int_equal(b.windows, 5);
    assert_int_equal(b.steps, 380);
    /* Below 100 a window keeps every step: 1 ms, 0.5 s, 10 wait: 100 a
     * window less 10 (budgets here sit off the slots' edges, so that the
     * floating point of step / budget cannot decide a test). */
    b = size(1e-3, 0.5005, 0, 10, 100, 1);
    assert_int_equal(b.windows, 5);
    assert_int_equal(b.steps, 90);
}

static void test_more_windows_when_the_config_asks(void **state)
{
    (void)state;
    harness_budget b = size(1e-3, 10, 0, 0, 100, 8);
    assert_int_equal(b.windows, 8);
    assert_int_equal(b.steps, 1200);       /* 1250 */
    /* At most HARNESS_BUDGET_MAX_WINDOWS, whatever the config says. */
    b = size(1e-3, 1000, 0, 0, 100, 500);
    assert_int_equal(b.windows, HARNESS_BUDGET_MAX_WINDOWS);
    assert_int_equal(b.steps, HARNESS_BUDGET_MAX_STEPS);
}

static void test_steps_capped_then_windows_grow(void **state)
{
    (void)state;
    /* 1 us steps, 0.505 s: 505000 slots; 5 windows would be 101000 steps
     * each, past the cap: 10000 a window, and the windows grow to what fits. */
    harness_budget b = size(1e-6, 0.505, 0, 0, 100, 1);
    assert_int_equal(b.steps, HARNESS_BUDGET_MAX_STEPS);
    assert_int_equal(b.windows, 50);
    /* The wait steps count in each window's share. */
    b = size(1e-6, 0.505, 0, 10000, 100, 1);
    assert_int_equal(b.steps, HARNESS_BUDGET_MAX_STEPS);
    assert_int_equal(b.windows, 25);
    /* Then the windows' cap: the run ends before the budget. */
    b = size(1e-6, 3600, 0, 0, 100, 1);
    assert_int_equal(b.windows, HARNESS_BUDGET_MAX_WINDOWS);
    assert_int_equal(b.steps, HARNESS_BUDGET_MAX_STEPS);
    /* A config that asks more than the cap per window gets it, when it fits. */
    b = size(1e-6, 3600, 0, 0, 50000, 1);
    assert_int_equal(b.steps, 50000);
    /* A step the clock could not see counts as 1 ns: the caps bound it. */
    b = size(0, 1, 0, 0, 100, 1);
    assert_true(b.fits);
    assert_int_equal(b.windows, HARNESS_BUDGET_MAX_WINDOWS);
}

static void test_config_steps_kept_when_they_fit(void **state)
{
    (void)state;
    /* 1090 steps a window fit, rounded to 1000 would be below the config's
     * 1050: the config's stays. */
    harness_budget b = size(1e-3, 5.45, 0, 0, 1050, 1);
    assert_int_equal(b.windows, 5);
    assert_int_equal(b.steps, 1050);
    /* auto (0) has no size to keep. */
    b = size(1e-3, 5.45, 0, 0, 0, 1);
    assert_int_equal(b.steps, 1000);
    /* When the config's size does not fit, the budget decides. */
    b = size(1e-3, 2.0005, 0, 0, 1050, 1);
    assert_int_equal(b.steps, 400);
}

static void test_fewer_windows_down_to_two(void **state)
{
    (void)state;
    /* 20 ms steps, 0.205 s less 0.1 spent: 5 slots; with 1 wait step, 2
     * windows of 1 wait + 1 measured. */
    harness_budget b = size(0.02, 0.205, 0.1, 1, 100, 1);
    assert_true(b.fits);
    assert_int_equal(b.windows, 2);
    assert_int_equal(b.steps, 1);
    /* 4 slots, no wait: 4 windows of 1. */
    b = size(0.02, 0.085, 0, 0, 100, 1);
    assert_int_equal(b.windows, 4);
    assert_int_equal(b.steps, 1);
    /* 5 slots, no wait: the 5 windows wanted, of 1 step. */
    b = size(0.02, 0.105, 0, 0, 100, 1);
    assert_int_equal(b.windows, 5);
    assert_int_equal(b.steps, 1);
}

static void test_too_small(void **state)
{
    (void)state;
    /* 3 slots, 2 windows of 1 wait + 1 need 4: too small, and 0.1 spent +
     * 4 x 20 ms would have fit. */
    harness_budget b = size(0.02, 0.1605, 0.1, 1, 100, 1);
    assert_false(b.fits);
    assert_int_equal(b.windows, 0);
    assert_int_equal(b.steps, 0);
    assert_true(fabs(b.need_s - 0.18) < 1e-12);
    /* The warmup alone overran the budget. */
    b = size(0.001, 1, 3, 0, 100, 1);
    assert_false(b.fits);
    assert_true(fabs(b.need_s - 3.002) < 1e-12);
    /* Exactly the minimum fits. */
    b = size(0.02, 0.1805, 0.1, 1, 100, 1);
    assert_true(b.fits);
    assert_int_equal(b.windows, 2);
}

/* Over a grid: the sizes fit the budget (windows x (wait + steps) slots at
 * most), respect the minimum and the caps, and a larger budget never gives
 * fewer windows nor (at the same windows) fewer steps. */
static void test_properties(void **state)
{
    (void)state;
    const double steps_s[] = {1e-7, 1e-6, 3e-5, 1e-3, 2.5e-2, 0.4};
    const double budgets[] = {0.01, 0.1, 0.5, 1, 2, 7, 30, 300, 3600};
    const int64_t waits[] = {0, 1, 10, 1000};
    const int64_t asked[] = {0, 10, 1000, 20000};
    const int64_t repeats[] = {1, 5, 12};
    for (size_t i = 0; i < sizeof steps_s / sizeof *steps_s; i++)
        for (size_t w = 0; w < sizeof waits / sizeof *waits; w++)
            for (size_t a = 0; a < sizeof asked / sizeof *asked; a++)
                for (size_t r = 0; r < sizeof repeats / sizeof *repeats; r++) {
                    harness_budget prev = {0};
                    for (size_t k = 0; k < sizeof budgets / sizeof *budgets; k++) {
                        harness_budget b = size(steps_s[i], budgets[k], 0.01, waits[w], asked[a], repeats[r]);
                        if (!b.fits) {
                            assert_false(prev.fits);   /* once it fits, more budget fits too */
                            assert_true(b.need_s > budgets[k]);
                            continue;
                        }
                        double slots = (budgets[k] - 0.01) / steps_s[i];
                        assert_true((double)b.windows * (double)(waits[w] + b.steps) <= slots + 1e-6);
                        assert_true(b.windows >= HARNESS_BUDGET_MIN_WINDOWS);
                        assert_true(b.windows <= HARNESS_BUDGET_MAX_WINDOWS);
                        assert_true(b.steps >= 1);
                        assert_true(b.steps <= (asked[a] > HARNESS_BUDGET_MAX_STEPS ? asked[a]
                                                                                    : HARNESS_BUDGET_MAX_STEPS));
                        if (prev.fits) {
                            assert_true(b.windows >= prev.windows);
                            if (b.windows == prev.windows)
                                assert_true(b.steps >= prev.steps);
                        }
                        prev = b;
                    }
                }
}

/* Windows run while the next fits: the minimum always, the most never. */
static void test_another_window(void **state)
{
    (void)state;
    harness_budget b = size(1e-3, 2, 0.05, 1, 50, 2);
    assert_true(harness_budget_another_window(&b, 0, 5, 5));      /* the minimum, whatever the time */
    assert_true(harness_budget_another_window(&b, 1, 5, 5));
    assert_true(harness_budget_another_window(&b, 2, 1.2, 0.38));
    assert_true(harness_budget_another_window(&b, 4, 1.5, 0.5));  /* exactly the budget */
    assert_false(harness_budget_another_window(&b, 4, 1.6, 0.5));
    assert_false(harness_budget_another_window(&b, HARNESS_BUDGET_MAX_WINDOWS, 0, 0));
    assert_true(harness_budget_another_window(&b, HARNESS_BUDGET_MAX_WINDOWS - 1, 0, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_five_windows_then_steps_rounded),
        cmocka_unit_test(test_more_windows_when_the_config_asks),
        cmocka_unit_test(test_steps_capped_then_windows_grow),
        cmocka_unit_test(test_config_steps_kept_when_they_fit),
        cmocka_unit_test(test_fewer_windows_down_to_two),
        cmocka_unit_test(test_too_small),
        cmocka_unit_test(test_properties),
        cmocka_unit_test(test_another_window),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
