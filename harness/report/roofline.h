/* roofline.h - how close a run came to the machine's limits: the step's
 * declared cost (bytes, flops) over the median step time, as a percent of
 * the backend's peak bandwidth and peak FLOP/s (backend/machine_file.h on
 * the CPU; the device's attributes and cuda_peaks.h's table on a GPU, where
 * the percent of the dense fp16 and bf16 tensor peaks is given too). Unknown peaks or costs give NaN and a reason, never a guess. */
#ifndef HARNESS_ROOFLINE_H
#define HARNESS_ROOFLINE_H

#include <stdio.h>

#include "folder/rank_summary_out.h"
#include "report/impossible_figure.h"
#include "report/summary.h"

struct cJSON;

typedef struct harness_roofline {
    double peak_bytes_per_s, peak_flops_per_s;        /* NaN when unknown */
    double percent_of_peak_bandwidth;                 /* NaN when peak, cost or time unknown */
    double percent_of_peak_flops;                     /* of the fp32 peak */
    double peak_fp16_flops_per_s, peak_bf16_flops_per_s; /* NaN when unknown (the CPU) */
    double percent_of_peak_fp16_flops, percent_of_peak_bf16_flops;
    const char *source;            /* where the peaks came from, or NULL */
    const char *missing;           /* why they are unknown, or NULL */
    int from_machine_file;         /* the peaks are harness calibrate's (the CPU), not a datasheet's */
    /* FLOP/s against the highest FLOP/s peak known, the bound on every
     * precision's rate: on a GPU the fp32 percent passes 100 whenever tensor
     * cores do the work, the dense fp16/bf16 one cannot. Above 100 (like
     * the bandwidth's) it is a bad figure (report/warnings.h). */
    double percent_of_top_flops;   /* NaN when unknown */
    const char *top_flops;         /* that peak's name ("fp32 FLOP/s"), or NULL */
} harness_roofline;

void harness_roofline_compute(const harness_summary *s, harness_roofline *out);

/* achieved / peak in percent: cost per step over a step of median_ns; NaN
 * when any of them is unknown (<= 0 or NaN). */
double harness_roofline_percent(double per_step, double median_ns, double peak_per_s);

/* The summary's "roofline" record, which the folder stage writes
 * (folder/rank_summary_out.h), and the same as a new cJSON item; its
 * "above_peak" lists the keys of the percents above their peak. */
void harness_roofline_out_of(const harness_summary *s, harness_roofline_out *out);
struct cJSON *harness_roofline_json(const harness_summary *s);

/* The summary's figures against the physical peaks
 * (report/impossible_figure.h): HARNESS_ROOFLINE_BANDWIDTH, or
 * HARNESS_ROOFLINE_FLOPS against the machine's fastest unit of all (the
 * bound on any FLOP rate, whichever unit a component used). */
enum { HARNESS_ROOFLINE_BANDWIDTH, HARNESS_ROOFLINE_FLOPS };
void harness_roofline_figure(const harness_summary *s, int which, harness_figure *out);

/* The verdict on that figure and its text: the judge's; or, for a FLOP
 * rate above the peak of the unit the component ran on yet below the
 * machine's fastest, the plain above-peak warning. FINE: msg untouched. */
harness_figure_verdict harness_roofline_explain(const harness_summary *s, int which, char *msg, size_t cap);

/* The text summary's roofline line(s), a figure above its peak marked and
 * explained; nothing when there is no timing. */
void harness_roofline_print(FILE *f, const harness_summary *s);

#endif
