/* The profiler's recording and the trace writer: nesting, the event cap,
 * and names no JSON writer may break on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/fsutil.h"
#include "report/trace_writer.h"

static harness_backend cpu;
static char path[256];

static int setup(void **state)
{
    (void)state;
    harness_cpu_backend_init(&cpu, 0);
    snprintf(path, sizeof path, "/tmp/harness-test-trace-%d.json", (int)getpid());
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    remove(path);
    return 0;
}

static void start(harness_profiler *p, int64_t max_events)
{
    harness_profiler_options o = {.trace = 1, .memory = 1, .max_events = max_events, .memory_log_steps = 1,
                                  .n_windows = 1};
    harness_profiler_init(p, &cpu, NULL, &o);
}

/* One measured step that opens the given regions one after the other. */
static void step(harness_profiler *p, harness_runner_hooks *h, int64_t index, const char *const *names, size_t n)
{
    uint64_t t0 = harness_clock_ticks(&cpu.clock);
    for (size_t i = 0; i < n; i++) {
        if (p->recording)
            harness_profiler_push(p, names[i]);
        if (p->recording)
            harness_profiler_pop(p);
    }
    uint64_t t1 = harness_clock_ticks(&cpu.clock);
    h->step_end(h->arg, HARNESS_PHASE_MEASURE, 0, index, t0, t1);
}

static cJSON *write_and_parse(harness_profiler *p)
{
    harness_trace_meta meta = {.rank = 0, .world_size = 1, .variant_key = "test/cpu", .device_name = "cpu \"x\"",
                               .harness_version = "0"};
    harness_error err = {0};
    assert_int_equal(harness_trace_write(p, &meta, path, &err), 0);
    char *text = NULL;
    assert_int_equal(harness_read_file(path, &text, NULL, &err), 0);
    cJSON *root = cJSON_Parse(text);
    free(text);
    assert_non_null(root);
    return root;
}

static size_t count_cat(const cJSON *root, const char *cat)
{
    size_t n = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(root, "traceEvents"))
    {
        const cJSON *c = cJSON_GetObjectItem(e, "cat");
        n += cJSON_IsString(c) && strcmp(c->valuestring, cat) == 0;
    }
    return n;
}

static void test_odd_names_survive_as_valid_json(void **state)
{
    (void)state;
    static const char *const names[] = {
        "quote\"d", "back\\slash", "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac", "ctrl\x01\x1f\ttab\nnl",
        "bad utf8 \xff\xc3(", "",
    };
    harness_profiler p;
    start(&p, 1000);
    harness_runner_hooks h = harness_profiler_hooks(&p);
    assert_int_equal(h.phase_begin(h.arg, HARNESS_PHASE_MEASURE, 0, NULL), 0);
    step(&p, &h, 0, names, 6);
    h.run_end(h.arg);
    cJSON *root = write_and_parse(&p);
    const char *want[] = {"quote\"d", "back\\slash", "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac",
                          "ctrl\x01\x1f\ttab\nnl", "bad utf8 \xef\xbf\xbd\xef\xbf\xbd(", ""};
    size_t found = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(root, "traceEvents"))
    {
        const cJSON *cat = cJSON_GetObjectItem(e, "cat");
        if (!cJSON_IsString(cat) || strcmp(cat->valuestring, "region") != 0)
            continue;
        assert_string_equal(cJSON_GetObjectItem(e, "name")->valuestring, want[found]);
        found++;
    }
    assert_int_equal(found, 6);
    cJSON_Delete(root);
    harness_profiler_free(&p);
}

/* A plugin may format region names into one buffer it reuses: each name is
 * the text at the time of the push, not whatever the pointer first held. */
static void test_reused_name_buffer_keeps_each_name(void **state)
{
    (void)state;
    harness_profiler p;
    start(&p, 1000);
    harness_runner_hooks h = harness_profiler_hooks(&p);
    assert_int_equal(h.phase_begin(h.arg, HARNESS_PHASE_MEASURE, 0, NULL), 0);
    char buffer[16];
    const char *const names[] = {buffer};
    for (int layer = 0; layer < 3; layer++) {
        snprintf(buffer, sizeof buffer, "layer_%d", layer);
        step(&p, &h, layer, names, 1);
    }
    h.run_end(h.arg);
    cJSON *root = write_and_parse(&p);
    int found = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(root, "traceEvents"))
    {
        const cJSON *cat = cJSON_GetObjectItem(e, "cat");
        if (!cJSON_IsString(cat) || strcmp(cat->valuestring, "region") != 0)
            continue;
        char want[24];
        snprintf(want, sizeof want, "layer_%d", found++);
        assert_string_equal(cJSON_GetObjectItem(e, "name")->valuestring, want);
    }
    assert_int_equal(found, 3);
    cJSON_Delete(root);
    harness_profiler_free(&p);
}

