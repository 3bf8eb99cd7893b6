/* test_changepoint.c - harness/compare/changepoint.c: E-divisive means on
 * series with known steps (found where they are, with their size) and on
 * pure noise (a change point in about alpha of the series, no more). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "compare/changepoint.h"

#include "assert_near.h"

static uint64_t rng = 12345;

static double gauss(void)
{
    double u[2];
    for (int i = 0; i < 2; i++) {
        rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
        u[i] = ((double)(rng >> 11) + 0.5) / (double)(1ULL << 53);
    }
    return sqrt(-2.0 * log(u[0])) * cos(2.0 * M_PI * u[1]);
}

static const harness_cp_options defaults = HARNESS_CP_DEFAULTS;

static void test_best_split_exact(void **state)
{
    (void)state;
    const double x[] = {0, 0, 0, 1, 1, 1};
    double q;
    assert_int_equal(harness_cp_best_split(x, 6, 3, &q), 3);
    /* Q(3) = 3*3/6 * (2*9/9 - 0 - 0) = 3 */
    assert_near(q, 3.0, 1e-12);
    assert_int_equal(harness_cp_best_split(x, 5, 3, &q), 0);   /* too short for 3 a side */
}

static void test_one_step(void **state)
{
    (void)state;
    double x[40];
    for (int i = 0; i < 40; i++)
        x[i] = (i < 23 ? 100.0 : 110.0) + 0.5 * gauss();
    harness_change_point *cp;
    size_t n;
    assert_int_equal(harness_changepoints(x, 40, &defaults, &cp, &n), 0);
    assert_int_equal(n, 1);
    assert_int_equal(cp[0].index, 23);
    assert_true(cp[0].p <= 0.01);
    assert_near(cp[0].before, 100, 0.5);
    assert_near(cp[0].after, 110, 0.5);
    free(cp);
}

static void test_two_steps(void **state)
{
    (void)state;
    double x[45];
    for (int i = 0; i < 45; i++)
        x[i] = (i < 15 ? 100.0 : i < 30 ? 110.0 : 104.0) + 0.5 * gauss();
    harness_change_point *cp;
    size_t n;
    assert_int_equal(harness_changepoints(x, 45, &defaults, &cp, &n), 0);
    assert_int_equal(n, 2);
    assert_int_equal(cp[0].index, 15);
    assert_int_equal(cp[1].index, 30);
    assert_near(cp[1].before, 110, 0.5);   /* the medians of the neighbouring segments */
    assert_near(cp[1].after, 104, 0.5);
    free(cp);
}

/* A 3% step in 1% noise, as CI sees a real regression. */
static void test_small_step_in_noise(void **state)
{
    (void)state;
    double x[30];
    for (int i = 0; i < 30; i++)
        x[i] = (i < 18 ? 1000.0 : 1030.0) * (1.0 + 0.01 * gauss());
    harness_change_point *cp;
    size_t n;
    assert_int_equal(harness_changepoints(x, 30, &defaults, &cp, &n), 0);
    assert_true(n >= 1);
    int found = 0;
    for (size_t i = 0; i < n; i++)
        found |= cp[i].index >= 17 && cp[i].index <= 19;
    assert_true(found);
    free(cp);
}

/* Pure noise: the first test is at alpha (1%), so about 1% of series show a
 * change point; 200 series put 3 standard errors at ~2.1 points. No
 * --min-change: this is the permutation test's size. */
static void test_noise(void **state)
{
    (void)state;
    harness_cp_options o = HARNESS_CP_DEFAULTS;
    o.min_change = 0;
    int flagged = 0;
    const int trials = 200;
    for (int t = 0; t < trials; t++) {
        double x[30];
        for (int i = 0; i < 30; i++)
            x[i] = 1000.0 + 10.0 * gauss();
        harness_change_point *cp;
        size_t n;
        assert_int_equal(harness_changepoints(x, 30, &o, &cp, &n), 0);
        flagged += n > 0;
        free(cp);
    }
    printf("# noise: %d of %d series with a change point\n", flagged, trials);
    assert_true(flagged <= (int)(trials * (0.01 + 3 * sqrt(0.01 * 0.99 / trials))));
}

