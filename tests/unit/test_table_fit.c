/* test_table_fit.c - util/table_fit.h's text within a terminal's width:
 * columns counted as a terminal shows them (a UTF-8 character one, a
 * colour escape none) and lines wrapped at spaces, a path kept whole
 * (issue 40 item 3). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/table_fit.h"

/* harness_wrap_fputs of text into a string (the caller frees it). */
static char *wrapped(const char *text, int width, int indent)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    assert_non_null(f);
    harness_wrap_fputs(f, text, width, indent);
    assert_int_equal(fclose(f), 0);
    return out;
}

static void expect_wrap(const char *text, int width, int indent, const char *want)
{
    char *got = wrapped(text, width, indent);
    assert_string_equal(got, want);
    free(got);
}

static void test_columns(void **state)
{
    (void)state;
    assert_int_equal(harness_text_columns("abc"), 3);
    assert_int_equal(harness_text_columns("\xc2\xb1 0.01"), 6);            /* ± is one column, two bytes */
    assert_int_equal(harness_text_columns("\033[31mREGRESSION\033[0m"), 10); /* colour takes none */
    assert_int_equal(harness_text_columns(""), 0);
}

static void test_wrap(void **state)
{
    (void)state;
    /* Within the width, or no width: as it is. */
    expect_wrap("a b c\n", 80, 2, "a b c\n");
    expect_wrap("aaa bbb ccc ddd\n", 0, 2, "aaa bbb ccc ddd\n");
    /* At spaces, the continuation indented; a line's own indent kept. */
    expect_wrap("aaa bbb ccc ddd\n", 9, 2, "aaa bbb\n  ccc ddd\n");
    expect_wrap("  aaa bbb ccc\n", 9, 2, "  aaa bbb\n    ccc\n");
    /* The spaces between words as they were, dropped where a line breaks. */
    expect_wrap("a  (b)  ccc dd\n", 9, 0, "a  (b)\nccc dd\n");
    /* A word wider than a line (a path) stands whole on a line of its own. */
    expect_wrap("x /a/very/long/path y\n", 8, 2, "x\n  /a/very/long/path\n  y\n");
    /* Characters, not bytes: five two-byte characters fit in 5 columns. */
    expect_wrap("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9 ab\n", 6, 0, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\nab\n");
    /* Colour escapes take no column. */
    expect_wrap("\033[33mAMBIGUOUS\033[0m: x y\n", 13, 2, "\033[33mAMBIGUOUS\033[0m: x\n  y\n");
    /* Each line on its own; no newline at the end stays none. */
    expect_wrap("aa bb\ncc dd", 3, 0, "aa\nbb\ncc\ndd");
    /* Every wrapped line within the width. */
    char *got = wrapped("replicates: the runs when a side holds several of one key (processes), else the windows "
                        "of its one run (which share its offset: they bound a change, never call one)\n", 40, 2);
    for (char *line = strtok(got, "\n"); line; line = strtok(NULL, "\n"))
        assert_true(harness_text_columns(line) <= 40);
    free(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_columns),
        cmocka_unit_test(test_wrap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
