/* transformer_block_cuda.cu - the Llama block's elementwise GPU kernels
 * (transformer_block_cuda.h): RoPE on q and k, SwiGLU. Both are memory
 * bound, a few FLOPs per element moved, so the design is about bytes: each
 * element is read and written once, RoPE touches q and k in one launch, and
 * SwiGLU writes its result over the gate so the step needs no extra buffer.
 *
 * The file reads top to bottom: launchers, then kernels. It also compiles as
 * host C++ under tests/cudasim (common/cuda_launch.h). */
#include <cuda_runtime.h>
#include <cuda_bf16.h>

#include "common/cuda_launch.h"
#include "transformer_block_cuda.h"

#include <stdint.h>

typedef long long index_t;   /* tokens x width can outnumber int */

template <typename T>
__global__ void rope_kernel(T *__restrict__ q, T *__restrict__ k, const float *__restrict__ table, int seq,
                            int heads, int kv_heads, int half);
template <typename T, int VEC>
__global__ void swiglu_kernel(T *__restrict__ gate, const T *__restrict__ up, index_t n);

/* ---- launchers ------------------------------------------------------------- */

/* Threads for `work` independent items per block: whole warps, at most
 * TB_CUDA_THREADS, no more warps than there is work for. */
static unsigned threads_for(size_t work)
{
    size_t warps = (work + 31) / 32;
    return warps * 32 < TB_CUDA_THREADS ? (unsigned)(warps * 32) : TB_CUDA_THREADS;
}

extern "C" int transformer_block_rope_cuda(tb_cuda_dtype dtype, void *q, void *k, const float *table, size_t batch,
                                           size_t seq, size_t heads, size_t kv_heads, size_t head_dim, void *stream)
{
    size_t tokens = batch * seq, half = head_dim / 2;
    if (head_dim == 0 || head_dim % 2 != 0 || seq > INT32_MAX || tokens > INT32_MAX || heads > INT32_MAX ||
        kv_heads > INT32_MAX || (heads + kv_heads) * half > INT32_MAX || (batch != 0 && tokens / batch != seq))
        return TB_CUDA_EINVAL;
    if (tokens == 0)
        return 0;
    dim3 grid((unsigned)tokens), block(threads_for((heads + kv_heads) * half));
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    if (dtype == TB_CUDA_BF16) {
        auto kernel = rope_kernel<__nv_bfloat16>;
        CUDA_LAUNCH(kernel, grid, block, 0, s, static_cast<__nv_bfloat16 *>(q), static_cast<__nv_bfloat16 *>(k),
                    table, (int)seq, (int)heads, (int)kv_heads, (int)half);
    } else {
        auto kernel = rope_kernel<float>;
        CUDA_LAUNCH(kernel, grid, block, 0, s, static_cast<float *>(q), static_cast<float *>(k), table, (int)seq,
                    (int)heads, (int)kv_heads, (int)half);
    }
    return (int)cudaGetLastError();
}

/* Blocks of TB_CUDA_THREADS threads, each thread VEC elements per pass; a
 * grid-stride loop covers what this many blocks do not. */
#define SWIGLU_MAX_BLOCKS 65536u

template <typename T, int VEC>
static int launch_swiglu(void *gate, const void *up, size_t n, cudaStream_t s)
{
    size_t per_block = (size_t)TB_CUDA_THREADS * VEC, blocks = (n + per_block - 1) / per_block;
    auto kernel = swiglu_kernel<T, VEC>;
    CUDA_LAUNCH(kernel, dim3(blocks < SWIGLU_MAX_BLOCKS ? (unsigned)blocks : SWIGLU_MAX_BLOCKS),
                dim3(TB_CUDA_THREADS), 0, s, static_cast<T *>(gate), static_cast<const T *>(up), (index_t)n);
    return (int)cudaGetLastError();
}

