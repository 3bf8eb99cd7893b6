/* attention_avx512_transpose.h - a 16 x 16 transpose of 32-bit elements in
 * AVX-512 F, for the kernels that move tiles between the inputs' rows and the
 * transposed tiles (queries along the lanes): Q into the tile, O out of it.
 * Included by attention_avx512.c and attention_avx512_bf16.c, whose target
 * attributes include AVX-512 F. */
#ifndef COMPONENTS_ATTENTION_AVX512_TRANSPOSE_H
#define COMPONENTS_ATTENTION_AVX512_TRANSPOSE_H

#include <immintrin.h>

#define ATTENTION_AVX512_TRANSPOSE __attribute__((target("avx512f")))

/* r[k] = column k of the 16 x 16 matrix of 32-bit elements whose rows were
 * r[0 .. 15]: unpacks of 32- and 64-bit elements, then two rounds of
 * 128-bit lane shuffles. */
ATTENTION_AVX512_TRANSPOSE static inline __attribute__((always_inline)) void transpose16(__m512i r[16])
{
    __m512i t[16];
#pragma GCC unroll 8
    for (int k = 0; k < 16; k += 2) {
        t[k] = _mm512_unpacklo_epi32(r[k], r[k + 1]);
        t[k + 1] = _mm512_unpackhi_epi32(r[k], r[k + 1]);
    }
#pragma GCC unroll 4
    for (int k = 0; k < 16; k += 4) {
        r[k] = _mm512_unpacklo_epi64(t[k], t[k + 2]);
        r[k + 1] = _mm512_unpackhi_epi64(t[k], t[k + 2]);
        r[k + 2] = _mm512_unpacklo_epi64(t[k + 1], t[k + 3]);
        r[k + 3] = _mm512_unpackhi_epi64(t[k + 1], t[k + 3]);
    }
#pragma GCC unroll 4
    for (int k = 0; k < 4; k++) {
        t[k] = _mm512_shuffle_i32x4(r[k], r[k + 4], 0x88);
        t[k + 4] = _mm512_shuffle_i32x4(r[k], r[k + 4], 0xdd);
        t[k + 8] = _mm512_shuffle_i32x4(r[k + 8], r[k + 12], 0x88);
        t[k + 12] = _mm512_shuffle_i32x4(r[k + 8], r[k + 12], 0xdd);
    }
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++) {
        r[k] = _mm512_shuffle_i32x4(t[k], t[k + 8], 0x88);
        r[k + 8] = _mm512_shuffle_i32x4(t[k], t[k + 8], 0xdd);
    }
}

/* 1 / l[0 .. 16), 0 where l is 0 (a query that saw no key writes zeros). */
ATTENTION_AVX512_TRANSPOSE static inline __attribute__((always_inline)) __m512 inverse_or_zero16(const float *l)
{
    __m512 lv = _mm512_load_ps(l);
    return _mm512_maskz_div_ps(_mm512_cmp_ps_mask(lv, _mm512_setzero_ps(), _CMP_GT_OQ), _mm512_set1_ps(1.0f), lv);
}

/* Rows i0 .. i0+16 of columns c0 .. c0+nc of a transposed output tile ot
 * ([d][bq], queries along the lanes), scaled by inv: r[k] is query i0 + k's
 * 16 outputs from c0 on (lanes past nc zero). Shared by the fp32 and bf16
 * stores, which differ only in how a row is written. */
ATTENTION_AVX512_TRANSPOSE static inline __attribute__((always_inline)) void
scaled_rows16(const float *ot, size_t bq, size_t i0, size_t c0, size_t nc, __m512 inv, __m512i r[16])
{
#pragma GCC unroll 16
    for (size_t k = 0; k < 16; k++)
        r[k] = k < nc ? _mm512_castps_si512(_mm512_mul_ps(_mm512_load_ps(ot + (c0 + k) * bq + i0), inv))
                      : _mm512_setzero_si512();
    transpose16(r);
}

#endif
