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
    return harness_cp_step(c) * 100.0;
}

static void series_title(FILE *f, const harness_series *s, size_t i)
{
    fprintf(f, "series %zu: %s %s config %.8s, rank %d/%d, on %s (%s, %s): %zu run%s, %zu change point%s", i + 1,
            s->variant_key, s->config, s->config_hash, s->rank, s->world_size, s->host, s->cpu, s->gpu,
            s->n_points, s->n_points == 1 ? "" : "s", s->n_cps, s->n_cps == 1 ? "" : "s");
}

static const char method[] = "change points: E-divisive means (Matteson & James 2014) with a permutation test, "
                             "outliers left out";

/* " (alpha 0.01, 499 permutations, steps under 2% dropped" - the caller closes it. */
static void method_options(FILE *f, const harness_cp_options *o)
{
    fprintf(f, " (alpha %g, %d permutations, steps under %g%% dropped", o->alpha, o->permutations,
            o->min_change * 100.0);
}

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
                    fmt_level(p->ci_level, lv, sizeof lv),
                    cp_at(s, k) ? "  <- change point" : p->outlier ? "  (outlier)" : "");
        }
        for (size_t c = 0; c < s->n_cps; c++) {
            const harness_change_point *cp = &s->cps[c];
            char b[32], a[32];
            fprintf(f, "  change at #%zu (commit %s): %s -> %s (%+.1f%%), p = %.3g\n", cp->index + 1,
                    or_dash(s->points[cp->index].commit), fmt_ns(cp->before, b, sizeof b),
                    fmt_ns(cp->after, a, sizeof a), change_pct(cp), cp->p);
        }
    }
    fprintf(f, "\n%s", method);
    method_options(f, &h->cp);
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
            fprintf(f, "| %zu%s | ", k + 1, cp_at(s, k) ? " **change**" : p->outlier ? " outlier" : "");
            md_code(f, or_dash(p->commit));
            fprintf(f, " | %s | [%s, %s] | %s |\n", fmt_ns(p->median, m, sizeof m), fmt_ns(p->ci_lo, lo, sizeof lo),
                    fmt_ns(p->ci_hi, hi, sizeof hi), fmt_level(p->ci_level, lv, sizeof lv));
        }
    }
    fprintf(f, "\n<sub>%s", method);
    method_options(f, &h->cp);
    fputs(").</sub>\n", f);
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
    cJSON_AddStringToObject(m, "name", "e-divisive means, permutation test, outliers left out");
    cJSON_AddNumberToObject(m, "alpha", h->cp.alpha);
    cJSON_AddNumberToObject(m, "permutations", h->cp.permutations);
    cJSON_AddNumberToObject(m, "min_size", (double)h->cp.min_size);
    cJSON_AddNumberToObject(m, "min_change_pct", h->cp.min_change * 100.0);
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
            cJSON_AddBoolToObject(q, "outlier", p->outlier);   /* left out of the change-point search */
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

/* The chart: a viewBox the page scales to its width (several series stack
 * without scrolling sideways); the plot inside the margins. */
enum { W = 960, H = 320, LEFT = 74, RIGHT = 40, TOP = 40, BOTTOM = 52 };
enum { SHORT_HASH = 8 };           /* a commit on the chart: enough to find it, short enough to fit */
#define LOG_RANGE 3.0              /* medians spanning more than this ratio: a log axis */
#define LABEL_GAP 64.0             /* fewest viewBox units between two x labels (a short hash) */

typedef struct chart {
    const harness_series *s;
    double lo, hi;                 /* the y axis' ends (ns) */
    int log;                       /* a log axis */
} chart;

static double cx(const chart *c, size_t k)
{
    double pw = W - LEFT - RIGHT;
    size_t n = c->s->n_points;
    return LEFT + (n > 1 ? pw * (double)k / (double)(n - 1) : pw / 2);
}

/* y of v, clamped to the plot (a clipped CI ends at its edge). */
static double cy(const chart *c, double v)
{
    double ph = H - TOP - BOTTOM;
    double t = c->log ? (log(v > 0 ? v : c->lo) - log(c->lo)) / (log(c->hi) - log(c->lo)) : (v - c->lo) / (c->hi - c->lo);
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return TOP + ph * (1.0 - t);
}

