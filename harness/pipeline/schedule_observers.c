/* The ranks' meetings and the profiler's records around the schedule
 * (pipeline/schedule_observers.h). */
#include "pipeline/schedule_observers.h"

#include <stdio.h>
#include <stdlib.h>

#include "run/guard.h"
#include "run/stop_watch.h"

/* sync_steps: every measured step starts together on all ranks, so a
 * step's skew is the ranks' own, not inherited from the step before. A
 * component that calls collectives (seen in the check or a step, on every
 * rank alike) meets before each step of every phase too: a rank that stopped
 * between steps would leave the others blocked in the next step's
 * collective, where no notice reaches them; its steps wait for every rank
 * anyway. */
static int observe_step_begin(void *arg, int window, int64_t index, harness_error *err)
{
    (void)window;
    (void)index;
    harness_schedule_observers *o = arg;
    if (o->inputs && harness_input_sets_next(o->inputs, err) != 0)
        return -1;
    if (o->dist->world_size == 1)
        return 0;
    if (*o->collectives_called > 0)
        o->dist->lockstep = 1;
    int measured = harness_guard.phase == HARNESS_PHASE_MEASURE;
    if (!(o->sync_steps && measured) && !o->dist->lockstep)
        return 0;
    return harness_dist_meet(o->dist, &harness_interrupt_requested, 0, err);
}

static int observe_phase_begin(void *arg, harness_phase phase, int window, harness_error *err)
{
    harness_schedule_observers *o = arg;
    harness_guard_phase(phase, window);
    /* A stop agreed here is in harness_interrupt_requested: the runner stops
     * before the window's first step. */
    if (phase == HARNESS_PHASE_MEASURE) {
        o->dist->lockstep = *o->collectives_called > 0;   /* the check and warmup have run */
        harness_dist_meet(o->dist, &harness_interrupt_requested, 0, err);
        if (err->code)
            return -1;
    }
    return o->profiler.phase_begin(o->profiler.arg, phase, window, err);
}

static void observe_step_end(void *arg, harness_phase phase, int window, int64_t index, uint64_t t0, uint64_t t1)
{
    harness_schedule_observers *o = arg;
    o->profiler.step_end(o->profiler.arg, phase, window, index, t0, t1);
    harness_stop_watch_step_end(phase, window, index);
    if (o->dist->world_size > 1)   /* another rank stopped */
        o->dist->ops->poll_stop(o->dist, &harness_interrupt_requested);
}

/* Alone, a signal is the runner's own business; among ranks it must reach
 * every rank (dist.h, meet). */
static int observe_schedule_end(void *arg, harness_error *err)
{
    harness_schedule_observers *o = arg;
    return harness_dist_meet(o->dist, &harness_interrupt_requested, 1, err);
}

/* --time-budget among ranks, after each batch of the pilot and before
 * each window past the minimum: a meeting first (a rank stopped is heard
 * there, so none is left waiting in what follows), then rank 0 gathers
 * every rank's time (the batch's, or the windows' mean) and time spent and
 * hands out the largest of each: every rank ends its pilot at the same
 * batch and runs the same windows, sized for the slowest rank. */
static int observe_agree_budget(void *arg, double *time_s, double *spent_s, harness_error *err)
{
    harness_schedule_observers *o = arg;
    harness_dist *d = o->dist;
    int met = harness_dist_meet(d, &harness_interrupt_requested, 0, err);
    if (met || err->code)
        return met;
    double mine[2] = {*time_s, *spent_s}, *all = NULL;
    if (d->rank == 0 && !(all = calloc((size_t)d->world_size * 2, sizeof *all)))
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    char text[128] = "";
    int rc = d->ops->gather(d, mine, sizeof mine, all, err);
    if (rc == 0 && d->rank == 0) {
        for (int r = 1; r < d->world_size; r++) {
            mine[0] = all[2 * r] > mine[0] ? all[2 * r] : mine[0];
            mine[1] = all[2 * r + 1] > mine[1] ? all[2 * r + 1] : mine[1];
        }
        snprintf(text, sizeof text, "%a %a", mine[0], mine[1]);   /* hexadecimal: every bit survives */
    }
    free(all);
    if (rc != 0 || d->ops->broadcast_string(d, 0, text, sizeof text, err) != 0)
        return err->code;
    if (sscanf(text, "%la %la", time_s, spent_s) != 2)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "the ranks' step times did not arrive ('%s')", text);
    return 0;
}

static void observe_budget_sized(void *arg, const harness_budget *b)
{
    harness_schedule_observers *o = arg;
    if (o->budget_sized)
        o->budget_sized(o->budget_arg, b);
}

static void observe_run_end(void *arg)
{
    harness_schedule_observers *o = arg;
    o->profiler.run_end(o->profiler.arg);
}

harness_runner_hooks harness_schedule_observer_hooks(harness_schedule_observers *o)
{
    return (harness_runner_hooks){.arg = o, .phase_begin = observe_phase_begin, .step_end = observe_step_end,
                                  .run_end = observe_run_end,
                                  .schedule_end = o->dist->world_size > 1 ? observe_schedule_end : NULL,
                                  .step_begin = o->dist->world_size > 1 || o->inputs ? observe_step_begin : NULL,
                                  .agree_budget = o->dist->world_size > 1 ? observe_agree_budget : NULL,
                                  .budget_sized = observe_budget_sized};
}
