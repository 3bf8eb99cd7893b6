/* rank_summary_record.h - the rank summary's record (rank_summary.h has
 * its reader), apart so that the reader's parts (rank_summary_timing.c,
 * rank_summary_extra.c) share the types without including the reader. */
#ifndef HARNESS_FOLDER_RANK_SUMMARY_RECORD_H
#define HARNESS_FOLDER_RANK_SUMMARY_RECORD_H

#include <stddef.h>

#include "util/stats.h"

struct cJSON;

/* An "energy" object: the run's (top level) or a window's; NAN / NULL where
 * not measured. joules_per_step and watts, when said, are > 0. */
typedef struct harness_energy_record {
    char *status;                  /* measured | not_available | too_short | ... */
    double joules, seconds, joules_per_step, watts, flop_per_joule, bytes_per_joule, uncertainty;
    char *source, *missing;        /* top level only: the counter, or why none */
} harness_energy_record;

/* The statistics of a window (timing.windows[i]) or of the run (timing),
 * as written: NAN where null or absent (index, first_sample, stop_reason and
 * converged are a window's only). */
typedef struct harness_stats_record {
    double index, first_sample, n;
    double median, mean, stddev, cv, min, p5, p25, p75, p90, p95, p99, max, iqr, outliers;
    double ci_lo, ci_hi, ci_level; /* ci95_median [lo, hi] */
    double wall_ns, cpu_ns, cpu_per_wall;
    char *stop_reason;
    int converged;                 /* 1, 0, or -1 null */
    harness_energy_record energy;
} harness_stats_record;

/* Reading options. */
enum {
    /* Leave the samples unread (export: a table of the written statistics
     * needs neither the samples nor a side file's bytes). The side file's
     * reference is still checked; samples, stats and the replicates
     * (window_medians and their slices) stay empty. */
    HARNESS_RANK_SUMMARY_NO_SAMPLES = 1,
};

typedef struct harness_rank_summary {
    char *path;                    /* the file, as found (or "DB:experiment/rank r" from a database) */
    char *folder;                  /* its experiment folder (the path's directory) */
    char sha256[65];               /* hex SHA-256 of the file's bytes (how record keys a run); "" when not a file */
    char *variant_key;             /* component.variant_key */
    char *experiment_name;         /* experiment.name, or NULL */
    char *plugin;                  /* component.plugin, or NULL */
    struct cJSON *config;          /* component.config (an object) */
    char *config_text;             /* "k=v, k=v" for tables; "-" when empty */
    char *device_type, *device_name;   /* device.type, device.name, or NULL */
    int rank, world_size;
    char *status;                  /* "ok" | "failed" | "interrupted" | "validation_failed" | ... */
    char *error;                   /* the summary's error, or NULL (also for "") */
    char *validation_status;       /* validation.status, or NULL */
    int validation_failed;         /* validation.passed false or validation.status "failed" */
    double bytes_per_step, flops_per_step;   /* throughput.*; NAN unknown */

    double *samples;               /* timing.samples or its side file (ns) */
    size_t n_samples;
    harness_stats stats;           /* of the samples, computed here; zeros when none */
    harness_stats_record timing;   /* timing's statistics as written */
    harness_stats_record *windows; /* timing.windows[] as written, all of them */
    size_t n_written_windows;
    /* The replicates of a single run: the median of every window with n > 0,
     * recomputed from its slice of samples (the written median only when the
     * run kept none), with the slices (--metric p90 reads tails from them)
     * and each such window's energy per step (NAN not measured). */
    double *window_medians;
    size_t *window_start, *window_len;
    double *window_energy;
    size_t n_windows;

    double noise_bound;            /* noise.median_shift_bound, 0 to 1; NAN when not said */
    char *noise_evidence;          /* noise.evidence, or NULL */
    int windows_disagree;          /* timing.across_windows.windows_disagree */
    harness_energy_record energy;  /* the run's */
    double energy_j_per_step;      /* energy.joules_per_step; NAN unknown */
    double energy_watts;           /* energy.watts; NAN unknown */

    /* impossible_figure (report/impossible_figure.h): its message, or NULL
     * when the figure is null; allowed when its run kept it with
     * --allow-above-peak. Whether to judge such a run is the reader's
     * caller's call (compare refuses it unless allowed). */
    char *impossible_message;
    int impossible_allowed_flag;
    char *impossible_allowed;      /* the message when allowed, else NULL (compare's note) */

    /* env: what record keys machines and experiments by ("" when absent),
     * and the whole object for export's env.* columns (its keys grow freely). */
    char *host;                    /* env.host, or NULL (the series of --baseline-db) */
    char *env_cpu, *env_gpu, *env_git_commit, *env_harness_version, *env_started_at;
    struct cJSON *env;             /* a copy of env, or NULL */
} harness_rank_summary;

#endif
