/* summary.h - everything one rank knows at the end of a run, and the two
 * writers of it: profiler_summary_*.txt for people, summary_*.json for tools. */
#ifndef HARNESS_SUMMARY_H
#define HARNESS_SUMMARY_H

#include <stdio.h>

#include "backend/alloc_tracker.h"
#include "backend/backend.h"
#include "backend/gpu_activity.h"
#include "backend/side_streams.h"
#include "config/config.h"
#include "plugin/notes.h"
#include "report/dist_env.h"
#include "report/env.h"
#include "report/impossible_figure.h"
#include "report/warnings.h"
#include "run/profiler.h"
#include "run/full_sync.h"
#include "run/runner.h"
#include "util/format.h"
#include "util/stats.h"

typedef enum {
    HARNESS_VALIDATION_SKIPPED,    /* validate: false, or the variant has no reference */
    HARNESS_VALIDATION_PASSED,
    HARNESS_VALIDATION_FAILED
} harness_validation;

/* Where a step's time goes: one component region over the traced steps. */
typedef struct harness_region_stats {
    const char *name;
    harness_stats per_call;        /* ns per occurrence */
    double total_ns;
    double share_of_steps;         /* total_ns / the traced steps' total time */
} harness_region_stats;

/* What the kernel says other work took from a run or a window (util/
 * interference.h), and how far that could have raised its median. */
typedef struct harness_noise_evidence {
    int64_t involuntary_switches;  /* -1 unknown */
    size_t steps;                  /* measured steps they fell among */
    double steal_share;            /* NAN unknown */
    double sm_clock_mhz, sm_clock_max_mhz; /* a device's lowest SM clock seen and its most; NAN unknown */
    uint64_t throttle_reasons;     /* NVML's reason bits seen (util/interference.h) */
    double median_shift_bound;     /* share of the median, 0 to 1; NAN unknown */
} harness_noise_evidence;

/* The checks after the last timed window (docs/timing-integrity.md,
 * "Anti-cheat"): whether they ran and what they could check. */
typedef struct harness_after_timing_summary {
    const char *state;             /* "passed" | "failed" | "off" | NULL: not reached (the run stopped before) */
    int inputs, outputs;           /* buffers the component declared (ABI 2.4) */
    int probe_steps;               /* output probes run: 0 without declared outputs */
    double probe_wait_ns;          /* the pause before each probe's second reading */
    const char *recheck;           /* "new_inputs" | "same_inputs" | "none" (validate off, or no reference) */
    int64_t rotate_sets;           /* schedule.rotate_inputs that ran; 0: off */
    size_t rotate_bytes;           /* the memory the sets took */
} harness_after_timing_summary;

