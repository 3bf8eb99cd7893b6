/* The margins of peak_margin.h: pure arithmetic, unit-tested in
 * tests/unit/test_impossible_figure.c. */
#include "backend/peak_margin.h"

#include <math.h>
#include <stdio.h>

int harness_rep_spread_known(const harness_rep_spread *s)
{
    return s && s->min > 0 && s->median >= s->min && s->max >= s->median && isfinite(s->max);
}

double harness_peak_margin_datasheet(double reported_mhz, double quoted_mhz, char *why, size_t cap)
{
    double clock = reported_mhz > 0 && quoted_mhz > 0 && reported_mhz > quoted_mhz ? reported_mhz / quoted_mhz : 1;
    double m = HARNESS_MARGIN_DATASHEET * clock;
    if (!why || !cap)
        return m;
    if (clock > 1)
        snprintf(why, cap, "a datasheet rate: x%.2f for rounding times the clock the device reports over the "
                 "one the datasheet quotes, x%.3f", HARNESS_MARGIN_DATASHEET, clock);
    else
        snprintf(why, cap, "a datasheet rate: x%.2f for rounding and clocks", HARNESS_MARGIN_DATASHEET);
    return m;
}

double harness_peak_margin_calibrated(const harness_rep_spread *spread, int busy, char *why, size_t cap)
{
    int known = harness_rep_spread_known(spread);
    double steadiness = known ? spread->max / spread->min : NAN;
    double by_spread = HARNESS_MARGIN_CALIBRATED_IDLE * steadiness;
    if (known && busy == 0) {
        if (why && cap)
            snprintf(why, cap, "calibrated on an idle machine: x%.2f times its repetitions' best over worst, x%.3f",
                     HARNESS_MARGIN_CALIBRATED_IDLE, steadiness);
        return by_spread;
    }
    /* Busy or unknown: every repetition may be low together, which no
     * spread shows; a spread wider still widens it further. */
    double m = known && by_spread > HARNESS_MARGIN_CALIBRATED_DEFAULT ? by_spread : HARNESS_MARGIN_CALIBRATED_DEFAULT;
    if (why && cap)
        snprintf(why, cap, "%s%s", busy == 1 ? "calibrated on a busy machine, so possibly low"
                 : "the machine file does not say whether calibrate ran on an idle machine",
                 m > HARNESS_MARGIN_CALIBRATED_DEFAULT ? ", and its repetitions varied more still" : "");
    return m;
}
