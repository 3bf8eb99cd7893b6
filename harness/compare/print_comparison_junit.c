/* print_comparison_junit.c - the JUnit XML printer of a comparison
 * (`harness compare` and `harness ab --format junit` or --report junit=FILE),
 * for the test views of CI systems (GitLab's, Jenkins', GitHub's test
 * reporters): one <testcase> per benchmark pair, named as in every machine
 * format (compare/bench_id.h: name the whole name, classname the
 * experiment), whose outcome is the verdict:
 *   REGRESSION   <failure type="REGRESSION">, the message the ratio and its interval
 *   AMBIGUOUS    <skipped> when --on-ambiguous lets it pass, else <failure>
 *   FAILED       <error type="FAILED">, the message why
 *   SAME, IMPROVEMENT   passed
 * plus a <testcase> with <error> for each rank that left no summary and
 * one <skipped> for each run the other side lacks; a tail that moved alone
 * is said in the pair's <system-out>. The <testsuite> counts tests,
 * failures, errors and skipped, and its time is the runs' measured wall time
 * (their windows'; a case's, its pair's two runs shown).
 * Everything from a file or a config is escaped (util/html.h: XML's five
 * characters, control characters dropped, invalid UTF-8 replaced). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* open_memstream */
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/bench_id.h"
#include "compare/folder_ranks.h"
#include "compare/print_comparison.h"
#include "util/html.h"

typedef enum { CASE_PASSED, CASE_FAILURE, CASE_ERROR, CASE_SKIPPED } case_outcome;

/* Whether an AMBIGUOUS pair passes, as --on-ambiguous says (the exit code's rule). */
static int ambiguous_passes(const harness_comparison *c, const harness_compare_pair *p)
{
    return c->opts.on_ambiguous == HARNESS_ON_AMBIGUOUS_PASS ||
           (c->opts.on_ambiguous == HARNESS_ON_AMBIGUOUS_PASS_INTERFERENCE &&
            p->s.cause == HARNESS_AMBIGUOUS_INTERFERENCE);
}

static case_outcome pair_outcome(const harness_comparison *c, const harness_compare_pair *p)
{
    switch (p->s.verdict) {
    case HARNESS_VERDICT_REGRESSION: return CASE_FAILURE;
    case HARNESS_VERDICT_FAILED: return CASE_ERROR;
    case HARNESS_VERDICT_AMBIGUOUS: return ambiguous_passes(c, p) ? CASE_SKIPPED : CASE_FAILURE;
    default: return CASE_PASSED;
    }
}

/* A run's measured wall time in seconds: its windows' (0 when none say). */
static double run_seconds(const harness_run_summary *r)
{
    double ns = 0;
    for (size_t i = 0; r && i < r->n_written_windows; i++)
        if (isfinite(r->windows[i].wall_ns) && r->windows[i].wall_ns > 0)
            ns += r->windows[i].wall_ns;
    return ns / 1e9;
}

static double side_seconds(const harness_compare_side *s)
{
    double t = 0;
    for (size_t i = 0; i < s->n_runs; i++)
        t += run_seconds(&s->runs[i]);
    return t;
}

/* <testcase classname="EXPERIMENT" name="BENCH" time="T"> for a run. */
static void open_case(FILE *f, const harness_run_summary *r, double seconds)
{
    char id[1024];
    fputs("    <testcase classname=\"", f);
    harness_html_escape(f, r->experiment_name ? r->experiment_name : "?");
    fputs("\" name=\"", f);
    harness_html_escape(f, harness_bench_id(r->experiment_name, r->variant_key, r->config, r->rank, r->world_size,
                                            id, sizeof id));
    fprintf(f, "\" time=\"%.3f\">\n", seconds);
}

/* "REGRESSION: cand/base 1.123 [1.100, 1.150] 96.8% (+12.3%), p 0.004; 5/5 runs" */
static void verdict_message(FILE *f, const harness_comparison *c, const harness_compare_pair *p)
{
    print_cmp_cells r;
    print_cmp_row(c, p, &r);
    fprintf(f, "%s", r.cell[PRINT_CMP_COL_VERDICT]);
    if (p->s.verdict == HARNESS_VERDICT_AMBIGUOUS)
        fprintf(f, " (%s)", harness_ambiguity_label(p->s.cause));
    fprintf(f, ": cand/base %s, interval %s, change %s, p %s; base %s, cand %s; %s", r.cell[5], r.cell[6],
            r.cell[7], r.cell[10], r.cell[3], r.cell[4], r.cell[9]);
    if (p->s.verdict == HARNESS_VERDICT_AMBIGUOUS && p->s.why[0])
        fprintf(f, "; %s", p->s.why);
}

/* An element's message attribute and body: the same text, escaped. */
static void outcome_element(FILE *f, const char *element, const char *type, const char *message)
{
    fprintf(f, "      <%s type=\"%s\" message=\"", element, type);
    harness_html_escape(f, message);
    fputs("\">", f);
    harness_html_escape(f, message);
    fprintf(f, "</%s>\n", element);
}

