/* transformer_block_bf16.c - the bf16 block's step on AVX-512 BF16: its six
 * projections as bf16 GEMMs with fp32 accumulation (linear_bf16.c), its
 * attention the bf16 kernel of components/attention, so that the bf16
 * block runs at the dot unit's rate rather than computing in fp32.
 *
 * What stays fp32, as a bf16 model in PyTorch keeps it (autocast): the
 * residual stream h, the RMSNorm statistics, RoPE's rotation and SwiGLU;
 * every GEMM and attention input is rounded to bf16 on its way in (the
 * GEMMs' inputs while they are packed), every GEMM accumulates in fp32.
 * Roundings on the path to y: the normed activations, q, k, v, attention's
 * own, its output, the second norm's output, SwiGLU's output, and y:
 * transformer_block_bf16_tol bounds their effect.
 *
 * The path is chosen once per block (transformer_block_bf16_choose): the
 * dot kernel where the CPU has AVX-512 BF16, else the fp32 step of
 * transformer_block_cpu.c on an fp32 copy of the weights;
 * HARNESS_CPU_ISA forces either, so both can be tested on one machine. */
#include "transformer_block.h"
#include "transformer_block/linear_bf16.h"
#include "attention/attention.h"
#include "common/bf16.h"
#include "rms_norm/rms_norm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int transformer_block_bf16_choose(const char *isa, const char **path, const char **why)
{
    int have = linear_bf16_supported(), amx = have && linear_bf16_amx_supported();
    int auto_isa = !isa || !*isa || strcmp(isa, "auto") == 0;
    int wants_amx = !auto_isa && strcmp(isa, "amx") == 0, wants_dot = !auto_isa && strcmp(isa, "avx512_bf16") == 0;
    *path = NULL;
    if ((wants_amx || wants_dot) && !have) {
        *why = "HARNESS_CPU_ISA asks for the bf16 dot unit, which this CPU lacks (AVX-512 BF16)";
        return -1;
    }
    if (wants_amx && !amx) {
        *why = "HARNESS_CPU_ISA asks for AMX tiles, which this CPU (or Linux) does not offer";
        return -1;
    }
    if (auto_isa) {
        *path = amx ? "amx" : have ? "avx512_bf16" : "fp32";
        *why = amx    ? "bf16 GEMMs on AMX tiles (tdpbf16ps) where k is a multiple of 32, else on AVX-512 BF16; "
                        "fp32 accumulation"
               : have ? "bf16 GEMMs on AVX-512 BF16 (vdpbf16ps), fp32 accumulation"
                      : "this CPU has no AVX-512 BF16: bf16 computed in fp32 (OpenBLAS sgemm)";
        return have;
    }
    if (wants_amx) {
        *path = "amx";
        *why = "HARNESS_CPU_ISA=amx: bf16 GEMMs on AMX tiles where k is a multiple of 32, else on AVX-512 BF16";
        return 1;
    }
    if (wants_dot) {
        *path = "avx512_bf16";
        *why = "HARNESS_CPU_ISA=avx512_bf16: bf16 GEMMs on vdpbf16ps";
        return 1;
    }
    *path = "fp32";
    *why = "HARNESS_CPU_ISA names an fp32 path: bf16 computed in fp32 (OpenBLAS sgemm)";
    return 0;
}

/* The GEMM weights: [n][k] of each, in this block's (whole, not sliced) shape. */
static void dims(const transformer_block_shape *s, int which, size_t *n, size_t *k)
{
    size_t d = s->hidden / s->heads, qw = s->heads * d, kv = s->kv_heads * d;
    switch (which) {
    case TB_WQ: *n = qw, *k = s->hidden; return;
    case TB_WK: case TB_WV: *n = kv, *k = s->hidden; return;
    case TB_WO: *n = s->hidden, *k = qw; return;
    case TB_W_GATE: case TB_W_UP: *n = s->intermediate, *k = s->hidden; return;
    case TB_W_DOWN: *n = s->hidden, *k = s->intermediate; return;
    default: *n = *k = 0; return;  /* the norms: no GEMM */
    }
}

size_t transformer_block_bf16_packed_elems(const transformer_block_shape *s, int which)
{
    size_t n, k;
    dims(s, which, &n, &k);
    return n ? linear_bf16_packed_elems(n, k) : 0;
}

