/* test_hopper_sim.cc - the Hopper primitives of components/common (wgmma.cuh,
 * tma.cuh, mbarrier.cuh, hopper_sync.cuh) as tests/cudasim models them:
 * each against a scalar model on random data, in both landing modes and
 * both run orders, and the wrong uses the layer must catch: a read of the
 * accumulators before the wait (NaN), an operand tile overwritten before the
 * wait (AT_WAIT) or written after the issue (AT_ISSUE), a tile written
 * without the swizzle or described with a wrong stride, a consumer waiting
 * on the wrong parity, a producer whose tx never completes (a deadlock
 * report), bad TMA maps and setmaxnreg counts; TMA stores (clipped at the
 * tensor's edges), and a store with no fence, no final wait or its tile
 * rewritten before the wait; clusters of two blocks (cluster.cuh, TMA
 * multicast), and a cluster missing its first or last cluster barrier, a
 * release on one block only or a load into one block only. Cases that must
 * abort run in
 * a forked child whose stderr is checked. Small integers make every product
 * and sum exact, so results must be equal, not close. */
#include "common/cluster.cuh"
#include "common/cuda_launch.h"
#include "common/hopper_sync.cuh"
#include "common/mbarrier.cuh"
#include "common/tma.cuh"
#include "common/wgmma.cuh"

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <csetjmp>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>
extern "C" {
#include <cmocka.h>
}

static uint32_t rng = 7;
static int small_int(int range)
{
    rng = rng * 1103515245u + 12345u;
    return (int)(rng >> 16) % (2 * range + 1) - range;
}

template <typename T> static uint16_t bits_of(float f)
{
    uint16_t b;
    if constexpr (std::is_same<T, __half>::value) {
        __half h = __float2half_rn(f);
        std::memcpy(&b, &h, 2);
    } else {
        __nv_bfloat16 h = __float2bfloat16_rn(f);
        std::memcpy(&b, &h, 2);
    }
    return b;
}

/* The 128-byte swizzle: byte offset o of a tile (1024-byte aligned) holds
 * what the unswizzled layout has at swz(o). */
static inline size_t swz(size_t o) { return o ^ ((o >> 7 & 7) << 4); }

/* ---- forked children: the cases that must abort --------------------------- */

struct child_result {
    bool aborted;       /* killed by SIGABRT */
    int exit_code;      /* otherwise */
    std::string err;    /* its stderr */
};

