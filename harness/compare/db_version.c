/* db_version.c - reading the results database's schema version, which
 * opening it for writing (db_schema.c) and for reading (db_open_read.c)
 * both check: kept out of db_schema.c, which calls db_open_read.c, so that
 * the two do not call each other (scripts/arch_figures, "use circles"). */
#include "compare/db_internal.h"

#include <stdio.h>
#include <string.h>

/* 1 when the table exists. */
static int has_table(harness_db *db, const char *name, harness_error *err, int *out)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->h, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", -1, &st,
                           NULL) != SQLITE_OK)
        return harness_db_sqlite_error(db, "reading the schema", err);
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return harness_db_sqlite_error(db, "reading the schema", err);
    *out = rc == SQLITE_ROW;
    return 0;
}

/* What a writer's refusal adds: record stores nothing when it cannot open. */
static const char *nothing_recorded(const harness_db *db)
{
    return db->mode == HARNESS_DB_WRITE ? "; nothing recorded" : "";
}

/* No schema_version table: an empty file is new (0), anything else is not ours. */
static int unversioned(harness_db *db, harness_error *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->h, "SELECT count(*) FROM sqlite_master", -1, &st, NULL) != SQLITE_OK)
        return harness_db_sqlite_error(db, "reading the schema", err);
    int rc = sqlite3_step(st);
    long long tables = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return harness_db_sqlite_error(db, "reading the schema", err);
    if (tables)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: an SQLite database without harness's "
                                 "schema_version table; not a harness results database: name another --db%s",
                                 db->path, nothing_recorded(db));
    return 0;
}

/* The schema_version table is the one fact every other read depends on
 * (a version out of range would index past the migrations), so every way
 * it can be wrong is refused here, naming what is wrong. */
static int damaged_version(harness_db *db, const char *what, harness_error *err)
{
    return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: %s (one row holding the schema's version, 1 to %d, is "
                             "expected): the database is damaged, or was not written by harness; restore it from "
                             "a backup, or record into a new --db%s", db->path, what, HARNESS_DB_SCHEMA_VERSION,
                             nothing_recorded(db));
}

int harness_db_read_version(harness_db *db, long long *v, harness_error *err)
{
    *v = 0;
    int versioned = 0;
    if (has_table(db, "schema_version", err, &versioned) != 0)
        return err->code;
    if (!versioned)
        return unversioned(db, err);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->h, "SELECT version, typeof(version) FROM schema_version LIMIT 3", -1, &st, NULL)
        != SQLITE_OK) {
        int rc = sqlite3_extended_errcode(db->h) & 0xff;
        if (rc != SQLITE_ERROR)    /* damaged, busy, I/O: SQLite's words */
            return harness_db_sqlite_error(db, "reading the schema version", err);
        char what[300];
        snprintf(what, sizeof what, "the schema_version table cannot be read (%s)", sqlite3_errmsg(db->h));
        return damaged_version(db, what, err);
    }
    int rows = 0, rc;
    char type[16] = "", text[64] = "";
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (rows++ == 0) {
            snprintf(type, sizeof type, "%s", (const char *)sqlite3_column_text(st, 1));
            const unsigned char *t = sqlite3_column_text(st, 0);
            snprintf(text, sizeof text, "%s", t ? (const char *)t : "NULL");
            *v = sqlite3_column_int64(st, 0);
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return harness_db_sqlite_error(db, "reading the schema version", err);
    char what[160];
    if (rows == 0)
        return damaged_version(db, "the schema_version table is empty", err);
    if (rows > 1)
        return damaged_version(db, rows > 2 ? "the schema_version table holds 3 or more rows"
                                            : "the schema_version table holds 2 rows", err);
    if (strcmp(type, "integer") != 0) {
        snprintf(what, sizeof what, "the schema version is %s '%s', not an integer", type, text);
        return damaged_version(db, what, err);
    }
    if (*v < 1) {
        snprintf(what, sizeof what, "schema version %lld is out of range", *v);
        return damaged_version(db, what, err);
    }
    if (*v > HARNESS_DB_SCHEMA_VERSION)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: written by a newer harness (schema version %lld; "
                                 "this harness reads up to %d); use that harness or a newer one, or another "
                                 "--db%s", db->path, *v, HARNESS_DB_SCHEMA_VERSION, nothing_recorded(db));
    return 0;
}
