/* test_mma_sim.cc - the tensor-core building blocks of common/mma_sync.cuh
 * as tests/cudasim runs them: ldmatrix's registers against the PTX ISA's
 * fragment layout element by element, and ldmatrix + mma.sync (bf16, fp16)
 * against a plain matrix product on the CPU, with B read both ways the
 * attention kernel reads it (K-like [n][k] plain, V-like [k][n] transposed).
 * Small integers make every product and sum exact, so results must be
 * equal, not close. cp.async (common/cp_async.cuh): copies land at the
 * wait, zeros when not valid. And the scheduler property the attention kernels'
 * tests lean on: warps drift apart between barriers. Built as C++ with cudasim.h force-included. */
#include "common/cp_async.cuh"
#include "common/cuda_launch.h"
#include "common/mma_sync.cuh"

#include <cstdarg>
#include <cstddef>
#include <csetjmp>
#include <cstdint>
#include <cstdlib>
#include <cmath>
#include <cstring>
extern "C" {
#include <cmocka.h>
}

/* ---- ldmatrix: every register of every lane ------------------------------ */

/* smem: four 8x8 matrices of 16-bit values, matrix i at rows 8i..8i+7 of a
 * [32][8] array; element (i, r, c) holds i * 64 + r * 8 + c. Each lane posts
 * row lane of it (lanes 8i..8i+7: matrix i) and writes out its 4 registers. */
__global__ void ldmatrix_probe(uint32_t *out, int trans)
{
    __shared__ __align__(16) uint16_t tile[32][8];
    for (int e = threadIdx.x; e < 32 * 8; e += 32)
        tile[e / 8][e % 8] = (uint16_t)e;
    __syncthreads();
    uint32_t r[4];
    if (trans)
        ldmatrix_x4_trans(r, &tile[threadIdx.x][0]);
    else
        ldmatrix_x4(r, &tile[threadIdx.x][0]);
    for (int i = 0; i < 4; i++)
        out[threadIdx.x * 4 + i] = r[i];
}

static void test_ldmatrix_layout(void **state)
{
    (void)state;
    uint32_t out[32 * 4];
    for (int trans = 0; trans < 2; trans++) {
        memset(out, 0, sizeof out);
        auto k = ldmatrix_probe;
        CUDA_LAUNCH(k, dim3(1), dim3(32), 0, nullptr, out, trans);
        assert_int_equal(cudaGetLastError(), cudaSuccess);
        for (int lane = 0; lane < 32; lane++)
            for (int i = 0; i < 4; i++) {
                int g = lane / 4, t = lane % 4;
                /* PTX ISA: row g, elements 2t and 2t+1 (low half first);
                 * .trans: the transposed matrix's, i.e. (2t, g) and (2t+1, g). */
                uint32_t lo = trans ? i * 64 + 2 * t * 8 + g : i * 64 + g * 8 + 2 * t;
                uint32_t hi = trans ? lo + 8 : lo + 1;
                assert_int_equal(out[lane * 4 + i], lo | hi << 16);
            }
    }
}

/* ---- ldmatrix + mma: D = A B + C ------------------------------------------ */

/* A 16x16, B 16x16 (two 8-column n-tiles), C and D 16x16 fp32. B is given
 * twice: bt = B^T row-major ([n][k], read plain, as K) and b row-major
 * ([k][n], read .trans, as V). d_plain and d_trans receive the two results,
 * written from the C/D fragment layout. */
template <typename T>
__global__ void mma_probe(const uint16_t *a, const uint16_t *bt, const uint16_t *b, const float *c,
                          float *d_plain, float *d_trans)
{
    __shared__ __align__(16) uint16_t as[16][16], bts[16][16], bs[16][16];
    for (int e = threadIdx.x; e < 256; e += 32) {
        as[e / 16][e % 16] = a[e];
        bts[e / 16][e % 16] = bt[e];
        bs[e / 16][e % 16] = b[e];
    }
    __syncthreads();
    const int lane = threadIdx.x, g = lane / 4, t = lane % 4;
    uint32_t af[4], kf[4], vf[4];
    ldmatrix_x4(af, &as[lane & 15][(lane >> 4) * 8]);
    ldmatrix_x4(kf, &bts[(lane & 7) + (lane >> 4) * 8][((lane >> 3) & 1) * 8]);
    ldmatrix_x4_trans(vf, &bs[(lane & 7) + ((lane >> 3) & 1) * 8][(lane >> 4) * 8]);
    for (int nt = 0; nt < 2; nt++) {
        float acc_k[4], acc_v[4];
        for (int i = 0; i < 4; i++)
            acc_k[i] = acc_v[i] = c[(g + (i >> 1) * 8) * 16 + nt * 8 + 2 * t + (i & 1)];
        mma_16816<T>(acc_k, af, kf[2 * nt], kf[2 * nt + 1]);
        mma_16816<T>(acc_v, af, vf[2 * nt], vf[2 * nt + 1]);
        for (int i = 0; i < 4; i++) {
            int at = (g + (i >> 1) * 8) * 16 + nt * 8 + 2 * t + (i & 1);
            d_plain[at] = acc_k[i];
            d_trans[at] = acc_v[i];
        }
    }
}

