/* runner.h - the schedule (docs/ARCHITECTURE.md section 6):
 *   warmup_steps x step()                      untimed
 *   repeat x { wait_steps x step()             untimed
 *              measurement_steps x step() }    each timed
 * measurement_steps 0 means "auto": measure until the 95% CI of the median
 * is within max_rel_ci of it (half-width / median), or until max_steps or
 * max_time_s, and never fewer than min_steps nor more than max_steps. */
#ifndef HARNESS_RUNNER_H
#define HARNESS_RUNNER_H

#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"
#include "run/device_clocks.h"
#include "run/interrupt.h"
#include "run/phase.h"
#include "run/time_budget.h"
#include "run/window_energy.h"
#include "util/error.h"

typedef struct harness_schedule {
    int64_t warmup_steps, wait_steps, measurement_steps, repeat;
    double max_rel_ci;
    int64_t min_steps, max_steps;
    double max_time_s;
    int nvtx;                      /* NVTX ranges around windows and steps (device-timed runs) */
    /* The kernel timeline's own window: > 0 on a backend with
     * activity_window, after the last measured window, untimed steps (as
     * many as the first measured window ran, at most this) with the
     * device's activity recording on. Measured windows never record it, so
     * their times hold no tracing cost. 0: no such window. */
    int64_t trace_steps;
    /* --time-budget (run/time_budget.h): > 0, after the warmup a pilot is
     * timed and sizes measurement_steps, and windows run while the next
     * fits, all in this many seconds with the warmup's and the pilot's
     * time; repeat and auto stopping give way. 0: as above. */
    double time_budget_s;
    /* schedule.throttle_threshold (run/throttle.h): on a device whose
     * clocks the backend reads, a group of steps read below this share of
     * the most SM clock is dropped and measured again. 0: never dropped
     * (the clocks are still read and kept with the samples). */
    double throttle_threshold;
} harness_schedule;

/* One unit of work; nonzero stops the run (the caller holds the message). */
typedef int (*harness_step_fn)(void *arg);

/* Observers of the schedule (the profiler, the ranks' barrier); every member
 * may be NULL. They run between steps, outside the timed region. A hook
 * that fails (a barrier that broke) stops the run with its error. */
typedef struct harness_runner_hooks {
    void *arg;
    /* Before the first step of a phase; window is -1 during warmup. */
    int (*phase_begin)(void *arg, harness_phase phase, int window, harness_error *err);
    /* Before each step, outside its timed region (the ranks' meeting; in
     * warmup, wait and trace too, so that a rank stopped there leaves no
     * other inside the next step's collective): 0 go on, 1 the ranks agreed
     * to stop before this step, or err set (its code returned). */
    int (*step_begin)(void *arg, int window, int64_t index, harness_error *err);
    /* After each step; t0, t1 are its timer stamps when measured, else 0. */
    void (*step_end)(void *arg, harness_phase phase, int window, int64_t index, uint64_t t0, uint64_t t1);
    /* After the last step, unless a step or hook failed: the ranks' last
     * meeting. Nonzero when the job stops (a rank was signalled): this
     * rank's run then counts as interrupted, even if it measured every step. */
    int (*schedule_end)(void *arg, harness_error *err);
    /* After the last step, however the run ended. */
    void (*run_end)(void *arg);
    /* --time-budget, after each batch of the pilot (a batch's time) and
     * before each window past the minimum (the windows' mean time): every
     * rank must end its pilot at the same batch and run the same windows,
     * so the ranks make that time and the time spent one here (the most of
     * each). 0 go on, 1 the ranks agreed to stop, or err set (its code
     * returned). NULL: this process's own. */
    int (*agree_budget)(void *arg, double *time_s, double *spent_s, harness_error *err);
    /* --time-budget: the windows are sized (b->fits), before the first. */
    void (*budget_sized)(void *arg, const harness_budget *b);
} harness_runner_hooks;

