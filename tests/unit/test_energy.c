/* Energy per window (docs/timing-integrity.md, "Energy"): the arithmetic of
 * two counter reads (wraps, a counter gone backwards or stuck, windows too
 * short or of no length, failed reads), the runner's reads with a fake
 * counter, the summary's figures (joules per step, watts, FLOP and bytes
 * per joule), the job's sum over counters, and the powercap reader on a
 * fake tree. */
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
#include <sys/stat.h>
#include <unistd.h>

#include "assert_near.h"
#include "backend/powercap.h"
#include "report/energy_report.h"
#include "report/job_energy.h"
#include "run/runner.h"
#include "run/window_energy.h"

static harness_energy_reading reading(int n, const double *mj, const double *range)
{
    harness_energy_reading r;
    memset(&r, 0, sizeof r);
    r.n = n;
    for (int i = 0; i < n; i++) {
        r.mj[i] = mj[i];
        r.range_mj[i] = range ? range[i] : 0;
    }
    return r;
}

/* ---- two reads ------------------------------------------------------------------ */

static void test_difference_of_two_packages(void **state)
{
    (void)state;
    harness_energy_reading a = reading(2, (double[]){1000, 5000}, NULL), b = reading(2, (double[]){3500, 6500}, NULL);
    harness_window_energy w = harness_window_energy_of(&a, &b, 2.0, 0.1);
    assert_int_equal(w.status, HARNESS_ENERGY_MEASURED);
    assert_near(w.joules, 4.0, 1e-12);     /* 2500 + 1500 mJ */
    assert_near(w.span_s, 2.0, 0);
}

/* A package counter that wrapped: its range is added back on that counter
 * alone (the other did not wrap). */
static void test_wrap_is_undone_per_counter(void **state)
{
    (void)state;
    double range[2] = {262143.0, 262143.0};
    harness_energy_reading a = reading(2, (double[]){262000, 100}, range), b = reading(2, (double[]){43, 200}, range);
    harness_window_energy w = harness_window_energy_of(&a, &b, 1.0, 1e-3);
    assert_int_equal(w.status, HARNESS_ENERGY_MEASURED);
    assert_near(w.joules, (262143.0 - 262000 + 43 + 100) / 1e3, 1e-12);
}

/* NVML's counter never wraps: down is a driver that reloaded, not energy. */
static void test_backwards_without_range(void **state)
{
    (void)state;
    harness_energy_reading a = reading(1, (double[]){9000}, NULL), b = reading(1, (double[]){8999}, NULL);
    harness_window_energy w = harness_window_energy_of(&a, &b, 5.0, 0.1);
    assert_int_equal(w.status, HARNESS_ENERGY_BACKWARDS);
    assert_true(isnan(w.joules));
    assert_string_equal(harness_energy_status_token(w.status), "went_backwards");
}

/* The rule: under 10 counter periods a window is too short (1 s for
 * NVML's 100 ms); a zero-length window is too short whatever the period. */
static void test_too_short_and_zero_length(void **state)
{
    (void)state;
    harness_energy_reading a = reading(1, (double[]){1000}, NULL), b = reading(1, (double[]){1300}, NULL);
    assert_near(harness_energy_min_span_s(0.1), 1.0, 1e-15);
    assert_int_equal(harness_window_energy_of(&a, &b, 0.999, 0.1).status, HARNESS_ENERGY_TOO_SHORT);
    assert_int_equal(harness_window_energy_of(&a, &b, 1.0, 0.1).status, HARNESS_ENERGY_MEASURED);
    assert_int_equal(harness_window_energy_of(&a, &a, 0.0, 0.1).status, HARNESS_ENERGY_TOO_SHORT);
    assert_int_equal(harness_window_energy_of(&a, &a, 0.0, 0.0).status, HARNESS_ENERGY_TOO_SHORT);
    assert_int_equal(harness_window_energy_of(&a, &b, -1.0, 0.0).status, HARNESS_ENERGY_TOO_SHORT);
    assert_true(isnan(harness_window_energy_of(&a, &b, 0.5, 0.1).joules));   /* no figure below the rule */
}

