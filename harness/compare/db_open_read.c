/* db_open_read.c - history and compare --baseline-db open the results
 * database read-only: no journal mode set, no schema upgraded, nothing
 * written, so they work on a database they may not write (a shared,
 * read-only copy) and never change the file a CI job is recording into. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* strdup */
#endif
#include "compare/db_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* 1 when this process may not write the file or its folder. */
static int not_writable(const char *path)
{
    if (access(path, W_OK) != 0)
        return 1;
    char *dir = strdup(path);
    if (!dir)
        return 0;
    char *slash = strrchr(dir, '/');
    int no = slash ? (slash == dir ? access("/", W_OK) : (*slash = '\0', access(dir, W_OK))) : access(".", W_OK);
    free(dir);
    return no != 0;
}

/* 1 when PATH-SUFFIX exists and is not empty: a -wal with frames holds
 * committed runs not yet in the main file, a -journal a write that was
 * interrupted. Either way the main file alone is not the database. */
static int beside(const char *path, const char *suffix)
{
    char file[4200];
    snprintf(file, sizeof file, "%s%s", path, suffix);
    struct stat st;
    return stat(file, &st) == 0 && st.st_size > 0;
}

/* "file:PATH?immutable=1", PATH percent-encoded (a '?' or '#' in a file
 * name would end the path of a URI). NULL: out of memory. */
static char *immutable_uri(const char *path)
{
    size_t n = strlen(path);
    char *uri = malloc(3 * n + 32), *o = uri;
    if (!uri)
        return NULL;
    o += sprintf(o, "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("/-_.~", *p))
            *o++ = (char)*p;
        else
            o += sprintf(o, "%%%02X", *p);
    }
    strcpy(o, "?immutable=1");
    return uri;
}

/* A WAL database in a folder the reader cannot write: SQLite needs the
 * -shm file to read a WAL database and cannot create it, so it refuses
 * ("attempt to write a readonly database"). With no -wal frames and no
 * hot journal the main file holds every committed run, and what this
 * process cannot write is unlikely to change under it, so it is read as
 * immutable (no locks, no -shm). */
static int reopen_immutable(harness_db *db, harness_error *err)
{
    char *uri = immutable_uri(db->path);
    if (!uri)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    sqlite3_close(db->h);
    db->h = NULL;
    int rc = sqlite3_open_v2(uri, &db->h, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    free(uri);
    if (rc != SQLITE_OK)
        return db->h ? harness_db_sqlite_error(db, "cannot open", err)
                     : harness_error_set(err, HARNESS_EXIT_RUNTIME, "%s: cannot open (out of memory)", db->path);
    sqlite3_extended_result_codes(db->h, 1);
    return 0;
}

int harness_db_open_read(harness_db *db, harness_error *err)
{
    if (sqlite3_open_v2(db->path, &db->h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
        return db->h ? harness_db_sqlite_error(db, "cannot open", err)
                     : harness_error_set(err, HARNESS_EXIT_RUNTIME, "%s: cannot open (out of memory)", db->path);
    sqlite3_extended_result_codes(db->h, 1);
    /* A reader waits too: for a writer's recovery of the WAL, or a
     * rollback-journal database's exclusive lock while it commits. */
    sqlite3_busy_handler(db->h, harness_db_wait_busy, &db->wait);
    long long v;
    if (harness_db_read_version(db, &v, err) != 0) {
        int rc = db->last_rc & 0xff;
        if (!((rc == SQLITE_READONLY || rc == SQLITE_CANTOPEN) && db->last_rc != SQLITE_READONLY_ROLLBACK &&
              not_writable(db->path) && !beside(db->path, "-wal") && !beside(db->path, "-journal")))
            return err->code;
        if (reopen_immutable(db, err) != 0 || harness_db_read_version(db, &v, err) != 0)
            return err->code;
    }
    if (v == 0)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: an empty database (no runs recorded); record runs "
                                 "into it first (harness record ... --db %s)", db->path, db->path);
    /* Older: its columns are not those this harness queries, and a reader
     * does not upgrade (that would write under a read command). */
    if (v < HARNESS_DB_SCHEMA_VERSION)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: schema version %lld, older than this harness's %d; "
                                 "history and compare only read a database and never upgrade it: run harness "
                                 "record into it once (with write access) to upgrade it", db->path, v,
                                 HARNESS_DB_SCHEMA_VERSION);
    return 0;
}
