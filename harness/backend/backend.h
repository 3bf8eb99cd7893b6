/* backend.h - where a component runs, behind one interface: the step timer,
 * the allocator, the memory probe and the device's peaks.
 *
 * The runner times steps only through the timer here, the allocation
 * services allocate only through the allocator, and the profiler reads
 * "reserved" memory only through the probe; so a second backend (CUDA:
 * events, device memory, used device memory) slots in without touching
 * them. The CPU backend is always built; the CUDA runtime is never linked
 * into the core (backend/gpu_probe.h loads it lazily). */
#ifndef HARNESS_BACKEND_H
#define HARNESS_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "backend/alloc_tracker.h"
#include "backend/clock.h"
#include "util/error.h"

/* What the device can do at best, for the roofline; 0 when unknown. */
typedef struct harness_peaks {
    double bytes_per_s;            /* memory bandwidth */
    double flops_per_s;            /* fp32 FMA throughput (2 flops per FMA) */
    char source[512];              /* where they came from (the machine file) */
    char missing[512];             /* why they are unknown, when they are */
} harness_peaks;

typedef struct harness_backend harness_backend;

typedef struct harness_backend_ops {
    /* Step timer: a stamp right before and right after each measured step
     * (host clock ticks, also the trace's timeline), and the step's
     * duration from the two. NULL stamp: the runner reads `clock` inline,
     * so the timed interval holds the step's call and no call of ours, and
     * converts ticks with it (the CPU backend; a device timer that records
     * events sets both). */
    uint64_t (*stamp)(const harness_backend *b);
    double (*step_ns)(const harness_backend *b, uint64_t t0, uint64_t t1);
    /* Wall and CPU time for whole windows and schedules, in ns. */
    uint64_t (*wall_ns)(const harness_backend *b);
    uint64_t (*cpu_ns)(const harness_backend *b);
    /* Memory probe: what the device has reserved now (the process's resident
     * set on the CPU), 0 when unknown. */
    uint64_t (*reserved_bytes)(const harness_backend *b);
    void (*close)(harness_backend *b);
} harness_backend_ops;

struct harness_backend {
    const char *name;              /* "cpu" | "cuda" */
    char device_name[256];
    const harness_backend_ops *ops;
    harness_allocator allocator;   /* raw memory for the tracked allocator */
    harness_clock clock;           /* the host clock behind stamps */
    harness_peaks peaks;
    void *impl;                    /* the backend's own state */
};

/* Open the backend for a resolved device ("cpu"; "cuda" once built). On
 * the CPU this calibrates the clock (~20 ms). */
int harness_backend_open(harness_backend *b, const char *device, harness_error *err);
void harness_backend_close(harness_backend *b);

/* The CPU backend; `force_gettime` skips the TSC (tests). */
void harness_cpu_backend_init(harness_backend *b, int force_gettime);

/* "auto" -> "cuda" when a GPU is visible, else "cpu"; "cpu" and "cuda" are
 * checked. *out is a static string. */
int harness_device_resolve(const char *wanted, const char **out, harness_error *err);

#endif
