/* The GPU timeline of the trace and the per-kernel table, from synthetic
 * records (no GPU needed): Kineto's pid/tid mapping, categories and args,
 * launch-to-kernel flows, the shared time base, the header, the dropped
 * count, and the table in both summaries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/fsutil.h"
#include "backend/gpu_activity.h"
#include "report/gpu_trace.h"
#include "report/summary.h"
#include "report/trace_writer.h"

static harness_backend cpu;
static char path[256];

static int setup(void **state)
{
    (void)state;
    harness_cpu_backend_init(&cpu, 0);
    snprintf(path, sizeof path, "/tmp/harness-test-gpu-trace-%d.json", (int)getpid());
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    remove(path);
    return 0;
}

static harness_gpu_activity rec(harness_gpu_activity_kind kind, const char *name, uint64_t t0, uint64_t t1,
                                uint32_t stream, uint32_t correlation)
{
    harness_gpu_activity a = {.kind = kind, .name = name, .start_ns = t0, .end_ns = t1, .stream = stream,
                              .correlation = correlation, .thread = 4242};
    return a;
}

/* Two streams; a launch and its kernel; a memcpy that arrives after the
 * kernel but started before it; a memset; kernels without a launch record. */
static void fill(harness_gpu_activity_list *l, uint64_t base)
{
    char name[32];
    strcpy(name, "rms_norm_kernel");  /* a buffer: the list must copy names */
    harness_gpu_activity launch = rec(HARNESS_GPU_RUNTIME, "cudaLaunchKernel", base + 1000, base + 3000, 0, 10);
    harness_gpu_activity k = rec(HARNESS_GPU_KERNEL, name, base + 5000, base + 6234, 7, 10);
    k.grid[0] = 8, k.grid[1] = 1, k.grid[2] = 1;
    k.block[0] = 256, k.block[1] = 1, k.block[2] = 1;
    k.registers_per_thread = 32;
    k.dynamic_shared_bytes = 1024;
    k.static_shared_bytes = 16;
    harness_gpu_activity copy = rec(HARNESS_GPU_MEMCPY, "HtoD", base + 500, base + 900, 13, 11);
    copy.bytes = 4096;
    harness_gpu_activity set = rec(HARNESS_GPU_MEMSET, NULL, base + 7000, base + 7100, 13, 12);
    set.bytes = 1024;
    harness_gpu_activity again = rec(HARNESS_GPU_KERNEL, "rms_norm_kernel", base + 8000, base + 9000, 13, 13);
    harness_gpu_activity other = rec(HARNESS_GPU_KERNEL, "other_kernel", base + 10000, base + 12000, 7, 14);
    assert_int_equal(harness_gpu_activity_append(l, &launch), 0);
    assert_int_equal(harness_gpu_activity_append(l, &k), 0);
    strcpy(name, "clobbered");
    assert_int_equal(harness_gpu_activity_append(l, &copy), 0);
    assert_int_equal(harness_gpu_activity_append(l, &set), 0);
    assert_int_equal(harness_gpu_activity_append(l, &again), 0);
    assert_int_equal(harness_gpu_activity_append(l, &other), 0);
    l->dropped = 3;
}

static void test_list(void **state)
{
    (void)state;
    harness_gpu_activity_list l;
    harness_gpu_activity_list_init(&l);
    fill(&l, 0);
    assert_int_equal(l.n, 6);
    assert_string_equal(l.items[1].name, "rms_norm_kernel");
    assert_ptr_equal(l.items[1].name, l.items[4].name);  /* interned */
    assert_null(l.items[3].name);
    assert_int_equal(l.n_names, 4);
    const char *kept = l.items[1].name;
    harness_gpu_activity_list_clear(&l);
    assert_int_equal(l.n, 0);
    assert_int_equal(l.dropped, 0);
    assert_ptr_equal(harness_gpu_activity_intern(&l, "rms_norm_kernel"), kept);
    for (int i = 0; i < 1000; i++) {  /* growth */
        harness_gpu_activity a = rec(HARNESS_GPU_KERNEL, i % 2 ? "a" : "b", (uint64_t)i, (uint64_t)i + 1, 1, 0);
        assert_int_equal(harness_gpu_activity_append(&l, &a), 0);
    }
    assert_int_equal(l.n, 1000);
    assert_int_equal(l.n_names, 6);
    harness_gpu_activity_list_free(&l);
    assert_int_equal(l.n, 0);
    assert_null(l.items);
}

