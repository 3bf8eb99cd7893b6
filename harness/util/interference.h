/* interference.h - evidence that other work disturbed this run's own
 * timing, read from the kernel rather than guessed from the load average:
 * how often the process was preempted (involuntary context switches) and
 * how much CPU time the hypervisor stole. A load average says the machine
 * was busy; these say whether this run paid for it, and the samples say
 * whether that could have moved the median. */
#ifndef HARNESS_INTERFERENCE_H
#define HARNESS_INTERFERENCE_H

#include <stddef.h>
#include <stdint.h>

typedef struct harness_interference {
    int64_t involuntary_switches;  /* getrusage(RUSAGE_SELF).ru_nivcsw: every thread of the process */
    double steal_s;                /* /proc/stat "cpu" steal, all CPUs, in seconds; NAN unreadable */
    int online_cpus;
} harness_interference;

/* The counters now. Never fails: what cannot be read is -1 / NAN. */
void harness_interference_now(harness_interference *out);

/* The share of the CPUs' time stolen between a and b over wall_ns of wall
 * time (0 to 1), or NAN when unknown. */
double harness_steal_share(const harness_interference *a, const harness_interference *b, double wall_ns);

/* How far interference could have raised the median of samples[0..n):
 * `hits` steps may have been preempted (each involuntary switch lands in at
 * most one step), and raising k of n values lifts the median by at most k
 * ranks, so the undisturbed median is at least the quantile k ranks below
 * it. Returned as a share of the median (0 to 1), plus the stolen share,
 * which slows every step alike; 1 when about half the steps or more may
 * have been hit (nothing then bounds the median). NAN when n is 0 or a
 * copy cannot be made. */
double harness_median_shift_bound(const double *samples, size_t n, double hits, double steal_share);

/* NVML's clocks-event ("throttle") reason bits that slow a running kernel;
 * idle, an applications-clock setting, sync boost and a display clock say
 * nothing against this run. */
#define HARNESS_THROTTLE_SW_POWER_CAP 0x4ULL
#define HARNESS_THROTTLE_HW_SLOWDOWN 0x8ULL
#define HARNESS_THROTTLE_SW_THERMAL 0x20ULL
#define HARNESS_THROTTLE_HW_THERMAL 0x40ULL
#define HARNESS_THROTTLE_HW_POWER_BRAKE 0x80ULL
#define HARNESS_THROTTLE_SLOWDOWNS                                                                      \
    (HARNESS_THROTTLE_SW_POWER_CAP | HARNESS_THROTTLE_HW_SLOWDOWN | HARNESS_THROTTLE_SW_THERMAL |     \
     HARNESS_THROTTLE_HW_THERMAL | HARNESS_THROTTLE_HW_POWER_BRAKE)

/* How far a clock held down could have slowed the steps: 1 - lo / max
 * when a slowing reason was seen and the SM clock ran at lo of its max; 0
 * when no reason slowed it or the clocks are unknown (NAN). A kernel bound
 * by memory loses less than this, so it is an upper bound. */
double harness_clock_shift_bound(double lo_mhz, double max_mhz, uint64_t reasons);

/* "sw_power_cap, hw_thermal" for the slowing bits of `reasons`, "" for
 * none; returns buf. */
const char *harness_throttle_names(uint64_t reasons, char *buf, size_t cap);

#endif
