/* verdict.c - a pair's verdict from its replicate statistics
 * (harness_compare_decide), the words for verdicts and their causes, and
 * how many replicates a design needs to be able to call a change. */
#include "compare/compare.h"
#include "compare/compare_internal.h"
#include "compare/rank_shift.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *harness_verdict_label(harness_verdict v)
{
    static const char *const names[] = {"SAME", "IMPROVEMENT", "REGRESSION", "AMBIGUOUS", "FAILED"};
    return v < HARNESS_VERDICT_COUNT ? names[v] : "?";
}

const char *harness_verdict_token(harness_verdict v)
{
    static const char *const names[] = {"same", "improvement", "regression", "ambiguous", "failed"};
    return v < HARNESS_VERDICT_COUNT ? names[v] : "?";
}

const char *harness_ambiguity_token(harness_ambiguity a)
{
    static const char *const names[] = {"", "no_replicates", "too_few_replicates", "unresolved", "interference",
                                        "single_runs", "processes_disagree"};
    return a < HARNESS_AMBIGUOUS_COUNT ? names[a] : "?";
}

const char *harness_ambiguity_label(harness_ambiguity a)
{
    static const char *const names[] = {"", "no replicates", "too few replicates", "unresolved", "interference",
                                        "single runs", "processes disagree"};
    return a < HARNESS_AMBIGUOUS_COUNT ? names[a] : "?";
}

size_t harness_runs_needed(double alpha, size_t pairs, double *min_p, double *coverage)
{
    double need = alpha / (double)(pairs ? pairs : 1);
    size_t k = 1;
    while (k < 64 && harness_rank_min_p(k, k) > need)
        k++;
    if (min_p)
        *min_p = harness_rank_min_p(k, k);
    if (coverage)
        *coverage = harness_rank_interval_coverage(k, k, alpha);
    return k;
}

size_t harness_ab_rounds_needed(double alpha, size_t benchmarks)
{
    /* Benjamini-Hochberg adjusts the least of m p-values to m p: a lone
     * change among m benchmarks needs p <= alpha / m, and the sign test's
     * least p over n rounds is 2 / 2^n (2 / 2^1075 is 0: the loop ends). */
    double need = alpha / (double)(benchmarks ? benchmarks : 1);
    size_t n = 1;
    while (n < 1100 && 2.0 / ldexp(1.0, (int)n) > need)
        n++;
    return n;
}

/* The scheduler tick of a 250 Hz kernel: a step longer than this on a
 * loaded machine loses whole ticks to a neighbour, and its median snaps. */
#define TICK_NS 4e6

/* Advice appended to an AMBIGUOUS why when the steps are long and the
 * machine was loaded: what would give the gate power. */
static void long_step_advice(harness_compare_stats *s)
{
    if (!(s->step_ns > TICK_NS) || !s->n_busy)
        return;
    size_t len = strlen(s->why);
    snprintf(s->why + len, sizeof s->why - len, "; steps of %.1f ms outlast the scheduler tick (4 ms) on a loaded "
             "machine, so neighbours cost whole ticks: more steps a window (harness run --time-budget), "
             "harness ab, or a quieter runner give power", s->step_ns / 1e6);
}

static void ambiguous(harness_compare_stats *s, harness_ambiguity cause)
{
    s->verdict = HARNESS_VERDICT_AMBIGUOUS;
    s->cause = cause;
}

/* Whether interference could account for a change whose interval clears
 * the threshold, writing why: the side that could have made the change
 * (the cand for a regression) had its interval end moved by as much as its
 * bound allows. */
