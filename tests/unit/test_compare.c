/* test_compare.c - harness/compare.c: verdicts on synthetic samples, the
 * ratio's CI, matching runs by key and config, and bad summaries. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "compare/compare.h"
#include "compare/printer.h"

#include "assert_near.h"

static const harness_compare_options defaults = {HARNESS_COMPARE_DEFAULT_THRESHOLD, HARNESS_COMPARE_DEFAULT_ALPHA,
                                                 HARNESS_ON_AMBIGUOUS_FAIL, HARNESS_METRIC_MEDIAN};

/* c's report in a --format (the text unstyled); malloc'ed. */
static char *report(const harness_comparison *c, const char *format)
{
    const harness_printer *p = harness_printer_find(format, HARNESS_RECORD_COMPARISON);
    assert_non_null(p);
    return harness_print_comparison(p, c, NULL);
}

/* Deterministic noise in [-1, 1): a 64-bit LCG's top bits. */
static double noise(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / (double)(1ULL << 52) - 1.0;
}

/* n samples around `center` with relative jitter `rel`. */
static double *samples(size_t n, double center, double rel, uint64_t seed)
{
    double *x = malloc(n * sizeof *x);
    assert_non_null(x);
    for (size_t i = 0; i < n; i++)
        x[i] = center * (1.0 + rel * noise(&seed));
    return x;
}

static harness_compare_stats compare(const double *b, size_t nb, const double *c, size_t nc,
                                     const harness_compare_options *o)
{
    harness_compare_stats s;
    assert_int_equal(harness_compare_replicates(b, nb, c, nc, o, &s), 0);
    return s;
}

/* ---- verdicts on replicates ------------------------------------------------------ */

static void test_identical_is_same(void **state)
{
    (void)state;
    double *a = samples(8, 50000, 0.01, 1);
    harness_compare_stats s = compare(a, 8, a, 8, &defaults);
    assert_near(s.ratio, 1.0, 1e-12);
    assert_near(s.p, 1.0, 1e-12);
    assert_int_equal(s.verdict, HARNESS_VERDICT_SAME);
    assert_true(s.ratio_lo <= 1.0 && s.ratio_hi >= 1.0);
    assert_true(s.ratio_lo >= 0.95 && s.ratio_hi <= 1.05);
    assert_string_equal(s.why, "");
    free(a);
}

static void test_slower_by_20pct_is_regression(void **state)
{
    (void)state;
    double *a = samples(6, 50000, 0.02, 1), *b = samples(6, 60000, 0.02, 2);
    harness_compare_stats s = compare(a, 6, b, 6, &defaults);
    assert_near(s.ratio, 1.2, 0.03);
    assert_near(s.p, 2.0 / 924.0, 1e-12);      /* complete separation: 2 / C(12, 6) */
    assert_int_equal(s.verdict, HARNESS_VERDICT_REGRESSION);
    assert_true(s.ratio_lo > 1.05 && s.ratio_lo <= s.ratio && s.ratio <= s.ratio_hi);
    free(a);
    free(b);
}

static void test_faster_by_20pct_is_improvement(void **state)
{
    (void)state;
    double *a = samples(6, 50000, 0.02, 1), *b = samples(6, 40000, 0.02, 3);
    harness_compare_stats s = compare(a, 6, b, 6, &defaults);
    assert_near(s.ratio, 0.8, 0.02);
    assert_int_equal(s.verdict, HARNESS_VERDICT_IMPROVEMENT);
    free(a);
    free(b);
}

/* Significant but small, the interval inside the band: SAME; under a 2%
 * threshold the same replicates are a regression. */
static void test_small_shift_under_threshold(void **state)
{
    (void)state;
    double *a = samples(8, 50000, 0.001, 1), *b = samples(8, 51500, 0.001, 4);
    harness_compare_stats s = compare(a, 8, b, 8, &defaults);
    assert_near(s.ratio, 1.03, 0.003);
    assert_true(s.p < 0.001);
    assert_int_equal(s.verdict, HARNESS_VERDICT_SAME);
    harness_compare_options tight = {0.02, 0.05, HARNESS_ON_AMBIGUOUS_FAIL, HARNESS_METRIC_MEDIAN};
    assert_int_equal(compare(a, 8, b, 8, &tight).verdict, HARNESS_VERDICT_REGRESSION);
    free(a);
    free(b);
}

/* Big but not significant: windows drowned in noise. The interval reaches
 * past the threshold, so the answer is "cannot tell", not "no change". */
static void test_large_shift_in_noise_is_ambiguous(void **state)
{
    (void)state;
    const double a[5] = {20000, 90000, 40000, 70000, 50000};
    const double b[5] = {30000, 100000, 60000, 85000, 25000};
    harness_compare_stats s = compare(a, 5, b, 5, &defaults);
    assert_false(s.p < 0.05);
    assert_int_equal(s.verdict, HARNESS_VERDICT_AMBIGUOUS);
    assert_non_null(strstr(s.why, "reaches across the threshold"));
    assert_int_equal(s.cause, HARNESS_AMBIGUOUS_UNRESOLVED);
}

/* asv's check: 3 windows against 3 can reach p = 0.1 at best, so at alpha
 * 0.05 even a 2x slowdown is AMBIGUOUS, and the message says how many. */
static void test_too_few_replicates(void **state)
{
    (void)state;
    const double a[3] = {100, 101, 99}, b[3] = {200, 202, 198};
    harness_compare_stats s = compare(a, 3, b, 3, &defaults);
    assert_near(s.min_p, 0.1, 1e-12);
    assert_int_equal(s.verdict, HARNESS_VERDICT_AMBIGUOUS);
    assert_non_null(strstr(s.why, "too few replicates"));
    assert_non_null(strstr(s.why, "4 or more"));
    /* at alpha 0.1 the same three are enough */
    harness_compare_options loose = {0.05, 0.1, HARNESS_ON_AMBIGUOUS_FAIL, HARNESS_METRIC_MEDIAN};
    assert_int_equal(compare(a, 3, b, 3, &loose).verdict, HARNESS_VERDICT_REGRESSION);
    /* Within the threshold, 3 runs a side are SAME: their widest interval
     * covers 90% = 1 - 2 alpha, the test of equivalence at alpha (issue 40);
     * 2 a side (66.7%) are too few, and the advice is the runs that work. */
    const double c3[3] = {100, 100.4, 99.8}, d3[3] = {100.1, 100.3, 99.9};
    harness_compare_stats same = compare(c3, 3, d3, 3, &defaults);
    assert_near(same.coverage, 0.9, 1e-12);
    assert_int_equal(same.verdict, HARNESS_VERDICT_SAME);
    harness_compare_stats two = compare(c3, 2, d3, 2, &defaults);
    assert_int_equal(two.verdict, HARNESS_VERDICT_AMBIGUOUS);
    assert_int_equal(two.cause, HARNESS_AMBIGUOUS_TOO_FEW);
    assert_non_null(strstr(two.why, "covers 66.7%, and SAME needs 90%"));
    assert_non_null(strstr(two.why, "harness run --runs 4: p down to 0.0286, a 97.1% interval"));
    /* one window a side (repeat: 1) never decides */
    assert_int_equal(compare(a, 1, b, 1, &defaults).verdict, HARNESS_VERDICT_AMBIGUOUS);
    /* no replicate at all */
    harness_compare_stats e = compare(NULL, 0, b, 3, &defaults);
    assert_int_equal(e.verdict, HARNESS_VERDICT_AMBIGUOUS);
    assert_true(isnan(e.ratio) && isnan(e.p));
}

