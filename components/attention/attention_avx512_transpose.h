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

#endif
