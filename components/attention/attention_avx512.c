/* attention_avx512.c - the tile kernels for AVX-512 (F and BW), compiled
 * with target attributes so that the file builds with baseline flags and runs
 * only where __builtin_cpu_supports says so. Register blocks of 6 rows by up
 * to four 16-lane vectors: 24 accumulators of the 32 zmm registers, each
 * loaded vector feeding 6 FMAs and each broadcast element up to 4. See
 * attention_cpu.c for the algorithm and attention_internal.h for the
 * interface. */
#if defined(__x86_64__)

#include "attention_internal.h"
#include "attention_avx512_transpose.h"
#include "common/bf16.h"

#include <immintrin.h>
#include <math.h>

#define BQ ATTENTION_BQ
#define MR ATTENTION_MR
#define INLINE inline __attribute__((always_inline))

#define AVX512 __attribute__((target("avx512f,avx512bw")))

/* x is clamped to [-160, 128] first: -inf becomes -160, whose 2^-160 the
 * scaling flushes to an exact 0 (below half the smallest subnormal), so a
 * masked score weighs nothing. NaN passes through: max and min return their
 * second operand when it is NaN. vscalefps multiplies by 2^n with the
 * exponent range and subnormals handled. */
AVX512 static INLINE __m512 exp2_avx512(__m512 x)
{
    x = _mm512_min_ps(_mm512_set1_ps(128.0f), _mm512_max_ps(_mm512_set1_ps(-160.0f), x));
    __m512 n = _mm512_roundscale_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 f = _mm512_sub_ps(x, n);
    __m512 p = _mm512_set1_ps(ATTENTION_EXP2_C6);
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(ATTENTION_EXP2_C5));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(ATTENTION_EXP2_C4));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(ATTENTION_EXP2_C3));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(ATTENTION_EXP2_C2));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(ATTENTION_EXP2_C1));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(ATTENTION_EXP2_C0));
    return _mm512_scalef_ps(p, n);
}

/* st[r][0 .. 16 nv) = sum_c k[r][c] qt[c][...] for r < mr: each qt vector
 * loaded once feeds mr FMAs, each broadcast key element nv. */
AVX512 static INLINE void scores_block_avx512(const float *qt, const float *k, size_t ks, size_t d,
                                              float *st, const int mr, const int nv)
{
    __m512 acc[MR][BQ / 16];
#pragma GCC unroll 6
    for (int r = 0; r < mr; r++)
#pragma GCC unroll 4
        for (int u = 0; u < nv; u++)
            acc[r][u] = _mm512_setzero_ps();
    for (size_t c = 0; c < d; c++) {
        __m512 q[BQ / 16];
#pragma GCC unroll 4
        for (int u = 0; u < nv; u++)
            q[u] = _mm512_load_ps(qt + c * BQ + 16 * u);
#pragma GCC unroll 6
        for (int r = 0; r < mr; r++) {
            __m512 kb = _mm512_set1_ps(k[(size_t)r * ks + c]);
#pragma GCC unroll 4
            for (int u = 0; u < nv; u++)
                acc[r][u] = _mm512_fmadd_ps(kb, q[u], acc[r][u]);
        }
    }
#pragma GCC unroll 6
    for (int r = 0; r < mr; r++)
#pragma GCC unroll 4
        for (int u = 0; u < nv; u++)
            _mm512_store_ps(st + r * BQ + 16 * u, acc[r][u]);
}

AVX512 static INLINE void scores_rows_avx512(const float *qt, const float *k, size_t ks, size_t nk,
                                             size_t d, float *st, const int nv)
{
    size_t j = 0;
    for (; j + MR <= nk; j += MR)
        scores_block_avx512(qt, k + j * ks, ks, d, st + j * BQ, MR, nv);
    k += j * ks, st += j * BQ;
    switch (nk - j) {
    case 5: scores_block_avx512(qt, k, ks, d, st, 5, nv); break;
    case 4: scores_block_avx512(qt, k, ks, d, st, 4, nv); break;
    case 3: scores_block_avx512(qt, k, ks, d, st, 3, nv); break;
    case 2: scores_block_avx512(qt, k, ks, d, st, 2, nv); break;
    case 1: scores_block_avx512(qt, k, ks, d, st, 1, nv); break;
    }
}

AVX512 static void scores_avx512(const float *qt, const float *k, size_t ks, size_t nk, size_t d,
                                 size_t nchunks, float *st)
{
    switch (nchunks) {
    case 4: scores_rows_avx512(qt, k, ks, nk, d, st, 4); break;
    case 3: scores_rows_avx512(qt, k, ks, nk, d, st, 3); break;
    case 2: scores_rows_avx512(qt, k, ks, nk, d, st, 2); break;
    case 1: scores_rows_avx512(qt, k, ks, nk, d, st, 1); break;
    }
}

/* The nv vectors of lanes are independent chains through the max and the
 * sum, so their latencies overlap. */
