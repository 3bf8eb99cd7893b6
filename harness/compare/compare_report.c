/* compare_report.c - the reports of `harness compare`: an aligned text table,
 * a markdown table for a pull-request comment, and JSON for tools. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"
#include "compare/folder_ranks.h"
#include "compare/metric.h"
#include "util/format.h"
#include "util/table_fit.h"
#include "util/term.h"
#include "util/json_utf8.h"
#include "util/json_number.h"

#define N_COLS 12
#define COL_VERDICT (N_COLS - 1)

/* "base median" and "cand median" name the metric compared */
static const char *const headers_[N_COLS] = {"variant", "config", "rank", "base median", "cand median", "ratio",
                                             "interval (coverage)", "change", "p90 ratio", "replicates", "p",
                                             "verdict"};

/* The table's headers for a comparison's metric (valid until the next call). */
static const char *const *headers_of(const harness_comparison *c)
{
    static char base[32], cand[32];
    static const char *h[N_COLS];
    memcpy(h, headers_, sizeof h);
    snprintf(base, sizeof base, "base %s", harness_metric_name(c->opts.metric));
    snprintf(cand, sizeof cand, "cand %s", harness_metric_name(c->opts.metric));
    h[3] = base;
    h[4] = cand;
    return h;
}

static const char *fmt_ratio(double r, char *buf, size_t cap)
{
    if (isnan(r))
        return "-";
    if (isinf(r))
        return "inf";
    snprintf(buf, cap, "%.3f", r);
    return buf;
}

/* "[0.981, 1.032] 96.8%": the interval with the coverage it really has. */
static const char *fmt_ci(double lo, double hi, double coverage, char *buf, size_t cap)
{
    char a[32], b[32];
    if (isnan(lo) || isnan(hi))
        return "-";
    snprintf(buf, cap, "[%s, %s] %.1f%%", fmt_ratio(lo, a, sizeof a), fmt_ratio(hi, b, sizeof b), coverage * 100.0);
    return buf;
}

static const char *fmt_change(double r, char *buf, size_t cap)
{
    if (isnan(r))
        return "-";
    if (isinf(r))
        return "+inf%";
    snprintf(buf, cap, "%+.1f%%", (r - 1.0) * 100.0);
    return buf;
}

static const char *fmt_p(double p, char *buf, size_t cap)
{
    if (isnan(p))
        return "-";
    snprintf(buf, cap, "%.3g", p);
    return buf;
}

/* The cells of one pair's row, in the order of `headers`. */
typedef struct row {
    char rank[32], base[32], cand[32], ratio[32], ci[96], change[32], tail[32], reps[64], p[32];
    const char *cell[N_COLS];
} row;

static void make_row(const harness_comparison *c, const harness_compare_pair *pr, row *r)
{
    const harness_compare_stats *s = &pr->s;
    harness_metric m = c->opts.metric;
    snprintf(r->rank, sizeof r->rank, "%d/%d", pr->base->rank, pr->base->world_size);
    r->cell[0] = pr->base->variant_key;
    r->cell[1] = pr->base->config_text;
    r->cell[2] = r->rank;
    r->cell[3] = harness_metric_format(m, s->base_median, r->base, sizeof r->base);
    r->cell[4] = harness_metric_format(m, s->cand_median, r->cand, sizeof r->cand);
    r->cell[5] = fmt_ratio(s->ratio, r->ratio, sizeof r->ratio);
    r->cell[6] = fmt_ci(s->ratio_lo, s->ratio_hi, s->coverage, r->ci, sizeof r->ci);
    r->cell[7] = fmt_change(s->ratio, r->change, sizeof r->change);
    r->cell[8] = fmt_ratio(pr->tail.s.ratio, r->tail, sizeof r->tail);
    snprintf(r->reps, sizeof r->reps, "%zu/%zu %s", s->n_base, s->n_cand, s->unit ? s->unit : "windows");
    r->cell[9] = r->reps;
    r->cell[10] = fmt_p(s->p, r->p, sizeof r->p);
    r->cell[COL_VERDICT] = harness_verdict_label(s->verdict);
}

