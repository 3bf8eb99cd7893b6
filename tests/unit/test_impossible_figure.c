/* test_impossible_figure.c - the margin rule of backend/peak_margin.h and
 * report/impossible_figure.h: datasheet against calibrated margins, a
 * figure at, just under and just over its margin, the caches' allowance
 * for bandwidth, and bad inputs; the machine file's record of the spread
 * and the CPU caches read from a made-up sysfs. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "backend/machine_file.h"
#include "backend/peak_margin.h"
#include "report/impossible_figure.h"
#include "util/cpu_caches.h"
#include "assert_near.h"

static char msg[HARNESS_WARNING_LEN];

/* ---- margins ------------------------------------------------------------ */

static void test_datasheet_margin(void **state)
{
    (void)state;
    char why[192];
    /* Computed from the reported clock, or a bandwidth: 5% for rounding. */
    assert_near(harness_peak_margin_datasheet(0, 0, why, sizeof why), 1.05, 1e-12);
    assert_non_null(strstr(why, "a datasheet rate: x1.05"));
    assert_near(harness_peak_margin_datasheet(1830, 1830, NULL, 0), 1.05, 1e-12);
    /* A clock below the quoted one never narrows it. */
    assert_near(harness_peak_margin_datasheet(1500, 1830, NULL, 0), 1.05, 1e-12);
    /* H100 SXM: dense bf16 quoted at 1830 MHz, the device reports 1980. */
    assert_near(harness_peak_margin_datasheet(1980, 1830, why, sizeof why), 1.05 * 1980 / 1830, 1e-12);
    assert_non_null(strstr(why, "x1.082"));
    assert_near(harness_peak_margin_datasheet(NAN, 1830, NULL, 0), 1.05, 1e-12);
}

static void test_calibrated_margin(void **state)
{
    (void)state;
    char why[192];
    harness_rep_spread steady = {99, 99.5, 100}, shaky = {50, 80, 100}, none = {0, 0, 0};
    /* Idle and steady: 1.25 times best over worst. */
    assert_near(harness_peak_margin_calibrated(&steady, 0, why, sizeof why), 1.25 * 100 / 99, 1e-12);
    assert_non_null(strstr(why, "calibrated on an idle machine"));
    /* Idle but shaky: the spread widens it past the default. */
    assert_near(harness_peak_margin_calibrated(&shaky, 0, NULL, 0), 2.5, 1e-12);
    /* Busy: every repetition may be low together; the default covers the
     * 1.57x seen between a quiet run and a copy calibrated under load. */
    assert_near(harness_peak_margin_calibrated(&steady, 1, why, sizeof why), HARNESS_MARGIN_CALIBRATED_DEFAULT,
                1e-12);
    assert_true(HARNESS_MARGIN_CALIBRATED_DEFAULT > 1.57);
    assert_non_null(strstr(why, "busy machine"));
    assert_near(harness_peak_margin_calibrated(&shaky, 1, NULL, 0), 2.5, 1e-12);
    /* Unknown load, or no spread (an older machine file): the default. */
    assert_near(harness_peak_margin_calibrated(&steady, -1, why, sizeof why), 1.75, 1e-12);
    assert_non_null(strstr(why, "does not say"));
    assert_near(harness_peak_margin_calibrated(&none, 0, NULL, 0), 1.75, 1e-12);
    assert_near(harness_peak_margin_calibrated(NULL, 0, NULL, 0), 1.75, 1e-12);
    /* A spread that is not one (out of order, negative, infinite) is no spread. */
    harness_rep_spread bad[] = {{100, 90, 95}, {-1, 1, 2}, {1, 2, INFINITY}, {0, 1, 2}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_false(harness_rep_spread_known(&bad[i]));
        assert_near(harness_peak_margin_calibrated(&bad[i], 0, NULL, 0), 1.75, 1e-12);
    }
    /* A datasheet's margin is narrower than any calibrated one. */
    assert_true(harness_peak_margin_datasheet(0, 0, NULL, 0) < harness_peak_margin_calibrated(&steady, 0, NULL, 0));
}

