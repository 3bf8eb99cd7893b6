/* test_changepoint.c - harness/compare/changepoint.c: E-divisive means on
 * series with known steps (found where they are, with their size) and on
 * pure noise (a change point in about alpha of the series, no more); runs
 * with interference set aside by their noise bound (what the bound adds
 * over the outlier test, against the same series without bounds). */
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

static double uniform(double lo, double hi)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return lo + (hi - lo) * ((double)(rng >> 11) / (double)(1ULL << 53));
}

/* A history of 30 runs as a loaded machine leaves it: 1% noise, a 5% step
 * at run 15, quiet runs with the bounds a shared 2-core machine gives
 * (0-1.8%, measured with bench/work_build.c), and the runs in loaded[]
 * 30-180% above their level, each with the bound such a rise implies
 * (a median raised r times was raised by 1 - 1/r of itself) or more.
 * Consecutive loaded runs are one stretch of the same load, which raises
 * each of them alike (a median that became a preempted step's time). */
static void loaded_series(double *x, double *bound, const int *loaded, size_t n_loaded)
{
    for (int i = 0; i < 30; i++) {
        x[i] = (i < 15 ? 1000.0 : 1050.0) * (1.0 + 0.01 * gauss());
        bound[i] = uniform(0, 0.018);
    }
    double r = 1;
    for (size_t k = 0; k < n_loaded; k++) {
        if (k == 0 || loaded[k] != loaded[k - 1] + 1)
            r = uniform(1.3, 2.8);
        x[loaded[k]] *= r;
        bound[loaded[k]] = fmin(1.0, 1.0 - 1.0 / r + uniform(0, 0.05));
    }
}

/* Right: the step alone, within one run of 15 (none at the loaded runs). */
static int step_alone(const harness_change_point *cp, size_t n)
{
    return n == 1 && cp[0].index >= 14 && cp[0].index <= 16;
}

/* Load that lasts three runs (22-24, as a CI job beside ours does) and one
 * loaded run (5). To the outlier test three runs are a level, not a spike,
 * so without the bounds they stay in the search, where the energy of three
 * runs at 1.3-2.8x swamps the 5% step: the best split lands at the loaded
 * stretch, fails its test, and the search stops with the step lost (in
 * every series here). With the bounds the loaded runs are set aside and
 * the step alone is found, in every series. */
static void test_interference_stretch(void **state)
{
    (void)state;
    const int loaded[] = {5, 22, 23, 24};
    int with = 0, without = 0, lost = 0;
    for (int t = 0; t < 20; t++) {
        double x[30], bound[30];
        loaded_series(x, bound, loaded, 4);
        harness_change_point *cp;
        size_t n;
        unsigned char why[30];
        assert_int_equal(harness_changepoints_noisy(x, bound, 30, &defaults, &cp, &n, why), 0);
        with += step_alone(cp, n);
        for (int i = 0; i < 30; i++)
            assert_int_equal(why[i] == HARNESS_CP_INTERFERENCE, i == 5 || (i >= 22 && i <= 24));
        free(cp);
        assert_int_equal(harness_changepoints(x, 30, &defaults, &cp, &n), 0);
        without += step_alone(cp, n);
        int near = 0;
        for (size_t i = 0; i < n; i++)
            near |= cp[i].index >= 14 && cp[i].index <= 16;
        lost += !near;
        free(cp);
    }
    printf("# 5%% step + load at 5 and 22-24: the step alone found in %d of 20 with the bounds, %d without (the step "
           "lost in %d)\n", with, without, lost);
    assert_int_equal(with, 20);
    assert_true(without <= 2);
    assert_true(lost >= 18);
}

/* Load that stays from run 23 to the end (a neighbour's job that never
 * finished): without the bounds that is a level, and history blames commit
 * 23 for the machine's +30-180%; with them the runs are set aside and the
 * step alone is found. */
