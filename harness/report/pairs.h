/* pairs.h - the pair matrix of a job (folder/job_pairs.h) from each rank's
 * row of send_recv medians (run/comm_log.h), and how the summaries show it:
 * lines in summary.txt and a heat map, pairs.html. */
#ifndef HARNESS_REPORT_PAIRS_H
#define HARNESS_REPORT_PAIRS_H

#include <stdio.h>

#include "folder/job_pairs.h"

/* rows_ns and rows_bytes: n rows of n (rank a's row: its median exchange
 * time with each rank and the size, NAN none). A pair's time is the slower
 * of its two sides (an exchange is done when both are). out->n is 0 when no
 * rank exchanged with another. 0, or -1 out of memory. */
int harness_pairs_compute(const double *rows_ns, const double *rows_bytes, int n, harness_job_pairs *out);

/* A pair's time (NAN: neither side exchanged). */
double harness_pair_ns(const harness_job_pairs *p, int a, int b);

/* summary.txt's lines: the slowest pair against the median pair, and the
 * matrix itself up to 16 ranks. Nothing when p->n is 0. */
void harness_pairs_print(FILE *f, const harness_job_pairs *p);

/* pairs.html: one self-contained page, a cell per pair coloured by its time
 * against the fastest and slowest pairs, the slowest pair outlined and
 * named. malloc'ed; NULL out of memory. */
char *harness_pairs_html(const harness_job_pairs *p, const char *variant_key);

#endif
