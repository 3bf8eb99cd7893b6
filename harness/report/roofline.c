/* Percent of peak from the summary's cost, median and the backend's peaks. */
#include "report/roofline.h"
#include "report/roofline_cpu.h"
#include "folder/rank_summary_sections.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

/* achieved / peak in percent: cost per step over the median step (ns). */
double harness_roofline_percent(double per_step, double median_ns, double peak_per_s)
{
    if (!(per_step > 0) || !(median_ns > 0) || !(peak_per_s > 0))
        return NAN;
    return 100.0 * (per_step / (median_ns * 1e-9)) / peak_per_s;
}

void harness_roofline_compute(const harness_summary *s, harness_roofline *out)
{
    const harness_peaks *p = s->backend ? &s->backend->peaks : NULL;
    double median = s->overall.n ? s->overall.median : NAN;
    out->peak_bytes_per_s = p && p->bytes_per_s > 0 ? p->bytes_per_s : NAN;
    out->peak_flops_per_s = p && p->flops_per_s > 0 ? p->flops_per_s : NAN;
    out->percent_of_peak_bandwidth = harness_roofline_percent(s->cost.bytes, median, out->peak_bytes_per_s);
    out->percent_of_peak_flops = harness_roofline_percent(s->cost.flops, median, out->peak_flops_per_s);
    out->peak_fp16_flops_per_s = p && p->fp16_flops_per_s > 0 ? p->fp16_flops_per_s : NAN;
    out->peak_bf16_flops_per_s = p ? harness_roofline_bf16_peak(p, s->notes) : NAN;
    out->percent_of_peak_fp16_flops = harness_roofline_percent(s->cost.flops, median, out->peak_fp16_flops_per_s);
    out->percent_of_peak_bf16_flops = harness_roofline_percent(s->cost.flops, median, out->peak_bf16_flops_per_s);
    out->source = p && p->source[0] ? p->source : NULL;
    out->missing = p && p->missing[0] ? p->missing : NULL;
    if (!p)
        out->missing = "no backend: the run never started";
    out->from_machine_file = p && p->from_machine_file;
    /* The highest peak gives the lowest percent. */
    const double pct[3] = {out->percent_of_peak_flops, out->percent_of_peak_fp16_flops,
                           out->percent_of_peak_bf16_flops};
    static const char *const names[3] = {"fp32 FLOP/s", "dense fp16 FLOP/s", "dense bf16 FLOP/s"};
    out->percent_of_top_flops = NAN;
    out->top_flops = NULL;
    for (int i = 0; i < 3; i++)
        if (isfinite(pct[i]) && (!out->top_flops || pct[i] < out->percent_of_top_flops)) {
            out->percent_of_top_flops = pct[i];
            out->top_flops = names[i];
        }
}

void harness_roofline_out_of(const harness_summary *s, harness_roofline_out *o)
{
    harness_roofline r;
    harness_roofline_compute(s, &r);
    *o = (harness_roofline_out){
        .peak_bytes_per_s = r.peak_bytes_per_s, .peak_flops_per_s = r.peak_flops_per_s,
        .percent_of_peak_bandwidth = r.percent_of_peak_bandwidth, .percent_of_peak_flops = r.percent_of_peak_flops,
        .peak_fp16_flops_per_s = r.peak_fp16_flops_per_s, .peak_bf16_flops_per_s = r.peak_bf16_flops_per_s,
        .percent_of_peak_fp16_flops = r.percent_of_peak_fp16_flops,
        .percent_of_peak_bf16_flops = r.percent_of_peak_bf16_flops, .peak_source = r.source, .missing = r.missing,
    };
    /* above the top FLOP/s peak, every FLOP/s percent is above its own */
    if (r.percent_of_peak_bandwidth > 100)
        o->above_peak[o->n_above_peak++] = "percent_of_peak_bandwidth";
    const char *flops_keys[3] = {"percent_of_peak_flops", "percent_of_peak_fp16_flops", "percent_of_peak_bf16_flops"};
    const double flops_pct[3] = {r.percent_of_peak_flops, r.percent_of_peak_fp16_flops, r.percent_of_peak_bf16_flops};
    for (int i = 0; i < 3 && r.percent_of_top_flops > 100; i++)
        if (isfinite(flops_pct[i]))
            o->above_peak[o->n_above_peak++] = flops_keys[i];
    /* How far past a peak a figure may go before it is impossible
     * (report/impossible_figure.h), and the cache that widens the
     * bandwidth's allowance. */
    harness_figure bw, fl;
    harness_roofline_figure(s, HARNESS_ROOFLINE_BANDWIDTH, &bw);
    harness_roofline_figure(s, HARNESS_ROOFLINE_FLOPS, &fl);
    o->bytes_margin = bw.peak > 0 ? harness_figure_margin(&bw) : NAN;
    o->bytes_margin_why = bw.peak > 0 && bw.margin_why && bw.margin_why[0] ? bw.margin_why : NULL;
    o->flops_margin = fl.peak > 0 ? harness_figure_margin(&fl) : NAN;
    o->flops_margin_why = fl.peak > 0 && fl.margin_why && fl.margin_why[0] ? fl.margin_why : NULL;
    o->cache_bytes = bw.cache_bytes > 0 ? bw.cache_bytes : NAN;
}

cJSON *harness_roofline_json(const harness_summary *s)
{
    harness_roofline_out o;
    harness_roofline_out_of(s, &o);
    return harness_rs_write_roofline(&o);
}

