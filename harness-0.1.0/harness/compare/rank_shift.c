/* rank_shift.c - exact Wilcoxon-Mann-Whitney test, Hodges-Lehmann ratio and
 * Moses interval on replicates (see rank_shift.h for why replicates). */
#include "compare/rank_shift.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double binom(size_t m, size_t n)   /* C(m+n, m), as a double */
{
    double c = 1;
    for (size_t i = 1; i <= m; i++)
        c = c * (double)(n + i) / (double)i;
    return c;
}

double harness_rank_min_p(size_t m, size_t n)
{
    if (m == 0 || n == 0)
        return 1;
    double p = 2.0 / binom(m, n);
    return p < 1 ? p : 1;
}

static double normal_cdf(double z)
{
    return 0.5 * erfc(-z / sqrt(2.0));
}

double harness_normal_quantile(double p)
{
    if (!(p > 0 && p < 1))
        return p == 0 ? -INFINITY : p == 1 ? INFINITY : NAN;
    double lo = -40, hi = 40;
    for (int i = 0; i < 200 && hi - lo > 1e-14; i++) {
        double mid = 0.5 * (lo + hi);
        if (normal_cdf(mid) < p)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* The number of arrangements of m base and n cand replicates giving U = u,
 * for u = 0..m*n: the coefficients of the Gaussian binomial [m+n, m]_q, by
 * the recurrence c(m, n, u) = c(m-1, n, u-n) + c(m, n-1, u) (the largest
 * value is a cand, adding n to U, or a base, adding nothing). Sums of
 * nonnegative integers only, so exact in doubles below 2^53. NULL when out
 * of memory. */
static double *rank_counts(size_t m, size_t n)
{
    size_t width = m * n + 1;
    double *prev = calloc((n + 1) * width, sizeof *prev);
    double *cur = calloc((n + 1) * width, sizeof *cur);
    double *out = malloc(width * sizeof *out);
    if (!prev || !cur || !out) {
        free(prev);
        free(cur);
        free(out);
        return NULL;
    }
    for (size_t j = 0; j <= n; j++)      /* no base replicate: one arrangement, U = 0 */
        prev[j * width] = 1;
    for (size_t i = 1; i <= m; i++) {
        memset(cur, 0, (n + 1) * width * sizeof *cur);
        cur[0] = 1;                      /* no cand replicate: U = 0 */
        for (size_t j = 1; j <= n; j++)
            for (size_t u = 0; u <= i * j; u++)
                cur[j * width + u] = (u >= j ? prev[j * width + u - j] : 0) + cur[(j - 1) * width + u];
        double *t = prev;
        prev = cur;
        cur = t;
    }
    memcpy(out, prev + n * width, width * sizeof *out);
    free(prev);
    free(cur);
    return out;
}

static double exact_cdf(const double *counts, size_t m, size_t n, double u)
{
    if (u < 0)
        return 0;
    size_t top = (size_t)floor(u);
    if (top > m * n)
        top = m * n;
    double s = 0;
    for (size_t k = 0; k <= top; k++)
        s += counts[k];
    return s / binom(m, n);
}

static double approx_cdf(size_t m, size_t n, double u, double var)
{
    return normal_cdf((u + 0.5 - (double)m * (double)n / 2.0) / sqrt(var));
}

double harness_rank_cdf(size_t m, size_t n, double u)
{
    if (m == 0 || n == 0)
        return u >= 0 ? 1 : 0;
    if (binom(m, n) <= HARNESS_RANK_EXACT_MAX) {
        double *counts = rank_counts(m, n);
        if (!counts)
            return NAN;
        double c = exact_cdf(counts, m, n, u);
        free(counts);
        return c;
    }
    double mn = (double)m * (double)n;
    return approx_cdf(m, n, u, mn * (double)(m + n + 1) / 12.0);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The null variance of U with the usual correction for ties among all m+n values. */
static double tie_variance(const double *base, size_t m, const double *cand, size_t n)
{
    size_t N = m + n;
    double *all = malloc(N * sizeof *all);
    if (!all)
        return NAN;
    memcpy(all, base, m * sizeof *all);
    memcpy(all + m, cand, n * sizeof *all);
    qsort(all, N, sizeof *all, cmp_double);
    double ties = 0;
    for (size_t i = 0; i < N;) {
        size_t j = i;
        while (j < N && all[j] == all[i])
            j++;
        double t = (double)(j - i);
        ties += t * t * t - t;
        i = j;
    }
    free(all);
    double mn = (double)m * (double)n;
    return mn / 12.0 * ((double)(N + 1) - ties / ((double)N * (double)(N - 1)));
}

int harness_rank_shift_compute(const double *base, size_t m, const double *cand, size_t n, double alpha,
                               harness_rank_shift *out)
{
    memset(out, 0, sizeof *out);
    out->m = m;
    out->n = n;
    out->u = out->p = out->ratio = out->ratio_lo = out->ratio_hi = out->coverage = NAN;
    out->min_p = harness_rank_min_p(m, n);
    if (m == 0 || n == 0)
        return 0;
    for (size_t i = 0; i < m; i++)
        if (!(isfinite(base[i]) && base[i] > 0))
            return -2;
    for (size_t j = 0; j < n; j++)
        if (!(isfinite(cand[j]) && cand[j] > 0))
            return -2;

    /* The m*n pairwise log ratios: U counts the positive ones (ties half),
     * and their order statistics are the estimate and the interval. */
    size_t mn = m * n;
    double *d = malloc(mn * sizeof *d);
    if (!d)
        return -1;
    double u = 0;
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            d[i * n + j] = log(cand[j]) - log(base[i]);
            u += cand[j] > base[i] ? 1.0 : cand[j] == base[i] ? 0.5 : 0.0;
        }
    qsort(d, mn, sizeof *d, cmp_double);
    out->u = u;
    out->ratio = exp(mn % 2 ? d[mn / 2] : 0.5 * (d[mn / 2 - 1] + d[mn / 2]));

    double *counts = NULL;
    double var = 0;
    out->exact = binom(m, n) <= HARNESS_RANK_EXACT_MAX;
    if (out->exact) {
        counts = rank_counts(m, n);
        if (!counts) {
            free(d);
            return -1;
        }
    } else {
        var = tie_variance(base, m, cand, n);
        if (isnan(var)) {
            free(d);
            return -1;
        }
    }
#define CDF(x) (out->exact ? exact_cdf(counts, m, n, (x)) : approx_cdf(m, n, (x), var))
    double lower = CDF(u), upper = CDF((double)mn - u);   /* P(U <= u), P(U >= u) by symmetry */
    double p = 2.0 * (lower < upper ? lower : upper);
    out->p = p < 1 ? p : 1;

    /* Moses: [d_(k), d_(mn+1-k)] covers the true log ratio with probability
     * 1 - 2 P(U <= k-1). The largest k that keeps it >= 1 - alpha. */
    size_t k = 1;
    while (k < (mn + 1) / 2 && 1.0 - 2.0 * CDF((double)k) >= 1.0 - alpha)
        k++;
    out->coverage = 1.0 - 2.0 * CDF((double)k - 1.0);
#undef CDF
    out->ratio_lo = exp(d[k - 1]);
    out->ratio_hi = exp(d[mn - k]);
    free(counts);
    free(d);
    return 0;
}
