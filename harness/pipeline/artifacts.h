/* artifacts.h - the files of an experiment folder (docs/ARCHITECTURE.md section 7). */
#ifndef HARNESS_PIPELINE_ARTIFACTS_H
#define HARNESS_PIPELINE_ARTIFACTS_H

#include "pipeline/plan.h"
#include "report/experiment.h"
#include "report/summary.h"
#include "run/profiler.h"

/* The config as the user wrote it (byte copy) and as it was resolved. */
int harness_write_config_copies(const harness_experiment *exp, const harness_plan_outputs *out, harness_error *err);

/* resolved_config.yaml again, after --time-budget sized the windows: the
 * same YAML under comment lines that say what runs in place of its repeat
 * and measurement_steps. Comments, so that the config (and the series key
 * `record` takes from it, which skips them) stays what was asked; the
 * summary's schedule.time_budget has the figures for tools. */
int harness_write_budget_note(const harness_experiment *exp, const harness_plan_outputs *out,
                              const harness_budget *b, harness_error *err);

/* Trace and memory report where profiled, then the summaries on every rank;
 * when an artifact cannot be written the summaries still are, saying so.
 * Every failed write is reported on stderr here; err keeps the first. */
int harness_write_artifacts(const harness_experiment *exp, harness_summary *s, const harness_profiler *prof,
                            harness_error *err);

/* The rank's text and JSON summaries alone: also to rewrite them when the
 * run fails after they were written (the job summary, the merged trace). */
int harness_write_summary_files(const harness_experiment *exp, harness_summary *s, harness_error *err);

#endif