static const char *plural(size_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* "FOLDER: rank 0/2" or, when the folder does not say its job's size, "FOLDER". */
static const char *incomplete_where(const harness_incomplete_run *r, char *buf, size_t cap)
{
    if (r->world_size > 0)
        snprintf(buf, cap, "%s: rank %d/%d", r->folder, r->rank, r->world_size);
    else
        snprintf(buf, cap, "%s", r->folder);
    return buf;
}

/* "1 regression, 0 improvements, 2 same, 1 ambiguous, 1 failed, 1 unmatched" */
static void counts_line(FILE *f, const harness_comparison *c)
{
    const size_t *k = c->counts;
    size_t unmatched = c->n_unmatched_base + c->n_unmatched_cand;
    fprintf(f, "%zu %s, %zu %s, %zu same", k[HARNESS_VERDICT_REGRESSION],
            plural(k[HARNESS_VERDICT_REGRESSION], "regression", "regressions"), k[HARNESS_VERDICT_IMPROVEMENT],
            plural(k[HARNESS_VERDICT_IMPROVEMENT], "improvement", "improvements"), k[HARNESS_VERDICT_SAME]);
    if (k[HARNESS_VERDICT_AMBIGUOUS])
        fprintf(f, ", %zu ambiguous", k[HARNESS_VERDICT_AMBIGUOUS]);
    if (k[HARNESS_VERDICT_FAILED])
        fprintf(f, ", %zu failed", k[HARNESS_VERDICT_FAILED]);
    if (unmatched)
        fprintf(f, ", %zu unmatched", unmatched);
}

/* " (interference)" or " (2 unresolved, 1 interference)": the causes of
 * the AMBIGUOUS pairs, for the headline of an AMBIGUOUS comparison. */
static void causes_of(FILE *f, const harness_comparison *c)
{
    if (c->overall != HARNESS_VERDICT_AMBIGUOUS)
        return;
    size_t n[HARNESS_AMBIGUOUS_COUNT] = {0}, kinds = 0;
    for (size_t i = 0; i < c->n_pairs; i++)
        if (c->pairs[i].s.verdict == HARNESS_VERDICT_AMBIGUOUS)
            kinds += n[c->pairs[i].s.cause]++ == 0;
    const char *sep = " (";
    for (int a = 1; a < HARNESS_AMBIGUOUS_COUNT; a++) {
        if (!n[a])
            continue;
        if (kinds > 1)
            fprintf(f, "%s%zu %s", sep, n[a], harness_ambiguity_label((harness_ambiguity)a));
        else
            fprintf(f, "%s%s", sep, harness_ambiguity_label((harness_ambiguity)a));
        sep = ", ";
    }
    if (kinds)
        fputc(')', f);
}

static void params_line(FILE *f, const harness_comparison *c)
{
    fprintf(f, "metric %s, threshold %g%%, alpha %g, ambiguous %s", harness_metric_name(c->opts.metric),
            c->opts.threshold * 100.0, c->opts.alpha,
            c->opts.on_ambiguous == HARNESS_ON_AMBIGUOUS_FAIL   ? "fails"
            : c->opts.on_ambiguous == HARNESS_ON_AMBIGUOUS_PASS ? "passes"
                                                                : "passes only on interference");
}

/* "the p90 moved +30.2% [1.251, 1.334] (REGRESSION by the p90) while the median did not" */
static void tail_text(char *buf, size_t cap, const harness_comparison *c, const harness_compare_pair *p)
{
    const harness_compare_stats *t = &p->tail.s;
    snprintf(buf, cap, "the p90 moved %+.1f%% [%.3f, %.3f] (%s by the p90) while the %s did not; gate on the tail "
             "with --metric p90", (t->ratio - 1.0) * 100.0, t->ratio_lo, t->ratio_hi, harness_verdict_label(t->verdict),
             harness_metric_name(c->opts.metric));
}

static const char *root_of(const harness_compare_side *s)
{
    return s->root ? s->root : "-";
}

static const char *side_kind(const harness_compare_side *s)
{
    return s->is_database ? "results database" : s->is_parent ? "folder of experiments" : "experiment folder";
}

static const char ab_method_text[] =
    "replicates: interleaved A/B rounds, base and cand back to back in each (the order alternating), each a "
    "fresh process, so the interval is over processes; ratio: median of the paired ratios cand_i / base_i "
    "(with an even count of rounds, the geometric mean of the middle two); interval: sign test (binomial "
    "order statistics of the paired ratios), with its exact coverage; p: two-sided exact sign test on the "
    "rounds (a wild round counts as one; the Wilcoxon signed-rank p, for reference, is the JSON's "
    "signed_rank_p); verdict: a change when the interval clears the threshold and p (q in a suite) <= alpha";

static const char method_text_[] =
    "replicates: the runs when a side holds several of one key (processes), else the windows of its one run "
    "(which share its offset: they bound a change, never call one, and get no p); never per-step samples. "
    "ratio: Hodges-Lehmann estimate of cand / base (median of the pairwise ratios of replicate values); "
    "interval: Moses, with its exact coverage; p: two-sided exact Wilcoxon-Mann-Whitney rank-sum test on the "
    "runs; verdict: a change when the interval clears the threshold and p (q with several pairs) <= alpha";

/* The method of a comparison: A/B rounds or replicates of runs. */
static const char *method_of(const harness_comparison *c)
{
    return c->n_pairs && c->pairs[0].s.unit && strcmp(c->pairs[0].s.unit, "rounds") == 0 ? ab_method_text
                                                                                            : method_text_;
}

/* ---- the rounds of an A/B run ------------------------------------------------- */

#define N_ROUND_COLS 6

static const char *const round_headers_[N_ROUND_COLS] = {"round", "first", "base median", "cand median",
                                                         "cand/base", "state"};

/* The rounds' headers for a comparison's metric (valid until the next call). */
static const char *const *round_headers_of(const harness_comparison *c)
{
    static const char *h[N_ROUND_COLS];
    const char *const *pairs = headers_of(c);
    memcpy(h, round_headers_, sizeof h);
    h[2] = pairs[3];
    h[3] = pairs[4];
    return h;
}

/* "ok", "busy (cand)", "FAILED (base)", "FAILED (base, cand), busy (base)": what
 * to make of the round, failures first. */
static const char *round_state(const harness_ab_round *r, char *buf, size_t cap)
{
    static const char *const which[4] = {"", "base", "cand", "base, cand"};
    int failed = r->base_failed | r->cand_failed << 1, busy = r->base_busy | r->cand_busy << 1;
    if (!failed && !busy)
        return "ok";
    if (failed && busy)
        snprintf(buf, cap, "FAILED (%s), busy (%s)", which[failed], which[busy]);
    else
        snprintf(buf, cap, "%s (%s)", failed ? "FAILED" : "busy", which[failed ? failed : busy]);
    return buf;
}

/* The cells of round i, in the order of round_headers. */
typedef struct round_row {
    char round[24], base[32], cand[32], ratio[32], state[64];
    const char *cell[N_ROUND_COLS];
} round_row;

/* A suite's rounds say their benchmark too: "2/3" is benchmark 2's round 3. */
static void make_round_row(const harness_comparison *c, const harness_ab_round *r, round_row *out)
{
    if (c->n_pairs > 1)
        snprintf(out->round, sizeof out->round, "%zu/%zu", r->benchmark + 1, r->round + 1);
    else
        snprintf(out->round, sizeof out->round, "%zu", r->round + 1);
    out->cell[0] = out->round;
    out->cell[1] = r->base_first ? "base" : "cand";
    out->cell[2] = harness_metric_format(c->opts.metric, r->base_value, out->base, sizeof out->base);
    out->cell[3] = harness_metric_format(c->opts.metric, r->cand_value, out->cand, sizeof out->cand);
    out->cell[4] = fmt_ratio(r->ratio, out->ratio, sizeof out->ratio);
    out->cell[5] = round_state(r, out->state, sizeof out->state);
}

/* Every round, aligned like the pairs' table (about 60 columns). */
static void rounds_text(FILE *f, const harness_comparison *c)
{
    if (!c->n_rounds)
        return;
    const char *const *round_headers = round_headers_of(c);
    size_t width[N_ROUND_COLS];
    for (int j = 0; j < N_ROUND_COLS; j++)
        width[j] = strlen(j == 0 && c->n_pairs > 1 ? "bench/round" : round_headers[j]);
    for (size_t i = 0; i < c->n_rounds; i++) {
        round_row r;
        make_round_row(c, &c->rounds[i], &r);
        for (int j = 0; j < N_ROUND_COLS; j++)
            if (strlen(r.cell[j]) > width[j])
                width[j] = strlen(r.cell[j]);
    }
    fprintf(f, "\nrounds (first: the side that ran first; cand/base: the ratio of the round's %ss):\n",
            harness_metric_name(c->opts.metric));
    for (size_t i = 0; i <= c->n_rounds; i++) {   /* the header, then the rounds */
        round_row r;
        if (i)
            make_round_row(c, &c->rounds[i - 1], &r);
        for (int j = 0; j < N_ROUND_COLS; j++) {   /* words left, numbers right, state last */
            const char *cell = i ? r.cell[j] : j == 0 && c->n_pairs > 1 ? "bench/round" : round_headers[j];
            if (j == N_ROUND_COLS - 1)
                fprintf(f, "%s\n", cell);
            else
                fprintf(f, j == 1 ? "%-*s  " : "%*s  ", (int)width[j], cell);
        }
    }
}

/* ---- text --------------------------------------------------------------------- */

/* The SGR colour of a verdict's word, or NULL for none. */
static const char *verdict_color(harness_verdict v)
{
    switch (v) {
    case HARNESS_VERDICT_REGRESSION: return HARNESS_SGR_RED;
    case HARNESS_VERDICT_IMPROVEMENT: return HARNESS_SGR_GREEN;
    case HARNESS_VERDICT_AMBIGUOUS: return HARNESS_SGR_YELLOW;
    case HARNESS_VERDICT_FAILED: return HARNESS_SGR_BOLD_RED;
    default: return NULL;
    }
}

/* `word` in v's colour when the style has colour. */
static void put_verdict(FILE *f, const harness_text_style *st, harness_verdict v, const char *word)
{
    const char *sgr = st->color ? verdict_color(v) : NULL;
    fprintf(f, "%s%s%s", sgr ? sgr : "", word, sgr ? HARNESS_SGR_RESET : "");
}

/* One line of the table: the columns shown, cut to their widths. */
static void table_line(FILE *f, const char *const *cell, const harness_table_fit *t, const harness_text_style *st,
                       harness_verdict v)
{
    int first = 1;
    for (int j = 0; j < N_COLS; j++) {
        if (!t->shown[j])
            continue;
        char cut[512];
        const char *text = harness_table_cut(cell[j], t->width[j], cut, sizeof cut);
        fputs(first ? "" : "  ", f);
        first = 0;
        if (j == COL_VERDICT)      /* last and unpadded: its colour cannot shift a column */
            put_verdict(f, st, v, text);
        else
            fprintf(f, j < 2 ? "%-*s" : "%*s", (int)t->width[j], text);
    }
    fputc('\n', f);
}

/* The pairs' table, aligned; on a narrow terminal the config is cut and
 * the columns a verdict already sums up are dropped (--wide keeps them). */
static void pairs_text(FILE *f, const harness_comparison *c, const harness_text_style *st)
{
    size_t width[N_COLS];
    unsigned char shown[N_COLS];
    const char *const *headers = headers_of(c);
    for (int j = 0; j < N_COLS; j++)
        width[j] = strlen(headers[j]);
    for (size_t i = 0; i < c->n_pairs; i++) {
        row r;
        make_row(c, &c->pairs[i], &r);
        for (int j = 0; j < N_COLS; j++)
            if (strlen(r.cell[j]) > width[j])
                width[j] = strlen(r.cell[j]);
    }
    /* replicates, p, rank, the interval, then the medians, then the tail: the
     * ratio, the change and the verdict stay. */
    static const int drop[] = {9, 10, 2, 6, 3, 4, 8, 5};
    harness_table_fit t = {N_COLS, width, shown, 1, 16, drop, (int)(sizeof drop / sizeof drop[0]), 2};
    if (width[COL_VERDICT] < strlen("IMPROVEMENT"))
        width[COL_VERDICT] = strlen("IMPROVEMENT");   /* the widest word, whatever the rows say */
    harness_table_fit_to(&t, st->width);
    table_line(f, headers, &t, &(harness_text_style){0, 0}, HARNESS_VERDICT_SAME);
    for (size_t i = 0; i < c->n_pairs; i++) {
        row r;
        make_row(c, &c->pairs[i], &r);
        table_line(f, r.cell, &t, st, c->pairs[i].s.verdict);
    }
}

/* hyperfine's two-sided summary, for a single pair: "cand ran 1.05 ± 0.01
 * times faster than base", the ± half the interval's width as a factor. */
static void faster_line(FILE *f, const harness_comparison *c)
{
    if (c->n_pairs != 1)
        return;
    const harness_compare_stats *s = &c->pairs[0].s;
    if (s->verdict == HARNESS_VERDICT_FAILED || !(s->ratio > 0) || isinf(s->ratio) || !(s->ratio_lo > 0) ||
        !(s->ratio_hi > 0) || isinf(s->ratio_hi))
        return;
    int cand_faster = s->ratio <= 1.0;
    double factor = cand_faster ? 1.0 / s->ratio : s->ratio;
    double spread = cand_faster ? (1.0 / s->ratio_lo - 1.0 / s->ratio_hi) / 2 : (s->ratio_hi - s->ratio_lo) / 2;
    if (!harness_metric_is_time(c->opts.metric))
        fprintf(f, "\n%s used %.2f \xc2\xb1 %.2f times less energy per step than %s\n", cand_faster ? "cand" : "base",
                factor, spread, cand_faster ? "base" : "cand");
    else
        fprintf(f, "\n%s ran %.2f \xc2\xb1 %.2f times faster than %s\n", cand_faster ? "cand" : "base", factor,
                spread, cand_faster ? "base" : "cand");
}

static void text_report(FILE *f, const harness_comparison *c, const harness_text_style *st)
{
    for (int side = 0; side < 2; side++) {
        const harness_compare_side *sd = side ? &c->cand : &c->base;
        fprintf(f, "%s: %s (%s, %zu %s", side ? "cand" : "base", root_of(sd), side_kind(sd), sd->n_runs,
                plural(sd->n_runs, "run", "runs"));
        if (sd->n_incomplete)
            fprintf(f, ", %zu incomplete", sd->n_incomplete);
        fputs(side ? ")\n\n" : ")\n", f);
    }

    pairs_text(f, c, st);
    faster_line(f, c);
    rounds_text(f, c);

    int gap = 0;
    for (size_t i = 0; i < c->n_pairs; i++) {
        const harness_compare_pair *p = &c->pairs[i];
        if (p->s.verdict != HARNESS_VERDICT_FAILED)
            continue;
        fputs(gap++ ? "" : "\n", f);
        put_verdict(f, st, HARNESS_VERDICT_FAILED, "FAILED");
        fprintf(f, ": %s {%s} rank %d/%d: %s\n", p->base->variant_key,
                p->base->config_text, p->base->rank, p->base->world_size, p->reason);
    }
    for (size_t i = 0; i < c->n_pairs; i++) {
        const harness_compare_pair *p = &c->pairs[i];
        if (p->s.verdict != HARNESS_VERDICT_AMBIGUOUS)
            continue;
        fputs(gap++ ? "" : "\n", f);
        put_verdict(f, st, HARNESS_VERDICT_AMBIGUOUS, "AMBIGUOUS");
        fprintf(f, " (%s): %s {%s} rank %d/%d: %s\n", harness_ambiguity_label(p->s.cause), p->base->variant_key,
                p->base->config_text, p->base->rank, p->base->world_size, p->s.why);
    }
    for (size_t i = 0; i < c->n_pairs; i++) {
        const harness_compare_pair *p = &c->pairs[i];
        char tail[256];
        if (!p->tail.moved_alone)
            continue;
        tail_text(tail, sizeof tail, c, p);
        fprintf(f, "%sTAIL: %s {%s} rank %d/%d: %s\n", gap++ ? "" : "\n", p->base->variant_key,
                p->base->config_text, p->base->rank, p->base->world_size, tail);
    }
    for (size_t i = 0; i < c->n_notes; i++)
        fprintf(f, "%snote: %s\n", gap++ ? "" : "\n", c->notes[i]);
    for (int side = 0; side < 2; side++) {
        const harness_run_summary *const *u = side ? c->unmatched_cand : c->unmatched_base;
        size_t n = side ? c->n_unmatched_cand : c->n_unmatched_base;
        for (size_t i = 0; i < n; i++)
            fprintf(f, "%sunmatched (%s only): %s {%s} rank %d/%d: %s\n", gap++ ? "" : "\n",
                    side ? "cand" : "base", u[i]->variant_key, u[i]->config_text, u[i]->rank, u[i]->world_size,
                    u[i]->path);
    }
    for (int side = 0; side < 2; side++) {
        const harness_compare_side *sd = side ? &c->cand : &c->base;
        for (size_t i = 0; i < sd->n_incomplete; i++) {
            const harness_incomplete_run *r = &sd->incomplete[i];
            char where[4200];
            fprintf(f, "%sFAILED (%s): %s: no summary, status %s: %s%s%s%s%s%s\n", gap++ ? "" : "\n",
                    side ? "cand" : "base", incomplete_where(r, where, sizeof where), r->status,
                    harness_rank_files_why(r->status), r->error ? " (" : "", r->error ? r->error : "",
                    r->error ? ")" : "", r->variant_key ? "; variant " : "", r->variant_key ? r->variant_key : "");
        }
    }

    fputs("\nverdict: ", f);
    put_verdict(f, st, c->overall, harness_verdict_label(c->overall));
    causes_of(f, c);
    fputs(": ", f);
    counts_line(f, c);
    fputs(" (", f);
    params_line(f, c);
    fprintf(f, ")\n%s\n", method_of(c));
}

/* ---- markdown ----------------------------------------------------------------- */

/* Text in a table cell or a list: markdown's specials escaped, one line. */
static void md_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '\n' || *s == '\r' || *s == '\t')
            fputc(' ', f);
        else if (strchr("\\`*_[]<>|#~", *s))
            fprintf(f, "\\%c", *s);
        else
            fputc(*s, f);
    }
}

