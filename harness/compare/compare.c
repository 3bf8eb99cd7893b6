/* compare.c - match runs, judge pairs (docs/ARCHITECTURE.md section 8). Loading the
 * summaries is in compare_load.c, the reports in the printers (printer.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* vasprintf, before any system header */
#endif
#include "compare/compare.h"
#include "compare/compare_internal.h"
#include "compare/metric.h"
#include "compare/process_spread.h"
#include "compare/run_groups.h"
#include "compare/run_mismatch.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- matching ---------------------------------------------------------------- */

int harness_cmp_add_note(harness_comparison *c, harness_error *err, const char *fmt, ...)
{
    char **grown = realloc(c->notes, (c->n_notes + 1) * sizeof *grown);
    if (!grown)
        return harness_cmp_oom(err);
    c->notes = grown;
    va_list ap;
    va_start(ap, fmt);
    int rc = vasprintf(&c->notes[c->n_notes], fmt, ap);
    va_end(ap);
    if (rc < 0)
        return harness_cmp_oom(err);
    c->n_notes++;
    return 0;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s && s[1] ? s + 1 : path;
}

/* Newer: the greater folder name (timestamps, then the "-2" suffixes), then path. */
int harness_cmp_newer(const harness_run_summary *a, const harness_run_summary *b)
{
    int c = harness_cmp_natural_cmp(base_name(a->folder), base_name(b->folder));
    if (c == 0)
        c = strcmp(a->path, b->path);
    return c > 0;
}

/* Sort order of the report: variant, config, world size, rank. */
int harness_cmp_run_order(const void *pa, const void *pb)
{
    const harness_run_summary *a = *(const harness_run_summary *const *)pa;
    const harness_run_summary *b = *(const harness_run_summary *const *)pb;
    int c = strcmp(a->variant_key, b->variant_key);
    if (c == 0)
        c = harness_cmp_natural_cmp(a->config_text, b->config_text);
    if (c == 0)
        c = (a->world_size > b->world_size) - (a->world_size < b->world_size);
    if (c == 0)
        c = (a->rank > b->rank) - (a->rank < b->rank);
    if (c == 0)
        c = strcmp(a->path, b->path);
    return c;
}

/* The newest run of each key on one side (groups: by the full key), sorted;
 * a note for each key with several runs. A run is kept when no run of its
 * group is newer, so only each group's newest needs finding. */
static int pick_newest(harness_comparison *c, const harness_compare_side *side, const harness_run_groups *groups,
                       const char *label, const harness_run_summary ***out, size_t *n_out, harness_error *err)
{
    *n_out = 0;
    *out = malloc((side->n_runs ? side->n_runs : 1) * sizeof **out);
    size_t *newest = malloc((groups->n_groups ? groups->n_groups : 1) * sizeof *newest);
    if (!*out || !newest) {
        free(newest);
        return harness_cmp_oom(err);
    }
    for (size_t g = 0; g < groups->n_groups; g++) {
        newest[g] = groups->member[groups->start[g]];
        for (size_t k = groups->start[g] + 1; k < groups->start[g + 1]; k++)
            if (harness_cmp_newer(&side->runs[groups->member[k]], &side->runs[newest[g]]))
                newest[g] = groups->member[k];
    }
    for (size_t i = 0; i < side->n_runs; i++) {
        const harness_run_summary *r = &side->runs[i];
        size_t same = harness_run_groups_of(groups, i, NULL);
        if (harness_cmp_newer(&side->runs[newest[groups->group[i]]], r))
            continue;
        (*out)[(*n_out)++] = r;
        if (same > 1 && harness_cmp_add_note(c, err, "%s: %zu runs of %s {%s} rank %d/%d; their medians are the replicates, "
                                 "the newest by folder name is shown, %s",
                                 label, same, r->variant_key, r->config_text, r->rank, r->world_size,
                                 r->folder) != 0) {
            free(newest);
            return err->code;
        }
    }
    free(newest);
    qsort(*out, *n_out, sizeof **out, harness_cmp_run_order);
    return 0;
}

