/* The memory report: one HTML5 file, inline CSS and SVG, no script, no URL.
 * Written to a memory stream; every string from the input is HTML-escaped
 * (and cleaned to valid UTF-8 without control characters). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/memory_report.h"
#include "run/runner.h"
#include "util/format.h"
#include "util/html.h"

/* ---- units ------------------------------------------------------------- */

static void fmt_duration(char *out, size_t size, double us)
{
    if (us < 1000.0)
        snprintf(out, size, "%.0f &micro;s", us);
    else if (us < 1e6)
        snprintf(out, size, "%.1f ms", us / 1e3);
    else if (us < 120e6)
        snprintf(out, size, "%.2f s", us / 1e6);
    else
        snprintf(out, size, "%.1f min", us / 60e6);
}

/* The smallest of 1, 2, 5 x 10^k that is >= raw (raw > 0). */
static double nice_step(double raw)
{
    double p = pow(10.0, floor(log10(raw)));
    double m = raw / p;
    double f = m <= 1.0 ? 1.0 : m <= 2.0 ? 2.0 : m <= 5.0 ? 5.0 : 10.0;
    return f * p;
}

/* ---- chart ------------------------------------------------------------- */

enum { W = 960, H = 440, ML = 84, MR = 24, MT = 28, MB = 54, PW = W - ML - MR, PH = H - MT - MB };

enum { SERIES_ALLOCATED, SERIES_RESERVED, SERIES_PEAK };

typedef struct chart {
    double x0, x1;   /* step domain */
    double ytop;     /* bytes at the top of the plot */
    double yunit;    /* 1024^k, the tick labels' unit */
    int yunit_k;
    double ystep;    /* tick spacing in yunit */
} chart;

/* A sample's step as people count it (from 1, docs/guide/failures.md); the
 * data-* attributes keep the 0-based index, as the JSON does. */
static int64_t shown_step(int64_t step) { return step + 1; }

static double px(const chart *c, double x) { return ML + (x - c->x0) / (c->x1 - c->x0) * PW; }
static double py(const chart *c, double bytes) { return MT + PH - bytes / c->ytop * PH; }

static uint64_t series_value(const harness_memory_sample *s, int which)
{
    switch (which) {
    case SERIES_ALLOCATED: return s->allocated;
    case SERIES_RESERVED: return s->reserved;
    default: return s->peak_allocated;
    }
}

static const char *phase_class(int phase)
{
    switch (phase) {
    case 0: return "ph0";
    case 1: return "ph1";
    case 2: return "ph2";
    default: return "phx";
    }
}

/* Background bands, one per run of samples in the same phase and window,
 * from the run's first step to the next run's first step. With very many
 * runs they are painted per pixel column instead so the file stays small. */
static int emit_bands(FILE *b, const chart *c, const harness_memory_log *log)
{
    const harness_memory_sample *s = log->samples;
    size_t n = log->n, runs = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || s[i].phase != s[i - 1].phase || s[i].window != s[i - 1].window)
            runs++;
    int exact = runs <= 400;
    int *cols = NULL;
    if (!exact) {
        cols = malloc(sizeof *cols * PW);
        if (!cols)
            return -1;
        for (int k = 0; k < PW; k++)
            cols[k] = -1;
    }
    fputs("<g class=\"bands\">\n", b);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && s[j].phase == s[i].phase && s[j].window == s[i].window)
            j++;
        double xs = i == 0 ? c->x0 : (double)s[i].step, xe = j < n ? (double)s[j].step : c->x1;
        if (xe > xs) {
            double a = px(c, xs), e = px(c, xe);
            if (exact) {
                fprintf(b, "<rect class=\"%s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\"><title>%s",
                          phase_class(s[i].phase), a, MT, e - a, PH, harness_phase_file_name(s[i].phase));
                if (s[i].window >= 0 && s[i].phase != 0)
                    fprintf(b, ", window %d", s[i].window + 1);   /* from 1, as in the text summary */
                fprintf(b, ": steps %" PRId64 " to %" PRId64 "</title></rect>\n", shown_step(s[i].step),
                          shown_step(j < n ? s[j].step : s[n - 1].step));
            } else {
                long c0 = lround(floor(a - ML)), c1 = lround(ceil(e - ML));
                if (c0 < 0)
                    c0 = 0;
                if (c1 > PW)
                    c1 = PW;
                for (long k = c0; k < c1; k++)
                    cols[k] = s[i].phase < 0 || s[i].phase > 2 ? 3 : s[i].phase;
            }
        }
        i = j;
    }
    if (!exact) {
        static const int phase_of_col[4] = {0, 1, 2, -1};
        for (int k = 0; k < PW;) {
            int m = k + 1;
            while (m < PW && cols[m] == cols[k])
                m++;
            if (cols[k] >= 0)
                fprintf(b, "<rect class=\"%s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"><title>%s</title></rect>\n",
                          phase_class(phase_of_col[cols[k]]), ML + k, MT, m - k, PH,
                          harness_phase_file_name(phase_of_col[cols[k]]));
            k = m;
        }
        free(cols);
    }
    fputs("</g>\n", b);
    return 0;
}

