/* export_gbench.c - `harness export --format gbench`: Google Benchmark's
 * JSON output (its --benchmark_format=json), so that its tools/compare.py
 * and whatever else reads that format read harness results unchanged.
 *
 * context: the machine and build, from the first run's env (date: when it
 * started; num_cpus: its logical CPUs; mhz_per_cpu: from the CPU's model
 * name when it says "@ N GHz", else 0; cpu_scaling_enabled: a frequency
 * governor other than "performance"; caches: cpu0's, num_sharing 0 (not
 * recorded); load_avg: at the run's start; library_build_type: "debug"
 * for a build with -O0 or a sanitizer, else "release").
 *
 * benchmarks: per benchmark (compare/bench_id.h: name and run_name), one
 * "iteration" entry per measurement window of every run (a repetition:
 * iterations = the window's steps, real_time = its median step, cpu_time =
 * real_time x the window's CPU/wall share, in ns; items_per_second = steps
 * per second and bytes_per_second where the run declares its bytes), then,
 * with two repetitions or more, the aggregates Google Benchmark writes:
 * NAME_mean, NAME_median, NAME_stddev (aggregate_unit "time") and NAME_cv
 * (a fraction, aggregate_unit "percentage"). A run that is not ok, or
 * measured nothing, is one entry with error_occurred and its error. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/export_series.h"
#include "cli/export_write.h"
#include "util/stats.h"

static const char *str_or(const cJSON *row, const char *col, const char *dflt)
{
    const char *s = row ? harness_export_str(row, col) : NULL;
    return s ? s : dflt;
}

/* "32K", "1M", "8192K" (sysfs) in bytes; 0 unknown. */
static double cache_bytes(const char *s)
{
    char *end;
    double v = s ? strtod(s, &end) : 0;
    if (!s || end == s || !(v > 0))
        return 0;
    return v * (*end == 'K' ? 1024.0 : *end == 'M' ? 1048576.0 : *end == 'G' ? 1073741824.0 : 1.0);
}

static void add_caches(cJSON *ctx, const cJSON *row)
{
    static const struct { const char *col, *type; int level; } caches[] = {
        {"env.caches.l1d", "Data", 1}, {"env.caches.l1i", "Instruction", 1},
        {"env.caches.l2", "Unified", 2}, {"env.caches.l3", "Unified", 3},
    };
    cJSON *arr = cJSON_AddArrayToObject(ctx, "caches");
    for (size_t i = 0; arr && row && i < sizeof caches / sizeof *caches; i++) {
        double size = cache_bytes(harness_export_str(row, caches[i].col));
        cJSON *c = size > 0 ? cJSON_CreateObject() : NULL;
        if (!c || !cJSON_AddItemToArray(arr, c)) {
            cJSON_Delete(c);
            continue;
        }
        cJSON_AddStringToObject(c, "type", caches[i].type);
        cJSON_AddNumberToObject(c, "level", caches[i].level);
        cJSON_AddNumberToObject(c, "size", size);
        cJSON_AddNumberToObject(c, "num_sharing", 0);
    }
}

/* "... @ 2.40GHz" -> 2400; 0 when the model name does not say. */
static double mhz_from_model(const char *model)
{
    const char *at = model ? strrchr(model, '@') : NULL;
    char *end;
    double ghz = at ? strtod(at + 1, &end) : 0;
    return at && end != at + 1 && strncmp(end, "GHz", 3) == 0 ? round(ghz * 1000) : 0;
}

static cJSON *context(const cJSON *row)
{
    cJSON *ctx = cJSON_CreateObject();
    const char *governor = str_or(row, "env.scaling_governor", NULL);
    const char *cflags = str_or(row, "env.cflags", ""), *sanitizers = str_or(row, "env.sanitizers", "none");
    double cpus = row ? harness_export_num(row, "env.logical_cpus") : NAN;
    cJSON_AddStringToObject(ctx, "date", str_or(row, "env.started_at", ""));
    cJSON_AddStringToObject(ctx, "host_name", str_or(row, "env.host", ""));
    cJSON_AddStringToObject(ctx, "executable", str_or(row, "env.executable", ""));
    cJSON_AddNumberToObject(ctx, "num_cpus", isfinite(cpus) ? cpus : 0);
    cJSON_AddNumberToObject(ctx, "mhz_per_cpu", mhz_from_model(str_or(row, "env.cpu", NULL)));
    cJSON_AddBoolToObject(ctx, "cpu_scaling_enabled", governor && strncmp(governor, "unavailable", 11) != 0 &&
                                                      strcmp(governor, "performance") != 0);
    add_caches(ctx, row);
    /* a nested array: the table holds it as its JSON text */
    cJSON *load = cJSON_Parse(str_or(row, "env.load_average.start", "[]"));
    cJSON_AddItemToObject(ctx, "load_avg", cJSON_IsArray(load) ? load : cJSON_CreateArray());
    if (!cJSON_IsArray(load))
        cJSON_Delete(load);
    cJSON_AddStringToObject(ctx, "library_version", str_or(row, "env.harness_version", ""));
    int debug = strstr(cflags, "-O0") != NULL || strcmp(sanitizers, "none") != 0;
    cJSON_AddStringToObject(ctx, "library_build_type", debug ? "debug" : "release");
    cJSON_AddNumberToObject(ctx, "json_schema_version", 1);
    return ctx;
}

