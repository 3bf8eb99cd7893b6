/* test_history_site.c - the dashboard of `harness history --out`
 * (compare/history_site.h and its pages, print_history_site*.c) on the
 * fixed history of the printers' test (printer_records.h): suites by
 * variant key with safe, distinct file names; each series' latest verdict;
 * the index and a suite page saying them, every text escaped, nothing
 * fetched. The files themselves: tests/integration/dashboard.sh. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* open_memstream */
#endif
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compare/history_site.h"
/* the records of every printer's test: the history alone is used here */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "printer_records.h"
#pragma GCC diagnostic pop

/* A page: suite SIZE_MAX the index, else that suite's page. */
static char *page(const harness_history *h, const harness_site *site, size_t suite)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    int rc = suite == SIZE_MAX ? harness_print_history_site_index(f, h, site)
                               : harness_print_history_site_suite(f, h, site, suite);
    assert_int_equal(rc, 0);
    assert_int_equal(fclose(f), 0);
    return text;
}

static void test_plan(void **state)
{
    (void)state;
    harness_history h = rec_history(HARNESS_METRIC_MEDIAN);
    harness_site site;
    assert_int_equal(harness_site_plan(&h, &site), 0);
    assert_int_equal(site.n_suites, 2);
    assert_string_equal(site.suites[0].name, "spin/cpu");
    assert_string_equal(site.suites[0].file, "s1-spin-cpu.html");
    assert_string_equal(site.suites[1].file, "s2-copy-cpu.html");
    assert_int_equal(site.suites[1].n_series, 1);
    assert_int_equal(site.suites[1].series[0], 1);
    harness_site_free(&site);

    /* one suite of two series; a key a file name cannot hold, and one whose slug is another's */
    char *keys[3] = {"a/b <\"x\">\xc3\xa9", "a-b--x--", "a/b <\"x\">\xc3\xa9"};
    for (int i = 0; i < 2; i++)
        rec_series[i].variant_key = keys[i];
    h.n_series = 2;
    assert_int_equal(harness_site_plan(&h, &site), 0);
    assert_int_equal(site.n_suites, 2);
    assert_string_equal(site.suites[0].file, "s1-a-b---x----.html");
    assert_string_equal(site.suites[1].file, "s2-a-b--x--.html");
    harness_site_free(&site);
    rec_series[1].variant_key = keys[2];
    assert_int_equal(harness_site_plan(&h, &site), 0);
    assert_int_equal(site.n_suites, 1);
    assert_int_equal(site.suites[0].n_series, 2);
    harness_site_free(&site);
    assert_null(site.suites);
}

static void test_verdicts(void **state)
{
    (void)state;
    harness_history h = rec_history(HARNESS_METRIC_MEDIAN);
    const harness_change_point *cp;
    assert_int_equal(harness_site_series_verdict(&h.series[0], &cp), HARNESS_SITE_SLOWER);
    assert_ptr_equal(cp, &h.series[0].cps[0]);
    assert_int_equal(harness_site_series_verdict(&h.series[1], &cp), HARNESS_SITE_STEADY);
    assert_null(cp);
    h.series[0].cps[0].after = 40000;      /* the new level below the old: faster */
    assert_int_equal(harness_site_series_verdict(&h.series[0], &cp), HARNESS_SITE_FASTER);
    assert_string_equal(harness_site_verdict_name(HARNESS_SITE_FASTER), "faster");
}

static void test_pages(void **state)
{
    (void)state;
    harness_history h = rec_history(HARNESS_METRIC_MEDIAN);
    harness_site site;
    assert_int_equal(harness_site_plan(&h, &site), 0);
    char *index = page(&h, &site, SIZE_MAX);
    assert_non_null(strstr(index, HARNESS_SITE_MARK));
    assert_non_null(strstr(index, "<a href=\"s1-spin-cpu.html\"><code>spin/cpu</code></a></td><td>1</td><td>9</td>"
                                  "<td class=\"name\"><span class=\"slower\">1 slower</span></td>"));
    assert_non_null(strstr(index, "<span class=\"steady\">1 steady</span>"));
    assert_non_null(strstr(index, "<a href=\"s2-copy-cpu.html#b1\"><code>not json</code></a> rank 1/2"));
    assert_non_null(strstr(index, "class=\"name slower\">slower since <code>0123456789abcdef</code> (run #6): "
                                  "50.02 us &#8594; 60.07 us, +20.1%, p 0.002</td>"));
    assert_non_null(strstr(index, ">vm &lt;1&gt;</td>"));
    /* the lone run knows nothing: its commit and value are dashes */
    assert_non_null(strstr(index, "<td>1</td><td><code>-</code></td><td>-</td><td class=\"name steady\">"));
    char *suite = page(&h, &site, 0);
    assert_non_null(strstr(suite, "<title>spin/cpu - harness dashboard</title>"));
    assert_non_null(strstr(suite, "<a href=\"#b1\">"));
    assert_non_null(strstr(suite, "<h2 id=\"b1\">1. <code>spin/cpu</code>"));
    assert_non_null(strstr(suite, "<p class=\"verdict slower\">latest verdict: slower since"));
    assert_non_null(strstr(suite, "<details><summary>the 9 runs, commit by commit</summary>"));
    assert_non_null(strstr(suite, "<tr><td>8</td><td class=\"name\"><code>c8|x</code></td><td class=\"name\">main"));
    assert_non_null(strstr(suite, "<td class=\"name\">interference</td></tr>"));
    assert_non_null(strstr(suite, "<td class=\"name\">outlier</td></tr>"));
    assert_null(strstr(suite, "copy/cpu"));    /* the other suite's benchmark is on its own page */
    for (char *const *t = (char *const[]){index, suite, NULL}; *t; t++) {
        assert_null(strstr(*t, "<script"));
        assert_null(strstr(*t, "https://"));
        assert_null(strstr(*t, "<link"));
        free(*t);
    }
    harness_site_free(&site);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan),
        cmocka_unit_test(test_verdicts),
        cmocka_unit_test(test_pages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
