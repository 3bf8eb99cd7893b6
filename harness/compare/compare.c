/* compare.c - match runs, judge pairs (DESIGN.md section 8). Loading the
 * summaries is in compare_load.c, the reports in compare_report.c. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* vasprintf, before any system header */
#endif
#include "compare/compare.h"
#include "compare/compare_internal.h"
#include "compare/compare_keys.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int harness_cmp_oom(harness_error *err)
{
    return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
}

/* ---- statistics and verdicts ------------------------------------------------- */

const char *harness_verdict_label(harness_verdict v)
{
    static const char *const names[] = {"no change", "IMPROVEMENT", "REGRESSION", "FAILED"};
    return v < HARNESS_VERDICT_COUNT ? names[v] : "?";
}

const char *harness_verdict_token(harness_verdict v)
{
    static const char *const names[] = {"no_change", "improvement", "regression", "failed"};
    return v < HARNESS_VERDICT_COUNT ? names[v] : "?";
}

harness_verdict harness_compare_verdict(double ratio, double p, const harness_compare_options *o)
{
    if (!(p < o->alpha))
        return HARNESS_VERDICT_NO_CHANGE;
    if (ratio > 1.0 + o->threshold)
        return HARNESS_VERDICT_REGRESSION;
    if (ratio < 1.0 - o->threshold)
        return HARNESS_VERDICT_IMPROVEMENT;
    return HARNESS_VERDICT_NO_CHANGE;
}

/* x / y for durations: 0 / 0 is no change, x / 0 is infinitely slower. */
static double div_ns(double x, double y)
{
    if (y > 0)
        return x / y;
    if (y == 0)
        return x == 0 ? 1.0 : INFINITY;
    return NAN;
}

static void ratio_of(const harness_stats *b, const harness_stats *c, harness_compare_stats *out)
{
    out->base_median = b->n ? b->median : NAN;
    out->base_lo = b->n ? b->ci95_lo : NAN;
    out->base_hi = b->n ? b->ci95_hi : NAN;
    out->cand_median = c->n ? c->median : NAN;
    out->cand_lo = c->n ? c->ci95_lo : NAN;
    out->cand_hi = c->n ? c->ci95_hi : NAN;
    if (b->n && c->n) {
        out->ratio = div_ns(c->median, b->median);
        /* Conservative: the extreme quotients of the two medians' 95% CIs.
         * It covers the true ratio whenever both CIs cover their medians, so
         * with probability >= 0.95^2 = 0.9025 for independent runs under any
         * distribution; adding the two half-widths rather than combining them
         * in quadrature makes its actual coverage much higher (about 99% for
         * two equally wide, roughly normal intervals). */
        out->ratio_lo = div_ns(c->ci95_lo, b->ci95_hi);
        out->ratio_hi = div_ns(c->ci95_hi, b->ci95_lo);
    } else {
        out->ratio = out->ratio_lo = out->ratio_hi = NAN;
    }
}

int harness_compare_samples(const double *base, size_t nb, const double *cand, size_t nc,
                            const harness_compare_options *o, harness_compare_stats *out)
{
    harness_stats b, c;
    if (harness_stats_compute(base, nb, &b) != 0 || harness_stats_compute(cand, nc, &c) != 0)
        return -1;
    ratio_of(&b, &c, out);
    out->p = NAN;
    out->verdict = HARNESS_VERDICT_NO_CHANGE;
    if (nb == 0 || nc == 0)
        return 0;
    out->p = harness_mann_whitney_p(base, nb, cand, nc);
    if (isnan(out->p))
        return -1;
    out->verdict = harness_compare_verdict(out->ratio, out->p, o);
    return 0;
}

/* ---- matching ---------------------------------------------------------------- */

