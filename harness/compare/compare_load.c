/* compare_load.c - the reading side of `harness compare` (docs/ARCHITECTURE.md section 8):
 * what it judges of a summary the folder stage read (folder/rank_summary.h),
 * and finding the summaries of one side: an experiment folder or a folder of
 * them, searched to a few levels with folder names in natural order (digit
 * runs compared as numbers, so that newer folders sort later). Matching runs
 * and judging them is in compare.c. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* open_memstream, strndup, asprintf, before any system header */
#endif
#include "compare/compare.h"
#include "compare/compare_internal.h"
#include "util/input_file.h"
#include "compare/experiment_folders.h"
#include "compare/folder_ranks.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "folder/folder_format.h"


/* ---- one summary: read by the folder stage, judged here -------------------- */

void harness_run_summary_free(harness_run_summary *r)
{
    harness_rank_summary_free(r);
}

/* What compare (and record, which stores what history judges) will not
 * take of a summary the folder stage read whole: a run that measured an
 * impossible figure (its figures say a measurement or the component is
 * wrong, so any verdict on them would be too; a run kept with
 * --allow-above-peak is judged, and said to be), and a run said "ok" that
 * kept no samples. Exit 2, naming the file. */
static int judgeable(const harness_run_summary *r, harness_error *err)
{
    if (r->impossible_message && !r->impossible_allowed_flag)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: %s. Not judged: a figure the hardware cannot reach "
                                 "makes every verdict on the run wrong too (a run made with --allow-above-peak is "
                                 "judged, and said to be)", r->path, r->impossible_message);
    if (r->n_samples == 0 && strcmp(r->status, "ok") == 0)
        return harness_error_set(err, HARNESS_EXIT_USAGE, "%s: timing.samples: empty in a run whose status is "
                                 "\"ok\"; nothing to compare", r->path);
    return 0;
}

int harness_run_summary_parse(const char *path, const char *text, size_t len, harness_run_summary *out,
                              harness_error *err)
{
    int rc = harness_rank_summary_parse(path, text, len, 0, out, err);
    if (rc == 0 && (rc = judgeable(out, err)) != 0)
        harness_rank_summary_free(out);
    return rc;
}

int harness_run_summary_load(const char *path, harness_run_summary *out, harness_error *err)
{
    int rc = harness_rank_summary_read(path, 0, out, err);
    if (rc == 0 && (rc = judgeable(out, err)) != 0)
        harness_rank_summary_free(out);
    return rc;
}

void harness_run_summaries_note_allowed(const harness_run_summary *runs, size_t n, const char *command, FILE *f)
{
    for (size_t i = 0; i < n; i++)
        if (runs[i].impossible_allowed)
            fprintf(f, "harness: warning: %s: %s: judged although its run measured an impossible figure, kept by "
                    "--allow-above-peak: %s\n", command, runs[i].folder, runs[i].impossible_allowed);
}

/* ---- one side: a folder of summaries, or of experiment folders --------------- */

int harness_compare_side_add(harness_compare_side *side, harness_run_summary *run, harness_error *err)
{
    if (side->n_runs == side->cap) {
        size_t ncap = side->cap ? side->cap * 2 : 8;
        harness_run_summary *grown = realloc(side->runs, ncap * sizeof *grown);
        if (!grown)
            return harness_cmp_oom(err);
        side->runs = grown;
        side->cap = ncap;
    }
    side->runs[side->n_runs++] = *run;
    memset(run, 0, sizeof *run);
    return 0;
}

const char *harness_summary_bench_name(const char *experiment, const char *key, const cJSON *config, char *buf,
                                       size_t cap)
{
    size_t len = (size_t)snprintf(buf, cap, "%s %s", experiment ? experiment : "?", key ? key : "?");
    for (const cJSON *p = cJSON_IsObject(config) ? config->child : NULL; p && len < cap; p = p->next) {
        char *v = cJSON_IsString(p) ? NULL : cJSON_PrintUnformatted(p);
        len += (size_t)snprintf(buf + len, cap - len, " %s=%s", p->string, v ? v : p->valuestring);
        free(v);
    }
    return buf;
}

const char *harness_run_summary_name(const harness_run_summary *r, char *buf, size_t cap)
{
    return harness_summary_bench_name(r->experiment_name, r->variant_key, r->config, buf, cap);
}

size_t harness_compare_side_keep(harness_compare_side *side, int (*keep)(const char *name, void *arg), void *arg)
{
    char name[1024];
    size_t k = 0;
    for (size_t i = 0; i < side->n_runs; i++) {
        if (keep(harness_run_summary_name(&side->runs[i], name, sizeof name), arg))
            side->runs[k++] = side->runs[i];
        else
            harness_run_summary_free(&side->runs[i]);
    }
    side->n_runs = k;
    k = 0;
    for (size_t i = 0; i < side->n_incomplete; i++) {
        harness_incomplete_run *r = &side->incomplete[i];
        snprintf(name, sizeof name, "? %s", r->variant_key ? r->variant_key : "");
        if (!r->variant_key || keep(name, arg)) {
            side->incomplete[k++] = *r;
            continue;
        }
        free(r->folder);
        free(r->status);
        free(r->error);
        free(r->variant_key);
    }
    side->n_incomplete = k;
    return side->n_runs + side->n_incomplete;
}

