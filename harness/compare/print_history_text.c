/* print_history_text.c - the text printer of a history: each series' runs
 * as an aligned table, its change points below it with the interference
 * where each begins, the method last. */
#include <stdio.h>

#include "compare/print_history.h"

static void series_title(FILE *f, const harness_series *s, size_t i)
{
    fprintf(f, "series %zu: %s %s config %.8s, rank %d/%d, on %s (%s, %s): %zu run%s, %zu change point%s", i + 1,
            s->variant_key, s->config, s->config_hash, s->rank, s->world_size, s->host, s->cpu, s->gpu,
            s->n_points, s->n_points == 1 ? "" : "s", s->n_cps, s->n_cps == 1 ? "" : "s");
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

static void series_text(FILE *f, const harness_history *h, size_t i)
{
    const harness_series *s = &h->series[i];
    int other = h->metric != HARNESS_METRIC_MEDIAN;   /* a column of its own before the median's */
    fputc('\n', f);
    series_title(f, s, i);
    hist_set_aside_line(f, s, "\n  ", "");
    fprintf(f, "\n  %4s  %-14s  %-32s  ", "#", "commit", "experiment");
    if (other)
        fprintf(f, "%12s  ", harness_metric_name(h->metric));
    fprintf(f, "%12s  %6s  %s\n", "median", "noise", "CI of the median, its coverage");
    for (size_t k = 0; k < s->n_points; k++) {
        const harness_history_point *p = &s->points[k];
        hist_point_cells r;
        hist_point_row(h->metric, p, &r);
        fprintf(f, "  %4zu  %-14.14s  %-32s  ", k + 1, hist_or_dash(p->commit), p->experiment);
        if (other)
            fprintf(f, "%12s  ", r.value);
        fprintf(f, "%12s  %6s  [%s, %s] %s", r.median, r.noise, r.ci_lo, r.ci_hi, r.level);
        text_mark(f, s, k);
        fputc('\n', f);
    }
    for (size_t c = 0; c < s->n_cps; c++) {
        const harness_change_point *cp = &s->cps[c];
        hist_cp_cells r;
        hist_cp_row(h->metric, cp, &r);
        fprintf(f, "  change at #%zu (commit %s): %s -> %s (%s), p = %s\n", cp->index + 1,
                hist_or_dash(s->points[cp->index].commit), r.before, r.after, r.change, r.p);
        hist_interference_notes(f, s, c, "    ", "\n");
    }
}

int harness_print_history_text(FILE *f, const harness_history *h)
{
    fprintf(f, "history of %s: %zu series\n", h->db_path, h->n_series);
    for (size_t i = 0; i < h->n_series; i++)
        series_text(f, h, i);
    fprintf(f, "\n%s", hist_method);
    hist_method_options(f, h);
    fprintf(f, ", at least %zu runs a side)\n", h->cp.min_size);
    return 0;
}
