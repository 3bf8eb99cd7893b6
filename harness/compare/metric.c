/* metric.c - the value a replicate contributes (metric.h). */
#include "compare/metric.h"

#include <math.h>
#include <string.h>

#include "util/format.h"

static const char *const names[HARNESS_METRIC_COUNT] = {"median", "p90", "p99", "mean", "energy"};

const char *harness_metric_name(harness_metric m)
{
    return m < HARNESS_METRIC_COUNT ? names[m] : "?";
}

int harness_metric_is_time(harness_metric m)
{
    return m != HARNESS_METRIC_ENERGY;
}

const char *harness_metric_format(harness_metric m, double v, char *buf, size_t cap)
{
    if (!isfinite(v))
        return "-";
    return harness_metric_is_time(m) ? harness_format_ns(v, buf, cap) : harness_format_si(v, "J", buf, cap);
}

int harness_metric_parse(const char *option, const char *arg, harness_metric *out, harness_error *err)
{
    for (int m = 0; m < HARNESS_METRIC_COUNT; m++)
        if (strcmp(arg, names[m]) == 0) {
            *out = (harness_metric)m;
            return 0;
        }
    return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: expected median, p90, p99, mean or energy, got '%s'", option,
                             arg);
}

double harness_metric_of_stats(const harness_stats *st, harness_metric m)
{
    switch (m) {
    case HARNESS_METRIC_P90: return st->p90;
    case HARNESS_METRIC_P99: return st->p99;
    case HARNESS_METRIC_MEAN: return st->mean;
    case HARNESS_METRIC_ENERGY: return NAN;   /* a time's statistics hold no energy */
    default: return st->median;
    }
}

/* Energy per step as read: a value that is not a positive number is unknown. */
static double energy_value(double j)
{
    return j > 0 && isfinite(j) ? j : NAN;
}

double harness_run_metric(const harness_run_summary *r, harness_metric m)
{
    if (m == HARNESS_METRIC_ENERGY)
        return energy_value(r->energy_j_per_step);
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
        if (m == HARNESS_METRIC_ENERGY) {
            out[w] = r->window_energy ? energy_value(r->window_energy[w]) : NAN;
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
