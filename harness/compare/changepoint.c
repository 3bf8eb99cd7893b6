/* changepoint.c - E-divisive means with a permutation test (changepoint.h). */
#include "compare/changepoint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/stats.h"

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

/* The median of x[0..n), sorted in scratch so x keeps its order. */
static double median_of(const double *x, size_t n, double *scratch)
{
    memcpy(scratch, x, n * sizeof *scratch);
    return harness_median(scratch, n);
}

/* The best split over all segments (bounds[0..nb)): its segment in *seg,
 * its offset in that segment (0: none) and its Q. */
static size_t best_over_segments(const double *x, const size_t *bounds, size_t nb, size_t min_size, size_t *seg,
                                 double *q)
{
    size_t tau = 0;
    *q = -1;
    for (size_t s = 0; s + 1 < nb; s++) {
        double qs;
        size_t t = harness_cp_best_split(x + bounds[s], bounds[s + 1] - bounds[s], min_size, &qs);
        if (t && qs > *q) {
            *q = qs;
            *seg = s;
            tau = t;
        }
    }
    return tau;
}

/* E-divisive on x: significant splits into cps (index and p, unsorted).
 * bounds holds n + 2 entries, scratch n. The number found. */
static size_t divide(const double *x, size_t n, const harness_cp_options *o, harness_change_point *cps,
                     size_t *bounds, double *scratch)
{
    uint64_t rng = o->seed;
    size_t nb = 2, ncp = 0;
    bounds[0] = 0;                 /* segment starts, then n */
    bounds[1] = n;
    for (;;) {
        size_t seg = 0;
        double q;
        size_t tau = best_over_segments(x, bounds, nb, o->min_size, &seg, &q);
        if (!tau || !(q > 0))
            break;
        double p = permutation_p(x, bounds, nb, q, o, &rng, scratch);
        if (!(p <= o->alpha))
            break;
        size_t start = bounds[seg];
        cps[ncp].index = start + tau;
        cps[ncp].p = p;
        ncp++;
        memmove(bounds + seg + 2, bounds + seg + 1, (nb - seg - 1) * sizeof *bounds);
        bounds[seg + 1] = start + tau;
        nb++;
    }
    return ncp;
}

static int cmp_cp(const void *a, const void *b)
{
    const harness_change_point *x = a, *y = b;
    return (x->index > y->index) - (x->index < y->index);
}

/* The step of each change point: medians of the values of the segments on
 * either side (between its neighbours), cps sorted by index. */
static void set_steps(const double *x, size_t n, harness_change_point *cps, size_t ncp, double *scratch)
{
    for (size_t i = 0; i < ncp; i++) {
        size_t lo = i ? cps[i - 1].index : 0, mid = cps[i].index, hi = i + 1 < ncp ? cps[i + 1].index : n;
        cps[i].before = median_of(x + lo, mid - lo, scratch);
        cps[i].after = median_of(x + mid, hi - mid, scratch);
    }
}

double harness_cp_step(const harness_change_point *c)
{
    if (c->before == c->after)
        return 0;
    return c->before != 0 ? c->after / c->before - 1.0 : INFINITY;
}

/* Drop the change points whose step is below min_change, the smallest
 * first: dropping one merges two segments, which changes its neighbours'
 * steps, so they are measured again before the next is judged. */
static size_t drop_small(const double *x, size_t n, double min_change, harness_change_point *cps, size_t ncp,
                         double *scratch)
{
    for (;;) {
        set_steps(x, n, cps, ncp, scratch);
        size_t smallest = ncp;
        for (size_t i = 0; i < ncp; i++)
            if (smallest == ncp || fabs(harness_cp_step(&cps[i])) < fabs(harness_cp_step(&cps[smallest])))
                smallest = i;
        if (smallest == ncp || !(fabs(harness_cp_step(&cps[smallest])) < min_change))
            return ncp;
        memmove(cps + smallest, cps + smallest + 1, (ncp - smallest - 1) * sizeof *cps);
        ncp--;
    }
}

/* An outlier is a run far from each of its neighbourhoods: the medians of
 * the OUTLIER_SIDE runs before it, of those after it, and of the
 * 2 OUTLIER_SIDE - 1 runs centred on it (itself included). A run beside a
 * step agrees with the runs on its own side, and a run of a level of three
 * (min_size) agrees with the window centred on it, so only a spike of one
 * or two runs is an outlier. Far: more than OUTLIER_K robust sigmas (1.4826
 * x the median distance of every run to its nearest neighbourhood) and more
 * than OUTLIER_FLOOR of that neighbourhood's median, so a dead-quiet series
 * does not call every wobble an outlier. */
enum { OUTLIER_SIDE = 3 };
#define OUTLIER_K 5.0
#define OUTLIER_FLOOR 0.05

