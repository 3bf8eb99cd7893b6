/* transformer_block_gpu.c - the Llama block's forward step on an NVIDIA GPU
 * (transformer_block_gpu.h): the order of launches and what each is given.
 * No kernel lives here; every launch is another component's or cuBLASLt's. */
#include "transformer_block_gpu.h"
#include "transformer_block_cuda.h"
#include "rms_norm/rms_norm_cuda.h"

#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

const char *const transformer_block_gpu_buf_names[TB_GPU_N_BUFS] = {
    "residual", "norm_out", "q", "k", "v", "attn_out", "qkv_gate_up", "rope_table",
};

int transformer_block_gpu_fused_after(int i)
{
    return i == TB_WK ? TB_WQ : i == TB_WV ? TB_WK : i == TB_W_UP ? TB_W_GATE : -1;
}

/* a * b * c bytes, or SIZE_MAX on overflow. */
static size_t bytes3(size_t a, size_t b, size_t c)
{
    size_t r;
    if (__builtin_mul_overflow(a, b, &r) || __builtin_mul_overflow(r, c, &r))
        return SIZE_MAX;
    return r;
}

/* One rank's share of the block: of tp_size (0 or 1: the whole block). */
typedef struct rank_dims {
    size_t head_dim, heads, kv_heads, q_cols, kv_cols, inter;
} rank_dims;

static rank_dims rank_dims_of(const transformer_block_shape *s, int tp_size)
{
    size_t n = tp_size > 1 ? (size_t)tp_size : 1, d = s->hidden / s->heads;
    return (rank_dims){d, s->heads / n, s->kv_heads / n, s->heads / n * d, s->kv_heads / n * d,
                       s->intermediate / n};
}

int transformer_block_gpu_sizes_of(const transformer_block_shape *s, int bf16, int tp_size,
                                   transformer_block_gpu_sizes *out, char *msg, size_t msg_size)
{
    rank_dims r = rank_dims_of(s, tp_size);
    size_t d = r.head_dim, q = r.q_cols, kv = r.kv_cols, t = s->batch * s->seq, hid = s->hidden;
    size_t inter = r.inter, e = bf16 ? 2 : 4, qkv = q + 2 * kv, proj = qkv > 2 * inter ? qkv : 2 * inter;
    memset(out, 0, sizeof *out);
    out->tokens = t, out->head_dim = d, out->elem = e;
    const size_t w[TB_N_WEIGHTS][2] = {
        [TB_WQ] = {q, hid},         [TB_WK] = {kv, hid},        [TB_WV] = {kv, hid},
        [TB_WO] = {hid, q},         [TB_W_GATE] = {inter, hid}, [TB_W_UP] = {inter, hid},
        [TB_W_DOWN] = {hid, inter}, [TB_ATTN_NORM] = {1, hid},  [TB_MLP_NORM] = {1, hid},
    };
    for (int i = 0; i < TB_N_WEIGHTS; i++)
        out->weight_bytes[i] = bytes3(w[i][0], w[i][1], e);
    out->x_bytes = bytes3(t, hid, e);
    const size_t b[TB_GPU_N_BUFS][2] = {
        [TB_GPU_RESIDUAL] = {t, hid}, [TB_GPU_NORM] = {t, hid},  [TB_GPU_Q] = {t, q},
        [TB_GPU_K] = {t, kv},         [TB_GPU_V] = {t, kv},      [TB_GPU_ATTN] = {t, q},
        [TB_GPU_PROJ] = {t, proj},
    };
    for (int i = 0; i < TB_GPU_ROPE; i++)
        out->buf_bytes[i] = bytes3(b[i][0], b[i][1], e);
    out->buf_bytes[TB_GPU_ROPE] = bytes3(s->seq, d, sizeof(float));
    /* The sum saturates: any SIZE_MAX term, or an overflowing sum, gives SIZE_MAX. */
    size_t total = TB_GPU_WORKSPACE_BYTES, terms[2 + TB_N_WEIGHTS + TB_GPU_N_BUFS];
    int n = 0;
    terms[n++] = out->x_bytes, terms[n++] = out->x_bytes;
    for (int i = 0; i < TB_N_WEIGHTS; i++)
        terms[n++] = out->weight_bytes[i];
    for (int i = 0; i < TB_GPU_N_BUFS; i++)
        terms[n++] = out->buf_bytes[i];
    for (int i = 0; i < n; i++)
        if (terms[i] == SIZE_MAX || __builtin_add_overflow(total, terms[i], &total)) {
            snprintf(msg, msg_size, "batch_size x seq_len x hidden_size (%zu x %zu x %zu) or intermediate_size "
                     "(%zu) gives device buffers larger than size_t can count; choose smaller sizes",
                     s->batch, s->seq, hid, inter);
            return -1;
        }
    out->total = total;
    return 0;
}

