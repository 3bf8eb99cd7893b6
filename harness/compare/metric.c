/* metric.c - the value a replicate contributes (metric.h). */
#include "compare/metric.h"

#include <math.h>
#include <string.h>

static const char *const names[HARNESS_METRIC_COUNT] = {"median", "p90", "p99", "mean"};

const char *harness_metric_name(harness_metric m)
{
    return m < HARNESS_METRIC_COUNT ? names[m] : "?";
}

int harness_metric_parse(const char *option, const char *arg, harness_metric *out, harness_error *err)
{
    for (int m = 0; m < HARNESS_METRIC_COUNT; m++)
        if (strcmp(arg, names[m]) == 0) {
            *out = (harness_metric)m;
            return 0;
        }
    return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: expected median, p90, p99 or mean, got '%s'", option,
                             arg);
}

double harness_metric_of_stats(const harness_stats *st, harness_metric m)
{
    switch (m) {
    case HARNESS_METRIC_P90: return st->p90;
    case HARNESS_METRIC_P99: return st->p99;
    case HARNESS_METRIC_MEAN: return st->mean;
    default: return st->median;
    }
}

double harness_run_metric(const harness_run_summary *r, harness_metric m)
{
    return r->n_samples ? harness_metric_of_stats(&r->stats, m) : NAN;
}

int harness_window_metrics(const harness_run_summary *r, harness_metric m, double *out)
{
    for (size_t w = 0; w < r->n_windows; w++) {
        /* the medians were computed from the same slices when the summary was read */
        if (m == HARNESS_METRIC_MEDIAN) {
            out[w] = r->window_medians[w];
            continue;
        }
        if (!r->n_samples || !r->window_len || !r->window_len[w]) {
            out[w] = NAN;
            continue;
        }
        harness_stats st;
        if (harness_stats_compute(r->samples + r->window_start[w], r->window_len[w], &st) != 0)
            return -1;
        out[w] = harness_metric_of_stats(&st, m);
    }
    return 0;
}
