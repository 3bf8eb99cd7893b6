/* test_transformer_block_bf16.c - the bf16 block on the path
 * HARNESS_CPU_ISA picks (unset: the best this CPU has), against the double
 * reference on odd shapes; and the bf16 GEMM (linear_bf16) alone against a
 * double GEMM of the same bf16 inputs.
 *
 * The whole program exits 77 (skipped) when the path asked for is one this
 * CPU lacks, saying which: so CI runs `HARNESS_CPU_ISA=avx512_bf16` and
 * `=avx512` on every machine and each path is tested where it exists.
 *
 * Tolerances:
 *   GEMM: fp32 accumulation's classic bound, per element (linear_bf16_check.h).
 *   Block, dot path: transformer_block_check_tol with rtol = fp32 tol + 2^-8
 *   (y's rounding), atol = transformer_block_bf16_tol_atol (the activations'
 *   bf16 roundings; derived in transformer_block.h). The fp32 path of a bf16
 *   block: transformer_block_check's own (fp32 tol + 2^-8). */
#include "transformer_block/transformer_block.h"
#include "transformer_block/linear_bf16.h"
#include "common/bf16.h"

#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "linear_bf16_check.h"

static int dot_path;               /* transformer_block_bf16_choose's answer for this run */

/* ---- the GEMM ----------------------------------------------------------- */

/* Odd m, n and k: partial row blocks, partial 16-column vectors, an odd
 * k's lone last element; and shapes of whole tiles. */
static void test_gemm(void **st)
{
    (void)st;
    if (!linear_bf16_supported())
        skip();
    static const size_t shapes[][3] = {{1, 1, 1}, {7, 17, 3}, {9, 33, 5}, {13, 47, 23}, {8, 48, 64},
                                       {65, 100, 129}, {16, 96, 2}, {3, 200, 1}, {33, 49, 257}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        gemm_case(shapes[i][0], shapes[i][1], shapes[i][2], 0.0f);
        gemm_case(shapes[i][0], shapes[i][1], shapes[i][2], 1.0f);
    }
}

/* linear_bf16_multi against linear_bf16 (linear_bf16_check.h). */
static void test_gemm_multi(void **st)
{
    (void)st;
    if (!linear_bf16_supported())
        skip();
    gemm_multi_case(19, 37, (const size_t[3]){33, 7, 50});
}

/* A from fp32 rounds as f32_to_bf16 does (nearest even, NaN kept a quiet
 * NaN), and both packs put each pair where the layout says: on a shape
 * with whole 8-row blocks and 8-pair runs (the vector form where the CPU
 * has it), a partial row block, leftover pairs and an odd k's last element. */
static void test_pack_a_f32_rounds(void **st)
{
    (void)st;
    size_t m = 19, k = 37, kp = (k + 1) / 2;
    float a[19 * 37];
    uint16_t ab[19 * 37];
    uint16_t *p32 = alloc64(linear_bf16_packed_a_elems(m, k) * 2), *p16 = alloc64(linear_bf16_packed_a_elems(m, k) * 2);
    static const uint32_t special[] = {0x3f808000u /* a tie, kept bit 0 */, 0x3f818000u /* a tie, kept bit 1 */,
                                       0x7fc00001u /* quiet NaN */,     0xff800001u /* signalling NaN */,
                                       0x7f7fffffu /* rounds to inf */, 0x00000001u /* denormal */,
                                       0x80000000u /* -0 */,            0x7f800000u /* inf */};
    for (size_t i = 0; i < m * k; i++) {
        a[i] = uniform(-3, 3);
        if (i % 5 == 0)
            memcpy(&a[i], &special[i / 5 % 8], sizeof a[i]);
        ab[i] = f32_to_bf16(a[i]);
    }
    linear_bf16_pack_a_f32(a, m, k, k, p32);
    linear_bf16_pack_a(ab, m, k, k, p16);
    assert_memory_equal(p32, p16, linear_bf16_packed_a_elems(m, k) * 2);
    for (size_t row = 0; row < 24; row++)              /* 3 row blocks: rows 19-23 are zeros */
        for (size_t p = 0; p < kp; p++) {
            size_t at = ((row / 8 * kp + p) * 8 + row % 8) * 2;
            uint16_t lo = row < m ? ab[row * k + 2 * p] : 0, hi = row < m && 2 * p + 1 < k ? ab[row * k + 2 * p + 1] : 0;
            if (p16[at] != lo || p16[at + 1] != hi)
                fail_msg("row %zu pair %zu: packed %04x %04x, expected %04x %04x", row, p, p16[at], p16[at + 1], lo, hi);
        }
    free(p32), free(p16);
}

/* ---- the block ---------------------------------------------------------- */

typedef struct shape_case {
    size_t batch, seq, hidden, heads, kv_heads, intermediate;
    int causal;
} shape_case;

/* Odd token counts, intermediate sizes and head counts; GQA groups 1-8;
 * head_dim 2 to 128. */
static const shape_case cases[] = {
    {1, 1, 4, 2, 1, 7, 1},
    {2, 3, 16, 4, 2, 11, 1},
    {1, 3, 12, 3, 3, 5, 0},
    {2, 65, 128, 2, 1, 333, 1},
    {1, 65, 256, 4, 4, 97, 0},
    {1, 33, 256, 2, 1, 129, 1},
    {1, 17, 64, 8, 1, 45, 0},
    {1, 65, 512, 8, 2, 1375, 1},
    {1, 19, 160, 4, 2, 77, 1},         /* head_dim 40: RoPE's 20 pairs, 16 by vector, 4 after */
};