/* A window long enough for ten updates in which none came. */
static void test_stuck_counter(void **state)
{
    (void)state;
    harness_energy_reading a = reading(1, (double[]){777}, NULL);
    harness_window_energy w = harness_window_energy_of(&a, &a, 3.0, 0.1);
    assert_int_equal(w.status, HARNESS_ENERGY_STUCK);
    assert_string_equal(harness_energy_status_token(w.status), "stuck");
}

static void test_unreadable(void **state)
{
    (void)state;
    harness_energy_reading a = reading(1, (double[]){1}, NULL), two = reading(2, (double[]){5, 6}, NULL);
    harness_energy_reading none = reading(0, NULL, NULL);
    assert_int_equal(harness_window_energy_of(NULL, &a, 2, 0.1).status, HARNESS_ENERGY_UNREADABLE);
    assert_int_equal(harness_window_energy_of(&a, NULL, 2, 0.1).status, HARNESS_ENERGY_UNREADABLE);
    assert_int_equal(harness_window_energy_of(&a, &two, 2, 0.1).status, HARNESS_ENERGY_UNREADABLE);  /* zones changed */
    assert_int_equal(harness_window_energy_of(&none, &none, 2, 0.1).status, HARNESS_ENERGY_UNREADABLE);
    assert_int_equal(harness_window_energy_of(&a, &a, NAN, 0.1).status, HARNESS_ENERGY_UNREADABLE);
}

/* ---- the runner with a fake counter ------------------------------------------------ */

/* A scripted counter: read k returns script[k] (mJ), wrapping at
 * range[k] (NULL: never); -1 fails the read. */
typedef struct fake_counter {
    const double *script;
    int n, reads;
    int64_t steps_at_read[16];     /* steps taken when each read came */
    const double *range;
} fake_counter;
static fake_counter counter;
static int64_t steps_taken;

static int fake_energy_read(const harness_backend *b, harness_energy_reading *out)
{
    (void)b;
    assert_true(counter.reads < counter.n);
    counter.steps_at_read[counter.reads] = steps_taken;
    double v = counter.script[counter.reads++];
    memset(out, 0, sizeof *out);
    if (v < 0)
        return -1;
    out->n = 1;
    out->mj[0] = v;
    out->range_mj[0] = counter.range ? counter.range[counter.reads - 1] : 0;
    return 0;
}

static int count_step(void *arg)
{
    (void)arg;
    steps_taken++;
    return 0;
}

static harness_backend fake_backend(harness_backend_ops *ops, double period_s)
{
    harness_backend b;
    harness_cpu_backend_init(&b, 0);
    *ops = *b.ops;
    ops->energy_read = fake_energy_read;
    b.ops = ops;
    snprintf(b.energy.name, sizeof b.energy.name, "fake counter");
    b.energy.missing[0] = '\0';
    b.energy.period_s = period_s;
    return b;
}

/* Two reads a window, at its edges (after the wait steps, after the last
 * measured step), none inside; each window's status from its own pair:
 * 2 J, then a counter gone backwards, a failed read, a stuck counter, and
 * a counter that wrapped at 10 J (9 J -> 0.5 J: 1.5 J). */
static void test_runner_reads_each_window(void **state)
{
    (void)state;
    harness_backend_ops ops;
    harness_backend b = fake_backend(&ops, 1e-9);   /* any span is long enough */
    static const double script[] = {1000, 3000, 5000, 4000, -1, 4500, 4500, 4500, 9000, 500};
    static const double range[] = {0, 0, 0, 0, 0, 0, 0, 0, 10000, 10000};
    counter = (fake_counter){script, 10, 0, {0}, range};
    steps_taken = 0;
    harness_schedule s = {.warmup_steps = 2, .wait_steps = 1, .measurement_steps = 5, .repeat = 5};
    harness_run_result r;
    harness_error err = {0};
    assert_int_equal(harness_runner_run(&s, &b, count_step, NULL, NULL, &r, &err), 0);
    assert_int_equal(counter.reads, 10);
    for (int w = 0; w < 5; w++) {
        assert_int_equal(counter.steps_at_read[2 * w], 2 + 6 * w + 1);       /* after the wait step */
        assert_int_equal(counter.steps_at_read[2 * w + 1], 2 + 6 * (w + 1)); /* after the 5 measured */
    }
    assert_int_equal(r.window_energy[0].status, HARNESS_ENERGY_MEASURED);
    assert_near(r.window_energy[0].joules, 2.0, 1e-12);
    assert_true(r.window_energy[0].span_s > 0);
    assert_int_equal(r.window_energy[1].status, HARNESS_ENERGY_BACKWARDS);
    assert_int_equal(r.window_energy[2].status, HARNESS_ENERGY_UNREADABLE);
    assert_int_equal(r.window_energy[3].status, HARNESS_ENERGY_STUCK);
    assert_int_equal(r.window_energy[4].status, HARNESS_ENERGY_MEASURED);
    assert_near(r.window_energy[4].joules, 1.5, 1e-12);
    harness_run_result_free(&r);
}