static int vetoed(harness_compare_stats *s, const harness_compare_options *o, const harness_side_noise *base,
                  const harness_side_noise *cand)
{
    int slower = s->ratio > 1.0;
    const harness_side_noise *n = slower ? cand : base;
    if (!n || !(n->bound > 0))
        return 0;
    /* the side's undisturbed values are at least (1 - bound) of those measured */
    double end = slower ? s->ratio_lo * (1.0 - n->bound) : s->ratio_hi / (1.0 - n->bound);
    if (n->bound < 1 && (slower ? end > 1.0 + o->threshold : end < 1.0 - o->threshold))
        return 0;
    ambiguous(s, HARNESS_AMBIGUOUS_INTERFERENCE);
    snprintf(s->why, sizeof s->why, "interference could account for the %+.1f%% change: the interval's %s end "
             "%.3f is %.3f once the %s's interference is taken out (%.300s)", (s->ratio - 1.0) * 100.0,
             slower ? "lower" : "upper", slower ? s->ratio_lo : s->ratio_hi, end, slower ? "cand" : "base",
             n->evidence ? n->evidence : "no evidence given");
    return 1;
}

/* A side of single runs: its windows share the run's offset (placement,
 * clocks, a neighbour that stayed all along), so they bound the change
 * only when their interval lies within the threshold. */
static void single_runs(harness_compare_stats *s, const harness_compare_options *o)
{
    const char *who = strcmp(s->unit, "windows") == 0 ? "each side is one run"
                      : strcmp(s->unit, "runs/windows") == 0 ? "the cand is one run"
                                                             : "the base is one run";
    ambiguous(s, HARNESS_AMBIGUOUS_SINGLE_RUNS);
    snprintf(s->why, sizeof s->why, "%s: its windows share the run's offset, so they never decide a change, and "
             "their interval [%.3f, %.3f] reaches beyond 1 %s %g%%; give each side runs (harness run --runs 5) "
             "or use harness ab", who, s->ratio_lo, s->ratio_hi, s->ratio_hi > 1.0 + o->threshold ? "+" : "-",
             o->threshold * 100.0);
}

/* The pairs judged together with this one (1 when alone). */
static size_t pairs_of(const harness_compare_stats *s)
{
    return s->fdr_m > 1 ? s->fdr_m : 1;
}

/* "give each side N or more runs (harness run --runs N: ...)": the runs
 * a side that can call a lone change among the pairs judged together,
 * with the p they reach and their interval's coverage, so the advice is
 * the fix that works, computed as the verdict computes. */
static void runs_advice(char *buf, size_t cap, const harness_compare_stats *s, const harness_compare_options *o)
{
    size_t m = pairs_of(s);
    double p, coverage;
    size_t runs = harness_runs_needed(o->alpha, m, &p, &coverage);
    char among[64] = "";
    if (m > 1)
        snprintf(among, sizeof among, " <= alpha / %zu pairs", m);
    snprintf(buf, cap, "give each side %zu or more runs (harness run --runs %zu: p down to %.3g%s, a %.1f%% "
             "interval)", runs, runs, p, among, coverage * 100.0);
}

/* The design cannot reach alpha (min_p > alpha), so no change can be
 * called; nor SAME, since the interval is not within the threshold at the
 * coverage SAME needs (harness_compare_decide). */
static void too_few(harness_compare_stats *s, const harness_compare_options *o)
{
    ambiguous(s, HARNESS_AMBIGUOUS_TOO_FEW);
    if (strcmp(s->unit, "rounds") == 0) {
        /* rounds with no difference say nothing either way and are dropped */
        size_t rounds = harness_ab_rounds_needed(o->alpha, pairs_of(s));
        if (s->n_zero == 0)
            snprintf(s->why, sizeof s->why, "too few rounds: %zu paired rounds can reach p = %.3g at best, above "
                     "alpha %g; run %zu or more (--rounds %zu)", s->n_base, s->min_p, o->alpha, rounds, rounds);
        else
            snprintf(s->why, sizeof s->why, "too few rounds: %zu paired rounds, of which %zu with no difference "
                     "(dropped), can reach p = %.3g at best, above alpha %g; %zu rounds with a difference are "
                     "needed (--rounds %zu or more)", s->n_base, s->n_zero, s->min_p, o->alpha, rounds,
                     rounds + s->n_zero);
        return;
    }
    char advice[160], interval[160];
    runs_advice(advice, sizeof advice, s, o);
    double lo = 1.0 - o->threshold, hi = 1.0 + o->threshold;
    if (s->ratio_lo >= lo && s->ratio_hi <= hi)
        snprintf(interval, sizeof interval, "their interval [%.3f, %.3f] is within 1 +- %g%% but covers %.1f%%, "
                 "and SAME needs %g%% (1 - 2 alpha)", s->ratio_lo, s->ratio_hi, o->threshold * 100.0,
                 s->coverage * 100.0, (1.0 - 2.0 * o->alpha) * 100.0);
    else
        snprintf(interval, sizeof interval, "their %.1f%% interval [%.3f, %.3f] is not within 1 +- %g%% for SAME",
                 s->coverage * 100.0, s->ratio_lo, s->ratio_hi, o->threshold * 100.0);
    snprintf(s->why, sizeof s->why, "too few replicates: %zu base against %zu cand runs reach p = %.3g at best, "
             "above alpha %g: no change can be called; %.159s; %.159s", s->n_base, s->n_cand, s->min_p, o->alpha,
             interval, advice);
}