/* ---- the verdict -------------------------------------------------------- */

static harness_figure flops(double rate, double margin, int calibrated)
{
    return (harness_figure){.what = "FLOP rate", .unit = "FLOP/s", .rate = rate, .peak = 1e12,
                            .peak_name = "fp32 FLOP/s", .source = "the source", .from_machine_file = calibrated,
                            .margin = margin, .margin_why = "the reason"};
}

static void test_datasheet_at_under_over(void **state)
{
    (void)state;
    /* At or below the peak: nothing. */
    assert_int_equal(harness_figure_judge(&(harness_figure){0}, 0, msg, sizeof msg), HARNESS_FIGURE_FINE);
    harness_figure f = flops(1e12, 1.05, 0);
    assert_int_equal(harness_figure_judge(&f, 0, msg, sizeof msg), HARNESS_FIGURE_FINE);
    /* Just above the peak, and at the margin exactly: a warning saying which. */
    f = flops(1.001e12, 1.05, 0);
    assert_int_equal(harness_figure_judge(&f, 0, msg, sizeof msg), HARNESS_FIGURE_ABOVE_PEAK);
    assert_non_null(strstr(msg, "above peak: 100.1% of peak fp32 FLOP/s, within the peak's uncertainty of x1.05 "
                                "(the reason), above the device's datasheet rate"));
    f = flops(1.05e12, 1.05, 0);
    assert_int_equal(harness_figure_judge(&f, 0, msg, sizeof msg), HARNESS_FIGURE_ABOVE_PEAK);
    /* Just over the margin: impossible, in the words the issue gives. */
    f = flops(1.0501e12, 1.05, 0);
    assert_int_equal(harness_figure_judge(&f, 0, msg, sizeof msg), HARNESS_FIGURE_IMPOSSIBLE);
    assert_non_null(strstr(msg, "impossible figure: FLOP rate 1.1 TFLOP/s is above the peak of 1.0 TFLOP/s (fp32 "
                                "FLOP/s: the source); a measurement or a component is wrong: 1.05x the peak, beyond "
                                "its uncertainty of x1.05 (the reason)."));
    assert_non_null(strstr(msg, "The component declares more work than it does"));
    assert_null(strstr(msg, "harness calibrate"));          /* a datasheet cannot be recalibrated */
    assert_non_null(strstr(msg, "; --allow-above-peak keeps such a run"));
    assert_int_equal(harness_figure_judge(&f, 1, msg, sizeof msg), HARNESS_FIGURE_IMPOSSIBLE);
    assert_non_null(strstr(msg, "; kept by --allow-above-peak"));
    assert_near(harness_figure_limit(&f), 1.05e12, 1);
}

/* The case of the issue: a quiet run at 1.57x a peak calibrated under load. */
static void test_calibrated_at_under_over(void **state)
{
    (void)state;
    harness_figure f = flops(1.57e12, 0, 1);       /* margin 0: the default of a calibrated peak */
    assert_near(harness_figure_margin(&f), HARNESS_MARGIN_CALIBRATED_DEFAULT, 1e-12);
    assert_int_equal(harness_figure_judge(&f, 0, msg, sizeof msg), HARNESS_FIGURE_ABOVE_PEAK);
    assert_non_null(strstr(msg, "157.0% of peak fp32 FLOP/s, within the peak's uncertainty of x1.75"));
    assert_non_null(strstr(msg, "re-run harness calibrate"));
    f.rate = 1.75e12;
    assert_int_equal(harness_figure_judge(&f, 0, msg, sizeof msg), HARNESS_FIGURE_ABOVE_PEAK);
    f.rate = 1.7501e12;
    assert_int_equal(harness_figure_judge(&f, 0, msg, sizeof msg), HARNESS_FIGURE_IMPOSSIBLE);
    assert_non_null(strstr(msg, "re-run `harness calibrate` on an idle machine"));
    /* The same figure against a datasheet's peak is long impossible. */
    f = flops(1.57e12, 0, 0);
    assert_near(harness_figure_margin(&f), HARNESS_MARGIN_DATASHEET, 1e-12);
    assert_int_equal(harness_figure_judge(&f, 0, msg, sizeof msg), HARNESS_FIGURE_IMPOSSIBLE);
}

