#include "run/runner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "run/guard.h"
#include "run/nvtx_ranges.h"
#include "util/format.h"
#include "util/interference.h"
#include "util/stats.h"

/* Room for `need` samples (and as many host samples on a device). */
static int reserve(harness_run_result *r, size_t *cap, size_t need, int device)
{
    if (need <= *cap)
        return 0;
    size_t grown = *cap ? *cap : 1024;
    while (grown < need)
        grown *= 2;
    double *s = realloc(r->samples_ns, grown * sizeof *s);
    if (!s)
        return -1;
    r->samples_ns = s;
    if (device) {
        double *h = realloc(r->host_samples_ns, grown * sizeof *h);
        if (!h)
            return -1;
        r->host_samples_ns = h;
        double *c = realloc(r->sample_clock_mhz, grown * sizeof *c);
        if (!c)
            return -1;
        r->sample_clock_mhz = c;
    }
    *cap = grown;
    return 0;
}

static const harness_runner_hooks no_hooks;

/* A phase_begin hook failed: its error, or a generic one if it left none. */
static int hook_failed(harness_error *err, harness_phase phase)
{
    if (!err->code)
        harness_error_set(err, HARNESS_EXIT_RUNTIME, "the runner's hook before phase %d failed", (int)phase);
    return 1;
}

/* The backend's stamp; its host clock inline when it has no stamp of its
 * own, so timing a CPU step costs two clock reads and nothing more. */
static inline uint64_t step_stamp(const harness_backend *b)
{
    return b->ops->stamp ? b->ops->stamp(b) : harness_clock_ticks(&b->clock);
}

static inline double step_duration_ns(const harness_backend *b, uint64_t t0, uint64_t t1)
{
    return b->ops->stamp ? b->ops->step_ns(b, t0, t1) : harness_clock_ns(&b->clock, t1 - t0);
}

/* Where a step that returned an error was, for the message and status.json. */
static void note_step_failed(harness_run_result *r, harness_phase phase, int window, int64_t step)
{
    r->step_failed = 1;
    r->failed_phase = phase;
    r->failed_window = window;
    r->failed_step = step;
}

/* Untimed steps numbered from `first` within their phase; returns nonzero
 * when the run must stop. */
static int run_steps(harness_run_result *r, harness_phase phase, int window, int64_t first, int64_t n,
                     harness_step_fn step, void *arg, const harness_runner_hooks *h, int64_t *counter,
                     harness_error *err)
{
    for (int64_t i = first; i < first + n; i++) {
        if (harness_interrupt_requested) {
            r->interrupted = 1;
            return 1;
        }
        int met = h->step_begin ? h->step_begin(h->arg, window, i, err) : 0;
        if (err->code)
            return hook_failed(err, phase);
        if (met) {                 /* the ranks agreed to stop at this step's meeting */
            r->interrupted = 1;
            return 1;
        }
        if (step(arg) != 0) {
            note_step_failed(r, phase, window, i);
            return 1;
        }
        (*counter)++;
        if (h->step_end)
            h->step_end(h->arg, phase, window, i, 0, 0);
    }
    return 0;
}

/* A phase of untimed steps; returns nonzero when the run must stop. */
static int run_untimed(harness_run_result *r, harness_phase phase, int window, int64_t n, harness_step_fn step,
                       void *arg, const harness_runner_hooks *h, int64_t *counter, harness_error *err)
{
    if (h->phase_begin && h->phase_begin(h->arg, phase, window, err) != 0)
        return hook_failed(err, phase);
    return run_steps(r, phase, window, 0, n, step, arg, h, counter, err);
}