/* Several pairs judged together, whose replicates cannot reach the p a
 * lone change among them needs (alpha / m after Benjamini-Hochberg): a
 * change here could never be called, whatever the interval says. */
static void too_few_for_suite(harness_compare_stats *s, const harness_compare_options *o)
{
    int rounds = strcmp(s->unit, "rounds") == 0;
    ambiguous(s, HARNESS_AMBIGUOUS_TOO_FEW);
    char advice[160];
    if (rounds)
        snprintf(advice, sizeof advice, "give ab %zu rounds or more (--rounds, --time-budget) or fewer benchmarks "
                 "(--filter)", harness_ab_rounds_needed(o->alpha, s->fdr_m));
    else
        runs_advice(advice, sizeof advice, s, o);
    snprintf(s->why, sizeof s->why, "too few %s for %zu benchmarks judged together: a lone change needs "
             "p <= alpha / %zu = %.3g, and %zu %s reach p = %.3g at best; %s", rounds ? "rounds" : "replicates",
             s->fdr_m, s->fdr_m, o->alpha / (double)s->fdr_m, s->n_base, rounds ? "rounds" : "replicates",
             s->min_p, advice);
}

/* The interval clears the threshold but the adjusted test does not. */
static void not_significant(harness_compare_stats *s, const harness_compare_options *o)
{
    ambiguous(s, HARNESS_AMBIGUOUS_UNRESOLVED);
    snprintf(s->why, sizeof s->why, "the interval [%.3f, %.3f] clears the threshold but the change is not "
             "significant among %zu benchmarks (p %.3g, adjusted q %.3g > alpha %g); more %s settle it",
             s->ratio_lo, s->ratio_hi, s->fdr_m, s->p, s->q, o->alpha,
             strcmp(s->unit, "rounds") == 0 ? "rounds" : "runs");
}

/* The interval reaches across the threshold: interference that moved more
 * replicates than the interval's ends withstand, processes that disagree,
 * or a change too near the threshold for this many replicates. */
static void across(harness_compare_stats *s, const harness_compare_options *o)
{
    char interval[160];
    snprintf(interval, sizeof interval, "the ratio's %.1f%% interval [%.3f, %.3f] reaches across the threshold "
             "1 %s %g%%", s->coverage * 100.0, s->ratio_lo, s->ratio_hi,
             s->ratio_hi > 1.0 + o->threshold ? "+" : "-", o->threshold * 100.0);
    const char *unit = strcmp(s->unit, "rounds") == 0 ? "rounds" : "runs";
    if (s->n_busy && s->n_busy >= s->k_robust) {
        ambiguous(s, HARNESS_AMBIGUOUS_INTERFERENCE);
        snprintf(s->why, sizeof s->why, "%s, and %zu of %zu %s had interference that could move them by the "
                 "threshold (the interval's ends withstand %zu such %s)", interval, s->n_busy, s->n_base, unit,
                 s->k_robust - 1, unit);
    } else if (s->processes_disagree) {
        ambiguous(s, HARNESS_AMBIGUOUS_PROCESSES);
        snprintf(s->why, sizeof s->why, "%s, and the processes of a side disagree beyond their windows' spread "
                 "(a placement or start-up effect; see the note): more %s narrow it, pinning the benchmark's "
                 "threads removes it", interval, unit);
    } else {
        ambiguous(s, HARNESS_AMBIGUOUS_UNRESOLVED);
        snprintf(s->why, sizeof s->why, "%s: the change is near the threshold or the %s spread; more %s narrow "
                 "it", interval, unit, unit);
    }
    long_step_advice(s);
}