static void test_regions_nest_in_their_step(void **state)
{
    (void)state;
    static const char *const names[] = {"a", "b"};
    harness_profiler p;
    start(&p, 1000);
    harness_runner_hooks h = harness_profiler_hooks(&p);
    assert_int_equal(h.phase_begin(h.arg, HARNESS_PHASE_MEASURE, 0, NULL), 0);
    for (int i = 0; i < 5; i++)
        step(&p, &h, i, names, 2);
    cJSON *root = write_and_parse(&p);
    assert_int_equal(count_cat(root, "step"), 5);
    assert_int_equal(count_cat(root, "region"), 10);
    /* Written per step: its regions, then the step itself. */
    double region_lo = 1e300, region_hi = -1;
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(root, "traceEvents"))
    {
        const cJSON *cat = cJSON_GetObjectItem(e, "cat");
        if (!cJSON_IsString(cat))
            continue;
        double ts = cJSON_GetObjectItem(e, "ts")->valuedouble, dur = cJSON_GetObjectItem(e, "dur")->valuedouble;
        assert_true(ts >= 0 && dur >= 0);
        if (strcmp(cat->valuestring, "region") == 0) {
            region_lo = ts < region_lo ? ts : region_lo;
            region_hi = ts + dur > region_hi ? ts + dur : region_hi;
        } else {
            assert_true(ts <= region_lo);
            assert_true(region_hi <= ts + dur + 1e-9);
            region_lo = 1e300;
            region_hi = -1;
        }
    }
    cJSON_Delete(root);
    harness_profiler_free(&p);
}

static void test_cap_keeps_whole_steps(void **state)
{
    (void)state;
    static const char *const names[] = {"r1", "r2"};
    harness_profiler p;
    start(&p, 10); /* 3 events a step: 3 steps fit, the 4th does not */
    harness_runner_hooks h = harness_profiler_hooks(&p);
    assert_int_equal(h.phase_begin(h.arg, HARNESS_PHASE_MEASURE, 0, NULL), 0);
    for (int i = 0; i < 6; i++)
        step(&p, &h, i, names, 2);
    assert_int_equal(p.n_events, 9);
    assert_int_equal(p.dropped_steps, 3);
    cJSON *root = write_and_parse(&p);
    assert_int_equal(count_cat(root, "step"), 3);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "otherData"), "truncated")));
    cJSON_Delete(root);
    harness_profiler_free(&p);
}

static void test_nothing_recorded_outside_measurement(void **state)
{
    (void)state;
    static const char *const names[] = {"r"};
    harness_profiler p;
    start(&p, 100);
    harness_runner_hooks h = harness_profiler_hooks(&p);
    assert_int_equal(h.phase_begin(h.arg, HARNESS_PHASE_WARMUP, -1, NULL), 0);
    assert_false(p.recording);
    h.step_end(h.arg, HARNESS_PHASE_WARMUP, -1, 0, 0, 0);
    assert_int_equal(h.phase_begin(h.arg, HARNESS_PHASE_MEASURE, 0, NULL), 0);
    step(&p, &h, 0, names, 1);
    assert_int_equal(h.phase_begin(h.arg, HARNESS_PHASE_WAIT, 1, NULL), 0);
    assert_false(p.recording);
    h.run_end(h.arg);
    assert_int_equal(p.n_events, 2);
    /* memory_log_steps 1: each phase edge, each step, and the end */
    assert_int_equal(p.memory.n, 3 + 2 + 1);
    cJSON *root = write_and_parse(&p);
    double last = -1;
    size_t counters = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(root, "traceEvents"))
    {
        if (strcmp(cJSON_GetObjectItem(e, "ph")->valuestring, "C") != 0)
            continue;
        double ts = cJSON_GetObjectItem(e, "ts")->valuedouble;
        assert_true(ts >= last);
        last = ts;
        counters++;
    }
    assert_int_equal(counters, 6);
    cJSON_Delete(root);
    harness_profiler_free(&p);
}

/* The trace window (after the measured ones, where a GPU's kernels are
 * recorded) keeps its steps and regions, so its kernels sit inside them;
 * its steps say phase "trace" and have no measurement window. */
static void test_trace_window_steps_and_regions_recorded(void **state)
{
    (void)state;
    static const char *const names[] = {"r"};
    harness_profiler p;
    start(&p, 100);
    harness_runner_hooks h = harness_profiler_hooks(&p);
    assert_int_equal(h.phase_begin(h.arg, HARNESS_PHASE_MEASURE, 0, NULL), 0);
    step(&p, &h, 0, names, 1);
    assert_int_equal(h.phase_begin(h.arg, HARNESS_PHASE_TRACE, -1, NULL), 0);
    assert_true(p.recording);
    uint64_t t0 = harness_clock_ticks(&cpu.clock);
    harness_profiler_push(&p, "in the trace window");
    harness_profiler_pop(&p);
    h.step_end(h.arg, HARNESS_PHASE_TRACE, -1, 0, t0, harness_clock_ticks(&cpu.clock));
    h.run_end(h.arg);
    assert_int_equal(p.n_events, 4);
    cJSON *root = write_and_parse(&p);
    assert_int_equal(count_cat(root, "step"), 2);
    assert_int_equal(count_cat(root, "region"), 2);
    size_t trace_steps = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(root, "traceEvents"))
    {
        const cJSON *args = cJSON_GetObjectItem(e, "args");
        const cJSON *phase = args ? cJSON_GetObjectItem(args, "phase") : NULL;
        if (!cJSON_IsString(phase))
            continue;
        assert_string_equal(phase->valuestring, "trace");
        assert_null(cJSON_GetObjectItem(args, "window"));
        trace_steps++;
    }
    assert_int_equal(trace_steps, 1);
    cJSON_Delete(root);
    harness_profiler_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_odd_names_survive_as_valid_json, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reused_name_buffer_keeps_each_name, setup, teardown),
        cmocka_unit_test_setup_teardown(test_regions_nest_in_their_step, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cap_keeps_whole_steps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nothing_recorded_outside_measurement, setup, teardown),
        cmocka_unit_test_setup_teardown(test_trace_window_steps_and_regions_recorded, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
