/* folder_ranks.h - what an experiment folder's own files say of each rank:
 * its summary_ranks_N_rank_r.json, and the status file the rank rewrites as
 * its last act (status.json for rank 0, status_ranks_N_rank_r.json for the
 * others; README "When a run goes wrong"). compare, record and export all
 * read folders through it, so that all three see a rank that left no
 * summary, and believe a rank's status file over its summary's "status":
 * a rank killed or failed after writing its summary says so only there. */
#ifndef HARNESS_FOLDER_RANKS_H
#define HARNESS_FOLDER_RANKS_H

#include "compare/compare.h"
#include "util/error.h"
#include "folder/folder_format.h"

typedef struct harness_rank_files {
    int rank;
    char summary[48];              /* its summary's file name, "" when there is none */
    char status_file[48];          /* its status file's name, whether or not it exists */
    char *status;                  /* the status file's status; "unreadable"; NULL when there is no status file */
    int ok;                        /* the status file says ok and complete */
    char *error;                   /* the status file's error, or NULL */
    char *variant_key;             /* the status file's variant_key, or NULL */
} harness_rank_files;

typedef struct harness_folder_ranks {
    int world_size;                /* N of the folder's file names; 0 when none says (status.json alone) */
    harness_rank_files *ranks;     /* ranks 0..world_size-1, or rank 0 alone when world_size is 0 */
    size_t n;                      /* 0: not an experiment folder (no summary, no status file) */
} harness_folder_ranks;

/* Read dir's file names and status files. 0 (n == 0 when dir is not an
 * experiment folder), 2 (a folder that cannot be opened, files of two world
 * sizes, a rank beyond its world size, a world size above
 * HARNESS_FOLDER_MAX_RANKS; named), 3 (out of memory). */
int harness_folder_ranks_read(const char *dir, harness_folder_ranks *out, harness_error *err);
void harness_folder_ranks_free(harness_folder_ranks *f);

/* The status file's last word on a rank whose summary r was loaded from
 * dir: when it says other than ok and other than the summary, r->status
 * becomes the file's and r->error says which file said it over the
 * summary's own status. 0, or 3 out of memory. */
int harness_rank_files_settle(const harness_rank_files *rf, const char *dir, harness_run_summary *r,
                              harness_error *err);

/* For readers that keep the summary as JSON (export): whether the status
 * file overrules a summary that says summary_status, and the error text
 * that settle gives then (malloc'ed; NULL out of memory). */
int harness_rank_files_overrules(const harness_rank_files *rf, const char *summary_status);
char *harness_rank_files_override(const harness_rank_files *rf, const char *dir, const char *summary_status);

/* What a rank's status means when it left no summary ("running": "killed
 * (SIGKILL, out of memory) or still running"); NULL or "missing": no status
 * file. */
const char *harness_rank_files_why(const char *status);

#endif