void harness_cmp_judge_failed(harness_compare_pair *p)
{
    const harness_run_summary *sides[2] = {p->base, p->cand};
    static const char *const labels[2] = {"base", "cand"};
    size_t len = 0;
    for (int i = 0; i < 2; i++) {
        const harness_run_summary *r = sides[i];
        const char *why = NULL;
        if (strcmp(r->status, "ok") != 0)
            why = r->status;
        else if (r->validation_failed)
            why = "validation failed";
        if (!why || len >= sizeof p->reason)
            continue;
        len += (size_t)snprintf(p->reason + len, sizeof p->reason - len, "%s%s %s%s%s%.400s", len ? "; " : "",
                                labels[i], strcmp(r->status, "ok") != 0 ? "status " : "", why,
                                r->error ? " (" : "", r->error ? r->error : "");
        if (r->error && len < sizeof p->reason)
            len += (size_t)snprintf(p->reason + len, sizeof p->reason - len, ")");
    }
    if (p->reason[0])
        p->s.verdict = HARNESS_VERDICT_FAILED;
}

/* The interference of the runs a side's replicates came from: the run of
 * median bound among them (its evidence shown), as the verdict rests on
 * a median of theirs; runs whose summary does not say are left out. */
static void side_noise(const harness_run_summary *const *runs, size_t n, harness_side_noise *out)
{
    out->bound = NAN;
    out->evidence = NULL;
    size_t known = 0;
    for (size_t k = 0; k < n; k++)
        known += !isnan(runs[k]->noise_bound);
    size_t want = known ? (known - 1) / 2 : 0, below;
    for (size_t k = 0; known && k < n; k++) {
        const harness_run_summary *x = runs[k];
        if (isnan(x->noise_bound))
            continue;
        below = 0;                 /* its rank among the known bounds, ties broken by position */
        for (size_t j = 0; j < n; j++) {
            double y = runs[j]->noise_bound;
            below += !isnan(y) && (y < x->noise_bound || (y == x->noise_bound && j < k));
        }
        if (below == want) {
            out->bound = x->noise_bound;
            out->evidence = x->noise_evidence;
            return;
        }
    }
}

/* One side's replicates for a pair: its values under a metric, their unit,
 * and the runs they came from (in the side's order). */
typedef struct side_reps {
    double *vals;
    size_t n;
    const char *unit;              /* "runs" or "windows" */
    const harness_run_summary **runs;
    size_t n_runs;
} side_reps;

static void side_reps_free(side_reps *r)
{
    free(r->vals);
    free(r->runs);
}

/* The replicates of run r's side: every usable run of r's key when the
 * side holds two or more (runs differ by more than windows of one run do,
 * so they are the better unit), else r's windows. 0, or -1 out of memory. */
static int side_replicates(const harness_compare_side *side, const harness_run_groups *groups,
                           const harness_run_summary *r, harness_metric metric, side_reps *out)
{
    const size_t *same_runs;
    size_t same = harness_run_groups_of(groups, (size_t)(r - side->runs), &same_runs);
    memset(out, 0, sizeof *out);
    out->vals = malloc((same + r->n_windows + 1) * sizeof *out->vals);
    out->runs = malloc((same + 1) * sizeof *out->runs);
    if (!out->vals || !out->runs)
        return -1;
    for (size_t k = 0; k < same; k++) {
        const harness_run_summary *x = &side->runs[same_runs[k]];
        /* a run without the metric's value (energy not measured) is no replicate of it */
        if (strcmp(x->status, "ok") != 0 || x->validation_failed || !x->n_samples ||
            isnan(harness_run_metric(x, metric)))
            continue;
        out->runs[out->n_runs++] = x;
        out->vals[out->n++] = harness_run_metric(x, metric);
    }
    out->unit = "runs";
    if (out->n < 2) {
        out->n = 0;
        if (harness_window_metrics(r, metric, out->vals) != 0)
            return -1;
        for (size_t w = 0; w < r->n_windows; w++)   /* NaN: a tail of a run that kept no samples */
            if (!isnan(out->vals[w]))
                out->vals[out->n++] = out->vals[w];
        out->unit = "windows";
        out->runs[0] = r;
        out->n_runs = 1;
    }
    return 0;
}

