/* rms_norm_cuda.cu - RMSNorm on an NVIDIA GPU: fp32, bf16 and fp16 storage,
 * fp32 arithmetic.
 *
 * Per row of n elements (the same math as rms_norm_cpu.c):
 *   pass 1  ss   = sum_i x[i]^2                      (fp32, see below)
 *           rstd = 1 / sqrt(ss / n + eps)
 *   pass 2  y[i] = (x[i] * rstd) * w[i], rounded once to the storage type
 *
 * The kernel is memory bound (~2 flops per 4 bytes moved at bf16), so the
 * design is about bytes: x is read from memory once (each thread keeps its
 * part of the row in registers between the passes, RMS_NORM_CUDA_CACHE
 * vectors of 16 bytes), y written once, w (one row) stays in L1/L2.
 * 16-byte loads and stores when every row is 16-byte aligned, one element at
 * a time otherwise (rms_norm_cuda_plan decides). Rows of up to
 * RMS_NORM_CUDA_WARP_MAX_HIDDEN elements get a warp each; longer ones a block.
 *
 * Accuracy: each thread sums at most a few dozen squares before a tree
 * reduction across lanes and warps, so no partial sum grows long; see the
 * fp32 tolerance in rms_norm_ref.c.
 *
 * The file reads top to bottom: launcher, kernels, then the device helpers.
 * It also compiles as host C++ under tests/cudasim (common/cuda_launch.h). */
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "common/cuda_launch.h"
#include "rms_norm_cuda.h"

typedef long long row_t;   /* rows can outnumber int (a warp-per-row grid covers 4 per block) */

template <typename T, int VEC>
__global__ void rms_norm_warp_per_row(const T *__restrict__ x, const T *__restrict__ w,
                                      T *__restrict__ y, row_t rows, int hidden, float eps);
template <typename T, int VEC>
__global__ void rms_norm_block_per_row(const T *__restrict__ x, const T *__restrict__ w,
                                       T *__restrict__ y, row_t rows, int hidden, float eps);

/* ---- launcher ------------------------------------------------------------ */

template <typename T, int VEC>
static int launch(const rms_norm_cuda_geometry *g, const void *x, const void *w, void *y,
                  size_t rows, size_t hidden, float eps, cudaStream_t stream)
{
    void (*kernel)(const T *, const T *, T *, row_t, int, float) =
        g->block_per_row ? rms_norm_block_per_row<T, VEC> : rms_norm_warp_per_row<T, VEC>;
    CUDA_LAUNCH(kernel, dim3((unsigned)g->blocks), dim3(g->threads), 0, stream,
                static_cast<const T *>(x), static_cast<const T *>(w), static_cast<T *>(y),
                (row_t)rows, (int)hidden, eps);
    return (int)cudaGetLastError();
}

/* The 16-byte width for T, or scalar. */
template <typename T>
static int launch_typed(const rms_norm_cuda_geometry *g, const void *x, const void *w, void *y,
                        size_t rows, size_t hidden, float eps, cudaStream_t stream)
{
    if (g->vec == 1)
        return launch<T, 1>(g, x, w, y, rows, hidden, eps, stream);
    return launch<T, 16 / sizeof(T)>(g, x, w, y, rows, hidden, eps, stream);
}

extern "C" int rms_norm_cuda(rms_norm_dtype dtype, const void *x, const void *w, void *y,
                             size_t rows, size_t hidden, float eps, void *stream)
{
    rms_norm_cuda_geometry g;
    if (rms_norm_cuda_plan(dtype, rows, hidden, x, w, y, &g) != 0)
        return RMS_NORM_CUDA_EINVAL;
    if (g.blocks == 0)
        return 0;
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    switch (dtype) {
    case RMS_NORM_F32:
        return launch_typed<float>(&g, x, w, y, rows, hidden, eps, s);
    case RMS_NORM_BF16:
        return launch_typed<__nv_bfloat16>(&g, x, w, y, rows, hidden, eps, s);
    case RMS_NORM_F16:
        return launch_typed<__half>(&g, x, w, y, rows, hidden, eps, s);
    }
    return RMS_NORM_CUDA_EINVAL;
}

