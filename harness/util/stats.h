/* stats.h - summary statistics of per-step timings (docs/ARCHITECTURE.md section 8). */
#ifndef HARNESS_STATS_H
#define HARNESS_STATS_H

#include <stddef.h>

typedef struct harness_stats {
    size_t n;
    double mean, stddev, cv;       /* stddev: sample (n-1); cv = stddev / mean */
    double min, p5, p25, median, p75, p90, p95, p99, max;
    double iqr;                    /* p75 - p25 */
    size_t outliers;               /* outside the Tukey fences p25 - 1.5 IQR, p75 + 1.5 IQR */
    double ci95_lo, ci95_hi;       /* distribution-free CI of the median (order statistics), >= 95% from n = 6 */
    double ci_level;               /* its exact coverage: >= 0.95 from n = 6, less below (n = 5: 0.9375) */
} harness_stats;

/* Compute over n samples (any unit; not modified). n == 0 gives all zeros.
 * Returns 0, or -1 when out of memory. */
int harness_stats_compute(const double *samples, size_t n, harness_stats *out);

/* Sort ascending; NaNs last (one total order, so qsort stays in bounds). */
void harness_sort_doubles(double *v, size_t n);

/* Benjamini-Hochberg adjusted p-values of p[0..m) into q[0..m) (same
 * order): q_i = min over p_j >= p_i of min(1, m p_j / rank_j); calling
 * q_i <= alpha controls the false discovery rate at alpha. Equal p share
 * their q. Pass only the p of tests that were made (m counts them all).
 * Returns -1 when out of memory. */
int harness_bh_adjust(const double *p, size_t m, double *q);

/* The median of v[0..n), which it sorts in place (harness_sort_doubles):
 * the quantile 0.5 of harness_quantile_sorted, so every median of the
 * harness (summaries, compare, calibration, change points) is the same
 * statistic. n == 0 gives 0. */
double harness_median(double *v, size_t n);

/* Quantile q in [0,1] of sorted data by linear interpolation between order
 * statistics (Hyndman-Fan type 7, numpy's default). n == 0 gives 0. */
double harness_quantile_sorted(const double *sorted, size_t n, double q);

/* 0-based indices (lo, hi) into sorted data such that [sorted[lo], sorted[hi]]
 * covers the median with probability >= 0.95 under any continuous
 * distribution (binomial order statistics). For n < 6 no such pair exists;
 * then lo = 0, hi = n - 1 (and lo = hi = 0 for n = 0). */
void harness_median_ci_indices(size_t n, size_t *lo, size_t *hi);

/* The same indices, returning the interval's exact coverage probability
 * 1 - 2 P(Binomial(n, 1/2) <= lo) (NAN for n = 0): 0.9375 for n = 5, where
 * no 95% interval exists, and between 0.95 and ~0.97 from n = 6 on. */
double harness_median_ci(size_t n, size_t *lo, size_t *hi);

#endif