typedef struct bucket {
    uint64_t minv, maxv;
    size_t mini, maxi;
    int used;
} bucket;

/* Indices of the samples to draw for one series, in sample order: all of
 * them, or per step bucket the one with the minimum and the one with the
 * maximum, so spikes and the peak survive. Returns the count, *out malloc'ed. */
static size_t pick_points(const chart *c, const harness_memory_log *log, int which, size_t **out)
{
    size_t n = log->n;
    *out = NULL;
    if (n <= HARNESS_MEMORY_REPORT_MAX_POINTS) {
        size_t *idx = malloc(sizeof *idx * (n ? n : 1));
        if (!idx)
            return 0;
        for (size_t i = 0; i < n; i++)
            idx[i] = i;
        *out = idx;
        return n;
    }
    enum { NB = HARNESS_MEMORY_REPORT_BUCKETS };
    bucket *bk = calloc(NB, sizeof *bk);
    size_t *idx = malloc(sizeof *idx * 2 * NB);
    if (!bk || !idx) {
        free(bk);
        free(idx);
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        const harness_memory_sample *s = &log->samples[i];
        double f = ((double)s->step - c->x0) / (c->x1 - c->x0) * NB;
        long k = f < 0 ? 0 : f >= NB ? NB - 1 : (long)f;
        uint64_t v = series_value(s, which);
        bucket *q = &bk[k];
        if (!q->used) {
            q->used = 1;
            q->minv = q->maxv = v;
            q->mini = q->maxi = i;
        } else {
            if (v < q->minv) {
                q->minv = v;
                q->mini = i;
            }
            if (v > q->maxv) {
                q->maxv = v;
                q->maxi = i;
            }
        }
    }
    size_t m = 0;
    for (int k = 0; k < NB; k++) {
        const bucket *q = &bk[k];
        if (!q->used)
            continue;
        size_t a = q->mini < q->maxi ? q->mini : q->maxi, e = q->mini < q->maxi ? q->maxi : q->mini;
        idx[m++] = a;
        if (e != a)
            idx[m++] = e;
    }
    free(bk);
    *out = idx;
    return m;
}

static int emit_series(FILE *b, const chart *c, const harness_memory_log *log, int which, const char *id,
                        const char *cls)
{
    size_t *idx = NULL;
    size_t m = pick_points(c, log, which, &idx);
    if (!idx)
        return -1;
    uint64_t maxv = 0;
    for (size_t k = 0; k < m; k++) {
        uint64_t v = series_value(&log->samples[idx[k]], which);
        if (v > maxv)
            maxv = v;
    }
    if (m == 1) {
        const harness_memory_sample *s = &log->samples[idx[0]];
        fprintf(b,
                  "<circle id=\"%s\" class=\"%s\" data-points=\"1\" data-max-bytes=\"%" PRIu64
                  "\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\"></circle>\n",
                  id, cls, maxv, px(c, (double)s->step), py(c, (double)series_value(s, which)));
    } else if (m > 1) {
        fprintf(b, "<polyline id=\"%s\" class=\"%s\" data-points=\"%zu\" data-max-bytes=\"%" PRIu64 "\" points=\"",
                  id, cls, m, maxv);
        for (size_t k = 0; k < m; k++) {
            const harness_memory_sample *s = &log->samples[idx[k]];
            fprintf(b, "%s%.1f,%.1f", k ? " " : "", px(c, (double)s->step), py(c, (double)series_value(s, which)));
        }
        fputs("\"></polyline>\n", b);
    }
    free(idx);
    return 0;
}

