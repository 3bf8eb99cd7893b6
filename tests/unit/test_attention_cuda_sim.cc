/* test_attention_cuda_sim.cc - the attention/cuda kernels run on the CPU
 * under tests/cudasim against the double reference of attention/cpu: the
 * tensor-core kernel (its mma.sync and ldmatrix simulated from the PTX
 * fragment layouts; one and two m-tiles per warp), the fp32 SIMT kernel and
 * the fallback, on small odd
 * shapes (partial tiles, seq 1/3/65, head_dim 1/3/64/128/130, causal with
 * Sq != Sk both ways, grouped-query heads), each in forward and reversed
 * thread order, the two results identical to the bit; the tiled kernels'
 * shared-memory reads free of bank conflicts and their loads in whole
 * sectors (cudasim's memory accounting); attention/cublas's
 * softmax kernel; and the host plan.
 * Built as C++ with cudasim.h force-included (tests/cudasim/build.am). */
#include "attention/attention_cuda.h"
#include "attention/attention_softmax.h"
#include "common/bf16.h"
#include "common/f16.h"

#include <climits>
#include <cmath>
#include <cstdarg>
#include <cstddef>
#include <csetjmp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
extern "C" {
#include <cmocka.h>
}

#include "attention_sim_util.h"   /* after cmocka: it asserts */

static const attention_cuda_kernel TC = ATTENTION_CUDA_TENSOR_CORE, SIMT = ATTENTION_CUDA_SIMT,
                                   FB = ATTENTION_CUDA_FALLBACK;
static const attention_cuda_dtype F32 = ATTENTION_CUDA_F32, BF16 = ATTENTION_CUDA_BF16, F16 = ATTENTION_CUDA_F16;

struct tcase {
    attention_cuda_dtype dt;
    size_t batch, heads, kv_heads, seq_q, seq_k, head_dim;
    int causal;
    float scale;                  /* 0: 1 / sqrt(head_dim) */
    attention_cuda_kernel kernel; /* the one to run; the plan's own choice is checked by `planned` */
    int planned;                  /* 1: attention_cuda_plan must choose `kernel` itself */
};

static void run_case(const tcase &c)
{
    sim_tensors t = sim_tensors_make(c.dt, c.batch, c.heads, c.kv_heads, c.seq_q, c.seq_k, c.head_dim, c.causal,
                                     c.scale);
    const attention_shape &s = t.s;
    void *q = t.q, *k = t.k, *v = t.v, *o0 = t.o[0];
    attention_cuda_geometry g;
    if (c.planned) {
        assert_int_equal(attention_cuda_plan(&s, c.dt, q, k, v, o0, &g), 0);
        assert_int_equal(g.kernel, c.kernel);
    }
    /* The tensor-core kernel's every build: one and two m-tiles per warp
     * (the plan takes two only on grids too big to simulate), and at
     * head_dim 128 with two, 32 keys a tile besides 64. */
    struct build { unsigned m_tiles, block_keys; };
    static const build other[] = {{0, 0}}, tc64[] = {{1, 64}, {2, 64}}, tc128[] = {{1, 64}, {2, 64}, {2, 32}};
    const build *builds = c.kernel != TC ? other : c.head_dim == 128 ? tc128 : tc64;
    size_t n_builds = c.kernel != TC ? 1 : c.head_dim == 128 ? 3 : 2;
    for (size_t bi = 0; bi < n_builds; bi++) {
        unsigned mt = builds[bi].m_tiles;
        if (mt)
            assert_int_equal(attention_cuda_plan_tensor_core(&s, c.dt, mt, builds[bi].block_keys, q, k, v, o0, &g),
                             0);
        else
            assert_int_equal(attention_cuda_plan_kernel(&s, c.dt, c.kernel, q, k, v, o0, &g), 0);
        /* Both thread orders x both cp.async landings (cudasim.h), each
         * against the reference and bit for bit against the first. */
        for (int run = 0; run < 4; run++) {
            const char *how = sim_set_order_and_landing(run);
            char what[96];
            snprintf(what, sizeof what, "kernel %d (m-tiles %u, %u keys), %s", (int)c.kernel, mt, g.block_keys, how);
            sim_run_and_check(&g, c.dt, &t, run, what);
        }
        cudasim::set_order(cudasim::FORWARD);
        cudasim::set_landing(cudasim::AT_WAIT);
    }
    sim_tensors_free(&t);
}

/* The memory traffic of the kernels run since the last reset_totals, as
 * cudasim costs it (cudasim.h: memory accounting): every kind in `kinds`
 * was used, shared memory without a bank conflict, global memory in whole
 * sectors. */
