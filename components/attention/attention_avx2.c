/* attention_avx2.c - the tile kernels for AVX2 + FMA, compiled with target
 * attributes so that the file builds with baseline flags and runs only where
 * __builtin_cpu_supports says so. See attention_cpu.c for the algorithm and
 * attention_internal.h for the interface. */
#if defined(__x86_64__)

#include "attention_internal.h"
#include "common/bf16.h"

#include <immintrin.h>
#include <math.h>
#include <string.h>

#define BQ ATTENTION_BQ
#define CHUNK ATTENTION_CHUNK
#define MR ATTENTION_MR
#define INLINE inline __attribute__((always_inline))

/* Sixteen ymm registers: blocks of 6 rows by one 16-lane chunk (two ymm), 12
 * accumulators, looped over the chunks. */

#define AVX2 __attribute__((target("avx2,fma")))

/* As exp2_avx512 (attention_avx512.c), without vscalefps: x is clamped to
 * [-127, 127] and 2^n is built in the exponent field, (n + 127) << 23, which
 * for n = -127 is the bit pattern of +0: a masked score again weighs exactly
 * nothing. n comes from adding 1.5 * 2^23, which leaves round(x) (ties to
 * even, as vroundps) in the sum's low mantissa bits: shifted up by 23 they
 * are n << 23 modulo 2^32, so no vroundps and no vcvtps2dq, one instruction
 * and two latencies fewer on the softmax's path. */
#define ROUND_MAGIC 12582912.0f    /* 1.5 * 2^23 */

AVX2 static INLINE __m256 exp2_clamped_avx2(__m256 x)   /* x in [-127, 127] */
{
    __m256 t = _mm256_add_ps(x, _mm256_set1_ps(ROUND_MAGIC));
    __m256 f = _mm256_sub_ps(x, _mm256_sub_ps(t, _mm256_set1_ps(ROUND_MAGIC)));
    __m256 p = _mm256_set1_ps(ATTENTION_EXP2_C6);
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(ATTENTION_EXP2_C5));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(ATTENTION_EXP2_C4));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(ATTENTION_EXP2_C3));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(ATTENTION_EXP2_C2));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(ATTENTION_EXP2_C1));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(ATTENTION_EXP2_C0));
    __m256i e = _mm256_add_epi32(_mm256_slli_epi32(_mm256_castps_si256(t), 23), _mm256_set1_epi32(127 << 23));
    return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}

AVX2 static INLINE __m256 exp2_avx2(__m256 x)
{
    return exp2_clamped_avx2(_mm256_min_ps(_mm256_set1_ps(127.0f), _mm256_max_ps(_mm256_set1_ps(-127.0f), x)));
}

/* 2^x for x <= 0 (or NaN), all the softmax takes: a score or an old max
 * less the new max. One clamp fewer: 17 us instead of 19 per 21 key tiles
 * of 48 x 64 on Zen 4, AVX-512's softmax 12.5. */
AVX2 static INLINE __m256 exp2_nonpositive_avx2(__m256 x)
{
    return exp2_clamped_avx2(_mm256_max_ps(_mm256_set1_ps(-127.0f), x));
}

AVX2 static INLINE void scores_block_avx2(const float *qt, const float *k, size_t ks, size_t d,
                                          float *st, const int mr)
{
    __m256 acc[MR][2];
#pragma GCC unroll 6
    for (int r = 0; r < mr; r++)
        acc[r][0] = acc[r][1] = _mm256_setzero_ps();
    for (size_t c = 0; c < d; c++) {
        __m256 q0 = _mm256_load_ps(qt + c * BQ), q1 = _mm256_load_ps(qt + c * BQ + 8);
#pragma GCC unroll 6
        for (int r = 0; r < mr; r++) {
            __m256 kb = _mm256_broadcast_ss(k + (size_t)r * ks + c);
            acc[r][0] = _mm256_fmadd_ps(kb, q0, acc[r][0]);
            acc[r][1] = _mm256_fmadd_ps(kb, q1, acc[r][1]);
        }
    }
#pragma GCC unroll 6
    for (int r = 0; r < mr; r++) {
        _mm256_store_ps(st + r * BQ, acc[r][0]);
        _mm256_store_ps(st + r * BQ + 8, acc[r][1]);
    }
}

