/* baseline_run.h - one run recorded in the results database as the folder
 * stage's rank summary record (folder/rank_summary.h), filled straight
 * from its rows: the base runs of --baseline-db are judged by the same code
 * as runs read from folders, with no JSON in between. */
#ifndef HARNESS_BASELINE_RUN_H
#define HARNESS_BASELINE_RUN_H

#include "compare/compare.h"
#include "compare/results_db.h"

/* Run `id` of the database, of the series of `like` (its variant key,
 * config, rank and world size, which the query matched), named `path` in
 * messages and reports. Status "ok" (the query keeps only those); samples,
 * window medians and energy as recorded. 0, or 2/3 with *err set (a
 * damaged page must not become a base of fewer samples). */
int harness_baseline_run_read(harness_db *db, long long id, const harness_run_summary *like, const char *path,
                              harness_run_summary *out, harness_error *err);

#endif
