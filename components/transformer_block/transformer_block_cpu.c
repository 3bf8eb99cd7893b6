/* transformer_block_cpu.c - the Llama decoder block's forward step on the CPU.
 *
 * The six projections are cblas_sgemm calls (row-major T · W^T, W stored
 * [out][in]); the residual adds ride on them with beta = 1, so h and y are
 * accumulated in place and never take a separate pass. RMSNorm and attention
 * are the shared kernels; RoPE (rope.c), SwiGLU and the dtype conversions are
 * OpenMP loops.
 *
 * Threads: one pool, OpenMP's. Debian's OpenBLAS is the pthread build, with
 * a thread pool of its own; alternating its GEMMs with OpenMP regions left
 * each pool's idle threads spinning (libgomp's spin-wait, OpenBLAS's
 * sched_yield loop) on the cores the other pool needed: on 2 cores the GEMMs
 * ran 2-2.5x and the elementwise steps up to 50x slower than with either pool
 * asleep. So OpenBLAS is held to one thread (transformer_block_blas_setup)
 * and the OpenMP threads split each GEMM among themselves (linear()). */
#include "transformer_block.h"
#include "attention/attention.h"
#include "common/bf16.h"
#include "rms_norm/rms_norm.h"

#include <cblas.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

void transformer_block_blas_setup(void)
{
    openblas_set_num_threads(1);
}

/* ---- the step -------------------------------------------------------------- */

static void f32_to_bf16_all(const float *src, uint16_t *dst, size_t n)
{
#pragma omp parallel for simd schedule(static)
    for (size_t i = 0; i < n; i++)
        dst[i] = f32_to_bf16(src[i]);
}

static void copy_f32(const float *src, float *dst, size_t n)
{
#pragma omp parallel for simd schedule(static)
    for (size_t i = 0; i < n; i++)
        dst[i] = src[i];
}

/* c[t][o] = beta * c[t][o] + sum_i a[t][i] * w[o][i]: a linear layer over
 * `tokens` rows; beta = 1 adds it to what c holds (the residual). Each OpenMP
 * thread runs one single-threaded sgemm on its own block of output columns,
 * i.e. of weight rows: every weight is packed once, by the thread that uses
 * it, and only the activations (the smaller operand here) are packed by each
 * thread. Blocks are multiples of 16 columns: whole AVX-512 vectors and, when
 * `out` is a multiple of 16, whole cache lines of c, so that no two threads
 * write one line. */
static void linear(size_t tokens, size_t out, size_t in, const float *a, const float *w, float beta, float *c)
{
#pragma omp parallel
    {
        size_t nt = (size_t)omp_get_num_threads(), t = (size_t)omp_get_thread_num();
        size_t chunk = ((out + nt - 1) / nt + 15) / 16 * 16;
        size_t o0 = t * chunk < out ? t * chunk : out, o1 = o0 + chunk < out ? o0 + chunk : out;
        if (o1 > o0)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)tokens, (int)(o1 - o0), (int)in, 1.0f,
                        a, (int)in, w + o0 * in, (int)in, beta, c + o0, (int)out);
    }
}

static void push(const transformer_block *b, int region)
{
    if (b->regions.push)
        b->regions.push(b->regions.user, transformer_block_region_names[region]);
}

static void pop(const transformer_block *b)
{
    if (b->regions.pop)
        b->regions.pop(b->regions.user);
}

/* Tensor parallelism: each rank's share of the heads and MLP columns. */
static size_t tp_of(const transformer_block *b)
{
    return b->tp_size > 1 ? (size_t)b->tp_size : 1;
}

/* The partial sums of a row-parallel projection, added up over the ranks
 * into h: every rank but 0 starts from zero, so the residual that h holds
 * on entry counts once. */
static void tp_zero_residual(const transformer_block *b, float *h, size_t n)
{
    if (tp_of(b) > 1 && b->tp_rank != 0)
        memset(h, 0, n * sizeof *h);
}

static int tp_sum(const transformer_block *b, float *h, size_t n)
{
    return tp_of(b) > 1 ? b->all_reduce(b->comm_user, h, n) : 0;
}

int transformer_block_forward(const transformer_block *b)
{
    const transformer_block_shape *s = &b->shape;
    size_t tp = tp_of(b), heads = s->heads / tp, kv_heads = s->kv_heads / tp;
    size_t t = s->batch * s->seq, hid = s->hidden, d = hid / s->heads, qw = heads * d, kv = kv_heads * d;
    size_t inter = s->intermediate / tp, n = t * hid;
    float *h = b->dtype == TB_BF16 ? b->buf[TB_BUF_RESIDUAL] : b->y;
    float *norm = b->buf[TB_BUF_NORM], *q = b->buf[TB_BUF_Q], *k = b->buf[TB_BUF_K], *v = b->buf[TB_BUF_V];
    float *attn = b->buf[TB_BUF_ATTN], *gate = b->buf[TB_BUF_GATE], *up = b->buf[TB_BUF_UP];
    const float *const *w = b->w;
    int rc = 0;
    if (b->dtype == TB_BF16 && b->wp[TB_WQ])
        return transformer_block_forward_bf16_dot(b);

    push(b, 0);                                   /* attn_norm */
    if (b->dtype == TB_BF16)
        transformer_block_bf16_to_f32(b->x, h, n);
    else
        copy_f32(b->x, h, n);
    rms_norm_f32(h, w[TB_ATTN_NORM], norm, t, hid, s->eps);
    pop(b);

    push(b, 1);                                   /* qkv_proj */
    linear(t, qw, hid, norm, w[TB_WQ], 0.0f, q);
    linear(t, kv, hid, norm, w[TB_WK], 0.0f, k);
    linear(t, kv, hid, norm, w[TB_WV], 0.0f, v);
    pop(b);

    push(b, 2);                                   /* rope */
    transformer_block_rope(s, b->buf[TB_BUF_ROPE], q, heads);
    transformer_block_rope(s, b->buf[TB_BUF_ROPE], k, kv_heads);
    pop(b);

    push(b, 3);                                   /* attention */
    attention_shape as = {s->batch, heads, kv_heads, s->seq, s->seq, d, s->causal, (float)(1.0 / sqrt((double)d))};
    attention_f32(&as, q, k, v, attn, b->buf[TB_BUF_ATTN_SCRATCH]);
    pop(b);

    push(b, 4);                                   /* out_proj: h = x + Wo · attn */
    tp_zero_residual(b, h, n);
    linear(t, hid, qw, attn, w[TB_WO], 1.0f, h);
    rc = tp_sum(b, h, n);
    pop(b);
    if (rc != 0)
        return rc;

    push(b, 5);                                   /* mlp_norm */
    rms_norm_f32(h, w[TB_MLP_NORM], norm, t, hid, s->eps);
    pop(b);

    push(b, 6);                                   /* gate_up_proj */
    linear(t, inter, hid, norm, w[TB_W_GATE], 0.0f, gate);
    linear(t, inter, hid, norm, w[TB_W_UP], 0.0f, up);
    pop(b);

    push(b, 7);                                   /* swiglu */
    transformer_block_swiglu(gate, up, t * inter);
    pop(b);

    push(b, 8);                                   /* down_proj: y = h + Wdown · act */
    tp_zero_residual(b, h, n);
    linear(t, hid, inter, gate, w[TB_W_DOWN], 1.0f, h);
    rc = tp_sum(b, h, n);
    if (rc == 0 && b->dtype == TB_BF16)
        f32_to_bf16_all(h, b->y, n);
    pop(b);
    return rc;
}

