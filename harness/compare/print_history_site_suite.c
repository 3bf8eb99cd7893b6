/* print_history_site_suite.c - a suite's page of the dashboard (`harness
 * history --out DIR`, history_site.h): its benchmarks with their latest
 * verdicts, then per benchmark the chart of the HTML report (each run's
 * commit in its tooltip, change points marked), its change points and
 * every run in a table that opens on a click (no script). */
#include <stdio.h>

#include "compare/history_site.h"
#include "compare/print_history.h"
#include "util/html.h"

/* Every run of a series: its commit and branch, value, CI, noise bound,
 * and why the change-point search left it out. */
static void runs_table(FILE *f, const harness_history *h, const harness_series *s)
{
    int medians = h->metric == HARNESS_METRIC_MEDIAN;
    fprintf(f, "<details><summary>the %zu run%s, commit by commit</summary>\n<table class=\"runs\"><tr><th>#</th>"
            "<th class=\"name\">commit</th><th class=\"name\">branch</th>", s->n_points, s->n_points == 1 ? "" : "s");
    if (!medians)
        fprintf(f, "<th>%s</th>", harness_metric_name(h->metric));
    fputs("<th>median</th><th>CI of the median</th><th>its coverage</th><th>noise bound</th>"
          "<th class=\"name\">left out</th></tr>\n", f);
    for (size_t k = 0; k < s->n_points; k++) {
        const harness_history_point *p = &s->points[k];
        hist_point_cells r;
        hist_point_row(h->metric, p, &r);
        fprintf(f, "<tr><td>%zu</td><td class=\"name\"><code>", k + 1);
        harness_html_escape(f, hist_or_dash(p->commit));
        fputs("</code></td><td class=\"name\">", f);
        harness_html_escape(f, hist_or_dash(p->branch));
        fputs("</td>", f);
        if (!medians)
            fprintf(f, "<td>%s</td>", r.value);
        fprintf(f, "<td>%s</td><td>[%s, %s]</td><td>%s</td><td>%s</td><td class=\"name\">%s</td></tr>\n", r.median,
                r.ci_lo, r.ci_hi, r.level, r.noise, hist_or_dash(hist_set_aside_name(p)));
    }
    fputs("</table></details>\n", f);
}

int harness_print_history_site_suite(FILE *f, const harness_history *h, const harness_site *site, size_t suite)
{
    const harness_site_suite *x = &site->suites[suite];
    char title[512];               /* a long variant key is cut short here only */
    snprintf(title, sizeof title, "%s - harness dashboard", x->name);
    hist_site_open(f, title);
    fputs("<p class=\"nav\"><a href=\"index.html\">&#8592; all suites</a></p>\n<h1>suite <code>", f);
    harness_html_escape(f, x->name);
    fprintf(f, "</code>: %zu benchmark%s</h1>\n", x->n_series, x->n_series == 1 ? "" : "s");
    hist_html_method(f, h);
    hist_site_benchmarks(f, h, site, suite);
    hist_html_legend(f, h);
    for (size_t k = 0; k < x->n_series; k++) {
        const harness_series *s = &h->series[x->series[k]];
        const harness_change_point *cp;
        char id[32];
        snprintf(id, sizeof id, "b%zu", k + 1);
        hist_html_series_head(f, s, k, id);
        fprintf(f, "<p class=\"verdict %s\">latest verdict: ",
                harness_site_verdict_name(harness_site_series_verdict(s, &cp)));
        hist_site_verdict_text(f, s, h->metric);
        fputs("</p>\n", f);
        hist_html_series_body(f, h, s);
        runs_table(f, h, s);
    }
    fputs("</body></html>\n", f);
    return 0;
}
