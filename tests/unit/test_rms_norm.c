/* test_rms_norm.c - the RMSNorm kernels on every instruction set this CPU
 * has, against the double reference through the checker the plugin uses;
 * bf16 rounding; the checker's own failure path; copy_cpu. */
#include "calibration/copy.h"
#include "rms_norm/rms_norm.h"
#include "common/bf16.h"
#include "common/f16.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

static const char *const isas[] = {"avx512", "avx2", "portable"};
#define N_ISAS (sizeof isas / sizeof isas[0])

typedef struct path {
    const char *isa;
    rms_norm_dtype dtype;
} path;

/* ---- data ------------------------------------------------------------- */

static uint32_t rng = 1;

static float uniform(float lo, float hi)
{
    rng = rng * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(rng >> 8) / (float)(1u << 24);
}

static size_t elem_size(rms_norm_dtype dtype)
{
    return dtype == RMS_NORM_BF16 ? sizeof(uint16_t) : sizeof(float);
}

static void store(rms_norm_dtype dtype, void *p, size_t i, float v)
{
    if (dtype == RMS_NORM_BF16)
        ((uint16_t *)p)[i] = f32_to_bf16(v);
    else
        ((float *)p)[i] = v;
}

static float fetch(rms_norm_dtype dtype, const void *p, size_t i)
{
    return dtype == RMS_NORM_BF16 ? bf16_to_f32(((const uint16_t *)p)[i]) : ((const float *)p)[i];
}

typedef struct case_data {
    rms_norm_dtype dtype;
    size_t rows, hidden;
    void *x, *w, *y;
} case_data;

/* x uniform in +-scale, w in [0.5, 1.5): what the data generator gives, with
 * a scale small enough for eps to matter when asked. */
static case_data make_case(rms_norm_dtype dtype, size_t rows, size_t hidden, float scale)
{
    case_data c = {dtype, rows, hidden, NULL, NULL, NULL};
    size_t es = elem_size(dtype);
    c.x = malloc(rows * hidden * es);
    c.w = malloc(hidden * es);
    c.y = malloc(rows * hidden * es);
    assert_non_null(c.x);
    assert_non_null(c.w);
    assert_non_null(c.y);
    for (size_t i = 0; i < rows * hidden; i++)
        store(dtype, c.x, i, uniform(-scale, scale));
    for (size_t i = 0; i < hidden; i++)
        store(dtype, c.w, i, uniform(0.5f, 1.5f));
    return c;
}

static void free_case(case_data *c)
{
    free(c->x);
    free(c->w);
    free(c->y);
}

static void run_kernel(const case_data *c, float eps)
{
    if (c->dtype == RMS_NORM_BF16)
        rms_norm_bf16(c->x, c->w, c->y, c->rows, c->hidden, eps);
    else
        rms_norm_f32(c->x, c->w, c->y, c->rows, c->hidden, eps);
}

static rms_norm_check_result check(const case_data *c, float eps)
{
    rms_norm_check_result res;
    assert_int_equal(rms_norm_check(c->dtype, c->x, c->w, c->y, c->rows, c->hidden, eps, &res), 0);
    return res;
}

/* Switches to the path's ISA, or skips the test where this CPU lacks it. */
static void use_isa(const char *isa)
{
    if (rms_norm_set_isa(isa) != 0)
        skip();
    assert_string_equal(rms_norm_isa(), isa);
}

/* ---- kernels vs reference --------------------------------------------- */

/* Each row kernel has a copy per prefetch hint (T0 into L1, T1 into L2):
 * every shape runs through both, and through the automatic choice. */
static const rms_norm_prefetch prefetches[] = {RMS_NORM_PREFETCH_L1, RMS_NORM_PREFETCH_L2,
                                               RMS_NORM_PREFETCH_AUTO};
#define N_PREFETCHES (sizeof prefetches / sizeof prefetches[0])

