/* db_transaction.c - a write transaction that waits for the lock and is
 * retried whole when it cannot get it (db_internal.h). */
#include "compare/db_internal.h"

int harness_db_write(harness_db *db, const char *doing, harness_db_body body, void *arg, harness_error *err)
{
    for (int attempt = 0;; attempt++) {
        db->busy = 0;
        int rc;
        char *msg = NULL;
        /* IMMEDIATE: the write lock now, through the busy handler's wait;
         * a deferred transaction that read first could find, on its first
         * write, that another writer moved on, and SQLite fails that at
         * once (SQLITE_BUSY_SNAPSHOT) with no wait at all. */
        if ((rc = sqlite3_exec(db->h, "BEGIN IMMEDIATE", NULL, NULL, &msg)) != SQLITE_OK) {
            harness_db_sqlite_error_rc(db, sqlite3_extended_errcode(db->h), msg, doing, err);
        } else if (body(db, arg, err) == 0) {
            if ((rc = sqlite3_exec(db->h, "COMMIT", NULL, NULL, &msg)) == SQLITE_OK)
                return 0;
            harness_db_sqlite_error_rc(db, sqlite3_extended_errcode(db->h), msg, doing, err);
        }
        sqlite3_free(msg);
        /* After a failed COMMIT the transaction is still open; after a
         * failed BEGIN there is none, and this fails harmlessly. */
        sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
        if (!db->busy)
            return err->code;
        /* Busy although the busy handler waited: it gave up (the timeout
         * is spent), or SQLite failed without calling it (a snapshot or a
         * recovery another process runs). Try the whole transaction again
         * while there is time; the error already says how long was spent. */
        if (!harness_db_wait_pause(&db->wait, attempt)) {
            harness_db_sqlite_error_rc(db, SQLITE_BUSY, NULL, doing, err);
            return err->code;
        }
    }
}