/* A code span: only '|' (which ends a table cell even there) and '`' need care. */
static void md_code(FILE *f, const char *s)
{
    fputc('`', f);
    for (; *s; s++) {
        if (*s == '\n' || *s == '\r' || *s == '\t')
            fputc(' ', f);
        else if (*s == '|')
            fputs("\\|", f);
        else if (*s == '`')
            fputc('\'', f);
        else
            fputc(*s, f);
    }
    fputc('`', f);
}

static void md_run(FILE *f, const harness_run_summary *r)
{
    md_code(f, r->variant_key);
    fputs(" ", f);
    md_code(f, r->config_text);
    fprintf(f, " rank %d/%d", r->rank, r->world_size);
}

/* The pairs' table. */
static void pairs_markdown(FILE *f, const harness_comparison *c)
{
    const char *m = harness_metric_name(c->opts.metric);
    fprintf(f, "| verdict | variant | config | rank | base %s | cand %s | ratio | interval (coverage) | change "
            "| p90 ratio | replicates | p |\n"
            "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n", m, m);
    for (size_t i = 0; i < c->n_pairs; i++) {
        row r;
        make_row(c, &c->pairs[i], &r);
        harness_verdict v = c->pairs[i].s.verdict;
        fprintf(f, v == HARNESS_VERDICT_SAME ? "| %s | " : "| **%s** | ", r.cell[COL_VERDICT]);
        md_code(f, r.cell[0]);
        fputs(" | ", f);
        md_code(f, r.cell[1]);
        for (int j = 2; j < COL_VERDICT; j++) {
            fputs(" | ", f);
            md_text(f, r.cell[j]);
        }
        fputs(" |\n", f);
    }
}

