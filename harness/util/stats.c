/* stats.c - summary statistics of per-step timings, the order-statistic
 * confidence interval of the median. */
#include "util/stats.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Total order for qsort: a NaN sorts after every number. A comparator that
 * calls NaN "equal" to everything is not transitive, and qsort may then read
 * out of bounds, so one bad sample must not become a crash. */
static int cmp_double(double a, double b)
{
    int na = isnan(a) != 0, nb = isnan(b) != 0;
    if (na || nb)
        return na - nb;
    return (a > b) - (a < b);
}

static int cmp_double_qsort(const void *pa, const void *pb)
{
    return cmp_double(*(const double *)pa, *(const double *)pb);
}

void harness_sort_doubles(double *v, size_t n)
{
    if (n > 1)                     /* qsort of no array (NULL, 0) is undefined */
        qsort(v, n, sizeof *v, cmp_double_qsort);
}

double harness_median(double *v, size_t n)
{
    harness_sort_doubles(v, n);
    return harness_quantile_sorted(v, n, 0.5);
}

double harness_quantile_sorted(const double *sorted, size_t n, double q)
{
    if (n == 0)
        return 0.0;
    if (!(q > 0.0))                /* also a NaN q */
        return sorted[0];
    if (q >= 1.0)
        return sorted[n - 1];
    double h = (double)(n - 1) * q;
    size_t k = (size_t)h;
    if (k + 1 >= n)
        return sorted[n - 1];
    /* a + f (b - a) rather than (1 - f) a + f b: returns a exactly when the
     * two neighbours are equal. */
    return sorted[k] + (h - (double)k) * (sorted[k + 1] - sorted[k]);
}

/* B ~ Binomial(n, 1/2) counts the samples below the true median. The 1-based
 * order statistics [x(j), x(n+1-j)] miss the median when B < j or B > n - j,
 * each with probability F(j-1) by symmetry, so the coverage is
 * 1 - 2 F(j-1) and the narrowest symmetric interval takes the largest j with
 * F(j-1) <= 0.025. An asymmetric pair would have to favour one side without
 * any reason to, so we keep the symmetric one (as the published tables do).
 *
 * F is summed exactly (up to rounding) with the pmf recurrence
 * p(i+1) = p(i) (n - i) / (i + 1), starting 10 standard deviations below
 * n/2: by Hoeffding the mass skipped there is below exp(-50) ~ 2e-22, far
 * under any rounding that could move the 0.025 decision (F is a multiple of
 * 2^-n and never equals 1/40). The start pmf comes from lgamma, so no term
 * underflows and the loop runs about 4 sqrt(n) times: n = 1e6 takes ~4000
 * steps, and no normal approximation is needed at any n. */
double harness_median_ci(size_t n, size_t *lo, size_t *hi)
{
    double dn = (double)n;
    double start = floor(dn / 2.0 - 5.0 * sqrt(dn));
    size_t i = start > 0.0 ? (size_t)start : 0;
    double pmf = exp(lgamma(dn + 1.0) - lgamma((double)i + 1.0) - lgamma(dn - (double)i + 1.0)
                     - dn * log(2.0));
    double cdf = 0.0;              /* F(i - 1) */
    while (i < n && cdf + pmf <= 0.025) {
        cdf += pmf;
        pmf *= (dn - (double)i) / ((double)i + 1.0);
        i++;
    }
    /* Now F(i-1) <= 0.025 < F(i): j = i, and the coverage is 1 - 2 F(j-1).
     * j = 0 means even [x(1), x(n)] misses the median too often (n < 6):
     * we still give that widest interval, with its own coverage
     * 1 - 2 F(0) = 1 - 2^(1-n) (n = 5: 93.75%), which is what the summary
     * then labels it with instead of 95%. */
    if (n == 0) {
        *lo = *hi = 0;
        return NAN;
    }
    if (i == 0) {
        *lo = 0;
        *hi = n - 1;
        return 1.0 - 2.0 * pmf;
    }
    *lo = i - 1;
    *hi = n - i;
    return 1.0 - 2.0 * cdf;
}

void harness_median_ci_indices(size_t n, size_t *lo, size_t *hi)
{
    harness_median_ci(n, lo, hi);
}

int harness_stats_compute(const double *samples, size_t n, harness_stats *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return 0;
    if (n > SIZE_MAX / sizeof(double))
        return -1;
    double *s = malloc(n * sizeof *s);
    if (!s)
        return -1;
    memcpy(s, samples, n * sizeof *s);
    harness_sort_doubles(s, n);

    /* Two passes (mean, then squared deviations) rather than sum of squares:
     * timings are large numbers with small spread, where x^2 - mean^2
     * cancels catastrophically. */
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += s[i];
    double mean = sum / (double)n;
    double ss = 0.0;
    for (size_t i = 0; i < n; i++)
        ss += (s[i] - mean) * (s[i] - mean);

    out->n = n;
    out->mean = mean;
    out->stddev = n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0;
    out->cv = mean != 0.0 ? out->stddev / mean : 0.0;
    out->min = s[0];
    out->p5 = harness_quantile_sorted(s, n, 0.05);
    out->p25 = harness_quantile_sorted(s, n, 0.25);
    out->median = harness_quantile_sorted(s, n, 0.50);
    out->p75 = harness_quantile_sorted(s, n, 0.75);
    out->p90 = harness_quantile_sorted(s, n, 0.90);
    out->p95 = harness_quantile_sorted(s, n, 0.95);
    out->p99 = harness_quantile_sorted(s, n, 0.99);
    out->max = s[n - 1];
    out->iqr = out->p75 - out->p25;

    double fence_lo = out->p25 - 1.5 * out->iqr, fence_hi = out->p75 + 1.5 * out->iqr;
    for (size_t i = 0; i < n; i++)
        out->outliers += s[i] < fence_lo || s[i] > fence_hi;

    size_t lo, hi;
    out->ci_level = harness_median_ci(n, &lo, &hi);
    out->ci95_lo = s[lo];
    out->ci95_hi = s[hi];
    free(s);
    return 0;
}

/* Indices sorted by p (for harness_bh_adjust; qsort has no context). */
static const double *bh_p;
static int bh_by_p(const void *a, const void *b)
{
    return cmp_double(bh_p[*(const size_t *)a], bh_p[*(const size_t *)b]);
}

int harness_bh_adjust(const double *p, size_t m, double *q)
{
    if (m == 0)
        return 0;
    size_t *order = malloc(m * sizeof *order);
    if (!order)
        return -1;
    for (size_t i = 0; i < m; i++)
        order[i] = i;
    bh_p = p;
    qsort(order, m, sizeof *order, bh_by_p);
    /* from the largest p down, the running minimum of m p / rank; tied p
     * take the rank of the last of them, so they share one q */
    double running = 1;
    for (size_t r = m; r-- > 0;) {
        size_t rank = r + 1;
        while (rank < m && p[order[rank]] == p[order[r]])
            rank++;
        double v = p[order[r]] * (double)m / (double)rank;
        if (v < running)
            running = v;
        q[order[r]] = isnan(p[order[r]]) ? NAN : running;
    }
    free(order);
    return 0;
}
