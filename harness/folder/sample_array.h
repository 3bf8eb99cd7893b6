/* sample_array.h - a long array of per-step samples as JSON text in one
 * pass, for the summary: a cJSON node per sample costs about 64 bytes and
 * a slow print, which made a million-sample summary take seconds. The
 * numbers are written as cJSON writes them (15 significant digits when
 * they read back to within DBL_EPSILON, else 17), so the file is the same
 * as before. */
#ifndef HARNESS_SAMPLE_ARRAY_H
#define HARNESS_SAMPLE_ARRAY_H

#include <cjson/cJSON.h>
#include <stddef.h>

/* A raw cJSON item holding "[a, b, ...]"; NULL when out of memory. */
cJSON *harness_sample_array_json(const double *v, size_t n);

/* The reference to samples in a side file (folder/samples.h), which a
 * summary holds instead of the array: {"name", "format", "count", "unit",
 * "sha256"}. */
cJSON *harness_sample_file_ref_json(const char *name, size_t n, const char *unit, const char *sha256_hex);

#endif
