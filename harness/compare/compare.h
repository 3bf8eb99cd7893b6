/* compare.h - `harness compare BASE CAND` (docs/ARCHITECTURE.md section 8): load the
 * per-rank summaries of two experiment folders (or two folders of them),
 * match their runs, and judge each pair on replicates - the windows of one
 * run (schedule.repeat), or the runs when a side holds several of one key -
 * with the rank-sum statistics of rank_shift.h. Per-step samples are never
 * the unit: they are autocorrelated and share their run's offset. */
#ifndef HARNESS_COMPARE_H
#define HARNESS_COMPARE_H

#include <stddef.h>

#include "util/error.h"
#include "util/stats.h"

struct cJSON;

#define HARNESS_SUMMARY_SCHEMA "harness.summary/1"
#define HARNESS_COMPARE_SCHEMA "harness.compare/2"

/* One summary_ranks_N_rank_r.json. */
typedef struct harness_run_summary {
    char *path;                    /* the file, as found */
    char *folder;                  /* its experiment folder (the path's directory) */
    char *variant_key;             /* component.variant_key */
    char *experiment_name;         /* experiment.name, or NULL */
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
    double *window_medians;        /* timing.windows[].median of the windows with n > 0 */
    size_t n_windows;
    double noise_bound;            /* noise.median_shift_bound: how far interference could have raised
                                    * the median (a share); NAN when the summary does not say */
    char *noise_evidence;          /* noise.evidence, or NULL */
    int windows_disagree;          /* timing.across_windows.windows_disagree */
    char *host;                    /* env.host, or NULL */
} harness_run_summary;

/* Parse the text of a summary read from `path` (named in every message).
 * Errors (exit code 2): invalid JSON (path:line:col), not an object, no or
 * another schema, a missing or mistyped key (named), a sample that is not a
 * finite number >= 0, no samples in a run whose status is "ok". */
int harness_run_summary_parse(const char *path, const char *text, size_t len, harness_run_summary *out,
                              harness_error *err);
int harness_run_summary_load(const char *path, harness_run_summary *out, harness_error *err);
void harness_run_summary_free(harness_run_summary *r);

/* A rank of an experiment folder that left no summary: killed (SIGKILL,
 * out of memory), crashed before writing one, or missing altogether. */
typedef struct harness_incomplete_run {
    char *folder;
    int rank, world_size;          /* world_size 0: not known (status.json alone; it is rank 0's) */
    char *status;                  /* its status file's status ("running", "crashed", ...), "unreadable", or
                                    * "missing" (no status file) */
    char *error;                   /* its status file's error, or NULL */
    char *variant_key;             /* NULL when the status file does not say */
} harness_incomplete_run;

/* BASE or CAND: every summary under `root`. */

typedef struct harness_compare_side {
    char *root;
    int is_parent;                 /* root holds experiment folders, not summaries */
    int is_database;               /* the runs come from a results database (--baseline-db) */
    harness_run_summary *runs;
    size_t n_runs, cap;
    harness_incomplete_run *incomplete;
    size_t n_incomplete, incomplete_cap;
} harness_compare_side;

/* A run's benchmark name for --filter: "EXPERIMENT_NAME VARIANT_KEY
 * k=v ..." with every component parameter ("?" for a name the summary
 * lacks); returns buf. The first from a summary's parts, the second from a
 * loaded run. */
const char *harness_summary_bench_name(const char *experiment, const char *key, const struct cJSON *config,
                                       char *buf, size_t cap);
const char *harness_run_summary_name(const harness_run_summary *r, char *buf, size_t cap);

/* Drop the runs of side whose name `keep` refuses (an incomplete run is
 * judged by "? VARIANT_KEY", and kept when its key is unknown). Returns
 * how many runs, complete or not, are left. */
size_t harness_compare_side_keep(harness_compare_side *side, int (*keep)(const char *name, void *arg), void *arg);

/* root is an experiment folder (it holds summary_ranks_*_rank_*.json or a
 * status file) or a folder of them, at any depth up to 4 (hidden folders
 * skipped). Each rank's status file has the last word over its summary's
 * status (folder_ranks.h); a rank with no summary is kept as an incomplete
 * run (a comparison with any is FAILED). No folder, no run anywhere, or a
 * bad summary: exit code 2. */
int harness_compare_side_load(const char *root, harness_compare_side *side, harness_error *err);
/* Append *run, taking what it owns (*run is zeroed). 0, or 3 out of memory. */
int harness_compare_side_add(harness_compare_side *side, harness_run_summary *run, harness_error *err);
void harness_compare_side_free(harness_compare_side *side);

