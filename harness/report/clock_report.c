/* The SM clock in the summaries; see clock_report.h. */
#include "report/clock_report.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "folder/rank_summary_gpu.h"
#include "run/throttle.h"
#include "util/interference.h"

/* A GPU run whose samples carry clocks (the CUDA backend's; none on the CPU). */
static const harness_run_result *clocked_run(const harness_summary *s)
{
    if (!s->backend || !s->device || strcmp(s->device, "cuda") != 0 || !s->run || !s->run->sample_clock_mhz)
        return NULL;
    return s->run;
}

typedef struct clock_figures {
    double min_mhz, median_mhz;    /* of the kept steps whose clock is known; NAN none */
    size_t known;
    harness_window_clocks sum;     /* the windows' counts, added up */
} clock_figures;

/* Windows [first, last): their kept steps' clocks and their counts. */
static clock_figures figures(const harness_run_result *r, size_t first, size_t last)
{
    clock_figures f = {NAN, NAN, 0, {0}};
    size_t from = r->window_start[first], to = r->window_start[last];
    double *known = malloc((to > from ? to - from : 1) * sizeof *known);
    for (size_t i = from; known && i < to; i++)
        if (isfinite(r->sample_clock_mhz[i]))
            known[f.known++] = r->sample_clock_mhz[i];
    if (f.known) {
        f.median_mhz = harness_median(known, f.known);   /* sorts: known[0] is the least */
        f.min_mhz = known[0];
    }
    free(known);
    for (size_t w = first; w < last && r->window_clocks; w++) {
        const harness_window_clocks *c = &r->window_clocks[w];
        f.sum.readings += c->readings;
        f.sum.dropped += c->dropped;
        f.sum.kept_throttled += c->kept_throttled;
        f.sum.paused_ns += c->paused_ns;
        f.sum.throttle_reasons |= c->throttle_reasons;
    }
    return f;
}

static void figures_out(const clock_figures *f, harness_clock_figures_out *o)
{
    o->sm_clock_min_mhz = f->min_mhz;
    o->sm_clock_median_mhz = f->median_mhz;
    o->readings = (double)f->sum.readings;
    o->throttled_steps_dropped = (double)f->sum.dropped;
    o->throttled_steps_kept = (double)f->sum.kept_throttled;
    o->pause_ms = f->sum.paused_ns / 1e6;
    harness_throttle_names(f->sum.throttle_reasons, o->throttle_reasons, sizeof o->throttle_reasons);
}

/* The device's most SM clock, as its readings said (NAN unknown). */
static double most_mhz(const harness_run_result *r)
{
    double most = NAN;
    for (size_t w = 0; r->window_device && w < r->n_windows; w++)
        most = fmax(most, r->window_device[w].sm_clock_max_mhz);   /* fmax skips a NAN side */
    return most;
}

int harness_clock_report_out(const harness_summary *s, harness_device_clocks_out *o)
{
    const harness_run_result *r = clocked_run(s);
    if (!r)
        return 0;
    const harness_device_info *i = &s->backend->info;
    *o = (harness_device_clocks_out){
        .read_every_ns = HARNESS_CLOCK_READ_PERIOD_NS, .throttle_threshold = s->cfg->throttle_threshold,
        .sm_clock_max_mhz = most_mhz(r), .lock_clocks = s->cfg->lock_clocks, .lock = i->clock_lock,
        .clocks_locked = i->clocks_locked, .samples = r->sample_clock_mhz, .n_samples = r->n_samples,
        .samples_file = s->clock_samples_file, .samples_sha256 = s->clock_samples_sha256,
    };
    clock_figures f = figures(r, 0, r->n_windows);
    figures_out(&f, &o->figures);
    return 1;
}

int harness_clock_report_window_out(const harness_summary *s, size_t w, harness_clock_figures_out *o)
{
    const harness_run_result *r = clocked_run(s);
    if (!r)
        return 0;
    clock_figures f = figures(r, w, w + 1);
    figures_out(&f, o);
    return 1;
}

void harness_clock_report_json(const harness_summary *s, cJSON *timing)
{
    harness_device_clocks_out o;
    if (harness_clock_report_out(s, &o))
        cJSON_AddItemToObject(timing, "device_clocks", harness_rs_write_device_clocks(&o));
}

void harness_clock_report_window_json(const harness_summary *s, size_t w, cJSON *win)
{
    harness_clock_figures_out o;
    if (harness_clock_report_window_out(s, w, &o))
        cJSON_AddItemToObject(win, "device_clocks", harness_rs_write_clock_figures(&o));
}

void harness_clock_report_print(FILE *f, const harness_summary *s)
{
    const harness_run_result *r = clocked_run(s);
    if (!r)
        return;
    clock_figures c = figures(r, 0, r->n_windows);
    char names[128];
    if (c.known)
        fprintf(f, "SM clock of the kept steps: lowest %.0f MHz, median %.0f MHz (most %.0f; %lld readings between "
                "steps)\n", c.min_mhz, c.median_mhz, most_mhz(r), (long long)c.sum.readings);
    else
        fprintf(f, "SM clock of the steps: unknown (%s)\n", s->backend->opts.batch_timing && !s->backend->opts.flush_l2
                ? "timing: batch times each window whole, so only its edges are read" : "NVML could not be read");
    if (c.sum.dropped || c.sum.kept_throttled) {
        fprintf(f, "throttled steps (SM clock below %.2f of the most, %s): %lld dropped and measured again, %lld "
                "kept, %.1f ms of recovery pauses\n", s->cfg->throttle_threshold,
                harness_throttle_names(c.sum.throttle_reasons, names, sizeof names), (long long)c.sum.dropped,
                (long long)c.sum.kept_throttled, c.sum.paused_ns / 1e6);
        for (size_t w = 0; r->n_windows > 1 && w < r->n_windows; w++) {
            const harness_window_clocks *wc = &r->window_clocks[w];
            if (wc->dropped || wc->kept_throttled)
                fprintf(f, "  window %zu: %lld dropped and measured again, %lld kept\n", w + 1,
                        (long long)wc->dropped, (long long)wc->kept_throttled);
        }
        if (c.sum.kept_throttled)
            fprintf(f, "  kept: %s\n", s->world_size > 1 ? "the ranks run the same steps, so none is measured again"
                                                          : "the cap (as many steps again as a window plans) was reached");
    }
    if (s->backend->info.clock_lock[0])
        fprintf(f, "lock_clocks: %s\n", s->backend->info.clock_lock);
}
