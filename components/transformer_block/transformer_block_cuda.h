/* transformer_block_cuda.h - the Llama block's own GPU kernels
 * (transformer_block_cuda.cu), plain C: RoPE over q and k in one launch, and
 * SwiGLU. The rest of transformer_block/cuda's step reuses other components'
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

/* RoPE, "rotate half", in place on q = [batch * seq][heads][head_dim] and
 * k = [batch * seq][kv_heads][head_dim] (token-major, as the projections
 * write them and attention reads them); token t is at position t % seq.
 * table: transformer_block_rope_table's fp32 [seq][head_dim/2] cos, then
 * [seq][head_dim/2] sin, in device memory. head_dim even; a block per token,
 * so batch * seq must fit a grid (2^31 - 1). */
int transformer_block_rope_cuda(tb_cuda_dtype dtype, void *q, void *k, const float *table, size_t batch, size_t seq,
                                size_t heads, size_t kv_heads, size_t head_dim, void *stream);

/* gate[i] = SiLU(gate[i]) * up[i] = gate[i] / (1 + e^-gate[i]) * up[i] for i
 * in [0, n): in place over gate, the gate projection's output, so the MLP's
 * activation needs no buffer of its own. 16-byte vectors when gate, up and n
 * allow them. */
int transformer_block_swiglu_cuda(tb_cuda_dtype dtype, void *gate, const void *up, size_t n, void *stream);

#ifdef __cplusplus
}
#endif

#endif
