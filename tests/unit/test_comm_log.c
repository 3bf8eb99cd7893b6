/* The communication log's table (nccl-tests' sizes and bus factors), the
 * collectives of a job of one, the bf16/fp16 reductions, and the services'
 * choice between host (dist) and device (backend: NCCL) collectives. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/bf16.h"
#include "common/f16.h"
#include "dist/collective.h"
#include "run/collectives.h"
#include "run/comm_log.h"
#include "run/instance.h"

static void test_factors_and_sizes(void **state)
{
    (void)state;
    assert_true(harness_busbw_factor(HARNESS_COLL_ALL_REDUCE, 8) == 2.0 * 7 / 8);
    assert_true(harness_busbw_factor(HARNESS_COLL_ALL_GATHER, 4) == 0.75);
    assert_true(harness_busbw_factor(HARNESS_COLL_REDUCE_SCATTER, 4) == 0.75);
    assert_true(harness_busbw_factor(HARNESS_COLL_BROADCAST, 4) == 1.0);
    assert_true(harness_busbw_factor(HARNESS_COLL_ALL_REDUCE, 1) == 0.0);
    assert_int_equal(harness_comm_size(HARNESS_COLL_ALL_REDUCE, 100, 4, 8), 400);
    assert_int_equal(harness_comm_size(HARNESS_COLL_ALL_GATHER, 100, 4, 8), 3200);
    assert_int_equal(harness_comm_size(HARNESS_COLL_BARRIER, 0, 4, 8), 0);
}

/* Calls grouped by (op, dtype, size) in first-call order; times from a
 * clock of 2 ticks per ns. */
static void test_table(void **state)
{
    (void)state;
    harness_clock clk;
    memset(&clk, 0, sizeof clk);
    clk.ns_per_tick = 0.5;
    harness_comm_log l = {0};
    harness_comm_record calls[] = {
        {HARNESS_COLL_ALL_REDUCE, HARNESS_DTYPE_F32, 1000, 0, 2000, -1},   /* 1000 ns */
        {HARNESS_COLL_BARRIER, HARNESS_DTYPE_F32, 0, 0, 200, -1},
        {HARNESS_COLL_ALL_REDUCE, HARNESS_DTYPE_F32, 1000, 0, 6000, -1},   /* 3000 ns */
        {HARNESS_COLL_ALL_REDUCE, HARNESS_DTYPE_BF16, 1000, 0, 1000, -1},
    };
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(harness_comm_log_add(&l, &calls[i]), 0);
    harness_comm_row *rows;
    size_t n;
    assert_int_equal(harness_comm_table(&l, &clk, 4, &rows, &n), 0);
    assert_int_equal(n, 3);
    assert_int_equal(rows[0].kind, HARNESS_COLL_ALL_REDUCE);
    assert_int_equal(rows[0].calls, 2);
    assert_true(rows[0].mean_ns == 2000 && rows[0].min_ns == 1000 && rows[0].max_ns == 3000);
    assert_true(rows[0].algbw_gbps == 0.5);           /* 1000 B / 2000 ns */
    assert_true(rows[0].busbw_gbps == 0.5 * 1.5);     /* 2 (4-1) / 4 */
    assert_int_equal(rows[1].kind, HARNESS_COLL_BARRIER);
    assert_true(rows[1].busbw_gbps == 0);
    assert_int_equal(rows[2].dtype, HARNESS_DTYPE_BF16);
    free(rows);
    harness_comm_log_free(&l);
    assert_int_equal(harness_comm_table(&l, &clk, 4, &rows, &n), 0);
    assert_int_equal(n, 0);
    assert_null(rows);
}

static void test_alone(void **state)
{
    (void)state;
    float a[3] = {1, 2, 3}, b[3] = {0};
    harness_error err = {0};
    harness_collective c = {HARNESS_COLL_ALL_REDUCE, a, b, 3, HARNESS_DTYPE_F32, HARNESS_REDUCE_SUM, 0};
    assert_int_equal(harness_collective_alone(&c, &err), 0);
    assert_memory_equal(a, b, sizeof a);
    c.kind = HARNESS_COLL_BROADCAST;
    c.root = 1;
    assert_int_not_equal(harness_collective_alone(&c, &err), 0);
    assert_non_null(strstr(err.msg, "root 1"));
}

