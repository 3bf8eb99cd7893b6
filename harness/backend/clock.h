/* clock.h - the per-step clock. Reads the invariant TSC when the CPU has one
 * (a few ns per read), calibrated against CLOCK_MONOTONIC_RAW at startup;
 * otherwise clock_gettime(CLOCK_MONOTONIC_RAW). */
#ifndef HARNESS_CLOCK_H
#define HARNESS_CLOCK_H

#include <stdint.h>

/* LFENCE needs SSE2, which every x86-64 and most i386 targets have. */
#if defined(__x86_64__) || (defined(__i386__) && defined(__SSE2__))
#include <x86intrin.h>
#define HARNESS_CLOCK_HAVE_TSC 1
#else
#define HARNESS_CLOCK_HAVE_TSC 0
#endif

typedef struct harness_clock {
    int use_tsc;                   /* 1: ticks are TSC cycles; 0: ticks are ns */
    double ns_per_tick;
    double tsc_ghz;                /* calibrated TSC rate (0 when unused) */
    double read_overhead_ns;       /* median cost of one back-to-back read pair, chosen clock */
    double gettime_overhead_ns;    /* the same for clock_gettime, for the record */
    const char *name;              /* "tsc" or "clock_gettime" */
} harness_clock;

/* Detect and calibrate (about 20 ms). `force_gettime` skips the TSC. */
void harness_clock_init(harness_clock *c, int force_gettime);

/* CLOCK_MONOTONIC_RAW in ns: wall time for schedules and timestamps. */
uint64_t harness_monotonic_ns(void);

/* One read of the chosen clock; differences of two reads times ns_per_tick
 * are nanoseconds.
 *
 * RDTSC is not ordered with the instructions around it: the closing read of
 * `t0 = ticks(); step(); t1 = ticks();` may execute while the step's last
 * loads are still in flight (a cache miss is ~100 ns, the size of the
 * smallest steps we time), and the opening read may wait behind work issued
 * before it. An LFENCE before the read waits for all earlier instructions to
 * complete; one after it keeps later instructions from starting before the
 * read. The pair costs a few ns per read (bench/clock_overhead prints both
 * costs), far below the skew it removes, and one symmetric read serves as
 * both the opening and the closing stamp. (RDTSCP orders only the earlier
 * side and clobbers ECX with the core id, so it would still need a fence.)
 * LFENCE is dispatch-serializing on every Intel CPU and on AMD from Zen 2
 * (and earlier AMD under Linux, which sets the MSR bit for it). The
 * clock_gettime path needs nothing: Linux's vDSO fences its own TSC read. */
static inline uint64_t harness_clock_ticks(const harness_clock *c)
{
#if HARNESS_CLOCK_HAVE_TSC
    if (c->use_tsc) {
        _mm_lfence();
        uint64_t t = __rdtsc();
        _mm_lfence();
        return t;
    }
#else
    (void)c;
#endif
    return harness_monotonic_ns();
}

static inline double harness_clock_ns(const harness_clock *c, uint64_t ticks)
{
    return (double)ticks * c->ns_per_tick;
}

#endif
