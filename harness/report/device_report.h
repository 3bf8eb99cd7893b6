/* device_report.h - what the summaries say of a GPU run beyond the CPU's:
 * how steps were timed (events, per_step or batch, graph, L2 flush), the
 * host's launch time per step beside the device time, the device's
 * properties, and tracked device memory with the device's used / total.
 * Each writes nothing for a CPU run. */
#ifndef HARNESS_DEVICE_REPORT_H
#define HARNESS_DEVICE_REPORT_H

#include <stdio.h>

#include "folder/rank_summary_out.h"
#include "report/summary.h"

/* A CUDA run's records (folder/rank_summary_out.h): timing's device_timer,
 * blocking_kernel, full_sync_check and host_launch, memory.device and
 * env.gpu_device; the arrays they point into are its own. */
typedef struct harness_device_out {
    harness_device_timing_out timing;
    harness_device_memory_out memory;
    harness_gpu_device_out env;
    harness_side_work_out side_work[8];
    harness_live_out *live;        /* malloc'ed: harness_device_report_free */
} harness_device_out;

/* Fills out for a CUDA run: 1; 0 (out zeroed) for any other; -1 out of
 * memory. */
int harness_device_report_out(const harness_summary *s, harness_device_out *out);
void harness_device_report_free(harness_device_out *out);
/* The text summary's lines on the same, after the timing section. */
void harness_device_report_print(FILE *f, const harness_summary *s);

#endif
