/* print_comparison_json.c - the JSON printer of a comparison
 * (HARNESS_COMPARE_SCHEMA, docs/ARCHITECTURE.md section 8): every pair with both
 * runs, its interval, p and verdict, the tail, an A/B run's rounds, the
 * unmatched and incomplete runs, the notes and the method. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>

#include "compare/folder_ranks.h"
#include "compare/metric.h"
#include "compare/print_comparison.h"
#include "compare/print_json.h"
#include "util/json_number.h"
#include "util/json_utf8.h"

static void add_pair_array(cJSON *o, const char *key, double lo, double hi)
{
    if (isnan(lo) && isnan(hi)) {          /* no samples */
        cJSON_AddNullToObject(o, key);
    } else if (isfinite(lo) && isfinite(hi)) {
        double v[2] = {lo, hi};
        cJSON_AddItemToObject(o, key, cJSON_CreateDoubleArray(v, 2));
    } else {
        cJSON *a = cJSON_AddArrayToObject(o, key);
        cJSON_AddItemToArray(a, isfinite(lo) ? cJSON_CreateNumber(lo) : cJSON_CreateNull());
        cJSON_AddItemToArray(a, isfinite(hi) ? cJSON_CreateNumber(hi) : cJSON_CreateNull());
    }
}

static cJSON *run_json(const harness_run_summary *r, double median, double lo, double hi)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "path", r->path);
    cJSON_AddStringToObject(o, "folder", r->folder);
    cJSON_AddStringToObject(o, "status", r->status);
    if (r->error)
        cJSON_AddStringToObject(o, "error", r->error);
    else
        cJSON_AddNullToObject(o, "error");
    cJSON_AddBoolToObject(o, "validation_failed", r->validation_failed);
    cJSON_AddNumberToObject(o, "n", (double)r->n_samples);
    harness_json_add_num(o, "median", median);
    add_pair_array(o, "ci95_median", lo, hi);
    return o;
}

/* A side's run with its time median and CI (ns), whatever the metric. */
static cJSON *run_time_json(const harness_run_summary *r)
{
    int has = r->n_samples > 0;
    return run_json(r, has ? r->stats.median : NAN, has ? r->stats.ci95_lo : NAN, has ? r->stats.ci95_hi : NAN);
}

/* The metric's values when not the median: base_value_ns and
 * cand_value_ns, or for energy base_value_j and cand_value_j (joules per
 * step). */
static void add_values(cJSON *o, harness_metric m, double base, double cand)
{
    if (m == HARNESS_METRIC_MEDIAN)
        return;
    int time = harness_metric_is_time(m);
    harness_json_add_num(o, time ? "base_value_ns" : "base_value_j", base);
    harness_json_add_num(o, time ? "cand_value_ns" : "cand_value_j", cand);
}

static cJSON *key_json(const harness_run_summary *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "variant_key", r->variant_key);
    cJSON_AddItemToObject(o, "config", cJSON_Duplicate(r->config, 1));
    cJSON_AddNumberToObject(o, "rank", r->rank);
    cJSON_AddNumberToObject(o, "world_size", r->world_size);
    return o;
}

