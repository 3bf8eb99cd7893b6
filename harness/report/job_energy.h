/* job_energy.h - energy in the job summary (report/job_summary.h): each
 * rank's figures, and the job's power and energy per step summed over the
 * counters the ranks read, each counter once (ranks on one host read the
 * same CPU packages; ranks sharing a GPU, the same GPU). */
#ifndef HARNESS_JOB_ENERGY_H
#define HARNESS_JOB_ENERGY_H

#include <stdio.h>

#include "report/summary.h"


/* One rank's energy over its run, fixed-size (the ranks gather it as bytes). */
typedef struct harness_rank_energy {
    int rank;
    char status[16];               /* the status token: "measured", "not_available", ... ("": none) */
    char counter[96];              /* whose counter: host and device ("h1 cuda 0", "h1 cpu") */
    double joules_per_step, watts, flop_per_joule, bytes_per_joule;   /* NAN when not measured */
} harness_rank_energy;

/* A rank's energy figures (harness_rank_figures_of calls it). */
void harness_rank_energy_of(const harness_summary *s, harness_rank_energy *out);

/* The job's: over distinct counters, when every rank measured. */
typedef struct harness_job_energy {
    int ranks_measured, counters;  /* counters: distinct among the measured ranks */
    double watts, joules_per_step; /* sums over the counters; NAN unless every rank measured */
} harness_job_energy;
void harness_job_energy_of(const harness_rank_energy *r, int n, harness_job_energy *out);

/* The text's energy lines. */
void harness_job_energy_print(FILE *f, const harness_rank_energy *r, int n);

#endif
