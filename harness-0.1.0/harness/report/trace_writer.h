/* trace_writer.h - profiler_trace_ranks_N_rank_r.json: the Chrome trace
 * format (Perfetto, chrome://tracing). One process per rank; its "steps"
 * thread holds every recorded measured step as an X span (window and step
 * index in args) with the component's regions nested inside, and memory is a
 * counter track. ts/dur are microseconds from the base time recorded in
 * otherData, with nanosecond fractions.
 *
 * The header also carries what the PyTorch profiler (Kineto) writes:
 * schemaVersion, deviceProperties, distributedInfo {rank, world_size} and
 * baseTimeNanoseconds (the base time, ns since the epoch). With GPU records
 * (report/gpu_trace.h) the trace gains a process per GPU and the runtime
 * calls, on the same time base: then the host process's pid is the OS
 * process id, as in Kineto's traces, since GPU processes use pid = device
 * index; without them it is the rank. */
#ifndef HARNESS_TRACE_WRITER_H
#define HARNESS_TRACE_WRITER_H

#include "util/error.h"
#include "backend/gpu_activity.h"
#include "run/profiler.h"

typedef struct harness_trace_meta {
    int rank, world_size;
    const char *variant_key;
    const char *device_name;
    const char *harness_version;
    /* CUDA runs with profiling.cupti: the records of the measurement windows
     * and the devices (NULL, 0 otherwise). */
    const harness_gpu_activity_list *gpu;
    const harness_gpu_device_props *gpu_devices;
    size_t n_gpu_devices;
    /* The collectives the component called (ABI 2.2), as spans on a
     * "communication" thread; NULL: none. */
    const struct harness_comm_log *comm;
} harness_trace_meta;

int harness_trace_write(const harness_profiler *p, const harness_trace_meta *meta, const char *path,
                        harness_error *err);

#endif
