/* artifacts.h - the files of an experiment folder (docs/ARCHITECTURE.md section 7). */
#ifndef HARNESS_PIPELINE_ARTIFACTS_H
#define HARNESS_PIPELINE_ARTIFACTS_H

#include "pipeline/plan.h"
#include "report/experiment.h"
#include "report/summary.h"
#include "run/profiler.h"

/* The config as the user wrote it (byte copy) and as it was resolved. */
int harness_write_config_copies(const harness_experiment *exp, const harness_plan_outputs *out, harness_error *err);

/* Trace and memory report where profiled, then the summaries on every rank;
 * when an artifact cannot be written the summaries still are, saying so.
 * Every failed write is reported on stderr here; err keeps the first. */
int harness_write_artifacts(const harness_experiment *exp, harness_summary *s, const harness_profiler *prof,
                            harness_error *err);

/* The rank's text and JSON summaries alone: also to rewrite them when the
 * run fails after they were written (the job summary, the merged trace). */
int harness_write_summary_files(const harness_experiment *exp, harness_summary *s, harness_error *err);

#endif
