/* print_comparison.c - what the printers of a comparison share
 * (print_comparison.h): the cells of the pairs' and the rounds' tables, the
 * headline's counts and causes, the method in words. */
#include "compare/print_comparison.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare/folder_ranks.h"
#include "compare/metric.h"
#include "util/format.h"

/* "base median" and "cand median" name the metric compared */
static const char *const headers_[PRINT_CMP_COLS] = {"variant", "config", "rank", "base median", "cand median",
                                                     "ratio", "interval (coverage)", "change", "p90 ratio",
                                                     "replicates", "p", "verdict"};

/* The table's headers for a comparison's metric (valid until the next call). */
const char *const *print_cmp_headers(const harness_comparison *c)
{
    static char base[32], cand[32];
    static const char *h[PRINT_CMP_COLS];
    memcpy(h, headers_, sizeof h);
    snprintf(base, sizeof base, "base %s", harness_metric_name(c->opts.metric));
    snprintf(cand, sizeof cand, "cand %s", harness_metric_name(c->opts.metric));
    h[3] = base;
    h[4] = cand;
    return h;
}

/* "[0.981, 1.032] 96.8%": the interval with the coverage it really has. */
static const char *fmt_ci(double lo, double hi, double coverage, char *buf, size_t cap)
{
    char a[32], b[32], c[32];
    if (isnan(lo) || isnan(hi))
        return "-";
    snprintf(buf, cap, "[%s, %s] %s", harness_format_ratio(lo, a, sizeof a), harness_format_ratio(hi, b, sizeof b),
             harness_format_share(coverage, c, sizeof c));
    return buf;
}

void print_cmp_row(const harness_comparison *c, const harness_compare_pair *pr, print_cmp_cells *r)
{
    const harness_compare_stats *s = &pr->s;
    harness_metric m = c->opts.metric;
    snprintf(r->rank, sizeof r->rank, "%d/%d", pr->base->rank, pr->base->world_size);
    r->cell[0] = pr->base->variant_key;
    r->cell[1] = pr->base->config_text;
    r->cell[2] = r->rank;
    r->cell[3] = harness_metric_format(m, s->base_median, r->base, sizeof r->base);
    r->cell[4] = harness_metric_format(m, s->cand_median, r->cand, sizeof r->cand);
    r->cell[5] = harness_format_ratio(s->ratio, r->ratio, sizeof r->ratio);
    r->cell[6] = fmt_ci(s->ratio_lo, s->ratio_hi, s->coverage, r->ci, sizeof r->ci);
    r->cell[7] = harness_format_change(s->ratio, r->change, sizeof r->change);
    r->cell[8] = harness_format_ratio(pr->tail.s.ratio, r->tail, sizeof r->tail);
    snprintf(r->reps, sizeof r->reps, "%zu/%zu %s", s->n_base, s->n_cand, s->unit ? s->unit : "windows");
    r->cell[9] = r->reps;
    r->cell[10] = harness_format_p(s->p, r->p, sizeof r->p);
    r->cell[PRINT_CMP_COL_VERDICT] = harness_verdict_label(s->verdict);
}

