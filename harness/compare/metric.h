/* metric.h - what each replicate of a comparison contributes (--metric):
 * the median of its samples by default, the p90 or p99 for users who gate
 * on tails, or the mean. A run's value comes from its own samples; a
 * window's from its slice of them. */
#ifndef HARNESS_METRIC_H
#define HARNESS_METRIC_H

#include <stddef.h>

#include "compare/comparison.h"
#include "util/error.h"

/* "median", "p90", "p99", "mean", "energy" */
const char *harness_metric_name(harness_metric m);

/* Whether m is a time (ns) rather than energy per step (J). */
int harness_metric_is_time(harness_metric m);
/* A value of m for people: "1.234 ms", or "12.3 mJ" for energy; "-" when NaN. */
const char *harness_metric_format(harness_metric m, double v, char *buf, size_t cap);

/* Parse a --metric value; on a bad one, exit code 2 naming `option`. */
int harness_metric_parse(const char *option, const char *arg, harness_metric *out, harness_error *err);

/* The metric of computed statistics. */
double harness_metric_of_stats(const harness_stats *st, harness_metric m);

/* A run's value: of its samples; NaN when it kept none. Energy: the run's
 * joules per step, NaN when not measured. */
double harness_run_metric(const harness_run_summary *r, harness_metric m);

/* The value of each of r's windows into out[0..r->n_windows): of its slice
 * of samples; for the median, r->window_medians (already of those slices,
 * or the written medians when the run kept no samples; other metrics are
 * NaN then); for energy, each window's joules per step (NaN where the
 * window was not measured: too short, no counter). 0, or -1 out of memory. */
int harness_window_metrics(const harness_run_summary *r, harness_metric m, double *out);

#endif
