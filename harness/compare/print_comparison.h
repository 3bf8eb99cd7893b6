/* print_comparison.h - the printers of a comparison (`harness compare`,
 * `harness ab`; printer.h) and what their formats share
 * (print_comparison.c): the table's cells, the rounds' cells, the headline's
 * counts, the method in words. Not for other stages. */
#ifndef HARNESS_COMPARE_PRINT_COMPARISON_H
#define HARNESS_COMPARE_PRINT_COMPARISON_H

#include <stddef.h>
#include <stdio.h>

#include "compare/compare.h"

/* One per format (print_comparison_<format>.c). */
int harness_print_comparison_text(FILE *f, const harness_comparison *c, const harness_text_style *style);
int harness_print_comparison_markdown(FILE *f, const harness_comparison *c, const harness_text_style *style);
int harness_print_comparison_json(FILE *f, const harness_comparison *c, const harness_text_style *style);
int harness_print_comparison_junit(FILE *f, const harness_comparison *c, const harness_text_style *style);

/* ---- the pairs' table ---- */

#define PRINT_CMP_COLS 12
#define PRINT_CMP_COL_VERDICT (PRINT_CMP_COLS - 1)

/* The table's headers for a comparison's metric, "base median" and "cand
 * median" naming it (valid until the next call). */
const char *const *print_cmp_headers(const harness_comparison *c);

/* The cells of one pair's row, in the order of the headers. */
typedef struct print_cmp_cells {
    char rank[32], base[32], cand[32], ratio[32], ci[96], change[32], tail[32], reps[64], p[32];
    const char *cell[PRINT_CMP_COLS];
} print_cmp_cells;
void print_cmp_row(const harness_comparison *c, const harness_compare_pair *pr, print_cmp_cells *r);

/* ---- the rounds of an A/B run ---- */

#define PRINT_CMP_ROUND_COLS 6

/* "round", "first", "base median", "cand median", "cand/base", "state"
 * (valid until the next call). */
const char *const *print_cmp_round_headers(const harness_comparison *c);

/* The cells of one round, in the order of the round headers; a suite's
 * rounds say their benchmark too ("2/3": benchmark 2's round 3). */
typedef struct print_cmp_round_cells {
    char round[24], base[32], cand[32], ratio[32], state[64];
    const char *cell[PRINT_CMP_ROUND_COLS];
} print_cmp_round_cells;
void print_cmp_round_row(const harness_comparison *c, const harness_ab_round *r, print_cmp_round_cells *out);

/* ---- lines ---- */

/* one or many by n */
const char *print_cmp_plural(size_t n, const char *one, const char *many);
/* "FOLDER: rank 0/2", or "FOLDER" when the folder does not say its job's size. */
const char *print_cmp_incomplete_where(const harness_incomplete_run *r, char *buf, size_t cap);
/* "1 regression, 0 improvements, 2 same, 1 ambiguous, 1 failed, 1 unmatched" */
void print_cmp_counts(FILE *f, const harness_comparison *c);
/* " (interference)" or " (2 unresolved, 1 interference)" after an AMBIGUOUS
 * headline; nothing for another verdict. */
void print_cmp_causes(FILE *f, const harness_comparison *c);
/* "metric median, threshold 5%, alpha 0.05, ambiguous fails" */
void print_cmp_params(FILE *f, const harness_comparison *c);
/* "the p90 moved +30.2% [1.251, 1.334] (REGRESSION by the p90) while the
 * median did not; gate on the tail with --metric p90" */
void print_cmp_tail_text(char *buf, size_t cap, const harness_comparison *c, const harness_compare_pair *p);
/* a side's path, "-" when none */
const char *print_cmp_root(const harness_compare_side *s);
/* "results database", "folder of experiments" or "experiment folder" */
const char *print_cmp_side_kind(const harness_compare_side *s);
/* The method in words: of A/B rounds, or of replicates of runs. */
const char *print_cmp_method(const harness_comparison *c);

#endif