const char *print_cmp_plural(size_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* "FOLDER: rank 0/2" or, when the folder does not say its job's size, "FOLDER". */
const char *print_cmp_incomplete_where(const harness_incomplete_run *r, char *buf, size_t cap)
{
    if (r->world_size > 0)
        snprintf(buf, cap, "%s: rank %d/%d", r->folder, r->rank, r->world_size);
    else
        snprintf(buf, cap, "%s", r->folder);
    return buf;
}

/* "1 regression, 0 improvements, 2 same, 1 ambiguous, 1 failed, 1 unmatched" */
void print_cmp_counts(FILE *f, const harness_comparison *c)
{
    const size_t *k = c->counts;
    size_t unmatched = c->n_unmatched_base + c->n_unmatched_cand;
    fprintf(f, "%zu %s, %zu %s, %zu same", k[HARNESS_VERDICT_REGRESSION],
            print_cmp_plural(k[HARNESS_VERDICT_REGRESSION], "regression", "regressions"),
            k[HARNESS_VERDICT_IMPROVEMENT], print_cmp_plural(k[HARNESS_VERDICT_IMPROVEMENT], "improvement",
                                                             "improvements"), k[HARNESS_VERDICT_SAME]);
    if (k[HARNESS_VERDICT_AMBIGUOUS])
        fprintf(f, ", %zu ambiguous", k[HARNESS_VERDICT_AMBIGUOUS]);
    if (k[HARNESS_VERDICT_FAILED])
        fprintf(f, ", %zu failed", k[HARNESS_VERDICT_FAILED]);
    if (unmatched)
        fprintf(f, ", %zu unmatched", unmatched);
}

/* " (interference)" or " (2 unresolved, 1 interference)": the causes of
 * the AMBIGUOUS pairs, for the headline of an AMBIGUOUS comparison. */
void print_cmp_causes(FILE *f, const harness_comparison *c)
{
    if (c->overall != HARNESS_VERDICT_AMBIGUOUS)
        return;
    size_t n[HARNESS_AMBIGUOUS_COUNT] = {0}, kinds = 0;
    for (size_t i = 0; i < c->n_pairs; i++)
        if (c->pairs[i].s.verdict == HARNESS_VERDICT_AMBIGUOUS)
            kinds += n[c->pairs[i].s.cause]++ == 0;
    const char *sep = " (";
    for (int a = 1; a < HARNESS_AMBIGUOUS_COUNT; a++) {
        if (!n[a])
            continue;
        if (kinds > 1)
            fprintf(f, "%s%zu %s", sep, n[a], harness_ambiguity_label((harness_ambiguity)a));
        else
            fprintf(f, "%s%s", sep, harness_ambiguity_label((harness_ambiguity)a));
        sep = ", ";
    }
    if (kinds)
        fputc(')', f);
}

void print_cmp_params(FILE *f, const harness_comparison *c)
{
    fprintf(f, "metric %s, threshold %g%%, alpha %g, ambiguous %s", harness_metric_name(c->opts.metric),
            c->opts.threshold * 100.0, c->opts.alpha,
            c->opts.on_ambiguous == HARNESS_ON_AMBIGUOUS_FAIL   ? "fails"
            : c->opts.on_ambiguous == HARNESS_ON_AMBIGUOUS_PASS ? "passes"
                                                                : "passes only on interference");
}

/* "the p90 moved +30.2% [1.251, 1.334] (REGRESSION by the p90) while the median did not" */
void print_cmp_tail_text(char *buf, size_t cap, const harness_comparison *c, const harness_compare_pair *p)
{
    const harness_compare_stats *t = &p->tail.s;
    snprintf(buf, cap, "the p90 moved %+.1f%% [%.3f, %.3f] (%s by the p90) while the %s did not; gate on the tail "
             "with --metric p90", (t->ratio - 1.0) * 100.0, t->ratio_lo, t->ratio_hi, harness_verdict_label(t->verdict),
             harness_metric_name(c->opts.metric));
}

const char *print_cmp_root(const harness_compare_side *s)
{
    return s->root ? s->root : "-";
}

const char *print_cmp_side_kind(const harness_compare_side *s)
{
    return s->is_database ? "results database" : s->is_parent ? "folder of experiments" : "experiment folder";
}

static const char ab_method_text[] =
    "replicates: interleaved A/B rounds, base and cand back to back in each (the order alternating), each a "
    "fresh process, so the interval is over processes; ratio: median of the paired ratios cand_i / base_i "
    "(with an even count of rounds, the geometric mean of the middle two); interval: sign test (binomial "
    "order statistics of the paired ratios), with its exact coverage; p: two-sided exact sign test on the "
    "rounds (a wild round counts as one; the Wilcoxon signed-rank p, for reference, is the JSON's "
    "signed_rank_p); verdict: a change when the interval clears the threshold and p (q in a suite) <= alpha";

static const char method_text_[] =
    "replicates: the runs when a side holds several of one key (processes), else the windows of its one run "
    "(which share its offset: they bound a change, never call one, and get no p); never per-step samples. "
    "ratio: Hodges-Lehmann estimate of cand / base (median of the pairwise ratios of replicate values); "
    "interval: Moses, with its exact coverage; p: two-sided exact Wilcoxon-Mann-Whitney rank-sum test on the "
    "runs; verdict: a change when the interval clears the threshold and p (q with several pairs) <= alpha";

/* The method of a comparison: A/B rounds or replicates of runs. */
const char *print_cmp_method(const harness_comparison *c)
{
    return c->n_pairs && c->pairs[0].s.unit && strcmp(c->pairs[0].s.unit, "rounds") == 0 ? ab_method_text
                                                                                            : method_text_;
}

/* ---- the rounds of an A/B run ---- */

static const char *const round_headers_[PRINT_CMP_ROUND_COLS] = {"round", "first", "base median",
                                                                 "cand median", "cand/base", "state"};

/* The rounds' headers for a comparison's metric (valid until the next call). */
const char *const *print_cmp_round_headers(const harness_comparison *c)
{
    static const char *h[PRINT_CMP_ROUND_COLS];
    const char *const *pairs = print_cmp_headers(c);
    memcpy(h, round_headers_, sizeof h);
    h[2] = pairs[3];
    h[3] = pairs[4];
    return h;
}

/* "ok", "busy (cand)", "FAILED (base)", "FAILED (base, cand), busy (base)": what
 * to make of the round, failures first. */
static const char *round_state(const harness_ab_round *r, char *buf, size_t cap)
{
    static const char *const which[4] = {"", "base", "cand", "base, cand"};
    int failed = r->base_failed | r->cand_failed << 1, busy = r->base_busy | r->cand_busy << 1;
    if (!failed && !busy)
        return "ok";
    if (failed && busy)
        snprintf(buf, cap, "FAILED (%s), busy (%s)", which[failed], which[busy]);
    else
        snprintf(buf, cap, "%s (%s)", failed ? "FAILED" : "busy", which[failed ? failed : busy]);
    return buf;
}

void print_cmp_round_row(const harness_comparison *c, const harness_ab_round *r, print_cmp_round_cells *out)
{
    if (c->n_pairs > 1)
        snprintf(out->round, sizeof out->round, "%zu/%zu", r->benchmark + 1, r->round + 1);
    else
        snprintf(out->round, sizeof out->round, "%zu", r->round + 1);
    out->cell[0] = out->round;
    out->cell[1] = r->base_first ? "base" : "cand";
    out->cell[2] = harness_metric_format(c->opts.metric, r->base_value, out->base, sizeof out->base);
    out->cell[3] = harness_metric_format(c->opts.metric, r->cand_value, out->cand, sizeof out->cand);
    out->cell[4] = harness_format_ratio(r->ratio, out->ratio, sizeof out->ratio);
    out->cell[5] = round_state(r, out->state, sizeof out->state);
}