/* The fields every entry starts with. */
static cJSON *entry(cJSON *out, const char *name, const char *run_name, int family, const char *run_type,
                    int repetitions)
{
    cJSON *e = cJSON_CreateObject();
    if (!e || !cJSON_AddItemToArray(out, e)) {
        cJSON_Delete(e);
        return NULL;
    }
    cJSON_AddStringToObject(e, "name", name);
    cJSON_AddNumberToObject(e, "family_index", family);
    cJSON_AddNumberToObject(e, "per_family_instance_index", 0);
    cJSON_AddStringToObject(e, "run_name", run_name);
    cJSON_AddStringToObject(e, "run_type", run_type);
    cJSON_AddNumberToObject(e, "repetitions", repetitions);
    return e;
}

static void add_times(cJSON *e, double iterations, double real, double cpu)
{
    cJSON_AddNumberToObject(e, "iterations", iterations);
    cJSON_AddNumberToObject(e, "real_time", real);
    cJSON_AddNumberToObject(e, "cpu_time", cpu);
    cJSON_AddStringToObject(e, "time_unit", "ns");
}

static int measured(const cJSON *row)
{
    const char *status = harness_export_str(row, "status");
    return status && strcmp(status, "ok") == 0 && harness_export_num(row, "median_ns") > 0;
}

/* NAME_mean, _median, _stddev, _cv over the repetitions' times. */
static void add_aggregates(cJSON *out, const char *name, int family, int reps, double *real, double *cpu)
{
    harness_stats r, c;
    if (harness_stats_compute(real, (size_t)reps, &r) != 0 || harness_stats_compute(cpu, (size_t)reps, &c) != 0)
        return;
    const struct { const char *agg, *unit; double real, cpu; } aggs[] = {
        {"mean", "time", r.mean, c.mean}, {"median", "time", r.median, c.median},
        {"stddev", "time", r.stddev, c.stddev}, {"cv", "percentage", r.cv, c.cv},
    };
    for (size_t i = 0; i < sizeof aggs / sizeof *aggs; i++) {
        char agg_name[1100];
        snprintf(agg_name, sizeof agg_name, "%s_%s", name, aggs[i].agg);
        cJSON *e = entry(out, agg_name, name, family, "aggregate", reps);
        if (!e)
            return;
        cJSON_AddNumberToObject(e, "threads", 1);
        cJSON_AddStringToObject(e, "aggregate_name", aggs[i].agg);
        cJSON_AddStringToObject(e, "aggregate_unit", aggs[i].unit);
        add_times(e, reps, aggs[i].real, aggs[i].cpu);
    }
}

/* One benchmark's repetitions (its windows, its failed runs) and aggregates. */
static int add_benchmark(cJSON *out, const char *name, const cJSON *rows, int family)
{
    int n = cJSON_GetArraySize(rows), reps = 0, index = 0;
    double *real = malloc((size_t)n * sizeof *real), *cpu = malloc((size_t)n * sizeof *cpu);
    const cJSON *row;
    if (!real || !cpu) {
        free(real);
        free(cpu);
        return -1;
    }
    cJSON_ArrayForEach(row, rows) {
        cJSON *e = entry(out, name, name, family, "iteration", n);
        if (!e)
            break;
        cJSON_AddNumberToObject(e, "repetition_index", index++);
        cJSON_AddNumberToObject(e, "threads", 1);
        if (!measured(row)) {
            const char *why = harness_export_str(row, "error");
            cJSON_AddBoolToObject(e, "error_occurred", 1);
            cJSON_AddStringToObject(e, "error_message", why ? why : str_or(row, "status", "missing"));
            add_times(e, 0, 0, 0);
            continue;
        }
        double median = harness_export_num(row, "median_ns"), share = harness_export_num(row, "cpu_per_wall");
        double bytes = harness_export_num(row, "bytes_per_step");
        real[reps] = median;
        cpu[reps] = isfinite(share) ? median * share : median;
        add_times(e, harness_export_num(row, "n"), real[reps], cpu[reps]);
        cJSON_AddNumberToObject(e, "items_per_second", 1e9 / median);
        if (bytes > 0)
            cJSON_AddNumberToObject(e, "bytes_per_second", bytes * 1e9 / median);
        reps++;
    }
    if (reps >= 2)
        add_aggregates(out, name, family, reps, real, cpu);
    free(real);
    free(cpu);
    return 0;
}

int harness_export_write_gbench(const harness_export_table *t, FILE *f)
{
    size_t left_out;
    cJSON *series = harness_export_series(t, 0, &left_out), *root = cJSON_CreateObject();
    const cJSON *first = series ? series->child : NULL, *s;
    int rc = series && root ? 0 : -1, family = 0;
    cJSON *benchmarks = NULL;
    if (rc == 0) {
        cJSON_AddItemToObject(root, "context", context(first ? first->child : NULL));
        benchmarks = cJSON_AddArrayToObject(root, "benchmarks");
        rc = benchmarks ? 0 : -1;
    }
    const cJSON *list = rc == 0 ? series : NULL;
    cJSON_ArrayForEach(s, list)
        if ((rc = add_benchmark(benchmarks, s->string, s, family++)) != 0)
            break;
    cJSON_Delete(series);
    if (rc != 0) {
        cJSON_Delete(root);
        return -1;
    }
    harness_export_note_left_out("gbench", left_out);
    return harness_export_print(f, root);
}
