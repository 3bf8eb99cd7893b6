/* transformer_block_ops.c - the elementwise steps the fp32 block
 * (transformer_block_cpu.c) and the bf16 block (transformer_block_bf16.c)
 * share: kept out of either, since transformer_block_cpu.c calls the bf16
 * block's forward, so that the two do not call each other
 * (scripts/arch_figures, "use circles"). Declared in transformer_block.h. */
#include "transformer_block.h"
#include "common/bf16.h"

#include <stdint.h>
#include <string.h>

void transformer_block_bf16_to_f32(const uint16_t *src, float *dst, size_t n)
{
#pragma omp parallel for simd schedule(static)
    for (size_t i = 0; i < n; i++)
        dst[i] = bf16_to_f32(src[i]);
}

/* e^x to within 1.1e-7 relative (every float in [-87, 88] checked against
 * exp(): 1.03e-7 at most, 7.9e-8 with FMA), in plain arithmetic that the
 * compiler vectorizes, where a call to expf keeps the loop scalar: SwiGLU ran
 * 7x faster per core with it. x = n ln2 + r with |r| <= ln2/2 (ln2 split in
 * two so that n * hi is exact), e^r by its degree-7 Taylor polynomial
 * (truncation 5e-9 relative), 2^n put into the exponent bits. x is clamped to
 * [-87, 88] so that 2^n stays a normal float: for g <= -88, g / (1 + e^-g)
 * becomes g / 1.7e38 where it should be ~0, under 1e-8 for any |g| < 1e30;
 * and e^-87 = 1.6e-38 vanishes next to 1 as the true e^-g would. */
static inline float exp_approx(float x)
{
    x = x > -87.0f ? x : -87.0f;                   /* NaN too: SwiGLU's g keeps it NaN */
    x = x < 88.0f ? x : 88.0f;
    /* Adding and subtracting 1.5 x 2^23 rounds to the nearest integer. */
    float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
    float r = (x - n * 0.693359375f) - n * -2.12194440e-4f;
    float p = 1.0f / 5040.0f;
    p = p * r + 1.0f / 720.0f;
    p = p * r + 1.0f / 120.0f;
    p = p * r + 1.0f / 24.0f;
    p = p * r + 1.0f / 6.0f;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    uint32_t bits = (uint32_t)((int32_t)n + 127) << 23;    /* n in [-126, 127] */
    float two_n;
    memcpy(&two_n, &bits, sizeof two_n);
    return p * two_n;
}

/* g = SiLU(g) * u = g / (1 + e^-g) * u. On x86-64, cloned for AVX-512,
 * AVX2 + FMA and the baseline; the loader picks the best this CPU runs. */
#if defined(__x86_64__)
#define SWIGLU_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define SWIGLU_CLONES
#endif

SWIGLU_CLONES
static void swiglu_cloned(float *gate, const float *up, size_t n)
{
#pragma omp parallel for simd schedule(static)
    for (size_t i = 0; i < n; i++)
        gate[i] = gate[i] / (1.0f + exp_approx(-gate[i])) * up[i];
}

/* The exported name calls the clones rather than being them: clang (14)
 * emits a target_clones function's resolver only in a file that calls it,
 * so an exported clone set left callers elsewhere with nothing to link. */
void transformer_block_swiglu(float *gate, const float *up, size_t n)
{
    swiglu_cloned(gate, up, n);
}
