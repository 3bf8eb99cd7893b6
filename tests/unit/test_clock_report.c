/* The SM clock in the summaries (report/clock_report.h): the kept steps'
 * lowest and median clock, the throttled steps per window and in total,
 * lock_clocks's outcome, every sample's clock (null when unknown); and
 * nothing at all for a CPU run. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/clock_report.h"

/* Two windows of 3 samples; window 2 dropped 2 steps (power cap) and kept 1. */
static double samples[] = {10, 11, 12, 13, 14, 15};
static double clocks[] = {1980, 1965, NAN, 1500, 1950, 1980};
static size_t starts[] = {0, 3, 6};
static harness_window_clocks wclocks[] = {
    {.readings = 3},
    {.readings = 5, .dropped = 2, .kept_throttled = 1, .paused_ns = 15e6, .throttle_reasons = 0x4},
};
static harness_device_state wdev[] = {{1980, 1980, 0}, {1500, 1980, 0x4}};

static void gpu_summary(harness_summary *s, harness_config *cfg, harness_backend *b, harness_run_result *r)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->throttle_threshold = 0.75;
    cfg->lock_clocks = "max";
    memset(b, 0, sizeof *b);
    snprintf(b->info.clock_lock, sizeof b->info.clock_lock, "max not permitted: NVML_ERROR_NO_PERMISSION "
             "(Insufficient Permissions), locking clocks needs root; clocks float");
    memset(r, 0, sizeof *r);
    r->samples_ns = samples;
    r->sample_clock_mhz = clocks;
    r->n_samples = 6;
    r->window_start = starts;
    r->n_windows = 2;
    r->window_clocks = wclocks;
    r->window_device = wdev;
    memset(s, 0, sizeof *s);
    s->cfg = cfg;
    s->backend = b;
    s->run = r;
    s->device = "cuda";
    s->world_size = 1;
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    assert_non_null(v);
    return v->valuedouble;
}

static void test_json(void **state)
{
    (void)state;
    harness_summary s;
    harness_config cfg;
    harness_backend b;
    harness_run_result r;
    gpu_summary(&s, &cfg, &b, &r);
    cJSON *timing = cJSON_CreateObject();
    harness_clock_report_json(&s, timing);
    const cJSON *c = cJSON_GetObjectItem(timing, "device_clocks");
    assert_non_null(c);
    assert_true(num(c, "sm_clock_min_mhz") == 1500);
    assert_true(num(c, "sm_clock_median_mhz") == 1965);    /* of the five known */
    assert_true(num(c, "sm_clock_max_mhz") == 1980);
    assert_true(num(c, "throttle_threshold") == 0.75);
    assert_true(num(c, "throttled_steps_dropped") == 2);
    assert_true(num(c, "throttled_steps_kept") == 1);
    assert_true(num(c, "readings") == 8);
    assert_true(num(c, "pause_ms") == 15);
    assert_string_equal(cJSON_GetObjectItem(c, "throttle_reasons")->valuestring, "sw_power_cap");
    assert_string_equal(cJSON_GetObjectItem(c, "lock_clocks")->valuestring, "max");
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(c, "clocks_locked")));
    assert_non_null(strstr(cJSON_GetObjectItem(c, "lock")->valuestring, "max not permitted: "));
    char *text = cJSON_PrintUnformatted(cJSON_GetObjectItem(c, "samples"));
    assert_string_equal(text, "[1980, 1965, null, 1500, 1950, 1980]");
    free(text);
    cJSON_Delete(timing);

    cJSON *win = cJSON_CreateObject();
    harness_clock_report_window_json(&s, 0, win);
    c = cJSON_GetObjectItem(win, "device_clocks");
    assert_true(num(c, "sm_clock_min_mhz") == 1965 && num(c, "throttled_steps_dropped") == 0);
    cJSON_Delete(win);
    win = cJSON_CreateObject();
    harness_clock_report_window_json(&s, 1, win);
    c = cJSON_GetObjectItem(win, "device_clocks");
    assert_true(num(c, "sm_clock_median_mhz") == 1950 && num(c, "throttled_steps_dropped") == 2);
    cJSON_Delete(win);

    /* a big run's clocks in the side file: named, not inline */
    snprintf(s.clock_samples_file, sizeof s.clock_samples_file, "sm_clock_samples_ranks_1_rank_0.bin");
    timing = cJSON_CreateObject();
    harness_clock_report_json(&s, timing);
    c = cJSON_GetObjectItem(timing, "device_clocks");
    assert_null(cJSON_GetObjectItem(c, "samples"));
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(c, "samples_file"), "unit")->valuestring, "MHz");
    cJSON_Delete(timing);
    assert_true(harness_clock_sample_for_file(NAN) == 0 && harness_clock_sample_for_file(1410) == 1410);
}

static char *printed(const harness_summary *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    harness_clock_report_print(f, s);
    fclose(f);
    return buf;
}

static void test_text(void **state)
{
    (void)state;
    harness_summary s;
    harness_config cfg;
    harness_backend b;
    harness_run_result r;
    gpu_summary(&s, &cfg, &b, &r);
    char *t = printed(&s);
    assert_non_null(strstr(t, "SM clock of the kept steps: lowest 1500 MHz, median 1965 MHz (most 1980; 8 readings"));
    assert_non_null(strstr(t, "throttled steps (SM clock below 0.75 of the most, sw_power_cap): 2 dropped and "
                              "measured again, 1 kept, 15.0 ms of recovery pauses"));
    assert_non_null(strstr(t, "  window 2: 2 dropped and measured again, 1 kept\n"));
    assert_null(strstr(t, "  window 1:"));
    assert_non_null(strstr(t, "lock_clocks: max not permitted: NVML_ERROR_NO_PERMISSION"));
    free(t);
}

/* The CPU: no object, no line. */
static void test_cpu_says_nothing(void **state)
{
    (void)state;
    harness_summary s;
    harness_config cfg;
    harness_backend b;
    harness_run_result r;
    gpu_summary(&s, &cfg, &b, &r);
    s.device = "cpu";
    r.sample_clock_mhz = NULL;
    cJSON *timing = cJSON_CreateObject();
    harness_clock_report_json(&s, timing);
    assert_null(cJSON_GetObjectItem(timing, "device_clocks"));
    cJSON_Delete(timing);
    char *t = printed(&s);
    assert_string_equal(t, "");
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_cpu_says_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