/* Reduced in fp32 and rounded once: 1 + 2^-8 is not a bf16 (8 bits of
 * mantissa), so bf16 sum rounds it to even (1.0); fp16 keeps it. */
static void test_half_reductions(void **state)
{
    (void)state;
    uint16_t in = f32_to_bf16(0.00390625f), io = f32_to_bf16(1.0f);
    harness_reduce_half(HARNESS_DTYPE_BF16, HARNESS_REDUCE_SUM, &in, &io, 1);
    assert_true(bf16_to_f32(io) == 1.0f);
    in = f32_to_f16(0.00390625f);
    io = f32_to_f16(1.0f);
    harness_reduce_half(HARNESS_DTYPE_F16, HARNESS_REDUCE_SUM, &in, &io, 1);
    assert_true(f16_to_f32(io) == 1.00390625f);
    in = f32_to_bf16(-3.0f);
    io = f32_to_bf16(2.0f);
    harness_reduce_half(HARNESS_DTYPE_BF16, HARNESS_REDUCE_MIN, &in, &io, 1);
    assert_true(bf16_to_f32(io) == -3.0f);
    harness_reduce_half(HARNESS_DTYPE_BF16, HARNESS_REDUCE_MAX, &in, &io, 1);
    assert_true(bf16_to_f32(io) == -3.0f);
}

/* A fake device: pointers into device_mem are "device memory"; the fake
 * device collective counts its calls and copies like a world of one. */
static char device_mem[256];
static int device_calls;

static int fake_is_device(const harness_backend *b, const void *p)
{
    (void)b;
    return (const char *)p >= device_mem && (const char *)p < device_mem + sizeof device_mem;
}

static int fake_device_collective(const harness_backend *b, harness_dist *d, const harness_collective *c,
                                  harness_error *err)
{
    (void)b, (void)d;
    device_calls++;
    return harness_collective_alone(c, err);
}

static void test_device_routing(void **state)
{
    (void)state;
    harness_backend cpu;
    harness_cpu_backend_init(&cpu, 1);
    harness_backend_ops ops = *cpu.ops;
    ops.is_device_memory = fake_is_device;
    ops.device_collective = fake_device_collective;
    cpu.ops = &ops;
    harness_dist single;
    harness_dist_single_init(&single);
    harness_instance in;
    memset(&in, 0, sizeof in);
    in.ctx.kind = HARNESS_CTX_INSTANCE;
    in.backend = &cpu;
    in.dist = &single;
    in.world_size = 1;

    /* Both buffers on the device: the backend's collective. */
    float host[4] = {1, 2, 3, 4}, out[4] = {0};
    device_calls = 0;
    assert_int_equal(harness_svc_all_reduce(&in.ctx, device_mem, device_mem + 64, 4, HARNESS_DTYPE_F32,
                                            HARNESS_REDUCE_SUM), 0);
    assert_int_equal(device_calls, 1);
    /* Both on the host: the dist's (a copy in a world of one). */
    assert_int_equal(harness_svc_all_reduce(&in.ctx, host, out, 4, HARNESS_DTYPE_F32, HARNESS_REDUCE_SUM), 0);
    assert_int_equal(device_calls, 1);
    assert_memory_equal(host, out, sizeof host);
    /* One of each: refused, naming which is where. */
    assert_int_not_equal(harness_svc_all_reduce(&in.ctx, host, device_mem, 4, HARNESS_DTYPE_F32,
                                                HARNESS_REDUCE_SUM), 0);
    assert_non_null(strstr(in.ctx.message, "send is host memory and recv device memory"));
    /* A build without NCCL: device buffers are refused with what to do. */
    in.ctx.failed = 0, in.ctx.message[0] = 0;
    ops.device_collective = NULL;
    assert_int_not_equal(harness_svc_broadcast(&in.ctx, device_mem, 4, HARNESS_DTYPE_F32, 0), 0);
    assert_non_null(strstr(in.ctx.message, "needs NCCL"));
    assert_int_equal(device_calls, 1);
    cpu.ops->close(&cpu);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_factors_and_sizes),
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_alone),
        cmocka_unit_test(test_half_reductions),
        cmocka_unit_test(test_device_routing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
