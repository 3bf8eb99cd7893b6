/* test_printers.c - every printer (compare/printer.h) on fixed records
 * (printer_records.h) against its golden output in tests/unit/printers/,
 * byte for byte: the outputs main's compare_report.c, history_report.c and
 * history_html.c wrote before the printers were split out (issue 39), so
 * any change to what a report says shows here. A new format adds its
 * golden files; PRINTERS_GOLDEN_WRITE=1 writes them from the printers (read
 * the diff before committing them). Also: the lookup by --format name and
 * the shared figures. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compare/metric.h"
#include "compare/printer.h"
#include "util/format.h"
#include "printer_records.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len = 0, cap = 0, n;
    char chunk[4096];
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (len + n + 1 > cap) {
            cap = (len + n + 1) * 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
        memcpy(buf + len, chunk, n);
        len += n;
    }
    fclose(f);
    if (!buf)
        buf = calloc(1, 1);
    buf[len] = '\0';
    return buf;
}

/* The first line where got and want differ, for the failure message. */
static void show_diff(const char *name, const char *got, const char *want)
{
    int line = 1;
    const char *g = got, *w = want;
    while (*g && *g == *w) {
        if (*g == '\n') {
            line++;
            got = g + 1;
            want = w + 1;
        }
        g++;
        w++;
    }
    g = got;                       /* from the start of the line */
    w = want;
    const char *ge = strchr(g, '\n'), *we = strchr(w, '\n');
    print_error("%s differs at line %d:\n  got:  %.*s\n  want: %.*s\n", name, line,
                (int)(ge ? ge - g : (ptrdiff_t)strlen(g)), g, (int)(we ? we - w : (ptrdiff_t)strlen(w)), w);
}

/* text against tests/unit/printers/NAME.SUFFIX (consumes text). */
static void expect_golden(const char *name, const char *suffix, char *text)
{
    const char *top = getenv("top_srcdir");
    char path[4096], label[256];
    snprintf(path, sizeof path, "%s/tests/unit/printers/%s.%s", top ? top : HARNESS_BUILD_DIR, name, suffix);
    snprintf(label, sizeof label, "%s.%s", name, suffix);
    assert_non_null(text);
    const char *write = getenv("PRINTERS_GOLDEN_WRITE");
    if (write && strcmp(write, "1") == 0) {
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        fputs(text, f);
        assert_int_equal(fclose(f), 0);
    }
    char *want = slurp(path);
    if (!want)
        fail_msg("no golden file %s", path);
    if (strcmp(text, want) != 0) {
        show_diff(label, text, want);
        fail_msg("%s: not the golden output", label);
    }
    free(want);
    free(text);
}

static char *comparison_as(const char *format, const harness_comparison *c, const harness_text_style *style)
{
    const harness_printer *p = harness_printer_find(format, HARNESS_RECORD_COMPARISON);
    assert_non_null(p);
    return harness_print_comparison(p, c, style);
}

static void comparison_golden(const char *name, const harness_comparison *c)
{
    expect_golden(name, "text", comparison_as("text", c, NULL));
    expect_golden(name, "markdown", comparison_as("markdown", c, NULL));
    expect_golden(name, "json", comparison_as("json", c, NULL));
    expect_golden(name, "junit", comparison_as("junit", c, NULL));
    expect_golden(name, "color60", comparison_as("text", c, &(harness_text_style){1, 60}));
    expect_golden(name, "color100", comparison_as("text", c, &(harness_text_style){1, 100}));
    rec_free();
}

static void history_golden(const char *name, const harness_history *h)
{
    static const char *const formats[] = {"text", "markdown", "json", "html"};
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        const harness_printer *p = harness_printer_find(formats[i], HARNESS_RECORD_HISTORY);
        assert_non_null(p);
        expect_golden(name, formats[i], harness_print_history(p, h));
    }
}