/* A marker label's box in the SVG's units: bold 12px text, about 7 px a
 * character, 10 px above its baseline and 3 below. */
typedef struct label_box {
    double x0, x1, top, bottom;
} label_box;

static label_box box_of(double x, double baseline, int anchor_end, size_t chars)
{
    double w = 7.0 * (double)chars;
    return (label_box){anchor_end ? x - w : x, anchor_end ? x : x + w, baseline - 10, baseline + 3};
}

/* Whether a series' line (straight between its samples) passes through the box. */
static int line_crosses(const chart *c, const harness_memory_log *log, int which, const label_box *bx)
{
    for (size_t i = 0; i + 1 < log->n; i++) {
        double xa = px(c, (double)log->samples[i].step), xb = px(c, (double)log->samples[i + 1].step);
        double ya = py(c, (double)series_value(&log->samples[i], which));
        double yb = py(c, (double)series_value(&log->samples[i + 1], which));
        double lo = xa > bx->x0 ? xa : bx->x0, hi = xb < bx->x1 ? xb : bx->x1;
        if (xb <= xa || lo > hi)
            continue;
        /* the segment's y over the box's x span, at its two ends */
        double y_lo = ya + (yb - ya) * (lo - xa) / (xb - xa), y_hi = ya + (yb - ya) * (hi - xa) / (xb - xa);
        double top = y_lo < y_hi ? y_lo : y_hi, bottom = y_lo < y_hi ? y_hi : y_lo;
        if (bottom >= bx->top - 2 && top <= bx->bottom + 2)
            return 1;
    }
    return 0;
}

static int boxes_overlap(const label_box *a, const label_box *b)
{
    return a->x0 < b->x1 && b->x0 < a->x1 && a->top < b->bottom && b->top < a->bottom;
}

/* The baseline offset from the dot at which a label crosses no line, no
 * other label (taken) and stays inside the plot: above, below, then
 * further out in turn; above when nothing is clear. */
static double clear_offset(const chart *c, const harness_memory_log *log, double x, double y, int anchor_end,
                           size_t chars, const label_box *taken)
{
    static const double offsets[] = {-9, 18, -25, 34, -41, 50};
    for (size_t k = 0; k < sizeof offsets / sizeof offsets[0]; k++) {
        label_box bx = box_of(x, y + offsets[k], anchor_end, chars);
        int clear = bx.top >= MT && bx.bottom <= MT + PH && !(taken && boxes_overlap(&bx, taken));
        for (int which = SERIES_ALLOCATED; clear && log && which <= SERIES_PEAK; which++)
            clear = !line_crosses(c, log, which, &bx);
        if (clear)
            return offsets[k];
    }
    return offsets[0];
}

/* The dot and its label, placed clear of the lines and of `taken` (the
 * other label, or NULL); *placed gets this label's box. */
static void emit_marker(FILE *b, const chart *c, const harness_memory_log *log, const char *id, const char *cls,
                        const char *what, uint64_t bytes, int64_t step, const label_box *taken, label_box *placed)
{
    char h[32], text[160];
    harness_format_bytes_1dp(bytes, h, sizeof h);
    double x = px(c, (double)step), y = py(c, (double)bytes);
    fprintf(b,
              "<circle id=\"%s\" class=\"%s\" data-bytes=\"%" PRIu64 "\" data-step=\"%" PRId64
              "\" cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\"><title>%s: %s (%" PRIu64 " bytes), step %" PRId64
              "</title></circle>\n",
              id, cls, bytes, step, x, y, what, h, bytes, shown_step(step));
    int right_half = x > ML + PW / 2.0;
    double tx = right_half ? x - 8 : x + 8;
    int n = snprintf(text, sizeof text, "%s %s", what, h);
    size_t chars = n > 0 ? (size_t)n : 0;
    double dy = clear_offset(c, log, tx, y, right_half, chars, taken);
    *placed = box_of(tx, y + dy, right_half, chars);
    fprintf(b, "<text class=\"mlabel\" id=\"%s-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>\n", id,
            tx, y + dy, right_half ? "end" : "start", text);
}