/* A counter updated every 1000 s: every window is too short; a backend
 * without a counter reads nothing and says "not available". */
static void test_runner_too_short_and_no_counter(void **state)
{
    (void)state;
    harness_backend_ops ops;
    harness_backend b = fake_backend(&ops, 1000);
    static const double script[] = {0, 10, 10, 20};
    counter = (fake_counter){script, 4, 0, {0}, NULL};
    harness_schedule s = {.warmup_steps = 0, .wait_steps = 0, .measurement_steps = 3, .repeat = 2};
    harness_run_result r;
    harness_error err = {0};
    assert_int_equal(harness_runner_run(&s, &b, count_step, NULL, NULL, &r, &err), 0);
    assert_int_equal(r.window_energy[0].status, HARNESS_ENERGY_TOO_SHORT);
    assert_int_equal(r.window_energy[1].status, HARNESS_ENERGY_TOO_SHORT);
    harness_run_result_free(&r);

    b.energy.name[0] = '\0';       /* the counter is gone: never read */
    snprintf(b.energy.missing, sizeof b.energy.missing, "not available: no counter here");
    counter = (fake_counter){script, 0, 0, {0}, NULL};
    assert_int_equal(harness_runner_run(&s, &b, count_step, NULL, NULL, &r, &err), 0);
    assert_int_equal(counter.reads, 0);
    assert_int_equal(r.window_energy[0].status, HARNESS_ENERGY_NOT_AVAILABLE);
    harness_run_result_free(&r);
}

/* ---- the summary's figures ------------------------------------------------------- */

/* A run made by hand: 3 windows of 100, 100 and 50 steps. */
static size_t starts[] = {0, 100, 200, 250};
static harness_window_energy energies[3];
static harness_run_result hand_run(void)
{
    harness_run_result r;
    memset(&r, 0, sizeof r);
    r.window_start = starts;
    r.n_windows = 3;
    r.n_samples = 250;
    r.window_energy = energies;
    return r;
}

/* 30 J over 100 steps in 2 s, 20 J over 100 steps in 1 s, window 3 too short:
 * 0.25 J/step, 50/3 W, FLOP/J = 1e9 / 0.25, B/J = 4e8 / 0.25. */
static void test_figures(void **state)
{
    (void)state;
    energies[0] = (harness_window_energy){HARNESS_ENERGY_MEASURED, 30, 2.0};
    energies[1] = (harness_window_energy){HARNESS_ENERGY_MEASURED, 20, 1.0};
    energies[2] = (harness_window_energy){HARNESS_ENERGY_TOO_SHORT, NAN, 0.2};
    harness_run_result r = hand_run();
    harness_cost cost = {sizeof cost, 4e8, 1e9};
    harness_energy_figures e;
    harness_energy_figures_of(&r, 0, 3, &cost, 0.1, &e);
    assert_int_equal(e.status, HARNESS_ENERGY_MEASURED);
    assert_int_equal(e.windows, 3);
    assert_int_equal(e.windows_measured, 2);
    assert_int_equal(e.steps, 200);
    assert_near(e.joules, 50, 1e-12);
    assert_near(e.joules_per_step, 0.25, 1e-12);
    assert_near(e.watts, 50.0 / 3.0, 1e-12);
    assert_near(e.flop_per_joule, 4e9, 1e-3);
    assert_near(e.bytes_per_joule, 1.6e9, 1e-3);
    assert_near(e.uncertainty, 2 * 0.1 / 3.0, 1e-12);   /* two windows, each read lagging up to 0.1 s */
    /* window 1 alone: 0.3 J/step, 15 W */
    harness_energy_figures_of(&r, 0, 1, &cost, 0.1, &e);
    assert_near(e.joules_per_step, 0.3, 1e-12);
    assert_near(e.watts, 15, 1e-12);
    assert_near(e.uncertainty, 0.05, 1e-12);
    /* window 3 alone: too short, no figure */
    harness_energy_figures_of(&r, 2, 3, &cost, 0.1, &e);
    assert_int_equal(e.status, HARNESS_ENERGY_TOO_SHORT);
    assert_true(isnan(e.joules_per_step) && isnan(e.watts) && isnan(e.flop_per_joule));
    /* no declared cost: no efficiency, the rest stands */
    harness_cost none = {sizeof none, 0, 0};
    harness_energy_figures_of(&r, 0, 3, &none, 0.1, &e);
    assert_true(isnan(e.flop_per_joule) && isnan(e.bytes_per_joule));
    assert_near(e.joules_per_step, 0.25, 1e-12);
}

