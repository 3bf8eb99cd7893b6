/* comparison.h - the data of `harness compare` (compare/compare.h): the
 * runs read from each side, the statistics and verdict of each pair, the
 * comparison that holds them. Apart from the functions, so that the files of
 * compare/ that share these types need not include one another. */
#ifndef HARNESS_COMPARISON_H
#define HARNESS_COMPARISON_H

#include <stddef.h>

#include "folder/rank_summary.h"
#include "util/stats.h"

struct cJSON;

/* One summary_ranks_N_rank_r.json: the folder stage's record of it
 * (folder/rank_summary.h), read only there. */
typedef harness_rank_summary harness_run_summary;

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

typedef enum {
    HARNESS_VERDICT_SAME,          /* the ratio's interval lies within 1 +- threshold */
    HARNESS_VERDICT_IMPROVEMENT,
    HARNESS_VERDICT_REGRESSION,
    HARNESS_VERDICT_AMBIGUOUS,     /* too few replicates for alpha, an interval across the threshold, a busy machine */
    HARNESS_VERDICT_FAILED,        /* a run not "ok", or failed validation, on either side */
    HARNESS_VERDICT_COUNT
} harness_verdict;

/* Why a pair is AMBIGUOUS: exactly one cause each, so that a CI recipe can
 * pass what a noisy runner causes and fail what more replicates would settle. */
typedef enum {
    HARNESS_AMBIGUOUS_NONE,             /* not AMBIGUOUS */
    HARNESS_AMBIGUOUS_NO_REPLICATES,    /* a side measured nothing usable (or below the clock) */
    HARNESS_AMBIGUOUS_TOO_FEW,          /* the design cannot reach alpha (alone, or for a lone change among m) */
    HARNESS_AMBIGUOUS_UNRESOLVED,       /* the interval reaches across the threshold: more replicates narrow it */
    HARNESS_AMBIGUOUS_INTERFERENCE,     /* measured interference could account for the change or the spread */
    HARNESS_AMBIGUOUS_SINGLE_RUNS,      /* a side is one run: its windows share its offset and never decide */
    HARNESS_AMBIGUOUS_PROCESSES,        /* processes of one side disagree beyond their windows' spread */
    HARNESS_AMBIGUOUS_COUNT
} harness_ambiguity;

/* What each replicate (a run, a window, a round's run) contributes: its
 * median by default; a tail or the mean with --metric; or its energy per
 * step (joules, not ns: a power or efficiency regression). */
typedef enum { HARNESS_METRIC_MEDIAN, HARNESS_METRIC_P90, HARNESS_METRIC_P99, HARNESS_METRIC_MEAN,
               HARNESS_METRIC_ENERGY, HARNESS_METRIC_COUNT } harness_metric;

/* --on-ambiguous */
typedef enum {
    HARNESS_ON_AMBIGUOUS_PASS,          /* AMBIGUOUS exits 0 */
    HARNESS_ON_AMBIGUOUS_FAIL,          /* exits 1 (the default) */
    HARNESS_ON_AMBIGUOUS_PASS_INTERFERENCE  /* exits 0 only when its cause is measured interference */
} harness_on_ambiguous;

typedef struct harness_compare_options {
    double threshold;              /* relative: 0.05 is 5% (the CLI and JSON say percent) */
    double alpha;                  /* significance level of the rank-sum test; 1 - alpha: the interval's target */
    harness_on_ambiguous on_ambiguous;   /* --on-ambiguous */
    harness_metric metric;         /* --metric: what each replicate contributes */
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
    size_t n_busy;                 /* replicates whose interference could have moved them by the threshold */
    size_t k_robust;               /* wild replicates the interval's ends withstand, plus one: busy ones below
                                    * this moved neither end (the sign-test interval's k; 1 for compare) */
    int processes_disagree;        /* runs of one side differ beyond their windows' spread */
    double step_ns;                /* the longer side's median step (for advice on long steps) */
    harness_verdict verdict;
    harness_ambiguity cause;       /* AMBIGUOUS: its one cause; NONE otherwise */
    char why[512];                 /* what made it AMBIGUOUS; "" otherwise */
} harness_compare_stats;

/* A side's interference: how far it could have raised that side's
 * median (a share, 0 to 1), with the evidence in words. */
typedef struct harness_side_noise {
    double bound;
    const char *evidence;
} harness_side_noise;

/* The tail beside the metric: the p90's statistics and verdict, judged
 * alone (not adjusted with the other pairs), so that a report on medians
 * says when the tail moved beyond the threshold while the median did not. */
typedef struct harness_compare_tail {
    harness_compare_stats s;
    int moved_alone;               /* the tail's verdict REGRESSION or IMPROVEMENT, the metric's not */
} harness_compare_tail;

typedef struct harness_compare_pair {
    const harness_run_summary *base, *cand;
    harness_compare_stats s;
    harness_compare_tail tail;
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
    double base_value, cand_value; /* the metric's values (the medians with --metric median) */
    double ratio;                  /* cand_value / base_value; NaN when either is unknown */
    double base_tail, cand_tail;   /* the p90s */
    int base_failed, cand_failed;  /* not "ok", failed validation, or no samples */
    int base_busy, cand_busy;      /* interference that could have moved the run by the threshold */
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

#endif
