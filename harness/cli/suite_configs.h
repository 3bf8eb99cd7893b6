/* suite_configs.h - the configs of a suite, as `harness run` and
 * `harness ab` take them: CONFIG files, folders (their *.yaml and *.yml)
 * and NAME.suite files (one config per line, relative to the file, #
 * comments), each kept when --filter matches one of its points
 * (cli/bench_filter.h). The filter comes first: a config it drops by its
 * name as written (an exact variant key) is never prepared. A kept one is
 * prepared (so a bad one is refused before anything runs), unless its
 * device is absent here (a CUDA config where no CUDA device is visible):
 * that one is skipped, with one line on stderr, and fails nothing. */
#ifndef HARNESS_SUITE_CONFIGS_H
#define HARNESS_SUITE_CONFIGS_H

#include <stddef.h>

#include "cli/commands.h"

typedef struct harness_suite_config {
    char *path;
    char *first_name;              /* the first benchmark name the filter kept, for the listing */
    char *name;                    /* the name of its first point, for a filter that keeps nothing */
    size_t kept_points;
    const char *skipped;           /* why it cannot run here (static text), or NULL */
} harness_suite_config;

typedef struct harness_suite_configs {
    harness_suite_config *configs; /* those that run: kept by the filter, their device here */
    size_t n_configs, cap;
    size_t n_skipped;              /* kept by the filter but skipped: their device is absent */
} harness_suite_configs;

/* Whether path names a suite file (its name ends in .suite). */
int harness_is_suite_file(const char *path);

/* The configs of paths[0..n) that --filter (opts->filter) keeps, prepared
 * with opts (its sets, plugin paths and device); those whose device is
 * absent are left out, each said on stderr ("harness: skipped PATH: needs
 * a CUDA device, none visible"). 0, or the exit code with the error
 * printed: 2 for a missing file, a suite file naming one (FILE:LINE), an
 * empty folder or suite, a bad config, a bad regex or a filter that keeps
 * nothing; 3 when every config the filter keeps was skipped (nothing would
 * run: as `harness run` of one such config, exit 3). */
int harness_suite_select(const harness_cli_opts *opts, const char *const *paths, size_t n,
                         harness_suite_configs *out);
void harness_suite_configs_free(harness_suite_configs *s);

#endif
