/* history_site.h - the dashboard `harness history --out DIR` writes: an
 * index page and a page per suite. The database has no suites: a suite
 * here is the series of one variant key (a component and its variant,
 * "rms_norm/cpu"), every config, machine and rank of it; a benchmark is one
 * series. This is the plan of the site (which series on which page, under
 * which file name) and each series' latest verdict, pure functions, and
 * the printers of its pages; the files are written by
 * cli/history_site_write.c. */
#ifndef HARNESS_COMPARE_HISTORY_SITE_H
#define HARNESS_COMPARE_HISTORY_SITE_H

#include <stddef.h>
#include <stdio.h>

#include "compare/history.h"

/* In the head of every page the site writes: how `history --out` knows a
 * folder it may replace (its own site from before) from one it must not. */
#define HARNESS_SITE_MARK "<meta name=\"generator\" content=\"harness history --out\">"

typedef struct harness_site_suite {
    const char *name;              /* the variant key its series share (the history's string) */
    char *file;                    /* its page, "s1-rms_norm-cpu.html": only [A-Za-z0-9._-] */
    size_t *series;                /* indices into the history's series, in its order */
    size_t n_series;
} harness_site_suite;

typedef struct harness_site {
    harness_site_suite *suites;    /* in the order of their first series */
    size_t n_suites;
} harness_site;

/* The suites of h into *out; 0, or -1 out of memory (*out is then freed). */
int harness_site_plan(const harness_history *h, harness_site *out);
void harness_site_free(harness_site *site);

typedef enum { HARNESS_SITE_STEADY, HARNESS_SITE_SLOWER, HARNESS_SITE_FASTER } harness_site_verdict;

/* A series' latest verdict: where its latest runs stand against the level
 * before its last change point (slower: a larger time or energy), steady
 * without a change point; *last gets that change point, or NULL. */
harness_site_verdict harness_site_series_verdict(const harness_series *s, const harness_change_point **last);

/* "steady", "slower", "faster": the word, and the CSS class of the pages. */
const char *harness_site_verdict_name(harness_site_verdict v);

/* The pages: the index, and the page of site->suites[suite]
 * (print_history_site.c, print_history_site_suite.c). 0; what f could not
 * take shows in ferror(f). */
int harness_print_history_site_index(FILE *f, const harness_history *h, const harness_site *site);
int harness_print_history_site_suite(FILE *f, const harness_history *h, const harness_site *site, size_t suite);

#endif
