/* process_spread.c - processes that disagree beyond their windows
 * (process_spread.h). */
#include "compare/process_spread.h"
#include "compare/metric.h"

#include <math.h>
#include <stdlib.h>

double harness_poisson_binomial_tail(const double *q, size_t n, size_t x)
{
    if (x == 0)
        return 1.0;
    if (x > n)
        return 0.0;
    /* dist[k]: P(k successes among the trials so far) */
    double *dist = calloc(n + 1, sizeof *dist);
    if (!dist)
        return NAN;
    dist[0] = 1.0;
    for (size_t j = 0; j < n; j++) {
        for (size_t k = j + 1; k > 0; k--)
            dist[k] = dist[k] * (1.0 - q[j]) + dist[k - 1] * q[j];
        dist[0] *= 1.0 - q[j];
    }
    double tail = 0;
    for (size_t k = x; k <= n; k++)
        tail += dist[k];
    free(dist);
    return tail > 1.0 ? 1.0 : tail;
}

/* 2 / C(a + b, a): the chance that a and b exchangeable values fall apart. */
static double apart_chance(size_t a, size_t b)
{
    double c = 1.0;
    for (size_t i = 1; i <= b; i++)
        c = c * (double)(a + i) / (double)i;
    return c > 2.0 ? 2.0 / c : 1.0;
}

static int range_of(const harness_run_summary *r, harness_metric m, double *lo, double *hi)
{
    double *v = malloc(r->n_windows * sizeof *v);
    if (!v || harness_window_metrics(r, m, v) != 0) {
        free(v);
        return -1;
    }
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t w = 0; w < r->n_windows; w++) {
        *lo = v[w] < *lo ? v[w] : *lo;
        *hi = v[w] > *hi ? v[w] : *hi;
    }
    free(v);
    return 0;
}

static int usable(const harness_run_summary *r)
{
    return r->n_windows >= 2 && r->n_samples > 0;
}

/* Pairs of consecutive usable runs of one side into q[] and the count apart. */
static int side_pairs(const harness_run_summary *const *runs, size_t n, harness_metric m, double min_apart,
                      double *q, harness_process_spread *out)
{
    const harness_run_summary *first = NULL;
    for (size_t i = 0; i < n; i++) {
        if (!usable(runs[i]))
            continue;
        if (!first) {
            first = runs[i];
            continue;
        }
        double alo, ahi, blo, bhi;
        if (range_of(first, m, &alo, &ahi) != 0 || range_of(runs[i], m, &blo, &bhi) != 0)
            return -1;
        q[out->pairs] = apart_chance(first->n_windows, runs[i]->n_windows);
        out->expected += q[out->pairs++];
        double va = harness_run_metric(first, m), vb = harness_run_metric(runs[i], m);
        int matters = fabs(va - vb) >= min_apart * fmin(va, vb);
        out->apart += (ahi < blo || bhi < alo) && matters;
        first = NULL;
    }
    return 0;
}

int harness_process_spread_compute(const harness_run_summary *const *base, size_t nb,
                                   const harness_run_summary *const *cand, size_t nc, harness_metric metric,
                                   double min_apart, harness_process_spread *out)
{
    out->pairs = out->apart = 0;
    out->expected = 0;
    out->p = 1.0;
    double *q = malloc((nb + nc + 1) * sizeof *q);
    if (!q)
        return -1;
    int rc = side_pairs(base, nb, metric, min_apart, q, out);
    if (rc == 0)
        rc = side_pairs(cand, nc, metric, min_apart, q, out);
    if (rc == 0 && out->apart)
        out->p = harness_poisson_binomial_tail(q, out->pairs, out->apart);
    free(q);
    return rc != 0 || isnan(out->p) ? -1 : 0;
}
