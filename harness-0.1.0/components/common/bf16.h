/* bf16.h - bfloat16 storage: the upper 16 bits of an IEEE binary32.
 * Conversions round to nearest, ties to even; NaN stays NaN (quiet). */
#ifndef COMPONENTS_BF16_H
#define COMPONENTS_BF16_H

#include <stdint.h>
#include <string.h>

static inline float bf16_to_f32(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline uint16_t f32_to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u)          /* NaN: keep it a (quiet) NaN */
        return (uint16_t)((u >> 16) | 0x0040u);
    /* Adding 0x7fff plus the lowest kept bit rounds half to even: a tie
     * carries into the kept bits only when that bit is already 1. */
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

#endif
