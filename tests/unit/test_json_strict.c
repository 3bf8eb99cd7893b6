/* test_json_strict.c - util/json_strict.c: what cJSON lets through and a
 * reader of outside files must refuse, and what must still pass. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/json_strict.h"
#include "folder/status.h"

static int check(const char *text, size_t len, harness_json_problem *p)
{
    return harness_json_check_strict(text, len, p);
}

/* Refused, at `offset`, with `why` in the reason. */
static void refused(const char *text, size_t len, size_t offset, const char *why)
{
    harness_json_problem p;
    assert_int_equal(check(text, len, &p), -1);
    if (!strstr(p.why, why))
        fail_msg("for %s: '%s' lacks '%s'", text, p.why, why);
    assert_int_equal(p.offset, offset);
}
#define REFUSED(lit, off, why) refused(lit, sizeof lit - 1, off, why)

static void test_accepts_json(void **state)
{
    (void)state;
    static const char *const ok[] = {
        "{}", "[]", "0", "-0.5e+10", "\"\"", " {\"a\": [1, 2.5, -3e-2, true, false, null], \"b\": {\"a\": 1}} \n",
        "\"caf\xc3\xa9 \xf0\x9f\x98\x80 \\u00e9 \\ud83d\\ude00 \\\" \\\\ \\/ \\b\\f\\n\\r\\t\"",
        "{\"a\": 1, \"A\": 2, \"a \": 3}",
    };
    harness_json_problem p;
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (check(ok[i], strlen(ok[i]), &p) != 0)
            fail_msg("refused %s: %s at %zu", ok[i], p.why, p.offset);
}

static void test_refuses_trailing_bytes(void **state)
{
    (void)state;
    REFUSED("{\"a\": 1} x", 9, "trailing bytes");
    REFUSED("{\"a\": 1}{}", 8, "trailing bytes");
    REFUSED("{\"a\": 1}\0garbage", 8, "NUL byte after");
    REFUSED("1 2", 2, "trailing bytes");
}

static void test_refuses_nul_in_strings(void **state)
{
    (void)state;
    REFUSED("{\"a\": \"x\\u0000y\"}", 8, "\\u0000");
    REFUSED("{\"a\": \"x\0y\"}", 8, "NUL byte inside a string");
    REFUSED("{\"k\\u0000\": 1}", 3, "\\u0000");
}

static void test_refuses_duplicate_keys(void **state)
{
    (void)state;
    REFUSED("{\"rank\": 0, \"x\": 1, \"rank\": 1}", 20, "duplicate key \"rank\"");
    /* The same key however it is escaped. */
    REFUSED("{\"a\": 0, \"\\u0061\": 1}", 9, "duplicate key \"a\"");
    REFUSED("{\"o\": {\"t\": 1, \"t\": 2}}", 15, "duplicate key \"t\"");
}

static void test_refuses_invalid_utf8(void **state)
{
    (void)state;
    REFUSED("\"\xc3\x28\"", 1, "invalid UTF-8");
    REFUSED("\"\xc0\xaf\"", 1, "invalid UTF-8");          /* overlong '/' */
    REFUSED("\"\xed\xa0\x80\"", 1, "invalid UTF-8");      /* a surrogate, encoded */
    REFUSED("\"\xf4\x90\x80\x80\"", 1, "invalid UTF-8");  /* past U+10FFFF */
    REFUSED("\"ab\xff\"", 3, "invalid UTF-8");
    REFUSED("\"\\ud800\"", 1, "unpaired");
    REFUSED("\"\\udc00\\ud800\"", 1, "unpaired");
}

static void test_refuses_malformed(void **state)
{
    (void)state;
    REFUSED("", 0, "unexpected end");
    REFUSED("{\"a\" 1}", 5, "expected ':'");
    REFUSED("{\"a\": 1,}", 8, "expected a string key");
    REFUSED("[1,]", 3, "expected a value");
    REFUSED("[01]", 2, "expected ',' or ']'");
    REFUSED("[1.]", 1, "malformed number");
    REFUSED("\"abc", 0, "unterminated");
    REFUSED("\"\\x\"", 1, "unknown escape");
    REFUSED("\"a\tb\"", 2, "control character");
    REFUSED("nul", 0, "expected a value");
    REFUSED("NaN", 0, "expected a value");
    size_t depth = 600;
    char *deep = malloc(2 * depth + 1);
    memset(deep, '[', depth);
    memset(deep + depth, ']', depth);
    deep[2 * depth] = '\0';
    harness_json_problem p;
    assert_int_equal(check(deep, 2 * depth, &p), -1);
    assert_non_null(strstr(p.why, "nested deeper"));
    free(deep);
}

/* status.json is written by a signal handler's own JSON writer: it must be
 * strict JSON whatever the message holds. */
static void test_status_file_is_strict_json(void **state)
{
    (void)state;
    char dir[] = "/tmp/harness-status-XXXXXX";
    assert_non_null(mkdtemp(dir));
    harness_status_file f;
    harness_error err = {0};
    assert_int_equal(harness_status_file_create(&f, dir, "status.json", "k\"ey/cpu", &err), 0);
    char msg[9000];
    memset(msg, 'x', sizeof msg - 1);
    msg[sizeof msg - 1] = '\0';
    memcpy(msg, "quote \" backslash \\ newline \n tab \t bytes \xff\xc3\x28 \x01", 47);
    static const int64_t steps[] = {-1, 0, INT64_MAX};
    for (int long_msg = 0; long_msg < 2; long_msg++)
        for (size_t i = 0; i < 3; i++) {
            if (!long_msg)
                msg[60] = '\0';
            harness_status st = {.status = "crashed", .exit_code = 3, .signal = 11, .error = msg,
                                 .variant_key = "k\"ey/cpu", .callback = "step", .phase = "measurement",
                                 .step = steps[i], .summaries = 1};
            assert_int_equal(harness_status_file_write(&f, &st, 1), 0);
            FILE *in = fopen(f.path, "rb");
            char buf[16384];
            size_t n = fread(buf, 1, sizeof buf, in);
            fclose(in);
            harness_json_problem p;
            if (check(buf, n, &p) != 0)
                fail_msg("status.json: %s at %zu: %.*s", p.why, p.offset, (int)n, buf);
            if (!long_msg)
                msg[60] = 'x';
        }
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accepts_json),
        cmocka_unit_test(test_refuses_trailing_bytes),
        cmocka_unit_test(test_refuses_nul_in_strings),
        cmocka_unit_test(test_refuses_duplicate_keys),
        cmocka_unit_test(test_refuses_invalid_utf8),
        cmocka_unit_test(test_refuses_malformed),
        cmocka_unit_test(test_status_file_is_strict_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