/* y: everything drawn or marked fits, with room above for the peak's
 * label. Returns the number of ticks; *all_zero when nothing was nonzero. */
static int scale_y(chart *c, const harness_memory_report_input *in, int *all_zero)
{
    const harness_memory_log *log = in->log;
    size_t n = log ? log->n : 0;
    uint64_t ymax = in->peak_allocated > in->peak_reserved ? in->peak_allocated : in->peak_reserved;
    for (size_t i = 0; i < n; i++)
        for (int w = 0; w < 3; w++)
            if (series_value(&log->samples[i], w) > ymax)
                ymax = series_value(&log->samples[i], w);
    *all_zero = ymax == 0;
    double yd = *all_zero ? 1024.0 : (double)ymax;
    c->yunit_k = 0;
    c->yunit = 1.0;
    while (yd / c->yunit >= 1024.0 && c->yunit_k < 6) {
        c->yunit *= 1024.0;
        c->yunit_k++;
    }
    double v = yd * (*all_zero ? 1.0 : 1.1) / c->yunit;
    c->ystep = nice_step(v / 5.0);
    if (c->yunit_k == 0 && c->ystep < 1.0)
        c->ystep = 1.0;
    double ticks = ceil(v / c->ystep - 1e-9);
    if (ticks < 1)
        ticks = 1;
    c->ytop = ticks * c->ystep * c->yunit;
    return (int)ticks;
}

/* x: the steps the samples cover (a unit-wide domain around a single step). */
static void scale_x(chart *c, const harness_memory_log *log)
{
    size_t n = log ? log->n : 0;
    c->x0 = 0;
    c->x1 = 1;
    if (n) {
        int64_t lo = log->samples[0].step, hi = lo;
        for (size_t i = 1; i < n; i++) {
            if (log->samples[i].step < lo)
                lo = log->samples[i].step;
            if (log->samples[i].step > hi)
                hi = log->samples[i].step;
        }
        c->x0 = (double)lo;
        c->x1 = (double)hi;
    }
    if (c->x1 <= c->x0) {
        c->x0 -= 0.5;
        c->x1 += 0.5;
    }
}

/* Grid, tick labels (bytes on y, whole steps on x), frame and axis titles. */
static void emit_axes(FILE *b, const chart *c, int yticks, int with_xticks)
{
    fputs("<g class=\"axis\">\n", b);
    for (int k = 0; k <= yticks; k++) {
        double val = k * c->ystep;
        double y = py(c, val * c->yunit);
        fprintf(b, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"></line>\n", ML, y, ML + PW, y);
        fprintf(b, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g %s</text>\n", ML - 6, y + 4, val,
                harness_byte_unit(c->yunit_k));
    }
    if (with_xticks) {
        double xs = nice_step((c->x1 - c->x0) / 8.0);
        if (xs < 1.0)
            xs = 1.0;
        /* labelled as people count steps (from 1): ticks where that number is round */
        for (double v = ceil((c->x0 + 1) / xs) * xs; v - 1 <= c->x1 + 1e-9; v += xs) {
            double X = px(c, v - 1);
            fprintf(b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"></line>\n", X, MT + PH, X, MT + PH + 5);
            fprintf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.0f</text>\n", X, MT + PH + 18, v);
        }
    }
    fprintf(b, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"></rect>\n", ML, MT, PW, PH);
    fprintf(b, "<text class=\"atitle\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">step (from 1, all phases)"
            "</text>\n", ML + PW / 2, H - 8);
    fprintf(b, "<text class=\"atitle\" transform=\"rotate(-90)\" x=\"%d\" y=\"14\" text-anchor=\"middle\">bytes"
            "</text>\n", -(MT + PH / 2));
    fputs("</g>\n", b);
}

/* The global peaks: the allocated one is the tracker's figure, at the first
 * sample that had seen it (it may have fallen between two samples); the
 * reserved one the largest sample. Each label goes where no line crosses
 * it and the other label is not (above its dot when it can). */
