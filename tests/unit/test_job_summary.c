/* The cross-rank summary from synthetic per-rank figures: across-rank
 * statistics, skew, the slowest rank overall and per window, status. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "report/job_summary.h"

static harness_rank_figures rank_of(int rank, const char *status, double median, const double *windows, int nw)
{
    harness_rank_figures f;
    memset(&f, 0, sizeof f);
    f.rank = rank;
    strcpy(f.status, status);
    strcpy(f.host, "node");
    f.n = 100;
    f.median_ns = median;
    f.p90_ns = median * 1.1;
    f.n_windows = nw;
    memcpy(f.window_median_ns, windows, sizeof *windows * (size_t)nw);
    return f;
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    assert_non_null(v);
    return v->valuedouble;
}

static void test_four_ranks(void **state)
{
    (void)state;
    const double w0[] = {100, 110}, w1[] = {140, 90}, w2[] = {120, 130}, w3[] = {95, 105};
    harness_rank_figures r[4] = {rank_of(0, "ok", 105, w0, 2), rank_of(1, "ok", 115, w1, 2),
                                 rank_of(2, "ok", 125, w2, 2), rank_of(3, "ok", 100, w3, 2)};
    char *json = harness_job_summary_json(r, 4, "x/cpu", NULL, NULL);
    cJSON *root = cJSON_Parse(json);
    assert_non_null(root);
    assert_string_equal(cJSON_GetObjectItem(root, "status")->valuestring, "ok");
    const cJSON *a = cJSON_GetObjectItem(root, "across_ranks");
    assert_true(num(a, "min_median") == 100 && num(a, "max_median") == 125);
    assert_true(num(a, "median_median") == 110);  /* of 100, 105, 115, 125 */
    assert_true(num(a, "skew") == 1.25);
    assert_int_equal((int)num(a, "slowest_rank"), 2);
    assert_int_equal((int)num(a, "fastest_rank"), 3);
    const cJSON *w = cJSON_GetObjectItem(root, "windows");
    assert_int_equal(cJSON_GetArraySize(w), 2);
    assert_int_equal((int)num(cJSON_GetArrayItem(w, 0), "slowest_rank"), 1);
    assert_int_equal((int)num(cJSON_GetArrayItem(w, 1), "slowest_rank"), 2);
    assert_true(num(cJSON_GetArrayItem(w, 1), "slowest_median_ns") == 130);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(root, "ranks")), 4);
    cJSON_Delete(root);
    free(json);

    char *text = harness_job_summary_text(r, 4, "x/cpu", NULL, NULL);
    assert_non_null(strstr(text, "skew (max / min) 1.250"));
    assert_non_null(strstr(text, "window 1: slowest rank 1"));
    free(text);
}

/* A failed rank with nothing measured: the job is failed, the statistics
 * are over the ranks that measured. */
static void test_failed_rank(void **state)
{
    (void)state;
    const double w[] = {200};
    harness_rank_figures r[2] = {rank_of(0, "ok", 200, w, 1), rank_of(1, "failed", 0, w, 0)};
    char *json = harness_job_summary_json(r, 2, "x/cpu", NULL, NULL);
    cJSON *root = cJSON_Parse(json);
    assert_string_equal(cJSON_GetObjectItem(root, "status")->valuestring, "failed");
    const cJSON *a = cJSON_GetObjectItem(root, "across_ranks");
    assert_int_equal((int)num(a, "ranks_measured"), 1);
    assert_true(num(a, "skew") == 1);
    assert_int_equal((int)num(a, "slowest_rank"), 0);
    cJSON_Delete(root);
    free(json);
}

static void test_stragglers(void **state)
{
    (void)state;
    /* 3 ranks x 4 steps: rank 2 slowest at steps 0 and 3, rank 0 at 1, a tie at 2 goes to rank 0. */
    const double samples[] = {5, 9, 7, 1,
                              4, 8, 7, 2,
                              6, 3, 6, 3};
    size_t counts[3];
    harness_job_stragglers(samples, 3, 4, counts);
    assert_int_equal(counts[0], 2);
    assert_int_equal(counts[1], 0);
    assert_int_equal(counts[2], 2);
    const double w[] = {1};
    harness_rank_figures r[3] = {rank_of(0, "ok", 6, w, 1), rank_of(1, "ok", 5.5, w, 1), rank_of(2, "ok", 4.5, w, 1)};
    char *json = harness_job_summary_json(r, 3, "x/cpu", counts, NULL);
    cJSON *root = cJSON_Parse(json);
    assert_int_equal((int)num(cJSON_GetArrayItem(cJSON_GetObjectItem(root, "ranks"), 2), "straggler_steps"), 2);
    cJSON_Delete(root);
    free(json);
    char *text = harness_job_summary_text(r, 3, "x/cpu", counts, NULL);
    assert_non_null(strstr(text, "rank 0 2, rank 1 0, rank 2 2"));
    free(text);
}

/* summary.txt prints times as stdout does, with a unit: "32 ms", never
 * "32000094.2". */
static void test_text_units(void **state)
{
    (void)state;
    const double w[] = {32000094.2};
    harness_rank_figures r[1] = {rank_of(0, "ok", 32000094.2, w, 1)};
    char *text = harness_job_summary_text(r, 1, "x/cpu", NULL, NULL);
    assert_null(strstr(text, "32000094"));
    assert_non_null(strstr(text, " 32 ms "));             /* the rank's row */
    assert_non_null(strstr(text, "35.2 ms"));             /* its p90 */
    assert_non_null(strstr(text, "medians 32 ms, min 32 ms (rank 0)"));
    assert_non_null(strstr(text, "window 1: slowest rank 0 (median 32 ms)"));
    free(text);

    /* The communication line too: 15 GiB and 153.7 s, not "16106127360
     * bytes, 153744.500 ms" (issue 40). */
    r[0].comm_calls = 1800;
    r[0].comm_bytes = 16106127360.0;
    r[0].comm_ns = 153744.5e6;
    text = harness_job_summary_text(r, 1, "x/cpu", NULL, NULL);
    assert_null(strstr(text, "16106127360"));
    assert_null(strstr(text, "153744"));
    assert_non_null(strstr(text, "rank 0 communication: 1800 calls, 15 GiB, 153.7 s in collectives"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_four_ranks),
        cmocka_unit_test(test_failed_rank),
        cmocka_unit_test(test_stragglers),
        cmocka_unit_test(test_text_units),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
