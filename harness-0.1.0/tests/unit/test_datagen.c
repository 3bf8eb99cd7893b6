/* test_datagen.c - harness/datagen.c: determinism, thread-count
 * independence, distributions (deterministic given the seed, so exact
 * bounds cannot flake), constants, and the half-precision roundings. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "common/bf16.h"
#include "run/datagen.h"

#include "assert_near.h"

static const harness_dtype all_dtypes[] = {HARNESS_DTYPE_F32, HARNESS_DTYPE_BF16,
                                           HARNESS_DTYPE_F16, HARNESS_DTYPE_F64,
                                           HARNESS_DTYPE_I32};
static const harness_generator all_kinds[] = {HARNESS_GEN_RANDOM_NORMAL,
                                              HARNESS_GEN_RANDOM_UNIFORM, HARNESS_GEN_ZEROS,
                                              HARNESS_GEN_ONES};

static size_t dtype_size(harness_dtype d)
{
    return d == HARNESS_DTYPE_F64 ? 8 : d == HARNESS_DTYPE_BF16 || d == HARNESS_DTYPE_F16 ? 2 : 4;
}

#ifdef __FLT16_MAX__
/* The compiler's own float -> _Float16 conversion (round to nearest even):
 * an independent reference for harness_f32_to_f16. */
static uint16_t compiler_f16(float f)
{
    __extension__ _Float16 h = (_Float16)f;
    uint16_t bits;
    memcpy(&bits, &h, sizeof bits);
    return bits;
}
#endif

/* The fill number `stream` (0-based) of a generator made with (kind, seed). */
static void *fill_nth(harness_generator kind, uint64_t seed, uint64_t stream, size_t count,
                      harness_dtype dtype)
{
    harness_datagen g;
    harness_datagen_init(&g, kind, seed);
    void *buf = malloc(count * dtype_size(dtype));
    assert_non_null(buf);
    for (uint64_t s = 0; s <= stream; s++)
        assert_int_equal(harness_datagen_fill(&g, buf, count, dtype), 0);
    return buf;
}

static void test_determinism(void **state)
{
    (void)state;
    enum { N = 10001 };            /* several blocks and an odd tail */
    for (size_t k = 0; k < 2; k++) {
        for (size_t d = 0; d < sizeof all_dtypes / sizeof *all_dtypes; d++) {
            harness_dtype dt = all_dtypes[d];
            size_t bytes = N * dtype_size(dt);
            void *a = fill_nth(all_kinds[k], 1234, 0, N, dt);
            void *b = fill_nth(all_kinds[k], 1234, 0, N, dt);
            void *other_seed = fill_nth(all_kinds[k], 1235, 0, N, dt);
            void *next_stream = fill_nth(all_kinds[k], 1234, 1, N, dt);
            assert_memory_equal(a, b, bytes);
            assert_memory_not_equal(a, other_seed, bytes);
            assert_memory_not_equal(a, next_stream, bytes);
            free(a);
            free(b);
            free(other_seed);
            free(next_stream);
        }
    }
}

/* Pinned outputs, so that a change to the generator (which would silently
 * change every experiment's inputs) shows up here. Computed independently
 * with a Python transcription of the algorithm: key = mix(mix(1234) +
 * 1 * GOLDEN), bits_i = mix(key + (i + 1) * GOLDEN), mix = splitmix64's
 * output function. */
