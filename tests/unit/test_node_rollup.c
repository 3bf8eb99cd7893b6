/* The per-node rollup of a job (report/node_rollup.h): ranks grouped by
 * host, each node's median and slowest rank, and the outlier rule, with its
 * error rates simulated: clean jobs of 4 nodes x 2 ranks with lognormal
 * noise, and the same with one node 1.3x slower. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "report/job_summary.h"
#include "report/node_rollup.h"

static harness_rank_figures rank_on(int rank, const char *host, double median)
{
    harness_rank_figures f;
    memset(&f, 0, sizeof f);
    f.rank = rank;
    strcpy(f.status, "ok");
    snprintf(f.host, sizeof f.host, "%s", host);
    f.n = 10;
    f.median_ns = median;
    return f;
}

/* The job summary's record of a rank, as the rollup reads it. */
static harness_job_rank_record record_of(int rank, const char *host, double median)
{
    return (harness_job_rank_record){.rank = rank, .host = (char *)host, .median_ns = median};
}

/* How many nodes the rule flags among medians[0..n). */
static int flagged(const double *medians, size_t n, int *judged)
{
    harness_job_nodes x = {0};
    assert_int_equal(harness_node_outlier_rule(medians, n, &x), 0);
    *judged = x.judged;
    int k = 0;
    for (size_t i = 0; x.judged == 1 && i < n; i++)
        k += medians[i] > x.threshold_ns;
    return k;
}

static void test_rule_cases(void **state)
{
    (void)state;
    int judged;
    const double two[] = {100, 200};
    assert_int_equal(flagged(two, 2, &judged), 0);
    assert_int_equal(judged, 0);                          /* two nodes: never judged */
    const double three[] = {100, 101, 130};
    assert_int_equal(flagged(three, 3, &judged), 1);      /* 30% above a tight pair */
    assert_int_equal(judged, 1);
    const double tight[] = {100, 100, 100, 109};
    assert_int_equal(flagged(tight, 4, &judged), 0);      /* MAD 0, but 9% is below the minimum effect */
    const double just[] = {100, 100, 100, 111};
    assert_int_equal(flagged(just, 4, &judged), 1);
    const double wide[] = {100, 70, 130, 125};
    assert_int_equal(flagged(wide, 4, &judged), 0);       /* 16% above, within the nodes' spread */
    const double unmeasured[] = {100, NAN, 0, 150};
    assert_int_equal(flagged(unmeasured, 4, &judged), 0); /* two measured: not judged */
    assert_int_equal(judged, 0);
    const double fast[] = {100, 101, 99, 50};
    assert_int_equal(flagged(fast, 4, &judged), 0);       /* only slow nodes are outliers */
    harness_job_nodes x = {0};
    const double ten[] = {100, 100, 100, 100, 100, 100, 100, 100, 104, 96};
    assert_int_equal(harness_node_outlier_rule(ten, 10, &x), 0);
    assert_true(x.center_ns == 100 && x.mad_ns == 0 && fabs(x.threshold_ns - 110) < 1e-9);
}

/* ---- simulation ------------------------------------------------------------ */

static uint64_t rng = 0x9e3779b97f4a7c15u;