static child_result run_child(int (*fn)(int), int arg)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(p[1], 2);
        close(p[0]);
        _exit(fn(arg));
    }
    close(p[1]);
    child_result r{false, -1, ""};
    char buf[512];
    ssize_t n;
    while ((n = read(p[0], buf, sizeof buf)) > 0)
        r.err.append(buf, (size_t)n);
    close(p[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    r.aborted = WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

static void expect_abort(int (*fn)(int), int arg, const char *message)
{
    child_result r = run_child(fn, arg);
    if (!r.aborted || r.err.find(message) == std::string::npos)
        fail_msg("expected an abort saying \"%s\"; got %s, stderr: %s", message,
                 r.aborted ? "an abort" : "no abort", r.err.c_str());
}

/* ---- wgmma ----------------------------------------------------------------- */

enum wgmma_bug {
    NO_BUG,
    UNSWIZZLED,      /* the tiles written plain: the descriptor's swizzle then reads the wrong elements */
    WRONG_SBO,       /* the 8-row groups described 512 bytes apart instead of 1024 */
    WRONG_LBO,       /* MN-major B's 64-column blocks described at the wrong distance */
    READ_EARLY,      /* d read between the commit and the wait */
    OVERWRITE,       /* the B tile zeroed after the commit, before the wait */
    LATE_WRITE,      /* the B tile written after the issue (as if its TMA had not landed) */
    NO_FENCE,        /* the first wgmma with no wgmma_fence before it */
};

/* D[64 x NT] = C + A[64 x K] B[K x NT] by K/16 chained wgmmas in one group.
 * a: [64][K]; b: [NT][K] (K-major) or [K][NT] (MN-major); c, out: [64][NT].
 * The tiles go to shared memory in the 128-byte swizzle as TMA would put
 * them: K (or, MN-major, NT) in column blocks of 64 elements. RS takes A's
 * fragments from registers instead. out_early: d[0] read before the wait. */
template <typename T, int NT, bool B_MN, int K, bool RS>
__global__ void wgmma_probe(const uint16_t *a, const uint16_t *b, const float *c, float *out, float *out_early,
                            int bug)
{
    CUDA_DYNAMIC_SHARED(unsigned char, smem);
    unsigned char *as = smem, *bs = smem + 64 * K * 2;
    int tid = threadIdx.x;
    auto put = [&](unsigned char *tile, size_t off, uint16_t v) {
        std::memcpy(tile + (bug == UNSWIZZLED ? off : swz(off)), &v, 2);
    };
    /* Byte offsets of the elements in their tiles (before the swizzle). */
    auto a_off = [](int m, int k) { return (size_t)(k / 64) * 64 * 128 + (size_t)m * 128 + (size_t)(k % 64) * 2; };
    auto b_off = [](int n, int k) {
        return B_MN ? (size_t)(n / 64) * K * 128 + (size_t)k * 128 + (size_t)(n % 64) * 2
                    : (size_t)(k / 64) * NT * 128 + (size_t)n * 128 + (size_t)(k % 64) * 2;
    };
    auto write_b = [&] {
        for (int e = tid; e < NT * K; e += blockDim.x) {
            int n = e / K, k = e % K;
            put(bs, b_off(n, k), B_MN ? b[k * NT + n] : b[n * K + k]);
        }
    };
    for (int e = tid; e < 64 * K; e += blockDim.x)
        put(as, a_off(e / K, e % K), a[e]);
    if (bug != LATE_WRITE)
        write_b();
    __syncthreads();

    int w = tid / 32 % 4, lane = tid % 32, g = lane / 4, t = lane % 4;
    float d[NT / 2];
    for (int i = 0; i < NT / 2; i++) {
        int row = 16 * w + g + 8 * (i >> 1 & 1), col = 8 * (i / 4) + 2 * t + (i & 1);
        d[i] = c ? c[row * NT + col] : 1e30f;   /* without c, scale_d = 0 must ignore it */
    }
    uint32_t sbo = bug == WRONG_SBO ? 512 : 1024;
    uint32_t lbo = B_MN ? (bug == WRONG_LBO ? K * 128 / 2 : K * 128) : 16;
    if (bug != NO_FENCE)
        wgmma_fence();
    for (int ks = 0; ks < K / 16; ks++) {
        uint64_t bd = B_MN ? wgmma_desc(bs + ks * 16 * 128, lbo, sbo)
                           : wgmma_desc(bs + (ks / 4) * NT * 128 + (ks % 4) * 32, lbo, sbo);
        int scale = ks > 0 || c != nullptr;
        if (RS) {
            uint32_t ar[4];
            for (int r = 0; r < 4; r++) {
                int row = 16 * w + g + 8 * (r & 1), k = ks * 16 + 2 * t + 8 * (r >> 1);
                ar[r] = (uint32_t)a[row * K + k] | (uint32_t)a[row * K + k + 1] << 16;
            }
            wgmma_rs<T, NT, B_MN>(d, ar, bd, scale);
        } else {
            uint64_t ad = wgmma_desc(as + (ks / 4) * 64 * 128 + (ks % 4) * 32, 16, sbo);
            wgmma_ss<T, NT, B_MN>(d, ad, bd, scale);
        }
    }
    wgmma_commit_group();
    if (bug == READ_EARLY && tid < 128)
        out_early[tid] = d[0];
    if (bug == OVERWRITE || bug == LATE_WRITE) {
        __syncthreads();
        if (bug == OVERWRITE)
            for (int e = tid; e < NT * K; e += blockDim.x)
                std::memset(bs + b_off(e / K, e % K), 0, 2);
        else
            write_b();
        __syncthreads();
    }
    wgmma_wait_group<0>();
    wgmma_fence_operands(d);
    for (int i = 0; i < NT / 2; i++) {
        int row = 16 * w + g + 8 * (i >> 1 & 1), col = 8 * (i / 4) + 2 * t + (i & 1);
        if (tid < 128)
            out[row * NT + col] = d[i];
    }
}

/* Runs one wgmma case; returns how many of the 64 x NT results differ from
 * the scalar product (NaN counts as different). */
template <typename T, int NT, bool B_MN, int K, bool RS>
static int wgmma_errors(int bug, bool with_c, cudasim::landing l, cudasim::order o, float *early = nullptr)
{
    std::vector<uint16_t> a(64 * K), b((size_t)NT * K);
    std::vector<float> af(64 * K), bf((size_t)K * NT), c(64 * NT), out(64 * NT, -1.0f), want(64 * NT);
    for (int e = 0; e < 64 * K; e++) {
        af[e] = (float)small_int(4);
        a[e] = bits_of<T>(af[e]);
    }
    for (int k = 0; k < K; k++)
        for (int n = 0; n < NT; n++) {
            bf[(size_t)k * NT + n] = (float)small_int(4);
            b[B_MN ? (size_t)k * NT + n : (size_t)n * K + k] = bits_of<T>(bf[(size_t)k * NT + n]);
        }
    for (int e = 0; e < 64 * NT; e++)
        c[e] = (float)small_int(100);
    for (int m = 0; m < 64; m++)
        for (int n = 0; n < NT; n++) {
            double s = with_c ? c[m * NT + n] : 0.0;
            for (int k = 0; k < K; k++)
                s += (double)af[m * K + k] * bf[(size_t)k * NT + n];
            want[m * NT + n] = (float)s;
        }
    std::vector<float> early_buf(128, 0.0f);
    cudasim::set_landing(l);
    cudasim::set_order(o);
    /* MN-major B: a 128-byte row per k for every 64 columns, even when NT < 64. */
    size_t smem = (size_t)64 * K * 2 + (B_MN ? (size_t)(NT + 63) / 64 * K * 128 : (size_t)NT * K * 2);
    auto kern = wgmma_probe<T, NT, B_MN, K, RS>;
    assert_int_equal(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem), cudaSuccess);
    CUDA_LAUNCH(kern, dim3(1), dim3(128), smem, nullptr, a.data(), b.data(), with_c ? c.data() : nullptr,
                out.data(), early_buf.data(), bug);
    assert_int_equal(cudaGetLastError(), cudaSuccess);
    cudasim::set_landing(cudasim::AT_WAIT);
    cudasim::set_order(cudasim::FORWARD);
    if (early)
        std::memcpy(early, early_buf.data(), 128 * sizeof(float));
    int errors = 0;
    for (int e = 0; e < 64 * NT; e++)
        errors += !(out[e] == want[e]);
    return errors;
}

template <typename T, int NT, bool B_MN, int K, bool RS> static void wgmma_case()
{
    for (int l = 0; l < 2; l++)
        for (int o = 0; o < 2; o++)
            for (int with_c = 0; with_c < 2; with_c++)
                if (wgmma_errors<T, NT, B_MN, K, RS>(NO_BUG, with_c, (cudasim::landing)l, (cudasim::order)o) != 0)
                    fail_msg("wgmma %s NT %d %s-major B, K %d, %s: wrong product (landing %d, order %d, C %d)",
                             RS ? "RS" : "SS", NT, B_MN ? "MN" : "K", K,
                             std::is_same<T, __half>::value ? "fp16" : "bf16", l, o, with_c);
}

static void test_wgmma_ss(void **state)
{
    (void)state;
    wgmma_case<__nv_bfloat16, 8, false, 64, false>();
    wgmma_case<__nv_bfloat16, 64, false, 128, false>();
    wgmma_case<__half, 128, false, 64, false>();
    wgmma_case<__half, 256, false, 64, false>();
    wgmma_case<__nv_bfloat16, 64, true, 64, false>();
    wgmma_case<__half, 128, true, 128, false>();
    wgmma_case<__nv_bfloat16, 256, true, 64, false>();
    wgmma_case<__half, 8, true, 64, false>();
}

static void test_wgmma_rs(void **state)
{
    (void)state;
    wgmma_case<__nv_bfloat16, 8, false, 64, true>();
    wgmma_case<__half, 64, false, 128, true>();
    wgmma_case<__nv_bfloat16, 128, true, 128, true>();
    wgmma_case<__half, 256, true, 64, true>();
    wgmma_case<__nv_bfloat16, 256, false, 128, true>();
    wgmma_case<__half, 64, true, 64, true>();
}

/* Wrong layouts on the writer's side or in the descriptor give wrong products. */
static void test_wgmma_wrong_layouts(void **state)
{
    (void)state;
    assert_true((wgmma_errors<__nv_bfloat16, 64, false, 64, false>(UNSWIZZLED, true, cudasim::AT_WAIT,
                                                                    cudasim::FORWARD)) > 0);
    assert_true((wgmma_errors<__half, 128, true, 128, true>(UNSWIZZLED, true, cudasim::AT_ISSUE,
                                                             cudasim::FORWARD)) > 0);
    assert_true((wgmma_errors<__nv_bfloat16, 64, false, 64, false>(WRONG_SBO, true, cudasim::AT_WAIT,
                                                                    cudasim::FORWARD)) > 0);
    assert_true((wgmma_errors<__nv_bfloat16, 128, true, 64, false>(WRONG_LBO, true, cudasim::AT_WAIT,
                                                                    cudasim::FORWARD)) > 0);
}

/* d is NaN between the issue and the wait; a tile overwritten before the
 * wait is caught at AT_WAIT, one written after the issue at AT_ISSUE. */
static void test_wgmma_async_misuse(void **state)
{
    (void)state;
    float early[128];
    for (int l = 0; l < 2; l++) {
        assert_int_equal((wgmma_errors<__nv_bfloat16, 64, false, 64, false>(READ_EARLY, true, (cudasim::landing)l,
                                                                              cudasim::FORWARD, early)),
                         0);
        for (int i = 0; i < 128; i++)
            assert_true(std::isnan(early[i]));
    }
    assert_true((wgmma_errors<__nv_bfloat16, 64, false, 64, false>(OVERWRITE, true, cudasim::AT_WAIT,
                                                                    cudasim::FORWARD)) > 0);
    assert_int_equal((wgmma_errors<__nv_bfloat16, 64, false, 64, false>(OVERWRITE, true, cudasim::AT_ISSUE,
                                                                         cudasim::FORWARD)),
                     0);
    assert_true((wgmma_errors<__half, 64, true, 64, true>(LATE_WRITE, true, cudasim::AT_ISSUE, cudasim::FORWARD)) > 0);
    assert_int_equal((wgmma_errors<__half, 64, true, 64, true>(LATE_WRITE, true, cudasim::AT_WAIT, cudasim::FORWARD)),
                     0);
}

/* wait_group<1> retires all but the newest group: after it the first
 * group's d holds its product, the second's is still NaN. Two warpgroups,
 * each with its own tiles, so warp indices are taken modulo 4. */
__global__ void wait_group_probe(const uint16_t *a, const uint16_t *b, float *first, float *second_early,
                                 float *second)
{
    CUDA_DYNAMIC_SHARED(unsigned char, smem);
    int tid = threadIdx.x, wg = tid / 128;
    unsigned char *as = smem + wg * 16384, *bs = as + 8192;
    for (int e = tid % 128; e < 64 * 64; e += 128) {
        int r = e / 64, k = e % 64;
        std::memcpy(as + swz((size_t)r * 128 + (size_t)k * 2), &a[e], 2);
        std::memcpy(bs + swz((size_t)r * 128 + (size_t)k * 2), &b[e], 2);   /* B [n][k], 64 x 64 */
    }
    __syncthreads();
    float d1[32], d2[32];
    wgmma_fence();
    for (int ks = 0; ks < 4; ks++)
        wgmma_ss<__nv_bfloat16, 64, false>(d1, wgmma_desc(as + ks * 32, 16, 1024), wgmma_desc(bs + ks * 32, 16, 1024),
                                           ks > 0);
    wgmma_commit_group();
    for (int ks = 0; ks < 4; ks++)   /* the transpose: B A^T, from the same tiles */
        wgmma_ss<__nv_bfloat16, 64, false>(d2, wgmma_desc(bs + ks * 32, 16, 1024), wgmma_desc(as + ks * 32, 16, 1024),
                                           ks > 0);
    wgmma_commit_group();
    wgmma_wait_group<1>();
    int w = tid / 32 % 4, lane = tid % 32, g = lane / 4, t = lane % 4;
    for (int i = 0; i < 32; i++) {
        int row = 16 * w + g + 8 * (i >> 1 & 1), col = 8 * (i / 4) + 2 * t + (i & 1);
        first[wg * 4096 + row * 64 + col] = d1[i];
        second_early[wg * 4096 + row * 64 + col] = d2[i];
    }
    wgmma_wait_group<0>();
    for (int i = 0; i < 32; i++) {
        int row = 16 * w + g + 8 * (i >> 1 & 1), col = 8 * (i / 4) + 2 * t + (i & 1);
        second[wg * 4096 + row * 64 + col] = d2[i];
    }
}

/* A second group on the first's accumulators after its wait (as an
 * attention kernel's next tile, after rescaling O): with a fence between
 * (refence), or none, which the model refuses. */
__global__ void refence_probe(int refence)
{
    CUDA_DYNAMIC_SHARED(unsigned char, smem);
    for (int e = threadIdx.x; e < 16384; e += blockDim.x)
        smem[e] = 0;
    __syncthreads();
    float d[32];
    for (int round = 0; round < 2; round++) {
        if (round == 0 || refence)
            wgmma_fence();
        wgmma_ss<__nv_bfloat16, 64, false>(d, wgmma_desc(smem, 16, 1024), wgmma_desc(smem + 8192, 16, 1024), round);
        wgmma_commit_group();
        wgmma_wait_group<0>();
        for (int i = 0; i < 32; i++)
            d[i] *= 0.5f;
    }
}

static int refence_run(int refence)
{
    auto kern = refence_probe;
    if (cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, 16384) != cudaSuccess)
        return 1;
    CUDA_LAUNCH(kern, dim3(1), dim3(128), 16384, nullptr, refence);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

static int no_fence_run(int)
{
    return wgmma_errors<__nv_bfloat16, 64, false, 64, false>(NO_FENCE, true, cudasim::AT_WAIT, cudasim::FORWARD);
}

/* wgmma.fence before a warpgroup's first wgmma and before one that follows
 * a wait (the registers the wait handed back may have been written): the
 * ping-pong's hand-over in attention_hopper.cu without its fence is this. */
static void test_wgmma_fence(void **state)
{
    (void)state;
    assert_int_equal(refence_run(1), 0);
    expect_abort(refence_run, 0, "a wgmma with no wgmma_fence since");
    expect_abort(no_fence_run, 0, "a wgmma with no wgmma_fence since");
}

static void test_wgmma_wait_group(void **state)
{
    (void)state;
    std::vector<uint16_t> a(4096), b(4096);
    std::vector<float> af(4096), bf(4096), first(8192), early(8192), second(8192);
    for (int e = 0; e < 4096; e++) {
        af[e] = (float)small_int(4), bf[e] = (float)small_int(4);
        a[e] = bits_of<__nv_bfloat16>(af[e]), b[e] = bits_of<__nv_bfloat16>(bf[e]);
    }
    auto kern = wait_group_probe;
    assert_int_equal(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, 32768), cudaSuccess);
    CUDA_LAUNCH(kern, dim3(1), dim3(256), 32768, nullptr, a.data(), b.data(), first.data(), early.data(),
                second.data());
    assert_int_equal(cudaGetLastError(), cudaSuccess);
    for (int wg = 0; wg < 2; wg++)
        for (int m = 0; m < 64; m++)
            for (int n = 0; n < 64; n++) {
                double ab = 0, ba = 0;
                for (int k = 0; k < 64; k++)
                    ab += (double)af[m * 64 + k] * bf[n * 64 + k], ba += (double)bf[m * 64 + k] * af[n * 64 + k];
                size_t at = (size_t)wg * 4096 + (size_t)m * 64 + (size_t)n;
                assert_true(first[at] == (float)ab);
                assert_true(std::isnan(early[at]));
                assert_true(second[at] == (float)ba);
            }
}

