/* test_warnings.c - report/warnings.c: each rule on facts made up to sit
 * on either side of its threshold, then all of them over a summary; and a
 * roofline above its peak, flagged in the text, the JSON and the warnings. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "report/roofline.h"
#include "report/summary.h"
#include "report/warnings.h"
#include "util/sched_tick.h"
#include "assert_near.h"

static char msg[HARNESS_WARNING_LEN];

static harness_load_facts idle_machine(void)
{
    return (harness_load_facts){.logical_cpus = 8, .affinity_cpus = 8, .omp_threads = 4, .load_start = 0.2,
                                .load_end = 4.1, .own_cpu_s_start = 0};
}

static void test_oversubscribed_threads_beyond_affinity(void **state)
{
    (void)state;
    harness_load_facts f = idle_machine();
    assert_false(harness_warn_oversubscribed(&f, msg, sizeof msg));
    f.omp_threads = 8;             /* as many threads as CPUs: fine */
    f.load_end = 8.0;
    assert_false(harness_warn_oversubscribed(&f, msg, sizeof msg));
    f.omp_threads = 16;
    assert_true(harness_warn_oversubscribed(&f, msg, sizeof msg));
    assert_non_null(strstr(msg, "oversubscribed: 16 OpenMP threads on 8 CPUs"));
    /* The affinity mask counts, not the machine: taskset -c 0-1. */
    f = idle_machine();
    f.affinity_cpus = 2;
    assert_true(harness_warn_oversubscribed(&f, msg, sizeof msg));
}

/* Free cores = logical_cpus - omp_threads = 4; the slack is 0.5. */
static void test_oversubscribed_by_load(void **state)
{
    (void)state;
    harness_load_facts f = idle_machine();
    f.load_start = 4.4;
    assert_false(harness_warn_oversubscribed(&f, msg, sizeof msg));
    f.load_start = 4.6;
    assert_true(harness_warn_oversubscribed(&f, msg, sizeof msg));
    assert_non_null(strstr(msg, "load average 4.60 from other work"));
    /* The run's own threads come off the end load: 8.4 - 4 = 4.4, fine. */
    f = idle_machine();
    f.load_end = 8.4;
    assert_false(harness_warn_oversubscribed(&f, msg, sizeof msg));
    f.load_end = 8.7;              /* 4.7 from others even with the run's 4 threads off */
    assert_true(harness_warn_oversubscribed(&f, msg, sizeof msg));
    /* A sweep's earlier points (120 CPU s: up to 2.0 of the load) are not others'. */
    f = idle_machine();
    f.load_start = 6.0;
    f.own_cpu_s_start = 120;
    assert_false(harness_warn_oversubscribed(&f, msg, sizeof msg));
    /* Every core taken by the run: one busy process elsewhere is enough. */
    f = (harness_load_facts){.logical_cpus = 2, .affinity_cpus = 2, .omp_threads = 2, .load_start = 1.0,
                             .load_end = 1.0};
    assert_true(harness_warn_oversubscribed(&f, msg, sizeof msg));
    /* A single-threaded component leaves 7 of 8 cores free, whatever
     * OMP_NUM_THREADS says: the measured busy threads count. */
    f = idle_machine();
    f.omp_threads = 8;
    f.load_start = 5.0;
    assert_true(harness_warn_oversubscribed(&f, msg, sizeof msg));
    f.busy_threads = 1.0;
    assert_false(harness_warn_oversubscribed(&f, msg, sizeof msg));
    f.busy_threads = 3.95;             /* 4 cores held: 4 free, 5.0 > 4.5 */
    assert_true(harness_warn_oversubscribed(&f, msg, sizeof msg));
    /* No /proc/loadavg: no verdict from the load. */
    f = idle_machine();
    f.load_start = f.load_end = NAN;
    assert_false(harness_warn_oversubscribed(&f, msg, sizeof msg));
}

