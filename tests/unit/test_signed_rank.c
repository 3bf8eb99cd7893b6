/* test_signed_rank.c - the paired statistics of `harness ab`
 * (harness/compare/signed_rank.c): the sign test, its interval and the
 * Wilcoxon signed-rank p against values computed once with scipy 1.17 and
 * exact fractions (pasted here: the tests need no scipy), and simulations
 * of what they are for - a coverage that holds in clean and skewed noise,
 * and verdicts that one wild round in ten does not change. Every simulation
 * draws from a fixed seed: nothing here depends on timing. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compare/compare.h"
#include "compare/signed_rank.h"

#include "assert_near.h"
#include "sim_rng.h"


/* base = 1000 ns, cand = 1000 exp(d): rounds whose log ratios are d. */
static void rounds_of(const double *d, size_t n, double *b, double *c)
{
    for (size_t i = 0; i < n; i++) {
        b[i] = 1000.0;
        c[i] = 1000.0 * exp(d[i]);
    }
}

/* ---- exact values ----------------------------------------------------------------- */

static void test_sign_test_cdf(void **state)
{
    (void)state;
    /* scipy.stats.binom.cdf(j, n, 0.5); the small ones are the fractions
     * sum(C(n, i), i <= j) / 2^n */
    assert_near(harness_sign_test_cdf(10, 0), 1.0 / 1024.0, 0);
    assert_near(harness_sign_test_cdf(10, 1), 11.0 / 1024.0, 0);
    assert_near(harness_sign_test_cdf(10, 2), 0.0546875, 0);
    assert_near(harness_sign_test_cdf(20, 5), 0.020694732666015625, 1e-15);
    assert_near(harness_sign_test_cdf(25, 7), 0.021642625331878662, 1e-15);
    assert_near(harness_sign_test_cdf(100, 40), 0.028443966820490444, 1e-13);
    assert_near(harness_sign_test_cdf(7, 7), 1.0, 0);
    /* beyond 1000 pairs, the continuity-corrected normal */
    assert_near(harness_sign_test_cdf(2000, 1000), 0.5089195055729272, 1e-4);
    assert_near(harness_sign_test_cdf(2000, 960), 0.038643445281334295, 1e-4);
}

/* The interval at alpha 0.05: the largest k with 1 - 2 P(B <= k - 1) >=
 * 0.95, and that coverage (exact fractions; scipy.stats.binom agrees). */
static void test_sign_interval_coverage_values(void **state)
{
    (void)state;
    static const struct {
        size_t n, k;
        double coverage;
    } want[] = {
        {2, 1, 0.5},           {5, 1, 0.9375},       {6, 1, 31.0 / 32.0},       {8, 1, 127.0 / 128.0},
        {9, 2, 123.0 / 128.0}, {10, 2, 501.0 / 512.0}, {12, 3, 1969.0 / 2048.0}, {15, 4, 247.0 / 256.0},
        {20, 6, 125647.0 / 131072.0}, {25, 8, 8025505.0 / 8388608.0}, {30, 10, 513906825.0 / 536870912.0},
        {50, 18, 0.9671608624357315},
    };
    for (size_t t = 0; t < sizeof want / sizeof want[0]; t++) {
        size_t n = want[t].n, k = want[t].k;
        double d[50], b[50], c[50];
        for (size_t i = 0; i < n; i++)   /* a shuffled 0.001, 0.002, ...: d_(j) = 0.001 j */
            d[i] = 0.001 * (double)((i * 7) % n + 1);
        rounds_of(d, n, b, c);
        harness_signed_rank r;
        assert_int_equal(harness_signed_rank_compute(b, c, n, 0.05, &r), 0);
        assert_int_equal(r.k, k);
        assert_near(r.coverage, want[t].coverage, 1e-14);
        assert_near(log(r.ratio_lo), 0.001 * (double)k, 1e-12);
        assert_near(log(r.ratio_hi), 0.001 * (double)(n + 1 - k), 1e-12);
        assert_near(log(r.ratio), 0.001 * (double)(n + 1) / 2.0, 1e-12);   /* the median */
    }
}