AVX512 static INLINE void softmax_nv_avx512(float *st, size_t nk, attention_mask mk, float *m, float *l,
                                            float *alpha, const int nv)
{
    const __m512 ninf = _mm512_set1_ps(-INFINITY);
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    __m512 mx[BQ / 16], mu[BQ / 16], sum[BQ / 16];
#pragma GCC unroll 4
    for (int u = 0; u < nv; u++)
        mx[u] = _mm512_load_ps(m + 16 * u), sum[u] = _mm512_setzero_ps();
    for (size_t j = 0; j < nk; j++) {
        float *row = st + j * BQ;
        __m512i lim = _mm512_set1_epi32(mk.on ? attention_lane_limit(mk.first, j) : 0);
#pragma GCC unroll 4
        for (int u = 0; u < nv; u++) {
            __m512 s = _mm512_load_ps(row + 16 * u);
            if (mk.on) {
                __m512i idx = _mm512_add_epi32(lane, _mm512_set1_epi32(16 * u));
                s = _mm512_mask_mov_ps(ninf, _mm512_cmpge_epi32_mask(idx, lim), s);
                _mm512_store_ps(row + 16 * u, s);
            }
            mx[u] = _mm512_max_ps(mx[u], s);
        }
    }
#pragma GCC unroll 4
    for (int u = 0; u < nv; u++) {
        mu[u] = _mm512_mask_mov_ps(mx[u], _mm512_cmp_ps_mask(mx[u], ninf, _CMP_EQ_OQ),
                                   _mm512_setzero_ps());
        _mm512_store_ps(alpha + 16 * u, exp2_avx512(_mm512_sub_ps(_mm512_load_ps(m + 16 * u), mu[u])));
    }
    for (size_t j = 0; j < nk; j++) {
        float *row = st + j * BQ;
#pragma GCC unroll 4
        for (int u = 0; u < nv; u++) {
            __m512 p = exp2_avx512(_mm512_sub_ps(_mm512_load_ps(row + 16 * u), mu[u]));
            _mm512_store_ps(row + 16 * u, p);
            sum[u] = _mm512_add_ps(sum[u], p);
        }
    }
#pragma GCC unroll 4
    for (int u = 0; u < nv; u++) {
        __m512 a = _mm512_load_ps(alpha + 16 * u);
        _mm512_store_ps(l + 16 * u, _mm512_fmadd_ps(_mm512_load_ps(l + 16 * u), a, sum[u]));
        _mm512_store_ps(m + 16 * u, mx[u]);
    }
}

AVX512 static void softmax_avx512(float *st, size_t nk, size_t nchunks, attention_mask mk, float *m, float *l,
                                  float *alpha)
{
    switch (nchunks) {
    case 4: softmax_nv_avx512(st, nk, mk, m, l, alpha, 4); break;
    case 3: softmax_nv_avx512(st, nk, mk, m, l, alpha, 3); break;
    case 2: softmax_nv_avx512(st, nk, mk, m, l, alpha, 2); break;
    case 1: softmax_nv_avx512(st, nk, mk, m, l, alpha, 1); break;
    }
}

/* ot[r][...] = ot[r][...] * alpha + sum_j v[j][r] pt[j][...] for r < mr
 * (v and ot already offset to the block's first head_dim entry). */
AVX512 static INLINE void accumulate_block_avx512(float *ot, const float *pt, const float *v, size_t vs,
                                                  size_t nk, const float *alpha, const int mr,
                                                  const int nv)
{
    __m512 acc[MR][BQ / 16];
#pragma GCC unroll 6
    for (int r = 0; r < mr; r++)
#pragma GCC unroll 4
        for (int u = 0; u < nv; u++)
            acc[r][u] = _mm512_setzero_ps();
    for (size_t j = 0; j < nk; j++) {
        __m512 p[BQ / 16];
#pragma GCC unroll 4
        for (int u = 0; u < nv; u++)
            p[u] = _mm512_load_ps(pt + j * BQ + 16 * u);
#pragma GCC unroll 6
        for (int r = 0; r < mr; r++) {
            __m512 vb = _mm512_set1_ps(v[j * vs + (size_t)r]);
#pragma GCC unroll 4
            for (int u = 0; u < nv; u++)
                acc[r][u] = _mm512_fmadd_ps(vb, p[u], acc[r][u]);
        }
    }
#pragma GCC unroll 6
    for (int r = 0; r < mr; r++)
#pragma GCC unroll 4
        for (int u = 0; u < nv; u++) {
            float *o = ot + r * BQ + 16 * u;
            _mm512_store_ps(o, _mm512_fmadd_ps(_mm512_load_ps(o), _mm512_load_ps(alpha + 16 * u),
                                               acc[r][u]));
        }
}