static const char *unit_of(const char *b, const char *k)
{
    if (strcmp(b, k) == 0)
        return b;
    return strcmp(b, "runs") == 0 ? "runs/windows" : "windows/runs";
}

/* Runs among a side's replicate runs whose interference could have moved
 * them by the threshold. */
static size_t busy_runs(const side_reps *r, double threshold)
{
    size_t busy = 0;
    for (size_t i = 0; strcmp(r->unit, "runs") == 0 && i < r->n_runs; i++)
        busy += r->runs[i]->noise_bound >= threshold;
    return busy;
}

/* Whether the runs of either side disagree beyond their windows: the side
 * of smaller p, that p doubled (Bonferroni over the two sides). 0, -1 out
 * of memory. */
static int side_spread(const side_reps *b, const side_reps *k, harness_metric metric, double min_apart,
                       harness_process_spread *out)
{
    harness_process_spread sb, sk;
    if (harness_process_spread_runs(b->runs, b->n_runs, metric, min_apart, &sb) != 0 ||
        harness_process_spread_runs(k->runs, k->n_runs, metric, min_apart, &sk) != 0)
        return -1;
    *out = sb.p <= sk.p ? sb : sk;
    out->p = fmin(1.0, 2.0 * out->p);
    return 0;
}

/* The statistics and verdict of a pair's replicates under one metric
 * (not yet adjusted with the other pairs). 0, or -1 out of memory. */
static int judge_metric(harness_comparison *c, harness_compare_pair *p, const harness_run_groups *base_groups,
                        const harness_run_groups *cand_groups, harness_metric metric, harness_compare_stats *s,
                        harness_process_spread *spread_out)
{
    side_reps b, k;
    if (side_replicates(&c->base, base_groups, p->base, metric, &b) != 0 ||
        side_replicates(&c->cand, cand_groups, p->cand, metric, &k) != 0) {
        side_reps_free(&b);
        side_reps_free(&k);
        return -1;
    }
    s->unit = unit_of(b.unit, k.unit);
    s->ratio = s->ratio_lo = s->ratio_hi = s->coverage = s->p = NAN;
    s->min_p = 1;
    side_noise(b.runs, b.n_runs, &p->base_noise);
    side_noise(k.runs, k.n_runs, &p->cand_noise);
    int rc = harness_cmp_replicate_stats(b.vals, b.n, k.vals, k.n, &c->opts, s);
    harness_process_spread spread = {0};
    if (rc == 0 && side_spread(&b, &k, metric, c->opts.threshold / 2, &spread) != 0)
        rc = -1;
    if (rc == 0 || rc == -2) {
        s->n_busy = busy_runs(&b, c->opts.threshold) + busy_runs(&k, c->opts.threshold);
        s->processes_disagree = spread.p < HARNESS_PROCESS_SPREAD_ALPHA;
        s->step_ns = fmax(p->base->stats.median, p->cand->stats.median);
    }
    if (rc == 0 && strstr(s->unit, "windows"))
        s->p = s->min_p = NAN; /* windows share their run's offset: a p from them would not test the change */
    side_reps_free(&b);
    side_reps_free(&k);
    if (spread_out)
        *spread_out = spread;
    if (rc == -2) {
        s->verdict = HARNESS_VERDICT_AMBIGUOUS;
        s->cause = HARNESS_AMBIGUOUS_NO_REPLICATES;
        snprintf(s->why, sizeof s->why, "a replicate's %s is 0 %s: below what the %s resolves",
                 harness_metric_name(metric), harness_metric_is_time(metric) ? "ns" : "J",
                 harness_metric_is_time(metric) ? "clock" : "energy counter");
        return 0;
    }
    if (rc == 0)
        harness_compare_decide(s, &c->opts, &p->base_noise, &p->cand_noise);
    if (rc == 0 && !harness_metric_is_time(metric) && s->cause == HARNESS_AMBIGUOUS_NO_REPLICATES)
        snprintf(s->why, sizeof s->why, "no energy per step to compare (%zu base, %zu cand %s measured): no energy "
                 "counter, or windows too short to measure (the summaries' energy.status says which)", s->n_base,
                 s->n_cand, s->unit);
    return rc;
}

