/* db_schema.c - opening the results database: pragmas, the schema version
 * and the migrations that bring an older database up to date. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* strdup */
#endif
#include "compare/results_db.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct harness_db {
    sqlite3 *h;
    char *path;
};

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

/* A failed SQLite call as an error naming the database: a file that is not
 * a database is the user's input (2), a busy or unwritable one is the
 * machine's (3). */
static int db_error(harness_db *db, const char *doing, harness_error *err)
{
    int rc = sqlite3_extended_errcode(db->h) & 0xff;
    int code = rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT ? HARNESS_EXIT_USAGE : HARNESS_EXIT_RUNTIME;
    const char *hint = rc == SQLITE_BUSY || rc == SQLITE_LOCKED ? "; another process holds the database, try again"
                       : code == HARNESS_EXIT_USAGE ? "; not a harness results database (or a damaged one)"
                                                    : "";
    return harness_error_set(err, code, "%s: %s: %s%s", db->path, doing, sqlite3_errmsg(db->h), hint);
}

int harness_db_schema_version(harness_db *db)
{
    sqlite3_stmt *st;
    int v = 0;
    if (sqlite3_prepare_v2(db->h, "SELECT version FROM schema_version", -1, &st, NULL) != SQLITE_OK)
        return 0;
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* 1 when the table exists. */
static int has_table(harness_db *db, const char *name, harness_error *err, int *out)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->h, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", -1, &st,
                           NULL) != SQLITE_OK)
        return db_error(db, "reading the schema", err);
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return db_error(db, "reading the schema", err);
    *out = rc == SQLITE_ROW;
    return 0;
}

/* Bring the schema to HARNESS_DB_SCHEMA_VERSION in one transaction. */
static int migrate(harness_db *db, harness_error *err)
{
    if (sqlite3_exec(db->h, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        return db_error(db, "starting the schema check", err);
    int versioned = 0, v = 0;
    if (has_table(db, "schema_version", err, &versioned) != 0) {
        sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
        return err->code;
    }
    if (versioned) {
        v = harness_db_schema_version(db);
    } else {
        /* No version table: an empty file is new, anything else is not ours. */
        sqlite3_stmt *st;
        int other = 0;
        if (sqlite3_prepare_v2(db->h, "SELECT count(*) FROM sqlite_master", -1, &st, NULL) == SQLITE_OK) {
            if (sqlite3_step(st) == SQLITE_ROW)
                other = sqlite3_column_int(st, 0);
            sqlite3_finalize(st);
        }
        if (other) {
            sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
            return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: an SQLite database without harness's "
                                     "schema_version table; not a harness results database", db->path);
        }
    }
    if (v > HARNESS_DB_SCHEMA_VERSION) {
        sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: written by a newer harness (schema version %d; "
                                 "this harness reads up to %d); use that harness or a newer one, or another "
                                 "--db", db->path, v, HARNESS_DB_SCHEMA_VERSION);
    }
    for (; v < HARNESS_DB_SCHEMA_VERSION; v++) {
        char *msg = NULL;
        if (sqlite3_exec(db->h, migrations[v], NULL, NULL, &msg) != SQLITE_OK) {
            harness_error_set(err, HARNESS_EXIT_RUNTIME, "%s: migrating the schema from version %d to %d: %s",
                              db->path, v, v + 1, msg ? msg : "?");
            sqlite3_free(msg);
            sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
            return err->code;
        }
        char set[64];
        snprintf(set, sizeof set, "UPDATE schema_version SET version = %d", v + 1);
        if (sqlite3_exec(db->h, set, NULL, NULL, NULL) != SQLITE_OK) {
            db_error(db, "migrating the schema", err);
            sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
            return err->code;
        }
    }
    if (sqlite3_exec(db->h, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        db_error(db, "committing the schema", err);
        sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
        return err->code;
    }
    return 0;
}

int harness_db_open(const char *path, int create, harness_db **out, harness_error *err)
{
    *out = NULL;
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno != ENOENT || !create)
            return harness_error_set(err, errno == ENOENT ? HARNESS_EXIT_USAGE : HARNESS_EXIT_RUNTIME,
                                     "%s: %s%s", path, strerror(errno),
                                     errno == ENOENT ? "; record runs into it first (harness record ... --db)" : "");
    } else if (!S_ISREG(st.st_mode)) {
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: not a file; expected an SQLite results database",
                                 path);
    }
    harness_db *db = calloc(1, sizeof *db);
    if (!db || !(db->path = strdup(path))) {
        free(db);
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    }
    int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(path, &db->h, flags, NULL) != SQLITE_OK) {
        int rc = db->h ? db_error(db, "cannot open", err)
                       : harness_error_set(err, HARNESS_EXIT_RUNTIME, "%s: cannot open", path);
        harness_db_close(db);
        return rc;
    }
    sqlite3_busy_timeout(db->h, 5000);
    sqlite3_extended_result_codes(db->h, 1);
    /* WAL: history can read while CI records; foreign keys are off by
     * default in SQLite and must be asked for on every connection. */
    if (sqlite3_exec(db->h, "PRAGMA foreign_keys = ON", NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(db->h, "PRAGMA journal_mode = WAL", NULL, NULL, NULL) != SQLITE_OK) {
        int rc = db_error(db, "cannot open", err);
        harness_db_close(db);
        return rc;
    }
    /* Up to date: no write lock, so history reads while CI records. */
    int versioned = 0;
    if (has_table(db, "schema_version", err, &versioned) != 0) {
        harness_db_close(db);
        return err->code;
    }
    if (versioned && harness_db_schema_version(db) == HARNESS_DB_SCHEMA_VERSION) {
        *out = db;
        return 0;
    }
    if (migrate(db, err) != 0) {
        harness_db_close(db);
        return err->code;
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
