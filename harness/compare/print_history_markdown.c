/* print_history_markdown.c - the markdown printer of a history: a heading
 * per series, its change points as a table with the interference where
 * each begins, then its runs as a table; the method in small print. */
#include <stdio.h>
#include <stdlib.h>

#include "compare/markdown_escape.h"
#include "compare/print_history.h"

static void change_points_markdown(FILE *f, const harness_history *h, const harness_series *s)
{
    fputs("\n| at | commit | before | after | change | p | note |\n"
          "| ---: | --- | ---: | ---: | ---: | ---: | --- |\n", f);
    for (size_t c = 0; c < s->n_cps; c++) {
        const harness_change_point *cp = &s->cps[c];
        hist_cp_cells r;
        hist_cp_row(h->metric, cp, &r);
        fprintf(f, "| %zu | ", cp->index + 1);
        harness_md_code(f, hist_or_dash(s->points[cp->index].commit));
        fprintf(f, " | %s | %s | %s | %s | ", r.before, r.after, r.change, r.p);
        char *note = hist_interference_text(s, c);
        harness_md_cell(f, note);
        free(note);
        fputs(" |\n", f);
    }
}

static void runs_markdown(FILE *f, const harness_history *h, const harness_series *s)
{
    int other = h->metric != HARNESS_METRIC_MEDIAN;
    fputs("\n| # | commit |", f);
    if (other)
        fprintf(f, " %s |", harness_metric_name(h->metric));
    fprintf(f, " median | noise | CI | coverage |\n| ---: | --- |%s ---: | ---: | ---: | ---: |\n",
            other ? " ---: |" : "");
    for (size_t k = 0; k < s->n_points; k++) {
        const harness_history_point *p = &s->points[k];
        const char *why = hist_set_aside_name(p);
        hist_point_cells r;
        hist_point_row(h->metric, p, &r);
        fprintf(f, "| %zu%s%s%s | ", k + 1, hist_cp_at(s, k) ? " **change**" : "", why ? " set aside: " : "",
                why ? why : "");
        harness_md_code(f, hist_or_dash(p->commit));
        if (other)
            fprintf(f, " | %s", r.value);
        fprintf(f, " | %s | %s | [%s, %s] | %s |\n", r.median, r.noise, r.ci_lo, r.ci_hi, r.level);
    }
}

int harness_print_history_markdown(FILE *f, const harness_history *h)
{
    fprintf(f, "## harness history: %zu series\n", h->n_series);
    for (size_t i = 0; i < h->n_series; i++) {
        const harness_series *s = &h->series[i];
        fprintf(f, "\n### %zu. ", i + 1);
        harness_md_code(f, s->variant_key);
        fputc(' ', f);
        harness_md_code(f, s->config);
        fprintf(f, " rank %d/%d on ", s->rank, s->world_size);
        harness_md_code(f, s->host);
        fprintf(f, "\n\n%zu run%s, %zu change point%s.", s->n_points, s->n_points == 1 ? "" : "s", s->n_cps,
                s->n_cps == 1 ? "" : "s");
        hist_set_aside_line(f, s, " Left out of the search: ", ".");
        fputc('\n', f);
        if (s->n_cps)
            change_points_markdown(f, h, s);
        runs_markdown(f, h, s);
    }
    fprintf(f, "\n<sub>%s", hist_method);
    hist_method_options(f, h);
    fputs(").</sub>\n", f);
    return 0;
}
