/* clock_overhead.c - figures for the per-step clock: the calibrated TSC
 * rate and resolution, what one read costs with each clock (and without the
 * LFENCEs that order the TSC read), and how far TSC-derived durations drift
 * from CLOCK_MONOTONIC_RAW over 100 ms and 1 s. Prints figures; never fails
 * on a time. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <stdio.h>
#include <time.h>

#include "backend/clock.h"

enum { READS = 1000000, REPEATS = 3, STAMP_TRIES = 5 };

typedef enum { READ_CLOCK, READ_BARE_RDTSC, READ_GETTIME } read_kind;

static volatile uint64_t sink;     /* keeps the timed reads from being dropped */

static uint64_t read_once(const harness_clock *c, read_kind kind)
{
    switch (kind) {
#if HARNESS_CLOCK_HAVE_TSC
    case READ_BARE_RDTSC:
        return __rdtsc();
#endif
    case READ_GETTIME:
        return harness_monotonic_ns();
    default:
        return harness_clock_ticks(c);
    }
}

/* Mean ns per read over a million back-to-back reads, timed by the reference
 * clock. Unlike the median of single pairs in harness_clock (what the
 * runner records), this is not rounded to the TSC's update step. */
static double mean_read_ns(const harness_clock *c, read_kind kind)
{
    uint64_t acc = 0;
    uint64_t start = harness_monotonic_ns();
    for (int i = 0; i < READS; i++)
        acc ^= read_once(c, kind);
    uint64_t end = harness_monotonic_ns();
    sink = acc;
    return (double)(end - start) / READS;
}

#if HARNESS_CLOCK_HAVE_TSC
/* The TSC's resolution: some CPUs and hypervisors advance it in steps of
 * many ticks (10 ns on some AMD EPYC guests). Back-to-back reads then differ
 * by multiples of the step; the GCD of the differences that occur in at
 * least 1% of the reads finds it, ignoring the odd migration or interrupt. */
static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

static uint64_t tsc_resolution_ticks(void)
{
    enum { SAMPLES = 100000, MAX_DIFF = 1024 };
    static unsigned count[MAX_DIFF];
    uint64_t prev = __rdtsc();
    for (int i = 0; i < SAMPLES; i++) {
        uint64_t t = __rdtsc();
        if (t - prev < MAX_DIFF)
            count[t - prev]++;
        prev = t;
    }
    uint64_t g = 0;
    for (uint64_t d = 1; d < MAX_DIFF; d++)
        if (count[d] >= SAMPLES / 100)
            g = gcd(d, g);
    return g;
}

/* Ticks and reference ns for one instant: the gettime read bracketed by two
 * tick reads and paired with their midpoint, keeping the tightest of a few
 * tries. The first reads after waking from a sleep take microseconds (cold
 * caches), which a single try would book as drift. */
static void stamp(const harness_clock *c, double *ticks, double *ns)
{
    uint64_t best = UINT64_MAX;
    *ticks = *ns = 0.0;
    for (int i = 0; i < STAMP_TRIES; i++) {
        uint64_t t0 = harness_clock_ticks(c);
        uint64_t n = harness_monotonic_ns();
        uint64_t t1 = harness_clock_ticks(c);
        if (t1 - t0 < best) {
            best = t1 - t0;
            *ticks = (double)t0 + (double)(t1 - t0) / 2.0;
            *ns = (double)n;
        }
    }
}

static void disagreement(const harness_clock *c, long interval_ns, const char *label)
{
    printf("%-30s", label);
    for (int r = 0; r < REPEATS; r++) {
        double t0, n0, t1, n1;
        struct timespec ts = {interval_ns / 1000000000L, interval_ns % 1000000000L};
        stamp(c, &t0, &n0);
        while (nanosleep(&ts, &ts) != 0)
            ;
        stamp(c, &t1, &n1);
        double by_ticks = (t1 - t0) * c->ns_per_tick, by_gettime = n1 - n0;
        printf(" %+7.3f", (by_ticks - by_gettime) / by_gettime * 1e6);
    }
    printf("  ppm (TSC - gettime, %d runs)\n", REPEATS);
}

static void print_tsc_figures(const harness_clock *c)
{
    uint64_t step = tsc_resolution_ticks();
    printf("TSC rate                       %.6f GHz (%.6f ns per tick)\n", c->tsc_ghz,
           c->ns_per_tick);
    printf("TSC resolution                 %llu ticks = %.1f ns\n", (unsigned long long)step,
           harness_clock_ns(c, step));
    printf("TSC pair, lfence (median)      %.1f ns\n", c->read_overhead_ns);
    printf("TSC read, lfence (mean)        %.1f ns\n", mean_read_ns(c, READ_CLOCK));
    printf("TSC read, bare rdtsc (mean)    %.1f ns\n", mean_read_ns(c, READ_BARE_RDTSC));
    disagreement(c, 100000000L, "disagreement over 100 ms");
    disagreement(c, 1000000000L, "disagreement over 1 s");
}
#endif

int main(void)
{
    harness_clock c;
    harness_clock_init(&c, 0);
    printf("clock                          %s\n", c.name);
    printf("clock_gettime pair (median)    %.1f ns\n", c.gettime_overhead_ns);
    printf("clock_gettime read (mean)      %.1f ns\n", mean_read_ns(&c, READ_GETTIME));
#if HARNESS_CLOCK_HAVE_TSC
    if (c.use_tsc) {
        print_tsc_figures(&c);
        return 0;
    }
#endif
    printf("TSC not used (no invariant TSC, or not x86): nothing to compare\n");
    return 0;
}
