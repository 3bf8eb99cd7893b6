/* transformer_block.h - one Llama decoder block, forward, on the CPU:
 *
 *   h = x + Wo · attention(RoPE(Wq · n), RoPE(Wk · n), Wv · n),  n = RMSNorm(x; attn_norm)
 *   y = h + Wdown · (SiLU(Wgate · m) * (Wup · m)),                m = RMSNorm(h; mlp_norm)
 *
 * x, y: [batch][seq][hidden], row-major. Weights are stored as a PyTorch
 * nn.Linear stores them, [out_features][in_features] row-major, so a
 * projection of tokens T (rows) is T · W^T. head_dim D = hidden / heads;
 * Q has heads * D = hidden columns, K and V kv_heads * D (grouped-query
 * attention: query head h reads kv head h / (heads / kv_heads)).
 *
 * RoPE follows Llama as Hugging Face implements it ("rotate half"): within each
 * head, element i pairs with element i + D/2 for i in [0, D/2), and at position
 * p (0..seq-1 within each sequence) the pair turns by the angle
 * p * theta^(-2i/D):
 *     out[i]       = x[i] cos - x[i + D/2] sin
 *     out[i + D/2] = x[i + D/2] cos + x[i] sin
 * (Meta's original code rotates adjacent pairs (2i, 2i+1) instead; the two
 * agree up to a fixed permutation of Wq's and Wk's rows.) The angles are taken
 * in double and their cos/sin rounded to float once, into a table built at
 * setup, so long sequences lose no accuracy to a float position * frequency.
 *
 * fp32: the six projections are cblas_sgemm calls (split across the OpenMP
 * threads, OpenBLAS itself single-threaded), RMSNorm and attention are the
 * kernels of components/rms_norm and components/attention, RoPE and SwiGLU
 * are OpenMP loops here.
 *
 * bf16, two paths (transformer_block_bf16_choose): on a CPU with AVX-512
 * BF16 the projections are bf16 GEMMs with fp32 accumulation on weights
 * packed once (wp, linear_bf16.h; on AMX tiles where the CPU has them) and
 * attention is attention_bf16
 * (transformer_block_bf16.c); elsewhere, or forced, the fp32 step above on
 * an fp32 copy of the weights with only x and y in bf16.
 *
 * The caller allocates every buffer (so a host can track memory by name) and
 * passes pointers; nothing is allocated inside a step. Plain C, no harness
 * types: the plugin adapts it, the unit test calls it directly. */
#ifndef COMPONENTS_TRANSFORMER_BLOCK_H
#define COMPONENTS_TRANSFORMER_BLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "common/check.h"

typedef enum transformer_block_dtype { TB_F32 = 1, TB_BF16 } transformer_block_dtype;

typedef struct transformer_block_shape {
    size_t batch, seq, hidden, heads, kv_heads, intermediate;
    double rope_theta;             /* > 0 */
    float eps;                     /* RMSNorm's, > 0 and finite */
    int causal;                    /* token i attends to tokens 0..i of its sequence */
} transformer_block_shape;

/* The weights, in the order a host allocates and fills them. */
enum {
    TB_WQ,                         /* [heads * D][hidden] */
    TB_WK,                         /* [kv_heads * D][hidden] */
    TB_WV,                         /* [kv_heads * D][hidden] */
    TB_WO,                         /* [hidden][heads * D] */
    TB_W_GATE,                     /* [intermediate][hidden] */
    TB_W_UP,                       /* [intermediate][hidden] */
    TB_W_DOWN,                     /* [hidden][intermediate] */
    TB_ATTN_NORM,                  /* [hidden] */
    TB_MLP_NORM,                   /* [hidden] */
    TB_N_WEIGHTS
};
/* "wq", "wk", "wv", "wo", "w_gate", "w_up", "w_down", "attn_norm", "mlp_norm" */
extern const char *const transformer_block_weight_names[TB_N_WEIGHTS];

/* Working buffers of a step, all fp32 but the attention scratch. */
enum {
    TB_BUF_RESIDUAL,               /* [tokens][hidden] h, the residual stream; bf16 only:
                                    * with fp32 the block accumulates in y itself */
    TB_BUF_NORM,                   /* [tokens][hidden] RMSNorm output, both norms */
    TB_BUF_Q,                      /* [tokens][heads][D] */
    TB_BUF_K,                      /* [tokens][kv_heads][D] */
    TB_BUF_V,                      /* [tokens][kv_heads][D] */
    TB_BUF_ATTN,                   /* [tokens][heads][D] attention output */
    TB_BUF_GATE,                   /* [tokens][intermediate]; SwiGLU's result overwrites it */
    TB_BUF_UP,                     /* [tokens][intermediate] */
    TB_BUF_ROPE,                   /* [seq][D/2] cos, then [seq][D/2] sin: transformer_block_rope_table */
    TB_BUF_ATTN_SCRATCH,           /* attention_workspace_bytes(), for `threads` threads */
    TB_N_BUFS
};
/* "residual", "norm_out", "q", "k", "v", "attn_out", "gate", "up", "rope_table", "attention_scratch" */
extern const char *const transformer_block_buf_names[TB_N_BUFS];