/* Keep the median of x[lo..hi) in *near when it is nearer v than *best. */
static void nearer(const double *x, size_t lo, size_t hi, double v, double *best, double *near, double *scratch)
{
    if (hi <= lo)
        return;
    double m = median_of(x + lo, hi - lo, scratch);
    if (fabs(v - m) < *best) {
        *best = fabs(v - m);
        *near = m;
    }
}

/* The distance of x[i] to its nearest neighbourhood's median, that median in *near. */
static double nearer_side(const double *x, size_t n, size_t i, double *near, double *scratch)
{
    double best = INFINITY;
    *near = x[i];
    size_t w = 2 * OUTLIER_SIDE - 1;
    size_t lo = i > OUTLIER_SIDE ? i - OUTLIER_SIDE : 0, hi = i + 1 + OUTLIER_SIDE < n ? i + 1 + OUTLIER_SIDE : n;
    nearer(x, lo, i, x[i], &best, near, scratch);
    nearer(x, i + 1, hi, x[i], &best, near, scratch);
    size_t c = i > w / 2 ? i - w / 2 : 0;   /* the centred window, slid inside the series */
    if (c + w > n)
        c = n - w;
    nearer(x, c, c + w, x[i], &best, near, scratch);
    return isfinite(best) ? best : 0;
}

size_t harness_cp_outliers(const double *x, size_t n, unsigned char *flag)
{
    memset(flag, 0, n);
    if (n < 2 * OUTLIER_SIDE + 1)
        return 0;                  /* too short to tell an outlier from a level */
    double *near = malloc(n * sizeof *near), *res = malloc(n * sizeof *res), *scratch = malloc(n * sizeof *scratch);
    size_t found = 0;
    if (near && res && scratch) {
        for (size_t i = 0; i < n; i++)
            res[i] = nearer_side(x, n, i, &near[i], scratch);
        double sigma = 1.4826 * median_of(res, n, scratch);
        for (size_t i = 0; i < n; i++)
            if (res[i] > OUTLIER_K * sigma && res[i] > OUTLIER_FLOOR * fabs(near[i]))
                found += flag[i] = 1;
    }
    free(near);
    free(res);
    free(scratch);
    return found;
}

/* The change points of y[0..m) (the series without its outliers): the
 * significant splits, sorted, then the steps below min_change dropped;
 * indices into y. 0, or -1 out of memory. */
static int search(const double *y, size_t m, const harness_cp_options *o, harness_change_point *cps, size_t *ncp)
{
    double *scratch = malloc((m ? m : 1) * sizeof *scratch);
    size_t *bounds = malloc((m + 2) * sizeof *bounds);
    int rc = scratch && bounds ? 0 : -1;
    if (rc == 0) {
        *ncp = divide(y, m, o, cps, bounds, scratch);
        qsort(cps, *ncp, sizeof *cps, cmp_cp);
        *ncp = drop_small(y, m, o->min_change, cps, *ncp, scratch);
    }
    free(scratch);
    free(bounds);
    return rc;
}

double harness_cp_noise_limit(const harness_cp_options *o)
{
    return o->min_change > 0 ? o->min_change : HARNESS_CP_DEFAULT_MIN_CHANGE;
}

/* The level on one side (dir -1 before, +1 after) of run i: the median of
 * the OUTLIER_SIDE nearest runs without a bound (flag 0) within
 * 2 OUTLIER_SIDE runs of it, NAN when there is none so near; and in
 * *lowest the lowest of the OUTLIER_SIDE nearest runs, bound or not (NAN
 * with no run on that side). */
static double side_level(const double *x, const unsigned char *flag, size_t n, size_t i, int dir, double *lowest,
                         double *scratch)
{
    size_t m = 0, seen = 0;
    *lowest = NAN;
    for (size_t k = i; (dir < 0 ? k > 0 : k + 1 < n) && seen < 2 * OUTLIER_SIDE && m < OUTLIER_SIDE;) {
        k = dir < 0 ? k - 1 : k + 1;
        if (++seen <= OUTLIER_SIDE)
            *lowest = fmin(*lowest, x[k]);   /* fmin skips a NAN */
        if (!flag[k])
            scratch[m++] = x[k];
    }
    return m ? harness_median(scratch, m) : NAN;
}

/* How far x[i] sits above the levels on either side of it (side_level),
 * the higher taken - a run beside a step may belong to either side, so
 * only a run above both belongs to neither. With no unbounded run near on
 * either side (a machine busy for a stretch of runs), the sides' lowest
 * runs stand in: interference only slows, so the lowest is the nearest to
 * an undisturbed level there is (a little low by the noise). A share (0.3:
 * 30% above; negative below); NAN with no other run. */
