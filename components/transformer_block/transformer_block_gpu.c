/* transformer_block_gpu.c - the Llama block's forward step on an NVIDIA GPU
 * (transformer_block_gpu.h): the order of launches and what each is given.
 * No kernel lives here; every launch is another component's or cuBLASLt's. */
#include "transformer_block_gpu.h"
#include "transformer_block_cuda.h"
#include "rms_norm/rms_norm_cuda.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

const char *const transformer_block_gpu_buf_names[TB_GPU_N_BUFS] = {
    "residual", "norm_out", "q", "k", "v", "attn_out", "gate", "up", "rope_table",
};

/* a * b * c bytes, or SIZE_MAX on overflow. */
static size_t bytes3(size_t a, size_t b, size_t c)
{
    size_t r;
    if (__builtin_mul_overflow(a, b, &r) || __builtin_mul_overflow(r, c, &r))
        return SIZE_MAX;
    return r;
}

int transformer_block_gpu_sizes_of(const transformer_block_shape *s, int bf16, transformer_block_gpu_sizes *out,
                                   char *msg, size_t msg_size)
{
    size_t d = s->hidden / s->heads, kv = s->kv_heads * d, t = s->batch * s->seq, hid = s->hidden;
    size_t inter = s->intermediate, e = bf16 ? 2 : 4;
    memset(out, 0, sizeof *out);
    out->tokens = t, out->head_dim = d, out->elem = e;
    const size_t w[TB_N_WEIGHTS][2] = {
        [TB_WQ] = {hid, hid},       [TB_WK] = {kv, hid},        [TB_WV] = {kv, hid},
        [TB_WO] = {hid, hid},       [TB_W_GATE] = {inter, hid}, [TB_W_UP] = {inter, hid},
        [TB_W_DOWN] = {hid, inter}, [TB_ATTN_NORM] = {1, hid},  [TB_MLP_NORM] = {1, hid},
    };
    for (int i = 0; i < TB_N_WEIGHTS; i++)
        out->weight_bytes[i] = bytes3(w[i][0], w[i][1], e);
    out->x_bytes = bytes3(t, hid, e);
    const size_t b[TB_GPU_N_BUFS][2] = {
        [TB_GPU_RESIDUAL] = {t, hid}, [TB_GPU_NORM] = {t, hid},  [TB_GPU_Q] = {t, hid},
        [TB_GPU_K] = {t, kv},         [TB_GPU_V] = {t, kv},      [TB_GPU_ATTN] = {t, hid},
        [TB_GPU_GATE] = {t, inter},   [TB_GPU_UP] = {t, inter},
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

static attention_shape attention_shape_of(const transformer_block_shape *s)
{
    size_t d = s->hidden / s->heads;
    return (attention_shape){s->batch, s->heads, s->kv_heads, s->seq, s->seq, d, s->causal,
                             (float)(1.0 / sqrt((double)d))};
}

int transformer_block_gpu_check_shape(const transformer_block_shape *s, int bf16, char *msg, size_t msg_size)
{
    attention_shape as = attention_shape_of(s);
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
    size_t t = s->batch * s->seq, d = s->hidden / s->heads, kv = s->kv_heads * d;
    if (linear_cublaslt_open(&b->gemm, b->bf16, b->workspace, TB_GPU_WORKSPACE_BYTES, why, why_size) != 0)
        return -1;
    /* Wq and Wo are both hidden x hidden (heads x D = hidden), Wk and Wv
     * both kv x hidden, Wgate and Wup both intermediate x hidden: four
     * shapes, one heuristic query each. */
    if ((b->plan_q = linear_cublaslt_plan(b->gemm, t, s->hidden, s->hidden, why, why_size)) < 0 ||
        (b->plan_kv = linear_cublaslt_plan(b->gemm, t, kv, s->hidden, why, why_size)) < 0 ||
        (b->plan_gate_up = linear_cublaslt_plan(b->gemm, t, s->intermediate, s->hidden, why, why_size)) < 0 ||
        (b->plan_down = linear_cublaslt_plan(b->gemm, t, s->hidden, s->intermediate, why, why_size)) < 0) {
        transformer_block_gpu_release(b);
        return -1;
    }
    attention_shape as = attention_shape_of(s);
    if (attention_cuda_plan(&as, b->bf16 ? ATTENTION_CUDA_BF16 : ATTENTION_CUDA_F32, b->buf[TB_GPU_Q],
                            b->buf[TB_GPU_K], b->buf[TB_GPU_V], b->buf[TB_GPU_ATTN], &b->attention) != 0) {
        snprintf(why, why_size, "attention/cuda has no kernel for batch %zu, heads %zu/%zu, seq %zu, head_dim %zu",
                 s->batch, s->heads, s->kv_heads, s->seq, d);
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
    static const char *const names[] = {"tensor-core (mma.sync)", "SIMT fp32", "fallback (warp per row)"};
    return names[b->attention.kernel];
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

static int qkv_proj(const transformer_block_gpu *b, void *stream, char *why, size_t n)
{
    const void *norm = b->buf[TB_GPU_NORM];
    if (linear_cublaslt_run(b->gemm, b->plan_q, norm, b->w[TB_WQ], NULL, b->buf[TB_GPU_Q], stream, why, n) ||
        linear_cublaslt_run(b->gemm, b->plan_kv, norm, b->w[TB_WK], NULL, b->buf[TB_GPU_K], stream, why, n) ||
        linear_cublaslt_run(b->gemm, b->plan_kv, norm, b->w[TB_WV], NULL, b->buf[TB_GPU_V], stream, why, n))
        return -1;
    return 0;
}

static int rope(const transformer_block_gpu *b, void *stream, char *why, size_t n)
{
    const transformer_block_shape *s = &b->shape;
    return launched(transformer_block_rope_cuda(b->bf16 ? TB_CUDA_BF16 : TB_CUDA_F32, b->buf[TB_GPU_Q],
                                                b->buf[TB_GPU_K], b->buf[TB_GPU_ROPE], s->batch, s->seq,
                                                s->heads, s->kv_heads, s->hidden / s->heads, stream),
                    "rope", why, n);
}

static int attention(const transformer_block_gpu *b, void *stream, char *why, size_t n)
{
    attention_shape as = attention_shape_of(&b->shape);
    return launched(attention_cuda_launch(&b->attention, &as, b->bf16 ? ATTENTION_CUDA_BF16 : ATTENTION_CUDA_F32,
                                          b->buf[TB_GPU_Q], b->buf[TB_GPU_K], b->buf[TB_GPU_V],
                                          b->buf[TB_GPU_ATTN], stream),
                    "attention", why, n);
}

/* h = x + attn Wo^T: the residual is the GEMM's C. */
static int out_proj(const transformer_block_gpu *b, void *stream, char *why, size_t n)
{
    return linear_cublaslt_run(b->gemm, b->plan_q, b->buf[TB_GPU_ATTN], b->w[TB_WO], b->x, b->buf[TB_GPU_RESIDUAL],
                               stream, why, n);
}

static int mlp_norm(const transformer_block_gpu *b, void *stream, char *why, size_t n)
{
    const transformer_block_shape *s = &b->shape;
    return launched(rms_norm_cuda(b->bf16 ? RMS_NORM_BF16 : RMS_NORM_F32, b->buf[TB_GPU_RESIDUAL],
                                  b->w[TB_MLP_NORM], b->buf[TB_GPU_NORM], s->batch * s->seq, s->hidden, s->eps,
                                  stream),
                    "mlp_norm", why, n);
}

static int gate_up_proj(const transformer_block_gpu *b, void *stream, char *why, size_t n)
{
    const void *norm = b->buf[TB_GPU_NORM];
    if (linear_cublaslt_run(b->gemm, b->plan_gate_up, norm, b->w[TB_W_GATE], NULL, b->buf[TB_GPU_GATE], stream,
                            why, n) ||
        linear_cublaslt_run(b->gemm, b->plan_gate_up, norm, b->w[TB_W_UP], NULL, b->buf[TB_GPU_UP], stream, why,
                            n))
        return -1;
    return 0;
}

static int swiglu(const transformer_block_gpu *b, void *stream, char *why, size_t n)
{
    const transformer_block_shape *s = &b->shape;
    return launched(transformer_block_swiglu_cuda(b->bf16 ? TB_CUDA_BF16 : TB_CUDA_F32, b->buf[TB_GPU_GATE],
                                                  b->buf[TB_GPU_UP], s->batch * s->seq * s->intermediate, stream),
                    "swiglu", why, n);
}

/* y = h + act Wdown^T: the residual is the GEMM's C. */
static int down_proj(const transformer_block_gpu *b, void *stream, char *why, size_t n)
{
    return linear_cublaslt_run(b->gemm, b->plan_down, b->buf[TB_GPU_GATE], b->w[TB_W_DOWN],
                               b->buf[TB_GPU_RESIDUAL], b->y, stream, why, n);
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
