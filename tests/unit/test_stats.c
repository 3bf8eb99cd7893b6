/* test_stats.c - harness/stats.c against values worked out by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "util/interference.h"
#include "util/stats.h"

#include "assert_near.h"

static void test_one_to_ten(void **state)
{
    (void)state;
    /* Given out of order: the input must be sorted internally and left alone. */
    const double x[10] = {7, 3, 10, 1, 5, 9, 2, 8, 4, 6};
    harness_stats s;
    assert_int_equal(harness_stats_compute(x, 10, &s), 0);
    assert_int_equal(x[0], 7);
    assert_int_equal(s.n, 10);
    assert_near(s.mean, 5.5, 1e-12);                 /* 55 / 10 */
    /* squared deviations from 5.5: 2 (4.5^2 + 3.5^2 + 2.5^2 + 1.5^2 + 0.5^2)
     * = 2 * 41.25 = 82.5; / (n - 1) = 9.1666..; sqrt = 3.0276503540974917 */
    assert_near(s.stddev, 3.0276503540974917, 1e-12);
    assert_near(s.cv, 3.0276503540974917 / 5.5, 1e-12);
    /* type 7: h = (n - 1) q = 9 q, value = x[floor h] + frac(h) * (next - x[floor h]),
     * and x[k] = k + 1 here, so every quantile is 1 + 9 q. */
    assert_near(s.min, 1, 0);
    assert_near(s.p5, 1.45, 1e-12);                  /* h = 0.45 */
    assert_near(s.p25, 3.25, 1e-12);                 /* h = 2.25 */
    assert_near(s.median, 5.5, 1e-12);               /* h = 4.5 */
    assert_near(s.p75, 7.75, 1e-12);                 /* h = 6.75 */
    assert_near(s.p90, 9.1, 1e-12);                  /* h = 8.1 */
    assert_near(s.p95, 9.55, 1e-12);                 /* h = 8.55 */
    assert_near(s.p99, 9.91, 1e-12);                 /* h = 8.91 */
    assert_near(s.max, 10, 0);
    assert_near(s.iqr, 4.5, 1e-12);
    /* fences 3.25 - 6.75 = -3.5 and 7.75 + 6.75 = 14.5: nothing outside */
    assert_int_equal(s.outliers, 0);
    /* n = 10: 0-based order statistics (1, 8), see test_ci_indices */
    assert_near(s.ci95_lo, 2, 0);
    assert_near(s.ci95_hi, 9, 0);
}

static void test_single_sample(void **state)
{
    (void)state;
    const double x[1] = {5};
    harness_stats s;
    assert_int_equal(harness_stats_compute(x, 1, &s), 0);
    assert_int_equal(s.n, 1);
    /* The sample stddev needs n >= 2; one sample reports no spread. */
    assert_near(s.mean, 5, 0);
    assert_near(s.stddev, 0, 0);
    assert_near(s.cv, 0, 0);
    assert_near(s.min, 5, 0);
    assert_near(s.p5, 5, 0);
    assert_near(s.median, 5, 0);
    assert_near(s.p99, 5, 0);
    assert_near(s.max, 5, 0);
    assert_near(s.iqr, 0, 0);
    assert_int_equal(s.outliers, 0);
    assert_near(s.ci95_lo, 5, 0);
    assert_near(s.ci95_hi, 5, 0);
}

static void test_all_equal(void **state)
{
    (void)state;
    const double x[4] = {2, 2, 2, 2};
    harness_stats s;
    assert_int_equal(harness_stats_compute(x, 4, &s), 0);
    /* Exactly 2 everywhere: interpolating between equal neighbours must not
     * round, and IQR = 0 makes both fences 2, which no sample lies outside. */
    assert_near(s.mean, 2, 0);
    assert_near(s.stddev, 0, 0);
    assert_near(s.cv, 0, 0);
    assert_near(s.p5, 2, 0);
    assert_near(s.p25, 2, 0);
    assert_near(s.median, 2, 0);
    assert_near(s.p75, 2, 0);
    assert_near(s.p95, 2, 0);
    assert_near(s.iqr, 0, 0);
    assert_int_equal(s.outliers, 0);
    /* n = 4 < 6: the widest pair, [min, max] */
    assert_near(s.ci95_lo, 2, 0);
    assert_near(s.ci95_hi, 2, 0);
}