static void test_unknown_inputs_are_never_impossible(void **state)
{
    (void)state;
    const double rates[] = {NAN, INFINITY, -1, 0};
    for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
        harness_figure f = flops(rates[i], 1.05, 0);
        assert_int_equal(harness_figure_judge(&f, 0, msg, sizeof msg), HARNESS_FIGURE_FINE);
    }
    const double peaks[] = {NAN, 0, -1};
    for (size_t i = 0; i < sizeof peaks / sizeof peaks[0]; i++) {
        harness_figure f = flops(1e15, 1.05, 0);
        f.peak = peaks[i];
        assert_int_equal(harness_figure_judge(&f, 0, msg, sizeof msg), HARNESS_FIGURE_FINE);
    }
    /* No reason given: the message still says which margin. */
    harness_figure f = flops(2e12, 1.05, 0);
    f.margin_why = NULL;
    f.source = NULL;
    assert_int_equal(harness_figure_judge(&f, 0, msg, sizeof msg), HARNESS_FIGURE_IMPOSSIBLE);
    assert_non_null(strstr(msg, "(fp32 FLOP/s: source unknown)"));
    assert_non_null(strstr(msg, "x1.05 (the default for its source)"));
}

static harness_figure bandwidth(double rate, double step, double cache, int flushed)
{
    return (harness_figure){.what = "bandwidth", .unit = "B/s", .bandwidth = 1, .rate = rate, .peak = 100e9,
                            .peak_name = "memory bandwidth", .source = "the source", .margin = 1.05,
                            .margin_why = "the reason", .step_bytes = step, .cache_bytes = cache,
                            .caches_flushed = flushed};
}

/* At most the caches' capacity of a step can skip the memory. */
static void test_bandwidth_and_the_caches(void **state)
{
    (void)state;
    const double MiB = 1024.0 * 1024;
    /* 40 MiB steps, 32 MiB of cache: 8 MiB must cross the memory, x5. */
    harness_figure f = bandwidth(400e9, 40 * MiB, 32 * MiB, 0);
    assert_near(harness_figure_cache_factor(&f), 5, 1e-12);
    assert_int_equal(harness_figure_judge(&f, 0, msg, sizeof msg), HARNESS_FIGURE_ABOVE_PEAK);
    assert_non_null(strstr(msg, "above peak: 400.0% of peak bandwidth, within what the caches can serve (up to "
                                "32 MiB of the step's 40 MiB: x5.00 the peak, x5.25 with its uncertainty)"));
    f.rate = 5.25e11;
    assert_int_equal(harness_figure_judge(&f, 0, msg, sizeof msg), HARNESS_FIGURE_ABOVE_PEAK);
    f.rate = 5.2501e11;
    assert_int_equal(harness_figure_judge(&f, 0, msg, sizeof msg), HARNESS_FIGURE_IMPOSSIBLE);
    assert_non_null(strstr(msg, "impossible figure: bandwidth 525.0 GB/s is above the peak of 100.0 GB/s (memory "
                                "bandwidth: the source)"));
    assert_non_null(strstr(msg, "and what the caches can serve (up to 32 MiB of the step's 40 MiB: x5.00)"));
    /* Within the margin alone, the warning names the margin, not the caches. */
    f.rate = 104e9;
    assert_int_equal(harness_figure_judge(&f, 0, msg, sizeof msg), HARNESS_FIGURE_ABOVE_PEAK);
    assert_non_null(strstr(msg, "within the peak's uncertainty of x1.05"));
    /* Flushed caches (schedule.flush_l2): the peak itself bounds it. */
    f = bandwidth(106e9, 40 * MiB, 32 * MiB, 1);
    assert_near(harness_figure_cache_factor(&f), 1, 1e-12);
    assert_int_equal(harness_figure_judge(&f, 0, msg, sizeof msg), HARNESS_FIGURE_IMPOSSIBLE);
    /* A step that fits in cache, or a cache of unknown size: no bound. */
    f = bandwidth(1e15, 1 * MiB, 32 * MiB, 0);
    assert_true(isinf(harness_figure_limit(&f)));
    assert_int_equal(harness_figure_judge(&f, 0, msg, sizeof msg), HARNESS_FIGURE_ABOVE_PEAK);
    assert_non_null(strstr(msg, "its 1 MiB fit in the 32 MiB of cache, so no bound"));
    f = bandwidth(1e15, 40 * MiB, 0, 0);
    assert_int_equal(harness_figure_judge(&f, 0, msg, sizeof msg), HARNESS_FIGURE_ABOVE_PEAK);
    assert_non_null(strstr(msg, "their size is unknown, so no bound"));
    /* The caches never excuse a FLOP rate. */
    f = flops(2e12, 1.05, 0);
    f.step_bytes = 1;
    f.cache_bytes = 1e9;
    assert_near(harness_figure_cache_factor(&f), 1, 1e-12);
}