/* No window measured: the run says the most telling status. */
static void test_run_status_without_figures(void **state)
{
    (void)state;
    harness_run_result r = hand_run();
    harness_energy_figures e;
    energies[0] = (harness_window_energy){HARNESS_ENERGY_TOO_SHORT, NAN, 0.2};
    energies[1] = (harness_window_energy){HARNESS_ENERGY_STUCK, NAN, 2};
    energies[2] = (harness_window_energy){HARNESS_ENERGY_TOO_SHORT, NAN, 0.2};
    harness_energy_figures_of(&r, 0, 3, NULL, 0.1, &e);
    assert_int_equal(e.status, HARNESS_ENERGY_STUCK);
    assert_int_equal(e.windows_measured, 0);
    assert_true(isnan(e.joules) && isnan(e.watts));
    energies[1] = energies[0];
    harness_energy_figures_of(&r, 0, 3, NULL, 0.1, &e);
    assert_int_equal(e.status, HARNESS_ENERGY_TOO_SHORT);
    r.window_energy = NULL;        /* a result made without energy */
    harness_energy_figures_of(&r, 0, 3, NULL, 0.1, &e);
    assert_int_equal(e.status, HARNESS_ENERGY_NOT_AVAILABLE);
    /* a window cut before its first step: joules but no steps, no per-step figure */
    r = hand_run();
    size_t empty[] = {0, 0};
    r.window_start = empty;
    r.n_windows = 1;
    energies[0] = (harness_window_energy){HARNESS_ENERGY_MEASURED, 5, 1};
    harness_energy_figures_of(&r, 0, 1, NULL, 0.1, &e);
    assert_true(isnan(e.joules_per_step));
    assert_near(e.watts, 5, 1e-12);
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(j) ? j->valuedouble : NAN;
}

/* The JSON's energy object: the counter, the rule, the figures; and a
 * backend without a counter says why, with null figures. */
static void test_summary_json(void **state)
{
    (void)state;
    energies[0] = (harness_window_energy){HARNESS_ENERGY_MEASURED, 30, 2.0};
    energies[1] = (harness_window_energy){HARNESS_ENERGY_MEASURED, 20, 1.0};
    energies[2] = (harness_window_energy){HARNESS_ENERGY_TOO_SHORT, NAN, 0.2};
    harness_run_result r = hand_run();
    harness_backend_ops ops;
    harness_backend b = fake_backend(&ops, 0.1);
    harness_summary s;
    memset(&s, 0, sizeof s);
    s.backend = &b;
    s.run = &r;
    s.cost = (harness_cost){sizeof s.cost, 4e8, 1e9};
    cJSON *o = harness_energy_json(&s);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(o, "available")));
    assert_string_equal(cJSON_GetObjectItem(o, "source")->valuestring, "fake counter");
    assert_string_equal(cJSON_GetObjectItem(o, "status")->valuestring, "measured");
    assert_near(num(o, "min_window_s"), 1.0, 1e-12);
    assert_near(num(o, "joules_per_step"), 0.25, 1e-12);
    assert_near(num(o, "flop_per_joule"), 4e9, 1e-3);
    assert_near(num(o, "windows_measured"), 2, 0);
    cJSON_Delete(o);
    o = harness_window_energy_json(&s, 2);
    assert_string_equal(cJSON_GetObjectItem(o, "status")->valuestring, "too_short");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "joules_per_step")));
    assert_near(num(o, "seconds"), 0.2, 1e-12);   /* how short it was */
    cJSON_Delete(o);

    b.energy.name[0] = '\0';
    snprintf(b.energy.missing, sizeof b.energy.missing, "not available: no counter here");
    o = harness_energy_json(&s);
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(o, "available")));
    assert_string_equal(cJSON_GetObjectItem(o, "status")->valuestring, "not_available");
    assert_string_equal(cJSON_GetObjectItem(o, "missing")->valuestring, "not available: no counter here");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "watts")));
    cJSON_Delete(o);
    /* the text says it once */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    harness_energy_print(f, &s);
    fclose(f);
    assert_string_equal(text, "energy: not available: no counter here\n");
    free(text);
}

