/* comm_report.h - the communication log (run/comm_log.h) in the summaries:
 * a table per operation, dtype and size, as nccl-tests prints one. */
#ifndef HARNESS_COMM_REPORT_H
#define HARNESS_COMM_REPORT_H

#include <stdio.h>

#include "folder/rank_summary_out.h"
#include "report/summary.h"

/* "communication" as the folder stage writes it (folder/rank_summary_out.h):
 * *rows malloc'ed, or NULL (null) when the component made no call. 0, or
 * -1 out of memory. */
int harness_comm_out_of(const harness_summary *s, harness_comm_out **rows, size_t *n);
/* A "communication" section; nothing when there was no call. */
void harness_comm_print(FILE *f, const harness_summary *s);

#endif