static void test_format_rate(void **state)
{
    (void)state;
    char buf[48];
    assert_string_equal(harness_format_rate(312.4e9, "B/s", buf, sizeof buf), "312.4 GB/s");
    assert_string_equal(harness_format_rate(1000, "FLOP/s", buf, sizeof buf), "1.0 kFLOP/s");
    assert_string_equal(harness_format_rate(12, "B/s", buf, sizeof buf), "12.0 B/s");
    assert_string_equal(harness_format_rate(2e21, "B/s", buf, sizeof buf), "2000.0 EB/s");
    assert_string_equal(harness_format_rate(999.99e9, "FLOP/s", buf, sizeof buf), "1.0 TFLOP/s");
}

/* ---- the machine file's record ---------------------------------------- */

static void test_machine_file_spread(void **state)
{
    (void)state;
    char path[] = "/tmp/harness-test-impossible.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    harness_machine m, back;
    memset(&m, 0, sizeof m);
    harness_machine_identity_here(&m.id, 1);
    m.flops_per_s = 100;
    m.bytes_per_s = 50;
    m.flops_spread = (harness_rep_spread){90, 95, 100};
    m.bytes_spread = (harness_rep_spread){40, 45, 50};
    m.busy = 0;
    for (int i = 0; i < 3; i++)
        m.load_at_calibration[i] = 0.1;
    harness_error err = {0};
    char why[256];
    assert_int_equal(harness_machine_file_write(path, &m, &err), 0);
    assert_int_equal(harness_machine_file_read(path, &back, why, sizeof why), HARNESS_MACHINE_OK);
    assert_near(back.flops_spread.min, 90, 1e-9);
    assert_near(back.bytes_spread.max, 50, 1e-9);
    assert_int_equal(back.busy, 0);

    /* The run's peaks carry the margins: idle, 1.25 x best over worst. */
    setenv("HARNESS_MACHINE_FILE", path, 1);
    harness_peaks p;
    harness_machine_load_peaks(&p, 1);
    assert_true(p.from_machine_file);
    assert_near(p.flops_margin, 1.25 * 100 / 90, 1e-9);
    assert_near(p.bytes_margin, 1.25 * 50 / 40, 1e-9);
    assert_non_null(strstr(p.bytes_margin_why, "idle machine"));

    /* Busy: the default. */
    m.busy = 1;
    assert_int_equal(harness_machine_file_write(path, &m, &err), 0);
    harness_machine_load_peaks(&p, 1);
    assert_near(p.flops_margin, 1.75, 1e-9);

    /* A peak edited below its own spread's best: the spread no longer
     * describes it, so it is dropped (and the margin is the default). */
    m.busy = 0;
    m.flops_per_s = 10;
    assert_int_equal(harness_machine_file_write(path, &m, &err), 0);
    assert_int_equal(harness_machine_file_read(path, &back, why, sizeof why), HARNESS_MACHINE_OK);
    assert_false(harness_rep_spread_known(&back.flops_spread));
    harness_machine_load_peaks(&p, 1);
    assert_near(p.flops_margin, 1.75, 1e-9);

    /* A file from before the spread: no spread, load verdict unknown. */
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "{\"schema\": \"harness.machine/1\", \"identity\": {\"cpu_model\": \"%s\", \"logical_cpus\": %d, "
               "\"threads\": 1}, \"peaks\": {\"flops_per_s\": 100, \"bytes_per_s\": 50, \"flops_reps_per_s\": "
               "{\"min\": \"x\"}}}", m.id.cpu_model, m.id.logical_cpus);
    fclose(f);
    assert_int_equal(harness_machine_file_read(path, &back, why, sizeof why), HARNESS_MACHINE_OK);
    assert_false(harness_rep_spread_known(&back.flops_spread));
    assert_int_equal(back.busy, -1);
    harness_machine_load_peaks(&p, 1);
    assert_near(p.bytes_margin, 1.75, 1e-9);
    assert_non_null(strstr(p.bytes_margin_why, "does not say"));
    unsetenv("HARNESS_MACHINE_FILE");
    unlink(path);
}

