/* db_record.c - `harness record`: read experiment folders, check them all,
 * then store their runs in one transaction (results_db.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* strdup */
#endif
#include "compare/compare.h"
#include "compare/db_internal.h"
#include "compare/experiment_folders.h"
#include "compare/folder_ranks.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fsutil.h"
#include "util/sha256.h"

/* A run to store: the summary as the folder stage read it, with the
 * SHA-256 of its bytes that keys it and the env fields of its machine. */
typedef struct rec_run {
    harness_run_summary s;
} rec_run;

typedef struct rec_folder {
    const char *path;
    const char *name;              /* the folder's last component */
    char *resolved;                /* resolved_config.yaml */
    char config_hash[65];
    rec_run *runs;
    size_t n;
} rec_folder;

static void hex(const uint8_t d[32], char out[65])
{
    for (int i = 0; i < 32; i++)
        sprintf(out + 2 * i, "%02x", d[i]);
}

/* The series key's config hash: the resolved config without its top-level
 * experiment: block (a name and an output folder say where results went,
 * not what was measured, and would split one series per output folder). */
static void config_hash(const char *yaml, char out[65])
{
    harness_sha256 h;
    harness_sha256_init(&h);
    int skipping = 0;
    for (const char *line = yaml; *line;) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line + 1) : strlen(line);
        if (line[0] != ' ' && line[0] != '\n' && line[0] != '#')
            skipping = strncmp(line, "experiment:", 11) == 0;
        if (!skipping && line[0] != '#')
            harness_sha256_update(&h, line, len);
        line += len;
    }
    uint8_t d[32];
    harness_sha256_final(&h, d);
    hex(d, out);
}

static void free_run(rec_run *r)
{
    harness_run_summary_free(&r->s);
}

static void free_folder(rec_folder *f)
{
    for (size_t i = 0; i < f->n; i++)
        free_run(&f->runs[i]);
    free(f->runs);
    free(f->resolved);
    memset(f, 0, sizeof *f);
}

static int load_run(const char *path, rec_run *r, harness_error *err)
{
    memset(r, 0, sizeof *r);
    int rc = harness_run_summary_load(path, &r->s, err);
    if (rc == 0)
        harness_run_summaries_note_allowed(&r->s, 1, "record", stderr);
    return rc;
}

/* A folder whose ranks did not all leave a summary is refused: there is
 * nothing to store for such a rank, and storing the others would record a
 * job that did not finish as if it had. Exit 2, as for any folder record
 * cannot take (record judges nothing, so 1 would claim a verdict; 3 is for
 * the harness's own I/O, not for what a run left behind). */
static int unfinished(const char *path, const harness_folder_ranks *fr, const harness_rank_files *rf,
                      harness_error *err)
{
    char what[96] = "no summary";
    if (fr->world_size > 1)
        snprintf(what, sizeof what, "rank %d of %d left no summary", rf->rank, fr->world_size);
    if (!rf->status)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: the run did not finish: %s and no status file; "
                                 "nothing recorded", path, what);
    return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: the run did not finish: %s, and %s says %s: %s%s%s%s; "
                             "nothing recorded", path, what, rf->status_file, rf->status,
                             harness_rank_files_why(rf->status), rf->error ? " (" : "", rf->error ? rf->error : "",
                             rf->error ? ")" : "");
}