/* ---- TMA ------------------------------------------------------------------- */

/* One thread loads the box at coords into shared memory; everyone waits on
 * the mbarrier; the raw (swizzled) bytes come out. */
template <int RANK>
__global__ void tma_probe(const __grid_constant__ tma_map map, const int32_t *coords, unsigned bytes,
                          unsigned char *out)
{
    CUDA_DYNAMIC_SHARED(unsigned char, smem);
    __shared__ uint64_t bar;
    if (threadIdx.x == 0) {
        mbar_init(&bar, 1);
        mbar_fence_init();
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        int32_t c[RANK];
        for (int i = 0; i < RANK; i++)
            c[i] = coords[i];
        mbar_arrive_expect_tx(&bar, bytes);
        tma_load(smem, &map, c, &bar);
    }
    mbar_wait(&bar, 0);
    for (unsigned e = threadIdx.x; e < bytes; e += blockDim.x)
        out[e] = smem[e];
}

/* A tensor of dims (innermost first) with padded rows (strides beyond the
 * dense ones), `elements` 16-bit elements in all, and where each element of
 * the box at coords lies in it: its element index, -1 outside (box order,
 * innermost first). */
template <int RANK>
struct padded_tensor {
    uint64_t strides[RANK - 1];
    size_t elements;
    std::vector<long long> box_at;
    padded_tensor(const uint64_t (&dims)[RANK], const uint32_t (&box)[RANK], const int32_t (&coords)[RANK])
    {
        for (int i = 0; i + 1 < RANK; i++)   /* a padded row, then 32 bytes more per dimension */
            strides[i] = i == 0 ? (dims[0] * 2 + 16 + 15) / 16 * 16 : strides[i - 1] * dims[i] + 32;
        elements = (size_t)(strides[RANK - 2] * dims[RANK - 1]) / 2 + 8;
        uint32_t b4[4] = {1, 1, 1, 1};
        for (int i = 0; i < RANK; i++)
            b4[i] = box[i];
        for (uint32_t i3 = 0; i3 < b4[3]; i3++)
            for (uint32_t i2 = 0; i2 < b4[2]; i2++)
                for (uint32_t i1 = 0; i1 < b4[1]; i1++)
                    for (uint32_t i0 = 0; i0 < b4[0]; i0++) {
                        const uint32_t idx[4] = {i0, i1, i2, i3};
                        bool inside = true;
                        size_t at = 0;
                        for (int d = 0; d < RANK; d++) {
                            long long x = (long long)coords[d] + idx[d];
                            inside = inside && x >= 0 && (uint64_t)x < dims[d];
                            at += inside ? (size_t)x * (d == 0 ? 2 : strides[d - 1]) : 0;
                        }
                        box_at.push_back(inside ? (long long)(at / 2) : -1);
                    }
    }
    tma_map encode(void *base, const uint64_t (&dims)[RANK], const uint32_t (&box)[RANK]) const
    {
        tma_map map;
        char why[160] = "";
        if (tma_encode(&map, base, RANK, dims, strides, box, why, sizeof why) != 0)
            fail_msg("tma_encode: %s", why);
        return map;
    }
};

