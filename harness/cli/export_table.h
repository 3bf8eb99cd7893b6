/* export_table.h - the rows of `harness export`: one per rank and
 * measurement window of each experiment folder, flattened from the
 * summaries' window statistics (never their per-sample arrays), plus the
 * component's config and the environment as columns. */
#ifndef HARNESS_EXPORT_TABLE_H
#define HARNESS_EXPORT_TABLE_H

#include <cjson/cJSON.h>

#include "cli/bench_filter.h"
#include "util/error.h"

typedef struct harness_export_table {
    cJSON *columns;    /* array of names: the fixed ones, then config.*, then env.*, as first seen */
    cJSON *rows;       /* array of objects, name -> number, string, bool or null */
    const harness_bench_filter *filter; /* --filter: only runs whose name matches; NULL all */
    size_t runs_seen;  /* ranks read, kept or not (to tell "filtered out" from "nothing there") */
    int per_run;       /* --rows runs: one row per rank, its whole-run statistics (window: null) */
} harness_export_table;

int harness_export_table_init(harness_export_table *t, harness_error *err);
void harness_export_table_free(harness_export_table *t);

/* Adds the rows of one experiment folder, rank by rank: a rank's
 * summary_ranks_N_rank_r.json, with the status and error of its status
 * file when that says otherwise (the file is the rank's last word), or, for
 * a rank that left no summary, one row from its status file (status
 * "missing" when it has none either). A missing folder, one with neither
 * kind of file, or an unreadable summary is an input error (exit 2),
 * naming the file. */
int harness_export_add_folder(harness_export_table *t, const char *folder, harness_error *err);

#endif
