/* test_rms_norm_cuda_sim.cc - the rms_norm/cuda kernels run on the CPU under
 * tests/cudasim against the double reference, each case once with every
 * block's threads resumed in forward order and once reversed; the host-side
 * plan; and the layer itself: that each order catches the missing
 * __syncthreads it is meant to, the warp collectives, dynamic shared memory,
 * launch errors. Built as C++ with cudasim.h force-included (Makefile.am). */
#include "rms_norm/rms_norm_cuda.h"
#include "common/bf16.h"
#include "common/f16.h"
#include "common/cuda_launch.h"
#include "bf16_rounding.h"

#include <climits>
#include <cmath>
#include <vector>
#include <cstdarg>
#include <cstddef>
#include <csetjmp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
extern "C" {
#include <cmocka.h>
}

/* ---- data ------------------------------------------------------------- */

static uint32_t rng = 7;

static float uniform(float lo, float hi)
{
    rng = rng * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(rng >> 8) / (float)(1u << 24);
}

static size_t elem_size(rms_norm_dtype dt) { return dt == RMS_NORM_F32 ? 4 : 2; }

static void put(rms_norm_dtype dt, void *p, size_t i, float v)
{
    if (dt == RMS_NORM_F32)
        static_cast<float *>(p)[i] = v;
    else
        static_cast<uint16_t *>(p)[i] = dt == RMS_NORM_BF16 ? f32_to_bf16(v) : f32_to_f16(v);
}

/* An exact-size buffer (ASan flags any access past it) at a 16-byte
 * boundary, or one element past it (shift = 1) to force the scalar path;
 * the element before a shifted buffer is in bounds but never touched. */
struct buffer {
    void *base;
    void *p;
};

static buffer alloc_buffer(size_t bytes, size_t shift)
{
    buffer b;
    assert_int_equal(posix_memalign(&b.base, 16, bytes + shift), 0);
    b.p = static_cast<char *>(b.base) + shift;
    return b;
}

/* ---- the kernels against the reference -------------------------------- */

struct shape {
    rms_norm_dtype dt;
    size_t rows, hidden;
    size_t shift;   /* elements by which x, w and y miss a 16-byte boundary */
};

/* y rounded to nearest, not truncated (bf16_rounding.h), against y in
 * double from the same bf16 x and w; rows of fewer outputs say nothing. */
static void check_bf16_rounding(const void *x, const void *w, const void *y, size_t rows, size_t hidden, float eps)
{
    const uint16_t *xb = static_cast<const uint16_t *>(x), *wb = static_cast<const uint16_t *>(w);
    std::vector<double> want(rows * hidden);
    for (size_t r = 0; r < rows; r++) {
        double ss = 0.0;
        for (size_t i = 0; i < hidden; i++)
            ss += (double)bf16_to_f32(xb[r * hidden + i]) * bf16_to_f32(xb[r * hidden + i]);
        double rstd = 1.0 / std::sqrt(ss / (double)hidden + (double)eps);
        for (size_t i = 0; i < hidden; i++)
            want[r * hidden + i] = bf16_to_f32(xb[r * hidden + i]) * rstd * bf16_to_f32(wb[i]);
    }
    size_t counted;
    double bias = bf16_rounding_bias(static_cast<const uint16_t *>(y), want.data(), rows * hidden, &counted);
    if (counted >= BF16_ROUNDING_MIN_COUNT && !(std::fabs(bias) <= BF16_ROUNDING_MAX_BIAS))
        fail_msg("bf16 rows %zu hidden %zu: y biased by %.3f ulp over %zu (truncated, not rounded to nearest?)", rows,
                 hidden, bias, counted);
}

/* Runs one shape in both orders; both must pass the checker and agree to the
 * bit (the reduction order does not depend on scheduling). Returns the plan
 * the launcher used, for the caller to check the path it meant to cover. */