typedef struct harness_run_result {
    double *samples_ns;            /* every measured step, in order: the device's time on a GPU */
    double *host_samples_ns;       /* device-timed runs: the host's time in each step() call
                                    * (launch cost), beside samples_ns; NULL on the CPU */
    size_t n_samples;
    size_t *window_start;          /* window w: samples [window_start[w], window_start[w+1]) */
    size_t n_windows;              /* windows begun (the last may be cut short) */
    const char **stop_reason;      /* per window: "steps", "converged", "max_steps", "max_time" */
    double *window_wall_ns;        /* per window: wall time of its measured steps, overheads included */
    double *window_cpu_ns;         /* per window: CPU time of the process (all threads) meanwhile */
    int64_t *window_switches;      /* per window: involuntary context switches meanwhile (-1 unknown) */
    double *window_steal_share;    /* per window: share of the CPUs' time stolen meanwhile (NAN unknown) */
    harness_device_state *window_device; /* per window, on a device: the lower SM clock of its start and end,
                                          * the device's most, the reason bits of both (NAN clocks unknown) */
    /* Device-timed runs: each sample's SM clock in MHz, the reading that
     * stood for its step (run/device_clocks.h; NAN unknown: a backend that
     * reads no clocks, a failed reading, a window timed whole); NULL on
     * the CPU. Dropped steps are gone from it as from samples_ns. */
    double *sample_clock_mhz;
    harness_window_clocks *window_clocks; /* per window; zero on the CPU */
    harness_window_energy *window_energy; /* per window: the device's energy counters' difference and its status
                                           * (run/window_energy.h); NULL in a result made by hand */
    int64_t warmup_steps_run, wait_steps_run, trace_steps_run;
    int interrupted;               /* SIGINT, SIGTERM or SIGHUP: stopped after the current step */
    int step_failed;               /* a step returned nonzero */
    harness_phase failed_phase;
    int failed_window;             /* its window (-1 in warmup) */
    int64_t failed_step;           /* index within its phase */
    double wall_s;                 /* whole schedule */
    /* --time-budget: what was asked, measured and planned (budget_s 0:
     * none); then measurement_steps was budget.steps, and n_windows ran
     * (budget.windows were planned: the windows' own time decided). */
    harness_budget budget;
} harness_run_result;

/* Below this much wall time a window's CPU/wall ratio is noise: the
 * process CPU clock adds another running thread's time only at that
 * thread's next scheduler tick (up to 4 ms at 250 Hz), so a 200 us window
 * read 4.4 on 2 CPUs. 50 ms keeps that error under about 8% per thread. */
#define HARNESS_CPU_PER_WALL_MIN_NS 50e6

/* CPU time over wall time, or NAN when the wall time is too short to say. */
static inline double harness_cpu_per_wall(double cpu_ns, double wall_ns)
{
    return wall_ns >= HARNESS_CPU_PER_WALL_MIN_NS ? cpu_ns / wall_ns : NAN;
}


/* Make a run that was left by a crash (run/guard.h) consistent: the last
 * window ends at the last sample measured, its stop reason `why` (NULL:
 * left as it is, for a crash outside a measurement window). */
void harness_runner_salvage(harness_run_result *r, const char *why);

/* Runs the schedule, timing steps with the backend's timer: the host clock
 * around each call on the CPU; on a device, the backend's events (marked
 * around each call, collected after the window and at stopping checks),
 * with the host's time of each call kept in host_samples_ns. Returns 0 when
 * it ran to the end, or was interrupted or a step failed (see the flags);
 * nonzero when out of memory or a hook failed (err says why). */
int harness_runner_run(const harness_schedule *s, const harness_backend *b, harness_step_fn step, void *arg,
                       const harness_runner_hooks *hooks, harness_run_result *out, harness_error *err);

size_t harness_window_size(const harness_run_result *r, size_t w);
void harness_run_result_free(harness_run_result *r);

#endif