/* The pair's tail beside its metric: the p90 judged alone; the metric's own
 * statistics when the metric is the p90. */
void harness_cmp_tail_moved(harness_compare_pair *p)
{
    harness_verdict t = p->tail.s.verdict, v = p->s.verdict;
    p->tail.moved_alone = (t == HARNESS_VERDICT_REGRESSION || t == HARNESS_VERDICT_IMPROVEMENT) && t != v &&
                          v != HARNESS_VERDICT_FAILED;
}

int harness_cmp_note_spread(harness_comparison *c, const harness_compare_pair *p,
                            const harness_process_spread *spread, const char *unit, harness_error *err)
{
    return harness_cmp_add_note(c, err, "%s {%s} rank %d/%d: the processes disagree beyond their windows' spread: "
                                "in %zu of %zu pairs of %s the windows do not overlap (%.2g expected if the "
                                "processes were alike, p = %.2g); the interval is over processes, so it carries "
                                "that spread", p->base->variant_key, p->base->config_text, p->base->rank,
                                p->base->world_size, spread->apart, spread->pairs, unit, spread->expected,
                                spread->p);
}

/* base_groups, cand_groups: each side's runs by the matching key. */
static int judge(harness_comparison *c, harness_compare_pair *p, const harness_run_groups *base_groups,
                 const harness_run_groups *cand_groups, harness_error *err)
{
    const harness_run_summary *b = p->base, *k = p->cand;
    harness_compare_stats *s = &p->s;
    memset(s, 0, sizeof *s);
    memset(&p->tail, 0, sizeof p->tail);
    harness_process_spread spread;
    if (judge_metric(c, p, base_groups, cand_groups, HARNESS_METRIC_P90, &p->tail.s, NULL) != 0 ||
        judge_metric(c, p, base_groups, cand_groups, c->opts.metric, s, &spread) != 0)
        return harness_cmp_oom(err);
    harness_cmp_tail_moved(p);
    if (s->processes_disagree && harness_cmp_note_spread(c, p, &spread, "consecutive runs of a side", err) != 0)
        return err->code;
    /* display: the newest runs' values and CIs of their medians */
    s->base_median = harness_run_metric(b, c->opts.metric);
    s->cand_median = harness_run_metric(k, c->opts.metric);
    int time = harness_metric_is_time(c->opts.metric);   /* energy has no CI of its own here */
    s->base_lo = b->n_samples && time ? b->stats.ci95_lo : NAN;
    s->base_hi = b->n_samples && time ? b->stats.ci95_hi : NAN;
    s->cand_lo = k->n_samples && time ? k->stats.ci95_lo : NAN;
    s->cand_hi = k->n_samples && time ? k->stats.ci95_hi : NAN;
    if (c->base.is_database && strncmp(s->unit, "runs", 4) == 0) {
        /* --baseline-db: the base shown is the level used, not its newest run */
        side_reps reps;
        harness_stats level;
        int rc = side_replicates(&c->base, base_groups, b, c->opts.metric, &reps);
        if (rc == 0 && harness_stats_compute(reps.vals, reps.n, &level) == 0) {
            s->base_median = level.median;
            s->base_lo = level.ci95_lo;
            s->base_hi = level.ci95_hi;
        }
        side_reps_free(&reps);
    }
    harness_cmp_judge_failed(p);
    if (strchr(s->unit, '/') &&
        harness_cmp_add_note(c, err, "%s {%s} rank %d/%d: replicates are %s (base/cand): runs carry run-to-run offsets that "
                 "windows of one run do not", b->variant_key, b->config_text, b->rank, b->world_size, s->unit) != 0)
        return err->code;
    for (int side = 0; side < 2; side++) {
        const harness_run_summary *r = side ? k : b;
        if (r->windows_disagree && s->verdict != HARNESS_VERDICT_FAILED &&
            harness_cmp_add_note(c, err, "%s {%s} rank %d/%d: the %s run's windows disagree; the interval is as wide as that "
                     "disagreement (%s)", b->variant_key, b->config_text, b->rank, b->world_size,
                     side ? "cand" : "base", r->folder) != 0)
            return err->code;
    }
    if (c->by_rank && (strcmp(b->variant_key, k->variant_key) != 0 || !cJSON_Compare(b->config, k->config, 1)) &&
        harness_cmp_add_note(c, err, "rank %d/%d: base is %s {%s}, cand is %s {%s}; compared as given (two experiment folders)",
                 b->rank, b->world_size, b->variant_key, b->config_text, k->variant_key, k->config_text) != 0)
        return err->code;
    if (b->device_name && k->device_name && strcmp(b->device_name, k->device_name) != 0 &&
        harness_cmp_add_note(c, err, "%s {%s} rank %d/%d: base ran on %s, cand on %s", b->variant_key, b->config_text, b->rank,
                 b->world_size, b->device_name, k->device_name) != 0)
        return err->code;
    return 0;
}

