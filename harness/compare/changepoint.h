/* changepoint.h - change points in a series of run medians: E-divisive
 * means (Matteson and James, "A nonparametric approach for multiple change
 * point analysis of multivariate data", JASA 2014) with its permutation
 * test, as MongoDB's CI (Daly et al., ICPE 2020) and Apache Otava use it.
 *
 * The divergence of a split at tau of the segment x[0..n) is (alpha = 1)
 *     Q(tau) = tau (n - tau) / n * ( 2/(tau (n-tau)) sum_{i<tau<=j} |x_i - x_j|
 *              - 1/C(tau,2) sum_{i<k<tau} |x_i - x_k| - 1/C(n-tau,2) sum_{tau<=j<k} |x_j - x_k| )
 * the energy distance between the two sides, weighted to favour balanced
 * splits. The best split of every segment is found; the best of those is
 * tested by permuting the values of every segment within itself (the share
 * of permutations whose best Q over all segments reaches the observed one is
 * its p: the observed Q is a maximum over the segments too); a significant
 * split divides its segment and the search repeats, until a test fails.
 *
 * harness_changepoints leaves the series' outliers out of it (runs far from
 * the runs on both sides, harness_cp_outliers): the energy distance weighs
 * one run at 30x the level (a busy machine) above a halving of every other
 * run, so the best split lands beside the outlier, fails its test, and the
 * search stops before the real step is ever tested.
 *
 * harness_changepoints_noisy first sets aside the runs whose interference
 * bound (the summary's noise.median_shift_bound: how far measured
 * preemptions, steal and clock changes could have raised the run's median)
 * reaches the smallest step the search reports (harness_cp_noise_limit) and
 * that sit at least that far above the runs around them without such a
 * bound: interference could have made that step with no commit behind it.
 * The outliers are then those of the runs left.
 *
 * A change point whose step (medians of the segments either side) is
 * smaller than min_change is dropped, the smallest first, and its segments
 * merged: with quiet runs the test finds shifts of a tenth of a percent that
 * nobody would act on. */
#ifndef HARNESS_CHANGEPOINT_H
#define HARNESS_CHANGEPOINT_H

#include <stddef.h>
#include <stdint.h>

typedef struct harness_cp_options {
    double alpha;                  /* significance of each permutation test (0.01) */
    int permutations;              /* per test (499: p resolves to 0.002) */
    size_t min_size;               /* fewest points on either side of a split (3) */
    uint64_t seed;                 /* the permutations' PRNG: the same series gives the same answer */
    double min_change;             /* smallest step kept, relative: 0.02 is 2% (0: keep every significant one) */
} harness_cp_options;

/* min_change 2%: below compare's default threshold (5%), so a step compare would call
 * a regression shows in the history, above the run-to-run drift of a quiet
 * machine (a few tenths of a percent). */
#define HARNESS_CP_DEFAULT_MIN_CHANGE 0.02
/* alpha 0.01 rather than 0.05: every accepted split opens further tests
 * (each at alpha) on its two halves, and a series of a hundred commits is
 * read again on every commit; Apache Otava defaults stricter still (0.001). */
#define HARNESS_CP_DEFAULTS {0.01, 499, 3, 0x5eed, HARNESS_CP_DEFAULT_MIN_CHANGE}

typedef struct harness_change_point {
    size_t index;                  /* first point of the new level */
    double p;                      /* permutation p of its split */
    double before, after;          /* medians of the segments on either side (between neighbouring change points) */
} harness_change_point;

/* Why a run is left out of the search; HARNESS_CP_KEPT when it is not. */
typedef enum harness_cp_set_aside {
    HARNESS_CP_KEPT = 0,
    HARNESS_CP_OUTLIER,            /* far from the runs on both sides (harness_cp_outliers) */
    HARNESS_CP_INTERFERENCE,       /* its noise bound reaches harness_cp_noise_limit, and it is that far up */
} harness_cp_set_aside;

/* The noise bound at or above which a run is set aside: o->min_change, the
 * smallest step kept; with min_change 0 (keep every significant step)
 * HARNESS_CP_DEFAULT_MIN_CHANGE, since no bound is below "any step" and a
 * shared machine's quiet runs carry bounds of 0-2% (changepoint.c). */
double harness_cp_noise_limit(const harness_cp_options *o);

/* The relative step of a change point, after / before - 1 (0.05 is +5%). */
double harness_cp_step(const harness_change_point *c);

/* Change points of x[0..n), sorted by index, into a malloc'ed *out (NULL
 * when none): E-divisive on x without its outliers (harness_cp_outliers),
 * then the steps below o->min_change dropped. 0, or -1 out of memory. */
int harness_changepoints(const double *x, size_t n, const harness_cp_options *o, harness_change_point **out,
                         size_t *n_out);

/* harness_changepoints with each run's noise bound: bound[i] a share (how
 * far interference could have raised x[i]), NAN when unknown; bound NULL:
 * all unknown. Runs whose bound reaches harness_cp_noise_limit(o) and that
 * sit that far above the levels of the runs around them whose bound does
 * not (the higher of the medians of up to 3 such runs within 6 before and
 * within 6 after; with none on either side, the lowest of the 3 nearest
 * runs on each side) are set aside, then the outliers of the others; the
 * search runs on the rest.
 * why[0..n) (NULL: not wanted) gets each run's harness_cp_set_aside.
 * Indices as harness_changepoints gives them. 0, or -1 out of memory. */
int harness_changepoints_noisy(const double *x, const double *bound, size_t n, const harness_cp_options *o,
                               harness_change_point **out, size_t *n_out, unsigned char *why);

/* Mark in flag[0..n) the outliers of x: runs far from the runs on both
 * sides of them (a spike of one or two runs, not a level of three or more),
 * which the search leaves out and the chart draws apart. Their number;
 * 0 out of memory or under 7 points. */
size_t harness_cp_outliers(const double *x, size_t n, unsigned char *flag);

/* The best split of x[0..n) (min_size on each side) and its Q, on the values
 * as given; 0 when none fits. */
size_t harness_cp_best_split(const double *x, size_t n, size_t min_size, double *q);

#endif