static harness_compare_stats decided(double ratio, double lo, double hi, double p, const harness_side_noise *bnoise,
                                     const harness_side_noise *cnoise)
{
    harness_compare_stats s;
    memset(&s, 0, sizeof s);
    s.unit = "runs";
    s.n_base = s.n_cand = 5;
    s.min_p = 2.0 / 252.0;
    s.ratio = ratio;
    s.ratio_lo = lo;
    s.ratio_hi = hi;
    s.coverage = 0.968;
    s.p = p;
    harness_compare_decide(&s, &defaults, bnoise, cnoise);
    return s;
}

static void test_decide_edges(void **state)
{
    (void)state;
    /* the interval decides: its lower end above 1 + 5%, and p <= alpha */
    assert_int_equal(decided(1.08, 1.06, 1.10, 0.01, NULL, NULL).verdict, HARNESS_VERDICT_REGRESSION);
    assert_int_equal(decided(1.08, 1.06, 1.10, 0.05, NULL, NULL).verdict, HARNESS_VERDICT_REGRESSION); /* p <= alpha */
    harness_compare_stats s = decided(1.06, 0.99, 1.10, 0.06, NULL, NULL);
    assert_int_equal(s.verdict, HARNESS_VERDICT_AMBIGUOUS);
    assert_int_equal(s.cause, HARNESS_AMBIGUOUS_UNRESOLVED);
    /* a significant change whose point is beyond the threshold but whose
     * interval is not: AMBIGUOUS (the old rule called it a REGRESSION) */
    s = decided(1.06, 1.04, 1.08, 0.01, NULL, NULL);
    assert_int_equal(s.verdict, HARNESS_VERDICT_AMBIGUOUS);
    assert_int_equal(s.cause, HARNESS_AMBIGUOUS_UNRESOLVED);
    assert_non_null(strstr(s.why, "reaches across the threshold 1 + 5%"));
    assert_int_equal(decided(1.04, 1.02, 1.06, 0.01, NULL, NULL).verdict, HARNESS_VERDICT_AMBIGUOUS);
    assert_int_equal(decided(1.04, 1.02, 1.05, 0.01, NULL, NULL).verdict, HARNESS_VERDICT_SAME);
    assert_int_equal(decided(0.92, 0.90, 0.94, 0.01, NULL, NULL).verdict, HARNESS_VERDICT_IMPROVEMENT);
    assert_int_equal(decided(0.94, 0.92, 0.96, 0.01, NULL, NULL).verdict, HARNESS_VERDICT_AMBIGUOUS);
    assert_int_equal(decided(1.00, 0.97, 1.03, 0.90, NULL, NULL).verdict, HARNESS_VERDICT_SAME);
    s = decided(NAN, NAN, NAN, NAN, NULL, NULL);
    assert_int_equal(s.verdict, HARNESS_VERDICT_AMBIGUOUS);
    assert_int_equal(s.cause, HARNESS_AMBIGUOUS_NO_REPLICATES);
    assert_int_equal(decided(INFINITY, 2, INFINITY, 0.01, NULL, NULL).verdict, HARNESS_VERDICT_REGRESSION);
    /* Windows as replicates: a change is AMBIGUOUS (single runs), SAME stands. */
    harness_compare_stats w = decided(1.71, 1.6, 1.8, 0.008, NULL, NULL);
    w.unit = "windows";
    harness_compare_decide(&w, &defaults, NULL, NULL);
    assert_int_equal(w.verdict, HARNESS_VERDICT_AMBIGUOUS);
    assert_int_equal(w.cause, HARNESS_AMBIGUOUS_SINGLE_RUNS);
    assert_non_null(strstr(w.why, "each side is one run"));
    assert_null(strstr(w.why, "schedule.repeat"));   /* more windows would not help */
    w = decided(1.0, 0.99, 1.01, 0.8, NULL, NULL);
    w.unit = "runs/windows";
    harness_compare_decide(&w, &defaults, NULL, NULL);
    assert_int_equal(w.verdict, HARNESS_VERDICT_SAME);
    w = decided(1.2, 1.1, 1.3, 0.8, NULL, NULL);
    w.unit = "runs/windows";   /* --baseline-db: many base runs, one cand run */
    harness_compare_decide(&w, &defaults, NULL, NULL);
    assert_non_null(strstr(w.why, "the cand is one run"));
    /* Interference vetoes a change only when it could account for it: the
     * interval's lower end 1.095 with the cand raised by up to 4% is still
     * above 1.05; by up to 6% it is not. */
    harness_side_noise some = {0.04, "40 switches"}, much = {0.06, "60 switches"}, all = {1, "every step"};
    assert_int_equal(decided(1.10, 1.095, 1.12, 0.008, NULL, &some).verdict, HARNESS_VERDICT_REGRESSION);
    s = decided(1.10, 1.095, 1.12, 0.008, NULL, &much);
    assert_int_equal(s.verdict, HARNESS_VERDICT_AMBIGUOUS);
    assert_int_equal(s.cause, HARNESS_AMBIGUOUS_INTERFERENCE);
    assert_non_null(strstr(s.why, "interference could account for the +10.0% change"));
    assert_non_null(strstr(s.why, "60 switches"));
    /* the base's interference cannot fake a slowdown, nor the cand's a speedup */
    assert_int_equal(decided(1.10, 1.08, 1.12, 0.008, &all, NULL).verdict, HARNESS_VERDICT_REGRESSION);
    assert_int_equal(decided(0.80, 0.78, 0.82, 0.008, NULL, &all).verdict, HARNESS_VERDICT_IMPROVEMENT);
    /* 0.82 / (1 - 0.1) = 0.91 < 0.95 stands; / (1 - 0.2) = 1.03 does not */
    harness_side_noise base10 = {0.1, "b"}, base20 = {0.2, "b"};
    assert_int_equal(decided(0.80, 0.78, 0.82, 0.008, &base10, NULL).verdict, HARNESS_VERDICT_IMPROVEMENT);
    assert_int_equal(decided(0.80, 0.78, 0.82, 0.008, &base20, NULL).verdict, HARNESS_VERDICT_AMBIGUOUS);
    assert_int_equal(decided(1.10, 1.08, 1.12, 0.008, NULL, &all).verdict, HARNESS_VERDICT_AMBIGUOUS);
    /* a measured SAME stands whatever the interference */
    assert_int_equal(decided(1.0, 0.99, 1.01, 0.8, &all, &all).verdict, HARNESS_VERDICT_SAME);
    assert_string_equal(harness_verdict_label(HARNESS_VERDICT_AMBIGUOUS), "AMBIGUOUS");
    assert_string_equal(harness_verdict_token(HARNESS_VERDICT_SAME), "same");
    assert_string_equal(harness_ambiguity_token(HARNESS_AMBIGUOUS_TOO_FEW), "too_few_replicates");
}

/* An interval across the threshold names one cause: interference when at
 * least as many replicates were busy as the interval's ends withstand,
 * else processes that disagree, else unresolved; a long step on a loaded
 * machine adds what would give power. */