/* --time-budget's pilot: untimed steps right after the warmup (still its
 * phase, numbered on from it), in batches of 3, 6, 12, ... until one lasts
 * PILOT_MIN_NS; a step's time is that batch's mean wall time. A pilot
 * rather than the warmup's own steps, because the warmup's first steps pay
 * for cold caches, first-touch page faults, lazy set-up and the clock
 * ramping up, and a config may warm up with one step or none: the pilot
 * runs in the state the windows will see. The mean rather than the median,
 * because the budget is a sum of steps, preemptions and the runner's own
 * cost included, and the mean is what sums. At least 3 steps, so that one
 * preempted step is not the estimate; at least 20 ms (five ticks at
 * 250 Hz), so that neither the clock's resolution nor one tick decides it,
 * and at least 1% of the budget, so that a long budget buys a steadier
 * forecast. It costs about twice that, or 3 steps when they are longer.
 * A device's
 * work is waited for around each batch: the time is the device's, not the
 * launches'. Returns nonzero when the run must stop. */
#define PILOT_MIN_STEPS 3
#define PILOT_MIN_NS 20e6
#define PILOT_BUDGET_SHARE 0.01
#define PILOT_MAX_BATCH ((int64_t)1 << 26)    /* a clock that never moves must not hold the run forever */

static int run_pilot(harness_run_result *r, const harness_backend *b, harness_step_fn step, void *arg,
                     const harness_runner_hooks *h, uint64_t start, harness_error *err)
{
    double least_s = fmax(PILOT_MIN_NS * 1e-9, PILOT_BUDGET_SHARE * r->budget.budget_s);
    for (int64_t batch = PILOT_MIN_STEPS;; batch *= 2) {
        if (b->ops->synchronize && b->ops->synchronize(b, err) != 0)
            return 1;
        uint64_t t0 = b->ops->wall_ns(b);
        if (run_steps(r, HARNESS_PHASE_WARMUP, -1, r->warmup_steps_run + r->budget.pilot_steps, batch, step, arg, h,
                      &r->budget.pilot_steps, err) != 0)
            return 1;
        if (b->ops->synchronize && b->ops->synchronize(b, err) != 0)
            return 1;
        uint64_t t1 = b->ops->wall_ns(b);
        double batch_s = (double)(t1 - t0) * 1e-9, spent_s = (double)(t1 - start) * 1e-9;
        /* Among ranks every batch's end is agreed, not only the last: a
         * rank that ended its pilot a batch before another would meet it
         * while that one still steps (and in a collective step, hang). */
        int met = h->agree_budget ? h->agree_budget(h->arg, &batch_s, &spent_s, err) : 0;
        if (err->code)
            return 1;
        if (met) {                 /* the ranks agreed to stop there */
            r->interrupted = 1;
            return 1;
        }
        if (batch_s >= least_s || batch >= PILOT_MAX_BATCH) {
            r->budget.step_s = batch_s / (double)batch;
            r->budget.spent_s = spent_s;
            return 0;
        }
    }
}

/* The budget holds less than its minimum: exit 2, with what would fit. */
static int budget_too_small(const harness_budget *bu, harness_error *err)
{
    char step[32], spent[32];
    harness_format_ns(bu->step_s * 1e9, step, sizeof step);
    harness_format_ns(bu->spent_s * 1e9, spent, sizeof spent);
    return harness_error_set(err, HARNESS_EXIT_USAGE, "--time-budget %g s is too small: a step took %s and the "
                             "warmup with the pilot %s, so fewer than %d windows of %lld wait + 1 measured step "
                             "fit; give --time-budget %.2f or more", bu->budget_s, step, spent,
                             HARNESS_BUDGET_MIN_WINDOWS, (long long)bu->wait_steps, ceil(bu->need_s * 100) / 100);
}

/* --time-budget: the pilot, then eff's repeat and measurement_steps by the
 * rule of run/time_budget.h (the config's auto stopping gives way to the
 * sizes). t0: the schedule's start, so the warmup counts against the
 * budget. Nonzero when the run must stop: interrupted, a step that failed,
 * or a budget too small (err, exit 2). */
