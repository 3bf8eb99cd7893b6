#include "report/warnings.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "util/format.h"
#include "util/term.h"

void harness_warnings_add(harness_warnings *w, const char *fmt, ...)
{
    if (w->n >= HARNESS_MAX_WARNINGS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->text[w->n++], HARNESS_WARNING_LEN, fmt, ap);
    va_end(ap);
}

int harness_warn_oversubscribed(const harness_load_facts *f, char *msg, size_t cap)
{
    if (f->affinity_cpus > 0 && f->omp_threads > f->affinity_cpus) {
        snprintf(msg, cap, "oversubscribed: %d OpenMP threads on %d CPUs available to the process "
                 "(affinity mask); threads share cores and the timings include their waits. "
                 "Set OMP_NUM_THREADS to at most %d", f->omp_threads, f->affinity_cpus, f->affinity_cpus);
        return 1;
    }
    /* The run's own threads are in the end load; taking them all off gives
     * a lower bound on the others', so the end can only add evidence. A
     * thread busy 90% of the time still holds a core: round up. */
    int busy = f->busy_threads > 0 ? (int)ceil(f->busy_threads - 0.1) : f->omp_threads;
    if (busy < 1)
        busy = 1;
    double own = f->own_cpu_s_start > 0 ? f->own_cpu_s_start / 60.0 : 0.0;
    double others = f->load_start - own;
    double end_others = f->load_end - (double)busy;
    if (isnan(others) || (!isnan(end_others) && end_others > others))
        others = end_others;
    int free_cores = f->logical_cpus - busy;
    if (free_cores < 0)
        free_cores = 0;
    if (isnan(others) || others <= (double)free_cores + HARNESS_WARN_LOAD_SLACK)
        return 0;
    snprintf(msg, cap, "oversubscribed: load average %.2f from other work (1-minute load at start %.2f, at end %.2f) "
             "above the %d core%s the run's %d busy thread%s leave%s free on %d CPUs; other processes "
             "competed for the cores", others, f->load_start, f->load_end, free_cores, free_cores == 1 ? "" : "s",
             busy, busy == 1 ? "" : "s", busy == 1 ? "s" : "", f->logical_cpus);
    return 1;
}

int harness_warn_busy_calibration(const double load_start[3], const double load_end[3], int logical_cpus,
                                  int affinity_cpus, int threads, char *msg, size_t cap)
{
    /* The run's rule, so calibrate and run agree on what busy means:
     * calibrate's threads are all busy throughout, and none of this
     * process's work is in the load before it. */
    harness_load_facts f = {.logical_cpus = logical_cpus, .affinity_cpus = affinity_cpus, .omp_threads = threads,
                            .busy_threads = threads, .load_start = load_start[0], .load_end = load_end[0]};
    char why[HARNESS_WARNING_LEN], before[64] = "unknown";
    if (!harness_warn_oversubscribed(&f, why, sizeof why))
        return 0;
    if (!isnan(load_start[0]))
        snprintf(before, sizeof before, "%.2f %.2f %.2f", load_start[0], load_start[1], load_start[2]);
    snprintf(msg, cap, "calibrate ran on a busy machine (%s); load average before measuring (1, 5, 15 min): %s. "
             "The peaks measured are low, so runs will show percents of peak that are too high (even above 100%%); "
             "re-run harness calibrate when the machine is idle", why, before);
    return 1;
}

int harness_warn_above_peak(const char *what, double percent, int bandwidth, int from_machine_file,
                            const char *within, char *msg, size_t cap)
{
    if (!(percent > 100))
        return 0;
    char where[HARNESS_WARNING_LEN / 2] = "";
    if (within && within[0])
        snprintf(where, sizeof where, ", %s", within);
    if (from_machine_file)
        snprintf(msg, cap, "above peak: %.1f%% of peak %s%s, above the machine file's peak: the file is stale or "
                 "was calibrated on a busy machine; re-run harness calibrate%s", percent, what, where,
                 bandwidth ? " (or the step's data stays in cache: the peak is a copy through memory)" : "");
    else
        snprintf(msg, cap, "above peak: %.1f%% of peak %s%s, above the device's datasheet rate: the component's "
                 "declared cost exceeds the work it does, or the timing misses some of it%s", percent, what, where,
                 bandwidth ? ", or the data stays in the L2 cache (schedule.flush_l2)" : "");
    return 1;
}

