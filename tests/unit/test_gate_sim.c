/* test_gate_sim.c - the gate's second-pass rules against simulation
 * (fixed seeds, nothing timed): processes that disagree are found, and
 * alike ones are not; identical code with bimodal processes is never
 * called a change and its interval covers 1 as often as it says; a
 * tail-only change is invisible to the median and called on the p90. */
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
#include "compare/metric.h"
#include "compare/process_spread.h"
#include "sim_rng.h"
#include "util/stats.h"

#include "assert_near.h"

static const harness_compare_options defaults = {0.05, 0.05, HARNESS_ON_AMBIGUOUS_FAIL, HARNESS_METRIC_MEDIAN};

/* P(X >= x) for the number of successes of trials with chances q: against
 * the binomial's tail (scipy.stats.binom.sf(x - 1, n, p)) and a hand count. */
static void test_poisson_binomial_tail(void **state)
{
    (void)state;
    double q[10];
    for (int i = 0; i < 10; i++)
        q[i] = 0.1;
    assert_near(harness_poisson_binomial_tail(q, 10, 3), 0.07019082639999998, 1e-12);
    assert_near(harness_poisson_binomial_tail(q, 10, 0), 1.0, 0);
    assert_near(harness_poisson_binomial_tail(q, 10, 11), 0.0, 0);
    const double r[3] = {0.5, 0.2, 0.1};
    /* P(X >= 2) = .5*.2*.9 + .5*.8*.1 + .5*.2*.1 + .5*.2*.1 */
    assert_near(harness_poisson_binomial_tail(r, 3, 2), 0.09 + 0.04 + 0.01 + 0.01, 1e-15);
}

/* A run of `windows` windows of `steps` steps at `level` with relative
 * noise `sd` per step; every `tail_every`-th step (0: none) 1.3x longer. */
static void make_run(harness_run_summary *r, double level, size_t windows, size_t steps, double sd,
                     size_t tail_every)
{
    memset(r, 0, sizeof *r);
    r->status = "ok";
    r->noise_bound = NAN;
    r->n_samples = windows * steps;
    r->samples = malloc(r->n_samples * sizeof *r->samples);
    r->window_medians = malloc(windows * sizeof *r->window_medians);
    r->window_start = malloc(windows * sizeof *r->window_start);
    r->window_len = malloc(windows * sizeof *r->window_len);
    assert_non_null(r->samples);
    for (size_t i = 0; i < r->n_samples; i++)
        r->samples[i] = level * (1.0 + sd * gauss()) * (tail_every && i % tail_every == 0 ? 1.3 : 1.0);
    for (size_t w = 0; w < windows; w++) {
        harness_stats st;
        r->window_start[w] = w * steps;
        r->window_len[w] = steps;
        assert_int_equal(harness_stats_compute(r->samples + w * steps, steps, &st), 0);
        r->window_medians[w] = st.median;
    }
    r->n_windows = windows;
    assert_int_equal(harness_stats_compute(r->samples, r->n_samples, &r->stats), 0);
}

static void free_run(harness_run_summary *r)
{
    free(r->samples);
    free(r->window_medians);
    free(r->window_start);
    free(r->window_len);
}

/* Ten rounds of two sides, each run a process whose level is `bimodal`
 * (relative) higher with probability 1/2; drift of 2% a round common to
 * both sides of the round. Returns the process spread of the rounds (each
 * round's two runs), and the rounds' medians into b[], c[]. */
static harness_process_spread rounds_of_processes(double bimodal, double *b, double *c)
{
    enum { N = 10 };
    harness_run_summary runs[2 * N];
    const harness_run_summary *ptr[2 * N];
    for (size_t i = 0; i < N; i++) {
        double drift = 1.0 + 0.02 * gauss();
        for (int side = 0; side < 2; side++) {
            double level = 1e5 * drift * (uniform01() < 0.5 ? 1.0 + bimodal : 1.0);
            make_run(&runs[side * N + i], level, 5, 30, 0.01, 0);
            ptr[side * N + i] = &runs[side * N + i];
        }
        b[i] = runs[i].stats.median;
        c[i] = runs[N + i].stats.median;
    }
    harness_process_spread sp;
    double ratio[N];
    for (size_t i = 0; i < N; i++)
        ratio[i] = c[i] / b[i];
    assert_int_equal(harness_process_spread_rounds(ptr, ptr + N, N, harness_median(ratio, N), HARNESS_METRIC_MEDIAN,
                                                   0.025, &sp), 0);
    for (size_t i = 0; i < 2 * N; i++)
        free_run(&runs[i]);
    return sp;
}

/* Alike processes: flagged at most about as often as the test's alpha;
 * bimodal ones (8% apart half the time): flagged in most gates of 10
 * rounds. Identical code either way: never REGRESSION or IMPROVEMENT
 * (the goal: at most 1 in 100), and the sign-test interval covers
 * the true median ratio 1 at least as often as its stated coverage. */
