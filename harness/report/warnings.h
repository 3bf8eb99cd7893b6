/* warnings.h - reasons not to trust a run's figures, found after the run:
 * printed once on stderr and listed in both summaries.
 *
 * Each rule is a pure function of the facts it needs (unit-tested in
 * tests/unit/test_warnings.c); harness_summary_collect_warnings
 * (report/summary_warnings.c) applies them all to a summary. The
 * thresholds are the HARNESS_WARN_* constants below. */
#ifndef HARNESS_WARNINGS_H
#define HARNESS_WARNINGS_H

#include <stddef.h>
#include <stdio.h>

#include "util/stats.h"

enum {
    HARNESS_MAX_WARNINGS = 16,
    /* An impossible figure's message names the peak's source (a path) and
     * its margin's reason (report/impossible_figure.h). */
    HARNESS_WARNING_LEN = 1024
};

/* Other work's load average may exceed the cores the run leaves free by
 * this much before the run is called oversubscribed: one busy process
 * (load 1.0) on a machine the run fills trips it, an idle desktop's
 * background (~0.1-0.3) does not. */
#define HARNESS_WARN_LOAD_SLACK 0.5
/* A median closer than this many clock resolutions to zero is mostly clock. */
#define HARNESS_WARN_MIN_TICKS 10.0
/* Windows disagree only when their CIs are this far apart (a share of
 * the lower window's median): 4 ns between two 100 us windows is real but
 * of no consequence. */
#define HARNESS_WARN_DISAGREE_MIN_GAP 0.01
/* Windows are compared only when their CIs cover the median this often
 * (n >= 5 steps): a 1-step window's "CI" is a point, always disjoint. */
#define HARNESS_WARN_MIN_CI_LEVEL 0.9

typedef struct harness_warnings {
    size_t n;
    char text[HARNESS_MAX_WARNINGS][HARNESS_WARNING_LEN];
} harness_warnings;

/* printf-style; a warning past HARNESS_MAX_WARNINGS is dropped. */
void harness_warnings_add(harness_warnings *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* What decides oversubscription. Loads are 1-minute load averages of the
 * whole machine (NAN: unknown). */
typedef struct harness_load_facts {
    int logical_cpus;              /* online CPUs of the machine */
    int affinity_cpus;             /* CPUs this process may use */
    int omp_threads;
    double busy_threads;           /* threads the run kept busy (its CPU / wall time); <= 0: omp_threads */
    double load_start, load_end;
    double own_cpu_s_start;        /* this process's CPU seconds before the run (a sweep's earlier points) */
} harness_load_facts;

/* Oversubscribed when the run's OpenMP threads outnumber the CPUs it may
 * use, or when other work's load exceeds the free cores (logical_cpus -
 * the run's busy threads, rounded up) by more than HARNESS_WARN_LOAD_SLACK:
 * a single-threaded component leaves the other cores free however many
 * OpenMP threads exist. Other work's load is
 * the load at the start less this process's own share in it, or, if larger,
 * the load at the end less the run's busy threads (a lower bound). The own
 * share at the start is at most own_cpu_s_start / 60 s (a thread that ran
 * d seconds adds 1 - e^(-d/60) <= d/60 to the 1-minute average), so a
 * sweep's earlier points are not taken for other work. Returns 1 and writes
 * msg when it fires. */
int harness_warn_oversubscribed(const harness_load_facts *f, char *msg, size_t cap);

/* calibrate's check: harness_warn_oversubscribed over calibrate's own
 * `threads`, busy for the whole measurement, with the 1, 5 and 15 minute
 * load averages before and after it (NAN: unknown). Other work on the
 * cores makes the measured peaks low, so every later run's percent of peak
 * high. Returns 1 and writes msg (the load figures, and to re-run on an
 * idle machine) when it fires. */
int harness_warn_busy_calibration(const double load_start[3], const double load_end[3], int logical_cpus,
                                  int affinity_cpus, int threads, char *msg, size_t cap);

/* A rate above its peak (`percent` > 100) is not physics but a bad
 * figure: the peak is too low or the measurement is wrong. `what` names
 * the peak ("fp32 FLOP/s"). from_machine_file: the peak was measured by
 * harness calibrate (the CPU), so most likely it is stale or was measured
 * on a busy machine; otherwise it is the device's datasheet rate and the
 * declared cost or the timing is at fault. bandwidth: data that stays in
 * cache also passes a memory peak. within (or NULL): why the figure is
 * still possible, "within the peak's uncertainty (...)" (report/
 * impossible_figure.c judges that; beyond it the figure is an error).
 * Returns 1 and writes msg when it fires. */
int harness_warn_above_peak(const char *what, double percent, int bandwidth, int from_machine_file,
                            const char *within, char *msg, size_t cap);

/* Two windows disagree when their CIs of the median are disjoint: the
 * run-to-run change exceeds what each window's own spread explains. Only
 * windows with ci_level >= HARNESS_WARN_MIN_CI_LEVEL take part. Returns 1
 * and names the two windows (1-based) when some pair is disjoint. */
int harness_warn_windows_disagree(const harness_stats *windows, size_t n, char *msg, size_t cap);

/* A median step within HARNESS_WARN_MIN_TICKS clock resolutions. */
int harness_warn_near_resolution(double median_ns, double resolution_ns, char *msg, size_t cap);

/* An auto window (measurement_steps: auto) that stopped on max_steps or
 * max_time before its CI reached max_rel_ci of the median. */
int harness_warn_not_converged(size_t window, const char *stop_reason, const harness_stats *st, double max_rel_ci,
                               char *msg, size_t cap);

/* Long steps under load: a CPU step longer than the scheduler tick is cut
 * at tick boundaries whenever other work wants its CPU, so on a loaded
 * machine its time snaps to whole ticks (20 ms steps read 24-28 ms) and a
 * gate on a few such medians has no power. Loaded means the run's own
 * evidence (report/summary.h, noise): a median_shift_bound of at least
 * HARNESS_WARN_LONG_STEP_MIN_BOUND, compare's default threshold, i.e.
 * interference that could account for a change of the size a gate calls. */
#define HARNESS_WARN_LONG_STEP_MIN_BOUND 0.05

typedef struct harness_long_step_facts {
    double median_ns;
    int tick_hz;                   /* CONFIG_HZ (util/sched_tick.h) */
    int tick_known;                /* 0: tick_hz is assumed */
    double shift_bound;            /* the run's noise.median_shift_bound, 0 to 1; NAN unknown */
    long long involuntary_switches;
    size_t steps;                  /* measured */
    double steal_share;            /* NAN unknown */
} harness_long_step_facts;

/* Returns 1 and writes msg (what would give power: more steps and windows
 * with --time-budget, harness ab, a quieter runner) when it fires. */
int harness_warn_long_steps(const harness_long_step_facts *f, char *msg, size_t cap);

/* Each warning on its own "harness: warning: " line. */
void harness_warnings_print(const harness_warnings *w, FILE *f);

#endif