/* The round step (1, 2 or 5 x 10^k) at or above raw. */
static double nice_step(double raw)
{
    double p = pow(10.0, floor(log10(raw)));
    double f = raw / p;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

/* The largest 1-2-5 value at or below v (down) or the smallest at or above (up). */
static double round_125(double v, int up)
{
    double p = pow(10.0, floor(log10(v)));
    static const double m[4] = {1, 2, 5, 10};
    if (up) {
        for (int i = 0; i < 4; i++)
            if (m[i] * p >= v * (1 - 1e-9))
                return m[i] * p;
    }
    for (int i = 3; i >= 0; i--)
        if (m[i] * p <= v * (1 + 1e-9))
            return m[i] * p;
    return p;
}

/* The y axis from the runs that are not outliers (an outlier is drawn at the
 * edge instead of squashing every other run): from zero to a round value
 * above the highest median (and its CI, within half as much again), or a
 * log axis between 1-2-5 values when the medians span more than LOG_RANGE. */
static void y_axis(chart *c)
{
    const harness_series *s = c->s;
    double lo = INFINITY, hi = -INFINITY, ci = -INFINITY;
    for (size_t k = 0; k < s->n_points; k++) {
        const harness_history_point *p = &s->points[k];
        if (p->outlier || !isfinite(p->median))
            continue;
        lo = fmin(lo, p->median);
        hi = fmax(hi, p->median);
        if (isfinite(p->ci_hi))
            ci = fmax(ci, p->ci_hi);
    }
    if (!isfinite(hi) || !(hi > 0)) {
        lo = 1;
        hi = 1000;
    }
    c->log = lo > 0 && hi / lo > LOG_RANGE;
    if (c->log) {
        c->lo = round_125(lo, 0);
        c->hi = round_125(hi, 1);
        return;
    }
    hi = fmax(hi, fmin(ci, 1.5 * hi));
    double step = nice_step(hi / 5.0);
    c->lo = 0;
    c->hi = ceil(hi / step * (1 - 1e-9)) * step;
}

/* A tick's label in the unit that suits `scale` (the axis' top for a
 * linear axis, the tick itself on a log one): "200 us", "1.5 ms". */
static const char *tick_label(double v, double scale, char *buf, size_t cap)
{
    static const char *const units[] = {"ns", "us", "ms", "s"};
    int u = 0;
    double div = 1;
    while (u < 3 && scale / div >= 1000) {
        div *= 1000;
        u++;
    }
    if (v == 0)
        snprintf(buf, cap, "0");
    else
        snprintf(buf, cap, "%g %s", v / div, units[u]);
    return buf;
}

static void y_tick(FILE *f, const chart *c, double v, double scale)
{
    char buf[32];
    double y = cy(c, v);
    fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n", LEFT, y, W - RIGHT, y);
    fprintf(f, "<text class=\"ytick\" x=\"%d\" y=\"%.1f\" font-size=\"12\" text-anchor=\"end\">%s</text>\n", LEFT - 6,
            y + 4, tick_label(v, scale, buf, sizeof buf));
}

/* Grid lines and labels: every round step from zero, or on a log axis the
 * 1-2-5 values (decades alone when there are more than four of them). */
static void y_ticks(FILE *f, const chart *c)
{
    if (!c->log) {
        double step = nice_step(c->hi / 5.0 * (1 - 1e-9));
        for (double v = 0; v <= c->hi * (1 + 1e-9); v += step)
            y_tick(f, c, v, c->hi);
        return;
    }
    int decades_only = log10(c->hi / c->lo) > 4;
    for (double p = pow(10.0, floor(log10(c->lo))); p <= c->hi * (1 + 1e-9); p *= 10) {
        static const double m[3] = {1, 2, 5};
        for (int i = 0; i < (decades_only ? 1 : 3); i++) {
            double v = m[i] * p;
            if (v >= c->lo * (1 - 1e-9) && v <= c->hi * (1 + 1e-9))
                y_tick(f, c, v, v);
        }
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#666\" text-anchor=\"end\">log scale</text>\n",
            LEFT - 6, TOP - 14);
}

static void short_commit(FILE *f, const char *commit)
{
    char buf[SHORT_HASH + 1];
    snprintf(buf, sizeof buf, "%s", or_dash(commit));
    html(f, buf);
}

static int label_fits(const double *placed, size_t n, double x)
{
    for (size_t i = 0; i < n; i++)
        if (fabs(placed[i] - x) < LABEL_GAP)
            return 0;
    return 1;
}

static void x_label(FILE *f, const chart *c, size_t k, double *placed, size_t *n_placed)
{
    double x = cx(c, k);
    if (!label_fits(placed, *n_placed, x))
        return;
    placed[(*n_placed)++] = x;
    int change = cp_at(c->s, k) != NULL;
    fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#999\"/>\n", x, H - BOTTOM, x,
            H - BOTTOM + 4);
    fprintf(f, "<text class=\"xtick\" x=\"%.1f\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\"%s>"
            "<tspan x=\"%.1f\">", x, H - BOTTOM + 17, change ? " fill=\"#d62728\"" : "", x);
    short_commit(f, c->s->points[k].commit);
    fprintf(f, "</tspan><tspan x=\"%.1f\" dy=\"14\" fill=\"#777\">#%zu</tspan></text>\n", x, k + 1);
}