/* calibrate's check is the run's rule over calibrate's own threads: 2
 * threads on 8 CPUs leave 6 free, so other work's load must pass 6.5. */
static void test_busy_calibration(void **state)
{
    (void)state;
    double idle[3] = {0.3, 0.2, 0.1}, busy[3] = {6.9, 5.2, 3.0}, after[3] = {0.4, 0.2, 0.1};
    assert_false(harness_warn_busy_calibration(idle, after, 8, 8, 2, msg, sizeof msg));
    assert_true(harness_warn_busy_calibration(busy, after, 8, 8, 2, msg, sizeof msg));
    assert_non_null(strstr(msg, "calibrate ran on a busy machine (oversubscribed: load average 6.90 from other work"));
    assert_non_null(strstr(msg, "(1, 5, 15 min): 6.90 5.20 3.00"));
    assert_non_null(strstr(msg, "peaks measured are low"));
    assert_non_null(strstr(msg, "re-run harness calibrate when the machine is idle"));
    /* Every core measured: one busy process elsewhere is enough. */
    double one[3] = {1.0, 1.0, 1.0};
    assert_true(harness_warn_busy_calibration(one, one, 2, 2, 2, msg, sizeof msg));
    /* More threads than the affinity mask allows. */
    assert_true(harness_warn_busy_calibration(idle, after, 8, 2, 4, msg, sizeof msg));
    assert_non_null(strstr(msg, "4 OpenMP threads on 2 CPUs"));
    /* No /proc/loadavg: no verdict, and the figures are not made up. */
    double unknown[3] = {NAN, NAN, NAN};
    assert_false(harness_warn_busy_calibration(unknown, unknown, 8, 8, 2, msg, sizeof msg));
    assert_true(harness_warn_busy_calibration(unknown, unknown, 8, 2, 4, msg, sizeof msg));
    assert_non_null(strstr(msg, "(1, 5, 15 min): unknown"));
}

static void test_above_peak(void **state)
{
    (void)state;
    assert_false(harness_warn_above_peak("fp32 FLOP/s", 99.9, 0, 1, NULL, msg, sizeof msg));
    assert_false(harness_warn_above_peak("fp32 FLOP/s", 100.0, 0, 1, NULL, msg, sizeof msg));
    assert_false(harness_warn_above_peak("fp32 FLOP/s", NAN, 0, 1, NULL, msg, sizeof msg));
    assert_true(harness_warn_above_peak("fp32 FLOP/s", 108.4, 0, 1, NULL, msg, sizeof msg));
    assert_string_equal(msg, "above peak: 108.4% of peak fp32 FLOP/s, above the machine file's peak: the file is "
                             "stale or was calibrated on a busy machine; re-run harness calibrate");
    /* Why it is a warning and not an impossible figure, when known. */
    assert_true(harness_warn_above_peak("fp32 FLOP/s", 108.4, 0, 1, "within the peak's uncertainty of x1.75 (x)",
                                        msg, sizeof msg));
    assert_non_null(strstr(msg, "108.4% of peak fp32 FLOP/s, within the peak's uncertainty of x1.75 (x), above the "
                                "machine file's peak"));
    assert_true(harness_warn_above_peak("bandwidth", 130, 1, 1, NULL, msg, sizeof msg));
    assert_non_null(strstr(msg, "re-run harness calibrate (or the step's data stays in cache"));
    /* A datasheet's peak cannot be stale: the figure is wrong. */
    assert_true(harness_warn_above_peak("dense bf16 FLOP/s", 101, 0, 0, NULL, msg, sizeof msg));
    assert_non_null(strstr(msg, "of peak dense bf16 FLOP/s, above the device's datasheet rate: the component's "
                                "declared cost"));
    assert_null(strstr(msg, "harness calibrate"));
    assert_true(harness_warn_above_peak("bandwidth", 101, 1, 0, NULL, msg, sizeof msg));
    assert_non_null(strstr(msg, "schedule.flush_l2"));
}

