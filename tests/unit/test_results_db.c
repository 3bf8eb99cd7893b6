/* test_results_db.c - harness/compare/db_*.c: the schema and its version,
 * a database of schema 1 upgraded in place (its runs' interference
 * unknown), each run's interference bound stored, recording a folder twice
 * stores it once, a failure mid-record rolls everything back, a newer
 * schema and a file that is not a database are refused, and a folder that
 * is not an experiment stores nothing. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "compare/results_db.h"

static char tmp[256];

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* The summaries' noise block ("" for none, as an older harness wrote). */
static const char *noise_json = "";

/* An experiment folder under tmp with `ranks` summaries of a spin around `center` ns. */
static const char *experiment(const char *name, int ranks, double center)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmp, name);
    assert_int_equal(mkdir(path, 0777), 0);
    char file[640];
    snprintf(file, sizeof file, "%s/resolved_config.yaml", path);
    write_file(file, "experiment:\n  name: spin\n  output_dir: somewhere\ncomponent:\n  variant_key: spin/cpu\n");
    for (int r = 0; r < ranks; r++) {
        snprintf(file, sizeof file, "%s/summary_ranks_%d_rank_%d.json", path, ranks, r);
        char text[2048];
        snprintf(text, sizeof text,
                 "{\"schema\": \"harness.summary/1\", \"status\": \"ok\", \"rank\": %d, \"world_size\": %d, "
                 "\"component\": {\"variant_key\": \"spin/cpu\", \"config\": {\"duration_ns\": %g}}, "
                 "\"timing\": {\"samples\": [%g, %g, %g, %g], \"windows\": [{\"n\": 2, \"median\": %g}, "
                 "{\"n\": 2, \"median\": %g}]}, "
                 "\"env\": {\"host\": \"h%d\", \"cpu\": \"cpu\", \"gpu\": \"none\", \"git_commit\": \"abc123\", "
                 "\"harness_version\": \"0.1.0\", \"started_at\": \"%s\"}%s}",
                 r, ranks, center, center, center + 1, center + 2, center + 3, center + 0.5, center + 2.5, r,
                 name, noise_json);
        write_file(file, text);
    }
    return path;
}

static long long count(harness_db *db, const char *table)
{
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", table);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(harness_db_handle(db), sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    long long n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

static harness_db *open_db(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmp, name);
    harness_db *db;
    harness_error err = {0};
    if (harness_db_open(path, HARNESS_DB_WRITE, 5, &db, &err) != 0)
        fail_msg("%s", err.msg);
    return db;
}

static int setup(void **state)
{
    (void)state;
    snprintf(tmp, sizeof tmp, "/tmp/test_results_db.XXXXXX");
    assert_non_null(mkdtemp(tmp));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    return system(cmd);
}

