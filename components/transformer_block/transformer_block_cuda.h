/* transformer_block_cuda.h - the Llama block's own GPU kernels
 * (transformer_block_cuda.cu), plain C: the split of the fused QKV projection
 * with RoPE on q and k, in one launch, and SwiGLU on the fused gate/up
 * projection. The rest of transformer_block/cuda's step reuses other components'
 * kernels (rms_norm_cuda.h, attention_cuda.h) and cuBLASLt (linear_cublaslt.h);
 * transformer_block_gpu.h puts them in order.
 *
 * Same math as the CPU block (transformer_block.h): fp32 arithmetic, storage
 * in fp32 or bf16 (rounded to nearest even once per stored value). Device
 * pointers; enqueued on `stream` (a cudaStream_t; NULL: the default stream);
 * never synchronize. Each returns 0, TB_CUDA_EINVAL for arguments the kernel
 * cannot take, or the cudaError_t of a failed launch. */
#ifndef COMPONENTS_TRANSFORMER_BLOCK_CUDA_H
#define COMPONENTS_TRANSFORMER_BLOCK_CUDA_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tb_cuda_dtype { TB_CUDA_F32, TB_CUDA_BF16 } tb_cuda_dtype;

#define TB_CUDA_EINVAL (-1)
/* Threads per block of both kernels. */
#define TB_CUDA_THREADS 256

/* The step after the fused QKV GEMM, one pass: qkv = [batch * seq][heads +
 * 2 kv_heads][head_dim], each token's row q's heads, then k's, then v's (the
 * GEMM's output against the concatenated [Wq; Wk; Wv]), split into the
 * contiguous q = [batch * seq][heads][head_dim], k and v =
 * [batch * seq][kv_heads][head_dim] that attention/cuda reads (it takes no
 * row stride), q and k rotated on the way ("rotate half" RoPE; token t is at
 * position t % seq), v copied. So RoPE costs no pass of its own: it rides on
 * the copy the split needs anyway. table: transformer_block_rope_table's
 * fp32 [seq][head_dim/2] cos, then [seq][head_dim/2] sin, in device memory.
 * head_dim even; a block per token, so batch * seq must fit a grid
 * (2^31 - 1). qkv must not overlap q, k or v. */
int transformer_block_rope_split_cuda(tb_cuda_dtype dtype, const void *qkv, void *q, void *k, void *v,
                                      const float *table, size_t batch, size_t seq, size_t heads, size_t kv_heads,
                                      size_t head_dim, void *stream);

/* SwiGLU on the fused gate/up GEMM's output gate_up = [tokens][2 * inter],
 * each row the gate's inter columns, then up's (the GEMM against the
 * concatenated [Wgate; Wup]): gate[t][j] = SiLU(gate[t][j]) * up[t][j] =
 * g / (1 + e^-g) * u for j < inter, in place over the gate half, so the
 * activation is a [tokens][inter] matrix of row stride 2 * inter (the down
 * GEMM reads it with that leading dimension) and needs no buffer of its
 * own. 16-byte vectors when gate_up and inter allow them. */
int transformer_block_swiglu_cuda(tb_cuda_dtype dtype, void *gate_up, size_t tokens, size_t inter, void *stream);

#ifdef __cplusplus
}
#endif

#endif