void harness_compare_side_free(harness_compare_side *side)
{
    if (!side)
        return;
    for (size_t i = 0; i < side->n_runs; i++)
        harness_run_summary_free(&side->runs[i]);
    free(side->runs);
    for (size_t i = 0; i < side->n_incomplete; i++) {
        free(side->incomplete[i].folder);
        free(side->incomplete[i].status);
        free(side->incomplete[i].error);
        free(side->incomplete[i].variant_key);
    }
    free(side->incomplete);
    free(side->root);
    memset(side, 0, sizeof *side);
}

/* Rank rf of dir left no summary: keep what its status file says, so that
 * the comparison fails rather than skip a killed rank. */
static int add_incomplete(harness_compare_side *side, const char *dir, int world_size, const harness_rank_files *rf,
                          harness_error *err)
{
    harness_incomplete_run run = {
        .folder = strdup(dir), .rank = rf->rank, .world_size = world_size,
        .status = strdup(rf->status ? rf->status : "missing"),
        .error = rf->error ? strdup(rf->error) : NULL,
        .variant_key = rf->variant_key ? strdup(rf->variant_key) : NULL,
    };
    /* doubling: a folder of a 40,000-rank job must not cost 40,000 copies of the list */
    harness_incomplete_run *grown = side->incomplete;
    if (side->n_incomplete == side->incomplete_cap) {
        size_t cap = side->incomplete_cap ? 2 * side->incomplete_cap : 8;
        if ((grown = realloc(side->incomplete, cap * sizeof *grown)) != NULL) {
            side->incomplete = grown;
            side->incomplete_cap = cap;
        }
    }
    if (!grown || !run.folder || !run.status || (rf->error && !run.error) || (rf->variant_key && !run.variant_key)) {
        free(run.folder), free(run.status), free(run.error), free(run.variant_key);
        return harness_cmp_oom(err);
    }
    side->incomplete[side->n_incomplete++] = run;
    return 0;
}

/* Every rank of the experiment folder dir: its summary, settled by its
 * status file, or an incomplete run. */
static int load_experiment(harness_compare_side *side, const char *dir, const harness_folder_ranks *fr,
                           harness_error *err)
{
    int rc = 0;
    for (size_t i = 0; i < fr->n && rc == 0; i++) {
        const harness_rank_files *rf = &fr->ranks[i];
        char *path = NULL;
        if (rf->summary[0] && asprintf(&path, "%s/%s", dir, rf->summary) < 0)
            path = NULL;
        struct stat st;
        if (rf->summary[0] && !path) {
            rc = harness_cmp_oom(err);
        } else if (path && lstat(path, &st) == 0) {
            /* Whatever it is: the reader refuses what is not a regular
             * file (exit 2, naming it) rather than call the rank missing. */
            harness_run_summary run;
            rc = harness_run_summary_load(path, &run, err);
            if (rc == 0 && (rc = harness_rank_files_settle(rf, dir, &run, err)) == 0)
                rc = harness_compare_side_add(side, &run, err);
            harness_run_summary_free(&run);   /* zeroed once added or failed to load */
        } else {
            rc = add_incomplete(side, dir, fr->world_size, rf, err);
        }
        free(path);
    }
    return rc;
}

int harness_compare_side_load(const char *root, harness_compare_side *side, harness_error *err)
{
    memset(side, 0, sizeof *side);
    harness_experiment_folders found;
    if (harness_experiment_folders_find(root, &found, err) != 0)
        return err->code;
    int rc = (side->root = strdup(root)) ? 0 : harness_cmp_oom(err);
    side->is_parent = !found.root_is_experiment;
    for (size_t i = 0; rc == 0 && i < found.n; i++) {
        harness_folder_ranks fr;
        rc = harness_folder_ranks_read(found.paths[i], &fr, err);
        if (rc == 0)
            rc = load_experiment(side, found.paths[i], &fr, err);
        harness_folder_ranks_free(&fr);
    }
    harness_experiment_folders_free(&found);
    if (rc == 0 && side->n_runs == 0 && side->n_incomplete == 0)
        rc = harness_error_set(err, HARNESS_EXIT_USAGE, "%s: no summary_ranks_N_rank_r.json in this folder or its "
                               "subfolders (to depth %d); expected an experiment folder written by `harness run` or a "
                               "folder of them", root, HARNESS_EXPERIMENT_SEARCH_DEPTH);
    if (rc != 0)
        harness_compare_side_free(side);
    return rc;
}
