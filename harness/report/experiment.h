/* experiment.h - the experiment folder (docs/ARCHITECTURE.md section 7):
 * <output_dir>/<YYYY-MM-DD__HH-MM-SS>_<hash8>[-N]/ */
#ifndef HARNESS_EXPERIMENT_H
#define HARNESS_EXPERIMENT_H

#include <time.h>

#include "util/error.h"
#include "util/folder_format.h"           /* the names of the files inside */

typedef struct harness_experiment {
    char dir[4096];
} harness_experiment;

/* Create a fresh folder named for `when` (local time) and `hash8`; a second
 * run in the same second gets "-2", then "-3", ... */
int harness_experiment_create(harness_experiment *exp, const char *output_dir, time_t when, const char *hash8,
                              harness_error *err);

/* "<dir>/<name>" into buf. */
const char *harness_experiment_path(const harness_experiment *exp, const char *name, char *buf, size_t cap);

#endif
