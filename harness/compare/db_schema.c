/* db_schema.c - opening the results database: pragmas, the schema version
 * (checked before it is used) and the migrations that bring an older
 * database up to date. Readers take the read-only path of db_open_read.c. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* strdup */
#endif
#include "compare/db_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A writer runs PRAGMA quick_check on a database up to this size before
 * writing into it (a few milliseconds): a damaged file is refused rather
 * than written further. Larger ones are checked by reading what a record
 * touches; quick_check reads every page. */
#define QUICK_CHECK_MAX_BYTES (16L << 20)

/* migrations[v] takes a database from schema version v to v + 1. Append
 * only: a released step never changes, a new schema is a new step. */
static const char *const migrations[HARNESS_DB_SCHEMA_VERSION] = {
    /* 0 -> 1 */
    "CREATE TABLE schema_version (version INTEGER NOT NULL);"
    "INSERT INTO schema_version VALUES (0);"
    /* Where a run ran: the series are per machine. */
    "CREATE TABLE machines ("
    "  id INTEGER PRIMARY KEY,"
    "  host TEXT NOT NULL, cpu TEXT NOT NULL, gpu TEXT NOT NULL,"
    "  UNIQUE (host, cpu, gpu));"
    /* One experiment folder: its resolved config and where it came from. */
    "CREATE TABLE experiments ("
    "  id INTEGER PRIMARY KEY,"
    "  name TEXT NOT NULL,"                 /* the folder's name: <date>__<time>_<hash8> */
    "  path TEXT NOT NULL,"                 /* as given to record */
    "  config_hash TEXT NOT NULL,"          /* SHA-256 of the resolved config less its experiment: block */
    "  resolved_config TEXT NOT NULL,"
    "  git_commit TEXT, git_branch TEXT, harness_version TEXT,"
    "  started_at TEXT,"
    "  recorded_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')));"
    /* One rank of an experiment: what history plots and compare judges. */
    "CREATE TABLE runs ("
    "  id INTEGER PRIMARY KEY,"
    "  experiment_id INTEGER NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,"
    "  machine_id INTEGER NOT NULL REFERENCES machines(id),"
    "  summary_sha256 TEXT NOT NULL UNIQUE,"   /* the summary's bytes: recording twice stores once */
    "  variant_key TEXT NOT NULL, component_config TEXT NOT NULL,"
    "  world_size INTEGER NOT NULL CHECK (world_size >= 1),"
    "  rank INTEGER NOT NULL CHECK (rank >= 0 AND rank < world_size),"
    "  status TEXT NOT NULL, validation_failed INTEGER NOT NULL,"
    "  n INTEGER NOT NULL, median REAL, ci_lo REAL, ci_hi REAL, ci_level REAL,"
    "  mean REAL, stddev REAL, min REAL, p90 REAL, p99 REAL, max REAL);"
    "CREATE INDEX runs_series ON runs (machine_id, variant_key, world_size, rank);"
    "CREATE TABLE windows ("
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  idx INTEGER NOT NULL, median REAL NOT NULL,"
    "  PRIMARY KEY (run_id, idx)) WITHOUT ROWID;"
    "CREATE TABLE samples ("
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  idx INTEGER NOT NULL, ns REAL NOT NULL,"
    "  PRIMARY KEY (run_id, idx)) WITHOUT ROWID;",
    /* 1 -> 2: each run's interference (the summary's noise block), so that
     * history can set aside the runs the machine moved (history.c). NULL:
     * unknown - a run recorded before this version, or a summary whose
     * kernel counters could not be read. */
    "ALTER TABLE runs ADD COLUMN noise_bound REAL"          /* noise.median_shift_bound, a share 0..1 */
    "  CHECK (noise_bound IS NULL OR (noise_bound >= 0 AND noise_bound <= 1));"
    "ALTER TABLE runs ADD COLUMN noise_evidence TEXT;",    /* noise.evidence, for people */
    /* 2 -> 3: energy (the summary's energy block; docs/timing-integrity.md,
     * "Energy"), for history --metric energy and compare --baseline-db
     * --metric energy. NULL: not measured - a run recorded before this
     * version, a device without a counter, windows too short to measure. */
    "ALTER TABLE runs ADD COLUMN energy_j_per_step REAL"    /* energy.joules_per_step */
    "  CHECK (energy_j_per_step IS NULL OR energy_j_per_step > 0);"
    "ALTER TABLE runs ADD COLUMN watts REAL CHECK (watts IS NULL OR watts > 0);"   /* energy.watts */
    "ALTER TABLE windows ADD COLUMN energy_j_per_step REAL;", /* timing.windows[].energy.joules_per_step */
};

sqlite3 *harness_db_handle(harness_db *db)
{
    return db->h;
}

const char *harness_db_path(const harness_db *db)
{
    return db->path;
}

double harness_db_waited_s(const harness_db *db)
{
    return db->wait.waited_s;
}

int harness_db_schema_version(harness_db *db)
{
    long long v;
    harness_error ignored = {0};
    return harness_db_read_version(db, &v, &ignored) == 0 ? (int)v : 0;
}

/* Bring the schema to HARNESS_DB_SCHEMA_VERSION, inside the write
 * transaction: the version is read again under the lock, since another
 * record may have upgraded (or created) it since the check outside. */
