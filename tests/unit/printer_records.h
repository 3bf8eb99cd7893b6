/* printer_records.h - fixed records for the printers' golden test
 * (test_printers.c): comparisons of `harness compare` and `harness ab` and
 * a history, made up field by field (no statistics run), with every line a
 * printer can write somewhere in them: each verdict and ambiguity, a tail
 * that moved alone, unmatched and incomplete runs, notes, rounds failed and
 * busy, runs set aside, markdown's and HTML's specials in names. */
#ifndef PRINTER_RECORDS_H
#define PRINTER_RECORDS_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "compare/compare.h"
#include "compare/history.h"

enum { REC_RUNS = 8, REC_PAIRS = 4, REC_ROUNDS = 6, REC_POINTS = 9 };

static harness_run_summary rec_runs[REC_RUNS];
static harness_compare_pair rec_pairs[REC_PAIRS];
static harness_ab_round rec_rounds[REC_ROUNDS];
static const harness_run_summary *rec_unmatched_base[1], *rec_unmatched_cand[1];
static harness_incomplete_run rec_incomplete[1];
static char *rec_notes[2] = {"base: 2 runs of spin/cpu {duration_ns=50000}; the newest is shown",
                             "configs differ: `a|b` *x* <y> [z] #1 ~2 _3_ \\ end"};

static void rec_run(harness_run_summary *r, int i, const char *key, const char *config, int rank, int world,
                    const char *status, double median)
{
    static char paths[REC_RUNS][64], folders[REC_RUNS][64];
    snprintf(folders[i], sizeof folders[i], "/x/run%d", i);
    snprintf(paths[i], sizeof paths[i], "/x/run%d/summary_ranks_%d_rank_%d.json", i, world, rank);
    memset(r, 0, sizeof *r);
    r->path = paths[i];
    r->folder = folders[i];
    r->variant_key = (char *)key;
    r->config = cJSON_Parse("{\"duration_ns\":50000,\"name\":\"a|b\"}");
    r->config_text = (char *)config;
    r->rank = rank;
    r->world_size = world;
    r->status = (char *)status;
    r->error = strcmp(status, "ok") ? "it <broke> & \"stopped\"" : NULL;
    r->n_samples = median > 0 ? 150 : 0;
    r->stats.median = median;
    r->stats.ci95_lo = median * 0.99;
    r->stats.ci95_hi = median * 1.01;
    r->noise_bound = NAN;
}

static harness_compare_stats rec_stats(harness_verdict v, double base, double ratio, double p, const char *unit)
{
    harness_compare_stats s;
    memset(&s, 0, sizeof s);
    s.base_median = base;
    s.base_lo = base * 0.98;
    s.base_hi = base * 1.02;
    s.cand_median = base * ratio;
    s.cand_lo = s.cand_median * 0.98;
    s.cand_hi = s.cand_median * 1.02;
    s.unit = unit;
    s.n_base = 5;
    s.n_cand = 5;
    s.ratio = ratio;
    s.ratio_lo = ratio * 0.97;
    s.ratio_hi = ratio * 1.031;
    s.coverage = 0.9683;
    s.p = p;
    s.signed_rank_p = p * 2;
    s.min_p = 0.0079;
    s.fdr_m = 4;
    s.q = p * 1.5;
    s.verdict = v;
    return s;
}

static void rec_pair(int i, const harness_run_summary *base, const harness_run_summary *cand,
                     harness_compare_stats s)
{
    harness_compare_pair *p = &rec_pairs[i];
    memset(p, 0, sizeof *p);
    p->base = base;
    p->cand = cand;
    p->s = s;
    p->base_noise.bound = p->cand_noise.bound = NAN;
}

static void rec_free(void)
{
    for (int i = 0; i < REC_RUNS; i++) {
        cJSON_Delete(rec_runs[i].config);
        rec_runs[i].config = NULL;
    }
}

/* `harness compare` of two folders of experiments: four pairs (a
 * regression whose tail moved too, an AMBIGUOUS on interference, a FAILED,
 * a SAME on windows without a p), one unmatched run a side, a base rank
 * that left no summary, two notes. */
