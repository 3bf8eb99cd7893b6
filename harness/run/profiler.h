/* profiler.h - what a profiled rank records while the schedule runs: every
 * measured step and the regions inside it (for the Chrome trace), memory
 * samples (for the memory report and the summary), and the progress line.
 *
 * It plugs into the runner as its hooks, so the runner knows nothing of
 * traces, and into the region services, which cost one branch when no
 * profiler is attached. */
#ifndef HARNESS_PROFILER_H
#define HARNESS_PROFILER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "backend/alloc_tracker.h"
#include "backend/backend.h"
#include "backend/clock.h"
#include "util/error.h"
#include "run/memory_log.h"
#include "run/runner.h"

enum { HARNESS_EVENT_STEP = 1, HARNESS_EVENT_REGION };

typedef struct harness_trace_event {
    uint64_t t0, t1;               /* clock ticks */
    int64_t step;                  /* STEP: index within its window */
    int32_t window;                /* STEP: measurement window; -1: the trace window */
    uint32_t name;                 /* REGION: index into names */
    uint8_t kind;
} harness_trace_event;

#define HARNESS_MAX_REGION_DEPTH 64

typedef struct harness_profiler {
    const harness_backend *backend; /* the memory probe */
    const harness_clock *clk;      /* the backend's host clock: region stamps */
    uint64_t base_ticks;           /* time zero of the trace */
    uint64_t base_unix_ns;         /* the same instant on the wall clock */
    uint64_t base_monotonic_ns;    /* and on harness_monotonic_ns: GPU records' time zero */

    int trace_enabled;             /* profiling.trace on a profiled rank */
    int recording;                 /* inside a measurement or the trace window, not truncated */
    harness_trace_event *events;
    size_t n_events, events_cap, max_events;
    size_t step_mark;              /* n_events when the current step began */
    int step_lost;                 /* an event of the current step did not fit */
    size_t dropped_steps;          /* measured steps left out because the cap was hit */
    char **names;                  /* interned region names */
    const char **name_keys;        /* the pointers they were last seen as: a fast path */
    size_t n_names;
    struct { uint32_t name; uint64_t t0; } open[HARNESS_MAX_REGION_DEPTH];
    int depth;

    int memory_enabled;            /* profiling.memory on a profiled rank */
    int64_t memory_log_steps;
    const harness_alloc_tracker *tracker;
    harness_memory_log memory;

    int64_t steps_run;             /* all phases */
    int64_t steps_planned;         /* 0 when measurement_steps is auto */
    FILE *progress;                /* stderr on a terminal, else NULL */
    uint64_t progress_next_ns, progress_t0_ns;
    const char *phase_name;
    int window, n_windows;
} harness_profiler;

typedef struct harness_profiler_options {
    int trace, memory, progress;
    int64_t max_events, memory_log_steps, steps_planned;
    int n_windows;
} harness_profiler_options;

void harness_profiler_init(harness_profiler *p, const harness_backend *backend, const harness_alloc_tracker *tracker,
                           const harness_profiler_options *opts);
void harness_profiler_free(harness_profiler *p);

/* The runner's hooks, bound to p. */
harness_runner_hooks harness_profiler_hooks(harness_profiler *p);

/* Regions (from the services). Unbalanced use is caught by the caller. */
void harness_profiler_push(harness_profiler *p, const char *name);
void harness_profiler_pop(harness_profiler *p);

/* Take a memory sample now (also done by the hooks). */
void harness_profiler_sample_memory(harness_profiler *p, int phase, int window);

static inline double harness_profiler_us(const harness_profiler *p, uint64_t ticks)
{
    return harness_clock_ns(p->clk, ticks - p->base_ticks) / 1000.0;
}

#endif
