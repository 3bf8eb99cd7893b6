/* baseline_run.c - see baseline_run.h. What the database keeps of a run is
 * what record stored from its summary: the samples, each window's median
 * and energy per step, the run's energy; the rest of the record is its
 * series' (like) or unknown, as for a summary that does not say. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* strdup, strndup */
#endif
#include "compare/baseline_run.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

static int oom(harness_error *err)
{
    return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
}

/* Grows *v to hold index i. */
static int grow(double **v, size_t i, size_t *cap)
{
    if (i < *cap)
        return 0;
    size_t n = *cap ? 2 * *cap : 64;
    double *g = realloc(*v, n * sizeof *g);
    if (!g)
        return -1;
    *v = g;
    *cap = n;
    return 0;
}

static int read_samples(harness_db *db, sqlite3_int64 id, harness_run_summary *out, harness_error *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(harness_db_handle(db), "SELECT ns FROM samples WHERE run_id = ? ORDER BY idx", -1, &st,
                           NULL) != SQLITE_OK)
        return harness_db_sqlite_error(db, "reading a recorded run", err);
    sqlite3_bind_int64(st, 1, id);
    size_t cap = 0;
    int step, rc = 0;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        if (grow(&out->samples, out->n_samples, &cap) != 0)
            rc = oom(err);
        else
            out->samples[out->n_samples++] = sqlite3_column_double(st, 0);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = harness_db_sqlite_error(db, "reading a recorded run's samples", err);
    sqlite3_finalize(st);
    return rc;
}

/* Each window's median (no slice of the samples: len 0) and energy per
 * step (NAN where not measured: --metric energy leaves it out). */
static int read_windows(harness_db *db, sqlite3_int64 id, harness_run_summary *out, harness_error *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(harness_db_handle(db), "SELECT median, energy_j_per_step FROM windows WHERE run_id = ? "
                           "ORDER BY idx", -1, &st, NULL) != SQLITE_OK)
        return harness_db_sqlite_error(db, "reading a recorded run", err);
    sqlite3_bind_int64(st, 1, id);
    size_t cap = 0, cap_e = 0;
    int step, rc = 0;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        size_t i = out->n_windows;
        if (grow(&out->window_medians, i, &cap) != 0 || grow(&out->window_energy, i, &cap_e) != 0) {
            rc = oom(err);
            break;
        }
        out->window_medians[i] = sqlite3_column_double(st, 0);
        out->window_energy[i] = sqlite3_column_type(st, 1) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 1);
        out->n_windows++;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = harness_db_sqlite_error(db, "reading a recorded run's samples", err);
    sqlite3_finalize(st);
    if (rc == 0 && !(out->window_start = calloc(out->n_windows + 1, sizeof *out->window_start)))
        rc = oom(err);
    if (rc == 0 && !(out->window_len = calloc(out->n_windows + 1, sizeof *out->window_len)))
        rc = oom(err);
    return rc;
}

static int read_energy(harness_db *db, sqlite3_int64 id, harness_run_summary *out, harness_error *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(harness_db_handle(db), "SELECT energy_j_per_step, watts FROM runs WHERE id = ?", -1, &st,
                           NULL) != SQLITE_OK)
        return harness_db_sqlite_error(db, "reading a recorded run's energy", err);
    sqlite3_bind_int64(st, 1, id);
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        out->energy_j_per_step = sqlite3_column_type(st, 0) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 0);
        out->energy_watts = sqlite3_column_type(st, 1) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 1);
    }
    sqlite3_finalize(st);
    return step == SQLITE_ROW || step == SQLITE_DONE ? 0 : harness_db_sqlite_error(db, "reading a recorded run's "
                                                                                   "energy", err);
}

/* Who ran what: the series', which the query matched. */
static int identity(const harness_run_summary *like, const char *path, harness_run_summary *out)
{
    const char *slash = strrchr(path, '/');
    out->path = strdup(path);
    out->folder = slash ? strndup(path, (size_t)(slash - path)) : strdup(path);
    out->variant_key = strdup(like->variant_key);
    out->status = strdup("ok");
    out->config = cJSON_Duplicate(like->config, 1);
    out->config_text = out->config ? harness_rank_summary_config_text(out->config) : NULL;
    out->rank = like->rank;
    out->world_size = like->world_size;
    out->noise_bound = out->energy_j_per_step = out->energy_watts = NAN;
    return out->path && out->folder && out->variant_key && out->status && out->config && out->config_text ? 0 : -1;
}

int harness_baseline_run_read(harness_db *db, long long id, const harness_run_summary *like, const char *path,
                              harness_run_summary *out, harness_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = identity(like, path, out) == 0 ? 0 : oom(err);
    if (rc == 0)
        rc = read_samples(db, id, out, err);
    if (rc == 0 && harness_stats_compute(out->samples, out->n_samples, &out->stats) != 0)
        rc = oom(err);
    if (rc == 0)
        rc = read_windows(db, id, out, err);
    if (rc == 0)
        rc = read_energy(db, id, out, err);
    if (rc != 0)
        harness_run_summary_free(out);
    return rc;
}