/* ---- the job ------------------------------------------------------------------------ */

/* Four ranks: two on one host's CPU packages (one counter, counted once),
 * one on a GPU of another host, one more GPU. */
static void test_job_sums_each_counter_once(void **state)
{
    (void)state;
    harness_rank_energy r[4];
    memset(r, 0, sizeof r);
    const char *counters[4] = {"h1 cpu", "h1 cpu", "h2 cuda 0", "h2 cuda 1"};
    double watts[4] = {100, 101, 300, 310}, jps[4] = {1, 1.01, 3, 3.1};
    for (int i = 0; i < 4; i++) {
        r[i].rank = i;
        snprintf(r[i].status, sizeof r[i].status, "measured");
        snprintf(r[i].counter, sizeof r[i].counter, "%s", counters[i]);
        r[i].watts = watts[i];
        r[i].joules_per_step = jps[i];
    }
    harness_job_energy j;
    harness_job_energy_of(r, 4, &j);
    assert_int_equal(j.ranks_measured, 4);
    assert_int_equal(j.counters, 3);
    assert_near(j.watts, 710, 1e-9);
    assert_near(j.joules_per_step, 7.1, 1e-12);
    /* a rank without energy: the job's sum would be a part, so none */
    snprintf(r[3].status, sizeof r[3].status, "too_short");
    harness_job_energy_of(r, 4, &j);
    assert_int_equal(j.ranks_measured, 3);
    assert_true(isnan(j.watts) && isnan(j.joules_per_step));
}

/* ---- powercap on a fake tree ---------------------------------------------------------- */

static char tree[64];

static void put_file(const char *rel, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tree, rel);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void zone(const char *name, const char *zone_name, const char *uj, const char *range)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tree, name);
    assert_int_equal(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/name", name);
    put_file(path, zone_name);
    snprintf(path, sizeof path, "%s/energy_uj", name);
    put_file(path, uj);
    if (range) {
        snprintf(path, sizeof path, "%s/max_energy_range_uj", name);
        put_file(path, range);
    }
}

static int make_tree(void **state)
{
    (void)state;
    snprintf(tree, sizeof tree, "/tmp/test_energy.XXXXXX");
    assert_non_null(mkdtemp(tree));
    return 0;
}

static int remove_tree(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tree);
    return system(cmd) == 0 ? 0 : -1;
}

/* Two packages, a core sub-zone and psys (both overlap the packages and
 * are left out), a zone in another control type: summed package by
 * package, in zone order, µJ to mJ, with their ranges; a package that
 * wraps between two reads is undone. */
