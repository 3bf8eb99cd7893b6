/* start_dir.h - the working directory the harness started in, held by a
 * descriptor taken before any plugin code runs (issue 38, item 3).
 *
 * A plugin may chdir in its init, create or step. Paths the user gave
 * relative to where they typed the command (output_dir, --plugin-path, the
 * config file) must keep meaning that folder, so the experiment folder is
 * named by an absolute path built from this one (report/experiment.c), and
 * the guard fchdirs back here after every callback (run/guard.c), for the
 * harness code that still opens a relative path. */
#ifndef HARNESS_UTIL_START_DIR_H
#define HARNESS_UTIL_START_DIR_H

#include <stddef.h>

/* Take the current directory as the start directory; later calls do
 * nothing. Called first thing in main, and again (a no-op there) by the
 * code that loads plugins, for programs that never pass through main. */
void harness_start_dir_take(void);

/* fchdir back to the start directory (a plugin may have left another).
 * Returns 0, or the errno of a failed fchdir. */
int harness_start_dir_restore(void);

/* `path` as an absolute path: itself when it starts with '/', else the
 * start directory joined with it. NULL when it does not fit in `cap` or the
 * start directory could not be read (its folder was removed). */
const char *harness_start_dir_absolute(const char *path, char *buf, size_t cap);

#endif