static int size_by_budget(harness_run_result *r, harness_schedule *eff, const harness_backend *b,
                          harness_step_fn step, void *arg, const harness_runner_hooks *h, uint64_t t0,
                          harness_error *err)
{
    harness_budget *bu = &r->budget;
    *bu = (harness_budget){.budget_s = eff->time_budget_s, .wait_steps = eff->wait_steps,
                           .config_steps = eff->measurement_steps, .config_repeat = eff->repeat};
    if (run_pilot(r, b, step, arg, h, t0, err) != 0)
        return 1;
    harness_budget_size(bu);
    if (h->budget_sized)
        h->budget_sized(h->arg, bu);
    if (!bu->fits)
        return budget_too_small(bu, err);
    eff->repeat = bu->windows;
    eff->measurement_steps = bu->steps;
    return 0;
}

/* Whether an auto window has measured enough. Sorting is O(n log n), so it
 * is checked only each time n has grown by ~10%: the total stays O(n log n). */
static const char *auto_verdict(const harness_schedule *s, const double *samples, size_t n, double elapsed_s)
{
    if ((int64_t)n >= s->max_steps)
        return "max_steps";
    if (elapsed_s >= s->max_time_s)
        return "max_time";
    if ((int64_t)n < s->min_steps)
        return NULL;
    harness_stats st;
    if (harness_stats_compute(samples, n, &st) != 0 || st.median <= 0)
        return NULL;
    double half_width = (st.ci95_hi - st.ci95_lo) / 2;
    return half_width / st.median <= s->max_rel_ci ? "converged" : NULL;
}

/* One measurement window; returns nonzero when the run must stop. */
static int run_window(harness_run_result *r, size_t *cap, const harness_schedule *s, const harness_backend *b,
                      harness_step_fn step, void *arg, const harness_runner_hooks *h, harness_error *err)
{
    const harness_backend_ops *t = b->ops;
    int window = (int)r->n_windows - 1;
    int fixed = s->measurement_steps > 0;
    size_t start = r->n_samples;
    /* Room for the whole window up front, so the loop rarely grows the
     * array; capped, so a huge step count is not a huge allocation. */
    size_t expected = fixed && s->measurement_steps < (1 << 20) ? (size_t)s->measurement_steps : 1 << 20;
    if (reserve(r, cap, start + expected, 0) != 0)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory for %zu samples", expected);
    if (h->phase_begin && h->phase_begin(h->arg, HARNESS_PHASE_MEASURE, window, err) != 0)
        return hook_failed(err, HARNESS_PHASE_MEASURE);
    uint64_t wall0 = t->wall_ns(b);
    size_t next_check = start + (size_t)(s->min_steps > 0 ? s->min_steps : 1);
    int64_t limit = fixed ? s->measurement_steps : s->max_steps;
    const char *why = "steps";
    for (int64_t i = 0; i < limit; i++) {
        if (harness_interrupt_requested) {
            r->interrupted = 1;
            return 1;
        }
        if (reserve(r, cap, r->n_samples + 1, 0) != 0)
            return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory for samples");
        int met = h->step_begin ? h->step_begin(h->arg, window, i, err) : 0;
        if (err->code)
            return hook_failed(err, HARNESS_PHASE_MEASURE);
        if (met) {                 /* the ranks agreed to stop at this step's meeting */
            r->interrupted = 1;
            return 1;
        }
        uint64_t t0 = step_stamp(b);
        int rc = step(arg);
        uint64_t t1 = step_stamp(b);
        if (rc != 0) {
            note_step_failed(r, HARNESS_PHASE_MEASURE, window, i);
            r->stop_reason[window] = "step_failed";
            return 1;
        }
        r->samples_ns[r->n_samples++] = step_duration_ns(b, t0, t1);
        if (h->step_end)
            h->step_end(h->arg, HARNESS_PHASE_MEASURE, window, i, t0, t1);
        if (!fixed && r->n_samples >= next_check) {
            size_t n = r->n_samples - start;
            double elapsed = (double)(t->wall_ns(b) - wall0) * 1e-9;
            const char *verdict = auto_verdict(s, r->samples_ns + start, n, elapsed);
            if (verdict) {
                why = verdict;
                break;
            }
            next_check = r->n_samples + (n / 10 > 0 ? n / 10 : 1);
        }
    }
    /* An auto window that reached max_steps between two checks. */
    if (!fixed && strcmp(why, "steps") == 0)
        why = "max_steps";
    r->stop_reason[window] = why;
    return 0;
}