static void test_ambiguous_causes(void **state)
{
    (void)state;
    harness_compare_stats s;
    memset(&s, 0, sizeof s);
    s.unit = "rounds";
    s.n_base = s.n_cand = 10;
    s.min_p = 2.0 / 1024.0;
    s.ratio = 1.05;
    s.ratio_lo = 0.98;
    s.ratio_hi = 1.2;
    s.coverage = 0.979;
    s.p = 0.3;
    s.k_robust = 2;
    s.n_busy = 1;                  /* one busy round moves neither end */
    harness_compare_decide(&s, &defaults, NULL, NULL);
    assert_int_equal(s.cause, HARNESS_AMBIGUOUS_UNRESOLVED);
    s.processes_disagree = 1;
    harness_compare_decide(&s, &defaults, NULL, NULL);
    assert_int_equal(s.cause, HARNESS_AMBIGUOUS_PROCESSES);
    s.n_busy = 2;
    harness_compare_decide(&s, &defaults, NULL, NULL);
    assert_int_equal(s.cause, HARNESS_AMBIGUOUS_INTERFERENCE);
    assert_non_null(strstr(s.why, "2 of 10 rounds had interference"));
    assert_null(strstr(s.why, "scheduler tick"));
    s.step_ns = 20e6;
    harness_compare_decide(&s, &defaults, NULL, NULL);
    assert_non_null(strstr(s.why, "steps of 20.0 ms outlast the scheduler tick"));
    /* a lone change in a suite whose rounds cannot reach alpha / m */
    memset(&s, 0, sizeof s);
    s.unit = "rounds";
    s.n_base = s.n_cand = 8;
    s.min_p = 2.0 / 256.0;
    s.ratio = s.ratio_lo = s.ratio_hi = 1.1;
    s.coverage = 0.93;
    s.p = s.min_p;
    s.fdr_m = 10;
    s.q = 10 * s.min_p;
    harness_compare_decide(&s, &defaults, NULL, NULL);
    assert_int_equal(s.verdict, HARNESS_VERDICT_AMBIGUOUS);
    assert_int_equal(s.cause, HARNESS_AMBIGUOUS_TOO_FEW);
    assert_non_null(strstr(s.why, "a lone change needs p <= alpha / 10 = 0.005"));
    /* enough rounds to reach it, but not significant after adjusting */
    s.n_base = s.n_cand = 12;
    s.min_p = 2.0 / 4096.0;
    s.p = 0.006;
    s.q = 0.06;
    harness_compare_decide(&s, &defaults, NULL, NULL);
    assert_int_equal(s.cause, HARNESS_AMBIGUOUS_UNRESOLVED);
    s.q = 0.04;
    harness_compare_decide(&s, &defaults, NULL, NULL);
    assert_int_equal(s.verdict, HARNESS_VERDICT_REGRESSION);
}

static void test_zero_replicate(void **state)
{
    (void)state;
    const double zero[3] = {0, 0, 0}, one[3] = {1, 1, 1};
    harness_compare_stats s;
    assert_int_equal(harness_compare_replicates(zero, 3, one, 3, &defaults, &s), -2);
}

/* ---- summaries ---------------------------------------------------------------- */

/* A summary's text: samples center * (1 + 0.01 noise), five windows that
 * split them (compare recomputes a window's median from its samples, so the
 * median written here is a decoy), and summary_extra's members when not
 * NULL. */
static const char *summary_extra;
static int disagree;               /* timing.across_windows.windows_disagree of the next summary */
static char *summary_text(const char *key, const char *config, int rank, int world, const char *status,
                          double center, size_t n, uint64_t seed)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    fprintf(f, "{\"schema\": \"harness.summary/1\", \"status\": \"%s\", \"error\": null, \"rank\": %d, "
            "\"world_size\": %d, \"component\": {\"variant_key\": \"%s\", \"config\": %s}, "
            "\"device\": {\"name\": \"cpu\"}, \"validation\": {\"status\": \"skipped\", \"passed\": null}, "
            "\"timing\": {\"unit\": \"ns\", \"samples\": [",
            status, rank, world, key, config);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s%.17g", i ? ", " : "", center * (1.0 + 0.01 * noise(&seed)));
    fputs("], \"windows\": [", f);
    for (size_t w = 0; w < 5; w++)
        fprintf(f, "%s{\"n\": %zu, \"first_sample\": %zu, \"median\": 1}", w ? ", " : "",
                w < 4 ? n / 5 : n - 4 * (n / 5), w * (n / 5));
    fprintf(f, "], \"across_windows\": {\"windows_disagree\": %s}}%s%s}", disagree ? "true" : "false",
            summary_extra ? ", " : "", summary_extra ? summary_extra : "");
    assert_int_equal(fclose(f), 0);
    return buf;
}

static void add_run(harness_compare_side *side, const char *path, const char *key, const char *config, int rank,
                    const char *status, double center)
{
    static uint64_t seed = 42;
    char *text = summary_text(key, config, rank, 2, status, center, 40, seed++);
    harness_run_summary r;
    harness_error err = {0};
    if (harness_run_summary_parse(path, text, strlen(text), &r, &err) != 0)
        fail_msg("%s", err.msg);
    free(text);
    assert_int_equal(harness_compare_side_add(side, &r, &err), 0);
    assert_null(r.path);           /* moved */
}

static void test_parse_summary(void **state)
{
    (void)state;
    char *text = summary_text("spin/cpu", "{\"duration_ns\": 50000, \"mode\": \"busy\"}", 1, 2, "ok", 100, 10, 7);
    harness_run_summary r;
    harness_error err = {0};
    assert_int_equal(harness_run_summary_parse("exp/a/summary_ranks_2_rank_1.json", text, strlen(text), &r, &err), 0);
    assert_string_equal(r.folder, "exp/a");
    assert_string_equal(r.variant_key, "spin/cpu");
    assert_string_equal(r.config_text, "duration_ns=50000, mode=busy");
    assert_string_equal(r.status, "ok");
    assert_int_equal(r.rank, 1);
    assert_int_equal(r.world_size, 2);
    assert_int_equal(r.n_samples, 10);
    assert_int_equal(r.stats.n, 10);
    assert_false(r.validation_failed);
    assert_null(r.error);
    harness_run_summary_free(&r);
    free(text);
}

/* Matching: key and config must agree, config order does not matter, rank
 * pairs with rank; what is on one side only is unmatched. */
