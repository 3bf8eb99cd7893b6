/* component.h - one component instance's life in a run: create, cost,
 * the reference check, then the plan's schedule, each callback under the
 * guard (run/guard.h). destroy is the caller's: it runs even after a
 * failure here (pipeline/run_point.c). */
#ifndef HARNESS_PIPELINE_COMPONENT_H
#define HARNESS_PIPELINE_COMPONENT_H

#include "backend/backend.h"
#include "dist/dist.h"
#include "pipeline/plan.h"
#include "report/summary.h"
#include "run/input_sets.h"
#include "run/instance.h"
#include "run/profiler.h"
#include "run/runner.h"

/* The component instance the runner steps. */
typedef struct harness_component {
    const harness_variant *v;
    harness_instance inst;
    void *state;
    int created;                   /* create succeeded: destroy must run */
    harness_step_fn timed_step;    /* what the windows ran: step, or the graph's replay */
    harness_input_sets inputs;     /* schedule.rotate_inputs, during the schedule */
    int threads_before;            /* the process's threads before create (run/thread_census.h) */
} harness_component;

/* Where it runs: the plan, the ranks, the backend, the profiler. */
typedef struct harness_component_where {
    const harness_plan *plan;
    harness_dist *dist;
    const harness_backend *backend;
    harness_profiler *prof;
    /* --time-budget: told once the windows are sized (pipeline/run_point.c
     * says so on stderr and in the folder); NULL: no one listens. */
    void (*budget_sized)(void *arg, const harness_budget *b);
    void *budget_arg;
} harness_component_where;

/* create -> cost -> check -> schedule -> the checks after timing. Returns the exit code; s->status
 * says what happened, and s->run points at run once the schedule ran. */
int harness_component_run(harness_component *in, const harness_component_where *r, harness_summary *s,
                          harness_run_result *run, harness_error *err);

/* destroy, under the guard, then what it left running: threads beyond
 * those before create keep the plugin's module mapped to the end of the
 * process (unmapping it under them would crash the process after the
 * folder was written), and, unless the plugin has an unload callback (a
 * pool kept across instances is what it is for), a warning for the
 * summaries goes into `left` (empty when none). */
void harness_component_destroy(harness_component *in, const harness_plan *plan, char *left, size_t cap);

#endif
