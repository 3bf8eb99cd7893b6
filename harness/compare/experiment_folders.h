/* experiment_folders.h - the experiment folders a path names: itself when
 * it is one (it holds a rank's summary or status file), else those below
 * it, to a few levels, in natural order (run-2 before run-10). compare,
 * export and record all take either, so `experiments/` works where
 * `experiments/2026-*` does. */
#ifndef HARNESS_EXPERIMENT_FOLDERS_H
#define HARNESS_EXPERIMENT_FOLDERS_H

#include <stddef.h>

#include "util/error.h"

#define HARNESS_EXPERIMENT_SEARCH_DEPTH 4 /* folders below the root searched */
#define HARNESS_EXPERIMENT_SEARCH_MAX_FOLDERS 100000 /* folders one search enters, at most */

typedef struct harness_experiment_folders {
    char **paths;                  /* malloc'ed, root-relative as joined ("root/a/b") */
    size_t n;
    int root_is_experiment;        /* paths is {root} itself */
} harness_experiment_folders;

/* 0 (n may be 0: nothing found), 2 (root missing, not a folder, or a folder
 * that cannot be read; named), 3 (out of memory). */
int harness_experiment_folders_find(const char *root, harness_experiment_folders *out, harness_error *err);
void harness_experiment_folders_free(harness_experiment_folders *f);

#endif
