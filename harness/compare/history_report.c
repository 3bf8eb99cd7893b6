/* history_report.c - the reports of `harness history`: text, markdown,
 * JSON, and one self-contained HTML page with an inline SVG chart per
 * series (points, CI bars, change points marked; no script, no network).
 * Each CI is shown with the coverage its run recorded, not a nominal 95%. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* open_memstream */
#endif
#include "compare/history.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/format.h"

static const char *fmt_ns(double ns, char *buf, size_t cap)
{
    return isfinite(ns) ? harness_format_ns(ns, buf, cap) : "-";
}

static const char *or_dash(const char *s)
{
    return s && s[0] ? s : "-";
}

/* The change point that starts at point k, or NULL. */
static const harness_change_point *cp_at(const harness_series *s, size_t k)
{
    for (size_t i = 0; i < s->n_cps; i++)
        if (s->cps[i].index == k)
            return &s->cps[i];
    return NULL;
}

/* A CI's coverage as "96.1%": the level a run's CI has (below 95% under 6
 * samples, a little above it from there), not a nominal "95%". */
static const char *fmt_level(double level, char *buf, size_t cap)
{
    if (!isfinite(level))
        return "-";
    snprintf(buf, cap, "%.1f%%", level * 100.0);
    return buf;
}

static double change_pct(const harness_change_point *c)
{
    return (c->after / c->before - 1.0) * 100.0;
}

static void series_title(FILE *f, const harness_series *s, size_t i)
{
    fprintf(f, "series %zu: %s %s config %.8s, rank %d/%d, on %s (%s, %s): %zu run%s, %zu change point%s", i + 1,
            s->variant_key, s->config, s->config_hash, s->rank, s->world_size, s->host, s->cpu, s->gpu,
            s->n_points, s->n_points == 1 ? "" : "s", s->n_cps, s->n_cps == 1 ? "" : "s");
}

static const char method[] = "change points: E-divisive means (Matteson & James 2014) with a permutation test";

static void text_report(FILE *f, const harness_history *h)
{
    fprintf(f, "history of %s: %zu series\n", h->db_path, h->n_series);
    for (size_t i = 0; i < h->n_series; i++) {
        const harness_series *s = &h->series[i];
        fputc('\n', f);
        series_title(f, s, i);
        fprintf(f, "\n  %4s  %-14s  %-32s  %12s  %s\n", "#", "commit", "experiment", "median",
                "CI of the median, its coverage");
        for (size_t k = 0; k < s->n_points; k++) {
            const harness_history_point *p = &s->points[k];
            char m[32], lo[32], hi[32], lv[32];
            fprintf(f, "  %4zu  %-14.14s  %-32s  %12s  [%s, %s] %s%s\n", k + 1, or_dash(p->commit), p->experiment,
                    fmt_ns(p->median, m, sizeof m), fmt_ns(p->ci_lo, lo, sizeof lo), fmt_ns(p->ci_hi, hi, sizeof hi),
                    fmt_level(p->ci_level, lv, sizeof lv), cp_at(s, k) ? "  <- change point" : "");
        }
        for (size_t c = 0; c < s->n_cps; c++) {
            const harness_change_point *cp = &s->cps[c];
            char b[32], a[32];
            fprintf(f, "  change at #%zu (commit %s): %s -> %s (%+.1f%%), p = %.3g\n", cp->index + 1,
                    or_dash(s->points[cp->index].commit), fmt_ns(cp->before, b, sizeof b),
                    fmt_ns(cp->after, a, sizeof a), change_pct(cp), cp->p);
        }
    }
    fprintf(f, "\n%s (alpha %g, %d permutations, at least %zu runs a side)\n", method, h->cp.alpha,
            h->cp.permutations, h->cp.min_size);
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
    fprintf(f, "## harness history: %zu series\n", h->n_series);
    for (size_t i = 0; i < h->n_series; i++) {
        const harness_series *s = &h->series[i];
        fprintf(f, "\n### %zu. ", i + 1);
        md_code(f, s->variant_key);
        fputc(' ', f);
        md_code(f, s->config);
        fprintf(f, " rank %d/%d on ", s->rank, s->world_size);
        md_code(f, s->host);
        fprintf(f, "\n\n%zu run%s, %zu change point%s.\n", s->n_points, s->n_points == 1 ? "" : "s", s->n_cps,
                s->n_cps == 1 ? "" : "s");
        if (s->n_cps) {
            fputs("\n| at | commit | before | after | change | p |\n| ---: | --- | ---: | ---: | ---: | ---: |\n", f);
            for (size_t c = 0; c < s->n_cps; c++) {
                const harness_change_point *cp = &s->cps[c];
                char b[32], a[32];
                fprintf(f, "| %zu | ", cp->index + 1);
                md_code(f, or_dash(s->points[cp->index].commit));
                fprintf(f, " | %s | %s | %+.1f%% | %.3g |\n", fmt_ns(cp->before, b, sizeof b),
                        fmt_ns(cp->after, a, sizeof a), change_pct(cp), cp->p);
            }
        }
        fputs("\n| # | commit | median | CI | coverage |\n| ---: | --- | ---: | ---: | ---: |\n", f);
        for (size_t k = 0; k < s->n_points; k++) {
            const harness_history_point *p = &s->points[k];
            char m[32], lo[32], hi[32], lv[32];
            fprintf(f, "| %zu%s | ", k + 1, cp_at(s, k) ? " **change**" : "");
            md_code(f, or_dash(p->commit));
            fprintf(f, " | %s | [%s, %s] | %s |\n", fmt_ns(p->median, m, sizeof m), fmt_ns(p->ci_lo, lo, sizeof lo),
                    fmt_ns(p->ci_hi, hi, sizeof hi), fmt_level(p->ci_level, lv, sizeof lv));
        }
    }
    fprintf(f, "\n<sub>%s (alpha %g, %d permutations).</sub>\n", method, h->cp.alpha, h->cp.permutations);
}

