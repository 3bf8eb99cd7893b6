/* print_comparison_markdown.c - the markdown printer of a comparison, for
 * a pull-request comment: the verdict first, the pairs' table, the rounds
 * folded, the reasons as a list, the sides and the method in small print. */
#include <stdio.h>

#include "compare/folder_ranks.h"
#include "compare/markdown_escape.h"
#include "compare/metric.h"
#include "compare/print_comparison.h"

static void md_run(FILE *f, const harness_run_summary *r)
{
    harness_md_code(f, r->variant_key);
    fputs(" ", f);
    harness_md_code(f, r->config_text);
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
        print_cmp_cells r;
        print_cmp_row(c, &c->pairs[i], &r);
        harness_verdict v = c->pairs[i].s.verdict;
        fprintf(f, v == HARNESS_VERDICT_SAME ? "| %s | " : "| **%s** | ", r.cell[PRINT_CMP_COL_VERDICT]);
        harness_md_code(f, r.cell[0]);
        fputs(" | ", f);
        harness_md_code(f, r.cell[1]);
        for (int j = 2; j < PRINT_CMP_COL_VERDICT; j++) {
            fputs(" | ", f);
            harness_md_text(f, r.cell[j]);
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
        print_cmp_round_cells r;
        print_cmp_round_row(c, &c->rounds[i], &r);
        for (int j = 0; j < PRINT_CMP_ROUND_COLS; j++) {
            fputs(j ? " | " : "| ", f);
            harness_md_text(f, r.cell[j]);
        }
        fputs(" |\n", f);
    }
    fputs("\n</details>\n", f);
}

/* The reasons, one list item each: FAILED, AMBIGUOUS and TAIL pairs, the
 * unmatched runs, the incomplete ranks, the notes. */
static void reasons_markdown(FILE *f, const harness_comparison *c)
{
    int gap = 0;
    for (size_t i = 0; i < c->n_pairs; i++) {
        const harness_compare_pair *p = &c->pairs[i];
        if (p->s.verdict != HARNESS_VERDICT_FAILED)
            continue;
        fputs(gap++ ? "- **FAILED** " : "\n- **FAILED** ", f);
        md_run(f, p->base);
        fputs(": ", f);
        harness_md_text(f, p->reason);
        fputc('\n', f);
    }
    for (size_t i = 0; i < c->n_pairs; i++) {
        const harness_compare_pair *p = &c->pairs[i];
        if (p->s.verdict != HARNESS_VERDICT_AMBIGUOUS)
            continue;
        fprintf(f, "%s- **AMBIGUOUS** (%s) ", gap++ ? "" : "\n", harness_ambiguity_label(p->s.cause));
        md_run(f, p->base);
        fputs(": ", f);
        harness_md_text(f, p->s.why);
        fputc('\n', f);
    }
    for (size_t i = 0; i < c->n_pairs; i++) {
        const harness_compare_pair *p = &c->pairs[i];
        char tail[256];
        if (!p->tail.moved_alone)
            continue;
        print_cmp_tail_text(tail, sizeof tail, c, p);
        fputs(gap++ ? "- **TAIL** " : "\n- **TAIL** ", f);
        md_run(f, p->base);
        fputs(": ", f);
        harness_md_text(f, tail);
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
            harness_md_text(f, print_cmp_incomplete_where(r, where, sizeof where));
            fputs(": no summary, status ", f);
            harness_md_text(f, r->status);
            fprintf(f, ": %s", harness_rank_files_why(r->status));
            if (r->error) {
                fputs(" (", f);
                harness_md_text(f, r->error);
                fputc(')', f);
            }
            fputc('\n', f);
        }
    }
    for (size_t i = 0; i < c->n_notes; i++) {
        fputs(gap++ ? "- note: " : "\n- note: ", f);
        harness_md_text(f, c->notes[i]);
        fputc('\n', f);
    }
}

int harness_print_comparison_markdown(FILE *f, const harness_comparison *c, const harness_text_style *style)
{
    (void)style;
    fprintf(f, "**harness %s: %s", c->n_rounds ? "ab" : "compare", harness_verdict_label(c->overall));
    print_cmp_causes(f, c);
    fputs("**: ", f);
    print_cmp_counts(f, c);
    fputs(" (", f);
    print_cmp_params(f, c);
    fputs(")\n\n", f);

    pairs_markdown(f, c);
    rounds_markdown(f, c);
    reasons_markdown(f, c);
    fputs("\n<sub>base ", f);
    harness_md_code(f, print_cmp_root(&c->base));
    fputs(", cand ", f);
    harness_md_code(f, print_cmp_root(&c->cand));
    fputs(". ", f);
    harness_md_text(f, print_cmp_method(c));
    fputs(".</sub>\n", f);
    return 0;
}
