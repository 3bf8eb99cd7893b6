/* clock.h - the per-step clock. Reads the invariant TSC (a few ns per read),
 * calibrated against CLOCK_MONOTONIC_RAW at startup, when the CPU has one AND
 * the kernel itself keeps time with it; otherwise clock_gettime
 * (CLOCK_MONOTONIC_RAW). Either way the effective resolution is measured,
 * so the summary can say when a step is too short for the clock. */
#ifndef HARNESS_CLOCK_H
#define HARNESS_CLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "util/monotonic.h"

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
    double resolution_ns;          /* smallest nonzero difference of two consecutive reads */
    const char *name;              /* "tsc" or "clock_gettime" */
    char kernel_clocksource[32];   /* the kernel's current clocksource, "unknown" when unreadable */
    char why[160];                 /* why this clock was chosen */
} harness_clock;

/* Whether the TSC may time steps: the CPU says it is invariant and the
 * kernel's clocksource is "tsc". The kernel demotes the TSC (to hpet,
 * acpi_pm, kvm-clock...) when its watchdog finds it unstable or unsynced
 * across sockets, or a hypervisor offers a better clock; the CPUID bit alone
 * knows nothing of that, so we follow the kernel's verdict. */
int harness_clock_tsc_usable(int invariant_tsc, const char *kernel_clocksource);

/* The kernel's current clocksource from sysfs, or "unknown". */
const char *harness_clock_kernel_source(char *out, size_t cap);

/* Detect and calibrate (about 20 ms). `force_gettime` skips the TSC. */
void harness_clock_init(harness_clock *c, int force_gettime);


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