AVX2 static void scores_avx2(const float *qt, const float *k, size_t ks, size_t nk, size_t d,
                             size_t nchunks, float *st)
{
    for (size_t ch = 0; ch < nchunks; ch++) {
        const float *q = qt + ch * CHUNK, *kr = k;
        float *s = st + ch * CHUNK;
        size_t j = 0;
        for (; j + MR <= nk; j += MR, kr += MR * ks, s += MR * BQ)
            scores_block_avx2(q, kr, ks, d, s, MR);
        switch (nk - j) {
        case 5: scores_block_avx2(q, kr, ks, d, s, 5); break;
        case 4: scores_block_avx2(q, kr, ks, d, s, 4); break;
        case 3: scores_block_avx2(q, kr, ks, d, s, 3); break;
        case 2: scores_block_avx2(q, kr, ks, d, s, 2); break;
        case 1: scores_block_avx2(q, kr, ks, d, s, 1); break;
        }
    }
}

/* One 16-lane chunk (two vectors) at a time: two independent chains through
 * the max, the exp2s and the sum, whose latencies overlap (one vector at a
 * time left the softmax 40% slower than AVX-512's on Zen 4). */
AVX2 static void softmax_avx2(float *st, size_t nk, size_t nchunks, attention_mask mk, float *m, float *l,
                              float *alpha)
{
    const __m256 ninf = _mm256_set1_ps(-INFINITY);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), eight = _mm256_set1_epi32(8);
    for (size_t o = 0; o < CHUNK * nchunks; o += CHUNK) {
        __m256 mx[2] = {_mm256_load_ps(m + o), _mm256_load_ps(m + o + 8)}, mu[2];
        __m256 sum[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};
        for (size_t j = 0; j < nk; j++) {
            float *row = st + j * BQ + o;
            __m256 s0 = _mm256_load_ps(row), s1 = _mm256_load_ps(row + 8);
            if (mk.on) {
                /* lane o + i is hidden when o + i < limit, i.e. i < limit - o */
                __m256i lim = _mm256_set1_epi32(attention_lane_limit(mk.first, j) - (int)o);
                s0 = _mm256_blendv_ps(s0, ninf, _mm256_castsi256_ps(_mm256_cmpgt_epi32(lim, lane)));
                lim = _mm256_sub_epi32(lim, eight);
                s1 = _mm256_blendv_ps(s1, ninf, _mm256_castsi256_ps(_mm256_cmpgt_epi32(lim, lane)));
                _mm256_store_ps(row, s0);
                _mm256_store_ps(row + 8, s1);
            }
            mx[0] = _mm256_max_ps(mx[0], s0);
            mx[1] = _mm256_max_ps(mx[1], s1);
        }
#pragma GCC unroll 2
        for (int u = 0; u < 2; u++) {
            mu[u] = _mm256_andnot_ps(_mm256_cmp_ps(mx[u], ninf, _CMP_EQ_OQ), mx[u]);   /* -inf -> 0 */
            __m256 shrink = _mm256_sub_ps(_mm256_load_ps(m + o + 8 * u), mu[u]);
            _mm256_store_ps(alpha + o + 8 * u, exp2_nonpositive_avx2(shrink));
        }
        for (size_t j = 0; j < nk; j++) {
            float *row = st + j * BQ + o;
            __m256 p0 = exp2_nonpositive_avx2(_mm256_sub_ps(_mm256_load_ps(row), mu[0]));
            __m256 p1 = exp2_nonpositive_avx2(_mm256_sub_ps(_mm256_load_ps(row + 8), mu[1]));
            _mm256_store_ps(row, p0);
            _mm256_store_ps(row + 8, p1);
            sum[0] = _mm256_add_ps(sum[0], p0);
            sum[1] = _mm256_add_ps(sum[1], p1);
        }
#pragma GCC unroll 2
        for (int u = 0; u < 2; u++) {
            __m256 a = _mm256_load_ps(alpha + o + 8 * u);
            _mm256_store_ps(l + o + 8 * u, _mm256_fmadd_ps(_mm256_load_ps(l + o + 8 * u), a, sum[u]));
            _mm256_store_ps(m + o + 8 * u, mx[u]);
        }
    }
}

