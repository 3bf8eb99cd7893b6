/* baseline_db.c - `harness compare --baseline-db DB CAND`: the base side
 * built from the results database instead of a folder. For every run of
 * the candidate, the recorded runs of the same series on the baseline
 * branch (same variant key, component config, world size, rank and, when
 * the candidate names it, host) since that series' last change point are
 * the base: a level the history says is stable, with as many runs as it
 * has, so the base's replicates are runs. A run the candidate itself
 * holds (the same summary, by its SHA-256, as record keys runs) is never
 * part of its own base. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* strdup */
#endif
#include "compare/baseline_db.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/baseline_run.h"
#include "compare/changepoint.h"

/* The SHA-256s (hex) of the candidate's summaries, and the base runs
 * already taken (two candidate runs of one series share their base). */
typedef struct base_state {
    char (*cand_sha)[65];
    size_t n_cand_sha;
    sqlite3_int64 *taken;
    size_t n_taken;
} base_state;

static const char runs_query[] =
    "SELECT r.id, e.name, r.status, r.validation_failed, r.median, r.summary_sha256"
    "  FROM runs r JOIN experiments e ON e.id = r.experiment_id JOIN machines m ON m.id = r.machine_id"
    " WHERE r.variant_key = ?1 AND r.component_config = ?2 AND r.world_size = ?3 AND r.rank = ?4"
    "   AND e.git_branch = ?5 AND (?6 IS NULL OR m.host = ?6)"
    "   AND r.status = 'ok' AND r.validation_failed = 0 AND r.n > 0"
    " ORDER BY e.id, r.id";

/* The SHA-256 of every candidate summary's bytes, as the folder stage
 * read them and record keys runs. */
static int hash_candidates(const harness_compare_side *cand, base_state *st, harness_error *err)
{
    st->cand_sha = malloc((cand->n_runs ? cand->n_runs : 1) * sizeof *st->cand_sha);
    st->taken = NULL;
    st->n_cand_sha = st->n_taken = 0;
    if (!st->cand_sha)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    for (size_t i = 0; i < cand->n_runs; i++)
        if (cand->runs[i].sha256[0])
            memcpy(st->cand_sha[st->n_cand_sha++], cand->runs[i].sha256, 65);
    return 0;
}

/* 1 when a recorded run is the candidate's own, or already in the base. */
static int skip_run(const base_state *st, sqlite3_int64 id, const unsigned char *sha)
{
    for (size_t i = 0; sha && i < st->n_cand_sha; i++)
        if (strcmp((const char *)sha, st->cand_sha[i]) == 0)
            return 1;
    for (size_t i = 0; i < st->n_taken; i++)
        if (st->taken[i] == id)
            return 1;
    return 0;
}

/* The recorded runs of one series, in record order. */
typedef struct series_rows {
    sqlite3_int64 *ids;
    double *medians;
    char **names;
    size_t n, cap;
} series_rows;

static void rows_free(series_rows *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->names[i]);
    free(r->names);
    free(r->ids);
    free(r->medians);
}

static int rows_add(series_rows *r, sqlite3_int64 id, const unsigned char *name, double median)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 16;
        sqlite3_int64 *gi = realloc(r->ids, cap * sizeof *gi);
        if (gi)
            r->ids = gi;
        double *gm = realloc(r->medians, cap * sizeof *gm);
        if (gm)
            r->medians = gm;
        char **gn = realloc(r->names, cap * sizeof *gn);
        if (gn)
            r->names = gn;
        if (!gi || !gm || !gn)
            return -1;
        r->cap = cap;
    }
    if (!(r->names[r->n] = strdup(name ? (const char *)name : "?")))
        return -1;
    r->ids[r->n] = id;
    r->medians[r->n++] = median;
    return 0;
}

/* The runs of cand's series on `branch` into *rows, less the candidate's
 * own (by summary hash): a candidate already recorded is not its own base,
 * nor does it move the series' last change point. */