static void emit_peak_markers(FILE *b, const chart *c, const harness_memory_report_input *in,
                              const char *alloc_label, const char *reserved_label)
{
    const harness_memory_log *log = in->log;
    size_t n = log->n;
    int64_t alloc_step = 0, res_step = 0;
    if (in->peak_allocated) {
        size_t at = n - 1;
        for (size_t i = 0; i < n; i++)
            if (log->samples[i].peak_allocated >= in->peak_allocated ||
                log->samples[i].allocated >= in->peak_allocated) {
                at = i;
                break;
            }
        alloc_step = log->samples[at].step;
    }
    uint64_t res_peak = 0;
    size_t res_at = 0;
    for (size_t i = 0; i < n; i++)
        if (log->samples[i].reserved > res_peak) {
            res_peak = log->samples[i].reserved;
            res_at = i;
        }
    if (res_peak) {
        res_step = log->samples[res_at].step;
    }
    fputs("<g class=\"markers\">\n", b);
    label_box res_box, alloc_box;
    if (res_peak)
        emit_marker(b, c, log, "reserved-marker", "m-res", reserved_label, res_peak, res_step, NULL, &res_box);
    if (in->peak_allocated)
        emit_marker(b, c, log, "peak-marker", "m-peak", alloc_label, in->peak_allocated, alloc_step,
                    res_peak ? &res_box : NULL, &alloc_box);
    fputs("</g>\n", b);
}

static int emit_chart(FILE *b, const harness_memory_report_input *in, const char *alloc_label,
                      const char *reserved_label)
{
    const harness_memory_log *log = in->log;
    size_t n = log ? log->n : 0;
    chart c;
    int all_zero;
    int yticks = scale_y(&c, in, &all_zero);
    scale_x(&c, log);

    fprintf(b,
            "<svg id=\"memory-timeline\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" "
            "aria-label=\"memory over the steps\" data-samples=\"%zu\">\n",
            W, H, W, H, n);
    if (n && emit_bands(b, &c, log) != 0)
        return -1;
    emit_axes(b, &c, yticks, n > 0);
    if (!n) {
        fprintf(b, "<text class=\"empty\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">no samples</text>\n", ML + PW / 2,
                MT + PH / 2);
        fputs("</svg>\n", b);
        return 0;
    }
    fputs("<g class=\"series\">\n", b);
    if (emit_series(b, &c, log, SERIES_RESERVED, "series-reserved", "s-res") != 0 ||
        emit_series(b, &c, log, SERIES_PEAK, "series-peak", "s-peak") != 0 ||
        emit_series(b, &c, log, SERIES_ALLOCATED, "series-allocated", "s-alloc") != 0)
        return -1;
    fputs("</g>\n", b);
    emit_peak_markers(b, &c, in, alloc_label, reserved_label);
    if (all_zero)
        fprintf(b, "<text class=\"empty\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">all memory figures are zero"
                "</text>\n", ML + PW / 2, MT + PH / 2);
    fputs("</svg>\n", b);
    return 0;
}

/* ---- tables ------------------------------------------------------------ */

static int cmp_alloc(const void *pa, const void *pb)
{
    const harness_allocation *a = *(const harness_allocation *const *)pa;
    const harness_allocation *b = *(const harness_allocation *const *)pb;
    if (a->bytes != b->bytes)
        return a->bytes > b->bytes ? -1 : 1;
    int r = strncmp(a->tag, b->tag, sizeof a->tag);
    return r ? r : strncmp(a->owner, b->owner, sizeof a->owner);
}

static void emit_share(FILE *b, uint64_t bytes, uint64_t peak)
{
    if (peak)
        fprintf(b, "<td class=\"num\">%.1f%%</td>", 100.0 * (double)bytes / (double)peak);
    else
        fputs("<td class=\"num\">&ndash;</td>", b);
}

static void emit_bytes_cell(FILE *b, uint64_t bytes)
{
    char h[32];
    harness_format_bytes_1dp(bytes, h, sizeof h);
    fprintf(b, "<td class=\"num\" data-bytes=\"%" PRIu64 "\" title=\"%" PRIu64 " bytes\">%s</td>", bytes, bytes, h);
}

