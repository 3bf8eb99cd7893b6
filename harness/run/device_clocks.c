/* Clock readings between a device window's steps (run/device_clocks.h). */
#include "run/device_clocks.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One event pair around the whole window (event_timer.h: batch, unless
 * flush_l2 makes it time each step alone): a reading would be timed. */
static int timed_whole(const harness_backend *b)
{
    return b->opts.batch_timing && !b->opts.flush_l2;
}

void harness_device_clocks_begin(harness_device_clocks *dc, size_t first, int64_t planned, double threshold,
                                 const harness_backend *b, int ranks)
{
    memset(dc, 0, sizeof *dc);
    dc->on = b->ops->device_state != NULL && !timed_whole(b);
    harness_throttle_init(&dc->throttle, threshold, planned, !ranks);
    dc->window_start = dc->group_start = first;
    dc->last_read_ns = b->ops->wall_ns(b);
}

/* Room for a drop flag per sample of the window up to n_samples. */
static int mark_room(harness_device_clocks *dc, size_t need)
{
    if (need <= dc->drop_cap)
        return 0;
    size_t cap = dc->drop_cap ? dc->drop_cap : 256;
    while (cap < need)
        cap *= 2;
    unsigned char *d = realloc(dc->drop, cap);
    if (!d)
        return -1;
    memset(d + dc->drop_cap, 0, cap - dc->drop_cap);
    dc->drop = d;
    dc->drop_cap = cap;
    return 0;
}

/* Let the device recover: its queued steps finish first, so that it idles
 * for the whole pause. */
static int pause_device(const harness_backend *b, double ns, harness_error *err)
{
    if (b->ops->synchronize && b->ops->synchronize(b, err) != 0)
        return -1;
    struct timespec t = {(time_t)(ns / 1e9), (long)fmod(ns, 1e9)};
    nanosleep(&t, NULL);           /* a stop signal cuts it short: the runner stops before the next step */
    return 0;
}

int64_t harness_device_clocks_read(harness_device_clocks *dc, const harness_sample_columns *c,
                                   const harness_backend *b, int force, harness_error *err)
{
    size_t n_samples = *c->n;
    if (!dc->on || n_samples <= dc->group_start)
        return 0;
    uint64_t now = b->ops->wall_ns(b);
    if (!force && !harness_clock_read_due((double)(now - dc->last_read_ns)))
        return 0;
    harness_device_state st = {NAN, NAN, 0};
    if (b->ops->device_state(b, &st) != 0)
        st = (harness_device_state){NAN, NAN, 0};
    else
        dc->readings++;
    dc->reasons |= st.throttle_reasons;
    size_t first = dc->group_start, n = n_samples - first;
    for (size_t i = first; i < n_samples; i++)
        c->clock_mhz[i] = st.sm_clock_mhz;
    dc->group_start = n_samples;
    double pause_ns = 0;
    harness_clock_verdict v = harness_throttle_judge(&dc->throttle, st.sm_clock_mhz, st.sm_clock_max_mhz,
                                                     (int64_t)n, &pause_ns);
    int64_t more = 0;
    if (v == HARNESS_CLOCK_DROP) {
        if (mark_room(dc, n_samples - dc->window_start) != 0) {
            dc->throttle.dropped -= (int64_t)n;   /* no room to mark them: kept, and counted so */
            dc->throttle.kept_throttled += (int64_t)n;
        } else {
            memset(dc->drop + (first - dc->window_start), 1, n);
            more = (int64_t)n;
        }
        if (pause_ns > 0 && pause_device(b, pause_ns, err) != 0)
            return -1;
    }
    dc->last_read_ns = b->ops->wall_ns(b);
    return more;
}

void harness_device_clocks_compact(harness_device_clocks *dc, const harness_sample_columns *c)
{
    if (!dc->drop)
        return;
    size_t kept = dc->window_start;
    for (size_t i = dc->window_start; i < *c->n; i++) {
        size_t k = i - dc->window_start;
        if (k < dc->drop_cap && dc->drop[k])
            continue;
        c->device_ns[kept] = c->device_ns[i];
        c->host_ns[kept] = c->host_ns[i];
        c->clock_mhz[kept] = c->clock_mhz[i];
        kept++;
    }
    /* Every dropped step was in a group already read, so before group_start. */
    dc->group_start -= *c->n - kept;
    *c->n = kept;
    memset(dc->drop, 0, dc->drop_cap);
}

harness_window_clocks harness_device_clocks_end(harness_device_clocks *dc)
{
    free(dc->drop);
    dc->drop = NULL;
    dc->drop_cap = 0;
    return (harness_window_clocks){.readings = dc->readings, .dropped = dc->throttle.dropped,
                                   .kept_throttled = dc->throttle.kept_throttled,
                                   .paused_ns = dc->throttle.paused_ns, .throttle_reasons = dc->reasons};
}