AVX512 static INLINE void accumulate_rows_avx512(float *ot, const float *pt, const float *v, size_t vs,
                                                 size_t nk, size_t d, const float *alpha, const int nv)
{
    size_t c = 0;
    for (; c + MR <= d; c += MR)
        accumulate_block_avx512(ot + c * BQ, pt, v + c, vs, nk, alpha, MR, nv);
    ot += c * BQ, v += c;
    switch (d - c) {
    case 5: accumulate_block_avx512(ot, pt, v, vs, nk, alpha, 5, nv); break;
    case 4: accumulate_block_avx512(ot, pt, v, vs, nk, alpha, 4, nv); break;
    case 3: accumulate_block_avx512(ot, pt, v, vs, nk, alpha, 3, nv); break;
    case 2: accumulate_block_avx512(ot, pt, v, vs, nk, alpha, 2, nv); break;
    case 1: accumulate_block_avx512(ot, pt, v, vs, nk, alpha, 1, nv); break;
    }
}

AVX512 static void accumulate_avx512(float *ot, const float *pt, const float *v, size_t vs, size_t nk,
                                     size_t d, size_t nchunks, const float *alpha)
{
    switch (nchunks) {
    case 4: accumulate_rows_avx512(ot, pt, v, vs, nk, d, alpha, 4); break;
    case 3: accumulate_rows_avx512(ot, pt, v, vs, nk, d, alpha, 3); break;
    case 2: accumulate_rows_avx512(ot, pt, v, vs, nk, d, alpha, 2); break;
    case 1: accumulate_rows_avx512(ot, pt, v, vs, nk, d, alpha, 1); break;
    }
}

/* bf16 -> f32 is a 16-bit shift: zero-extend each element to 32 bits, move
 * it to the upper half. */
AVX512 static void widen_avx512(float *dst, const uint16_t *src, size_t n)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512i h = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(src + i)));
        _mm512_storeu_ps(dst + i, _mm512_castsi512_ps(_mm512_slli_epi32(h, 16)));
    }
    for (; i < n; i++)
        dst[i] = bf16_to_f32(src[i]);
}

/* Q into the tile and O out of it by 16 x 16 transposes (scalar loops took
 * ~10% of fp32 attention's time). Rows are read and written only as far as
 * head_dim; missing queries are zero lanes. */
AVX512 static void pack_q_avx512(const float *q, size_t qs, size_t nq, size_t d, size_t lanes, float qscale,
                                 float *qt)
{
    const __m512 sc = _mm512_set1_ps(qscale);
    for (size_t i0 = 0; i0 < lanes; i0 += 16)
        for (size_t c0 = 0; c0 < d; c0 += 16) {
            size_t nc = d - c0 < 16 ? d - c0 : 16;
            __mmask16 in = (__mmask16)((1u << nc) - 1);
            __m512i r[16];
#pragma GCC unroll 16
            for (size_t k = 0; k < 16; k++)
                r[k] = i0 + k < nq
                           ? _mm512_castps_si512(_mm512_mul_ps(_mm512_maskz_loadu_ps(in, q + (i0 + k) * qs + c0), sc))
                           : _mm512_setzero_si512();
            transpose16(r);
            for (size_t k = 0; k < nc; k++)
                _mm512_store_si512(qt + (c0 + k) * BQ + i0, r[k]);
        }
}

AVX512 static void store_o_avx512(const float *ot, const float *l, size_t nq, size_t d, float *o, size_t os)
{
    for (size_t i0 = 0; i0 < nq; i0 += 16) {
        __m512 inv = inverse_or_zero16(l + i0);
        size_t nr = nq - i0 < 16 ? nq - i0 : 16;
        for (size_t c0 = 0; c0 < d; c0 += 16) {
            size_t nc = d - c0 < 16 ? d - c0 : 16;
            __m512i r[16];
            scaled_rows16(ot, BQ, i0, c0, nc, inv, r);
            for (size_t k = 0; k < nr; k++)
                _mm512_mask_storeu_ps(o + (i0 + k) * os + c0, (__mmask16)((1u << nc) - 1), _mm512_castsi512_ps(r[k]));
        }
    }
}

AVX512 static void exp2_n_avx512(const float *x, float *y, size_t n)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(y + i, exp2_avx512(_mm512_loadu_ps(x + i)));
    __mmask16 tail = (__mmask16)((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(y + i, tail, exp2_avx512(_mm512_maskz_loadu_ps(tail, x + i)));
}

const attention_kernels attention_avx512_kernels = {
    "avx512", scores_avx512, softmax_avx512, accumulate_avx512, widen_avx512, exp2_n_avx512, pack_q_avx512, store_o_avx512,
    NULL, "avx512",
};

/* The dot-product paths run fp32 attention, the softmax of bf16 and the
 * widening on these kernels; their bf16 products are in
 * attention_avx512_bf16.c and attention_amx.c. */
extern const attention_bf16_kernels attention_amx_dot;

const attention_kernels attention_avx512_bf16_kernels = {
    "avx512_bf16", scores_avx512, softmax_avx512, accumulate_avx512, widen_avx512, exp2_n_avx512,
    pack_q_avx512, store_o_avx512, &attention_avx512_bf16_dot, "avx512",
};

const attention_kernels attention_amx_kernels = {
    "amx", scores_avx512, softmax_avx512, accumulate_avx512, widen_avx512, exp2_n_avx512, pack_q_avx512,
    store_o_avx512, &attention_amx_dot, "avx512",
};

#endif