static void test_matching(void **state)
{
    (void)state;
    harness_compare_side base = {.is_parent = 1}, cand = {.is_parent = 1};
    add_run(&base, "b/2026-01-01__00-00-00_aaaa/summary_ranks_2_rank_0.json", "rms_norm/cpu",
            "{\"hidden_size\": 4096, \"dtype\": \"fp32\"}", 0, "ok", 1000);
    add_run(&base, "b/2026-01-01__00-00-00_aaaa/summary_ranks_2_rank_1.json", "rms_norm/cpu",
            "{\"hidden_size\": 4096, \"dtype\": \"fp32\"}", 1, "ok", 1000);
    add_run(&base, "b/2026-01-01__00-00-01_bbbb/summary_ranks_2_rank_0.json", "rms_norm/cpu",
            "{\"hidden_size\": 4096, \"dtype\": \"bf16\"}", 0, "ok", 700);
    add_run(&base, "b/2026-01-01__00-00-02_cccc/summary_ranks_2_rank_0.json", "spin/cpu",
            "{\"duration_ns\": 1000}", 0, "ok", 1000);
    /* cand: the same fp32 runs with the config keys in another order, rank 1 slower;
     * the bf16 one with another config; a variant base lacks. */
    add_run(&cand, "c/2026-02-01__00-00-00_aaaa/summary_ranks_2_rank_1.json", "rms_norm/cpu",
            "{\"dtype\": \"fp32\", \"hidden_size\": 4096}", 1, "ok", 1500);
    add_run(&cand, "c/2026-02-01__00-00-00_aaaa/summary_ranks_2_rank_0.json", "rms_norm/cpu",
            "{\"dtype\": \"fp32\", \"hidden_size\": 4096}", 0, "ok", 1000);
    add_run(&cand, "c/2026-02-01__00-00-01_dddd/summary_ranks_2_rank_0.json", "rms_norm/cpu",
            "{\"hidden_size\": 8192, \"dtype\": \"bf16\"}", 0, "ok", 700);
    add_run(&cand, "c/2026-02-01__00-00-02_cccc/summary_ranks_2_rank_0.json", "spin/cpu",
            "{\"duration_ns\": 1000}", 0, "ok", 700);
    add_run(&cand, "c/2026-02-01__00-00-03_eeee/summary_ranks_2_rank_0.json", "noop/cpu", "{}", 0, "ok", 10);

    harness_comparison c;
    harness_error err = {0};
    assert_int_equal(harness_compare_sides(&base, &cand, &defaults, &c, &err), 0);
    assert_null(base.runs);        /* moved */
    assert_false(c.by_rank);
    assert_int_equal(c.n_pairs, 3);
    /* sorted by variant, config, rank */
    assert_string_equal(c.pairs[0].base->config_text, "hidden_size=4096, dtype=fp32");
    assert_int_equal(c.pairs[0].base->rank, 0);
    assert_int_equal(c.pairs[0].cand->rank, 0);
    assert_int_equal(c.pairs[0].s.verdict, HARNESS_VERDICT_SAME);
    assert_string_equal(c.pairs[0].s.unit, "windows");
    assert_int_equal(c.pairs[0].s.n_base, 5);
    assert_int_equal(c.pairs[1].base->rank, 1);
    assert_int_equal(c.pairs[1].cand->rank, 1);
    /* one run a side: a change is never more than AMBIGUOUS */
    assert_int_equal(c.pairs[1].s.verdict, HARNESS_VERDICT_AMBIGUOUS);
    assert_non_null(strstr(c.pairs[1].s.why, "each side is one run"));
    assert_int_equal(c.pairs[1].s.cause, HARNESS_AMBIGUOUS_SINGLE_RUNS);
    assert_string_equal(c.pairs[2].base->variant_key, "spin/cpu");
    assert_int_equal(c.pairs[2].s.verdict, HARNESS_VERDICT_AMBIGUOUS);
    assert_non_null(strstr(c.pairs[2].s.why, "beyond 1 - 5%"));
    assert_int_equal(c.n_unmatched_base, 1);
    assert_string_equal(c.unmatched_base[0]->config_text, "hidden_size=4096, dtype=bf16");
    assert_int_equal(c.n_unmatched_cand, 2);
    assert_int_equal(c.counts[HARNESS_VERDICT_AMBIGUOUS], 2);
    assert_int_equal(c.overall, HARNESS_VERDICT_AMBIGUOUS);
    assert_int_equal(harness_comparison_exit_code(&c), 1);

    /* Every format renders; the JSON parses and says the same. */
    char *text = report(&c, "text");
    assert_non_null(strstr(text, "AMBIGUOUS"));
    assert_non_null(strstr(text, "unmatched (cand only): noop/cpu"));
    free(text);
    char *md = report(&c, "markdown");
    assert_true(strncmp(md, "**harness compare: AMBIGUOUS (single runs)**", 44) == 0);
    assert_non_null(strstr(md, "| **AMBIGUOUS** | `rms_norm/cpu` |"));
    free(md);
    char *json = report(&c, "json");
    cJSON *j = cJSON_Parse(json);
    assert_non_null(j);
    assert_string_equal(cJSON_GetObjectItem(j, "verdict")->valuestring, "ambiguous");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "pairs")), 3);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "unmatched")), 3);
    cJSON *p1 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "pairs"), 1);
    assert_near(cJSON_GetObjectItem(p1, "ratio")->valuedouble, 1.5, 0.02);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(p1, "ratio_interval")), 2);
    assert_near(cJSON_GetObjectItem(p1, "ratio_interval_coverage")->valuedouble, 0.9682539682539683, 1e-12);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(p1, "replicates"), "unit")->valuestring, "windows");
    assert_string_equal(cJSON_GetObjectItem(p1, "ambiguous_cause")->valuestring, "single_runs");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(p1, "p")));
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(p1, "tail"), "metric")->valuestring, "p90");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "pairs"), 0),
                                                 "ambiguous_cause")));
    assert_string_equal(cJSON_GetObjectItem(j, "metric")->valuestring, "median");
    assert_near(cJSON_GetObjectItem(j, "threshold_pct")->valuedouble, 5, 1e-12);
    cJSON_Delete(j);
    free(json);
    harness_comparison_free(&c);
}

/* Several runs of one key: the newest folder ("-10" after "-2") is shown,
 * and the runs' medians are the side's replicates, with a note. */
static void test_newest_duplicate(void **state)
{
    (void)state;
    harness_compare_side base = {.is_parent = 1}, cand = {.is_parent = 1};
    add_run(&base, "b/2026-01-01__00-00-00_aaaa-10/summary_ranks_2_rank_0.json", "spin/cpu", "{}", 0, "ok", 1000);
    add_run(&base, "b/2026-01-01__00-00-00_aaaa-2/summary_ranks_2_rank_0.json", "spin/cpu", "{}", 0, "ok", 1010);
    add_run(&base, "b/2025-12-31__23-59-59_aaaa/summary_ranks_2_rank_0.json", "spin/cpu", "{}", 0, "ok", 990);
    add_run(&cand, "c/x/summary_ranks_2_rank_0.json", "spin/cpu", "{}", 0, "ok", 1000);
    harness_comparison c;
    harness_error err = {0};
    assert_int_equal(harness_compare_sides(&base, &cand, &defaults, &c, &err), 0);
    assert_int_equal(c.n_pairs, 1);
    assert_string_equal(c.pairs[0].base->folder, "b/2026-01-01__00-00-00_aaaa-10");
    assert_string_equal(c.pairs[0].s.unit, "runs/windows");
    assert_int_equal(c.pairs[0].s.n_base, 3);
    assert_int_equal(c.pairs[0].s.n_cand, 5);
    assert_int_equal(c.pairs[0].s.verdict, HARNESS_VERDICT_SAME);
    assert_int_equal(c.n_unmatched_base, 0);
    assert_int_equal(c.n_notes, 2);
    assert_non_null(strstr(c.notes[0], "3 runs of spin/cpu"));
    assert_non_null(strstr(c.notes[1], "replicates are runs/windows"));
    harness_comparison_free(&c);
}

/* Five runs a side, the candidate 10% slower: the runs are the unit. */
static void test_runs_as_replicates(void **state)
{
    (void)state;
    harness_compare_side base = {.is_parent = 1}, cand = {.is_parent = 1};
    char path[128];
    for (int i = 0; i < 5; i++) {
        snprintf(path, sizeof path, "b/2026-01-0%d__00-00-00_aaaa/summary_ranks_2_rank_0.json", i + 1);
        add_run(&base, path, "spin/cpu", "{}", 0, "ok", 1000 + 5 * i);
        snprintf(path, sizeof path, "c/2026-02-0%d__00-00-00_aaaa/summary_ranks_2_rank_0.json", i + 1);
        add_run(&cand, path, "spin/cpu", "{}", 0, "ok", 1100 + 5 * i);
    }
    harness_comparison c;
    harness_error err = {0};
    assert_int_equal(harness_compare_sides(&base, &cand, &defaults, &c, &err), 0);
    assert_int_equal(c.n_pairs, 1);
    assert_string_equal(c.pairs[0].s.unit, "runs");
    assert_int_equal(c.pairs[0].s.n_base, 5);
    assert_near(c.pairs[0].s.ratio, 1.1, 0.02);
    assert_int_equal(c.pairs[0].s.verdict, HARNESS_VERDICT_REGRESSION);
    assert_int_equal(harness_comparison_exit_code(&c), 1);
    harness_comparison_free(&c);
}

