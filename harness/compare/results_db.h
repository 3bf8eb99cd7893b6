/* results_db.h - the results database of `harness record` (SQLite): one row
 * per recorded run (a rank of an experiment), with its machine, commit,
 * variant, config, statistics, interference bound, windows and every
 * per-step sample, so that
 * history and compare --baseline-db can judge runs, not steps.
 *
 * The schema has a version (table schema_version) and a list of migrations;
 * opening a database brings an older one up to date in one transaction and
 * refuses a newer one. Foreign keys are on, the journal is WAL (readers do
 * not block the recorder), and a record is one transaction: all of its runs
 * or none, retried whole while another writer holds the lock (db_wait.h). */
#ifndef HARNESS_RESULTS_DB_H
#define HARNESS_RESULTS_DB_H

#include <stddef.h>

#include "util/error.h"

/* The schema this harness writes: 2 added runs.noise_bound and
 * runs.noise_evidence, 3 runs.energy_j_per_step, runs.watts and
 * windows.energy_j_per_step (NULL for the runs recorded before). */
#define HARNESS_DB_SCHEMA_VERSION 3

typedef struct harness_db harness_db;

/* Writers (record) open the file read-write, create it when absent, set the
 * WAL journal and upgrade an older schema; readers (history, compare
 * --baseline-db) open it read-only and never change it: an older schema is
 * refused (2, "run harness record once to upgrade"), not upgraded. */
typedef enum harness_db_mode { HARNESS_DB_READ = 0, HARNESS_DB_WRITE = 1 } harness_db_mode;

/* Open. lock_timeout_s: the total time this connection waits for another
 * process's lock, over all its statements and retries (db_wait.h; the CLI
 * reads --db-timeout or HARNESS_DB_TIMEOUT). Errors, each naming the path:
 * a path that cannot be opened or created (3), a file that is not an
 * SQLite database, a damaged one, a schema_version table that is missing,
 * empty, of several rows or out of range, a schema newer than this harness
 * or, for a reader, older (2), a lock held past the timeout (3). */
int harness_db_open(const char *path, harness_db_mode mode, double lock_timeout_s, harness_db **out,
                    harness_error *err);
void harness_db_close(harness_db *db);

/* The version stored in the database (0 for an empty file or one whose
 * version cannot be read). */
int harness_db_schema_version(harness_db *db);

/* Seconds this connection has spent waiting for other processes' locks. */
double harness_db_waited_s(const harness_db *db);

/* What `record` stores beside the summaries. NULL: unknown. */
typedef struct harness_record_options {
    const char *commit;            /* default: the summary's env.git_commit */
    const char *branch;
} harness_record_options;

typedef struct harness_record_result {
    size_t added;                  /* runs (ranks) stored */
    size_t not_ok;                 /* of them, runs history leaves out: not status ok, failed validation, no samples */
    size_t already;                /* runs found already stored (same summary bytes) */
    size_t folders;                /* experiment folders read (folders of them expanded) */
} harness_record_result;

/* Record the experiment folders (each holds resolved_config.yaml and its
 * summary_ranks_N_rank_r.json files; an argument may also be a folder of
 * them, as compare takes) in one transaction: every folder is
 * read and checked first, so a bad folder (2, naming it) stores nothing, and
 * a failure while writing rolls everything back (3). A run whose summary
 * bytes are already stored is counted in `already` and not stored again. */
int harness_db_record(harness_db *db, const char *const *folders, size_t n, const harness_record_options *o,
                      harness_record_result *res, harness_error *err);

/* The last failed SQLite call on db as an error naming the file and what
 * was being done (`doing`): a damaged file or one that is not a database
 * is the input's fault (2, with what to do), a lock held past the timeout,
 * a full disk, a permission or I/O the machine's (3). A writer's message
 * ends "nothing recorded". Returns the code. */
int harness_db_sqlite_error(harness_db *db, const char *doing, harness_error *err);

/* The underlying handle, for readers in compare/ (history) and tests. */
struct sqlite3;
struct sqlite3 *harness_db_handle(harness_db *db);
const char *harness_db_path(const harness_db *db);

#endif
