#include "config/config_limits.h"

#include <inttypes.h>
#include <stdint.h>

/* Samples are doubles in one array: a run that plans more than this many
 * measured steps could never hold them (2^60 bytes). */
#define MAX_MEASURED_STEPS (INT64_C(1) << 57)

int harness_config_check_limits(const harness_config *c, harness_error *err)
{
    if (c->repeat > HARNESS_MAX_WINDOWS)
        return harness_config_fail(c, HARNESS_EXIT_USAGE, "schedule.repeat", err,
                                   "%" PRId64 " windows is more than the %d a run can hold; use fewer windows "
                                   "with more measurement_steps each", c->repeat, HARNESS_MAX_WINDOWS);
    /* measurement_steps: auto (0) measures up to stopping.max_steps per window. */
    int64_t per_window = c->measurement_steps ? c->measurement_steps : c->stop_max_steps;
    const char *per_key = c->measurement_steps ? "schedule.measurement_steps" : "schedule.stopping.max_steps";
    int64_t window_steps, measured, all_windows, total;
    if (__builtin_add_overflow(c->wait_steps, per_window, &window_steps))
        return harness_config_fail(c, HARNESS_EXIT_USAGE, per_key, err,
                                   "wait_steps + %" PRId64 " steps per window does not fit in 64 bits", per_window);
    if (__builtin_mul_overflow(c->repeat, per_window, &measured) || measured > MAX_MEASURED_STEPS)
        return harness_config_fail(c, HARNESS_EXIT_USAGE, per_key, err,
                                   "%" PRId64 " windows x %" PRId64 " measured steps is more samples than a run "
                                   "can hold (at most 2^57)", c->repeat, per_window);
    if (__builtin_mul_overflow(c->repeat, window_steps, &all_windows))
        return harness_config_fail(c, HARNESS_EXIT_USAGE, "schedule.wait_steps", err,
                                   "%" PRId64 " windows x (%" PRId64 " wait + %" PRId64 " measured steps) does not "
                                   "fit in 64 bits", c->repeat, c->wait_steps, per_window);
    if (__builtin_add_overflow(c->warmup_steps, all_windows, &total))
        return harness_config_fail(c, HARNESS_EXIT_USAGE, "schedule.warmup_steps", err,
                                   "%" PRId64 " warmup steps plus the windows' %" PRId64 " steps does not fit in "
                                   "64 bits", c->warmup_steps, all_windows);
    return 0;
}