/* Attention over this rank's heads. */
static attention_shape attention_shape_of(const transformer_block_shape *s, int tp_size)
{
    rank_dims r = rank_dims_of(s, tp_size);
    return (attention_shape){s->batch, r.heads, r.kv_heads, s->seq, s->seq, r.head_dim, s->causal,
                             (float)(1.0 / sqrt((double)r.head_dim))};
}

int transformer_block_gpu_check_shape(const transformer_block_shape *s, int bf16, int tp_size, char *msg,
                                      size_t msg_size)
{
    attention_shape as = attention_shape_of(s, tp_size);
    attention_cuda_geometry g;
    if (attention_cuda_plan(&as, bf16 ? ATTENTION_CUDA_BF16 : ATTENTION_CUDA_F32, NULL, NULL, NULL, NULL, &g) != 0) {
        snprintf(msg, msg_size, "batch_size (%zu) and num_heads (%zu) must be at most 65535 for attention/cuda's "
                 "grid", s->batch, s->heads);
        return -1;
    }
    return 0;
}

int transformer_block_gpu_prepare(transformer_block_gpu *b, char *why, size_t why_size)
{
    const transformer_block_shape *s = &b->shape;
    rank_dims r = rank_dims_of(s, b->tp_size);
    size_t t = s->batch * s->seq, hid = s->hidden;
    if (b->tp_size > 1 && !b->all_reduce) {
        snprintf(why, why_size, "tensor parallelism over %d ranks without an all-reduce", b->tp_size);
        return -1;
    }
    /* The fused GEMMs read [Wq; Wk; Wv] and [Wgate; Wup] as one matrix each. */
    size_t elem = b->bf16 ? 2 : 4;
    const size_t rows[TB_N_WEIGHTS] = {[TB_WQ] = r.q_cols, [TB_WK] = r.kv_cols, [TB_W_GATE] = r.inter};
    for (int i = 0; i < TB_N_WEIGHTS; i++) {
        int prev = transformer_block_gpu_fused_after(i);
        if (prev >= 0 && (const char *)b->w[i] != (const char *)b->w[prev] + rows[prev] * hid * elem) {
            snprintf(why, why_size, "weight %s is not stored right after %s: the fused projections read them as "
                     "one matrix", transformer_block_weight_names[i], transformer_block_weight_names[prev]);
            return -1;
        }
    }
    if (linear_cublaslt_open(&b->gemm, b->bf16, b->workspace, TB_GPU_WORKSPACE_BYTES, why, why_size) != 0)
        return -1;
    /* linear_cublaslt_plan asks the heuristic once per distinct shape (the
     * fused QKV and gate/up GEMMs can agree); down reads SwiGLU's result in
     * place, rows 2 x intermediate apart. */
    if ((b->plan_qkv = linear_cublaslt_plan(b->gemm, t, r.q_cols + 2 * r.kv_cols, hid, why, why_size)) < 0 ||
        (b->plan_o = linear_cublaslt_plan(b->gemm, t, hid, r.q_cols, why, why_size)) < 0 ||
        (b->plan_gate_up = linear_cublaslt_plan(b->gemm, t, 2 * r.inter, hid, why, why_size)) < 0 ||
        (b->plan_down = linear_cublaslt_plan_strided(b->gemm, t, hid, r.inter, 2 * r.inter, why, why_size)) < 0) {
        transformer_block_gpu_release(b);
        return -1;
    }
    attention_shape as = attention_shape_of(s, b->tp_size);
    if (attention_cuda_env_check(why, why_size) != 0) {
        transformer_block_gpu_release(b);
        return -1;
    }
    if (attention_cuda_plan_arch(&as, b->bf16 ? ATTENTION_CUDA_BF16 : ATTENTION_CUDA_F32, b->compute_capability,
                                 b->buf[TB_GPU_Q], b->buf[TB_GPU_K], b->buf[TB_GPU_V], b->buf[TB_GPU_ATTN],
                                 &b->attention) != 0) {
        snprintf(why, why_size, "attention/cuda has no kernel for batch %zu, heads %zu/%zu, seq %zu, head_dim %zu",
                 s->batch, r.heads, r.kv_heads, s->seq, r.head_dim);
        transformer_block_gpu_release(b);
        return -1;
    }
    return 0;
}