/* The tensor's values never 0; the box at coords through TMA, compared
 * element by element with zero fill outside. */
template <int RANK>
static void tma_case(const uint64_t (&dims)[RANK], const uint32_t (&box)[RANK], const int32_t (&coords)[RANK],
                     cudasim::landing l)
{
    const padded_tensor<RANK> t(dims, box, coords);
    std::vector<uint16_t> src(t.elements);
    for (size_t e = 0; e < t.elements; e++)
        src[e] = (uint16_t)(small_int(30000) | 1);
    const tma_map map = t.encode(src.data(), dims, box);
    const unsigned bytes = (unsigned)t.box_at.size() * 2;
    std::vector<unsigned char> out(bytes, 0xaa);
    cudasim::set_landing(l);
    auto kern = tma_probe<RANK>;
    assert_int_equal(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes), cudaSuccess);
    CUDA_LAUNCH(kern, dim3(1), dim3(64), bytes, nullptr, map, coords, bytes, out.data());
    cudasim::set_landing(cudasim::AT_WAIT);
    assert_int_equal(cudaGetLastError(), cudaSuccess);
    for (size_t e = 0; e < t.box_at.size(); e++) {
        uint16_t want = t.box_at[e] >= 0 ? src[(size_t)t.box_at[e]] : 0, got;
        std::memcpy(&got, &out[swz(2 * e)], 2);
        if (got != want)
            fail_msg("TMA rank %d: box element %zu is %#x, want %#x", RANK, e, got, want);
    }
}