static void test_shapes(void **state)
{
    const path *p = *state;
    static const size_t hiddens[] = {1, 7, 16, 31, 4097};
    static const size_t rowss[] = {1, 3, 5};
    static const float epss[] = {1e-6f, 1e-2f, 1.0f};
    static const float scales[] = {2.0f, 1e-3f};
    use_isa(p->isa);
    for (size_t k = 0; k < N_PREFETCHES; k++) {
        assert_int_equal(rms_norm_set_prefetch(prefetches[k]), 0);
        for (size_t h = 0; h < sizeof hiddens / sizeof hiddens[0]; h++)
            for (size_t r = 0; r < sizeof rowss / sizeof rowss[0]; r++)
                for (size_t e = 0; e < sizeof epss / sizeof epss[0]; e++)
                    for (size_t s = 0; s < sizeof scales / sizeof scales[0]; s++) {
                        case_data c = make_case(p->dtype, rowss[r], hiddens[h], scales[s]);
                        run_kernel(&c, epss[e]);
                        rms_norm_check_result res = check(&c, epss[e]);
                        if (!res.passed)
                            print_error("%s prefetch %d hidden=%zu rows=%zu eps=%g scale=%g: %s\n",
                                        p->isa, (int)prefetches[k], hiddens[h], rowss[r],
                                        (double)epss[e], (double)scales[s], res.detail);
                        assert_true(res.passed);
                        assert_int_equal(res.checked, rowss[r] * hiddens[h]);
                        assert_int_equal(res.mismatches, 0);
                        free_case(&c);
                    }
    }
    rms_norm_set_prefetch(RMS_NORM_PREFETCH_AUTO);
    rms_norm_set_isa(NULL);
}

/* Outputs of 32 MiB and more take the non-temporal store path. */
static void test_streaming(void **state)
{
    const path *p = *state;
    use_isa(p->isa);
    size_t rows = (32u << 20) / elem_size(p->dtype) / 4096;
    case_data c = make_case(p->dtype, rows, 4096, 2.0f);
    for (size_t k = 0; k < N_PREFETCHES - 1; k++) {    /* L1 and L2: AUTO is one of them */
        assert_int_equal(rms_norm_set_prefetch(prefetches[k]), 0);
        memset(c.y, 0, rows * 4096 * elem_size(p->dtype));
        run_kernel(&c, 1e-6f);
        rms_norm_check_result res = check(&c, 1e-6f);
        if (!res.passed)
            print_error("%s prefetch %d: %s\n", p->isa, (int)prefetches[k], res.detail);
        assert_true(res.passed);
    }
    free_case(&c);
    rms_norm_set_prefetch(RMS_NORM_PREFETCH_AUTO);
    rms_norm_set_isa(NULL);
}

/* ---- bf16 rounding ---------------------------------------------------- */

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static void test_f32_to_bf16(void **state)
{
    (void)state;
    assert_int_equal(f32_to_bf16(from_bits(0x3f808000u)), 0x3f80);  /* tie, even below */
    assert_int_equal(f32_to_bf16(from_bits(0x3f818000u)), 0x3f82);  /* tie, odd: up to even */
    assert_int_equal(f32_to_bf16(from_bits(0x3f808001u)), 0x3f81);  /* above the tie */
    assert_int_equal(f32_to_bf16(from_bits(0x3f807fffu)), 0x3f80);  /* below the tie */
    assert_int_equal(f32_to_bf16(from_bits(0xbf818000u)), 0xbf82);  /* negative tie */
    assert_int_equal(f32_to_bf16(INFINITY), 0x7f80);
    assert_int_equal(f32_to_bf16(-INFINITY), 0xff80);
    assert_int_equal(f32_to_bf16(from_bits(0x7f7fffffu)), 0x7f80);  /* FLT_MAX rounds to inf */
    assert_int_equal(f32_to_bf16(from_bits(0x7fc00000u)), 0x7fc0);  /* quiet NaN */
    assert_int_equal(f32_to_bf16(from_bits(0x7f800001u)), 0x7fc0);  /* signaling: quieted, not inf */
    assert_int_equal(f32_to_bf16(from_bits(0xffffffffu)), 0xffff);  /* no carry into the sign */
    assert_true(isnan(bf16_to_f32(0x7fc0)));
    assert_true(bf16_to_f32(0x3f80) == 1.0f);
}

/* fp16: every half survives the round trip through f32 (NaNs stay NaN),
 * and halfway cases round to even, subnormal and overflow ones included. */
