/* print_history_site.c - the dashboard's index page (`harness history
 * --out DIR`, history_site.h) and what its pages share: the style, the
 * table of benchmarks with their latest verdicts, a verdict in words. The
 * pages are HTML and CSS alone (no script, no font, nothing fetched), so the
 * site opens from a file or an artifact with no network. */
#include <stdint.h>
#include <stdio.h>

#include "compare/history_site.h"
#include "compare/print_history.h"
#include "util/html.h"

void hist_site_open(FILE *f, const char *title)
{
    hist_html_open(f, title,
                   "<style>.name{text-align:left}.nav{font-size:90%}.slower{color:#b00020;font-weight:bold}"
                   ".faster{color:#1a7f37;font-weight:bold}.steady{color:#555}p.verdict{font-weight:bold}"
                   "details{margin:0.5em 0 2em}"
                   "summary{cursor:pointer;color:#1f5fa8}</style>\n" HARNESS_SITE_MARK "\n");
}

void hist_site_verdict_text(FILE *f, const harness_series *s, harness_metric m)
{
    const harness_change_point *cp;
    harness_site_verdict v = harness_site_series_verdict(s, &cp);
    if (!cp) {
        fputs("steady: no change point", f);
        return;
    }
    hist_cp_cells r;
    hist_cp_row(m, cp, &r);
    fprintf(f, "%s since <code>", harness_site_verdict_name(v));
    harness_html_escape(f, hist_or_dash(s->points[cp->index].commit));
    fprintf(f, "</code> (run #%zu): %s &#8594; %s, %s, p %s", cp->index + 1, r.before, r.after, r.change, r.p);
}

/* A benchmark's row: its suite, config, machine, runs, latest run and verdict. */
static void bench_row(FILE *f, const harness_history *h, const harness_site_suite *suite, size_t k, int here)
{
    const harness_series *s = &h->series[suite->series[k]];
    const harness_change_point *cp;
    harness_site_verdict v = harness_site_series_verdict(s, &cp);
    const harness_history_point *latest = &s->points[s->n_points - 1];
    hist_point_cells r;
    hist_point_row(h->metric, latest, &r);
    fputs("<tr><td class=\"name\"><code>", f);
    harness_html_escape(f, suite->name);
    fprintf(f, "</code></td><td class=\"name\"><a href=\"%s#b%zu\"><code>", here ? "" : suite->file, k + 1);
    hist_html_config(f, s->config);
    fprintf(f, "</code></a> rank %d/%d</td><td class=\"name\">", s->rank, s->world_size);
    harness_html_escape(f, s->host);
    fprintf(f, "</td><td>%zu</td><td><code>", s->n_points);
    harness_html_escape(f, hist_or_dash(latest->commit));
    fprintf(f, "</code></td><td>%s</td><td class=\"name %s\">", r.value, harness_site_verdict_name(v));
    hist_site_verdict_text(f, s, h->metric);
    fputs("</td></tr>\n", f);
}

void hist_site_benchmarks(FILE *f, const harness_history *h, const harness_site *site, size_t suite)
{
    fprintf(f, "<table class=\"benchmarks\"><tr><th class=\"name\">suite</th><th class=\"name\">benchmark</th>"
            "<th class=\"name\">machine</th><th>runs</th><th>latest commit</th><th>latest %s</th>"
            "<th class=\"name\">latest verdict</th></tr>\n", harness_metric_name(h->metric));
    for (size_t i = 0; i < site->n_suites; i++)
        for (size_t k = 0; (suite == SIZE_MAX || suite == i) && k < site->suites[i].n_series; k++)
            bench_row(f, h, &site->suites[i], k, suite != SIZE_MAX);
    fputs("</table>\n", f);
}

/* A suite's row of the index: its page, its benchmarks and runs, the count of each verdict. */
static void suite_row(FILE *f, const harness_history *h, const harness_site_suite *suite)
{
    size_t runs = 0, count[3] = {0, 0, 0};
    for (size_t k = 0; k < suite->n_series; k++) {
        const harness_series *s = &h->series[suite->series[k]];
        const harness_change_point *cp;
        runs += s->n_points;
        count[harness_site_series_verdict(s, &cp)]++;
    }
    fprintf(f, "<tr><td class=\"name\"><a href=\"%s\"><code>", suite->file);
    harness_html_escape(f, suite->name);
    fprintf(f, "</code></a></td><td>%zu</td><td>%zu</td><td class=\"name\">", suite->n_series, runs);
    static const harness_site_verdict order[3] = {HARNESS_SITE_SLOWER, HARNESS_SITE_FASTER, HARNESS_SITE_STEADY};
    const char *sep = "";
    for (int i = 0; i < 3; i++) {
        if (!count[order[i]])
            continue;
        const char *name = harness_site_verdict_name(order[i]);
        fprintf(f, "%s<span class=\"%s\">%zu %s</span>", sep, name, count[order[i]], name);
        sep = ", ";
    }
    fputs("</td></tr>\n", f);
}

int harness_print_history_site_index(FILE *f, const harness_history *h, const harness_site *site)
{
    hist_site_open(f, "harness dashboard");
    fputs("<h1>harness dashboard</h1>\n", f);
    hist_html_method(f, h);
    fputs("<p>A suite is the series of one variant key (the database keeps no suites), a benchmark one series: "
          "a config on a machine, a rank. A benchmark's latest verdict compares the level of its latest runs "
          "with the level before its last change point: slower, faster, or steady without a change point.</p>\n"
          "<h2>Suites</h2>\n<table class=\"suites\"><tr><th class=\"name\">suite</th><th>benchmarks</th>"
          "<th>runs</th><th class=\"name\">latest verdicts</th></tr>\n", f);
    for (size_t i = 0; i < site->n_suites; i++)
        suite_row(f, h, &site->suites[i]);
    fputs("</table>\n<h2>Benchmarks</h2>\n", f);
    hist_site_benchmarks(f, h, site, SIZE_MAX);
    fputs("</body></html>\n", f);
    return 0;
}
