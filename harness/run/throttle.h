/* throttle.h - which device-timed steps ran on a clock held down, and what
 * the runner does about them (schedule.throttle_threshold; docs/
 * timing-integrity.md, "Clocks per sample"). The rule is a pure function of
 * the struct below (tests/unit/test_throttle.c); the runner (run/
 * device_clocks.c) reads the clock and acts on the verdicts.
 *
 * A reading of the SM clock stands for the group of steps marked since the
 * reading before it. The group is dropped when the reading is below
 * threshold x the device's most (nvbench's rule, and its default 0.75),
 * and as many steps are measured again after a recovery pause, bounded:
 *   - re-measured steps per window at most the steps the window plans
 *     (redo_max): a device held down for good (a power cap set low, a hot
 *     room) must not double a run again and again; past the cap a throttled
 *     group is kept and counted (kept_throttled) so the summary says so;
 *   - a pause per throttled reading, HARNESS_THROTTLE_PAUSE_NS first,
 *     doubled while readings stay throttled (a clock that did not recover
 *     in the last pause needs a longer one), at most
 *     HARNESS_THROTTLE_PAUSE_MAX_NS each and HARNESS_THROTTLE_PAUSE_TOTAL_NS
 *     per window; past the total, throttled groups are still dropped and
 *     re-measured (within redo_max) without a pause.
 * Without re-measuring (can_redo 0: ranks must run the same steps) a
 * throttled group is kept and counted, never dropped: a window of one rank
 * cannot grow alone. Unknown clocks (NAN, or no most) say nothing: kept. */
#ifndef HARNESS_THROTTLE_H
#define HARNESS_THROTTLE_H

#include <stdint.h>

#define HARNESS_THROTTLE_DEFAULT_THRESHOLD 0.75
/* Host time between readings, at least: every step when a step takes this
 * long or longer on the host, else every k steps with k x step >= it. An
 * NVML reading costs a few microseconds of host time, so at most about a
 * tenth of the host's time goes to it, and none of the device's: it is
 * taken between steps, before the next step's begin mark. */
#define HARNESS_CLOCK_READ_PERIOD_NS 50e3
#define HARNESS_THROTTLE_PAUSE_NS 5e6
#define HARNESS_THROTTLE_PAUSE_MAX_NS 80e6
#define HARNESS_THROTTLE_PAUSE_TOTAL_NS 1e9

typedef enum {
    HARNESS_CLOCK_KEEP,            /* at speed, or unknown */
    HARNESS_CLOCK_DROP,            /* below the threshold: drop the group, pause, measure as many again */
    HARNESS_CLOCK_KEEP_THROTTLED,  /* below the threshold, but a cap (or the ranks) keeps it */
} harness_clock_verdict;

/* One window's state and its counts. */
typedef struct harness_throttle {
    double threshold;              /* 0: off (every group kept, none counted) */
    int64_t redo_max;              /* re-measured steps at most in this window */
    int can_redo;
    int64_t dropped;               /* steps dropped (and as many re-measured) */
    int64_t kept_throttled;        /* throttled steps kept: a cap reached, or among ranks */
    int64_t throttled_readings;    /* readings below the threshold */
    double paused_ns;              /* recovery pauses, in total */
    double next_pause_ns;          /* the next pause's length */
} harness_throttle;

void harness_throttle_init(harness_throttle *t, double threshold, int64_t redo_max, int can_redo);

/* The verdict on a reading (mhz of max_mhz) for a group of `group` steps;
 * *pause_ns is how long to pause before the next step (0: none). */
harness_clock_verdict harness_throttle_judge(harness_throttle *t, double mhz, double max_mhz, int64_t group,
                                             double *pause_ns);

/* Whether a reading is due, `since_ns` of host time after the last one. */
static inline int harness_clock_read_due(double since_ns)
{
    return since_ns >= HARNESS_CLOCK_READ_PERIOD_NS;
}

#endif