static void test_interference_to_the_end(void **state)
{
    (void)state;
    const int loaded[] = {23, 24, 25, 26, 27, 28, 29};
    int with = 0, blamed = 0;
    for (int t = 0; t < 20; t++) {
        double x[30], bound[30];
        loaded_series(x, bound, loaded, 7);
        harness_change_point *cp;
        size_t n;
        assert_int_equal(harness_changepoints_noisy(x, bound, 30, &defaults, &cp, &n, NULL), 0);
        with += step_alone(cp, n);
        free(cp);
        assert_int_equal(harness_changepoints(x, 30, &defaults, &cp, &n), 0);
        for (size_t i = 0; i < n; i++)
            blamed += cp[i].index == 23 && harness_cp_step(&cp[i]) > 0.25;
        free(cp);
    }
    printf("# 5%% step + load from 23 on: the step alone found in %d of 20 with the bounds; without them a change "
           "point of +25%% or more at 23 in %d\n", with, blamed);
    assert_int_equal(with, 20);
    assert_true(blamed >= 18);
}

/* The series: load at runs 5 and 23 only. Single spikes of 30-180%
 * are what the outlier test already catches, so here the bounds change the
 * answer little; what they add is the cause: the runs are marked as
 * interference (the report names the evidence) rather than as outliers.
 * A run with a bound that sits at the level stays: its value shows the
 * interference did not raise it by a step worth reporting. */
static void test_interference_spikes(void **state)
{
    (void)state;
    const int loaded[] = {5, 23};
    int with = 0, without = 0, outliers = 0;
    for (int t = 0; t < 20; t++) {
        double x[30], bound[30];
        loaded_series(x, bound, loaded, 2);
        x[9] = 1000.0;             /* loaded, yet at the level: kept */
        bound[9] = 0.5;
        harness_change_point *cp;
        size_t n;
        unsigned char why[30];
        assert_int_equal(harness_changepoints_noisy(x, bound, 30, &defaults, &cp, &n, why), 0);
        with += step_alone(cp, n);
        assert_int_equal(why[5], HARNESS_CP_INTERFERENCE);
        assert_int_equal(why[23], HARNESS_CP_INTERFERENCE);
        assert_int_equal(why[9], HARNESS_CP_KEPT);
        free(cp);
        assert_int_equal(harness_changepoints_noisy(x, NULL, 30, &defaults, &cp, &n, why), 0);
        without += step_alone(cp, n);
        outliers += why[5] == HARNESS_CP_OUTLIER && why[23] == HARNESS_CP_OUTLIER && why[9] == HARNESS_CP_KEPT;
        free(cp);
    }
    printf("# 5%% step + load at 5 and 23: the step alone found in %d of 20 with the bounds, %d without (the "
           "loaded runs outliers in %d)\n", with, without, outliers);
    assert_true(with >= 19);
    assert_true(without >= 19);
    assert_true(outliers >= 19);
}

/* The rule at its edge: a run 10% up is set aside when its bound reaches
 * the smallest step reported, not when it is just under it or unknown;
 * --min-change sets the limit, and 0 (every step) falls back to the
 * default 2%. A run with the largest bound stays when it sits within the
 * limit of the level, and goes when it sits beyond. */
static void test_noise_limit(void **state)
{
    (void)state;
    harness_cp_options o = HARNESS_CP_DEFAULTS;
    assert_near(harness_cp_noise_limit(&o), 0.02, 1e-15);
    o.min_change = 0.05;
    assert_near(harness_cp_noise_limit(&o), 0.05, 1e-15);
    o.min_change = 0;
    assert_near(harness_cp_noise_limit(&o), HARNESS_CP_DEFAULT_MIN_CHANGE, 1e-15);
    double x[14], bound[14];
    for (int i = 0; i < 14; i++) {
        x[i] = 100.0 * (1.0 + 0.001 * gauss());
        bound[i] = i % 2 ? 0.005 : NAN;
    }
    x[2] *= 1.1, bound[2] = 0.02;
    x[4] *= 1.1, bound[4] = 0.0199;
    x[6] *= 1.1, bound[6] = 1.0;
    x[8] *= 1.1, bound[8] = NAN;
    x[10] *= 1.01, bound[10] = 1.0;   /* 1% up: within the limit */
    x[12] *= 1.03, bound[12] = 1.0;   /* 3% up: beyond it */
    unsigned char why[14];
    harness_change_point *cp;
    size_t n;
    assert_int_equal(harness_changepoints_noisy(x, bound, 14, &defaults, &cp, &n, why), 0);
    for (int i = 0; i < 14; i++)
        assert_int_equal(why[i] == HARNESS_CP_INTERFERENCE, i == 2 || i == 6 || i == 12);
    o = defaults;
    o.min_change = 0.05;           /* --min-change 5: neither 2% nor a 3% rise makes a 5% step */
    assert_int_equal(harness_changepoints_noisy(x, bound, 14, &o, &cp, &n, why), 0);
    for (int i = 0; i < 14; i++)
        assert_int_equal(why[i] == HARNESS_CP_INTERFERENCE, i == 6);
}