/* Device-timed steps: hand over what the backend has measured since the
 * last call, into the samples from *resolved on. */
static int collect_device(harness_run_result *r, size_t *resolved, const harness_backend *b, harness_error *err)
{
    size_t want = r->n_samples - *resolved;
    if (want == 0)
        return 0;
    long got = b->ops->collect(b, r->samples_ns + *resolved, want, err);
    if (got < 0)
        return -1;
    *resolved += (size_t)got;
    if (*resolved != r->n_samples)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "the device timer gave %zu of %zu step times",
                                 *resolved - (r->n_samples - want), want);
    return 0;
}

/* Closes a device window however it ended, and keeps only the steps whose
 * device time is known (an interrupted or failed window keeps what it
 * measured). Returns nonzero when the device failed. */
static int finish_device_window(harness_run_result *r, size_t *resolved, const harness_backend *b,
                                harness_error *err)
{
    harness_error local = {0};
    harness_error *e = err->code ? &local : err;    /* the first error wins */
    int rc = b->ops->window_end(b, e) != 0 || collect_device(r, resolved, b, e) != 0;
    r->n_samples = *resolved;
    return rc;
}

/* Before a device-timed step: a stop asked for, room for its sample, the
 * backend's and the hooks' turn between steps. Nonzero when the window
 * must stop. */
static int before_device_step(harness_run_result *r, size_t *cap, const harness_backend *b,
                              const harness_runner_hooks *h, int window, int64_t i, harness_error *err)
{
    if (harness_interrupt_requested) {
        r->interrupted = 1;
        return 1;
    }
    if (reserve(r, cap, r->n_samples + 1, 1) != 0) {
        harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory for samples");
        return 1;
    }
    if (b->ops->between_steps && b->ops->between_steps(b, err) != 0)
        return 1;
    int met = h->step_begin ? h->step_begin(h->arg, window, i, err) : 0;
    if (err->code) {
        hook_failed(err, HARNESS_PHASE_MEASURE);
        return 1;
    }
    if (met) {                     /* the ranks agreed to stop at this step's meeting */
        r->interrupted = 1;
        return 1;
    }
    return 0;
}

/* One step marked on the device's stream, its launch timed on the host.
 * Nonzero when the window must stop. */
static int device_step(harness_run_result *r, const harness_schedule *s, const harness_backend *b,
                       harness_step_fn step, void *arg, const harness_runner_hooks *h, int window, int64_t i,
                       harness_error *err)
{
    harness_nvtx_push(s->nvtx, "step");
    if (b->ops->step_begin(b, err) != 0) {
        harness_nvtx_pop(s->nvtx);
        return 1;
    }
    uint64_t t0 = harness_clock_ticks(&b->clock);
    int rc = step(arg);
    uint64_t t1 = harness_clock_ticks(&b->clock);
    int marked = b->ops->step_end(b, err);
    harness_nvtx_pop(s->nvtx);
    if (rc != 0) {
        note_step_failed(r, HARNESS_PHASE_MEASURE, window, i);
        r->stop_reason[window] = "step_failed";
        return 1;
    }
    if (marked != 0)
        return 1;
    r->samples_ns[r->n_samples] = 0;   /* known once collected */
    r->sample_clock_mhz[r->n_samples] = NAN;   /* known at the next reading (run/device_clocks.h) */
    r->host_samples_ns[r->n_samples++] = harness_clock_ns(&b->clock, t1 - t0);
    if (h->step_end)
        h->step_end(h->arg, HARNESS_PHASE_MEASURE, window, i, t0, t1);
    return 0;
}

