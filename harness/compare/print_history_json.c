/* print_history_json.c - the JSON printer of a history (schema
 * harness.history/1): the method's options, each series' machine, key and
 * config, every run with its CI, coverage and noise, every change point with
 * the interference where it begins. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "compare/print_history.h"
#include "compare/print_json.h"
#include "util/json_number.h"

static void add_str(cJSON *o, const char *k, const char *v)
{
    if (v)
        cJSON_AddStringToObject(o, k, v);
    else
        cJSON_AddNullToObject(o, k);
}

/* A change point's "interference": the runs set aside for it where it
 * begins ({index, commit, noise_bound, evidence}), and "note" in words
 * (null when none). */
static void add_interference(cJSON *q, const harness_series *s, size_t c)
{
    size_t n = harness_history_cp_interference(s, c, NULL, 0);
    size_t *runs = n ? malloc(n * sizeof *runs) : NULL;
    cJSON *arr = cJSON_AddArrayToObject(q, "interference");
    if (n && runs) {
        harness_history_cp_interference(s, c, runs, n);
        for (size_t i = 0; i < n; i++) {
            const harness_history_point *p = &s->points[runs[i]];
            cJSON *o = cJSON_CreateObject();
            cJSON_AddNumberToObject(o, "index", (double)runs[i]);
            add_str(o, "commit", p->commit);
            harness_json_add_num(o, "noise_bound", p->noise_bound);
            add_str(o, "evidence", p->noise_evidence);
            add_str(o, "set_aside", hist_set_aside_name(p));   /* null: kept, its value at a level */
            cJSON_AddItemToArray(arr, o);
        }
    }
    free(runs);
    char *note = hist_interference_text(s, c);
    add_str(q, "note", note);
    free(note);
}

static void add_points(cJSON *o, const harness_series *s)
{
    cJSON *pts = cJSON_AddArrayToObject(o, "points");
    for (size_t k = 0; k < s->n_points; k++) {
        const harness_history_point *p = &s->points[k];
        cJSON *q = cJSON_CreateObject();
        cJSON_AddStringToObject(q, "experiment", p->experiment);
        add_str(q, "commit", p->commit);
        add_str(q, "branch", p->branch);
        harness_json_add_num(q, "value", p->value);     /* the metric's: what the change points are found in */
        harness_json_add_num(q, "median", p->median);
        cJSON *ci = cJSON_AddArrayToObject(q, "ci95_median");
        cJSON_AddItemToArray(ci, isfinite(p->ci_lo) ? cJSON_CreateNumber(p->ci_lo) : cJSON_CreateNull());
        cJSON_AddItemToArray(ci, isfinite(p->ci_hi) ? cJSON_CreateNumber(p->ci_hi) : cJSON_CreateNull());
        harness_json_add_num(q, "ci_level", p->ci_level);   /* ci95_median's real coverage, as in the summary */
        cJSON_AddNumberToObject(q, "n", (double)p->n);
        harness_json_add_num(q, "noise_bound", p->noise_bound);   /* null: unknown (recorded before schema 2) */
        add_str(q, "noise_evidence", p->noise_evidence);
        add_str(q, "set_aside", hist_set_aside_name(p));   /* left out of the change-point search, and why */
        cJSON_AddBoolToObject(q, "outlier", p->set_aside == HARNESS_CP_OUTLIER);   /* kept from schema 1 */
        cJSON_AddItemToArray(pts, q);
    }
}

static void add_change_points(cJSON *o, const harness_series *s)
{
    cJSON *cps = cJSON_AddArrayToObject(o, "change_points");
    for (size_t c = 0; c < s->n_cps; c++) {
        const harness_change_point *cp = &s->cps[c];
        cJSON *q = cJSON_CreateObject();
        cJSON_AddNumberToObject(q, "index", (double)cp->index);
        add_str(q, "commit", s->points[cp->index].commit);
        cJSON_AddStringToObject(q, "experiment", s->points[cp->index].experiment);
        harness_json_add_num(q, "before_median", cp->before);
        harness_json_add_num(q, "after_median", cp->after);
        harness_json_add_num(q, "change_pct", hist_change_pct(cp));
        cJSON_AddNumberToObject(q, "p", cp->p);
        add_interference(q, s, c);
        cJSON_AddItemToArray(cps, q);
    }
}

static cJSON *series_json(const harness_series *s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *mach = cJSON_AddObjectToObject(o, "machine");
    cJSON_AddStringToObject(mach, "host", s->host);
    cJSON_AddStringToObject(mach, "cpu", s->cpu);
    cJSON_AddStringToObject(mach, "gpu", s->gpu);
    cJSON_AddStringToObject(o, "variant_key", s->variant_key);
    cJSON_AddStringToObject(o, "config_hash", s->config_hash);
    cJSON *cfg = cJSON_Parse(s->config);
    cJSON_AddItemToObject(o, "config", cfg ? cfg : cJSON_CreateNull());
    cJSON_AddNumberToObject(o, "world_size", s->world_size);
    cJSON_AddNumberToObject(o, "rank", s->rank);
    add_points(o, s);
    add_change_points(o, s);
    return o;
}

int harness_print_history_json(FILE *f, const harness_history *h)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", "harness.history/1");
    cJSON_AddStringToObject(root, "db", h->db_path);
    cJSON *m = cJSON_AddObjectToObject(root, "method");
    cJSON_AddStringToObject(m, "name", "e-divisive means, permutation test, runs with interference and outliers "
                            "left out");
    cJSON_AddNumberToObject(m, "alpha", h->cp.alpha);
    cJSON_AddNumberToObject(m, "permutations", h->cp.permutations);
    cJSON_AddNumberToObject(m, "min_size", (double)h->cp.min_size);
    cJSON_AddNumberToObject(m, "min_change_pct", h->cp.min_change * 100.0);
    /* a run whose noise bound reaches this is set aside ("set_aside": "interference") */
    cJSON_AddNumberToObject(m, "noise_limit_pct", harness_cp_noise_limit(&h->cp) * 100.0);
    cJSON_AddStringToObject(root, "metric", harness_metric_name(h->metric));
    cJSON *arr = cJSON_AddArrayToObject(root, "series");
    for (size_t i = 0; i < h->n_series; i++)
        cJSON_AddItemToArray(arr, series_json(&h->series[i]));
    return harness_print_json(f, root);
}
