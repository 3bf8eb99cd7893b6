/* time_budget.h - `harness run --time-budget S`: how many measurement
 * windows of how many steps fit in S seconds, given what a step took. The
 * rule is a pure function of the struct below (tests/unit/test_time_budget.c);
 * the runner (run/runner.c) times the pilot that feeds it and runs what it
 * decides.
 *
 * The rule, for W0 = max(HARNESS_BUDGET_WANT_WINDOWS, the config's repeat)
 * (at most HARNESS_BUDGET_MAX_WINDOWS) and the config's wait_steps kept:
 *   slots = (budget - spent) / step   steps of any kind that fit after the
 *                                     warmup and the pilot
 *   windows first: W0 windows of M = slots / W0 - wait measured steps;
 *   M past HARNESS_BUDGET_MAX_STEPS: M is that cap and windows grow to
 *     what fits, at most HARNESS_BUDGET_MAX_WINDOWS (the run then ends
 *     before the budget: more steps of one process add little);
 *   fewer than W0 windows of one step: as many windows of one step (or a
 *     few) as fit, down to HARNESS_BUDGET_MIN_WINDOWS; below that the budget
 *     is too small (need_s says what would fit the minimum).
 * M of 100 or more is rounded down to two significant digits (at most 10%
 * of the budget left unused), so that replicate runs of one config on one
 * machine, whose pilots differ by a few percent, mostly get the same sizes;
 * but never below the config's measurement_steps when W0 windows of those
 * fit. Windows come before steps because a window is the replicate within
 * a run (each adds a median to the across-windows statistics; 5 are what
 * the rank tests of `compare` need to say anything), while steps within a
 * window share the machine's state and add less.
 *
 * The pilot sizes the steps per window; how many windows run is then
 * decided window by window (harness_budget_another_window): a window
 * starts when the mean time of those before it still fits in what is left
 * of the budget, at least HARNESS_BUDGET_MIN_WINDOWS and at most
 * HARNESS_BUDGET_MAX_WINDOWS. On a loaded machine a short pilot is a poor
 * forecast (a 1 ms spin read 1 to 15 ms a step in 20 ms pilots, and runs
 * sized by the pilot alone took 0.7 to 3.0 s of a 2 s budget): the windows
 * stay of one size, so they remain comparable replicates, while their
 * number follows the time the machine really gives. */
#ifndef HARNESS_TIME_BUDGET_H
#define HARNESS_TIME_BUDGET_H

#include <stdint.h>

#define HARNESS_BUDGET_MIN_WINDOWS 2
#define HARNESS_BUDGET_WANT_WINDOWS 5
#define HARNESS_BUDGET_MAX_WINDOWS 100
#define HARNESS_BUDGET_MAX_STEPS 10000

typedef struct harness_budget {
    /* asked: --time-budget and the config's schedule */
    double budget_s;               /* > 0; 0 in a run without a budget */
    int64_t wait_steps;            /* kept as the config says */
    int64_t config_steps;          /* the config's measurement_steps (0: auto) */
    int64_t config_repeat;
    /* measured (the runner's pilot, run/runner.c) */
    double step_s;                 /* wall time per step, its mean over the pilot's last batch */
    double spent_s;                /* warmup and pilot: already spent of the budget */
    int64_t pilot_steps;
    /* decided by harness_budget_size */
    int fits;                      /* 0: not even the minimum fits */
    int64_t windows, steps;        /* the windows planned, and the run's measurement_steps */
    double need_s;                 /* the least budget that fits the minimum (for the message) */
} harness_budget;

/* Fills fits, windows, steps and need_s from the rest. */
void harness_budget_size(harness_budget *b);

/* Whether window `done` + 1 starts: `done` windows have run, elapsed_s
 * since the schedule began (warmup included), window_s their mean wall
 * time each (wait steps included). 1 below the minimum, 0 at the most,
 * else whether elapsed_s + window_s is within the budget. */
int harness_budget_another_window(const harness_budget *b, int64_t done, double elapsed_s, double window_s);

#endif