/* Opens a device window: its sample room, the hooks' phase, the NVTX range
 * and the backend's window. Nonzero when it could not start (the range is
 * then closed again). */
static int begin_device_window(harness_run_result *r, size_t *cap, const harness_schedule *s,
                               const harness_backend *b, const harness_runner_hooks *h, int window, harness_error *err)
{
    int fixed = s->measurement_steps > 0;
    size_t expected = fixed && s->measurement_steps < (1 << 20) ? (size_t)s->measurement_steps : 1 << 20;
    if (reserve(r, cap, r->n_samples + expected, 1) != 0)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory for %zu samples", expected);
    if (h->phase_begin && h->phase_begin(h->arg, HARNESS_PHASE_MEASURE, window, err) != 0)
        return hook_failed(err, HARNESS_PHASE_MEASURE);
    char label[32];
    snprintf(label, sizeof label, "window %d", window + 1);   /* from 1, as in the text summary */
    harness_nvtx_push(s->nvtx, label);
    if ((b->ops->window_prepare && b->ops->window_prepare(b, err) != 0) || b->ops->window_begin(b, err) != 0) {
        harness_nvtx_pop(s->nvtx);
        return 1;
    }
    return 0;
}

/* The steps a device window runs: its planned ones, and as many again as
 * throttled readings dropped (run/device_clocks.h). A reading when due
 * (always with `force`: after the last step, at a stopping check), which
 * may raise *limit. Nonzero when the window must stop. */
static harness_sample_columns columns(harness_run_result *r)
{
    return (harness_sample_columns){r->samples_ns, r->host_samples_ns, r->sample_clock_mhz, &r->n_samples};
}

static int read_clocks(harness_device_clocks *dc, harness_run_result *r, const harness_backend *b, int force,
                       int64_t *limit, harness_error *err)
{
    harness_sample_columns c = columns(r);
    int64_t more = harness_device_clocks_read(dc, &c, b, force, err);
    if (more < 0)
        return 1;
    *limit += more;
    return 0;
}

/* An auto window's stopping check: the steps so far read, their device
 * times collected, the dropped ones gone; the verdict, or NULL to go on
 * (*stop set when the device failed). */
static const char *device_auto_check(harness_run_result *r, harness_device_clocks *dc, size_t start,
                                     size_t *resolved, int64_t *limit, const harness_schedule *s,
                                     const harness_backend *b, uint64_t wall0, int *stop, harness_error *err)
{
    if (read_clocks(dc, r, b, 1, limit, err) != 0 || collect_device(r, resolved, b, err) != 0) {
        *stop = 1;
        return NULL;
    }
    harness_sample_columns c = columns(r);
    harness_device_clocks_compact(dc, &c);
    *resolved = r->n_samples;
    double elapsed = (double)(b->ops->wall_ns(b) - wall0) * 1e-9;
    return auto_verdict(s, r->samples_ns + start, r->n_samples - start, elapsed);
}

/* One measurement window timed by the device (the CPU path is run_window,
 * whose timed region this function leaves alone). Between steps the host
 * never waits: the backend marks each step on the device's stream, and
 * the durations are collected at the window's end and at each stopping
 * check of an auto window. The host clock times each step() call: the
 * launch cost, kept beside the device time. The SM clock is read between
 * steps, and steps read throttled are dropped and run again. */
