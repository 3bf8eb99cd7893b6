/* export_gha.c - `harness export --format gha` and `gha-throughput`: the
 * JSON array github-action-benchmark reads with tool customSmallerIsBetter
 * and customBiggerIsBetter, one object per benchmark (compare/bench_id.h):
 *   name   the benchmark
 *   unit   "ns" (gha: latency per step, smaller is better) or "steps/s"
 *          (gha-throughput: 1e9 / latency, bigger is better)
 *   value  a run's median (several runs of one benchmark: the median of
 *          their medians), as export --format bmf's latency
 *   range  "± H" (UTF-8): the larger distance from value to the interval's ends
 *          (the run's interval of its median; several runs: their range)
 *   extra  the interval, the runs, the rates at the median and the commit,
 *          for the chart's tooltip
 * Runs that are not ok, or measured nothing, are left out (counted on
 * stderr): the action has no place for them. */
#include <math.h>
#include <stdio.h>

#include "cli/export_series.h"
#include "cli/export_write.h"

/* The extra text: interval, runs, rates at the median, the first row's commit. */
static void extra_text(char *buf, size_t cap, const cJSON *rows, const double lat[3])
{
    const cJSON *first = rows->child;
    int n = cJSON_GetArraySize(rows);
    size_t len = (size_t)snprintf(buf, cap, "median %.6g ns", lat[0]);
    if (isfinite(lat[1]) && isfinite(lat[2]))
        len += (size_t)snprintf(buf + len, cap - len, ", %s [%.6g, %.6g] ns",
                                n == 1 ? "interval of the median" : "runs' range", lat[1], lat[2]);
    if (len < cap)
        len += (size_t)snprintf(buf + len, cap - len, "; %d run%s", n, n == 1 ? "" : "s");
    double bytes = harness_export_num(first, "bytes_per_step"), flops = harness_export_num(first, "flops_per_step");
    if (len < cap && bytes > 0)
        len += (size_t)snprintf(buf + len, cap - len, "; %.6g GB/s", bytes / lat[0]);
    if (len < cap && flops > 0)
        len += (size_t)snprintf(buf + len, cap - len, "; %.6g GFLOP/s", flops / lat[0]);
    const char *device = harness_export_str(first, "device_name");
    const char *commit = harness_export_str(first, "env.git_commit");
    if (len < cap && device)
        len += (size_t)snprintf(buf + len, cap - len, "; device %s", device);
    if (len < cap && commit)
        snprintf(buf + len, cap - len, "; commit %s", commit);
}

static int add_entry(cJSON *out, const char *name, const cJSON *rows, int throughput)
{
    double lat[3], v, lo, hi;
    char range[64], extra[1024];
    if (harness_export_spread(rows, "median_ns", "ci_lo_ns", "ci_hi_ns", lat) < 0)
        return -1;
    v = throughput ? 1e9 / lat[0] : lat[0];
    lo = throughput ? 1e9 / lat[2] : lat[1];
    hi = throughput ? 1e9 / lat[1] : lat[2];
    if (isfinite(lo) && isfinite(hi))
        snprintf(range, sizeof range, "\xc2\xb1 %.3g", fmax(v - lo, hi - v));
    else
        snprintf(range, sizeof range, "\xc2\xb1 0");
    extra_text(extra, sizeof extra, rows, lat);
    cJSON *e = cJSON_CreateObject();
    if (!e || !cJSON_AddItemToArray(out, e)) {
        cJSON_Delete(e);
        return -1;
    }
    return cJSON_AddStringToObject(e, "name", name) && cJSON_AddStringToObject(e, "unit", throughput ? "steps/s" : "ns")
           && cJSON_AddNumberToObject(e, "value", v) && cJSON_AddStringToObject(e, "range", range)
           && cJSON_AddStringToObject(e, "extra", extra) ? 0 : -1;
}

int harness_export_write_gha(const harness_export_table *t, FILE *f, int throughput)
{
    size_t left_out;
    cJSON *series = harness_export_series(t, 1, &left_out), *out = cJSON_CreateArray();
    const cJSON *s;
    int rc = series && out ? 0 : -1;
    const cJSON *list = rc == 0 ? series : NULL;
    cJSON_ArrayForEach(s, list)
        if ((rc = add_entry(out, s->string, s, throughput)) != 0)
            break;
    cJSON_Delete(series);
    if (rc != 0) {
        cJSON_Delete(out);
        return -1;
    }
    harness_export_note_left_out(throughput ? "gha-throughput" : "gha", left_out);
    return harness_export_print(f, out);
}
