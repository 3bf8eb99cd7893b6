/* history_report.c - the reports of `harness history` in text, markdown
 * and JSON, and what they share with the HTML page (history_html.c): each
 * CI shown with the coverage its run recorded, not a nominal 95%; each run
 * with its noise bound and why it was set aside; a change point with the
 * interference where it begins. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* open_memstream */
#endif
#include "compare/history_internal.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/format.h"
#include "util/json_number.h"

const char *hist_fmt_ns(double ns, char *buf, size_t cap)
{
    return isfinite(ns) ? harness_format_ns(ns, buf, cap) : "-";
}

const char *hist_fmt_value(harness_metric m, double v, char *buf, size_t cap)
{
    return isfinite(v) ? harness_metric_format(m, v, buf, cap) : "-";
}

const char *hist_or_dash(const char *s)
{
    return s && s[0] ? s : "-";
}

/* The change point that starts at point k, or NULL. */
const harness_change_point *hist_cp_at(const harness_series *s, size_t k)
{
    for (size_t i = 0; i < s->n_cps; i++)
        if (s->cps[i].index == k)
            return &s->cps[i];
    return NULL;
}

/* A CI's coverage as "96.1%": the level a run's CI has (below 95% under 6
 * samples, a little above it from there), not a nominal "95%". */
const char *hist_fmt_level(double level, char *buf, size_t cap)
{
    if (!isfinite(level))
        return "-";
    snprintf(buf, cap, "%.1f%%", level * 100.0);
    return buf;
}

double hist_change_pct(const harness_change_point *c)
{
    return harness_cp_step(c) * 100.0;
}

/* A noise bound as "1.9%", "-" when unknown. */
const char *hist_fmt_bound(double bound, char *buf, size_t cap)
{
    if (!isfinite(bound))
        return "-";
    snprintf(buf, cap, "%.1f%%", bound * 100.0);
    return buf;
}

/* Why a run was left out of the search, or NULL. */
const char *hist_set_aside_name(const harness_history_point *p)
{
    return p->set_aside == HARNESS_CP_INTERFERENCE ? "interference" : p->set_aside == HARNESS_CP_OUTLIER ? "outlier"
                                                                                                        : NULL;
}

enum { MAX_NOTED = 8 };            /* runs named per change point; a longer stretch is counted */

/* "coincides with interference at run #N: EVIDENCE" for each run set aside
 * for interference where change point c begins, each line after `lead`
 * and ended by `end`. */
static void interference_notes(FILE *f, const harness_series *s, size_t c, const char *lead, const char *end)
{
    size_t runs[MAX_NOTED];
    size_t n = harness_history_cp_interference(s, c, runs, MAX_NOTED);
    for (size_t i = 0; i < n && i < MAX_NOTED; i++) {
        const harness_history_point *p = &s->points[runs[i]];
        char b[32];
        fprintf(f, "%scoincides with interference at run #%zu: %s", lead, runs[i] + 1,
                p->noise_evidence ? p->noise_evidence : "");
        if (!p->noise_evidence)
            fprintf(f, "a noise bound of %s", hist_fmt_bound(p->noise_bound, b, sizeof b));
        fputs(end, f);
    }
    if (n > MAX_NOTED)
        fprintf(f, "%sand %zu more runs with interference%s", lead, n - MAX_NOTED, end);
}

/* interference_notes of change point c as one malloc'ed line, the notes
 * parted by "; "; NULL when there are none (or out of memory). */
char *hist_interference_text(const harness_series *s, size_t c)
{
    char *note = NULL;
    size_t len = 0;
    FILE *f = harness_history_cp_interference(s, c, NULL, 0) ? open_memstream(&note, &len) : NULL;
    if (!f)
        return NULL;
    interference_notes(f, s, c, "", "; ");
    if (fclose(f) != 0) {
        free(note);
        return NULL;
    }
    if (len >= 2)
        note[len - 2] = '\0';     /* the last "; " */
    return note;
}

/* "2 runs set aside for interference (#6, #24), 1 outlier (#10)" after
 * `lead`, or nothing when the search kept every run. */
void hist_set_aside_line(FILE *f, const harness_series *s, const char *lead, const char *end)
{
    static const int kinds[2] = {HARNESS_CP_INTERFERENCE, HARNESS_CP_OUTLIER};
    size_t count[2] = {0, 0};
    for (size_t k = 0; k < s->n_points; k++)
        for (int i = 0; i < 2; i++)
            count[i] += s->points[k].set_aside == kinds[i];
    if (!count[0] && !count[1])
        return;
    fputs(lead, f);
    for (int i = 0; i < 2; i++) {
        if (!count[i])
            continue;
        if (i == 1 && count[0])
            fputs(", ", f);
        fprintf(f, i == 0 ? "%zu run%s set aside for interference (" : "%zu outlier%s (", count[i],
                count[i] == 1 ? "" : "s");
        const char *sep = "";
        for (size_t k = 0; k < s->n_points; k++)
            if (s->points[k].set_aside == kinds[i]) {
                fprintf(f, "%s#%zu", sep, k + 1);
                sep = ", ";
            }
        fputc(')', f);
    }
    fputs(end, f);
}

