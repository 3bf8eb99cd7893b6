/* phase.h - the phases of the schedule (run/runner.h) and their names, in
 * one table (docs/ARCHITECTURE.md section 6). */
#ifndef HARNESS_RUN_PHASE_H
#define HARNESS_RUN_PHASE_H

/* AFTER_TIMING: the checks after the last window (run/after_timing.h),
 * whose steps are not measured. */
typedef enum {
    HARNESS_PHASE_WARMUP,
    HARNESS_PHASE_WAIT,
    HARNESS_PHASE_MEASURE,
    HARNESS_PHASE_TRACE,
    HARNESS_PHASE_AFTER_TIMING
} harness_phase;

/* "warmup", "wait", "measurement": as status.json and messages name them. */
const char *harness_phase_name(harness_phase phase);
/* "warmup", "wait", "measure": the spelling the summaries' memory samples,
 * the trace and the memory report have always written; kept so that those
 * files read as before. Any other value (a phase from a damaged log) is
 * "other". Both spellings live in one table in phase.c. */
const char *harness_phase_file_name(int phase);

#endif
