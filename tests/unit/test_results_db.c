/* test_results_db.c - harness/compare/db_*.c: the schema and its version,
 * a database of schema 1 upgraded in place (its runs' interference
 * unknown), each run's interference bound stored, recording a folder twice
 * stores it once, a failure mid-record rolls everything back, a newer
 * schema and a file that is not a database are refused, and a folder that
 * is not an experiment stores nothing; the back-off schedule, every bad
 * schema version refused (2) by readers and writers with the file left as
 * it was, readers that never write (an older schema refused, not
 * upgraded), a lock held past the timeout (3, the wait said), and the
 * timeout's option and variable (issue 38). */
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

#include "cli/db_timeout.h"
#include "compare/db_wait.h"
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

/* 1 ms doubling to a 100 ms cap, jittered between half and all of it. */
static void test_backoff(void **state)
{
    (void)state;
    assert_true(fabs(harness_db_backoff_s(0, 0) - 0.0005) < 1e-12);
    assert_true(fabs(harness_db_backoff_s(0, 0.999999) - 0.001) < 1e-6);
    assert_true(fabs(harness_db_backoff_s(3, 0) - 0.004) < 1e-12);
    assert_true(fabs(harness_db_backoff_s(7, 0.5) - 0.075) < 1e-12);     /* 128 ms capped to 100 */
    assert_true(fabs(harness_db_backoff_s(1000, 0.999999) - 0.1) < 1e-6);
    assert_true(fabs(harness_db_backoff_s(2, NAN) - 0.002) < 1e-12);     /* a bad u: the lower bound */
    for (int a = 0; a < 40; a++)
        assert_true(harness_db_backoff_s(a + 1, 0) >= harness_db_backoff_s(a, 0));
}

/* The whole file, for "unchanged" checks (malloc'd; *len its size). */
static char *slurp(const char *path, long *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *len = ftell(f);
    rewind(f);
    char *b = malloc((size_t)*len + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)*len, f), (size_t)*len);
    fclose(f);
    return b;
}

static void assert_unchanged(const char *path, const char *before, long len)
{
    long now_len;
    char *now = slurp(path, &now_len);
    assert_int_equal(now_len, len);
    assert_memory_equal(now, before, (size_t)len);
    free(now);
}

/* A database of the current schema in rollback-journal mode (so that
 * every byte is in the one file), changed by `sql`. */
static void crafted(const char *path, const char *sql)
{
    sqlite3 *h;
    assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
    sqlite3_close(h);
    harness_db *db;
    harness_error err = {0};
    if (harness_db_open(path, HARNESS_DB_WRITE, 5, &db, &err) != 0)
        fail_msg("%s", err.msg);
    harness_db_close(db);
    assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
    char *msg = NULL;
    if (sqlite3_exec(h, "PRAGMA journal_mode = DELETE", NULL, NULL, &msg) != SQLITE_OK ||
        (sql && sqlite3_exec(h, sql, NULL, NULL, &msg) != SQLITE_OK))
        fail_msg("%s: %s", sql, msg);
    sqlite3_close(h);
}

/* Every way the version can be wrong: 2 for a reader and a writer, naming
 * the file and the fault, the file untouched, never a migration run from
 * a version out of range (migrations[-5] under UBSan before). */
