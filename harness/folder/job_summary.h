/* job_summary.h - summary.json of a job ("harness.job_summary/1",
 * docs/ARCHITECTURE.md section 7) as a record, with its writer and its
 * reader: each rank's figures, the statistics across the ranks, the
 * slowest rank of each window, the job's energy, the per-node rollup. report/job_summary.c
 * computes the record from the ranks' figures; this file only encodes it.
 * Numbers are NAN where unknown (written null), ranks -1 where none. */
#ifndef HARNESS_FOLDER_JOB_SUMMARY_H
#define HARNESS_FOLDER_JOB_SUMMARY_H

#include <stddef.h>

#include "folder/job_nodes.h"
#include "folder/job_pairs.h"
#include "folder/slurm_facts.h"
#include "util/error.h"

typedef struct harness_job_rank_record {
    int rank;
    char *status, *host;
    double n, median_ns, p90_ns, gb_per_s, gflop_per_s;
    double comm_calls, comm_bytes, comm_ns;   /* "communication": calls, bytes, total_ns */
    double clock_offset_ns, clock_rtt_ns;     /* rtt NAN on rank 0 */
    double straggler_steps;                   /* NAN: the steps were not synchronized */
    char *energy_status, *energy_counter;     /* "energy" */
    double joules_per_step, watts, flop_per_joule, bytes_per_joule;
} harness_job_rank_record;

typedef struct harness_job_window_record {
    int window, slowest_rank;      /* slowest_rank -1: no rank measured it */
    double slowest_median_ns;
} harness_job_window_record;

/* A file a rank sent rank 0 over MPI, or left in its staging folder
 * (experiment.gather; dist/gather.h). */
typedef struct harness_job_gather_record {
    int rank;
    char *name;
    double bytes;
    char *sha256;                  /* NULL when not sent */
    int sent;                      /* 0: over experiment.gather_max_bytes, left behind */
} harness_job_gather_record;

typedef struct harness_job_summary {
    char *variant_key;
    int world_size;
    char *status;                  /* ok | interrupted (every rank not ok was) | failed */
    harness_slurm_out slurm;       /* the Slurm job and step (owned); job_id NULL: not a Slurm job */
    harness_job_rank_record *ranks;
    size_t n_ranks;
    /* across_ranks (unit ns) */
    int ranks_measured;
    double min_median, median_median, max_median, skew;
    int slowest_rank, fastest_rank;            /* -1: none measured */
    harness_job_window_record *windows;
    size_t n_windows;
    /* energy: the job's */
    int energy_ranks_measured, energy_counters;
    double energy_watts, energy_joules_per_step;
    harness_job_pairs pairs;       /* n 0: no rank exchanged with send_recv (no member) */
    /* "gathered" and "gather": the ranks' files came over MPI, not a shared
     * file system (-1: an older file says nothing) */
    int gathered;
    double gather_max_bytes;       /* NAN when not gathered */
    harness_job_gather_record *gather_files;
    size_t n_gather_files;
    harness_job_nodes nodes;       /* the ranks by node (folder/job_nodes.h) */
} harness_job_summary;

/* The JSON text (malloc'ed; NULL out of memory). */
char *harness_job_summary_write(const harness_job_summary *x);

/* The record from its text (path names it in messages): 0, 2 with the
 * file and the key (folder/json_fields.h's rules), 3 out of memory. */
int harness_job_summary_parse(const char *path, const char *text, size_t len, harness_job_summary *out,
                              harness_error *err);

void harness_job_summary_free(harness_job_summary *x);

#endif