static void test_pinned_values(void **state)
{
    (void)state;
    double *u = fill_nth(HARNESS_GEN_RANDOM_UNIFORM, 1234, 0, 123457, HARNESS_DTYPE_F64);
    assert_near(u[0], -0.7964230759840618, 0);    /* (bits >> 11) 2^-52 - 1 */
    assert_near(u[1], 0.20867695812213016, 0);
    assert_near(u[2], 0.8017981518205033, 0);
    assert_near(u[3], 0.45331186478883656, 0);
    /* far from the start, in other parallel blocks */
    assert_near(u[4999], -0.5819491225864672, 0);
    assert_near(u[123456], -0.39502497062921993, 0);
    free(u);
    float *f = fill_nth(HARNESS_GEN_RANDOM_UNIFORM, 1234, 0, 2, HARNESS_DTYPE_F32);
    assert_near(f[0], -0.796423077583313, 0);     /* (bits >> 40) 2^-23 - 1 */
    assert_near(f[1], 0.20867693424224854, 0);
    free(f);
    int32_t *i = fill_nth(HARNESS_GEN_RANDOM_NORMAL, 1234, 0, 4, HARNESS_DTYPE_I32);
    assert_int_equal(i[0], -80);                  /* ((bits >> 32) 201 >> 32) - 100 */
    assert_int_equal(i[1], 21);
    assert_int_equal(i[2], 81);
    assert_int_equal(i[3], 46);
    free(i);
    /* Box-Muller on draws 0 and 1; libm's last bit may differ by platform. */
    double *n = fill_nth(HARNESS_GEN_RANDOM_NORMAL, 1234, 0, 2, HARNESS_DTYPE_F64);
    assert_near(n[0], -1.6945373991925288, 1e-12);
    assert_near(n[1], -1.303173067909174, 1e-12);
    free(n);
}

static void test_thread_count_independent(void **state)
{
    (void)state;
#ifndef _OPENMP
    skip();
#else
    enum { N = 100003 };
    int saved = omp_get_max_threads();
    for (size_t k = 0; k < 2; k++) {
        for (size_t d = 0; d < sizeof all_dtypes / sizeof *all_dtypes; d++) {
            harness_dtype dt = all_dtypes[d];
            omp_set_num_threads(1);
            void *one = fill_nth(all_kinds[k], 99, 2, N, dt);
            omp_set_num_threads(2);
            void *two = fill_nth(all_kinds[k], 99, 2, N, dt);
            assert_memory_equal(one, two, N * dtype_size(dt));
            free(one);
            free(two);
        }
    }
    omp_set_num_threads(saved);
#endif
}

static void test_normal_moments(void **state)
{
    (void)state;
    /* Standard errors at n = 1e6: mean 0.001, std ~0.0007, so 0.01 is over
     * ten of them; and the values are fixed by the seed. */
    enum { N = 1000000 };
    double *x = fill_nth(HARNESS_GEN_RANDOM_NORMAL, 1234, 0, N, HARNESS_DTYPE_F64);
    double sum = 0.0, ss = 0.0;
    for (size_t i = 0; i < N; i++)
        sum += x[i];
    double mean = sum / N;
    for (size_t i = 0; i < N; i++)
        ss += (x[i] - mean) * (x[i] - mean);
    assert_near(mean, 0.0, 0.01);
    assert_near(sqrt(ss / (N - 1)), 1.0, 0.01);
    free(x);
}

static void test_uniform_range(void **state)
{
    (void)state;
    enum { N = 200000 };
    double *d = fill_nth(HARNESS_GEN_RANDOM_UNIFORM, 7, 0, N, HARNESS_DTYPE_F64);
    float *f = fill_nth(HARNESS_GEN_RANDOM_UNIFORM, 7, 0, N, HARNESS_DTYPE_F32);
    double lo = 1, hi = -1, sum = 0;
    for (size_t i = 0; i < N; i++) {
        if (!(d[i] >= -1.0 && d[i] < 1.0) || !(f[i] >= -1.0f && f[i] < 1.0f))
            fail_msg("element %zu out of [-1, 1): %.17g %.9g", i, d[i], (double)f[i]);
        /* F32 is the F64 value truncated to the 2^-23 grid */
        assert_true((double)f[i] <= d[i] && d[i] - (double)f[i] < 0x1p-23);
        lo = fmin(lo, d[i]);
        hi = fmax(hi, d[i]);
        sum += d[i];
    }
    assert_true(lo < -0.999 && hi > 0.999);
    assert_near(sum / N, 0.0, 0.01);              /* standard error 0.0013 */
    free(d);
    free(f);

    /* bf16 and f16 hold rounded F32 values, which may reach 1.0 */
    uint16_t *b = fill_nth(HARNESS_GEN_RANDOM_UNIFORM, 7, 0, N, HARNESS_DTYPE_BF16);
    for (size_t i = 0; i < N; i++) {
        float v = bf16_to_f32(b[i]);
        assert_true(v >= -1.0f && v <= 1.0f);
    }
    free(b);

    int32_t *n = fill_nth(HARNESS_GEN_RANDOM_UNIFORM, 7, 0, N, HARNESS_DTYPE_I32);
    int seen_lo = 0, seen_hi = 0;
    for (size_t i = 0; i < N; i++) {
        assert_true(n[i] >= -100 && n[i] <= 100);
        seen_lo |= n[i] == -100;
        seen_hi |= n[i] == 100;
    }
    assert_true(seen_lo && seen_hi);
    free(n);
}

