/* history.h - `harness history`: the recorded runs of a results database
 * as series, one per (machine, variant key, config hash, world size, rank),
 * each point a run's median (or --metric's p90, p99, mean) with the
 * median's CI (and that CI's coverage) and the run's noise bound, in commit
 * order (the order the runs were recorded: CI records main commit after
 * commit), and the change points E-divisive finds in each without the runs
 * set aside - those with interference, then the outliers
 * (changepoint.h). Reports: the printers of compare/printer.h. */
#ifndef HARNESS_HISTORY_H
#define HARNESS_HISTORY_H

#include <stddef.h>

#include "compare/changepoint.h"
#include "compare/metric.h"
#include "compare/results_db.h"
#include "util/error.h"

typedef struct harness_history_point {
    char *experiment;              /* the folder's name */
    char *commit, *branch;         /* NULL when unknown */
    double value;                  /* the series' metric (ns): what the change points are found in */
    double median, ci_lo, ci_hi;   /* ns; the CI is the median's */
    double ci_level;               /* the CI's exact coverage (0.9375 for 5 samples; NaN when not recorded) */
    long long n;                   /* steps */
    double noise_bound;            /* how far interference could have raised the median, a share; NaN unknown */
    char *noise_evidence;          /* the same in words, or NULL */
    int interfered;                /* noise_bound reaches the limit (harness_cp_noise_limit): set aside or not */
    int set_aside;                 /* harness_cp_set_aside: why it is left out of the change-point search */
} harness_history_point;

typedef struct harness_series {
    char *host, *cpu, *gpu;
    char *variant_key, *config_hash, *config;   /* config: component.config as compact JSON */
    int world_size, rank;
    harness_history_point *points;
    size_t n_points;
    harness_change_point *cps;
    size_t n_cps;
} harness_series;

/* NULL / -1: any. */
typedef struct harness_history_filter {
    const char *variant_key, *host, *branch, *config_hash;   /* config_hash: a prefix */
    int world_size, rank;
} harness_history_filter;

typedef struct harness_history {
    const char *db_path;
    harness_metric metric;
    harness_cp_options cp;
    harness_series *series;
    size_t n_series;
} harness_history;

/* Read the ok runs that pass the filter, in series of `metric`, and find
 * their change points. A filter that matches nothing: 2, naming the
 * database and the filter. *out is always safe to free. */
int harness_history_load(harness_db *db, const harness_history_filter *f, harness_metric metric,
                         const harness_cp_options *cp, harness_history *out, harness_error *err);

/* The runs with interference (`interfered`) where change point c of s
 * begins: the run before its index (the old level's last run the search
 * kept), the new level's first kept run, and the runs set aside between
 * them; their indices into runs[0..cap). The count (which may exceed cap).
 * The change is found in the runs kept, but a reader should know the
 * machine was busy where it begins: the commit named may be off by the
 * runs set aside there, and a first run of the new level whose bound
 * reaches the step could have been raised into it. */
size_t harness_history_cp_interference(const harness_series *s, size_t c, size_t *runs, size_t cap);
void harness_history_free(harness_history *h);

/* Drop the series whose name `keep` refuses: "? VARIANT_KEY KEY=VALUE..."
 * with every component parameter (the database keys a series without the
 * experiment's name, hence "?"). Returns the series left. */
size_t harness_history_keep(harness_history *h, int (*keep)(const char *name, void *arg), void *arg);

/* The reports are printed by the printers of compare/printer.h. */

#endif
