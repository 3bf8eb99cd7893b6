/* energy_report.h - energy in the summaries (docs/timing-integrity.md,
 * "Energy"): per window and over the run, the joules of the device's
 * counters (run/window_energy.h) per measured step, the average watts, and
 * the FLOP and bytes per joule of the component's declared cost. Only
 * windows the counter measured count; a run with none says why (no
 * counter: once, with the backend's reason). */
#ifndef HARNESS_ENERGY_REPORT_H
#define HARNESS_ENERGY_REPORT_H

#include <stdio.h>

#include "folder/rank_summary_out.h"
#include "report/summary.h"

struct cJSON;

typedef struct harness_energy_figures {
    harness_energy_status status;  /* MEASURED when a window was; else the most telling window's status */
    size_t windows, windows_measured;
    size_t steps;                  /* measured steps in the measured windows */
    double joules, seconds;        /* summed over the measured windows */
    double joules_per_step, watts; /* NAN when unknown (no measured window, or no steps) */
    double flop_per_joule, bytes_per_joule;   /* NAN as well when the cost declares none */
    double uncertainty;            /* the counter's period over the time measured, per window: a bound
                                    * on the relative error of joules (window_energy.h) */
} harness_energy_figures;

/* The figures of windows [first, last) of r (r->window_energy NULL: not
 * available). Pure. */
void harness_energy_figures_of(const harness_run_result *r, size_t first, size_t last, const harness_cost *cost,
                               double period_s, harness_energy_figures *out);

/* The same for a summary: over the run (first 0, last n_windows) or one window. */
void harness_summary_energy(const harness_summary *s, size_t first, size_t last, harness_energy_figures *out);

/* The summary's top-level "energy" record, and one window's (the folder
 * stage writes them: folder/rank_summary_out.h); and the same as JSON. */
void harness_energy_out_of(const harness_summary *s, harness_energy_out *out);
void harness_window_energy_out_of(const harness_summary *s, size_t w, harness_energy_out *out);
struct cJSON *harness_energy_json(const harness_summary *s);
struct cJSON *harness_window_energy_json(const harness_summary *s, size_t w);

/* The text summary's energy lines (after the throughput), and the one line
 * `harness run` prints when something was measured. */
void harness_energy_print(FILE *f, const harness_summary *s);
void harness_energy_print_short(FILE *f, const harness_summary *s);

#endif
