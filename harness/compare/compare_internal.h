/* compare_internal.h - private to compare/: the helpers that both the
 * loading and the matching side of `harness compare` need. Nothing else in
 * the harness should include it. */
#ifndef HARNESS_COMPARE_INTERNAL_H
#define HARNESS_COMPARE_INTERNAL_H

#include "compare/comparison.h"
#include "util/error.h"

/* compare_common.c: set err to "out of memory" and return exit code 3. */
int harness_cmp_oom(harness_error *err);

/* compare_common.c: strcmp, except that runs of digits compare as numbers:
 * "x-10" > "x-2". Orders folder names, so the newest comes last. */
int harness_cmp_natural_cmp(const char *a, const char *b);

/* compare.c: whether run a is newer than run b of the same key (its folder
 * name later in natural order, then its path), and the report's order of
 * runs (variant, config, world size, rank, path) for qsort of
 * harness_run_summary pointers. */
int harness_cmp_newer(const harness_run_summary *a, const harness_run_summary *b);
int harness_cmp_run_order(const void *pa, const void *pb);

/* compare.c, for compare_ab.c: a note (printf-style; 0 or 3 out of
 * memory), FAILED when either run is not ok, the replicate statistics of
 * rank_shift.h into *s (0, -1 out of memory, -2 a value <= 0), the counts
 * and overall verdict of the pairs. */
/* Start *out as a comparison of the two sides, moved into it (and zeroed). */
void harness_cmp_take_sides(harness_comparison *out, harness_compare_side *base, harness_compare_side *cand,
                            const harness_compare_options *o);
/* With two or more pairs that have a p: each judged again on its
 * Benjamini-Hochberg adjusted p (q), with notes saying so (compare.c). */
int harness_cmp_control_fdr(harness_comparison *c, harness_error *err);
int harness_cmp_add_note(harness_comparison *c, harness_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void harness_cmp_judge_failed(harness_compare_pair *p);
int harness_cmp_replicate_stats(const double *base, size_t nb, const double *cand, size_t nc,
                                const harness_compare_options *o, harness_compare_stats *s);
void harness_cmp_tally(harness_comparison *c);

/* compare.c: the tail's moved_alone from the pair's two verdicts; the
 * note on processes that disagree (pairs: which runs were paired). */
void harness_cmp_tail_moved(harness_compare_pair *p);
struct harness_process_spread;
int harness_cmp_note_spread(harness_comparison *c, const harness_compare_pair *p,
                            const struct harness_process_spread *spread, const char *pairs, harness_error *err);

#endif
