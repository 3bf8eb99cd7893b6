#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* asprintf */
#endif
#include "cli/export_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"
#include "compare/experiment_folders.h"
#include "compare/folder_ranks.h"
#include "folder/folder_format.h"
#include "util/fsutil.h"
#include "util/json_strict.h"

/* The columns every export has, in this order, whatever the folders hold. */
static const char *const fixed_columns[] = {
    "experiment", "name", "status", "error", "rank", "world_size", "variant_key", "plugin", "device_type",
    "device_name", "validation", "window", "n", "stop_reason", "converged",
    "median_ns", "mean_ns", "stddev_ns", "cv", "min_ns", "p5_ns", "p25_ns", "p75_ns", "p90_ns", "p95_ns", "p99_ns",
    "max_ns", "iqr_ns", "outliers", "ci_lo_ns", "ci_hi_ns", "ci_level", "wall_ns", "cpu_ns", "cpu_per_wall",
    "bytes_per_step", "flops_per_step", "gb_per_s", "gflop_per_s",
    /* the window's energy (docs/timing-integrity.md, "Energy"); null where not measured */
    "energy_status", "joules", "energy_s", "joules_per_step", "watts", "flop_per_joule", "bytes_per_joule",
    "energy_uncertainty", "energy_source",
    NULL,
};

/* Window energy -> column. */
static const char *const window_energy[][2] = {
    {"status", "energy_status"}, {"joules", "joules"}, {"seconds", "energy_s"},
    {"joules_per_step", "joules_per_step"}, {"watts", "watts"}, {"flop_per_joule", "flop_per_joule"},
    {"bytes_per_joule", "bytes_per_joule"}, {"uncertainty", "energy_uncertainty"},
};

/* Window statistic -> column. */
static const char *const window_stats[][2] = {
    {"n", "n"}, {"stop_reason", "stop_reason"}, {"converged", "converged"}, {"median", "median_ns"},
    {"mean", "mean_ns"}, {"stddev", "stddev_ns"}, {"cv", "cv"}, {"min", "min_ns"}, {"p5", "p5_ns"},
    {"p25", "p25_ns"}, {"p75", "p75_ns"}, {"p90", "p90_ns"}, {"p95", "p95_ns"}, {"p99", "p99_ns"},
    {"max", "max_ns"}, {"iqr", "iqr_ns"}, {"outliers", "outliers"}, {"ci_level", "ci_level"},
    {"wall_ns", "wall_ns"}, {"cpu_ns", "cpu_ns"}, {"cpu_per_wall", "cpu_per_wall"},
};

static int oom(harness_error *err)
{
    return harness_error_set(err, HARNESS_EXIT_RUNTIME, "export: out of memory");
}

int harness_export_table_init(harness_export_table *t, harness_error *err)
{
    t->filter = NULL;
    t->runs_seen = 0;
    t->columns = cJSON_CreateArray();
    t->rows = cJSON_CreateArray();
    for (size_t i = 0; t->columns && fixed_columns[i]; i++)
        cJSON_AddItemToArray(t->columns, cJSON_CreateString(fixed_columns[i]));
    if (!t->columns || !t->rows || cJSON_GetArraySize(t->columns) != (int)(sizeof fixed_columns / sizeof *fixed_columns - 1)) {
        harness_export_table_free(t);
        return oom(err);
    }
    return 0;
}

void harness_export_table_free(harness_export_table *t)
{
    cJSON_Delete(t->columns);
    cJSON_Delete(t->rows);
    t->columns = t->rows = NULL;
}

static void add_column(harness_export_table *t, const char *name)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, t->columns)
        if (strcmp(c->valuestring, name) == 0)
            return;
    cJSON_AddItemToArray(t->columns, cJSON_CreateString(name));
}

/* A copy of a scalar (number, string, bool, null) under `name` in `row`;
 * arrays and objects become their compact JSON text, so every cell is flat. */