static void test_compare(void **state)
{
    (void)state;
    harness_comparison c = rec_compare(HARNESS_METRIC_MEDIAN);
    comparison_golden("compare", &c);
    c = rec_compare(HARNESS_METRIC_P90);
    comparison_golden("compare_p90", &c);
    c = rec_compare(HARNESS_METRIC_ENERGY);
    comparison_golden("compare_energy", &c);
}

static void test_ab(void **state)
{
    (void)state;
    harness_comparison c = rec_ab(1, HARNESS_METRIC_MEDIAN);
    comparison_golden("ab1", &c);
    c = rec_ab(2, HARNESS_METRIC_MEDIAN);
    comparison_golden("ab2", &c);
    c = rec_ab(1, HARNESS_METRIC_ENERGY);
    comparison_golden("ab_energy", &c);
}

static void test_history(void **state)
{
    (void)state;
    harness_history h = rec_history(HARNESS_METRIC_MEDIAN);
    history_golden("history", &h);
    h = rec_history(HARNESS_METRIC_P90);
    history_golden("history_p90", &h);
    h = rec_history(HARNESS_METRIC_ENERGY);
    history_golden("history_energy", &h);
}

/* The value of attribute `name` of the first element at or after `from`
 * that starts with `element` ("<line class=\"level\""), into buf. */
static const char *attribute(const char *from, const char *element, const char *name, char *buf, size_t cap)
{
    const char *at = strstr(from, element), *end = at ? strchr(at, '>') : NULL;
    char key[64];
    snprintf(key, sizeof key, " %s=\"", name);
    const char *v = at ? strstr(at, key) : NULL;
    if (!v || v > end)
        return NULL;
    v += strlen(key);
    snprintf(buf, cap, "%.*s", (int)strcspn(v, "\""), v);
    return buf;
}

/* The history page (issue 40 item 10): a series without change points has
 * its level, the median of the runs the search kept, drawn across it; the
 * machine's facts are labelled and the config is key=value pairs. */
static void test_history_html_level(void **state)
{
    (void)state;
    harness_history_point pts[5];
    static const double values[5] = {300e3, 100e3, 900e3, 200e3, 250e3};
    for (int k = 0; k < 5; k++)
        pts[k] = (harness_history_point){"2026-03-01__00-00-00_ab", "c1", "main", values[k], values[k], NAN, NAN,
                                         NAN, 10, NAN, NULL, 0, HARNESS_CP_KEPT};
    pts[2].set_aside = HARNESS_CP_OUTLIER;   /* left out: the level is the median of 300, 100, 200, 250 us */
    harness_series s = {"host", "AMD EPYC 7B13", "none", "spin/cpu", "abcd", "{\"duration_ns\":50000,\"mode\":\"x\"}",
                        1, 0, pts, 5, NULL, 0};
    harness_history h = {"/x/r.sqlite", HARNESS_METRIC_MEDIAN, HARNESS_CP_DEFAULTS, &s, 1};
    const harness_printer *p = harness_printer_find("html", HARNESS_RECORD_HISTORY);
    assert_non_null(p);
    char *html = harness_print_history(p, &h);
    assert_non_null(html);
    char y1[32], y2[32], x1[32], x2[32], level_y[32];
    assert_non_null(attribute(html, "<line class=\"level\"", "y1", y1, sizeof y1));
    assert_non_null(attribute(html, "<line class=\"level\"", "y2", y2, sizeof y2));
    assert_string_equal(y1, y2);
    assert_non_null(attribute(html, "<line class=\"level\"", "x1", x1, sizeof x1));
    assert_non_null(attribute(html, "<line class=\"level\"", "x2", x2, sizeof x2));
    assert_true(atof(x2) - atof(x1) > 800);  /* across the whole series */
    assert_null(strstr(strstr(html, "<line class=\"level\"") + 1, "<line class=\"level\""));   /* one level */
    /* At 225 us, halfway between the points of 200 and 250 us. */
    char y200[32], y250[32];
    const char *fourth = strstr(html, "<circle class=\"point\"");
    for (int k = 0; k < 2 && fourth; k++)
        fourth = strstr(fourth + 1, "<circle class=\"point\"");
    assert_non_null(attribute(fourth, "<circle class=\"point\"", "cy", y200, sizeof y200));
    assert_non_null(attribute(fourth + 1, "<circle class=\"point\"", "cy", y250, sizeof y250));
    snprintf(level_y, sizeof level_y, "%.1f", (atof(y200) + atof(y250)) / 2);
    assert_true(fabs(atof(y1) - atof(level_y)) < 0.11);
    assert_non_null(strstr(html, "<p>cpu: AMD EPYC 7B13; gpu: none; config hash: <code>abcd</code>"));
    assert_non_null(strstr(html, "<code>duration_ns=50000, mode=x</code> rank 0/1 on host</h2>"));
    free(html);
}

