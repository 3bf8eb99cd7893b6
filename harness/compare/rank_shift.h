/* rank_shift.h - the two-sample statistics behind `harness compare`'s verdict,
 * computed on replicates (window medians, run medians), never on per-step
 * samples: steps within a run are autocorrelated and share the run's offset,
 * so a test that counts them as independent reports p = 1e-66 between two
 * runs of the same code.
 *
 * The model is a shift on the log scale: cand = base * r. The test is the
 * Wilcoxon-Mann-Whitney rank-sum test with its exact null distribution
 * (small samples: 5 windows a side is the common case), the permutation
 * distribution of the mid-rank sum given the ties, so tied replicates
 * (a coarse clock, equal medians) get the p they have; the estimate of r is
 * the Hodges-Lehmann estimator (the median of the m*n pairwise log ratios),
 * and its interval is the Moses interval: two order statistics of those
 * pairwise ratios, whose coverage is 1 - 2 P(U <= k - 1) exactly under the
 * shift model and any continuous distribution. That coverage is discrete (5
 * against 5 offers 0.992, 0.984, 0.968, 0.944, ...), so the interval is
 * reported with the coverage it has, not a nominal 95%. */
#ifndef HARNESS_RANK_SHIFT_H
#define HARNESS_RANK_SHIFT_H

#include <stddef.h>

/* The exact null distribution is a table of counts, one per value of 2U,
 * for each subset size up to the smaller side, filled by one sweep over the
 * m+n replicates. It is used while the counts stay exact in doubles (at most
 * C(m+n, m) <= HARNESS_RANK_EXACT_MAX arrangements: both sides have ~25
 * replicates then) and the sweep stays small (table cells times m+n at most
 * HARNESS_RANK_EXACT_WORK: under a megabyte and ~0.1 s, whatever the sizes,
 * e.g. 3 against 10,000 replicates falls to the normal approximation).
 * Beyond, the normal approximation with tie and continuity corrections. */
#define HARNESS_RANK_EXACT_MAX 1e14
#define HARNESS_RANK_EXACT_WORK 1e8

typedef struct harness_rank_shift {
    size_t m, n;                   /* replicates of base, of cand */
    double u;                      /* #(cand > base) + #(ties) / 2 over the m*n pairs */
    double p;                      /* two-sided p of the rank-sum test */
    double min_p;                  /* the smallest two-sided p these sizes can give: 2 / C(m+n, m) */
    int exact;                     /* p and coverage exact (else normal approx.): p given the ties, coverage without */
    double ratio;                  /* Hodges-Lehmann estimate of cand / base */
    double ratio_lo, ratio_hi;     /* Moses interval of the ratio */
    double coverage;               /* its actual coverage (>= 1 - alpha when attainable) */
} harness_rank_shift;

/* Compare replicate values (> 0, e.g. medians in ns) of cand against base,
 * with the interval at the smallest attainable coverage >= 1 - alpha, or the
 * widest interval (the extreme ratios) when none attains it. NaN fields when
 * m or n is 0. Returns 0, -1 out of memory, -2 on a value <= 0 or not finite. */
int harness_rank_shift_compute(const double *base, size_t m, const double *cand, size_t n, double alpha,
                               harness_rank_shift *out);

/* P(U <= u) under the null for sizes m, n (no ties); exact in the regime
 * above, else normal with continuity correction. */
double harness_rank_cdf(size_t m, size_t n, double u);

/* The smallest two-sided p that m against n replicates can reach: 2 / C(m+n, m)
 * (capped at 1). A test at alpha below it can never reject (asv's check). */
double harness_rank_min_p(size_t m, size_t n);

/* The coverage of the interval harness_rank_shift_compute gives m against
 * n untied replicates at alpha (the narrowest at or above 1 - alpha, or the
 * widest, 1 - min_p, when none reaches it); NaN when m or n is 0. */
double harness_rank_interval_coverage(size_t m, size_t n, double alpha);

/* The standard normal quantile (for the approximation; |error| < 1e-12). */
double harness_normal_quantile(double p);

#endif