int harness_warn_windows_disagree(const harness_stats *windows, size_t n, char *msg, size_t cap)
{
    /* Some pair is disjoint iff the lowest upper end lies below the highest
     * lower end, so one pass finds the most disjoint pair. */
    size_t lowest_hi = n, highest_lo = n;
    for (size_t w = 0; w < n; w++) {
        const harness_stats *st = &windows[w];
        if (st->n == 0 || !(st->ci_level >= HARNESS_WARN_MIN_CI_LEVEL))
            continue;
        if (lowest_hi == n || st->ci95_hi < windows[lowest_hi].ci95_hi)
            lowest_hi = w;
        if (highest_lo == n || st->ci95_lo > windows[highest_lo].ci95_lo)
            highest_lo = w;
    }
    if (lowest_hi == n)
        return 0;
    const harness_stats *a = &windows[lowest_hi], *b = &windows[highest_lo];
    /* Disjoint by a few ns is not worth a word: a gap must matter beside
     * the step itself, as a change would at compare's thresholds. */
    if (!(b->ci95_lo - a->ci95_hi >= HARNESS_WARN_DISAGREE_MIN_GAP * a->median))
        return 0;
    char alo[32], ahi[32], blo[32], bhi[32];
    snprintf(msg, cap, "windows disagree: window %zu's CI of the median [%s, %s] and window %zu's [%s, %s] "
             "are %.1f%% apart; the machine changed between windows (frequency, load, placement), so one "
             "window's CI understates the run-to-run spread", lowest_hi + 1,
             harness_format_ns(a->ci95_lo, alo, sizeof alo), harness_format_ns(a->ci95_hi, ahi, sizeof ahi),
             highest_lo + 1, harness_format_ns(b->ci95_lo, blo, sizeof blo),
             harness_format_ns(b->ci95_hi, bhi, sizeof bhi), 100.0 * (b->ci95_lo - a->ci95_hi) / a->median);
    return 1;
}

int harness_warn_near_resolution(double median_ns, double resolution_ns, char *msg, size_t cap)
{
    if (!(resolution_ns > 0) || !(median_ns >= 0) || median_ns >= HARNESS_WARN_MIN_TICKS * resolution_ns)
        return 0;
    char med[32], res[32];
    snprintf(msg, cap, "median step %s is within %.0f ticks of the clock's resolution %s (%.1f ticks): "
             "the figure is mostly clock; time more work per step", harness_format_ns(median_ns, med, sizeof med),
             HARNESS_WARN_MIN_TICKS, harness_format_ns(resolution_ns, res, sizeof res), median_ns / resolution_ns);
    return 1;
}

int harness_warn_not_converged(size_t window, const char *stop_reason, const harness_stats *st, double max_rel_ci,
                               char *msg, size_t cap)
{
    if (!stop_reason || (strcmp(stop_reason, "max_steps") != 0 && strcmp(stop_reason, "max_time") != 0))
        return 0;
    double reached = st->n && st->median > 0 ? (st->ci95_hi - st->ci95_lo) / 2 / st->median : NAN;
    snprintf(msg, cap, "window %zu did not converge: it stopped on %s after %zu steps with the CI of the median "
             "at +-%.3g%% of it, not the +-%.3g%% asked (schedule.stopping.max_rel_ci)", window + 1, stop_reason,
             st->n, 100 * reached, 100 * max_rel_ci);
    return 1;
}

int harness_warn_long_steps(const harness_long_step_facts *f, char *msg, size_t cap)
{
    double tick_ns = 1e9 / (f->tick_hz > 0 ? f->tick_hz : 250);
    if (!(f->median_ns > tick_ns) || !(f->shift_bound >= HARNESS_WARN_LONG_STEP_MIN_BOUND))
        return 0;
    char med[32], tick[32], hz[64], steal[48] = "", bound[48];
    harness_format_ns(f->median_ns, med, sizeof med);
    harness_format_ns(tick_ns, tick, sizeof tick);
    if (f->tick_known)
        snprintf(hz, sizeof hz, "CONFIG_HZ=%d", f->tick_hz);
    else
        snprintf(hz, sizeof hz, "assuming %d Hz: CONFIG_HZ unread", f->tick_hz);
    if (f->steal_share > 0)
        snprintf(steal, sizeof steal, " and %.1f%% of CPU time stolen", 100 * f->steal_share);
    if (f->shift_bound >= 1)
        snprintf(bound, sizeof bound, "without bound");
    else
        snprintf(bound, sizeof bound, "by up to %.0f%%", 100 * f->shift_bound);
    snprintf(msg, cap, "long steps under load: the median step (%s) is longer than the scheduler tick (%s, %s) and "
             "other work preempted this run (%lld involuntary context switches in %zu measured steps%s could "
             "have raised the median %s), so its steps lose whole ticks and a gate has little power on them; "
             "more steps and windows (harness run --time-budget), an interleaved gate (harness ab) or a quieter "
             "runner would give it", med, tick, hz, f->involuntary_switches, f->steps, steal, bound);
    return 1;
}

void harness_warnings_print(const harness_warnings *w, FILE *f)
{
    int color = harness_color_on(f);
    for (size_t i = 0; i < w->n; i++)
        fprintf(f, "harness: %swarning:%s %s\n", color ? HARNESS_SGR_YELLOW : "", color ? HARNESS_SGR_RESET : "",
                w->text[i]);
}
