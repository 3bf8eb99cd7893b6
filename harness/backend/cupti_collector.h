/* cupti_collector.h - the CUDA backend's kernel timeline: CUPTI's activity
 * API records kernels (CONCURRENT_KERNEL), memcpy, memset and the runtime
 * calls that launched them, during the trace window only (never a measured one), into a
 * harness_gpu_activity_list (backend/gpu_activity.h) on the host clock's
 * timeline. Compiled only into the CUDA backend module (libcupti); all that
 * can be plain C without a GPU lives in gpu_activity.c and report/gpu_trace.c.
 *
 * One collector per process (CUPTI's buffer callbacks carry no user data).
 * The sequence, on a profiled rank with profiling.cupti:
 *   cupti_collector_start(&list, &opts, err, cap)  once, after the device is
 *                                 set, before warmup; leaves it paused
 *   in the runner's trace window (after the measured windows, which are
 *   never recorded): cupti_collector_resume() before its first step,
 *                           cupti_collector_pause() after its last step has
 *                           completed (after the window's synchronize)
 *   cupti_collector_flush(err, cap)  after the run: every record into the list
 *   cupti_collector_stop()        before the context is destroyed
 * The list must outlive stop; the caller frees it. */
#ifndef HARNESS_CUPTI_COLLECTOR_H
#define HARNESS_CUPTI_COLLECTOR_H

#include <stddef.h>
#include <stdint.h>

#include "backend/gpu_activity.h"

typedef struct cupti_collector_options {
    /* The host timeline records are converted to; NULL: harness_monotonic_ns
     * (util/monotonic.h). */
    uint64_t (*host_ns)(void);
    size_t buffer_bytes;           /* per activity buffer; 0: 8 MiB */
} cupti_collector_options;

/* Registers the buffer callbacks and pairs CUPTI's clock with the host's.
 * 0, or -1 with the reason in err (CUPTI's message). */
int cupti_collector_start(harness_gpu_activity_list *list, const cupti_collector_options *opts, char *err,
                          size_t cap);
/* Record (enable the four activity kinds) / stop recording. 0 or -1. */
int cupti_collector_resume(char *err, size_t cap);
int cupti_collector_pause(char *err, size_t cap);
/* Hands every buffered record to the list (cuptiActivityFlushAll) and adds
 * CUPTI's dropped count to list->dropped. 0 or -1. */
int cupti_collector_flush(char *err, size_t cap);
/* Pauses, flushes and detaches (cuptiFinalize is left alone: CUPTI cannot
 * be re-initialised in the same process on every driver). */
void cupti_collector_stop(void);

/* CUPTI's id of `stream` (a cudaStream_t), the one its records carry:
 * how the side-stream check knows the timed stream (backend/side_streams.h).
 * After start. 0, or -1 with the reason in err. */
int cupti_collector_stream_id(void *stream, uint32_t *id, char *err, size_t cap);

/* Host ns for a CUPTI timestamp, from the pair taken at start. */
uint64_t cupti_collector_to_host_ns(uint64_t cupti_ns);

#endif