void transformer_block_gpu_release(transformer_block_gpu *b)
{
    linear_cublaslt_close(b->gemm);
    b->gemm = NULL;
}

const char *transformer_block_gpu_attention_kernel(const transformer_block_gpu *b)
{
    return attention_cuda_kernel_name(b->attention.kernel);
}

/* ---- the step -------------------------------------------------------------- */

static void push(const transformer_block_gpu *b, int region)
{
    if (b->regions.push)
        b->regions.push(b->regions.user, transformer_block_region_names[region]);
}

static void pop(const transformer_block_gpu *b)
{
    if (b->regions.pop)
        b->regions.pop(b->regions.user);
}

/* A kernel launcher's return code as a message: 0 passes. */
static int launched(int rc, const char *what, char *why, size_t why_size)
{
    if (rc == 0)
        return 0;
    if (rc == -1)
        snprintf(why, why_size, "%s: the kernel refused its arguments", what);
    else
        snprintf(why, why_size, "%s: kernel launch failed (cudaError_t %d)", what, rc);
    return -1;
}

/* The sub-operations in step order; each returns 0 or -1 with why filled. */
static int attn_norm(const transformer_block_gpu *b, void *stream, char *why, size_t n)
{
    const transformer_block_shape *s = &b->shape;
    return launched(rms_norm_cuda(b->bf16 ? RMS_NORM_BF16 : RMS_NORM_F32, b->x, b->w[TB_ATTN_NORM],
                                  b->buf[TB_GPU_NORM], s->batch * s->seq, s->hidden, s->eps, stream),
                    "attn_norm", why, n);
}

/* qkv = n [Wq; Wk; Wv]^T: one GEMM, w[TB_WQ] the fused weights' start. */
static int qkv_proj(const transformer_block_gpu *b, void *stream, char *why, size_t n)
{
    return linear_cublaslt_run(b->gemm, b->plan_qkv, b->buf[TB_GPU_NORM], b->w[TB_WQ], NULL, b->buf[TB_GPU_PROJ],
                               stream, why, n);
}

/* q, k, v out of qkv's rows for attention, q and k rotated. */
static int rope(const transformer_block_gpu *b, void *stream, char *why, size_t n)
{
    const transformer_block_shape *s = &b->shape;
    rank_dims r = rank_dims_of(s, b->tp_size);
    return launched(transformer_block_rope_split_cuda(b->bf16 ? TB_CUDA_BF16 : TB_CUDA_F32, b->buf[TB_GPU_PROJ],
                                                      b->buf[TB_GPU_Q], b->buf[TB_GPU_K], b->buf[TB_GPU_V],
                                                      b->buf[TB_GPU_ROPE], s->batch, s->seq, r.heads, r.kv_heads,
                                                      r.head_dim, stream),
                    "rope", why, n);
}

static int attention(const transformer_block_gpu *b, void *stream, char *why, size_t n)
{
    attention_shape as = attention_shape_of(&b->shape, b->tp_size);
    int rc = attention_cuda_launch(&b->attention, &as, b->bf16 ? ATTENTION_CUDA_BF16 : ATTENTION_CUDA_F32,
                                   b->buf[TB_GPU_Q], b->buf[TB_GPU_K], b->buf[TB_GPU_V], b->buf[TB_GPU_ATTN], stream);
    if (rc == ATTENTION_CUDA_ENOHOPPER) {
        snprintf(why, n, "attention: " ATTENTION_CUDA_ENOHOPPER_WHY);
        return -1;
    }
    return launched(rc, "attention", why, n);
}