static int emit_allocations(FILE *b, const harness_memory_report_input *in)
{
    size_t n = in->at_peak ? in->n_at_peak : 0;
    fputs("<h2>Live allocations at the peak</h2>\n", b);
    if (!n) {
        fputs("<p id=\"allocations-empty\">No tracked allocation was live at the peak.</p>\n", b);
        return 0;
    }
    const harness_allocation **v = malloc(sizeof *v * n);
    if (!v)
        return -1;
    for (size_t i = 0; i < n; i++)
        v[i] = &in->at_peak[i];
    qsort(v, n, sizeof *v, cmp_alloc);
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += v[i]->bytes;

    fputs("<table id=\"allocations\">\n<thead><tr><th>tag</th><th>owner</th><th class=\"num\">bytes</th>"
               "<th class=\"num\">share of peak</th></tr></thead>\n<tbody>\n", b);
    size_t shown = n > HARNESS_MEMORY_REPORT_MAX_ROWS ? HARNESS_MEMORY_REPORT_MAX_ROWS : n;
    for (size_t i = 0; i < shown; i++) {
        const harness_allocation *a = v[i];
        fprintf(b, "<tr class=\"alloc\" data-bytes=\"%" PRIu64 "\"><td>", (uint64_t)a->bytes);
        harness_html_escape_n(b, a->tag, strnlen(a->tag, sizeof a->tag));
        fputs("</td><td>", b);
        harness_html_escape_n(b, a->owner, strnlen(a->owner, sizeof a->owner));
        fputs("</td>", b);
        emit_bytes_cell(b, a->bytes);
        emit_share(b, a->bytes, in->peak_allocated);
        fputs("</tr>\n", b);
    }
    if (shown < n) {
        uint64_t rest = 0;
        for (size_t i = shown; i < n; i++)
            rest += v[i]->bytes;
        fprintf(b, "<tr class=\"more\" data-bytes=\"%" PRIu64 "\"><td colspan=\"2\">%zu smaller allocations</td>", rest,
                  n - shown);
        emit_bytes_cell(b, rest);
        emit_share(b, rest, in->peak_allocated);
        fputs("</tr>\n", b);
    }
    fprintf(b,
              "</tbody>\n<tfoot><tr id=\"allocations-total\" data-bytes=\"%" PRIu64
              "\"><th colspan=\"2\">total (%zu allocation%s)</th>",
              total, n, n == 1 ? "" : "s");
    emit_bytes_cell(b, total);
    emit_share(b, total, in->peak_allocated);
    fputs("</tr></tfoot>\n</table>\n", b);
    free(v);
    return 0;
}

/* ---- the page ---------------------------------------------------------- */

static const char style[] =
    "body{font:14px/1.45 system-ui,-apple-system,\"Segoe UI\",Roboto,sans-serif;color:#222;margin:24px auto;"
    "max-width:1000px;padding:0 16px}\n"
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}\n"
    ".sub{color:#666;margin:0 0 16px}\n"
    "table{border-collapse:collapse}th,td{padding:3px 10px;text-align:left;border-bottom:1px solid #e4e4e4}\n"
    "td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}\n"
    "table.figures th{font-weight:normal;color:#555}table.figures td{font-weight:600}\n"
    "tfoot th,tfoot td{border-top:2px solid #bbb;font-weight:600}\n"
    "tr.more td{color:#666;font-style:italic}\n"
    "figure{margin:0}svg{max-width:100%;height:auto;font-size:12px;fill:#333}\n"
    "svg .grid{stroke:#000;stroke-opacity:.08}svg .axis line{stroke:#888}\n"
    "svg .frame{fill:none;stroke:#888}svg .atitle{fill:#555}\n"
    "svg .empty{font-size:16px;fill:#888}.bands rect{shape-rendering:crispEdges}\n"
    "polyline{fill:none;stroke-width:1.6;stroke-linejoin:round}\n"
    "polyline.s-alloc{stroke:#1f6fb4}polyline.s-res{stroke:#e07b10}\n"
    "polyline.s-peak{stroke:#c62828;stroke-dasharray:5 3}\n"
    "circle.s-alloc{fill:#1f6fb4}circle.s-res{fill:#e07b10}circle.s-peak{fill:#c62828}\n"
    ".m-peak{fill:#c62828;stroke:#fff;stroke-width:1.5}.m-res{fill:#fff;stroke:#e07b10;stroke-width:2}\n"
    ".mlabel{font-weight:600;paint-order:stroke;stroke:#fff;stroke-width:3px}\n"
    ".ph0{fill:#fdebc8;background:#fdebc8}.ph1{fill:#e6e9ee;background:#e6e9ee}"
    ".ph2{fill:#dcf1e1;background:#dcf1e1}.phx{fill:#f3e3f3;background:#f3e3f3}\n"
    "ul.legend{list-style:none;padding:0;margin:8px 0;display:flex;flex-wrap:wrap;gap:6px 18px}\n"
    ".sw{display:inline-block;width:22px;height:12px;margin-right:6px;vertical-align:middle}\n"
    ".sw.line{height:0;border-top:3px solid}.sw.s-alloc{border-color:#1f6fb4}.sw.s-res{border-color:#e07b10}\n"
    ".sw.s-peak{border-top-style:dashed;border-color:#c62828}\n"
    ".sw.dot{width:10px;height:10px;border-radius:50%;background:#c62828}\n"
    ".sw.ring{width:8px;height:8px;border-radius:50%;border:2px solid #e07b10}\n"
    ".note{color:#666;font-size:13px}\n";