/* Every round, folded (a pull-request comment leads with the verdict). */
static void rounds_markdown(FILE *f, const harness_comparison *c)
{
    if (!c->n_rounds)
        return;
    const char *m = harness_metric_name(c->opts.metric);
    fprintf(f, "\n<details><summary>%zu rounds (first: the side that ran first; cand/base: the ratio of the "
            "round's %ss)</summary>\n\n| %s | first | base %s | cand %s | cand/base | state |\n"
            "| ---: | --- | ---: | ---: | ---: | --- |\n", c->n_rounds, m, c->n_pairs > 1 ? "bench/round" : "round",
            m, m);
    for (size_t i = 0; i < c->n_rounds; i++) {
        round_row r;
        make_round_row(c, &c->rounds[i], &r);
        for (int j = 0; j < N_ROUND_COLS; j++) {
            fputs(j ? " | " : "| ", f);
            md_text(f, r.cell[j]);
        }
        fputs(" |\n", f);
    }
    fputs("\n</details>\n", f);
}

static void markdown_report(FILE *f, const harness_comparison *c)
{
    fprintf(f, "**harness %s: %s", c->n_rounds ? "ab" : "compare", harness_verdict_label(c->overall));
    causes_of(f, c);
    fputs("**: ", f);
    counts_line(f, c);
    fputs(" (", f);
    params_line(f, c);
    fputs(")\n\n", f);

    pairs_markdown(f, c);
    rounds_markdown(f, c);

    int gap = 0;
    for (size_t i = 0; i < c->n_pairs; i++) {
        const harness_compare_pair *p = &c->pairs[i];
        if (p->s.verdict != HARNESS_VERDICT_FAILED)
            continue;
        fputs(gap++ ? "- **FAILED** " : "\n- **FAILED** ", f);
        md_run(f, p->base);
        fputs(": ", f);
        md_text(f, p->reason);
        fputc('\n', f);
    }
    for (size_t i = 0; i < c->n_pairs; i++) {
        const harness_compare_pair *p = &c->pairs[i];
        if (p->s.verdict != HARNESS_VERDICT_AMBIGUOUS)
            continue;
        fprintf(f, "%s- **AMBIGUOUS** (%s) ", gap++ ? "" : "\n", harness_ambiguity_label(p->s.cause));
        md_run(f, p->base);
        fputs(": ", f);
        md_text(f, p->s.why);
        fputc('\n', f);
    }
    for (size_t i = 0; i < c->n_pairs; i++) {
        const harness_compare_pair *p = &c->pairs[i];
        char tail[256];
        if (!p->tail.moved_alone)
            continue;
        tail_text(tail, sizeof tail, c, p);
        fputs(gap++ ? "- **TAIL** " : "\n- **TAIL** ", f);
        md_run(f, p->base);
        fputs(": ", f);
        md_text(f, tail);
        fputc('\n', f);
    }
    for (int side = 0; side < 2; side++) {
        const harness_run_summary *const *u = side ? c->unmatched_cand : c->unmatched_base;
        size_t n = side ? c->n_unmatched_cand : c->n_unmatched_base;
        for (size_t i = 0; i < n; i++) {
            fprintf(f, "%s- unmatched (%s only): ", gap++ ? "" : "\n", side ? "cand" : "base");
            md_run(f, u[i]);
            fputc('\n', f);
        }
    }
    for (int side = 0; side < 2; side++) {
        const harness_compare_side *sd = side ? &c->cand : &c->base;
        for (size_t i = 0; i < sd->n_incomplete; i++) {
            const harness_incomplete_run *r = &sd->incomplete[i];
            char where[4200];
            fprintf(f, "%s- **FAILED** (%s): ", gap++ ? "" : "\n", side ? "cand" : "base");
            md_text(f, incomplete_where(r, where, sizeof where));
            fputs(": no summary, status ", f);
            md_text(f, r->status);
            fprintf(f, ": %s", harness_rank_files_why(r->status));
            if (r->error) {
                fputs(" (", f);
                md_text(f, r->error);
                fputc(')', f);
            }
            fputc('\n', f);
        }
    }
    for (size_t i = 0; i < c->n_notes; i++) {
        fputs(gap++ ? "- note: " : "\n- note: ", f);
        md_text(f, c->notes[i]);
        fputc('\n', f);
    }
    fputs("\n<sub>base ", f);
    md_code(f, root_of(&c->base));
    fputs(", cand ", f);
    md_code(f, root_of(&c->cand));
    fputs(". ", f);
    md_text(f, method_of(c));
    fputs(".</sub>\n", f);
}