AVX2 static INLINE void accumulate_block_avx2(float *ot, const float *pt, const float *v, size_t vs,
                                              size_t nk, const float *alpha, const int mr)
{
    __m256 acc[MR][2];
#pragma GCC unroll 6
    for (int r = 0; r < mr; r++)
        acc[r][0] = acc[r][1] = _mm256_setzero_ps();
    for (size_t j = 0; j < nk; j++) {
        __m256 p0 = _mm256_load_ps(pt + j * BQ), p1 = _mm256_load_ps(pt + j * BQ + 8);
#pragma GCC unroll 6
        for (int r = 0; r < mr; r++) {
            __m256 vb = _mm256_broadcast_ss(v + j * vs + (size_t)r);
            acc[r][0] = _mm256_fmadd_ps(vb, p0, acc[r][0]);
            acc[r][1] = _mm256_fmadd_ps(vb, p1, acc[r][1]);
        }
    }
    __m256 a0 = _mm256_load_ps(alpha), a1 = _mm256_load_ps(alpha + 8);
#pragma GCC unroll 6
    for (int r = 0; r < mr; r++) {
        float *o = ot + r * BQ;
        _mm256_store_ps(o, _mm256_fmadd_ps(_mm256_load_ps(o), a0, acc[r][0]));
        _mm256_store_ps(o + 8, _mm256_fmadd_ps(_mm256_load_ps(o + 8), a1, acc[r][1]));
    }
}

AVX2 static void accumulate_avx2(float *ot, const float *pt, const float *v, size_t vs, size_t nk,
                                 size_t d, size_t nchunks, const float *alpha)
{
    for (size_t ch = 0; ch < nchunks; ch++) {
        float *o = ot + ch * CHUNK;
        const float *p = pt + ch * CHUNK, *a = alpha + ch * CHUNK, *vc = v;
        size_t c = 0;
        for (; c + MR <= d; c += MR, o += MR * BQ, vc += MR)
            accumulate_block_avx2(o, p, vc, vs, nk, a, MR);
        switch (d - c) {
        case 5: accumulate_block_avx2(o, p, vc, vs, nk, a, 5); break;
        case 4: accumulate_block_avx2(o, p, vc, vs, nk, a, 4); break;
        case 3: accumulate_block_avx2(o, p, vc, vs, nk, a, 3); break;
        case 2: accumulate_block_avx2(o, p, vc, vs, nk, a, 2); break;
        case 1: accumulate_block_avx2(o, p, vc, vs, nk, a, 1); break;
        }
    }
}

AVX2 static void widen_avx2(float *dst, const uint16_t *src, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i h = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(src + i)));
        _mm256_storeu_ps(dst + i, _mm256_castsi256_ps(_mm256_slli_epi32(h, 16)));
    }
    for (; i < n; i++)
        dst[i] = bf16_to_f32(src[i]);
}

