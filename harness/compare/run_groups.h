/* run_groups.h - the runs of one compare side grouped by their matching key,
 * in O(n log n): compare used to find a run's partners by testing every other
 * run (5,000 runs a side took 22 s). Each run gets a key string - equal keys
 * for runs compare treats as the same experiment - and the runs are sorted
 * by key, so that a group is a contiguous range and a lookup a binary search.
 *
 * The key of a run is its rank and world size, and unless by_rank, its
 * variant key and component.config in a canonical form: object members
 * sorted by name, strings length-prefixed, numbers as %.17g (one text per
 * double; -0 as 0). Two configs have the same key when
 * cJSON_Compare would call them equal, except for numbers that differ by a
 * few ulps, which cJSON's tolerance merges and the key does not; a tolerance
 * cannot be hashed or sorted (it is not transitive), and the harness writes
 * a config's numbers from the same doubles every time. */
#ifndef HARNESS_RUN_GROUPS_H
#define HARNESS_RUN_GROUPS_H

#include <stddef.h>

#include "compare/comparison.h"

typedef struct harness_run_groups {
    size_t n_runs;
    char **key;                    /* per run: its key (NUL-terminated, no embedded NUL) */
    size_t *group;                 /* per run: its group */
    size_t *member;                /* run indices by group, ascending within a group */
    size_t *start;                 /* group g is member[start[g] .. start[g + 1]) */
    size_t n_groups;
} harness_run_groups;

/* Group runs[0..n) by key (with by_rank: rank and world size alone).
 * 0, or -1 out of memory (*g is then safe to free). */
int harness_run_groups_build(const harness_run_summary *runs, size_t n, int by_rank, harness_run_groups *g);
void harness_run_groups_free(harness_run_groups *g);

/* How many runs run i's group holds; *first (unless NULL) points at their
 * indices, ascending. */
size_t harness_run_groups_of(const harness_run_groups *g, size_t i, const size_t **first);

/* The group whose key is `key`, or (size_t)-1: a binary search. */
size_t harness_run_groups_find(const harness_run_groups *g, const char *key);

#endif