static void test_outlier(void **state)
{
    (void)state;
    const double x[5] = {100, 3, 1, 4, 2};
    harness_stats s;
    assert_int_equal(harness_stats_compute(x, 5, &s), 0);
    assert_near(s.mean, 22, 1e-12);                  /* 110 / 5 */
    /* deviations -21 -20 -19 -18 78: squares 441 + 400 + 361 + 324 + 6084
     * = 7610; / 4 = 1902.5; sqrt = 43.617656975128774 */
    assert_near(s.stddev, 43.617656975128774, 1e-10);
    assert_near(s.cv, 43.617656975128774 / 22, 1e-12);
    /* sorted 1 2 3 4 100, h = 4 q */
    assert_near(s.p5, 1.2, 1e-12);                   /* h = 0.2: 1 + 0.2 * 1 */
    assert_near(s.p25, 2, 1e-12);                    /* h = 1 */
    assert_near(s.median, 3, 1e-12);                 /* h = 2 */
    assert_near(s.p75, 4, 1e-12);                    /* h = 3 */
    assert_near(s.p90, 61.6, 1e-10);                 /* h = 3.6: 4 + 0.6 * 96 */
    assert_near(s.p95, 80.8, 1e-10);                 /* h = 3.8: 4 + 0.8 * 96 */
    assert_near(s.p99, 96.16, 1e-10);                /* h = 3.96: 4 + 0.96 * 96 */
    assert_near(s.iqr, 2, 1e-12);
    /* fences 2 - 3 = -1 and 4 + 3 = 7: only 100 is outside */
    assert_int_equal(s.outliers, 1);
    /* n = 5 < 6: [min, max] */
    assert_near(s.ci95_lo, 1, 0);
    assert_near(s.ci95_hi, 100, 0);
}

static void test_empty(void **state)
{
    (void)state;
    harness_stats s;
    s.n = 99;
    s.median = 99;
    assert_int_equal(harness_stats_compute(NULL, 0, &s), 0);
    assert_int_equal(s.n, 0);
    assert_near(s.mean, 0, 0);
    assert_near(s.median, 0, 0);
    assert_near(s.ci95_hi, 0, 0);
    assert_near(harness_quantile_sorted(NULL, 0, 0.5), 0, 0);
}

static void test_quantile_edges(void **state)
{
    (void)state;
    const double x[3] = {10, 20, 40};
    assert_near(harness_quantile_sorted(x, 3, 0.0), 10, 0);
    assert_near(harness_quantile_sorted(x, 3, 1.0), 40, 0);
    assert_near(harness_quantile_sorted(x, 3, -1.0), 10, 0);   /* clamped */
    assert_near(harness_quantile_sorted(x, 3, 2.0), 40, 0);
    assert_near(harness_quantile_sorted(x, 3, 0.75), 30, 1e-12); /* h = 1.5 */
}

static void assert_ci(size_t n, size_t want_lo, size_t want_hi)
{
    size_t lo = 12345, hi = 12345;
    harness_median_ci_indices(n, &lo, &hi);
    if (lo != want_lo || hi != want_hi)
        fail_msg("n = %zu: (%zu, %zu), expected (%zu, %zu)", n, lo, hi, want_lo, want_hi);
}

/* With B ~ Binomial(n, 1/2) and F its cdf, the 1-based pair (j, n + 1 - j)
 * covers the median with probability 1 - 2 F(j - 1); the answer is the
 * largest j with F(j - 1) <= 0.025, reported 0-based as (j - 1, n - j). */
