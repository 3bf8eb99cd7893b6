/* history.c - series and change points from the results database (history.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* strdup */
#endif
#include "compare/history.h"

#include "compare/compare.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each metric's column of runs (schema 1 on: every recorded database has
 * them). */
static const char *const columns[HARNESS_METRIC_COUNT] = {
    [HARNESS_METRIC_MEDIAN] = "median",
    [HARNESS_METRIC_P90] = "p90",
    [HARNESS_METRIC_P99] = "p99",
    [HARNESS_METRIC_MEAN] = "mean",
    [HARNESS_METRIC_ENERGY] = "energy_j_per_step",   /* schema 3 on; NULL where not measured */
};

/* ok runs that passed validation and measured something; the series key
 * first, then record order (the experiment's id) within a series. %s: the
 * metric's column (from the table above, never from the user). */
static const char query[] =
    "SELECT m.host, m.cpu, m.gpu, r.variant_key, e.config_hash, r.component_config, r.world_size, r.rank,"
    "       e.name, e.git_commit, e.git_branch, r.median, r.ci_lo, r.ci_hi, r.n, r.ci_level, r.%s,"
    "       r.noise_bound, r.noise_evidence"
    "  FROM runs r JOIN experiments e ON e.id = r.experiment_id JOIN machines m ON m.id = r.machine_id"
    " WHERE r.status = 'ok' AND r.validation_failed = 0 AND r.n > 0 AND r.median IS NOT NULL AND r.%s IS NOT NULL"
    "   AND (?1 IS NULL OR r.variant_key = ?1) AND (?2 IS NULL OR m.host = ?2)"
    "   AND (?3 IS NULL OR e.git_branch = ?3) AND (?4 IS NULL OR substr(e.config_hash, 1, length(?4)) = ?4)"
    "   AND (?5 < 0 OR r.world_size = ?5) AND (?6 < 0 OR r.rank = ?6)"
    " ORDER BY m.id, r.variant_key, e.config_hash, r.world_size, r.rank, e.id, r.id";

static char *col_dup(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    return t ? strdup((const char *)t) : NULL;
}

