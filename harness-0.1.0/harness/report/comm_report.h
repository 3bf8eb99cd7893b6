/* comm_report.h - the communication log (run/comm_log.h) in the summaries:
 * a table per operation, dtype and size, as nccl-tests prints one. */
#ifndef HARNESS_COMM_REPORT_H
#define HARNESS_COMM_REPORT_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "report/summary.h"

/* "communication": the rows, or null when the component made no call. */
cJSON *harness_comm_json(const harness_summary *s);
/* A "communication" section; nothing when there was no call. */
void harness_comm_print(FILE *f, const harness_summary *s);

#endif
