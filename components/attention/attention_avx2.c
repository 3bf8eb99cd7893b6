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

/* As exp2_avx512 (attention_avx512.c), without vscalefps: x is clamped to [-127, 127] and 2^n is
 * built in the exponent field, (n + 127) << 23, which for n = -127 is the bit
 * pattern of +0: a masked score again weighs exactly nothing. */
AVX2 static INLINE __m256 exp2_avx2(__m256 x)
{
    x = _mm256_min_ps(_mm256_set1_ps(127.0f), _mm256_max_ps(_mm256_set1_ps(-127.0f), x));
    __m256 n = _mm256_round_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 f = _mm256_sub_ps(x, n);
    __m256 p = _mm256_set1_ps(ATTENTION_EXP2_C6);
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(ATTENTION_EXP2_C5));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(ATTENTION_EXP2_C4));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(ATTENTION_EXP2_C3));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(ATTENTION_EXP2_C2));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(ATTENTION_EXP2_C1));
    p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(ATTENTION_EXP2_C0));
    __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
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

AVX2 static void softmax_avx2(float *st, size_t nk, size_t nchunks, attention_mask mk, float *m, float *l,
                              float *alpha)
{
    const __m256 ninf = _mm256_set1_ps(-INFINITY);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for (size_t u = 0; u < 2 * nchunks; u++) {        /* one 8-lane vector at a time */
        size_t o = 8 * u;
        __m256 mx = _mm256_load_ps(m + o), sum = _mm256_setzero_ps();
        for (size_t j = 0; j < nk; j++) {
            __m256 s = _mm256_load_ps(st + j * BQ + o);
            if (mk.on) {
                /* lane o + i is hidden when o + i < limit, i.e. i < limit - o */
                __m256i lim = _mm256_set1_epi32(attention_lane_limit(mk.first, j) - (int)o);
                s = _mm256_blendv_ps(s, ninf, _mm256_castsi256_ps(_mm256_cmpgt_epi32(lim, lane)));
                _mm256_store_ps(st + j * BQ + o, s);
            }
            mx = _mm256_max_ps(mx, s);
        }
        __m256 mu = _mm256_andnot_ps(_mm256_cmp_ps(mx, ninf, _CMP_EQ_OQ), mx);   /* -inf -> 0 */
        __m256 a = exp2_avx2(_mm256_sub_ps(_mm256_load_ps(m + o), mu));
        for (size_t j = 0; j < nk; j++) {
            __m256 p = exp2_avx2(_mm256_sub_ps(_mm256_load_ps(st + j * BQ + o), mu));
            _mm256_store_ps(st + j * BQ + o, p);
            sum = _mm256_add_ps(sum, p);
        }
        _mm256_store_ps(alpha + o, a);
        _mm256_store_ps(l + o, _mm256_fmadd_ps(_mm256_load_ps(l + o), a, sum));
        _mm256_store_ps(m + o, mx);
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
    "avx2", scores_avx2, softmax_avx2, accumulate_avx2, widen_avx2, exp2_n_avx2, NULL, NULL, NULL, "avx2",
};

#endif