static rms_norm_cuda_geometry run_shape(shape s, float eps, float scale)
{
    size_t es = elem_size(s.dt), n = s.rows * s.hidden;
    buffer x = alloc_buffer(n * es, s.shift * es), w = alloc_buffer(s.hidden * es, s.shift * es);
    buffer y[2] = {alloc_buffer(n * es, s.shift * es), alloc_buffer(n * es, s.shift * es)};
    for (size_t i = 0; i < n; i++)
        put(s.dt, x.p, i, uniform(-scale, scale));
    for (size_t i = 0; i < s.hidden; i++)
        put(s.dt, w.p, i, uniform(0.5f, 1.5f));

    rms_norm_cuda_geometry g;
    assert_int_equal(rms_norm_cuda_plan(s.dt, s.rows, s.hidden, x.p, w.p, y[0].p, &g), 0);
    for (int o = 0; o < 2; o++) {
        cudasim::set_order(o ? cudasim::REVERSED : cudasim::FORWARD);
        memset(y[o].p, 0xff, n * es);   /* NaN: an element never written fails */
        assert_int_equal(rms_norm_cuda(s.dt, x.p, w.p, y[o].p, s.rows, s.hidden, eps, nullptr), 0);
        rms_norm_check_result res;
        assert_int_equal(rms_norm_check(s.dt, x.p, w.p, y[o].p, s.rows, s.hidden, eps, &res), 0);
        if (!res.passed)
            print_error("dtype %d rows %zu hidden %zu shift %zu %s: %s\n", (int)s.dt, s.rows,
                        s.hidden, s.shift, o ? "reversed" : "forward", res.detail);
        assert_true(res.passed);
        assert_int_equal(res.checked, n);
    }
    assert_memory_equal(y[0].p, y[1].p, n * es);
    if (s.dt == RMS_NORM_BF16)
        check_bf16_rounding(x.p, w.p, y[0].p, s.rows, s.hidden, eps);
    cudasim::set_order(cudasim::FORWARD);
    free(x.base);
    free(w.base);
    free(y[0].base);
    free(y[1].base);
    return g;
}

static const rms_norm_dtype dtypes[] = {RMS_NORM_F32, RMS_NORM_BF16, RMS_NORM_F16};

/* The odd shapes: 1, 7 and 33 are never whole vectors (scalar, warp per
 * row), 4097 is scalar and a block per row with a remainder past the cache. */
static void test_odd_shapes(void **state)
{
    (void)state;
    static const size_t hiddens[] = {1, 7, 33, 4097};
    /* 0.5 against mean(x^2) ~ 3e-7 tells eps from eps^2 (1 cannot). */
    static const float epss[] = {1e-6f, 0.5f, 1.0f};
    for (rms_norm_dtype dt : dtypes)
        for (size_t h : hiddens)
            for (float eps : epss) {
                rms_norm_cuda_geometry g = run_shape({dt, 3, h, 0}, eps, eps < 0.5f ? 2.0f : 1e-3f);
                assert_int_equal(g.vec, 1);
                assert_int_equal(g.block_per_row, h > RMS_NORM_CUDA_WARP_MAX_HIDDEN);
            }
}

/* Whole vectors at aligned addresses: 16-byte loads, a warp per row (5 rows:
 * the second block has one live warp; fp32 1024 is 256 vectors, past the 128
 * a warp keeps in registers) and a block per row (4096: all of it in
 * registers; fp32 16400 is 4100 vectors, past 1024 threads x 4). */
static void test_vector_paths(void **state)
{
    (void)state;
    static const size_t hiddens[] = {8, 1024, 4096, 16400};
    for (rms_norm_dtype dt : dtypes)
        for (size_t h : hiddens) {
            rms_norm_cuda_geometry g = run_shape({dt, 5, h, 0}, 1e-6f, 2.0f);
            assert_int_equal(g.vec, 16 / elem_size(dt));
            assert_int_equal(g.block_per_row, h > RMS_NORM_CUDA_WARP_MAX_HIDDEN);
        }
}

/* The same whole-vector rows one element off a 16-byte boundary: scalar. */
static void test_misaligned(void **state)
{
    (void)state;
    static const size_t hiddens[] = {64, 4096};
    for (rms_norm_dtype dt : dtypes)
        for (size_t h : hiddens) {
            rms_norm_cuda_geometry g = run_shape({dt, 3, h, 1}, 1e-6f, 2.0f);
            assert_int_equal(g.vec, 1);
        }
}

