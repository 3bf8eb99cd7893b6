#include "config/config_limits.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

/* Samples are doubles in one array: a run that plans more than this many
 * measured steps could never hold them (2^60 bytes). */
#define MAX_MEASURED_STEPS (INT64_C(1) << 57)

/* `why` from fmt; returns key. */
static const char *fail(char *why, size_t cap, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static const char *fail(char *why, size_t cap, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, cap, fmt, ap);
    va_end(ap);
    return key;
}

const char *harness_schedule_counts_exceed(const harness_schedule_counts *c, char *why, size_t cap)
{
    if (c->repeat > HARNESS_MAX_WINDOWS)
        return fail(why, cap, "schedule.repeat",
                    "%" PRId64 " windows is more than the %d a run can hold; use fewer windows "
                    "with more measurement_steps each", c->repeat, HARNESS_MAX_WINDOWS);
    /* measurement_steps: auto (0) measures up to stopping.max_steps per window. */
    int64_t per_window = c->measurement_steps ? c->measurement_steps : c->stop_max_steps;
    const char *per_key = c->measurement_steps ? "schedule.measurement_steps" : "schedule.stopping.max_steps";
    int64_t window_steps, measured, all_windows, total;
    if (__builtin_add_overflow(c->wait_steps, per_window, &window_steps))
        return fail(why, cap, per_key, "wait_steps + %" PRId64 " steps per window does not fit in 64 bits",
                    per_window);
    if (__builtin_mul_overflow(c->repeat, per_window, &measured) || measured > MAX_MEASURED_STEPS)
        return fail(why, cap, per_key,
                    "%" PRId64 " windows x %" PRId64 " measured steps is more samples than a run "
                    "can hold (at most 2^57)", c->repeat, per_window);
    if (__builtin_mul_overflow(c->repeat, window_steps, &all_windows))
        return fail(why, cap, "schedule.wait_steps",
                    "%" PRId64 " windows x (%" PRId64 " wait + %" PRId64 " measured steps) does not "
                    "fit in 64 bits", c->repeat, c->wait_steps, per_window);
    if (__builtin_add_overflow(c->warmup_steps, all_windows, &total))
        return fail(why, cap, "schedule.warmup_steps",
                    "%" PRId64 " warmup steps plus the windows' %" PRId64 " steps does not fit in "
                    "64 bits", c->warmup_steps, all_windows);
    return NULL;
}
