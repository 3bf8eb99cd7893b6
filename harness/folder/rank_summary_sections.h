/* rank_summary_sections.h - the writers of the rest of a summary's
 * sections (rank_summary_sections.c): validation, schedule, throughput,
 * roofline, memory, trace, regions, communication, gpu_kernels, warnings. Each a new node, for
 * rank_summary_write.c. */
#ifndef HARNESS_FOLDER_RANK_SUMMARY_SECTIONS_H
#define HARNESS_FOLDER_RANK_SUMMARY_SECTIONS_H

#include <cjson/cJSON.h>

#include "folder/rank_summary_out.h"

cJSON *harness_rs_write_validation(const harness_validation_out *v);
cJSON *harness_rs_write_schedule(const harness_schedule_out *s);
cJSON *harness_rs_write_throughput(const harness_throughput_out *t);
cJSON *harness_rs_write_roofline(const harness_roofline_out *r);
cJSON *harness_rs_write_communication(const harness_comm_out *c, size_t n);   /* c NULL: null */
cJSON *harness_rs_write_memory(const harness_memory_out *m);
cJSON *harness_rs_write_trace(const harness_trace_out *t);
cJSON *harness_rs_write_regions(const harness_region_out *r, size_t n);
cJSON *harness_rs_write_gpu_kernels(int known, const harness_gpu_kernel_out *k, size_t n);   /* !known: null */
cJSON *harness_rs_write_warnings(const char *const *text, size_t n);

#endif
