#include "cli/export_table.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fsutil.h"
#include "util/json_strict.h"

/* The columns every export has, in this order, whatever the folders hold. */
static const char *const fixed_columns[] = {
    "experiment", "name", "status", "error", "rank", "world_size", "variant_key", "plugin", "device_type",
    "device_name", "validation", "window", "n", "stop_reason", "converged",
    "median_ns", "mean_ns", "stddev_ns", "cv", "min_ns", "p5_ns", "p25_ns", "p75_ns", "p90_ns", "p95_ns", "p99_ns",
    "max_ns", "iqr_ns", "outliers", "ci_lo_ns", "ci_hi_ns", "ci_level", "wall_ns", "cpu_ns", "cpu_per_wall",
    "bytes_per_step", "flops_per_step", "gb_per_s", "gflop_per_s",
    NULL,
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
    const cJSON *config = get(s, "component.config");
    if (cJSON_IsObject(config))
        put_flat(t, row, "config", config);
    const cJSON *env = get(s, "env");
    if (cJSON_IsObject(env))
        put_flat(t, row, "env", env);
    return row;
}

/* One window's statistics into `row`; throughput at the window's median
 * from the declared cost (bytes per ns is GB/s). */
static void put_window(cJSON *row, const cJSON *w)
{
    put(row, "window", get(w, "index"));
    for (size_t i = 0; i < sizeof window_stats / sizeof *window_stats; i++)
        put(row, window_stats[i][1], get(w, window_stats[i][0]));
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

static int add_summary(harness_export_table *t, const char *folder, const char *path, harness_error *err)
{
    cJSON *s = load_json(path, err);
    if (!s)
        return err->code;
    const cJSON *schema = get(s, "schema");
    if (!cJSON_IsString(schema) || strncmp(schema->valuestring, "harness.summary/", 16) != 0) {
        cJSON_Delete(s);
        return harness_error_set(err, HARNESS_EXIT_USAGE, "export: %s: not a harness summary (no \"schema\": "
                                 "\"harness.summary/1\")", path);
    }
    cJSON *base = rank_row(t, folder, s);
    const cJSON *windows = get(s, "timing.windows"), *w;
    int rc = base ? 0 : oom(err);
    /* A run that failed before measuring still gets its row: status and
     * error are what a reader of the export needs to see. */
    if (rc == 0 && cJSON_GetArraySize(windows) == 0) {
        put_window(base, NULL);
        cJSON_AddItemToArray(t->rows, base);
        base = NULL;
    }
    const cJSON *list = cJSON_IsArray(windows) ? windows : NULL;
    cJSON_ArrayForEach(w, list) {
        cJSON *row = rc == 0 ? cJSON_Duplicate(base, 1) : NULL;
        if (!row) {
            rc = oom(err);
            break;
        }
        put_window(row, w);
        cJSON_AddItemToArray(t->rows, row);
    }
    cJSON_Delete(base);
    cJSON_Delete(s);
    return rc;
}

/* A run stopped before its summaries (killed, a crash in the harness): its
 * status.json says how; the row has no statistics. */
static int add_status_only(harness_export_table *t, const char *folder, const char *path, harness_error *err)
{
    cJSON *s = load_json(path, err);
    if (!s)
        return err->code;
    cJSON *row = cJSON_CreateObject();
    if (!row) {
        cJSON_Delete(s);
        return oom(err);
    }
    cJSON_AddStringToObject(row, "experiment", folder);
    put(row, "status", get(s, "status"));
    put(row, "error", get(s, "error"));
    put(row, "variant_key", get(s, "variant_key"));
    cJSON_AddItemToArray(t->rows, row);
    cJSON_Delete(s);
    return 0;
}

typedef struct { int rank; char name[256]; } summary_file;

static int by_rank(const void *a, const void *b)
{
    const summary_file *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

int harness_export_add_folder(harness_export_table *t, const char *folder, harness_error *err)
{
    struct stat st;
    if (stat(folder, &st) != 0)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "export: %s: %s; expected an experiment folder", folder,
                                 strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return harness_error_set(err, HARNESS_EXIT_USAGE, "export: %s: not a directory; expected an experiment "
                                 "folder", folder);
    DIR *d = opendir(folder);
    if (!d)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "export: %s: %s", folder, strerror(errno));
    summary_file *files = NULL;
    size_t n = 0;
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        int world, rank, end = 0;
        if (sscanf(e->d_name, "summary_ranks_%d_rank_%d.json%n", &world, &rank, &end) != 2 ||
            e->d_name[end] != '\0' || strlen(e->d_name) >= sizeof files->name)
            continue;
        summary_file *grown = realloc(files, (n + 1) * sizeof *files);
        if (!grown) {
            rc = oom(err);
            break;
        }
        files = grown;
        files[n].rank = rank;
        snprintf(files[n++].name, sizeof files->name, "%s", e->d_name);
    }
    closedir(d);
    if (rc == 0 && n > 0) {
        qsort(files, n, sizeof *files, by_rank);
        for (size_t i = 0; rc == 0 && i < n; i++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", folder, files[i].name);
            rc = add_summary(t, folder, path, err);
        }
    } else if (rc == 0) {
        char path[4096];
        snprintf(path, sizeof path, "%s/status.json", folder);
        if (access(path, F_OK) == 0)
            rc = add_status_only(t, folder, path, err);
        else
            rc = harness_error_set(err, HARNESS_EXIT_USAGE, "export: %s: not an experiment folder (no "
                                   "summary_ranks_*.json, no status.json)", folder);
    }
    free(files);
    return rc;
}
