/* interference.c - preemption and steal counters (interference.h). */
#include "util/interference.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "util/stats.h"

/* The steal column of /proc/stat's aggregate "cpu" line, in seconds. */
static double read_steal_s(void)
{
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return NAN;
    char line[512];
    unsigned long long v[8];
    int got = fgets(line, sizeof line, f) ? sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
                                                   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7])
                                          : 0;
    fclose(f);
    long hz = sysconf(_SC_CLK_TCK);
    return got == 8 && hz > 0 ? (double)v[7] / (double)hz : NAN;
}

void harness_interference_now(harness_interference *out)
{
    struct rusage ru;
    out->involuntary_switches = getrusage(RUSAGE_SELF, &ru) == 0 ? (int64_t)ru.ru_nivcsw : -1;
    out->steal_s = read_steal_s();
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    out->online_cpus = cpus > 0 ? (int)cpus : 1;
}

double harness_steal_share(const harness_interference *a, const harness_interference *b, double wall_ns)
{
    if (!isfinite(a->steal_s) || !isfinite(b->steal_s) || !(wall_ns > 0))
        return NAN;
    double share = (b->steal_s - a->steal_s) / (wall_ns * 1e-9 * (double)b->online_cpus);
    return share < 0 ? 0 : share > 1 ? 1 : share;
}

double harness_median_shift_bound(const double *samples, size_t n, double hits, double steal_share)
{
    if (n == 0 || !(hits >= 0))
        return NAN;
    double steal = isfinite(steal_share) ? steal_share : 0, k = ceil(hits);
    /* The i-th smallest undisturbed value is at least the (i-k)-th smallest
     * measured one (k values rose, the rest stayed), so the undisturbed
     * median is at least the measured quantile k ranks below the median;
     * with the median at rank (n-1)/2 (type-7, 0-based) nothing is below
     * it once k passes that. */
    if (k > (double)(n - 1) / 2)
        return 1;
    double *sorted = malloc(n * sizeof *sorted);
    if (!sorted)
        return NAN;
    memcpy(sorted, samples, n * sizeof *sorted);
    harness_sort_doubles(sorted, n);
    double median = harness_quantile_sorted(sorted, n, 0.5);
    double below = n > 1 ? harness_quantile_sorted(sorted, n, 0.5 - k / (double)(n - 1)) : median;
    free(sorted);
    if (!(median > 0))
        return NAN;
    double bound = (median - below) / median + steal;
    return bound > 1 ? 1 : bound;
}

const char *harness_throttle_names(uint64_t reasons, char *buf, size_t cap)
{
    static const struct { uint64_t bit; const char *name; } names[] = {
        {HARNESS_THROTTLE_SW_POWER_CAP, "sw_power_cap"}, {HARNESS_THROTTLE_HW_SLOWDOWN, "hw_slowdown"},
        {HARNESS_THROTTLE_SW_THERMAL, "sw_thermal"},     {HARNESS_THROTTLE_HW_THERMAL, "hw_thermal"},
        {HARNESS_THROTTLE_HW_POWER_BRAKE, "hw_power_brake"},
    };
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0] && len < cap; i++)
        if (reasons & names[i].bit)
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", names[i].name);
    return buf;
}

double harness_clock_shift_bound(double lo_mhz, double max_mhz, uint64_t reasons)
{
    if (!(reasons & HARNESS_THROTTLE_SLOWDOWNS) || !(lo_mhz > 0) || !(max_mhz > 0) || lo_mhz >= max_mhz)
        return 0;
    return 1.0 - lo_mhz / max_mhz;
}