static void expect_ideal_traffic(const char *kernel, std::initializer_list<cudasim::access_kind> kinds)
{
    static const char *const names[] = {"ldmatrix", "cp.async to shared", "cp.async from global"};
    for (cudasim::access_kind k : kinds) {
        cudasim::access_totals t = cudasim::totals(k);
        print_message("%s, %s: %llu requests, %llu %s, ideal %llu\n", kernel, names[k], t.requests, t.passes,
                      k == cudasim::CP_ASYNC_GLOBAL ? "sectors" : "wavefronts", t.ideal);
        assert_true(t.requests > 0);
        assert_true(t.passes == t.ideal);
    }
}

/* Tensor cores: 65 queries fill a warp's first m-tiles and part of the
 * next, 65 keys are full tiles and one more (tiles of 64 at head_dim 64, 32
 * at 128); 3 and 1 are partial everything; 130 and 257 queries take more
 * than one block of 128. Causal with
 * Sq < Sk (the last queries see all keys) and Sq > Sk (the first see none:
 * zeros); grouped-query heads (2 and 4 query heads per kv head); scale 1
 * makes scores large, so the running max moves and alpha matters. */
static void test_tensor_core(void **state)
{
    (void)state;
    static const tcase cases[] = {
        /* GQA with two kv heads, 2 and 4 query heads each (with one kv head
         * every mapping reads head 0, so a wrong one passes); first, so that
         * tests/cudasim/mutate.sh's mutants fail early. */
        {BF16, 1, 4, 2, 17, 65, 64, 1, 0, TC, 1},
        {BF16, 1, 8, 2, 3, 33, 64, 0, 0, TC, 1},
        /* 8 query heads per kv head (Llama-3-70B's 64 of 8). */
        {BF16, 1, 16, 2, 3, 17, 64, 1, 0, TC, 1},
        {BF16, 1, 2, 1, 65, 65, 64, 1, 0, TC, 1},
        {BF16, 2, 2, 2, 3, 65, 128, 1, 0, TC, 1},
        {BF16, 1, 4, 1, 65, 3, 128, 1, 0, TC, 1},
        {BF16, 1, 1, 1, 1, 130, 64, 0, 0, TC, 1},
        {BF16, 1, 2, 1, 70, 129, 64, 1, 1.0f, TC, 1},
        {F16, 1, 2, 1, 65, 65, 64, 1, 0, TC, 1},
        {F16, 1, 1, 1, 3, 65, 128, 0, 0, TC, 1},
        /* Past one block of 128 queries: causal blocks in reverse, Sq != Sk. */
        {BF16, 1, 2, 1, 130, 161, 128, 1, 0, TC, 1},
        {F16, 1, 1, 1, 257, 200, 64, 1, 0, TC, 1},
        /* 32 query heads per kv head (a 32-head config with one kv head,
         * attention_cuda.yaml's heads as MQA), over two kv heads: last, the
         * dearest (64 blocks). */
        {BF16, 1, 64, 2, 1, 9, 64, 0, 0, TC, 1},
    };
    cudasim::reset_totals();
    for (const tcase &c : cases)
        run_case(c);
    expect_ideal_traffic("tensor core", {cudasim::LDMATRIX, cudasim::CP_ASYNC_SHARED, cudasim::CP_ASYNC_GLOBAL});
}

/* fp32 SIMT: blocks of 32 queries, tiles of 32 keys. */
static void test_simt(void **state)
{
    (void)state;
    static const tcase cases[] = {
        {F32, 1, 4, 2, 5, 40, 64, 1, 0, SIMT, 1},     /* GQA 2 and 4 with 2 kv heads */
        {F32, 1, 8, 2, 3, 33, 64, 0, 0, SIMT, 1},
        {F32, 1, 16, 2, 3, 17, 64, 1, 0, SIMT, 1},    /* GQA 8 */
        {F32, 1, 2, 1, 65, 65, 64, 1, 0, SIMT, 1},
        {F32, 2, 2, 2, 3, 65, 128, 1, 0, SIMT, 1},
        {F32, 1, 2, 2, 65, 3, 64, 1, 0, SIMT, 1},
        {F32, 1, 1, 1, 1, 33, 128, 0, 1.0f, SIMT, 1},
    };
    cudasim::reset_totals();
    for (const tcase &c : cases)
        run_case(c);
    expect_ideal_traffic("SIMT", {cudasim::CP_ASYNC_SHARED, cudasim::CP_ASYNC_GLOBAL});
}

/* Any head_dim: 1, 3 and 130 (two passes of 128 columns) in every dtype,
 * and the fast paths' head_dims forced onto the fallback. */
static void test_fallback(void **state)
{
    (void)state;
    static const tcase cases[] = {
        {F32, 1, 2, 1, 65, 65, 1, 1, 0, FB, 1},
        {BF16, 2, 2, 2, 3, 65, 3, 1, 0, FB, 1},
        {F16, 1, 2, 1, 65, 3, 3, 1, 0, FB, 1},
        {F32, 1, 1, 1, 1, 3, 130, 0, 0, FB, 1},
        {BF16, 1, 2, 1, 5, 9, 130, 1, 0, FB, 1},
        {BF16, 1, 2, 1, 7, 9, 64, 1, 0, FB, 0},
        {F32, 1, 1, 1, 7, 5, 128, 1, 0, FB, 0},
        {BF16, 1, 4, 2, 3, 9, 3, 1, 0, FB, 1},        /* GQA 2 and 4 with 2 kv heads */
        {F32, 1, 8, 2, 3, 5, 1, 0, 0, FB, 1},
    };
    for (const tcase &c : cases)
        run_case(c);
}