static void test_tma_boxes(void **state)
{
    (void)state;
    for (int l = 0; l < 2; l++) {
        cudasim::landing land = (cudasim::landing)l;
        /* Inside, then over every edge: zero fill. */
        tma_case<2>({100, 70}, {64, 16}, {8, 3}, land);
        tma_case<2>({100, 70}, {64, 16}, {64, 60}, land);
        tma_case<2>({100, 70}, {64, 16}, {-20, -5}, land);
        tma_case<2>({40, 9}, {32, 8}, {16, 4}, land);   /* 64-byte rows */
        tma_case<3>({64, 33, 5}, {64, 8, 2}, {0, 30, 4}, land);
        tma_case<4>({72, 20, 3, 4}, {64, 8, 2, 2}, {16, 16, 2, -1}, land);
    }
}

/* ---- TMA stores -------------------------------------------------------------- */

enum store_bug { STORE_OK, STORE_NO_FENCE, STORE_NO_WAIT, STORE_REWRITE };

/* Every thread copies its share of `box` (the box's swizzled bytes) into
 * shared memory and fences it; after a barrier thread 0 stores it to the
 * tensor at coords and waits for the read. STORE_REWRITE: the threads then
 * overwrite the tile with zeros before thread 0's wait (no barrier orders
 * them after it). */
template <int RANK>
__global__ void tma_store_probe(const __grid_constant__ tma_map map, const int32_t *coords, unsigned bytes,
                                const unsigned char *box, int bug)
{
    CUDA_DYNAMIC_SHARED(unsigned char, smem);
    for (unsigned e = threadIdx.x; e < bytes; e += blockDim.x)
        smem[e] = box[e];
    if (bug != STORE_NO_FENCE)
        fence_async_shared();
    __syncthreads();
    if (threadIdx.x == 0) {
        int32_t c[RANK];
        for (int i = 0; i < RANK; i++)
            c[i] = coords[i];
        tma_store(&map, c, smem);
        tma_store_commit();
    }
    if (bug == STORE_REWRITE)
        for (unsigned e = threadIdx.x; e < bytes; e += blockDim.x)
            smem[e] = 0;
    if (threadIdx.x == 0 && bug != STORE_NO_WAIT)
        tma_store_wait_read<0>();
}

/* The box at coords stored into a tensor of dims (padded rows, every
 * element 0x5555 before): the box's elements inside the tensor land where
 * tma_load reads them from, nothing else is written. Returns whether the
 * tensor is right; a bug that the model does not abort on makes it wrong. */
template <int RANK>
static bool tma_store_case(const uint64_t (&dims)[RANK], const uint32_t (&box)[RANK], const int32_t (&coords)[RANK],
                           cudasim::landing l, int bug)
{
    const padded_tensor<RANK> t(dims, box, coords);
    std::vector<uint16_t> dst(t.elements, 0x5555);
    const tma_map map = t.encode(dst.data(), dims, box);
    const unsigned bytes = (unsigned)t.box_at.size() * 2;
    std::vector<unsigned char> tile(bytes);   /* swizzled: element e of the box at swz(2 e) */
    std::vector<uint16_t> value(bytes / 2);
    for (size_t e = 0; e < value.size(); e++) {
        value[e] = (uint16_t)(small_int(30000) | 1);
        std::memcpy(&tile[swz(2 * e)], &value[e], 2);
    }
    cudasim::set_landing(l);
    auto kern = tma_store_probe<RANK>;
    assert_int_equal(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes), cudaSuccess);
    CUDA_LAUNCH(kern, dim3(1), dim3(64), bytes, nullptr, map, coords, bytes, tile.data(), bug);
    cudasim::set_landing(cudasim::AT_WAIT);
    assert_int_equal(cudaGetLastError(), cudaSuccess);
    std::vector<uint16_t> want(t.elements, 0x5555);
    for (size_t e = 0; e < t.box_at.size(); e++)
        if (t.box_at[e] >= 0)
            want[(size_t)t.box_at[e]] = value[e];
    return dst == want;
}

static void test_tma_store(void **state)
{
    (void)state;
    for (int l = 0; l < 2; l++) {
        cudasim::landing land = (cudasim::landing)l;
        /* Inside, then over edges (the rows past the tensor not written). */
        assert_true((tma_store_case<2>({100, 70}, {64, 16}, {8, 3}, land, STORE_OK)));
        assert_true((tma_store_case<2>({100, 70}, {64, 16}, {64, 60}, land, STORE_OK)));
        assert_true((tma_store_case<3>({64, 33, 5}, {64, 8, 2}, {0, 30, 4}, land, STORE_OK)));
        assert_true((tma_store_case<4>({72, 20, 3, 4}, {64, 8, 2, 2}, {16, 16, 2, -1}, land, STORE_OK)));
    }
    /* The tile rewritten before the wait: the store reads the zeros when it
     * reads at the wait (AT_WAIT), not when it read at issue. */
    assert_false((tma_store_case<2>({100, 70}, {64, 16}, {8, 3}, cudasim::AT_WAIT, STORE_REWRITE)));
    assert_true((tma_store_case<2>({100, 70}, {64, 16}, {8, 3}, cudasim::AT_ISSUE, STORE_REWRITE)));
}

static int store_bug_run(int bug)
{
    return tma_store_case<2>({100, 70}, {64, 16}, {8, 3}, cudasim::AT_WAIT, bug) ? 0 : 1;
}

static void test_tma_store_misuse(void **state)
{
    (void)state;
    expect_abort(store_bug_run, STORE_NO_FENCE, "a bulk store with no fence.proxy.async by thread 0");
    expect_abort(store_bug_run, STORE_NO_WAIT, "the block ended with bulk stores still reading");
}

