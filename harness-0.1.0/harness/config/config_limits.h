/* config_limits.h - counts checked against what the run can hold before
 * any arithmetic on them: `repeat: 9223372036854775807` is a config error
 * naming the key, not an overflow or an "out of memory" later. */
#ifndef HARNESS_CONFIG_LIMITS_H
#define HARNESS_CONFIG_LIMITS_H

#include "config/config.h"

/* Windows a run keeps per-window arrays and statistics for. */
#define HARNESS_MAX_WINDOWS 1000000

/* The schedule's step and window counts: their totals must fit in int64_t,
 * and the measured ones in an array of samples. */
int harness_config_check_limits(const harness_config *cfg, harness_error *err);

#endif
