/* print_comparison_text.c - the text printer of a comparison: the sides,
 * the pairs' table aligned (fitted to a terminal's width, verdicts in
 * colour when the style says), hyperfine's "ran 1.05 times faster" line,
 * the rounds of an A/B run, the reasons, the verdict and the method. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare/folder_ranks.h"
#include "compare/metric.h"
#include "compare/print_comparison.h"
#include "util/table_fit.h"
#include "util/term.h"

/* Every round, aligned like the pairs' table (about 60 columns). */
static void rounds_text(FILE *f, const harness_comparison *c)
{
    if (!c->n_rounds)
        return;
    const char *const *round_headers = print_cmp_round_headers(c);
    size_t width[PRINT_CMP_ROUND_COLS];
    for (int j = 0; j < PRINT_CMP_ROUND_COLS; j++)
        width[j] = strlen(j == 0 && c->n_pairs > 1 ? "bench/round" : round_headers[j]);
    for (size_t i = 0; i < c->n_rounds; i++) {
        print_cmp_round_cells r;
        print_cmp_round_row(c, &c->rounds[i], &r);
        for (int j = 0; j < PRINT_CMP_ROUND_COLS; j++)
            if (strlen(r.cell[j]) > width[j])
                width[j] = strlen(r.cell[j]);
    }
    fprintf(f, "\nrounds (first: the side that ran first; cand/base: the ratio of the round's %ss):\n",
            harness_metric_name(c->opts.metric));
    for (size_t i = 0; i <= c->n_rounds; i++) {   /* the header, then the rounds */
        print_cmp_round_cells r;
        if (i)
            print_cmp_round_row(c, &c->rounds[i - 1], &r);
        for (int j = 0; j < PRINT_CMP_ROUND_COLS; j++) {   /* words left, numbers right, state last */
            const char *cell = i ? r.cell[j] : j == 0 && c->n_pairs > 1 ? "bench/round" : round_headers[j];
            if (j == PRINT_CMP_ROUND_COLS - 1)
                fprintf(f, "%s\n", cell);
            else
                fprintf(f, j == 1 ? "%-*s  " : "%*s  ", (int)width[j], cell);
        }
    }
}

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
    for (int j = 0; j < PRINT_CMP_COLS; j++) {
        if (!t->shown[j])
            continue;
        char cut[512];
        const char *text = harness_table_cut(cell[j], t->width[j], cut, sizeof cut);
        fputs(first ? "" : "  ", f);
        first = 0;
        if (j == PRINT_CMP_COL_VERDICT)      /* last and unpadded: its colour cannot shift a column */
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
    size_t width[PRINT_CMP_COLS];
    unsigned char shown[PRINT_CMP_COLS];
    const char *const *headers = print_cmp_headers(c);
    for (int j = 0; j < PRINT_CMP_COLS; j++)
        width[j] = strlen(headers[j]);
    for (size_t i = 0; i < c->n_pairs; i++) {
        print_cmp_cells r;
        print_cmp_row(c, &c->pairs[i], &r);
        for (int j = 0; j < PRINT_CMP_COLS; j++)
            if (strlen(r.cell[j]) > width[j])
                width[j] = strlen(r.cell[j]);
    }
    /* replicates, p, rank, the interval, then the medians, then the tail: the
     * ratio, the change and the verdict stay. */
    static const int drop[] = {9, 10, 2, 6, 3, 4, 8, 5};
    harness_table_fit t = {PRINT_CMP_COLS, width, shown, 1, 16, drop, (int)(sizeof drop / sizeof drop[0]), 2};
    if (width[PRINT_CMP_COL_VERDICT] < strlen("IMPROVEMENT"))
        width[PRINT_CMP_COL_VERDICT] = strlen("IMPROVEMENT");   /* the widest word, whatever the rows say */
    harness_table_fit_to(&t, st->width);
    table_line(f, headers, &t, &(harness_text_style){0, 0}, HARNESS_VERDICT_SAME);
    for (size_t i = 0; i < c->n_pairs; i++) {
        print_cmp_cells r;
        print_cmp_row(c, &c->pairs[i], &r);
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

int harness_print_comparison_text(FILE *f, const harness_comparison *c, const harness_text_style *st)
{
    for (int side = 0; side < 2; side++) {
        const harness_compare_side *sd = side ? &c->cand : &c->base;
        fprintf(f, "%s: %s (%s, %zu %s", side ? "cand" : "base", print_cmp_root(sd), print_cmp_side_kind(sd), sd->n_runs,
                print_cmp_plural(sd->n_runs, "run", "runs"));
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
        print_cmp_tail_text(tail, sizeof tail, c, p);
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
                    side ? "cand" : "base", print_cmp_incomplete_where(r, where, sizeof where), r->status,
                    harness_rank_files_why(r->status), r->error ? " (" : "", r->error ? r->error : "",
                    r->error ? ")" : "", r->variant_key ? "; variant " : "", r->variant_key ? r->variant_key : "");
        }
    }

    fputs("\nverdict: ", f);
    put_verdict(f, st, c->overall, harness_verdict_label(c->overall));
    print_cmp_causes(f, c);
    fputs(": ", f);
    print_cmp_counts(f, c);
    fputs(" (", f);
    print_cmp_params(f, c);
    fprintf(f, ")\n%s\n", print_cmp_method(c));
    return 0;
}