/* A load warning alone vetoes nothing: the 50% slowdown between runs is
 * REGRESSION however busy the machine was said to be. Interference that
 * could have raised the candidate's median by 45% makes it AMBIGUOUS,
 * naming the evidence, and --on-ambiguous decides the exit code. */
static void test_interference_that_explains_a_change_is_ambiguous(void **state)
{
    (void)state;
    harness_compare_side base = {0}, cand = {0};
    char path[64];
    for (int i = 0; i < 5; i++) {
        snprintf(path, sizeof path, "b%d/summary_ranks_2_rank_0.json", i);
        add_run(&base, path, "spin/cpu", "{}", 0, "ok", 1000);
        summary_extra = "\"warnings\": [\"oversubscribed: load average 2.10 from other work\"], "
                        "\"noise\": {\"median_shift_bound\": 0.02, \"evidence\": \"few switches\"}";
        snprintf(path, sizeof path, "c%d/summary_ranks_2_rank_0.json", i);
        add_run(&cand, path, "spin/cpu", "{}", 0, "ok", 1500);
        summary_extra = NULL;
    }
    harness_comparison c;
    harness_error err = {0};
    assert_int_equal(harness_compare_sides(&base, &cand, &defaults, &c, &err), 0);
    assert_int_equal(c.pairs[0].s.verdict, HARNESS_VERDICT_REGRESSION);
    harness_comparison_free(&c);

    memset(&base, 0, sizeof base);
    memset(&cand, 0, sizeof cand);
    for (int i = 0; i < 5; i++) {
        snprintf(path, sizeof path, "b%d/summary_ranks_2_rank_0.json", i);
        add_run(&base, path, "spin/cpu", "{}", 0, "ok", 1000);
        summary_extra = i == 1 ? "\"noise\": {\"median_shift_bound\": 0.5, \"evidence\": \"950 involuntary\"}"
                      : i < 3  ? "\"noise\": {\"median_shift_bound\": 0.45, \"evidence\": \"900 involuntary\"}"
                               : "\"noise\": {\"median_shift_bound\": 0.6, \"evidence\": \"990 involuntary\"}";
        snprintf(path, sizeof path, "c%d/summary_ranks_2_rank_0.json", i);
        add_run(&cand, path, "spin/cpu", "{}", 0, "ok", 1500);
        summary_extra = NULL;
    }
    assert_int_equal(harness_compare_sides(&base, &cand, &defaults, &c, &err), 0);
    assert_int_equal(c.pairs[0].s.verdict, HARNESS_VERDICT_AMBIGUOUS);
    /* bounds 0.45 0.5 0.45 0.6 0.6: the run of median bound (0.5) speaks for the side */
    assert_non_null(strstr(c.pairs[0].s.why, "interference could account for the +"));
    assert_non_null(strstr(c.pairs[0].s.why, "(950 involuntary)"));
    assert_int_equal(c.pairs[0].s.cause, HARNESS_AMBIGUOUS_INTERFERENCE);
    assert_int_equal(c.overall, HARNESS_VERDICT_AMBIGUOUS);
    assert_int_equal(harness_comparison_exit_code(&c), 1);
    c.opts.on_ambiguous = HARNESS_ON_AMBIGUOUS_PASS;
    assert_int_equal(harness_comparison_exit_code(&c), 0);
    char *text = report(&c, "text");
    assert_non_null(strstr(text, "rank 0/2: interference could account"));
    assert_non_null(strstr(text, "verdict: AMBIGUOUS (interference): 0 regressions, 0 improvements, 0 same, 1 ambiguous"));
    free(text);
    harness_comparison_free(&c);
}

/* One run a side, 50% apart: the windows share their run's offset, so no
 * verdict beyond AMBIGUOUS, saying how to get one; the disagreement note
 * stays. */
static void test_windows_of_single_runs_never_decide(void **state)
{
    (void)state;
    harness_compare_side base = {0}, cand = {0};
    add_run(&base, "b/summary_ranks_2_rank_0.json", "spin/cpu", "{}", 0, "ok", 1000);
    summary_extra = "\"warnings\": [\"windows disagree: (a sentence for people; the flag decides)\"]";
    disagree = 1;
    add_run(&cand, "c/summary_ranks_2_rank_0.json", "spin/cpu", "{}", 0, "ok", 1500);
    summary_extra = NULL;
    disagree = 0;
    harness_comparison c;
    harness_error err = {0};
    assert_int_equal(harness_compare_sides(&base, &cand, &defaults, &c, &err), 0);
    assert_string_equal(c.pairs[0].s.unit, "windows");
    assert_true(isnan(c.pairs[0].s.p));   /* windows get no p: it would not test the change */
    assert_int_equal(c.pairs[0].s.verdict, HARNESS_VERDICT_AMBIGUOUS);
    assert_non_null(strstr(c.pairs[0].s.why, "its windows share the run's offset"));
    assert_non_null(strstr(c.pairs[0].s.why, "harness run --runs 5"));
    int noted = 0;
    for (size_t i = 0; i < c.n_notes; i++)
        noted += strstr(c.notes[i], "cand run's windows disagree") != NULL;
    assert_int_equal(noted, 1);
    harness_comparison_free(&c);
}

/* Two experiment folders: paired by rank even when the configs differ. */
static void test_two_folders_pair_by_rank(void **state)
{
    (void)state;
    harness_compare_side base = {0}, cand = {0};
    add_run(&base, "b/summary_ranks_2_rank_0.json", "spin/cpu", "{\"duration_ns\": 50000}", 0, "ok", 50000);
    add_run(&cand, "c/summary_ranks_2_rank_0.json", "spin/cpu", "{\"duration_ns\": 80000}", 0, "ok", 80000);
    harness_comparison c;
    harness_error err = {0};
    assert_int_equal(harness_compare_sides(&base, &cand, &defaults, &c, &err), 0);
    assert_true(c.by_rank);
    assert_int_equal(c.n_pairs, 1);
    assert_int_equal(c.pairs[0].s.verdict, HARNESS_VERDICT_AMBIGUOUS);
    assert_int_equal(c.n_notes, 1);
    assert_non_null(strstr(c.notes[0], "duration_ns=80000"));
    harness_comparison_free(&c);
}

/* A failed run or failed validation on either side: FAILED, exit 1. */
static void test_failed_runs(void **state)
{
    (void)state;
    harness_compare_side base = {.is_parent = 1}, cand = {.is_parent = 1};
    add_run(&base, "b/1/summary_ranks_2_rank_0.json", "a/cpu", "{}", 0, "ok", 1000);
    add_run(&cand, "c/1/summary_ranks_2_rank_0.json", "a/cpu", "{}", 0, "failed", 1000);
    add_run(&base, "b/2/summary_ranks_2_rank_0.json", "b/cpu", "{}", 0, "validation_failed", 1000);
    add_run(&cand, "c/2/summary_ranks_2_rank_0.json", "b/cpu", "{}", 0, "ok", 1000);
    cand.runs[0].error = strdup("step 3 failed");
    harness_comparison c;
    harness_error err = {0};
    assert_int_equal(harness_compare_sides(&base, &cand, &defaults, &c, &err), 0);
    assert_int_equal(c.n_pairs, 2);
    assert_int_equal(c.pairs[0].s.verdict, HARNESS_VERDICT_FAILED);
    assert_non_null(strstr(c.pairs[0].reason, "cand status failed (step 3 failed)"));
    assert_int_equal(c.pairs[1].s.verdict, HARNESS_VERDICT_FAILED);
    assert_non_null(strstr(c.pairs[1].reason, "base status validation_failed"));
    assert_int_equal(c.overall, HARNESS_VERDICT_FAILED);
    assert_int_equal(harness_comparison_exit_code(&c), 1);
    harness_comparison_free(&c);
}