/* The driver's rules: each bad map is refused with its reason. */
static void test_tma_encode_checks(void **state)
{
    (void)state;
    alignas(16) static uint16_t buf[4096];
    tma_map map;
    char why[160];
    const uint64_t dims[2] = {64, 32}, strides[1] = {128};
    const uint32_t box[2] = {64, 8};
    assert_int_equal(tma_encode(&map, buf, 2, dims, strides, box, why, sizeof why), 0);
    struct bad {
        const void *global;
        int rank;
        uint64_t dim0, stride;
        uint32_t box0, box1;
        const char *reason;
    } cases[] = {
        {(const char *)buf + 8, 2, 64, 128, 64, 8, "16-byte aligned"},
        {buf, 2, 64, 120, 64, 8, "multiple of 16"},
        {buf, 2, 64, 1ull << 40, 64, 8, "below 2^40"},
        {buf, 2, 64, 128, 64, 257, "1..256"},
        {buf, 2, 64, 128, 72, 8, "up to 128"},
        {buf, 2, 64, 128, 12, 8, "multiple of 16 up to 128"},
        {buf, 1, 64, 128, 64, 8, "rank 1"},
        {buf, 5, 64, 128, 64, 8, "rank 5"},
        {buf, 2, 0, 128, 64, 8, "dimension 0"},
    };
    for (const bad &c : cases) {
        const uint64_t d[5] = {c.dim0, 32, 2, 2, 2}, s[4] = {c.stride, c.stride * 32, c.stride * 64, c.stride * 128};
        const uint32_t b[5] = {c.box0, c.box1, 1, 1, 1};
        why[0] = 0;
        assert_int_equal(tma_encode(&map, c.global, c.rank, d, s, b, why, sizeof why), -1);
        if (!std::strstr(why, c.reason))
            fail_msg("tma_encode's reason \"%s\" does not say \"%s\"", why, c.reason);
    }
}

/* ---- mbarrier pipeline: a producer warp, two consumer warpgroups ----------- */

enum pipeline_bug { PIPE_OK, WRONG_PARITY, TX_TOO_BIG, ARRIVE_BEFORE_COPY, NO_WAIT };

const int STAGES = 2, TILE_ROWS = 32, TILE_COLS = 64, TILE_BYTES = TILE_ROWS * TILE_COLS * 2;

/* Warpgroup 0's first thread streams `rounds` tiles of a [rounds * 32][64]
 * tensor through a ring of STAGES slots (full: its arrival + the TMA bytes;
 * empty: all 256 consumer threads); each consumer thread sums its 8 elements
 * of every tile. */
__global__ void pipeline_probe(const __grid_constant__ tma_map map, int rounds, int bug, long long *sums)
{
    CUDA_DYNAMIC_SHARED(unsigned char, smem);
    __shared__ uint64_t full[STAGES], empty[STAGES];
    int tid = threadIdx.x;
    if (tid == 0) {
        for (int s = 0; s < STAGES; s++) {
            mbar_init(&full[s], 1);
            mbar_init(&empty[s], 256);
        }
        mbar_fence_init();
    }
    __syncthreads();
    if (tid < 128) {
        setmaxnreg_dec<40>();
        if (tid == 0)
            for (int r = 0; r < rounds; r++) {
                int s = r % STAGES;
                unsigned phase = (unsigned)(r / STAGES) & 1u;
                mbar_wait(&empty[s], phase ^ 1u);
                const int32_t c[2] = {0, r * TILE_ROWS};
                if (bug == ARRIVE_BEFORE_COPY) {
                    mbar_arrive(&full[s]);
                    tma_load(smem + s * TILE_BYTES, &map, c, &full[s]);
                } else {
                    mbar_arrive_expect_tx(&full[s], TILE_BYTES + (bug == TX_TOO_BIG ? 16 : 0));
                    tma_load(smem + s * TILE_BYTES, &map, c, &full[s]);
                }
            }
        return;
    }
    setmaxnreg_inc<232>();
    int ct = tid - 128;
    long long sum = 0;
    for (int r = 0; r < rounds; r++) {
        int s = r % STAGES;
        unsigned phase = (unsigned)(r / STAGES) & 1u;
        if (bug != NO_WAIT)
            mbar_wait(&full[s], bug == WRONG_PARITY ? phase ^ 1u : phase);
        for (int e = ct; e < TILE_ROWS * TILE_COLS; e += 256) {
            uint16_t v;
            std::memcpy(&v, smem + s * TILE_BYTES + swz((size_t)e * 2), 2);
            sum += v;
        }
        mbar_arrive(&empty[s]);
    }
    sums[ct] = sum;
}

/* 0: the sums are right; 1: wrong (aborts on a deadlock). */
static int pipeline_run(int bug_and_landing)
{
    int bug = bug_and_landing / 4, landing = bug_and_landing / 2 % 2, order = bug_and_landing % 2;
    const int rounds = 7;
    std::vector<uint16_t> src((size_t)rounds * TILE_ROWS * TILE_COLS);
    for (size_t e = 0; e < src.size(); e++)
        src[e] = (uint16_t)(e * 7 % 1000 + 1);
    tma_map map;
    char why[160];
    const uint64_t dims[2] = {TILE_COLS, (uint64_t)rounds * TILE_ROWS}, strides[1] = {TILE_COLS * 2};
    const uint32_t box[2] = {TILE_COLS, TILE_ROWS};
    if (tma_encode(&map, src.data(), 2, dims, strides, box, why, sizeof why) != 0)
        return 2;
    std::vector<long long> sums(256, -1);
    cudasim::set_landing((cudasim::landing)landing);
    cudasim::set_order((cudasim::order)order);
    auto kern = pipeline_probe;
    CUDA_LAUNCH(kern, dim3(1), dim3(384), STAGES * TILE_BYTES, nullptr, map, rounds, bug, sums.data());
    cudasim::set_landing(cudasim::AT_WAIT);
    cudasim::set_order(cudasim::FORWARD);
    if (cudaGetLastError() != cudaSuccess)
        return 2;
    for (int ct = 0; ct < 256; ct++) {
        long long want = 0;
        for (int r = 0; r < rounds; r++)
            for (int e = ct; e < TILE_ROWS * TILE_COLS; e += 256)
                want += src[(size_t)r * TILE_ROWS * TILE_COLS + e];
        if (sums[ct] != want)
            return 1;
    }
    return 0;
}

static void test_mbarrier_pipeline(void **state)
{
    (void)state;
    for (int lo = 0; lo < 4; lo++)
        assert_int_equal(pipeline_run(PIPE_OK * 4 + lo), 0);
}

/* A consumer on the wrong parity reads a slot before it lands: wrong sums
 * or a reported deadlock, never the right answer; a consumer that does not
 * wait at all reads garbage. */