/* ---- attention/cublas's softmax kernel ------------------------------------ */

/* rows = 2 (batch x heads) x seq_q score rows against a double softmax with
 * the bottom-right causal mask: fp32 in place, bf16 and fp16 out, both
 * orders. Sq > Sk leaves the first queries with no key (zeros); 70 keys span
 * three passes of a warp over a row. The weights (>= 1e-4 here, normal in
 * fp16) may be off by fp32's error (1e-6) and their rounding to 16 bits. */
static void check_softmax(size_t seq_q, size_t seq_k, int causal, attention_cuda_dtype dt)
{
    size_t rows = 2 * seq_q, n = rows * seq_k;
    float scale = 0.3f;
    double rtol = dt == F32 ? 1e-6 : dt == BF16 ? 0x1p-8 : 0x1p-11 + 1e-6;
    float *s = static_cast<float *>(alloc_exact(n * 4)), *work = static_cast<float *>(alloc_exact(n * 4));
    void *p = alloc_exact(n * elem_size(dt));
    for (size_t e = 0; e < n; e++)
        s[e] = uniform(-8.0f, 8.0f);
    for (int ord = 0; ord < 2; ord++) {
        cudasim::set_order(ord ? cudasim::REVERSED : cudasim::FORWARD);
        memcpy(work, s, n * 4);
        void *out = dt == F32 ? work : p;
        assert_int_equal(attention_softmax_cuda(ref_dtype(dt), work, out, rows, seq_q, seq_k, causal, scale, nullptr),
                         0);
        for (size_t r = 0; r < rows; r++) {
            long long lim = causal ? (long long)(r % seq_q) + (long long)seq_k - (long long)seq_q + 1 : (long long)seq_k;
            size_t vis = lim < 0 ? 0 : (size_t)lim;
            double mx = -INFINITY, sum = 0.0;
            for (size_t j = 0; j < vis; j++)
                mx = fmax(mx, (double)scale * s[r * seq_k + j]);
            for (size_t j = 0; j < vis; j++)
                sum += exp((double)scale * s[r * seq_k + j] - mx);
            for (size_t j = 0; j < seq_k; j++) {
                double want = j < vis ? exp((double)scale * s[r * seq_k + j] - mx) / sum : 0.0;
                double got = get(dt, out, r * seq_k + j);
                if (!(fabs(got - want) <= rtol * want + 1e-30))
                    fail_msg("softmax row %zu key %zu (sq %zu sk %zu causal %d %s): %g, want %g", r, j, seq_q,
                             seq_k, causal, dt_name(dt), got, want);
            }
        }
    }
    cudasim::set_order(cudasim::FORWARD);
    free(s), free(work), free(p);
}

/* bf16 outputs rounded to nearest, not truncated (attention_sim_util.h):
 * the tensor-core kernel and the fallback, causal, GQA 2. */
static void test_bf16_rounding(void **state)
{
    (void)state;
    for (attention_cuda_kernel kernel : {TC, FB}) {
        sim_tensors t = sim_tensors_make(BF16, 1, 2, 1, 20, 40, 64, 1, 0);
        attention_cuda_geometry g;
        assert_int_equal(attention_cuda_plan_kernel(&t.s, BF16, kernel, t.q, t.k, t.v, t.o[0], &g), 0);
        sim_check_bf16_rounding(&g, &t, kernel == TC ? "tensor core" : "fallback");
        sim_tensors_free(&t);
    }
}

static void test_softmax(void **state)
{
    (void)state;
    for (attention_cuda_dtype dt : {F32, BF16, F16}) {
        check_softmax(3, 70, 1, dt);
        check_softmax(65, 3, 1, dt);
        check_softmax(1, 1, 0, dt);
        check_softmax(5, 33, 0, dt);
    }
    float x[4] = {0};
    assert_int_equal(attention_softmax_cuda(ATTENTION_F32, x, x, 3, 2, 2, 0, 1.0f, nullptr), ATTENTION_SOFTMAX_EINVAL);
    assert_int_equal(attention_softmax_cuda(ATTENTION_F32, x, x, 0, 2, 2, 0, 1.0f, nullptr), 0);
    assert_int_equal(attention_softmax_cuda((attention_dtype)3, x, x, 2, 2, 2, 0, 1.0f, nullptr),
                     ATTENTION_SOFTMAX_EINVAL);
}

/* ---- the plan (host logic) ------------------------------------------------ */

