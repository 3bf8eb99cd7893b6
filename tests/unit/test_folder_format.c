/* test_folder_format.c - the experiment folder's format (folder/folder_format.h)
 * round trip: what the writers write, the readers read back, field by
 * field; and a file of another schema refused with the file named. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "compare/compare.h"
#include "cli/suite_index.h"
#include "compare/folder_ranks.h"
#include "report/summary.h"
#include "folder/folder_format.h"
#include "util/fsutil.h"
#include "folder/status.h"

static void test_rank_file_names_parse_back(void **state)
{
    (void)state;
    char name[64];
    int ws = 0, rank = 0;
    harness_rank_file(name, sizeof name, HARNESS_PREFIX_SUMMARY, 4, 3, "json");
    assert_string_equal(name, "summary_ranks_4_rank_3.json");
    assert_int_equal(harness_rank_file_parse(name, HARNESS_PREFIX_SUMMARY, &ws, &rank), 1);
    assert_int_equal(ws, 4);
    assert_int_equal(rank, 3);
    assert_int_equal(harness_rank_file_parse(name, HARNESS_PREFIX_STATUS, &ws, &rank), 0);
    assert_int_equal(harness_rank_file_parse("summary_ranks_4_rank_03.json", HARNESS_PREFIX_SUMMARY, &ws, &rank), 0);
    assert_int_equal(harness_rank_file_parse("summary_ranks_99999999_rank_0.json", HARNESS_PREFIX_SUMMARY, &ws, &rank),
                     -1);
    /* Rank 0's status file is the folder's. */
    assert_string_equal(harness_status_file_name(name, sizeof name, 4, 0), HARNESS_FILE_STATUS);
    assert_string_equal(harness_status_file_name(name, sizeof name, 4, 2), "status_ranks_4_rank_2.json");
}

static char *temp_folder(void)
{
    char *dir = strdup("/tmp/test_folder_format.XXXXXX");
    assert_non_null(dir);
    assert_non_null(mkdtemp(dir));
    return dir;
}

static void remove_folder(char *dir)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    free(dir);
}

static void test_status_round_trip(void **state)
{
    (void)state;
    char *dir = temp_folder();
    harness_status_file f;
    harness_error err = {0};
    assert_int_equal(harness_status_file_create(&f, dir, HARNESS_FILE_STATUS, "spin.cpu", &err), 0);
    harness_status st = {.status = "failed", .exit_code = 3, .error = "step: boom", .variant_key = "spin.cpu",
                         .step = -1};
    assert_int_equal(harness_status_file_write(&f, &st, 1), 0);

    harness_folder_ranks fr;
    assert_int_equal(harness_folder_ranks_read(dir, &fr, &err), 0);
    assert_int_equal(fr.n, 1);
    assert_string_equal(fr.ranks[0].status_file, HARNESS_FILE_STATUS);
    assert_string_equal(fr.ranks[0].status, "failed");
    assert_false(fr.ranks[0].ok);
    assert_string_equal(fr.ranks[0].error, "step: boom");
    assert_string_equal(fr.ranks[0].variant_key, "spin.cpu");
    harness_folder_ranks_free(&fr);

    /* The schema the writer wrote is the one the format names. */
    char path[256], *text = NULL;
    snprintf(path, sizeof path, "%s/%s", dir, HARNESS_FILE_STATUS);
    assert_int_equal(harness_read_file(path, &text, NULL, &err), 0);
    cJSON *root = cJSON_Parse(text);
    char why[256];
    assert_int_equal(harness_schema_check(root, HARNESS_SCHEMA_STATUS, why, sizeof why), 0);
    assert_int_equal(harness_schema_check(root, HARNESS_SCHEMA_SUMMARY, why, sizeof why), 1);
    assert_non_null(strstr(why, "schema \"" HARNESS_SCHEMA_STATUS "\" is not \"" HARNESS_SCHEMA_SUMMARY "\""));
    cJSON_Delete(root);
    free(text);
    remove_folder(dir);
}

/* Two windows of 20 steps, the second twice as slow: the windows disagree. */
typedef struct made_summary {
    double samples[40], wall[2], cpu[2];
    size_t starts[3];
    const char *reasons[2];
    harness_run_result run;
    harness_config cfg;
    harness_clock clk;
    harness_summary s;
} made_summary;

static void make_summary(made_summary *m)
{
    memset(m, 0, sizeof *m);
    for (int i = 0; i < 20; i++) {
        m->samples[i] = 1000 + i;
        m->samples[20 + i] = 2000 + i;
    }
    m->starts[1] = 20;
    m->starts[2] = 40;
    m->reasons[0] = m->reasons[1] = "max_steps";
    m->wall[0] = m->wall[1] = m->cpu[0] = m->cpu[1] = 1e5;
    m->run = (harness_run_result){.samples_ns = m->samples, .n_samples = 40, .window_start = m->starts,
                                  .n_windows = 2, .stop_reason = m->reasons, .window_wall_ns = m->wall,
                                  .window_cpu_ns = m->cpu};
    m->cfg.repeat = 2;
    m->cfg.stop_max_rel_ci = 1e-9;
    m->clk = (harness_clock){.resolution_ns = 20, .name = "clock_gettime"};
    m->s.status = "ok";
    m->s.rank = 1;
    m->s.world_size = 2;
    m->s.variant_key = "spin.cpu";
    m->s.device = "cpu";
    m->s.cfg = &m->cfg;
    m->s.clock = &m->clk;
    m->s.run = &m->run;
    m->s.env.logical_cpus = m->s.env.affinity_cpus = 8;
    m->s.env.omp_threads = 1;
    assert_int_equal(harness_summary_compute(&m->s), 0);
}