/* The x axis: each labelled run's commit (a short hash: commits are what a
 * reader looks for) over its index, thinned so labels do not overlap; the
 * change points' commits first, then the ends, then evenly between. */
static void x_labels(FILE *f, const chart *c)
{
    size_t n = c->s->n_points;
    double *placed = malloc((n + 2) * sizeof *placed);
    if (!placed)
        return;
    size_t n_placed = 0;
    for (size_t i = 0; i < c->s->n_cps; i++)
        x_label(f, c, c->s->cps[i].index, placed, &n_placed);
    if (n) {
        x_label(f, c, 0, placed, &n_placed);
        x_label(f, c, n - 1, placed, &n_placed);
    }
    size_t stride = (size_t)ceil(LABEL_GAP / (cx(c, 1) - cx(c, 0) > 0 ? cx(c, 1) - cx(c, 0) : 1.0));
    for (size_t k = 0; stride && k < n; k += stride)
        x_label(f, c, k, placed, &n_placed);
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#666\" text-anchor=\"end\">commit, run # "
            "(commit order)</text>\n", W - RIGHT, H - 4);
    free(placed);
}

/* The level of each segment between change points: the medians the table
 * gives as "before" and "after" (the median of the runs when none). */
static void levels(FILE *f, const chart *c)
{
    const harness_series *s = c->s;
    for (size_t i = 0; i <= s->n_cps; i++) {
        size_t from = i ? s->cps[i - 1].index : 0, to = i < s->n_cps ? s->cps[i].index : s->n_points;
        double level = i < s->n_cps ? s->cps[i].before : s->n_cps ? s->cps[i - 1].after : NAN;
        if (!isfinite(level) || to <= from)
            continue;
        double x1 = from ? (cx(c, from - 1) + cx(c, from)) / 2 : cx(c, 0);
        double x2 = to < s->n_points ? (cx(c, to - 1) + cx(c, to)) / 2 : cx(c, s->n_points - 1);
        fprintf(f, "<line class=\"level\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#2ca02c\" "
                "stroke-width=\"2\" opacity=\"0.7\"/>\n", x1, cy(c, level), x2, cy(c, level));
    }
}

/* A dashed line between the last run of the old level and the first of the
 * new, labelled with the step and the commit, as in the table below. */
static void change_lines(FILE *f, const chart *c)
{
    for (size_t i = 0; i < c->s->n_cps; i++) {
        const harness_change_point *cp = &c->s->cps[i];
        double x = (cx(c, cp->index - 1) + cx(c, cp->index)) / 2;
        fprintf(f, "<line class=\"change\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#d62728\" "
                "stroke-dasharray=\"5,4\"/>\n", x, TOP, x, H - BOTTOM);
        int right = x < W - RIGHT - 150;   /* the label on the side with room, above the plot */
        fprintf(f, "<text class=\"change-label\" x=\"%.1f\" y=\"%d\" font-size=\"12\" fill=\"#d62728\" "
                "text-anchor=\"%s\">%+.1f%% at ", x + (right ? 4 : -4), TOP - 20 + 14 * (int)(i % 2),
                right ? "start" : "end", change_pct(cp));
        short_commit(f, c->s->points[cp->index].commit);
        fprintf(f, " (p %.3g)</text>\n", cp->p);
    }
}

