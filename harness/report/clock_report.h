/* clock_report.h - what the summaries say of a GPU run's SM clock between
 * its steps (run/device_clocks.h): the clocks of the kept steps (lowest,
 * median), the throttled steps dropped and measured again and those kept,
 * the recovery pauses, schedule.lock_clocks's outcome, and the clock of
 * every sample. Each writes nothing for a CPU run. */
#ifndef HARNESS_CLOCK_REPORT_H
#define HARNESS_CLOCK_REPORT_H

#include <stdio.h>

#include "folder/rank_summary_out.h"
#include "report/summary.h"

struct cJSON;

/* The records the folder stage writes (folder/rank_summary_gpu.h):
 * timing.device_clocks and timing.windows[w].device_clocks; 0 (and out
 * untouched) for a run without clocks. */
int harness_clock_report_out(const harness_summary *s, harness_device_clocks_out *out);
int harness_clock_report_window_out(const harness_summary *s, size_t w, harness_clock_figures_out *out);
/* The same as JSON: timing.device_clocks, with every sample's clock (inline,
 * or the side file s->clock_samples_file names). */
void harness_clock_report_json(const harness_summary *s, struct cJSON *timing);
/* timing.windows[w].device_clocks. */
void harness_clock_report_window_json(const harness_summary *s, size_t w, struct cJSON *win);
/* The text summary's lines, after the device timing. */
void harness_clock_report_print(FILE *f, const harness_summary *s);

/* A sample's clock for the binary side file (folder/samples.h admits no
 * NaN): the MHz, or 0 when unknown (no known clock is 0). */
static inline double harness_clock_sample_for_file(double mhz)
{
    return mhz == mhz ? mhz : 0;
}

#endif