/* Sizes of everything a block needs; 0 bytes means "not needed, pass NULL". */
typedef struct transformer_block_sizes {
    size_t tokens;                 /* batch * seq */
    size_t head_dim;
    size_t weight_elems[TB_N_WEIGHTS];
    size_t x_bytes;                /* x and y, each, in the block's dtype */
    size_t buf_bytes[TB_N_BUFS];
    double gemm_params;            /* weights that go through a GEMM (all but the norms) */
} transformer_block_sizes;

/* Region callbacks, so the kernel stays free of harness types: each
 * sub-operation of a step is bracketed by push(name) and pop(). NULL: none. */
typedef struct transformer_block_regions {
    void (*push)(void *user, const char *name);
    void (*pop)(void *user);
    void *user;
} transformer_block_regions;

/* In step order: "attn_norm", "qkv_proj", "rope", "attention", "out_proj",
 * "mlp_norm", "gate_up_proj", "swiglu", "down_proj"; never nested. attn_norm
 * also loads x into the residual stream (a copy, or the bf16 -> fp32
 * conversion) and down_proj also rounds it into y when y is bf16. */
#define TB_N_REGIONS 9
extern const char *const transformer_block_region_names[TB_N_REGIONS];

typedef struct transformer_block {
    transformer_block_shape shape;
    transformer_block_dtype dtype; /* of x and y */
    const float *w[TB_N_WEIGHTS];  /* fp32, layouts above */
    const void *x;                 /* [tokens][hidden], dtype */
    void *y;                       /* [tokens][hidden], dtype; must not overlap x */
    void *buf[TB_N_BUFS];          /* transformer_block_sizes().buf_bytes each, 64-byte aligned */
    transformer_block_regions regions;
    /* Tensor parallelism as Megatron-LM splits a block (tp_size > 1): this
     * rank computes heads / tp_size query heads (kv_heads / tp_size kv
     * heads) and intermediate / tp_size MLP columns. w[] then holds this
     * rank's slices (transformer_block_tp_slice): Wq, Wk, Wv, Wgate, Wup
     * their rows (column-parallel), Wo and Wdown their columns
     * (row-parallel), the norms whole. The two row-parallel projections give
     * partial sums that all_reduce adds up over the ranks, once after
     * attention and once after the MLP; rank 0 alone carries the residual
     * into them. tp_size 0 or 1: the whole block, all_reduce unused. */
    int tp_rank, tp_size;
    int (*all_reduce)(void *user, float *buf, size_t n); /* in place, sum; 0 or nonzero */
    void *comm_user;
    /* bf16 on the dot unit (dtype bf16, tp_size <= 1): the GEMM weights
     * packed by transformer_block_bf16_pack, and scratch of
     * transformer_block_bf16_scratch_bytes (64-byte aligned). wp[TB_WQ]
     * NULL: the fp32 step (w[] then holds every weight in fp32; with wp,
     * w[] needs only the two norms'). */
    const uint16_t *wp[TB_N_WEIGHTS];
    void *scratch16;
} transformer_block;

/* Rank tp_rank's slice of the whole weight `which` (elements of `elem`
 * bytes: fp32 or bf16) into dst (the layouts above, with heads, kv_heads
 * and intermediate divided by tp_size); elements:
 * transformer_block_tp_slice_elems. Both devices' blocks use it. */
size_t transformer_block_tp_slice_elems(const transformer_block_shape *s, int which, int tp_size);
void transformer_block_tp_slice(const transformer_block_shape *s, int which, int tp_rank, int tp_size,
                                size_t elem, const void *whole_weight, void *dst_slice);

/* Checks a shape; on failure returns -1 and writes a message that starts with
 * the offending parameter's name (batch_size, seq_len, hidden_size, num_heads,
 * num_kv_heads, intermediate_size, rope_theta, eps). */
int transformer_block_check_shape(const transformer_block_shape *s, char *msg, size_t msg_size);

/* Fills *out for a valid shape, with attention scratch for `threads` OpenMP
 * threads (the most any step will run with). Returns -1 with a message when a
 * size overflows size_t. */
int transformer_block_sizes_of(const transformer_block_shape *s, transformer_block_dtype dtype, int threads,
                               transformer_block_sizes *out, char *msg, size_t msg_size);

/* Writes the RoPE cos/sin table (TB_BUF_ROPE) for a shape; once, at setup. */
void transformer_block_rope_table(const transformer_block_shape *s, float *table);

/* Applies RoPE in place to t = [batch][seq][n_heads][D] with a table from
 * transformer_block_rope_table. */
void transformer_block_rope(const transformer_block_shape *s, const float *table, float *t, size_t n_heads);

/* Holds OpenBLAS to one thread: the block splits each GEMM across OpenMP
 * threads itself, one single-threaded sgemm per thread (see
 * transformer_block_cpu.c for why). Process-wide; call it at setup, outside
 * a parallel region, before the first step. */
void transformer_block_blas_setup(void);

/* One forward step: y from x. Buffers and weights as described above; the
 * rope table must have been written. */
