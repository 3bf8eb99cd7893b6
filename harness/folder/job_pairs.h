/* job_pairs.h - the pair matrix of a job's summary.json ("pairs"): every
 * pair of ranks that exchanged with send_recv (plugin ABI 2.5), each rank's
 * median time of its exchanges with each other rank, and the slowest pair.
 * report/pairs.c computes it from the ranks' rows; this file encodes it.
 * Absent (or null) in the file: no rank exchanged with another. */
#ifndef HARNESS_FOLDER_JOB_PAIRS_H
#define HARNESS_FOLDER_JOB_PAIRS_H

#include <cjson/cJSON.h>

#include "util/error.h"

typedef struct harness_job_pairs {
    int n;                         /* ranks: median_ns is n x n */
    double bytes;                  /* one exchange's size each way */
    double *median_ns;             /* [a * n + b]: rank a's median exchange with b; NAN none */
    int slowest_a, slowest_b;      /* a < b; -1: no pair */
    double slowest_ns;             /* that pair's time: the slower of its two sides */
    double median_pair_ns;         /* the median over the pairs of their times */
} harness_job_pairs;

/* "pairs" as an object (NULL out of memory). */
cJSON *harness_job_pairs_json(const harness_job_pairs *p);

/* "pairs" from its object (absent or null: out->n 0): 0, or 2 naming the
 * file and the key, 3 out of memory. */
int harness_job_pairs_read(const cJSON *o, const char *path, harness_job_pairs *out, harness_error *err);

void harness_job_pairs_free(harness_job_pairs *p);

#endif