void transformer_block_bf16_pack(const transformer_block_shape *s, int which, const uint16_t *w, uint16_t *dst)
{
    size_t n, k;
    dims(s, which, &n, &k);
    if (n)
        linear_bf16_pack(w, n, k, dst);
}

/* The scratch, in bf16 elements: the packed GEMM input (the largest of the
 * three inputs' packed forms: hidden, heads x D or intermediate columns; the
 * form depends on k, so the widest alone may not be the largest), then q, k,
 * v and attention's output. */
static size_t packed_a_elems(const transformer_block_shape *s)
{
    size_t t = s->batch * s->seq, d = s->hidden / s->heads, ks[3] = {s->hidden, s->heads * d, s->intermediate};
    size_t most = 0;
    for (int i = 0; i < 3; i++) {
        size_t n = linear_bf16_packed_a_elems(t, ks[i]);
        most = n > most ? n : most;
    }
    return (most + 31) / 32 * 32;   /* keep what follows 64-byte aligned */
}

size_t transformer_block_bf16_scratch_bytes(const transformer_block_shape *s)
{
    size_t t = s->batch * s->seq, d = s->hidden / s->heads, qw = s->heads * d, kv = s->kv_heads * d;
    return (packed_a_elems(s) + t * (2 * qw + 2 * kv)) * sizeof(uint16_t);
}

double transformer_block_bf16_tol_atol(const transformer_block_shape *s)
{
    /* The fp32 bound plus the stored activations' roundings: see
     * TB_BF16_ACTIVATIONS_ATOL in transformer_block.h. */
    return transformer_block_fp32_tol(s) + TB_BF16_ACTIVATIONS_ATOL;
}

/* The step's conversions to bf16 and RoPE with its rounding, on AVX-512:
 * this step runs only where linear_bf16_supported() (AVX-512 F, BW and
 * BF16), so no other vector form is needed; elsewhere (not x86-64) the
 * scalar loops alone keep the file building. Row-sized pieces, OpenMP over
 * rows: in scalar code they took half as long as the default shape's
 * attention. */
#if defined(__x86_64__)
#include "common/bf16_avx512.h"
#define DOT_TARGET __attribute__((target("avx512f")))
#else
#define DOT_TARGET
#endif

static void to_bf16_span(const float *src, uint16_t *dst, size_t n)
{
#if defined(__x86_64__)
    bf16_of_f32_row_avx512(src, dst, n);
#else
    for (size_t i = 0; i < n; i++)
        dst[i] = f32_to_bf16(src[i]);
#endif
}

/* One head of one token: the rotate-half RoPE of transformer_block_rope,
 * its result rounded into dst. */
static DOT_TARGET void rope_head_bf16(const float *x, const float *c, const float *sn, size_t half, uint16_t *dst)
{
    const float *lo = x, *hi = x + half;
    size_t i = 0;
#if defined(__x86_64__)
    for (; i + 16 <= half; i += 16) {
        __m512 a = _mm512_loadu_ps(lo + i), b = _mm512_loadu_ps(hi + i);
        __m512 cv = _mm512_loadu_ps(c + i), sv = _mm512_loadu_ps(sn + i);
        __m512 rl = _mm512_sub_ps(_mm512_mul_ps(a, cv), _mm512_mul_ps(b, sv));
        __m512 rh = _mm512_add_ps(_mm512_mul_ps(b, cv), _mm512_mul_ps(a, sv));
        _mm256_storeu_si256((__m256i *)(void *)(dst + i), bf16_of_f32_avx512(rl));
        _mm256_storeu_si256((__m256i *)(void *)(dst + half + i), bf16_of_f32_avx512(rh));
    }
#endif
    for (; i < half; i++) {
        dst[i] = f32_to_bf16(lo[i] * c[i] - hi[i] * sn[i]);
        dst[half + i] = f32_to_bf16(hi[i] * c[i] + lo[i] * sn[i]);
    }
}

/* n values in pieces of a row (`row` values; n a multiple of it). */
static void to_bf16(const float *src, uint16_t *dst, size_t n, size_t row)
{
#pragma omp parallel for schedule(static)
    for (size_t r = 0; r < n / row; r++)
        to_bf16_span(src + r * row, dst + r * row, row);
}

/* RoPE on t ([batch][seq][n_heads][D], fp32, as transformer_block_rope),
 * written rounded into dst instead of in place. */