static double col_real(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static int same_series(const harness_series *s, sqlite3_stmt *st)
{
    const char *cols[5] = {s->host, s->cpu, s->gpu, s->variant_key, s->config_hash};
    for (int i = 0; i < 5; i++) {
        const unsigned char *t = sqlite3_column_text(st, i);
        if (!t || !cols[i] || strcmp((const char *)t, cols[i]) != 0)
            return 0;
    }
    return sqlite3_column_int(st, 6) == s->world_size && sqlite3_column_int(st, 7) == s->rank;
}

static void free_series(harness_series *s)
{
    for (size_t i = 0; i < s->n_points; i++) {
        free(s->points[i].experiment);
        free(s->points[i].commit);
        free(s->points[i].branch);
        free(s->points[i].noise_evidence);
    }
    free(s->points);
    free(s->cps);
    free(s->host);
    free(s->cpu);
    free(s->gpu);
    free(s->variant_key);
    free(s->config_hash);
    free(s->config);
}

void harness_history_free(harness_history *h)
{
    if (!h)
        return;
    for (size_t i = 0; i < h->n_series; i++)
        free_series(&h->series[i]);
    free(h->series);
    memset(h, 0, sizeof *h);
}

size_t harness_history_keep(harness_history *h, int (*keep)(const char *name, void *arg), void *arg)
{
    size_t k = 0;
    for (size_t i = 0; i < h->n_series; i++) {
        harness_series *s = &h->series[i];
        cJSON *config = s->config ? cJSON_Parse(s->config) : NULL;
        char name[1024];
        harness_summary_bench_name(NULL, s->variant_key, config, name, sizeof name);
        cJSON_Delete(config);
        if (keep(name, arg))
            h->series[k++] = *s;
        else
            free_series(s);
    }
    h->n_series = k;
    return k;
}

static int oom(harness_error *err)
{
    return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
}

static int add_row(harness_history *h, sqlite3_stmt *st, size_t *cap_series, size_t *cap_points,
                   harness_error *err)
{
    harness_series *s = h->n_series ? &h->series[h->n_series - 1] : NULL;
    if (!s || !same_series(s, st)) {
        if (h->n_series == *cap_series) {
            size_t cap = *cap_series ? *cap_series * 2 : 8;
            harness_series *grown = realloc(h->series, cap * sizeof *grown);
            if (!grown)
                return oom(err);
            h->series = grown;
            *cap_series = cap;
        }
        s = &h->series[h->n_series++];
        memset(s, 0, sizeof *s);
        *cap_points = 0;
        s->host = col_dup(st, 0);
        s->cpu = col_dup(st, 1);
        s->gpu = col_dup(st, 2);
        s->variant_key = col_dup(st, 3);
        s->config_hash = col_dup(st, 4);
        s->config = col_dup(st, 5);
        s->world_size = sqlite3_column_int(st, 6);
        s->rank = sqlite3_column_int(st, 7);
        if (!s->host || !s->cpu || !s->gpu || !s->variant_key || !s->config_hash || !s->config)
            return oom(err);
    }
    if (s->n_points == *cap_points) {
        size_t cap = *cap_points ? *cap_points * 2 : 16;
        harness_history_point *grown = realloc(s->points, cap * sizeof *grown);
        if (!grown)
            return oom(err);
        s->points = grown;
        *cap_points = cap;
    }
    harness_history_point *p = &s->points[s->n_points++];
    p->experiment = col_dup(st, 8);
    p->commit = col_dup(st, 9);
    p->branch = col_dup(st, 10);
    p->median = col_real(st, 11);
    p->ci_lo = col_real(st, 12);
    p->ci_hi = col_real(st, 13);
    p->n = sqlite3_column_int64(st, 14);
    p->ci_level = col_real(st, 15);
    p->value = col_real(st, 16);
    p->noise_bound = col_real(st, 17);   /* NULL: recorded before schema 2, or counters unread */
    p->noise_evidence = col_dup(st, 18);
    p->set_aside = HARNESS_CP_KEPT;      /* find_changes marks them */
    p->interfered = 0;
    return p->experiment ? 0 : oom(err);
}

/* ", what" onto buf. */
static void append(char *buf, size_t cap, const char *what, const char *value)
{
    size_t len = strlen(buf);
    if (len < cap)
        snprintf(buf + len, cap - len, "%s%s %s", len ? ", " : "", what, value);
}

static void describe(const harness_history_filter *f, char *buf, size_t cap)
{
    char num[32];
    buf[0] = '\0';
    if (f->variant_key)
        append(buf, cap, "variant", f->variant_key);
    if (f->host)
        append(buf, cap, "machine", f->host);
    if (f->branch)
        append(buf, cap, "branch", f->branch);
    if (f->config_hash)
        append(buf, cap, "config hash", f->config_hash);
    if (f->world_size >= 0) {
        snprintf(num, sizeof num, "%d", f->world_size);
        append(buf, cap, "world size", num);
    }
    if (f->rank >= 0) {
        snprintf(num, sizeof num, "%d", f->rank);
        append(buf, cap, "rank", num);
    }
    if (!buf[0])
        snprintf(buf, cap, "no filter");
}

/* The change points of one series, and the runs the search left out
 * marked with why (the reports show them apart). The bound is the
 * median's whatever the metric: for a tail or the mean it understates what
 * interference could do (the preempted steps are the tail), so a run set
 * aside for the median is at least as doubtful for them, and a run kept
 * may still be raised - the outlier test is then what stands. 0, or -1
 * out of memory. */
static int find_changes(harness_series *s, const harness_cp_options *cp)
{
    size_t a = s->n_points ? s->n_points : 1;
    double *x = malloc(a * sizeof *x), *bound = malloc(a * sizeof *bound);
    unsigned char *why = malloc(a);
    int rc = x && bound && why ? 0 : -1;
    if (rc == 0) {
        for (size_t k = 0; k < s->n_points; k++) {
            x[k] = s->points[k].value;
            bound[k] = s->points[k].noise_bound;
        }
        rc = harness_changepoints_noisy(x, bound, s->n_points, cp, &s->cps, &s->n_cps, why);
        for (size_t k = 0; rc == 0 && k < s->n_points; k++) {
            s->points[k].set_aside = why[k];
            s->points[k].interfered = s->points[k].noise_bound >= harness_cp_noise_limit(cp);   /* NaN: 0 */
        }
    }
    free(x);
    free(bound);
    free(why);
    return rc;
}

size_t harness_history_cp_interference(const harness_series *s, size_t c, size_t *runs, size_t cap)
{
    size_t found = 0, at = s->cps[c].index;
    for (size_t k = at ? at - 1 : 0; k < s->n_points; k++) {
        if (s->points[k].interfered) {
            if (found < cap)
                runs[found] = k;
            found++;
        }
        if (k >= at && s->points[k].set_aside == HARNESS_CP_KEPT)
            break;                 /* the new level's first kept run */
    }
    return found;
}

/* Runs the query above leaves out whatever the filter: not ok, failed
 * validation or without samples. -1 when it cannot tell. */
static long count_not_ok(sqlite3 *h)
{
    sqlite3_stmt *st;
    long n = -1;
    if (sqlite3_prepare_v2(h, "SELECT count(*) FROM runs WHERE NOT (status = 'ok' AND validation_failed = 0 AND n > 0 "
                           "AND median IS NOT NULL)", -1, &st, NULL) != SQLITE_OK)
        return -1;
    if (sqlite3_step(st) == SQLITE_ROW)
        n = (long)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

int harness_history_load(harness_db *db, const harness_history_filter *f, harness_metric metric,
                         const harness_cp_options *cp, harness_history *out, harness_error *err)
{
    memset(out, 0, sizeof *out);
    out->db_path = harness_db_path(db);
    out->metric = metric;
    out->cp = *cp;
    sqlite3 *h = harness_db_handle(db);
    sqlite3_stmt *st;
    char sql[sizeof query + 32];
    snprintf(sql, sizeof sql, query, columns[metric], columns[metric]);
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK)
        return harness_db_sqlite_error(db, "reading the runs", err);
    const char *texts[4] = {f->variant_key, f->host, f->branch, f->config_hash};
    for (int i = 0; i < 4; i++) {
        if (texts[i])
            sqlite3_bind_text(st, i + 1, texts[i], -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, i + 1);
    }
    sqlite3_bind_int(st, 5, f->world_size);
    sqlite3_bind_int(st, 6, f->rank);
    size_t cap_series = 0, cap_points = 0;
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW)
        rc = add_row(out, st, &cap_series, &cap_points, err);
    if (rc == 0 && step != SQLITE_DONE)
        rc = harness_db_sqlite_error(db, "reading the runs", err);
    sqlite3_finalize(st);
    if (rc != 0)
        return rc;
    if (out->n_series == 0) {
        char what[512];
        describe(f, what, sizeof what);
        long left_out = count_not_ok(h);
        if (left_out > 0)
            return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: no recorded run matches (%s); the database holds "
                                     "%ld run%s that did not finish ok (interrupted, failed, or no samples), which "
                                     "history leaves out (record said so)", out->db_path, what, left_out,
                                     left_out == 1 ? "" : "s");
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: no recorded run matches (%s); see the series with "
                                 "no filter, or record runs first (harness record)", out->db_path, what);
    }
    for (size_t i = 0; i < out->n_series; i++)
        if (find_changes(&out->series[i], cp) != 0)
            return oom(err);
    return 0;
}