/* The machine's fastest FLOP/s peak of any unit, and its name. */
static double fastest_flops(const harness_peaks *p, const char **name)
{
    const double rate[5] = {p->flops_per_s, p->fp16_flops_per_s, p->bf16_flops_per_s, p->cpu_bf16_dot_flops_per_s,
                            p->cpu_amx_bf16_flops_per_s};
    static const char *const names[5] = {"fp32 FLOP/s", "dense fp16 FLOP/s", "dense bf16 FLOP/s",
                                         "AVX-512 BF16 FLOP/s", "AMX bf16 FLOP/s"};
    double best = 0;
    *name = names[0];
    for (int i = 0; i < 5; i++)
        if (rate[i] > best) {
            best = rate[i];
            *name = names[i];
        }
    return best;
}

void harness_roofline_figure(const harness_summary *s, int which, harness_figure *out)
{
    const harness_backend *b = s->backend;
    const harness_peaks *p = b ? &b->peaks : NULL;
    double seconds = s->overall.n && s->overall.median > 0 ? s->overall.median * 1e-9 : NAN;
    int bw = which == HARNESS_ROOFLINE_BANDWIDTH;
    double cost = bw ? s->cost.bytes : s->cost.flops;
    *out = (harness_figure){.what = bw ? "bandwidth" : "FLOP rate", .unit = bw ? "B/s" : "FLOP/s", .bandwidth = bw,
                            .rate = cost > 0 ? cost / seconds : NAN, .peak = NAN, .peak_name = "?"};
    if (!p)
        return;
    if (bw) {
        out->peak = p->bytes_per_s;
        out->peak_name = p->from_machine_file ? "copy bandwidth" : "memory bandwidth";
        out->margin = p->bytes_margin;
        out->margin_why = p->bytes_margin_why;
    } else {
        out->peak = fastest_flops(p, &out->peak_name);
        out->margin = p->flops_margin;
        out->margin_why = p->flops_margin_why;
    }
    out->source = p->source;
    out->from_machine_file = p->from_machine_file;
    out->step_bytes = s->cost.bytes;
    out->cache_bytes = p->cache_bytes;
    /* Only the CUDA backend empties a cache before its timed steps. */
    out->caches_flushed = b->opts.flush_l2 && b->name && strcmp(b->name, "cuda") == 0;
}

harness_figure_verdict harness_roofline_explain(const harness_summary *s, int which, char *msg, size_t cap)
{
    harness_figure fig;
    harness_roofline_figure(s, which, &fig);
    harness_figure_verdict v = harness_figure_judge(&fig, s->allow_above_peak, msg, cap);
    if (v != HARNESS_FIGURE_FINE || which != HARNESS_ROOFLINE_FLOPS)
        return v;
    harness_roofline r;
    harness_roofline_compute(s, &r);
    return harness_warn_above_peak(r.top_flops, r.percent_of_top_flops, 0, r.from_machine_file, NULL, msg, cap)
               ? HARNESS_FIGURE_ABOVE_PEAK
               : HARNESS_FIGURE_FINE;
}

void harness_roofline_print(FILE *f, const harness_summary *s)
{
    if (s->overall.n == 0)
        return;
    harness_roofline r;
    harness_roofline_compute(s, &r);
    if (r.missing) {
        fprintf(f, "roofline: peaks unknown: %s\n", r.missing);
        return;
    }
    /* A percent above 100 is never printed bare: marked here, explained below. */
    const char *bw_mark = r.percent_of_peak_bandwidth > 100 ? " ABOVE PEAK" : "";
    const char *flops_mark = r.percent_of_top_flops > 100 ? " ABOVE PEAK" : "";
    const char *fp32_mark = *flops_mark ? flops_mark : r.percent_of_peak_flops > 100 ? " (tensor-core work)" : "";
    fprintf(f, "roofline at the median:");
    if (isfinite(r.percent_of_peak_bandwidth))
        fprintf(f, " %.1f%% of peak bandwidth (%.1f GB/s)%s", r.percent_of_peak_bandwidth, r.peak_bytes_per_s / 1e9,
                bw_mark);
    if (isfinite(r.percent_of_peak_flops))
        fprintf(f, "%s %.1f%% of peak fp32 FLOP/s (%.1f GFLOP/s)%s", isfinite(r.percent_of_peak_bandwidth) ? "," : "",
                r.percent_of_peak_flops, r.peak_flops_per_s / 1e9, fp32_mark);
    if (isfinite(r.percent_of_peak_fp16_flops))
        fprintf(f, ", %.1f%% of dense fp16 (%.1f TFLOP/s)%s", r.percent_of_peak_fp16_flops,
                r.peak_fp16_flops_per_s / 1e12, flops_mark);
    if (isfinite(r.percent_of_peak_bf16_flops))
        fprintf(f, ", %.1f%% of dense bf16 (%.1f TFLOP/s)%s", r.percent_of_peak_bf16_flops,
                r.peak_bf16_flops_per_s / 1e12, flops_mark);
    if (!isfinite(r.percent_of_peak_bandwidth) && !isfinite(r.percent_of_peak_flops))
        fprintf(f, " the component declares no cost");
    fprintf(f, "\n  peaks from %s\n", r.source ? r.source : "?");
    char msg[HARNESS_WARNING_LEN];
    for (int which = HARNESS_ROOFLINE_BANDWIDTH; which <= HARNESS_ROOFLINE_FLOPS; which++)
        if (harness_roofline_explain(s, which, msg, sizeof msg) != HARNESS_FIGURE_FINE)
            fprintf(f, "  %s\n", msg);
}
