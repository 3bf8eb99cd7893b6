/* report_files.h - `--report FORMAT=FILE` of `harness compare` and `harness
 * ab`: the same verdict in more formats, each to its file, besides the one
 * --format prints on stdout (a CI job posts the markdown as a comment and
 * hands the JUnit to its test view, from one run). */
#ifndef HARNESS_REPORT_FILES_H
#define HARNESS_REPORT_FILES_H

#include <stddef.h>

#include "compare/printer.h"
#include "util/error.h"

#define HARNESS_MAX_REPORT_FILES 8

typedef struct harness_report_files {
    const harness_printer *printer[HARNESS_MAX_REPORT_FILES];
    const char *path[HARNESS_MAX_REPORT_FILES];
    size_t n;
} harness_report_files;

/* One --report argument: FORMAT=FILE, FORMAT a comparison's --format word.
 * A bad one is exit 2 naming the formats; a FILE whose folder cannot be
 * written to is exit 3 naming it, before anything runs (ab's rounds take
 * minutes). */
int harness_report_files_add(harness_report_files *r, const char *arg, harness_error *err);

/* Every report, each written whole or not at all (a temporary file renamed
 * into place); the first that fails is exit 3 naming its file, the others
 * still written. */
int harness_report_files_write(const harness_report_files *r, const harness_comparison *c, harness_error *err);

#endif
