/* transformer_block_gpu.h - the Llama decoder block of transformer_block.h
 * on an NVIDIA GPU (transformer_block_gpu.c), plain C over device pointers:
 *
 *   attn_norm     n = RMSNorm(x)                     rms_norm/cuda's kernel
 *   qkv_proj      qkv = n [Wq; Wk; Wv]^T             one cuBLASLt GEMM: the three weights
 *                                                     stored one after another are one
 *                                                     [q_cols + 2 kv_cols][hidden] matrix
 *   rope          q, k, v = split(qkv), q and k      transformer_block_cuda.h, one launch:
 *                 rotated on the way                  attention/cuda takes no row stride,
 *                                                     so q, k, v are copied out of the
 *                                                     fused rows anyway and RoPE rides on
 *                                                     that copy
 *   attention     a = attention(q, k, v)              attention/cuda's kernel; GQA reads
 *                                                     the shared kv heads, no copies
 *   out_proj      h = x + a Wo^T                      cuBLASLt, the residual as C (beta 1)
 *   mlp_norm      n = RMSNorm(h)                      rms_norm/cuda's kernel
 *   gate_up_proj  gu = n [Wgate; Wup]^T               one cuBLASLt GEMM, as qkv_proj
 *   swiglu        g = SiLU(g) * u over gu's rows      transformer_block_cuda.h, in place
 *                                                     over the gate half (cuBLASLt has no
 *                                                     SiLU or SwiGLU epilogue: RELU, GELU,
 *                                                     BIAS and their gradients only)
 *   down_proj     y = h + g Wdown^T                   cuBLASLt reading g in place (leading
 *                                                     dimension 2 x intermediate), the
 *                                                     residual as C
 *
 * Launches per step: 9 (2 RMSNorm, 4 GEMMs, the split, attention, SwiGLU);
 * before the fused projections 12 (3 GEMMs for Q, K, V, 2 for gate and up,
 * and RoPE as a pass of its own). Tensor parallelism adds the two
 * all-reduces, and changes nothing else: a rank's [Wq; Wk; Wv] is its
 * slices of the three, stored one after another, so its fused GEMM gives
 * its heads; likewise [Wgate; Wup].
 *
 * Every tensor is stored in the block's dtype: with bf16, x, y, the weights
 * and every activation (h included) are bf16, as a bf16 model in PyTorch
 * keeps them; every kernel computes in fp32 and rounds once per stored value.
 * (The CPU block instead keeps its activations in fp32: see the tolerance in
 * components/transformer_block/transformer_block_cuda_adapter.c.) With fp32, everything is fp32 and the
 * GEMMs true fp32 (no TF32).
 *
 * The regions are the CPU block's (transformer_block_region_names), pushed
 * and popped around each sub-operation's launches, so a host that turns them
 * into NVTX ranges groups the GPU timeline's kernels by sub-operation. */
#ifndef COMPONENTS_TRANSFORMER_BLOCK_GPU_H
#define COMPONENTS_TRANSFORMER_BLOCK_GPU_H

#include <stddef.h>

#include "transformer_block.h"
#include "linear_cublaslt.h"
#include "attention/attention_cuda.h"

/* Device buffers of a step, in the order a host allocates them. */
enum {
    TB_GPU_RESIDUAL,               /* [tokens][hidden] h */
    TB_GPU_NORM,                   /* [tokens][hidden] RMSNorm output, both norms */
    TB_GPU_Q,                      /* [tokens][heads][D], rotated */
    TB_GPU_K,                      /* [tokens][kv_heads][D], rotated */
    TB_GPU_V,                      /* [tokens][kv_heads][D] */
    TB_GPU_ATTN,                   /* [tokens][heads][D] attention output */
    /* [tokens][max((heads + 2 kv_heads) x D, 2 intermediate)]: the fused QKV
     * GEMM's output (rows heads x D + 2 kv_heads x D wide) until the split
     * has read it, then the fused gate/up GEMM's (rows 2 intermediate wide,
     * SwiGLU's result over each row's gate half). One buffer for both: the
     * two are never live together. */
    TB_GPU_PROJ,
    TB_GPU_ROPE,                   /* fp32 [seq][D/2] cos, then sin: transformer_block_rope_table */
    TB_GPU_N_BUFS
};
/* "residual", "norm_out", "q", "k", "v", "attn_out", "qkv_gate_up", "rope_table" */
extern const char *const transformer_block_gpu_buf_names[TB_GPU_N_BUFS];