static void test_paired_values_match_scipy(void **state)
{
    (void)state;
    /* d = log(c) - log(b); scipy.stats.wilcoxon(d, method="exact"),
     * scipy.stats.binomtest(#positive, #nonzero).pvalue, exp(median(d)) */
    static const double b[] = {100, 101, 99, 102, 100.5, 100.2, 99.7, 101.1};
    static const double c[] = {104.2, 103.1, 103.5, 106.0, 103.9, 104.8, 102.2, 105.5};
    harness_signed_rank r;
    assert_int_equal(harness_signed_rank_compute(b, c, 8, 0.05, &r), 0);
    assert_near(r.w, 36, 0);
    assert_near(r.signed_rank_p, 0.0078125, 1e-15);
    assert_near(r.p, 0.0078125, 1e-15);            /* 8 of 8 slower */
    assert_near(r.min_p, 2.0 / 256.0, 1e-15);
    assert_near(r.ratio, 1.0406069119019146, 1e-12);
    /* 8 rounds: 1 - 2 P(B <= 1) = 93.0% < 95%, so k = 1, the range: 99.2% */
    assert_int_equal(r.k, 1);
    assert_near(r.coverage, 0.9921875, 1e-15);
    assert_near(1.0 - 2.0 * harness_signed_rank_cdf(8, 4), 0.9453125, 1e-15);
    assert_true(r.ratio_lo <= r.ratio && r.ratio <= r.ratio_hi && r.ratio_lo > 1.0);

    static const double b2[] = {100, 101, 99, 102, 100.5, 100.2, 99.7, 101.1, 100.4, 99.2};
    static const double c2[] = {100.3, 100.2, 99.9, 101.1, 101.4, 99.5, 100.0, 101.0, 100.9, 99.6};
    assert_int_equal(harness_signed_rank_compute(b2, c2, 10, 0.05, &r), 0);
    assert_near(r.w, 33, 0);                       /* scipy's statistic: min(W+, W-) = 22 of 55 */
    assert_near(r.signed_rank_p, 0.625, 1e-12);
    assert_int_equal(r.n_positive, 6);
    assert_near(r.p, 0.75390625, 1e-15);
    assert_near(r.ratio, 1.0030045135304666, 1e-12);
    assert_near(r.ratio_lo, 0.9920792079207915, 1e-12);   /* d_(2), d_(9) */
    assert_near(r.ratio_hi, 1.0089552238805972, 1e-12);
    assert_near(r.coverage, 501.0 / 512.0, 1e-15);
    /* five rounds can never reach 0.05 */
    assert_int_equal(harness_signed_rank_compute(b, c, 5, 0.05, &r), 0);
    assert_near(r.min_p, 0.0625, 1e-15);
    /* a cand exactly 10% slower in every round */
    double c3[8];
    for (int i = 0; i < 8; i++)
        c3[i] = 1.1 * b[i];
    assert_int_equal(harness_signed_rank_compute(b, c3, 8, 0.05, &r), 0);
    assert_near(r.ratio, 1.1, 1e-12);
    assert_near(harness_ab_rounds_needed(0.05, 1), 6, 0);
    assert_near(harness_ab_rounds_needed(0.01, 1), 8, 0);
    assert_near(harness_ab_rounds_needed(0.0625, 1), 5, 0);
    /* a lone change among m needs 2 / 2^n <= alpha / m: 2 / 512 <= 0.005, 2 / 2048 <= 0.05 / 26 */
    assert_near(harness_ab_rounds_needed(0.05, 10), 9, 0);
    assert_near(harness_ab_rounds_needed(0.05, 26), 11, 0);
}

/* Why the sign test decides: 9 rounds 7-9% slower and one round whose base
 * half a neighbour slowed (cand/base 0.61). The signed-rank test gives that
 * round the largest rank, against the change: p = 0.084 (scipy.stats.wilcoxon),
 * above 0.05, so the 8% slowdown would be AMBIGUOUS; the sign test counts
 * it as one round of ten: p = 0.0215 (binomtest(9, 10)), a REGRESSION. */
