/* print_comparison_text.c - the text printer of a comparison: the sides,
 * the pairs' table aligned (fitted to a terminal's width, verdicts in
 * colour when the style says), hyperfine's "ran 1.05 times faster" line,
 * the rounds of an A/B run, the reasons, the verdict and the method. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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

/* Whether `item` ("key=value") is one of the ", "-separated items of list. */
static int has_item(const char *list, const char *item, size_t len)
{
    for (const char *at = list; *at;) {
        const char *sep = strstr(at, ", ");
        size_t n = sep ? (size_t)(sep - at) : strlen(at);
        if (n == len && strncmp(at, item, len) == 0)
            return 1;
        if (!sep)
            break;
        at = sep + 2;
    }
    return 0;
}

/* Pair i's config as the items that differ from another pair of its variant
 * ("duration_ns=100000" of "duration_ns=100000, mode=busy"), into buf; NULL
 * when no pair of its variant has another config (the whole text says it). */
static const char *differing_items(const harness_comparison *c, size_t i, char *buf, size_t cap)
{
    const harness_run_summary *me = c->pairs[i].base;
    size_t used = 0;
    int others = 0;
    buf[0] = '\0';
    for (size_t j = 0; j < c->n_pairs; j++) {
        const harness_run_summary *o = c->pairs[j].base;
        others |= strcmp(o->variant_key, me->variant_key) == 0 && strcmp(o->config_text, me->config_text) != 0;
    }
    if (!others)
        return NULL;
    for (const char *at = me->config_text; *at;) {
        const char *sep = strstr(at, ", ");
        size_t n = sep ? (size_t)(sep - at) : strlen(at);
        int differs = 0;
        for (size_t j = 0; j < c->n_pairs && !differs; j++) {
            const harness_run_summary *o = c->pairs[j].base;
            differs = strcmp(o->variant_key, me->variant_key) == 0 && !has_item(o->config_text, at, n);
        }
        if (differs && used + n + 3 < cap)
            used += (size_t)snprintf(buf + used, cap - used, "%s%.*s", used ? ", " : "", (int)n, at);
        if (!sep)
            break;
        at = sep + 2;
    }
    return buf;
}

/* The widest cell of each column, the config's as `configs` gives it. */
static void cell_widths(const harness_comparison *c, const char *const *headers, char (*configs)[256],
                        size_t *width)
{
    for (int j = 0; j < PRINT_CMP_COLS; j++)
        width[j] = strlen(headers[j]);
    for (size_t i = 0; i < c->n_pairs; i++) {
        print_cmp_cells r;
        print_cmp_row(c, &c->pairs[i], &r);
        if (configs && configs[i][0])
            r.cell[1] = configs[i];
        for (int j = 0; j < PRINT_CMP_COLS; j++)
            if (strlen(r.cell[j]) > width[j])
                width[j] = strlen(r.cell[j]);
    }
    if (width[PRINT_CMP_COL_VERDICT] < strlen("IMPROVEMENT"))
        width[PRINT_CMP_COL_VERDICT] = strlen("IMPROVEMENT");   /* the widest word, whatever the rows say */
}

/* The pairs' table, aligned; on a narrow terminal the config is cut (to
 * the items that differ between rows, when they differ) and the columns a
 * verdict already sums up are dropped (--wide keeps them). */
static int pairs_text(FILE *f, const harness_comparison *c, const harness_text_style *st)
{
    size_t width[PRINT_CMP_COLS];
    unsigned char shown[PRINT_CMP_COLS];
    const char *const *headers = print_cmp_headers(c);
    cell_widths(c, headers, NULL, width);
    /* replicates, p, rank, the interval, then the medians, then the tail: the
     * ratio, the change and the verdict stay. */
    static const int drop[] = {9, 10, 2, 6, 3, 4, 8, 5};
    harness_table_fit t = {PRINT_CMP_COLS, width, shown, 1, 16, drop, (int)(sizeof drop / sizeof drop[0]), 2};
    size_t full = width[1];
    harness_table_fit_to(&t, st->width);
    char (*configs)[256] = NULL;
    if (t.width[1] < full) {       /* a cut prefix would hide the value that tells rows apart */
        configs = calloc(c->n_pairs ? c->n_pairs : 1, sizeof *configs);
        if (!configs)
            return -1;
        for (size_t i = 0; i < c->n_pairs; i++)
            if (!differing_items(c, i, configs[i], sizeof configs[i]))
                configs[i][0] = '\0';
        cell_widths(c, headers, configs, width);
        harness_table_fit_to(&t, st->width);
    }
    table_line(f, headers, &t, &(harness_text_style){0, 0}, HARNESS_VERDICT_SAME);
    for (size_t i = 0; i < c->n_pairs; i++) {
        print_cmp_cells r;
        print_cmp_row(c, &c->pairs[i], &r);
        if (configs && configs[i][0])
            r.cell[1] = configs[i];
        table_line(f, r.cell, &t, st, c->pairs[i].s.verdict);
    }
    free(configs);
    return 0;
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

static int comparison_text(FILE *f, const harness_comparison *c, const harness_text_style *st)
{
    for (int side = 0; side < 2; side++) {
        const harness_compare_side *sd = side ? &c->cand : &c->base;
        fprintf(f, "%s: %s (%s, %zu %s", side ? "cand" : "base", print_cmp_root(sd), print_cmp_side_kind(sd), sd->n_runs,
                print_cmp_plural(sd->n_runs, "run", "runs"));
        if (sd->n_incomplete)
            fprintf(f, ", %zu incomplete", sd->n_incomplete);
        fputs(side ? ")\n\n" : ")\n", f);
    }

    if (pairs_text(f, c, st) != 0)
        return -1;
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

/* The report, each line within the style's width: the table fitted, the
 * lines of prose (reasons, notes, the method) wrapped at spaces. */
int harness_print_comparison_text(FILE *f, const harness_comparison *c, const harness_text_style *st)
{
    if (st->width <= 0)
        return comparison_text(f, c, st);
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m)
        return -1;
    int rc = comparison_text(m, c, st);
    if (fclose(m) != 0 || rc != 0) {
        free(text);
        return -1;
    }
    harness_wrap_fputs(f, text, st->width, 2);
    free(text);
    return 0;
}