static void test_nothing_matches(void **state)
{
    (void)state;
    harness_compare_side base = {.is_parent = 1}, cand = {.is_parent = 1};
    add_run(&base, "b/1/summary_ranks_2_rank_0.json", "a/cpu", "{}", 0, "ok", 1000);
    add_run(&cand, "c/1/summary_ranks_2_rank_0.json", "b/cpu", "{}", 0, "ok", 1000);
    harness_comparison c;
    harness_error err = {0};
    assert_int_equal(harness_compare_sides(&base, &cand, &defaults, &c, &err), HARNESS_EXIT_USAGE);
    assert_non_null(strstr(err.msg, "no run matches"));
    /* the key that differs is named (issue 40) */
    assert_non_null(strstr(err.msg, "the nearest run of CAND has variant b/cpu"));
    harness_comparison_free(&c);
}

/* One config key apart: the key and both values are named, not the rest. */
static void test_nothing_matches_names_key(void **state)
{
    (void)state;
    harness_compare_side base = {.is_parent = 1}, cand = {.is_parent = 1};
    add_run(&base, "b/1/summary_ranks_1_rank_0.json", "rms_norm/cpu", "{\"hidden\":4096,\"dtype\":\"fp32\"}", 0,
            "ok", 1000);
    add_run(&cand, "c/1/summary_ranks_1_rank_0.json", "spin/cpu", "{}", 0, "ok", 1000);
    add_run(&cand, "c/2/summary_ranks_1_rank_0.json", "rms_norm/cpu", "{\"hidden\":2048,\"dtype\":\"fp32\"}", 0,
            "ok", 1000);
    harness_comparison c;
    harness_error err = {0};
    assert_int_equal(harness_compare_sides(&base, &cand, &defaults, &c, &err), HARNESS_EXIT_USAGE);
    assert_non_null(strstr(err.msg, "BASE's rms_norm/cpu hidden=4096, and the nearest run of CAND has hidden=2048"));
    assert_null(strstr(err.msg, "dtype"));
    harness_comparison_free(&c);
}

/* ---- bad summaries -------------------------------------------------------------- */

static void expect_bad(const char *text, const char *message)
{
    harness_run_summary r;
    harness_error err = {0};
    assert_int_equal(harness_run_summary_parse("x/summary_ranks_1_rank_0.json", text, strlen(text), &r, &err),
                     HARNESS_EXIT_USAGE);
    if (strncmp(err.msg, "x/summary_ranks_1_rank_0.json", 29) != 0 || !strstr(err.msg, message))
        fail_msg("message '%s' lacks the path or '%s'", err.msg, message);
    assert_null(r.path);           /* nothing left to free */
}

#define HEAD "{\"schema\": \"harness.summary/1\", \"status\": \"ok\", \"rank\": 0, \"world_size\": 1, "
#define COMP "\"component\": {\"variant_key\": \"k\", \"config\": {}}, "

static void test_bad_summaries(void **state)
{
    (void)state;
    expect_bad("", "empty file");
    expect_bad("{\"schema\": \"harness.summary/1\",\n  \"rank\": 0,,}", ".json:2:");
    expect_bad("[1, 2]", "expected a JSON object");
    expect_bad("{\"rank\": 0}", "no \"schema\" key");
    expect_bad("{\"schema\": \"harness.summary/2\"}", "schema \"harness.summary/2\" is not \"harness.summary/1\"");
    expect_bad("{\"schema\": 1}", "schema: expected the string");
    expect_bad(HEAD "\"timing\": {\"samples\": [1]}}", "component: missing");
    expect_bad("{\"schema\": \"harness.summary/1\", \"status\": \"ok\", \"rank\": 1, \"world_size\": 1}",
               "rank 1 is not below world_size 1");
    expect_bad("{\"schema\": \"harness.summary/1\", \"rank\": 0.5, \"world_size\": 1}", "rank: expected an integer");
    expect_bad(HEAD "\"component\": {\"variant_key\": 3, \"config\": {}}}",
               "component.variant_key: expected a string, got a number");
    expect_bad(HEAD COMP "\"timing\": {\"median\": 5}}", "timing.samples: missing");
    expect_bad(HEAD COMP "\"no_timing\": 1}", "timing: missing");
    expect_bad(HEAD COMP "\"timing\": {\"samples\": {}}}", "timing.samples: expected an array");
    expect_bad(HEAD COMP "\"timing\": {\"samples\": []}}", "timing.samples: empty");
    expect_bad(HEAD COMP "\"timing\": {\"samples\": [1, \"2\"]}}", "timing.samples[1]: expected a duration");
    expect_bad(HEAD COMP "\"timing\": {\"samples\": [1, -2]}}", "timing.samples[1]: expected a duration in ns (a "
               "finite number >= 0), got a negative number");
    expect_bad(HEAD COMP "\"timing\": {\"samples\": [1, 1e999]}}", "timing.samples[1]: expected a duration in ns (a "
               "finite number >= 0), got an infinite number");
    /* windows that are not slices of the samples */
    expect_bad(HEAD COMP "\"timing\": {\"samples\": [1, 2, 3], \"windows\": [{\"n\": 2}, {\"n\": 2}]}}",
               "timing.windows[1]: samples 2 to 3, beyond the run's 3 samples");
    expect_bad(HEAD COMP "\"timing\": {\"samples\": [1, 2, 3], \"windows\": [{\"n\": 1, \"first_sample\": 3}]}}",
               "timing.windows[0]: samples 3 to 3, beyond");
    expect_bad(HEAD COMP "\"timing\": {\"samples\": [1], \"windows\": [{\"n\": 0.5}]}}",
               "timing.windows[0].n: expected a count");
    /* A failed run may have no samples. */
    const char *failed = "{\"schema\": \"harness.summary/1\", \"status\": \"failed\", \"error\": \"boom\", "
                         "\"rank\": 0, \"world_size\": 1, " COMP "\"timing\": {\"samples\": []}}";
    harness_run_summary r;
    harness_error err = {0};
    assert_int_equal(harness_run_summary_parse("f.json", failed, strlen(failed), &r, &err), 0);
    assert_string_equal(r.error, "boom");
    assert_string_equal(r.folder, ".");
    assert_int_equal(r.n_samples, 0);
    harness_run_summary_free(&r);
}

/* timing.windows[].median is recomputed from the samples: a summary whose
 * written window medians disagree with its samples cannot feed compare
 * replicates its own run median contradicts. */
static void test_window_medians_from_samples(void **state)
{
    (void)state;
    const char *text = HEAD COMP "\"timing\": {\"samples\": [10, 30, 20, 7, 5, 6, 9], \"windows\": ["
                       "{\"n\": 3, \"first_sample\": 0, \"median\": 1000}, {\"n\": 0, \"median\": null}, "
                       "{\"n\": 3, \"first_sample\": 3, \"median\": 1000}, {\"n\": 1, \"median\": 1000}]}}";
    harness_run_summary r;
    harness_error err = {0};
    assert_int_equal(harness_run_summary_parse("w.json", text, strlen(text), &r, &err), 0);
    assert_int_equal(r.n_windows, 3);           /* the empty window is no replicate */
    assert_near(r.window_medians[0], 20, 0);
    assert_near(r.window_medians[1], 6, 0);
    assert_near(r.window_medians[2], 9, 0);     /* no first_sample: it follows the window before */
    harness_run_summary_free(&r);
}

