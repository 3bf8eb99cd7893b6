/* suite_index.h - a suite folder's index.json (HARNESS_SCHEMA_SUITE,
 * docs/ARCHITECTURE.md section 7): the suite's configs and every run's
 * folders and exit code, written by `harness run` over a suite
 * (run_suite.c). */
#ifndef HARNESS_SUITE_INDEX_H
#define HARNESS_SUITE_INDEX_H

#include <stddef.h>

#include "cli/suite_configs.h"

typedef struct harness_suite_run {
    size_t config;                 /* index into the suite's configs */
    int run, exit_code;
    char *folders;                 /* the child's stdout: one experiment folder per line */
} harness_suite_run;

typedef struct harness_suite {
    harness_suite_configs sel;
    harness_suite_run *runs;
    size_t n_runs;
} harness_suite;

/* The index of suite s in folder dir (its JSON text, malloc'ed; NULL out
 * of memory), with `runs` and `filter` as asked and status ok | failed |
 * interrupted. What was asked, and every run's folders and exit code, so a
 * reader knows which folder is which config and run without parsing names. */
char *harness_suite_index_json(const harness_suite *s, int runs, const char *filter, const char *dir,
                               const char *status);

#endif
