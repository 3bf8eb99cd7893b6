/* rank_summary_timing.h - a summary's timing (rank_summary_timing.c),
 * its reader (for rank_summary.c) and its writer (rank_summary_write.c). */
#ifndef HARNESS_FOLDER_RANK_SUMMARY_TIMING_H
#define HARNESS_FOLDER_RANK_SUMMARY_TIMING_H

#include <cjson/cJSON.h>

#include "folder/rank_summary_out.h"
#include "folder/rank_summary_record.h"
#include "util/error.h"

int harness_rs_read_timing(const cJSON *root, const char *path, int flags, harness_rank_summary *out,
                           harness_error *err);

/* timing as written: a new node. */
cJSON *harness_rs_write_timing(const harness_timing_out *t);

#endif