static void put(cJSON *row, const char *name, const cJSON *value)
{
    cJSON *copy;
    if (!value)
        copy = cJSON_CreateNull();
    else if (cJSON_IsArray(value) || cJSON_IsObject(value)) {
        char *text = cJSON_PrintUnformatted(value);
        copy = text ? cJSON_CreateString(text) : cJSON_CreateNull();
        free(text);
    } else
        copy = cJSON_Duplicate(value, 0);
    cJSON_DeleteItemFromObjectCaseSensitive(row, name);
    cJSON_AddItemToObject(row, name, copy);
}

static const cJSON *get(const cJSON *obj, const char *path)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    const cJSON *at = obj;
    for (char *save = NULL, *part = strtok_r(buf, ".", &save); part && at; part = strtok_r(NULL, ".", &save))
        at = cJSON_GetObjectItemCaseSensitive(at, part);
    return at;
}

/* env.caches.l1d and the like: nested objects flattened with dots. */
static void put_flat(harness_export_table *t, cJSON *row, const char *prefix, const cJSON *obj)
{
    const cJSON *item;
    cJSON_ArrayForEach(item, obj) {
        char name[256];
        snprintf(name, sizeof name, "%s.%s", prefix, item->string);
        if (cJSON_IsObject(item)) {
            put_flat(t, row, name, item);
            continue;
        }
        add_column(t, name);
        put(row, name, item);
    }
}

/* What every row of one rank shares: run, component, device, throughput
 * inputs, config and environment. */
static cJSON *rank_row(harness_export_table *t, const char *folder, const cJSON *s)
{
    cJSON *row = cJSON_CreateObject();
    if (!row)
        return NULL;
    cJSON_AddStringToObject(row, "experiment", folder);
    put(row, "name", get(s, "experiment.name"));
    put(row, "status", get(s, "status"));
    put(row, "error", get(s, "error"));
    put(row, "rank", get(s, "rank"));
    put(row, "world_size", get(s, "world_size"));
    put(row, "variant_key", get(s, "component.variant_key"));
    put(row, "plugin", get(s, "component.plugin"));
    put(row, "device_type", get(s, "device.type"));
    put(row, "device_name", get(s, "device.name"));
    put(row, "validation", get(s, "validation.status"));
    put(row, "bytes_per_step", get(s, "throughput.bytes_per_step"));
    put(row, "flops_per_step", get(s, "throughput.flops_per_step"));
    /* the counter, or why none ("not available: ...") */
    const cJSON *source = get(s, "energy.source");
    put(row, "energy_source", cJSON_IsString(source) ? source : get(s, "energy.missing"));
    const cJSON *config = get(s, "component.config");
    if (cJSON_IsObject(config))
        put_flat(t, row, "config", config);
    const cJSON *env = get(s, "env");
    if (cJSON_IsObject(env))
        put_flat(t, row, "env", env);
    return row;
}

/* A window's energy object (or the run's, for a run's row) into its columns. */
static void put_energy(cJSON *row, const cJSON *energy)
{
    for (size_t i = 0; i < sizeof window_energy / sizeof *window_energy; i++)
        put(row, window_energy[i][1], cJSON_IsObject(energy) ? get(energy, window_energy[i][0]) : NULL);
}

/* One window's statistics into `row`; throughput at the window's median
 * from the declared cost (bytes per ns is GB/s). */
static void put_window(cJSON *row, const cJSON *w)
{
    put(row, "window", get(w, "index"));
    for (size_t i = 0; i < sizeof window_stats / sizeof *window_stats; i++)
        put(row, window_stats[i][1], get(w, window_stats[i][0]));
    put_energy(row, get(w, "energy"));
    const cJSON *ci = get(w, "ci95_median");
    put(row, "ci_lo_ns", cJSON_IsArray(ci) ? cJSON_GetArrayItem(ci, 0) : NULL);
    put(row, "ci_hi_ns", cJSON_IsArray(ci) ? cJSON_GetArrayItem(ci, 1) : NULL);
    const cJSON *median = get(w, "median"), *bytes = cJSON_GetObjectItem(row, "bytes_per_step"),
                *flops = cJSON_GetObjectItem(row, "flops_per_step");
    int timed = cJSON_IsNumber(median) && median->valuedouble > 0;
    cJSON_DeleteItemFromObject(row, "gb_per_s");
    cJSON_DeleteItemFromObject(row, "gflop_per_s");
    cJSON_AddItemToObject(row, "gb_per_s", timed && cJSON_IsNumber(bytes)
                                               ? cJSON_CreateNumber(bytes->valuedouble / median->valuedouble)
                                               : cJSON_CreateNull());
    cJSON_AddItemToObject(row, "gflop_per_s", timed && cJSON_IsNumber(flops)
                                                  ? cJSON_CreateNumber(flops->valuedouble / median->valuedouble)
                                                  : cJSON_CreateNull());
}