/* Tensor parallelism: the partial sums in buf (tokens x hidden) of every
 * rank added up, in place. */
static int sum_over_ranks(const transformer_block_gpu *b, void *buf, const char *what, char *why, size_t n)
{
    size_t elems = b->shape.batch * b->shape.seq * b->shape.hidden;
    if (b->tp_size <= 1 || b->all_reduce(b->comm_user, buf, elems, b->bf16) == 0)
        return 0;
    snprintf(why, n, "%s: the all-reduce over the %d tensor-parallel ranks failed", what, b->tp_size);
    return -1;
}

/* The residual a rank adds into its partial sum: rank 0 alone, so that the
 * all-reduce counts it once. */
static const void *residual_of(const transformer_block_gpu *b, const void *residual)
{
    return b->tp_size > 1 && b->tp_rank != 0 ? NULL : residual;
}

/* h = x + attn Wo^T: the residual is the GEMM's C. */
static int out_proj(const transformer_block_gpu *b, void *stream, char *why, size_t n)
{
    if (linear_cublaslt_run(b->gemm, b->plan_o, b->buf[TB_GPU_ATTN], b->w[TB_WO], residual_of(b, b->x),
                            b->buf[TB_GPU_RESIDUAL], stream, why, n) != 0)
        return -1;
    return sum_over_ranks(b, b->buf[TB_GPU_RESIDUAL], "out_proj", why, n);
}

static int mlp_norm(const transformer_block_gpu *b, void *stream, char *why, size_t n)
{
    const transformer_block_shape *s = &b->shape;
    return launched(rms_norm_cuda(b->bf16 ? RMS_NORM_BF16 : RMS_NORM_F32, b->buf[TB_GPU_RESIDUAL],
                                  b->w[TB_MLP_NORM], b->buf[TB_GPU_NORM], s->batch * s->seq, s->hidden, s->eps,
                                  stream),
                    "mlp_norm", why, n);
}

/* gu = n [Wgate; Wup]^T: one GEMM, w[TB_W_GATE] the fused weights' start. */
static int gate_up_proj(const transformer_block_gpu *b, void *stream, char *why, size_t n)
{
    return linear_cublaslt_run(b->gemm, b->plan_gate_up, b->buf[TB_GPU_NORM], b->w[TB_W_GATE], NULL,
                               b->buf[TB_GPU_PROJ], stream, why, n);
}

static int swiglu(const transformer_block_gpu *b, void *stream, char *why, size_t n)
{
    const transformer_block_shape *s = &b->shape;
    size_t inter = rank_dims_of(s, b->tp_size).inter;
    return launched(transformer_block_swiglu_cuda(b->bf16 ? TB_CUDA_BF16 : TB_CUDA_F32, b->buf[TB_GPU_PROJ],
                                                  s->batch * s->seq, inter, stream),
                    "swiglu", why, n);
}

/* y = h + act Wdown^T, act the gate half of gu's rows (plan_down's leading
 * dimension): the residual is the GEMM's C. */
static int down_proj(const transformer_block_gpu *b, void *stream, char *why, size_t n)
{
    if (linear_cublaslt_run(b->gemm, b->plan_down, b->buf[TB_GPU_PROJ], b->w[TB_W_DOWN],
                            residual_of(b, b->buf[TB_GPU_RESIDUAL]), b->y, stream, why, n) != 0)
        return -1;
    return sum_over_ranks(b, b->y, "down_proj", why, n);
}

int transformer_block_gpu_forward(const transformer_block_gpu *b, void *stream, char *why, size_t why_size)
{
    /* In transformer_block_region_names' order. */
    int (*const ops[TB_N_REGIONS])(const transformer_block_gpu *, void *, char *, size_t) = {
        attn_norm, qkv_proj, rope, attention, out_proj, mlp_norm, gate_up_proj, swiglu, down_proj,
    };
    for (int r = 0; r < TB_N_REGIONS; r++) {
        push(b, r);
        int rc = ops[r](b, stream, why, why_size);
        pop(b);
        if (rc != 0)
            return -1;
    }
    return 0;
}
