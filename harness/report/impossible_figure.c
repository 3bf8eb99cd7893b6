/* The rule of impossible_figure.h: pure, unit-tested in
 * tests/unit/test_impossible_figure.c. */
#include "report/impossible_figure.h"

#include <math.h>
#include <stdio.h>

#include "backend/peak_margin.h"
#include "util/format.h"

const char *harness_format_rate(double per_s, const char *unit, char *buf, size_t cap)
{
    static const char *const prefix[] = {"", "k", "M", "G", "T", "P", "E"};
    int k = 0;
    double v = per_s;
    while (fabs(v) >= 999.95 && k < 6) {     /* never "1000.0 G" for 999.99 G */
        v /= 1000;
        k++;
    }
    snprintf(buf, cap, "%.1f %s%s", v, prefix[k], unit);
    return buf;
}

double harness_figure_margin(const harness_figure *f)
{
    if (f->margin >= 1)
        return f->margin;
    return f->from_machine_file ? HARNESS_MARGIN_CALIBRATED_DEFAULT : HARNESS_MARGIN_DATASHEET;
}

double harness_figure_cache_factor(const harness_figure *f)
{
    if (!f->bandwidth || f->caches_flushed || !(f->step_bytes > 0))
        return 1;
    if (!(f->cache_bytes > 0) || f->step_bytes <= f->cache_bytes)
        return INFINITY;
    return f->step_bytes / (f->step_bytes - f->cache_bytes);
}

double harness_figure_limit(const harness_figure *f)
{
    return f->peak * harness_figure_cache_factor(f) * harness_figure_margin(f);
}

/* "within ..." of an above-peak warning: the margin, or the caches. */
static void within_text(const harness_figure *f, double margin, double cache, char *out, size_t cap)
{
    char step[32], cached[32];
    if (f->rate <= f->peak * margin)
        snprintf(out, cap, "within the peak's uncertainty of x%.2f (%s)", margin,
                 f->margin_why && f->margin_why[0] ? f->margin_why : "the default for its source");
    else if (!(f->cache_bytes > 0))
        snprintf(out, cap, "where the caches may serve the step (their size is unknown, so no bound)");
    else if (isinf(cache))
        snprintf(out, cap, "where the caches may serve the step (its %s fit in the %s of cache, so no bound)",
                 harness_format_bytes(f->step_bytes, step, sizeof step),
                 harness_format_bytes(f->cache_bytes, cached, sizeof cached));
    else
        snprintf(out, cap, "within what the caches can serve (up to %s of the step's %s: x%.2f the peak, "
                 "x%.2f with its uncertainty)", harness_format_bytes(f->cache_bytes, cached, sizeof cached),
                 harness_format_bytes(f->step_bytes, step, sizeof step), cache, cache * margin);
}

static void impossible_text(const harness_figure *f, double margin, double cache, int allowed, char *msg,
                            size_t cap)
{
    char value[48], peak[48], cached[32], step[32], serve[160] = "";
    if (cache > 1 && isfinite(cache))
        snprintf(serve, sizeof serve, " and what the caches can serve (up to %s of the step's %s: x%.2f)",
                 harness_format_bytes(f->cache_bytes, cached, sizeof cached),
                 harness_format_bytes(f->step_bytes, step, sizeof step), cache);
    const char *why = f->from_machine_file
        ? "If the peak is low (a busy or stale calibration), re-run `harness calibrate` on an idle machine; "
          "otherwise the component declares more work than it does, or the timing misses some of it"
        : "The component declares more work than it does, or the timing misses some of it (work cached, "
          "skipped or left running past the step)";
    snprintf(msg, cap, "impossible figure: %s %s is above the peak of %s (%s: %s); a measurement or a component "
             "is wrong: %.2fx the peak, beyond its uncertainty of x%.2f (%s)%s. %s; %s", f->what,
             harness_format_rate(f->rate, f->unit, value, sizeof value),
             harness_format_rate(f->peak, f->unit, peak, sizeof peak), f->peak_name,
             f->source && f->source[0] ? f->source : "source unknown", f->rate / f->peak, margin,
             f->margin_why && f->margin_why[0] ? f->margin_why : "the default for its source", serve, why,
             allowed ? "kept by --allow-above-peak" : "--allow-above-peak keeps such a run");
}

harness_figure_verdict harness_figure_judge(const harness_figure *f, int allowed, char *msg, size_t cap)
{
    if (!(f->rate > 0) || !(f->peak > 0) || !isfinite(f->rate) || !(f->rate > f->peak))
        return HARNESS_FIGURE_FINE;
    double margin = harness_figure_margin(f), cache = harness_figure_cache_factor(f);
    if (f->rate > f->peak * cache * margin) {
        impossible_text(f, margin, cache, allowed, msg, cap);
        return HARNESS_FIGURE_IMPOSSIBLE;
    }
    char within[HARNESS_WARNING_LEN / 2];
    within_text(f, margin, cache, within, sizeof within);
    /* "of peak bandwidth", as the roofline line names it */
    harness_warn_above_peak(f->bandwidth ? f->what : f->peak_name, 100 * f->rate / f->peak, f->bandwidth,
                            f->from_machine_file, within, msg, cap);
    return HARNESS_FIGURE_ABOVE_PEAK;
}