typedef enum {
    HARNESS_VERDICT_SAME,          /* the ratio's interval lies within 1 +- threshold */
    HARNESS_VERDICT_IMPROVEMENT,
    HARNESS_VERDICT_REGRESSION,
    HARNESS_VERDICT_AMBIGUOUS,     /* too few replicates for alpha, an interval across the threshold, a busy machine */
    HARNESS_VERDICT_FAILED,        /* a run not "ok", or failed validation, on either side */
    HARNESS_VERDICT_COUNT
} harness_verdict;

/* "SAME", "IMPROVEMENT", "REGRESSION", "AMBIGUOUS", "FAILED" */
const char *harness_verdict_label(harness_verdict v);
/* "same", "improvement", "regression", "ambiguous", "failed" */
const char *harness_verdict_token(harness_verdict v);

typedef struct harness_compare_options {
    double threshold;              /* relative: 0.05 is 5% (the CLI and JSON say percent) */
    double alpha;                  /* significance level of the rank-sum test; 1 - alpha: the interval's target */
    int ambiguous_fails;           /* --on-ambiguous fail: AMBIGUOUS exits 1 */
} harness_compare_options;

#define HARNESS_COMPARE_DEFAULT_THRESHOLD 0.05
#define HARNESS_COMPARE_DEFAULT_ALPHA 0.05

/* What a pair's replicates say. NaN where unknown. */
typedef struct harness_compare_stats {
    double base_median, base_lo, base_hi;   /* the newest run's median and CI, for display; --baseline-db:
                                             * the median of the base runs' medians, the level compared with */
    double cand_median, cand_lo, cand_hi;
    const char *unit;              /* "windows", "runs", "runs/windows" or "windows/runs" (base/cand) */
    size_t n_base, n_cand;         /* replicates */
    double ratio;                  /* cand / base: Hodges-Lehmann over the replicates (compare), the median
                                    * paired ratio (ab rounds) */
    double ratio_lo, ratio_hi;     /* its interval: Moses (compare), the sign test's (ab rounds) */
    double coverage;               /* its actual coverage */
    double p;                      /* two-sided: rank-sum p on the replicates (compare), sign test (ab rounds) */
    double signed_rank_p;          /* ab rounds: the Wilcoxon signed-rank p, for reference; unset otherwise */
    double min_p;                  /* the smallest p these replicate counts can reach */
    size_t n_zero;                 /* A/B: rounds with no difference, dropped from the test (so from min_p) */
    size_t fdr_m;                  /* pairs whose p were adjusted together (Benjamini-Hochberg); 0: not */
    double q;                      /* p so adjusted when fdr_m > 1: the verdict's significance is q <= alpha */
    harness_verdict verdict;
    char why[512];                 /* what made it AMBIGUOUS; "" otherwise */
} harness_compare_stats;

/* A side's interference: how far it could have raised that side's
 * median (a share, 0 to 1), with the evidence in words. */
typedef struct harness_side_noise {
    double bound;
    const char *evidence;
} harness_side_noise;

/* The verdict from the replicate statistics (ratio, interval, p, min_p,
 * n_base, n_cand, unit of *s) and the interference of each side (NULL:
 * none known):
 *   AMBIGUOUS when a side has no replicate, or min_p > alpha (never
 *     significant: too few replicates);
 *   REGRESSION when p <= alpha and ratio > 1 + threshold, IMPROVEMENT when
 *     p <= alpha and ratio < 1 - threshold - unless a side's replicates are
 *     the windows of one run (they share its offset, so p ignores the
 *     run-to-run spread), or the interference could account for the change
 *     (the candidate's bound for a regression: ratio * (1 - bound) no
 *     longer beyond the threshold; the base's for an improvement): then
 *     AMBIGUOUS, saying which;
 *   SAME when the interval lies within [1 - threshold, 1 + threshold];
 *   AMBIGUOUS otherwise (the interval reaches across the threshold).
 * Writes s->verdict and s->why. */
void harness_compare_decide(harness_compare_stats *s, const harness_compare_options *o,
                            const harness_side_noise *base, const harness_side_noise *cand);

/* The statistics and verdict of replicate values (> 0) of cand against
 * base, on a quiet machine; the display medians are left NaN. 0, -1 out of
 * memory, -2 a value <= 0 or not finite. */
int harness_compare_replicates(const double *base, size_t nb, const double *cand, size_t nc,
                               const harness_compare_options *o, harness_compare_stats *out);