static void test_constants(void **state)
{
    (void)state;
    enum { N = 5000 };
    for (int one = 0; one <= 1; one++) {
        harness_generator kind = one ? HARNESS_GEN_ONES : HARNESS_GEN_ZEROS;
        float *f = fill_nth(kind, 1, 0, N, HARNESS_DTYPE_F32);
        uint16_t *b = fill_nth(kind, 1, 0, N, HARNESS_DTYPE_BF16);
        uint16_t *h = fill_nth(kind, 1, 0, N, HARNESS_DTYPE_F16);
        double *d = fill_nth(kind, 1, 0, N, HARNESS_DTYPE_F64);
        int32_t *i32 = fill_nth(kind, 1, 0, N, HARNESS_DTYPE_I32);
        for (size_t i = 0; i < N; i++) {
            assert_true(f[i] == (float)one);
            assert_int_equal(b[i], one ? 0x3f80 : 0);   /* bf16 1.0 = f32 0x3f800000 >> 16 */
            assert_int_equal(h[i], one ? 0x3c00 : 0);   /* half 1.0: exponent 15, mantissa 0 */
            assert_true(d[i] == (double)one);
            assert_int_equal(i32[i], one);
        }
        free(f);
        free(b);
        free(h);
        free(d);
        free(i32);
    }
}

/* BF16 and F16 fills equal the F32 fill of the same stream, rounded. */
static void test_half_types_are_rounded_f32(void **state)
{
    (void)state;
    enum { N = 50001 };
    for (size_t k = 0; k < 2; k++) {
        float *f = fill_nth(all_kinds[k], 42, 3, N, HARNESS_DTYPE_F32);
        uint16_t *b = fill_nth(all_kinds[k], 42, 3, N, HARNESS_DTYPE_BF16);
        uint16_t *h = fill_nth(all_kinds[k], 42, 3, N, HARNESS_DTYPE_F16);
        for (size_t i = 0; i < N; i++) {
            assert_int_equal(b[i], f32_to_bf16(f[i]));
            assert_int_equal(h[i], harness_f32_to_f16(f[i]));
#ifdef __FLT16_MAX__
            assert_int_equal(h[i], compiler_f16(f[i]));
#endif
        }
        free(f);
        free(b);
        free(h);
    }
}

static uint16_t f16_of_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return harness_f32_to_f16(f);
}

/* Hand-derived encodings: half = sign | (e + 15) << 10 | mantissa, f32 =
 * sign | (e + 127) << 23 | mantissa; ties go to the even mantissa. */
