/* rank_summary_extra.h - the parts of a summary that are records of their
 * own (rank_summary_extra.c): statistics, energy, noise, env, an
 * impossible figure; for the reader (rank_summary.c, rank_summary_timing.c). */
#ifndef HARNESS_FOLDER_RANK_SUMMARY_EXTRA_H
#define HARNESS_FOLDER_RANK_SUMMARY_EXTRA_H

#include <cjson/cJSON.h>

#include "folder/rank_summary_out.h"
#include "folder/rank_summary_record.h"
#include "util/error.h"

/* An "energy" object at obj.energy (prefix: obj's dotted path). */
int harness_rs_read_energy(const cJSON *obj, const char *prefix, const char *path, harness_energy_record *out,
                           harness_error *err);
void harness_rs_energy_free(harness_energy_record *e);
/* The statistics of timing or of a window. */
int harness_rs_read_stats(const cJSON *obj, const char *prefix, const char *path, harness_stats_record *out,
                          harness_error *err);
void harness_rs_stats_free(harness_stats_record *s);
int harness_rs_read_noise(const cJSON *root, const char *path, harness_rank_summary *out, harness_error *err);
int harness_rs_read_env(const cJSON *root, const char *path, harness_rank_summary *out, harness_error *err);
int harness_rs_read_impossible(const cJSON *root, const char *path, harness_rank_summary *out, harness_error *err);

/* The writers (rank_summary_write.c): the statistics' members into o; each
 * other section a new node. */
void harness_rs_write_stats(cJSON *o, const harness_stats *st);
cJSON *harness_rs_write_energy(const harness_energy_out *e);
cJSON *harness_rs_write_noise(const harness_noise_out *n);
cJSON *harness_rs_write_env(const harness_env_out *e);
cJSON *harness_rs_write_impossible(const harness_impossible_out *i);

#endif
