/* Energy in the summaries; see energy_report.h. */
#include "report/energy_report.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

#include "folder/rank_summary_extra.h"
#include "util/format.h"

/* When no window was measured, the status the run reports: the one that
 * says most about what to do (a counter that misbehaved before a window
 * that was merely short, before a device without a counter). */
static const harness_energy_status telling[] = {
    HARNESS_ENERGY_BACKWARDS, HARNESS_ENERGY_STUCK,        HARNESS_ENERGY_UNREADABLE,
    HARNESS_ENERGY_TOO_SHORT, HARNESS_ENERGY_NOT_READ,     HARNESS_ENERGY_NOT_AVAILABLE,
};

/* x / y, NAN unless both are known and y positive. */
static double per(double x, double y)
{
    return isfinite(x) && y > 0 ? x / y : NAN;
}

void harness_energy_figures_of(const harness_run_result *r, size_t first, size_t last, const harness_cost *cost,
                               double period_s, harness_energy_figures *out)
{
    memset(out, 0, sizeof *out);
    out->status = HARNESS_ENERGY_NOT_AVAILABLE;
    out->joules_per_step = out->watts = out->flop_per_joule = out->bytes_per_joule = out->uncertainty = NAN;
    if (!r || !r->window_energy || last > r->n_windows || first >= last) {
        out->joules = out->seconds = NAN;
        return;
    }
    unsigned seen = 0;             /* statuses met, a bit each */
    for (size_t w = first; w < last; w++) {
        const harness_window_energy *e = &r->window_energy[w];
        out->windows++;
        seen |= 1u << e->status;
        if (e->status != HARNESS_ENERGY_MEASURED)
            continue;
        out->windows_measured++;
        out->joules += e->joules;
        out->seconds += e->span_s;
        out->steps += harness_window_size(r, w);
    }
    if (!out->windows_measured) {
        for (size_t i = 0; i < sizeof telling / sizeof telling[0]; i++)
            if (seen & 1u << telling[i]) {
                out->status = telling[i];
                break;
            }
        out->joules = out->seconds = NAN;
        return;
    }
    out->status = HARNESS_ENERGY_MEASURED;
    out->joules_per_step = per(out->joules, (double)out->steps);
    out->watts = per(out->joules, out->seconds);
    /* FLOP/J = the step's FLOP / the step's J: the declared cost, never measured */
    if (cost && cost->flops > 0)
        out->flop_per_joule = per(cost->flops, out->joules_per_step);
    if (cost && cost->bytes > 0)
        out->bytes_per_joule = per(cost->bytes, out->joules_per_step);
    /* each measured window's reads lag by up to a period at either end */
    out->uncertainty = per((double)out->windows_measured * period_s, out->seconds);
}

static double period_of(const harness_summary *s)
{
    return s->backend ? s->backend->energy.period_s : 0;
}

void harness_summary_energy(const harness_summary *s, size_t first, size_t last, harness_energy_figures *out)
{
    harness_energy_figures_of(s->run, first, last, &s->cost, period_of(s), out);
}

/* The figures every energy object has, run or window. */
static void figures_out(const harness_energy_figures *e, harness_energy_out *o)
{
    o->status = harness_energy_status_token(e->status);
    o->joules = e->joules;
    o->seconds = e->seconds;
    o->steps = (double)e->steps;
    o->joules_per_step = e->joules_per_step;
    o->watts = e->watts;
    o->flop_per_joule = e->flop_per_joule;
    o->bytes_per_joule = e->bytes_per_joule;
    o->uncertainty = e->uncertainty;
}

void harness_energy_out_of(const harness_summary *s, harness_energy_out *o)
{
    const harness_energy_source *src = s->backend ? &s->backend->energy : NULL;
    int available = s->backend && harness_backend_has_energy(s->backend);
    *o = (harness_energy_out){.top = 1, .available = available};
    o->source = available ? src->name : NULL;
    o->missing = available ? NULL : src ? src->missing : "no device was opened";
    o->counter_period_s = available ? src->period_s : NAN;
    o->min_window_s = available ? harness_energy_min_span_s(src->period_s) : NAN;
    harness_energy_figures e;
    /* without a counter nothing was read: no figure, whatever the run holds */
    harness_energy_figures_of(available ? s->run : NULL, 0, s->run ? s->run->n_windows : 0, &s->cost,
                              available ? src->period_s : 0, &e);
    e.windows = s->run ? s->run->n_windows : 0;
    figures_out(&e, o);
    o->windows = (double)e.windows;
    o->windows_measured = (double)e.windows_measured;
}

