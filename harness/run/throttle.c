/* The throttled-step rule (run/throttle.h). */
#include "run/throttle.h"

#include <math.h>

void harness_throttle_init(harness_throttle *t, double threshold, int64_t redo_max, int can_redo)
{
    *t = (harness_throttle){.threshold = threshold, .redo_max = redo_max > 0 ? redo_max : 0, .can_redo = can_redo,
                            .next_pause_ns = HARNESS_THROTTLE_PAUSE_NS};
}

/* The pause after a throttled reading: doubled from the last while the
 * clock stays down, within the caps. */
static double take_pause(harness_throttle *t)
{
    double left = HARNESS_THROTTLE_PAUSE_TOTAL_NS - t->paused_ns;
    double p = fmin(t->next_pause_ns, left);
    if (p <= 0)
        return 0;
    t->paused_ns += p;
    t->next_pause_ns = fmin(2 * t->next_pause_ns, HARNESS_THROTTLE_PAUSE_MAX_NS);
    return p;
}

harness_clock_verdict harness_throttle_judge(harness_throttle *t, double mhz, double max_mhz, int64_t group,
                                             double *pause_ns)
{
    *pause_ns = 0;
    int known = isfinite(mhz) && isfinite(max_mhz) && max_mhz > 0;
    if (!(t->threshold > 0) || !known || group <= 0 || mhz >= t->threshold * max_mhz) {
        if (known && group > 0)
            t->next_pause_ns = HARNESS_THROTTLE_PAUSE_NS;   /* recovered: the next episode starts short */
        return HARNESS_CLOCK_KEEP;
    }
    t->throttled_readings++;
    if (!t->can_redo || t->dropped + group > t->redo_max) {
        t->kept_throttled += group;
        return HARNESS_CLOCK_KEEP_THROTTLED;
    }
    t->dropped += group;
    *pause_ns = take_pause(t);
    return HARNESS_CLOCK_DROP;
}