static void test_launcher_refuses(void **state)
{
    (void)state;
    float x[4] = {0}, w[4] = {0}, y[4] = {0};
    assert_int_equal(rms_norm_cuda(RMS_NORM_F32, x, w, y, 1, 0, 1e-6f, nullptr), RMS_NORM_CUDA_EINVAL);
    assert_int_equal(rms_norm_cuda((rms_norm_dtype)9, x, w, y, 1, 4, 1e-6f, nullptr),
                     RMS_NORM_CUDA_EINVAL);
    assert_int_equal(rms_norm_cuda(RMS_NORM_F32, x, w, y, 0, 4, 1e-6f, nullptr), 0);   /* no rows */
}

/* ---- the plan (host logic) ---------------------------------------------- */

static void test_plan(void **state)
{
    (void)state;
    alignas(16) static char buf[64];
    const void *a = buf, *odd = buf + 2;
    rms_norm_cuda_geometry g;

    /* bf16 8 x 1024 x 4096: a block per row, 16-byte vectors (8 elements),
     * 128 threads holding 4 vectors each: the whole row in registers. */
    assert_int_equal(rms_norm_cuda_plan(RMS_NORM_BF16, 8192, 4096, a, a, a, &g), 0);
    assert_int_equal(g.block_per_row, 1);
    assert_int_equal(g.vec, 8);
    assert_int_equal(g.threads, 128);
    assert_int_equal(g.rows_per_block, 1);
    assert_int_equal(g.blocks, 8192);
    assert_int_equal(rms_norm_cuda_plan(RMS_NORM_F32, 10, 4096, a, a, a, &g), 0);
    assert_int_equal(g.vec, 4);
    assert_int_equal(g.threads, 256);

    /* Up to RMS_NORM_CUDA_WARP_MAX_HIDDEN: a warp per row, 4 rows a block. */
    assert_int_equal(rms_norm_cuda_plan(RMS_NORM_F16, 9, 1024, a, a, a, &g), 0);
    assert_int_equal(g.block_per_row, 0);
    assert_int_equal(g.vec, 8);
    assert_int_equal(g.threads, 32 * RMS_NORM_CUDA_ROWS_PER_BLOCK);
    assert_int_equal(g.rows_per_block, RMS_NORM_CUDA_ROWS_PER_BLOCK);
    assert_int_equal(g.blocks, 3);
    assert_int_equal(rms_norm_cuda_plan(RMS_NORM_F16, 9, 1025, a, a, a, &g), 0);
    assert_int_equal(g.block_per_row, 1);
    assert_int_equal(g.vec, 1);                 /* 1025 is not whole vectors */
    assert_int_equal(g.threads, 288);           /* ceil(1025 / 4) = 257, in whole warps */

    /* Vectors need every row aligned: x, w and y, and whole rows of them. */
    assert_int_equal(rms_norm_cuda_plan(RMS_NORM_BF16, 2, 4096, odd, a, a, &g), 0);
    assert_int_equal(g.vec, 1);
    assert_int_equal(rms_norm_cuda_plan(RMS_NORM_BF16, 2, 4096, a, odd, a, &g), 0);
    assert_int_equal(g.vec, 1);
    assert_int_equal(rms_norm_cuda_plan(RMS_NORM_BF16, 2, 4096, a, a, odd, &g), 0);
    assert_int_equal(g.vec, 1);
    assert_int_equal(rms_norm_cuda_plan(RMS_NORM_BF16, 2, 4100, a, a, a, &g), 0);
    assert_int_equal(g.vec, 1);                 /* rows of 8200 bytes: row 1 is off by 8 */
    assert_int_equal(rms_norm_cuda_plan(RMS_NORM_F32, 2, 4100, a, a, a, &g), 0);
    assert_int_equal(g.vec, 4);                 /* 16400 bytes: whole vectors */

    /* Long scalar rows: the largest block, the rest re-read. Small: 2 warps. */
    assert_int_equal(rms_norm_cuda_plan(RMS_NORM_F32, 1, 100001, a, a, a, &g), 0);
    assert_int_equal(g.threads, RMS_NORM_CUDA_MAX_THREADS);
    assert_int_equal(rms_norm_cuda_plan(RMS_NORM_BF16, 1, 1032, a, a, a, &g), 0);
    assert_int_equal(g.vec, 8);
    assert_int_equal(g.threads, 64);            /* 129 vectors: 33 threads, 2 warps at least */

    /* Refusals; no rows is a plan with nothing to launch. */
    assert_int_equal(rms_norm_cuda_plan(RMS_NORM_F32, 1, 0, a, a, a, &g), -1);
    assert_int_equal(rms_norm_cuda_plan(RMS_NORM_F32, 1, (size_t)INT_MAX + 1, a, a, a, &g), -1);
    assert_int_equal(rms_norm_cuda_plan((rms_norm_dtype)0, 1, 8, a, a, a, &g), -1);
    assert_int_equal(rms_norm_cuda_plan(RMS_NORM_F32, (size_t)1 << 31, 4096, a, a, a, &g), -1);
    assert_int_equal(rms_norm_cuda_plan(RMS_NORM_F32, ((size_t)1 << 31) - 1, 4096, a, a, a, &g), 0);
    assert_int_equal(rms_norm_cuda_plan(RMS_NORM_F32, 0, 8, a, a, a, &g), 0);
    assert_int_equal(g.blocks, 0);
}