/* bf16 on tensor cores: the tiles, the 32-key build, one or two m-tiles. */
static void test_plan_tensor_core(void **state)
{
    (void)state;
    alignas(16) static char buf[64];
    const void *a = buf;
    attention_cuda_geometry g;
    attention_shape s = {2, 32, 8, 4096, 4096, 128, 1, 0.088f};

    /* bf16 head_dim 128: tensor cores, 128 queries a block, a Q tile of 128
     * rows and K and V tiles of 64, x 128 x 2 bytes = 64 KiB; grid
     * (queries / 128, heads, batch). */
    unsetenv(ATTENTION_CUDA_TC_BK_ENV);
    assert_int_equal(attention_cuda_plan(&s, BF16, a, a, a, a, &g), 0);
    assert_int_equal(g.kernel, TC);
    assert_int_equal(g.head_dim, 128);
    assert_int_equal(g.threads, 128);
    assert_int_equal(g.block_keys, 64);
    assert_int_equal(g.smem, 65536);
    assert_int_equal(g.grid_x, 32);
    assert_int_equal(g.grid_y, 32);
    assert_int_equal(g.grid_z, 2);
    assert_int_equal(g.m_tiles, 2);
    /* The 32-key build, asked for or through the environment: 48 KiB. */
    assert_int_equal(attention_cuda_plan_tensor_core(&s, BF16, 2, 32, a, a, a, a, &g), 0);
    assert_int_equal(g.block_keys, 32);
    assert_int_equal(g.smem, 49152);
    setenv(ATTENTION_CUDA_TC_BK_ENV, "32", 1);
    assert_int_equal(attention_cuda_plan(&s, BF16, a, a, a, a, &g), 0);
    assert_int_equal(g.block_keys, 32);
    setenv(ATTENTION_CUDA_TC_BK_ENV, "48", 1);           /* no such build: the default */
    assert_int_equal(attention_cuda_plan(&s, BF16, a, a, a, a, &g), 0);
    assert_int_equal(g.block_keys, 64);
    unsetenv(ATTENTION_CUDA_TC_BK_ENV);
    assert_int_equal(attention_cuda_plan_tensor_core(&s, BF16, 1, 32, a, a, a, a, &g), -1);   /* only with 2 */
    assert_int_equal(attention_cuda_plan_tensor_core(&s, BF16, 2, 48, a, a, a, a, &g), -1);
    /* One m-tile a warp when two would leave under 264 blocks (64 queries a
     * block, K and V tiles of 64: 48 KiB); asked for, either is planned. The
     * environment's 32 applies only where that build exists. */
    s.batch = 1, s.heads = 8, s.kv_heads = 8;
    setenv(ATTENTION_CUDA_TC_BK_ENV, "32", 1);
    assert_int_equal(attention_cuda_plan(&s, BF16, a, a, a, a, &g), 0);
    unsetenv(ATTENTION_CUDA_TC_BK_ENV);
    assert_int_equal(g.m_tiles, 1);
    assert_int_equal(g.block_keys, 64);
    assert_int_equal(g.grid_x, 64);
    assert_int_equal(g.smem, 49152);
    assert_int_equal(attention_cuda_plan_tensor_core(&s, BF16, 2, 0, a, a, a, a, &g), 0);
    assert_int_equal(g.m_tiles, 2);
    assert_int_equal(g.grid_x, 32);
    assert_int_equal(attention_cuda_plan_tensor_core(&s, BF16, 0, 0, a, a, a, a, &g), -1);
    assert_int_equal(attention_cuda_plan_tensor_core(&s, BF16, 3, 0, a, a, a, a, &g), -1);
    assert_int_equal(attention_cuda_plan_tensor_core(&s, F32, 1, 0, a, a, a, a, &g), -1);
}

/* fp32 on SIMT, and the fallback for misaligned pointers or another head_dim. */
static void test_plan_other_kernels(void **state)
{
    (void)state;
    alignas(16) static char buf[64];
    const void *a = buf, *odd = buf + 2;
    attention_cuda_geometry g;
    attention_shape s = {2, 32, 8, 4096, 4096, 128, 1, 0.088f};
    unsetenv(ATTENTION_CUDA_TC_BK_ENV);
    /* fp32: SIMT, 32 queries a block, K and V tiles of 32 x 128 floats. */
    assert_int_equal(attention_cuda_plan(&s, F32, a, a, a, a, &g), 0);
    assert_int_equal(g.kernel, SIMT);
    assert_int_equal(g.smem, 32768);
    assert_int_equal(g.grid_x, 128);
    /* Misaligned pointers or another head_dim: the fallback, a warp per row. */
    assert_int_equal(attention_cuda_plan(&s, BF16, a, odd, a, a, &g), 0);
    assert_int_equal(g.kernel, FB);
    assert_int_equal(g.grid_x, 1024);
    assert_int_equal(g.smem, 0);
    s.head_dim = 96;
    assert_int_equal(attention_cuda_plan(&s, F16, a, a, a, a, &g), 0);
    assert_int_equal(g.kernel, FB);
    assert_int_equal(attention_cuda_plan_kernel(&s, F16, TC, a, a, a, a, &g), -1);
    s.head_dim = 64;
    assert_int_equal(attention_cuda_plan_kernel(&s, F32, TC, a, a, a, a, &g), -1);
    assert_int_equal(attention_cuda_plan_kernel(&s, BF16, SIMT, a, a, a, a, &g), -1);
    assert_int_equal(attention_cuda_plan_kernel(&s, BF16, TC, a, a, a, a, &g), 0);
    assert_int_equal(g.smem, 32768);      /* 128 + 64 + 64 rows x 64 x 2 bytes */
}