/* ---- JSON ----------------------------------------------------------------------- */

static void add_num(cJSON *o, const char *k, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(o, k, v);
    else
        cJSON_AddNullToObject(o, k);
}

static void add_str(cJSON *o, const char *k, const char *v)
{
    if (v)
        cJSON_AddStringToObject(o, k, v);
    else
        cJSON_AddNullToObject(o, k);
}

static char *json_report(const harness_history *h)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", "harness.history/1");
    cJSON_AddStringToObject(root, "db", h->db_path);
    cJSON *m = cJSON_AddObjectToObject(root, "method");
    cJSON_AddStringToObject(m, "name", "e-divisive means, permutation test");
    cJSON_AddNumberToObject(m, "alpha", h->cp.alpha);
    cJSON_AddNumberToObject(m, "permutations", h->cp.permutations);
    cJSON_AddNumberToObject(m, "min_size", (double)h->cp.min_size);
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
            add_num(q, "median", p->median);
            cJSON *ci = cJSON_AddArrayToObject(q, "ci95_median");
            cJSON_AddItemToArray(ci, isfinite(p->ci_lo) ? cJSON_CreateNumber(p->ci_lo) : cJSON_CreateNull());
            cJSON_AddItemToArray(ci, isfinite(p->ci_hi) ? cJSON_CreateNumber(p->ci_hi) : cJSON_CreateNull());
            add_num(q, "ci_level", p->ci_level);   /* ci95_median's real coverage, as in the summary */
            cJSON_AddNumberToObject(q, "n", (double)p->n);
            cJSON_AddItemToArray(pts, q);
        }
        cJSON *cps = cJSON_AddArrayToObject(o, "change_points");
        for (size_t c = 0; c < s->n_cps; c++) {
            const harness_change_point *cp = &s->cps[c];
            cJSON *q = cJSON_CreateObject();
            cJSON_AddNumberToObject(q, "index", (double)cp->index);
            add_str(q, "commit", s->points[cp->index].commit);
            cJSON_AddStringToObject(q, "experiment", s->points[cp->index].experiment);
            add_num(q, "before_median", cp->before);
            add_num(q, "after_median", cp->after);
            add_num(q, "change_pct", change_pct(cp));
            cJSON_AddNumberToObject(q, "p", cp->p);
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

/* ---- HTML ----------------------------------------------------------------------- */

static void html(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*s, f);
        }
    }
}

enum { W = 760, H = 260, LEFT = 80, RIGHT = 20, TOP = 20, BOTTOM = 40 };

/* One chart: x by point index, y by time (ns) over the CIs' range. */
static void svg_chart(FILE *f, const harness_series *s)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t k = 0; k < s->n_points; k++) {
        const harness_history_point *p = &s->points[k];
        double a = isfinite(p->ci_lo) ? p->ci_lo : p->median, b = isfinite(p->ci_hi) ? p->ci_hi : p->median;
        if (a < lo)
            lo = a;
        if (b > hi)
            hi = b;
    }
    if (!(hi > lo)) {
        lo -= 1;
        hi += 1;
    }
    double pad = (hi - lo) * 0.08;
    lo -= pad;
    hi += pad;
    double pw = W - LEFT - RIGHT, ph = H - TOP - BOTTOM;