/* Whether r's rank left no summary on the other side: two experiment
 * folders pair by rank, and such a run is not "unmatched" there, since that
 * rank's FAILED line says why it has no partner. */
static int rank_incomplete(const harness_compare_side *other, const harness_run_summary *r)
{
    for (size_t i = 0; i < other->n_incomplete; i++) {
        const harness_incomplete_run *x = &other->incomplete[i];
        if (x->rank == r->rank && (x->world_size == 0 || x->world_size == r->world_size))
            return 1;
    }
    return 0;
}

/* Each base run (newest of its key, in report order) takes the first cand
 * run of its matching key not taken yet, in report order: the cand runs
 * are bucketed by their side's group (a counting sort keeps report order
 * within a bucket), and a base run's bucket is found by its key. */
static int pair_up(harness_comparison *c, const harness_run_summary **base, size_t nb,
                   const harness_run_summary **cand, size_t nc, const harness_run_groups *bg,
                   const harness_run_groups *cg, harness_error *err)
{
    size_t *next = calloc(cg->n_groups + 1, sizeof *next);
    size_t *end = malloc((cg->n_groups + 1) * sizeof *end);
    size_t *slot = malloc((nc ? nc : 1) * sizeof *slot);
    char *taken = calloc(nc ? nc : 1, 1);
    int rc = 0;
    if (!next || !end || !slot || !taken)
        rc = harness_cmp_oom(err);
    for (size_t j = 0; rc == 0 && j < nc; j++)
        next[cg->group[cand[j] - c->cand.runs] + 1]++;
    for (size_t g = 0; rc == 0 && g < cg->n_groups; g++)
        next[g + 1] += next[g];
    for (size_t g = 0; rc == 0 && g < cg->n_groups; g++)
        end[g] = next[g + 1];
    for (size_t j = 0; rc == 0 && j < nc; j++)
        slot[next[cg->group[cand[j] - c->cand.runs]]++] = j;
    for (size_t g = 0; rc == 0 && g < cg->n_groups; g++)
        next[g] = g ? end[g - 1] : 0;
    for (size_t i = 0; rc == 0 && i < nb; i++) {
        size_t g = harness_run_groups_find(cg, bg->key[base[i] - c->base.runs]);
        if (g == (size_t)-1 || next[g] == end[g]) {
            if (!c->by_rank || !rank_incomplete(&c->cand, base[i]))
                c->unmatched_base[c->n_unmatched_base++] = base[i];
            continue;
        }
        size_t j = slot[next[g]++];
        taken[j] = 1;
        harness_compare_pair *p = &c->pairs[c->n_pairs++];
        memset(p, 0, sizeof *p);
        p->base = base[i];
        p->cand = cand[j];
        rc = judge(c, p, bg, cg, err);
    }
    for (size_t j = 0; rc == 0 && j < nc; j++)
        if (!taken[j] && (!c->by_rank || !rank_incomplete(&c->base, cand[j])))
            c->unmatched_cand[c->n_unmatched_cand++] = cand[j];
    free(next);
    free(end);
    free(slot);
    free(taken);
    return rc;
}