static void test_ci_indices(void **state)
{
    (void)state;
    assert_ci(0, 0, 0);
    assert_ci(1, 0, 0);
    /* n = 5: even j = 1 gives 1 - 2/32 = 0.9375 < 0.95, so no pair exists. */
    assert_ci(5, 0, 4);
    /* n = 6: F(0) = 1/64 = 0.0156 <= 0.025, F(1) = 7/64 = 0.109: j = 1,
     * coverage 1 - 2/64 = 0.96875. */
    assert_ci(6, 0, 5);
    /* n = 10: F(1) = (1 + 10)/1024 = 0.0107, F(2) = 56/1024 = 0.0547: j = 2,
     * coverage 1 - 22/1024 = 0.9785. */
    assert_ci(10, 1, 8);
    /* n = 20: C(20, i) = 1 20 190 1140 4845 15504 38760; F(5) = 21700/2^20
     * = 0.0207, F(6) = 60460/2^20 = 0.0577: j = 6, i.e. [x(6), x(15)],
     * coverage 0.9586 (the n = 20 row of the usual sign-test tables). */
    assert_ci(20, 5, 14);
    /* n = 100: F(39) = 0.01760, F(40) = 0.02844 (exact sums of C(100, i) / 2^100
     * with Python's big integers): j = 40, [x(40), x(61)], coverage 0.9648,
     * as in Conover's table of the sign-test CI. */
    assert_ci(100, 39, 60);
    /* n = 1e6 must be fast; the exact answer came from the same sum in Python
     * big integers: j = 499020 (normal approximation: 500000 - 1.96 * 500
     * = 499020). */
    assert_ci(1000000, 499019, 500980);
}

/* P(B <= k) for B ~ Binomial(n, 1/2), summed exactly in integers: C(n, i)
 * fits in 64 bits up to n = 62, and the division by 2^n is exact in a
 * long double for the n used here. This stands in for scipy's
 * binom.cdf(k, n, 0.5), which the test machines may not have. */
static long double exact_binom_cdf_half(unsigned n, unsigned k)
{
    uint64_t c = 1, sum = 0;
    for (unsigned i = 0; i <= k; i++) {
        sum += c;
        c = c * (n - i) / (i + 1);     /* C(n, i+1), exact: the product is divisible */
    }
    return (long double)sum / ldexpl(1.0L, (int)n);
}

/* The level the summaries print is the CI's exact coverage, not a nominal
 * 95%. The unit of replication is what was sampled: steps within a window,
 * or windows across a run (the windows' medians). */
static void test_ci_level_is_exact(void **state)
{
    (void)state;
    size_t lo, hi;
    assert_true(isnan(harness_median_ci(0, &lo, &hi)));
    assert_near(harness_median_ci(1, &lo, &hi), 0.0, 0);        /* one point misses the median surely */
    assert_near(harness_median_ci(2, &lo, &hi), 0.5, 1e-15);
    assert_near(harness_median_ci(3, &lo, &hi), 0.75, 1e-15);
    assert_near(harness_median_ci(5, &lo, &hi), 0.9375, 1e-15); /* 1 - 2/32: no 95% CI at n = 5 */
    assert_near(harness_median_ci(6, &lo, &hi), 0.96875, 1e-15);
    assert_near(harness_median_ci(10, &lo, &hi), 1.0 - 22.0 / 1024, 1e-15);
    for (unsigned n = 1; n <= 60; n++) {
        double level = harness_median_ci((size_t)n, &lo, &hi);
        double want = (double)(1.0L - 2.0L * exact_binom_cdf_half(n, (unsigned)lo));
        if (fabs(level - want) > 1e-12)
            fail_msg("n = %u: level %.15g, exact %.15g", n, level, want);
        if (n >= 6 && !(level >= 0.95))
            fail_msg("n = %u: level %.15g below 95%%", n, level);
    }
    /* Large n: close to 95% from above (Conover's table: 0.9648 at n = 100). */
    assert_near(harness_median_ci(100, &lo, &hi), 1.0 - 2 * 0.017600, 2e-5);
    double big = harness_median_ci(1000000, &lo, &hi);
    assert_true(big >= 0.95 && big < 0.951);
}

