/* bf16_avx512.h - f32 -> bf16 sixteen at a time, bit for bit what
 * f32_to_bf16 (bf16.h) gives: nearest even by integer addition, a NaN kept a
 * quiet NaN. vcvtneps2bf16 would be one instruction, but it flushes denormal
 * inputs to zero and needs AVX-512 BF16; this needs AVX-512 F only.
 * x86-64 only; the caller's function carries the target attribute. */
#ifndef COMMON_BF16_AVX512_H
#define COMMON_BF16_AVX512_H

#if defined(__x86_64__)
#include "common/bf16.h"

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

static inline __attribute__((always_inline, target("avx512f"))) __m256i bf16_of_f32_avx512(__m512 v)
{
    __m512i u = _mm512_castps_si512(v);
    __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
    __m512i rounded = _mm512_srli_epi32(_mm512_add_epi32(u, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7fff))), 16);
    __mmask16 nan = _mm512_cmpgt_epu32_mask(_mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff)),
                                            _mm512_set1_epi32(0x7f800000));
    __m512i quiet = _mm512_or_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(0x40));
    return _mm512_cvtepi32_epi16(_mm512_mask_blend_epi32(nan, rounded, quiet));
}

/* n floats into bf16: sixteen at a time, the rest one by one. */
static inline __attribute__((target("avx512f"))) void bf16_of_f32_row_avx512(const float *src, uint16_t *dst,
                                                                            size_t n)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm256_storeu_si256((__m256i *)(void *)(dst + i), bf16_of_f32_avx512(_mm512_loadu_ps(src + i)));
    for (; i < n; i++)
        dst[i] = f32_to_bf16(src[i]);
}
#endif

#endif