/* r[k] = column k of the 8 x 8 matrix of floats whose rows were r[0 .. 7]. */
AVX2 static INLINE void transpose8(__m256 r[8])
{
    __m256 t[8];
#pragma GCC unroll 4
    for (int k = 0; k < 8; k += 2) {
        t[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);
        t[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
    }
#pragma GCC unroll 2
    for (int k = 0; k < 8; k += 4) {
        r[k] = _mm256_shuffle_ps(t[k], t[k + 2], 0x44);
        r[k + 1] = _mm256_shuffle_ps(t[k], t[k + 2], 0xee);
        r[k + 2] = _mm256_shuffle_ps(t[k + 1], t[k + 3], 0x44);
        r[k + 3] = _mm256_shuffle_ps(t[k + 1], t[k + 3], 0xee);
    }
#pragma GCC unroll 4
    for (int k = 0; k < 4; k++) {
        t[k] = _mm256_permute2f128_ps(r[k], r[k + 4], 0x20);
        t[k + 4] = _mm256_permute2f128_ps(r[k], r[k + 4], 0x31);
    }
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++)
        r[k] = t[k];
}

/* The first n of 8 lanes, for vmaskmovps. */
AVX2 static INLINE __m256i first_lanes(size_t n)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* Q into the tile and O out of it by 8 x 8 transposes, as the AVX-512 path
 * does by 16 x 16 ones (the driver's scalar loops write and read the tile a
 * float at a time, 256 bytes apart). Rows are read and written only as far
 * as head_dim; missing queries are zero lanes. */
AVX2 static void pack_q_avx2(const float *q, size_t qs, size_t nq, size_t d, size_t lanes, float qscale,
                             float *qt)
{
    const __m256 sc = _mm256_set1_ps(qscale);
    for (size_t c0 = 0; c0 < d; c0 += 8) {
        size_t nc = d - c0 < 8 ? d - c0 : 8;
        __m256i in = first_lanes(nc);
        for (size_t i0 = 0; i0 < lanes; i0 += 8) {
            __m256 r[8];
#pragma GCC unroll 8
            for (size_t k = 0; k < 8; k++)
                r[k] = i0 + k < nq ? _mm256_mul_ps(_mm256_maskload_ps(q + (i0 + k) * qs + c0, in), sc)
                                   : _mm256_setzero_ps();
            transpose8(r);
            for (size_t k = 0; k < nc; k++)
                _mm256_store_ps(qt + (c0 + k) * BQ + i0, r[k]);
        }
    }
}

AVX2 static void store_o_avx2(const float *ot, const float *l, size_t nq, size_t d, float *o, size_t os)
{
    for (size_t i0 = 0; i0 < nq; i0 += 8) {
        __m256 lv = _mm256_load_ps(l + i0);      /* 1 / l, 0 where l is 0: a query that saw no key */
        __m256 inv = _mm256_and_ps(_mm256_cmp_ps(lv, _mm256_setzero_ps(), _CMP_GT_OQ),
                                   _mm256_div_ps(_mm256_set1_ps(1.0f), lv));
        size_t nr = nq - i0 < 8 ? nq - i0 : 8;
        for (size_t c0 = 0; c0 < d; c0 += 8) {
            size_t nc = d - c0 < 8 ? d - c0 : 8;
            __m256i out = first_lanes(nc);
            __m256 r[8];
#pragma GCC unroll 8
            for (size_t k = 0; k < 8; k++)
                r[k] = k < nc ? _mm256_mul_ps(_mm256_load_ps(ot + (c0 + k) * BQ + i0), inv) : _mm256_setzero_ps();
            transpose8(r);
            for (size_t k = 0; k < nr; k++)
                _mm256_maskstore_ps(o + (i0 + k) * os + c0, out, r[k]);
        }
    }
}

AVX2 static void exp2_n_avx2(const float *x, float *y, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(y + i, exp2_avx2(_mm256_loadu_ps(x + i)));
    float xt[8] = {0}, yt[8];
    memcpy(xt, x + i, (n - i) * sizeof *x);
    _mm256_storeu_ps(yt, exp2_avx2(_mm256_loadu_ps(xt)));
    memcpy(y + i, yt, (n - i) * sizeof *y);
}

const attention_kernels attention_avx2_kernels = {
    "avx2", scores_avx2, softmax_avx2, accumulate_avx2, widen_avx2, exp2_n_avx2, pack_q_avx2, store_o_avx2,
    NULL, "avx2",
};

#endif
