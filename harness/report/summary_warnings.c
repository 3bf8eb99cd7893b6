/* The warning rules (report/warnings.h) applied to a computed summary:
 * harness_summary_collect_warnings of report/summary.h. */
#include <math.h>
#include <string.h>

#include "report/roofline.h"
#include "report/summary.h"
#include "report/warnings.h"
#include "util/sched_tick.h"
#include "util/stats.h"

/* CPU over wall time of all measured windows: how many threads the run
 * actually kept busy (0 when unknown). */
static double busy_threads(const harness_run_result *r)
{
    double cpu = 0, wall = 0;
    for (size_t w = 0; r && w < r->n_windows; w++) {
        cpu += r->window_cpu_ns[w];
        wall += r->window_wall_ns[w];
    }
    double ratio = harness_cpu_per_wall(cpu, wall);
    return isnan(ratio) ? 0 : ratio;
}

static void collect_oversubscribed(harness_summary *s)
{
    const harness_env *e = &s->env;
    harness_load_facts f = {.logical_cpus = e->logical_cpus, .affinity_cpus = e->affinity_cpus,
                            .omp_threads = e->omp_threads, .busy_threads = busy_threads(s->run), .load_start = e->load_start[0],
                            .load_end = e->load_end[0], .own_cpu_s_start = e->own_cpu_s_start};
    char msg[HARNESS_WARNING_LEN];
    if (harness_warn_oversubscribed(&f, msg, sizeof msg))
        harness_warnings_add(&s->warnings, "%s", msg);
}

static void collect_windows(harness_summary *s)
{
    const harness_run_result *r = s->run;
    char msg[HARNESS_WARNING_LEN];
    if (!r)
        return;
    if (harness_summary_measurement_steps(s) == 0)
        for (size_t w = 0; w < r->n_windows; w++)
            if (harness_warn_not_converged(w, r->stop_reason[w], &s->windows[w], s->cfg->stop_max_rel_ci, msg,
                                           sizeof msg))
                harness_warnings_add(&s->warnings, "%s", msg);
    s->windows_disagree = harness_warn_windows_disagree(s->windows, r->n_windows, msg, sizeof msg);
    if (s->windows_disagree)
        harness_warnings_add(&s->warnings, "%s", msg);
}

static void collect_resolution(harness_summary *s)
{
    char msg[HARNESS_WARNING_LEN];
    if (s->overall.n && s->clock && harness_warn_near_resolution(s->overall.median, s->clock->resolution_ns, msg,
                                                                  sizeof msg))
        harness_warnings_add(&s->warnings, "%s", msg);
}

/* Above a peak: a warning; beyond its uncertainty: the impossible figure
 * the run fails on (the first one; a second is listed), or with
 * --allow-above-peak a warning too. */
static void collect_above_peak(harness_summary *s)
{
    static const char *const names[2] = {"bandwidth", "flops"};
    memset(&s->impossible, 0, sizeof s->impossible);
    if (!s->overall.n)
        return;
    for (int which = HARNESS_ROOFLINE_BANDWIDTH; which <= HARNESS_ROOFLINE_FLOPS; which++) {
        char msg[HARNESS_WARNING_LEN];
        harness_figure_verdict v = harness_roofline_explain(s, which, msg, sizeof msg);
        if (v == HARNESS_FIGURE_IMPOSSIBLE && !s->impossible.what[0]) {
            harness_impossible_figure *i = &s->impossible;
            harness_figure fig;
            harness_roofline_figure(s, which, &fig);
            *i = (harness_impossible_figure){.rate = fig.rate, .peak = fig.peak, .limit = harness_figure_limit(&fig),
                                             .margin = harness_figure_margin(&fig), .allowed = s->allow_above_peak};
            snprintf(i->what, sizeof i->what, "%s", names[which]);
            snprintf(i->message, sizeof i->message, "%s", msg);
            if (!s->allow_above_peak)  /* the run's error, not a warning about a run that stands */
                continue;
        }
        if (v != HARNESS_FIGURE_FINE)
            harness_warnings_add(&s->warnings, "%s", msg);
    }
}

/* Long CPU steps on a machine whose other work preempted the run. A
 * device-timed step is not cut by the host's scheduler (its kernels run
 * on), so only CPU runs are judged. */
static void collect_long_steps(harness_summary *s)
{
    if (!s->run || !s->overall.n || !s->device || strcmp(s->device, "cpu") != 0)
        return;
    harness_sched_tick tick = harness_sched_tick_read();
    const harness_noise_evidence *e = &s->noise;
    harness_long_step_facts f = {.median_ns = s->overall.median, .tick_hz = tick.hz, .tick_known = tick.known,
                                 .shift_bound = e->median_shift_bound,
                                 .involuntary_switches = (long long)e->involuntary_switches, .steps = e->steps,
                                 .steal_share = e->steal_share};
    char msg[HARNESS_WARNING_LEN];
    if (harness_warn_long_steps(&f, msg, sizeof msg))
        harness_warnings_add(&s->warnings, "%s", msg);
}

/* Work off the timed stream that the full synchronize found joined back
 * (it agreed with the events): allowed, but said (docs/timing-integrity.md). */
static void collect_side_streams(harness_summary *s)
{
    if (!s->n_side_work || !s->full_sync.ran || !s->full_sync.agrees)
        return;
    char list[1024];
    harness_side_work_text(s->side_work, s->n_side_work, s->side_work_left_out, list, sizeof list);
    harness_warnings_add(&s->warnings, "device work ran off the timed stream in the trace window: %s; one step by "
                         "a full device synchronize agreed with the events, so it is taken as joined back before the "
                         "end event", list);
}

void harness_summary_collect_warnings(harness_summary *s)
{
    s->warnings.n = 0;
    collect_oversubscribed(s);
    collect_windows(s);
    collect_resolution(s);
    collect_above_peak(s);
    collect_long_steps(s);
    collect_side_streams(s);
}
