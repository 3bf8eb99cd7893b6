/* window_energy.h - the energy of one measurement window from the device's
 * counters read at its start and end (docs/timing-integrity.md, "Energy").
 *
 * A counter updates only every `period_s` (NVML: 20-100 ms, RAPL: about
 * 1 ms), so a read lags the truth by up to one period, and the difference
 * of two reads spans the window give or take one period: its relative
 * error is at most period / span. The rule: a window shorter than
 * HARNESS_ENERGY_MIN_PERIODS periods is "too short to measure" and gives no
 * figure (an error above 10%); a longer one gives its joules with that
 * bound as its uncertainty. */
#ifndef HARNESS_WINDOW_ENERGY_H
#define HARNESS_WINDOW_ENERGY_H

#include <stdint.h>

#include "backend/backend.h"

/* Periods a window must span: NVML's 100 ms worst case asks 1 s a window. */
#define HARNESS_ENERGY_MIN_PERIODS 10

typedef enum {
    HARNESS_ENERGY_NOT_READ,       /* zero: the window ended (a crash) before its end was read */
    HARNESS_ENERGY_MEASURED,       /* joules is the window's energy, within period / span */
    HARNESS_ENERGY_NOT_AVAILABLE,  /* the device has no counter (b->energy.missing says why) */
    HARNESS_ENERGY_UNREADABLE,     /* a read failed, or the counters changed between the two */
    HARNESS_ENERGY_TOO_SHORT,      /* under HARNESS_ENERGY_MIN_PERIODS periods (a zero-length window too) */
    HARNESS_ENERGY_BACKWARDS,      /* a counter that never wraps went down (the driver reloaded?) */
    HARNESS_ENERGY_STUCK,          /* no counter moved over a window long enough for them to */
    HARNESS_ENERGY_STATUS_COUNT
} harness_energy_status;

typedef struct harness_window_energy {
    harness_energy_status status;
    double joules;                 /* the counters' difference, wraps undone; NAN unless MEASURED */
    double span_s;                 /* wall time between the two reads */
} harness_window_energy;

/* A window's energy from its two reads (NULL: that read failed), the wall
 * time between them and the counter's period. Pure: the rule above. */
harness_window_energy harness_window_energy_of(const harness_energy_reading *start, const harness_energy_reading *end,
                                               double span_s, double period_s);

/* The least span a window must have to be measured (HARNESS_ENERGY_MIN_PERIODS
 * periods). */
double harness_energy_min_span_s(double period_s);

/* "not_read", "measured", "not_available", "unreadable", "too_short", "went_backwards",
 * "stuck": the JSON's tokens. */
const char *harness_energy_status_token(harness_energy_status s);
/* The same for people ("too short to measure", ...). */
const char *harness_energy_status_text(harness_energy_status s);

/* The runner's two reads around a window: the start's, with the wall time
 * it was taken at (1 when read, 0 when the backend has no counter or the
 * read failed); then the window's energy from it and a read now. */
int harness_window_energy_begin(const harness_backend *b, harness_energy_reading *start, uint64_t *t0_ns);
harness_window_energy harness_window_energy_end(const harness_backend *b, const harness_energy_reading *start,
                                                int start_ok, uint64_t t0_ns);

#endif
