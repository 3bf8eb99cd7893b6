/* gpu_activity.h - what a GPU did during the measurement windows, as plain
 * records: the CUDA backend's CUPTI collector (backend/cupti_*.c, inside the
 * CUDA module) fills them from CUPTI's activity buffers; the report stage
 * turns them into trace events and the per-kernel table. Plain C and no
 * CUDA types, so the conversion is unit-tested with synthetic records on a
 * machine without a GPU. */
#ifndef HARNESS_GPU_ACTIVITY_H
#define HARNESS_GPU_ACTIVITY_H

#include <stddef.h>
#include <stdint.h>

typedef enum harness_gpu_activity_kind {
    HARNESS_GPU_KERNEL = 1,        /* a kernel's execution on the device */
    HARNESS_GPU_MEMCPY,            /* a copy (host<->device, device<->device) */
    HARNESS_GPU_MEMSET,
    HARNESS_GPU_RUNTIME,           /* a host-side runtime call (launch, copy, sync) */
    HARNESS_GPU_DRIVER             /* a host-side driver launch (cuLaunchKernel): how
                                    * cuBLASLt and other libraries launch, with no
                                    * runtime call around it */
} harness_gpu_activity_kind;

typedef struct harness_gpu_activity {
    harness_gpu_activity_kind kind;
    const char *name;              /* kernel (demangled) or runtime function; memcpy kind
                                    * ("HtoD", "DtoH", "DtoD", ...); owned by the list */
    uint64_t start_ns, end_ns;     /* on the host clock's timeline (harness_monotonic_ns
                                    * base), already converted from CUPTI's timestamps */
    uint32_t device;               /* device index: the trace's pid for GPU events */
    uint32_t stream;               /* stream id: the trace's tid */
    uint32_t correlation;          /* links a RUNTIME or DRIVER record to the work it
                                    * launched; a graph launch's kernels all share it */
    uint32_t thread;               /* RUNTIME, DRIVER: host thread id */
    /* KERNEL */
    uint32_t grid[3], block[3];
    uint32_t registers_per_thread;
    uint32_t static_shared_bytes, dynamic_shared_bytes;
    /* MEMCPY, MEMSET */
    uint64_t bytes;
} harness_gpu_activity;

/* A growing list of records; names are interned copies owned by the list. */
typedef struct harness_gpu_activity_list {
    harness_gpu_activity *items;
    size_t n, cap;
    uint64_t dropped;              /* records CUPTI reported lost (full buffers) */
    uint64_t untimed;              /* device records CUPTI gave without timestamps
                                    * (start = end = 0), left out: no time to show */
    char **names;                  /* interned name copies */
    size_t n_names, cap_names;
    /* The stream the harness times (the component's), as CUPTI numbers it
     * (cuptiGetStreamIdEx): the side-stream check (backend/side_streams.h).
     * Kept by clear; timed_stream_known 0 when CUPTI could not say. */
    uint32_t timed_stream;
    int timed_stream_known;
} harness_gpu_activity_list;

/* What the trace header says of a device (the deviceProperties entries the
 * PyTorch profiler writes); the CUDA backend fills it from
 * cudaGetDeviceProperties. 0 or "" when unknown. */
typedef struct harness_gpu_device_props {
    uint32_t id;
    char name[256];
    int compute_major, compute_minor;
    uint64_t total_global_mem;
    uint32_t num_sms;
    uint32_t max_threads_per_block, max_threads_per_sm;
    uint32_t regs_per_block, regs_per_sm;
    uint32_t warp_size;
    uint64_t shared_mem_per_block, shared_mem_per_sm, shared_mem_per_block_optin;
} harness_gpu_device_props;

void harness_gpu_activity_list_init(harness_gpu_activity_list *l);
/* Frees the records and the names; the list is empty (and usable) after. */
void harness_gpu_activity_list_free(harness_gpu_activity_list *l);
/* Forgets the records and the dropped count; keeps the names (records
 * appended later may point at them) and the memory. */
void harness_gpu_activity_list_clear(harness_gpu_activity_list *l);

/* The list's own copy of `name` (one per distinct text); NULL out of memory. */
const char *harness_gpu_activity_intern(harness_gpu_activity_list *l, const char *name);

/* Appends a copy of *rec with its name interned (NULL stays NULL). 0, or -1
 * out of memory (the list is unchanged). */
int harness_gpu_activity_append(harness_gpu_activity_list *l, const harness_gpu_activity *rec);

/* A record as CUPTI timed it (start_ns, end_ns on CUPTI's clock) onto the
 * host timeline (host = CUPTI + offset_ns) and into the list. CUPTI gives a
 * kernel, copy or set start = end = 0 when it could not time it: such a
 * record is counted in l->untimed and left out, never shown as a 0-ns call
 * at time "offset". 1 appended, 0 left out, -1 out of memory. */
int harness_gpu_activity_add_cupti(harness_gpu_activity_list *l, const harness_gpu_activity *rec, int64_t offset_ns);

/* Whether a driver API call (named without its _vNNNN suffix) is one the
 * timeline keeps: the launches. Every runtime call also makes driver calls,
 * so the rest would double the host rows without adding a launch. */
int harness_gpu_driver_call_kept(const char *name);

#endif
