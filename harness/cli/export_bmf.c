/* export_bmf.c - `harness export --format bmf`: Bencher Metric Format
 * (https://bencher.dev/docs/reference/bencher-metric-format), an object of
 * benchmarks (compare/bench_id.h), each an object of measures, each
 * {value, lower_value, upper_value}:
 *   latency     ns per step: a run's median with the interval of that median
 *               its summary carries; several runs of one benchmark: the
 *               median of their medians, bounded by the smallest and largest
 *               (the spread between processes, the harness's replicates)
 *   throughput  steps per second: 1e9 / latency, the bounds swapped
 *   energy      joules per step, where the runs measured it (absent else)
 * Runs that are not ok, or measured nothing, have no place in the format:
 * they are left out and counted on stderr. */
#include <math.h>

#include "cli/export_series.h"
#include "cli/export_write.h"

/* {"value": v, "lower_value": lo, "upper_value": hi}, the bounds only when known. */
static cJSON *metric(cJSON *measures, const char *name, double v, double lo, double hi)
{
    cJSON *m = cJSON_AddObjectToObject(measures, name);
    if (!m || !cJSON_AddNumberToObject(m, "value", v))
        return NULL;
    if (isfinite(lo) && isfinite(hi) && (!cJSON_AddNumberToObject(m, "lower_value", lo) ||
                                         !cJSON_AddNumberToObject(m, "upper_value", hi)))
        return NULL;
    return m;
}

static int add_benchmark(cJSON *root, const char *name, const cJSON *rows)
{
    double lat[3], joules[3];
    cJSON *measures = cJSON_AddObjectToObject(root, name);
    int n_lat = harness_export_spread(rows, "median_ns", "ci_lo_ns", "ci_hi_ns", lat);
    int n_joules = harness_export_spread(rows, "joules_per_step", NULL, NULL, joules);
    int ok = measures && n_lat >= 0 && n_joules >= 0;
    if (ok && n_lat > 0)
        ok = metric(measures, "latency", lat[0], lat[1], lat[2]) &&
             metric(measures, "throughput", 1e9 / lat[0], 1e9 / lat[2], 1e9 / lat[1]);
    if (ok && n_joules > 0)
        ok = metric(measures, "energy", joules[0], joules[1], joules[2]) != NULL;
    return ok ? 0 : -1;
}

int harness_export_write_bmf(const harness_export_table *t, FILE *f)
{
    size_t left_out;
    cJSON *series = harness_export_series(t, 1, &left_out), *root = cJSON_CreateObject();
    const cJSON *s;
    int rc = series && root ? 0 : -1;
    const cJSON *list = rc == 0 ? series : NULL;
    cJSON_ArrayForEach(s, list)
        if ((rc = add_benchmark(root, s->string, s)) != 0)
            break;
    cJSON_Delete(series);
    if (rc != 0) {
        cJSON_Delete(root);
        return -1;
    }
    harness_export_note_left_out("bmf", left_out);
    return harness_export_print(f, root);
}
