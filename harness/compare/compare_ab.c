/* compare_ab.c - the verdict of an interleaved A/B run: round i ran base
 * and candidate back to back, so the pairs (base_i, cand_i) share the
 * round's machine state and the paired statistics of signed_rank.h judge
 * them. The result is an ordinary harness_comparison with one pair, so the
 * reports of compare_report.c serve both commands. */
#include "compare/compare.h"
#include "compare/compare_internal.h"
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
        r->base_median = r->base->n_samples ? r->base->stats.median : NAN;
        r->cand_median = r->cand->n_samples ? r->cand->stats.median : NAN;
        r->ratio = r->base_median > 0 ? r->cand_median / r->base_median : NAN;
        r->base_failed = run_failed(r->base);
        r->cand_failed = run_failed(r->cand);
        /* interference that could have moved a round's median by the threshold */
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
}

/* The paired statistics and verdict of rounds that all measured. 0, -1 out
 * of memory. */
static int judge_rounds(harness_compare_pair *p, const harness_ab_round *rounds, size_t n,
                        const harness_compare_options *o)
{
    double *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    if (!b || !c) {
        free(b);
        free(c);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        b[i] = rounds[i].base_median;
        c[i] = rounds[i].cand_median;
    }
    int rc = harness_compare_paired(b, c, n, o, &p->s);
    if (rc == -2) {
        p->s.verdict = HARNESS_VERDICT_AMBIGUOUS;
        strcpy(p->s.why, "a round's median is 0 ns: below what the clock resolves");
        rc = 0;
    } else if (rc == 0) {
        /* No busy-machine veto here: load that lasts a round slows both
         * of its halves, which is what the pairing divides out; load that
         * comes and goes moves single rounds, which the sign test and its
         * interval count as one round each, whatever their size. */
        harness_compare_decide(&p->s, o, NULL, NULL);
    }
    /* display: the medians of the rounds' medians */
    p->s.base_median = harness_median(b, n);
    p->s.cand_median = harness_median(c, n);
    free(b);
    free(c);
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
    if (failed < per)
        judge_failed_round(p, &rounds[failed]);
    else if (judge_rounds(p, rounds, per, &out->opts) != 0)
        return harness_cmp_oom(err);
    p->s.base_lo = p->s.base_hi = p->s.cand_lo = p->s.cand_hi = NAN;
    harness_cmp_judge_failed(p);
    if ((strcmp(p->base->variant_key, p->cand->variant_key) != 0 || !cJSON_Compare(p->base->config, p->cand->config, 1)) &&
        harness_cmp_add_note(out, err, "base is %s {%s}, cand is %s {%s}", p->base->variant_key,
                             p->base->config_text, p->cand->variant_key, p->cand->config_text) != 0)
        return err->code;
    if (busy && harness_cmp_add_note(out, err, "%s {%s}: %zu of %zu rounds had interference that could have moved a "
                                     "median by the threshold; the pairs divide out load that lasts a round",
                                     p->base->variant_key, p->base->config_text, busy, per) != 0)
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
