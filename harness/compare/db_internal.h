/* db_internal.h - the results database's connection, shared by the files
 * that open it (db_schema.c, db_open_read.c), write it (db_transaction.c,
 * db_record.c) and turn SQLite's failures into harness errors
 * (db_error.c). Not for readers outside compare/db_*.c: they use
 * results_db.h. */
#ifndef HARNESS_DB_INTERNAL_H
#define HARNESS_DB_INTERNAL_H

#include <sqlite3.h>

#include "compare/db_wait.h"
#include "compare/results_db.h"

struct harness_db {
    sqlite3 *h;
    char *path;
    harness_db_mode mode;
    harness_db_wait wait;
    int busy;                      /* the last failure was SQLITE_BUSY or SQLITE_LOCKED: a retry may succeed */
    int last_rc;                   /* the last failure's extended result code */
};

/* harness_db_sqlite_error (results_db.h) for a failure SQLite reported as
 * `ext` with message `msg` (sqlite3_exec's; NULL: SQLite's words for
 * `ext`). Sets db->busy and db->last_rc. */
int harness_db_sqlite_error_rc(harness_db *db, int rc, const char *msg, const char *doing, harness_error *err);

/* Run body in one write transaction taken up front (BEGIN IMMEDIATE: the
 * write lock first, so two writers never deadlock upgrading a read), and
 * commit. When the lock is busy past SQLite's wait, roll back, back off
 * and run the whole transaction again, until the connection's timeout is
 * spent. body must be safe to run again from the start. */
typedef int (*harness_db_body)(harness_db *db, void *arg, harness_error *err);
int harness_db_write(harness_db *db, const char *doing, harness_db_body body, void *arg, harness_error *err);

/* Read and check the stored schema version (one row, an integer from 1 to
 * the newest this harness knows): *v is 0 for a database without any
 * table (new), else the version. Errors: 2 naming the file and what is
 * wrong with the table. */
int harness_db_read_version(harness_db *db, long long *v, harness_error *err);

/* Open db->path for reading only (db_open_read.c): never written, no
 * journal mode set, no schema upgraded; a database in a folder this
 * process cannot write is read as it stands. */
int harness_db_open_read(harness_db *db, harness_error *err);

#endif
