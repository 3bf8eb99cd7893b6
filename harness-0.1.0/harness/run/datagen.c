/* datagen.c - counter-based generation of component inputs: every element
 * is computed from (seed, stream, index) alone, never from a running state. */
#include "run/datagen.h"

#include <math.h>
#include <string.h>

#include "common/bf16.h"

/* Elements per parallel work item: large enough to amortize the scheduling,
 * small enough for a stack buffer, and even so that the two values of a
 * Box-Muller pair never fall into different blocks. */
enum { BLOCK = 2048 };

/* 2^64 / golden ratio: splitmix64's Weyl increment. */
#define GOLDEN UINT64_C(0x9e3779b97f4a7c15)

/* splitmix64's output function (Steele, Lea and Flood, 2014): a bijection on
 * 64-bit words in which every input bit flips each output bit about half
 * the time. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Output i of a splitmix64 generator started at `key`: splitmix64's state
 * only ever advances by GOLDEN, so any output can be computed directly. */
static uint64_t draw(uint64_t key, uint64_t i)
{
    return mix64(key + (i + 1) * GOLDEN);
}

/* The key of a stream is itself output `stream` of a generator keyed by the
 * mixed seed, so streams start at unrelated points of the 2^64 cycle and
 * overlap only with probability ~ length / 2^64. */
static uint64_t stream_key(uint64_t seed, uint64_t stream)
{
    return draw(mix64(seed), stream);
}

/* 53 random bits as a double in (0, 1]: never 0, so log() is finite. */
static double open_unit(uint64_t bits)
{
    return (double)((bits >> 11) + 1) * 0x1p-53;
}

/* 53 random bits as a double in [0, 1). */
static double unit(uint64_t bits)
{
    return (double)(bits >> 11) * 0x1p-53;
}

/* Uniform on [-1, 1) on a grid of 2^(1 - mant_bits): every value is exact in
 * a type with mant_bits significant bits, so converting it cannot round up
 * to 1. F32 (24 bits) thus gets the F64 (53 bits) value truncated to its
 * grid. */
static double symmetric_unit(uint64_t bits, int mant_bits)
{
    return ldexp((double)(bits >> (64 - mant_bits)), 1 - mant_bits) - 1.0;
}

/* Uniform integer in [-100, 100]: the high 32 bits scaled to 201 values
 * (multiply-shift; the bias, 201 / 2^32, is far below anything a benchmark
 * input can show). */
static double small_int(uint64_t bits)
{
    return (double)(((bits >> 32) * 201u) >> 32) - 100.0;
}

/* Values of elements [begin, begin + n) as doubles; begin is even. */
static void generate(harness_generator kind, harness_dtype dtype, uint64_t key, size_t begin,
                     size_t n, double *v)
{
    if (kind == HARNESS_GEN_ZEROS || kind == HARNESS_GEN_ONES) {
        double c = kind == HARNESS_GEN_ONES ? 1.0 : 0.0;
        for (size_t i = 0; i < n; i++)
            v[i] = c;
        return;
    }
    if (dtype == HARNESS_DTYPE_I32) {
        for (size_t i = 0; i < n; i++)
            v[i] = small_int(draw(key, begin + i));
        return;
    }
    if (kind == HARNESS_GEN_RANDOM_UNIFORM) {
        int mant_bits = dtype == HARNESS_DTYPE_F64 ? 53 : 24;
        for (size_t i = 0; i < n; i++)
            v[i] = symmetric_unit(draw(key, begin + i), mant_bits);
        return;
    }
    /* Box-Muller: draws 2p and 2p+1 give u1 in (0, 1] and u2 in [0, 1), and
     * r cos(2 pi u2), r sin(2 pi u2) with r = sqrt(-2 ln u1) are two
     * independent standard normals, for elements 2p and 2p+1. */
    const double two_pi = 6.283185307179586476925;
    for (size_t i = 0; i < n; i += 2) {
        uint64_t e = begin + i;
        double r = sqrt(-2.0 * log(open_unit(draw(key, e))));
        double theta = two_pi * unit(draw(key, e + 1));
        v[i] = r * cos(theta);
        if (i + 1 < n)
            v[i + 1] = r * sin(theta);
    }
}

/* BF16 and F16 go through F32 so that they are exactly the F32 values
 * rounded, whatever the reference computes in. */
