/* clock.c - choose, calibrate and measure the per-step clock. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* CLOCK_MONOTONIC_RAW, before any system header */
#endif

#include "backend/clock.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/stats.h"

#if HARNESS_CLOCK_HAVE_TSC
#include <cpuid.h>
#endif


enum {
    OVERHEAD_PAIRS = 1000,
    CAL_INTERVALS = 8,             /* 8 x 2.5 ms: the ~20 ms calibration budget */
    CAL_INTERVAL_NS = 2500000,
    STAMP_TRIES = 5,
    RESOLUTION_READS = 20000       /* consecutive reads scanned for the smallest step */
};

#define CLOCKSOURCE_PATH "/sys/devices/system/clocksource/clocksource0/current_clocksource"


/* Median ns between two back-to-back reads of c: the price of one stamp. */
static double pair_cost_ns(const harness_clock *c)
{
    double d[OVERHEAD_PAIRS];
    for (size_t i = 0; i < OVERHEAD_PAIRS; i++) {
        uint64_t t0 = harness_clock_ticks(c);
        uint64_t t1 = harness_clock_ticks(c);
        d[i] = harness_clock_ns(c, t1 - t0);
    }
    return harness_median(d, OVERHEAD_PAIRS);
}

/* The effective resolution: the smallest nonzero difference between two
 * consecutive reads. It is the finer of the tick and the read cost, i.e. the
 * smallest duration this clock can tell from zero; a coarse clock (a jiffy
 * counter, a 1 us hypervisor clock) shows up here as a large value. NAN when
 * the clock never moved over all the reads. */
static double effective_resolution_ns(const harness_clock *c)
{
    uint64_t best = UINT64_MAX;
    uint64_t prev = harness_clock_ticks(c);
    for (size_t i = 0; i < RESOLUTION_READS; i++) {
        uint64_t t = harness_clock_ticks(c);
        if (t > prev && t - prev < best)
            best = t - prev;
        prev = t;
    }
    return best == UINT64_MAX ? NAN : harness_clock_ns(c, best);
}

int harness_clock_tsc_usable(int invariant_tsc, const char *kernel_clocksource)
{
    return invariant_tsc && kernel_clocksource && strcmp(kernel_clocksource, "tsc") == 0;
}

const char *harness_clock_kernel_source(char *out, size_t cap)
{
    snprintf(out, cap, "unknown");
    FILE *f = fopen(CLOCKSOURCE_PATH, "r");
    if (!f)
        return out;
    char line[64];
    if (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0])
            snprintf(out, cap, "%s", line);
    }
    fclose(f);
    return out;
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
    return harness_median(ratio, CAL_INTERVALS);
}

#endif

/* The clock_gettime clock, measured. */
static harness_clock gettime_clock(const char *kernel_source, const char *why)
{
    harness_clock c = {.use_tsc = 0, .ns_per_tick = 1.0, .name = "clock_gettime"};
    snprintf(c.kernel_clocksource, sizeof c.kernel_clocksource, "%s", kernel_source);
    snprintf(c.why, sizeof c.why, "%s", why);
    c.read_overhead_ns = c.gettime_overhead_ns = pair_cost_ns(&c);
    c.resolution_ns = effective_resolution_ns(&c);
    return c;
}

void harness_clock_init(harness_clock *c, int force_gettime)
{
    char source[32];
    harness_clock_kernel_source(source, sizeof source);
#if HARNESS_CLOCK_HAVE_TSC
    int invariant = has_invariant_tsc();
    if (force_gettime) {
        *c = gettime_clock(source, "clock_gettime forced");
        return;
    }
    if (!harness_clock_tsc_usable(invariant, source)) {
        char why[160];
        if (!invariant)
            snprintf(why, sizeof why, "the CPU has no invariant TSC");
        else if (strcmp(source, "unknown") == 0)
            snprintf(why, sizeof why, "the kernel's clocksource is unreadable (" CLOCKSOURCE_PATH ")");
        else
            snprintf(why, sizeof why, "the kernel keeps time with %s, not tsc", source);
        *c = gettime_clock(source, why);
        return;
    }
    harness_clock tsc = gettime_clock(source, "");
    tsc.use_tsc = 1;
    tsc.name = "tsc";
    tsc.ns_per_tick = calibrate_ns_per_tick(&tsc);
    /* Outside 0.05..100 GHz the TSC is not advancing like a clock (seen
     * under some hypervisors); keep clock_gettime rather than trust it. */
    if (!(tsc.ns_per_tick > 0.01 && tsc.ns_per_tick < 20.0)) {
        *c = gettime_clock(source, "the TSC calibrated to an implausible rate");
        return;
    }
    tsc.tsc_ghz = 1.0 / tsc.ns_per_tick;
    tsc.read_overhead_ns = pair_cost_ns(&tsc);
    tsc.resolution_ns = effective_resolution_ns(&tsc);
    snprintf(tsc.why, sizeof tsc.why, "invariant TSC, and the kernel's clocksource is tsc");
    *c = tsc;
#else
    *c = gettime_clock(source, force_gettime ? "clock_gettime forced" : "no TSC on this architecture");
#endif
}
