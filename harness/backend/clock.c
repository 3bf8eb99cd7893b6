/* clock.c - choose, calibrate and measure the per-step clock. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* CLOCK_MONOTONIC_RAW, before any system header */
#endif

#include "backend/clock.h"

#include <stdlib.h>
#include <time.h>

#if HARNESS_CLOCK_HAVE_TSC
#include <cpuid.h>
#endif

/* MONOTONIC_RAW is never slewed by NTP, so it is the honest reference for
 * calibrating the TSC; systems without it get plain MONOTONIC. */
#ifdef CLOCK_MONOTONIC_RAW
#define REFERENCE_CLOCK CLOCK_MONOTONIC_RAW
#else
#define REFERENCE_CLOCK CLOCK_MONOTONIC
#endif

enum {
    OVERHEAD_PAIRS = 1000,
    CAL_INTERVALS = 8,             /* 8 x 2.5 ms: the ~20 ms calibration budget */
    CAL_INTERVAL_NS = 2500000,
    STAMP_TRIES = 5
};

uint64_t harness_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(REFERENCE_CLOCK, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* Sorts v in place. */
static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

/* Median ns between two back-to-back reads of c: the price of one stamp. */
static double pair_cost_ns(const harness_clock *c)
{
    double d[OVERHEAD_PAIRS];
    for (size_t i = 0; i < OVERHEAD_PAIRS; i++) {
        uint64_t t0 = harness_clock_ticks(c);
        uint64_t t1 = harness_clock_ticks(c);
        d[i] = harness_clock_ns(c, t1 - t0);
    }
    return median(d, OVERHEAD_PAIRS);
}

#if HARNESS_CLOCK_HAVE_TSC

static void sleep_ns(long ns)
{
    struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;                          /* EINTR: sleep the rest */
}

/* CPUID 0x80000007 EDX bit 8: the TSC ticks at a constant rate in every
 * P-, C- and T-state, so it measures time, not cycles. (__get_cpuid checks
 * that the extended leaf exists.) */
static int has_invariant_tsc(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000007u, &a, &b, &c, &d))
        return 0;
    return (d >> 8) & 1u;
}

typedef struct stamp {
    double tsc;                    /* TSC at the moment `ns` was read */
    double ns;
} stamp;

/* A TSC reading and a reference-clock reading for the same instant: bracket
 * the clock_gettime between two TSC reads, pair it with their midpoint, and
 * of a few tries keep the tightest bracket, so an interrupt or preemption
 * between the reads costs a retry instead of an error. */
static stamp paired_stamp(const harness_clock *tsc)
{
    stamp best = {0.0, 0.0};
    uint64_t best_width = UINT64_MAX;
    for (int i = 0; i < STAMP_TRIES; i++) {
        uint64_t t0 = harness_clock_ticks(tsc);
        uint64_t ns = harness_monotonic_ns();
        uint64_t t1 = harness_clock_ticks(tsc);
        if (t1 - t0 < best_width) {
            best_width = t1 - t0;
            best.tsc = (double)t0 + (double)(t1 - t0) / 2.0;
            best.ns = (double)ns;
        }
    }
    return best;
}

/* ns per TSC tick: the median over several short intervals, so one bad
 * interval (a stamp disturbed despite the retries) cannot move the result.
 * Sleeping rather than spinning is fine: both clocks run on. */
static double calibrate_ns_per_tick(const harness_clock *tsc)
{
    double ratio[CAL_INTERVALS];
    stamp prev = paired_stamp(tsc);
    for (size_t i = 0; i < CAL_INTERVALS; i++) {
        sleep_ns(CAL_INTERVAL_NS);
        stamp next = paired_stamp(tsc);
        ratio[i] = (next.ns - prev.ns) / (next.tsc - prev.tsc);
        prev = next;
    }
    return median(ratio, CAL_INTERVALS);
}

#endif

void harness_clock_init(harness_clock *c, int force_gettime)
{
    harness_clock gettime = {.use_tsc = 0, .ns_per_tick = 1.0, .name = "clock_gettime"};
    gettime.read_overhead_ns = gettime.gettime_overhead_ns = pair_cost_ns(&gettime);
    *c = gettime;
#if HARNESS_CLOCK_HAVE_TSC
    if (force_gettime || !has_invariant_tsc())
        return;
    harness_clock tsc = gettime;
    tsc.use_tsc = 1;
    tsc.name = "tsc";
    tsc.ns_per_tick = calibrate_ns_per_tick(&tsc);
    /* Outside 0.05..100 GHz the TSC is not advancing like a clock (seen
     * under some hypervisors); keep clock_gettime rather than trust it. */
    if (!(tsc.ns_per_tick > 0.01 && tsc.ns_per_tick < 20.0))
        return;
    tsc.tsc_ghz = 1.0 / tsc.ns_per_tick;
    tsc.read_overhead_ns = pair_cost_ns(&tsc);
    *c = tsc;
#else
    (void)force_gettime;
#endif
}
