/* experiment.h - the experiment folder (docs/ARCHITECTURE.md section 7):
 * <output_dir>/<YYYY-MM-DD__HH-MM-SS>_<hash8>[-N]/ */
#ifndef HARNESS_EXPERIMENT_H
#define HARNESS_EXPERIMENT_H

#include <time.h>

#include "util/error.h"
#include "folder/folder_format.h"           /* the names of the files inside */

typedef struct harness_experiment {
    char dir[4096];                /* absolute: every file is written under it (below) */
    char shown[4096];              /* as the user named it (output_dir + name), for printing; "" on other ranks */
} harness_experiment;

/* Create a fresh folder named for `when` (local time) and `hash8`; a second
 * run in the same second gets "-2", then "-3", ... A relative output_dir is
 * taken against the start directory (util/start_dir.h), never the working
 * directory of the moment: a plugin may have changed it, and every file of
 * the folder, written from signal handlers and the watchdog too, must land
 * in the one folder printed. */
int harness_experiment_create(harness_experiment *exp, const char *output_dir, time_t when, const char *hash8,
                              harness_error *err);

/* What to print for the folder: `shown`, or `dir` when it is empty. */
const char *harness_experiment_shown(const harness_experiment *exp);

/* "<dir>/<name>" into buf. */
const char *harness_experiment_path(const harness_experiment *exp, const char *name, char *buf, size_t cap);

#endif
