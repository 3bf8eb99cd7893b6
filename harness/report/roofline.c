/* Percent of peak from the summary's cost, median and the backend's peaks. */
#include "report/roofline.h"
#include "report/roofline_cpu.h"

#include <cjson/cJSON.h>
#include <math.h>

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

static void add_num(cJSON *o, const char *key, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

static void add_str(cJSON *o, const char *key, const char *v)
{
    if (v)
        cJSON_AddStringToObject(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

cJSON *harness_roofline_json(const harness_summary *s)
{
    harness_roofline r;
    harness_roofline_compute(s, &r);
    cJSON *o = cJSON_CreateObject();
    add_num(o, "peak_bytes_per_s", r.peak_bytes_per_s);
    add_num(o, "peak_flops_per_s", r.peak_flops_per_s);
    add_num(o, "percent_of_peak_bandwidth", r.percent_of_peak_bandwidth);
    add_num(o, "percent_of_peak_flops", r.percent_of_peak_flops);
    add_num(o, "peak_fp16_flops_per_s", r.peak_fp16_flops_per_s);
    add_num(o, "peak_bf16_flops_per_s", r.peak_bf16_flops_per_s);
    add_num(o, "percent_of_peak_fp16_flops", r.percent_of_peak_fp16_flops);
    add_num(o, "percent_of_peak_bf16_flops", r.percent_of_peak_bf16_flops);
    add_str(o, "peak_source", r.source);
    add_str(o, "missing", r.missing);
    /* Tools need not re-derive which figures are impossible; above the top
     * FLOP/s peak, every FLOP/s percent is above its own. */
    cJSON *above = cJSON_AddArrayToObject(o, "above_peak");
    if (r.percent_of_peak_bandwidth > 100)
        cJSON_AddItemToArray(above, cJSON_CreateString("percent_of_peak_bandwidth"));
    const char *flops_keys[3] = {"percent_of_peak_flops", "percent_of_peak_fp16_flops", "percent_of_peak_bf16_flops"};
    const double flops_pct[3] = {r.percent_of_peak_flops, r.percent_of_peak_fp16_flops, r.percent_of_peak_bf16_flops};
    for (int i = 0; i < 3 && r.percent_of_top_flops > 100; i++)
        if (isfinite(flops_pct[i]))
            cJSON_AddItemToArray(above, cJSON_CreateString(flops_keys[i]));
    cJSON_AddStringToObject(o, "at", "median");
    return o;
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
    if (harness_warn_above_peak("bandwidth", r.percent_of_peak_bandwidth, 1, r.from_machine_file, msg, sizeof msg))
        fprintf(f, "  %s\n", msg);
    if (harness_warn_above_peak(r.top_flops, r.percent_of_top_flops, 0, r.from_machine_file, msg, sizeof msg))
        fprintf(f, "  %s\n", msg);
}