static int run_device_window(harness_run_result *r, size_t *cap, const harness_schedule *s, const harness_backend *b,
                             harness_step_fn step, void *arg, const harness_runner_hooks *h, harness_error *err)
{
    int window = (int)r->n_windows - 1;
    int fixed = s->measurement_steps > 0;
    size_t start = r->n_samples, resolved = start;
    int stop = begin_device_window(r, cap, s, b, h, window, err);
    if (stop)
        return stop;
    harness_device_clocks dc;
    /* At most as many steps again as the window plans. */
    harness_device_clocks_begin(&dc, start, fixed ? s->measurement_steps : s->max_steps, s->throttle_threshold, b,
                                h->step_begin != NULL);
    uint64_t wall0 = b->ops->wall_ns(b);
    size_t next_check = start + (size_t)(s->min_steps > 0 ? s->min_steps : 1);
    int64_t limit = fixed ? s->measurement_steps : s->max_steps;
    const char *why = "steps";
    for (int64_t i = 0; !stop; i++) {
        if (i >= limit) {          /* the last group's reading: dropped, it runs more steps */
            stop = read_clocks(&dc, r, b, 1, &limit, err);
            if (stop || i >= limit)
                break;
        }
        stop = before_device_step(r, cap, b, h, window, i, err) || read_clocks(&dc, r, b, 0, &limit, err) ||
               device_step(r, s, b, step, arg, h, window, i, err);
        if (stop || fixed || r->n_samples < next_check)
            continue;
        const char *verdict = device_auto_check(r, &dc, start, &resolved, &limit, s, b, wall0, &stop, err);
        if (verdict) {
            why = verdict;
            break;
        }
        size_t n = r->n_samples - start;
        next_check = r->n_samples + (n / 10 > 0 ? n / 10 : 1);
    }
    if (finish_device_window(r, &resolved, b, err) != 0 || err->code)
        stop = 1;
    harness_sample_columns c = columns(r);
    harness_device_clocks_compact(&dc, &c);
    r->window_clocks[window] = harness_device_clocks_end(&dc);
    harness_nvtx_pop(s->nvtx);
    if (stop)
        return 1;
    if (!fixed && strcmp(why, "steps") == 0)
        why = "max_steps";
    r->stop_reason[window] = why;
    return 0;
}

/* 1 with *out when the backend reads its device's clocks, else 0. */
static int device_state(const harness_backend *b, harness_device_state *out)
{
    return b->ops->device_state && b->ops->device_state(b, out) == 0;
}

/* A window's device state from its start (NULL: unknown) and its end: the
 * lower clock, the reasons of either. */
static harness_device_state window_device_state(const harness_backend *b, const harness_device_state *start)
{
    harness_device_state end, w = {NAN, NAN, 0};
    int known = device_state(b, &end);
    if (start && known) {
        w.sm_clock_mhz = fmin(start->sm_clock_mhz, end.sm_clock_mhz);
        w.sm_clock_max_mhz = end.sm_clock_max_mhz;
        w.throttle_reasons = start->throttle_reasons | end.throttle_reasons;
    } else if (start || known) {
        w = start ? *start : end;
    }
    return w;
}

/* The timeline's window (schedule.trace_steps): after the measured ones,
 * so CUPTI's cost is in no timed step. Nonzero when the run must stop. */
static int run_trace_window(harness_run_result *r, const harness_schedule *s, const harness_backend *b,
                            harness_step_fn step, void *arg, const harness_runner_hooks *h, harness_error *err)
{
    if (s->trace_steps <= 0 || !b->ops->activity_window || r->n_windows == 0)
        return 0;
    int64_t n = (int64_t)harness_window_size(r, 0);
    if (n > s->trace_steps)
        n = s->trace_steps;
    if (b->ops->activity_window(b, 1, err) != 0)
        return 1;
    int stop = run_untimed(r, HARNESS_PHASE_TRACE, -1, n, step, arg, h, &r->trace_steps_run, err);
    /* Recording stops however the window ended; the first error wins. */
    harness_error local = {0};
    int off = b->ops->activity_window(b, 0, err->code ? &local : err);
    return stop || off != 0;
}

