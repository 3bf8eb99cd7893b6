/* job_summary.h - the cross-rank summary of a multi-rank job, written by
 * rank 0 as summary.json and summary.txt beside the per-rank files: each
 * rank's median, p90 and throughput; min, median and max of the ranks'
 * medians; skew (max / min of the medians); the slowest rank overall and
 * per window. Plain data in, text out: unit-tested without MPI. */
#ifndef HARNESS_JOB_SUMMARY_H
#define HARNESS_JOB_SUMMARY_H

#include "folder/job_pairs.h"
#include "report/job_energy.h"
#include "report/summary.h"

/* Windows kept per rank; a longer `repeat` keeps the first ones. */
#define HARNESS_JOB_MAX_WINDOWS 64

/* One rank's figures, fixed-size so the ranks can gather them as bytes. */
typedef struct harness_rank_figures {
    int rank;
    char status[24];               /* the rank's summary status */
    char host[64];
    size_t n;                      /* measured steps */
    double median_ns, p90_ns;      /* over its steps; 0 when none */
    double gb_per_s, gflop_per_s;  /* at its median; 0 when unknown */
    int n_windows;
    double window_median_ns[HARNESS_JOB_MAX_WINDOWS];
    size_t comm_calls;             /* the component's collectives in the measured steps */
    double comm_bytes, comm_ns;
    /* Filled by the caller from the job (dist) and the profiler: */
    int64_t clock_offset_ns;       /* this rank's clock minus rank 0's */
    double clock_rtt_ns;           /* the round trip that estimate rests on; -1 on rank 0 */
    int traced;                    /* wrote a trace */
    uint64_t trace_base_ns;        /* its trace's time zero on its own monotonic clock */
    uint64_t trace_base_unix_ns;   /* and on its wall clock */
    harness_rank_energy energy;    /* over the run (report/job_energy.h) */
} harness_rank_figures;

void harness_rank_figures_of(const harness_summary *s, harness_rank_figures *out);

/* sync_steps: the ranks started each measured step together, so step i of
 * every rank is one event; counts[r] gets how many steps rank r was the
 * slowest of (ties to the lower rank). samples: ranks rows of n. */
void harness_job_stragglers(const double *samples, int ranks, size_t n, size_t *counts);

/* The two files' text (malloc'ed; NULL out of memory) for n ranks in rank
 * order; stragglers: harness_job_stragglers' counts, or NULL when the steps
 * were not synchronized; pairs: the pair matrix (report/pairs.h), or NULL
 * when no rank exchanged with send_recv. */
char *harness_job_summary_json(const harness_rank_figures *ranks, int n, const char *variant_key,
                               const size_t *stragglers, const harness_job_pairs *pairs);
char *harness_job_summary_text(const harness_rank_figures *ranks, int n, const char *variant_key,
                               const size_t *stragglers, const harness_job_pairs *pairs);

#endif