void harness_window_energy_out_of(const harness_summary *s, size_t w, harness_energy_out *o)
{
    *o = (harness_energy_out){0};
    harness_energy_figures e;
    harness_summary_energy(s, w, w + 1, &e);
    figures_out(&e, o);
    /* a window too short still says how long it was, beside the least it needed */
    if (e.status != HARNESS_ENERGY_MEASURED && s->run && s->run->window_energy)
        o->seconds = s->run->window_energy[w].span_s;
}

cJSON *harness_energy_json(const harness_summary *s)
{
    harness_energy_out o;
    harness_energy_out_of(s, &o);
    return harness_rs_write_energy(&o);
}

cJSON *harness_window_energy_json(const harness_summary *s, size_t w)
{
    harness_energy_out o;
    harness_window_energy_out_of(s, w, &o);
    return harness_rs_write_energy(&o);
}

/* "12.3 mJ/step, 312 W, 1.23 TFLOP/J, 45.6 GB/J (within 3.3%)" */
static void figures_text(FILE *f, const harness_energy_figures *e)
{
    char a[32], b[32];
    fprintf(f, "%s/step, %s", harness_format_si(e->joules_per_step, "J", a, sizeof a),
            harness_format_si(e->watts, "W", b, sizeof b));
    if (isfinite(e->flop_per_joule))
        fprintf(f, ", %s", harness_format_si(e->flop_per_joule, "FLOP/J", a, sizeof a));
    if (isfinite(e->bytes_per_joule))
        fprintf(f, ", %s", harness_format_si(e->bytes_per_joule, "B/J", a, sizeof a));
    if (isfinite(e->uncertainty))
        fprintf(f, " (within %.2g%%)", 100 * e->uncertainty);
}

/* Why a window or run has no figure, with what to do for a short one. */
static void why_text(FILE *f, const harness_energy_figures *e, double span_s, double min_s)
{
    char a[32], b[32];
    fputs(harness_energy_status_text(e->status), f);
    if (e->status == HARNESS_ENERGY_TOO_SHORT && isfinite(span_s))
        fprintf(f, " (%s < %s, %d updates of the counter)", harness_format_ns(span_s * 1e9, a, sizeof a),
                harness_format_ns(min_s * 1e9, b, sizeof b), HARNESS_ENERGY_MIN_PERIODS);
}

void harness_energy_print(FILE *f, const harness_summary *s)
{
    const harness_backend *bk = s->backend;
    if (!bk || !harness_backend_has_energy(bk)) {
        fprintf(f, "energy: %s\n", bk && bk->energy.missing[0] ? bk->energy.missing : "not available");
        return;
    }
    const harness_run_result *r = s->run;
    if (!r || r->n_windows == 0)
        return;
    double min_s = harness_energy_min_span_s(bk->energy.period_s);
    char per_read[32];
    fprintf(f, "energy (%s, updated every %s at worst): ", bk->energy.name,
            harness_format_ns(bk->energy.period_s * 1e9, per_read, sizeof per_read));
    harness_energy_figures e;
    harness_summary_energy(s, 0, r->n_windows, &e);
    if (e.status == HARNESS_ENERGY_MEASURED) {
        figures_text(f, &e);
        fprintf(f, " over %zu of %zu window%s\n", e.windows_measured, e.windows, e.windows == 1 ? "" : "s");
    } else {
        why_text(f, &e, r->n_windows == 1 && r->window_energy ? r->window_energy[0].span_s : NAN, min_s);
        if (e.status == HARNESS_ENERGY_TOO_SHORT)
            fprintf(f, "%s: windows of %s or more (measurement_steps, or --time-budget) give a figure",
                    r->n_windows == 1 ? "" : " in every window", harness_format_ns(min_s * 1e9, per_read,
                                                                                  sizeof per_read));
        fputc('\n', f);
    }
    for (size_t w = 0; r->n_windows > 1 && w < r->n_windows; w++) {
        harness_energy_figures x;
        harness_summary_energy(s, w, w + 1, &x);
        fprintf(f, "  window %zu: ", w + 1);
        if (x.status == HARNESS_ENERGY_MEASURED)
            figures_text(f, &x);
        else
            why_text(f, &x, r->window_energy ? r->window_energy[w].span_s : NAN, min_s);
        fputc('\n', f);
    }
}

void harness_energy_print_short(FILE *f, const harness_summary *s)
{
    harness_energy_figures e;
    harness_summary_energy(s, 0, s->run ? s->run->n_windows : 0, &e);
    if (e.status != HARNESS_ENERGY_MEASURED)
        return;
    fputs("energy: ", f);
    figures_text(f, &e);
    fputc('\n', f);
}
