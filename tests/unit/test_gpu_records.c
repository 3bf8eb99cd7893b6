/* CUPTI's awkward records, fed synthetically (no GPU): kernels CUPTI could
 * not time (start = end = 0), kernels launched through the driver API (as
 * cuBLASLt launches), and a CUDA graph's kernels that all share the
 * launch's correlation id. Each must reach the timeline as what it is. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/gpu_activity.h"
#include "report/gpu_trace.h"

static harness_gpu_activity rec(harness_gpu_activity_kind kind, const char *name, uint64_t t0, uint64_t t1,
                                uint32_t correlation)
{
    harness_gpu_activity a = {.kind = kind, .name = name, .start_ns = t0, .end_ns = t1, .stream = 7,
                              .correlation = correlation, .thread = 99};
    return a;
}

static void add(harness_gpu_activity_list *l, harness_gpu_activity a)
{
    assert_int_equal(harness_gpu_activity_append(l, &a), 0);
}

/* The events the timeline writes, as a JSON array. */
static cJSON *timeline_of(const harness_gpu_activity_list *l)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    fputc('[', f);
    harness_gpu_trace_target t = {.base_ns = 0, .host_pid = 1000, .first_host_tid = 4};
    assert_true(harness_gpu_trace_events(f, l, &t) >= 0);
    fputs("{}]", f);
    fclose(f);
    cJSON *events = cJSON_Parse(text);
    free(text);
    assert_non_null(events);
    return events;
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static int count(const cJSON *events, const char *ph, const char *cat)
{
    int n = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, events)
    if (strcmp(str(e, "ph"), ph) == 0 && (!cat || strcmp(str(e, "cat"), cat) == 0))
        n++;
    return n;
}

/* start = end = 0 is CUPTI's "no timestamp": counted and left out, not a
 * 0-ns call placed at the clock offset. Host calls are placed as given. */
static void untimed_kernels_are_counted_not_placed(void **state)
{
    (void)state;
    harness_gpu_activity_list l;
    harness_gpu_activity_list_init(&l);
    harness_gpu_activity k = rec(HARNESS_GPU_KERNEL, "k", 0, 0, 5);
    assert_int_equal(harness_gpu_activity_add_cupti(&l, &k, 1000000), 0);
    harness_gpu_activity set = rec(HARNESS_GPU_MEMSET, NULL, 0, 0, 6);
    assert_int_equal(harness_gpu_activity_add_cupti(&l, &set, 1000000), 0);
    assert_int_equal(l.n, 0);
    assert_int_equal(l.untimed, 2);
    harness_gpu_activity timed = rec(HARNESS_GPU_KERNEL, "k", 500, 1500, 7);
    assert_int_equal(harness_gpu_activity_add_cupti(&l, &timed, 1000000), 1);
    assert_int_equal(l.n, 1);
    assert_int_equal(l.items[0].start_ns, 1000500);
    assert_int_equal(l.items[0].end_ns, 1001500);

    harness_gpu_kernel_row *rows;
    size_t n;
    assert_int_equal(harness_gpu_kernel_table(&l, &rows, &n, NULL), 0);
    assert_int_equal(n, 1);
    assert_int_equal(rows[0].calls, 1);        /* not 2 calls with a 0-ns minimum */
    assert_true(rows[0].min_ns == 1000);
    free(rows);
    harness_gpu_activity_list_clear(&l);
    assert_int_equal(l.untimed, 0);
    harness_gpu_activity_list_free(&l);
}

/* cuBLASLt launches with cuLaunchKernel: its kernel's id is a driver
 * call's. The flow starts there; where a runtime call shares the id, on the
 * runtime call only. */
static void driver_launches_get_their_flow(void **state)
{
    (void)state;
    assert_true(harness_gpu_driver_call_kept("cuLaunchKernel"));
    assert_true(harness_gpu_driver_call_kept("cuLaunchKernelEx"));
    assert_true(harness_gpu_driver_call_kept("cuGraphLaunch"));
    assert_false(harness_gpu_driver_call_kept("cuCtxGetCurrent"));
    assert_false(harness_gpu_driver_call_kept(NULL));

    harness_gpu_activity_list l;
    harness_gpu_activity_list_init(&l);
    add(&l, rec(HARNESS_GPU_DRIVER, "cuLaunchKernel", 100, 200, 20));
    add(&l, rec(HARNESS_GPU_KERNEL, "sm90_xmma_gemm", 1000, 2000, 20));
    add(&l, rec(HARNESS_GPU_RUNTIME, "cudaLaunchKernel", 3000, 3100, 21));
    add(&l, rec(HARNESS_GPU_DRIVER, "cuLaunchKernel", 3010, 3090, 21));
    add(&l, rec(HARNESS_GPU_KERNEL, "mine", 4000, 5000, 21));
    cJSON *events = timeline_of(&l);
    assert_int_equal(count(events, "X", "cuda_driver"), 2);
    assert_int_equal(count(events, "s", "ac2g"), 2);
    assert_int_equal(count(events, "f", "ac2g"), 2);
    const cJSON *e;
    cJSON_ArrayForEach(e, events)
    {
        if (strcmp(str(e, "ph"), "s") != 0)
            continue;
        assert_int_equal(num(e, "pid"), 1000);
        if (num(e, "id") == 20)
            assert_true(num(e, "ts") == 0.1);      /* on the driver call */
        else
            assert_true(num(e, "id") == 21 && num(e, "ts") == 3.0);   /* on the runtime call */
    }
    cJSON_Delete(events);
    harness_gpu_activity_list_free(&l);
}

/* A graph launch: one correlation id, three kernels. Each kernel ends its
 * own flow, each flow starts on the launch, and no id is used twice. */
static void a_graphs_kernels_each_get_a_flow(void **state)
{
    (void)state;
    harness_gpu_activity_list l;
    harness_gpu_activity_list_init(&l);
    add(&l, rec(HARNESS_GPU_RUNTIME, "cudaGraphLaunch", 100, 300, 30));
    add(&l, rec(HARNESS_GPU_KERNEL, "qkv", 1000, 2000, 30));
    add(&l, rec(HARNESS_GPU_KERNEL, "attn", 2000, 3000, 30));
    add(&l, rec(HARNESS_GPU_KERNEL, "out", 3000, 4000, 30));
    cJSON *events = timeline_of(&l);
    assert_int_equal(count(events, "s", "ac2g"), 3);
    assert_int_equal(count(events, "f", "ac2g"), 3);
    double starts[3], ends[3];
    int ns = 0, nf = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, events)
    {
        if (strcmp(str(e, "ph"), "s") == 0)
            starts[ns++] = num(e, "id");
        else if (strcmp(str(e, "ph"), "f") == 0)
            ends[nf++] = num(e, "id");
    }
    for (int i = 0; i < 3; i++) {
        int matched = 0;
        for (int j = 0; j < 3; j++) {
            matched += starts[j] == ends[i];
            if (j != i)
                assert_true(ends[j] != ends[i]);
        }
        assert_int_equal(matched, 1);
    }
    assert_true(ends[0] == 30);                    /* the first keeps Kineto's id */
    cJSON_Delete(events);
    harness_gpu_activity_list_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(untimed_kernels_are_counted_not_placed),
        cmocka_unit_test(driver_launches_get_their_flow),
        cmocka_unit_test(a_graphs_kernels_each_get_a_flow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