/* --format: names and the alias, per record; the error lists the formats
 * of the record, as the CLI has always said them. */
static void test_lookup(void **state)
{
    (void)state;
    const harness_printer *p;
    harness_error err = {0};
    assert_ptr_equal(harness_printer_find("md", HARNESS_RECORD_COMPARISON),
                     harness_printer_find("markdown", HARNESS_RECORD_COMPARISON));
    assert_non_null(harness_printer_find("html", HARNESS_RECORD_HISTORY));
    assert_null(harness_printer_find("html", HARNESS_RECORD_COMPARISON));
    assert_null(harness_printer_find("junit", HARNESS_RECORD_HISTORY));
    assert_null(harness_printer_find("HTML", HARNESS_RECORD_HISTORY));
    assert_int_equal(harness_printer_parse("json", HARNESS_RECORD_HISTORY, &p, &err), 0);
    assert_string_equal(p->name, "json");
    assert_int_equal(harness_printer_parse("html", HARNESS_RECORD_COMPARISON, &p, &err), HARNESS_EXIT_USAGE);
    assert_string_equal(err.msg, "--format: expected text, markdown, json or junit, got 'html'");
    assert_int_equal(harness_printer_parse("xml", HARNESS_RECORD_HISTORY, &p, &err), HARNESS_EXIT_USAGE);
    assert_string_equal(err.msg, "--format: expected text, markdown, json or html, got 'xml'");
}

/* The figures every printer shares (util/format.h): "-" for unknown, never "nan". */
static void test_figures(void **state)
{
    (void)state;
    char b[32];
    assert_string_equal(harness_format_ratio(1.23449, b, sizeof b), "1.234");
    assert_string_equal(harness_format_ratio(INFINITY, b, sizeof b), "inf");
    assert_string_equal(harness_format_ratio(NAN, b, sizeof b), "-");
    assert_string_equal(harness_format_change(1.05, b, sizeof b), "+5.0%");
    assert_string_equal(harness_format_change(0.9, b, sizeof b), "-10.0%");
    assert_string_equal(harness_format_change(INFINITY, b, sizeof b), "+inf%");
    assert_string_equal(harness_format_change(NAN, b, sizeof b), "-");
    assert_string_equal(harness_format_signed_pct(20.06, b, sizeof b), "+20.1%");
    assert_string_equal(harness_format_share(0.9591, b, sizeof b), "95.9%");
    assert_string_equal(harness_format_share(INFINITY, b, sizeof b), "-");
    assert_string_equal(harness_format_p(0.00791, b, sizeof b), "0.00791");
    assert_string_equal(harness_format_p(NAN, b, sizeof b), "-");
    assert_string_equal(harness_metric_format(HARNESS_METRIC_MEDIAN, 50070, b, sizeof b), "50.07 us");
    assert_string_equal(harness_metric_format(HARNESS_METRIC_ENERGY, 0.0123, b, sizeof b), "12.3 mJ");
    assert_string_equal(harness_metric_format(HARNESS_METRIC_MEDIAN, NAN, b, sizeof b), "-");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compare),
        cmocka_unit_test(test_ab),
        cmocka_unit_test(test_history),
        cmocka_unit_test(test_history_html_level),
        cmocka_unit_test(test_lookup),
        cmocka_unit_test(test_figures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
