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

const char *const transformer_block_weight_names[TB_N_WEIGHTS] = {
    "wq", "wk", "wv", "wo", "w_gate", "w_up", "w_down", "attn_norm", "mlp_norm",
};

const char *const transformer_block_buf_names[TB_N_BUFS] = {
    "residual", "norm_out", "q", "k", "v", "attn_out", "gate", "up", "rope_table", "attention_scratch",
};

const char *const transformer_block_region_names[TB_N_REGIONS] = {
    "attn_norm", "qkv_proj", "rope", "attention", "out_proj", "mlp_norm", "gate_up_proj", "swiglu", "down_proj",
};

/* ---- shapes and sizes ------------------------------------------------------ */

int transformer_block_check_shape(const transformer_block_shape *s, char *msg, size_t msg_size)
{
    size_t tokens;
    if (s->batch == 0 || s->seq == 0 || s->hidden == 0 || s->heads == 0 || s->kv_heads == 0 ||
        s->intermediate == 0) {
        snprintf(msg, msg_size, "batch_size, seq_len, hidden_size, num_heads, num_kv_heads and "
                 "intermediate_size must all be at least 1");
        return -1;
    }
    if (s->hidden % s->heads != 0) {
        snprintf(msg, msg_size, "hidden_size (%zu) is not a multiple of num_heads (%zu): hidden_size must "
                 "equal num_heads x head_dim; choose a hidden_size divisible by num_heads",
                 s->hidden, s->heads);
        return -1;
    }
    if (s->heads % s->kv_heads != 0) {
        snprintf(msg, msg_size, "num_heads (%zu) is not a multiple of num_kv_heads (%zu): grouped-query "
                 "attention shares each kv head among num_heads / num_kv_heads query heads",
                 s->heads, s->kv_heads);
        return -1;
    }
    if ((s->hidden / s->heads) % 2 != 0) {
        snprintf(msg, msg_size, "hidden_size / num_heads = head_dim = %zu is odd: RoPE rotates pairs of "
                 "elements; choose hidden_size and num_heads with an even quotient",
                 s->hidden / s->heads);
        return -1;
    }
    if (!(s->rope_theta > 0.0) || !isfinite(s->rope_theta)) {
        snprintf(msg, msg_size, "rope_theta (%g) must be positive and finite", s->rope_theta);
        return -1;
    }
    if (!(s->eps > 0.0f) || !isfinite(s->eps)) {
        snprintf(msg, msg_size, "eps (%g) must be positive and finite", (double)s->eps);
        return -1;
    }
    /* cblas dimensions are int. */
    if (__builtin_mul_overflow(s->batch, s->seq, &tokens) || tokens > INT_MAX) {
        snprintf(msg, msg_size, "batch_size x seq_len (%zu x %zu) tokens exceed %d, the largest matrix "
                 "dimension cblas_sgemm takes", s->batch, s->seq, INT_MAX);
        return -1;
    }
    if (s->hidden > INT_MAX || s->intermediate > INT_MAX) {
        snprintf(msg, msg_size, "hidden_size (%zu) and intermediate_size (%zu) must not exceed %d, the "
                 "largest matrix dimension cblas_sgemm takes", s->hidden, s->intermediate, INT_MAX);
        return -1;
    }
    return 0;
}

/* a * b * c (elements) * elem_size bytes, or SIZE_MAX on overflow. */
static size_t bytes3(size_t a, size_t b, size_t c, size_t elem_size)
{
    size_t r;
    if (__builtin_mul_overflow(a, b, &r) || __builtin_mul_overflow(r, c, &r) ||
        __builtin_mul_overflow(r, elem_size, &r))
        return SIZE_MAX;
    return r;
}

