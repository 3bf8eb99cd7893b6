/* The pair matrix and its two views; see pairs.h. */
#include "report/pairs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/format.h"
#include "util/html.h"
#include "util/stats.h"

double harness_pair_ns(const harness_job_pairs *p, int a, int b)
{
    double x = p->median_ns[(size_t)a * (size_t)p->n + (size_t)b];
    double y = p->median_ns[(size_t)b * (size_t)p->n + (size_t)a];
    if (isnan(x))
        return y;
    return isnan(y) || x > y ? x : y;
}

int harness_pairs_compute(const double *rows_ns, const double *rows_bytes, int n, harness_job_pairs *out)
{
    memset(out, 0, sizeof *out);
    out->slowest_a = out->slowest_b = -1;
    size_t cells = (size_t)n * (size_t)n;
    int any = 0;
    for (size_t i = 0; i < cells; i++)
        any |= !isnan(rows_ns[i]) && i / (size_t)n != i % (size_t)n;
    if (!any)
        return 0;
    double *times = malloc(sizeof *times * cells);
    if (!times || !(out->median_ns = malloc(sizeof *out->median_ns * cells))) {
        free(times);
        return -1;
    }
    memcpy(out->median_ns, rows_ns, sizeof *out->median_ns * cells);
    out->n = n;
    size_t k = 0;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            double t = harness_pair_ns(out, a, b);
            if (isnan(t))
                continue;
            times[k++] = t;
            if (out->slowest_a < 0 || t > out->slowest_ns)
                out->slowest_a = a, out->slowest_b = b, out->slowest_ns = t;
        }
    for (size_t i = 0; i < cells; i++)
        if (!isnan(rows_bytes[i]) && i / (size_t)n != i % (size_t)n)
            out->bytes = rows_bytes[i];
    harness_stats st;
    out->median_pair_ns = k > 0 && harness_stats_compute(times, k, &st) == 0 ? st.median : NAN;
    free(times);
    return 0;
}

void harness_pairs_print(FILE *f, const harness_job_pairs *p)
{
    if (p->n == 0)
        return;
    char size[32], slow[32], med[32];
    fprintf(f, "pairs (send_recv of %s each way; a pair's time is the slower side's median):\n",
            harness_format_bytes(p->bytes, size, sizeof size));
    if (p->slowest_a >= 0)
        fprintf(f, "  slowest pair: ranks %d and %d, %s (%.2fx the median pair, %s)\n", p->slowest_a, p->slowest_b,
                harness_format_ns(p->slowest_ns, slow, sizeof slow), p->slowest_ns / p->median_pair_ns,
                harness_format_ns(p->median_pair_ns, med, sizeof med));
    if (p->n > 16) {
        fputs("  the matrix of every pair: summary.json (\"pairs\") and pairs.html\n", f);
        return;
    }
    fprintf(f, "  %6s", "rank");
    for (int b = 0; b < p->n; b++)
        fprintf(f, " %9d", b);
    fputc('\n', f);
    for (int a = 0; a < p->n; a++) {
        fprintf(f, "  %6d", a);
        for (int b = 0; b < p->n; b++) {
            double t = a == b ? NAN : harness_pair_ns(p, a, b);
            fprintf(f, " %9s", isnan(t) ? "-" : harness_format_ns(t, med, sizeof med));
        }
        fputc('\n', f);
    }
}

/* White (the fastest pair) to red (the slowest), as an RGB hex colour. */
static void heat(double t, double lo, double hi, char *out, size_t cap)
{
    double x = hi > lo ? (t - lo) / (hi - lo) : 0;
    int gb = (int)lround(255 * (1 - x));
    snprintf(out, cap, "#ff%02x%02x", gb, gb);
}

char *harness_pairs_html(const harness_job_pairs *p, const char *variant_key)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    double lo = INFINITY, hi = 0;
    for (int a = 0; a < p->n; a++)
        for (int b = a + 1; b < p->n; b++) {
            double t = harness_pair_ns(p, a, b);
            lo = t < lo ? t : lo;
            hi = t > hi ? t : hi;
        }
    char size[32], t1[32], t2[32];
    fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>pairs: ", f);
    harness_html_escape(f, variant_key);
    fputs("</title><style>body{font-family:sans-serif}table{border-collapse:collapse}"
          "td,th{border:1px solid #ccc;padding:4px 8px;text-align:right;font-size:13px}"
          "td.slowest{outline:3px solid #000}</style></head><body>\n<h1>", f);
    harness_html_escape(f, variant_key);
    fprintf(f, ": every pair of ranks</h1>\n<p>send_recv of %s each way; a cell is the pair's median exchange time "
            "(the slower of its two sides), white the fastest pair, red the slowest.",
            harness_format_bytes(p->bytes, size, sizeof size));
    if (p->slowest_a >= 0)
        fprintf(f, " Slowest: <b>ranks %d and %d</b>, %s, %.2fx the median pair (%s).", p->slowest_a,
                p->slowest_b, harness_format_ns(p->slowest_ns, t1, sizeof t1), p->slowest_ns / p->median_pair_ns,
                harness_format_ns(p->median_pair_ns, t2, sizeof t2));
    fputs("</p>\n<table><tr><th>rank</th>", f);
    for (int b = 0; b < p->n; b++)
        fprintf(f, "<th>%d</th>", b);
    fputs("</tr>\n", f);
    for (int a = 0; a < p->n; a++) {
        fprintf(f, "<tr><th>%d</th>", a);
        for (int b = 0; b < p->n; b++) {
            double t = a == b ? NAN : harness_pair_ns(p, a, b);
            if (isnan(t)) {
                fputs("<td></td>", f);
                continue;
            }
            char colour[8];
            heat(t, lo, hi, colour, sizeof colour);
            int slowest = (a == p->slowest_a && b == p->slowest_b) || (a == p->slowest_b && b == p->slowest_a);
            fprintf(f, "<td%s style=\"background:%s\" title=\"ranks %d and %d\">%s</td>",
                    slowest ? " class=\"slowest\"" : "", colour, a, b, harness_format_ns(t, t1, sizeof t1));
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n</body></html>\n", f);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}