static void store(harness_dtype dtype, void *buf, size_t begin, size_t n, const double *v)
{
    switch (dtype) {
    case HARNESS_DTYPE_F32: {
        float *o = (float *)buf + begin;
        for (size_t i = 0; i < n; i++)
            o[i] = (float)v[i];
        break;
    }
    case HARNESS_DTYPE_BF16: {
        uint16_t *o = (uint16_t *)buf + begin;
        for (size_t i = 0; i < n; i++)
            o[i] = f32_to_bf16((float)v[i]);
        break;
    }
    case HARNESS_DTYPE_F16: {
        uint16_t *o = (uint16_t *)buf + begin;
        for (size_t i = 0; i < n; i++)
            o[i] = harness_f32_to_f16((float)v[i]);
        break;
    }
    case HARNESS_DTYPE_F64:
        memcpy((double *)buf + begin, v, n * sizeof *v);
        break;
    case HARNESS_DTYPE_I32: {
        int32_t *o = (int32_t *)buf + begin;
        for (size_t i = 0; i < n; i++)
            o[i] = (int32_t)v[i];
        break;
    }
    }
}

static int known_dtype(harness_dtype d)
{
    return d == HARNESS_DTYPE_F32 || d == HARNESS_DTYPE_BF16 || d == HARNESS_DTYPE_F16 ||
           d == HARNESS_DTYPE_F64 || d == HARNESS_DTYPE_I32;
}

static int known_kind(harness_generator k)
{
    return k == HARNESS_GEN_RANDOM_NORMAL || k == HARNESS_GEN_RANDOM_UNIFORM ||
           k == HARNESS_GEN_ZEROS || k == HARNESS_GEN_ONES;
}

void harness_datagen_init(harness_datagen *g, harness_generator kind, uint64_t seed)
{
    g->kind = kind;
    g->seed = seed;
    g->next_stream = 0;
}

int harness_datagen_fill(harness_datagen *g, void *buf, size_t count, harness_dtype dtype)
{
    if (!known_dtype(dtype) || !known_kind(g->kind) || (!buf && count))
        return -1;
    uint64_t key = stream_key(g->seed, g->next_stream++);
    size_t nblocks = count / BLOCK + (count % BLOCK != 0);
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (nblocks > 1)
#endif
    for (size_t b = 0; b < nblocks; b++) {
        double v[BLOCK];
        size_t begin = b * BLOCK;
        size_t n = count - begin < BLOCK ? count - begin : BLOCK;
        generate(g->kind, dtype, key, begin, n, v);
        store(dtype, buf, begin, n, v);
    }
    return 0;
}

/* binary16: 1 sign, 5 exponent (bias 15), 10 mantissa bits. Largest finite
 * 65504; smallest normal 2^-14; subnormals are multiples of 2^-24. */
uint16_t harness_f32_to_f16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t a = u & 0x7fffffffu;
    if (a > 0x7f800000u)                       /* NaN: keep it a (quiet) NaN */
        return sign | 0x7e00u;
    if (a >= 0x477ff000u)                      /* >= 65520, the tie between 65504 and 2^16: */
        return sign | 0x7c00u;                 /* even is 2^16, which overflows; also inf */
    if (a >= 0x38800000u) {                    /* >= 2^-14: a normal half */
        /* Rebias the exponent (127 -> 15: subtract 112 << 23) and drop 13
         * mantissa bits, rounding half to even. A carry out of the mantissa
         * moves into the exponent, which is the right answer. */
        uint32_t h = (a - 0x38000000u) >> 13;
        uint32_t rest = a & 0x1fffu;
        h += rest > 0x1000u || (rest == 0x1000u && (h & 1u));
        return sign | (uint16_t)h;
    }
    uint32_t e = a >> 23;
    if (e < 102)                               /* < 2^-25, half the smallest subnormal: 0 */
        return sign;                           /* (2^-25 itself ties to the even 0 below) */
    /* Subnormal: the value m 2^(e - 150) in units of 2^-24 is m >> (126 - e),
     * with m the significand including its implicit bit. 1024 units rounds
     * up into the smallest normal, whose encoding is the same number. */
    uint32_t m = (a & 0x7fffffu) | 0x800000u;
    unsigned s = 126 - e;                      /* 14 .. 24 */
    uint32_t q = m >> s, rest = m & ((1u << s) - 1u), half = 1u << (s - 1);
    q += rest > half || (rest == half && (q & 1u));
    return sign | (uint16_t)q;
}
