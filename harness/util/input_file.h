/* input_file.h - reading a file the user names (a config, a summary) once,
 * safely: only a regular file, and only up to a size, so that a FIFO does
 * not block, /dev/zero does not eat memory, and what was parsed is exactly
 * what was read. */
#ifndef HARNESS_INPUT_FILE_H
#define HARNESS_INPUT_FILE_H

#include <stddef.h>

#include "util/error.h"

#define HARNESS_MAX_INPUT_BYTES (16u << 20)
/* What the harness reads back from a folder it wrote (summaries, traces,
 * samples files): a trace of a million events is a few hundred MiB. */
#define HARNESS_MAX_READ_BACK_BYTES (1024u << 20)

#include <stdio.h>

/* Read all of `path` (NUL-terminated; *len excludes the NUL). `what` names
 * it in messages ("config"); failures are `code` (2 for a config). */
int harness_read_input_file(const char *path, const char *what, size_t max_bytes, int code, char **data,
                            size_t *len, harness_error *err);

/* fopen(path, "r") of a regular file only, never waiting on a FIFO; NULL
 * with errno set (EINVAL: not a regular file). For small line-by-line
 * reads (a libtool .la), where the caller stops at a line limit. */
FILE *harness_open_regular(const char *path);

#endif