static void series_title(FILE *f, const harness_series *s, size_t i)
{
    fprintf(f, "series %zu: %s %s config %.8s, rank %d/%d, on %s (%s, %s): %zu run%s, %zu change point%s", i + 1,
            s->variant_key, s->config, s->config_hash, s->rank, s->world_size, s->host, s->cpu, s->gpu,
            s->n_points, s->n_points == 1 ? "" : "s", s->n_cps, s->n_cps == 1 ? "" : "s");
}

const char hist_method[] = "change points: E-divisive means (Matteson & James 2014) with a permutation test, "
                             "runs with interference and outliers left out";

/* " (each run's median, alpha 0.01, 499 permutations, steps under 2%
 * dropped, a run with a noise bound of 2% or more set aside when ..." -
 * the caller closes it. */
void hist_method_options(FILE *f, const harness_history *h)
{
    const harness_cp_options *o = &h->cp;
    double limit = harness_cp_noise_limit(o) * 100.0;
    fprintf(f, " (each run's %s, alpha %g, %d permutations, steps under %g%% dropped, a run with a noise bound of %g%% "
            "or more set aside when it sits %g%% above the runs around it", harness_metric_name(h->metric), o->alpha,
            o->permutations, o->min_change * 100.0, limit, limit);
}

/* A row's mark: the change point it starts, why it was set aside. */
static void text_mark(FILE *f, const harness_series *s, size_t k)
{
    const char *why = hist_set_aside_name(&s->points[k]);
    if (hist_cp_at(s, k))
        fputs("  <- change point", f);
    if (why)
        fprintf(f, "  (set aside: %s)", why);
}

static void text_report(FILE *f, const harness_history *h)
{
    int other = h->metric != HARNESS_METRIC_MEDIAN;   /* a column of its own before the median's */
    const char *metric = harness_metric_name(h->metric);
    fprintf(f, "history of %s: %zu series\n", h->db_path, h->n_series);
    for (size_t i = 0; i < h->n_series; i++) {
        const harness_series *s = &h->series[i];
        fputc('\n', f);
        series_title(f, s, i);
        hist_set_aside_line(f, s, "\n  ", "");
        fprintf(f, "\n  %4s  %-14s  %-32s  ", "#", "commit", "experiment");
        if (other)
            fprintf(f, "%12s  ", metric);
        fprintf(f, "%12s  %6s  %s\n", "median", "noise", "CI of the median, its coverage");
        for (size_t k = 0; k < s->n_points; k++) {
            const harness_history_point *p = &s->points[k];
            char v[32], m[32], nb[32], lo[32], hi[32], lv[32];
            fprintf(f, "  %4zu  %-14.14s  %-32s  ", k + 1, hist_or_dash(p->commit), p->experiment);
            if (other)
                fprintf(f, "%12s  ", hist_fmt_value(h->metric, p->value, v, sizeof v));
            fprintf(f, "%12s  %6s  [%s, %s] %s", hist_fmt_ns(p->median, m, sizeof m),
                    hist_fmt_bound(p->noise_bound, nb, sizeof nb), hist_fmt_ns(p->ci_lo, lo, sizeof lo),
                    hist_fmt_ns(p->ci_hi, hi, sizeof hi), hist_fmt_level(p->ci_level, lv, sizeof lv));
            text_mark(f, s, k);
            fputc('\n', f);
        }
        for (size_t c = 0; c < s->n_cps; c++) {
            const harness_change_point *cp = &s->cps[c];
            char b[32], a[32];
            fprintf(f, "  change at #%zu (commit %s): %s -> %s (%+.1f%%), p = %.3g\n", cp->index + 1,
                    hist_or_dash(s->points[cp->index].commit), hist_fmt_value(h->metric, cp->before, b, sizeof b),
                    hist_fmt_value(h->metric, cp->after, a, sizeof a), hist_change_pct(cp), cp->p);
            interference_notes(f, s, c, "    ", "\n");
        }
    }
    fprintf(f, "\n%s", hist_method);
    hist_method_options(f, h);
    fprintf(f, ", at least %zu runs a side)\n", h->cp.min_size);
}