/* ---- folders ---------------------------------------------------------------------- */

static char tmp[64];

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void test_folders(void **state)
{
    (void)state;
    snprintf(tmp, sizeof tmp, "/tmp/harness-test-compare-XXXXXX");
    assert_non_null(mkdtemp(tmp));
    char p[256], q[256];
    harness_compare_side side;
    harness_error err = {0};

    snprintf(p, sizeof p, "%s/nope", tmp);
    assert_int_equal(harness_compare_side_load(p, &side, &err), HARNESS_EXIT_USAGE);
    assert_true(strncmp(err.msg, p, strlen(p)) == 0 && strstr(err.msg, "no such folder"));

    snprintf(p, sizeof p, "%s/empty", tmp);
    assert_int_equal(mkdir(p, 0755), 0);
    assert_int_equal(harness_compare_side_load(p, &side, &err), HARNESS_EXIT_USAGE);
    assert_non_null(strstr(err.msg, "no summary_ranks_N_rank_r.json"));

    /* parent/exp1 holds a summary (and a stray file); parent/deep/exp2 another. */
    snprintf(p, sizeof p, "%s/parent/exp1", tmp);
    snprintf(q, sizeof q, "%s/parent", tmp);
    assert_int_equal(mkdir(q, 0755), 0);
    assert_int_equal(mkdir(p, 0755), 0);
    char *text = summary_text("spin/cpu", "{}", 0, 1, "ok", 100, 20, 9);
    snprintf(p, sizeof p, "%s/parent/exp1/summary_ranks_1_rank_0.json", tmp);
    write_file(p, text);
    snprintf(p, sizeof p, "%s/parent/exp1/summary_ranks_1_rank_0.json.tmp.abc", tmp);
    write_file(p, "{");
    snprintf(p, sizeof p, "%s/parent/deep", tmp);
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/parent/deep/exp2", tmp);
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/parent/deep/exp2/summary_ranks_1_rank_0.json", tmp);
    write_file(p, text);
    free(text);

    assert_int_equal(harness_compare_side_load(q, &side, &err), 0);
    assert_true(side.is_parent);
    assert_int_equal(side.n_runs, 2);
    harness_compare_side_free(&side);
    snprintf(p, sizeof p, "%s/parent/exp1", tmp);
    assert_int_equal(harness_compare_side_load(p, &side, &err), 0);
    assert_false(side.is_parent);
    assert_int_equal(side.n_runs, 1);
    harness_compare_side_free(&side);

    /* One bad summary anywhere spoils the side, named by its path. */
    snprintf(p, sizeof p, "%s/parent/deep/exp2/summary_ranks_1_rank_0.json", tmp);
    write_file(p, "{\"schema\": \"other\"}");
    assert_int_equal(harness_compare_side_load(q, &side, &err), HARNESS_EXIT_USAGE);
    assert_true(strncmp(err.msg, p, strlen(p)) == 0);

    /* harness_compare_dirs: the bad side is reported, nothing leaks. */
    harness_comparison c;
    snprintf(p, sizeof p, "%s/parent/exp1", tmp);
    assert_int_equal(harness_compare_dirs(p, q, &defaults, &c, &err), HARNESS_EXIT_USAGE);
    harness_comparison_free(&c);
    assert_int_equal(harness_compare_dirs(p, p, &defaults, &c, &err), 0);
    assert_int_equal(c.n_pairs, 1);
    assert_int_equal(c.pairs[0].s.verdict, HARNESS_VERDICT_SAME);
    assert_true(isnan(c.pairs[0].s.p));   /* single runs: windows get no p */
    harness_comparison_free(&c);

    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    assert_int_equal(system(cmd), 0);
}