/* One pair's object of the "pairs" array. */
static cJSON *pair_json(const harness_comparison *c, const harness_compare_pair *p)
{
    const harness_compare_stats *s = &p->s;
    cJSON *o = key_json(p->base);
    if (c->by_rank) {   /* paired by rank alone: the candidate's own key */
        cJSON_AddStringToObject(o, "cand_variant_key", p->cand->variant_key);
        cJSON_AddItemToObject(o, "cand_config", cJSON_Duplicate(p->cand->config, 1));
    }
    if (harness_metric_is_time(c->opts.metric)) {
        cJSON_AddItemToObject(o, "base", run_json(p->base, s->base_median, s->base_lo, s->base_hi));
        cJSON_AddItemToObject(o, "cand", run_json(p->cand, s->cand_median, s->cand_lo, s->cand_hi));
    } else {                       /* energy: base.median stays the time's, in ns, as readers expect */
        cJSON_AddItemToObject(o, "base", run_time_json(p->base));
        cJSON_AddItemToObject(o, "cand", run_time_json(p->cand));
    }
    harness_json_add_num(o, "ratio", s->ratio);
    add_pair_array(o, "ratio_interval", s->ratio_lo, s->ratio_hi);
    harness_json_add_num(o, "ratio_interval_coverage", s->coverage);
    harness_json_add_num(o, "change_pct", (s->ratio - 1.0) * 100.0);
    cJSON *reps = cJSON_AddObjectToObject(o, "replicates");
    cJSON_AddStringToObject(reps, "unit", s->unit ? s->unit : "windows");
    cJSON_AddNumberToObject(reps, "base", (double)s->n_base);
    cJSON_AddNumberToObject(reps, "cand", (double)s->n_cand);
    harness_json_add_num(o, "p", s->p);
    if (c->n_rounds)               /* harness ab only: compare's report stays as it was */
        harness_json_add_num(o, "signed_rank_p", s->signed_rank_p);
    harness_json_add_num(o, "min_p", s->min_p);
    /* the p the verdict used when several pairs were judged together */
    harness_json_add_num(o, "q_fdr", s->fdr_m > 1 ? s->q : NAN);
    cJSON_AddStringToObject(o, "verdict", harness_verdict_token(s->verdict));
    if (s->verdict == HARNESS_VERDICT_AMBIGUOUS)
        cJSON_AddStringToObject(o, "ambiguous_cause", harness_ambiguity_token(s->cause));
    else
        cJSON_AddNullToObject(o, "ambiguous_cause");
    cJSON_AddNumberToObject(o, "busy_replicates", (double)s->n_busy);
    cJSON_AddBoolToObject(o, "processes_disagree", s->processes_disagree);
    add_values(o, c->opts.metric, s->base_median, s->cand_median);
    cJSON *tail = cJSON_AddObjectToObject(o, "tail");
    cJSON_AddStringToObject(tail, "metric", "p90");
    harness_json_add_num(tail, "ratio", p->tail.s.ratio);
    add_pair_array(tail, "ratio_interval", p->tail.s.ratio_lo, p->tail.s.ratio_hi);
    harness_json_add_num(tail, "p", p->tail.s.p);
    cJSON_AddStringToObject(tail, "verdict", harness_verdict_token(p->tail.s.verdict));
    cJSON_AddBoolToObject(tail, "moved_alone", p->tail.moved_alone);
    if (s->why[0])
        cJSON_AddStringToObject(o, "why", s->why);
    if (p->reason[0])
        cJSON_AddStringToObject(o, "reason", p->reason);
    return o;
}