/* The Hopper kernel: planned on compute capability 9.0 for bf16/fp16 at
 * head_dim 64 and 128 (384 threads and 128 queries a block at 128, 512 and
 * 192 at 64; three stages of K and V tiles of 128 keys), the mma.sync
 * kernel elsewhere; the environment forces either, and a value that is
 * neither fails the plan. */
static void test_plan_hopper(void **state)
{
    (void)state;
    alignas(16) static char buf[64];
    const void *a = buf, *odd = buf + 2;
    const attention_cuda_kernel HOP = ATTENTION_CUDA_HOPPER;
    attention_cuda_geometry g;
    attention_shape s = {2, 32, 8, 4096, 1000, 128, 1, 0.088f};
    unsetenv(ATTENTION_CUDA_KERNEL_ENV);
    unsetenv(ATTENTION_CUDA_TC_BK_ENV);
    unsetenv(ATTENTION_CUDA_HOPPER_STAGES_ENV);
    unsetenv(ATTENTION_CUDA_HOPPER_TMA_STORE_ENV);
    unsetenv(ATTENTION_CUDA_HOPPER_CONSUMERS_ENV);
    unsetenv(ATTENTION_CUDA_HOPPER_BK_ENV);
    unsetenv(ATTENTION_CUDA_HOPPER_PERSISTENT_ENV);
    assert_int_equal(attention_cuda_plan_arch(&s, BF16, 90, a, a, a, a, &g), 0);
    assert_int_equal(g.kernel, HOP);
    assert_int_equal(g.threads, 384);
    assert_int_equal(g.consumers, 2);
    /* The attention/cuda plugin's "kernel" note says what the switches chose. */
    char said[160];
    assert_string_equal(attention_cuda_describe(&g, said, sizeof said),
                        "Hopper (wgmma, TMA, warp-specialized): 3 stages of 128 keys, 2 consumer warpgroups, "
                        "no cluster, persistent, O stored from registers");
    assert_int_equal(g.head_dim, 128);
    assert_int_equal(g.block_keys, 128);
    assert_int_equal(g.stages, 3);
    assert_int_equal(g.m_tiles, 0);
    /* Q 128 x 128 + 3 stages x (K + V) 128 x 128, 2 bytes each: 224 KiB, and
     * 2 KiB for the 1024-byte alignment and the mbarriers: all but 1 KiB of
     * an H100 block's opt-in. */
    assert_int_equal(g.smem, 224 * 1024 + 2048);
    assert_true(g.smem <= 227 * 1024);
    assert_int_equal(g.tma_store, 0);   /* O's 32 KiB staging tile would pass 227 */
    assert_int_equal(g.grid_x, 32);
    assert_int_equal(g.grid_y, 32);
    assert_int_equal(g.grid_z, 2);
    assert_int_equal(g.cluster, 1);       /* causal */
    /* Clusters of two (K and V multicast): head_dim 128 without the causal
     * mask, 3 stages of 128 keys, the query blocks in pairs; not with 2
     * stages, an odd count of query blocks, or HARNESS_ATTENTION_HOPPER_CLUSTER=1. */
    s.causal = 0;
    assert_int_equal(attention_cuda_plan_arch(&s, BF16, 90, a, a, a, a, &g), 0);
    assert_int_equal(g.cluster, 2);
    assert_string_equal(attention_cuda_describe(&g, said, sizeof said),
                        "Hopper (wgmma, TMA, warp-specialized): 3 stages of 128 keys, 2 consumer warpgroups, "
                        "K/V multicast over clusters of 2, persistent, O stored from registers");
    assert_int_equal(attention_cuda_plan_hopper(&s, BF16, 2, a, a, a, a, &g), 0);
    assert_int_equal(g.cluster, 1);
    s.seq_q = 4096 - 128;
    assert_int_equal(attention_cuda_plan_arch(&s, BF16, 90, a, a, a, a, &g), 0);
    assert_int_equal(g.grid_x, 31);
    assert_int_equal(g.cluster, 1);
    s.seq_q = 4096;
    setenv(ATTENTION_CUDA_HOPPER_CLUSTER_ENV, "1", 1);
    assert_int_equal(attention_cuda_plan_arch(&s, BF16, 90, a, a, a, a, &g), 0);
    assert_int_equal(g.cluster, 1);
    unsetenv(ATTENTION_CUDA_HOPPER_CLUSTER_ENV);
    s.causal = 1;
    s.head_dim = 64;
    assert_int_equal(attention_cuda_plan_arch(&s, F16, 90, a, a, a, a, &g), 0);
    assert_int_equal(g.kernel, HOP);
    /* Three consumer warpgroups at 64: 512 threads, 192 queries a block;
     * Q 24 KiB, the stages 96, O's staging tile 24. */
    assert_int_equal(g.consumers, 3);
    assert_int_equal(g.threads, 512);
    assert_int_equal(g.grid_x, 22);
    assert_int_equal(g.tma_store, 1);
    assert_int_equal(g.smem, (24 + 96 + 24) * 1024 + 2048);
    assert_string_equal(attention_cuda_describe(&g, said, sizeof said),
                        "Hopper (wgmma, TMA, warp-specialized): 3 stages of 128 keys, 3 consumer warpgroups, "
                        "no cluster, persistent, O through TMA stores");
    setenv(ATTENTION_CUDA_HOPPER_TMA_STORE_ENV, "0", 1);
    setenv(ATTENTION_CUDA_HOPPER_PERSISTENT_ENV, "0", 1);
    assert_int_equal(attention_cuda_plan_arch(&s, F16, 90, a, a, a, a, &g), 0);
    assert_int_equal(g.tma_store, 0);
    assert_int_equal(g.smem, (24 + 96) * 1024 + 2048);
    assert_string_equal(attention_cuda_describe(&g, said, sizeof said),
                        "Hopper (wgmma, TMA, warp-specialized): 3 stages of 128 keys, 3 consumer warpgroups, "
                        "no cluster, a block per item, O stored from registers");
    unsetenv(ATTENTION_CUDA_HOPPER_TMA_STORE_ENV);
    unsetenv(ATTENTION_CUDA_HOPPER_PERSISTENT_ENV);
    /* Two consumers when asked: 384 threads, 128 queries a block; 3 at 128
     * is ignored (its consumers need 240 registers). */
    setenv(ATTENTION_CUDA_HOPPER_CONSUMERS_ENV, "2", 1);
    assert_int_equal(attention_cuda_plan_arch(&s, F16, 90, a, a, a, a, &g), 0);
    assert_int_equal(g.consumers, 2);
    assert_int_equal(g.threads, 384);
    assert_int_equal(g.grid_x, 32);
    assert_int_equal(g.smem, (16 + 96 + 16) * 1024 + 2048);
    setenv(ATTENTION_CUDA_HOPPER_CONSUMERS_ENV, "3", 1);
    s.head_dim = 128;
    assert_int_equal(attention_cuda_plan_arch(&s, F16, 90, a, a, a, a, &g), 0);
    assert_int_equal(g.consumers, 2);
    s.head_dim = 64;
    unsetenv(ATTENTION_CUDA_HOPPER_CONSUMERS_ENV);
    /* Other GPUs (8.0, 8.9, 10.0, unknown): mma.sync, as attention_cuda_plan. */
    for (int cc : {0, 80, 89, 100}) {
        assert_int_equal(attention_cuda_plan_arch(&s, BF16, cc, a, a, a, a, &g), 0);
        assert_int_equal(g.kernel, TC);
    }
    /* What the Hopper kernel does not take goes where attention_cuda_plan sends it. */
    assert_int_equal(attention_cuda_plan_arch(&s, F32, 90, a, a, a, a, &g), 0);
    assert_int_equal(g.kernel, SIMT);
    assert_int_equal(attention_cuda_plan_arch(&s, BF16, 90, a, odd, a, a, &g), 0);
    assert_int_equal(g.kernel, FB);
    s.head_dim = 96;
    assert_int_equal(attention_cuda_plan_arch(&s, BF16, 90, a, a, a, a, &g), 0);
    assert_int_equal(g.kernel, FB);
    s.head_dim = 64;
    s.scale = 0.0f;
    assert_int_equal(attention_cuda_plan_kernel(&s, BF16, HOP, a, a, a, a, &g), -1);
    s.scale = 0.125f;
    /* The override, both ways, whatever the GPU. */
    char why[160];
    setenv(ATTENTION_CUDA_KERNEL_ENV, "mma_sync", 1);
    assert_int_equal(attention_cuda_env_check(why, sizeof why), 0);
    assert_int_equal(attention_cuda_plan_arch(&s, BF16, 90, a, a, a, a, &g), 0);
    assert_int_equal(g.kernel, TC);
    setenv(ATTENTION_CUDA_KERNEL_ENV, "hopper", 1);
    assert_int_equal(attention_cuda_plan_arch(&s, BF16, 80, a, a, a, a, &g), 0);
    assert_int_equal(g.kernel, HOP);
    assert_int_equal(attention_cuda_plan_arch(&s, F32, 80, a, a, a, a, &g), 0);   /* not a shape it takes */
    assert_int_equal(g.kernel, SIMT);
    /* Two stages, asked for or through the environment: 162 KiB at
     * head_dim 128; other counts are refused, in the environment ignored. */
    s.head_dim = 128;
    assert_int_equal(attention_cuda_plan_hopper(&s, BF16, 2, a, a, a, a, &g), 0);
    assert_int_equal(g.stages, 2);
    assert_int_equal(g.tma_store, 1);
    assert_int_equal(g.smem, 160 * 1024 + 2048 + 32 * 1024);
    setenv(ATTENTION_CUDA_HOPPER_STAGES_ENV, "2", 1);
    assert_int_equal(attention_cuda_plan_arch(&s, BF16, 90, a, a, a, a, &g), 0);
    assert_int_equal(g.stages, 2);
    setenv(ATTENTION_CUDA_HOPPER_STAGES_ENV, "3", 1);
    assert_int_equal(attention_cuda_plan_arch(&s, BF16, 90, a, a, a, a, &g), 0);
    assert_int_equal(g.stages, 3);
    setenv(ATTENTION_CUDA_HOPPER_STAGES_ENV, "4", 1);
    assert_int_equal(attention_cuda_plan_arch(&s, BF16, 90, a, a, a, a, &g), 0);
    assert_int_equal(g.stages, 3);
    unsetenv(ATTENTION_CUDA_HOPPER_STAGES_ENV);
    /* 176-key tiles when asked, at head_dim 128 without the causal mask and
     * with 2 stages only: Q 32 KiB + 2 x 88, no room for O's tile. */
    setenv(ATTENTION_CUDA_HOPPER_BK_ENV, "176", 1);
    assert_int_equal(attention_cuda_plan_hopper(&s, BF16, 2, a, a, a, a, &g), 0);
    assert_int_equal(g.block_keys, 128);   /* s is causal */
    s.causal = 0;
    assert_int_equal(attention_cuda_plan_hopper(&s, BF16, 2, a, a, a, a, &g), 0);
    assert_int_equal(g.block_keys, 176);
    assert_int_equal(g.tma_store, 0);
    assert_int_equal(g.smem, (32 + 2 * 88) * 1024 + 2048);
    assert_string_equal(attention_cuda_describe(&g, said, sizeof said),
                        "Hopper (wgmma, TMA, warp-specialized): 2 stages of 176 keys, 2 consumer warpgroups, "
                        "no cluster, persistent, O stored from registers");
    assert_int_equal(attention_cuda_plan_arch(&s, BF16, 90, a, a, a, a, &g), 0);
    assert_int_equal(g.block_keys, 128);   /* 3 stages: the default */
    s.head_dim = 64;
    assert_int_equal(attention_cuda_plan_hopper(&s, BF16, 2, a, a, a, a, &g), 0);
    assert_int_equal(g.block_keys, 128);
    s.head_dim = 128;
    s.causal = 1;
    unsetenv(ATTENTION_CUDA_HOPPER_BK_ENV);
    assert_int_equal(attention_cuda_plan_hopper(&s, BF16, 4, a, a, a, a, &g), -1);
    assert_int_equal(attention_cuda_plan_hopper(&s, BF16, 1, a, a, a, a, &g), -1);
    assert_int_equal(attention_cuda_plan_hopper(&s, F32, 2, a, a, a, a, &g), -1);
    s.head_dim = 64;
    setenv(ATTENTION_CUDA_KERNEL_ENV, "wgmma", 1);
    assert_int_equal(attention_cuda_env_check(why, sizeof why), -1);
    assert_string_equal(why, "HARNESS_ATTENTION_KERNEL='wgmma': use mma_sync or hopper (or unset it)");
    assert_int_equal(attention_cuda_plan_arch(&s, BF16, 90, a, a, a, a, &g), -1);
    unsetenv(ATTENTION_CUDA_KERNEL_ENV);
    assert_int_equal(attention_cuda_env_check(why, sizeof why), 0);
    /* Every A/B switch refuses a value it does not know, naming it and its
     * two values; empty is unset. */
    static const char *const bad[][3] = {
        {ATTENTION_CUDA_TC_BK_ENV, "16", "HARNESS_ATTENTION_TC_BK='16': use 64 or 32 (or unset it)"},
        {ATTENTION_CUDA_HOPPER_STAGES_ENV, "4", "HARNESS_ATTENTION_HOPPER_STAGES='4': use 2 or 3 (or unset it)"},
        {ATTENTION_CUDA_HOPPER_CONSUMERS_ENV, "1", "HARNESS_ATTENTION_HOPPER_CONSUMERS='1': use 2 or 3"},
        {ATTENTION_CUDA_HOPPER_BK_ENV, "192", "HARNESS_ATTENTION_HOPPER_BK='192': use 128 or 176"},
        {ATTENTION_CUDA_HOPPER_PERSISTENT_ENV, "no", "HARNESS_ATTENTION_HOPPER_PERSISTENT='no': use 0 or 1"},
        {ATTENTION_CUDA_HOPPER_TMA_STORE_ENV, "off", "HARNESS_ATTENTION_HOPPER_TMA_STORE='off': use 0 or 1"},
        {ATTENTION_CUDA_HOPPER_CLUSTER_ENV, "4", "HARNESS_ATTENTION_HOPPER_CLUSTER='4': use 1 or 2"},
    };
    for (const auto &b : bad) {
        setenv(b[0], b[1], 1);
        assert_int_equal(attention_cuda_env_check(why, sizeof why), -1);
        if (!strstr(why, b[2]))
            fail_msg("%s=%s: \"%s\"", b[0], b[1], why);
        setenv(b[0], "", 1);
        assert_int_equal(attention_cuda_env_check(why, sizeof why), 0);
        unsetenv(b[0]);
    }
    /* The launcher checks a Hopper geometry against the plan too; this
     * program has the stub (attention_hopper_stub.c): the kernel runs in
     * test_attention_hopper_sim. */
    s.seq_q = 4;
    assert_int_equal(attention_cuda_plan_kernel(&s, BF16, HOP, a, a, a, a, &g), 0);
    g.stages = 2;                     /* 2 is a build, but not this geometry's smem */
    assert_int_equal(attention_cuda_launch(&g, &s, BF16, a, a, a, buf, nullptr), ATTENTION_CUDA_EINVAL);
    g.stages = 0;
    assert_int_equal(attention_cuda_launch(&g, &s, BF16, a, a, a, buf, nullptr), ATTENTION_CUDA_EINVAL);
    g.stages = 3;
    assert_int_equal(attention_cuda_launch(&g, &s, BF16, a, a, a, buf, nullptr), ATTENTION_CUDA_ENOHOPPER);
}

