/* compare.h - `harness compare BASE CAND` (docs/ARCHITECTURE.md section 8): load the
 * per-rank summaries of two experiment folders (or two folders of them),
 * match their runs, and judge each pair on replicates - the windows of one
 * run (schedule.repeat), or the runs when a side holds several of one key -
 * with the rank-sum statistics of rank_shift.h. Per-step samples are never
 * the unit: they are autocorrelated and share their run's offset. */
#ifndef HARNESS_COMPARE_H
#define HARNESS_COMPARE_H

#include <stddef.h>

#include "compare/comparison.h"
#include "util/error.h"

#include <stdio.h>

struct cJSON;

#define HARNESS_COMPARE_SCHEMA "harness.compare/2"

/* Parse the text of a summary read from `path` (named in every message).
 * Errors (exit code 2): invalid JSON (path:line:col), not an object, no or
 * another schema, a missing or mistyped key (named), a sample that is not a
 * finite number >= 0, no samples in a run whose status is "ok". */
int harness_run_summary_parse(const char *path, const char *text, size_t len, harness_run_summary *out,
                              harness_error *err);
int harness_run_summary_load(const char *path, harness_run_summary *out, harness_error *err);
void harness_run_summary_free(harness_run_summary *r);
/* A summary whose impossible_figure was not allowed is one of those
 * errors (exit 2): it names the file and the figure (report/
 * impossible_figure.h). One that was allowed is read, and this says so on
 * f for each such run among runs[0..n), naming `command`. */
void harness_run_summaries_note_allowed(const harness_run_summary *runs, size_t n, const char *command, FILE *f);

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

/* "SAME", "IMPROVEMENT", "REGRESSION", "AMBIGUOUS", "FAILED" */
const char *harness_verdict_label(harness_verdict v);
/* "same", "improvement", "regression", "ambiguous", "failed" */
const char *harness_verdict_token(harness_verdict v);

/* AMBIGUOUS causes: "too_few_replicates"... for JSON, "too few
 * replicates"... for people; "" for NONE. */
const char *harness_ambiguity_token(harness_ambiguity a);
const char *harness_ambiguity_label(harness_ambiguity a);

/* The verdict from the replicate statistics (ratio, interval, p or q,
 * min_p, n_base, n_cand, unit, n_busy, k_robust, processes_disagree of *s)
 * and the interference of each side (NULL: none known). The interval
 * decides, the test confirms:
 *   REGRESSION when the interval's lower end clears 1 + threshold and the
 *     change is significant (q <= alpha when fdr_m > 1, else p), unless the
 *     cand's interference bound could pull that end back within the
 *     threshold (then AMBIGUOUS, interference); IMPROVEMENT symmetrically;
 *   SAME when the interval lies within [1 - threshold, 1 + threshold];
 *   AMBIGUOUS otherwise, with one cause: a side of windows of one run
 *     (single runs: they bound a change, never call one); min_p > alpha
 *     (too few replicates), or fdr_m pairs judged together whose
 *     replicates cannot reach alpha / fdr_m (too few for a lone change);
 *     an interval beyond the threshold that the adjusted test does not
 *     confirm (unresolved); an interval across the threshold, blamed on
 *     interference when at least k_robust replicates had some, else on
 *     processes that disagree, else unresolved.
 * Writes s->verdict, s->cause and s->why. */
void harness_compare_decide(harness_compare_stats *s, const harness_compare_options *o,
                            const harness_side_noise *base, const harness_side_noise *cand);

/* The statistics and verdict of replicate values (> 0) of cand against
 * base, on a quiet machine; the display medians are left NaN. 0, -1 out of
 * memory, -2 a value <= 0 or not finite. */
int harness_compare_replicates(const double *base, size_t nb, const double *cand, size_t nc,
                               const harness_compare_options *o, harness_compare_stats *out);

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
/* The fewest rounds with a difference that can call a lone change among
 * `benchmarks` judged together (p <= alpha / benchmarks after
 * Benjamini-Hochberg): the exact sign test's least two-sided p over n such
 * pairs is 2 / 2^n (the signed-rank test's too). */
size_t harness_ab_rounds_needed(double alpha, size_t benchmarks);

/* The fewest runs a side (both sides alike) whose exact rank-sum test can
 * call a lone change among `pairs` judged together (p <= alpha / pairs;
 * 4 for one pair at alpha 0.05, 5 for two to six). *min_p and *coverage
 * (either may be NULL): the least p those runs reach, and the coverage of
 * the interval they give at alpha (compare/rank_shift.h). */
size_t harness_runs_needed(double alpha, size_t pairs, double *min_p, double *coverage);

/* Parse --on-ambiguous fail|pass|pass-interference; exit code 2 otherwise. */
int harness_on_ambiguous_parse(const char *arg, harness_on_ambiguous *out, harness_error *err);
/* "fail", "pass", "pass-interference" */
const char *harness_on_ambiguous_name(harness_on_ambiguous v);

/* 1 when any pair is REGRESSION or FAILED, or AMBIGUOUS with
 * --on-ambiguous fail (or pass-interference and a cause other than
 * interference); else 0. */
int harness_comparison_exit_code(const harness_comparison *c);
void harness_comparison_free(harness_comparison *c);

/* The reports are printed by the printers of compare/printer.h.
 * How the text report meets a terminal: colour on the verdicts, and the
 * pairs' table fitted to `width` columns (0: every column, full width). */
typedef struct harness_text_style {
    int color;
    int width;
} harness_text_style;

#endif
