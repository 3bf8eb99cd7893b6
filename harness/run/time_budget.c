/* The sizing rule of `harness run --time-budget` (run/time_budget.h). The
 * arithmetic is in doubles: a budget of days over a step of nanoseconds
 * has more slots than an int64_t comfortably holds, and every result is
 * capped far below that anyway. */
#include "run/time_budget.h"

#include <math.h>

/* m rounded down to two significant digits from 100 on (1843 -> 1800,
 * 97 -> 97). */
static double two_digits(double m)
{
    if (m < 100)
        return m;
    double p = 1;
    while (m / p >= 100)
        p *= 10;
    return floor(m / p) * p;
}

void harness_budget_size(harness_budget *b)
{
    /* A step too short for the clock to see counts as 1 ns: the caps bound
     * the run then, not the budget. */
    double step = b->step_s > 0 ? b->step_s : 1e-9;
    double wait = b->wait_steps > 0 ? (double)b->wait_steps : 0;
    double asked = b->config_steps > 0 ? (double)b->config_steps : 0;
    double slots = floor((b->budget_s - b->spent_s) / step);
    if (!(slots >= 0))             /* the warmup overran the budget, or NAN */
        slots = 0;
    double least = HARNESS_BUDGET_MIN_WINDOWS * (wait + 1);
    b->need_s = b->spent_s + least * step;
    b->fits = slots >= least;
    b->windows = b->steps = 0;
    if (!b->fits)
        return;
    double want = fmin(fmax(HARNESS_BUDGET_WANT_WINDOWS, (double)b->config_repeat), HARNESS_BUDGET_MAX_WINDOWS);
    double cap = fmax(HARNESS_BUDGET_MAX_STEPS, asked);
    double windows = want, steps;
    if (slots >= want * (wait + 1)) {
        steps = floor(slots / want) - wait;
        if (steps > cap) {
            steps = cap;
            windows = fmin(HARNESS_BUDGET_MAX_WINDOWS, floor(slots / (wait + cap)));
        }
    } else {                       /* fewer windows than wanted, of one step or a few */
        windows = floor(slots / (wait + 1));
        steps = floor(slots / windows) - wait;
    }
    double rounded = two_digits(steps);
    /* The config's own size, when the wanted windows of it fit, stays. */
    if (asked > 0 && steps >= asked && rounded < asked)
        rounded = asked;
    b->windows = (int64_t)windows;
    b->steps = (int64_t)rounded;
}

int harness_budget_another_window(const harness_budget *b, int64_t done, double elapsed_s, double window_s)
{
    if (done < HARNESS_BUDGET_MIN_WINDOWS)
        return 1;
    if (done >= HARNESS_BUDGET_MAX_WINDOWS)
        return 0;
    return elapsed_s + window_s <= b->budget_s;
}