/* ---- JSON --------------------------------------------------------------------- */

static void add_pair_array(cJSON *o, const char *key, double lo, double hi)
{
    if (isnan(lo) && isnan(hi)) {          /* no samples */
        cJSON_AddNullToObject(o, key);
    } else if (isfinite(lo) && isfinite(hi)) {
        double v[2] = {lo, hi};
        cJSON_AddItemToObject(o, key, cJSON_CreateDoubleArray(v, 2));
    } else {
        cJSON *a = cJSON_AddArrayToObject(o, key);
        cJSON_AddItemToArray(a, isfinite(lo) ? cJSON_CreateNumber(lo) : cJSON_CreateNull());
        cJSON_AddItemToArray(a, isfinite(hi) ? cJSON_CreateNumber(hi) : cJSON_CreateNull());
    }
}

static cJSON *run_json(const harness_run_summary *r, double median, double lo, double hi)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "path", r->path);
    cJSON_AddStringToObject(o, "folder", r->folder);
    cJSON_AddStringToObject(o, "status", r->status);
    if (r->error)
        cJSON_AddStringToObject(o, "error", r->error);
    else
        cJSON_AddNullToObject(o, "error");
    cJSON_AddBoolToObject(o, "validation_failed", r->validation_failed);
    cJSON_AddNumberToObject(o, "n", (double)r->n_samples);
    harness_json_add_num(o, "median", median);
    add_pair_array(o, "ci95_median", lo, hi);
    return o;
}