static void test_f32_to_f16(void **state)
{
    (void)state;
    for (uint32_t h = 0; h < 0x10000u; h++) {
        float f = f16_to_f32((uint16_t)h);
        if (isnan(f))
            assert_true(isnan(f16_to_f32(f32_to_f16(f))));
        else
            assert_int_equal(f32_to_f16(f), h);
    }
    assert_true(f16_to_f32(0x3c00) == 1.0f);
    assert_true(f16_to_f32(0x0001) == 0x1p-24f);                     /* smallest subnormal */
    assert_int_equal(f32_to_f16(1.0f + 0x1p-11f), 0x3c00);          /* tie, even below */
    assert_int_equal(f32_to_f16(1.0f + 3 * 0x1p-11f), 0x3c02);      /* tie, odd: up */
    assert_int_equal(f32_to_f16(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01);
    assert_int_equal(f32_to_f16(0x1p-25f), 0x0000);                 /* subnormal tie, even */
    assert_int_equal(f32_to_f16(3 * 0x1p-25f), 0x0002);             /* subnormal tie, odd: up */
    assert_int_equal(f32_to_f16(0x1p-25f + 0x1p-35f), 0x0001);
    assert_int_equal(f32_to_f16(0x1p-14f - 0x1p-26f), 0x0400);      /* carries into min normal */
    assert_int_equal(f32_to_f16(65504.0f), 0x7bff);
    assert_int_equal(f32_to_f16(65519.0f), 0x7bff);
    assert_int_equal(f32_to_f16(65520.0f), 0x7c00);                 /* tie to even: inf */
    assert_int_equal(f32_to_f16(-INFINITY), 0xfc00);
    assert_int_equal(f32_to_f16(from_bits(0x7f800001u)), 0x7e00);   /* signaling: quieted */
}

/* Every ISA must round its products exactly as f32_to_bf16 does. Rows whose
 * mean square plus eps is exactly 4 give rstd = 0.5 exactly, and x * 0.5 * w
 * of two bf16 values (8-bit significands) is exact in f32, so the only
 * rounding left is the final one, and it is often a tie. hidden = 8 runs the
 * tail code, 64 the vector bodies. */
static void test_kernel_rounding(void **state)
{
    (void)state;
    static const size_t hiddens[] = {8, 64};
    enum { ROWS = 64 };
    for (size_t k = 0; k < N_ISAS; k++) {
        if (rms_norm_set_isa(isas[k]) != 0)
            continue;
        for (size_t h = 0; h < 2; h++) {
            size_t n = hiddens[h];
            uint16_t x[64], w[64], y[64];
            for (size_t i = 0; i < n; i++)
                w[i] = (uint16_t)(0x3f00 + (rng = rng * 1664525u + 1013904223u) % 0x100);
            for (int r = 0; r < ROWS; r++) {
                /* |x| in [1, 2) with 7 fraction bits: the squares have 14, and
                 * their sum (< 256) is exact in f32 in any order. */
                double ss = 0.0;
                for (size_t i = 0; i < n; i++) {
                    x[i] = (uint16_t)(0x3f80 + (rng = rng * 1664525u + 1013904223u) % 0x80);
                    if (i % 3 == 0)
                        x[i] |= 0x8000;
                    ss += (double)bf16_to_f32(x[i]) * bf16_to_f32(x[i]);
                }
                float eps = (float)(4.0 - ss / (double)n);   /* exact: see above */
                rms_norm_bf16(x, w, y, 1, n, eps);
                for (size_t i = 0; i < n; i++) {
                    uint16_t want = f32_to_bf16(bf16_to_f32(x[i]) * 0.5f * bf16_to_f32(w[i]));
                    if (y[i] != want)
                        print_error("%s n=%zu i=%zu: got 0x%04x want 0x%04x\n", isas[k], n, i,
                                    y[i], want);
                    assert_int_equal(y[i], want);
                }
            }
        }
    }
    rms_norm_set_isa(NULL);
}

/* A NaN in a row makes that whole row NaN (its sum of squares is NaN) and
 * leaves the other rows alone; the checker counts NaN against NaN as equal. */
static void test_nan_row(void **state)
{
    (void)state;
    for (size_t k = 0; k < N_ISAS; k++) {
        if (rms_norm_set_isa(isas[k]) != 0)
            continue;
        for (int d = 0; d < 2; d++) {
            rms_norm_dtype dtype = d ? RMS_NORM_BF16 : RMS_NORM_F32;
            case_data c = make_case(dtype, 3, 37, 2.0f);
            store(dtype, c.x, 37 + 5, NAN);
            run_kernel(&c, 1e-6f);
            for (size_t i = 0; i < 3 * 37; i++)
                assert_int_equal(isnan(fetch(dtype, c.y, i)) != 0, i >= 37 && i < 74);
            assert_true(check(&c, 1e-6f).passed);
            free_case(&c);
        }
    }
    rms_norm_set_isa(NULL);
}

/* ---- the checker must fail -------------------------------------------- */

static void test_checker_catches(void **state)
{
    (void)state;
    for (int d = 0; d < 2; d++) {
        rms_norm_dtype dtype = d ? RMS_NORM_BF16 : RMS_NORM_F32;
        /* Just past the tolerance: 1e-4 relative for fp32 (tol 1e-5), and
         * 1/8 relative for bf16 (sixteen ulps; its tolerance is a few ulps). */
        float factor = d ? 1.125f : 1.0001f;
        case_data c = make_case(dtype, 5, 31, 2.0f);
        size_t k = 2 * 31 + 17;
        store(dtype, c.x, k, 1.9f);
        run_kernel(&c, 1e-6f);
        assert_true(check(&c, 1e-6f).passed);

        store(dtype, c.y, k, fetch(dtype, c.y, k) * factor);
        rms_norm_check_result res = check(&c, 1e-6f);
        assert_false(res.passed);
        assert_int_equal(res.mismatches, 1);
        assert_true(res.max_abs_err > res.tolerance);
        assert_non_null(strstr(res.detail, "first mismatch at row 2, col 17"));

        store(dtype, c.y, k, NAN);
        res = check(&c, 1e-6f);
        assert_false(res.passed);
        assert_true(isinf(res.max_abs_err));
        free_case(&c);
    }
}

/* fp16 has no CPU kernel: the reference itself, rounded to fp16, must pass,
 * and two ulps off must not. */
static void test_f16_checker(void **state)
{
    (void)state;
    enum { ROWS = 3, N = 33 };
    uint16_t x[ROWS * N], w[N], y[ROWS * N];
    double ref[N];
    for (size_t i = 0; i < ROWS * N; i++)
        x[i] = f32_to_f16(uniform(-2.0f, 2.0f));
    for (size_t i = 0; i < N; i++)
        w[i] = f32_to_f16(uniform(0.5f, 1.5f));
    for (size_t r = 0; r < ROWS; r++) {
        rms_norm_ref_row(RMS_NORM_F16, x + r * N, w, ref, N, 1e-6);
        for (size_t i = 0; i < N; i++)
            y[r * N + i] = f32_to_f16((float)ref[i]);
    }
    rms_norm_check_result res;
    assert_int_equal(rms_norm_check(RMS_NORM_F16, x, w, y, ROWS, N, 1e-6f, &res), 0);
    assert_true(res.passed);
    assert_int_equal(res.checked, ROWS * N);
    /* Two ulps are at least 2^-10 relative: over the tolerance anywhere. */
    y[N + 4] = (uint16_t)(y[N + 4] + 2);
    assert_int_equal(rms_norm_check(RMS_NORM_F16, x, w, y, ROWS, N, 1e-6f, &res), 0);
    assert_false(res.passed);
    assert_int_equal(res.mismatches, 1);
    assert_non_null(strstr(res.detail, "first mismatch at row 1, col 4"));
}

/* ---- ISA selection ---------------------------------------------------- */

static void test_set_isa(void **state)
{
    (void)state;
    assert_int_equal(rms_norm_set_isa("portable"), 0);
    assert_string_equal(rms_norm_isa(), "portable");
    assert_int_equal(rms_norm_set_isa("sse9"), -1);
    assert_string_equal(rms_norm_isa(), "portable");   /* a refusal changes nothing */
    assert_int_equal(rms_norm_set_isa(NULL), 0);
    const char *best = rms_norm_isa();
    assert_int_equal(rms_norm_set_isa("auto"), 0);
    assert_string_equal(rms_norm_isa(), best);
}

/* ---- copy ------------------------------------------------------------- */

/* The automatic prefetch rule: T0 only on an L1d of 48 KiB or more that
 * holds three rows (the row, the next one, the weight). */
static void test_prefetch_rule(void **state)
{
    (void)state;
    assert_int_equal(rms_norm_prefetch_l1_for(48u << 10, 16u << 10), 1);   /* Golden Cove, fp32 4096 */
    assert_int_equal(rms_norm_prefetch_l1_for(48u << 10, (16u << 10) + 4), 0);
    assert_int_equal(rms_norm_prefetch_l1_for(48u << 10, 8u << 10), 1);     /* bf16 4096 */
    assert_int_equal(rms_norm_prefetch_l1_for(32u << 10, 16u << 10), 0);    /* Zen 4, fp32 */
    assert_int_equal(rms_norm_prefetch_l1_for(32u << 10, 8u << 10), 0);     /* Zen 4, bf16 */
    assert_int_equal(rms_norm_prefetch_l1_for(32u << 10, 64), 0);
    assert_int_equal(rms_norm_prefetch_l1_for(0, 64), 0);                   /* unknown: 32 KiB */
    assert_int_equal(rms_norm_prefetch_l1_for(64u << 10, 64), 1);

    assert_int_equal(rms_norm_set_prefetch((rms_norm_prefetch)7), -1);
    assert_int_equal(rms_norm_set_prefetch(RMS_NORM_PREFETCH_L1), 0);
    assert_int_equal(rms_norm_prefetch_for(1u << 20, 4), RMS_NORM_PREFETCH_L1);
    assert_int_equal(rms_norm_set_prefetch(RMS_NORM_PREFETCH_L2), 0);
    assert_int_equal(rms_norm_prefetch_for(1, 2), RMS_NORM_PREFETCH_L2);
    assert_int_equal(rms_norm_set_prefetch(RMS_NORM_PREFETCH_AUTO), 0);
    assert_int_equal(rms_norm_prefetch_for(1u << 20, 4), RMS_NORM_PREFETCH_L2);  /* 4 MiB rows fit no L1 */
}

static void test_copy_cpu(void **state)
{
    (void)state;
    static const size_t sizes[] = {0, 1, 1000003};
    for (size_t s = 0; s < 3; s++) {
        size_t n = sizes[s];
        /* Odd offsets, and a guard byte on each side of the destination. */
        unsigned char *src = malloc(n + 1), *dst = malloc(n + 3);
        assert_non_null(src);
        assert_non_null(dst);
        for (size_t i = 0; i < n + 1; i++)
            src[i] = (unsigned char)(i * 131 + 7);
        memset(dst, 0xa5, n + 3);
        copy_cpu(dst + 1, src + 1, n);
        assert_int_equal(dst[0], 0xa5);
        assert_int_equal(dst[n + 1], 0xa5);
        assert_memory_equal(dst + 1, src + 1, n);
        free(src);
        free(dst);
    }
}

#define PATH_TESTS(dt, name)                                                          \
    {"shapes/" name "/avx512", test_shapes, NULL, NULL, &(path){"avx512", dt}},       \
    {"shapes/" name "/avx2", test_shapes, NULL, NULL, &(path){"avx2", dt}},           \
    {"shapes/" name "/portable", test_shapes, NULL, NULL, &(path){"portable", dt}},   \
    {"streaming/" name "/avx512", test_streaming, NULL, NULL, &(path){"avx512", dt}}, \
    {"streaming/" name "/avx2", test_streaming, NULL, NULL, &(path){"avx2", dt}},     \
    {"streaming/" name "/portable", test_streaming, NULL, NULL, &(path){"portable", dt}}

int main(void)
{
    const struct CMUnitTest tests[] = {
        PATH_TESTS(RMS_NORM_F32, "fp32"),
        PATH_TESTS(RMS_NORM_BF16, "bf16"),
        cmocka_unit_test(test_f32_to_bf16),
        cmocka_unit_test(test_f32_to_f16),
        cmocka_unit_test(test_f16_checker),
        cmocka_unit_test(test_kernel_rounding),
        cmocka_unit_test(test_nan_row),
        cmocka_unit_test(test_checker_catches),
        cmocka_unit_test(test_set_isa),
        cmocka_unit_test(test_prefetch_rule),
        cmocka_unit_test(test_copy_cpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