/* ---- the layer: a missing __syncthreads must show ---------------------- */

/* Test kernels: a block sums its row of n floats. Lane 0 of each warp posts
 * its warp's sum; thread 0 adds the posts and posts the total; everyone
 * writes the total. BUG_READ leaves out the barrier before thread 0 reads
 * the posts (it runs ahead of the warps that post later: forward order shows
 * it); BUG_BROADCAST the one before the others read the total (they run
 * ahead of thread 0: reversed order shows it). */
enum bug { NONE, BUG_READ, BUG_BROADCAST };

static __device__ float lane_sum(float v)
{
    for (int d = 16; d > 0; d /= 2)
        v += __shfl_down_sync(0xffffffffu, v, d);
    return v;
}

__global__ void block_sum(const float *x, float *out, int n, int bug)
{
    __shared__ float posts[32];
    __shared__ float total;
    float v = 0.0f;
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        v += x[(size_t)blockIdx.x * n + i];
    v = lane_sum(v);
    if (threadIdx.x % 32 == 0)
        posts[threadIdx.x / 32] = v;
    if (bug != BUG_READ)
        __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0.0f;
        for (unsigned w = 0; w < blockDim.x / 32; w++)
            s += posts[w];
        total = s;
    }
    if (bug != BUG_BROADCAST)
        __syncthreads();
    out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = total;
}

/* 3 blocks x 128 threads, rows of distinct sums (so a value left over from
 * the previous block is wrong too). Returns the wrong outputs in order o. */
static int block_sum_errors(int bug, cudasim::order o)
{
    enum { BLOCKS = 3, THREADS = 128, N = 256 };
    float *x = static_cast<float *>(malloc(BLOCKS * N * sizeof(float)));
    float *out = static_cast<float *>(malloc(BLOCKS * THREADS * sizeof(float)));
    assert_non_null(x);
    assert_non_null(out);
    for (int i = 0; i < BLOCKS * N; i++)
        x[i] = (float)(i / N + 1);            /* exact sums: 256, 512, 768 */
    cudasim::set_order(o);
    auto k = block_sum;
    CUDA_LAUNCH(k, dim3(BLOCKS), dim3(THREADS), 0, nullptr, x, out, (int)N, bug);
    assert_int_equal(cudaGetLastError(), cudaSuccess);
    cudasim::set_order(cudasim::FORWARD);
    int wrong = 0;
    for (int b = 0; b < BLOCKS; b++)
        for (int t = 0; t < THREADS; t++)
            wrong += out[b * THREADS + t] != (float)(N * (b + 1));
    free(x);
    free(out);
    return wrong;
}

static void test_missing_barrier_shows(void **state)
{
    (void)state;
    assert_int_equal(block_sum_errors(NONE, cudasim::FORWARD), 0);
    assert_int_equal(block_sum_errors(NONE, cudasim::REVERSED), 0);
    /* Each bug passes in one order and fails in the other: both are needed. */
    assert_true(block_sum_errors(BUG_READ, cudasim::FORWARD) > 0);
    assert_int_equal(block_sum_errors(BUG_READ, cudasim::REVERSED), 0);
    assert_int_equal(block_sum_errors(BUG_BROADCAST, cudasim::FORWARD), 0);
    assert_true(block_sum_errors(BUG_BROADCAST, cudasim::REVERSED) > 0);
}

