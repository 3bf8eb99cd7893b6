/* db_error.c - SQLite's failures on the results database as harness
 * errors: the file, what was being done, SQLite's words, and what to do
 * (db_internal.h). */
#include "compare/db_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* What to do about a failure of this class, into buf; "" when SQLite's
 * words say it. */
static const char *hint(const harness_db *db, int rc, int ext, char *buf, size_t cap)
{
    switch (rc) {
    case SQLITE_NOTADB:
        return "; not a harness results database, or a damaged one: name another --db, or restore it from a backup";
    case SQLITE_CORRUPT:
        snprintf(buf, cap, "; the database is damaged: restore it from a backup (sqlite3 %s 'PRAGMA "
                 "integrity_check' says what is damaged)", db->path);
        return buf;
    case SQLITE_FULL:
        return "; free space on its file system, or record into a database elsewhere";
    case SQLITE_IOERR:
        /* SQLite's "disk I/O error" hides the cause; the system's says it. */
        if (db->h && sqlite3_system_errno(db->h) == EFBIG)
            return " (File too large: the file-size limit, ulimit -f, was reached); raise the limit, or record "
                   "into a database elsewhere";
        if (db->h && sqlite3_system_errno(db->h)) {
            snprintf(buf, cap, " (%s)", strerror(sqlite3_system_errno(db->h)));
            return buf;
        }
        return "";
    case SQLITE_READONLY:
        if (ext == SQLITE_READONLY_ROLLBACK) {
            snprintf(buf, cap, "; a writer was interrupted and left a hot journal (%s-journal) that only a writer "
                     "can roll back: run harness record into it once, with write access", db->path);
            return buf;
        }
        return db->mode == HARNESS_DB_WRITE ? "; record needs write access to the file and to its folder (for "
                                              "the -wal and -shm files beside it)"
                                            : "";
    case SQLITE_CANTOPEN:
        return db->mode == HARNESS_DB_WRITE ? "; check that its folder exists and is writable" : "";
    default:
        return "";
    }
}

int harness_db_sqlite_error_rc(harness_db *db, int ext, const char *msg, const char *doing, harness_error *err)
{
    int rc = ext & 0xff;
    db->busy = rc == SQLITE_BUSY || rc == SQLITE_LOCKED;
    db->last_rc = ext;
    const char *tail = db->mode == HARNESS_DB_WRITE ? "; nothing recorded" : "";
    if (db->busy)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "%s: %s: database is locked: waited %.1f s for the "
                                 "lock (the limit, --db-timeout or HARNESS_DB_TIMEOUT, is %g s) while another "
                                 "process held it%s; try again, raise the limit, or find the holder (fuser %s)",
                                 db->path, doing, db->wait.waited_s, db->wait.timeout_s, tail, db->path);
    /* A file that is not a database, or a damaged one, is the input's
     * fault (2); the rest (permissions, a full disk, I/O) the machine's (3). */
    int code = rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT ? HARNESS_EXIT_USAGE : HARNESS_EXIT_RUNTIME;
    char buf[1200];
    return harness_error_set(err, code, "%s: %s: %s%s%s", db->path, doing, msg ? msg : sqlite3_errstr(ext),
                             hint(db, rc, ext, buf, sizeof buf), tail);
}

int harness_db_sqlite_error(harness_db *db, const char *doing, harness_error *err)
{
    return harness_db_sqlite_error_rc(db, sqlite3_extended_errcode(db->h), sqlite3_errmsg(db->h), doing, err);
}
