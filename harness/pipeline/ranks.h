/* ranks.h - what the ranks of one job settle together before they run:
 * that they all resolved the same config and plugin (rank 0 checks), and
 * the one experiment folder (rank 0 makes it and names it to the others).
 * In a world of one both are the plain single-process steps. */
#ifndef HARNESS_PIPELINE_RANKS_H
#define HARNESS_PIPELINE_RANKS_H

#include "pipeline/plan.h"
#include "dist/dist.h"
#include "dist/gather.h"
#include "report/experiment.h"
#include "report/summary.h"

/* 0 when every rank has this rank's config hash, variant and plugin file;
 * else err (exit 2) on every rank, naming the ranks that differ from rank 0. */
int harness_ranks_agree(harness_dist *d, const char *hash8, const char *variant_key, const char *plugin_path,
                        harness_error *err);

/* Rank 0 creates the folder; every rank gets its path in exp. 0 or err on
 * every rank. (The config copies follow the folder's status.json: pipeline/run_point.c.) */
int harness_ranks_make_folder(harness_dist *d, const harness_plan_outputs *out, harness_experiment *exp,
                              harness_error *err);

/* After a rank's own files: rank 0 gathers every rank's figures and writes
 * the cross-rank summary.json and summary.txt (report/job_summary.h).
 * Only for ranks whose run succeeded: a failed rank stops the job instead
 * of meeting the others here. gather: what came over MPI (rank 0's
 * record, dist/gather.h), said in the summary. 0 or err. */
int harness_ranks_write_job_summary(harness_dist *d, const harness_summary *s, const harness_experiment *exp,
                                    const harness_gather *gather, harness_error *err);

#endif