static uint32_t rng = 11;

static int small_int(void)
{
    rng = rng * 1664525u + 1013904223u;
    return (int)(rng >> 24) % 7 - 3;         /* -3 .. 3: exact in bf16 and fp16 */
}

template <typename T>
static void check_mma(void)
{
    uint16_t a[256], bt[256], b[256];
    float c[256], want[256], d_plain[256], d_trans[256];
    int A[16][16], B[16][16];
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++) {
            A[i][j] = small_int();
            B[i][j] = small_int();
            c[i * 16 + j] = (float)small_int();
        }
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++) {
            a[i * 16 + j] = (uint16_t)(pack2<T>((float)A[i][j], 0.0f) & 0xffffu);
            b[i * 16 + j] = (uint16_t)(pack2<T>((float)B[i][j], 0.0f) & 0xffffu);
            bt[j * 16 + i] = b[i * 16 + j];
            int sum = (int)c[i * 16 + j];
            for (int k = 0; k < 16; k++)
                sum += A[i][k] * B[k][j];
            want[i * 16 + j] = (float)sum;
        }
    for (int o = 0; o < 2; o++) {
        cudasim::set_order(o ? cudasim::REVERSED : cudasim::FORWARD);
        memset(d_plain, 0xff, sizeof d_plain);
        memset(d_trans, 0xff, sizeof d_trans);
        auto k = mma_probe<T>;
        CUDA_LAUNCH(k, dim3(1), dim3(32), 0, nullptr, a, bt, b, c, d_plain, d_trans);
        assert_int_equal(cudaGetLastError(), cudaSuccess);
        assert_memory_equal(d_plain, want, sizeof want);
        assert_memory_equal(d_trans, want, sizeof want);
    }
    cudasim::set_order(cudasim::FORWARD);
}

static void test_mma_bf16(void **state)
{
    (void)state;
    check_mma<__nv_bfloat16>();
}

static void test_mma_f16(void **state)
{
    (void)state;
    check_mma<__half>();
}

/* A product whose terms are not integers: the simulated mma accumulates in
 * fp32 like the hardware, so it matches a double product to fp32 rounding. */
static void test_mma_fractions(void **state)
{
    (void)state;
    uint16_t a[256], bt[256], b[256];
    float c[256], d_plain[256], d_trans[256];
    double want[256], sum_abs[256];
    float A[16][16], B[16][16];
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++) {
            A[i][j] = unpack_lo<__nv_bfloat16>(pack2<__nv_bfloat16>(small_int() / 7.0f, 0.0f));
            B[i][j] = unpack_lo<__nv_bfloat16>(pack2<__nv_bfloat16>(small_int() / 3.0f, 0.0f));
            c[i * 16 + j] = 0.0f;
        }
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++) {
            a[i * 16 + j] = (uint16_t)pack2<__nv_bfloat16>(A[i][j], 0.0f);
            b[i * 16 + j] = (uint16_t)pack2<__nv_bfloat16>(B[i][j], 0.0f);
            bt[j * 16 + i] = b[i * 16 + j];
            double s = 0.0, sa = 0.0;
            for (int k = 0; k < 16; k++)
                s += (double)A[i][k] * B[k][j], sa += fabs((double)A[i][k] * B[k][j]);
            want[i * 16 + j] = s;
            sum_abs[i * 16 + j] = sa;
        }
    auto k = mma_probe<__nv_bfloat16>;
    CUDA_LAUNCH(k, dim3(1), dim3(32), 0, nullptr, a, bt, b, c, d_plain, d_trans);
    for (int e = 0; e < 256; e++) {
        assert_true(fabs(d_plain[e] - want[e]) <= 16 * 0x1p-24 * sum_abs[e]);   /* 16 fp32 additions */
        assert_true(d_plain[e] == d_trans[e]);
    }
}

/* pack2 rounds to nearest even, low half first; unpack inverts it. */
static void test_pack(void **state)
{
    (void)state;
    uint32_t r = pack2<__nv_bfloat16>(1.0f, -2.0f);
    assert_int_equal(r, 0xc0003f80u);
    assert_true(unpack_lo<__nv_bfloat16>(r) == 1.0f && unpack_hi<__nv_bfloat16>(r) == -2.0f);
    r = pack2<__half>(1.0f, -2.0f);
    assert_int_equal(r, 0xc0003c00u);
    assert_true(unpack_lo<__half>(r) == 1.0f && unpack_hi<__half>(r) == -2.0f);
    /* 1 + 2^-8 is a tie between 1 and 1 + 2^-7 in bf16: even is 1. */
    assert_true(unpack_lo<__nv_bfloat16>(pack2<__nv_bfloat16>(1.0f + 0x1p-8f, 0.0f)) == 1.0f);
    assert_true(unpack_lo<__half>(pack2<__half>(1.0f + 0x1p-11f, 0.0f)) == 1.0f);
}

