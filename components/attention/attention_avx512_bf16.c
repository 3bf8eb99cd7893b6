/* attention_avx512_bf16.c - the bf16 products of attention on AVX-512 BF16:
 * vdpbf16ps multiplies 16 lanes of bf16 pairs and adds both products to an
 * fp32 lane, twice the multiply-adds of an fp32 FMA per instruction. Compiled
 * with target attributes, run only where isa.h says the CPU has it.
 *
 * Layouts (attention_internal.h): queries along the lanes as in the fp32
 * kernels, and the reduction dimension in pairs inside each 32-bit lane.
 *   scores:     st[j][i] += (k[j][c], k[j][c+1]) . (qp[c/2][i][0], [1])
 *               the key pair is contiguous in K's rows, so K is read raw and
 *               broadcast as one 32-bit element;
 *   accumulate: ot[c][i] += (v[j][c], v[j+1][c]) . (pp[j/2][i][0], [1])
 *               here the pair runs down V's columns, so V is packed (pack_v)
 *               into vp[j/2][c][2] once per key tile.
 * Register blocks as in attention_avx512.c: 6 rows by up to 4 vectors, 24
 * accumulators. vdpbf16ps rounds to nearest even with denormal inputs and
 * outputs flushed to zero; products of two bf16 are exact in fp32, so each
 * pair costs the two roundings of two FMAs, as the fp32 kernels' sums do. */
#if defined(__x86_64__)

#include "attention_internal.h"
#include "attention_avx512_transpose.h"

#include <immintrin.h>
#include <string.h>

#define BQ ATTENTION_BQ
#define MR ATTENTION_MR
#define INLINE inline __attribute__((always_inline))

#define BF16DOT __attribute__((target("avx512f,avx512bw,avx512bf16")))

/* The pair at p as one 32-bit lane value, broadcast. */
BF16DOT static INLINE __m512i pair_at(const uint16_t *p)
{
    uint32_t u;
    memcpy(&u, p, sizeof u);
    return _mm512_set1_epi32((int)u);
}

BF16DOT static INLINE __m512 dot(__m512 acc, __m512i a, __m512i b)
{
    return _mm512_dpbf16_ps(acc, (__m512bh)a, (__m512bh)b);
}

/* st[r][...] = qscale sum_c k[r][c] q[c][...] for r < mr. An odd head_dim's
 * last element pairs with zero: read alone, so the element after it (another
 * head's, or past the buffer) is never touched and a NaN there cannot leak
 * in through 0 x NaN. */
BF16DOT static INLINE void scores_block(const uint16_t *qp, const uint16_t *k, size_t ks, size_t d, float qscale,
                                        float *st, const int mr, const int nv)
{
    __m512 acc[MR][BQ / 16];
#pragma GCC unroll 6
    for (int r = 0; r < mr; r++)
#pragma GCC unroll 4
        for (int u = 0; u < nv; u++)
            acc[r][u] = _mm512_setzero_ps();
    size_t pairs = d / 2;
    for (size_t c2 = 0; c2 < pairs; c2++) {
        __m512i q[BQ / 16];
#pragma GCC unroll 4
        for (int u = 0; u < nv; u++)
            q[u] = _mm512_load_si512(qp + (c2 * BQ + 16 * u) * 2);
#pragma GCC unroll 6
        for (int r = 0; r < mr; r++) {
            __m512i kb = pair_at(k + (size_t)r * ks + 2 * c2);
#pragma GCC unroll 4
            for (int u = 0; u < nv; u++)
                acc[r][u] = dot(acc[r][u], kb, q[u]);
        }
    }
    if (d & 1) {
        __m512i q[BQ / 16];
#pragma GCC unroll 4
        for (int u = 0; u < nv; u++)
            q[u] = _mm512_load_si512(qp + (pairs * BQ + 16 * u) * 2);
#pragma GCC unroll 6
        for (int r = 0; r < mr; r++) {
            __m512i kb = _mm512_set1_epi32(k[(size_t)r * ks + d - 1]);
#pragma GCC unroll 4
            for (int u = 0; u < nv; u++)
                acc[r][u] = dot(acc[r][u], kb, q[u]);
        }
    }
    const __m512 sc = _mm512_set1_ps(qscale);
#pragma GCC unroll 6
    for (int r = 0; r < mr; r++)
#pragma GCC unroll 4
        for (int u = 0; u < nv; u++)
            _mm512_store_ps(st + r * BQ + 16 * u, _mm512_mul_ps(acc[r][u], sc));
}