static void test_mbarrier_misuse(void **state)
{
    (void)state;
    for (int lo = 0; lo < 4; lo++) {
        for (int bug : {WRONG_PARITY, NO_WAIT}) {
            child_result r = run_child(pipeline_run, bug * 4 + lo);
            if (!(r.aborted && r.err.find("deadlock") != std::string::npos) && r.exit_code != 1)
                fail_msg("a consumer %s went unnoticed (landing %d, order %d): %s",
                         bug == NO_WAIT ? "that does not wait" : "on the wrong parity", lo / 2, lo % 2,
                         r.err.c_str());
        }
        /* tx that never completes: the consumers' wait is a reported deadlock. */
        expect_abort(pipeline_run, TX_TOO_BIG * 4 + lo, "deadlock: mbarrier");
        /* Its copy completes on the next phase: that phase's tx never
         * balances (a deadlock), or, at AT_WAIT, the copy never lands. */
        child_result r = run_child(pipeline_run, ARRIVE_BEFORE_COPY * 4 + lo);
        if (!(r.aborted && (r.err.find("deadlock: mbarrier") != std::string::npos ||
                            r.err.find("TMA copies that never landed") != std::string::npos)))
            fail_msg("a producer arriving before its copy went unnoticed (landing %d, order %d): %s", lo / 2, lo % 2,
                     r.err.c_str());
    }
}

/* mbarrier phases and parity by hand: one thread, count 2. */
__global__ void parity_probe(int *out)
{
    __shared__ uint64_t bar;
    mbar_init(&bar, 2);
    mbar_wait(&bar, 1);          /* the phase "before" phase 0: returns at once */
    mbar_arrive(&bar);
    mbar_arrive_expect_tx(&bar, 0);
    mbar_wait(&bar, 0);          /* phase 0 completed */
    mbar_wait(&bar, 0);          /* still: the current phase (1) has parity 1 */
    mbar_arrive(&bar);
    mbar_arrive(&bar);           /* phase 1 completes */
    mbar_wait(&bar, 1);
    out[0] = 1;
    mbar_wait(&bar, 0);          /* phase 2 in progress, parity 0: never completes */
    out[0] = 2;
}

static int parity_run(int)
{
    int out = 0;
    auto kern = parity_probe;
    CUDA_LAUNCH(kern, dim3(1), dim3(1), 0, nullptr, &out);
    return out;
}

static void test_mbarrier_parity(void **state)
{
    (void)state;
    expect_abort(parity_run, 0, "deadlock: mbarrier at static shared offset");
    child_result r = run_child(parity_run, 0);
    assert_true(r.err.find("waits for its phase of parity 0: 2 phases completed, the current one lacks 2 of 2") !=
                std::string::npos);
}

/* ---- clusters: two blocks sharing each tile by multicast ------------------- */

enum cluster_bug { CLUSTER_OK, NO_FIRST_SYNC, NO_LAST_SYNC, RELEASE_LOCAL, LOAD_LOCAL };

/* pipeline_probe across a cluster of two blocks of 256 threads: each
 * block's producer (thread 0) loads its half of every tile (rows 16 r..) into
 * both blocks; a block's full barrier expects the whole tile; each
 * consumer warp (warpgroup 1) releases a slot on both blocks' empty
 * barriers (lane r on block r's: 8 arrivals a phase), as
 * attention_hopper.cu does. The barriers live in dynamic shared memory
 * (mapa reaches only that). Each consumer thread sums its elements; block
 * b's sums at sums[128 b..]. */
__global__ void cluster_probe(const __grid_constant__ tma_map map, int rounds, int bug, long long *sums)
{
    CUDA_DYNAMIC_SHARED(unsigned char, smem);
    uint64_t *full = reinterpret_cast<uint64_t *>(smem + STAGES * TILE_BYTES), *empty = full + STAGES;
    const int tid = threadIdx.x;
    const unsigned rank = cluster_ctarank();
    if (tid == 0) {
        for (int s = 0; s < STAGES; s++) {
            mbar_init(&full[s], 1);
            mbar_init(&empty[s], 8);
        }
        mbar_fence_init();
    }
    if (bug == NO_FIRST_SYNC)
        __syncthreads();
    else
        cluster_sync();
    if (tid == 0) {
        for (int r = 0; r < rounds; r++) {
            const int s = r % STAGES;
            const unsigned phase = (unsigned)(r / STAGES) & 1u;
            mbar_wait_cluster(&empty[s], phase ^ 1u);
            mbar_arrive_expect_tx(&full[s], TILE_BYTES);
            const int32_t c[4] = {0, (int)(r * TILE_ROWS + rank * TILE_ROWS / 2), 0, 0};
            tma_load_multicast(smem + s * TILE_BYTES + rank * TILE_BYTES / 2, &map, c, &full[s],
                               bug == LOAD_LOCAL ? (uint16_t)(1u << rank) : (uint16_t)3);
        }
    } else if (tid >= 128) {
        const int ct = tid - 128;
        long long sum = 0;
        for (int r = 0; r < rounds; r++) {
            const int s = r % STAGES;
            mbar_wait(&full[s], (unsigned)(r / STAGES) & 1u);
            for (int e = ct; e < TILE_ROWS * TILE_COLS; e += 128) {
                uint16_t v;
                std::memcpy(&v, smem + s * TILE_BYTES + swz((size_t)e * 2), 2);
                sum += v;
            }
            __syncwarp();
            const unsigned lane = (unsigned)tid % 32;
            if (bug == RELEASE_LOCAL ? lane == 0 : lane < 2)
                mbar_arrive_cluster(&empty[s], bug == RELEASE_LOCAL ? rank : lane, true);
        }
        sums[rank * 128 + ct] = sum;
    }
    if (bug != NO_LAST_SYNC)
        cluster_sync();
}

