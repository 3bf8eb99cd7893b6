#include "report/summary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/interference.h"

/* Per-region statistics from the recorded trace events (regions are timed
 * only while tracing). Events of one name are gathered into one array. */
static int compute_regions(harness_summary *s)
{
    const harness_profiler *p = s->profiler;
    if (!p || !p->trace_enabled || p->n_names == 0)
        return 0;
    size_t n = p->n_names;
    s->regions = calloc(n, sizeof *s->regions);
    size_t *count = calloc(n, sizeof *count);
    double *durations = malloc((p->n_events ? p->n_events : 1) * sizeof *durations);
    size_t *start = calloc(n + 1, sizeof *start);
    int rc = s->regions && count && durations && start ? 0 : -1;
    double step_total = 0;
    for (size_t i = 0; rc == 0 && i < p->n_events; i++) {
        const harness_trace_event *e = &p->events[i];
        if (e->kind == HARNESS_EVENT_REGION)
            count[e->name]++;
        else
            step_total += harness_clock_ns(p->clk, e->t1 - e->t0);
    }
    for (size_t k = 0; rc == 0 && k < n; k++)
        start[k + 1] = start[k] + count[k];
    for (size_t k = 0; rc == 0 && k < n; k++)
        count[k] = 0;
    for (size_t i = 0; rc == 0 && i < p->n_events; i++) {
        const harness_trace_event *e = &p->events[i];
        if (e->kind == HARNESS_EVENT_REGION)
            durations[start[e->name] + count[e->name]++] = harness_clock_ns(p->clk, e->t1 - e->t0);
    }
    for (size_t k = 0; rc == 0 && k < n; k++) {
        if (count[k] == 0)
            continue;  /* named only in steps the cap dropped */
        harness_region_stats *r = &s->regions[s->n_regions++];
        r->name = p->names[k];
        rc = harness_stats_compute(durations + start[k], count[k], &r->per_call);
        r->total_ns = r->per_call.mean * (double)count[k];
        r->share_of_steps = step_total > 0 ? r->total_ns / step_total : 0;
    }
    free(count);
    free(durations);
    free(start);
    return rc;
}

/* The windows' medians as samples of their own: the CI across windows. */
static int compute_across_windows(harness_summary *s)
{
    size_t n = s->run->n_windows;
    memset(&s->across_windows, 0, sizeof s->across_windows);
    if (n == 0)
        return 0;
    double *medians = malloc(n * sizeof *medians);
    if (!medians)
        return -1;
    size_t m = 0;
    for (size_t w = 0; w < n; w++)
        if (s->windows[w].n)
            medians[m++] = s->windows[w].median;
    int rc = harness_stats_compute(medians, m, &s->across_windows);
    free(medians);
    return rc;
}

/* Interference over windows [first, last) of the run: switches summed,
 * steal weighted by wall time, and the bound on the median of those
 * windows' samples. */
static harness_noise_evidence noise_of(const harness_run_result *r, size_t first, size_t last)
{
    harness_noise_evidence e = {.involuntary_switches = 0, .steal_share = 0, .sm_clock_mhz = NAN,
                                .sm_clock_max_mhz = NAN};
    double wall = 0;
    for (size_t w = first; w < last; w++) {
        const harness_device_state *d = r->window_device ? &r->window_device[w] : NULL;
        if (d && !isnan(d->sm_clock_mhz)) {   /* fmin/fmax skip a NAN side */
            e.sm_clock_mhz = fmin(e.sm_clock_mhz, d->sm_clock_mhz);
            e.sm_clock_max_mhz = fmax(e.sm_clock_max_mhz, d->sm_clock_max_mhz);
            e.throttle_reasons |= d->throttle_reasons;
        }
        if (r->window_switches[w] < 0 || e.involuntary_switches < 0)
            e.involuntary_switches = -1;
        else
            e.involuntary_switches += r->window_switches[w];
        e.steal_share += r->window_steal_share[w] * r->window_wall_ns[w];
        wall += r->window_wall_ns[w];
    }
    e.steal_share = wall > 0 ? e.steal_share / wall : NAN;
    size_t from = r->window_start[first], to = r->window_start[last];
    e.steps = to - from;
    e.median_shift_bound = e.involuntary_switches < 0
                               ? NAN
                               : harness_median_shift_bound(r->samples_ns + from, e.steps,
                                                            (double)e.involuntary_switches, e.steal_share);
    /* a clock held down slows every step alike, on top of the preemptions */
    double clock = harness_clock_shift_bound(e.sm_clock_mhz, e.sm_clock_max_mhz, e.throttle_reasons);
    e.median_shift_bound = 1.0 - (1.0 - e.median_shift_bound) * (1.0 - clock);
    return e;
}