/* path: an experiment folder as harness_experiment_folders_find returned it. */
static int load_folder(const char *path, rec_folder *f, harness_error *err)
{
    memset(f, 0, sizeof *f);
    f->path = path;
    const char *slash = strrchr(path, '/');
    while (slash && slash[1] == '\0' && slash > path) {   /* "dir/" */
        const char *p = slash - 1;
        while (p > path && *p != '/')
            p--;
        slash = *p == '/' ? p : NULL;
    }
    f->name = slash ? slash + 1 : path;
    char file[4096];
    snprintf(file, sizeof file, "%s/resolved_config.yaml", path);
    size_t len;
    harness_error ignored = {0};
    if (harness_read_file(file, &f->resolved, &len, &ignored) != 0)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: not an experiment folder: cannot read "
                                 "resolved_config.yaml (%s)", path, ignored.msg);
    config_hash(f->resolved, f->config_hash);

    harness_folder_ranks fr;
    if (harness_folder_ranks_read(path, &fr, err) != 0)
        return err->code;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < fr.n; i++)
        if (!fr.ranks[i].summary[0])
            rc = unfinished(path, &fr, &fr.ranks[i], err);
    if (rc == 0 && !(f->runs = calloc(fr.n, sizeof *f->runs)))
        rc = harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    for (size_t i = 0; rc == 0 && i < fr.n; i++) {
        snprintf(file, sizeof file, "%s/%s", path, fr.ranks[i].summary);
        rc = load_run(file, &f->runs[f->n], err);
        if (rc == 0)
            rc = harness_rank_files_settle(&fr.ranks[i], path, &f->runs[f->n].s, err);
        if (rc == 0)
            f->n++;
        else
            free_run(&f->runs[f->n]);
    }
    harness_folder_ranks_free(&fr);
    return rc;
}

/* ---- writing --------------------------------------------------------------------- */

typedef struct writer {
    harness_db *db;
    sqlite3 *h;
    harness_error *err;
} writer;

/* Names the file, says "nothing recorded", and marks a busy lock so that
 * harness_db_write runs the whole record again. */
static int fail(writer *w, const char *doing)
{
    return harness_db_sqlite_error(w->db, doing, w->err);
}

static void bind_text_or_null(sqlite3_stmt *st, int i, const char *s)
{
    if (s && s[0])
        sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

static void bind_real(sqlite3_stmt *st, int i, double v)
{
    if (isfinite(v))
        sqlite3_bind_double(st, i, v);
    else
        sqlite3_bind_null(st, i);
}

/* Run one prepared statement to completion; *id: the last rowid. */
static int step_done(writer *w, sqlite3_stmt *st, const char *doing)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : fail(w, doing);
}

static int stored(writer *w, const char *sha, int *out)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(w->h, "SELECT 1 FROM runs WHERE summary_sha256 = ?", -1, &st, NULL) != SQLITE_OK)
        return fail(w, "looking up a run");
    sqlite3_bind_text(st, 1, sha, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return fail(w, "looking up a run");
    *out = rc == SQLITE_ROW;
    return 0;
}

static int machine_id(writer *w, const rec_run *r, sqlite3_int64 *id)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(w->h, "INSERT INTO machines (host, cpu, gpu) VALUES (?, ?, ?) "
                           "ON CONFLICT (host, cpu, gpu) DO UPDATE SET host = excluded.host RETURNING id",
                           -1, &st, NULL) != SQLITE_OK)
        return fail(w, "storing the machine");
    /* "" for what the summary does not say, so an older one finds its row */
    sqlite3_bind_text(st, 1, r->s.host ? r->s.host : "", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, r->s.env_cpu, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, r->s.env_gpu, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : fail(w, "storing the machine");
}

static int insert_experiment(writer *w, const rec_folder *f, const rec_run *r, const harness_record_options *o,
                             sqlite3_int64 *id)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(w->h, "INSERT INTO experiments (name, path, config_hash, resolved_config, git_commit, "
                           "git_branch, harness_version, started_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                           -1, &st, NULL) != SQLITE_OK)
        return fail(w, "storing the experiment");
    sqlite3_bind_text(st, 1, f->name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, f->path, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, f->config_hash, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, f->resolved, -1, SQLITE_STATIC);
    bind_text_or_null(st, 5, o && o->commit ? o->commit : r->s.env_git_commit);
    bind_text_or_null(st, 6, o ? o->branch : NULL);
    bind_text_or_null(st, 7, r->s.env_harness_version);
    bind_text_or_null(st, 8, r->s.env_started_at);
    int rc = step_done(w, st, "storing the experiment");
    sqlite3_finalize(st);
    *id = sqlite3_last_insert_rowid(w->h);
    return rc;
}