/* A machine busy all along, as a shared 2-core CI runner is: two runs in
 * three carry a bound of 100% (half their steps preempted at least once)
 * while their medians stay within 0-1.5% of the level (measured with
 * bench/history_figures.sh). The bound alone cannot tell them apart, so
 * only the few that the noise puts 2% above the unbounded runs around
 * them go, and the step is found as often as without the bounds; with
 * every run bounded the lowest runs nearby stand for the level, and again
 * only the runs 2% above them go. */
static void test_busy_all_along(void **state)
{
    (void)state;
    int found = 0, found_without = 0, aside = 0, found_all = 0, aside_all = 0;
    for (int t = 0; t < 20; t++) {
        double x[30], bound[30];
        for (int i = 0; i < 30; i++) {
            int busy = i % 3 != 0;
            x[i] = (i < 15 ? 1000.0 : 1050.0) * (1.0 + 0.01 * gauss()) * (busy ? 1.0 + uniform(0, 0.015) : 1.0);
            bound[i] = busy ? 1.0 : uniform(0, 0.018);
        }
        harness_change_point *cp;
        size_t n;
        unsigned char why[30];
        assert_int_equal(harness_changepoints_noisy(x, bound, 30, &defaults, &cp, &n, why), 0);
        found += step_alone(cp, n);
        free(cp);
        for (int i = 0; i < 30; i++)
            aside += why[i] == HARNESS_CP_INTERFERENCE;
        assert_int_equal(harness_changepoints(x, 30, &defaults, &cp, &n), 0);
        found_without += step_alone(cp, n);
        free(cp);
        for (int i = 0; i < 30; i++)
            bound[i] = 1.0;
        assert_int_equal(harness_changepoints_noisy(x, bound, 30, &defaults, &cp, &n, why), 0);
        found_all += step_alone(cp, n);
        for (int i = 0; i < 30; i++)
            aside_all += why[i] == HARNESS_CP_INTERFERENCE;
        free(cp);
    }
    printf("# busy all along: the step alone found in %d of 20 (%d without the bounds); %d of 400 busy runs set "
           "aside; every run bounded: found in %d, %d of 600 set aside\n", found, found_without, aside, found_all,
           aside_all);
    assert_true(found >= 18 && found >= found_without - 1);
    assert_true(aside <= 60);      /* the ones 2% up, not the 400 the bound alone would take */
    assert_true(found_all >= 18 && found_all >= found_without - 1);
    assert_true(aside_all <= 90);  /* against the lowest nearby runs: those 2% above it, not all 600 */
}

/* Unknown bounds change nothing: the same change points as without. */
static void test_unknown_bounds(void **state)
{
    (void)state;
    double x[40], bound[40];
    for (int i = 0; i < 40; i++) {
        x[i] = (i < 20 ? 1000.0 : 1040.0) * (1.0 + 0.01 * gauss());
        bound[i] = NAN;
    }
    x[7] = 5000;
    harness_change_point *a, *b;
    size_t na, nb;
    unsigned char why[40];
    assert_int_equal(harness_changepoints(x, 40, &defaults, &a, &na), 0);
    assert_int_equal(harness_changepoints_noisy(x, bound, 40, &defaults, &b, &nb, why), 0);
    assert_int_equal(na, nb);
    for (size_t i = 0; i < na; i++)
        assert_true(a[i].index == b[i].index && a[i].p == b[i].p && a[i].before == b[i].before);
    for (int i = 0; i < 40; i++)
        assert_int_equal(why[i], i == 7 ? HARNESS_CP_OUTLIER : HARNESS_CP_KEPT);
    free(a);
    free(b);
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
        cmocka_unit_test(test_interference_stretch),
        cmocka_unit_test(test_interference_to_the_end),
        cmocka_unit_test(test_interference_spikes),
        cmocka_unit_test(test_noise_limit),
        cmocka_unit_test(test_busy_all_along),
        cmocka_unit_test(test_unknown_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