/* A side's run with its time median and CI (ns), whatever the metric. */
static cJSON *run_time_json(const harness_run_summary *r)
{
    int has = r->n_samples > 0;
    return run_json(r, has ? r->stats.median : NAN, has ? r->stats.ci95_lo : NAN, has ? r->stats.ci95_hi : NAN);
}

/* The metric's values when not the median: base_value_ns and
 * cand_value_ns, or for energy base_value_j and cand_value_j (joules per
 * step). */
static void add_values(cJSON *o, harness_metric m, double base, double cand)
{
    if (m == HARNESS_METRIC_MEDIAN)
        return;
    int time = harness_metric_is_time(m);
    harness_json_add_num(o, time ? "base_value_ns" : "base_value_j", base);
    harness_json_add_num(o, time ? "cand_value_ns" : "cand_value_j", cand);
}

static cJSON *key_json(const harness_run_summary *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "variant_key", r->variant_key);
    cJSON_AddItemToObject(o, "config", cJSON_Duplicate(r->config, 1));
    cJSON_AddNumberToObject(o, "rank", r->rank);
    cJSON_AddNumberToObject(o, "world_size", r->world_size);
    return o;
}

/* One pair's object of the "pairs" array. */
static cJSON *pair_json(const harness_comparison *c, const harness_compare_pair *p)
{
    const harness_compare_stats *s = &p->s;
    cJSON *o = key_json(p->base);
    if (c->by_rank) {   /* paired by rank alone: the candidate's own key */
        cJSON_AddStringToObject(o, "cand_variant_key", p->cand->variant_key);
        cJSON_AddItemToObject(o, "cand_config", cJSON_Duplicate(p->cand->config, 1));
    }
    if (harness_metric_is_time(c->opts.metric)) {
        cJSON_AddItemToObject(o, "base", run_json(p->base, s->base_median, s->base_lo, s->base_hi));
        cJSON_AddItemToObject(o, "cand", run_json(p->cand, s->cand_median, s->cand_lo, s->cand_hi));
    } else {                       /* energy: base.median stays the time's, in ns, as readers expect */
        cJSON_AddItemToObject(o, "base", run_time_json(p->base));
        cJSON_AddItemToObject(o, "cand", run_time_json(p->cand));
    }
    harness_json_add_num(o, "ratio", s->ratio);
    add_pair_array(o, "ratio_interval", s->ratio_lo, s->ratio_hi);
    harness_json_add_num(o, "ratio_interval_coverage", s->coverage);
    harness_json_add_num(o, "change_pct", (s->ratio - 1.0) * 100.0);
    cJSON *reps = cJSON_AddObjectToObject(o, "replicates");
    cJSON_AddStringToObject(reps, "unit", s->unit ? s->unit : "windows");
    cJSON_AddNumberToObject(reps, "base", (double)s->n_base);
    cJSON_AddNumberToObject(reps, "cand", (double)s->n_cand);
    harness_json_add_num(o, "p", s->p);
    if (c->n_rounds)               /* harness ab only: compare's report stays as it was */
        harness_json_add_num(o, "signed_rank_p", s->signed_rank_p);
    harness_json_add_num(o, "min_p", s->min_p);
    /* the p the verdict used when several pairs were judged together */
    harness_json_add_num(o, "q_fdr", s->fdr_m > 1 ? s->q : NAN);
    cJSON_AddStringToObject(o, "verdict", harness_verdict_token(s->verdict));
    if (s->verdict == HARNESS_VERDICT_AMBIGUOUS)
        cJSON_AddStringToObject(o, "ambiguous_cause", harness_ambiguity_token(s->cause));
    else
        cJSON_AddNullToObject(o, "ambiguous_cause");
    cJSON_AddNumberToObject(o, "busy_replicates", (double)s->n_busy);
    cJSON_AddBoolToObject(o, "processes_disagree", s->processes_disagree);
    add_values(o, c->opts.metric, s->base_median, s->cand_median);
    cJSON *tail = cJSON_AddObjectToObject(o, "tail");
    cJSON_AddStringToObject(tail, "metric", "p90");
    harness_json_add_num(tail, "ratio", p->tail.s.ratio);
    add_pair_array(tail, "ratio_interval", p->tail.s.ratio_lo, p->tail.s.ratio_hi);
    harness_json_add_num(tail, "p", p->tail.s.p);
    cJSON_AddStringToObject(tail, "verdict", harness_verdict_token(p->tail.s.verdict));
    cJSON_AddBoolToObject(tail, "moved_alone", p->tail.moved_alone);
    if (s->why[0])
        cJSON_AddStringToObject(o, "why", s->why);
    if (p->reason[0])
        cJSON_AddStringToObject(o, "reason", p->reason);
    return o;
}