/* A status file as the harness writes it (the fields compare reads). */
static void write_status(const char *dir, const char *name, const char *status, const char *error)
{
    char path[512], text[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(text, sizeof text, "{\"schema\": \"harness.status/1\", \"status\": \"%s\", \"complete\": %s, "
             "\"variant_key\": \"spin/cpu\", \"error\": %s%s%s}", status, strcmp(status, "ok") ? "false" : "true",
             error ? "\"" : "", error ? error : "null", error ? "\"" : "");
    write_file(path, text);
}

/* A rank's files: its summary (unless status_only) and its status file. */
static void write_rank(const char *dir, int rank, int world, const char *status, const char *error, int status_only)
{
    char path[512], name[64];
    if (!status_only) {
        char *text = summary_text("spin/cpu", "{}", rank, world, "ok", 100, 20, 11);
        snprintf(path, sizeof path, "%s/summary_ranks_%d_rank_%d.json", dir, world, rank);
        write_file(path, text);
        free(text);
    }
    if (rank == 0)
        snprintf(name, sizeof name, "status.json");
    else
        snprintf(name, sizeof name, "status_ranks_%d_rank_%d.json", world, rank);
    if (status)
        write_status(dir, name, status, error);
}

/* A rank with neither file; a status file that says failed over a
 * summary that says ok; status.json alone (the job's size unknown). */
static void check_incomplete_ranks(const char *job)
{
    write_rank(job, 0, 2, "ok", NULL, 0);
    write_rank(job, 1, 3, NULL, NULL, 0);
    char path[512];
    snprintf(path, sizeof path, "%s/summary_ranks_2_rank_1.json", job);
    assert_int_equal(unlink(path), 0);
    snprintf(path, sizeof path, "%s/status_ranks_2_rank_1.json", job);
    assert_int_equal(unlink(path), 0);
    harness_compare_side side;
    harness_error err = {0};
    assert_int_equal(harness_compare_side_load(job, &side, &err), HARNESS_EXIT_USAGE);
    assert_non_null(strstr(err.msg, "an experiment folder holds one job"));   /* 2 and 3 ranks */
    snprintf(path, sizeof path, "%s/summary_ranks_3_rank_1.json", job);
    assert_int_equal(unlink(path), 0);
    write_rank(job, 2, 2, NULL, NULL, 0);       /* rank 2 of 2: not a rank */
    assert_int_equal(harness_compare_side_load(job, &side, &err), HARNESS_EXIT_USAGE);
    assert_non_null(strstr(err.msg, "summary_ranks_2_rank_2.json: rank 2 of a job of 2 ranks"));
    snprintf(path, sizeof path, "%s/summary_ranks_2_rank_2.json", job);
    assert_int_equal(unlink(path), 0);
    write_status(job, "status.json", "failed", "disk full after the summary");
    if (harness_compare_side_load(job, &side, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(side.n_runs, 1);
    assert_string_equal(side.runs[0].status, "failed");
    assert_non_null(strstr(side.runs[0].error, "status.json says failed, the summary ok: disk full after the summary"));
    assert_int_equal(side.n_incomplete, 1);
    assert_int_equal(side.incomplete[0].rank, 1);
    assert_string_equal(side.incomplete[0].status, "missing");
    harness_compare_side_free(&side);
    snprintf(path, sizeof path, "%s/summary_ranks_2_rank_0.json", job);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(harness_compare_side_load(job, &side, &err), 0);
    assert_int_equal(side.n_runs, 0);
    assert_int_equal(side.n_incomplete, 1);
    assert_int_equal(side.incomplete[0].world_size, 0);
    assert_string_equal(side.incomplete[0].status, "failed");
    harness_compare_side_free(&side);
}

/* Each rank's status file is its last word, and a rank with no summary is
 * FAILED, naming the folder and the rank: a job of 2 ranks whose rank 0
 * failed to write its summary and whose rank 1 was killed after writing
 * its own ("ok") was once SAME, exit 0, with rank 0 "unmatched". */
static void test_job_with_failed_ranks(void **state)
{
    (void)state;
    snprintf(tmp, sizeof tmp, "/tmp/harness-test-compare-XXXXXX");
    assert_non_null(mkdtemp(tmp));
    char good[256], job[256];
    snprintf(good, sizeof good, "%s/good", tmp);
    snprintf(job, sizeof job, "%s/job", tmp);
    assert_int_equal(mkdir(good, 0755), 0);
    assert_int_equal(mkdir(job, 0755), 0);
    write_rank(good, 0, 2, "ok", NULL, 0);
    write_rank(good, 1, 2, "ok", NULL, 0);
    write_rank(job, 0, 2, "failed", "cannot write summary_ranks_2_rank_0.json: No space left on device", 1);
    write_rank(job, 1, 2, "running", NULL, 0);

    harness_comparison c;
    harness_error err = {0};
    assert_int_equal(harness_compare_dirs(good, job, &defaults, &c, &err), 0);
    assert_int_equal(c.n_pairs, 1);
    assert_int_equal(c.pairs[0].s.verdict, HARNESS_VERDICT_FAILED);
    assert_string_equal(c.pairs[0].cand->status, "running");
    assert_non_null(strstr(c.pairs[0].reason, "cand status running"));
    assert_non_null(strstr(c.pairs[0].reason, "/job/status_ranks_2_rank_1.json says running, the summary ok"));
    assert_int_equal(c.cand.n_incomplete, 1);
    assert_int_equal(c.cand.incomplete[0].rank, 0);
    assert_int_equal(c.cand.incomplete[0].world_size, 2);
    assert_string_equal(c.cand.incomplete[0].status, "failed");
    assert_int_equal(c.n_unmatched_base, 0);    /* rank 0's FAILED line says why it has no partner */
    assert_int_equal(c.counts[HARNESS_VERDICT_FAILED], 2);
    assert_int_equal(c.overall, HARNESS_VERDICT_FAILED);
    assert_int_equal(harness_comparison_exit_code(&c), 1);
    char *text = report(&c, "text");
    char want[512];
    snprintf(want, sizeof want, "FAILED (cand): %s: rank 0/2: no summary, status failed: stopped before writing its "
             "summary (cannot write summary_ranks_2_rank_0.json: No space left on device)", job);
    if (!strstr(text, want))
        fail_msg("no '%s' in:\n%s", want, text);
    assert_null(strstr(text, "unmatched"));
    free(text);
    harness_comparison_free(&c);

    check_incomplete_ranks(job);

    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    assert_int_equal(system(cmd), 0);
}

/* A suite of 10 benchmarks, one 50% slower: each pair's p is adjusted for
 * the ten (Benjamini-Hochberg). With 5 runs a side the least p, 2/252,
 * times 10 is above alpha, so the change is AMBIGUOUS and a note says what
 * a lone change needs; with 6 runs (2/924) it is REGRESSION and the nine
 * others SAME. */
static harness_comparison suite_of_ten(size_t runs)
{
    harness_compare_side base = {.is_parent = 1}, cand = {.is_parent = 1};
    for (size_t run = 0; run < runs; run++)
        for (int k = 0; k < 10; k++) {
            char path[64], config[32];
            snprintf(config, sizeof config, "{\"k\": %d}", k);
            snprintf(path, sizeof path, "b/%d-%zu/summary_ranks_1_rank_0.json", k, run);
            add_run(&base, path, "spin/cpu", config, 0, "ok", 1000);
            snprintf(path, sizeof path, "c/%d-%zu/summary_ranks_1_rank_0.json", k, run);
            add_run(&cand, path, "spin/cpu", config, 0, "ok", k == 3 ? 1500 : 1000);
        }
    harness_comparison c;
    harness_error err = {0};
    assert_int_equal(harness_compare_sides(&base, &cand, &defaults, &c, &err), 0);
    assert_int_equal(c.n_pairs, 10);
    return c;
}

static const harness_compare_pair *pair_of_k(const harness_comparison *c, double k)
{
    for (size_t i = 0; i < c->n_pairs; i++)
        if (cJSON_GetObjectItem(c->pairs[i].base->config, "k")->valuedouble == k)
            return &c->pairs[i];
    fail_msg("no pair k=%g", k);
    return NULL;
}

static void test_suite_controls_false_discoveries(void **state)
{
    (void)state;
    harness_comparison c = suite_of_ten(5);
    const harness_compare_pair *p = pair_of_k(&c, 3);
    assert_near(p->s.p, 2.0 / 252, 1e-12);
    assert_int_equal(p->s.fdr_m, 10);
    assert_near(p->s.q, 10 * 2.0 / 252, 1e-12);
    assert_int_equal(p->s.verdict, HARNESS_VERDICT_AMBIGUOUS);
    int bh = 0, lone = 0;
    for (size_t i = 0; i < c.n_notes; i++) {
        bh += strstr(c.notes[i], "10 pairs judged together") && strstr(c.notes[i], "Benjamini-Hochberg");
        lone += strstr(c.notes[i], "a lone change among 10 pairs needs p <= 0.005") != NULL;
    }
    assert_int_equal(bh, 1);
    assert_int_equal(lone, 1);
    harness_comparison_free(&c);

    c = suite_of_ten(6);
    assert_int_equal(pair_of_k(&c, 3)->s.verdict, HARNESS_VERDICT_REGRESSION);
    assert_int_equal(c.counts[HARNESS_VERDICT_REGRESSION], 1);
    assert_int_equal(c.counts[HARNESS_VERDICT_SAME], 9);
    char *json = report(&c, "json");
    assert_non_null(strstr(json, "\"q_fdr\""));
    free(json);
    harness_comparison_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identical_is_same),
        cmocka_unit_test(test_slower_by_20pct_is_regression),
        cmocka_unit_test(test_faster_by_20pct_is_improvement),
        cmocka_unit_test(test_small_shift_under_threshold),
        cmocka_unit_test(test_large_shift_in_noise_is_ambiguous),
        cmocka_unit_test(test_too_few_replicates),
        cmocka_unit_test(test_decide_edges),
        cmocka_unit_test(test_ambiguous_causes),
        cmocka_unit_test(test_zero_replicate),
        cmocka_unit_test(test_parse_summary),
        cmocka_unit_test(test_window_medians_from_samples),
        cmocka_unit_test(test_matching),
        cmocka_unit_test(test_newest_duplicate),
        cmocka_unit_test(test_runs_as_replicates),
        cmocka_unit_test(test_interference_that_explains_a_change_is_ambiguous),
        cmocka_unit_test(test_windows_of_single_runs_never_decide),
        cmocka_unit_test(test_suite_controls_false_discoveries),
        cmocka_unit_test(test_two_folders_pair_by_rank),
        cmocka_unit_test(test_failed_runs),
        cmocka_unit_test(test_nothing_matches),
        cmocka_unit_test(test_nothing_matches_names_key),
        cmocka_unit_test(test_bad_summaries),
        cmocka_unit_test(test_folders),
        cmocka_unit_test(test_job_with_failed_ranks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
