/* print_history.c - what the printers of a history share
 * (print_history.h): each CI shown with the coverage its run recorded, not
 * a nominal 95%; each run with its noise bound and why it was set aside; a
 * change point with the interference where it begins. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* open_memstream */
#endif
#include "compare/print_history.h"

#include <stdio.h>
#include <stdlib.h>

#include "util/format.h"

void hist_point_row(harness_metric m, const harness_history_point *p, hist_point_cells *out)
{
    out->value = harness_metric_format(m, p->value, out->buf[0], sizeof out->buf[0]);
    out->median = harness_metric_format(HARNESS_METRIC_MEDIAN, p->median, out->buf[1], sizeof out->buf[1]);
    out->ci_lo = harness_metric_format(HARNESS_METRIC_MEDIAN, p->ci_lo, out->buf[2], sizeof out->buf[2]);
    out->ci_hi = harness_metric_format(HARNESS_METRIC_MEDIAN, p->ci_hi, out->buf[3], sizeof out->buf[3]);
    out->level = harness_format_share(p->ci_level, out->buf[4], sizeof out->buf[4]);
    out->noise = harness_format_share(p->noise_bound, out->buf[5], sizeof out->buf[5]);
}

void hist_cp_row(harness_metric m, const harness_change_point *cp, hist_cp_cells *out)
{
    out->before = harness_metric_format(m, cp->before, out->buf[0], sizeof out->buf[0]);
    out->after = harness_metric_format(m, cp->after, out->buf[1], sizeof out->buf[1]);
    out->change = harness_format_signed_pct(hist_change_pct(cp), out->buf[2], sizeof out->buf[2]);
    out->p = harness_format_p(cp->p, out->buf[3], sizeof out->buf[3]);
}

const char *hist_or_dash(const char *s)
{
    return s && s[0] ? s : "-";
}

const harness_change_point *hist_cp_at(const harness_series *s, size_t k)
{
    for (size_t i = 0; i < s->n_cps; i++)
        if (s->cps[i].index == k)
            return &s->cps[i];
    return NULL;
}

double hist_change_pct(const harness_change_point *c)
{
    return harness_cp_step(c) * 100.0;
}

const char *hist_set_aside_name(const harness_history_point *p)
{
    return p->set_aside == HARNESS_CP_INTERFERENCE ? "interference" : p->set_aside == HARNESS_CP_OUTLIER ? "outlier"
                                                                                                        : NULL;
}

enum { MAX_NOTED = 8 };            /* runs named per change point; a longer stretch is counted */

void hist_interference_notes(FILE *f, const harness_series *s, size_t c, const char *lead, const char *end)
{
    size_t runs[MAX_NOTED];
    size_t n = harness_history_cp_interference(s, c, runs, MAX_NOTED);
    for (size_t i = 0; i < n && i < MAX_NOTED; i++) {
        const harness_history_point *p = &s->points[runs[i]];
        char b[32];
        fprintf(f, "%scoincides with interference at run #%zu: %s", lead, runs[i] + 1,
                p->noise_evidence ? p->noise_evidence : "");
        if (!p->noise_evidence)
            fprintf(f, "a noise bound of %s", harness_format_share(p->noise_bound, b, sizeof b));
        fputs(end, f);
    }
    if (n > MAX_NOTED)
        fprintf(f, "%sand %zu more runs with interference%s", lead, n - MAX_NOTED, end);
}

char *hist_interference_text(const harness_series *s, size_t c)
{
    char *note = NULL;
    size_t len = 0;
    FILE *f = harness_history_cp_interference(s, c, NULL, 0) ? open_memstream(&note, &len) : NULL;
    if (!f)
        return NULL;
    hist_interference_notes(f, s, c, "", "; ");
    if (fclose(f) != 0) {
        free(note);
        return NULL;
    }
    if (len >= 2)
        note[len - 2] = '\0';     /* the last "; " */
    return note;
}

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

const char hist_method[] = "change points: E-divisive means (Matteson & James 2014) with a permutation test, "
                             "runs with interference and outliers left out";

void hist_method_options(FILE *f, const harness_history *h)
{
    const harness_cp_options *o = &h->cp;
    double limit = harness_cp_noise_limit(o) * 100.0;
    fprintf(f, " (each run's %s, alpha %g, %d permutations, steps under %g%% dropped, a run with a noise bound of %g%% "
            "or more set aside when it sits %g%% above the runs around it", harness_metric_name(h->metric), o->alpha,
            o->permutations, o->min_change * 100.0, limit, limit);
}

