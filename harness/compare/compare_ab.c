/* compare_ab.c - the verdict of an interleaved A/B run: round i ran base
 * and candidate back to back, so the pairs (base_i, cand_i) share the
 * round's machine state and the paired statistics of signed_rank.h judge
 * them. The result is an ordinary harness_comparison with one pair, so the
 * printers of a comparison (printer.h) serve both commands. */
#include "compare/compare.h"
#include "compare/compare_internal.h"
#include "compare/metric.h"
#include "compare/process_spread.h"
#include "compare/signed_rank.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int harness_compare_paired(const double *base, const double *cand, size_t n, const harness_compare_options *o,
                           harness_compare_stats *out)
{
    memset(out, 0, sizeof *out);
    out->base_median = out->base_lo = out->base_hi = NAN;
    out->cand_median = out->cand_lo = out->cand_hi = NAN;
    out->unit = "rounds";
    harness_signed_rank sr;
    int rc = harness_signed_rank_compute(base, cand, n, o->alpha, &sr);
    if (rc != 0)
        return rc;
    out->n_base = out->n_cand = n;
    out->ratio = sr.ratio;
    out->ratio_lo = sr.ratio_lo;
    out->ratio_hi = sr.ratio_hi;
    out->coverage = sr.coverage;
    out->p = sr.p;
    out->signed_rank_p = sr.signed_rank_p;
    out->min_p = sr.min_p;
    out->n_zero = sr.n_zero;
    out->k_robust = sr.k;
    return 0;
}

int harness_ab_base_first(size_t round, size_t benchmark)
{
    return (round + benchmark) % 2 == 0;
}

static int run_failed(const harness_run_summary *r)
{
    return strcmp(r->status, "ok") != 0 || r->validation_failed || !r->n_samples;
}

/* out->rounds from the runs of the two sides (moved into *out): round i is
 * base.runs[i] against cand.runs[i], `per` rounds a benchmark. -1 out of
 * memory. */
static int fill_rounds(harness_comparison *out, size_t per)
{
    size_t n = out->base.n_runs;
    out->rounds = calloc(n, sizeof *out->rounds);
    if (!out->rounds)
        return -1;
    out->n_rounds = n;
    for (size_t i = 0; i < n; i++) {
        harness_ab_round *r = &out->rounds[i];
        r->base = &out->base.runs[i];
        r->cand = &out->cand.runs[i];
        r->benchmark = i / per;
        r->round = i % per;
        r->base_first = harness_ab_base_first(r->round, r->benchmark);
        r->base_median = harness_run_metric(r->base, HARNESS_METRIC_MEDIAN);
        r->cand_median = harness_run_metric(r->cand, HARNESS_METRIC_MEDIAN);
        r->base_value = harness_run_metric(r->base, out->opts.metric);
        r->cand_value = harness_run_metric(r->cand, out->opts.metric);
        r->base_tail = harness_run_metric(r->base, HARNESS_METRIC_P90);
        r->cand_tail = harness_run_metric(r->cand, HARNESS_METRIC_P90);
        r->ratio = r->base_value > 0 ? r->cand_value / r->base_value : NAN;
        r->base_failed = run_failed(r->base);
        r->cand_failed = run_failed(r->cand);
        /* interference that could have moved a round's run by the threshold */
        r->base_busy = r->base->noise_bound >= out->opts.threshold;
        r->cand_busy = r->cand->noise_bound >= out->opts.threshold;
    }
    return 0;
}

