/* full_sync.h - the events against a full device synchronize (issue 37;
 * docs/timing-integrity.md, "Anti-cheat on the GPU"). Events on the
 * component's stream see only that stream, up to the end event: work a
 * step starts on another stream, or after its last launch on a stream of
 * its own, is in no pair. So after the measured windows (and the trace
 * window) a few steps are timed by the host between two full device
 * synchronizes (backend op full_sync_step), and the least of them must fit
 * within a bound of the events' median:
 *
 *   host time  <=  2 x (events' median + that step's launch) + 50 us
 *
 * An honest step, synchronized, takes at most its launches plus its device
 * time plus the synchronize's own round trip (some 10-20 us): its launch
 * (the host's time in that step() call) is in the bound, so a step of many
 * short launches cannot trip it, the factor 2 and 50 us absorb the rest,
 * and the least of HARNESS_FULL_SYNC_STEPS steps leaves out a preempted
 * one. The launch is that synchronized step's own, not the measured
 * steps' median: hidden work that backs up the device's queues makes the
 * measured launches wait (an H200 run: 1.6 ms each behind a side stream's
 * host functions), which would widen the bound past the very work it
 * hides; after a full synchronize the queues are empty. What it catches:
 * hidden work longer than the timed work plus the launches plus 50 us;
 * less than that passes (the side-stream list may still name it). */
#ifndef HARNESS_RUN_FULL_SYNC_H
#define HARNESS_RUN_FULL_SYNC_H

#include "backend/backend.h"
#include "run/runner.h"
#include "util/error.h"

#define HARNESS_FULL_SYNC_STEPS 3
#define HARNESS_FULL_SYNC_SLACK_NS 50000.0

typedef struct harness_full_sync_check {
    int ran;                       /* 0: not run, `skipped` says why (NULL: a CPU run) */
    const char *skipped;
    double sync_ns;                /* the least host time of the synchronized steps */
    double events_median_ns;       /* the device timer's median over the measured steps */
    double launch_ns;              /* the host's time in that synchronized step's step() call */
    double bound_ns;               /* 2 x (events + launch) + 50 us */
    int agrees;                    /* sync_ns <= bound_ns */
} harness_full_sync_check;

/* The pure judgement: fills bound_ns and agrees from the three times;
 * returns agrees. */
int harness_full_sync_judge(harness_full_sync_check *c);

/* Times HARNESS_FULL_SYNC_STEPS calls of step between full synchronizes
 * and judges them against r's samples. Skipped (c->ran 0, c->skipped set,
 * returns 0) without the backend op, without measured steps, or in a job
 * whose steps call collectives (a step there waits on the other ranks, so
 * its host time is not its own). 0, or the error's code when a step or the
 * device failed. */
int harness_full_sync_run(const harness_backend *b, harness_step_fn step, void *arg, const harness_run_result *r,
                          int collectives_called, harness_full_sync_check *c, harness_error *err);

#endif