static void test_plan_refusals(void **state)
{
    (void)state;
    alignas(16) static char buf[64];
    const void *a = buf;
    attention_cuda_geometry g;
    attention_shape s = {2, 32, 8, 4096, 4096, 64, 1, 0.088f};
    unsetenv(ATTENTION_CUDA_TC_BK_ENV);
    /* Refusals: heads not a multiple of kv_heads, no kv heads, a grid past
     * CUDA's limits; no queries is a plan with nothing to launch. */
    s.kv_heads = 5;
    assert_int_equal(attention_cuda_plan(&s, BF16, a, a, a, a, &g), -1);
    s.kv_heads = 0;
    assert_int_equal(attention_cuda_plan(&s, BF16, a, a, a, a, &g), -1);
    s.kv_heads = 1;
    s.heads = 65536;
    assert_int_equal(attention_cuda_plan(&s, BF16, a, a, a, a, &g), -1);
    s.heads = 1, s.batch = 65536;
    assert_int_equal(attention_cuda_plan(&s, BF16, a, a, a, a, &g), -1);
    s.batch = 1, s.seq_q = 0;
    assert_int_equal(attention_cuda_plan(&s, BF16, a, a, a, a, &g), 0);
    assert_int_equal(g.grid_x, 0);
    assert_int_equal(attention_cuda_plan(&s, (attention_cuda_dtype)7, a, a, a, a, &g), -1);

    /* The launcher refuses a geometry made for another shape, or with an
     * m-tile count the kernel does not have. */
    s.seq_q = 4;
    assert_int_equal(attention_cuda_plan(&s, BF16, a, a, a, a, &g), 0);
    s.seq_q = 200;
    assert_int_equal(attention_cuda_launch(&g, &s, BF16, a, a, a, buf, nullptr), ATTENTION_CUDA_EINVAL);
    s.seq_q = 4;
    g.m_tiles = 3;
    assert_int_equal(attention_cuda_launch(&g, &s, BF16, a, a, a, buf, nullptr), ATTENTION_CUDA_EINVAL);
    assert_int_equal(attention_cuda_plan(&s, BF16, a, a, a, a, &g), 0);
    g.block_keys = 32;                /* a build this head_dim lacks */
    assert_int_equal(attention_cuda_launch(&g, &s, BF16, a, a, a, buf, nullptr), ATTENTION_CUDA_EINVAL);
    s.seq_q = 0;
    assert_int_equal(attention_cuda(&s, BF16, a, a, a, buf, nullptr), 0);   /* nothing to do */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_tensor_core),
        cmocka_unit_test(test_plan_other_kernels),
        cmocka_unit_test(test_plan_refusals),
        cmocka_unit_test(test_plan_hopper),
        cmocka_unit_test(test_tensor_core),
        cmocka_unit_test(test_simt),
        cmocka_unit_test(test_fallback),
        cmocka_unit_test(test_bf16_rounding),
        cmocka_unit_test(test_softmax),
    };
    /* tests/cudasim/mutate.sh runs only the test that can catch a mutant. */
    if (const char *only = getenv("CUDASIM_TEST_FILTER"))
        cmocka_set_test_filter(only);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
