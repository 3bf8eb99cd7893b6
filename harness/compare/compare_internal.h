/* compare_internal.h - private to compare/: the helpers that both the
 * loading and the matching side of `harness compare` need. Nothing else in
 * the harness should include it. */
#ifndef HARNESS_COMPARE_INTERNAL_H
#define HARNESS_COMPARE_INTERNAL_H

#include "compare/compare.h"
#include "util/error.h"

/* compare.c: set err to "out of memory" and return exit code 3. */
int harness_cmp_oom(harness_error *err);

/* compare_load.c: strcmp, except that runs of digits compare as numbers:
 * "x-10" > "x-2". Orders folder names, so the newest comes last. */
int harness_cmp_natural_cmp(const char *a, const char *b);

/* compare_replicates.c: the window medians and the noise warnings of a
 * parsed summary's root into *out. 0, or 2 (a mistyped key, named) or 3. */
struct cJSON;
int harness_cmp_parse_replicates(const struct cJSON *root, const char *path, harness_run_summary *out,
                                 harness_error *err);

#endif
