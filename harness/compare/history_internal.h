/* history_internal.h - what the reports of `harness history` share:
 * history_report.c (text, markdown, JSON and these helpers) and
 * history_html.c (the HTML page). Not for other stages. */
#ifndef HARNESS_HISTORY_INTERNAL_H
#define HARNESS_HISTORY_INTERNAL_H

#include <stdio.h>

#include "compare/history.h"

/* A time in ns as "1.23 ms"; "-" when not finite. */
const char *hist_fmt_ns(double ns, char *buf, size_t cap);
/* A value of the series' metric: a time, or joules per step; "-" when unknown. */
const char *hist_fmt_value(harness_metric m, double v, char *buf, size_t cap);
/* s, or "-" when NULL or empty. */
const char *hist_or_dash(const char *s);
/* The change point that starts at point k, or NULL. */
const harness_change_point *hist_cp_at(const harness_series *s, size_t k);
/* A CI's coverage as "96.1%"; "-" when unknown. */
const char *hist_fmt_level(double level, char *buf, size_t cap);
/* A change point's step in percent (+5.0 for 5% slower). */
double hist_change_pct(const harness_change_point *c);
/* A noise bound as "1.9%"; "-" when unknown. */
const char *hist_fmt_bound(double bound, char *buf, size_t cap);
/* Why a run was left out of the search ("interference", "outlier"), or NULL. */
const char *hist_set_aside_name(const harness_history_point *p);
/* "coincides with interference at run #N: EVIDENCE" for each run set
 * aside for interference where change point c begins, parted by "; ";
 * malloc'ed, NULL when there are none. */
char *hist_interference_text(const harness_series *s, size_t c);
/* "2 runs set aside for interference (#6, #24), 1 outlier (#10)" between
 * lead and end, or nothing when the search kept every run. */
void hist_set_aside_line(FILE *f, const harness_series *s, const char *lead, const char *end);

/* The method in words, and its options " (each run's median, alpha ...,"
 * left open for the caller to close. */
extern const char hist_method[];
void hist_method_options(FILE *f, const harness_history *h);

/* The HTML page. */
void harness_history_html(FILE *f, const harness_history *h);

#endif
