/* fsutil.h - files written so that a crash never leaves half of one. */
#ifndef HARNESS_FSUTIL_H
#define HARNESS_FSUTIL_H

#include <stddef.h>
#include <stdio.h>

#include "util/error.h"

/* Write `len` bytes to `path` through a temporary file in the same directory
 * and rename(2): readers see the old file or the whole new one. */
int harness_write_atomic(const char *path, const void *data, size_t len, harness_error *err);

/* The same for output too big to hold in memory: write to the returned
 * FILE, then commit (flush, fsync, rename) or abort (remove the temporary).
 * `tmp` receives the temporary name; it must hold 4096 bytes. */
FILE *harness_atomic_open(const char *path, char *tmp, harness_error *err);
int harness_atomic_commit(FILE *f, const char *tmp, const char *path, harness_error *err);
void harness_atomic_abort(FILE *f, const char *tmp);

/* Remove the temporary file of a write in progress, if any: for a signal
 * handler about to _exit (async-signal-safe). */
void harness_atomic_remove_pending(void);

/* Read a whole file (NUL-terminated; *len excludes the NUL). */
int harness_read_file(const char *path, char **data, size_t *len, harness_error *err);

/* mkdir -p */
int harness_mkdirs(const char *path, harness_error *err);

/* Remove dir and the files in it (a folder of files alone, as a
 * scaffold or a dashboard being written is): for undoing a write of
 * several files in a fresh folder. What cannot be removed is left. */
void harness_remove_flat_dir(const char *dir);

/* dir/name with one slash between them however many dir ends with ("/"
 * alone stays the root); malloc'ed, NULL out of memory. */
char *harness_path_join(const char *dir, const char *name);

#endif