#define X(k) (LEFT + (s->n_points > 1 ? pw * (double)(k) / (double)(s->n_points - 1) : pw / 2))
#define Y(v) (TOP + ph * (1.0 - ((v) - lo) / (hi - lo)))
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
            "role=\"img\">\n", W, H, W, H);
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%.0f\" fill=\"#fafafa\" stroke=\"#ccc\"/>\n", LEFT,
            TOP, pw, ph);
    for (int t = 0; t <= 4; t++) {   /* y axis: five labels */
        double v = lo + (hi - lo) * t / 4.0;
        char buf[32];
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%s</text>\n", LEFT - 6,
                Y(v) + 4, harness_format_ns(v, buf, sizeof buf));
    }
    for (size_t c = 0; c < s->n_cps; c++) {
        const harness_change_point *cp = &s->cps[c];
        double x = (X(cp->index - 1) + X(cp->index)) / 2;
        fprintf(f, "<line class=\"change\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#d62728\" "
                "stroke-dasharray=\"5,4\"/>\n", x, TOP, x, TOP + ph);
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" fill=\"#d62728\">%+.1f%% (p %.3g)</text>\n", x + 3,
                TOP + 12, change_pct(cp), cp->p);
    }
    for (size_t k = 0; k < s->n_points; k++) {
        const harness_history_point *p = &s->points[k];
        if (isfinite(p->ci_lo) && isfinite(p->ci_hi))
            fprintf(f, "<line class=\"ci\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#7f7f7f\"/>\n",
                    X(k), Y(p->ci_lo), X(k), Y(p->ci_hi));
        char m[32], clo[32], chi[32], lv[32];
        fprintf(f, "<circle class=\"point\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"#1f77b4\"><title>", X(k),
                Y(p->median));
        html(f, or_dash(p->commit));
        fprintf(f, " %s, CI [%s, %s] (%s)</title></circle>\n", fmt_ns(p->median, m, sizeof m),
                fmt_ns(p->ci_lo, clo, sizeof clo), fmt_ns(p->ci_hi, chi, sizeof chi),
                fmt_level(p->ci_level, lv, sizeof lv));
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\">run 1</text>\n", LEFT, H - 12);
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">run %zu (commit order)</text>\n",
            W - RIGHT, H - 12, s->n_points);
    fputs("</svg>\n", f);
#undef X
#undef Y
}

static void html_report(FILE *f, const harness_history *h)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>harness history</title>\n"
          "<style>body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse}"
          "td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right}code{font-size:90%}</style>\n"
          "</head><body>\n<h1>harness history</h1>\n<p>",
          f);
    html(f, h->db_path);
    fprintf(f, ": %zu series. ", h->n_series);
    html(f, method);
    fprintf(f, " (alpha %g, %d permutations).</p>\n", h->cp.alpha, h->cp.permutations);
    for (size_t i = 0; i < h->n_series; i++) {
        const harness_series *s = &h->series[i];
        fprintf(f, "<h2>%zu. <code>", i + 1);
        html(f, s->variant_key);
        fputs("</code> <code>", f);
        html(f, s->config);
        fprintf(f, "</code> rank %d/%d on ", s->rank, s->world_size);
        html(f, s->host);
        fputs("</h2>\n<p>", f);
        html(f, s->cpu);
        fputs(", ", f);
        html(f, s->gpu);
        fprintf(f, "; config hash <code>%.16s</code>; %zu run%s, %zu change point%s.</p>\n", s->config_hash,
                s->n_points, s->n_points == 1 ? "" : "s", s->n_cps, s->n_cps == 1 ? "" : "s");
        svg_chart(f, s);
        if (s->n_cps) {
            fputs("<table><tr><th>at</th><th>commit</th><th>before</th><th>after</th><th>change</th><th>p</th></tr>\n",
                  f);
            for (size_t c = 0; c < s->n_cps; c++) {
                const harness_change_point *cp = &s->cps[c];
                char b[32], a[32];
                fprintf(f, "<tr><td>%zu</td><td><code>", cp->index + 1);
                html(f, or_dash(s->points[cp->index].commit));
                fprintf(f, "</code></td><td>%s</td><td>%s</td><td>%+.1f%%</td><td>%.3g</td></tr>\n",
                        fmt_ns(cp->before, b, sizeof b), fmt_ns(cp->after, a, sizeof a), change_pct(cp), cp->p);
            }
            fputs("</table>\n", f);
        }
    }
    fputs("</body></html>\n", f);
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
        html_report(f, h);
    else
        text_report(f, h);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}