static harness_stats window(size_t n, double lo, double median, double hi, double level)
{
    harness_stats st;
    memset(&st, 0, sizeof st);
    st.n = n;
    st.median = median;
    st.ci95_lo = lo;
    st.ci95_hi = hi;
    st.ci_level = level;
    return st;
}

static void test_windows_disagree(void **state)
{
    (void)state;
    harness_stats w[3] = {window(100, 990, 1000, 1010, 0.96), window(100, 1000, 1005, 1020, 0.96),
                          window(100, 995, 1002, 1030, 0.96)};
    assert_false(harness_warn_windows_disagree(w, 3, msg, sizeof msg));
    w[2] = window(100, 1100, 1110, 1120, 0.96);   /* the third moved up, clear of the first */
    assert_true(harness_warn_windows_disagree(w, 3, msg, sizeof msg));
    assert_non_null(strstr(msg, "windows disagree: window 1's CI of the median [990 ns, 1.01 us] and window 3's "
                                "[1.1 us, 1.12 us] are 9.0% apart"));
    /* Disjoint by less than 1% of the median: too small to matter. */
    w[2] = window(100, 1019, 1020, 1021, 0.96);
    assert_false(harness_warn_windows_disagree(w, 3, msg, sizeof msg));
    w[2] = window(100, 1021, 1022, 1023, 0.96);    /* 1.1% clear of window 1 */
    assert_true(harness_warn_windows_disagree(w, 3, msg, sizeof msg));
    /* Touching intervals overlap. */
    w[2] = window(100, 1010, 1015, 1020, 0.96);
    assert_false(harness_warn_windows_disagree(w, 3, msg, sizeof msg));
    /* One window: nothing to compare. */
    assert_false(harness_warn_windows_disagree(w, 1, msg, sizeof msg));
}

/* A 2-step window's CI covers the median half the time: it takes no part. */
static void test_windows_with_weak_cis_are_not_compared(void **state)
{
    (void)state;
    harness_stats w[2] = {window(2, 990, 1000, 1010, 0.5), window(100, 2000, 2005, 2010, 0.96)};
    assert_false(harness_warn_windows_disagree(w, 2, msg, sizeof msg));
    w[0] = window(5, 990, 1000, 1010, 0.9375);     /* n = 5: 93.75%, compared */
    assert_true(harness_warn_windows_disagree(w, 2, msg, sizeof msg));
    harness_stats empty[2] = {window(0, 0, 0, 0, NAN), window(100, 2000, 2005, 2010, 0.96)};
    assert_false(harness_warn_windows_disagree(empty, 2, msg, sizeof msg));
}

static void test_near_resolution(void **state)
{
    (void)state;
    assert_true(harness_warn_near_resolution(150, 20, msg, sizeof msg));   /* 7.5 ticks */
    assert_non_null(strstr(msg, "within 10 ticks"));
    assert_false(harness_warn_near_resolution(200, 20, msg, sizeof msg));  /* exactly 10: fine */
    assert_false(harness_warn_near_resolution(1e6, 20, msg, sizeof msg));
    assert_false(harness_warn_near_resolution(150, NAN, msg, sizeof msg));
    assert_false(harness_warn_near_resolution(150, 0, msg, sizeof msg));
}

static void test_not_converged(void **state)
{
    (void)state;
    harness_stats st = window(50, 900, 1000, 1100, 0.96);
    assert_true(harness_warn_not_converged(1, "max_steps", &st, 0.01, msg, sizeof msg));
    assert_non_null(strstr(msg, "window 2 did not converge: it stopped on max_steps after 50 steps"));
    assert_non_null(strstr(msg, "+-10%"));
    assert_true(harness_warn_not_converged(0, "max_time", &st, 0.01, msg, sizeof msg));
    assert_false(harness_warn_not_converged(0, "converged", &st, 0.01, msg, sizeof msg));
    assert_false(harness_warn_not_converged(0, "steps", &st, 0.01, msg, sizeof msg));
    assert_false(harness_warn_not_converged(0, "interrupted", &st, 0.01, msg, sizeof msg));
}