/* ---- cp.async: copies land at the wait ---------------------------------- */

/* Thread t copies 16 bytes of src (or zeros, for odd t) into its slot of a
 * poisoned shared buffer, records the slot before and after waiting, and
 * after a barrier reads its neighbour's slot. */
__global__ void cp_async_probe(const uint32_t *src, uint32_t *before, uint32_t *after, uint32_t *neighbour)
{
    CUDA_DYNAMIC_SHARED(uint32_t, buf);                      /* 4 words per thread, 0xff poison */
    int t = threadIdx.x, n = blockDim.x;
    cp_async16(buf + 4 * t, src + 4 * t, t % 2 == 0);
    cp_async_commit();
    before[t] = buf[4 * t];
    cp_async_wait_all();
    after[t] = buf[4 * t + 3];
    __syncthreads();
    neighbour[t] = buf[4 * ((t + 1) % n) + 1];
}

static void test_cp_async(void **state)
{
    (void)state;
    enum { N = 64 };
    uint32_t src[4 * N], before[N], after[N], neighbour[N];
    for (int i = 0; i < 4 * N; i++)
        src[i] = 1000u + (uint32_t)i;
    for (int o = 0; o < 2; o++) {
        cudasim::set_order(o ? cudasim::REVERSED : cudasim::FORWARD);
        auto k = cp_async_probe;
        CUDA_LAUNCH(k, dim3(1), dim3(N), 4 * N * sizeof(uint32_t), nullptr, src, before, after, neighbour);
        assert_int_equal(cudaGetLastError(), cudaSuccess);
        for (int t = 0; t < N; t++) {
            int u = (t + 1) % N;
            assert_int_equal(before[t], 0xffffffffu);                 /* not landed before the wait */
            assert_int_equal(after[t], t % 2 ? 0u : src[4 * t + 3]);  /* zeros when not valid */
            assert_int_equal(neighbour[t], u % 2 ? 0u : src[4 * u + 1]);
        }
    }
    cudasim::set_order(cudasim::FORWARD);
}

/* ---- the layer: warps drift apart between barriers ----------------------- */

/* Warp w writes its slot, passes a warp collective, then reads warp w ^ 1's
 * slot; only the __syncthreads (left out when bug) orders the two. Were all
 * warps to reach each collective together, every write would precede every
 * read and the bug would hide; the scheduler runs the first warp on through
 * its collectives, so the bug shows in both orders. */
__global__ void drift_probe(int *out, int bug)
{
    __shared__ int slot[4];
    int w = threadIdx.x / 32;
    if (threadIdx.x % 32 == 0)
        slot[w] = 100 * (int)blockIdx.x + w + 1;   /* distinct per block: stale is wrong */
    if (!bug)
        __syncthreads();
    int lane0 = __shfl_sync(0xffffffffu, (int)threadIdx.x, 0);
    out[blockIdx.x * blockDim.x + threadIdx.x] = slot[w ^ 1] + 0 * lane0;
}

static int drift_errors(int bug, cudasim::order o)
{
    int out[2 * 128];
    cudasim::set_order(o);
    auto k = drift_probe;
    CUDA_LAUNCH(k, dim3(2), dim3(128), 0, nullptr, out, bug);
    assert_int_equal(cudaGetLastError(), cudaSuccess);
    cudasim::set_order(cudasim::FORWARD);
    int wrong = 0;
    for (int b = 0; b < 2; b++)
        for (int t = 0; t < 128; t++)
            wrong += out[b * 128 + t] != 100 * b + ((t / 32) ^ 1) + 1;
    return wrong;
}

static void test_warps_drift(void **state)
{
    (void)state;
    assert_int_equal(drift_errors(0, cudasim::FORWARD), 0);
    assert_int_equal(drift_errors(0, cudasim::REVERSED), 0);
    assert_true(drift_errors(1, cudasim::FORWARD) > 0);
    assert_true(drift_errors(1, cudasim::REVERSED) > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pack),
        cmocka_unit_test(test_ldmatrix_layout),
        cmocka_unit_test(test_mma_bf16),
        cmocka_unit_test(test_mma_f16),
        cmocka_unit_test(test_mma_fractions),
        cmocka_unit_test(test_warps_drift),
        cmocka_unit_test(test_cp_async),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