static cJSON *load_json(const char *path, harness_error *err)
{
    char *text = NULL;
    size_t len = 0;
    if (harness_read_file(path, &text, &len, err) != 0) {
        err->code = HARNESS_EXIT_USAGE;
        return NULL;
    }
    harness_json_problem problem;
    cJSON *root = NULL;
    if (harness_json_check_strict(text, len, &problem) != 0)
        harness_error_set(err, HARNESS_EXIT_USAGE, "export: %s: not valid JSON at byte %zu: %s", path,
                          problem.offset, problem.why);
    else if (!(root = cJSON_ParseWithLength(text, len)) || !cJSON_IsObject(root)) {
        cJSON_Delete(root);
        root = NULL;
        harness_error_set(err, HARNESS_EXIT_USAGE, "export: %s: not a JSON object", path);
    }
    free(text);
    return root;
}

/* Whether --filter keeps the run of summary s: its name "EXPERIMENT_NAME
 * VARIANT_KEY KEY=VALUE..." with every component parameter, as compare's. */
static int kept(const harness_export_table *t, const cJSON *s)
{
    if (!t->filter || !t->filter->pattern)
        return 1;
    const cJSON *name = get(s, "experiment.name"), *key = get(s, "component.variant_key");
    char buf[1024];
    harness_summary_bench_name(cJSON_IsString(name) ? name->valuestring : NULL,
                               cJSON_IsString(key) ? key->valuestring : NULL, get(s, "component.config"), buf,
                               sizeof buf);
    return harness_bench_filter_match(t->filter, buf);
}

/* One rank's rows from its summary at path: a row per window, or one row
 * when it measured nothing. Its status file has the last word on status
 * and error (compare/folder_ranks.h). */
static int add_summary(harness_export_table *t, const char *folder, const char *path, const harness_rank_files *rf,
                       harness_error *err)
{
    cJSON *s = load_json(path, err);
    if (!s)
        return err->code;
    char why[512];
    if (harness_schema_check(s, HARNESS_SCHEMA_SUMMARY, why, sizeof why) != 0) {
        cJSON_Delete(s);
        return harness_error_set(err, HARNESS_EXIT_USAGE, "export: %s: %s", path, why);
    }
    t->runs_seen++;
    if (!kept(t, s)) {
        cJSON_Delete(s);
        return 0;
    }
    cJSON *base = rank_row(t, folder, s);
    const cJSON *windows = get(s, "timing.windows"), *w;
    int rc = base ? 0 : oom(err);
    const cJSON *status = get(s, "status");
    const char *said = cJSON_IsString(status) ? status->valuestring : "none";
    if (rc == 0 && harness_rank_files_overrules(rf, said)) {
        char *error = harness_rank_files_override(rf, folder, said);
        cJSON *st = cJSON_CreateString(rf->status), *er = error ? cJSON_CreateString(error) : NULL;
        if (st && er) {
            put(base, "status", st);
            put(base, "error", er);
        } else {
            rc = oom(err);
        }
        cJSON_Delete(st);
        cJSON_Delete(er);
        free(error);
    }
    /* A run that failed before measuring still gets its row: status and
     * error are what a reader of the export needs to see. */
    if (rc == 0 && (cJSON_GetArraySize(windows) == 0 || t->per_run)) {
        /* The run's own statistics have the windows' keys but for the
         * window's index and stop, which stay null. */
        put_window(base, cJSON_GetArraySize(windows) ? get(s, "timing") : NULL);
        put_energy(base, cJSON_GetArraySize(windows) ? get(s, "energy") : NULL);   /* the run's, not in timing */
        cJSON_AddItemToArray(t->rows, base);
        base = NULL;
    }
    const cJSON *list = cJSON_IsArray(windows) && base ? windows : NULL;   /* NULL: the run's row is in */
    cJSON_ArrayForEach(w, list) {
        cJSON *row = rc == 0 ? cJSON_Duplicate(base, 1) : NULL;
        if (!row) {
            rc = rc ? rc : oom(err);
            break;
        }
        put_window(row, w);
        cJSON_AddItemToArray(t->rows, row);
    }
    cJSON_Delete(base);
    cJSON_Delete(s);
    return rc;
}