static int match(harness_comparison *c, harness_error *err)
{
    const harness_run_summary **base = NULL, **cand = NULL;
    size_t nb = 0, nc = 0;
    /* full: the key that makes runs replicates of one experiment; by the
     * matching key (rank alone for two experiment folders) runs pair up. */
    harness_run_groups base_full = {0}, cand_full = {0}, base_by_rank = {0}, cand_by_rank = {0};
    int rc = 0;
    if (harness_run_groups_build(c->base.runs, c->base.n_runs, 0, &base_full) != 0 ||
        harness_run_groups_build(c->cand.runs, c->cand.n_runs, 0, &cand_full) != 0 ||
        (c->by_rank && (harness_run_groups_build(c->base.runs, c->base.n_runs, 1, &base_by_rank) != 0 ||
                        harness_run_groups_build(c->cand.runs, c->cand.n_runs, 1, &cand_by_rank) != 0)))
        rc = harness_cmp_oom(err);
    const harness_run_groups *bg = c->by_rank ? &base_by_rank : &base_full;
    const harness_run_groups *cg = c->by_rank ? &cand_by_rank : &cand_full;
    if (rc == 0)
        rc = pick_newest(c, &c->base, &base_full, "base", &base, &nb, err);
    if (rc == 0)
        rc = pick_newest(c, &c->cand, &cand_full, "cand", &cand, &nc, err);
    c->pairs = rc == 0 ? malloc((nb ? nb : 1) * sizeof *c->pairs) : NULL;
    c->unmatched_base = rc == 0 ? malloc((nb ? nb : 1) * sizeof *c->unmatched_base) : NULL;
    c->unmatched_cand = rc == 0 ? malloc((nc ? nc : 1) * sizeof *c->unmatched_cand) : NULL;
    if (rc == 0 && (!c->pairs || !c->unmatched_base || !c->unmatched_cand))
        rc = harness_cmp_oom(err);
    if (rc == 0)
        rc = pair_up(c, base, nb, cand, nc, bg, cg, err);
    harness_run_groups_free(&base_full);
    harness_run_groups_free(&cand_full);
    harness_run_groups_free(&base_by_rank);
    harness_run_groups_free(&cand_by_rank);
    free(base);
    free(cand);
    return rc;
}

/* Many pairs judged at alpha each would call about alpha of the unchanged
 * ones changed (2.5 false alarms in a suite of 50): with two or more pairs
 * that have a p, each is judged on its Benjamini-Hochberg adjusted p
 * instead, which keeps the expected share of false discoveries among the
 * changes called at alpha (independent or positively dependent tests). */
