/* signed_rank.c - Wilcoxon signed-rank test and Tukey's interval of the
 * paired ratio (signed_rank.h). */
#include "compare/signed_rank.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* counts[s]: subsets of {1..n} whose sum is s, for s = 0..n(n+1)/2 - each
 * subset a pattern of signs, all 2^n equally likely under the null. */
static double *sign_counts(size_t n)
{
    size_t top = n * (n + 1) / 2;
    double *c = calloc(top + 1, sizeof *c);
    if (!c)
        return NULL;
    c[0] = 1;
    for (size_t k = 1; k <= n; k++)
        for (size_t s = k * (k + 1) / 2; s >= k; s--)
            c[s] += c[s - k];
    return c;
}

static double cdf_with(const double *counts, size_t n, double w)
{
    if (w < 0)
        return 0;
    double top = (double)n * (double)(n + 1) / 2.0;
    if (n > HARNESS_SIGNED_RANK_EXACT_MAX || !counts) {
        double mean = top / 2.0, var = (double)n * (n + 1) * (2.0 * n + 1) / 24.0;
        return 0.5 * erfc(-((w + 0.5 - mean) / sqrt(var)) / sqrt(2.0));
    }
    size_t hi = w >= top ? (size_t)top : (size_t)floor(w);
    double s = 0;
    for (size_t k = 0; k <= hi; k++)
        s += counts[k];
    return s / ldexp(1.0, (int)n);
}

double harness_signed_rank_cdf(size_t n, double w)
{
    double *c = n <= HARNESS_SIGNED_RANK_EXACT_MAX ? sign_counts(n) : NULL;
    if (n <= HARNESS_SIGNED_RANK_EXACT_MAX && !c)
        return NAN;
    double v = cdf_with(c, n, w);
    free(c);
    return v;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* W+ of the nonzero d: ranks of |d| (ties share their mean rank). */
static double w_plus(const double *d, size_t n, size_t *nonzero)
{
    double *a = malloc((n ? n : 1) * sizeof *a);
    if (!a)
        return NAN;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (d[i] != 0)
            a[m++] = fabs(d[i]);
    qsort(a, m, sizeof *a, cmp_double);
    double w = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(d[i] > 0))
            continue;
        size_t below = 0, equal = 0;
        for (size_t k = 0; k < m; k++) {
            below += a[k] < d[i];
            equal += a[k] == d[i];
        }
        w += (double)below + ((double)equal + 1.0) / 2.0;   /* mean of ranks below+1 .. below+equal */
    }
    free(a);
    *nonzero = m;
    return w;
}

int harness_signed_rank_compute(const double *base, const double *cand, size_t n, double alpha,
                                harness_signed_rank *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    out->w = out->p = out->ratio = out->ratio_lo = out->ratio_hi = out->coverage = NAN;
    out->min_p = n ? fmin(1.0, 2.0 / ldexp(1.0, (int)(n < 1000 ? n : 1000))) : 1.0;
    if (n == 0)
        return 0;
    double *d = malloc(n * sizeof *d);
    size_t walsh_n = n * (n + 1) / 2;
    double *walsh = malloc(walsh_n * sizeof *walsh);
    if (!d || !walsh) {
        free(d);
        free(walsh);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (!(isfinite(base[i]) && base[i] > 0 && isfinite(cand[i]) && cand[i] > 0)) {
            free(d);
            free(walsh);
            return -2;
        }
        d[i] = log(cand[i]) - log(base[i]);
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i; j < n; j++)
            walsh[m++] = 0.5 * (d[i] + d[j]);
    qsort(walsh, walsh_n, sizeof *walsh, cmp_double);
    out->ratio = exp(walsh_n % 2 ? walsh[walsh_n / 2] : 0.5 * (walsh[walsh_n / 2 - 1] + walsh[walsh_n / 2]));

    size_t nz = 0;
    double w = w_plus(d, n, &nz);
    double *cz = nz <= HARNESS_SIGNED_RANK_EXACT_MAX ? sign_counts(nz) : NULL;
    double *cn = n <= HARNESS_SIGNED_RANK_EXACT_MAX ? sign_counts(n) : NULL;
    if (isnan(w) || (nz <= HARNESS_SIGNED_RANK_EXACT_MAX && !cz) || (n <= HARNESS_SIGNED_RANK_EXACT_MAX && !cn)) {
        free(cz);
        free(cn);
        free(d);
        free(walsh);
        return -1;
    }
    out->w = w;
    if (nz == 0) {
        out->p = 1;                /* every round tied: no evidence of a change */
    } else {
        double top = (double)nz * (double)(nz + 1) / 2.0;
        double lower = cdf_with(cz, nz, w), upper = cdf_with(cz, nz, top - w);
        out->p = fmin(1.0, 2.0 * fmin(lower, upper));
    }
    /* Tukey: [w_(k), w_(M+1-k)] covers with 1 - 2 P(W <= k-1); the largest k keeping >= 1 - alpha. */
    size_t k = 1;
    while (k < (walsh_n + 1) / 2 && 1.0 - 2.0 * cdf_with(cn, n, (double)k) >= 1.0 - alpha)
        k++;
    out->coverage = 1.0 - 2.0 * cdf_with(cn, n, (double)k - 1.0);
    out->ratio_lo = exp(walsh[k - 1]);
    out->ratio_hi = exp(walsh[walsh_n - k]);
    free(cz);
    free(cn);
    free(d);
    free(walsh);
    return 0;
}
