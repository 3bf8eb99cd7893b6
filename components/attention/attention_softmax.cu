/* attention_softmax.cu - the middle step of unfused attention (attention/
 * cublas: GEMM, this, GEMM): each row of the fp32 score matrix S = Q K^T of
 * one (batch, head) becomes the weights
 *   p_j = 2^(c s_j - m) / sum_j' 2^(c s_j' - m),   c = scale log2(e),
 *   m = max over the visible keys of c s_j,
 * for the keys visible to the row's query (all, or j <= i + Sk - Sq under the
 * bottom-right causal mask) and 0 for the others; a row that sees no key is
 * all zeros. Written as fp32 (in place over S is fine: every element is read
 * and then written by the same thread), bf16 or fp16 for the second GEMM.
 *
 * A warp per row, three passes over it (max, sum, write); the row is read
 * from L1/L2 after the first. It is the baseline: the fused kernel exists so
 * that S never goes to memory at all. Also compiles as host C++ under
 * tests/cudasim (common/cuda_launch.h). */
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <math.h>

#include "common/cuda_launch.h"
#include "attention_softmax.h"

#define ROWS_PER_BLOCK 4

template <typename T>
__global__ void attention_softmax_rows(const float *s, T *p, long long rows, int seq_q, int seq_k, int causal,
                                       float scale_log2);

/* ---- launcher ------------------------------------------------------------ */

template <typename T>
static int launch(const float *scores, void *probs, size_t blocks, size_t rows, size_t seq_q, size_t seq_k,
                  int causal, float scale_log2, void *stream)
{
    auto k = attention_softmax_rows<T>;
    CUDA_LAUNCH(k, dim3((unsigned)blocks), dim3(32 * ROWS_PER_BLOCK), 0, static_cast<cudaStream_t>(stream), scores,
                static_cast<T *>(probs), (long long)rows, (int)seq_q, (int)seq_k, causal, scale_log2);
    return (int)cudaGetLastError();
}

extern "C" int attention_softmax_cuda(attention_dtype probs_type, const float *scores, void *probs, size_t rows,
                                      size_t seq_q, size_t seq_k, int causal, float scale, void *stream)
{
    if (seq_q == 0 || seq_q > 0x7fffffff || seq_k == 0 || seq_k > 0x7fffffff || rows % seq_q != 0)
        return ATTENTION_SOFTMAX_EINVAL;
    size_t blocks = (rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK;
    if (blocks == 0)
        return 0;
    if (blocks > 0x7fffffff)
        return ATTENTION_SOFTMAX_EINVAL;
    float c = (float)((double)scale * 1.4426950408889634);
    switch (probs_type) {
    case ATTENTION_F32:
        return launch<float>(scores, probs, blocks, rows, seq_q, seq_k, causal, c, stream);
    case ATTENTION_BF16:
        return launch<__nv_bfloat16>(scores, probs, blocks, rows, seq_q, seq_k, causal, c, stream);
    case ATTENTION_F16:
        return launch<__half>(scores, probs, blocks, rows, seq_q, seq_k, causal, c, stream);
    }
    return ATTENTION_SOFTMAX_EINVAL;
}

/* ---- kernel -------------------------------------------------------------- */

__device__ __forceinline__ float softmax_warp_max(float v);
__device__ __forceinline__ float softmax_warp_sum(float v);
__device__ __forceinline__ void store(float *p, float v) { *p = v; }
__device__ __forceinline__ void store(__nv_bfloat16 *p, float v) { *p = __float2bfloat16_rn(v); }
__device__ __forceinline__ void store(__half *p, float v) { *p = __float2half_rn(v); }

/* Row r of the [batch x heads x seq_q][seq_k] matrix is query r % seq_q. A
 * warp past the last row returns whole, so its shuffles stay converged. */
template <typename T>
__global__ void __launch_bounds__(32 * ROWS_PER_BLOCK)
attention_softmax_rows(const float *s, T *p, long long rows, int seq_q, int seq_k, int causal, float scale_log2)
{
    long long r = (long long)blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / 32;
    if (r >= rows)
        return;
    const int lane = threadIdx.x % 32, i = (int)(r % seq_q);
    long long limit = causal ? (long long)i + seq_k - seq_q + 1 : seq_k;   /* visible keys: j < n */
    const int n = limit < 0 ? 0 : (int)limit;
    const float *sr = s + r * seq_k;
    T *pr = p + r * seq_k;

    float mx = -INFINITY;
    for (int j = lane; j < n; j += 32)
        mx = fmaxf(mx, sr[j] * scale_log2);
    mx = softmax_warp_max(mx);
    float sum = 0.0f;
    for (int j = lane; j < n; j += 32)
        sum += exp2f(sr[j] * scale_log2 - mx);
    sum = softmax_warp_sum(sum);
    const float inv = n > 0 ? 1.0f / sum : 0.0f;
    for (int j = lane; j < seq_k; j += 32)
        store(pr + j, j < n ? exp2f(sr[j] * scale_log2 - mx) * inv : 0.0f);
}

/* Butterflies over the 32 lanes: every lane ends with the same bits. */
__device__ __forceinline__ float softmax_warp_max(float v)
{
#pragma unroll
    for (int m = 16; m > 0; m /= 2)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, m));
    return v;
}
__device__ __forceinline__ float softmax_warp_sum(float v)
{
#pragma unroll
    for (int m = 16; m > 0; m /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, m);
    return v;
}