/* 0, or the all_reduce callback's nonzero result (tensor parallelism). */
int transformer_block_forward(const transformer_block *b);

/* ---- bf16 on AVX-512 BF16 (transformer_block_bf16.c) --------------------- */

/* Which step a bf16 block takes, from the ISA asked for (HARNESS_CPU_ISA's
 * value; NULL, "" or "auto": the best this CPU has): 1 the bf16 units
 * ("amx": the GEMMs on AMX tiles, linear_bf16_amx.c; "avx512_bf16": on
 * vdpbf16ps), 0 the fp32 step (any other name: "avx512", "avx2",
 * "portable"), -1 when a unit is asked for that this CPU (or, for AMX,
 * Linux) does not offer. *path: "amx", "avx512_bf16" or "fp32" (NULL on
 * -1); *why: a sentence for the log and the summary. The caller sets
 * linear_bf16_set_amx to match. */
int transformer_block_bf16_choose(const char *isa, const char **path, const char **why);

/* Elements of weight `which`'s packed form (0 for the norms), and the packing. */
size_t transformer_block_bf16_packed_elems(const transformer_block_shape *s, int which);
void transformer_block_bf16_pack(const transformer_block_shape *s, int which, const uint16_t *w, uint16_t *dst);
size_t transformer_block_bf16_scratch_bytes(const transformer_block_shape *s);

/* The step on the dot unit; transformer_block_forward calls it when wp is set. */
int transformer_block_forward_bf16_dot(const transformer_block *b);

/* The dot path stores every activation in bf16 on its way into a GEMM or
 * attention, as transformer_block/cuda does, so its bound is that block's
 * (plugins/transformer_block_cuda.c, BF16_ACTIVATIONS_ATOL, derived and
 * measured there: about a dozen roundings of 2^-9 relative, each reaching y
 * at ~2^-9 rms(row), smallest passing ATOL 8 x 2^-9, doubled to 2^-5 by the
 * project's bf16 policy): rtol = fp32 tol + 2^-8, atol = fp32 tol + this. */
#define TB_BF16_ACTIVATIONS_ATOL 0x1p-5
double transformer_block_bf16_tol_atol(const transformer_block_shape *s);

/* gate[i] = SiLU(gate[i]) * up[i], SiLU(g) = g / (1 + e^-g), within ~2e-7
 * relative of the exact value for finite gate (the step's swiglu). */
void transformer_block_swiglu(float *gate, const float *up, size_t n);

/* bf16 -> fp32, OpenMP-parallel (weights at setup). */
void transformer_block_bf16_to_f32(const uint16_t *src, float *dst, size_t n);

/* FLOPs of one step: 2 per multiply-add of the six projections plus the
 * attention kernel's count (attention_flops); RMSNorm, RoPE, SwiGLU and the
 * residual adds (O(tokens * (hidden + intermediate))) are left out. */
double transformer_block_flops(const transformer_block_shape *s);

/* ---- reference and checker (transformer_block_ref.c) --------------------- */

/* The block in double precision with naive loops, for the tokens listed in
 * `rows` (indices into [batch * seq]); y_ref: n_rows x hidden. It computes K
 * and V for every token of the sequences involved, so attention is exact for
 * each listed token. x and the weights are read as stored: bf16 (uint16_t)
 * when `bf16`, else float. Shares no code with the kernels. Returns -1 when
 * its scratch cannot be allocated. */
int transformer_block_ref(const transformer_block_shape *s, int bf16, const void *x,
                          const void *const w[TB_N_WEIGHTS], const size_t *rows, size_t n_rows,
                          double *y_ref);

typedef struct transformer_block_check_result {
    COMPONENT_CHECK_FIELDS
    size_t rows_checked, rows_total;
} transformer_block_check_result;

/* Compares y (dtype) with the reference computed from x and the stored
 * weights (bf16 when dtype is bf16). When checking every token would cost the
 * reference more than max_ref_flops, it checks an evenly spread subset plus
 * the last token of each sequence (attention stays exact for those: see
 * transformer_block_ref). Returns 0 with *out filled, whatever the verdict, or
 * -1 (out->detail says why) when out of memory. */
int transformer_block_check(const transformer_block_shape *s, transformer_block_dtype dtype, const void *x,
                            const void *const w[TB_N_WEIGHTS], const void *y, double max_ref_flops,
                            transformer_block_check_result *out);

/* The fp32 path's bound above, 64 sqrt(K) 2^-24 with K the longest dot
 * product (max of hidden, intermediate, seq): transformer_block_check's atol,
 * and its rtol less the bf16 rounding of y. */
double transformer_block_fp32_tol(const transformer_block_shape *s);

/* transformer_block_check with the caller's tolerance: |y_i - ref_i| <=
 * rtol |ref_i| + atol rms(ref row), for a block whose arithmetic differs from
 * the CPU's (transformer_block/cuda keeps its activations in bf16). */
int transformer_block_check_tol(const transformer_block_shape *s, transformer_block_dtype dtype, const void *x,
                                const void *const w[TB_N_WEIGHTS], const void *y, double max_ref_flops, double rtol,
                                double atol, transformer_block_check_result *out);

#endif