static const cJSON *find(const cJSON *events, const char *ph, const char *cat, const char *name)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, events)
    {
        const cJSON *p = cJSON_GetObjectItem(e, "ph"), *c = cJSON_GetObjectItem(e, "cat"),
                    *n = cJSON_GetObjectItem(e, "name");
        if (strcmp(p->valuestring, ph) == 0 && (!cat || (cJSON_IsString(c) && strcmp(c->valuestring, cat) == 0)) &&
            (!name || (cJSON_IsString(n) && strcmp(n->valuestring, name) == 0)))
            return e;
    }
    return NULL;
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    assert_true(cJSON_IsNumber(v));
    return v->valuedouble;
}

/* A metadata event's args.name for (what, pid, tid). */
static const char *meta_name(const cJSON *events, const char *what, int pid, int tid)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, events)
    {
        if (strcmp(cJSON_GetObjectItem(e, "ph")->valuestring, "M") == 0 &&
            strcmp(cJSON_GetObjectItem(e, "name")->valuestring, what) == 0 && num(e, "pid") == pid &&
            num(e, "tid") == tid)
            return cJSON_GetObjectItem(cJSON_GetObjectItem(e, "args"), "name")->valuestring;
    }
    return NULL;
}

static void assert_dim3(const cJSON *args, const char *key, int x, int y, int z)
{
    const cJSON *a = cJSON_GetObjectItem(args, key);
    assert_int_equal(cJSON_GetArraySize(a), 3);
    assert_int_equal(cJSON_GetArrayItem(a, 0)->valueint, x);
    assert_int_equal(cJSON_GetArrayItem(a, 1)->valueint, y);
    assert_int_equal(cJSON_GetArrayItem(a, 2)->valueint, z);
}

static void assert_header(const cJSON *root, const char *text, const harness_profiler *p)
{
    /* Header: Kineto's fields. The base time is checked in the text: a
     * double cannot hold 19 digits. */
    assert_int_equal(num(root, "schemaVersion"), 1);
    char base[64];
    snprintf(base, sizeof base, "\"baseTimeNanoseconds\":%llu,", (unsigned long long)p->base_unix_ns);
    assert_non_null(strstr(text, base));
    const cJSON *dist = cJSON_GetObjectItem(root, "distributedInfo");
    assert_int_equal(num(dist, "rank"), 1);
    assert_int_equal(num(dist, "world_size"), 2);
    const cJSON *props = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "deviceProperties"), 0);
    assert_string_equal(cJSON_GetObjectItem(props, "name")->valuestring, "Test GPU");
    assert_int_equal(num(props, "numSms"), 132);
    assert_int_equal(num(props, "computeMajor"), 9);
    assert_int_equal(num(cJSON_GetObjectItem(root, "otherData"), "gpu_activity_dropped"), 3);
}

static void assert_tracks(const cJSON *events, int host)
{
    /* A process per GPU, a thread per stream; the runtime on the host. */
    assert_string_equal(meta_name(events, "process_name", 0, 0), "GPU 0");
    assert_string_equal(meta_name(events, "thread_name", 0, 7), "stream 7");
    assert_string_equal(meta_name(events, "thread_name", 0, 13), "stream 13");
    assert_non_null(meta_name(events, "process_name", host, 0));
    assert_string_equal(meta_name(events, "thread_name", host, 4), "CUDA runtime (thread 4242)");
}

/* The kernel with its launch parameters, the runtime call, the copies. */
static void assert_records(const cJSON *events, const char *text, int host)
{
    const cJSON *k = find(events, "X", "kernel", "rms_norm_kernel");
    assert_non_null(k);
    assert_int_equal(num(k, "pid"), 0);
    assert_int_equal(num(k, "tid"), 7);
    assert_true(fabs(num(k, "ts") - 5.0) < 1e-9);
    assert_true(fabs(num(k, "dur") - 1.234) < 1e-9);  /* ns kept as decimals */
    assert_non_null(strstr(text, "\"dur\":1.234"));
    const cJSON *args = cJSON_GetObjectItem(k, "args");
    assert_dim3(args, "grid", 8, 1, 1);
    assert_dim3(args, "block", 256, 1, 1);
    assert_int_equal(num(args, "registers per thread"), 32);
    assert_int_equal(num(args, "shared memory"), 1040);
    assert_int_equal(num(args, "dynamic shared memory"), 1024);
    assert_int_equal(num(args, "stream"), 7);
    assert_int_equal(num(args, "correlation"), 10);
    assert_int_equal(num(args, "device"), 0);

    const cJSON *call = find(events, "X", "cuda_runtime", "cudaLaunchKernel");
    assert_non_null(call);
    assert_int_equal(num(call, "pid"), host);
    assert_int_equal(num(call, "tid"), 4);
    assert_true(fabs(num(call, "ts") - 1.0) < 1e-9);
    assert_true(fabs(num(call, "dur") - 2.0) < 1e-9);

    const cJSON *copy = find(events, "X", "gpu_memcpy", "Memcpy HtoD");
    assert_non_null(copy);
    assert_int_equal(num(copy, "tid"), 13);
    assert_int_equal(num(cJSON_GetObjectItem(copy, "args"), "bytes"), 4096);
    assert_true(fabs(num(copy, "ts") - 0.5) < 1e-9);
    const cJSON *set = find(events, "X", "gpu_memset", "Memset");
    assert_non_null(set);
    assert_int_equal(num(cJSON_GetObjectItem(set, "args"), "bytes"), 1024);
}

