/* after_timing.h - the output probe after the last timed window: proof
 * that step() does its work inside the step, on the buffers the component
 * declared with output (ABI 2.4; docs/timing-integrity.md, "Anti-cheat").
 *
 * Each probe overwrites every declared output with poison (all bytes
 * 0xff: a NaN no arithmetic produces, -1 for i32), runs one step as the
 * windows ran it, waits for the component's stream (the view the timer
 * has), and copies the outputs. Then it waits longer (a quiet pause and,
 * on a device, a full device synchronize) and reads them again:
 *   - an element that changed in between was written after the step was
 *     over: the work was deferred (a thread, another stream, a callback),
 *     so the timer never saw it;
 *   - an element still holding the poison was never written: the step
 *     skipped its work (cached, or did several steps' work in one).
 * Two probes, so that a step that works only every other call is met
 * skipping at least once. */
#ifndef HARNESS_RUN_AFTER_TIMING_H
#define HARNESS_RUN_AFTER_TIMING_H

#include <stddef.h>

#include "backend/backend.h"
#include "run/declared_io.h"
#include "run/runner.h"

#define HARNESS_PROBE_STEPS 2
#define HARNESS_PROBE_POISON 0xff

/* The quiet pause: 10 medians of a timed step, within [10 ms, 1 s]. Work a
 * step defers for longer than that escapes the probe (docs say so). */
double harness_probe_wait_ns(double median_step_ns);

typedef struct harness_probe {
    const harness_backend *backend;
    const harness_declared_io *io;
    harness_step_fn step;          /* the step as the windows ran it (a graph replay with cuda_graph) */
    void *arg;
    double median_step_ns;
} harness_probe;

typedef struct harness_probe_report {
    int probes;                    /* probe steps run */
    double wait_ns;                /* the quiet pause of each */
    char failure[512];             /* why the component failed; empty when it passed */
} harness_probe_report;

/* Runs the probes. 0 when they ran (rep->failure says whether the
 * component passed), or -1 with err set when the host could not (out of
 * memory, a device copy or the step failed). */
int harness_probe_outputs(const harness_probe *p, harness_probe_report *rep, harness_error *err);

/* The pieces, for tests: the first element of d where a and b differ, and
 * the first still all poison (for i32, only when every element is: -1 is
 * an ordinary integer); -1 when none. */
long long harness_first_difference(const void *a, const void *b, const harness_declared_buffer *d);
long long harness_first_poisoned(const void *buf, const harness_declared_buffer *d);
/* Element i of buf as text ("1.25", "nan (0xffffffff)"). */
void harness_format_element(const void *buf, const harness_declared_buffer *d, size_t i, char *out, size_t cap);

#endif
