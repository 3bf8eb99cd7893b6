/* print_history.h - the printers of a history (`harness history`;
 * printer.h) and what their formats share (print_history.c). Numbers go
 * through harness_metric_format (a time or energy; "-" when unknown) and
 * util/format.h. Not for other stages. */
#ifndef HARNESS_COMPARE_PRINT_HISTORY_H
#define HARNESS_COMPARE_PRINT_HISTORY_H

#include <stdio.h>

#include "compare/history.h"
#include "compare/history_site.h"

/* One per format (print_history_<format>.c). */
int harness_print_history_text(FILE *f, const harness_history *h);
int harness_print_history_markdown(FILE *f, const harness_history *h);
int harness_print_history_json(FILE *f, const harness_history *h);
int harness_print_history_html(FILE *f, const harness_history *h);

/* What the dashboard's pages share (print_history_site.c): the document up
 * to <body> with the dashboard's style and the mark of its pages
 * (HARNESS_SITE_MARK); the table of benchmarks (with `suite`, its rows
 * of that suite alone, linked within the page; SIZE_MAX: every suite's,
 * linked to their pages); a series' latest verdict in words. */
void hist_site_open(FILE *f, const char *title);
void hist_site_benchmarks(FILE *f, const harness_history *h, const harness_site *site, size_t suite);
void hist_site_verdict_text(FILE *f, const harness_series *s, harness_metric m);

/* The parts of an HTML page (print_history_html.c), the dashboard's pages
 * too: the document up to <body> with the shared style (head_extra goes
 * into the head after it: more style, a meta); the paragraph naming the
 * database and the method; the chart's legend; a series' heading (with
 * id, when not NULL, as its anchor) and facts; its chart and change
 * points; a config as "key=value, ..." pairs. */
void hist_html_open(FILE *f, const char *title, const char *head_extra);
void hist_html_method(FILE *f, const harness_history *h);
void hist_html_legend(FILE *f, const harness_history *h);
void hist_html_series_head(FILE *f, const harness_series *s, size_t i, const char *id);
void hist_html_series_body(FILE *f, const harness_history *h, const harness_series *s);
void hist_html_config(FILE *f, const char *config);

/* The chart of one series, an inline SVG (print_history_chart.c). */
void hist_svg_chart(FILE *f, const harness_series *s, harness_metric metric);

/* The cells of a run's row, each "-" when unknown: the series' metric
 * (value), the median and its CI (times), the CI's coverage as its run
 * recorded it ("96.1%", not a nominal 95%), the noise bound ("1.9%"). */
typedef struct hist_point_cells {
    const char *value, *median, *ci_lo, *ci_hi, *level, *noise;
    char buf[6][32];
} hist_point_cells;
void hist_point_row(harness_metric m, const harness_history_point *p, hist_point_cells *out);

/* The cells of a change point: the levels before and after (the series'
 * metric), the step ("+20.1%") and its p ("0.002"). */
typedef struct hist_cp_cells {
    const char *before, *after, *change, *p;
    char buf[4][32];
} hist_cp_cells;
void hist_cp_row(harness_metric m, const harness_change_point *cp, hist_cp_cells *out);

/* s, or "-" when NULL or empty. */
const char *hist_or_dash(const char *s);
/* The change point that starts at point k, or NULL. */
const harness_change_point *hist_cp_at(const harness_series *s, size_t k);
/* A change point's step in percent (+5.0 for 5% slower). */
double hist_change_pct(const harness_change_point *c);
/* Why a run was left out of the search ("interference", "outlier"), or NULL. */
const char *hist_set_aside_name(const harness_history_point *p);
/* "coincides with interference at run #N: EVIDENCE" for each run set aside
 * for interference where change point c begins, each after `lead` and
 * ended by `end`. */
void hist_interference_notes(FILE *f, const harness_series *s, size_t c, const char *lead, const char *end);
/* hist_interference_notes as one line, parted by "; "; malloc'ed, NULL when
 * there are none (or out of memory). */
char *hist_interference_text(const harness_series *s, size_t c);
/* "2 runs set aside for interference (#6, #24), 1 outlier (#10)" between
 * lead and end, or nothing when the search kept every run. */
void hist_set_aside_line(FILE *f, const harness_series *s, const char *lead, const char *end);

/* The method in words, and its options " (each run's median, alpha ...,"
 * left open for the caller to close. */
extern const char hist_method[];
void hist_method_options(FILE *f, const harness_history *h);

#endif