/* One flow, launch -> kernel: s on the call, f bound to the kernel. */
static void assert_one_flow(const cJSON *events, int host)
{
    int starts = 0, ends = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, events)
    {
        const char *ph = cJSON_GetObjectItem(e, "ph")->valuestring;
        if (strcmp(ph, "s") == 0) {
            starts++;
            assert_int_equal(num(e, "id"), 10);
            assert_int_equal(num(e, "pid"), host);
            assert_int_equal(num(e, "tid"), 4);
            assert_true(fabs(num(e, "ts") - 1.0) < 1e-9);
            assert_string_equal(cJSON_GetObjectItem(e, "cat")->valuestring, "ac2g");
            assert_null(cJSON_GetObjectItem(e, "bp"));
        } else if (strcmp(ph, "f") == 0) {
            ends++;
            assert_int_equal(num(e, "id"), 10);
            assert_int_equal(num(e, "pid"), 0);
            assert_int_equal(num(e, "tid"), 7);
            assert_true(fabs(num(e, "ts") - 5.0) < 1e-9);
            assert_string_equal(cJSON_GetObjectItem(e, "bp")->valuestring, "e");
        }
    }
    assert_int_equal(starts, 1);
    assert_int_equal(ends, 1);
}

/* GPU spans in start order, the late memcpy first; relative, small ts. */
static void assert_spans_in_order(const cJSON *events)
{
    const cJSON *e;
    double last = -1;
    int spans = 0;
    cJSON_ArrayForEach(e, events)
    {
        const cJSON *cat = cJSON_GetObjectItem(e, "cat");
        if (strcmp(cJSON_GetObjectItem(e, "ph")->valuestring, "X") != 0 || !cJSON_IsString(cat) ||
            strcmp(cat->valuestring, "step") == 0)
            continue;
        double ts = num(e, "ts");
        assert_true(ts >= last);
        assert_true(ts < 1000);
        last = ts;
        spans++;
    }
    assert_int_equal(spans, 6);
}

static void test_trace(void **state)
{
    (void)state;
    harness_profiler p;
    harness_profiler_options o = {.trace = 1, .max_events = 100, .n_windows = 1};
    harness_profiler_init(&p, &cpu, NULL, &o);
    harness_gpu_activity_list l;
    harness_gpu_activity_list_init(&l);
    fill(&l, p.base_monotonic_ns);
    harness_gpu_device_props dev = {.id = 0, .name = "Test GPU", .num_sms = 132, .total_global_mem = 80ull << 30,
                                    .compute_major = 9, .warp_size = 32};
    harness_trace_meta meta = {.rank = 1, .world_size = 2, .variant_key = "test/cuda", .device_name = "Test GPU",
                               .harness_version = "0", .gpu = &l, .gpu_devices = &dev, .n_gpu_devices = 1};
    harness_error err = {0};
    assert_int_equal(harness_trace_write(&p, &meta, path, &err), 0);
    char *text = NULL;
    assert_int_equal(harness_read_file(path, &text, NULL, &err), 0);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    assert_header(root, text, &p);
    const cJSON *events = cJSON_GetObjectItem(root, "traceEvents");
    int host = (int)getpid();
    assert_tracks(events, host);
    assert_records(events, text, host);
    assert_one_flow(events, host);
    assert_spans_in_order(events);
    cJSON_Delete(root);
    free(text);
    harness_gpu_activity_list_free(&l);
    harness_profiler_free(&p);
}

/* Without records: the header still says what Kineto's does, no GPU process,
 * the host keeps pid = rank. */