static int print_pair(FILE *f, const harness_comparison *c, const harness_compare_pair *p)
{
    char *msg = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&msg, &len);
    if (!m)
        return -1;
    if (p->s.verdict == HARNESS_VERDICT_FAILED)
        fprintf(m, "FAILED: %s", p->reason);
    else
        verdict_message(m, c, p);
    if (fclose(m) != 0) {
        free(msg);
        return -1;
    }
    open_case(f, p->base, run_seconds(p->base) + run_seconds(p->cand));
    const char *type = harness_verdict_label(p->s.verdict);
    switch (pair_outcome(c, p)) {
    case CASE_FAILURE: outcome_element(f, "failure", type, msg); break;
    case CASE_ERROR: outcome_element(f, "error", type, msg); break;
    case CASE_SKIPPED:
        fputs("      <skipped message=\"", f);
        harness_html_escape(f, msg);
        fputs("\"/>\n", f);
        break;
    case CASE_PASSED: break;
    }
    /* what a passing case says too: its verdict and figures, the tail */
    fputs("      <system-out>", f);
    harness_html_escape(f, msg);
    if (p->tail.moved_alone) {
        char tail[256];
        print_cmp_tail_text(tail, sizeof tail, c, p);
        fputs("; ", f);
        harness_html_escape(f, tail);
    }
    fputs("</system-out>\n    </testcase>\n", f);
    free(msg);
    return 0;
}

/* A rank of either side that left no summary: an error of its own. */
static void print_incomplete(FILE *f, const char *side, const harness_incomplete_run *r)
{
    char where[4200], msg[5000];
    fputs("    <testcase classname=\"?\" name=\"?/", f);
    harness_html_escape(f, r->variant_key ? r->variant_key : "?");
    fputs("/?", f);
    if (r->world_size > 1)
        fprintf(f, "/rank=%d", r->rank);
    fputs("\" time=\"0.000\">\n", f);
    snprintf(msg, sizeof msg, "FAILED (%s): %s: no summary, status %s: %s%s%s%s", side,
             print_cmp_incomplete_where(r, where, sizeof where), r->status, harness_rank_files_why(r->status),
             r->error ? " (" : "", r->error ? r->error : "", r->error ? ")" : "");
    outcome_element(f, "error", "FAILED", msg);
    fputs("    </testcase>\n", f);
}

/* A run on one side only: nothing to judge it against. */
static void print_unmatched(FILE *f, const char *side, const harness_run_summary *r)
{
    open_case(f, r, run_seconds(r));
    fprintf(f, "      <skipped message=\"unmatched: %s only (no run of this benchmark on the other side)\"/>\n"
            "    </testcase>\n", side);
}

int harness_print_comparison_junit(FILE *f, const harness_comparison *c, const harness_text_style *style)
{
    (void)style;
    size_t n_fail = 0, n_err = 0, n_skip = 0, n_tests = c->n_pairs;
    for (size_t i = 0; i < c->n_pairs; i++) {
        case_outcome o = pair_outcome(c, &c->pairs[i]);
        n_fail += o == CASE_FAILURE;
        n_err += o == CASE_ERROR;
        n_skip += o == CASE_SKIPPED;
    }
    n_err += c->base.n_incomplete + c->cand.n_incomplete;
    n_skip += c->n_unmatched_base + c->n_unmatched_cand;
    n_tests += c->base.n_incomplete + c->cand.n_incomplete + c->n_unmatched_base + c->n_unmatched_cand;
    const char *suite = c->n_rounds ? "harness ab" : "harness compare";
    double seconds = side_seconds(&c->base) + side_seconds(&c->cand);
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<testsuites name=\"%s\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n"
            "  <testsuite name=\"%s\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n"
            "    <properties>\n      <property name=\"verdict\" value=\"%s\"/>\n"
            "      <property name=\"parameters\" value=\"", suite, n_tests, n_fail, n_err, n_skip, seconds, suite,
            n_tests, n_fail, n_err, n_skip, seconds, harness_verdict_label(c->overall));
    print_cmp_params(f, c);           /* words and numbers: nothing to escape */
    fputs("\"/>\n      <property name=\"base\" value=\"", f);
    harness_html_escape(f, print_cmp_root(&c->base));
    fputs("\"/>\n      <property name=\"cand\" value=\"", f);
    harness_html_escape(f, print_cmp_root(&c->cand));
    fputs("\"/>\n    </properties>\n", f);
    for (size_t i = 0; i < c->n_pairs; i++)
        if (print_pair(f, c, &c->pairs[i]) != 0)
            return -1;
    for (size_t i = 0; i < c->base.n_incomplete; i++)
        print_incomplete(f, "base", &c->base.incomplete[i]);
    for (size_t i = 0; i < c->cand.n_incomplete; i++)
        print_incomplete(f, "cand", &c->cand.incomplete[i]);
    for (size_t i = 0; i < c->n_unmatched_base; i++)
        print_unmatched(f, "base", c->unmatched_base[i]);
    for (size_t i = 0; i < c->n_unmatched_cand; i++)
        print_unmatched(f, "cand", c->unmatched_cand[i]);
    fputs("  </testsuite>\n</testsuites>\n", f);
    return 0;
}