static void block_case(const shape_case *c)
{
    transformer_block_shape s = {c->batch, c->seq, c->hidden, c->heads, c->kv_heads, c->intermediate,
                                 10000.0, 1e-5f, c->causal};
    char msg[256];
    transformer_block_sizes sz;
    assert_int_equal(transformer_block_check_shape(&s, msg, sizeof msg), 0);
    assert_int_equal(transformer_block_sizes_of(&s, TB_BF16, omp_get_max_threads(), &sz, msg, sizeof msg), 0);
    transformer_block b;
    memset(&b, 0, sizeof b);
    b.shape = s;
    b.dtype = TB_BF16;
    uint16_t *x = alloc64(sz.x_bytes), *y = alloc64(sz.x_bytes), *w[TB_N_WEIGHTS], *wp[TB_N_WEIGHTS];
    float *w32[TB_N_WEIGHTS];
    float r3 = sqrtf(3.0f);
    for (size_t i = 0; i < sz.tokens * s.hidden; i++)
        x[i] = f32_to_bf16(uniform(-r3, r3));
    for (int i = 0; i < TB_N_WEIGHTS; i++) {
        int norm = i == TB_ATTN_NORM || i == TB_MLP_NORM;
        float a = r3 / sqrtf((float)(i == TB_W_DOWN ? s.intermediate : s.hidden));
        w[i] = alloc64(sz.weight_elems[i] * 2);
        for (size_t j = 0; j < sz.weight_elems[i]; j++)
            w[i][j] = f32_to_bf16(norm ? uniform(0.8f, 1.2f) : uniform(-a, a));
        w32[i] = alloc64(sz.weight_elems[i] * 4);
        transformer_block_bf16_to_f32(w[i], w32[i], sz.weight_elems[i]);
        b.w[i] = w32[i];
        size_t np = transformer_block_bf16_packed_elems(&s, i);
        wp[i] = np ? alloc64(np * 2) : NULL;
        if (np && dot_path) {
            transformer_block_bf16_pack(&s, i, w[i], wp[i]);
            b.wp[i] = wp[i];
        }
    }
    void *scratch = dot_path ? alloc64(transformer_block_bf16_scratch_bytes(&s)) : NULL;
    b.scratch16 = scratch;
    for (int i = 0; i < TB_N_BUFS; i++)
        b.buf[i] = sz.buf_bytes[i] ? alloc64(sz.buf_bytes[i]) : NULL;
    transformer_block_rope_table(&s, b.buf[TB_BUF_ROPE]);
    b.x = x;
    b.y = y;
    assert_int_equal(transformer_block_forward(&b), 0);

    transformer_block_check_result r;
    const void *const *stored = (const void *const *)w;
    double tol = transformer_block_fp32_tol(&s);
    if (dot_path)
        assert_int_equal(transformer_block_check_tol(&s, TB_BF16, x, stored, y, 1e12, tol + 0x1p-8,
                                                     transformer_block_bf16_tol_atol(&s), &r), 0);
    else
        assert_int_equal(transformer_block_check(&s, TB_BF16, x, stored, y, 1e12, &r), 0);
    if (!r.passed || getenv("TB_TEST_VERBOSE"))
        print_message("bf16 (%s) B%zu S%zu H%zu heads %zu/%zu I%zu causal %d: %s; max err %.3g, bound %.3g\n",
                      dot_path ? "dot" : "fp32", c->batch, c->seq, c->hidden, c->heads, c->kv_heads,
                      c->intermediate, c->causal, r.detail, r.max_abs_err, r.tolerance);
    assert_true(r.passed);
    assert_int_equal(r.rows_checked, sz.tokens);
    free(x), free(y), free(scratch);
    for (int i = 0; i < TB_N_WEIGHTS; i++)
        free(w[i]), free(w32[i]), free(wp[i]);
    for (int i = 0; i < TB_N_BUFS; i++)
        free(b.buf[i]);
}

static void test_block(void **st)
{
    (void)st;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        block_case(&cases[i]);
}

/* The path names: fp32 ISAs take the fp32 step, a bf16 unit only where it exists. */
static void test_choose(void **st)
{
    (void)st;
    const char *path, *why;
    assert_int_equal(transformer_block_bf16_choose("avx512", &path, &why), 0);
    assert_string_equal(path, "fp32");
    assert_int_equal(transformer_block_bf16_choose("portable", &path, &why), 0);
    int have = linear_bf16_supported(), amx = have && linear_bf16_amx_supported();
    assert_int_equal(transformer_block_bf16_choose("avx512_bf16", &path, &why), have ? 1 : -1);
    assert_int_equal(transformer_block_bf16_choose("amx", &path, &why), amx ? 1 : -1);
    if (!amx)
        assert_non_null(strstr(why, have ? "AMX tiles" : "AVX-512 BF16"));
    assert_int_equal(transformer_block_bf16_choose(NULL, &path, &why), have);
    assert_string_equal(path, amx ? "amx" : have ? "avx512_bf16" : "fp32");
}

int main(void)
{
    const char *isa = getenv("HARNESS_CPU_ISA"), *path, *why;
    dot_path = transformer_block_bf16_choose(isa, &path, &why);
    if (dot_path < 0) {
        printf("SKIP: %s\n", why);
        return 77;
    }
    if (dot_path)
        linear_bf16_set_amx(strcmp(path, "amx") == 0);    /* as the plugin does (tb_bf16_path) */
    printf("# bf16 block path: %s (%s)\n", path, why);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gemm),
        cmocka_unit_test(test_gemm_multi),
        cmocka_unit_test(test_pack_a_f32_rounds),
        cmocka_unit_test(test_choose),
        cmocka_unit_test(test_block),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
