/* bf16_rounding.h - whether a kernel's bf16 outputs were rounded to nearest
 * rather than truncated, which a tolerance of an ulp or two cannot tell: a
 * truncated value is at most one ulp off, as a correctly rounded one of a
 * slightly inexact fp32 result can be. Two ways, header-only, for the
 * simulated tests (C++):
 *   bf16_rounding_bias   for kernels whose fp32 result is accurate to far
 *                        below an ulp of bf16 (RMSNorm, RoPE, SwiGLU): the
 *                        errors' mean, signed towards larger magnitude, is
 *                        about 0 when rounded to nearest, -0.5 ulp when
 *                        truncated;
 *   bf16_not_nearest     for inputs chosen so that the fp32 result is exact
 *                        to a few fp32 ulps (attention with every weight 1):
 *                        each output must be the bf16 nearest to the exact
 *                        value. */
#ifndef TESTS_BF16_ROUNDING_H
#define TESTS_BF16_ROUNDING_H

#include "common/bf16.h"

#include <cmath>
#include <cstddef>
#include <cstdint>

/* Fewer outputs than this say nothing: the mean's noise is about 0.3 / sqrt(n) ulps. */
const size_t BF16_ROUNDING_MIN_COUNT = 256;
/* Round-to-nearest measures within 0.03 on the tests' data; truncation about -0.5. */
const double BF16_ROUNDING_MAX_BIAS = 0.2;

/* The ulp of bf16 (8 significant bits) at magnitude w > 0. */
static inline double bf16_ulp(double w)
{
    int e;
    std::frexp(w, &e);                            /* w in [2^(e-1), 2^e) */
    return std::ldexp(1.0, e - 8);
}

/* The mean of (|got| - |want|) / ulp(want) over the n outputs whose exact
 * value (want, from a double reference) is a normal bf16 magnitude; their
 * count in *counted. */
static inline double bf16_rounding_bias(const uint16_t *got, const double *want, size_t n, size_t *counted)
{
    double sum = 0.0;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        double w = std::fabs(want[i]);
        if (!(w > 1e-30 && w < 1e30))
            continue;
        sum += (std::fabs((double)bf16_to_f32(got[i])) - w) / bf16_ulp(w);
        m++;
    }
    *counted = m;
    return m ? sum / (double)m : 0.0;
}

/* How many of the n outputs are not the bf16 value nearest to want; values
 * within 1/16 ulp of a midpoint between two bf16 values (where an fp32
 * result's own errors may put it on either side) and magnitudes below 2^-10
 * (where they are a larger part of an ulp) are not counted, nor in
 * *counted. Truncation misses the nearest in about half of the others. */
static inline size_t bf16_not_nearest(const uint16_t *got, const double *want, size_t n, size_t *counted)
{
    size_t wrong = 0, m = 0;
    for (size_t i = 0; i < n; i++) {
        double w = std::fabs(want[i]), ulp = bf16_ulp(w);
        double below = std::floor(w / ulp) * ulp;  /* the bf16 magnitude at or below w */
        if (!(w >= 0x1p-10 && w < 1e30) || std::fabs((w - below) / ulp - 0.5) < 0x1p-4)
            continue;
        double nearest = w - below < below + ulp - w ? below : below + ulp;
        m++;
        wrong += std::fabs((double)bf16_to_f32(got[i])) != nearest || (want[i] < 0) != (bf16_to_f32(got[i]) < 0);
    }
    *counted = m;
    return wrong;
}

#endif
