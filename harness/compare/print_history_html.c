/* print_history_html.c - the HTML printer of a history: one
 * self-contained page, an inline SVG chart per series
 * (print_history_chart.c; no script, nothing fetched) and each series'
 * change points as a table. Its parts are the dashboard's too
 * (print_history_site_*.c): the head, the method, the legend, a series. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#include "compare/print_history.h"
#include "util/html.h"

void hist_html_open(FILE *f, const char *title, const char *head_extra)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>", f);
    harness_html_escape(f, title);
    fputs("</title>\n"
          "<style>body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse}"
          "td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right}code{font-size:90%}"
          "h2{font-size:1.15em;overflow-wrap:anywhere}svg.chart{display:block;max-width:1200px;height:auto}"
          ".legend{font-size:90%;color:#555}</style>\n",
          f);
    fputs(head_extra, f);
    fputs("</head><body>\n", f);
}

void hist_html_method(FILE *f, const harness_history *h)
{
    fputs("<p>", f);
    harness_html_escape(f, h->db_path);
    fprintf(f, ": %zu series. ", h->n_series);
    harness_html_escape(f, hist_method);
    hist_method_options(f, h);
    fputs(").</p>\n", f);
}

void hist_html_legend(FILE *f, const harness_history *h)
{
    fprintf(f, "<p class=\"legend\"><span style=\"color:#1f77b4\">&#9679;</span> a run's %s%s; "
            "<span style=\"color:#2ca02c\">&#9472;</span> the level between change points (a series "
            "without one: the median of its runs); "
            "<span style=\"color:#d62728\">- -</span> a change point (the commit where the new level starts); "
            "<span style=\"color:#ff7f0e\">&#9675;</span> an outlier and "
            "<span style=\"color:#9467bd\">&#9633;</span> a run with interference (its noise bound reaches %g%%), "
            "both left out of the search; &#9650; either beyond the axis (its value in the tooltip).</p>\n",
            harness_metric_name(h->metric), h->metric == HARNESS_METRIC_MEDIAN ? " and its CI" : "",
            harness_cp_noise_limit(&h->cp) * 100.0);
}

/* The change points of a series as a table, with the interference where each begins. */
static void change_points_html(FILE *f, const harness_history *h, const harness_series *s)
{
    fputs("<table><tr><th>at</th><th>commit</th><th>before</th><th>after</th><th>change</th><th>p</th>"
          "<th>note</th></tr>\n", f);
    for (size_t c = 0; c < s->n_cps; c++) {
        const harness_change_point *cp = &s->cps[c];
        hist_cp_cells r;
        hist_cp_row(h->metric, cp, &r);
        fprintf(f, "<tr><td>%zu</td><td><code>", cp->index + 1);
        harness_html_escape(f, hist_or_dash(s->points[cp->index].commit));
        fprintf(f, "</code></td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td class=\"note\">",
                r.before, r.after, r.change, r.p);
        char *note = hist_interference_text(s, c);
        harness_html_escape(f, note);
        free(note);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

void hist_html_config(FILE *f, const char *config)
{
    cJSON *root = cJSON_Parse(config);
    int plain = cJSON_IsObject(root);
    for (const cJSON *m = plain ? root->child : NULL; m; m = m->next)
        plain &= !cJSON_IsObject(m) && !cJSON_IsArray(m);
    if (!plain) {
        harness_html_escape(f, config);
        cJSON_Delete(root);
        return;
    }
    for (const cJSON *m = root->child; m; m = m->next) {
        fputs(m == root->child ? "" : ", ", f);
        harness_html_escape(f, m->string);
        fputc('=', f);
        char *value = cJSON_IsString(m) ? NULL : cJSON_PrintUnformatted(m);
        harness_html_escape(f, cJSON_IsString(m) ? m->valuestring : value ? value : "?");
        free(value);
    }
    if (!root->child)
        fputs("(no parameters)", f);
    cJSON_Delete(root);
}

/* A fact of the series' machine, labelled: "cpu: AMD EPYC". */
static void fact(FILE *f, const char *label, const char *value, const char *after)
{
    fprintf(f, "%s: ", label);
    harness_html_escape(f, hist_or_dash(value));
    fputs(after, f);
}

void hist_html_series_head(FILE *f, const harness_series *s, size_t i, const char *id)
{
    fputs("<h2", f);
    if (id)
        fprintf(f, " id=\"%s\"", id);
    fprintf(f, ">%zu. <code>", i + 1);
    harness_html_escape(f, s->variant_key);
    fputs("</code> <code>", f);
    hist_html_config(f, s->config);
    fprintf(f, "</code> rank %d/%d on ", s->rank, s->world_size);
    harness_html_escape(f, s->host);
    fputs("</h2>\n<p>", f);
    fact(f, "cpu", s->cpu, "; ");
    fact(f, "gpu", s->gpu, "; ");
    fprintf(f, "config hash: <code>%.16s</code>; %zu run%s, %zu change point%s.", s->config_hash,
            s->n_points, s->n_points == 1 ? "" : "s", s->n_cps, s->n_cps == 1 ? "" : "s");
    hist_set_aside_line(f, s, " Left out of the search: ", ".");
    fputs("</p>\n", f);
}

void hist_html_series_body(FILE *f, const harness_history *h, const harness_series *s)
{
    hist_svg_chart(f, s, h->metric);
    if (s->n_cps)
        change_points_html(f, h, s);
}

int harness_print_history_html(FILE *f, const harness_history *h)
{
    hist_html_open(f, "harness history", "");
    fputs("<h1>harness history</h1>\n", f);
    hist_html_method(f, h);
    hist_html_legend(f, h);
    for (size_t i = 0; i < h->n_series; i++) {
        hist_html_series_head(f, &h->series[i], i, NULL);
        hist_html_series_body(f, h, &h->series[i]);
    }
    fputs("</body></html>\n", f);
    return 0;
}
