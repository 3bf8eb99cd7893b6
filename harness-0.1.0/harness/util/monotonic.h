/* monotonic.h - the harness's reference time: CLOCK_MONOTONIC_RAW in ns
 * (never slewed by NTP; plain MONOTONIC where it is missing). The TSC is
 * calibrated against it, traces and GPU records share its time base, and
 * the ranks of a job estimate their offsets on it. */
#ifndef HARNESS_UTIL_MONOTONIC_H
#define HARNESS_UTIL_MONOTONIC_H

#include <stdint.h>
#include <time.h>

#ifdef CLOCK_MONOTONIC_RAW
#define HARNESS_REFERENCE_CLOCK CLOCK_MONOTONIC_RAW
#else
#define HARNESS_REFERENCE_CLOCK CLOCK_MONOTONIC
#endif

static inline uint64_t harness_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(HARNESS_REFERENCE_CLOCK, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