int harness_cmp_control_fdr(harness_comparison *c, harness_error *err)
{
    size_t m = 0;
    for (size_t i = 0; i < c->n_pairs; i++)
        m += c->pairs[i].s.verdict != HARNESS_VERDICT_FAILED && isfinite(c->pairs[i].s.p);
    if (m < 2)
        return 0;
    double *p = malloc(m * sizeof *p), *q = malloc(m * sizeof *q);
    if (!p || !q) {
        free(p);
        free(q);
        return harness_cmp_oom(err);
    }
    size_t k = 0;
    double least = 1;              /* the smallest p any pair can reach */
    for (size_t i = 0; i < c->n_pairs; i++)
        if (c->pairs[i].s.verdict != HARNESS_VERDICT_FAILED && isfinite(c->pairs[i].s.p)) {
            p[k++] = c->pairs[i].s.p;
            least = c->pairs[i].s.min_p < least ? c->pairs[i].s.min_p : least;
        }
    if (harness_bh_adjust(p, m, q) != 0) {
        free(p);
        free(q);
        return harness_cmp_oom(err);
    }
    k = 0;
    for (size_t i = 0; i < c->n_pairs; i++) {
        harness_compare_pair *pr = &c->pairs[i];
        if (pr->s.verdict == HARNESS_VERDICT_FAILED || !isfinite(pr->s.p))
            continue;
        pr->s.fdr_m = m;
        pr->s.q = q[k++];
        /* again, knowing m: "too few replicates" then counts the runs a
         * lone change among the m pairs needs */
        harness_compare_decide(&pr->s, &c->opts, &pr->base_noise, &pr->cand_noise);
    }
    free(p);
    free(q);
    int rc = harness_cmp_add_note(c, err, "%zu pairs judged together: a change is called when its p adjusted by "
                                  "Benjamini-Hochberg (q) is at most alpha %g, which bounds the expected share of "
                                  "false alarms among the changes called", m, c->opts.alpha);
    if (rc == 0 && least * (double)m > c->opts.alpha) {
        int rounds = c->n_pairs && c->pairs[0].s.unit && strcmp(c->pairs[0].s.unit, "rounds") == 0;
        size_t need = rounds ? harness_ab_rounds_needed(c->opts.alpha, m)
                             : harness_runs_needed(c->opts.alpha, m, NULL, NULL);
        rc = harness_cmp_add_note(c, err, "a lone change among %zu pairs needs p <= %.3g, below the least p these "
                                  "replicates reach (%.3g): %s %zu %s or more (%s %zu)", m,
                                  c->opts.alpha / (double)m, least, rounds ? "give ab" : "give each side", need,
                                  rounds ? "rounds" : "runs", rounds ? "--rounds" : "harness run --runs", need);
    }
    return rc;
}

void harness_cmp_take_sides(harness_comparison *out, harness_compare_side *base, harness_compare_side *cand,
                            const harness_compare_options *o)
{
    memset(out, 0, sizeof *out);
    out->opts = *o;
    out->base = *base;
    out->cand = *cand;
    memset(base, 0, sizeof *base);
    memset(cand, 0, sizeof *cand);
}

int harness_compare_sides(harness_compare_side *base, harness_compare_side *cand, const harness_compare_options *o,
                          harness_comparison *out, harness_error *err)
{
    harness_cmp_take_sides(out, base, cand, o);
    /* a results database is many runs of each key: matched by key, never by rank alone */
    out->by_rank = !out->base.is_parent && !out->cand.is_parent && !out->base.is_database && !out->cand.is_database;
    if (match(out, err) != 0)
        return err->code;
    size_t incomplete = out->base.n_incomplete + out->cand.n_incomplete;
    if (out->n_pairs == 0 && incomplete == 0) {
        char why[1024];
        harness_cmp_mismatch_text(&out->base, &out->cand, why, sizeof why);
        return harness_error_set(err, HARNESS_EXIT_USAGE,
                                 "%s: no run matches a run of %s (%zu and %zu runs; runs match by variant key, "
                                 "component config, rank and world size); nothing to compare%s%s",
                                 out->cand.root ? out->cand.root : "CAND", out->base.root ? out->base.root : "BASE",
                                 out->cand.n_runs, out->base.n_runs, why[0] ? ": " : "", why);
    }
    if (harness_cmp_control_fdr(out, err) != 0)
        return err->code;
    harness_cmp_tally(out);
    return 0;
}