/* The weight that weight i is stored right after, as one matrix with it
 * (TB_WQ for TB_WK, TB_WK for TB_WV, TB_W_GATE for TB_W_UP); -1 for a
 * weight that starts its own allocation. */
int transformer_block_gpu_fused_after(int i);

/* cuBLASLt's workspace: what NVIDIA advises for Hopper (32 MiB). */
#define TB_GPU_WORKSPACE_BYTES ((size_t)32 << 20)

typedef struct transformer_block_gpu_sizes {
    size_t tokens, head_dim, elem; /* elem: bytes per stored value (2 or 4) */
    size_t x_bytes;                /* x and y, each */
    size_t weight_bytes[TB_N_WEIGHTS];
    size_t buf_bytes[TB_GPU_N_BUFS];
    size_t total;                  /* x, y, weights, buffers and the workspace */
} transformer_block_gpu_sizes;

/* The sizes of a shape valid for transformer_block_check_shape, for one of
 * tp_size tensor-parallel ranks (1: the whole block; else heads, kv_heads
 * and intermediate must be multiples of tp_size): the weights are the rank's
 * slices (transformer_block_tp_slice), the activations its share. -1 with a
 * message when they overflow size_t. */
int transformer_block_gpu_sizes_of(const transformer_block_shape *s, int bf16, int tp_size,
                                   transformer_block_gpu_sizes *out, char *msg, size_t msg_size);

/* Checks what the GPU kernels add to transformer_block_check_shape's rules
 * (attention's grid: batch and heads at most 65535). -1 with a message that
 * names the parameter. */
int transformer_block_gpu_check_shape(const transformer_block_shape *s, int bf16, int tp_size, char *msg,
                                      size_t msg_size);

typedef struct transformer_block_gpu {
    transformer_block_shape shape;
    int bf16;
    const void *x;                 /* device, [tokens][hidden] */
    void *y;                       /* device, [tokens][hidden]; not overlapping x */
    /* Device, transformer_block.h's layouts, stored dtype. Each GEMM reads
     * its fused weights as one matrix, so w[TB_WK] must begin where
     * w[TB_WQ] ends and w[TB_WV] where w[TB_WK] ends, and w[TB_W_UP] where
     * w[TB_W_GATE] ends (transformer_block_gpu_fused_after; prepare refuses
     * weights stored otherwise). */
    const void *w[TB_N_WEIGHTS];
    void *buf[TB_GPU_N_BUFS];      /* device, transformer_block_gpu_sizes_of's sizes, 256-byte aligned */
    void *workspace;               /* device, TB_GPU_WORKSPACE_BYTES, for cuBLASLt */
    transformer_block_regions regions;
    /* Tensor parallelism as transformer_block.h describes it (tp_size > 1):
     * w[] holds this rank's slices, the projections give this rank's heads
     * and MLP columns, and after out_proj and down_proj all_reduce sums the
     * partial h and y over the ranks, in place on the device, in the
     * block's dtype (the harness sends device buffers through NCCL); rank 0
     * alone adds the residual into its partial sum. tp_size 0 or 1: the
     * whole block, all_reduce unused. */
    int tp_rank, tp_size;
    int (*all_reduce)(void *user, void *buf_device, size_t n, int bf16);   /* 0 or nonzero */
    void *comm_user;
    /* The device's compute capability (cuda_device.h; 0: unknown): 90 plans
     * attention's Hopper kernel (attention_cuda_plan_arch). */
    int compute_capability;
    /* Set by transformer_block_gpu_prepare: */
    linear_cublaslt *gemm;
    int plan_qkv, plan_o, plan_gate_up, plan_down;
    attention_cuda_geometry attention;
} transformer_block_gpu;

/* Opens cuBLASLt, asks its heuristic for each GEMM shape once, and plans the
 * attention kernel for the buffers' addresses. Call after the pointers are
 * set; 0, or -1 with why filled. */
int transformer_block_gpu_prepare(transformer_block_gpu *b, char *why, size_t why_size);

/* One forward step, y from x, enqueued on stream (a cudaStream_t); does not
 * synchronize. The rope table must hold transformer_block_rope_table's
 * values. 0, or -1 with why filled (which launch failed and how). */
int transformer_block_gpu_forward(const transformer_block_gpu *b, void *stream, char *why, size_t why_size);

/* What prepare made (the cuBLASLt handle and plans); not the buffers. */
void transformer_block_gpu_release(transformer_block_gpu *b);

/* The attention kernel prepare chose, in words. */
const char *transformer_block_gpu_attention_kernel(const transformer_block_gpu *b);

#endif
