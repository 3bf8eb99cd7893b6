/* folder_ranks.c - the ranks of an experiment folder as its file names and
 * status files tell them (folder_ranks.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* strdup, asprintf */
#endif
#include "compare/folder_ranks.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "folder/folder_format.h"
#include "folder/status.h"
#include "util/input_file.h"
#include "util/fsutil.h"
#include "util/process_identity.h"

static int oom(harness_error *err)
{
    return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
}

/* "running" from a process that is gone (util/process_identity.h): the
 * status becomes "killed", and the error says how the reader knows. */
static int settle_running(const harness_status_record *st, harness_rank_files *rf, harness_error *err)
{
    char why[512];
    if (!st->has_writer || !harness_process_gone(&st->writer, why, sizeof why))
        return 0;                  /* written before the writer was recorded, or alive: cannot tell */
    char *status = strdup("killed"), *error = NULL;
    if (!status || asprintf(&error, "it says running, but %s", why) < 0) {
        free(status);
        return oom(err);
    }
    free(rf->status);
    free(rf->error);
    rf->status = status;
    rf->error = error;
    rf->ok = 0;
    return 0;
}

/* 0; 2 for a status file that is not a regular file of sane size; 3 out of memory. */
static int read_status(const char *dir, harness_rank_files *rf, harness_error *err)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, rf->status_file);
    harness_status_record st;
    if (harness_status_read(path, HARNESS_MAX_READ_BACK_BYTES, &st, err) != 0)
        return err->code;
    rf->status = st.status ? st.status : strdup("unreadable");
    /* README: trust a folder only when complete is true */
    rf->ok = st.status && strcmp(st.status, "ok") == 0 && st.complete;
    rf->error = st.error;
    rf->variant_key = st.variant_key;
    st.status = st.error = st.variant_key = NULL;   /* rf holds them now */
    int rc = rf->status ? 0 : oom(err);
    if (rc == 0 && strcmp(rf->status, "running") == 0)
        rc = settle_running(&st, rf, err);
    harness_status_record_free(&st);
    return rc;
}

typedef struct seen { int summary, ws, rank; } seen;

int harness_folder_ranks_read(const char *dir, harness_folder_ranks *out, harness_error *err)
{
    memset(out, 0, sizeof *out);
    DIR *d = opendir(dir);
    if (!d)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: cannot open folder: %s", dir, strerror(errno));
    seen *files = NULL;
    size_t n = 0, cap = 0;
    int status0 = 0, rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        seen s = {0};
        if (strcmp(e->d_name, HARNESS_FILE_STATUS) == 0) {
            status0 = 1;
            continue;
        }
        int kind = harness_rank_file_parse(e->d_name, HARNESS_PREFIX_SUMMARY, &s.ws, &s.rank);
        if (kind)
            s.summary = 1;
        else if (!(kind = harness_rank_file_parse(e->d_name, HARNESS_PREFIX_STATUS, &s.ws, &s.rank)))
            continue;
        if (kind < 0)
            rc = harness_error_set(err, HARNESS_EXIT_USAGE, "%s/%s: a rank or job size over %d in the name; "
                                   "not a file this harness wrote", dir, e->d_name, HARNESS_FOLDER_MAX_RANKS);
        else if (s.ws < 1 || s.ws > HARNESS_FOLDER_MAX_RANKS || s.rank < 0 || s.rank >= s.ws)
            rc = harness_error_set(err, HARNESS_EXIT_USAGE, "%s/%s: rank %d of a job of %d ranks is not a rank "
                                   "this reader takes (0 <= rank < ranks <= %d)", dir, e->d_name, s.rank, s.ws,
                                   HARNESS_FOLDER_MAX_RANKS);
        else if (n && s.ws != files[0].ws)
            rc = harness_error_set(err, HARNESS_EXIT_USAGE, "%s: files of a job of %d ranks and of one of %d (%s); "
                                   "an experiment folder holds one job", dir, files[0].ws, s.ws, e->d_name);
        if (rc == 0 && n == cap) {
            cap = cap ? cap * 2 : 16;
            seen *grown = realloc(files, cap * sizeof *grown);
            if (grown)
                files = grown;
            else
                rc = oom(err);
        }
        if (rc == 0)
            files[n++] = s;
    }
    closedir(d);
    if (rc == 0 && (n || status0)) {
        out->world_size = n ? files[0].ws : 0;
        out->n = n ? (size_t)out->world_size : 1;
        if (!(out->ranks = calloc(out->n, sizeof *out->ranks)))
            rc = oom(err);
    }
    for (size_t r = 0; rc == 0 && r < out->n; r++) {
        out->ranks[r].rank = (int)r;
        harness_status_file_name(out->ranks[r].status_file, sizeof out->ranks[r].status_file, out->world_size, (int)r);
    }
    char *has_status = rc == 0 && out->n ? calloc(out->n, 1) : NULL;
    if (rc == 0 && out->n && !has_status)
        rc = oom(err);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        harness_rank_files *rf = &out->ranks[files[i].rank];
        if (files[i].summary)
            harness_rank_file(rf->summary, sizeof rf->summary, HARNESS_PREFIX_SUMMARY, files[i].ws, rf->rank, "json");
        else if (rf->rank != 0)    /* rank 0's status is status.json */
            has_status[rf->rank] = 1;
    }
    if (rc == 0 && out->n)
        has_status[0] = (char)status0;
    for (size_t r = 0; rc == 0 && r < out->n; r++) {
        if (has_status[r])
            rc = read_status(dir, &out->ranks[r], err);
    }
    free(has_status);
    free(files);
    if (rc != 0)
        harness_folder_ranks_free(out);
    return rc;
}

