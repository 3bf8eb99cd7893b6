/* rank_shift.c - exact Wilcoxon-Mann-Whitney test, Hodges-Lehmann ratio and
 * Moses interval on replicates (see rank_shift.h for why replicates). */
#include "compare/rank_shift.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/stats.h"

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

double harness_rank_interval_coverage(size_t m, size_t n, double alpha)
{
    if (m == 0 || n == 0)
        return NAN;
    /* harness_rank_shift_compute's choice of k, on the untied null */
    size_t mn = m * n, k = 1;
    while (k < (mn + 1) / 2 && 1.0 - 2.0 * harness_rank_cdf(m, n, (double)k) >= 1.0 - alpha)
        k++;
    return 1.0 - 2.0 * harness_rank_cdf(m, n, (double)k - 1.0);
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

/* Exact while the counts fit a double and the table's sweep stays small (rank_shift.h). */
static int exact_regime(size_t m, size_t n)
{
    size_t k = m < n ? m : n, N = m + n;
    double cells = (double)(k + 1) * ((double)k * (double)(2 * N - k + 1) + 1);   /* see null_init */
    return binom(m, n) <= HARNESS_RANK_EXACT_MAX && cells * (double)N <= HARNESS_RANK_EXACT_WORK;
}

/* The null distribution of U_k, the U of the smaller side (k of the N
 * replicates): every choice of which k replicates are that side's is
 * equally likely, so it is the distribution of the sum of k of the N
 * doubled mid-ranks (2 x the mean rank of a tie group: an integer, which
 * keeps half-integer U exact), 2 U_k being that sum less k (k + 1). */
typedef struct null_u {
    double *count;                 /* count[v]: the choices with 2 U_k = v, v = 0..top */
    size_t top;
    double total;                  /* C(N, k), summed from the counts (exact below 2^53) */
} null_u;

/* From the N doubled ranks r (ascending): a table of the choices of j
 * replicates summing to s, j = 0..k, s = 0..S (S the sum of the k largest,
 * at most k (2N - k + 1)); each rank joins the choices of one fewer
 * replicate, largest j and s first so that it joins each once. Integers
 * added, so exact. 0, or -1 out of memory. */
static int null_init(null_u *d, const size_t *r, size_t N, size_t k)
{
    size_t S = 0, base = k * (k + 1);
    for (size_t i = N - k; i < N; i++)
        S += r[i];
    size_t w = S + 1;
    double *t = calloc((k + 1) * w, sizeof *t);
    if (!t)
        return -1;
    t[0] = 1;
    size_t reach = 0;              /* the largest sum so far */
    for (size_t i = 0; i < N; i++) {
        reach = reach + r[i] < S ? reach + r[i] : S;
        for (size_t j = i + 1 < k ? i + 1 : k; j >= 1; j--)
            for (size_t s = reach; s >= r[i]; s--)
                t[j * w + s] += t[(j - 1) * w + s - r[i]];
    }
    d->top = S - base;
    memmove(t, t + k * w + base, (d->top + 1) * sizeof *t);
    d->count = t;
    d->total = 0;
    for (size_t v = 0; v <= d->top; v++)
        d->total += t[v];
    return 0;
}

/* P(2 U_k <= v) and P(2 U_k >= v), summed from the nearer end. */
static double null_le(const null_u *d, double v)
{
    if (v < 0)
        return 0;
    size_t hi = v >= (double)d->top ? d->top : (size_t)floor(v);
    double s = 0;
    for (size_t x = 0; x <= hi; x++)
        s += d->count[x];
    return s / d->total;
}

static double null_ge(const null_u *d, double v)
{
    if (v > (double)d->top)
        return 0;
    size_t lo = v <= 0 ? 0 : (size_t)ceil(v);
    double s = 0;
    for (size_t x = lo; x <= d->top; x++)
        s += d->count[x];
    return s / d->total;
}

/* The untied null of k against N - k: ranks 1..N, doubled. */
static int null_untied(null_u *d, size_t N, size_t k)
{
    size_t *r = malloc(N * sizeof *r);
    if (!r)
        return -1;
    for (size_t i = 0; i < N; i++)
        r[i] = 2 * (i + 1);
    int rc = null_init(d, r, N, k);
    free(r);
    return rc;
}

static double approx_cdf(size_t m, size_t n, double u, double var)
{
    return normal_cdf((u + 0.5 - (double)m * (double)n / 2.0) / sqrt(var));
}

double harness_rank_cdf(size_t m, size_t n, double u)
{
    if (m == 0 || n == 0)
        return u >= 0 ? 1 : 0;
    if (exact_regime(m, n)) {
        null_u d;
        if (null_untied(&d, m + n, m < n ? m : n) != 0)
            return NAN;
        double c = null_le(&d, 2.0 * u);   /* untied: U_k and U of either side share one distribution */
        free(d.count);
        return c;
    }
    double mn = (double)m * (double)n;
    return approx_cdf(m, n, u, mn * (double)(m + n + 1) / 12.0);
}

/* base and cand pooled and sorted; NULL out of memory. */
static double *pooled(const double *base, size_t m, const double *cand, size_t n)
{
    double *all = malloc((m + n) * sizeof *all);
    if (!all)
        return NULL;
    memcpy(all, base, m * sizeof *all);
    memcpy(all + m, cand, n * sizeof *all);
    harness_sort_doubles(all, m + n);
    return all;
}

/* Over the tie groups of the sorted all[0..N): the doubled mid-ranks into r
 * (when not NULL; a group at positions i..j-1 shares (i+1 + j) / 2, doubled
 * i+1 + j), and the tie term sum(t^3 - t) of the variance (t a group's size). */
static double tie_groups(const double *all, size_t N, size_t *r)
{
    double ties = 0;
    for (size_t i = 0; i < N;) {
        size_t j = i;
        while (j < N && all[j] == all[i])
            j++;
        for (size_t x = i; r && x < j; x++)
            r[x] = i + 1 + j;
        double t = (double)(j - i);
        ties += t * t * t - t;
        i = j;
    }
    return ties;
}

/* The two tails P(U <= u), P(U >= u) of the exact permutation distribution
 * given the ties, and the untied null for the interval's coverage. 0, -1
 * out of memory. */
static int exact_tails(const double *base, size_t m, const double *cand, size_t n, double u, null_u *untied,
                       double *lower, double *upper)
{
    size_t N = m + n, k = m < n ? m : n;
    double *all = pooled(base, m, cand, n);
    size_t *r = malloc(N * sizeof *r);
    null_u tied = {0};
    int rc = -1;
    if (all && r) {
        tie_groups(all, N, r);
        if (null_init(&tied, r, N, k) == 0 && null_untied(untied, N, k) == 0) {
            /* 2 U of the smaller side (an integer); U_base = mn - U_cand. Its
             * two tails are those of U's, swapped when the side is base. */
            double v = 2.0 * (m <= n ? (double)m * (double)n - u : u);
            double le = null_le(&tied, v), ge = null_ge(&tied, v);
            *lower = m <= n ? ge : le;
            *upper = m <= n ? le : ge;
            rc = 0;
        }
    }
    free(tied.count);
    free(r);
    free(all);
    return rc;
}

/* The null variance of U with the usual correction for ties among all m+n values. */
static double tie_variance(const double *base, size_t m, const double *cand, size_t n)
{
    size_t N = m + n;
    double *all = pooled(base, m, cand, n);
    if (!all)
        return NAN;
    double ties = tie_groups(all, N, NULL);
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
    harness_sort_doubles(d, mn);
    out->u = u;
    out->ratio = exp(mn % 2 ? d[mn / 2] : 0.5 * (d[mn / 2 - 1] + d[mn / 2]));

    null_u untied = {0};
    double var = 0, lower, upper;
    out->exact = exact_regime(m, n);
    if (out->exact) {
        if (exact_tails(base, m, cand, n, u, &untied, &lower, &upper) != 0) {
            free(untied.count);
            free(d);
            return -1;
        }
    } else {
        var = tie_variance(base, m, cand, n);
        if (isnan(var)) {
            free(d);
            return -1;
        }
        lower = approx_cdf(m, n, u, var);
        upper = approx_cdf(m, n, (double)mn - u, var);   /* the normal is symmetric */
    }
    double p = 2.0 * (lower < upper ? lower : upper);
    out->p = p < 1 ? p : 1;

    /* Moses: [d_(k), d_(mn+1-k)] covers the true log ratio with probability
     * 1 - 2 P(U <= k-1) under a continuous distribution: the untied null. The
     * largest k that keeps it >= 1 - alpha. */
#define CDF(x) (out->exact ? null_le(&untied, 2.0 * (x)) : approx_cdf(m, n, (x), var))
    size_t k = 1;
    while (k < (mn + 1) / 2 && 1.0 - 2.0 * CDF((double)k) >= 1.0 - alpha)
        k++;
    out->coverage = 1.0 - 2.0 * CDF((double)k - 1.0);
#undef CDF
    out->ratio_lo = exp(d[k - 1]);
    out->ratio_hi = exp(d[mn - k]);
    free(untied.count);
    free(d);
    return 0;
}