static double excess(const double *x, const unsigned char *flag, size_t n, size_t i, double *scratch)
{
    double low_before, low_after;
    double level = fmax(side_level(x, flag, n, i, -1, &low_before, scratch),   /* fmax skips a NAN */
                        side_level(x, flag, n, i, 1, &low_after, scratch));
    if (isnan(level))
        level = fmax(low_before, low_after);
    return level > 0 ? x[i] / level - 1 : NAN;
}

/* Into why[0..n) the reason each run is left out, and the runs kept into
 * y[0..m) with their indices in where[]; m returned.
 *
 * Interference first. A run is set aside when both
 *   - its bound reaches the limit (the smallest step reported): the
 *     interference measured could have raised it by a step history would
 *     report, with no commit behind it, and
 *   - it sits that far (or more) above the levels of the runs around it
 *     that carry no such bound, before it and after it (excess()): it looks
 *     raised by at least that much, and no level near it explains it.
 * Either alone is not enough. The bound is an upper bound and a loose one:
 * past half the steps preempted it is 100% whatever the preemptions cost,
 * and on a shared 2-core machine most runs of a 2 ms step get there with
 * their medians within 1-2% of the level (bench/history_figures.sh), so the
 * bound alone would set aside nearly every run and leave the search
 * nothing. A run raised without a bound is the outlier test's (below). Only
 * a rise counts, as interference only slows. The level is measured on
 * unbounded runs alone, so a stretch of loaded runs cannot vouch for
 * itself - which is what the outlier test cannot see: to it three loaded
 * runs are a level, and a loaded run beside a step sits near one side.
 * Only unbounded runs within 6 runs count: one further away may lie across
 * a step and make a whole level look raised (it set aside 21 of 30 runs of
 * one busy trial); where no side has one, the nearby runs' lowest stands
 * in (so the middle of a loaded stretch longer than 6 runs a side is
 * measured against the stretch itself: a machine busy that long has no
 * quiet runs to tell it by). Runs whose bound is unknown (NAN: an older
 * record, unreadable counters) count as unbounded.
 *
 * Then the outliers among the runs left (harness_cp_outliers): found
 * without the loaded runs, whose values would otherwise pull the
 * neighbourhood medians they are measured against. */
static size_t set_aside(const double *x, const double *bound, size_t n, double limit, unsigned char *why,
                        double *y, size_t *where, unsigned char *flag)
{
    for (size_t i = 0; i < n; i++)
        flag[i] = bound && bound[i] >= limit;   /* NAN: not flagged */
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        why[i] = flag[i] && excess(x, flag, n, i, y) >= limit ? HARNESS_CP_INTERFERENCE : HARNESS_CP_KEPT;
    for (size_t i = 0; i < n; i++)
        if (why[i] == HARNESS_CP_KEPT) {
            where[m] = i;
            y[m++] = x[i];
        }
    harness_cp_outliers(y, m, flag);
    size_t k = 0;
    for (size_t j = 0; j < m; j++) {
        if (flag[j]) {
            why[where[j]] = HARNESS_CP_OUTLIER;
            continue;
        }
        where[k] = where[j];
        y[k++] = y[j];
    }
    return k;
}

/* The runs set aside are left out of the search: E-divisive's energy distance
 * weighs a run 30 times the level (a busy machine) above a halving of every
 * other run, so its best split lands beside the outlier, fails its test,
 * and the search stops before the real step is tested. The change points'
 * indices are then those of the whole series: the run after the last run of
 * the old level, so runs set aside between the two levels count as the new
 * one's and the commit named is the earliest that can have made the change. */
int harness_changepoints_noisy(const double *x, const double *bound, size_t n, const harness_cp_options *o,
                               harness_change_point **out, size_t *n_out, unsigned char *why_out)
{
    *out = NULL;
    *n_out = 0;
    size_t a = n ? n : 1, m = 0, ncp = 0;
    unsigned char *why = malloc(a), *flag = malloc(a);
    double *y = malloc(a * sizeof *y);
    size_t *where = malloc(a * sizeof *where);
    harness_change_point *cps = malloc(a * sizeof *cps);
    int rc = why && flag && y && where && cps ? 0 : -1;
    if (rc == 0) {
        m = set_aside(x, bound, n, harness_cp_noise_limit(o), why, y, where, flag);
        rc = search(y, m, o, cps, &ncp);
    }
    for (size_t i = 0; rc == 0 && i < ncp; i++)
        cps[i].index = where[cps[i].index - 1] + 1;
    if (rc == 0 && why_out)
        memcpy(why_out, why, n);
    free(why);
    free(flag);
    free(y);
    free(where);
    if (rc != 0 || ncp == 0) {
        free(cps);
        return rc;
    }
    *out = cps;
    *n_out = ncp;
    return 0;
}

int harness_changepoints(const double *x, size_t n, const harness_cp_options *o, harness_change_point **out,
                         size_t *n_out)
{
    return harness_changepoints_noisy(x, NULL, n, o, out, n_out, NULL);
}