static int insert_series(writer *w, const char *sql, sqlite3_int64 run, const double *v, size_t n,
                         const char *doing)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(w->h, sql, -1, &st, NULL) != SQLITE_OK)
        return fail(w, doing);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        sqlite3_bind_int64(st, 1, run);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
        sqlite3_bind_double(st, 3, v[i]);
        rc = step_done(w, st, doing);
    }
    sqlite3_finalize(st);
    return rc;
}

/* Each window's energy per step beside its median, where measured. */
static int insert_window_energy(writer *w, sqlite3_int64 run, const harness_run_summary *s)
{
    if (!s->window_energy)
        return 0;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(w->h, "UPDATE windows SET energy_j_per_step = ? WHERE run_id = ? AND idx = ?", -1, &st,
                           NULL) != SQLITE_OK)
        return fail(w, "storing a run's windows");
    int rc = 0;
    for (size_t i = 0; i < s->n_windows && rc == 0; i++) {
        if (!(s->window_energy[i] > 0))
            continue;
        sqlite3_bind_double(st, 1, s->window_energy[i]);
        sqlite3_bind_int64(st, 2, run);
        sqlite3_bind_int64(st, 3, (sqlite3_int64)i);
        rc = step_done(w, st, "storing a run's windows");
    }
    sqlite3_finalize(st);
    return rc;
}

static int insert_run(writer *w, const rec_run *r, sqlite3_int64 experiment, sqlite3_int64 machine)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(w->h, "INSERT INTO runs (experiment_id, machine_id, summary_sha256, variant_key, "
                           "component_config, world_size, rank, status, validation_failed, n, median, ci_lo, "
                           "ci_hi, ci_level, mean, stddev, min, p90, p99, max, noise_bound, noise_evidence, "
                           "energy_j_per_step, watts) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           -1, &st, NULL) != SQLITE_OK)
        return fail(w, "storing a run");
    const harness_run_summary *s = &r->s;
    const harness_stats *t = &s->stats;
    char *config = cJSON_PrintUnformatted(s->config);
    sqlite3_bind_int64(st, 1, experiment);
    sqlite3_bind_int64(st, 2, machine);
    sqlite3_bind_text(st, 3, r->s.sha256, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, s->variant_key, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, config ? config : "{}", -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 6, s->world_size);
    sqlite3_bind_int(st, 7, s->rank);
    sqlite3_bind_text(st, 8, s->status, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 9, s->validation_failed);
    sqlite3_bind_int64(st, 10, (sqlite3_int64)s->n_samples);
    int has = s->n_samples > 0;
    double vals[] = {t->median, t->ci95_lo, t->ci95_hi, t->ci_level, t->mean, t->stddev, t->min, t->p90, t->p99,
                     t->max};
    for (int i = 0; i < 10; i++)
        bind_real(st, 11 + i, has ? vals[i] : NAN);
    /* NULL when the summary does not say (an older harness, unreadable
     * counters): history then judges the run by its value alone */
    bind_real(st, 21, s->noise_bound);
    bind_text_or_null(st, 22, s->noise_evidence);
    /* NULL when not measured (no counter, windows too short): history
     * --metric energy leaves such a run out */
    bind_real(st, 23, s->energy_j_per_step > 0 ? s->energy_j_per_step : NAN);
    bind_real(st, 24, s->energy_watts > 0 ? s->energy_watts : NAN);
    free(config);
    int rc = step_done(w, st, "storing a run");
    sqlite3_finalize(st);
    if (rc != 0)
        return rc;
    sqlite3_int64 id = sqlite3_last_insert_rowid(w->h);
    if (insert_series(w, "INSERT INTO windows (run_id, idx, median) VALUES (?, ?, ?)", id, s->window_medians,
                      s->n_windows, "storing a run's windows") != 0)
        return w->err->code;
    if (insert_window_energy(w, id, s) != 0)
        return w->err->code;
    return insert_series(w, "INSERT INTO samples (run_id, idx, ns) VALUES (?, ?, ?)", id, s->samples, s->n_samples,
                         "storing a run's samples");
}