/* After the real change points are found, the next candidate is the best
 * split over all segments, so its permutation test must shuffle every
 * segment and take the largest Q over them (e.divisive); shuffling only the
 * segment it came from compares a maximum over 8 segments with one
 * segment's null and finds an extra change point in ~1 - 0.95^8 = 34% of
 * such series at alpha 0.05. Eight levels of 10 points (20% steps, 1%
 * noise): every step found, and an extra change point in about alpha of
 * the series; 100 series put 3 standard errors at ~6.5 points. */
static void test_no_extra_change_points_between_steps(void **state)
{
    (void)state;
    harness_cp_options o = HARNESS_CP_DEFAULTS;
    o.alpha = 0.05;
    o.permutations = 99;
    o.min_change = 0;              /* the test's size, not the steps' */
    const int trials = 100;
    int extra = 0, found = 0;
    for (int t = 0; t < trials; t++) {
        double x[80];
        for (int i = 0; i < 80; i++)
            x[i] = 1000.0 * (1.0 + 0.2 * (i / 10)) * (1.0 + 0.01 * gauss());
        harness_change_point *cp;
        size_t n;
        assert_int_equal(harness_changepoints(x, 80, &o, &cp, &n), 0);
        size_t real = 0;
        for (size_t i = 0; i < n; i++)
            real += cp[i].index % 10 == 0;
        found += real == 7;
        extra += n > real;
        free(cp);
    }
    printf("# 7 steps: all found in %d of %d series, an extra change point in %d\n", found, trials, extra);
    assert_int_equal(found, trials);
    assert_true(extra <= (int)(trials * (0.05 + 3 * sqrt(0.05 * 0.95 / trials))));
}

/* The series: 600 us halving to 300 us at run 9 of 16, 2% noise,
 * and two runs at 12-17 ms (a busy machine). On the values the best split
 * lands beside an outlier and fails its test (p 0.012 at alpha 0.01), so
 * the search stopped with no change point; without the outliers the step
 * is found where it is, at the default alpha. */
static void test_outliers_and_an_obvious_step(void **state)
{
    (void)state;
    for (int t = 0; t < 20; t++) {
        double x[16];
        for (int i = 0; i < 16; i++)
            x[i] = (i < 8 ? 600e3 : 300e3) * (1.0 + 0.02 * gauss());
        x[3 + t % 3] = 17.35e6;
        x[12 - t % 2] = 12.77e6;
        harness_change_point *cp;
        size_t n;
        assert_int_equal(harness_changepoints(x, 16, &defaults, &cp, &n), 0);
        assert_int_equal(n, 1);
        assert_int_equal(cp[0].index, 8);
        assert_true(cp[0].p <= defaults.alpha);
        assert_near(cp[0].before, 600e3, 20e3);   /* the levels, outliers left out */
        assert_near(cp[0].after, 300e3, 10e3);
        assert_near(harness_cp_step(&cp[0]), -0.5, 0.05);
        free(cp);
    }
}

/* The outliers are the spikes, never the runs either side of a step, nor a
 * level of three runs. */
static void test_outliers_marked(void **state)
{
    (void)state;
    double x[20];
    for (int i = 0; i < 20; i++)
        x[i] = (i < 10 ? 100.0 : 150.0) * (1.0 + 0.01 * gauss());
    x[4] = 3000;                   /* a spike */
    x[14] = x[15] = 900;           /* two runs together are still spikes */
    unsigned char flag[20];
    assert_int_equal(harness_cp_outliers(x, 20, flag), 3);
    for (int i = 0; i < 20; i++)
        assert_int_equal(flag[i], i == 4 || i == 14 || i == 15);
    x[14] = x[15] = x[16] = 900;   /* three: a level */
    assert_int_equal(harness_cp_outliers(x, 20, flag), 1);
    assert_int_equal(flag[4], 1);
}

/* A 0.14% shift in very quiet runs is significant but nobody acts on it:
 * --min-change (2% by default) drops it; 0 keeps it. */