/* The pair of a failed round: FAILED (harness_cmp_judge_failed names it). */
static void judge_failed_round(harness_compare_pair *p, const harness_ab_round *r)
{
    p->base = r->base;
    p->cand = r->cand;
    memset(&p->s, 0, sizeof p->s);
    p->s.unit = "rounds";
    p->s.ratio = p->s.ratio_lo = p->s.ratio_hi = p->s.coverage = p->s.p = p->s.signed_rank_p = NAN;
    p->s.base_median = p->s.cand_median = NAN;
    p->s.verdict = HARNESS_VERDICT_AMBIGUOUS;   /* replaced by FAILED, naming the run */
    snprintf(p->s.why, sizeof p->s.why, "a round measured nothing");
    p->tail.s = p->s;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The interference a side's rounds carry, as one bound on how far it could
 * move the interval's end that a change rests on: each round's ratio is
 * corrected by its own run's bound (the cand's deflates a regression, the
 * base's an improvement), the interval's order statistic taken again, and
 * the share it moved is the bound. A round without a bound keeps its
 * ratio. The evidence shown is the busiest round's. */
static void round_noise(const harness_ab_round *rounds, size_t n, size_t k, int cand_side,
                        harness_side_noise *out)
{
    out->bound = NAN;
    out->evidence = NULL;
    double *adj = malloc(n * sizeof *adj), *raw = malloc(n * sizeof *raw), worst = 0;
    size_t m = 0;
    for (size_t i = 0; adj && raw && i < n; i++) {
        const harness_run_summary *r = cand_side ? rounds[i].cand : rounds[i].base;
        double b = isnan(r->noise_bound) ? 0 : fmin(r->noise_bound, 0.99);
        if (!(rounds[i].ratio > 0) || isinf(rounds[i].ratio))
            continue;
        raw[m] = rounds[i].ratio;
        adj[m++] = cand_side ? rounds[i].ratio * (1.0 - b) : rounds[i].ratio / (1.0 - b);
        if (b > worst) {
            worst = b;
            out->evidence = r->noise_evidence;
        }
    }
    if (adj && raw && m && k >= 1 && k <= m && worst > 0) {
        qsort(adj, m, sizeof *adj, cmp_double);
        qsort(raw, m, sizeof *raw, cmp_double);
        /* the lower end for a regression, the upper for an improvement */
        size_t at = cand_side ? k - 1 : m - k;
        out->bound = cand_side ? 1.0 - adj[at] / raw[at] : 1.0 - raw[at] / adj[at];
    }
    free(adj);
    free(raw);
}

/* The paired statistics of rounds under one metric (the tail's when
 * `tail`), with their interference and processes; the verdict is decided
 * by the caller once both are known. 0, -1 out of memory, -2 a value <= 0. */
static int paired_stats(const harness_ab_round *rounds, size_t n, const harness_compare_options *o, int tail,
                        harness_compare_stats *s)
{
    double *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    if (!b || !c) {
        free(b);
        free(c);
        return -1;
    }
    size_t busy = 0;
    for (size_t i = 0; i < n; i++) {
        b[i] = tail ? rounds[i].base_tail : rounds[i].base_value;
        c[i] = tail ? rounds[i].cand_tail : rounds[i].cand_value;
        busy += rounds[i].base_busy || rounds[i].cand_busy;
    }
    int rc = harness_compare_paired(b, c, n, o, s);
    s->n_busy = busy;
    /* display: the medians of the rounds' values */
    s->base_median = harness_median(b, n);
    s->cand_median = harness_median(c, n);
    s->step_ns = fmax(s->base_median, s->cand_median);
    free(b);
    free(c);
    return rc;
}

/* The verdict of paired statistics, or AMBIGUOUS for a value of 0 ns. */
static void decide_rounds(harness_compare_pair *p, harness_compare_stats *s, int rc, const harness_ab_round *rounds,
                          size_t n, const harness_compare_options *o)
{
    if (rc == -2) {
        s->verdict = HARNESS_VERDICT_AMBIGUOUS;
        s->cause = HARNESS_AMBIGUOUS_NO_REPLICATES;
        strcpy(s->why, harness_metric_is_time(o->metric) ? "a round's value is 0 ns: below what the clock resolves"
                                                         : "a round has no energy per step: no energy counter, or "
                                                           "windows too short to measure (see its summary's energy)");
        return;
    }
    /* Load that lasts a round slows both of its halves, which the pairing
     * divides out; load in one half moves that round alone, which the sign
     * test and its interval count as one round whatever its size. What
     * is left is load in enough rounds to move the interval's end: each
     * side's bound says how far. */
    round_noise(rounds, n, s->k_robust, 0, &p->base_noise);
    round_noise(rounds, n, s->k_robust, 1, &p->cand_noise);
    harness_compare_decide(s, o, &p->base_noise, &p->cand_noise);
}

/* Each round's two processes, the change divided out. -1 out of memory. */
static int spread_of(const harness_ab_round *rounds, size_t n, double ratio, const harness_compare_options *o,
                     harness_process_spread *out)
{
    const harness_run_summary **runs = malloc((2 * n + 1) * sizeof *runs);
    if (!runs)
        return -1;
    for (size_t i = 0; i < n; i++) {
        runs[i] = rounds[i].base;
        runs[n + i] = rounds[i].cand;
    }
    int rc = harness_process_spread_rounds(runs, runs + n, n, ratio, o->metric, o->threshold / 2, out);
    free(runs);
    return rc;
}

/* Pair b of out: rounds [b * per, (b + 1) * per). */
static int judge_benchmark(harness_comparison *out, size_t b, size_t per, harness_error *err)
{
    harness_compare_pair *p = &out->pairs[b];
    const harness_ab_round *rounds = out->rounds + b * per;
    p->base = rounds[per - 1].base;
    p->cand = rounds[per - 1].cand;
    size_t busy = 0, failed = per;
    for (size_t i = per; i-- > 0;) {   /* the first failed round is the one shown */
        busy += rounds[i].base_busy || rounds[i].cand_busy;
        if (rounds[i].base_failed || rounds[i].cand_failed)
            failed = i;
    }
    harness_process_spread spread = {0};
    if (failed < per) {
        judge_failed_round(p, &rounds[failed]);
    } else {
        int tail_rc = paired_stats(rounds, per, &out->opts, 1, &p->tail.s);
        int rc = tail_rc == -1 ? -1 : paired_stats(rounds, per, &out->opts, 0, &p->s);
        if (rc == -1 || spread_of(rounds, per, p->s.ratio, &out->opts, &spread) != 0)
            return harness_cmp_oom(err);
        p->s.processes_disagree = spread.p < HARNESS_PROCESS_SPREAD_ALPHA;
        decide_rounds(p, &p->tail.s, tail_rc, rounds, per, &out->opts);
        decide_rounds(p, &p->s, rc, rounds, per, &out->opts);
        harness_cmp_tail_moved(p);
    }
    p->s.base_lo = p->s.base_hi = p->s.cand_lo = p->s.cand_hi = NAN;
    harness_cmp_judge_failed(p);
    if ((strcmp(p->base->variant_key, p->cand->variant_key) != 0 || !cJSON_Compare(p->base->config, p->cand->config, 1)) &&
        harness_cmp_add_note(out, err, "base is %s {%s}, cand is %s {%s}", p->base->variant_key,
                             p->base->config_text, p->cand->variant_key, p->cand->config_text) != 0)
        return err->code;
    if (busy && harness_cmp_add_note(out, err, "%s {%s}: %zu of %zu rounds had interference that could have moved a "
                                     "run by the threshold; the pairs divide out load that lasts a round, and the "
                                     "interval's ends withstand %zu such rounds", p->base->variant_key,
                                     p->base->config_text, busy, per, p->s.k_robust ? p->s.k_robust - 1 : 0) != 0)
        return err->code;
    if (p->s.processes_disagree && harness_cmp_note_spread(out, p, &spread, "a round's base and cand (the change divided out)", err) != 0)
        return err->code;
    return 0;
}

int harness_compare_rounds(harness_compare_side *base, harness_compare_side *cand, size_t benchmarks,
                           const harness_compare_options *o, harness_comparison *out, harness_error *err)
{
    harness_cmp_take_sides(out, base, cand, o);
    out->by_rank = 1;
    size_t n = out->base.n_runs;
    if (n == 0 || n != out->cand.n_runs || benchmarks == 0 || n % benchmarks != 0)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "A/B: %zu base rounds and %zu candidate rounds of %zu "
                                 "benchmarks; expected as many of each, for each", n, out->cand.n_runs, benchmarks);
    out->pairs = calloc(benchmarks, sizeof *out->pairs);
    if (!out->pairs || fill_rounds(out, n / benchmarks) != 0)
        return harness_cmp_oom(err);
    out->n_pairs = benchmarks;
    for (size_t b = 0; b < benchmarks; b++)
        if (judge_benchmark(out, b, n / benchmarks, err) != 0)
            return err->code;
    if (harness_cmp_control_fdr(out, err) != 0)
        return err->code;
    harness_cmp_tally(out);
    return 0;
}
