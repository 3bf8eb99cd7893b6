/* window_energy.c - a window's joules from two counter reads (window_energy.h). */
#include "run/window_energy.h"

#include <math.h>
#include <string.h>

double harness_energy_min_span_s(double period_s)
{
    return HARNESS_ENERGY_MIN_PERIODS * (period_s > 0 ? period_s : 0);
}

/* The counters' difference in joules, each wrap undone on its own counter
 * (the sum of several packages' counters would wrap nowhere in
 * particular). -1 when a counter without a range went down. */
static int difference(const harness_energy_reading *a, const harness_energy_reading *b, double *joules)
{
    double mj = 0;
    for (int i = 0; i < a->n; i++) {
        double d = b->mj[i] - a->mj[i];
        if (d < 0 && !(a->range_mj[i] > 0))
            return -1;
        if (d < 0)
            d += a->range_mj[i];   /* one wrap: RAPL's range lasts many minutes at full power */
        mj += d;
    }
    *joules = mj / 1e3;
    return 0;
}

harness_window_energy harness_window_energy_of(const harness_energy_reading *start, const harness_energy_reading *end,
                                               double span_s, double period_s)
{
    harness_window_energy w = {HARNESS_ENERGY_UNREADABLE, NAN, span_s};
    if (!start || !end || start->n != end->n || start->n <= 0 || start->n > HARNESS_ENERGY_MAX_COUNTERS ||
        !isfinite(span_s))
        return w;
    double joules;
    if (difference(start, end, &joules) != 0) {
        w.status = HARNESS_ENERGY_BACKWARDS;
        return w;
    }
    /* Zero-length windows are too short whatever the period. */
    if (!(span_s > 0) || span_s < harness_energy_min_span_s(period_s)) {
        w.status = HARNESS_ENERGY_TOO_SHORT;
        return w;
    }
    if (!(joules > 0)) {           /* long enough for several updates, yet none came */
        w.status = HARNESS_ENERGY_STUCK;
        return w;
    }
    w.status = HARNESS_ENERGY_MEASURED;
    w.joules = joules;
    return w;
}

static const char *const tokens[HARNESS_ENERGY_STATUS_COUNT] = {
    "not_read", "measured", "not_available", "unreadable", "too_short", "went_backwards", "stuck",
};
static const char *const texts[HARNESS_ENERGY_STATUS_COUNT] = {
    "not read (the window did not finish)", "measured", "not available", "unreadable (a counter read failed, or the counters changed during the window)",
    "too short to measure", "the counter went backwards (the driver reloaded?)",
    "the counter did not advance (stuck)",
};

const char *harness_energy_status_token(harness_energy_status s)
{
    return (unsigned)s < HARNESS_ENERGY_STATUS_COUNT ? tokens[s] : "?";
}

const char *harness_energy_status_text(harness_energy_status s)
{
    return (unsigned)s < HARNESS_ENERGY_STATUS_COUNT ? texts[s] : "?";
}

int harness_window_energy_begin(const harness_backend *b, harness_energy_reading *start, uint64_t *t0_ns)
{
    memset(start, 0, sizeof *start);
    *t0_ns = 0;
    if (!harness_backend_has_energy(b) || b->ops->energy_read(b, start) != 0)
        return 0;
    *t0_ns = b->ops->wall_ns(b);
    return 1;
}

harness_window_energy harness_window_energy_end(const harness_backend *b, const harness_energy_reading *start,
                                                int start_ok, uint64_t t0_ns)
{
    if (!harness_backend_has_energy(b))
        return (harness_window_energy){HARNESS_ENERGY_NOT_AVAILABLE, NAN, NAN};
    harness_energy_reading end;
    int end_ok = b->ops->energy_read(b, &end) == 0;
    uint64_t t1_ns = b->ops->wall_ns(b);
    double span_s = start_ok ? (double)(t1_ns - t0_ns) * 1e-9 : NAN;
    return harness_window_energy_of(start_ok ? start : NULL, end_ok ? &end : NULL, span_s, b->energy.period_s);
}