void harness_cmp_tally(harness_comparison *out)
{
    out->overall = HARNESS_VERDICT_SAME;
    for (size_t i = 0; i < out->n_pairs; i++)
        out->counts[out->pairs[i].s.verdict]++;
    out->counts[HARNESS_VERDICT_FAILED] += out->base.n_incomplete + out->cand.n_incomplete;
    if (out->counts[HARNESS_VERDICT_REGRESSION])
        out->overall = HARNESS_VERDICT_REGRESSION;
    else if (out->counts[HARNESS_VERDICT_FAILED])
        out->overall = HARNESS_VERDICT_FAILED;
    else if (out->counts[HARNESS_VERDICT_AMBIGUOUS])
        out->overall = HARNESS_VERDICT_AMBIGUOUS;
    else if (out->counts[HARNESS_VERDICT_IMPROVEMENT])
        out->overall = HARNESS_VERDICT_IMPROVEMENT;
}

int harness_compare_dirs(const char *base, const char *cand, const harness_compare_options *o,
                         harness_comparison *out, harness_error *err)
{
    memset(out, 0, sizeof *out);
    harness_compare_side b, c;
    if (harness_compare_side_load(base, &b, err) != 0)
        return err->code;
    if (harness_compare_side_load(cand, &c, err) != 0) {
        harness_compare_side_free(&b);
        return err->code;
    }
    return harness_compare_sides(&b, &c, o, out, err);
}

int harness_comparison_exit_code(const harness_comparison *c)
{
    if (c->counts[HARNESS_VERDICT_REGRESSION] || c->counts[HARNESS_VERDICT_FAILED])
        return HARNESS_EXIT_VERDICT;
    if (c->opts.on_ambiguous == HARNESS_ON_AMBIGUOUS_FAIL && c->counts[HARNESS_VERDICT_AMBIGUOUS])
        return HARNESS_EXIT_VERDICT;
    for (size_t i = 0; c->opts.on_ambiguous == HARNESS_ON_AMBIGUOUS_PASS_INTERFERENCE && i < c->n_pairs; i++)
        if (c->pairs[i].s.verdict == HARNESS_VERDICT_AMBIGUOUS &&
            c->pairs[i].s.cause != HARNESS_AMBIGUOUS_INTERFERENCE)
            return HARNESS_EXIT_VERDICT;
    return HARNESS_EXIT_OK;
}

static const char *const on_ambiguous_names[] = {"pass", "fail", "pass-interference"};

const char *harness_on_ambiguous_name(harness_on_ambiguous v)
{
    return v <= HARNESS_ON_AMBIGUOUS_PASS_INTERFERENCE ? on_ambiguous_names[v] : "?";
}

int harness_on_ambiguous_parse(const char *arg, harness_on_ambiguous *out, harness_error *err)
{
    for (int v = 0; v <= HARNESS_ON_AMBIGUOUS_PASS_INTERFERENCE; v++)
        if (strcmp(arg, on_ambiguous_names[v]) == 0) {
            *out = (harness_on_ambiguous)v;
            return 0;
        }
    return harness_error_set(err, HARNESS_EXIT_USAGE, "--on-ambiguous: expected fail, pass or pass-interference, "
                             "got '%s'", arg);
}

void harness_comparison_free(harness_comparison *c)
{
    if (!c)
        return;
    harness_compare_side_free(&c->base);
    harness_compare_side_free(&c->cand);
    free(c->pairs);
    free(c->unmatched_base);
    free(c->unmatched_cand);
    for (size_t i = 0; i < c->n_notes; i++)
        free(c->notes[i]);
    free(c->notes);
    free(c->rounds);
    memset(c, 0, sizeof *c);
}