static void test_one_wild_round_against_the_change(void **state)
{
    (void)state;
    static const double d[] = {0.07, 0.08, 0.075, 0.085, 0.09, 0.078, 0.082, 0.071, 0.079, -0.5};
    double b[10], c[10];
    rounds_of(d, 10, b, c);
    harness_signed_rank r;
    assert_int_equal(harness_signed_rank_compute(b, c, 10, 0.05, &r), 0);
    assert_near(r.signed_rank_p, 0.083984375, 1e-12);
    assert_near(r.p, 0.021484375, 1e-15);
    assert_true(r.ratio_lo > 1.07 && r.ratio_hi < 1.09);
    const harness_compare_options o = {0.05, 0.05, HARNESS_ON_AMBIGUOUS_FAIL, HARNESS_METRIC_MEDIAN};
    harness_compare_stats s;
    assert_int_equal(harness_compare_paired(b, c, 10, &o, &s), 0);
    harness_compare_decide(&s, &o, NULL, NULL);
    assert_int_equal(s.verdict, HARNESS_VERDICT_REGRESSION);
}
static void test_signed_rank_with_ties_and_zeros(void **state)
{
    (void)state;
    harness_signed_rank r;
    /* Round 2 ran 2% faster and round 3 2% slower: equal |d| (the same two
     * logs subtracted), mid-ranked 2.5, so W = 25.5. p from scipy 1.17:
     *   scipy.stats.wilcoxon(d).pvalue, and the sign-flip enumeration
     *   scipy.stats.permutation_test((d,), w_plus, permutation_type="samples", n_resamples=np.inf)
     * with w_plus(x) = rankdata(|x[x != 0]|)[x[x != 0] > 0].sum(): both 0.0625
     * (flooring W had given 0.0469). */
    static const double b1[] = {1000, 1020, 1000, 1000, 1000, 1000, 1000};
    static const double c1[] = {1010, 1000, 1020, 1030, 1040, 1050, 1060};
    assert_int_equal(harness_signed_rank_compute(b1, c1, 7, 0.05, &r), 0);
    assert_near(r.w, 25.5, 0);
    assert_near(r.signed_rank_p, 0.0625, 1e-12);
    assert_near(r.p, 0.125, 1e-15);                /* sign test: 6 of 7 slower */

    /* a zero (dropped) and ties of one sign; both as above: 0.078125 */
    static const double b2[] = {1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000};
    static const double c2[] = {1000, 1010, 990, 1010, 1020, 1020, 1030, 1040};
    assert_int_equal(harness_signed_rank_compute(b2, c2, 8, 0.05, &r), 0);
    assert_int_equal(r.n_zero, 1);
    assert_near(r.signed_rank_p, 0.078125, 1e-12);
    assert_near(r.p, 0.125, 1e-15);                /* 6 of the 7 nonzero slower */
    assert_near(r.min_p, 2.0 / 128.0, 1e-15);

    /* 60 rounds, two tie groups: beyond the exact table, the normal
     * approximation with the tie-corrected variance sum(r^2) / 4:
     * scipy.stats.wilcoxon(d, method="approx", correction=True).pvalue */
    double b3[60], c3[60];
    for (int i = 0; i < 60; i++) {
        double lo = 1000, hi = i < 42 ? 1010 : 1020;
        int slower = i < 30 || (i >= 42 && i < 57);
        b3[i] = slower ? lo : hi;
        c3[i] = slower ? hi : lo;
    }
    assert_int_equal(harness_signed_rank_compute(b3, c3, 60, 0.05, &r), 0);
    assert_near(r.w, 1417.5, 0);
    assert_near(r.signed_rank_p, 0.0001069265691834405, 1e-12);
    assert_near(r.p, 0.00013451408092849532, 1e-15);   /* binomtest(45, 60): still exact */

    /* Six rounds, one with no difference: five count, and five can reach
     * 2 / 2^5 = 0.0625 at best (scipy.stats.wilcoxon(d).pvalue: 0.0625),
     * so at alpha 0.05 the verdict says too few rounds, not a p of 0.03. */
    static const double b4[] = {1000, 1000, 1000, 1000, 1000, 1000};
    static const double c4[] = {1000, 1010, 1020, 1030, 1040, 1050};
    assert_int_equal(harness_signed_rank_compute(b4, c4, 6, 0.05, &r), 0);
    assert_near(r.min_p, 0.0625, 1e-15);
    assert_near(r.signed_rank_p, 0.0625, 1e-12);
    assert_near(r.p, 0.0625, 1e-15);
    const harness_compare_options o = {0.01, 0.05, HARNESS_ON_AMBIGUOUS_FAIL, HARNESS_METRIC_MEDIAN};
    harness_compare_stats s;
    assert_int_equal(harness_compare_paired(b4, c4, 6, &o, &s), 0);
    harness_compare_decide(&s, &o, NULL, NULL);
    assert_int_equal(s.verdict, HARNESS_VERDICT_AMBIGUOUS);
    assert_non_null(strstr(s.why, "too few rounds: 6 paired rounds, of which 1 with no difference (dropped)"));
    assert_non_null(strstr(s.why, "6 rounds with a difference are needed (--rounds 7 or more)"));
}

/* Why rounds: the machine drifts 3% from round to round (a random walk),
 * within a round base and cand see the same state. The paired test keeps
 * its size and sees a 2% slowdown; the same numbers treated as two
 * independent groups (two separate sets of runs) do not see it. */
