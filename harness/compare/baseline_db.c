/* baseline_db.c - `harness compare --baseline-db DB CAND`: the base side
 * built from the results database instead of a folder. For every run of
 * the candidate, the recorded runs of the same series on the baseline
 * branch (same variant key, component config, world size, rank and, when
 * the candidate names it, host) since that series' last change point are
 * the base: a level the history says is stable, with as many runs as it
 * has, so the base's replicates are runs. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* open_memstream */
#endif
#include "compare/baseline_db.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/changepoint.h"

static const char runs_query[] =
    "SELECT r.id, e.name, r.status, r.validation_failed, r.median"
    "  FROM runs r JOIN experiments e ON e.id = r.experiment_id JOIN machines m ON m.id = r.machine_id"
    " WHERE r.variant_key = ?1 AND r.component_config = ?2 AND r.world_size = ?3 AND r.rank = ?4"
    "   AND e.git_branch = ?5 AND (?6 IS NULL OR m.host = ?6)"
    "   AND r.status = 'ok' AND r.validation_failed = 0 AND r.n > 0"
    " ORDER BY e.id, r.id";

/* A summary's text for one recorded run: what harness_run_summary_parse
 * needs, so the base runs are checked and summarised like any other. */
static char *summary_text(sqlite3 *h, sqlite3_int64 id, const harness_run_summary *like)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    char *config = cJSON_PrintUnformatted(like->config);
    fprintf(f, "{\"schema\": \"%s\", \"status\": \"ok\", \"rank\": %d, \"world_size\": %d, "
            "\"component\": {\"variant_key\": ", HARNESS_SUMMARY_SCHEMA, like->rank, like->world_size);
    cJSON *key = cJSON_CreateString(like->variant_key);
    char *key_text = key ? cJSON_PrintUnformatted(key) : NULL;
    fprintf(f, "%s, \"config\": %s}, \"timing\": {\"samples\": [", key_text ? key_text : "\"?\"",
            config ? config : "{}");
    cJSON_Delete(key);
    free(key_text);
    free(config);
    static const char *const series[2] = {"SELECT ns FROM samples WHERE run_id = ? ORDER BY idx",
                                          "SELECT median FROM windows WHERE run_id = ? ORDER BY idx"};
    for (int s = 0; s < 2; s++) {
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(h, series[s], -1, &st, NULL) == SQLITE_OK) {
            sqlite3_bind_int64(st, 1, id);
            for (int i = 0; sqlite3_step(st) == SQLITE_ROW; i++) {
                if (s == 0)
                    fprintf(f, "%s%.17g", i ? ", " : "", sqlite3_column_double(st, 0));
                else
                    fprintf(f, "%s{\"n\": 1, \"median\": %.17g}", i ? ", " : "", sqlite3_column_double(st, 0));
            }
            sqlite3_finalize(st);
        }
        fputs(s == 0 ? "], \"windows\": [" : "]}}", f);
    }
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* The base runs for one candidate run into *base. */
static int base_for(harness_db *db, const harness_run_summary *cand, const char *branch,
                    harness_compare_side *base, size_t *found, harness_error *err)
{
    sqlite3 *h = harness_db_handle(db);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h, runs_query, -1, &st, NULL) != SQLITE_OK)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "%s: reading the runs: %s", harness_db_path(db),
                                 sqlite3_errmsg(h));
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
    sqlite3_int64 *ids = NULL;
    double *medians = NULL;
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            sqlite3_int64 *gi = realloc(ids, cap * sizeof *gi);
            if (gi)
                ids = gi;
            double *gm = realloc(medians, cap * sizeof *gm);
            if (gm)
                medians = gm;
            char **gn = realloc(names, cap * sizeof *gn);
            if (gn)
                names = gn;
            if (!gi || !gm || !gn) {
                rc = harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
                break;
            }
        }
        ids[n] = sqlite3_column_int64(st, 0);
        const unsigned char *name = sqlite3_column_text(st, 1);
        names[n] = strdup(name ? (const char *)name : "?");
        medians[n] = sqlite3_column_double(st, 4);
        n++;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = harness_error_set(err, HARNESS_EXIT_RUNTIME, "%s: reading the runs: %s", harness_db_path(db),
                               sqlite3_errmsg(h));
    sqlite3_finalize(st);
    free(config);

    /* since the last change point: the current level of the series */
    size_t from = 0;
    harness_change_point *cps = NULL;
    size_t ncp = 0;
    harness_cp_options o = HARNESS_CP_DEFAULTS;
    if (rc == 0 && harness_changepoints(medians, n, &o, &cps, &ncp) != 0)
        rc = harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    if (ncp)
        from = cps[ncp - 1].index;
    free(cps);
    for (size_t i = from; rc == 0 && i < n; i++) {
        char *text = summary_text(h, ids[i], cand);
        char path[512];
        snprintf(path, sizeof path, "%s:%s/rank %d", harness_db_path(db), names[i], cand->rank);
        harness_run_summary r;
        if (!text)
            rc = harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
        else if ((rc = harness_run_summary_parse(path, text, strlen(text), &r, err)) == 0)
            rc = harness_compare_side_add(base, &r, err);
        free(text);
        (*found)++;
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(ids);
    free(medians);
    return rc;
}

/* Whether candidate runs a and b belong to one series (so share a base). */
static int same_series(const harness_run_summary *a, const harness_run_summary *b)
{
    return strcmp(a->variant_key, b->variant_key) == 0 && cJSON_Compare(a->config, b->config, 1) &&
           a->world_size == b->world_size && a->rank == b->rank &&
           ((!a->host && !b->host) || (a->host && b->host && strcmp(a->host, b->host) == 0));
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
    for (size_t i = 0; i < cand->n_runs; i++) {
        /* several candidate runs of one series (harness run --runs N) share its base, loaded once */
        size_t j = 0;
        while (j < i && !same_series(&cand->runs[j], &cand->runs[i]))
            j++;
        if (j < i)
            continue;
        if (base_for(db, &cand->runs[i], branch, base, &found, err) != 0) {
            harness_compare_side_free(base);
            return err->code;
        }
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
