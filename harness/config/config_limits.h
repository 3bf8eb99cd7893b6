/* config_limits.h - counts checked against what the run can hold before
 * any arithmetic on them: `repeat: 9223372036854775807` is a config error
 * naming the key, not an overflow or an "out of memory" later. */
#ifndef HARNESS_CONFIG_LIMITS_H
#define HARNESS_CONFIG_LIMITS_H

#include <stddef.h>
#include <stdint.h>

/* Windows a run keeps per-window arrays and statistics for. */
#define HARNESS_MAX_WINDOWS 1000000

/* The schedule's step and window counts, as the config gives them. */
typedef struct harness_schedule_counts {
    int64_t warmup_steps, wait_steps, measurement_steps, repeat, stop_max_steps;
} harness_schedule_counts;

/* Their totals must fit in int64_t, and the measured ones in an array of
 * samples. NULL when they do; else the key at fault, with why in `why`. */
const char *harness_schedule_counts_exceed(const harness_schedule_counts *c, char *why, size_t cap);

#endif