BF16DOT static INLINE void scores_rows(const uint16_t *qp, const uint16_t *k, size_t ks, size_t nk, size_t d,
                                       float qscale, float *st, const int nv)
{
    size_t j = 0;
    for (; j + MR <= nk; j += MR)
        scores_block(qp, k + j * ks, ks, d, qscale, st + j * BQ, MR, nv);
    k += j * ks, st += j * BQ;
    switch (nk - j) {
    case 5: scores_block(qp, k, ks, d, qscale, st, 5, nv); break;
    case 4: scores_block(qp, k, ks, d, qscale, st, 4, nv); break;
    case 3: scores_block(qp, k, ks, d, qscale, st, 3, nv); break;
    case 2: scores_block(qp, k, ks, d, qscale, st, 2, nv); break;
    case 1: scores_block(qp, k, ks, d, qscale, st, 1, nv); break;
    }
}

BF16DOT static void scores_bf16(const uint16_t *qp, const uint16_t *k, size_t ks, size_t nk, size_t d,
                                size_t nchunks, float qscale, float *st, uint16_t *kscratch)
{
    (void)kscratch;                /* K is read in place */
    switch (nchunks) {
    case 4: scores_rows(qp, k, ks, nk, d, qscale, st, 4); break;
    case 3: scores_rows(qp, k, ks, nk, d, qscale, st, 3); break;
    case 2: scores_rows(qp, k, ks, nk, d, qscale, st, 2); break;
    case 1: scores_rows(qp, k, ks, nk, d, qscale, st, 1); break;
    }
}

/* 16 fp32 lanes of rows j and j + 1 -> 16 bf16 pairs (p_j, p_j+1), rounded
 * to nearest even: vcvtne2ps2bf16 puts row j in the low 16 halves and row
 * j + 1 in the high 16, and a word permute interleaves them. */