/* ---- the CPU's caches --------------------------------------------------- */

static void put(const char *root, int cpu, int index, const char *attr, const char *value)
{
    char path[512];
    snprintf(path, sizeof path, "%s/cpu%d", root, cpu);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/cpu%d/cache", root, cpu);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/cpu%d/cache/index%d", root, cpu, index);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/cpu%d/cache/index%d/%s", root, cpu, index, attr);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "%s\n", value);
    fclose(f);
}

static void cache(const char *root, int cpu, int index, const char *level, const char *type, const char *size,
                  const char *shared)
{
    put(root, cpu, index, "level", level);
    put(root, cpu, index, "type", type);
    put(root, cpu, index, "size", size);
    put(root, cpu, index, "shared_cpu_list", shared);
}

static void test_cpu_caches(void **state)
{
    (void)state;
    assert_near(harness_cpu_cache_size_parse("32K"), 32768, 0);
    assert_near(harness_cpu_cache_size_parse("32768K\n"), 32 * 1024 * 1024, 0);
    assert_near(harness_cpu_cache_size_parse("2M"), 2 * 1024 * 1024, 0);
    assert_near(harness_cpu_cache_size_parse("512"), 512, 0);
    assert_near(harness_cpu_cache_size_parse("lots"), -1, 0);
    assert_near(harness_cpu_cache_size_parse("32Q"), -1, 0);
    assert_near(harness_cpu_cache_size_parse(""), -1, 0);

    char root[] = "/tmp/harness-test-caches.XXXXXX";
    assert_non_null(mkdtemp(root));
    assert_near(harness_cpu_cache_bytes_at(root), 0, 0);    /* nothing there: unknown */
    /* Two CPUs: a private L1d, L1i and L2 each, one L3 shared. */
    for (int cpu = 0; cpu < 2; cpu++) {
        char own[8];
        snprintf(own, sizeof own, "%d", cpu);
        cache(root, cpu, 0, "1", "Data", "32K", own);
        cache(root, cpu, 1, "1", "Instruction", "32K", own);
        cache(root, cpu, 2, "2", "Unified", "1024K", own);
        cache(root, cpu, 3, "3", "Unified", "32768K", "0-1");
    }
    assert_near(harness_cpu_cache_bytes_at(root), 2 * (32 + 1024) * 1024.0 + 32768 * 1024.0, 0);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
    /* This machine's, for what it is worth: never negative. */
    assert_true(harness_cpu_cache_bytes() >= 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_datasheet_margin),
        cmocka_unit_test(test_calibrated_margin),
        cmocka_unit_test(test_datasheet_at_under_over),
        cmocka_unit_test(test_calibrated_at_under_over),
        cmocka_unit_test(test_unknown_inputs_are_never_impossible),
        cmocka_unit_test(test_bandwidth_and_the_caches),
        cmocka_unit_test(test_format_rate),
        cmocka_unit_test(test_machine_file_spread),
        cmocka_unit_test(test_cpu_caches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
