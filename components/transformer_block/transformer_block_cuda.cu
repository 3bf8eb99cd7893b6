/* transformer_block_cuda.cu - the Llama block's elementwise GPU kernels
 * (transformer_block_cuda.h): the split of the fused QKV projection with
 * RoPE on q and k, and SwiGLU on the fused gate/up projection. Both are
 * memory bound, a few FLOPs per element moved, so the design is about bytes
 * and launches: each element is read and written once, the split rotates q
 * and k as it copies them out (RoPE is no pass of its own), and SwiGLU reads
 * gate and up from one row and writes its result over the gate half, so the
 * step needs no extra buffer.
 *
 * The file reads top to bottom: launchers, then kernels. It also compiles as
 * host C++ under tests/cudasim (common/cuda_launch.h). */
#include <cuda_runtime.h>
#include <cuda_bf16.h>

#include "common/cuda_launch.h"
#include "transformer_block_cuda.h"

#include <stdint.h>

typedef long long index_t;   /* tokens x width can outnumber int */

template <typename T, int VEC>
__global__ void rope_split_kernel(const T *__restrict__ qkv, T *__restrict__ q, T *__restrict__ k,
                                  T *__restrict__ v, const float *__restrict__ table, int seq, int heads,
                                  int kv_heads, int half);
template <typename T, int VEC>
__global__ void swiglu_kernel(T *__restrict__ gate_up, index_t tokens, index_t inter_vecs);

/* ---- launchers ------------------------------------------------------------- */

/* Threads for `work` independent items per block: whole warps, at most
 * TB_CUDA_THREADS, no more warps than there is work for. */
static unsigned threads_for(size_t work)
{
    size_t warps = (work + 31) / 32;
    return warps * 32 < TB_CUDA_THREADS ? (unsigned)(warps * 32) : TB_CUDA_THREADS;
}

/* A block per token; threads for the larger of its two loops, in vectors of
 * VEC elements: the rotated pairs, the copied v. */
template <typename T, int VEC>
static int launch_rope_split(const void *qkv, void *q, void *k, void *v, const float *table, size_t tokens,
                             size_t seq, size_t heads, size_t kv_heads, size_t half, cudaStream_t s)
{
    size_t pairs = (heads + kv_heads) * half / VEC, v_vecs = kv_heads * 2 * half / VEC;
    auto kernel = rope_split_kernel<T, VEC>;
    CUDA_LAUNCH(kernel, dim3((unsigned)tokens), dim3(threads_for(pairs > v_vecs ? pairs : v_vecs)), 0, s,
                static_cast<const T *>(qkv), static_cast<T *>(q), static_cast<T *>(k), static_cast<T *>(v), table,
                (int)seq, (int)heads, (int)kv_heads, (int)half);
    return (int)cudaGetLastError();
}

extern "C" int transformer_block_rope_split_cuda(tb_cuda_dtype dtype, const void *qkv, void *q, void *k, void *v,
                                                 const float *table, size_t batch, size_t seq, size_t heads,
                                                 size_t kv_heads, size_t head_dim, void *stream)
{
    size_t tokens = batch * seq, half = head_dim / 2;
    /* The widest int the kernel computes: a token's row, (heads + 2 kv_heads) x head_dim. */
    if (head_dim == 0 || head_dim % 2 != 0 || seq > INT32_MAX || tokens > INT32_MAX || heads > INT32_MAX ||
        kv_heads > INT32_MAX || head_dim > INT32_MAX || (heads + 2 * kv_heads) > INT32_MAX / head_dim ||
        (batch != 0 && tokens / batch != seq))
        return TB_CUDA_EINVAL;
    if (tokens == 0)
        return 0;
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    /* 16-byte vectors where every pointer is on a 16-byte boundary and a
     * head's half is a whole number of them: then so is every head, row and
     * half-row offset. */
    int aligned = ((uintptr_t)qkv | (uintptr_t)q | (uintptr_t)k | (uintptr_t)v) % 16 == 0;
    if (dtype == TB_CUDA_BF16)
        return aligned && half % 8 == 0
                   ? launch_rope_split<__nv_bfloat16, 8>(qkv, q, k, v, table, tokens, seq, heads, kv_heads, half, s)
                   : launch_rope_split<__nv_bfloat16, 1>(qkv, q, k, v, table, tokens, seq, heads, kv_heads, half, s);
    return aligned && half % 4 == 0
               ? launch_rope_split<float, 4>(qkv, q, k, v, table, tokens, seq, heads, kv_heads, half, s)
               : launch_rope_split<float, 1>(qkv, q, k, v, table, tokens, seq, heads, kv_heads, half, s);
}

/* A block per token row, each thread VEC elements per pass along it; a
 * grid-stride loop over the rows covers what this many blocks do not. */
#define SWIGLU_MAX_BLOCKS 65536u

template <typename T, int VEC>
static int launch_swiglu(void *gate_up, size_t tokens, size_t inter, cudaStream_t s)
{
    auto kernel = swiglu_kernel<T, VEC>;
    CUDA_LAUNCH(kernel, dim3(tokens < SWIGLU_MAX_BLOCKS ? (unsigned)tokens : SWIGLU_MAX_BLOCKS),
                dim3(threads_for(inter / VEC)), 0, s, static_cast<T *>(gate_up), (index_t)tokens,
                (index_t)(inter / VEC));
    return (int)cudaGetLastError();
}

