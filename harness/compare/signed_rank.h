/* signed_rank.h - paired statistics for the interleaved A/B mode: round i
 * ran base and candidate back to back, so d_i = log(cand_i / base_i) has
 * the round's drift (clocks, heat, a neighbour) divided out.
 *
 * Everything the verdict uses is the sign test's, which counts a round as
 * one sign whatever its size, so one wild round (a neighbour's burst in one
 * half: off by 14-180%) weighs what any other round does:
 *   - p: the exact two-sided sign test of the nonzero d_i (zeros dropped),
 *     2 P(B <= min(#positive, #negative)), B ~ Binomial(nz, 1/2);
 *   - the ratio: exp(median of the d_i), the estimate the sign test inverts;
 *   - its interval: two order statistics [d_(k), d_(n+1-k)], which cover the
 *     median of d with probability 1 - 2 P(B <= k - 1), B ~ Binomial(n, 1/2),
 *     for any continuous distribution of d (no symmetry needed), discrete
 *     like the Moses interval (rank_shift.h). Up to k - 1 wild rounds on
 *     each side move neither end: at 10 rounds and alpha 0.05, k = 2 (97.9%).
 * Tukey's interval (order statistics of the Walsh averages (d_i + d_j) / 2)
 * had every Walsh average of a wild round beyond a 5% threshold, so one wild
 * round in ten turned identical code AMBIGUOUS; and the Wilcoxon
 * signed-rank test gives a wild round against the change the largest rank,
 * so one such round hid an 8% slowdown (p = 0.084 at 10 rounds). The
 * exact signed-rank p (sign flips of the mid-ranks, given their ties) is
 * still computed, for reference. Both tests' least p over nz nonzero
 * rounds is 2 / 2^nz. The d_i are assumed independent. */
#ifndef HARNESS_SIGNED_RANK_H
#define HARNESS_SIGNED_RANK_H

#include <stddef.h>

/* Nonzero rounds beyond which the normal approximation (tie-corrected)
 * replaces the exact table: 2^50 patterns still count exactly in doubles. */
#define HARNESS_SIGNED_RANK_EXACT_MAX 50

typedef struct harness_signed_rank {
    size_t n;                      /* pairs */
    double w;                      /* sum of the ranks of |d_i| with d_i > 0 (zeros dropped, ties mid-ranked) */
    double signed_rank_p;          /* two-sided Wilcoxon signed-rank p of w (for reference) */
    size_t n_positive;             /* pairs with d_i > 0 */
    double p;                      /* two-sided sign test: the verdict's */
    double min_p;                  /* 2 / 2^(n - n_zero): the smallest p these pairs can give */
    size_t n_zero;                 /* pairs with d_i = 0: dropped from the test */
    double ratio;                  /* exp(median of d) */
    double ratio_lo, ratio_hi;     /* exp(d_(k)), exp(d_(n+1-k)): the sign-test interval */
    size_t k;                      /* its order statistic, 1-based */
    double coverage;               /* 1 - 2 P(B <= k - 1) */
} harness_signed_rank;

/* P(W <= w) under the null for n pairs without ties. */
double harness_signed_rank_cdf(size_t n, double w);

/* P(B <= j), B ~ Binomial(n, 1/2): the sign test's null. Exact to rounding
 * up to 1000 pairs, the normal approximation (continuity-corrected) beyond. */
double harness_sign_test_cdf(size_t n, size_t j);

/* Pairs (base[i], cand[i]) > 0; interval at the smallest attainable coverage
 * >= 1 - alpha, else the widest. 0, -1 out of memory, -2 a value <= 0. */
int harness_signed_rank_compute(const double *base, const double *cand, size_t n, double alpha,
                                harness_signed_rank *out);

#endif