/* ---- kernels ------------------------------------------------------------- */

template <typename T, int VEC>
__device__ __forceinline__ float row_sum_squares(const T *x, int nvec, int t, int nthreads,
                                 float (&cache)[RMS_NORM_CUDA_CACHE][VEC]);
template <typename T, int VEC>
__device__ __forceinline__ void row_store(const T *x, const T *w, T *y, int nvec, int t, int nthreads,
                          float rstd, const float (&cache)[RMS_NORM_CUDA_CACHE][VEC]);
__device__ __forceinline__ float warp_sum(float v);

/* One warp per row, RMS_NORM_CUDA_ROWS_PER_BLOCK rows per block. A warp past
 * the last row returns as a whole, so the shuffles stay converged. No
 * __launch_bounds__: with one (128 threads), ptxas 13.0 spilled a few bytes
 * at 40-56 registers for sm_90; it needs under 64 without. */
template <typename T, int VEC>
__global__ void
rms_norm_warp_per_row(const T *__restrict__ x, const T *__restrict__ w, T *__restrict__ y,
                      row_t rows, int hidden, float eps)
{
    row_t row = (row_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= rows)
        return;
    int lane = threadIdx.x % 32, nvec = hidden / VEC;
    const T *xr = x + row * hidden;
    float cache[RMS_NORM_CUDA_CACHE][VEC];
    float ss = warp_sum(row_sum_squares<T, VEC>(xr, nvec, lane, 32, cache));
    float rstd = rsqrtf(ss / (float)hidden + eps);
    row_store<T, VEC>(xr, w, y + row * hidden, nvec, lane, 32, rstd, cache);
}

/* One block per row; blockDim.x is a multiple of 32 (the plan's). Each warp
 * reduces its lanes, lane 0 posts the warp's sum, and after the one barrier
 * every warp sums all posts itself: the same values in the same butterfly
 * order, so every thread gets the same bits, with no second barrier to
 * broadcast a single result. */
template <typename T, int VEC>
__global__ void __launch_bounds__(RMS_NORM_CUDA_MAX_THREADS)
rms_norm_block_per_row(const T *__restrict__ x, const T *__restrict__ w, T *__restrict__ y,
                       row_t rows, int hidden, float eps)
{
    CUDA_STATIC_SHARED(float, warp_sums, RMS_NORM_CUDA_MAX_THREADS / 32);
    row_t row = blockIdx.x;
    (void)rows;   /* one block per row: the grid is exactly rows long */
    int nvec = hidden / VEC, lane = threadIdx.x % 32, nwarps = blockDim.x / 32;
    const T *xr = x + row * hidden;
    float cache[RMS_NORM_CUDA_CACHE][VEC];
    float ss = warp_sum(row_sum_squares<T, VEC>(xr, nvec, threadIdx.x, blockDim.x, cache));
    if (lane == 0)
        warp_sums[threadIdx.x / 32] = ss;
    __syncthreads();
    ss = warp_sum(lane < nwarps ? warp_sums[lane] : 0.0f);
    float rstd = rsqrtf(ss / (float)hidden + eps);
    row_store<T, VEC>(xr, w, y + row * hidden, nvec, threadIdx.x, blockDim.x, rstd, cache);
}

/* ---- device helpers ------------------------------------------------------ */

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }

template <typename T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ float from_float<float>(float v) { return v; }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v)
{
    return __float2bfloat16_rn(v);
}
template <> __device__ __forceinline__ __half from_float<__half>(float v)
{
    return __float2half_rn(v);
}

/* VEC elements at p: one 16-byte access (p 16-byte aligned) or one element.
 * The union reinterprets the 16 loaded bytes as VEC elements. */
