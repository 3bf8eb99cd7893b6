/* f16.h - IEEE binary16 (fp16) storage. Conversions round to nearest, ties
 * to even, subnormals included; NaN stays NaN (quiet), overflow goes to inf.
 * Bit-level, so results do not depend on the CPU having F16C. */
#ifndef COMPONENTS_F16_H
#define COMPONENTS_F16_H

#include <stdint.h>
#include <string.h>

static inline float f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, u;
    if (exp == 0x1f) {
        u = sign | 0x7f800000u | (man << 13);          /* inf, NaN (payload kept) */
    } else if (exp == 0) {
        /* zero or subnormal: man * 2^-24, exact in f32 */
        float f = (float)man * (1.0f / 16777216.0f);
        return sign ? -f : f;
    } else {
        u = sign | ((exp + 112u) << 23) | (man << 13);  /* rebias 15 -> 127 */
    }
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline uint16_t f32_to_f16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t a = u & 0x7fffffffu;
    if (a > 0x7f800000u)                               /* NaN: quiet, top payload bits */
        return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
    /* 65520 (0x477ff000) is halfway between 65504, the largest finite half
     * (odd significand), and 65536: ties to even go up, so it and above are inf. */
    if (a >= 0x477ff000u)
        return (uint16_t)(sign | 0x7c00u);
    if (a < 0x38800000u) {
        /* Below 2^-14: a subnormal half, i.e. round(|f| * 2^24) as an integer.
         * |f| = mant * 2^(e - 150), so that integer is mant >> (126 - e). */
        uint32_t e = a >> 23;
        if (e < 102)                                   /* < 2^-25: rounds to zero */
            return sign;
        uint32_t mant = (a & 0x7fffffu) | 0x800000u, shift = 126 - e;
        uint32_t r = mant >> shift, rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (r & 1u)))
            r++;                                       /* may carry into the min normal: right */
        return (uint16_t)(sign | r);
    }
    /* Normal: round the 13 dropped bits half to even (as f32_to_bf16 does),
     * then rebias the exponent 127 -> 15; a carry rounds into the exponent. */
    a += 0xfffu + ((a >> 13) & 1u);
    return (uint16_t)(sign | ((a >> 13) - (112u << 10)));
}

#endif