static void test_f16_conversion(void **state)
{
    (void)state;
    assert_int_equal(harness_f32_to_f16(1.0f), 0x3c00);
    assert_int_equal(harness_f32_to_f16(-2.0f), 0xc000);
    assert_int_equal(harness_f32_to_f16(0.5f), 0x3800);
    assert_int_equal(harness_f32_to_f16(-0.0f), 0x8000);
    assert_int_equal(harness_f32_to_f16(65504.0f), 0x7bff);          /* largest finite */
    assert_int_equal(harness_f32_to_f16(65519.0f), 0x7bff);          /* below the tie */
    assert_int_equal(harness_f32_to_f16(65520.0f), 0x7c00);          /* tie: even is 2^16 = inf */
    assert_int_equal(harness_f32_to_f16(INFINITY), 0x7c00);
    assert_int_equal(harness_f32_to_f16(-INFINITY), 0xfc00);
    /* 1 + 2^-11 is halfway between 1 (mantissa 0) and 1 + 2^-10 (mantissa 1) */
    assert_int_equal(harness_f32_to_f16(1.0f + 0x1p-11f), 0x3c00);
    /* 1 + 3 2^-11 is halfway between mantissas 1 and 2: even is 2 */
    assert_int_equal(harness_f32_to_f16(1.0f + 0x3p-11f), 0x3c02);
    assert_int_equal(harness_f32_to_f16(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01); /* past the tie */
    /* 0.1f = 0x3dcccccd: exponent -4, mantissa 0x4ccccd; the top 10 bits
     * are 0x266 and the 13 dropped ones 0x0ccd, under the half 0x1000, so
     * it rounds down: half = ((-4 + 15) << 10) | 0x266 = 0x2e66 */
    assert_int_equal(harness_f32_to_f16(0.1f), 0x2e66);
    assert_int_equal(harness_f32_to_f16(0x1p-14f), 0x0400);          /* smallest normal */
    assert_int_equal(harness_f32_to_f16(0x1p-24f), 0x0001);          /* smallest subnormal */
    assert_int_equal(harness_f32_to_f16(0x3p-25f), 0x0002);          /* 1.5 units: tie to 2 */
    assert_int_equal(harness_f32_to_f16(0x1p-25f), 0x0000);          /* 0.5 units: tie to 0 */
    assert_int_equal(harness_f32_to_f16(0x1.000002p-25f), 0x0001);   /* just over half a unit */
    assert_int_equal(harness_f32_to_f16(0x1p-30f), 0x0000);
    /* 1023 units = 0x1.ff8p-15 is the largest subnormal; 1023.5 units
     * = 0x1.ffcp-15 ties between the odd 1023 and 1024 = the smallest normal */
    assert_int_equal(harness_f32_to_f16(0x1.ff8p-15f), 0x03ff);
    assert_int_equal(harness_f32_to_f16(0x1.ffcp-15f), 0x0400);
    uint16_t nan = harness_f32_to_f16(NAN);
    assert_true((nan & 0x7c00) == 0x7c00 && (nan & 0x03ff) != 0);
    assert_int_equal(f16_of_bits(0x7f800001u) & 0x7e00, 0x7e00);     /* signalling -> quiet */
#ifdef __FLT16_MAX__
    /* A sweep of bit patterns against the compiler's own conversion. */
    for (uint64_t x = 0; x <= 0xffffffffu; x += 65521) {
        float f;
        uint32_t u = (uint32_t)x;
        memcpy(&f, &u, sizeof f);
        if (!isnan(f) && harness_f32_to_f16(f) != compiler_f16(f))
            fail_msg("0x%08x: 0x%04x, compiler says 0x%04x", u, harness_f32_to_f16(f),
                     compiler_f16(f));
    }
#endif
}

static void test_bad_input(void **state)
{
    (void)state;
    harness_datagen g, fresh;
    float a[16], b[16];
    harness_datagen_init(&g, HARNESS_GEN_RANDOM_NORMAL, 5);
    harness_datagen_init(&fresh, HARNESS_GEN_RANDOM_NORMAL, 5);
    assert_int_equal(harness_datagen_fill(&g, a, 16, (harness_dtype)0), -1);
    assert_int_equal(harness_datagen_fill(&g, a, 16, (harness_dtype)99), -1);
    assert_int_equal(harness_datagen_fill(&g, NULL, 16, HARNESS_DTYPE_F32), -1);
    assert_int_equal(harness_datagen_fill(&g, NULL, 0, HARNESS_DTYPE_F32), 0);
    /* The empty fill took stream 0 and the failed ones none, so g's next
     * fill is stream 1, like fresh's second. */
    assert_int_equal(harness_datagen_fill(&fresh, b, 16, HARNESS_DTYPE_F32), 0);
    assert_int_equal(harness_datagen_fill(&g, a, 16, HARNESS_DTYPE_F32), 0);
    assert_int_equal(harness_datagen_fill(&fresh, b, 16, HARNESS_DTYPE_F32), 0);
    assert_memory_equal(a, b, sizeof a);

    harness_datagen bad;
    harness_datagen_init(&bad, (harness_generator)42, 5);
    assert_int_equal(harness_datagen_fill(&bad, a, 16, HARNESS_DTYPE_F32), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_pinned_values),
        cmocka_unit_test(test_thread_count_independent),
        cmocka_unit_test(test_normal_moments),
        cmocka_unit_test(test_uniform_range),
        cmocka_unit_test(test_constants),
        cmocka_unit_test(test_half_types_are_rounded_f32),
        cmocka_unit_test(test_f16_conversion),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