static void test_powercap_packages(void **state)
{
    (void)state;
    zone("intel-rapl:1", "package-1\n", "2000000\n", "262143328850\n");
    zone("intel-rapl:0", "package-0\n", "262143000000\n", "262143328850\n");
    zone("intel-rapl:0:0", "core\n", "5\n", NULL);
    zone("intel-rapl:2", "psys\n", "999999999\n", NULL);
    zone("intel-rapl-mmio:0", "package-0\n", "1\n", NULL);
    harness_energy_source src = {0};
    assert_int_equal(harness_powercap_probe(tree, &src), 0);
    assert_string_equal(src.name, "powercap RAPL package-0 + package-1");
    assert_string_equal(src.missing, "");
    assert_near(src.period_s, 1e-3, 0);
    harness_energy_reading a, b;
    assert_int_equal(harness_powercap_read(tree, &a), 0);
    assert_int_equal(a.n, 2);
    assert_near(a.mj[0], 262143000.0, 1e-6);
    assert_near(a.mj[1], 2000.0, 1e-9);
    assert_near(a.range_mj[0], 262143328.85, 1e-6);
    /* 1 s later: package 0 wrapped (+0.32885 J to the top, then 171.15 J), package 1 +100 J */
    put_file("intel-rapl:0/energy_uj", "171150000\n");
    put_file("intel-rapl:1/energy_uj", "102000000\n");
    assert_int_equal(harness_powercap_read(tree, &b), 0);
    harness_window_energy w = harness_window_energy_of(&a, &b, 1.0, src.period_s);
    assert_int_equal(w.status, HARNESS_ENERGY_MEASURED);
    assert_near(w.joules, 0.32885 + 171.15 + 100, 1e-6);
}

/* What makes powercap "not available", each said: no tree, no package
 * zone, an unreadable counter, a counter that is not a number; a zone
 * whose counter breaks after the probe fails the read (a window then
 * says unreadable), never a crash. */
static void test_powercap_not_available(void **state)
{
    (void)state;
    harness_energy_source src;
    char missing[128];
    snprintf(missing, sizeof missing, "%s/absent", tree);
    assert_int_equal(harness_powercap_probe(missing, &src), -1);
    assert_non_null(strstr(src.missing, "not available: no RAPL package zone under"));
    assert_string_equal(src.name, "");
    assert_int_equal(harness_powercap_probe(tree, &src), -1);   /* empty */
    zone("intel-rapl:2", "psys\n", "1\n", NULL);
    assert_int_equal(harness_powercap_probe(tree, &src), -1);   /* psys alone */

    zone("intel-rapl:0", "package-0\n", "12x\n", NULL);
    assert_int_equal(harness_powercap_probe(tree, &src), -1);
    assert_non_null(strstr(src.missing, "intel-rapl:0/energy_uj: not a number"));
    put_file("intel-rapl:0/energy_uj", "");
    assert_int_equal(harness_powercap_probe(tree, &src), -1);
    put_file("intel-rapl:0/energy_uj", "-5\n");
    assert_int_equal(harness_powercap_probe(tree, &src), -1);

    char path[256];
    snprintf(path, sizeof path, "%s/intel-rapl:0/energy_uj", tree);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(mkdir(path, 0755), 0);                    /* a directory: read fails */
    assert_int_equal(harness_powercap_probe(tree, &src), -1);
    assert_non_null(strstr(src.missing, "intel-rapl:0/energy_uj: "));
    harness_energy_reading r;
    assert_int_equal(harness_powercap_read(tree, &r), -1);
    assert_int_equal(rmdir(path), 0);
    put_file("intel-rapl:0/energy_uj", "10\n");
    assert_int_equal(harness_powercap_probe(tree, &src), 0);
    assert_int_equal(harness_powercap_read(tree, &r), 0);
    /* no range file: the counter reads as one that never wraps */
    assert_near(r.range_mj[0], 0, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_difference_of_two_packages),
        cmocka_unit_test(test_wrap_is_undone_per_counter),
        cmocka_unit_test(test_backwards_without_range),
        cmocka_unit_test(test_too_short_and_zero_length),
        cmocka_unit_test(test_stuck_counter),
        cmocka_unit_test(test_unreadable),
        cmocka_unit_test(test_runner_reads_each_window),
        cmocka_unit_test(test_runner_too_short_and_no_counter),
        cmocka_unit_test(test_figures),
        cmocka_unit_test(test_run_status_without_figures),
        cmocka_unit_test(test_summary_json),
        cmocka_unit_test(test_job_sums_each_counter_once),
        cmocka_unit_test_setup_teardown(test_powercap_packages, make_tree, remove_tree),
        cmocka_unit_test_setup_teardown(test_powercap_not_available, make_tree, remove_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
