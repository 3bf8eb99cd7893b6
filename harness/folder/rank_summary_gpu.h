/* rank_summary_gpu.h - the writers of a CUDA run's members of the summary
 * (rank_summary_gpu.c): in timing, a window, memory and env. Each adds its
 * members to the section's node o. */
#ifndef HARNESS_FOLDER_RANK_SUMMARY_GPU_H
#define HARNESS_FOLDER_RANK_SUMMARY_GPU_H

#include <cjson/cJSON.h>

#include "folder/rank_summary_out.h"

/* device_timer, blocking_kernel, full_sync_check, host_launch. */
void harness_rs_write_device_timing(cJSON *o, const harness_device_timing_out *d);
/* "device_clocks": the run's, and a window's. */
cJSON *harness_rs_write_device_clocks(const harness_device_clocks_out *c);
cJSON *harness_rs_write_clock_figures(const harness_clock_figures_out *f);
/* memory.device, env.gpu_device. */
cJSON *harness_rs_write_device_memory(const harness_device_memory_out *m);
cJSON *harness_rs_write_gpu_device(const harness_gpu_device_out *g);
/* a live set at a peak: [{tag, owner, bytes}] */
cJSON *harness_rs_write_live(const harness_live_out *live, size_t n);

#endif