static void emit_figure_row(FILE *b, const char *label, const char *id, uint64_t bytes)
{
    char h[32];
    harness_format_bytes_1dp(bytes, h, sizeof h);
    fprintf(b,
              "<tr><th>%s</th><td id=\"%s\" class=\"num\" data-bytes=\"%" PRIu64 "\" title=\"%" PRIu64
              " bytes\">%s</td></tr>\n",
              label, id, bytes, bytes, h);
}

/* What the figures are called on this device, in the table and legend. */
typedef struct memory_labels {
    int cpu, cuda;
    const char *alloc, *res, *alloc_legend, *res_legend;
} memory_labels;

static memory_labels labels_for(const char *device)
{
    const char *dev = device ? device : "";
    int cpu = strcmp(dev, "cpu") == 0, cuda = strcmp(dev, "cuda") == 0;
    return (memory_labels){
        .cpu = cpu, .cuda = cuda, .alloc = "peak allocated",
        .res = cpu ? "peak resident set" : "peak reserved",
        .alloc_legend = cpu    ? "allocated (tracked host allocations)"
                        : cuda ? "allocated (tracked device allocations)"
                               : "allocated (tracked allocations)",
        .res_legend = cpu    ? "resident set (RSS of the process)"
                      : cuda ? "reserved (device memory in use)"
                             : "reserved",
    };
}

static void emit_head(FILE *b, const harness_memory_report_input *in)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>memory", b);
    if (in->title && in->title[0]) {
        fputs(": ", b);
        harness_html_escape(b, in->title);
    }
    fprintf(b, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>Memory", style);
    if (in->title && in->title[0]) {
        fputs(": ", b);
        harness_html_escape(b, in->title);
    }
    fputs("</h1>\n", b);
    if (in->subtitle && in->subtitle[0]) {
        fputs("<p class=\"sub\">", b);
        harness_html_escape(b, in->subtitle);
        fputs("</p>\n", b);
    }
}

/* The headline figures' table. */
static void emit_figures(FILE *b, const harness_memory_report_input *in, const memory_labels *l)
{
    size_t n = in->log->n;
    fputs("<table class=\"figures\">\n<tbody>\n", b);
    emit_figure_row(b, l->alloc, "peak-allocated", in->peak_allocated);
    emit_figure_row(b, l->res, "peak-reserved", in->peak_reserved);
    if (in->device_total)
        emit_figure_row(b, "device memory (total)", "device-total", in->device_total);
    fprintf(b, "<tr><th>samples</th><td id=\"samples\" class=\"num\" data-count=\"%zu\">%zu</td></tr>\n", n, n);
    if (n) {
        const harness_memory_sample *s = in->log->samples;
        fprintf(b,
                  "<tr><th>steps sampled</th><td id=\"steps\" class=\"num\" data-first=\"%" PRId64 "\" data-last=\"%" PRId64
                  "\">from step %" PRId64 " to step %" PRId64 " (steps count from 1)</td></tr>\n",
                  s[0].step, s[n - 1].step, shown_step(s[0].step), shown_step(s[n - 1].step));
        char d[48];
        fmt_duration(d, sizeof d, s[n - 1].t_us - s[0].t_us);
        fprintf(b, "<tr><th>time covered</th><td class=\"num\">%s</td></tr>\n", d);
        emit_figure_row(b, "allocated at the last sample", "last-allocated", s[n - 1].allocated);
    } else {
        fputs("<tr><th>steps sampled</th><td id=\"steps\" class=\"num\">no samples</td></tr>\n", b);
    }
    fputs("</tbody>\n</table>\n", b);
}