static int add_note(harness_comparison *c, harness_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int add_note(harness_comparison *c, harness_error *err, const char *fmt, ...)
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
static int newer(const harness_run_summary *a, const harness_run_summary *b)
{
    int c = harness_cmp_natural_cmp(base_name(a->folder), base_name(b->folder));
    if (c == 0)
        c = strcmp(a->path, b->path);
    return c > 0;
}

/* Sort order of the report: variant, config, world size, rank. */
static int run_order(const void *pa, const void *pb)
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

/* The newest run of each key on one side, sorted; notes for the others.
 * Runs are grouped by their key (compare/compare_keys.h): O(n log n). */
static int pick_newest(harness_comparison *c, const harness_compare_side *side, const char *label,
                       const harness_run_summary ***out, size_t *n_out, harness_error *err)
{
    *n_out = 0;
    size_t n = side->n_runs;
    const harness_run_summary **all = calloc(n ? n : 1, sizeof *all);
    *out = malloc((n ? n : 1) * sizeof **out);
    if (!all || !*out) {
        free(all);
        return harness_cmp_oom(err);
    }
    for (size_t i = 0; i < n; i++)
        all[i] = &side->runs[i];
    harness_run_key *keys = NULL;
    int rc = harness_run_keys(all, n, 0, &keys, err);
    free(all);
    for (size_t i = 0; rc == 0 && i < n;) {
        size_t end = i + 1, newest = i;
        while (end < n && strcmp(keys[end].key, keys[i].key) == 0) {
            if (newer(keys[end].run, keys[newest].run))
                newest = end;
            end++;
        }
        const harness_run_summary *r = keys[newest].run;
        (*out)[(*n_out)++] = r;
        if (end - i > 1)
            rc = add_note(c, err, "%s: %zu runs of %s {%s} rank %d/%d; using the newest by folder name, %s", label,
                          end - i, r->variant_key, r->config_text, r->rank, r->world_size, r->folder);
        i = end;
    }
    harness_run_keys_free(keys, n);
    if (rc != 0)
        return rc;
    qsort(*out, *n_out, sizeof **out, run_order);
    return 0;
}

static void judge_failed(harness_compare_pair *p)
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

static int judge(harness_comparison *c, harness_compare_pair *p, harness_error *err)
{
    const harness_run_summary *b = p->base, *k = p->cand;
    ratio_of(&b->stats, &k->stats, &p->s);
    p->s.p = NAN;
    p->s.verdict = HARNESS_VERDICT_NO_CHANGE;
    if (b->n_samples && k->n_samples) {
        p->s.p = harness_mann_whitney_p(b->samples, b->n_samples, k->samples, k->n_samples);
        if (isnan(p->s.p))
            return harness_cmp_oom(err);
        p->s.verdict = harness_compare_verdict(p->s.ratio, p->s.p, &c->opts);
    }
    judge_failed(p);
    if (p->s.verdict != HARNESS_VERDICT_FAILED && (b->n_samples < 8 || k->n_samples < 8) &&
        add_note(c, err, "%s {%s} rank %d/%d: only %zu and %zu samples; the U test's normal approximation is "
                 "rough below 8", b->variant_key, b->config_text, b->rank, b->world_size, b->n_samples,
                 k->n_samples) != 0)
        return err->code;
    if (c->by_rank && (strcmp(b->variant_key, k->variant_key) != 0 || !cJSON_Compare(b->config, k->config, 1)) &&
        add_note(c, err, "rank %d/%d: base is %s {%s}, cand is %s {%s}; compared as given (two experiment folders)",
                 b->rank, b->world_size, b->variant_key, b->config_text, k->variant_key, k->config_text) != 0)
        return err->code;
    if (b->device_name && k->device_name && strcmp(b->device_name, k->device_name) != 0 &&
        add_note(c, err, "%s {%s} rank %d/%d: base ran on %s, cand on %s", b->variant_key, b->config_text, b->rank,
                 b->world_size, b->device_name, k->device_name) != 0)
        return err->code;
    return 0;
}

/* Each base run with the candidate run of the same key, found by binary
 * search in the candidates' sorted keys. */
static int match(harness_comparison *c, harness_error *err)
{
    const harness_run_summary **base = NULL, **cand = NULL;
    size_t nb = 0, nc = 0;
    harness_run_key *cand_keys = NULL, *base_keys = NULL;
    int rc = pick_newest(c, &c->base, "base", &base, &nb, err);
    if (rc == 0)
        rc = pick_newest(c, &c->cand, "cand", &cand, &nc, err);
    if (rc == 0)
        rc = harness_run_keys(cand, nc, c->by_rank, &cand_keys, err);
    if (rc == 0)
        rc = harness_run_keys(base, nb, c->by_rank, &base_keys, err);
    char *taken = rc == 0 ? calloc(nc ? nc : 1, 1) : NULL;                 /* by index into cand_keys */
    const harness_run_summary **matched = rc == 0 ? calloc(nb ? nb : 1, sizeof *matched) : NULL;
    c->pairs = rc == 0 ? malloc((nb ? nb : 1) * sizeof *c->pairs) : NULL;
    c->unmatched_base = rc == 0 ? malloc((nb ? nb : 1) * sizeof *c->unmatched_base) : NULL;
    c->unmatched_cand = rc == 0 ? malloc((nc ? nc : 1) * sizeof *c->unmatched_cand) : NULL;
    if (rc == 0 && (!taken || !matched || !c->pairs || !c->unmatched_base || !c->unmatched_cand))
        rc = harness_cmp_oom(err);
    /* Pair in base's key order (equal keys: the first candidate not taken),
     * then report in base's run order. */
    for (size_t i = 0; rc == 0 && i < nb; i++) {
        size_t j = harness_run_keys_find(cand_keys, nc, base_keys[i].key);
        while (j < nc && taken[j] && strcmp(cand_keys[j].key, base_keys[i].key) == 0)
            j++;
        if (j < nc && !taken[j] && strcmp(cand_keys[j].key, base_keys[i].key) == 0) {
            taken[j] = 1;
            matched[base_keys[i].index] = cand_keys[j].run;
        }
    }
    for (size_t i = 0; rc == 0 && i < nb; i++) {
        if (!matched[i]) {
            c->unmatched_base[c->n_unmatched_base++] = base[i];
            continue;
        }
        harness_compare_pair *p = &c->pairs[c->n_pairs++];
        memset(p, 0, sizeof *p);
        p->base = base[i];
        p->cand = matched[i];
        rc = judge(c, p, err);
    }
    /* Unmatched candidates in their report order. */
    for (size_t j = 0; rc == 0 && j < nc; j++)
        if (!taken[j])
            c->unmatched_cand[c->n_unmatched_cand++] = cand_keys[j].run;
    if (rc == 0)
        qsort(c->unmatched_cand, c->n_unmatched_cand, sizeof *c->unmatched_cand, run_order);
    harness_run_keys_free(cand_keys, nc);
    harness_run_keys_free(base_keys, nb);
    free(matched);
    free(taken);
    free(base);
    free(cand);
    return rc;
}

int harness_compare_sides(harness_compare_side *base, harness_compare_side *cand, const harness_compare_options *o,
                          harness_comparison *out, harness_error *err)
{
    memset(out, 0, sizeof *out);
    out->opts = *o;
    out->base = *base;
    out->cand = *cand;
    memset(base, 0, sizeof *base);
    memset(cand, 0, sizeof *cand);
    out->by_rank = !out->base.is_parent && !out->cand.is_parent;
    if (match(out, err) != 0)
        return err->code;
    if (out->n_pairs == 0)
        return harness_error_set(err, HARNESS_EXIT_USAGE,
                                 "%s: no run matches a run of %s (%zu and %zu runs; runs match by variant key, "
                                 "component config, rank and world size); nothing to compare",
                                 out->cand.root ? out->cand.root : "CAND", out->base.root ? out->base.root : "BASE",
                                 out->cand.n_runs, out->base.n_runs);
    out->overall = HARNESS_VERDICT_NO_CHANGE;
    for (size_t i = 0; i < out->n_pairs; i++)
        out->counts[out->pairs[i].s.verdict]++;
    if (out->counts[HARNESS_VERDICT_REGRESSION])
        out->overall = HARNESS_VERDICT_REGRESSION;
    else if (out->counts[HARNESS_VERDICT_FAILED])
        out->overall = HARNESS_VERDICT_FAILED;
    else if (out->counts[HARNESS_VERDICT_IMPROVEMENT])
        out->overall = HARNESS_VERDICT_IMPROVEMENT;
    return 0;
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
    return c->counts[HARNESS_VERDICT_REGRESSION] || c->counts[HARNESS_VERDICT_FAILED] ? HARNESS_EXIT_VERDICT
                                                                                       : HARNESS_EXIT_OK;
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
    memset(c, 0, sizeof *c);
}
