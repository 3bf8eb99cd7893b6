/* print_history_chart.c - the chart of a series on the HTML page
 * (print_history_html.c): an inline SVG, no script, nothing fetched; points,
 * CI bars of medians, levels, change points marked, the runs set aside
 * drawn apart. */
#include "compare/print_history.h"
#include "util/format.h"
#include "util/html.h"
#include "util/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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
    int ci;                        /* the points are medians: their CIs are drawn (another metric has none) */
    harness_metric metric;
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

/* The y axis from the runs the search kept (a run set aside is drawn at
 * the edge instead of squashing every other run): from zero to a round
 * value above the highest value (and its CI, within half as much again), or
 * a log axis between 1-2-5 values when the values span more than LOG_RANGE. */
static void y_axis(chart *c)
{
    const harness_series *s = c->s;
    double lo = INFINITY, hi = -INFINITY, ci = -INFINITY;
    for (size_t k = 0; k < s->n_points; k++) {
        const harness_history_point *p = &s->points[k];
        if (p->set_aside != HARNESS_CP_KEPT || !isfinite(p->value))
            continue;
        lo = fmin(lo, p->value);
        hi = fmax(hi, p->value);
        if (c->ci && isfinite(p->ci_hi))
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
            y + 4, c->metric == HARNESS_METRIC_ENERGY && v != 0 ? harness_format_si(v, "J", buf, sizeof buf)
                                                                : tick_label(v, scale, buf, sizeof buf));
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
    snprintf(buf, sizeof buf, "%s", hist_or_dash(commit));
    harness_html_escape(f, buf);
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
    int change = hist_cp_at(c->s, k) != NULL;
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

/* The median of the runs the change-point search kept (NAN: none). */
static double kept_median(const harness_series *s)
{
    double *v = malloc((s->n_points ? s->n_points : 1) * sizeof *v);
    size_t n = 0;
    for (size_t k = 0; v && k < s->n_points; k++)
        if (s->points[k].set_aside == HARNESS_CP_KEPT && isfinite(s->points[k].value))
            v[n++] = s->points[k].value;
    double m = n ? harness_median(v, n) : NAN;
    free(v);
    return m;
}

/* The level of each segment between change points: the medians the table
 * gives as "before" and "after"; without change points, the one level of
 * the whole series, the median of the runs the search kept. */
static void levels(FILE *f, const chart *c)
{
    const harness_series *s = c->s;
    for (size_t i = 0; i <= s->n_cps; i++) {
        size_t from = i ? s->cps[i - 1].index : 0, to = i < s->n_cps ? s->cps[i].index : s->n_points;
        double level = i < s->n_cps ? s->cps[i].before : s->n_cps ? s->cps[i - 1].after : kept_median(s);
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
        hist_cp_cells r;
        hist_cp_row(c->metric, cp, &r);
        fprintf(f, "<text class=\"change-label\" x=\"%.1f\" y=\"%d\" font-size=\"12\" fill=\"#d62728\" "
                "text-anchor=\"%s\">%s at ", x + (right ? 4 : -4), TOP - 20 + 14 * (int)(i % 2),
                right ? "start" : "end", r.change);
        short_commit(f, c->s->points[cp->index].commit);
        fprintf(f, " (p %s)</text>\n", r.p);
    }
}

static void point_title(FILE *f, const chart *c, const harness_history_point *p, size_t k)
{
    hist_point_cells r;
    hist_point_row(c->metric, p, &r);
    fprintf(f, "<title>#%zu ", k + 1);
    harness_html_escape(f, hist_or_dash(p->commit));
    fputs(": ", f);
    if (!c->ci)
        fprintf(f, "%s %s, median ", harness_metric_name(c->metric), r.value);
    fprintf(f, "%s, CI [%s, %s] (%s), noise bound %s", r.median, r.ci_lo, r.ci_hi, r.level, r.noise);
    if (p->set_aside == HARNESS_CP_INTERFERENCE) {
        fputs("; set aside for interference, left out of the change-point search: ", f);
        harness_html_escape(f, p->noise_evidence);
    } else if (p->set_aside == HARNESS_CP_OUTLIER) {
        fputs("; an outlier, left out of the change-point search", f);
    }
    fputs("</title>", f);
}

/* How a run set aside is drawn: an outlier a hollow orange circle, a run
 * with interference a hollow purple square; beyond the axis, either is a
 * triangle of its colour at the edge with its value beside it. */
static const char *const set_aside_colour[] = {"#1f77b4", "#ff7f0e", "#9467bd"};
static const char *const set_aside_dark[] = {"#1f77b4", "#c85a00", "#6b3fa0"};

/* Each run's value and (for medians) CI bar, the runs set aside apart. */
static void points(FILE *f, const chart *c)
{
    for (size_t k = 0; k < c->s->n_points; k++) {
        const harness_history_point *p = &c->s->points[k];
        double x = cx(c, k), y = cy(c, p->value);
        if (!isfinite(p->value))
            continue;
        const char *why = hist_set_aside_name(p), *colour = set_aside_colour[p->set_aside];
        if (c->ci && isfinite(p->ci_lo) && isfinite(p->ci_hi) && !why)
            fprintf(f, "<line class=\"ci\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#7f7f7f\"/>\n",
                    x, cy(c, p->ci_lo), x, cy(c, p->ci_hi));
        int above = p->value > c->hi, below = p->value < c->lo;
        const char *end = "</circle>\n";
        if (above || below) {
            fprintf(f, "<path class=\"%s\" d=\"M%.1f %.1f l-6 %d h12 z\" fill=\"%s\">", why ? why : "outlier", x,
                    above ? TOP + 1.0 : H - BOTTOM - 1.0, above ? 10 : -10, colour);
            end = "</path>\n";
        } else if (p->set_aside == HARNESS_CP_INTERFERENCE) {
            fprintf(f, "<rect class=\"interference\" x=\"%.1f\" y=\"%.1f\" width=\"8\" height=\"8\" fill=\"none\" "
                    "stroke=\"%s\" stroke-width=\"2\">", x - 4, y - 4, colour);
            end = "</rect>\n";
        } else if (why) {
            fprintf(f, "<circle class=\"outlier\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"none\" stroke=\"%s\" "
                    "stroke-width=\"2\">", x, y, colour);
        } else {
            fprintf(f, "<circle class=\"point\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\">", x, y, colour);
        }
        point_title(f, c, p, k);
        fputs(end, f);
        if (above || below) {
            char m[32];
            fprintf(f, "<text class=\"%s-value\" x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"%s\">%s</text>\n",
                    why ? why : "outlier", x + 8, above ? TOP + 10.0 : H - BOTTOM - 3.0,
                    set_aside_dark[p->set_aside], harness_metric_format(c->metric, p->value, m, sizeof m));
        }
    }
}

/* One chart per series: x by run in commit order, y by the run's metric. */
void hist_svg_chart(FILE *f, const harness_series *s, harness_metric metric)
{
    if (s->n_points == 0)
        return;
    chart c = {s, 0, 1, 0, metric == HARNESS_METRIC_MEDIAN, metric};
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