/* A rank that left no summary (killed, a crash in the harness, or no file
 * at all): one row with what its status file says, and no statistics, as
 * for a run that failed before measuring. */
static int add_missing_rank(harness_export_table *t, const char *folder, int world_size, const harness_rank_files *rf,
                            harness_error *err)
{
    const char *status = rf->status ? rf->status : "missing";
    char *why = NULL, name[512];
    t->runs_seen++;
    snprintf(name, sizeof name, "? %s", rf->variant_key ? rf->variant_key : "");
    if (rf->variant_key && t->filter && !harness_bench_filter_match(t->filter, name))
        return 0;
    if (!rf->error && asprintf(&why, "no summary: %s", harness_rank_files_why(rf->status)) < 0)
        return oom(err);
    cJSON *row = cJSON_CreateObject();
    int rc = row && cJSON_AddStringToObject(row, "experiment", folder) && cJSON_AddStringToObject(row, "status", status)
             && cJSON_AddStringToObject(row, "error", rf->error ? rf->error : why)
             && cJSON_AddNumberToObject(row, "rank", rf->rank)
             && (world_size > 0 ? cJSON_AddNumberToObject(row, "world_size", world_size)
                                : cJSON_AddNullToObject(row, "world_size"))
             && (rf->variant_key ? cJSON_AddStringToObject(row, "variant_key", rf->variant_key)
                                 : cJSON_AddNullToObject(row, "variant_key"))
             ? 0 : oom(err);
    free(why);
    if (rc == 0)
        cJSON_AddItemToArray(t->rows, row);
    else
        cJSON_Delete(row);
    return rc;
}

static int add_experiment(harness_export_table *t, const char *folder, harness_error *err)
{
    harness_folder_ranks fr;
    if (harness_folder_ranks_read(folder, &fr, err) != 0)
        return err->code;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < fr.n; i++) {
        const harness_rank_files *rf = &fr.ranks[i];
        if (rf->summary[0]) {
            char path[4200];
            snprintf(path, sizeof path, "%s/%s", folder, rf->summary);
            rc = add_summary(t, folder, path, rf, err);
        } else {
            rc = add_missing_rank(t, folder, fr.world_size, rf, err);
        }
    }
    harness_folder_ranks_free(&fr);
    return rc;
}

/* An experiment folder, or a folder of them (as compare takes). */
int harness_export_add_folder(harness_export_table *t, const char *folder, harness_error *err)
{
    harness_experiment_folders found;
    if (harness_experiment_folders_find(folder, &found, err) != 0) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        return harness_error_set(err, err->code, "export: %s", msg);
    }
    int rc = 0;
    if (found.n == 0)
        rc = harness_error_set(err, HARNESS_EXIT_USAGE, "export: %s: not an experiment folder, nor a folder of "
                               "them (no summary_ranks_*.json or status.json here or below, to depth %d)", folder,
                               HARNESS_EXPERIMENT_SEARCH_DEPTH);
    for (size_t i = 0; rc == 0 && i < found.n; i++)
        rc = add_experiment(t, found.paths[i], err);
    harness_experiment_folders_free(&found);
    return rc;
}