extern "C" int transformer_block_swiglu_cuda(tb_cuda_dtype dtype, void *gate, const void *up, size_t n,
                                             void *stream)
{
    if (n > (size_t)INT64_MAX / 2)
        return TB_CUDA_EINVAL;
    if (n == 0)
        return 0;
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    /* 16-byte vectors need both bases on a 16-byte boundary and n a whole
     * number of vectors (the last vector must not run past the buffers). */
    int aligned = ((uintptr_t)gate | (uintptr_t)up) % 16 == 0;
    if (dtype == TB_CUDA_BF16)
        return aligned && n % 8 == 0 ? launch_swiglu<__nv_bfloat16, 8>(gate, up, n, s)
                                     : launch_swiglu<__nv_bfloat16, 1>(gate, up, n, s);
    return aligned && n % 4 == 0 ? launch_swiglu<float, 4>(gate, up, n, s) : launch_swiglu<float, 1>(gate, up, n, s);
}

/* ---- kernels ------------------------------------------------------------------ */

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ float from_float<float>(float v) { return v; }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v)
{
    return __float2bfloat16_rn(v);
}

/* A block per token. Its (heads + kv_heads) x half pairs are numbered q's
 * heads first, then k's; consecutive threads take consecutive pairs, i.e.
 * consecutive elements of one head's two halves, so loads coalesce. The
 * angle's cos and sin come from the table, as on the CPU (built in double,
 * rounded once), never from float sincos of a float angle, which at
 * position 4096 would be off by ~1e-3 rad. */
template <typename T>
__global__ void __launch_bounds__(TB_CUDA_THREADS)
rope_kernel(T *__restrict__ q, T *__restrict__ k, const float *__restrict__ table, int seq, int heads,
            int kv_heads, int half)
{
    index_t token = blockIdx.x;
    int pos = (int)(token % seq), pairs = (heads + kv_heads) * half;
    const float *cos_row = table + (index_t)pos * half, *sin_row = table + ((index_t)seq + pos) * half;
    for (int j = threadIdx.x; j < pairs; j += blockDim.x) {
        int head = j / half, i = j % half;
        T *lo = head < heads ? q + (token * heads + head) * 2 * half
                             : k + (token * kv_heads + (head - heads)) * 2 * half;
        float a = to_float(lo[i]), b = to_float(lo[i + half]), c = __ldg(cos_row + i), s = __ldg(sin_row + i);
        lo[i] = from_float<T>(a * c - b * s);
        lo[i + half] = from_float<T>(b * c + a * s);
    }
}

/* SiLU(g) * u in fp32. expf, not __expf: the kernel waits on memory either
 * way, and the accurate exponential keeps fp32 within the CPU's tolerance
 * for large |g|. g -> -inf: e^-g = inf, g / inf = -0, the limit. */
__device__ __forceinline__ float swiglu(float g, float u)
{
    return g / (1.0f + expf(-g)) * u;
}

/* 16-byte vectors of VEC elements as one load and store each (VEC = 1: scalar). */
template <typename T, int VEC>
struct alignas(sizeof(T) * VEC) vec_t {
    T v[VEC];
};

template <typename T, int VEC>
__global__ void __launch_bounds__(TB_CUDA_THREADS)
swiglu_kernel(T *__restrict__ gate, const T *__restrict__ up, index_t n)
{
    typedef vec_t<T, VEC> V;
    index_t nvec = n / VEC, stride = (index_t)gridDim.x * blockDim.x;
    V *g = reinterpret_cast<V *>(gate);
    const V *u = reinterpret_cast<const V *>(up);
    for (index_t i = (index_t)blockIdx.x * blockDim.x + threadIdx.x; i < nvec; i += stride) {
        V gv = g[i], uv = u[i];
#pragma unroll
        for (int e = 0; e < VEC; e++)
            gv.v[e] = from_float<T>(swiglu(to_float(gv.v[e]), to_float(uv.v[e])));
        g[i] = gv;
    }
}