static void test_list_is_bounded(void **state)
{
    (void)state;
    harness_warnings w = {0};
    for (int i = 0; i < HARNESS_MAX_WARNINGS + 5; i++)
        harness_warnings_add(&w, "warning %d", i);
    assert_int_equal(w.n, HARNESS_MAX_WARNINGS);
    assert_string_equal(w.text[0], "warning 0");
}

/* Over a whole summary: two auto windows of disjoint timings that both ran
 * out of steps, on a quiet machine, timed with a fine clock. */
static void test_collect_over_a_summary(void **state)
{
    (void)state;
    double samples[40];
    for (int i = 0; i < 20; i++) {
        samples[i] = 1000 + i;         /* window 1: 1000..1019 ns */
        samples[20 + i] = 2000 + i;    /* window 2: 2000..2019 ns */
    }
    size_t starts[3] = {0, 20, 40};
    const char *reasons[2] = {"max_steps", "max_steps"};
    double wall[2] = {1e5, 1e5}, cpu[2] = {1e5, 1e5};
    harness_run_result run = {.samples_ns = samples, .n_samples = 40, .window_start = starts, .n_windows = 2,
                              .stop_reason = reasons, .window_wall_ns = wall, .window_cpu_ns = cpu};
    harness_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.measurement_steps = 0;
    cfg.repeat = 2;
    cfg.stop_max_rel_ci = 1e-9;
    harness_clock clk = {.resolution_ns = 20, .name = "clock_gettime"};
    harness_summary s;
    memset(&s, 0, sizeof s);
    s.status = "ok";
    s.cfg = &cfg;
    s.clock = &clk;
    s.run = &run;
    s.env.logical_cpus = s.env.affinity_cpus = 8;
    s.env.omp_threads = 1;
    s.env.load_start[0] = s.env.load_end[0] = 0.1;
    assert_int_equal(harness_summary_compute(&s), 0);
    assert_int_equal(s.warnings.n, 3);
    assert_non_null(strstr(s.warnings.text[0], "window 1 did not converge"));
    assert_non_null(strstr(s.warnings.text[1], "window 2 did not converge"));
    assert_non_null(strstr(s.warnings.text[2], "windows disagree: window 1"));
    /* The windows' medians as samples: n = 2, a 50% interval. */
    assert_int_equal(s.across_windows.n, 2);
    assert_true(fabs(s.across_windows.ci_level - 0.5) < 1e-12);
    harness_summary_release(&s);

    clk.resolution_ns = 200;           /* ~1000 ns medians are < 10 ticks of 200 ns */
    s.env.omp_threads = 16;            /* on 8 CPUs */
    assert_int_equal(harness_summary_compute(&s), 0);
    assert_int_equal(s.warnings.n, 5);
    assert_non_null(strstr(s.warnings.text[0], "oversubscribed: 16 OpenMP threads"));
    assert_non_null(strstr(s.warnings.text[4], "within 10 ticks"));
    harness_summary_release(&s);
}

/* One window of 1 us steps moving 1 MB and doing 1 MFLOP per step: 1 TB/s
 * and 1 TFLOP/s at the median, against the backend's peaks. */
typedef struct roofline_fixture {
    double samples[10];
    size_t starts[2];
    const char *reasons[1];
    double wall[1], cpu[1];
    harness_run_result run;
    harness_config cfg;
    harness_clock clk;
    harness_backend backend;
    harness_summary s;
} roofline_fixture;