typedef struct harness_summary {
    const char *status;            /* "ok" | "failed" | "interrupted" | "validation_failed" | "impossible_figure" */
    char error[2048];              /* why, when not ok */
    int rank, world_size;

    const harness_config *cfg;
    const char *variant_key;
    const char *plugin_path;
    const char *device;            /* "cpu" | "cuda" */
    const char *device_name;       /* CPU model or GPU name */
    harness_env env;
    harness_dist_env dist_env;     /* the job's transports (env.distributed) */
    const harness_backend *backend; /* timer, device, peaks */
    const harness_clock *clock;    /* the backend's host clock */

    harness_validation validation;
    harness_check check;
    harness_after_timing_summary after_timing;

    const harness_run_result *run; /* NULL when the run never started */
    harness_stats overall;
    harness_stats *windows;        /* run->n_windows entries */
    /* Over the windows' medians: the window is the unit of replication here
     * (steps within a window share the machine's state, so are not
     * independent); n = windows, so its CI is below 95% for n < 6. */
    harness_stats across_windows;
    int windows_disagree;          /* two windows' CIs of the median apart by a share that matters (warnings.h) */
    harness_noise_evidence noise;  /* over every measured window */
    harness_noise_evidence *window_noise; /* run->n_windows entries */
    harness_region_stats *regions; /* from the trace, in order of first appearance */
    size_t n_regions;

    harness_cost cost;
    const harness_alloc_tracker *mem;
    const harness_alloc_tracker *device_mem; /* tracked device memory; NULL on the CPU */
    const harness_profiler *profiler; /* memory samples, trace bookkeeping */
    harness_warnings warnings;     /* reasons to doubt the figures (report/warnings.h) */
    /* A figure beyond its peak's uncertainty (report/impossible_figure.h),
     * found with the warnings; what[0] == 0: none. allow_above_peak
     * (--allow-above-peak, set before computing) keeps the run ok with the
     * figure among the warnings; otherwise the run fails on it
     * (pipeline/run_point.c). */
    harness_impossible_figure impossible;
    int allow_above_peak;
    /* CUPTI's records of the measurement windows (CUDA runs with
     * profiling.cupti on a profiled rank); NULL otherwise: then the per-kernel
     * table is left out of the text and null in the JSON. */
    const harness_gpu_activity_list *gpu_activity;
    /* What the component noted about itself (ABI 2.3); NULL: none. */
    const harness_notes *notes;
    /* The collectives the component called (ABI 2.2); NULL or empty: none. */
    const struct harness_comm_log *comm;
    /* Runs of more than HARNESS_SUMMARY_INLINE_SAMPLES steps keep their
     * samples in binary side files (folder/samples.h) that the JSON names:
     * the writer puts a file's name and SHA-256 here before the JSON is
     * made; "" keeps the samples inline. host_samples_*: the host launch
     * times of device-timed runs. */
    char samples_file[256], samples_sha256[65];
    char host_samples_file[256], host_samples_sha256[65];
    /* The GPU's anti-cheat (docs/timing-integrity.md): one step by a full
     * device synchronize against the events (run/full_sync.h), and the
     * trace window's work off the timed stream (backend/side_streams.h;
     * side_work_known 0 when there was no timeline or CUPTI could not name
     * the timed stream). Set by pipeline/timed_stream.c. */
    harness_full_sync_check full_sync;
    harness_side_work side_work[8];
    size_t n_side_work;
    uint64_t side_work_left_out;
    int side_work_known;
    char clock_samples_file[256], clock_samples_sha256[65]; /* GPU runs: each sample's SM clock, MHz */
} harness_summary;

/* Up to this many samples stay in the summary JSON, readable as text
 * (about 20 bytes each: 200 KB); more go to a side file. */
#define HARNESS_SUMMARY_INLINE_SAMPLES 10000

/* Statistics per window, across windows and overall from s->run, then the
 * warnings (s->env must hold the end-of-run load). 0, or -1 out of memory. */
int harness_summary_compute(harness_summary *s);
void harness_summary_release(harness_summary *s);
/* Apply every warning rule (report/warnings.h) to a computed summary, into
 * s->warnings (report/summary_warnings.c). */
void harness_summary_collect_warnings(harness_summary *s);

/* The JSON text (schema HARNESS_SCHEMA_SUMMARY); malloc'ed, NULL out of memory. */
char *harness_summary_json(const harness_summary *s);
/* The full human summary; malloc'ed. */
char *harness_summary_text(const harness_summary *s);
/* The short table `harness run` prints on stdout, within `width` columns
 * (the table's least needed columns dropped, long lines wrapped at spaces);
 * width 0: every column, lines as long as they are (a pipe, --wide). */
void harness_summary_print_short(const harness_summary *s, FILE *out, int width);

/* The evidence in a sentence for people ("412 involuntary context
 * switches in 3000 measured steps: could have raised the median by up to
 * 0.31%"); returns buf. */
const char *harness_noise_text(const harness_noise_evidence *e, char *buf, size_t cap);

/* The measurement_steps (0: auto) and repeat that ran: the config's, or
 * with --time-budget its steps (s->run->budget) and the windows that ran
 * (they replace auto stopping and repeat). */
int64_t harness_summary_measurement_steps(const harness_summary *s);
int64_t harness_summary_repeat(const harness_summary *s);

/* Set the summary's status ("failed", ...) and the reason. */
void harness_summary_mark(harness_summary *s, const char *status, const char *why);

#endif