static void rope_to_bf16(const transformer_block_shape *s, const float *table, const float *t, size_t n_heads,
                         uint16_t *dst)
{
    size_t d = s->hidden / s->heads, half = d / 2, seq = s->seq, rows = s->batch * seq;
    const float *cos_t = table, *sin_t = table + seq * half;
#pragma omp parallel for schedule(static)
    for (size_t r = 0; r < rows; r++)
        for (size_t h = 0; h < n_heads; h++)
            rope_head_bf16(t + (r * n_heads + h) * d, cos_t + r % seq * half, sin_t + r % seq * half, half,
                           dst + (r * n_heads + h) * d);
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

int transformer_block_forward_bf16_dot(const transformer_block *b)
{
    const transformer_block_shape *s = &b->shape;
    size_t heads = s->heads, kv_heads = s->kv_heads;
    size_t t = s->batch * s->seq, hid = s->hidden, d = hid / s->heads, qw = heads * d, kv = kv_heads * d;
    size_t inter = s->intermediate, n = t * hid;
    float *h = b->buf[TB_BUF_RESIDUAL], *norm = b->buf[TB_BUF_NORM];
    float *q = b->buf[TB_BUF_Q], *k = b->buf[TB_BUF_K], *v = b->buf[TB_BUF_V];
    float *gate = b->buf[TB_BUF_GATE], *up = b->buf[TB_BUF_UP];
    uint16_t *ap = b->scratch16, *qb = ap + packed_a_elems(s), *kb = qb + t * qw, *vb = kb + t * kv,
             *ob = vb + t * kv;
    const uint16_t *const *wp = b->wp;

    push(b, 0);                                   /* attn_norm */
    transformer_block_bf16_to_f32(b->x, h, n);
    rms_norm_f32(h, b->w[TB_ATTN_NORM], norm, t, hid, s->eps);
    pop(b);

    push(b, 1);                                   /* qkv_proj */
    linear_bf16_pack_a_f32(norm, t, hid, hid, ap);
    const linear_bf16_out qkv[3] = {{qw, wp[TB_WQ], 0.0f, q, qw}, {kv, wp[TB_WK], 0.0f, k, kv},
                                    {kv, wp[TB_WV], 0.0f, v, kv}};
    linear_bf16_multi(t, hid, ap, qkv, 3);
    pop(b);

    push(b, 2);                                   /* rope, and q, k, v into bf16 for attention */
    rope_to_bf16(s, b->buf[TB_BUF_ROPE], q, heads, qb);
    rope_to_bf16(s, b->buf[TB_BUF_ROPE], k, kv_heads, kb);
    to_bf16(v, vb, t * kv, kv);
    pop(b);

    push(b, 3);                                   /* attention */
    attention_shape as = {s->batch, heads, kv_heads, s->seq, s->seq, d, s->causal, (float)(1.0 / sqrt((double)d))};
    attention_bf16(&as, qb, kb, vb, ob, b->buf[TB_BUF_ATTN_SCRATCH]);
    pop(b);

    push(b, 4);                                   /* out_proj: h = x + Wo · attn */
    linear_bf16_pack_a(ob, t, qw, qw, ap);
    linear_bf16(t, hid, qw, ap, wp[TB_WO], 1.0f, h, hid);
    pop(b);

    push(b, 5);                                   /* mlp_norm */
    rms_norm_f32(h, b->w[TB_MLP_NORM], norm, t, hid, s->eps);
    pop(b);

    push(b, 6);                                   /* gate_up_proj */
    linear_bf16_pack_a_f32(norm, t, hid, hid, ap);
    const linear_bf16_out gate_up[2] = {{inter, wp[TB_W_GATE], 0.0f, gate, inter},
                                        {inter, wp[TB_W_UP], 0.0f, up, inter}};
    linear_bf16_multi(t, hid, ap, gate_up, 2);
    pop(b);

    push(b, 7);                                   /* swiglu */
    transformer_block_swiglu(gate, up, t * inter);
    pop(b);

    push(b, 8);                                   /* down_proj: y = h + Wdown · act, rounded to bf16 */
    linear_bf16_pack_a_f32(gate, t, inter, inter, ap);
    linear_bf16(t, hid, inter, ap, wp[TB_W_DOWN], 1.0f, h, hid);
    to_bf16(h, b->y, n, hid);
    pop(b);
    return 0;
}