static int read_series(harness_db *db, const harness_run_summary *cand, const char *branch, const base_state *bs,
                       series_rows *rows, harness_error *err)
{
    sqlite3 *h = harness_db_handle(db);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h, runs_query, -1, &st, NULL) != SQLITE_OK)
        return harness_db_sqlite_error(db, "reading the runs", err);
    char *config = cJSON_PrintUnformatted(cand->config);
    if (!config) {
        sqlite3_finalize(st);
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    }
    sqlite3_bind_text(st, 1, cand->variant_key, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, config, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, cand->world_size);
    sqlite3_bind_int(st, 4, cand->rank);
    sqlite3_bind_text(st, 5, branch, -1, SQLITE_STATIC);
    if (cand->host)
        sqlite3_bind_text(st, 6, cand->host, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 6);
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW)
        if (!skip_run(bs, -1, sqlite3_column_text(st, 5)) &&
            rows_add(rows, sqlite3_column_int64(st, 0), sqlite3_column_text(st, 1), sqlite3_column_double(st, 4)))
            rc = harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    if (rc == 0 && step != SQLITE_DONE)
        rc = harness_db_sqlite_error(db, "reading the runs", err);
    sqlite3_finalize(st);
    free(config);
    return rc;
}

/* The base runs for one candidate run into *base: its series since the
 * last change point (the current level), each run once. */
static int base_for(harness_db *db, const harness_run_summary *cand, const char *branch, base_state *bs,
                    harness_compare_side *base, size_t *found, harness_error *err)
{
    series_rows rows = {0};
    int rc = read_series(db, cand, branch, bs, &rows, err);
    size_t from = 0, ncp = 0;
    harness_change_point *cps = NULL;
    harness_cp_options o = HARNESS_CP_DEFAULTS;
    if (rc == 0 && harness_changepoints(rows.medians, rows.n, &o, &cps, &ncp) != 0)
        rc = harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    if (ncp)
        from = cps[ncp - 1].index;
    free(cps);
    sqlite3_int64 *grown = rc == 0 ? realloc(bs->taken, (bs->n_taken + rows.n + 1) * sizeof *grown) : NULL;
    if (rc == 0 && !grown)
        rc = harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    if (grown)
        bs->taken = grown;
    for (size_t i = from; rc == 0 && i < rows.n; i++) {
        (*found)++;
        if (skip_run(bs, rows.ids[i], NULL))
            continue;              /* in the base already, for another run of the candidate */
        bs->taken[bs->n_taken++] = rows.ids[i];
        char path[512];
        snprintf(path, sizeof path, "%s:%s/rank %d", harness_db_path(db), rows.names[i], cand->rank);
        harness_run_summary r;
        if ((rc = harness_baseline_run_read(db, rows.ids[i], cand, path, &r, err)) == 0)
            rc = harness_compare_side_add(base, &r, err);
    }
    rows_free(&rows);
    return rc;
}

int harness_compare_side_from_db(harness_db *db, const harness_compare_side *cand, const char *branch,
                                 harness_compare_side *base, harness_error *err)
{
    memset(base, 0, sizeof *base);
    base->is_parent = 1;
    base->is_database = 1;
    size_t len = strlen(harness_db_path(db)) + strlen(branch) + 16;
    if (!(base->root = malloc(len)))
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    snprintf(base->root, len, "%s (branch %s)", harness_db_path(db), branch);
    size_t found = 0;
    base_state bs;
    int rc = hash_candidates(cand, &bs, err);
    for (size_t i = 0; rc == 0 && i < cand->n_runs; i++)
        rc = base_for(db, &cand->runs[i], branch, &bs, base, &found, err);
    free(bs.cand_sha);
    free(bs.taken);
    if (rc != 0) {
        harness_compare_side_free(base);
        return err->code;
    }
    if (found == 0) {
        harness_compare_side_free(base);
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: no run recorded on branch %s matches a run of %s "
                                 "(variant key, component config, world size, rank and host); record the "
                                 "baseline first, or name another --baseline-branch", harness_db_path(db), branch,
                                 cand->root ? cand->root : "CAND");
    }
    return 0;
}
