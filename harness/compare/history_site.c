/* history_site.c - the dashboard's plan and verdicts (history_site.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* asprintf */
#endif
#include "compare/history_site.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SLUG_MAX = 40 };            /* a file name's share of the variant key: readable, never too long */

void harness_site_free(harness_site *site)
{
    for (size_t i = 0; i < site->n_suites; i++) {
        free(site->suites[i].file);
        free(site->suites[i].series);
    }
    free(site->suites);
    site->suites = NULL;
    site->n_suites = 0;
}

/* The suite of variant key `name`, added when new; NULL out of memory. */
static harness_site_suite *suite_of(harness_site *site, const char *name, size_t n_series)
{
    for (size_t i = 0; i < site->n_suites; i++)
        if (strcmp(site->suites[i].name, name) == 0)
            return &site->suites[i];
    harness_site_suite *grown = realloc(site->suites, (site->n_suites + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    site->suites = grown;
    harness_site_suite *s = &site->suites[site->n_suites];
    memset(s, 0, sizeof *s);
    s->name = name;
    /* room for every series: a history is small, and no second pass */
    s->series = malloc((n_series ? n_series : 1) * sizeof *s->series);
    char slug[SLUG_MAX + 1];
    size_t n = 0;
    for (const char *c = name; *c && n < SLUG_MAX; c++)
        slug[n++] = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
                            *c == '_' || *c == '.' || *c == '-' ? *c : '-';
    slug[n] = '\0';
    /* the number keeps names apart that their slugs would not ("a/b", "a-b") */
    if (asprintf(&s->file, "s%zu-%s.html", site->n_suites + 1, slug) < 0)
        s->file = NULL;
    site->n_suites++;
    return s->series && s->file ? s : NULL;
}

int harness_site_plan(const harness_history *h, harness_site *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < h->n_series; i++) {
        harness_site_suite *s = suite_of(out, h->series[i].variant_key, h->n_series);
        if (!s) {
            harness_site_free(out);
            return -1;
        }
        s->series[s->n_series++] = i;
    }
    return 0;
}

harness_site_verdict harness_site_series_verdict(const harness_series *s, const harness_change_point **last)
{
    *last = s->n_cps ? &s->cps[s->n_cps - 1] : NULL;
    if (!*last)
        return HARNESS_SITE_STEADY;
    double step = harness_cp_step(*last);
    return step > 0 ? HARNESS_SITE_SLOWER : step < 0 ? HARNESS_SITE_FASTER : HARNESS_SITE_STEADY;
}

const char *harness_site_verdict_name(harness_site_verdict v)
{
    static const char *const names[] = {"steady", "slower", "faster"};
    return names[v];
}