static int write_folder(writer *w, const rec_folder *f, const harness_record_options *o,
                        harness_record_result *res)
{
    sqlite3_int64 experiment = 0;
    for (size_t i = 0; i < f->n; i++) {
        const rec_run *r = &f->runs[i];
        int have = 0;
        if (stored(w, r->s.sha256, &have) != 0)
            return w->err->code;
        if (have) {
            res->already++;
            continue;
        }
        sqlite3_int64 machine = 0;
        if (machine_id(w, r, &machine) != 0)
            return w->err->code;
        if (!experiment && insert_experiment(w, f, r, o, &experiment) != 0)
            return w->err->code;
        if (insert_run(w, r, experiment, machine) != 0)
            return w->err->code;
        res->added++;
        /* history's own test (compare/history.c), so record can say what it will show */
        if (strcmp(r->s.status, "ok") != 0 || r->s.validation_failed || r->s.n_samples == 0)
            res->not_ok++;
    }
    return 0;
}

/* The experiment folders the arguments name, each an experiment folder or
 * a folder of them (as compare takes), flattened into *paths (borrowed from
 * found[], which the caller frees). */
static int expand(const char *const *args, size_t n_args, harness_experiment_folders *found, const char ***paths,
                  size_t *n, harness_error *err)
{
    *paths = NULL;
    *n = 0;
    size_t total = 0;
    for (size_t i = 0; i < n_args; i++) {
        if (harness_experiment_folders_find(args[i], &found[i], err) != 0)
            return err->code;
        if (found[i].n == 0)
            return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: not an experiment folder, nor a folder of them "
                                     "(no summary_ranks_N_rank_r.json or status.json here or below, to depth %d)",
                                     args[i], HARNESS_EXPERIMENT_SEARCH_DEPTH);
        total += found[i].n;
    }
    if (!(*paths = malloc((total ? total : 1) * sizeof **paths)))
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    for (size_t i = 0; i < n_args; i++)
        for (size_t j = 0; j < found[i].n; j++)
            (*paths)[(*n)++] = found[i].paths[j];
    return 0;
}

/* What the write transaction stores: run again from the start when the
 * lock was busy, so it counts afresh each time. */
typedef struct record_tx {
    const rec_folder *f;
    size_t n;
    const harness_record_options *o;
    harness_record_result *res;
} record_tx;

static int write_all(harness_db *db, void *arg, harness_error *err)
{
    record_tx *t = arg;
    writer w = {db, harness_db_handle(db), err};
    memset(t->res, 0, sizeof *t->res);
    for (size_t i = 0; i < t->n; i++)
        if (write_folder(&w, &t->f[i], t->o, t->res) != 0)
            return err->code;
    return 0;
}

int harness_db_record(harness_db *db, const char *const *args, size_t n_args, const harness_record_options *o,
                      harness_record_result *res, harness_error *err)
{
    memset(res, 0, sizeof *res);
    harness_experiment_folders *found = calloc(n_args ? n_args : 1, sizeof *found);
    if (!found)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    const char **folders = NULL;
    size_t n = 0;
    int rc = expand(args, n_args, found, &folders, &n, err);
    rec_folder *f = rc == 0 ? calloc(n ? n : 1, sizeof *f) : NULL;
    if (rc == 0 && !f)
        rc = harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    /* Every folder read and checked before the lock is taken: the lock is
     * held only while writing, so parallel records queue for the least time. */
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = load_folder(folders[i], &f[i], err);
    if (rc == 0) {
        record_tx t = {f, n, o, res};
        rc = harness_db_write(db, "recording", write_all, &t, err);
        if (rc == 0)
            res->folders = n;
        else
            memset(res, 0, sizeof *res);
    }
    for (size_t i = 0; f && i < n; i++)
        free_folder(&f[i]);
    free(f);
    free(folders);
    for (size_t i = 0; i < n_args; i++)
        harness_experiment_folders_free(&found[i]);
    free(found);
    return rc;
}