void harness_folder_ranks_free(harness_folder_ranks *f)
{
    for (size_t i = 0; f->ranks && i < f->n; i++) {
        free(f->ranks[i].status);
        free(f->ranks[i].error);
        free(f->ranks[i].variant_key);
    }
    free(f->ranks);
    memset(f, 0, sizeof *f);
}

const char *harness_rank_files_why(const char *status)
{
    if (!status || strcmp(status, "missing") == 0)
        return "no status file either: it never started, or its files were removed";
    if (strcmp(status, "running") == 0)
        return "killed (SIGKILL, out of memory) or still running";
    if (strcmp(status, "killed") == 0)
        return "killed (SIGKILL, out of memory, a reboot) before writing its summary";
    if (strcmp(status, "crashed") == 0)
        return "crashed before writing its summary";
    if (strcmp(status, "unreadable") == 0)
        return "its status file cannot be read";
    if (strcmp(status, "ok") == 0)
        return "its summary is missing";
    return "stopped before writing its summary";
}

int harness_rank_files_overrules(const harness_rank_files *rf, const char *summary_status)
{
    return rf->status && !rf->ok && strcmp(rf->status, summary_status) != 0;
}

char *harness_rank_files_override(const harness_rank_files *rf, const char *dir, const char *summary_status)
{
    char *msg = NULL;
    const char *why = rf->error ? rf->error
                      : strcmp(rf->status, "running") == 0 ? "killed or still running after writing its summary"
                      : strcmp(rf->status, "unreadable") == 0 ? "not a status file this harness can read"
                      : "it ended so after writing its summary";
    if (asprintf(&msg, "%s/%s says %s, the summary %s: %s", dir, rf->status_file, rf->status, summary_status,
                 why) < 0)
        return NULL;
    return msg;
}

int harness_rank_files_settle(const harness_rank_files *rf, const char *dir, harness_run_summary *r,
                              harness_error *err)
{
    if (!harness_rank_files_overrules(rf, r->status))
        return 0;
    char *error = harness_rank_files_override(rf, dir, r->status);
    char *status = strdup(rf->status);
    if (!error || !status) {
        free(error);
        free(status);
        return oom(err);
    }
    free(r->status);
    free(r->error);
    r->status = status;
    r->error = error;
    return 0;
}