static void roofline_summary(roofline_fixture *x, double bytes_per_s, double flops_per_s, int from_machine_file)
{
    memset(x, 0, sizeof *x);
    for (int i = 0; i < 10; i++)
        x->samples[i] = 1000;
    x->starts[1] = 10;
    x->reasons[0] = "steps";
    x->wall[0] = x->cpu[0] = 1e4;
    x->run = (harness_run_result){.samples_ns = x->samples, .n_samples = 10, .window_start = x->starts,
                                  .n_windows = 1, .stop_reason = x->reasons, .window_wall_ns = x->wall,
                                  .window_cpu_ns = x->cpu};
    x->cfg.measurement_steps = 10;
    x->cfg.repeat = 1;
    x->clk = (harness_clock){.resolution_ns = 1, .name = "clock_gettime"};
    x->backend.name = "cpu";
    x->backend.peaks.bytes_per_s = bytes_per_s;
    x->backend.peaks.flops_per_s = flops_per_s;
    x->backend.peaks.from_machine_file = from_machine_file;
    snprintf(x->backend.peaks.source, sizeof x->backend.peaks.source, "m.json (measured today)");
    x->s.status = "ok";
    x->s.cfg = &x->cfg;
    x->s.clock = &x->clk;
    x->s.run = &x->run;
    x->s.backend = &x->backend;
    x->s.cost = (harness_cost){.size = sizeof x->s.cost, .bytes = 1e6, .flops = 1e6};
    x->s.env.logical_cpus = x->s.env.affinity_cpus = 8;
    x->s.env.omp_threads = 1;
    x->s.env.load_start[0] = x->s.env.load_end[0] = 0.1;
}

static char *roofline_text(const harness_summary *s)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    harness_roofline_print(f, s);
    fclose(f);
    return text;
}

/* The keys of the JSON's roofline.above_peak, joined by spaces. */
static void above_peak_keys(const harness_summary *s, char *out, size_t cap)
{
    cJSON *o = harness_roofline_json(s);
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "above_peak");
    assert_true(cJSON_IsArray(a));
    out[0] = '\0';
    for (const cJSON *k = a->child; k; k = k->next)
        snprintf(out + strlen(out), cap - strlen(out), "%s%s", out[0] ? " " : "", k->valuestring);
    cJSON_Delete(o);
}

/* The reported case: a machine file calibrated on a busy machine. */
static void test_roofline_above_machine_file_peak(void **state)
{
    (void)state;
    roofline_fixture x;
    char keys[256];
    roofline_summary(&x, 2e12, 2e12, 1);   /* 50% of both peaks: nothing to say */
    assert_int_equal(harness_summary_compute(&x.s), 0);
    assert_int_equal(x.s.warnings.n, 0);
    char *text = roofline_text(&x.s);
    assert_non_null(strstr(text, "50.0% of peak bandwidth (2000.0 GB/s), 50.0% of peak fp32 FLOP/s"));
    assert_null(strstr(text, "ABOVE PEAK"));
    free(text);
    above_peak_keys(&x.s, keys, sizeof keys);
    assert_string_equal(keys, "");
    harness_summary_release(&x.s);

    x.backend.peaks.flops_per_s = 1e12 / 1.084;  /* the run reaches 108.4% of it */
    assert_int_equal(harness_summary_compute(&x.s), 0);
    assert_int_equal(x.s.warnings.n, 1);
    /* Within a calibrated peak's default uncertainty (x1.75): a warning that says so. */
    assert_non_null(strstr(x.s.warnings.text[0], "above peak: 108.4% of peak fp32 FLOP/s, within the peak's "
                                                 "uncertainty of x1.75 (the default for its source), above the "
                                                 "machine file's peak: the file is stale or was calibrated on a busy "
                                                 "machine; re-run harness calibrate"));
    assert_string_equal(x.s.impossible.what, "");
    text = roofline_text(&x.s);
    assert_non_null(strstr(text, "108.4% of peak fp32 FLOP/s (922.5 GFLOP/s) ABOVE PEAK\n"));
    assert_non_null(strstr(text, "\n  above peak: 108.4% of peak fp32 FLOP/s, within"));
    free(text);
    above_peak_keys(&x.s, keys, sizeof keys);
    assert_string_equal(keys, "percent_of_peak_flops");
    harness_summary_release(&x.s);

    x.backend.peaks.bytes_per_s = 5e11;          /* 200% of the bandwidth too */
    assert_int_equal(harness_summary_compute(&x.s), 0);
    assert_int_equal(x.s.warnings.n, 2);
    /* The cache's size is unknown here: part of the step may be cached, so no bound. */
    assert_non_null(strstr(x.s.warnings.text[0], "above peak: 200.0% of peak bandwidth, where the caches may serve "
                                                 "the step (their size is unknown, so no bound), above"));
    assert_string_equal(x.s.impossible.what, "");
    above_peak_keys(&x.s, keys, sizeof keys);
    assert_string_equal(keys, "percent_of_peak_bandwidth percent_of_peak_flops");
    harness_summary_release(&x.s);
}