/* --time-budget, before window w: whether it starts, by the mean time of
 * the windows so far (run/time_budget.h); among ranks the figures are
 * agreed first (the most of each), so every rank runs the same windows.
 * 0 with *stop set when the ranks agreed to stop or the agreement failed. */
static int another_window(harness_run_result *r, const harness_backend *b, const harness_runner_hooks *h, size_t w,
                          uint64_t t0, uint64_t windows_t0, int *stop, harness_error *err)
{
    if (w < HARNESS_BUDGET_MIN_WINDOWS || w >= HARNESS_BUDGET_MAX_WINDOWS)   /* the rule's, alike on every rank */
        return harness_budget_another_window(&r->budget, (int64_t)w, 0, 0);
    uint64_t now = b->ops->wall_ns(b);
    double window_s = (double)(now - windows_t0) * 1e-9 / (double)w, elapsed_s = (double)(now - t0) * 1e-9;
    int met = h->agree_budget ? h->agree_budget(h->arg, &window_s, &elapsed_s, err) : 0;
    if (met || err->code) {
        r->interrupted = met;
        *stop = 1;
        return 0;
    }
    return harness_budget_another_window(&r->budget, (int64_t)w, elapsed_s, window_s);
}

/* Per-window arrays for up to n windows; nonzero when out of memory. */
static int alloc_windows(harness_run_result *out, size_t n)
{
    out->window_start = calloc(n + 1, sizeof *out->window_start);
    out->stop_reason = calloc(n, sizeof *out->stop_reason);
    out->window_wall_ns = calloc(n, sizeof *out->window_wall_ns);
    out->window_cpu_ns = calloc(n, sizeof *out->window_cpu_ns);
    out->window_switches = calloc(n, sizeof *out->window_switches);
    out->window_steal_share = calloc(n, sizeof *out->window_steal_share);
    out->window_device = calloc(n, sizeof *out->window_device);
    out->window_clocks = calloc(n, sizeof *out->window_clocks);
    out->window_energy = calloc(n, sizeof *out->window_energy);
    return !out->window_start || !out->stop_reason || !out->window_wall_ns || !out->window_cpu_ns ||
           !out->window_switches || !out->window_steal_share || !out->window_device || !out->window_clocks ||
           !out->window_energy;
}

/* Window w, its wait steps first, with the wall and CPU time, the
 * interference and the device's clocks around its measured steps. Nonzero
 * when the run must stop. */
static int wait_and_measure(harness_run_result *out, size_t *cap, size_t w, const harness_schedule *s,
                            const harness_backend *b, harness_step_fn step, void *arg, const harness_runner_hooks *h,
                            harness_error *err)
{
    int stop = run_untimed(out, HARNESS_PHASE_WAIT, (int)w, s->wait_steps, step, arg, h, &out->wait_steps_run, err);
    if (stop)
        return stop;
    out->window_start[w] = out->n_samples;
    out->n_windows = w + 1;
    out->stop_reason[w] = "interrupted";
    harness_interference before, after;
    harness_device_state dev_before;
    int dev_known = device_state(b, &dev_before);
    harness_energy_reading energy_before;   /* run/window_energy.h: read beside the clocks */
    uint64_t energy_t0;
    int energy_known = harness_window_energy_begin(b, &energy_before, &energy_t0);
    harness_interference_now(&before);
    uint64_t wall0 = b->ops->wall_ns(b), cpu0 = b->ops->cpu_ns(b);
    stop = harness_backend_has_device_timer(b) ? run_device_window(out, cap, s, b, step, arg, h, err)
                                               : run_window(out, cap, s, b, step, arg, h, err);
    out->window_wall_ns[w] = (double)(b->ops->wall_ns(b) - wall0);
    out->window_cpu_ns[w] = (double)(b->ops->cpu_ns(b) - cpu0);
    harness_interference_now(&after);
    out->window_switches[w] = before.involuntary_switches >= 0 && after.involuntary_switches >= 0
                                  ? after.involuntary_switches - before.involuntary_switches
                                  : -1;
    out->window_steal_share[w] = harness_steal_share(&before, &after, out->window_wall_ns[w]);
    out->window_device[w] = window_device_state(b, dev_known ? &dev_before : NULL);
    out->window_energy[w] = harness_window_energy_end(b, &energy_before, energy_known, energy_t0);
    return stop;
}