/* The chart with its legend and a note on what it draws. Nonzero when the
 * chart could not be drawn. */
static int emit_timeline(FILE *b, const harness_memory_report_input *in, const memory_labels *l)
{
    size_t n = in->log->n;
    fputs("<h2>Timeline</h2>\n<figure>\n", b);
    int failed = emit_chart(b, in, l->alloc, l->res) != 0;
    fputs("<figcaption>\n<ul class=\"legend\">\n", b);
    fprintf(b, "<li><span class=\"sw line s-alloc\"></span>%s</li>\n", l->alloc_legend);
    fprintf(b, "<li><span class=\"sw line s-res\"></span>%s</li>\n", l->res_legend);
    fputs("<li><span class=\"sw line s-peak\"></span>peak allocated so far</li>\n", b);
    fprintf(b, "<li><span class=\"sw dot\"></span>%s (the summary&#39;s figure)</li>\n", l->alloc);
    fprintf(b, "<li><span class=\"sw ring\"></span>%s (highest sample)</li>\n", l->res);
    fputs("<li><span class=\"sw ph0\"></span>warmup</li>\n<li><span class=\"sw ph1\"></span>wait</li>\n"
                "<li><span class=\"sw ph2\"></span>measure</li>\n</ul>\n", b);
    if (!n)
        fputs("<p class=\"note\">no samples: memory was not sampled during this run.</p>\n", b);
    else if (n > HARNESS_MEMORY_REPORT_MAX_POINTS)
        fprintf(b,
                  "<p class=\"note\">%zu samples, drawn as the lowest and highest sample of each of %d step ranges "
                  "(spikes and peaks are kept).</p>\n",
                  n, HARNESS_MEMORY_REPORT_BUCKETS);
    else
        fprintf(b, "<p class=\"note\">%zu sample%s, all drawn. Memory is sampled every memory_log_steps steps "
                      "and at each phase edge; the peak allocated may fall between two samples.</p>\n",
                  n, n == 1 ? "" : "s");
    fputs("</figcaption>\n</figure>\n", b);
    return failed;
}

static void emit_footer(FILE *b, const memory_labels *l)
{
    fprintf(b, "<p class=\"note\">%s. %s. Bytes are in binary units (1 KiB = 1024 bytes); hover a figure for "
                  "the exact count.</p>\n</body>\n</html>\n",
              l->cpu    ? "Allocated: what the harness and the plugins allocated through the tracked allocator"
              : l->cuda ? "Allocated: the tracked device allocations"
                        : "Allocated: the tracked allocations",
              l->cpu    ? "Resident set: the process&#39;s resident memory (RSS), all of it, tracked or not"
              : l->cuda ? "Reserved: the device memory in use"
                        : "Reserved: the memory the backend reports in use");
}

char *harness_memory_report_html(const harness_memory_report_input *in)
{
    if (!in)
        return NULL;
    char *text = NULL;
    size_t text_len = 0;
    FILE *b = open_memstream(&text, &text_len);
    if (!b)
        return NULL;
    harness_memory_report_input fixed = *in;
    harness_memory_log empty = {0};
    if (!(in->log && in->log->samples && in->log->n))
        fixed.log = &empty;
    in = &fixed;
    memory_labels l = labels_for(in->device);
    emit_head(b, in);
    emit_figures(b, in, &l);
    int failed = emit_timeline(b, in, &l);
    failed |= emit_allocations(b, in) != 0;
    emit_footer(b, &l);
    /* Out of memory: in a helper's scratch, or writing (the stream's error flag). */
    failed |= ferror(b);
    if (fclose(b) != 0 || failed) {
        free(text);
        return NULL;
    }
    return text;
}