void harness_compare_decide(harness_compare_stats *s, const harness_compare_options *o,
                            const harness_side_noise *base, const harness_side_noise *cand)
{
    s->why[0] = '\0';
    s->verdict = HARNESS_VERDICT_SAME;
    s->cause = HARNESS_AMBIGUOUS_NONE;
    if (!s->unit)
        s->unit = "windows";
    double lo = 1.0 - o->threshold, hi = 1.0 + o->threshold;
    int within = s->ratio_lo >= lo && s->ratio_hi <= hi;
    if (s->n_base == 0 || s->n_cand == 0 || isnan(s->ratio)) {
        ambiguous(s, HARNESS_AMBIGUOUS_NO_REPLICATES);
        snprintf(s->why, sizeof s->why, "no replicates (%zu base, %zu cand %s)", s->n_base, s->n_cand, s->unit);
        return;
    }
    if (strstr(s->unit, "windows")) {
        if (!within)
            single_runs(s, o);
        return;
    }
    if (s->min_p > o->alpha) {
        /* No change can be called, but SAME can: an interval within the
         * threshold at a coverage of 1 - 2 alpha or more is the test of
         * equivalence at alpha (two one-sided tests), which 3 runs a side
         * pass at alpha 0.05 (90%) and 2 do not (66.7%). */
        if (!(within && s->coverage >= 1.0 - 2.0 * o->alpha - 1e-9))
            too_few(s, o);
        return;
    }
    int significant = (s->fdr_m > 1 ? s->q : s->p) <= o->alpha;
    int beyond = s->ratio_lo > hi || s->ratio_hi < lo;
    if (beyond && significant) {
        if (!vetoed(s, o, base, cand))
            s->verdict = s->ratio > 1.0 ? HARNESS_VERDICT_REGRESSION : HARNESS_VERDICT_IMPROVEMENT;
    } else if (within) {
        s->verdict = HARNESS_VERDICT_SAME;
    } else if (s->fdr_m > 1 && s->min_p * (double)s->fdr_m > o->alpha) {
        too_few_for_suite(s, o);
    } else if (beyond) {
        not_significant(s, o);
    } else {
        across(s, o);
    }
}

int harness_cmp_replicate_stats(const double *base, size_t nb, const double *cand, size_t nc,
                                const harness_compare_options *o, harness_compare_stats *s)
{
    harness_rank_shift rs;
    int rc = harness_rank_shift_compute(base, nb, cand, nc, o->alpha, &rs);
    if (rc != 0)
        return rc;
    s->n_base = nb;
    s->n_cand = nc;
    s->ratio = rs.ratio;
    s->ratio_lo = rs.ratio_lo;
    s->ratio_hi = rs.ratio_hi;
    s->coverage = rs.coverage;
    s->p = rs.p;
    s->min_p = rs.min_p;
    s->k_robust = 1;
    return 0;
}

int harness_compare_replicates(const double *base, size_t nb, const double *cand, size_t nc,
                               const harness_compare_options *o, harness_compare_stats *out)
{
    memset(out, 0, sizeof *out);
    out->base_median = out->base_lo = out->base_hi = NAN;
    out->cand_median = out->cand_lo = out->cand_hi = NAN;
    out->unit = "runs";            /* the caller vouches that the replicates are independent */
    int rc = harness_cmp_replicate_stats(base, nb, cand, nc, o, out);
    if (rc != 0)
        return rc;
    harness_compare_decide(out, o, NULL, NULL);
    return 0;
}