static void test_trace_cpu(void **state)
{
    (void)state;
    harness_profiler p;
    harness_profiler_options o = {.trace = 1, .max_events = 100, .n_windows = 1};
    harness_profiler_init(&p, &cpu, NULL, &o);
    harness_trace_meta meta = {.rank = 0, .world_size = 1, .variant_key = "test/cpu", .device_name = "cpu",
                               .harness_version = "0"};
    harness_error err = {0};
    assert_int_equal(harness_trace_write(&p, &meta, path, &err), 0);
    char *text = NULL;
    assert_int_equal(harness_read_file(path, &text, NULL, &err), 0);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    assert_int_equal(num(root, "schemaVersion"), 1);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(root, "deviceProperties")), 0);
    assert_non_null(cJSON_GetObjectItem(root, "distributedInfo"));
    assert_non_null(meta_name(cJSON_GetObjectItem(root, "traceEvents"), "process_name", 0, 0));
    assert_null(find(cJSON_GetObjectItem(root, "traceEvents"), "X", "kernel", NULL));
    cJSON_Delete(root);
    free(text);
    harness_profiler_free(&p);
}

static void test_kernel_table(void **state)
{
    (void)state;
    harness_gpu_activity_list l;
    harness_gpu_activity_list_init(&l);
    fill(&l, 1000000);
    harness_gpu_kernel_row *rows;
    size_t n;
    double all;
    assert_int_equal(harness_gpu_kernel_table(&l, &rows, &n, &all), 0);
    assert_int_equal(n, 2);
    assert_true(all == 1234 + 1000 + 2000);
    assert_string_equal(rows[0].name, "rms_norm_kernel");  /* longest total first */
    assert_int_equal(rows[0].calls, 2);
    assert_true(rows[0].total_ns == 2234);
    assert_true(rows[0].mean_ns == 1117);
    assert_true(rows[0].min_ns == 1000 && rows[0].max_ns == 1234);
    assert_string_equal(rows[1].name, "other_kernel");
    assert_int_equal(rows[1].calls, 1);
    assert_true(fabs(rows[0].share + rows[1].share - 1) < 1e-12);
    assert_true(fabs(rows[1].share - 2000.0 / 4234) < 1e-12);
    free(rows);
    harness_gpu_activity_list_clear(&l);
    assert_int_equal(harness_gpu_kernel_table(&l, &rows, &n, &all), 0);
    assert_int_equal(n, 0);
    assert_null(rows);
    harness_gpu_activity_list_free(&l);
}

static void summary_for(harness_summary *s, harness_config *cfg, const harness_gpu_activity_list *l)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->variant_key = "test";
    memset(s, 0, sizeof *s);
    s->status = "ok";
    s->cfg = cfg;
    s->variant_key = "test/cuda";
    s->device = "cuda";
    s->device_name = "Test GPU";
    s->gpu_activity = l;
}

static void test_summaries(void **state)
{
    (void)state;
    harness_gpu_activity_list l;
    harness_gpu_activity_list_init(&l);
    fill(&l, 0);
    harness_config cfg;
    harness_summary s;
    summary_for(&s, &cfg, &l);

    char *json = harness_summary_json(&s);
    cJSON *root = cJSON_Parse(json);
    assert_non_null(root);
    const cJSON *kernels = cJSON_GetObjectItem(root, "gpu_kernels");
    assert_int_equal(cJSON_GetArraySize(kernels), 2);
    const cJSON *top = cJSON_GetArrayItem(kernels, 0);
    assert_string_equal(cJSON_GetObjectItem(top, "name")->valuestring, "rms_norm_kernel");
    assert_int_equal(num(top, "calls"), 2);
    assert_int_equal(num(top, "total_ns"), 2234);
    assert_int_equal(num(top, "mean_ns"), 1117);
    assert_true(num(top, "share") > 0.5);
    assert_int_equal(num(root, "gpu_activity_dropped"), 3);
    cJSON_Delete(root);
    free(json);

    char *text = harness_summary_text(&s);
    assert_non_null(strstr(text, "GPU kernels"));
    assert_non_null(strstr(text, "rms_norm_kernel"));
    assert_non_null(strstr(text, "3 activity records DROPPED"));
    assert_true(strstr(text, "rms_norm_kernel") < strstr(text, "other_kernel"));
    free(text);

    /* A CPU run: no section, nulls in the JSON. */
    summary_for(&s, &cfg, NULL);
    s.device = "cpu";
    json = harness_summary_json(&s);
    root = cJSON_Parse(json);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(root, "gpu_kernels")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(root, "gpu_activity_dropped")));
    cJSON_Delete(root);
    free(json);
    text = harness_summary_text(&s);
    assert_null(strstr(text, "GPU kernels"));
    free(text);
    harness_gpu_activity_list_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_list),
        cmocka_unit_test_setup_teardown(test_trace, setup, teardown),
        cmocka_unit_test_setup_teardown(test_trace_cpu, setup, teardown),
        cmocka_unit_test(test_kernel_table),
        cmocka_unit_test(test_summaries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
