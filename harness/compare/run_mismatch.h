/* run_mismatch.h - why no run of one side matches a run of the other:
 * the keys that differ between the base's first run and the nearest
 * candidate run (variant key, config keys, rank and world size), so that
 * "nothing to compare" names what to fix. */
#ifndef HARNESS_RUN_MISMATCH_H
#define HARNESS_RUN_MISMATCH_H

#include <stddef.h>

#include "compare/comparison.h"

/* "BASE's rms_norm/cpu hidden_size=4096, CAND's nearest run has
 * hidden_size=2048" (each side named by its root) into out; "" when a side
 * has no runs. */
void harness_cmp_mismatch_text(const harness_compare_side *base, const harness_compare_side *cand, char *out,
                               size_t cap);

#endif
