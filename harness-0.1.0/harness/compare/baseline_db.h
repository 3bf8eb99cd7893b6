/* baseline_db.h - the base side of `harness compare --baseline-db`: the
 * recorded runs of each candidate run's series since its last change point
 * (baseline_db.c). */
#ifndef HARNESS_BASELINE_DB_H
#define HARNESS_BASELINE_DB_H

#include "compare/compare.h"
#include "compare/results_db.h"

/* For every run of cand, the runs recorded on `branch` with the same
 * variant key, component config, world size, rank and (when the candidate's
 * summary names it) host, from the series' last change point on (E-divisive,
 * changepoint.h), into *base (a folder-of-experiments side). None at all:
 * 2, naming the database and the branch. */
int harness_compare_side_from_db(harness_db *db, const harness_compare_side *cand, const char *branch,
                                 harness_compare_side *base, harness_error *err);

#endif