static int migrate(harness_db *db, void *arg, harness_error *err)
{
    (void)arg;
    long long v;
    if (harness_db_read_version(db, &v, err) != 0)
        return err->code;
    for (; v >= 0 && v < HARNESS_DB_SCHEMA_VERSION; v++) {
        char *msg = NULL, doing[96];
        snprintf(doing, sizeof doing, "upgrading the schema from version %lld to %lld", v, v + 1);
        if (sqlite3_exec(db->h, migrations[v], NULL, NULL, &msg) != SQLITE_OK) {
            harness_db_sqlite_error_rc(db, sqlite3_extended_errcode(db->h), msg, doing, err);
            sqlite3_free(msg);
            return err->code;
        }
        char set[64];
        snprintf(set, sizeof set, "UPDATE schema_version SET version = %lld", v + 1);
        if (sqlite3_exec(db->h, set, NULL, NULL, NULL) != SQLITE_OK)
            return harness_db_sqlite_error(db, doing, err);
    }
    return 0;
}

/* WAL, so history reads while CI records. Changing the journal takes an
 * exclusive lock, so it waits like a write; a database already in WAL is
 * left alone (no lock at all). */
static int set_wal(harness_db *db, harness_error *err)
{
    for (int attempt = 0;; attempt++) {
        sqlite3_stmt *st;
        int rc = sqlite3_prepare_v2(db->h, "PRAGMA journal_mode", -1, &st, NULL);
        int wal = 0;
        if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
            const unsigned char *mode = sqlite3_column_text(st, 0);
            wal = mode && strcmp((const char *)mode, "wal") == 0;
            rc = SQLITE_OK;
        }
        sqlite3_finalize(st);
        if (rc == SQLITE_OK && !wal)
            rc = sqlite3_exec(db->h, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
        if (rc == SQLITE_OK)
            return 0;
        harness_db_sqlite_error(db, "setting the WAL journal", err);
        if (!db->busy || !harness_db_wait_pause(&db->wait, attempt))
            return err->code;
    }
}

/* A small database is checked whole before a record writes into it. */
static int quick_check(harness_db *db, harness_error *err)
{
    struct stat st;
    if (stat(db->path, &st) != 0 || st.st_size > QUICK_CHECK_MAX_BYTES)
        return 0;
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db->h, "PRAGMA quick_check(1)", -1, &q, NULL) != SQLITE_OK)
        return harness_db_sqlite_error(db, "checking the database", err);
    int rc = sqlite3_step(q);
    char first[256] = "";
    if (rc == SQLITE_ROW)
        snprintf(first, sizeof first, "%s", (const char *)sqlite3_column_text(q, 0));
    sqlite3_finalize(q);
    if (rc != SQLITE_ROW)
        return harness_db_sqlite_error(db, "checking the database (PRAGMA quick_check)", err);
    if (strcmp(first, "ok") != 0)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: the database is damaged (PRAGMA quick_check: %s); "
                                 "restore it from a backup, or record into a new --db; nothing recorded", db->path,
                                 first);
    return 0;
}

static int open_write(harness_db *db, harness_error *err)
{
    if (sqlite3_open_v2(db->path, &db->h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK)
        return db->h ? harness_db_sqlite_error(db, "cannot open", err)
                     : harness_error_set(err, HARNESS_EXIT_RUNTIME, "%s: cannot open (out of memory)", db->path);
    sqlite3_extended_result_codes(db->h, 1);
    sqlite3_busy_handler(db->h, harness_db_wait_busy, &db->wait);
    /* Foreign keys are off by default in SQLite and must be asked for on
     * every connection. */
    if (sqlite3_exec(db->h, "PRAGMA foreign_keys = ON", NULL, NULL, NULL) != SQLITE_OK)
        return harness_db_sqlite_error(db, "cannot open", err);
    /* Checked before anything is written: setting the journal rewrites
     * the header, and a file refused must be left as it was. */
    long long v;
    if (harness_db_read_version(db, &v, err) != 0)
        return err->code;
    if (v > 0 && quick_check(db, err) != 0)
        return err->code;
    if (set_wal(db, err) != 0)
        return err->code;
    /* Up to date: no write lock taken, so an open costs other writers nothing. */
    if (v == HARNESS_DB_SCHEMA_VERSION)
        return 0;
    return harness_db_write(db, "upgrading the schema", migrate, NULL, err);
}

int harness_db_open(const char *path, harness_db_mode mode, double lock_timeout_s, harness_db **out,
                    harness_error *err)
{
    *out = NULL;
    struct stat st;
    if (stat(path, &st) != 0) {
        int e = errno;
        /* A path that leads nowhere (absent, a loop of links, a file
         * where a folder should be) is the user's to fix; the rest
         * (permissions, I/O) the machine's. */
        int usage = e == ENOENT || e == ELOOP || e == ENOTDIR || e == ENAMETOOLONG;
        if (e != ENOENT || mode != HARNESS_DB_WRITE)
            return harness_error_set(err, usage ? HARNESS_EXIT_USAGE : HARNESS_EXIT_RUNTIME, "%s: %s%s", path,
                                     strerror(e), e == ENOENT ? "; record runs into it first (harness record "
                                     "... --db)" : "");
    } else if (!S_ISREG(st.st_mode)) {
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: not a file (%s); expected an SQLite results "
                                 "database", path, S_ISDIR(st.st_mode) ? "a folder" : "a device, pipe or socket");
    }
    harness_db *db = calloc(1, sizeof *db);
    if (!db || !(db->path = strdup(path))) {
        free(db);
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    }
    db->mode = mode;
    harness_db_wait_init(&db->wait, lock_timeout_s);
    int rc = mode == HARNESS_DB_WRITE ? open_write(db, err) : harness_db_open_read(db, err);
    if (rc != 0) {
        harness_db_close(db);
        return rc;
    }
    *out = db;
    return 0;
}

void harness_db_close(harness_db *db)
{
    if (!db)
        return;
    sqlite3_close(db->h);
    free(db->path);
    free(db);
}
