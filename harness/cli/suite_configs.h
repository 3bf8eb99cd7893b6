/* suite_configs.h - the configs of a suite, as `harness run` and
 * `harness ab` take them: CONFIG files, folders (their *.yaml and *.yml)
 * and NAME.suite files (one config per line, relative to the file, #
 * comments), each prepared (so a bad one is refused before anything runs)
 * and kept when --filter matches one of its points (cli/bench_filter.h). */
#ifndef HARNESS_SUITE_CONFIGS_H
#define HARNESS_SUITE_CONFIGS_H

#include <stddef.h>

#include "cli/commands.h"

typedef struct harness_suite_config {
    char *path;
    char *first_name;              /* the first benchmark name the filter kept, for the listing */
    char *name;                    /* the name of its first point, for a filter that keeps nothing */
    size_t kept_points;
} harness_suite_config;

typedef struct harness_suite_configs {
    harness_suite_config *configs;
    size_t n_configs, cap;
} harness_suite_configs;

/* Whether path names a suite file (its name ends in .suite). */
int harness_is_suite_file(const char *path);

/* The configs of paths[0..n) prepared with opts (its sets, plugin paths
 * and device), those --filter (opts->filter) keeps. 0, or the exit code
 * with the error printed: 2 for a missing file, a suite file naming one
 * (FILE:LINE), an empty folder or suite, a bad config, a bad regex or a
 * filter that keeps nothing. */
int harness_suite_select(const harness_cli_opts *opts, const char *const *paths, size_t n,
                         harness_suite_configs *out);
void harness_suite_configs_free(harness_suite_configs *s);

#endif
