/* suite_index.h - a suite folder's index.json ("harness.suite/1",
 * docs/ARCHITECTURE.md section 7) as a record, with its writer and its
 * reader: the suite's configs and every run's folders and exit code, so a
 * reader knows which folder is which config and run without parsing names.
 * cli/suite_index.c turns a live suite into this record. */
#ifndef HARNESS_FOLDER_SUITE_INDEX_H
#define HARNESS_FOLDER_SUITE_INDEX_H

#include <stddef.h>

#include "util/error.h"

typedef struct harness_suite_index_config {
    char *path;                    /* the config as given */
    double points_kept;            /* sweep points kept by --filter */
} harness_suite_index_config;

typedef struct harness_suite_index_run {
    char *config;                  /* its config's path */
    int run, exit_code;            /* run: from 1 (--runs N); the child's exit code */
    char **folders;                /* its experiment folders, relative to the suite's when inside it */
    size_t n_folders;
} harness_suite_index_run;

typedef struct harness_suite_index {
    char *status;                  /* ok | failed | interrupted */
    int runs;                      /* --runs */
    char *filter;                  /* --filter, or NULL */
    harness_suite_index_config *configs;
    size_t n_configs;
    harness_suite_index_run *experiments;
    size_t n_experiments;
} harness_suite_index;

/* The JSON text of the index (malloc'ed; NULL out of memory). */
char *harness_suite_index_write(const harness_suite_index *x);

/* The index from its text; path names it in messages. 0, 2 (not JSON,
 * another schema, a missing or mistyped key, named: json_fields.h's rules),
 * 3 out of memory. *out is freed on failure. */
int harness_suite_index_parse(const char *path, const char *text, size_t len, harness_suite_index *out,
                              harness_error *err);

void harness_suite_index_free(harness_suite_index *x);

#endif