/* An A/B run's "rounds": one object a round, medians in ns. */
static cJSON *rounds_json(const harness_comparison *c)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < c->n_rounds; i++) {
        const harness_ab_round *r = &c->rounds[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "benchmark", (double)(r->benchmark + 1));   /* its pair, from 1 */
        cJSON_AddNumberToObject(o, "round", (double)(r->round + 1));
        cJSON_AddStringToObject(o, "first", r->base_first ? "base" : "cand");
        harness_json_add_num(o, "base_median_ns", r->base_median);
        harness_json_add_num(o, "cand_median_ns", r->cand_median);
        add_values(o, c->opts.metric, r->base_value, r->cand_value);
        harness_json_add_num(o, "ratio", r->ratio);
        cJSON_AddStringToObject(o, "base_status", r->base->status);
        cJSON_AddStringToObject(o, "cand_status", r->cand->status);
        cJSON_AddBoolToObject(o, "failed", r->base_failed || r->cand_failed);
        cJSON_AddBoolToObject(o, "busy", r->base_busy || r->cand_busy);
        cJSON_AddStringToObject(o, "base_folder", r->base->folder);
        cJSON_AddStringToObject(o, "cand_folder", r->cand->folder);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static char *json_report(const harness_comparison *c)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", HARNESS_COMPARE_SCHEMA);
    cJSON_AddStringToObject(root, "base", root_of(&c->base));
    cJSON_AddStringToObject(root, "cand", root_of(&c->cand));
    cJSON_AddNumberToObject(root, "threshold_pct", c->opts.threshold * 100.0);   /* percent, as on the CLI */
    cJSON_AddNumberToObject(root, "alpha", c->opts.alpha);
    cJSON_AddStringToObject(root, "on_ambiguous", harness_on_ambiguous_name(c->opts.on_ambiguous));
    cJSON_AddStringToObject(root, "metric", harness_metric_name(c->opts.metric));
    cJSON_AddStringToObject(root, "matched_by", c->by_rank ? "rank" : "variant_key,config,rank,world_size");
    cJSON_AddStringToObject(root, "verdict", harness_verdict_token(c->overall));
    cJSON_AddNumberToObject(root, "exit_code", harness_comparison_exit_code(c));
    cJSON *counts = cJSON_AddObjectToObject(root, "counts");
    for (int v = 0; v < HARNESS_VERDICT_COUNT; v++)
        cJSON_AddNumberToObject(counts, harness_verdict_token((harness_verdict)v), (double)c->counts[v]);
    cJSON_AddNumberToObject(counts, "unmatched_base", (double)c->n_unmatched_base);
    cJSON_AddNumberToObject(counts, "unmatched_cand", (double)c->n_unmatched_cand);

    cJSON *pairs = cJSON_AddArrayToObject(root, "pairs");
    for (size_t i = 0; i < c->n_pairs; i++)
        cJSON_AddItemToArray(pairs, pair_json(c, &c->pairs[i]));
    if (c->n_rounds)
        cJSON_AddItemToObject(root, "rounds", rounds_json(c));
    cJSON *unmatched = cJSON_AddArrayToObject(root, "unmatched");
    for (int side = 0; side < 2; side++) {
        const harness_run_summary *const *u = side ? c->unmatched_cand : c->unmatched_base;
        size_t n = side ? c->n_unmatched_cand : c->n_unmatched_base;
        for (size_t i = 0; i < n; i++) {
            cJSON *o = key_json(u[i]);
            cJSON_AddStringToObject(o, "side", side ? "cand" : "base");
            cJSON_AddStringToObject(o, "path", u[i]->path);
            cJSON_AddItemToArray(unmatched, o);
        }
    }
    cJSON *incomplete = cJSON_AddArrayToObject(root, "incomplete");
    for (int side = 0; side < 2; side++) {
        const harness_compare_side *sd = side ? &c->cand : &c->base;
        for (size_t i = 0; i < sd->n_incomplete; i++) {
            const harness_incomplete_run *r = &sd->incomplete[i];
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "side", side ? "cand" : "base");
            cJSON_AddStringToObject(o, "folder", r->folder);
            cJSON_AddNumberToObject(o, "rank", r->rank);
            if (r->world_size > 0)
                cJSON_AddNumberToObject(o, "world_size", r->world_size);
            else
                cJSON_AddNullToObject(o, "world_size");
            cJSON_AddStringToObject(o, "status", r->status);
            if (r->error)
                cJSON_AddStringToObject(o, "error", r->error);
            else
                cJSON_AddNullToObject(o, "error");
            if (r->variant_key)
                cJSON_AddStringToObject(o, "variant_key", r->variant_key);
            else
                cJSON_AddNullToObject(o, "variant_key");
            cJSON_AddStringToObject(o, "why", harness_rank_files_why(r->status));
            cJSON_AddItemToArray(incomplete, o);
        }
    }
    cJSON *notes = cJSON_AddArrayToObject(root, "notes");
    for (size_t i = 0; i < c->n_notes; i++)
        cJSON_AddItemToArray(notes, cJSON_CreateString(c->notes[i]));
    cJSON_AddStringToObject(root, "method", method_of(c));

    harness_json_scrub_utf8(root);  /* names from file names: any bytes */
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text)
        return NULL;
    size_t len = strlen(text);
    char *out = realloc(text, len + 2);   /* end with a newline, like the other formats */
    if (!out) {
        free(text);
        return NULL;
    }
    out[len] = '\n';
    out[len + 1] = '\0';
    return out;
}

char *harness_compare_report(const harness_comparison *c, harness_compare_format fmt)
{
    static const harness_text_style plain;
    if (fmt == HARNESS_COMPARE_JSON)
        return json_report(c);
    if (fmt == HARNESS_COMPARE_TEXT)
        return harness_compare_report_text(c, &plain);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    markdown_report(f, c);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

char *harness_compare_report_text(const harness_comparison *c, const harness_text_style *style)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    text_report(f, c, style);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}