typedef struct harness_compare_pair {
    const harness_run_summary *base, *cand;
    harness_compare_stats s;
    harness_side_noise base_noise, cand_noise; /* of the runs its replicates came from */
    char reason[1024];             /* why FAILED; "" otherwise */
} harness_compare_pair;

/* One round of an interleaved A/B run (harness ab), for its table. */
typedef struct harness_ab_round {
    const harness_run_summary *base, *cand;
    size_t benchmark;              /* its pair: a suite's benchmarks are the pairs, in order */
    size_t round;                  /* its round (from 0) among its benchmark's */
    int base_first;                /* the base ran first in this round */
    double base_median, cand_median;   /* ns; NaN when the run measured nothing */
    double ratio;                  /* cand_median / base_median; NaN when either is unknown */
    int base_failed, cand_failed;  /* not "ok", failed validation, or no samples */
    int base_busy, cand_busy;      /* a load warning in the run's summary */
} harness_ab_round;

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
    harness_verdict overall;       /* REGRESSION > FAILED > AMBIGUOUS > IMPROVEMENT > SAME */
    harness_ab_round *rounds;      /* harness ab: every round, in order; NULL for compare */
    size_t n_rounds;
} harness_comparison;

/* Match the runs of two loaded sides and judge every pair (incomplete runs
 * on either side count as FAILED and need no pair); the sides are
 * moved into *out (and zeroed). Runs are matched by (variant_key,
 * component.config, rank, world_size), except when both sides are single
 * experiment folders: then by (rank, world_size), with a note when the
 * variant or config differ. Of several runs with the same key on one side
 * the newest folder name (digit runs compared as numbers) is shown and their
 * medians are the side's replicates, with a note; a single run's replicates
 * are its windows.
 * Errors: no pair at all (2), out of memory (3). *out is always safe to free. */
int harness_compare_sides(harness_compare_side *base, harness_compare_side *cand, const harness_compare_options *o,
                          harness_comparison *out, harness_error *err);
/* Load both folders, then the above. */
int harness_compare_dirs(const char *base, const char *cand, const harness_compare_options *o,
                         harness_comparison *out, harness_error *err);
/* The paired statistics (signed_rank.h) of rounds (base[i], cand[i]) > 0,
 * unit "rounds"; the verdict is not set. 0, -1 out of memory, -2 a value <= 0. */
int harness_compare_paired(const double *base, const double *cand, size_t n, const harness_compare_options *o,
                           harness_compare_stats *out);
/* An interleaved A/B run of one benchmark or a suite of them as a
 * comparison of a pair per benchmark: base->runs and cand->runs hold each
 * benchmark's rounds in turn (benchmark-major, as many each), run i of a
 * benchmark in round i (rank 0 of each) in the order of
 * harness_ab_base_first. The sides are moved into *out, and every round
 * into out->rounds. A pair is FAILED when a round of it failed; otherwise
 * judged by harness_compare_decide on the paired statistics, with the p of
 * several benchmarks adjusted together (Benjamini-Hochberg). 3 on
 * mismatched sides or out of memory. */
int harness_compare_rounds(harness_compare_side *base, harness_compare_side *cand, size_t benchmarks,
                           const harness_compare_options *o, harness_comparison *out, harness_error *err);
/* Whether the base runs first in round `round` (from 0) of benchmark
 * `benchmark`: ABBA... along the rounds and along a round's benchmarks, so
 * that a trend within a round favours neither side. */
int harness_ab_base_first(size_t round, size_t benchmark);
/* The fewest rounds with a difference that can reach alpha: the exact
 * sign test's least two-sided p over n such pairs is 2 / 2^n (the signed-rank test's too). */
size_t harness_ab_rounds_needed(double alpha);

/* 1 when any pair is REGRESSION or FAILED, or AMBIGUOUS with
 * ambiguous_fails; else 0. */
int harness_comparison_exit_code(const harness_comparison *c);
void harness_comparison_free(harness_comparison *c);

typedef enum { HARNESS_COMPARE_TEXT, HARNESS_COMPARE_MARKDOWN, HARNESS_COMPARE_JSON } harness_compare_format;

/* The report (compare_report.c); malloc'ed, NULL out of memory. */
char *harness_compare_report(const harness_comparison *c, harness_compare_format f);

/* How the text report meets a terminal: colour on the verdicts, and the
 * pairs' table fitted to `width` columns (0: every column, full width). */
typedef struct harness_text_style {
    int color;
    int width;
} harness_text_style;

/* harness_compare_report's text format, styled (markdown and JSON never are). */
char *harness_compare_report_text(const harness_comparison *c, const harness_text_style *style);

#endif