static void test_schema(void **state)
{
    (void)state;
    harness_db *db = open_db("schema.db");
    assert_int_equal(harness_db_schema_version(db), HARNESS_DB_SCHEMA_VERSION);
    sqlite3 *h = harness_db_handle(db);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(h, "PRAGMA journal_mode", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(st, 0), "wal");
    sqlite3_finalize(st);
    assert_int_equal(sqlite3_prepare_v2(h, "PRAGMA foreign_keys", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(st, 0), 1);
    sqlite3_finalize(st);
    /* foreign keys hold: a run of no experiment is refused */
    assert_int_not_equal(sqlite3_exec(h, "INSERT INTO runs (experiment_id, machine_id, summary_sha256, variant_key, "
                                      "component_config, world_size, rank, status, validation_failed, n) VALUES "
                                      "(42, 42, 'x', 'k', '{}', 1, 0, 'ok', 0, 0)", NULL, NULL, NULL),
                         SQLITE_OK);
    harness_db_close(db);
    /* opening again keeps the version and migrates nothing */
    db = open_db("schema.db");
    assert_int_equal(harness_db_schema_version(db), HARNESS_DB_SCHEMA_VERSION);
    harness_db_close(db);
}

static void test_record_twice_stores_once(void **state)
{
    (void)state;
    harness_db *db = open_db("twice.db");
    const char *folders[2];
    char a[512], b[512];
    snprintf(a, sizeof a, "%s", experiment("2026-01-01__00-00-00_aaaaaaaa", 2, 1000));
    snprintf(b, sizeof b, "%s", experiment("2026-01-02__00-00-00_aaaaaaaa", 1, 1100));
    folders[0] = a;
    folders[1] = b;
    harness_record_result res;
    harness_error err = {0};
    harness_record_options o = {NULL, "main"};
    assert_int_equal(harness_db_record(db, folders, 2, &o, &res, &err), 0);
    assert_int_equal(res.added, 3);
    assert_int_equal(res.already, 0);
    assert_int_equal(count(db, "runs"), 3);
    assert_int_equal(count(db, "experiments"), 2);
    assert_int_equal(count(db, "machines"), 2);      /* hosts h0 and h1 */
    assert_int_equal(count(db, "samples"), 12);
    assert_int_equal(count(db, "windows"), 6);
    assert_int_equal(harness_db_record(db, folders, 2, &o, &res, &err), 0);
    assert_int_equal(res.added, 0);
    assert_int_equal(res.already, 3);
    assert_int_equal(count(db, "runs"), 3);
    assert_int_equal(count(db, "experiments"), 2);
    /* the stored figures: the median, the branch, the commit from the summary */
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(harness_db_handle(db),
                                        "SELECT r.median, e.git_branch, e.git_commit, r.world_size, r.rank "
                                        "FROM runs r JOIN experiments e ON e.id = r.experiment_id "
                                        "ORDER BY r.median DESC LIMIT 1", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_true(sqlite3_column_double(st, 0) == 1101.5);
    assert_string_equal((const char *)sqlite3_column_text(st, 1), "main");
    assert_string_equal((const char *)sqlite3_column_text(st, 2), "abc123");
    assert_int_equal(sqlite3_column_int(st, 3), 1);
    sqlite3_finalize(st);
    harness_db_close(db);
}

/* A failure while writing - here a trigger refusing the second folder's
 * samples, standing in for a full disk or a crash - leaves nothing. */
static void test_rollback_on_failure(void **state)
{
    (void)state;
    harness_db *db = open_db("rollback.db");
    assert_int_equal(sqlite3_exec(harness_db_handle(db),
                                  "CREATE TRIGGER boom BEFORE INSERT ON samples WHEN NEW.ns > 1500 "
                                  "BEGIN SELECT RAISE(ABORT, 'disk full (test)'); END",
                                  NULL, NULL, NULL), SQLITE_OK);
    char a[512], b[512];
    snprintf(a, sizeof a, "%s", experiment("2026-02-01__00-00-00_aaaaaaaa", 1, 1000));
    snprintf(b, sizeof b, "%s", experiment("2026-02-02__00-00-00_aaaaaaaa", 1, 2000));
    const char *folders[2] = {a, b};
    harness_record_result res;
    harness_error err = {0};
    assert_int_equal(harness_db_record(db, folders, 2, NULL, &res, &err), 3);
    assert_non_null(strstr(err.msg, "rollback.db: storing a run's samples: disk full (test); nothing recorded"));
    assert_int_equal(res.added, 0);
    assert_int_equal(count(db, "runs"), 0);
    assert_int_equal(count(db, "experiments"), 0);
    assert_int_equal(count(db, "machines"), 0);
    assert_int_equal(count(db, "samples"), 0);
    harness_db_close(db);
}

/* A bad folder among good ones: exit 2 naming it, nothing stored. */
static void test_bad_folder_stores_nothing(void **state)
{
    (void)state;
    harness_db *db = open_db("badfolder.db");
    char a[512], b[512];
    snprintf(a, sizeof a, "%s", experiment("2026-03-01__00-00-00_aaaaaaaa", 1, 1000));
    snprintf(b, sizeof b, "%s/not_an_experiment", tmp);
    assert_int_equal(mkdir(b, 0777), 0);
    const char *folders[2] = {a, b};
    harness_record_result res;
    harness_error err = {0};
    assert_int_equal(harness_db_record(db, folders, 2, NULL, &res, &err), 2);
    assert_non_null(strstr(err.msg, "not_an_experiment: not an experiment folder"));
    assert_int_equal(count(db, "runs"), 0);
    /* a corrupt summary: named, with its line and column */
    char c[512], file[700];
    snprintf(c, sizeof c, "%s", experiment("2026-03-02__00-00-00_aaaaaaaa", 1, 1000));
    snprintf(file, sizeof file, "%s/summary_ranks_1_rank_0.json", c);
    write_file(file, "{\"schema\": \"harness.summary/1\",,");
    folders[1] = c;
    assert_int_equal(harness_db_record(db, folders, 2, NULL, &res, &err), 2);
    assert_non_null(strstr(err.msg, "summary_ranks_1_rank_0.json:1:"));
    assert_int_equal(count(db, "runs"), 0);
    harness_db_close(db);
}

static void test_refusals(void **state)
{
    (void)state;
    char path[512];
    harness_db *db;
    harness_error err = {0};
    /* newer schema */
    db = open_db("newer.db");
    assert_int_equal(sqlite3_exec(harness_db_handle(db), "UPDATE schema_version SET version = 99", NULL, NULL, NULL),
                     SQLITE_OK);
    harness_db_close(db);
    snprintf(path, sizeof path, "%s/newer.db", tmp);
    assert_int_equal(harness_db_open(path, HARNESS_DB_WRITE, 5, &db, &err), 2);
    char want[128];
    snprintf(want, sizeof want, "newer.db: written by a newer harness (schema version 99; this harness reads up to "
             "%d)", HARNESS_DB_SCHEMA_VERSION);
    assert_non_null(strstr(err.msg, want));
    /* not a database */
    snprintf(path, sizeof path, "%s/text.db", tmp);
    write_file(path, "this is not an SQLite file, but it is long enough to have a header of sorts.........\n");
    assert_int_equal(harness_db_open(path, HARNESS_DB_WRITE, 5, &db, &err), 2);
    assert_non_null(strstr(err.msg, "text.db"));
    assert_non_null(strstr(err.msg, "not a harness results database"));
    /* someone else's SQLite database */
    snprintf(path, sizeof path, "%s/other.db", tmp);
    sqlite3 *h;
    assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
    assert_int_equal(sqlite3_exec(h, "CREATE TABLE t (x)", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
    assert_int_equal(harness_db_open(path, HARNESS_DB_WRITE, 5, &db, &err), 2);
    assert_non_null(strstr(err.msg, "without harness's schema_version table"));
    /* absent, when not to be created (history) */
    snprintf(path, sizeof path, "%s/absent.db", tmp);
    assert_int_equal(harness_db_open(path, HARNESS_DB_READ, 5, &db, &err), 2);
    assert_non_null(strstr(err.msg, "absent.db"));
    struct stat st;
    assert_int_not_equal(stat(path, &st), 0);
}

/* Schema 1 as harness 0.1 created it (db_schema.c's first migration,
 * frozen here: a released schema never changes), with one recorded run. */
static const char schema_1[] =
    "CREATE TABLE schema_version (version INTEGER NOT NULL);"
    "INSERT INTO schema_version VALUES (1);"
    "CREATE TABLE machines (id INTEGER PRIMARY KEY, host TEXT NOT NULL, cpu TEXT NOT NULL, gpu TEXT NOT NULL,"
    "  UNIQUE (host, cpu, gpu));"
    "CREATE TABLE experiments (id INTEGER PRIMARY KEY, name TEXT NOT NULL, path TEXT NOT NULL,"
    "  config_hash TEXT NOT NULL, resolved_config TEXT NOT NULL, git_commit TEXT, git_branch TEXT,"
    "  harness_version TEXT, started_at TEXT,"
    "  recorded_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')));"
    "CREATE TABLE runs (id INTEGER PRIMARY KEY,"
    "  experiment_id INTEGER NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,"
    "  machine_id INTEGER NOT NULL REFERENCES machines(id), summary_sha256 TEXT NOT NULL UNIQUE,"
    "  variant_key TEXT NOT NULL, component_config TEXT NOT NULL,"
    "  world_size INTEGER NOT NULL CHECK (world_size >= 1),"
    "  rank INTEGER NOT NULL CHECK (rank >= 0 AND rank < world_size),"
    "  status TEXT NOT NULL, validation_failed INTEGER NOT NULL,"
    "  n INTEGER NOT NULL, median REAL, ci_lo REAL, ci_hi REAL, ci_level REAL,"
    "  mean REAL, stddev REAL, min REAL, p90 REAL, p99 REAL, max REAL);"
    "CREATE INDEX runs_series ON runs (machine_id, variant_key, world_size, rank);"
    "CREATE TABLE windows (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  idx INTEGER NOT NULL, median REAL NOT NULL, PRIMARY KEY (run_id, idx)) WITHOUT ROWID;"
    "CREATE TABLE samples (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  idx INTEGER NOT NULL, ns REAL NOT NULL, PRIMARY KEY (run_id, idx)) WITHOUT ROWID;"
    "INSERT INTO machines VALUES (1, 'h0', 'cpu', 'none');"
    "INSERT INTO experiments (id, name, path, config_hash, resolved_config) VALUES (1, 'old', '/old', 'ab', '');"
    "INSERT INTO runs (experiment_id, machine_id, summary_sha256, variant_key, component_config, world_size, rank,"
    "  status, validation_failed, n, median) VALUES (1, 1, 'old', 'spin/cpu', '{}', 1, 0, 'ok', 0, 4, 1000);";

/* The noise columns of the run whose median is `median`: bound (NAN for
 * NULL) and evidence (NULL for NULL; a static copy). */
static double noise_of(harness_db *db, double median, const char **evidence)
{
    static char text[256];
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(harness_db_handle(db), "SELECT noise_bound, noise_evidence FROM runs "
                                        "WHERE median = ?", -1, &st, NULL), SQLITE_OK);
    sqlite3_bind_double(st, 1, median);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    double bound = sqlite3_column_type(st, 0) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 0);
    const unsigned char *t = sqlite3_column_text(st, 1);
    snprintf(text, sizeof text, "%s", t ? (const char *)t : "");
    *evidence = t ? text : NULL;
    sqlite3_finalize(st);
    return bound;
}

/* runs.COLUMN of the run whose median is `median`; NAN for NULL. */
static double column_of(harness_db *db, const char *column, double median)
{
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT %s FROM runs WHERE median = ?", column);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(harness_db_handle(db), sql, -1, &st, NULL), SQLITE_OK);
    sqlite3_bind_double(st, 1, median);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    double v = sqlite3_column_type(st, 0) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* A database of schema 1 is upgraded in place: its run kept, with its
 * interference and energy unknown (NULL), and runs recorded after carry
 * theirs. */
static void test_migration_from_1(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/v1.db", tmp);
    sqlite3 *h;
    assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
    char *msg = NULL;
    if (sqlite3_exec(h, schema_1, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("schema 1: %s", msg);
    sqlite3_close(h);
    harness_db *db = open_db("v1.db");
    assert_int_equal(harness_db_schema_version(db), HARNESS_DB_SCHEMA_VERSION);
    assert_int_equal(count(db, "runs"), 1);
    const char *evidence;
    assert_true(isnan(noise_of(db, 1000, &evidence)));
    assert_null(evidence);
    assert_true(isnan(column_of(db, "energy_j_per_step", 1000)));   /* schema 3's column, NULL before */
    /* a run recorded now carries the summary's noise and energy blocks */
    noise_json = ", \"noise\": {\"median_shift_bound\": 0.25, \"evidence\": \"12 involuntary context switches\"}, "
                 "\"energy\": {\"joules_per_step\": 0.002, \"watts\": 150}";
    char a[512];
    snprintf(a, sizeof a, "%s", experiment("2026-04-01__00-00-00_aaaaaaaa", 1, 2000));
    noise_json = "";
    const char *folders[1] = {a};
    harness_record_result res;
    harness_error err = {0};
    assert_int_equal(harness_db_record(db, folders, 1, NULL, &res, &err), 0);
    assert_int_equal(res.added, 1);
    assert_true(noise_of(db, 2001.5, &evidence) == 0.25);
    assert_string_equal(evidence, "12 involuntary context switches");
    assert_true(column_of(db, "energy_j_per_step", 2001.5) == 0.002);
    assert_true(column_of(db, "watts", 2001.5) == 150);
    /* energy per step is positive or unknown: the schema refuses 0 */
    assert_int_not_equal(sqlite3_exec(harness_db_handle(db), "UPDATE runs SET energy_j_per_step = 0", NULL, NULL,
                                      NULL), SQLITE_OK);
    /* the column holds a share: the schema refuses anything else */
    assert_int_not_equal(sqlite3_exec(harness_db_handle(db), "UPDATE runs SET noise_bound = 1.5", NULL, NULL, NULL),
                         SQLITE_OK);
    harness_db_close(db);
    /* opened again: up to date, nothing migrated twice */
    db = open_db("v1.db");
    assert_int_equal(harness_db_schema_version(db), HARNESS_DB_SCHEMA_VERSION);
    assert_int_equal(count(db, "runs"), 2);
    harness_db_close(db);
}

/* A summary without a noise block (an older harness): stored as unknown. */
static void test_noise_unknown(void **state)
{
    (void)state;
    harness_db *db = open_db("unknown.db");
    char a[512];
    snprintf(a, sizeof a, "%s", experiment("2026-05-01__00-00-00_aaaaaaaa", 1, 3000));
    const char *folders[1] = {a};
    harness_record_result res;
    harness_error err = {0};
    assert_int_equal(harness_db_record(db, folders, 1, NULL, &res, &err), 0);
    const char *evidence;
    assert_true(isnan(noise_of(db, 3001.5, &evidence)));
    assert_null(evidence);
    harness_db_close(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schema),
        cmocka_unit_test(test_record_twice_stores_once),
        cmocka_unit_test(test_rollback_on_failure),
        cmocka_unit_test(test_bad_folder_stores_nothing),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_migration_from_1),
        cmocka_unit_test(test_noise_unknown),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
