/* schedule_observers.h - what watches the schedule of one run: the
 * ranks and the profiler, as the runner's hooks (run/runner.h). */
#ifndef HARNESS_PIPELINE_SCHEDULE_OBSERVERS_H
#define HARNESS_PIPELINE_SCHEDULE_OBSERVERS_H

#include <stdint.h>

#include "dist/dist.h"
#include "run/input_sets.h"
#include "run/runner.h"

/* What watches the schedule: the ranks meet before each measurement
 * window (a broken meeting stops the run) and agree there to stop when one
 * is signalled (dist/dist_mpi.c), and the profiler records. */
typedef struct harness_schedule_observers {
    harness_dist *dist;
    harness_runner_hooks profiler;
    int sync_steps;
    const int64_t *collectives_called; /* the instance's: nonzero once it called one */
    /* --time-budget: told once the windows are sized, on every rank (NULL:
     * no one listens). The ranks' step times are made one before. */
    void (*budget_sized)(void *arg, const harness_budget *b);
    void *budget_arg;
    harness_input_sets *inputs;    /* schedule.rotate_inputs: the next set before each step; NULL: off */
} harness_schedule_observers;

/* The hooks that call o's observers; o must outlive the run. */
harness_runner_hooks harness_schedule_observer_hooks(harness_schedule_observers *o);

#endif