/* On a GPU the fp32 percent passes 100 when tensor cores do the work; only
 * a rate above the highest FLOP/s peak known is impossible. */
static void test_roofline_above_datasheet_peak(void **state)
{
    (void)state;
    roofline_fixture x;
    char keys[256];
    roofline_summary(&x, 4e12, 5e11, 0);    /* 200% of fp32 */
    x.backend.name = "cuda";
    x.backend.peaks.fp16_flops_per_s = x.backend.peaks.bf16_flops_per_s = 4e12;  /* 25% */
    assert_int_equal(harness_summary_compute(&x.s), 0);
    assert_int_equal(x.s.warnings.n, 0);
    char *text = roofline_text(&x.s);
    assert_non_null(strstr(text, "200.0% of peak fp32 FLOP/s (500.0 GFLOP/s) (tensor-core work)"));
    assert_null(strstr(text, "ABOVE PEAK"));
    free(text);
    above_peak_keys(&x.s, keys, sizeof keys);
    assert_string_equal(keys, "");
    harness_summary_release(&x.s);

    x.backend.peaks.bf16_flops_per_s = 9.8e11;   /* 102% of the top peak: bf16, within a datasheet's 5% */
    x.backend.peaks.fp16_flops_per_s = 6e11;
    assert_int_equal(harness_summary_compute(&x.s), 0);
    assert_int_equal(x.s.warnings.n, 1);
    assert_non_null(strstr(x.s.warnings.text[0], "above peak: 102.0% of peak dense bf16 FLOP/s, within the peak's "
                                                 "uncertainty of x1.05"));
    assert_non_null(strstr(x.s.warnings.text[0], "above the device's datasheet rate"));
    assert_string_equal(x.s.impossible.what, "");
    text = roofline_text(&x.s);
    assert_non_null(strstr(text, "200.0% of peak fp32 FLOP/s (500.0 GFLOP/s) ABOVE PEAK"));
    assert_non_null(strstr(text, "of dense bf16 (1.0 TFLOP/s) ABOVE PEAK"));
    free(text);
    above_peak_keys(&x.s, keys, sizeof keys);
    assert_string_equal(keys, "percent_of_peak_flops percent_of_peak_fp16_flops percent_of_peak_bf16_flops");
    harness_summary_release(&x.s);

    /* 125% of a datasheet peak is beyond its uncertainty: the run's error,
     * not a warning (pipeline/run_point.c fails on it). */
    x.backend.peaks.bf16_flops_per_s = 8e11;
    assert_int_equal(harness_summary_compute(&x.s), 0);
    assert_int_equal(x.s.warnings.n, 0);
    assert_string_equal(x.s.impossible.what, "flops");
    assert_false(x.s.impossible.allowed);
    assert_near(x.s.impossible.limit, 8e11 * 1.05, 1);
    assert_non_null(strstr(x.s.impossible.message, "impossible figure: FLOP rate 1.0 TFLOP/s is above the peak of "
                                                   "800.0 GFLOP/s (dense bf16 FLOP/s: m.json (measured today)); a "
                                                   "measurement or a component is wrong: 1.25x the peak"));
    harness_summary_release(&x.s);

    /* --allow-above-peak: the same figure, kept as a warning that says so. */
    x.s.allow_above_peak = 1;
    assert_int_equal(harness_summary_compute(&x.s), 0);
    assert_int_equal(x.s.warnings.n, 1);
    assert_true(x.s.impossible.allowed);
    assert_non_null(strstr(x.s.warnings.text[0], "impossible figure: FLOP rate"));
    assert_non_null(strstr(x.s.warnings.text[0], "; kept by --allow-above-peak"));
    harness_summary_release(&x.s);
}

