/* transformer_block_shape.c - what both devices' blocks share about a shape:
 * the names of weights, buffers and regions, the shape's checks, the CPU
 * block's buffer sizes and the FLOP count. No BLAS here, so that the GPU
 * block (transformer_block/cuda) builds where OpenBLAS is absent. */
#include "transformer_block.h"
#include "attention/attention.h"

#include <limits.h>
#include <math.h>
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
                                size_t elem, const void *whole_weight, void *dst_slice)
{
    size_t rows, cols, r = (size_t)tp_rank, n = (size_t)tp_size;
    const char *whole = whole_weight;
    char *dst = dst_slice;
    switch (split_of(s, which, &rows, &cols)) {
    case TP_WHOLE:
        memcpy(dst, whole, rows * cols * elem);
        break;
    case TP_ROWS:                                 /* rows r·rows/n .. (r+1)·rows/n: contiguous */
        memcpy(dst, whole + r * (rows / n) * cols * elem, rows / n * cols * elem);
        break;
    case TP_COLS:                                 /* columns r·cols/n .. of every row */
        for (size_t i = 0; i < rows; i++)
            memcpy(dst + i * (cols / n) * elem, whole + (i * cols + r * (cols / n)) * elem, cols / n * elem);
        break;
    }
}
