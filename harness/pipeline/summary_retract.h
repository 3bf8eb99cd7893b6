/* summary_retract.h - a run that failed after its summaries said ok (the
 * job summary could not be written: a full disk, a tmpfs out of inodes)
 * must not leave files that still say ok beside a status.json that says
 * failed. */
#ifndef HARNESS_CLI_SUMMARY_RETRACT_H
#define HARNESS_CLI_SUMMARY_RETRACT_H

#include "report/experiment.h"
#include "report/summary.h"
#include "util/error.h"

/* s is already marked failed: the job summary (summary.json, summary.txt)
 * is removed, and this rank's summaries are written again saying so; when
 * that fails for want of room (a new file needs an inode and space), the
 * old ones are removed first, freeing theirs, and written once more.
 * Returns 0, or err set when the rank's summaries could not be rewritten
 * (then none that says ok is left). */
int harness_retract_ok_summaries(const harness_experiment *exp, harness_summary *s, harness_error *err);

#endif