/* The run's interference from its windows' counters: 2 preemptions among
 * 20 steps of 1000..1019 ns bound the median's rise by 2 ranks, and a
 * window whose SM clock was held at 1485 of 1980 MHz by a power cap adds
 * its 25%: 1 - (1 - a)(1 - 0.25). The flag and the evidence say which. */
static void test_noise_of_a_summary(void **state)
{
    (void)state;
    double samples[40];
    for (int i = 0; i < 40; i++)
        samples[i] = 1000 + i % 20;
    size_t starts[3] = {0, 20, 40};
    const char *reasons[2] = {"steps", "steps"};
    double wall[2] = {1e5, 1e5}, cpu[2] = {1e5, 1e5}, steal[2] = {0, 0};
    int64_t switches[2] = {2, 0};
    harness_device_state dev[2] = {{1980, 1980, 0x1}, {1485, 1980, 0x4}};
    harness_run_result run = {.samples_ns = samples, .n_samples = 40, .window_start = starts, .n_windows = 2,
                              .stop_reason = reasons, .window_wall_ns = wall, .window_cpu_ns = cpu,
                              .window_switches = switches, .window_steal_share = steal, .window_device = dev};
    harness_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.measurement_steps = 20;
    cfg.repeat = 2;
    harness_clock clk = {.resolution_ns = 1, .name = "clock_gettime"};
    harness_summary s;
    memset(&s, 0, sizeof s);
    s.status = "ok";
    s.cfg = &cfg;
    s.clock = &clk;
    s.run = &run;
    s.env.logical_cpus = s.env.affinity_cpus = 8;
    s.env.omp_threads = 1;
    assert_int_equal(harness_summary_compute(&s), 0);
    /* window 1 alone: 2 ranks below rank 9.5 of 0..19 is rank 7.5, 1007.5 of 1009.5 */
    assert_near(s.window_noise[0].median_shift_bound, 2.0 / 1009.5, 1e-12);
    assert_near(s.window_noise[1].median_shift_bound, 0.25, 1e-12);
    assert_true(s.noise.involuntary_switches == 2 && s.noise.steps == 40);
    assert_true(s.noise.sm_clock_mhz == 1485 && s.noise.throttle_reasons == 0x5);
    /* the run: 2 ranks below rank 19.5 of 0..39 (1009.5) is rank 17.5, 1008.5 */
    assert_near(s.noise.median_shift_bound, 1.0 - (1.0 - 1.0 / 1009.5) * 0.75, 1e-12);
    char text[512];
    harness_noise_text(&s.noise, text, sizeof text);
    assert_non_null(strstr(text, "2 involuntary context switches in 40 measured steps, SM clock 1485 MHz of 1980, "
                                 "held down by sw_power_cap"));
    assert_false(s.windows_disagree);
    harness_summary_release(&s);
}

/* Long steps: longer than the tick and a bound that reaches compare's
 * default threshold, both, or nothing. */
