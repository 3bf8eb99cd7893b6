/* compare_keys.h - what makes two runs "the same run" for compare, as a
 * string: the variant key, the component config with its keys sorted (so
 * key order does not matter), world size and rank; or only world size and
 * rank when two experiment folders are compared rank by rank. Sorting by
 * it makes finding duplicates and matches O(n log n) instead of comparing
 * every run with every other. */
#ifndef HARNESS_COMPARE_KEYS_H
#define HARNESS_COMPARE_KEYS_H

#include <stddef.h>

#include "compare/compare.h"
#include "compare/compare_internal.h"

typedef struct harness_run_key {
    const harness_run_summary *run;
    size_t index;                  /* of run in the array the keys were made from */
    char *key;
} harness_run_key;

/* Keys of the n runs, sorted by key (equal keys keep the runs' order). */
int harness_run_keys(const harness_run_summary *const *runs, size_t n, int by_rank, harness_run_key **out,
                     harness_error *err);

/* The first index whose key is `key`, or n. */
size_t harness_run_keys_find(const harness_run_key *keys, size_t n, const char *key);

void harness_run_keys_free(harness_run_key *keys, size_t n);

#endif
