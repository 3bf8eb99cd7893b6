/* compare_internal.h - private to compare.c and compare_load.c: the two
 * helpers that both the loading and the matching side of `harness compare`
 * need. Nothing else in the harness should include it. */
#ifndef HARNESS_COMPARE_INTERNAL_H
#define HARNESS_COMPARE_INTERNAL_H

#include "util/error.h"

/* compare.c: set err to "out of memory" and return exit code 3. */
int harness_cmp_oom(harness_error *err);

/* compare_load.c: strcmp, except that runs of digits compare as numbers:
 * "x-10" > "x-2". Orders folder names, so the newest comes last. */
int harness_cmp_natural_cmp(const char *a, const char *b);

#endif
