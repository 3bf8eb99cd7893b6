/* device_report.h - what the summaries say of a GPU run beyond the CPU's:
 * how steps were timed (events, per_step or batch, graph, L2 flush), the
 * host's launch time per step beside the device time, the device's
 * properties, and tracked device memory with the device's used / total.
 * Each writes nothing for a CPU run. */
#ifndef HARNESS_DEVICE_REPORT_H
#define HARNESS_DEVICE_REPORT_H

#include <stdio.h>

#include "report/summary.h"

struct cJSON;

/* Adds "device_timer" and "host_launch" to the summary's timing object,
 * "device" to its memory object and "gpu_device" to its env object. */
void harness_device_report_json(const harness_summary *s, struct cJSON *timing, struct cJSON *memory,
                                struct cJSON *env);
/* The text summary's lines on the same, after the timing section. */
void harness_device_report_print(FILE *f, const harness_summary *s);

#endif
