#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* asprintf */
#endif
#include "cli/export_table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/bench_id.h"
#include "compare/compare.h"
#include "compare/experiment_folders.h"
#include "compare/folder_ranks.h"
#include "folder/rank_summary.h"

/* The columns every export has, in this order, whatever the folders hold. */
static const char *const fixed_columns[] = {
    "experiment", "name", "benchmark", "status", "error", "rank", "world_size", "variant_key", "plugin", "device_type",
    "device_name", "validation", "window", "n", "stop_reason", "converged",
    "median_ns", "mean_ns", "stddev_ns", "cv", "min_ns", "p5_ns", "p25_ns", "p75_ns", "p90_ns", "p95_ns", "p99_ns",
    "max_ns", "iqr_ns", "outliers", "ci_lo_ns", "ci_hi_ns", "ci_level", "wall_ns", "cpu_ns", "cpu_per_wall",
    "bytes_per_step", "flops_per_step", "gb_per_s", "gflop_per_s",
    /* the window's energy (docs/timing-integrity.md, "Energy"); null where not measured */
    "energy_status", "joules", "energy_s", "joules_per_step", "watts", "flop_per_joule", "bytes_per_joule",
    "energy_uncertainty", "energy_source",
    NULL,
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

/* A number cell: null where the summary says nothing (NAN). */
static void put_number(cJSON *row, const char *name, double v)
{
    cJSON_DeleteItemFromObjectCaseSensitive(row, name);
    cJSON_AddItemToObject(row, name, isnan(v) ? cJSON_CreateNull() : cJSON_CreateNumber(v));
}

static void put_string(cJSON *row, const char *name, const char *v)
{
    cJSON_DeleteItemFromObjectCaseSensitive(row, name);
    cJSON_AddItemToObject(row, name, v ? cJSON_CreateString(v) : cJSON_CreateNull());
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
static cJSON *rank_row(harness_export_table *t, const char *folder, const harness_rank_summary *s)
{
    cJSON *row = cJSON_CreateObject();
    if (!row)
        return NULL;
    cJSON_AddStringToObject(row, "experiment", folder);
    put_string(row, "name", s->experiment_name);
    char id[1024];
    put_string(row, "benchmark", harness_bench_id(s->experiment_name, s->variant_key, s->config, s->rank,
                                                  s->world_size, id, sizeof id));
    put_string(row, "status", s->status);
    put_string(row, "error", s->error);
    put_number(row, "rank", s->rank);
    put_number(row, "world_size", s->world_size);
    put_string(row, "variant_key", s->variant_key);
    put_string(row, "plugin", s->plugin);
    put_string(row, "device_type", s->device_type);
    put_string(row, "device_name", s->device_name);
    put_string(row, "validation", s->validation_status);
    put_number(row, "bytes_per_step", s->bytes_per_step);
    put_number(row, "flops_per_step", s->flops_per_step);
    /* the counter, or why none ("not available: ...") */
    put_string(row, "energy_source", s->energy.source ? s->energy.source : s->energy.missing);
    if (s->config)
        put_flat(t, row, "config", s->config);
    if (s->env)
        put_flat(t, row, "env", s->env);
    return row;
}

/* An energy record (a window's, or the run's for a run's row) into its
 * columns; NULL: none. */
static void put_energy(cJSON *row, const harness_energy_record *e)
{
    put_string(row, "energy_status", e ? e->status : NULL);
    put_number(row, "joules", e ? e->joules : NAN);
    put_number(row, "energy_s", e ? e->seconds : NAN);
    put_number(row, "joules_per_step", e ? e->joules_per_step : NAN);
    put_number(row, "watts", e ? e->watts : NAN);
    put_number(row, "flop_per_joule", e ? e->flop_per_joule : NAN);
    put_number(row, "bytes_per_joule", e ? e->bytes_per_joule : NAN);
    put_number(row, "energy_uncertainty", e ? e->uncertainty : NAN);
}

/* One window's statistics (or the run's; NULL: none) into `row`;
 * throughput at the median from the declared cost (bytes per ns is GB/s). */
static void put_window(cJSON *row, const harness_stats_record *w, const harness_rank_summary *s)
{
    static const harness_stats_record none = {
        .index = NAN, .first_sample = NAN, .n = NAN, .median = NAN, .mean = NAN, .stddev = NAN, .cv = NAN,
        .min = NAN, .p5 = NAN, .p25 = NAN, .p75 = NAN, .p90 = NAN, .p95 = NAN, .p99 = NAN, .max = NAN, .iqr = NAN,
        .outliers = NAN, .ci_lo = NAN, .ci_hi = NAN, .ci_level = NAN, .wall_ns = NAN, .cpu_ns = NAN,
        .cpu_per_wall = NAN, .converged = -1,
    };
    const harness_stats_record *x = w ? w : &none;
    put_number(row, "window", x->index);
    put_number(row, "n", x->n);
    put_string(row, "stop_reason", x->stop_reason);
    cJSON_DeleteItemFromObjectCaseSensitive(row, "converged");
    cJSON_AddItemToObject(row, "converged", x->converged < 0 ? cJSON_CreateNull() : cJSON_CreateBool(x->converged));
    const struct { const char *name; double v; } stats[] = {
        {"median_ns", x->median}, {"mean_ns", x->mean}, {"stddev_ns", x->stddev}, {"cv", x->cv}, {"min_ns", x->min},
        {"p5_ns", x->p5}, {"p25_ns", x->p25}, {"p75_ns", x->p75}, {"p90_ns", x->p90}, {"p95_ns", x->p95},
        {"p99_ns", x->p99}, {"max_ns", x->max}, {"iqr_ns", x->iqr}, {"outliers", x->outliers},
        {"ci_level", x->ci_level}, {"wall_ns", x->wall_ns}, {"cpu_ns", x->cpu_ns}, {"cpu_per_wall", x->cpu_per_wall},
        {"ci_lo_ns", x->ci_lo}, {"ci_hi_ns", x->ci_hi},
    };
    for (size_t i = 0; i < sizeof stats / sizeof *stats; i++)
        put_number(row, stats[i].name, stats[i].v);
    put_energy(row, w ? &x->energy : NULL);
    int timed = x->median > 0;
    put_number(row, "gb_per_s", timed ? s->bytes_per_step / x->median : NAN);
    put_number(row, "gflop_per_s", timed ? s->flops_per_step / x->median : NAN);
}

/* Whether --filter keeps the run: its name "EXPERIMENT_NAME VARIANT_KEY
 * KEY=VALUE..." with every component parameter, as compare's. */
static int kept(const harness_export_table *t, const harness_rank_summary *s)
{
    if (!t->filter || !t->filter->pattern)
        return 1;
    char buf[1024];
    harness_summary_bench_name(s->experiment_name, s->variant_key, s->config, buf, sizeof buf);
    return harness_bench_filter_match(t->filter, buf);
}

/* The rank's status file has the last word on status and error
 * (compare/folder_ranks.h). */
static int overrule(cJSON *base, const char *folder, const harness_rank_summary *s, const harness_rank_files *rf,
                    harness_error *err)
{
    if (!harness_rank_files_overrules(rf, s->status))
        return 0;
    char *error = harness_rank_files_override(rf, folder, s->status);
    if (!error)
        return oom(err);
    put_string(base, "status", rf->status);
    put_string(base, "error", error);
    free(error);
    return 0;
}

/* One rank's rows from its summary at path, as the folder stage reads it
 * (without its samples: the table holds the written statistics): a row
 * per window, or one row when it measured nothing or --rows runs. */
static int add_summary(harness_export_table *t, const char *folder, const char *path, const harness_rank_files *rf,
                       harness_error *err)
{
    harness_rank_summary s;
    if (harness_rank_summary_read(path, HARNESS_RANK_SUMMARY_NO_SAMPLES, &s, err) != 0) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        return harness_error_set(err, err->code, "export: %s", msg);
    }
    t->runs_seen++;
    if (!kept(t, &s)) {
        harness_rank_summary_free(&s);
        return 0;
    }
    cJSON *base = rank_row(t, folder, &s);
    int rc = base ? overrule(base, folder, &s, rf, err) : oom(err);
    /* A run that failed before measuring still gets its row: status and
     * error are what a reader of the export needs to see. The run's own
     * statistics have the windows' keys but for the window's index and
     * stop, which stay null; its energy is the run's. */
    if (rc == 0 && (s.n_written_windows == 0 || t->per_run)) {
        put_window(base, s.n_written_windows ? &s.timing : NULL, &s);
        put_energy(base, s.n_written_windows ? &s.energy : NULL);
        cJSON_AddItemToArray(t->rows, base);
        base = NULL;
    }
    for (size_t i = 0; rc == 0 && base && i < s.n_written_windows; i++) {
        cJSON *row = cJSON_Duplicate(base, 1);
        if (!row) {
            rc = oom(err);
            break;
        }
        put_window(row, &s.windows[i], &s);
        cJSON_AddItemToArray(t->rows, row);
    }
    cJSON_Delete(base);
    harness_rank_summary_free(&s);
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