int transformer_block_sizes_of(const transformer_block_shape *s, transformer_block_dtype dtype, int threads,
                               transformer_block_sizes *out, char *msg, size_t msg_size)
{
    size_t d = s->hidden / s->heads, kv = s->kv_heads * d, t = s->batch * s->seq, hid = s->hidden;
    size_t inter = s->intermediate, f = sizeof(float);
    memset(out, 0, sizeof *out);
    out->tokens = t;
    out->head_dim = d;

    const size_t w[TB_N_WEIGHTS][2] = {
        [TB_WQ] = {hid, hid},       [TB_WK] = {kv, hid},       [TB_WV] = {kv, hid},
        [TB_WO] = {hid, hid},       [TB_W_GATE] = {inter, hid}, [TB_W_UP] = {inter, hid},
        [TB_W_DOWN] = {hid, inter}, [TB_ATTN_NORM] = {1, hid},  [TB_MLP_NORM] = {1, hid},
    };
    int overflow = 0;
    for (int i = 0; i < TB_N_WEIGHTS; i++) {
        /* as bytes so that the fp32 copy of any weight fits too */
        overflow |= bytes3(w[i][0], w[i][1], 1, f) == SIZE_MAX;
        out->weight_elems[i] = w[i][0] * w[i][1];
        if (i != TB_ATTN_NORM && i != TB_MLP_NORM)
            out->gemm_params += (double)w[i][0] * (double)w[i][1];
    }
    out->x_bytes = bytes3(t, hid, 1, dtype == TB_BF16 ? sizeof(uint16_t) : f);
    out->buf_bytes[TB_BUF_RESIDUAL] = dtype == TB_BF16 ? bytes3(t, hid, 1, f) : 0;
    out->buf_bytes[TB_BUF_NORM] = bytes3(t, hid, 1, f);
    out->buf_bytes[TB_BUF_Q] = bytes3(t, hid, 1, f);
    out->buf_bytes[TB_BUF_K] = bytes3(t, kv, 1, f);
    out->buf_bytes[TB_BUF_V] = bytes3(t, kv, 1, f);
    out->buf_bytes[TB_BUF_ATTN] = bytes3(t, hid, 1, f);
    out->buf_bytes[TB_BUF_GATE] = bytes3(t, inter, 1, f);
    out->buf_bytes[TB_BUF_UP] = bytes3(t, inter, 1, f);
    out->buf_bytes[TB_BUF_ROPE] = bytes3(s->seq, d, 1, f); /* cos and sin, d/2 each */
    overflow |= out->x_bytes == SIZE_MAX;
    for (int i = 0; i < TB_BUF_ATTN_SCRATCH; i++)
        overflow |= out->buf_bytes[i] == SIZE_MAX;
    if (overflow) {
        snprintf(msg, msg_size, "batch_size x seq_len x hidden_size (%zu x %zu x %zu) or intermediate_size "
                 "(%zu) gives buffers larger than size_t can count; choose smaller sizes",
                 s->batch, s->seq, hid, inter);
        return -1;
    }
    attention_shape as = {s->batch, s->heads, s->kv_heads, s->seq, s->seq, d, s->causal, 1.0f};
    out->buf_bytes[TB_BUF_ATTN_SCRATCH] = attention_workspace_bytes(&as, threads > 0 ? threads : 1);
    return 0;
}

double transformer_block_flops(const transformer_block_shape *s)
{
    size_t d = s->hidden / s->heads;
    double hid = (double)s->hidden, kv = (double)(s->kv_heads * d), inter = (double)s->intermediate;
    double gemm_params = 2.0 * hid * hid + 2.0 * kv * hid + 3.0 * inter * hid;
    attention_shape as = {s->batch, s->heads, s->kv_heads, s->seq, s->seq, d, s->causal, 1.0f};
    return 2.0 * (double)s->batch * (double)s->seq * gemm_params + attention_flops(&as);
}

void transformer_block_blas_setup(void)
{
    openblas_set_num_threads(1);
}

/* ---- the step -------------------------------------------------------------- */

void transformer_block_bf16_to_f32(const uint16_t *src, float *dst, size_t n)
{
#pragma omp parallel for simd schedule(static)
    for (size_t i = 0; i < n; i++)
        dst[i] = bf16_to_f32(src[i]);
}

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