static int compute_noise(harness_summary *s)
{
    const harness_run_result *r = s->run;
    if (!r->window_switches || !r->window_steal_share)
        return 0;                  /* a run result without the counters (made by hand): unknown */
    s->window_noise = calloc(r->n_windows ? r->n_windows : 1, sizeof *s->window_noise);
    if (!s->window_noise)
        return -1;
    for (size_t w = 0; w < r->n_windows; w++)
        s->window_noise[w] = noise_of(r, w, w + 1);
    s->noise = noise_of(r, 0, r->n_windows);
    return 0;
}

const char *harness_noise_text(const harness_noise_evidence *e, char *buf, size_t cap)
{
    if (e->involuntary_switches < 0 || isnan(e->median_shift_bound)) {
        snprintf(buf, cap, "unknown (the kernel's counters could not be read)");
        return buf;
    }
    char steal[256] = "", names[128];
    size_t len = 0;
    if (e->steal_share > 0)
        len += (size_t)snprintf(steal, sizeof steal, ", %.1f%% of CPU time stolen", e->steal_share * 100);
    if (!isnan(e->sm_clock_mhz))
        snprintf(steal + len, sizeof steal - len, ", SM clock %.0f MHz of %.0f%s%s", e->sm_clock_mhz,
                 e->sm_clock_max_mhz, e->throttle_reasons & HARNESS_THROTTLE_SLOWDOWNS ? ", held down by " : "",
                 harness_throttle_names(e->throttle_reasons, names, sizeof names));
    if (e->median_shift_bound >= 1)
        snprintf(buf, cap, "%lld involuntary context switches in %zu measured steps%s: half the steps or more "
                 "may have waited, so nothing bounds the median's rise", (long long)e->involuntary_switches,
                 e->steps, steal);
    else
        snprintf(buf, cap, "%lld involuntary context switches in %zu measured steps%s: could have raised the "
                 "median by up to %.2f%%", (long long)e->involuntary_switches, e->steps, steal,
                 e->median_shift_bound * 100);
    return buf;
}

int harness_summary_compute(harness_summary *s)
{
    s->windows = NULL;
    memset(&s->across_windows, 0, sizeof s->across_windows);
    s->regions = NULL;
    s->n_regions = 0;
    s->window_noise = NULL;
    s->noise = (harness_noise_evidence){.involuntary_switches = -1, .steal_share = NAN, .median_shift_bound = NAN};
    if (compute_regions(s) != 0)
        return -1;
    memset(&s->overall, 0, sizeof s->overall);
    if (!s->run) {
        harness_summary_collect_warnings(s);
        return 0;
    }
    const harness_run_result *r = s->run;
    if (harness_stats_compute(r->samples_ns, r->n_samples, &s->overall) != 0)
        return -1;
    s->windows = calloc(r->n_windows ? r->n_windows : 1, sizeof *s->windows);
    if (!s->windows)
        return -1;
    for (size_t w = 0; w < r->n_windows; w++)
        if (harness_stats_compute(r->samples_ns + r->window_start[w], harness_window_size(r, w), &s->windows[w]) != 0)
            return -1;
    if (compute_across_windows(s) != 0 || compute_noise(s) != 0)
        return -1;
    harness_summary_collect_warnings(s);
    return 0;
}

void harness_summary_release(harness_summary *s)
{
    free(s->windows);
    free(s->regions);
    free(s->window_noise);
    s->windows = NULL;
    s->regions = NULL;
    s->window_noise = NULL;
}

void harness_summary_mark(harness_summary *s, const char *status, const char *why)
{
    s->status = status;
    snprintf(s->error, sizeof s->error, "%s", why);
}