/* ---- markdown ------------------------------------------------------------------- */

static void md_code(FILE *f, const char *s)
{
    fputc('`', f);
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", f);   /* ends a table cell even in a code span */
        else
            fputc(*s == '`' ? '\'' : *s == '\n' ? ' ' : *s, f);
    }
    fputc('`', f);
}

static void markdown_report(FILE *f, const harness_history *h)
{
    int other = h->metric != HARNESS_METRIC_MEDIAN;
    fprintf(f, "## harness history: %zu series\n", h->n_series);
    for (size_t i = 0; i < h->n_series; i++) {
        const harness_series *s = &h->series[i];
        fprintf(f, "\n### %zu. ", i + 1);
        md_code(f, s->variant_key);
        fputc(' ', f);
        md_code(f, s->config);
        fprintf(f, " rank %d/%d on ", s->rank, s->world_size);
        md_code(f, s->host);
        fprintf(f, "\n\n%zu run%s, %zu change point%s.", s->n_points, s->n_points == 1 ? "" : "s", s->n_cps,
                s->n_cps == 1 ? "" : "s");
        hist_set_aside_line(f, s, " Left out of the search: ", ".");
        fputc('\n', f);
        if (s->n_cps) {
            fputs("\n| at | commit | before | after | change | p | note |\n"
                  "| ---: | --- | ---: | ---: | ---: | ---: | --- |\n", f);
            for (size_t c = 0; c < s->n_cps; c++) {
                const harness_change_point *cp = &s->cps[c];
                char b[32], a[32];
                fprintf(f, "| %zu | ", cp->index + 1);
                md_code(f, hist_or_dash(s->points[cp->index].commit));
                fprintf(f, " | %s | %s | %+.1f%% | %.3g | ", hist_fmt_value(h->metric, cp->before, b, sizeof b),
                        hist_fmt_value(h->metric, cp->after, a, sizeof a), hist_change_pct(cp), cp->p);
                char *note = hist_interference_text(s, c);
                for (const char *t = note; t && *t; t++) {
                    if (*t == '|')
                        fputs("\\|", f);   /* a bare '|' would end the cell */
                    else
                        fputc(*t == '\n' ? ' ' : *t, f);
                }
                free(note);
                fputs(" |\n", f);
            }
        }
        fputs("\n| # | commit |", f);
        if (other)
            fprintf(f, " %s |", harness_metric_name(h->metric));
        fprintf(f, " median | noise | CI | coverage |\n| ---: | --- |%s ---: | ---: | ---: | ---: |\n",
                other ? " ---: |" : "");
        for (size_t k = 0; k < s->n_points; k++) {
            const harness_history_point *p = &s->points[k];
            char v[32], m[32], nb[32], lo[32], hi[32], lv[32];
            const char *why = hist_set_aside_name(p);
            fprintf(f, "| %zu%s%s%s | ", k + 1, hist_cp_at(s, k) ? " **change**" : "", why ? " set aside: " : "",
                    why ? why : "");
            md_code(f, hist_or_dash(p->commit));
            if (other)
                fprintf(f, " | %s", hist_fmt_value(h->metric, p->value, v, sizeof v));
            fprintf(f, " | %s | %s | [%s, %s] | %s |\n", hist_fmt_ns(p->median, m, sizeof m),
                    hist_fmt_bound(p->noise_bound, nb, sizeof nb), hist_fmt_ns(p->ci_lo, lo, sizeof lo),
                    hist_fmt_ns(p->ci_hi, hi, sizeof hi), hist_fmt_level(p->ci_level, lv, sizeof lv));
        }
    }
    fprintf(f, "\n<sub>%s", hist_method);
    hist_method_options(f, h);
    fputs(").</sub>\n", f);
}

/* ---- JSON ----------------------------------------------------------------------- */

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

static char *json_report(const harness_history *h)
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
    for (size_t i = 0; i < h->n_series; i++) {
        const harness_series *s = &h->series[i];
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
        cJSON_AddItemToArray(arr, o);
    }
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text)
        return NULL;
    size_t len = strlen(text);
    char *out = realloc(text, len + 2);
    if (!out) {
        free(text);
        return NULL;
    }
    out[len] = '\n';
    out[len + 1] = '\0';
    return out;
}

char *harness_history_report(const harness_history *h, harness_history_format fmt)
{
    if (fmt == HARNESS_HISTORY_JSON)
        return json_report(h);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    if (fmt == HARNESS_HISTORY_MARKDOWN)
        markdown_report(f, h);
    else if (fmt == HARNESS_HISTORY_HTML)
        harness_history_html(f, h);
    else
        text_report(f, h);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}