static void test_bimodal_processes(void **state)
{
    (void)state;
    enum { T = 400 };
    seed(21);
    size_t flagged[2] = {0}, called[2] = {0}, covered[2] = {0};
    double coverage = 1;
    for (int bimodal = 0; bimodal < 2; bimodal++)
        for (size_t t = 0; t < T; t++) {
            double b[10], c[10];
            harness_process_spread sp = rounds_of_processes(bimodal ? 0.08 : 0.0, b, c);
            flagged[bimodal] += sp.p < HARNESS_PROCESS_SPREAD_ALPHA;
            harness_compare_stats s;
            assert_int_equal(harness_compare_paired(b, c, 10, &defaults, &s), 0);
            s.processes_disagree = sp.p < HARNESS_PROCESS_SPREAD_ALPHA;
            harness_compare_decide(&s, &defaults, NULL, NULL);
            called[bimodal] += s.verdict == HARNESS_VERDICT_REGRESSION || s.verdict == HARNESS_VERDICT_IMPROVEMENT;
            covered[bimodal] += s.ratio_lo <= 1.0 && s.ratio_hi >= 1.0;
            coverage = s.coverage;
            if (bimodal && s.verdict == HARNESS_VERDICT_AMBIGUOUS && s.processes_disagree)
                assert_int_equal(s.cause, HARNESS_AMBIGUOUS_PROCESSES);
        }
    print_message("# alike: flagged %zu/%d, called %zu, covered %zu; bimodal 8%%: flagged %zu/%d, called %zu, "
                  "covered %zu (stated %.3f)\n", flagged[0], T, called[0], covered[0], flagged[1], T, called[1],
                  covered[1], coverage);
    assert_true(flagged[0] <= 3);                  /* alpha 0.001: 0.4 expected */
    assert_true(flagged[1] >= T * 8 / 10);
    assert_int_equal(called[0] + called[1], 0);
    for (int i = 0; i < 2; i++)
        assert_true((double)covered[i] / T >= coverage - 3 * sqrt(coverage * (1 - coverage) / T));
}

/* Every 5th step 1.3x slower: the median does not move, the p90 does.
 * On the median the paired rounds say SAME; on the p90, REGRESSION; and on
 * identical code the p90's interval covers 1 as often as it says. */
static void test_tail_only_change(void **state)
{
    (void)state;
    enum { T = 200, N = 10 };
    seed(5);
    size_t same = 0, caught = 0, covered = 0;
    double coverage = 1;
    for (size_t t = 0; t < T; t++) {
        double bm[N], cm[N], bp[N], cp[N], ip[N];
        for (size_t i = 0; i < N; i++) {
            double drift = 1.0 + 0.02 * gauss();
            harness_run_summary b, c, again;
            make_run(&b, 1e5 * drift, 5, 40, 0.005, 0);
            make_run(&c, 1e5 * drift, 5, 40, 0.005, 5);
            make_run(&again, 1e5 * drift, 5, 40, 0.005, 0);
            bm[i] = harness_run_metric(&b, HARNESS_METRIC_MEDIAN);
            cm[i] = harness_run_metric(&c, HARNESS_METRIC_MEDIAN);
            bp[i] = harness_run_metric(&b, HARNESS_METRIC_P90);
            cp[i] = harness_run_metric(&c, HARNESS_METRIC_P90);
            ip[i] = harness_run_metric(&again, HARNESS_METRIC_P90);
            free_run(&b);
            free_run(&c);
            free_run(&again);
        }
        harness_compare_stats s;
        assert_int_equal(harness_compare_paired(bm, cm, N, &defaults, &s), 0);
        harness_compare_decide(&s, &defaults, NULL, NULL);
        same += s.verdict == HARNESS_VERDICT_SAME;
        assert_int_equal(harness_compare_paired(bp, cp, N, &defaults, &s), 0);
        harness_compare_decide(&s, &defaults, NULL, NULL);
        caught += s.verdict == HARNESS_VERDICT_REGRESSION;
        assert_int_equal(harness_compare_paired(bp, ip, N, &defaults, &s), 0);
        covered += s.ratio_lo <= 1.0 && s.ratio_hi >= 1.0;
        coverage = s.coverage;
    }
    print_message("# tail-only +30%%: median SAME %zu/%d, p90 REGRESSION %zu/%d; identical p90 covered %zu/%d "
                  "(stated %.3f)\n", same, T, caught, T, covered, T, coverage);
    assert_true(same >= T * 95 / 100);
    assert_true(caught >= T * 95 / 100);
    assert_true((double)covered / T >= coverage - 3 * sqrt(coverage * (1 - coverage) / T));
}

/* The window metrics come from each window's slice of the samples. */
static void test_window_metrics(void **state)
{
    (void)state;
    harness_run_summary r;
    seed(3);
    make_run(&r, 1000, 3, 20, 0.01, 5);
    double v[3];
    assert_int_equal(harness_window_metrics(&r, HARNESS_METRIC_P90, v), 0);
    for (size_t w = 0; w < 3; w++) {
        harness_stats st;
        assert_int_equal(harness_stats_compute(r.samples + 20 * w, 20, &st), 0);
        assert_near(v[w], st.p90, 0);
        assert_true(v[w] > 1200);  /* every 5th step is 1.3x: the p90 sits among them */
    }
    assert_near(harness_run_metric(&r, HARNESS_METRIC_MEAN), r.stats.mean, 0);
    free_run(&r);
    harness_metric m;
    harness_error err = {0};
    assert_int_equal(harness_metric_parse("--metric", "p99", &m, &err), 0);
    assert_int_equal(m, HARNESS_METRIC_P99);
    assert_int_equal(harness_metric_parse("--metric", "p95", &m, &err), 2);
    assert_non_null(strstr(err.msg, "--metric: expected median, p90, p99, mean or energy, got 'p95'"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_poisson_binomial_tail),
        cmocka_unit_test(test_bimodal_processes),
        cmocka_unit_test(test_tail_only_change),
        cmocka_unit_test(test_window_metrics),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
