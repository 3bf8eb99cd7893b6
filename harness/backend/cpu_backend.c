/* The CPU backend: steps timed with the host clock (TSC or clock_gettime,
 * backend/clock.h), memory from the host heap, "reserved" memory is the
 * process's resident set. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* CLOCK_MONOTONIC_RAW, before any system header */
#endif

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend/backend.h"
#include "backend/machine_file.h"
#include "util/cpu_caches.h"
#include "backend/powercap.h"
#include "util/cpuinfo.h"

static uint64_t cpu_wall_ns(const harness_backend *b)
{
    (void)b;
    return harness_monotonic_ns();
}

/* All threads of the process: with OpenMP workers, CPU time above wall
 * time x threads' share says they were busy; well below says they waited. */
static uint64_t cpu_cpu_ns(const harness_backend *b)
{
    (void)b;
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t cpu_reserved_bytes(const harness_backend *b)
{
    (void)b;
    /* statm's second field: resident pages. */
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return 0;
    unsigned long long size = 0, resident = 0;
    int ok = fscanf(f, "%llu %llu", &size, &resident) == 2;
    fclose(f);
    return ok ? (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE) : 0;
}

/* The packages' RAPL counters (backend/powercap.h), from the tree the
 * backend found when it opened. */
static int cpu_energy_read(const harness_backend *b, harness_energy_reading *out)
{
    return harness_powercap_read(b->energy.root, out);
}

static void cpu_close(harness_backend *b)
{
    (void)b;
}

static const harness_backend_ops cpu_ops = {
    .stamp = NULL, /* with step_ns: the clock, read inline by the runner */
    .step_ns = NULL,
    .wall_ns = cpu_wall_ns,
    .cpu_ns = cpu_cpu_ns,
    .reserved_bytes = cpu_reserved_bytes,
    .close = cpu_close,
    .energy_read = cpu_energy_read,
};

void harness_cpu_backend_init(harness_backend *b, int force_gettime)
{
    memset(b, 0, sizeof *b);
    b->name = "cpu";
    b->ops = &cpu_ops;
    b->allocator = harness_host_allocator();
    harness_clock_init(&b->clock, force_gettime);
    const char *root = getenv("HARNESS_POWERCAP_ROOT");
    snprintf(b->energy.root, sizeof b->energy.root, "%s", root && root[0] ? root : HARNESS_POWERCAP_ROOT);
    /* None readable: b->energy.missing says why (harness_backend_has_energy) */
    harness_powercap_probe(b->energy.root, &b->energy);
    harness_cpuinfo_field("model name", "unknown CPU", b->device_name, sizeof b->device_name);
    /* Peaks come from `harness calibrate`'s machine file, measured with the
     * threads this run's OpenMP kernels will use; measuring here would cost
     * every run seconds. */
    harness_machine_load_peaks(&b->peaks, omp_get_max_threads());
    b->peaks.cache_bytes = harness_cpu_cache_bytes();
}
