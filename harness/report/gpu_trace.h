/* gpu_trace.h - the GPU timeline of a Chrome trace and the per-kernel table,
 * from the records of backend/gpu_activity.h. The events follow what the
 * PyTorch profiler (Kineto) writes, so the tools that read its traces (HTA,
 * Perfetto, TensorBoard's plugin) read ours:
 *   - a process per GPU (pid = device index, "GPU N"), a thread per stream
 *     (tid = CUPTI's stream id, "stream N");
 *   - X events with cat "kernel", "gpu_memcpy", "gpu_memset" on the GPU,
 *     "cuda_runtime" on the host process, one thread per host thread;
 *   - X events with cat "cuda_driver" for driver launches (cuLaunchKernel,
 *     as cuBLASLt launches), on the host threads beside the runtime calls;
 *   - an "ac2g" flow from each runtime call (else the driver launch, when no
 *     runtime call has the id) to the work it launched: ph "s" on the call,
 *     ph "f" with bp "e" on the kernel, id = correlation id; a graph launch's
 *     second and later kernels (one correlation id for all) get their own
 *     flows, id = k << 32 | correlation id;
 *   - ts/dur in microseconds from the trace's base time with the
 *     nanoseconds as three decimals (small relative values: a double keeps
 *     them exact, where absolute ns since boot would lose the last digits). */
#ifndef HARNESS_GPU_TRACE_H
#define HARNESS_GPU_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "backend/gpu_activity.h"

/* Writes ns as microseconds with three decimals: 1234 -> 1.234. */
void harness_trace_put_us(FILE *f, int64_t ns);

/* The "deviceProperties" array (Kineto's keys: id, name, totalGlobalMem,
 * computeMajor, numSms, ...), without the key; [] when n is 0. */
void harness_gpu_trace_device_properties(FILE *f, const harness_gpu_device_props *devices, size_t n);

typedef struct harness_gpu_trace_target {
    uint64_t base_ns;              /* the trace's time zero on the records' timeline (harness_monotonic_ns) */
    int host_pid;                  /* the process that holds the runtime calls */
    int first_host_tid;            /* runtime calls go on this tid and up, one per host thread */
} harness_gpu_trace_target;

/* Metadata (process and thread names), the events and the flows of l, in
 * start order, each followed by ",\n". Returns the number of events
 * written; -1 out of memory (nothing written). */
long harness_gpu_trace_events(FILE *f, const harness_gpu_activity_list *l, const harness_gpu_trace_target *t);

/* One row of the per-kernel table (the PyTorch profiler's "top CUDA
 * kernels"): KERNEL records grouped by name. */
typedef struct harness_gpu_kernel_row {
    const char *name;              /* the list's interned name */
    size_t calls;
    double total_ns, mean_ns, min_ns, max_ns;
    double share;                  /* total_ns / the time of all kernels */
} harness_gpu_kernel_row;

/* The rows, by total time, longest first (ties by name); *rows is
 * malloc'ed (NULL when there is no kernel). *kernel_ns (may be NULL) gets the
 * time of all kernels. 0, or -1 out of memory. */
int harness_gpu_kernel_table(const harness_gpu_activity_list *l, harness_gpu_kernel_row **rows, size_t *n,
                             double *kernel_ns);

#endif
