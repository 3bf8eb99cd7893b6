/* sample_file.h - the per-step samples of a big run in a binary side file
 * beside its summary: as JSON text a sample costs about 20 bytes and a
 * printf and a strtod (3 million samples: a 60 MB summary written in
 * seconds); here it costs 8 bytes and a copy. The summary names the file
 * in timing.samples_file with its count and SHA-256, so a reader can tell a
 * truncated or foreign file from the one the run wrote.
 *
 * Format HARNESS_SCHEMA_SAMPLES (folder/folder_format.h), every field little-endian:
 *   offset 0   8 bytes  magic "HSAMPLES"
 *          8   u32      version, 1
 *         12   u32      header size in bytes, 32 (data starts there)
 *         16   u64      count of samples
 *         24   8 bytes  unit, ASCII, NUL-padded ("ns")
 *         32   count x IEEE-754 binary64, in step order
 * The SHA-256 is of the whole file (`sha256sum` prints the same). */
#ifndef HARNESS_SAMPLE_FILE_H
#define HARNESS_SAMPLE_FILE_H

#include <stddef.h>

#include "util/error.h"
#include "folder/folder_format.h"

#define HARNESS_SAMPLE_FILE_FORMAT HARNESS_SCHEMA_SAMPLES
#define HARNESS_SAMPLE_FILE_MAGIC "HSAMPLES"
#define HARNESS_SAMPLE_FILE_VERSION 1u
#define HARNESS_SAMPLE_FILE_HEADER 32u

/* Write v[0..n) to path atomically (a temporary file, then rename: the
 * folder's rule); sha256_hex receives the file's digest. 0, or 3 with err
 * naming the path. */
int harness_sample_file_write(const char *path, const double *v, size_t n, const char *unit, char sha256_hex[65],
                              harness_error *err);

/* What a reader expects of the file, from the summary; NULL/0: unchecked. */
typedef struct harness_sample_file_expect {
    long long count;               /* -1: any */
    const char *sha256_hex;
    const char *unit;
} harness_sample_file_expect;

/* Decode the bytes of a side file read from `path` (named in messages):
 * header, size, the expectations, every sample a finite number >= 0.
 * *out is malloc'ed (NULL when n is 0). 0, or 2 with err saying what is
 * wrong with the file (truncated, not a sample file, another version, a
 * checksum that differs) and naming it; 3 out of memory. */
int harness_sample_file_decode(const char *path, const unsigned char *data, size_t len,
                               const harness_sample_file_expect *expect, double **out, size_t *n,
                               harness_error *err);

/* Read and decode the file at path. A file that cannot be read: 2. */
int harness_sample_file_read(const char *path, const harness_sample_file_expect *expect, double **out, size_t *n,
                             harness_error *err);

#endif