extern "C" int transformer_block_swiglu_cuda(tb_cuda_dtype dtype, void *gate_up, size_t tokens, size_t inter,
                                             void *stream)
{
    /* The kernel's index_t reaches tokens x 2 inter. */
    if (inter != 0 && tokens > (size_t)INT64_MAX / 2 / inter)
        return TB_CUDA_EINVAL;
    if (tokens == 0 || inter == 0)
        return 0;
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    /* 16-byte vectors need the base on a 16-byte boundary and inter a whole
     * number of vectors: then every row, and its up half, starts on one too,
     * and no vector straddles the two halves. */
    int aligned = (uintptr_t)gate_up % 16 == 0;
    if (dtype == TB_CUDA_BF16)
        return aligned && inter % 8 == 0 ? launch_swiglu<__nv_bfloat16, 8>(gate_up, tokens, inter, s)
                                         : launch_swiglu<__nv_bfloat16, 1>(gate_up, tokens, inter, s);
    return aligned && inter % 4 == 0 ? launch_swiglu<float, 4>(gate_up, tokens, inter, s)
                                     : launch_swiglu<float, 1>(gate_up, tokens, inter, s);
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

/* 16-byte vectors of VEC elements as one load and store each (VEC = 1: scalar). */
template <typename T, int VEC>
struct alignas(sizeof(T) * VEC) vec_t {
    T v[VEC];
};

/* A block per token. Its row of qkv holds q's heads, k's, v's, each
 * head_dim = 2 half wide; the (heads + kv_heads) x half rotated pairs are
 * numbered q's heads first, then k's (adjacent in the row, so the source is
 * the same expression for both), and consecutive threads take consecutive
 * runs of VEC pairs, i.e. a 16-byte vector from each of one head's two
 * halves (VEC = 1: one element, for shapes or pointers that do not allow
 * vectors), so loads and stores coalesce and each moves 16 bytes (a first
 * H100 run measured the scalar split at 1.4 TB/s); then v, vector by vector,
 * copied as it is. The angle's cos and sin come from the table, as on the
 * CPU (built in double, rounded once), never from float sincos of a float
 * angle, which at position 4096 would be off by ~1e-3 rad. */
template <typename T, int VEC>
__global__ void __launch_bounds__(TB_CUDA_THREADS)
rope_split_kernel(const T *__restrict__ qkv, T *__restrict__ q, T *__restrict__ k, T *__restrict__ v,
                  const float *__restrict__ table, int seq, int heads, int kv_heads, int half)
{
    typedef vec_t<T, VEC> V;
    index_t token = blockIdx.x;
    int d = 2 * half, pos = (int)(token % seq), half_vecs = half / VEC;
    int pairs = (heads + kv_heads) * half_vecs, v_vecs = kv_heads * d / VEC;
    const T *row = qkv + token * (heads + 2 * kv_heads) * d;
    const float *cos_row = table + (index_t)pos * half, *sin_row = table + ((index_t)seq + pos) * half;
    for (int j = threadIdx.x; j < pairs; j += blockDim.x) {
        int head = j / half_vecs, i = j % half_vecs * VEC;
        const T *src = row + head * d;
        T *dst = head < heads ? q + (token * heads + head) * d : k + (token * kv_heads + (head - heads)) * d;
        V a = *reinterpret_cast<const V *>(src + i), b = *reinterpret_cast<const V *>(src + i + half), ra, rb;
#pragma unroll
        for (int e = 0; e < VEC; e++) {
            float x = to_float(a.v[e]), y = to_float(b.v[e]), c = __ldg(cos_row + i + e), s = __ldg(sin_row + i + e);
            ra.v[e] = from_float<T>(x * c - y * s);
            rb.v[e] = from_float<T>(y * c + x * s);
        }
        *reinterpret_cast<V *>(dst + i) = ra;
        *reinterpret_cast<V *>(dst + i + half) = rb;
    }
    const V *v_src = reinterpret_cast<const V *>(row + (heads + kv_heads) * d);
    V *v_dst = reinterpret_cast<V *>(v + token * kv_heads * d);
    for (int j = threadIdx.x; j < v_vecs; j += blockDim.x)
        v_dst[j] = v_src[j];
}

/* SiLU(g) * u in fp32. expf, not __expf: the kernel waits on memory either
 * way, and the accurate exponential keeps fp32 within the CPU's tolerance
 * for large |g|. g -> -inf: e^-g = inf, g / inf = -0, the limit. */
__device__ __forceinline__ float swiglu(float g, float u)
{
    return g / (1.0f + expf(-g)) * u;
}

/* Blocks take token rows (a grid-stride loop), threads consecutive vectors
 * of the row's gate half; each vector's up partner sits inter_vecs vectors
 * further along the row. Rows and columns as two loops, not one flat index:
 * no 64-bit division per element. */
template <typename T, int VEC>
__global__ void __launch_bounds__(TB_CUDA_THREADS)
swiglu_kernel(T *__restrict__ gate_up, index_t tokens, index_t inter_vecs)
{
    typedef vec_t<T, VEC> V;
    for (index_t t = blockIdx.x; t < tokens; t += gridDim.x) {
        V *gate = reinterpret_cast<V *>(gate_up) + 2 * t * inter_vecs;
        for (index_t c = threadIdx.x; c < inter_vecs; c += blockDim.x) {
            V gv = gate[c], uv = gate[inter_vecs + c];
#pragma unroll
            for (int e = 0; e < VEC; e++)
                gv.v[e] = from_float<T>(swiglu(to_float(gv.v[e]), to_float(uv.v[e])));
            gate[c] = gv;
        }
    }
}