static void test_summary_round_trip(void **state)
{
    (void)state;
    made_summary *m = malloc(sizeof *m);
    assert_non_null(m);
    make_summary(m);
    char *text = harness_summary_json(&m->s);
    assert_non_null(text);

    harness_run_summary r;
    harness_error err = {0};
    assert_int_equal(harness_run_summary_parse("summary_ranks_2_rank_1.json", text, strlen(text), &r, &err), 0);
    assert_string_equal(r.status, "ok");
    assert_null(r.error);
    assert_int_equal(r.rank, 1);
    assert_int_equal(r.world_size, 2);
    assert_string_equal(r.variant_key, "spin.cpu");
    assert_int_equal(r.n_samples, 40);
    for (size_t i = 0; i < 40; i++)
        assert_true(r.samples[i] == m->samples[i]);
    assert_true(r.stats.median == m->s.overall.median);
    assert_int_equal(r.n_windows, 2);
    assert_true(r.window_medians[0] == m->s.windows[0].median);
    assert_true(r.window_medians[1] == m->s.windows[1].median);
    /* Verdict facts as fields, never as warning text. */
    assert_int_equal(r.windows_disagree, m->s.windows_disagree);
    assert_true(r.windows_disagree);
    assert_true(isnan(m->s.noise.median_shift_bound) ? isnan(r.noise_bound)
                                                     : fabs(r.noise_bound - m->s.noise.median_shift_bound) < 1e-12);
    harness_run_summary_free(&r);
    free(text);
    harness_summary_release(&m->s);
    free(m);
}

/* A suite's index, written for two runs of one config and read back. */
static void test_suite_index_round_trip(void **state)
{
    (void)state;
    harness_suite_config config = {.path = "configs/spin.yaml", .kept_points = 1};
    char folders1[] = "/out/suite/a\n", folders2[] = "/elsewhere/b\n";
    harness_suite_run runs[2] = {{.config = 0, .run = 1, .exit_code = 0, .folders = folders1},
                                 {.config = 0, .run = 2, .exit_code = 1, .folders = folders2}};
    harness_suite s = {.sel = {.configs = &config, .n_configs = 1}, .runs = runs, .n_runs = 2};
    char *text = harness_suite_index_json(&s, 2, NULL, "/out/suite", "failed");
    assert_non_null(text);
    cJSON *root = cJSON_Parse(text);
    char why[256];
    assert_int_equal(harness_schema_check(root, HARNESS_SCHEMA_SUITE, why, sizeof why), 0);
    assert_string_equal(cJSON_GetObjectItem(root, "status")->valuestring, "failed");
    assert_int_equal(cJSON_GetObjectItem(root, "runs")->valueint, 2);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(root, "filter")));
    const cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "configs"), 0);
    assert_string_equal(cJSON_GetObjectItem(c, "path")->valuestring, "configs/spin.yaml");
    assert_int_equal(cJSON_GetObjectItem(c, "points_kept")->valueint, 1);
    const cJSON *experiments = cJSON_GetObjectItem(root, "experiments");
    assert_int_equal(cJSON_GetArraySize(experiments), 2);
    const cJSON *e1 = cJSON_GetArrayItem(experiments, 0), *e2 = cJSON_GetArrayItem(experiments, 1);
    assert_string_equal(cJSON_GetObjectItem(e1, "config")->valuestring, "configs/spin.yaml");
    assert_int_equal(cJSON_GetObjectItem(e2, "run")->valueint, 2);
    assert_int_equal(cJSON_GetObjectItem(e2, "exit_code")->valueint, 1);
    /* Folders inside the suite's are relative to it; others stay whole. */
    assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(e1, "folders"), 0)->valuestring, "a");
    assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(e2, "folders"), 0)->valuestring, "/elsewhere/b");
    cJSON_Delete(root);
    free(text);
}

/* A folder whose summary has another schema: exit 2, the file named. */
static void test_unknown_schema_names_the_file(void **state)
{
    (void)state;
    char *dir = temp_folder();
    char path[256];
    snprintf(path, sizeof path, "%s/summary_ranks_1_rank_0.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"schema\": \"harness.summary/9\", \"status\": \"ok\", \"rank\": 0, \"world_size\": 1}", f);
    fclose(f);

    harness_compare_side side;
    memset(&side, 0, sizeof side);
    harness_error err = {0};
    assert_int_equal(harness_compare_side_load(dir, &side, &err), HARNESS_EXIT_USAGE);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "schema \"harness.summary/9\" is not \"" HARNESS_SCHEMA_SUMMARY "\""));
    harness_compare_side_free(&side);
    remove_folder(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rank_file_names_parse_back),
        cmocka_unit_test(test_status_round_trip),
        cmocka_unit_test(test_summary_round_trip),
        cmocka_unit_test(test_suite_index_round_trip),
        cmocka_unit_test(test_unknown_schema_names_the_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
