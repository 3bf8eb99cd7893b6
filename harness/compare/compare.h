/* compare.h - `harness compare BASE CAND` (DESIGN.md section 8): load the
 * per-rank summaries of two experiment folders (or two folders of them),
 * match their runs, and judge each pair by the ratio of the medians and a
 * Mann-Whitney U test on the per-step samples. */
#ifndef HARNESS_COMPARE_H
#define HARNESS_COMPARE_H

#include <stddef.h>

#include "util/error.h"
#include "util/stats.h"

struct cJSON;

#define HARNESS_SUMMARY_SCHEMA "harness.summary/1"
#define HARNESS_COMPARE_SCHEMA "harness.compare/1"

/* One summary_ranks_N_rank_r.json. */
typedef struct harness_run_summary {
    char *path;                    /* the file, as found */
    char *folder;                  /* its experiment folder (the path's directory) */
    char *variant_key;             /* component.variant_key */
    struct cJSON *config;          /* component.config (an object) */
    char *config_text;             /* "k=v, k=v" for tables; "-" when empty */
    char *device_name;             /* device.name, or NULL */
    int rank, world_size;
    char *status;                  /* "ok" | "failed" | "interrupted" | "validation_failed" | ... */
    char *error;                   /* the summary's error, or NULL */
    int validation_failed;         /* validation.passed false or validation.status "failed" */
    double *samples;               /* timing.samples (ns) */
    size_t n_samples;
    harness_stats stats;           /* of the samples, computed here; zeros when none */
} harness_run_summary;

/* Parse the text of a summary read from `path` (named in every message).
 * Errors (exit code 2): invalid JSON (path:line:col), not an object, no or
 * another schema, a missing or mistyped key (named), a sample that is not a
 * finite number >= 0, no samples in a run whose status is "ok". */
int harness_run_summary_parse(const char *path, const char *text, size_t len, harness_run_summary *out,
                              harness_error *err);
int harness_run_summary_load(const char *path, harness_run_summary *out, harness_error *err);
void harness_run_summary_free(harness_run_summary *r);

/* BASE or CAND: every summary under `root`. */
typedef struct harness_compare_side {
    char *root;
    int is_parent;                 /* root holds experiment folders, not summaries */
    harness_run_summary *runs;
    size_t n_runs, cap;
} harness_compare_side;

/* root is an experiment folder (it holds summary_ranks_*_rank_*.json) or a
 * folder of them, at any depth up to 4 (hidden folders skipped). No folder,
 * no summary anywhere, or a bad summary: exit code 2. */
int harness_compare_side_load(const char *root, harness_compare_side *side, harness_error *err);
/* Append *run, taking what it owns (*run is zeroed). 0, or 3 out of memory. */
int harness_compare_side_add(harness_compare_side *side, harness_run_summary *run, harness_error *err);
void harness_compare_side_free(harness_compare_side *side);

typedef enum {
    HARNESS_VERDICT_NO_CHANGE,
    HARNESS_VERDICT_IMPROVEMENT,
    HARNESS_VERDICT_REGRESSION,
    HARNESS_VERDICT_FAILED,        /* a run not "ok", or failed validation, on either side */
    HARNESS_VERDICT_COUNT
} harness_verdict;

const char *harness_verdict_label(harness_verdict v);  /* "no change", "IMPROVEMENT", "REGRESSION", "FAILED" */
const char *harness_verdict_token(harness_verdict v);  /* "no_change", "improvement", "regression", "failed" */

typedef struct harness_compare_options {
    double threshold;              /* relative: 0.05 is 5% */
    double alpha;                  /* significance level of the U test */
} harness_compare_options;

#define HARNESS_COMPARE_DEFAULT_THRESHOLD 0.05
#define HARNESS_COMPARE_DEFAULT_ALPHA 0.05

/* What one pair of sample sets says. NaN where unknown. */
typedef struct harness_compare_stats {
    double base_median, base_lo, base_hi;   /* median and its 95% CI (order statistics) */
    double cand_median, cand_lo, cand_hi;
    double ratio;                  /* cand_median / base_median */
    double ratio_lo, ratio_hi;     /* [cand_lo / base_hi, cand_hi / base_lo] */
    double p;                      /* two-sided Mann-Whitney U */
    harness_verdict verdict;
} harness_compare_stats;

/* REGRESSION when ratio > 1 + threshold and p < alpha, IMPROVEMENT when
 * ratio < 1 - threshold and p < alpha, else NO_CHANGE (a NaN never passes). */
harness_verdict harness_compare_verdict(double ratio, double p, const harness_compare_options *o);

/* Medians, their CIs, the ratio and its CI, p and the verdict of cand
 * against base. 0, or -1 out of memory. Empty samples give NaNs and
 * NO_CHANGE. */
int harness_compare_samples(const double *base, size_t nb, const double *cand, size_t nc,
                            const harness_compare_options *o, harness_compare_stats *out);

typedef struct harness_compare_pair {
    const harness_run_summary *base, *cand;
    harness_compare_stats s;
    char reason[1024];             /* why FAILED; "" otherwise */
} harness_compare_pair;

typedef struct harness_comparison {
    harness_compare_options opts;
    harness_compare_side base, cand;
    int by_rank;                   /* both sides single experiment folders: paired by rank alone */
    harness_compare_pair *pairs;
    size_t n_pairs;
    const harness_run_summary **unmatched_base, **unmatched_cand;
    size_t n_unmatched_base, n_unmatched_cand;
    char **notes;                  /* duplicates resolved, configs that differ, few samples */
    size_t n_notes;
    size_t counts[HARNESS_VERDICT_COUNT];
    harness_verdict overall;       /* REGRESSION > FAILED > IMPROVEMENT > NO_CHANGE */
} harness_comparison;

/* Match the runs of two loaded sides and judge every pair; the sides are
 * moved into *out (and zeroed). Runs are matched by (variant_key,
 * component.config, rank, world_size), except when both sides are single
 * experiment folders: then by (rank, world_size), with a note when the
 * variant or config differ. Of several runs with the same key on one side
 * the newest folder name wins (digit runs compared as numbers), with a note.
 * Errors: no pair at all (2), out of memory (3). *out is always safe to free. */
int harness_compare_sides(harness_compare_side *base, harness_compare_side *cand, const harness_compare_options *o,
                          harness_comparison *out, harness_error *err);
/* Load both folders, then the above. */
int harness_compare_dirs(const char *base, const char *cand, const harness_compare_options *o,
                         harness_comparison *out, harness_error *err);
/* 1 when any pair is REGRESSION or FAILED, else 0. */
int harness_comparison_exit_code(const harness_comparison *c);
void harness_comparison_free(harness_comparison *c);

typedef enum { HARNESS_COMPARE_TEXT, HARNESS_COMPARE_MARKDOWN, HARNESS_COMPARE_JSON } harness_compare_format;

/* The report (compare_report.c); malloc'ed, NULL out of memory. */
char *harness_compare_report(const harness_comparison *c, harness_compare_format f);

#endif