BF16DOT static INLINE __m512i pairs_of(__m512 even, __m512 odd)
{
    const __m512i mix = _mm512_set_epi16(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8, 23, 7, 22,
                                         6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
    return _mm512_permutexvar_epi16(mix, (__m512i)_mm512_cvtne2ps_pbh(odd, even));
}

BF16DOT static void pack_p_bf16(const float *st, size_t nk, size_t nchunks, uint16_t *pp)
{
    for (size_t j = 0; j < nk; j += 2) {
        const float *r0 = st + j * BQ, *r1 = r0 + BQ;
        for (size_t u = 0; u < nchunks; u++) {
            __m512 a = _mm512_load_ps(r0 + 16 * u);
            __m512 b = j + 1 < nk ? _mm512_load_ps(r1 + 16 * u) : _mm512_setzero_ps();
            _mm512_store_si512(pp + (j / 2 * BQ + 16 * u) * 2, pairs_of(a, b));
        }
    }
}

/* vp[j/2][c][j%2] = v[j][c], a missing last key zero. vpermt2w interleaves
 * 32 columns of the two rows at a time. */
BF16DOT static void pack_v_bf16(uint16_t *vp, const uint16_t *v, size_t vs, size_t nk, size_t d)
{
    const __m512i lo = _mm512_set_epi16(47, 15, 46, 14, 45, 13, 44, 12, 43, 11, 42, 10, 41, 9, 40, 8, 39, 7, 38, 6,
                                        37, 5, 36, 4, 35, 3, 34, 2, 33, 1, 32, 0);
    const __m512i hi = _mm512_add_epi16(lo, _mm512_set1_epi16(16));
    for (size_t j = 0; j < nk; j += 2) {
        const uint16_t *r0 = v + j * vs, *r1 = r0 + vs;
        uint16_t *out = vp + j / 2 * d * 2;
        int two = j + 1 < nk;
        for (size_t c = 0; c < d; c += 32) {
            size_t n = d - c < 32 ? d - c : 32;
            __mmask32 in = (__mmask32)(n == 32 ? ~0u : (1u << n) - 1);
            __m512i a = _mm512_maskz_loadu_epi16(in, r0 + c);
            __m512i b = two ? _mm512_maskz_loadu_epi16(in, r1 + c) : _mm512_setzero_si512();
            /* 2n halves out: the first 32 from lo, the rest from hi */
            size_t m = 2 * n;
            __mmask32 m0 = (__mmask32)(m >= 32 ? ~0u : (1u << m) - 1);
            __mmask32 m1 = (__mmask32)(m >= 64 ? ~0u : m > 32 ? (1u << (m - 32)) - 1 : 0);
            _mm512_mask_storeu_epi16(out + 2 * c, m0, _mm512_permutex2var_epi16(a, lo, b));
            if (m1)
                _mm512_mask_storeu_epi16(out + 2 * c + 32, m1, _mm512_permutex2var_epi16(a, hi, b));
        }
    }
}

/* ot[r][...] = ot[r][...] alpha + sum_j v[j][r] p[j][...] for r < mr (vp
 * and ot already offset to the block's first head_dim entry; vp rows are
 * 2 d halves apart). */
BF16DOT static INLINE void accumulate_block(float *ot, const uint16_t *pp, const uint16_t *vp, size_t d,
                                            size_t pairs, const float *alpha, const int mr, const int nv)
{
    __m512 acc[MR][BQ / 16];
#pragma GCC unroll 6
    for (int r = 0; r < mr; r++)
#pragma GCC unroll 4
        for (int u = 0; u < nv; u++)
            acc[r][u] = _mm512_setzero_ps();
    for (size_t j2 = 0; j2 < pairs; j2++) {
        __m512i p[BQ / 16];
#pragma GCC unroll 4
        for (int u = 0; u < nv; u++)
            p[u] = _mm512_load_si512(pp + (j2 * BQ + 16 * u) * 2);
#pragma GCC unroll 6
        for (int r = 0; r < mr; r++) {
            __m512i vb = pair_at(vp + (j2 * d + (size_t)r) * 2);
#pragma GCC unroll 4
            for (int u = 0; u < nv; u++)
                acc[r][u] = dot(acc[r][u], vb, p[u]);
        }
    }
#pragma GCC unroll 6
    for (int r = 0; r < mr; r++)
#pragma GCC unroll 4
        for (int u = 0; u < nv; u++) {
            float *o = ot + r * BQ + 16 * u;
            _mm512_store_ps(o, _mm512_fmadd_ps(_mm512_load_ps(o), _mm512_load_ps(alpha + 16 * u), acc[r][u]));
        }
}

BF16DOT static INLINE void accumulate_rows(float *ot, const uint16_t *pp, const uint16_t *vp, size_t nk, size_t d,
                                           const float *alpha, const int nv)
{
    size_t c = 0, pairs = (nk + 1) / 2;
    for (; c + MR <= d; c += MR)
        accumulate_block(ot + c * BQ, pp, vp + 2 * c, d, pairs, alpha, MR, nv);
    ot += c * BQ, vp += 2 * c;
    switch (d - c) {
    case 5: accumulate_block(ot, pp, vp, d, pairs, alpha, 5, nv); break;
    case 4: accumulate_block(ot, pp, vp, d, pairs, alpha, 4, nv); break;
    case 3: accumulate_block(ot, pp, vp, d, pairs, alpha, 3, nv); break;
    case 2: accumulate_block(ot, pp, vp, d, pairs, alpha, 2, nv); break;
    case 1: accumulate_block(ot, pp, vp, d, pairs, alpha, 1, nv); break;
    }
}

BF16DOT static void accumulate_bf16(float *ot, const uint16_t *pp, const uint16_t *vp, size_t nk, size_t d,
                                    size_t nchunks, const float *alpha)
{
    switch (nchunks) {
    case 4: accumulate_rows(ot, pp, vp, nk, d, alpha, 4); break;
    case 3: accumulate_rows(ot, pp, vp, nk, d, alpha, 3); break;
    case 2: accumulate_rows(ot, pp, vp, nk, d, alpha, 2); break;
    case 1: accumulate_rows(ot, pp, vp, nk, d, alpha, 1); break;
    }
}

/* The first n of 32 bits set. */
static inline __mmask32 first32(size_t n)
{
    return (__mmask32)(n >= 32 ? ~0u : (1u << n) - 1);
}

/* Q's pairs are 32-bit elements, so packing it is a 32-bit transpose, 16
 * queries by 16 pairs at a time. Each row is read as the halves it has
 * (an odd head_dim's last pair gets a zero partner, and nothing past the
 * row is touched); missing queries are zero rows. */
BF16DOT static void pack_q_bf16(const uint16_t *q, size_t qs, size_t nq, size_t d, size_t lanes, uint16_t *qp)
{
    size_t pairs = (d + 1) / 2;
    for (size_t i0 = 0; i0 < lanes; i0 += 16)
        for (size_t p0 = 0; p0 < pairs; p0 += 16) {
            __mmask32 in = first32(d - 2 * p0);
            __m512i r[16];
#pragma GCC unroll 16
            for (size_t k = 0; k < 16; k++)
                r[k] = i0 + k < nq ? _mm512_maskz_loadu_epi16(in, q + (i0 + k) * qs + 2 * p0) : _mm512_setzero_si512();
            transpose16(r);
            size_t np = pairs - p0 < 16 ? pairs - p0 : 16;
            for (size_t k = 0; k < np; k++)
                _mm512_store_si512(qp + ((p0 + k) * BQ + i0) * 2, r[k]);
        }
}

/* ot is [d][BQ]: scaled by 1 / l along the lanes, then transposed 16 x 16
 * into rows of o, rounded to bf16 (vcvtneps2bf16: to nearest even; it
 * flushes fp32 denormals, outputs below 2^-126, to zero). */
BF16DOT static void store_o_bf16(const float *ot, const float *l, size_t nq, size_t d, uint16_t *o, size_t os)
{
    for (size_t i0 = 0; i0 < nq; i0 += 16) {
        __m512 inv = inverse_or_zero16(l + i0);
        size_t nr = nq - i0 < 16 ? nq - i0 : 16;
        for (size_t c0 = 0; c0 < d; c0 += 16) {
            size_t nc = d - c0 < 16 ? d - c0 : 16;
            __m512i r[16];
            scaled_rows16(ot, BQ, i0, c0, nc, inv, r);
            for (size_t k = 0; k < nr; k++) {
                __m256i h = (__m256i)_mm512_cvtneps_pbh(_mm512_castsi512_ps(r[k]));
                _mm512_mask_storeu_epi16(o + (i0 + k) * os + c0, (__mmask32)((1u << nc) - 1),
                                         _mm512_castsi256_si512(h));
            }
        }
    }
}

static int takes_any(size_t d)
{
    (void)d;
    return 1;
}

const attention_bf16_kernels attention_avx512_bf16_dot = {
    2, 1, takes_any, pack_q_bf16, store_o_bf16, scores_bf16, pack_p_bf16, pack_v_bf16, accumulate_bf16,
};

#endif