static harness_comparison rec_compare(harness_metric metric)
{
    harness_comparison c;
    memset(&c, 0, sizeof c);
    rec_run(&rec_runs[0], 0, "spin/cpu", "duration_ns=50000", 0, 1, "ok", 50070);
    rec_run(&rec_runs[1], 1, "spin/cpu", "duration_ns=50000", 0, 1, "ok", 80070);
    rec_run(&rec_runs[2], 2, "copy/cpu", "bytes=1048576, name=a|b", 0, 2, "ok", 1.234e6);
    rec_run(&rec_runs[3], 3, "copy/cpu", "bytes=1048576, name=a|b", 0, 2, "ok", 1.5e6);
    rec_run(&rec_runs[4], 4, "noop/cpu", "-", 1, 2, "ok", 12.5);
    rec_run(&rec_runs[5], 5, "noop/cpu", "-", 1, 2, "failed", 0);
    rec_run(&rec_runs[6], 6, "rms_norm/cpu_*avx2*", "rows=4096, cols=`8192`", 0, 1, "ok", 2.5e9);
    rec_run(&rec_runs[7], 7, "attention/cpu", "heads=8", 0, 1, "ok", 3.3e3);
    c.opts = (harness_compare_options){0.05, 0.05, HARNESS_ON_AMBIGUOUS_FAIL, metric};
    c.base = (harness_compare_side){"/x/base", 1, 0, rec_runs, 4, 0, rec_incomplete, 1, 0};
    c.cand = (harness_compare_side){"/x/cand <new>", 1, 0, rec_runs, 4, 0, NULL, 0, 0};
    rec_pair(0, &rec_runs[0], &rec_runs[1], rec_stats(HARNESS_VERDICT_REGRESSION, 50070,
                                          1.599, 0.0079, "runs"));
    rec_pairs[0].tail.s = rec_stats(HARNESS_VERDICT_REGRESSION, 52000, 1.62, 0.0079, "runs");
    rec_pair(1, &rec_runs[2], &rec_runs[3], rec_stats(HARNESS_VERDICT_AMBIGUOUS, 1.234e6,
                                          1.2155, 0.03, "runs/windows"));
    rec_pairs[1].s.cause = HARNESS_AMBIGUOUS_INTERFERENCE;
    rec_pairs[1].s.n_busy = 2;
    rec_pairs[1].s.processes_disagree = 1;
    snprintf(rec_pairs[1].s.why, sizeof rec_pairs[1].s.why, "interference could account for the +21.6%% change: "
             "`load` 3.2 | *steal* <5%%>");
    rec_pairs[1].tail.s = rec_stats(HARNESS_VERDICT_REGRESSION, 1.3e6, 1.31, 0.01, "runs");
    rec_pairs[1].tail.moved_alone = 1;
    rec_pair(2, &rec_runs[4], &rec_runs[5], rec_stats(HARNESS_VERDICT_FAILED, NAN, NAN,
                                          NAN, "windows"));
    rec_pairs[2].s.ratio_lo = rec_pairs[2].s.ratio_hi = NAN;
    rec_pairs[2].tail.s = rec_stats(HARNESS_VERDICT_FAILED, NAN, NAN, NAN, "windows");
    snprintf(rec_pairs[2].reason, sizeof rec_pairs[2].reason, "cand status failed (it <broke> & \"stopped\")");
    rec_pair(3, &rec_runs[6], &rec_runs[6], rec_stats(HARNESS_VERDICT_SAME, 2.5e9, 1.0004,
                                          NAN, NULL));
    rec_pairs[3].s.ratio_hi = INFINITY;
    rec_pairs[3].tail.s = rec_stats(HARNESS_VERDICT_SAME, 2.6e9, INFINITY, NAN, NULL);
    c.pairs = rec_pairs;
    c.n_pairs = 4;
    rec_unmatched_base[0] = &rec_runs[7];
    rec_unmatched_cand[0] = &rec_runs[6];
    c.unmatched_base = rec_unmatched_base;
    c.unmatched_cand = rec_unmatched_cand;
    c.n_unmatched_base = c.n_unmatched_cand = 1;
    rec_incomplete[0] = (harness_incomplete_run){"/x/job `2`", 1, 2, "crashed", "SIGSEGV in step", "spin/cpu"};
    c.notes = rec_notes;
    c.n_notes = 2;
    c.counts[HARNESS_VERDICT_REGRESSION] = c.counts[HARNESS_VERDICT_AMBIGUOUS] = 1;
    c.counts[HARNESS_VERDICT_FAILED] = 2;
    c.counts[HARNESS_VERDICT_SAME] = 1;
    c.overall = HARNESS_VERDICT_REGRESSION;
    return c;
}

static void rec_round(harness_ab_round *r, size_t bench, size_t round, double base, double cand, int failed,
                      int busy)
{
    memset(r, 0, sizeof *r);
    r->base = &rec_runs[0];
    r->cand = &rec_runs[failed & 2 ? 5 : 1];
    r->benchmark = bench;
    r->round = round;
    r->base_first = round % 2 == 0;
    r->base_median = r->base_value = base;
    r->cand_median = r->cand_value = cand;
    r->ratio = base > 0 && cand > 0 ? cand / base : NAN;
    r->base_failed = failed & 1;
    r->cand_failed = failed >> 1 & 1;
    r->base_busy = busy & 1;
    r->cand_busy = busy >> 1 & 1;
}

