/* The pair matrix (report/pairs.h, folder/job_pairs.h): a pair's time is
 * the slower side's, the slowest pair and the median pair, the member of
 * summary.json written and read back, bad members named, the text and the
 * heat map. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "folder/job_summary.h"
#include "report/job_summary.h"
#include "report/pairs.h"

#define N 4

/* Rows of 4 ranks: every pair near 10 us, ranks 1 and 2 at 30 us on rank
 * 2's side only (the slower side decides), rank 3 exchanged with nobody but
 * rank 0 (NAN elsewhere). */
static void matrix(double *ns, double *bytes)
{
    for (int i = 0; i < N * N; i++)
        ns[i] = bytes[i] = NAN;
    const int pairs[][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}};
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        int a = pairs[k][0], b = pairs[k][1];
        ns[a * N + b] = 10000 + a + b;
        ns[b * N + a] = 10000 + 2 * (a + b);
        bytes[a * N + b] = bytes[b * N + a] = 65536;
    }
    ns[2 * N + 1] = 30000;
}

static void test_compute(void **state)
{
    (void)state;
    double ns[N * N], bytes[N * N];
    matrix(ns, bytes);
    harness_job_pairs p;
    assert_int_equal(harness_pairs_compute(ns, bytes, N, &p), 0);
    assert_int_equal(p.n, N);
    assert_true(p.bytes == 65536);
    assert_true(harness_pair_ns(&p, 1, 2) == 30000 && harness_pair_ns(&p, 2, 1) == 30000);
    assert_true(harness_pair_ns(&p, 0, 1) == 10002);           /* max(10001, 10002) */
    assert_true(isnan(harness_pair_ns(&p, 1, 3)));
    assert_int_equal(p.slowest_a, 1);
    assert_int_equal(p.slowest_b, 2);
    assert_true(p.slowest_ns == 30000);
    /* pairs 0-1 10002, 0-2 10004, 0-3 10006, 1-2 30000: median of four */
    assert_true(p.median_pair_ns == (10004 + 10006) / 2.0);
    harness_job_pairs_free(&p);
}

static void test_nobody_exchanged(void **state)
{
    (void)state;
    double ns[N * N], bytes[N * N];
    for (int i = 0; i < N * N; i++)
        ns[i] = bytes[i] = NAN;
    ns[0] = 5;                     /* rank 0 with itself: not a pair */
    harness_job_pairs p;
    assert_int_equal(harness_pairs_compute(ns, bytes, N, &p), 0);
    assert_int_equal(p.n, 0);
    assert_null(p.median_ns);
}

static harness_rank_figures rank_ok(int rank)
{
    harness_rank_figures f;
    memset(&f, 0, sizeof f);
    f.rank = rank;
    strcpy(f.status, "ok");
    strcpy(f.host, "node");
    f.n = 10;
    f.median_ns = 100;
    return f;
}

static void test_round_trip(void **state)
{
    (void)state;
    double ns[N * N], bytes[N * N];
    matrix(ns, bytes);
    harness_job_pairs p, back_p;
    assert_int_equal(harness_pairs_compute(ns, bytes, N, &p), 0);
    harness_rank_figures r[N] = {rank_ok(0), rank_ok(1), rank_ok(2), rank_ok(3)};
    char *json = harness_job_summary_json(r, N, "sendrecv/cpu", NULL, &p);
    assert_non_null(json);
    harness_job_summary back;
    harness_error err = {0};
    assert_int_equal(harness_job_summary_parse("summary.json", json, strlen(json), &back, &err), 0);
    back_p = back.pairs;
    assert_int_equal(back_p.n, N);
    assert_int_equal(back_p.slowest_a, 1);
    assert_int_equal(back_p.slowest_b, 2);
    assert_true(back_p.slowest_ns == 30000 && back_p.bytes == 65536);
    for (int i = 0; i < N * N; i++)
        assert_true(isnan(ns[i]) ? isnan(back_p.median_ns[i]) : back_p.median_ns[i] == ns[i]);
    harness_job_summary_free(&back);
    free(json);
    /* Without pairs, no member at all: files of other jobs do not change. */
    json = harness_job_summary_json(r, N, "x/cpu", NULL, NULL);
    assert_null(strstr(json, "\"pairs\""));
    free(json);
    harness_job_pairs_free(&p);
}

/* summary.json with its "pairs" member replaced by `member`. */
static int parse_with(const char *member, harness_error *err)
{
    harness_rank_figures r[1] = {rank_ok(0)};
    char *json = harness_job_summary_json(r, 1, "x/cpu", NULL, NULL);
    cJSON *root = cJSON_Parse(json);
    cJSON_AddItemToObject(root, "pairs", cJSON_Parse(member));
    char *text = cJSON_Print(root);
    harness_job_summary back;
    memset(err, 0, sizeof *err);
    int rc = harness_job_summary_parse("S.json", text, strlen(text), &back, err);
    if (rc == 0)
        harness_job_summary_free(&back);
    free(text);
    cJSON_Delete(root);
    free(json);
    return rc;
}

static void test_bad_members(void **state)
{
    (void)state;
    harness_error err;
    assert_int_equal(parse_with("null", &err), 0);
    assert_int_equal(parse_with("[1]", &err), 2);
    assert_non_null(strstr(err.msg, "pairs: expected an object"));
    assert_int_equal(parse_with("{\"median_ns\": [[null, 1], [1]]}", &err), 2);
    assert_non_null(strstr(err.msg, "pairs.median_ns[1]"));
    assert_int_equal(parse_with("{\"median_ns\": [[null, \"x\"], [1, null]]}", &err), 2);
    assert_non_null(strstr(err.msg, "pairs.median_ns[0][1]: expected a number or null, got a string"));
    assert_int_equal(parse_with("{\"median_ns\": [[null, 1], [1, null]], \"slowest\": {\"ranks\": [0, 5]}}", &err), 2);
    assert_non_null(strstr(err.msg, "pairs.slowest.ranks[1]: expected a rank below 2"));
    assert_int_equal(parse_with("{\"bytes\": 8}", &err), 2);
    assert_non_null(strstr(err.msg, "median_ns"));
    assert_non_null(strstr(err.msg, "S.json"));
}

static char *printed(const harness_job_pairs *p)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    harness_pairs_print(f, p);
    fclose(f);
    return buf;
}

static void test_text_and_html(void **state)
{
    (void)state;
    double ns[N * N], bytes[N * N];
    matrix(ns, bytes);
    harness_job_pairs p;
    assert_int_equal(harness_pairs_compute(ns, bytes, N, &p), 0);
    char *text = printed(&p);
    assert_non_null(strstr(text, "slowest pair: ranks 1 and 2, 30 us (3.00x the median pair"));
    assert_non_null(strstr(text, "64 KiB"));
    free(text);
    char *html = harness_pairs_html(&p, "a<b>/cpu");
    assert_non_null(strstr(html, "a&lt;b&gt;/cpu"));
    assert_null(strstr(html, "a<b>"));
    assert_non_null(strstr(html, "<b>ranks 1 and 2</b>"));
    assert_non_null(strstr(html, "class=\"slowest\" style=\"background:#ff0000\""));   /* the slowest: red */
    assert_non_null(strstr(html, "style=\"background:#ffffff\""));                      /* the fastest: white */
    free(html);
    harness_job_pairs_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compute),
        cmocka_unit_test(test_nobody_exchanged),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_bad_members),
        cmocka_unit_test(test_text_and_html),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