static void point_title(FILE *f, const harness_history_point *p, size_t k)
{
    char m[32], clo[32], chi[32], lv[32];
    fprintf(f, "<title>#%zu ", k + 1);
    html(f, or_dash(p->commit));
    fprintf(f, ": %s, CI [%s, %s] (%s)%s</title>", fmt_ns(p->median, m, sizeof m), fmt_ns(p->ci_lo, clo, sizeof clo),
            fmt_ns(p->ci_hi, chi, sizeof chi), fmt_level(p->ci_level, lv, sizeof lv),
            p->outlier ? "; an outlier, left out of the change-point search" : "");
}

/* Each run's median and CI bar; an outlier hollow and orange, and one
 * beyond the axis a triangle at its edge (its value in the tooltip). */
static void points(FILE *f, const chart *c)
{
    for (size_t k = 0; k < c->s->n_points; k++) {
        const harness_history_point *p = &c->s->points[k];
        double x = cx(c, k), y = cy(c, p->median);
        if (!isfinite(p->median))
            continue;
        if (isfinite(p->ci_lo) && isfinite(p->ci_hi) && !p->outlier)
            fprintf(f, "<line class=\"ci\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#7f7f7f\"/>\n",
                    x, cy(c, p->ci_lo), x, cy(c, p->ci_hi));
        int above = p->median > c->hi, below = p->median < c->lo;
        if (above || below)
            fprintf(f, "<path class=\"outlier\" d=\"M%.1f %.1f l-6 %d h12 z\" fill=\"#ff7f0e\">", x,
                    above ? TOP + 1.0 : H - BOTTOM - 1.0, above ? 10 : -10);
        else if (p->outlier)
            fprintf(f, "<circle class=\"outlier\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"none\" stroke=\"#ff7f0e\" "
                    "stroke-width=\"2\">", x, y);
        else
            fprintf(f, "<circle class=\"point\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"#1f77b4\">", x, y);
        point_title(f, p, k);
        fputs(above || below ? "</path>\n" : "</circle>\n", f);
        if (above || below) {
            char m[32];
            fprintf(f, "<text class=\"outlier-value\" x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#c85a00\">%s</text>\n",
                    x + 8, above ? TOP + 10.0 : H - BOTTOM - 3.0, fmt_ns(p->median, m, sizeof m));
        }
    }
}

/* One chart per series: x by run in commit order, y by the run's median. */
static void svg_chart(FILE *f, const harness_series *s)
{
    if (s->n_points == 0)
        return;
    chart c = {s, 0, 1, 0};
    y_axis(&c);
    fprintf(f, "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"100%%\" "
            "role=\"img\" font-family=\"sans-serif\">\n", W, H);
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#fcfcfc\" stroke=\"#ccc\"/>\n", LEFT, TOP,
            W - LEFT - RIGHT, H - TOP - BOTTOM);
    y_ticks(f, &c);
    x_labels(f, &c);
    levels(f, &c);
    change_lines(f, &c);
    points(f, &c);
    fputs("</svg>\n", f);
}

static void html_report(FILE *f, const harness_history *h)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>harness history</title>\n"
          "<style>body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse}"
          "td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right}code{font-size:90%}"
          "h2{font-size:1.15em;overflow-wrap:anywhere}svg.chart{display:block;max-width:1200px;height:auto}"
          ".legend{font-size:90%;color:#555}</style>\n"
          "</head><body>\n<h1>harness history</h1>\n<p>",
          f);
    html(f, h->db_path);
    fprintf(f, ": %zu series. ", h->n_series);
    html(f, method);
    method_options(f, &h->cp);
    fputs(").</p>\n<p class=\"legend\"><span style=\"color:#1f77b4\">&#9679;</span> a run's median and its CI; "
          "<span style=\"color:#2ca02c\">&#9472;</span> the level between change points; "
          "<span style=\"color:#d62728\">- -</span> a change point (the commit where the new level starts); "
          "<span style=\"color:#ff7f0e\">&#9675;</span> an outlier, left out of the search, "
          "<span style=\"color:#ff7f0e\">&#9650;</span> one beyond the axis (its value in the tooltip).</p>\n", f);
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