static void test_bad_versions(void **state)
{
    (void)state;
    static const struct {
        const char *sql, *says;
    } cases[] = {
        {"UPDATE schema_version SET version = -5", "schema version -5 is out of range"},
        {"UPDATE schema_version SET version = 0", "schema version 0 is out of range"},
        {"DELETE FROM schema_version", "the schema_version table is empty"},
        {"INSERT INTO schema_version VALUES (3)", "the schema_version table holds 2 rows"},
        {"INSERT INTO schema_version VALUES (3); INSERT INTO schema_version VALUES (3)",
         "the schema_version table holds 3 or more rows"},
        {"UPDATE schema_version SET version = 9223372036854775807",
         "written by a newer harness (schema version 9223372036854775807;"},
        {"UPDATE schema_version SET version = 4294967299", "schema version 4294967299;"},  /* not 3 when narrowed */
        {"UPDATE schema_version SET version = 2.5", "the schema version is real '2.5', not an integer"},
        {"UPDATE schema_version SET version = x'33'", "the schema version is blob '3', not an integer"},
        {"ALTER TABLE schema_version RENAME COLUMN version TO v", "the schema_version table cannot be read"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/version%zu.db", tmp, i);
        crafted(path, cases[i].sql);
        long len;
        char *before = slurp(path, &len);
        for (int mode = HARNESS_DB_READ; mode <= HARNESS_DB_WRITE; mode++) {
            harness_db *db = (harness_db *)1;
            harness_error err = {0};
            assert_int_equal(harness_db_open(path, (harness_db_mode)mode, 5, &db, &err), 2);
            assert_null(db);
            if (!strstr(err.msg, path) || !strstr(err.msg, cases[i].says))
                fail_msg("%s: '%s' lacks '%s'", cases[i].sql, err.msg, cases[i].says);
            assert_true((strstr(err.msg, "nothing recorded") != NULL) == (mode == HARNESS_DB_WRITE));
            assert_unchanged(path, before, len);
        }
        free(before);
    }
}

/* A reader never writes: a rollback-journal database stays one, byte for
 * byte; an older schema is refused (run record once), not upgraded; an
 * empty file is not given a schema. */
static void test_reader_never_writes(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/reader.db", tmp);
    crafted(path, NULL);
    long len;
    char *before = slurp(path, &len);
    harness_db *db;
    harness_error err = {0};
    assert_int_equal(harness_db_open(path, HARNESS_DB_READ, 5, &db, &err), 0);
    assert_int_equal(harness_db_schema_version(db), HARNESS_DB_SCHEMA_VERSION);
    /* the connection itself refuses writes */
    assert_int_not_equal(sqlite3_exec(harness_db_handle(db), "DELETE FROM runs", NULL, NULL, NULL), SQLITE_OK);
    harness_db_close(db);
    assert_unchanged(path, before, len);
    free(before);

    snprintf(path, sizeof path, "%s/old.db", tmp);
    sqlite3 *h;
    assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
    assert_int_equal(sqlite3_exec(h, schema_1, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
    before = slurp(path, &len);
    assert_int_equal(harness_db_open(path, HARNESS_DB_READ, 5, &db, &err), 2);
    assert_non_null(strstr(err.msg, "schema version 1, older than this harness's"));
    assert_non_null(strstr(err.msg, "run harness record into it once"));
    assert_unchanged(path, before, len);
    free(before);
    assert_int_equal(harness_db_open(path, HARNESS_DB_WRITE, 5, &db, &err), 0);   /* record upgrades it */
    harness_db_close(db);
    assert_int_equal(harness_db_open(path, HARNESS_DB_READ, 5, &db, &err), 0);
    harness_db_close(db);

    snprintf(path, sizeof path, "%s/empty.db", tmp);
    write_file(path, "");
    assert_int_equal(harness_db_open(path, HARNESS_DB_READ, 5, &db, &err), 2);
    assert_non_null(strstr(err.msg, "an empty database (no runs recorded)"));
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_size, 0);
}

/* Another connection holds the write lock: record waits the timeout
 * (about, not much more), then fails 3 saying how long and that nothing
 * was recorded. */
static void test_lock_timeout(void **state)
{
    (void)state;
    harness_db *db = open_db("locked.db");
    harness_db_close(db);
    char path[512];
    snprintf(path, sizeof path, "%s/locked.db", tmp);
    sqlite3 *holder;
    assert_int_equal(sqlite3_open(path, &holder), SQLITE_OK);
    assert_int_equal(sqlite3_exec(holder, "BEGIN EXCLUSIVE", NULL, NULL, NULL), SQLITE_OK);
    harness_error err = {0};
    assert_int_equal(harness_db_open(path, HARNESS_DB_WRITE, 0.2, &db, &err), 0);   /* up to date: no lock */
    char a[512];
    snprintf(a, sizeof a, "%s", experiment("2026-06-01__00-00-00_aaaaaaaa", 1, 4000));
    const char *folders[1] = {a};
    harness_record_result res;
    assert_int_equal(harness_db_record(db, folders, 1, NULL, &res, &err), 3);
    assert_non_null(strstr(err.msg, "database is locked: waited 0.2 s for the lock"));
    assert_non_null(strstr(err.msg, "nothing recorded"));
    assert_true(harness_db_waited_s(db) >= 0.2 && harness_db_waited_s(db) < 1.0);
    assert_int_equal(res.added, 0);
    /* released: the same connection records */
    assert_int_equal(sqlite3_exec(holder, "ROLLBACK", NULL, NULL, NULL), SQLITE_OK);
    assert_int_equal(harness_db_record(db, folders, 1, NULL, &res, &err), 0);
    assert_int_equal(res.added, 1);
    sqlite3_close(holder);
    harness_db_close(db);
}

/* --db-timeout, else HARNESS_DB_TIMEOUT, else 300 s; bad values are 2
 * naming where they came from. */
static void test_timeout_setting(void **state)
{
    (void)state;
    double t;
    harness_error err = {0};
    unsetenv("HARNESS_DB_TIMEOUT");
    assert_int_equal(harness_cli_db_timeout(NULL, &t, &err), 0);
    assert_true(t == HARNESS_DB_TIMEOUT_DEFAULT_S);
    assert_int_equal(harness_cli_db_timeout("12.5", &t, &err), 0);
    assert_true(t == 12.5);
    assert_int_equal(harness_cli_db_timeout("0", &t, &err), 0);
    assert_true(t == 0);
    static const char *const bad[] = {"-1", "abc", "", "5s", "inf", "nan", "86401"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(harness_cli_db_timeout(bad[i], &t, &err), 2);
        assert_non_null(strstr(err.msg, "--db-timeout '"));
    }
    setenv("HARNESS_DB_TIMEOUT", "42", 1);
    assert_int_equal(harness_cli_db_timeout(NULL, &t, &err), 0);
    assert_true(t == 42);
    assert_int_equal(harness_cli_db_timeout("7", &t, &err), 0);   /* the option wins */
    assert_true(t == 7);
    setenv("HARNESS_DB_TIMEOUT", "later", 1);
    assert_int_equal(harness_cli_db_timeout(NULL, &t, &err), 2);
    assert_non_null(strstr(err.msg, "HARNESS_DB_TIMEOUT 'later'"));
    unsetenv("HARNESS_DB_TIMEOUT");
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
        cmocka_unit_test(test_backoff),
        cmocka_unit_test(test_bad_versions),
        cmocka_unit_test(test_reader_never_writes),
        cmocka_unit_test(test_lock_timeout),
        cmocka_unit_test(test_timeout_setting),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