static void test_paired_rounds_under_drift(void **state)
{
    (void)state;
    enum { ROUNDS = 10, T = 400 };
    const harness_compare_options o = {0.01, 0.05, HARNESS_ON_AMBIGUOUS_FAIL, HARNESS_METRIC_MEDIAN};
    seed(1);
    double fp_paired = 0, power_paired = 0, power_groups = 0;
    for (int t = 0; t < T; t++) {
        double b[ROUNDS], c[ROUNDS], c2[ROUNDS], level = 100000;
        for (int i = 0; i < ROUNDS; i++) {
            level *= 1.0 + 0.03 * gauss();
            b[i] = level * (1.0 + 0.005 * gauss());
            c[i] = level * (1.0 + 0.005 * gauss());
            c2[i] = 1.02 * level * (1.0 + 0.005 * gauss());
        }
        harness_compare_stats s;
        assert_int_equal(harness_compare_paired(b, c, ROUNDS, &o, &s), 0);
        fp_paired += s.p <= 0.05;
        assert_int_equal(harness_compare_paired(b, c2, ROUNDS, &o, &s), 0);
        power_paired += s.p <= 0.05;
        assert_int_equal(harness_compare_replicates(b, ROUNDS, c2, ROUNDS, &o, &s), 0);
        power_groups += s.p <= 0.05;
    }
    fp_paired /= T;
    power_paired /= T;
    power_groups /= T;
    printf("# drift 3%%/round: paired false positives %.3f; 2%% slowdown seen: paired %.3f, as two groups %.3f\n",
           fp_paired, power_paired, power_groups);
    assert_true(fp_paired <= 0.05 + 3 * sqrt(0.05 * 0.95 / T));
    assert_true(power_paired > 0.9);
    assert_true(power_groups < 0.5);
}


/* ---- simulations ------------------------------------------------------------------ */

/* Coverage of the true median (0) by the interval over T draws of n
 * rounds of noise: normal (skewed = 0) or exponential, shifted to median 0.
 * The stated coverage holds for any continuous noise, skewed or not. */
static void check_coverage(size_t n, int skewed, size_t T)
{
    double d[64], b[64], c[64], covered = 0, stated = NAN;
    for (size_t t = 0; t < T; t++) {
        for (size_t i = 0; i < n; i++)
            d[i] = 0.01 * (skewed ? -log(uniform01()) - M_LN2 : gauss());
        rounds_of(d, n, b, c);
        harness_signed_rank r;
        assert_int_equal(harness_signed_rank_compute(b, c, n, 0.05, &r), 0);
        covered += r.ratio_lo <= 1.0 && 1.0 <= r.ratio_hi;
        stated = r.coverage;
    }
    covered /= (double)T;
    double mc = sqrt(stated * (1 - stated) / (double)T);
    printf("# %2zu rounds, %s noise: covered %.4f, stated %.4f (Monte Carlo sd %.4f)\n", n,
           skewed ? "exponential" : "normal", covered, stated, mc);
    assert_true(fabs(covered - stated) <= 3.5 * mc);
}

static void test_interval_coverage_simulated(void **state)
{
    (void)state;
    seed(7);
    static const size_t ns[] = {6, 9, 10, 15, 30};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        check_coverage(ns[i], 0, 4000);
        check_coverage(ns[i], 1, 4000);
    }
}

typedef struct tally {
    double verdict[HARNESS_VERDICT_COUNT];
    double within;                 /* the interval inside 1 +- threshold */
    double signed_rank_sig;        /* the Wilcoxon p <= alpha, for contrast */
} tally;

/* T gates of 10 rounds: log noise N(0, sd) around log(ratio), one round
 * (at random) replaced by a wild one, off by 14-180% either way (a
 * neighbour's burst in either half), when wild. Threshold 5%, alpha 0.05. */
static tally simulate_gates(double ratio, double sd, int wild, size_t T)
{
    enum { N = 10 };
    const harness_compare_options o = {0.05, 0.05, HARNESS_ON_AMBIGUOUS_FAIL, HARNESS_METRIC_MEDIAN};
    tally k;
    memset(&k, 0, sizeof k);
    for (size_t t = 0; t < T; t++) {
        double d[N], b[N], c[N];
        for (size_t i = 0; i < N; i++)
            d[i] = log(ratio) + sd * gauss();
        if (wild) {
            size_t at = (size_t)(uniform01() * N);
            double off = log(1.14 + 1.66 * uniform01());
            d[at] = log(ratio) + (uniform01() < 0.5 ? off : -off);
        }
        rounds_of(d, N, b, c);
        harness_compare_stats s;
        assert_int_equal(harness_compare_paired(b, c, N, &o, &s), 0);
        harness_compare_decide(&s, &o, NULL, NULL);
        k.verdict[s.verdict] += 1.0 / (double)T;
        k.within += (s.ratio_lo >= 0.95 && s.ratio_hi <= 1.05) / (double)T;
        k.signed_rank_sig += (s.signed_rank_p <= 0.05) / (double)T;
    }
    return k;
}