/* An A/B run's "rounds": one object a round, medians in ns. */
static cJSON *rounds_json(const harness_comparison *c)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < c->n_rounds; i++) {
        const harness_ab_round *r = &c->rounds[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "benchmark", (double)(r->benchmark + 1));   /* its pair, from 1 */
        cJSON_AddNumberToObject(o, "round", (double)(r->round + 1));
        cJSON_AddStringToObject(o, "first", r->base_first ? "base" : "cand");
        harness_json_add_num(o, "base_median_ns", r->base_median);
        harness_json_add_num(o, "cand_median_ns", r->cand_median);
        add_values(o, c->opts.metric, r->base_value, r->cand_value);
        harness_json_add_num(o, "ratio", r->ratio);
        cJSON_AddStringToObject(o, "base_status", r->base->status);
        cJSON_AddStringToObject(o, "cand_status", r->cand->status);
        cJSON_AddBoolToObject(o, "failed", r->base_failed || r->cand_failed);
        cJSON_AddBoolToObject(o, "busy", r->base_busy || r->cand_busy);
        cJSON_AddStringToObject(o, "base_folder", r->base->folder);
        cJSON_AddStringToObject(o, "cand_folder", r->cand->folder);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

/* "unmatched": the runs of one side only, with their side and path. */
static void add_unmatched(cJSON *root, const harness_comparison *c)
{
    cJSON *unmatched = cJSON_AddArrayToObject(root, "unmatched");
    for (int side = 0; side < 2; side++) {
        const harness_run_summary *const *u = side ? c->unmatched_cand : c->unmatched_base;
        size_t n = side ? c->n_unmatched_cand : c->n_unmatched_base;
        for (size_t i = 0; i < n; i++) {
            cJSON *o = key_json(u[i]);
            cJSON_AddStringToObject(o, "side", side ? "cand" : "base");
            cJSON_AddStringToObject(o, "path", u[i]->path);
            cJSON_AddItemToArray(unmatched, o);
        }
    }
}

/* "incomplete": the ranks that left no summary, with why. */
static void add_incomplete(cJSON *root, const harness_comparison *c)
{
    cJSON *incomplete = cJSON_AddArrayToObject(root, "incomplete");
    for (int side = 0; side < 2; side++) {
        const harness_compare_side *sd = side ? &c->cand : &c->base;
        for (size_t i = 0; i < sd->n_incomplete; i++) {
            const harness_incomplete_run *r = &sd->incomplete[i];
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "side", side ? "cand" : "base");
            cJSON_AddStringToObject(o, "folder", r->folder);
            cJSON_AddNumberToObject(o, "rank", r->rank);
            if (r->world_size > 0)
                cJSON_AddNumberToObject(o, "world_size", r->world_size);
            else
                cJSON_AddNullToObject(o, "world_size");
            cJSON_AddStringToObject(o, "status", r->status);
            if (r->error)
                cJSON_AddStringToObject(o, "error", r->error);
            else
                cJSON_AddNullToObject(o, "error");
            if (r->variant_key)
                cJSON_AddStringToObject(o, "variant_key", r->variant_key);
            else
                cJSON_AddNullToObject(o, "variant_key");
            cJSON_AddStringToObject(o, "why", harness_rank_files_why(r->status));
            cJSON_AddItemToArray(incomplete, o);
        }
    }
}

int harness_print_comparison_json(FILE *f, const harness_comparison *c, const harness_text_style *style)
{
    (void)style;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", HARNESS_COMPARE_SCHEMA);
    cJSON_AddStringToObject(root, "base", print_cmp_root(&c->base));
    cJSON_AddStringToObject(root, "cand", print_cmp_root(&c->cand));
    cJSON_AddNumberToObject(root, "threshold_pct", c->opts.threshold * 100.0);   /* percent, as on the CLI */
    cJSON_AddNumberToObject(root, "alpha", c->opts.alpha);
    cJSON_AddStringToObject(root, "on_ambiguous", harness_on_ambiguous_name(c->opts.on_ambiguous));
    cJSON_AddStringToObject(root, "metric", harness_metric_name(c->opts.metric));
    cJSON_AddStringToObject(root, "matched_by", c->by_rank ? "rank" : "variant_key,config,rank,world_size");
    cJSON_AddStringToObject(root, "verdict", harness_verdict_token(c->overall));
    cJSON_AddNumberToObject(root, "exit_code", harness_comparison_exit_code(c));
    cJSON *counts = cJSON_AddObjectToObject(root, "counts");
    for (int v = 0; v < HARNESS_VERDICT_COUNT; v++)
        cJSON_AddNumberToObject(counts, harness_verdict_token((harness_verdict)v), (double)c->counts[v]);
    cJSON_AddNumberToObject(counts, "unmatched_base", (double)c->n_unmatched_base);
    cJSON_AddNumberToObject(counts, "unmatched_cand", (double)c->n_unmatched_cand);

    cJSON *pairs = cJSON_AddArrayToObject(root, "pairs");
    for (size_t i = 0; i < c->n_pairs; i++)
        cJSON_AddItemToArray(pairs, pair_json(c, &c->pairs[i]));
    if (c->n_rounds)
        cJSON_AddItemToObject(root, "rounds", rounds_json(c));
    add_unmatched(root, c);
    add_incomplete(root, c);
    cJSON *notes = cJSON_AddArrayToObject(root, "notes");
    for (size_t i = 0; i < c->n_notes; i++)
        cJSON_AddItemToArray(notes, cJSON_CreateString(c->notes[i]));
    cJSON_AddStringToObject(root, "method", print_cmp_method(c));

    harness_json_scrub_utf8(root);  /* names from file names: any bytes */
    return harness_print_json(f, root);
}