/* harness_stats_compute carries the level along with the interval. */
static void test_stats_carry_ci_level(void **state)
{
    (void)state;
    const double x[] = {5, 1, 4, 2, 3};
    harness_stats s;
    assert_int_equal(harness_stats_compute(x, 5, &s), 0);
    assert_near(s.ci_level, 0.9375, 1e-15);
    assert_near(s.ci95_lo, 1, 0);
    assert_near(s.ci95_hi, 5, 0);
}

/* The bound on how far `hits` preempted steps could have raised the
 * median: worked by hand on 1..100 (type-7 quantiles), then checked as a
 * property: over random runs with k steps inflated by a random delay, the
 * bound from k never falls short of the median's real rise. */
static void test_median_shift_bound(void **state)
{
    (void)state;
    double v[100], flat[100];
    for (int i = 0; i < 100; i++) {
        v[i] = 100 - i;            /* unsorted on purpose */
        flat[i] = 7;
    }
    assert_near(harness_median_shift_bound(v, 100, 0, 0), 0, 1e-12);
    /* 10 ranks below the median (rank 49.5 of 0..99) is rank 39.5: 40.5 */
    assert_near(harness_median_shift_bound(v, 100, 10, 0), (50.5 - 40.5) / 50.5, 1e-12);
    assert_near(harness_median_shift_bound(v, 100, 9.2, 0.03), (50.5 - 40.5) / 50.5 + 0.03, 1e-12);
    assert_near(harness_median_shift_bound(v, 100, 49, 0), (50.5 - 1.5) / 50.5, 1e-12);
    assert_near(harness_median_shift_bound(v, 100, 50, 0), 1, 0);     /* half hit: unbounded */
    assert_near(harness_median_shift_bound(flat, 100, 40, NAN), 0, 0); /* a spin: steady however often hit */
    assert_true(isnan(harness_median_shift_bound(v, 0, 1, 0)));

    uint64_t seed = 12345;
    for (int trial = 0; trial < 2000; trial++) {
        double clean[101], seen[101];
        size_t n = 21 + (size_t)(trial % 81), k = (size_t)trial % (n / 2);
        for (size_t i = 0; i < n; i++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            clean[i] = seen[i] = 1000.0 + (double)(seed >> 40) / (double)(1 << 24) * 50.0;
        }
        for (size_t j = 0; j < k; j++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            seen[(seed >> 33) % n] += (double)((seed >> 20) % 5000);   /* one step may be hit twice */
        }
        harness_stats a, b;
        assert_int_equal(harness_stats_compute(clean, n, &a), 0);
        assert_int_equal(harness_stats_compute(seen, n, &b), 0);
        double rise = 1 - a.median / b.median;
        assert_true(harness_median_shift_bound(seen, n, (double)k, 0) >= rise - 1e-12);
    }
}

/* Benjamini-Hochberg by hand (R's p.adjust(p, "BH") gives the same), ties
 * sharing a q, and the false discovery rate it keeps: 20 tests of which 19
 * are null (uniform p) and one a clear change, over 4000 simulated suites:
 * the mean share of false calls among the calls is at most alpha (BH's
 * bound is 19/20 alpha), and a suite shows any false call in under 10%
 * (unadjusted, 1 - 0.95^19 = 62% would). */
