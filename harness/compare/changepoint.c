/* changepoint.c - E-divisive means with a permutation test (changepoint.h). */
#include "compare/changepoint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Q of every split in one pass: with the within sums of the left and right
 * parts kept up to date as tau moves right (adding x[tau-1]'s distances to
 * the points before it, removing them from the right part), the between sum
 * is the total less both - O(n^2) per segment rather than O(n^3). */
size_t harness_cp_best_split(const double *x, size_t n, size_t min_size, double *q)
{
    *q = 0;
    if (min_size < 2)
        min_size = 2;             /* a within mean needs two points */
    if (n < 2 * min_size)
        return 0;
    double total = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            total += fabs(x[i] - x[j]);
    double left = 0, right = total;
    size_t best = 0;
    for (size_t tau = 1; tau + min_size <= n; tau++) {
        /* move x[tau-1] from the right part to the left one */
        double to_left = 0, to_right = 0;
        for (size_t i = 0; i + 1 < tau; i++)
            to_left += fabs(x[i] - x[tau - 1]);
        for (size_t j = tau; j < n; j++)
            to_right += fabs(x[j] - x[tau - 1]);
        left += to_left;
        right -= to_right;
        if (tau < min_size)
            continue;
        double a = (double)tau, b = (double)(n - tau);
        double between = total - left - right;
        double d = 2.0 * between / (a * b) - left / (a * (a - 1) / 2.0) - right / (b * (b - 1) / 2.0);
        double v = a * b / (double)n * d;
        if (best == 0 || v > *q) {
            *q = v;
            best = tau;
        }
    }
    return best;
}

static uint64_t next(uint64_t *s)   /* splitmix64 */
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* p of the best split q over all segments (bounds[0..nb), starts then n):
 * (1 + #permutations whose best Q reaches q) / (R + 1). The observed q is
 * the largest over the segments, so each permutation shuffles every segment
 * within itself (keeping the change points already found) and takes the
 * largest best Q over them, as e.divisive does; shuffling only q's segment
 * would compare a maximum with one segment's value and find extra change
 * points far more often than alpha. */
static double permutation_p(const double *x, const size_t *bounds, size_t nb, double q, const harness_cp_options *o,
                            uint64_t *rng, double *scratch)
{
    memcpy(scratch, x, bounds[nb - 1] * sizeof *scratch);
    int reached = 0;
    for (int r = 0; r < o->permutations; r++) {
        for (size_t s = 0; s + 1 < nb; s++) {
            double *seg = scratch + bounds[s];
            size_t len = bounds[s + 1] - bounds[s];
            for (size_t i = len - 1; i > 0; i--) {   /* Fisher-Yates */
                size_t j = (size_t)(next(rng) % (i + 1));
                double t = seg[i];
                seg[i] = seg[j];
                seg[j] = t;
            }
            double qp;             /* 0 for a segment too short to split: below q > 0 */
            harness_cp_best_split(seg, len, o->min_size, &qp);
            if (qp >= q) {         /* the maximum reaches q: the other segments cannot undo that */
                reached++;
                break;
            }
        }
    }
    return (1.0 + reached) / (1.0 + o->permutations);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(const double *x, size_t n, double *scratch)
{
    memcpy(scratch, x, n * sizeof *scratch);
    qsort(scratch, n, sizeof *scratch, cmp_double);
    return n % 2 ? scratch[n / 2] : 0.5 * (scratch[n / 2 - 1] + scratch[n / 2]);
}

static int cmp_cp(const void *a, const void *b)
{
    const harness_change_point *x = a, *y = b;
    return (x->index > y->index) - (x->index < y->index);
}

int harness_changepoints(const double *x, size_t n, const harness_cp_options *o, harness_change_point **out,
                         size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    double *scratch = malloc((n ? n : 1) * sizeof *scratch);
    harness_change_point *cps = malloc((n ? n : 1) * sizeof *cps);
    size_t *bounds = malloc((n + 2) * sizeof *bounds);   /* segment starts, then n */
    if (!scratch || !cps || !bounds) {
        free(scratch);
        free(cps);
        free(bounds);
        return -1;
    }
    uint64_t rng = o->seed;
    size_t nb = 2, ncp = 0;
    bounds[0] = 0;
    bounds[1] = n;
    for (;;) {
        /* the best split over all segments */
        size_t seg = 0, tau = 0;
        double q = -1;
        for (size_t s = 0; s + 1 < nb; s++) {
            double qs;
            size_t t = harness_cp_best_split(x + bounds[s], bounds[s + 1] - bounds[s], o->min_size, &qs);
            if (t && qs > q) {
                q = qs;
                seg = s;
                tau = t;
            }
        }
        if (!tau || !(q > 0))
            break;
        size_t start = bounds[seg];
        double p = permutation_p(x, bounds, nb, q, o, &rng, scratch);
        if (!(p <= o->alpha))
            break;
        cps[ncp].index = start + tau;
        cps[ncp].p = p;
        ncp++;
        memmove(bounds + seg + 2, bounds + seg + 1, (nb - seg - 1) * sizeof *bounds);
        bounds[seg + 1] = start + tau;
        nb++;
    }
    qsort(cps, ncp, sizeof *cps, cmp_cp);
    /* the step: medians of the neighbouring segments */
    for (size_t i = 0; i < ncp; i++) {
        size_t lo = i ? cps[i - 1].index : 0, mid = cps[i].index, hi = i + 1 < ncp ? cps[i + 1].index : n;
        cps[i].before = median_of(x + lo, mid - lo, scratch);
        cps[i].after = median_of(x + mid, hi - mid, scratch);
    }
    free(scratch);
    free(bounds);
    if (ncp == 0) {
        free(cps);
        return 0;
    }
    *out = cps;
    *n_out = ncp;
    return 0;
}
