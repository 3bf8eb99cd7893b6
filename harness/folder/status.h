/* status.h - the experiment folder's status.json (and a rank's
 * status_ranks_N_rank_r.json), its writer and its one reader: written the moment
 * the folder exists ("running") and rewritten when the run ends, so a folder
 * whose process died says so to any tool that reads it, whatever else is
 * missing. Everything here is async-signal-safe once the file is set up: a
 * crash handler, a second Ctrl-C or an exit() from a plugin rewrite it with
 * open/write/rename only, no malloc and no stdio. */
#ifndef HARNESS_FOLDER_STATUS_H
#define HARNESS_FOLDER_STATUS_H

#include <stdint.h>

#include "util/error.h"
#include "util/process_identity.h"

/* What status.json holds; strings may be NULL (written as null). */
typedef struct harness_status {
    const char *status;            /* running | ok | failed | validation_failed | interrupted | crashed | timed_out |
                                    * impossible_figure */
    int exit_code;                 /* -1 while running */
    int signal;                    /* the signal that ended the run, or 0 */
    const char *error;             /* why, when not ok */
    const char *variant_key;
    const char *callback;          /* create | check | step | destroy, for crashes and timeouts */
    const char *phase;             /* warmup | wait | measurement, when callback is step */
    int window;                    /* 0-based, read only in the wait and measurement phases */
    int64_t step;                  /* index within the phase (the window's, past warmup), or -1 */
    int summaries;                 /* the summaries were written (with whatever was measured) */
} harness_status;

/* Bytes kept free next to status.json, so that the final status can be
 * written on a full disk (harness_status_file_write frees them first). */
#define HARNESS_STATUS_RESERVE_BYTES (64 * 1024)

typedef struct harness_status_file {
    char path[4400];               /* <dir>/<name>: status.json, or one per rank */
    char tmp[4416];                /* <dir>/.<name>.tmp */
    char reserve[4416];            /* <dir>/.<name>.reserve, removed before the final write */
    int has_reserve;
    harness_process_identity writer;  /* taken once: writes must stay async-signal-safe */
} harness_status_file;

/* Name the files in `dir` (`name`: harness_status_file_name's), claim
 * the reserve, and write status "running". Fails (err set) when the folder
 * cannot take even that. */
int harness_status_file_create(harness_status_file *f, const char *dir, const char *name, const char *variant_key,
                               harness_error *err);

/* Rewrite status.json (async-signal-safe). `final` releases the reserve
 * first. Returns 0, or the errno of the write that failed. */
int harness_status_file_write(harness_status_file *f, const harness_status *st, int final);

/* ---- reading (not async-signal-safe: cJSON) ---- */

/* What a reader learns from a status file. A status file is read
 * leniently, unlike a summary: it is what is left of a run that may have
 * died at any point, so a file that is not JSON or has no status string is
 * a rank in an unknown state ("unreadable"), not an input error. */
typedef struct harness_status_record {
    char *status;                  /* its status, or NULL: unreadable */
    int complete;                  /* complete: true (trust the rank's summary only with status ok) */
    char *error;                   /* NULL also for "" */
    char *variant_key;             /* NULL also for "" */
    int has_writer;                /* pid and host were written (writer is the process that wrote it) */
    harness_process_identity writer;
} harness_status_record;

/* Reads the status file at path into *out. 0 (status NULL when the file
 * could not be read or parsed), 2 for a FIFO, a device or an oversized file
 * (hostile: named in err), 3 out of memory. cap: the most bytes read. */
int harness_status_read(const char *path, size_t cap, harness_status_record *out, harness_error *err);
void harness_status_record_free(harness_status_record *r);

#endif