static void test_bh_adjust(void **state)
{
    (void)state;
    const double p[5] = {0.01, 0.04, 0.03, 0.005, 0.5};
    double q[5];
    assert_int_equal(harness_bh_adjust(p, 5, q), 0);
    const double want[5] = {0.025, 0.05, 0.05, 0.025, 0.5};
    for (int i = 0; i < 5; i++)
        assert_near(q[i], want[i], 1e-15);
    const double tied[3] = {0.02, 0.02, 0.02};
    assert_int_equal(harness_bh_adjust(tied, 3, q), 0);
    for (int i = 0; i < 3; i++)
        assert_near(q[i], 0.02, 1e-15);
    assert_int_equal(harness_bh_adjust(p, 0, q), 0);

    uint64_t seed = 99;
    int any_false = 0, found = 0;
    double fdr = 0;
    const int suites = 4000;
    for (int t = 0; t < suites; t++) {
        double ps[20], qs[20];
        for (int i = 0; i < 20; i++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            ps[i] = (double)(seed >> 11) / 9007199254740992.0;
        }
        ps[7] = 1e-4;              /* the real change */
        assert_int_equal(harness_bh_adjust(ps, 20, qs), 0);
        int false_calls = 0;
        for (int i = 0; i < 20; i++)
            false_calls += i != 7 && qs[i] <= 0.05;
        any_false += false_calls > 0;
        found += qs[7] <= 0.05;
        fdr += (double)false_calls / (false_calls + (qs[7] <= 0.05)) / suites;
    }
    printf("# BH: false discovery rate %.4f; a false call in %d of %d suites; the change found in %d\n", fdr,
           any_false, suites, found);
    assert_int_equal(found, suites);
    assert_true(fdr <= 0.05);
    assert_true(any_false < 0.10 * suites);
}

/* A clock held down: the bound is the share of the clock lost, only when a
 * slowing reason was seen; names of the slowing bits only. */
static void test_clock_shift_bound(void **state)
{
    (void)state;
    assert_near(harness_clock_shift_bound(1485, 1980, HARNESS_THROTTLE_SW_POWER_CAP), 0.25, 1e-12);
    assert_near(harness_clock_shift_bound(1485, 1980, 0x1 | 0x2), 0, 0);   /* idle, applications clocks */
    assert_near(harness_clock_shift_bound(1980, 1980, HARNESS_THROTTLE_HW_THERMAL), 0, 0);
    assert_near(harness_clock_shift_bound(NAN, NAN, HARNESS_THROTTLE_HW_THERMAL), 0, 0);
    char buf[128];
    assert_string_equal(harness_throttle_names(0x1 | 0x4 | 0x40, buf, sizeof buf), "sw_power_cap, hw_thermal");
    assert_string_equal(harness_throttle_names(0x1 | 0x2 | 0x10 | 0x100, buf, sizeof buf), "");
}

/* harness_median: the summary's median (quantile 0.5) of unsorted data,
 * which it leaves sorted; a NaN sorts last rather than breaking the sort. */
static void test_median_helper(void **state)
{
    (void)state;
    double odd[] = {5, 1, 3};
    assert_true(harness_median(odd, 3) == 3.0);
    assert_true(odd[0] == 1.0 && odd[1] == 3.0 && odd[2] == 5.0);
    double even[] = {4, 1, 3, 2};
    assert_true(harness_median(even, 4) == 2.5);
    double with_nan[] = {NAN, 2, 1, 3, 0};
    assert_true(harness_median(with_nan, 5) == 2.0);
    assert_true(with_nan[0] == 0.0 && isnan(with_nan[4]));
    assert_true(harness_median(NULL, 0) == 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_to_ten),
        cmocka_unit_test(test_median_helper),
        cmocka_unit_test(test_median_shift_bound),
        cmocka_unit_test(test_bh_adjust),
        cmocka_unit_test(test_clock_shift_bound),
        cmocka_unit_test(test_single_sample),
        cmocka_unit_test(test_all_equal),
        cmocka_unit_test(test_outlier),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_quantile_edges),
        cmocka_unit_test(test_ci_indices),
        cmocka_unit_test(test_ci_level_is_exact),
        cmocka_unit_test(test_stats_carry_ci_level),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
