/* signed_rank.h - paired statistics for the interleaved A/B mode: round i
 * ran base and candidate back to back, so d_i = log(cand_i / base_i) has
 * the round's drift (clocks, heat, a neighbour) divided out. The test is
 * the Wilcoxon signed-rank test with its exact null distribution (the sign
 * flips of the mid-ranks, given their ties; zero differences dropped), the
 * estimate of the ratio is the Hodges-Lehmann one (the median of the Walsh
 * averages (d_i + d_j) / 2, i <= j), and its interval is Tukey's: two order
 * statistics of the Walsh averages, with coverage 1 - 2 P(W <= k - 1),
 * discrete like the Moses interval (rank_shift.h). Assumes the d_i are
 * independent and symmetric about the true log ratio. */
#ifndef HARNESS_SIGNED_RANK_H
#define HARNESS_SIGNED_RANK_H

#include <stddef.h>

/* Nonzero rounds beyond which the normal approximation (tie-corrected)
 * replaces the exact table: 2^50 patterns still count exactly in doubles. */
#define HARNESS_SIGNED_RANK_EXACT_MAX 50

typedef struct harness_signed_rank {
    size_t n;                      /* pairs */
    double w;                      /* sum of the ranks of |d_i| with d_i > 0 (zeros dropped, ties mid-ranked) */
    double p;                      /* two-sided */
    double min_p;                  /* 2 / 2^(n - n_zero): the smallest p these pairs can give */
    size_t n_zero;                 /* pairs with d_i = 0: dropped from the test */
    double ratio, ratio_lo, ratio_hi;
    double coverage;
} harness_signed_rank;

/* P(W <= w) under the null for n pairs without ties. */
double harness_signed_rank_cdf(size_t n, double w);

/* Pairs (base[i], cand[i]) > 0; interval at the smallest attainable coverage
 * >= 1 - alpha, else the widest. 0, -1 out of memory, -2 a value <= 0. */
int harness_signed_rank_compute(const double *base, const double *cand, size_t n, double alpha,
                                harness_signed_rank *out);

#endif