/* e^x to within 1.1e-7 relative (every float in [-87, 88] checked against
 * exp(): 1.03e-7 at most, 7.9e-8 with FMA), in plain arithmetic that the
 * compiler vectorizes, where a call to expf keeps the loop scalar: SwiGLU ran
 * 7x faster per core with it. x = n ln2 + r with |r| <= ln2/2 (ln2 split in
 * two so that n * hi is exact), e^r by its degree-7 Taylor polynomial
 * (truncation 5e-9 relative), 2^n put into the exponent bits. x is clamped to
 * [-87, 88] so that 2^n stays a normal float: for g <= -88, g / (1 + e^-g)
 * becomes g / 1.7e38 where it should be ~0, under 1e-8 for any |g| < 1e30;
 * and e^-87 = 1.6e-38 vanishes next to 1 as the true e^-g would. */
static inline float exp_approx(float x)
{
    x = x > -87.0f ? x : -87.0f;                   /* NaN too: SwiGLU's g keeps it NaN */
    x = x < 88.0f ? x : 88.0f;
    /* Adding and subtracting 1.5 x 2^23 rounds to the nearest integer. */
    float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
    float r = (x - n * 0.693359375f) - n * -2.12194440e-4f;
    float p = 1.0f / 5040.0f;
    p = p * r + 1.0f / 720.0f;
    p = p * r + 1.0f / 120.0f;
    p = p * r + 1.0f / 24.0f;
    p = p * r + 1.0f / 6.0f;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    uint32_t bits = (uint32_t)((int32_t)n + 127) << 23;    /* n in [-126, 127] */
    float two_n;
    memcpy(&two_n, &bits, sizeof two_n);
    return p * two_n;
}

/* g = SiLU(g) * u = g / (1 + e^-g) * u. On x86-64, cloned for AVX-512,
 * AVX2 + FMA and the baseline; the loader picks the best this CPU runs. */
#if defined(__x86_64__)
#define SWIGLU_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define SWIGLU_CLONES
#endif

SWIGLU_CLONES
void transformer_block_swiglu(float *gate, const float *up, size_t n)
{
#pragma omp parallel for simd schedule(static)
    for (size_t i = 0; i < n; i++)
        gate[i] = gate[i] / (1.0f + exp_approx(-gate[i])) * up[i];
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

/* ---- tensor-parallel slices ------------------------------------------------ */

/* Weight `which` as [rows][cols] of the whole block, and how it splits:
 * by rows (column-parallel), by columns (row-parallel), or not at all. */
typedef enum { TP_WHOLE, TP_ROWS, TP_COLS } tp_split;

static tp_split split_of(const transformer_block_shape *s, int which, size_t *rows, size_t *cols)
{
    size_t d = s->hidden / s->heads, hid = s->hidden;
    switch (which) {
    case TB_WQ: *rows = s->heads * d, *cols = hid; return TP_ROWS;
    case TB_WK: case TB_WV: *rows = s->kv_heads * d, *cols = hid; return TP_ROWS;
    case TB_W_GATE: case TB_W_UP: *rows = s->intermediate, *cols = hid; return TP_ROWS;
    case TB_WO: *rows = hid, *cols = s->heads * d; return TP_COLS;
    case TB_W_DOWN: *rows = hid, *cols = s->intermediate; return TP_COLS;
    default: *rows = 1, *cols = hid; return TP_WHOLE;
    }
}

size_t transformer_block_tp_slice_elems(const transformer_block_shape *s, int which, int tp_size)
{
    size_t rows, cols;
    tp_split how = split_of(s, which, &rows, &cols);
    return how == TP_WHOLE ? rows * cols : rows * cols / (size_t)tp_size;
}

void transformer_block_tp_slice(const transformer_block_shape *s, int which, int tp_rank, int tp_size,
                                const float *whole, float *dst)
{
    size_t rows, cols, r = (size_t)tp_rank, n = (size_t)tp_size;
    switch (split_of(s, which, &rows, &cols)) {
    case TP_WHOLE:
        memcpy(dst, whole, rows * cols * sizeof *dst);
        break;
    case TP_ROWS:                                 /* rows r·rows/n .. (r+1)·rows/n: contiguous */
        memcpy(dst, whole + r * (rows / n) * cols, rows / n * cols * sizeof *dst);
        break;
    case TP_COLS:                                 /* columns r·cols/n .. of every row */
        for (size_t i = 0; i < rows; i++)
            memcpy(dst + i * (cols / n), whole + i * cols + r * (cols / n), cols / n * sizeof *dst);
        break;
    }
}