template <typename T, int VEC>
__device__ __forceinline__ void load(const T *p, float (&v)[VEC])
{
    static_assert(VEC == 1 || VEC * sizeof(T) == 16, "a vector is 16 bytes");
    if constexpr (VEC == 1) {
        v[0] = to_float(*p);
    } else {
        union { uint4 raw; T e[VEC]; } u;
        u.raw = *reinterpret_cast<const uint4 *>(p);
#pragma unroll
        for (int k = 0; k < VEC; k++)
            v[k] = to_float(u.e[k]);
    }
}

template <typename T, int VEC>
__device__ __forceinline__ void store(T *p, const float (&v)[VEC])
{
    if constexpr (VEC == 1) {
        *p = from_float<T>(v[0]);
    } else {
        union { uint4 raw; T e[VEC]; } u;
#pragma unroll
        for (int k = 0; k < VEC; k++)
            u.e[k] = from_float<T>(v[k]);
        *reinterpret_cast<uint4 *>(p) = u.raw;
    }
}

/* Sum of squares of this thread's vectors t, t + nthreads, ... of a row of
 * nvec vectors (consecutive threads, consecutive 16 bytes: coalesced). The
 * first RMS_NORM_CUDA_CACHE are kept in cache for row_store; their loads are
 * all issued before the first add, so they are in flight together. */
template <typename T, int VEC>
__device__ __forceinline__ float row_sum_squares(const T *x, int nvec, int t, int nthreads,
                                 float (&cache)[RMS_NORM_CUDA_CACHE][VEC])
{
#pragma unroll
    for (int c = 0; c < RMS_NORM_CUDA_CACHE; c++) {
        int i = t + c * nthreads;
        if (i < nvec)
            load<T, VEC>(x + (size_t)i * VEC, cache[c]);
    }
    float ss = 0.0f;
#pragma unroll
    for (int c = 0; c < RMS_NORM_CUDA_CACHE; c++)
        if (t + c * nthreads < nvec)
#pragma unroll
            for (int k = 0; k < VEC; k++)
                ss += cache[c][k] * cache[c][k];
#pragma unroll 1   /* rows longer than the cache: rare, kept small */
    for (int i = t + RMS_NORM_CUDA_CACHE * nthreads; i < nvec; i += nthreads) {
        float v[VEC];
        load<T, VEC>(x + (size_t)i * VEC, v);
#pragma unroll
        for (int k = 0; k < VEC; k++)
            ss += v[k] * v[k];
    }
    return ss;
}

/* y = (x * rstd) * w over the same vectors: cached ones from registers, the
 * rest of a long row read again (from L1/L2: this block just read it). */
template <typename T, int VEC>
__device__ __forceinline__ void row_store(const T *x, const T *w, T *y, int nvec, int t, int nthreads,
                          float rstd, const float (&cache)[RMS_NORM_CUDA_CACHE][VEC])
{
#pragma unroll
    for (int c = 0; c < RMS_NORM_CUDA_CACHE; c++) {
        int i = t + c * nthreads;
        if (i < nvec) {
            float wv[VEC], out[VEC];
            load<T, VEC>(w + (size_t)i * VEC, wv);
#pragma unroll
            for (int k = 0; k < VEC; k++)
                out[k] = cache[c][k] * rstd * wv[k];
            store<T, VEC>(y + (size_t)i * VEC, out);
        }
    }
#pragma unroll 1   /* the cold path: unrolled, it made ptxas spill (fp32 warp kernel, sm_90) */
    for (int i = t + RMS_NORM_CUDA_CACHE * nthreads; i < nvec; i += nthreads) {
        float xv[VEC], wv[VEC], out[VEC];
        load<T, VEC>(x + (size_t)i * VEC, xv);
        load<T, VEC>(w + (size_t)i * VEC, wv);
#pragma unroll
        for (int k = 0; k < VEC; k++)
            out[k] = xv[k] * rstd * wv[k];
        store<T, VEC>(y + (size_t)i * VEC, out);
    }
}

/* Butterfly sum over the 32 lanes: after step m every lane holds the sum of
 * its 2m-lane group, and lane and partner add the same two values (a + b ==
 * b + a in IEEE), so all lanes end with identical bits. */
__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int m = 16; m > 0; m /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, m);
    return v;
}