/* `harness ab`: `pairs` benchmarks (1 or 2) of three rounds each, some
 * failed or busy; AMBIGUOUS, for two causes when there are two pairs. */
static harness_comparison rec_ab(size_t pairs, harness_metric metric)
{
    harness_comparison c = rec_compare(metric);
    c.base = (harness_compare_side){"/x/ab/base", 1, 0, rec_runs, 3, 0, NULL, 0, 0};
    c.cand = (harness_compare_side){"/x/ab/cand", 1, 0, rec_runs, 3, 0, NULL, 0, 0};
    rec_pairs[0].s = rec_stats(HARNESS_VERDICT_AMBIGUOUS, 50070, 0.9512, 0.25, "rounds");
    rec_pairs[0].s.cause = HARNESS_AMBIGUOUS_TOO_FEW;
    snprintf(rec_pairs[0].s.why, sizeof rec_pairs[0].s.why, "3 rounds cannot reach alpha 0.05");
    rec_pairs[0].tail.s = rec_stats(HARNESS_VERDICT_SAME, 52000, 0.96, 0.25, "rounds");
    rec_pairs[1].s = rec_stats(HARNESS_VERDICT_AMBIGUOUS, 1.234e6, 1.02, 0.5, "rounds");
    rec_pairs[1].s.cause = HARNESS_AMBIGUOUS_UNRESOLVED;
    rec_pairs[1].tail.moved_alone = 0;
    c.n_pairs = pairs;
    c.n_unmatched_base = c.n_unmatched_cand = 0;
    c.n_notes = 0;
    memset(c.counts, 0, sizeof c.counts);
    c.counts[HARNESS_VERDICT_AMBIGUOUS] = pairs;
    c.overall = HARNESS_VERDICT_AMBIGUOUS;
    for (size_t b = 0; b < pairs; b++) {
        rec_round(&rec_rounds[3 * b], b, 0, 50070, 48000, 0, 0);
        rec_round(&rec_rounds[3 * b + 1], b, 1, 50100, 47000, 0, 2);
        rec_round(&rec_rounds[3 * b + 2], b, 2, 50000, NAN, b ? 3 : 2, b ? 1 : 0);
    }
    c.rounds = rec_rounds;
    c.n_rounds = 3 * pairs;
    return c;
}

static harness_history_point rec_points[REC_POINTS];
static harness_change_point rec_cps[1];
static harness_series rec_series[2];

/* `harness history`: two series, one of nine runs with a change point at
 * #6, a run set aside for interference where it begins and an outlier;
 * one of a single run with nothing known. */
static harness_history rec_history(harness_metric metric)
{
    static const char *const commits[REC_POINTS] = {"c1", "c2", "c3", NULL, "c5", "0123456789abcdef", "c7",
                                                    "c8|x", "c9"};
    static char names[REC_POINTS][40];
    for (int k = 0; k < REC_POINTS; k++) {
        harness_history_point *p = &rec_points[k];
        double v = k < 5 ? 50000 + 10 * k : 60000 + 10 * k;
        snprintf(names[k], sizeof names[k], "2026-01-0%d__00-00-00_abcdef", k + 1);
        *p = (harness_history_point){names[k], (char *)commits[k], "main", v * (metric ? 1.1 : 1), v, v * 0.99,
                                     v * 1.01, 0.959, 150, 0.001, NULL, 0, HARNESS_CP_KEPT};
    }
    rec_points[5].noise_bound = 0.05;
    rec_points[5].noise_evidence = "steal 5% <vm> & \"host\"";
    rec_points[5].interfered = 1;
    rec_points[5].set_aside = HARNESS_CP_INTERFERENCE;
    rec_points[2].value = 90000;
    rec_points[2].set_aside = HARNESS_CP_OUTLIER;
    rec_points[1].ci_level = NAN;
    rec_points[1].noise_bound = NAN;
    rec_cps[0] = (harness_change_point){5, 0.002, 50020, 60070};
    rec_series[0] = (harness_series){"vm <1>", "AMD EPYC", "none", "spin/cpu", "e3b0c44298fc1c149afbf4c8996fb924",
                                     "{\"duration_ns\":50000}", 1, 0, rec_points, REC_POINTS, rec_cps, 1};
    static harness_history_point lone[1];
    lone[0] = (harness_history_point){"2026-02-01__00-00-00_aaaa", NULL, NULL, NAN, NAN, NAN, NAN, NAN, 0, NAN,
                                      NULL, 0, HARNESS_CP_KEPT};
    rec_series[1] = (harness_series){"host2", "cpu", "gpu & co", "copy/cpu", "ffff0000", "not json", 2, 1, lone, 1,
                                     NULL, 0};
    return (harness_history){"/x/results.sqlite", metric, HARNESS_CP_DEFAULTS, rec_series, 2};
}

#endif
