/* roofline.h - how close a run came to the machine's limits: the step's
 * declared cost (bytes, flops) over the median step time, as a percent of
 * the backend's peak bandwidth and peak FLOP/s (backend/machine_file.h on
 * the CPU). Unknown peaks or costs give NaN and a reason, never a guess. */
#ifndef HARNESS_ROOFLINE_H
#define HARNESS_ROOFLINE_H

#include <stdio.h>

#include "report/summary.h"

struct cJSON;

typedef struct harness_roofline {
    double peak_bytes_per_s, peak_flops_per_s;        /* NaN when unknown */
    double percent_of_peak_bandwidth;                 /* NaN when peak, cost or time unknown */
    double percent_of_peak_flops;
    const char *source;            /* where the peaks came from, or NULL */
    const char *missing;           /* why they are unknown, or NULL */
} harness_roofline;

void harness_roofline_compute(const harness_summary *s, harness_roofline *out);

/* The summary JSON's "roofline" object (a new cJSON item). */
struct cJSON *harness_roofline_json(const harness_summary *s);

/* The text summary's roofline line(s); nothing when there is no timing. */
void harness_roofline_print(FILE *f, const harness_summary *s);

#endif