static double uniform(void)                  /* (0, 1), xorshift64* */
{
    rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
    return ((double)((rng * 2685821657736338717u) >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(void)                   /* Box-Muller */
{
    return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

#define JOBS 10000
#define NODES 4
#define RANKS_PER_NODE 2
/* Each rank's median: lognormal around 1 ms with sigma 3%, a spread wider
 * than outlier.sh measures between ranks of a quiet bed. */
#define SIGMA 0.03

/* Of JOBS simulated jobs with node `slow` slowed by `factor` (no node when
 * -1), how many flag that node (slow >= 0) or any node (slow -1). */
static int simulate(int slow, double factor)
{
    int hits = 0;
    for (int job = 0; job < JOBS; job++) {
        static const char *const hosts[NODES] = {"node0", "node1", "node2", "node3"};
        harness_job_rank_record r[NODES * RANKS_PER_NODE];
        for (int i = 0; i < NODES * RANKS_PER_NODE; i++) {
            int node = i / RANKS_PER_NODE;
            r[i] = record_of(i, hosts[node], 1e6 * exp(SIGMA * normal()) * (node == slow ? factor : 1));
        }
        harness_job_nodes x;
        assert_int_equal(harness_node_rollup(r, NODES * RANKS_PER_NODE, &x), 0);
        assert_int_equal((int)x.n, NODES);
        assert_int_equal(x.judged, 1);
        int any = 0;
        for (size_t i = 0; i < x.n; i++)
            any |= x.list[i].outlier;
        hits += slow >= 0 ? x.list[slow].outlier : any;
        harness_job_nodes_free(&x);
    }
    return hits;
}

static void test_simulated_error_rates(void **state)
{
    (void)state;
    int false_positives = simulate(-1, 1), found = simulate(2, 1.3);
    printf("simulated %d jobs of %d nodes x %d ranks, sigma %.0f%%: a node flagged in %d clean jobs, "
           "the 1.3x node in %d\n", JOBS, NODES, RANKS_PER_NODE, 100 * SIGMA, false_positives, found);
    assert_true(false_positives < JOBS / 100);   /* < 1% false positives */
    assert_true(found > JOBS * 99 / 100);        /* > 99% power */
}

/* ---- the rollup in the job summary ------------------------------------------- */

static void test_grouping(void **state)
{
    (void)state;
    /* --map-by node: ranks alternate between the hosts. The records in
     * another order than the ranks': the nodes still come by lowest rank. */
    harness_job_rank_record rec[6] = {record_of(1, "b", 300), record_of(0, "a", 100), record_of(2, "c", 100),
                                      record_of(3, "a", 110), record_of(4, "b", 310), record_of(5, "c", 0)};
    harness_job_nodes x;
    assert_int_equal(harness_node_rollup(rec, 6, &x), 0);
    assert_int_equal((int)x.n, 3);
    assert_string_equal(x.list[0].host, "a");
    assert_string_equal(x.list[1].host, "b");
    assert_int_equal((int)x.list[1].n_ranks, 2);
    assert_int_equal(x.list[1].ranks[0], 1);
    assert_int_equal(x.list[1].ranks[1], 4);
    assert_true(x.list[0].median_ns == 105);
    assert_int_equal(x.list[0].slowest_rank, 3);
    assert_true(x.list[1].slowest_median_ns == 310);
    assert_int_equal(x.list[2].ranks_measured, 1);      /* rank 5 measured nothing */
    assert_int_equal(x.nodes_measured, 3);
    assert_int_equal(x.judged, 1);
    assert_true(x.list[1].outlier && !x.list[0].outlier && !x.list[2].outlier);
    assert_true(fabs(x.list[1].excess - (305.0 / 105 - 1)) < 1e-12);
    harness_job_nodes_free(&x);

    harness_rank_figures r[6] = {rank_on(0, "a", 100), rank_on(1, "b", 300), rank_on(2, "c", 100),
                                 rank_on(3, "a", 110), rank_on(4, "b", 310), rank_on(5, "c", 0)};
    char *json = harness_job_summary_json(r, 6, "x/cpu", NULL, NULL, NULL);
    cJSON *root = cJSON_Parse(json);
    const cJSON *nodes = cJSON_GetObjectItem(root, "nodes");
    assert_non_null(nodes);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(nodes, "judged")));
    const cJSON *b = cJSON_GetArrayItem(cJSON_GetObjectItem(nodes, "list"), 1);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(b, "outlier")));
    assert_int_equal(cJSON_GetObjectItem(b, "slowest_rank")->valueint, 4);
    cJSON_Delete(root);
    free(json);
    char *text = harness_job_summary_text(r, 6, "x/cpu", NULL, NULL, NULL);
    assert_non_null(strstr(text, "per node"));
    assert_non_null(strstr(text, "1,4"));
    assert_non_null(strstr(text, "OUTLIER"));
    assert_non_null(strstr(text, "outlier nodes: 1 of 3"));
    free(text);

    /* Two nodes: the table, and why no node is judged. */
    text = harness_job_summary_text(r, 2, "x/cpu", NULL, NULL, NULL);
    assert_non_null(strstr(text, "not judged, 2 nodes measured (the rule needs 3)"));
    assert_null(strstr(text, "OUTLIER"));
    free(text);
    /* One node: no table. */
    harness_rank_figures one[2] = {rank_on(0, "a", 100), rank_on(1, "a", 200)};
    text = harness_job_summary_text(one, 2, "x/cpu", NULL, NULL, NULL);
    assert_null(strstr(text, "per node"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rule_cases),
        cmocka_unit_test(test_simulated_error_rates),
        cmocka_unit_test(test_grouping),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
