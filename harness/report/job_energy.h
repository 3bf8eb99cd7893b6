/* job_energy.h - energy in the job summary (report/job_summary.h): each
 * rank's figures, and the job's power and energy per step summed over the
 * counters the ranks read, each counter once (ranks on one host read the
 * same CPU packages; ranks sharing a GPU, the same GPU). */
#ifndef HARNESS_JOB_ENERGY_H
#define HARNESS_JOB_ENERGY_H

#include <stdio.h>

#include "report/job_summary.h"

struct cJSON;

/* A rank's energy figures into out (harness_rank_figures_of calls it). */
void harness_rank_energy_of(const harness_summary *s, harness_rank_figures *out);

/* The job's: over distinct counters, when every rank measured. */
typedef struct harness_job_energy {
    int ranks_measured, counters;  /* counters: distinct among the measured ranks */
    double watts, joules_per_step; /* sums over the counters; NAN unless every rank measured */
} harness_job_energy;
void harness_job_energy_of(const harness_rank_figures *r, int n, harness_job_energy *out);

/* Adds "energy" to a rank's object and to the job's root. */
void harness_rank_energy_json(const harness_rank_figures *r, struct cJSON *rank);
void harness_job_energy_json(const harness_rank_figures *r, int n, struct cJSON *root);
/* The text's energy lines. */
void harness_job_energy_print(FILE *f, const harness_rank_figures *r, int n);

#endif