int harness_runner_run(const harness_schedule *s, const harness_backend *b, harness_step_fn step, void *arg,
                       const harness_runner_hooks *hooks, harness_run_result *out, harness_error *err)
{
    const harness_runner_hooks *h = hooks ? hooks : &no_hooks;
    memset(out, 0, sizeof *out);
    harness_schedule sched = *s;   /* what runs: a budget sizes its windows after the warmup */
    int budgeted = s->time_budget_s > 0;
    size_t room = (size_t)(s->repeat > 0 ? s->repeat : 1);
    if (budgeted && room < HARNESS_BUDGET_MAX_WINDOWS)
        room = HARNESS_BUDGET_MAX_WINDOWS;
    if (alloc_windows(out, room) != 0)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    size_t cap = 0;
    uint64_t t0 = b->ops->wall_ns(b);

    int stop = run_untimed(out, HARNESS_PHASE_WARMUP, -1, sched.warmup_steps, step, arg, h, &out->warmup_steps_run,
                           err);
    if (!stop && !err->code && budgeted)
        stop = size_by_budget(out, &sched, b, step, arg, h, t0, err);
    size_t windows = (size_t)(sched.repeat > 0 ? sched.repeat : 1);
    uint64_t windows_t0 = b->ops->wall_ns(b);
    for (size_t w = 0; !stop && !err->code; w++) {
        if (budgeted ? !another_window(out, b, h, w, t0, windows_t0, &stop, err) : w >= windows)
            break;
        stop = wait_and_measure(out, &cap, w, &sched, b, step, arg, h, err);
    }
    if (!stop && !err->code) {
        out->window_start[out->n_windows] = out->n_samples;   /* the first window's size, for the trace */
        stop = run_trace_window(out, &sched, b, step, arg, h, err);
    }
    if (h->schedule_end && !out->step_failed && !err->code && h->schedule_end(h->arg, err) > 0 && !err->code)
        out->interrupted = 1;
    if (h->run_end)
        h->run_end(h->arg);
    out->window_start[out->n_windows] = out->n_samples;
    out->wall_s = (double)(b->ops->wall_ns(b) - t0) * 1e-9;
    return err->code;
}

void harness_runner_salvage(harness_run_result *r, const char *why)
{
    if (!r->window_start)
        return;
    /* A device window's steps whose time was never collected are 0: keep
     * only those measured (the first unknown one ends the known ones). */
    if (r->host_samples_ns)
        for (size_t i = r->n_windows ? r->window_start[r->n_windows - 1] : 0; i < r->n_samples; i++)
            if (r->samples_ns[i] <= 0) {
                r->n_samples = i;
                break;
            }
    if (r->n_windows && why)
        r->stop_reason[r->n_windows - 1] = why;
    r->window_start[r->n_windows] = r->n_samples;
}

size_t harness_window_size(const harness_run_result *r, size_t w)
{
    return r->window_start[w + 1] - r->window_start[w];
}

void harness_run_result_free(harness_run_result *r)
{
    free(r->samples_ns);
    free(r->host_samples_ns);
    free(r->window_start);
    free(r->stop_reason);
    free(r->window_wall_ns);
    free(r->window_cpu_ns);
    free(r->window_switches);
    free(r->window_steal_share);
    free(r->window_device);
    free(r->window_clocks);
    free(r->sample_clock_mhz);
    free(r->window_energy);
    memset(r, 0, sizeof *r);
}