static void test_long_steps_under_load(void **state)
{
    (void)state;
    harness_long_step_facts f = {.median_ns = 24.1e6, .tick_hz = 250, .tick_known = 1, .shift_bound = 1,
                                 .involuntary_switches = 612, .steps = 150, .steal_share = 0};
    assert_true(harness_warn_long_steps(&f, msg, sizeof msg));
    assert_non_null(strstr(msg, "long steps under load: the median step (24.1 ms) is longer than the scheduler "
                                "tick (4 ms, CONFIG_HZ=250) and other work preempted this run (612 involuntary "
                                "context switches in 150 measured steps could have raised the median without "
                                "bound)"));
    assert_non_null(strstr(msg, "(harness run --time-budget), an interleaved gate (harness ab) or a quieter "
                                "runner would give it"));
    /* The longest it gets (every number wide, steal, an assumed tick) still fits a warning whole. */
    f = (harness_long_step_facts){.median_ns = 123.456e9, .tick_hz = 100, .tick_known = 0, .shift_bound = 0.999,
                                  .involuntary_switches = 123456789012LL, .steps = 123456789012, .steal_share = 0.123};
    assert_true(harness_warn_long_steps(&f, msg, sizeof msg));
    assert_non_null(strstr(msg, "(10 ms, assuming 100 Hz: CONFIG_HZ unread)"));
    assert_non_null(strstr(msg, " and 12.3% of CPU time stolen could have raised the median by up to 100%)"));
    assert_non_null(strstr(msg, "runner would give it"));
    /* A quiet machine: long steps alone are fine. */
    f = (harness_long_step_facts){.median_ns = 24.1e6, .tick_hz = 250, .tick_known = 1, .shift_bound = 0.049,
                                  .involuntary_switches = 3, .steps = 150, .steal_share = 0};
    assert_false(harness_warn_long_steps(&f, msg, sizeof msg));
    f.shift_bound = NAN;           /* unknown evidence says nothing */
    assert_false(harness_warn_long_steps(&f, msg, sizeof msg));
    /* Under load, but steps within a tick (1000 Hz: 1 ms). */
    f = (harness_long_step_facts){.median_ns = 0.9e6, .tick_hz = 1000, .tick_known = 1, .shift_bound = 0.5,
                                  .involuntary_switches = 80, .steps = 150, .steal_share = 0};
    assert_false(harness_warn_long_steps(&f, msg, sizeof msg));
    f.median_ns = 1.1e6;
    assert_true(harness_warn_long_steps(&f, msg, sizeof msg));
    assert_non_null(strstr(msg, "could have raised the median by up to 50%"));
}

/* CONFIG_HZ from a kernel config's text. */
static void test_sched_tick_parse(void **state)
{
    (void)state;
    assert_int_equal(harness_sched_tick_parse("# CONFIG_HZ_100 is not set\nCONFIG_HZ_250=y\nCONFIG_HZ=250\n"), 250);
    assert_int_equal(harness_sched_tick_parse("CONFIG_HZ=1000"), 1000);
    assert_int_equal(harness_sched_tick_parse("CONFIG_HZ_PERIODIC=y\n# CONFIG_HZ=300 is not set\n"), 0);
    assert_int_equal(harness_sched_tick_parse("CONFIG_HZ=abc\n"), 0);
    assert_int_equal(harness_sched_tick_parse(""), 0);
    harness_sched_tick t = harness_sched_tick_read();
    assert_true(t.hz > 0);
    assert_true(t.known || t.hz == HARNESS_SCHED_TICK_ASSUMED_HZ);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_oversubscribed_threads_beyond_affinity),
        cmocka_unit_test(test_oversubscribed_by_load),
        cmocka_unit_test(test_busy_calibration),
        cmocka_unit_test(test_above_peak),
        cmocka_unit_test(test_windows_disagree),
        cmocka_unit_test(test_windows_with_weak_cis_are_not_compared),
        cmocka_unit_test(test_near_resolution),
        cmocka_unit_test(test_not_converged),
        cmocka_unit_test(test_list_is_bounded),
        cmocka_unit_test(test_collect_over_a_summary),
        cmocka_unit_test(test_noise_of_a_summary),
        cmocka_unit_test(test_roofline_above_machine_file_peak),
        cmocka_unit_test(test_roofline_above_datasheet_peak),
        cmocka_unit_test(test_long_steps_under_load),
        cmocka_unit_test(test_sched_tick_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