/* ---- the layer: collectives, dynamic shared memory, atomics, errors --- */

/* Per thread of a 2-D block of 48 threads (the second warp half full):
 * several results of the collectives, written where the test can read them. */
__global__ void collectives(int *out, unsigned *counter)
{
    int t = threadIdx.y * blockDim.x + threadIdx.x, lane = t % 32;
    unsigned mask = __activemask();
    int *o = out + 6 * (blockIdx.x * blockDim.x * blockDim.y + t);
    o[0] = __shfl_sync(mask, t * 10, 3);                   /* lane 3's value */
    o[1] = __shfl_up_sync(mask, t, 1);                      /* lane - 1, lane 0 keeps its own */
    o[2] = __shfl_xor_sync(mask, t, 1, 8);                  /* pairs within 8-lane groups */
    o[3] = (int)__ballot_sync(mask, lane % 2);
    o[4] = __all_sync(mask, t >= 0) * 2 + __any_sync(mask, lane == 5);
    CUDA_DYNAMIC_SHARED(unsigned, scratch);                 /* blockDim words + 1 */
    o[5] = (int)scratch[t];                                 /* never written: the poison */
    __syncthreads();
    scratch[t] = (unsigned)t;
    __syncthreads();
    if (t == 0) {
        unsigned s = 0;
        for (unsigned i = 0; i < blockDim.x * blockDim.y; i++)
            s += scratch[i];
        scratch[blockDim.x * blockDim.y] = s;
        atomicAdd(counter, s);
    }
}

static void test_collectives(void **state)
{
    (void)state;
    enum { BLOCKS = 2, TX = 16, TY = 3, T = TX * TY };
    int *out = static_cast<int *>(malloc(BLOCKS * T * 6 * sizeof(int)));
    unsigned *counter = static_cast<unsigned *>(malloc(sizeof(unsigned)));
    assert_non_null(out);
    assert_non_null(counter);
    for (int o = 0; o < 2; o++) {
        *counter = 0;
        cudasim::set_order(o ? cudasim::REVERSED : cudasim::FORWARD);
        auto k = collectives;
        CUDA_LAUNCH(k, dim3(BLOCKS), dim3(TX, TY), (T + 1) * sizeof(unsigned), nullptr, out, counter);
        assert_int_equal(cudaGetLastError(), cudaSuccess);
        for (int b = 0; b < BLOCKS; b++)
            for (int t = 0; t < T; t++) {
                const int *r = out + 6 * (b * T + t);
                int lane = t % 32, warp0 = t - lane;
                unsigned live = t < 32 ? 0xffffffffu : 0xffffu;   /* 48 threads: 32 + 16 */
                assert_int_equal(r[0], (warp0 + 3) * 10);
                assert_int_equal(r[1], lane == 0 ? t : t - 1);
                assert_int_equal(r[2], t ^ 1);
                assert_int_equal((unsigned)r[3], 0xaaaaaaaau & live);
                assert_int_equal(r[4], 3);
                assert_int_equal((unsigned)r[5], 0xffffffffu);
            }
        assert_int_equal(*counter, BLOCKS * (T * (T - 1) / 2));
    }
    cudasim::set_order(cudasim::FORWARD);
    free(out);
    free(counter);
}

static void test_launch_errors(void **state)
{
    (void)state;
    int out[6];
    unsigned counter = 0;
    auto k = collectives;
    CUDA_LAUNCH(k, dim3(1), dim3(2048), 0, nullptr, out, &counter);   /* > 1024 threads */
    assert_int_equal(cudaGetLastError(), cudaErrorInvalidConfiguration);
    assert_int_equal(cudaGetLastError(), cudaSuccess);                  /* read and cleared */
    CUDA_LAUNCH(k, dim3(0), dim3(32), 0, nullptr, out, &counter);
    assert_int_equal(cudaGetLastError(), cudaErrorInvalidConfiguration);
    assert_int_equal(counter, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan),
        cmocka_unit_test(test_odd_shapes),
        cmocka_unit_test(test_vector_paths),
        cmocka_unit_test(test_misaligned),
        cmocka_unit_test(test_launcher_refuses),
        cmocka_unit_test(test_missing_barrier_shows),
        cmocka_unit_test(test_collectives),
        cmocka_unit_test(test_launch_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