/* 0: every block's sums right; 1: wrong (aborts on a deadlock or a misuse). */
static int cluster_run(int bug_and_landing)
{
    int bug = bug_and_landing / 4, landing = bug_and_landing / 2 % 2, order = bug_and_landing % 2;
    const int rounds = 7;
    std::vector<uint16_t> src((size_t)rounds * TILE_ROWS * TILE_COLS);
    for (size_t e = 0; e < src.size(); e++)
        src[e] = (uint16_t)(e * 11 % 1000 + 1);
    tma_map map;
    char why[160];
    const uint64_t dims[4] = {TILE_COLS, (uint64_t)rounds * TILE_ROWS, 1, 1},
                   strides[3] = {TILE_COLS * 2, (uint64_t)rounds * TILE_ROWS * TILE_COLS * 2,
                                 (uint64_t)rounds * TILE_ROWS * TILE_COLS * 2};
    const uint32_t box[4] = {TILE_COLS, TILE_ROWS / 2, 1, 1};
    if (tma_encode(&map, src.data(), 4, dims, strides, box, why, sizeof why) != 0)
        return 2;
    std::vector<long long> sums(256, -1);
    cudasim::set_landing((cudasim::landing)landing);
    cudasim::set_order((cudasim::order)order);
    auto kern = cluster_probe;
    cudaError_t e = CUDA_LAUNCH_CLUSTER(kern, dim3(2), dim3(256), 2, STAGES * TILE_BYTES + 64, nullptr, map, rounds,
                                        bug, sums.data());
    cudasim::set_landing(cudasim::AT_WAIT);
    cudasim::set_order(cudasim::FORWARD);
    if (e != cudaSuccess)
        return 2;
    for (int ct = 0; ct < 256; ct++) {
        long long want = 0;
        for (int r = 0; r < rounds; r++)
            for (int el = ct % 128; el < TILE_ROWS * TILE_COLS; el += 128)
                want += src[(size_t)r * TILE_ROWS * TILE_COLS + el];
        if (sums[ct] != want)
            return 1;
    }
    return 0;
}

static void test_cluster_multicast(void **state)
{
    (void)state;
    for (int lo = 0; lo < 4; lo++)
        assert_int_equal(cluster_run(CLUSTER_OK * 4 + lo), 0);
    /* A grid that is not whole clusters: refused, as CUDA does. */
    long long sink[256];
    tma_map none = {};
    auto kern = cluster_probe;
    assert_int_equal(CUDA_LAUNCH_CLUSTER(kern, dim3(3), dim3(256), 2, 0, nullptr, none, 0, 0, sink),
                     cudaErrorInvalidConfiguration);
}

static void test_cluster_misuse(void **state)
{
    (void)state;
    for (int lo = 0; lo < 4; lo++) {
        /* A peer's copy or arrival before this block's init. */
        expect_abort(cluster_run, NO_FIRST_SYNC * 4 + lo, "an mbarrier used before mbar_init");
        /* The last releases land on a block that has left. */
        expect_abort(cluster_run, NO_LAST_SYNC * 4 + lo, "which has exited (a cluster barrier before its exit");
        expect_abort(cluster_run, RELEASE_LOCAL * 4 + lo, "deadlock: mbarrier");
        expect_abort(cluster_run, LOAD_LOCAL * 4 + lo, "deadlock: mbarrier");
    }
}

/* ---- named barriers and setmaxnreg ------------------------------------------ */

/* Warp 0 publishes a value and arrives on barrier 1; warp 1 syncs on it and
 * reads. bug 1: warp 1 does not sync; bug 2: warp 0 does not arrive. */
__global__ void named_probe(int bug, int *out)
{
    __shared__ int value;
    if (threadIdx.x == 0)
        value = -1;
    __syncthreads();
    if (threadIdx.x < 32) {
        if (threadIdx.x == 0)
            value = 42;
        if (bug != 2)
            named_bar_arrive(1, 64);
    } else {
        if (bug != 1)
            named_bar_sync(1, 64);
        out[threadIdx.x - 32] = value;
    }
}

static int named_run(int bug_order)
{
    int out[32];
    cudasim::set_order((cudasim::order)(bug_order % 2));
    auto kern = named_probe;
    CUDA_LAUNCH(kern, dim3(1), dim3(64), 0, nullptr, bug_order / 2, out);
    cudasim::set_order(cudasim::FORWARD);
    for (int i = 0; i < 32; i++)
        if (out[i] != 42)
            return 1;
    return 0;
}

static void test_named_barriers(void **state)
{
    (void)state;
    assert_int_equal(named_run(0), 0);
    assert_int_equal(named_run(1), 0);
    assert_int_equal(named_run(2 + 1), 1);   /* without the barrier, the reversed order reads first */
    expect_abort(named_run, 4, "deadlock: named barrier 1 waits with 32 of its 64 threads");
}

__global__ void setmaxnreg_probe(int bug)
{
    if (bug == 1) {
        setmaxnreg_inc<100>();
    } else if (bug == 2) {
        if (threadIdx.x < 32)
            setmaxnreg_dec<40>();
    } else {
        if (threadIdx.x < 128)
            setmaxnreg_dec<40>();
        else
            setmaxnreg_inc<232>();
    }
}

static int setmaxnreg_run(int bug)
{
    auto kern = setmaxnreg_probe;
    CUDA_LAUNCH(kern, dim3(1), dim3(256), 0, nullptr, bug);
    return 0;
}

static void test_setmaxnreg(void **state)
{
    (void)state;
    assert_int_equal(setmaxnreg_run(0), 0);
    expect_abort(setmaxnreg_run, 1, "multiple of 8 in 24..256");
    expect_abort(setmaxnreg_run, 2, "deadlock: a warpgroup collective");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wgmma_ss),
        cmocka_unit_test(test_wgmma_rs),
        cmocka_unit_test(test_wgmma_wrong_layouts),
        cmocka_unit_test(test_wgmma_async_misuse),
        cmocka_unit_test(test_wgmma_wait_group),
        cmocka_unit_test(test_wgmma_fence),
        cmocka_unit_test(test_tma_boxes),
        cmocka_unit_test(test_tma_encode_checks),
        cmocka_unit_test(test_tma_store),
        cmocka_unit_test(test_tma_store_misuse),
        cmocka_unit_test(test_mbarrier_pipeline),
        cmocka_unit_test(test_mbarrier_parity),
        cmocka_unit_test(test_mbarrier_misuse),
        cmocka_unit_test(test_named_barriers),
        cmocka_unit_test(test_setmaxnreg),
        cmocka_unit_test(test_cluster_multicast),
        cmocka_unit_test(test_cluster_misuse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
