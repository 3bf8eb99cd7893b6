/* test_sample_file.c - folder/samples.c: samples written and read back
 * bit for bit; every way a side file can be wrong (short, foreign,
 * another version, truncated, trailing bytes, another count, unit or
 * checksum, a sample that is no duration) is an error of exit code 2 that
 * names the file. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "folder/samples.h"

static char dir[64];
static char path[128];

static int setup(void **state)
{
    (void)state;
    strcpy(dir, "/tmp/test_sample_file.XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(path, sizeof path, "%s/samples_ranks_1_rank_0.bin", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(path);
    rmdir(dir);
    return 0;
}

static unsigned char *slurp(size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    rewind(f);
    unsigned char *data = malloc(*len + 1);
    assert_non_null(data);
    assert_int_equal(fread(data, 1, *len, f), *len);
    fclose(f);
    return data;
}

static void test_round_trip(void **state)
{
    (void)state;
    /* Values whose text form would round: the file keeps every bit. */
    size_t n = 100003;
    double *v = malloc(n * sizeof *v);
    assert_non_null(v);
    for (size_t i = 0; i < n; i++)
        v[i] = i % 3 ? 0.1 * (double)i + 1.0 / 3.0 : nextafter(30.0 + (double)i, INFINITY);
    v[0] = 0.0;
    char sha[65];
    harness_error err = {0};
    assert_int_equal(harness_sample_file_write(path, v, n, "ns", sha, &err), 0);
    assert_int_equal(strlen(sha), 64);

    size_t len;
    unsigned char *data = slurp(&len);
    assert_int_equal(len, HARNESS_SAMPLE_FILE_HEADER + 8 * n);
    assert_memory_equal(data, "HSAMPLES\1\0\0\0\40\0\0\0", 16);   /* magic, version 1, header 32, little-endian */
    assert_memory_equal(data + 24, "ns\0\0\0\0\0\0", 8);
    free(data);

    harness_sample_file_expect expect = {.count = (long long)n, .sha256_hex = sha, .unit = "ns"};
    double *back;
    size_t got;
    assert_int_equal(harness_sample_file_read(path, &expect, &back, &got, &err), 0);
    assert_int_equal(got, n);
    assert_memory_equal(back, v, n * sizeof *v);
    free(back);
    free(v);
}

static void test_empty(void **state)
{
    (void)state;
    char sha[65];
    harness_error err = {0};
    assert_int_equal(harness_sample_file_write(path, NULL, 0, "ns", sha, &err), 0);
    harness_sample_file_expect expect = {.count = 0, .sha256_hex = sha};
    double *back = (double *)&err;
    size_t got = 7;
    assert_int_equal(harness_sample_file_read(path, &expect, &back, &got, &err), 0);
    assert_int_equal(got, 0);
    assert_null(back);
}

/* Decoding `data` fails with code 2, naming the file and saying `why`. */
static void expect_bad(const unsigned char *data, size_t len, const harness_sample_file_expect *expect,
                       const char *why)
{
    double *out;
    size_t n;
    harness_error err = {0};
    assert_int_equal(harness_sample_file_decode("exp/samples_ranks_1_rank_0.bin", data, len, expect, &out, &n, &err),
                     HARNESS_EXIT_USAGE);
    if (!strstr(err.msg, "exp/samples_ranks_1_rank_0.bin") || !strstr(err.msg, why))
        fail_msg("expected the file and \"%s\" in: %s", why, err.msg);
    assert_null(out);
}

static void test_bad_files(void **state)
{
    (void)state;
    double v[4] = {1, 2, 3, 4};
    char sha[65];
    harness_error err = {0};
    assert_int_equal(harness_sample_file_write(path, v, 4, "ns", sha, &err), 0);
    size_t len;
    unsigned char *data = slurp(&len);
    const harness_sample_file_expect any = {.count = -1};

    expect_bad(data, 10, &any, "shorter than its 32-byte header");
    expect_bad(data, len - 8, &any, "truncated: the header says 4 samples");
    expect_bad(data, len - 3, &any, "truncated");
    unsigned char *longer = malloc(len + 8);
    memcpy(longer, data, len);
    memset(longer + len, 0, 8);
    expect_bad(longer, len + 8, &any, "trailing bytes");
    free(longer);

    expect_bad(data, len, &(harness_sample_file_expect){.count = 5}, "4 samples, the summary says 5");
    expect_bad(data, len, &(harness_sample_file_expect){.count = -1, .unit = "us"}, "unit \"ns\"");
    char other[65];
    memset(other, 'a', 64);
    other[64] = '\0';
    expect_bad(data, len, &(harness_sample_file_expect){.count = 4, .sha256_hex = other}, "SHA-256");

    unsigned char copy[64];
    memcpy(copy, data, len);
    copy[0] = 'X';
    expect_bad(copy, len, &any, "no \"HSAMPLES\" at its start");
    memcpy(copy, data, len);
    copy[8] = 2;
    expect_bad(copy, len, &any, "version 2");
    memcpy(copy, data, len);
    copy[12] = 200;
    expect_bad(copy, len, &any, "a header of 200 bytes");
    memcpy(copy, data, len);
    double neg = -1.0, nan_value = NAN;
    memcpy(copy + 32 + 8, &neg, 8);
    expect_bad(copy, len, &any, "sample 1 is -1");
    memcpy(copy + 32 + 8, &nan_value, 8);
    expect_bad(copy, len, &any, "sample 1 is nan");
    free(data);

    /* A corrupt sample changes the checksum first. */
    data = slurp(&len);
    data[len - 1] ^= 1;
    expect_bad(data, len, &(harness_sample_file_expect){.count = 4, .sha256_hex = sha}, "changed since the run");
    free(data);

    double *out;
    size_t n;
    assert_int_equal(harness_sample_file_read("/nonexistent/samples_ranks_1_rank_0.bin", &any, &out, &n, &err),
                     HARNESS_EXIT_USAGE);
    assert_non_null(strstr(err.msg, "/nonexistent/samples_ranks_1_rank_0.bin: cannot read"));
    assert_int_equal(harness_sample_file_read(dir, &any, &out, &n, &err), HARNESS_EXIT_USAGE);
    assert_non_null(strstr(err.msg, "cannot read the samples file the summary names: Is a directory"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_files, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
