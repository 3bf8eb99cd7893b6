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

/* The range of r's window values, each divided by `scale`. */
static int range_of(const harness_run_summary *r, harness_metric m, double scale, double *lo, double *hi)
{
    double *v = malloc(r->n_windows * sizeof *v);
    if (!v || harness_window_metrics(r, m, v) != 0) {
        free(v);
        return -1;
    }
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t w = 0; w < r->n_windows; w++) {
        *lo = v[w] / scale < *lo ? v[w] / scale : *lo;
        *hi = v[w] / scale > *hi ? v[w] / scale : *hi;
    }
    free(v);
    return 0;
}

static int usable(const harness_run_summary *r)
{
    return r->n_windows >= 2 && r->n_samples > 0;
}

/* One pair of runs, b's values divided by `scale`: its chance of falling
 * apart if alike into q[out->pairs], and whether it did. */
static int one_pair(const harness_run_summary *a, const harness_run_summary *b, double scale, harness_metric m,
                    double min_apart, double *q, harness_process_spread *out)
{
    double alo, ahi, blo, bhi;
    if (range_of(a, m, 1.0, &alo, &ahi) != 0 || range_of(b, m, scale, &blo, &bhi) != 0)
        return -1;
    if (!(alo <= ahi) || !(blo <= bhi))
        return 0;                  /* a run without a window value (energy unmeasured): no evidence either way */
    double va = harness_run_metric(a, m), vb = harness_run_metric(b, m) / scale;
    int matters = fabs(va - vb) >= min_apart * fmin(va, vb);
    q[out->pairs] = apart_chance(a->n_windows, b->n_windows);
    out->expected += q[out->pairs++];
    out->apart += (ahi < blo || bhi < alo) && matters;
    return 0;
}

static void finish(const double *q, harness_process_spread *out)
{
    out->p = out->apart ? harness_poisson_binomial_tail(q, out->pairs, out->apart) : 1.0;
}

static void start(harness_process_spread *out)
{
    out->pairs = out->apart = 0;
    out->expected = 0;
    out->p = 1.0;
}

int harness_process_spread_runs(const harness_run_summary *const *runs, size_t n, harness_metric metric,
                                double min_apart, harness_process_spread *out)
{
    start(out);
    double *q = malloc((n + 1) * sizeof *q);
    if (!q)
        return -1;
    const harness_run_summary *first = NULL;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (!usable(runs[i]))
            continue;
        if (!first) {
            first = runs[i];
            continue;
        }
        rc = one_pair(first, runs[i], 1.0, metric, min_apart, q, out);
        first = NULL;
    }
    if (rc == 0)
        finish(q, out);
    free(q);
    return rc != 0 || isnan(out->p) ? -1 : 0;
}

int harness_process_spread_rounds(const harness_run_summary *const *base, const harness_run_summary *const *cand,
                                  size_t n, double ratio, harness_metric metric, double min_apart,
                                  harness_process_spread *out)
{
    start(out);
    double *q = malloc((n + 1) * sizeof *q);
    if (!q)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        if (usable(base[i]) && usable(cand[i]) && ratio > 0 && isfinite(ratio))
            rc = one_pair(base[i], cand[i], ratio, metric, min_apart, q, out);
    if (rc == 0)
        finish(q, out);
    free(q);
    return rc != 0 || isnan(out->p) ? -1 : 0;
}