static void test_min_change_drops_a_tiny_step(void **state)
{
    (void)state;
    double x[30];
    for (int i = 0; i < 30; i++)
        x[i] = (i < 15 ? 1e6 : 1.0014e6) * (1.0 + 0.0002 * gauss());
    harness_change_point *cp;
    size_t n;
    assert_int_equal(harness_changepoints(x, 30, &defaults, &cp, &n), 0);
    assert_int_equal(n, 0);
    harness_cp_options all = HARNESS_CP_DEFAULTS;
    all.min_change = 0;
    assert_int_equal(harness_changepoints(x, 30, &all, &cp, &n), 0);
    assert_int_equal(n, 1);
    assert_int_equal(cp[0].index, 15);
    assert_near(harness_cp_step(&cp[0]), 0.0014, 0.0005);
    free(cp);
    /* a 10% step beside the tiny one stays, with its neighbours measured again */
    for (int i = 0; i < 30; i++)
        x[i] = (i < 15 ? 1e6 : i < 22 ? 1.0014e6 : 1.1e6) * (1.0 + 0.0002 * gauss());
    assert_int_equal(harness_changepoints(x, 30, &defaults, &cp, &n), 0);
    assert_int_equal(n, 1);
    assert_int_equal(cp[0].index, 22);
    assert_near(cp[0].before, 1.0007e6, 1e3);   /* the median of runs 0..21: the tiny step merged */
    free(cp);
}

/* The seed fixes the permutations: the same series gives the same answer. */
static void test_deterministic(void **state)
{
    (void)state;
    double x[40];
    for (int i = 0; i < 40; i++)
        x[i] = (i < 20 ? 1000.0 : 1030.0) * (1.0 + 0.015 * gauss());
    harness_change_point *a, *b;
    size_t na, nb;
    assert_int_equal(harness_changepoints(x, 40, &defaults, &a, &na), 0);
    assert_int_equal(harness_changepoints(x, 40, &defaults, &b, &nb), 0);
    assert_int_equal(na, nb);
    for (size_t i = 0; i < na; i++) {
        assert_int_equal(a[i].index, b[i].index);
        assert_true(a[i].p == b[i].p);
    }
    free(a);
    free(b);
}

/* The goal: 30 runs, 1% noise; a 5% step at run 15 found (within one
 * run) in at least 19 of 20 series, and nothing in at least 19 of 20
 * without a step. */
static void test_five_percent_step(void **state)
{
    (void)state;
    int found = 0, quiet = 0;
    for (int t = 0; t < 20; t++) {
        double x[30], y[30];
        for (int i = 0; i < 30; i++) {
            x[i] = (i < 15 ? 1000.0 : 1050.0) * (1.0 + 0.01 * gauss());
            y[i] = 1000.0 * (1.0 + 0.01 * gauss());
        }
        harness_change_point *cp;
        size_t n;
        assert_int_equal(harness_changepoints(x, 30, &defaults, &cp, &n), 0);
        found += n == 1 && cp[0].index >= 14 && cp[0].index <= 16;
        free(cp);
        assert_int_equal(harness_changepoints(y, 30, &defaults, &cp, &n), 0);
        quiet += n == 0;
        free(cp);
    }
    printf("# 5%% step at 15 of 30: found in %d of 20; no step: nothing in %d of 20\n", found, quiet);
    assert_true(found >= 19);
    assert_true(quiet >= 19);
}

static void test_short_and_flat(void **state)
{
    (void)state;
    const double flat[10] = {5, 5, 5, 5, 5, 5, 5, 5, 5, 5};
    harness_change_point *cp;
    size_t n;
    assert_int_equal(harness_changepoints(flat, 10, &defaults, &cp, &n), 0);
    assert_int_equal(n, 0);
    assert_null(cp);
    assert_int_equal(harness_changepoints(flat, 4, &defaults, &cp, &n), 0);
    assert_int_equal(n, 0);
    assert_int_equal(harness_changepoints(NULL, 0, &defaults, &cp, &n), 0);
    assert_int_equal(n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_best_split_exact),
        cmocka_unit_test(test_one_step),
        cmocka_unit_test(test_two_steps),
        cmocka_unit_test(test_small_step_in_noise),
        cmocka_unit_test(test_noise),
        cmocka_unit_test(test_no_extra_change_points_between_steps),
        cmocka_unit_test(test_outliers_and_an_obvious_step),
        cmocka_unit_test(test_outliers_marked),
        cmocka_unit_test(test_min_change_drops_a_tiny_step),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_five_percent_step),
        cmocka_unit_test(test_short_and_flat),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