static void print_tally(const char *what, const tally *k)
{
    printf("# %s: REGRESSION %.3f, IMPROVEMENT %.3f, SAME %.3f, AMBIGUOUS %.3f; interval within 5%% %.3f; "
           "signed-rank p <= 0.05 %.3f\n", what, k->verdict[HARNESS_VERDICT_REGRESSION],
           k->verdict[HARNESS_VERDICT_IMPROVEMENT], k->verdict[HARNESS_VERDICT_SAME],
           k->verdict[HARNESS_VERDICT_AMBIGUOUS], k->within, k->signed_rank_sig);
}

/* Identical code, 10 rounds of 1% noise, one wild round in every gate: the
 * interval stays within 5% (Tukey's left it in none: every Walsh average
 * of the wild round lies beyond 5%), so the gate says SAME. */
static void test_identical_code_with_a_wild_round(void **state)
{
    (void)state;
    enum { T = 2000 };
    seed(11);
    tally k = simulate_gates(1.0, 0.01, 1, T);
    print_tally("identical, 1% noise, one wild round", &k);
    double tol = 3 * sqrt(0.05 * 0.95 / T);
    assert_true(k.within >= 0.95);
    assert_true(k.verdict[HARNESS_VERDICT_AMBIGUOUS] <= 0.05);
    assert_true(k.verdict[HARNESS_VERDICT_REGRESSION] + k.verdict[HARNESS_VERDICT_IMPROVEMENT] <= 0.05 + tol);
    /* and without the wild round, in twice the noise */
    k = simulate_gates(1.0, 0.02, 0, T);
    print_tally("identical, 2% noise", &k);
    assert_true(k.verdict[HARNESS_VERDICT_AMBIGUOUS] <= 0.05);
    assert_true(k.verdict[HARNESS_VERDICT_REGRESSION] + k.verdict[HARNESS_VERDICT_IMPROVEMENT] <= 0.05 + tol);
}

/* An 8% slowdown, threshold 5%, 10 rounds, with a wild round in every gate
 * (half of them against the change, where the signed-rank test loses it)
 * and without. The verdict needs the interval's lower end (the second
 * smallest of ten ratios) above 1.05: in 1% noise that is nearly always
 * so; in 2-3% the end dips below 1.05 often and the gate says AMBIGUOUS
 * (unresolved), never SAME or IMPROVEMENT. A 10% slowdown in 2% noise is
 * called. */
static void test_slowdown_with_a_wild_round(void **state)
{
    (void)state;
    enum { T = 2000 };
    seed(13);
    static const double sds[] = {0.01, 0.02, 0.03};
    for (size_t i = 0; i < 3; i++) {
        for (int wild = 0; wild < 2; wild++) {
            tally k = simulate_gates(1.08, sds[i], wild, T);
            char what[96];
            snprintf(what, sizeof what, "8%% slower, %g%% noise%s", sds[i] * 100, wild ? ", one wild round" : "");
            print_tally(what, &k);
            if (i == 0)
                assert_true(k.verdict[HARNESS_VERDICT_REGRESSION] >= 0.95);
            assert_true(k.verdict[HARNESS_VERDICT_SAME] + k.verdict[HARNESS_VERDICT_IMPROVEMENT] == 0);
        }
    }
    for (int wild = 0; wild < 2; wild++) {
        tally k = simulate_gates(1.10, 0.02, wild, T);
        print_tally(wild ? "10% slower, 2% noise, one wild round" : "10% slower, 2% noise", &k);
        assert_true(k.verdict[HARNESS_VERDICT_REGRESSION] >= 0.95);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sign_test_cdf),
        cmocka_unit_test(test_sign_interval_coverage_values),
        cmocka_unit_test(test_paired_values_match_scipy),
        cmocka_unit_test(test_one_wild_round_against_the_change),
        cmocka_unit_test(test_signed_rank_with_ties_and_zeros),
        cmocka_unit_test(test_paired_rounds_under_drift),
        cmocka_unit_test(test_interval_coverage_simulated),
        cmocka_unit_test(test_identical_code_with_a_wild_round),
        cmocka_unit_test(test_slowdown_with_a_wild_round),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
