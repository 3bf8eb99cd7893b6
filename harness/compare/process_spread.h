/* process_spread.h - whether the processes (runs) of a side disagree
 * beyond their own windows' spread: a benchmark whose speed depends on the
 * process (where its pages or threads landed, a start-up race) gives runs
 * at two or more levels while each run's windows agree.
 *
 * The test is exact under the hypothesis that the processes are alike: the
 * windows of two runs are then exchangeable, so the chance that every
 * window of one lies below every window of the other (the two runs' window
 * ranges do not overlap) is 2 / C(wa + wb, wa) (0.008 for 5 windows each).
 * Each run is in one pair at most, so the pairs are independent; the count
 * of pairs apart is Poisson-binomial, and its upper tail is the p. Which
 * runs pair up:
 *   - runs of one side (compare): disjoint consecutive pairs (1-2, 3-4, ...),
 *     neighbours in time, so slow drift hardly separates them;
 *   - A/B rounds: each round's base and cand, the cand's windows divided by
 *     the pair's ratio (the change, estimated over all rounds): a round
 *     shares its machine state, so drift between rounds cannot separate
 *     them, and after the change is divided out a round whose two processes
 *     still differ is a process effect.
 * Bimodal processes put about half the pairs apart whatever the windows
 * say. A pair counts as apart only when its runs also differ by a share
 * that matters (half the gate's threshold): a spin's windows agree to
 * nanoseconds, so processes a few nanoseconds apart would otherwise
 * "disagree". Counting fewer pairs apart keeps the p conservative. */
#ifndef HARNESS_PROCESS_SPREAD_H
#define HARNESS_PROCESS_SPREAD_H

#include <stddef.h>

#include "compare/comparison.h"

/* Below this p the processes are reported as disagreeing: the test runs on
 * every pair of every comparison, so it is kept strict. */
#define HARNESS_PROCESS_SPREAD_ALPHA 0.001

typedef struct harness_process_spread {
    size_t pairs;                  /* pairs of runs with two or more windows each */
    size_t apart;                  /* of them, pairs whose windows' ranges do not overlap */
    double expected;               /* pairs apart expected if the processes were alike */
    double p;                      /* P(apart or more) if they were alike; 1 with no pairs */
} harness_process_spread;

/* Disjoint consecutive pairs of one side's runs (in time order), the
 * windows valued by `metric`, apart by at least the share `min_apart`
 * (0.025: 2.5%). 0, or -1 out of memory. */
int harness_process_spread_runs(const harness_run_summary *const *runs, size_t n, harness_metric metric,
                                double min_apart, harness_process_spread *out);

/* Each round's base[i] against cand[i] / ratio. 0, or -1 out of memory. */
int harness_process_spread_rounds(const harness_run_summary *const *base, const harness_run_summary *const *cand,
                                  size_t n, double ratio, harness_metric metric, double min_apart,
                                  harness_process_spread *out);

/* P(X >= x) for X the number of successes of independent trials with
 * success chances q[0..n). */
double harness_poisson_binomial_tail(const double *q, size_t n, size_t x);

#endif
