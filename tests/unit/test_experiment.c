/* test_experiment.c - the experiment folder's name (report/experiment.c,
 * docs/ARCHITECTURE.md section 7): <output_dir>/<YYYY-MM-DD__HH-MM-SS>_<hash8>, "-2",
 * "-3", ... for runs in the same second, the output dir made on the way,
 * errors that name the path; and the ranks' file names. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "report/experiment.h"

static char root[64];

static int setup(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "/tmp/harness-exp.XXXXXX");
    return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void test_same_second(void **state)
{
    (void)state;
    char out[128], want[256], stamp[32];
    snprintf(out, sizeof out, "%s/a/b", root);   /* made on the way */
    time_t when = 1767225600;                    /* any fixed second */
    struct tm tm;
    localtime_r(&when, &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%d__%H-%M-%S", &tm);
    harness_error err = {0};
    harness_experiment e;
    const char *suffix[] = {"", "-2", "-3"};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(harness_experiment_create(&e, out, when, "0123abcd", &err), 0);
        snprintf(want, sizeof want, "%s/%s_0123abcd%s", out, stamp, suffix[i]);
        assert_string_equal(e.dir, want);
        assert_true(is_dir(e.dir));
    }
    /* Another config in the same second: its own name, no suffix. */
    assert_int_equal(harness_experiment_create(&e, out, when, "ffff0000", &err), 0);
    snprintf(want, sizeof want, "%s/%s_ffff0000", out, stamp);
    assert_string_equal(e.dir, want);
}

static void test_errors_name_the_path(void **state)
{
    (void)state;
    char file[128];
    snprintf(file, sizeof file, "%s/plain", root);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    harness_error err = {0};
    harness_experiment e;
    /* output_dir is a file: exit 3 naming it */
    assert_int_equal(harness_experiment_create(&e, file, 0, "0123abcd", &err), 3);
    assert_non_null(strstr(err.msg, file));
    /* a path past the buffer: exit 3, not a truncated folder */
    char longdir[4200];
    memset(longdir, 'x', sizeof longdir - 1);
    longdir[0] = '/';
    longdir[sizeof longdir - 1] = '\0';
    err = (harness_error){0};
    assert_int_equal(harness_experiment_create(&e, longdir, 0, "0123abcd", &err), 3);
    assert_true(err.msg[0] != '\0');
}

static void test_rank_file(void **state)
{
    (void)state;
    char buf[64];
    assert_string_equal(harness_rank_file(buf, sizeof buf, "summary", 4, 3, "json"), "summary_ranks_4_rank_3.json");
    harness_experiment e;
    snprintf(e.dir, sizeof e.dir, "/x/y");
    assert_string_equal(harness_experiment_path(&e, "status.json", buf, sizeof buf), "/x/y/status.json");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_second),
        cmocka_unit_test(test_errors_name_the_path),
        cmocka_unit_test(test_rank_file),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
