/* test_linear_bf16_amx.c - the block's bf16 GEMM on AMX tiles
 * (linear_bf16_amx.c) against a double GEMM of the same bf16 inputs
 * (linear_bf16_check.h): odd m and n (partial C tiles through the scratch
 * block, padding rows), k multiples of 32, beta 0 and 1, several GEMMs in
 * one call; a k that is no multiple of 32 falls back to vdpbf16ps; a's
 * packed form is row-major bf16 with zero rows to a multiple of 32.
 *
 * Built twice: test_linear_bf16_amx links the kernels as built and exits 77
 * (skipped), saying why, where the CPU or Linux offers no AMX;
 * test_linear_bf16_amx_sim compiles them with the tile instructions emulated
 * (tests/unit/amx_sim.h), so the layouts and edges are proven on any CPU with
 * AVX-512 BF16. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "linear_bf16_check.h"

static void test_gemm(void **st)
{
    (void)st;
    static const size_t shapes[][3] = {{1, 1, 32}, {7, 17, 32}, {32, 32, 32}, {33, 47, 64},
                                       {65, 100, 96}, {31, 16, 128}, {64, 64, 1024}, {40, 200, 2816}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        assert_true(linear_bf16_amx_on(shapes[i][2]));
        gemm_case(shapes[i][0], shapes[i][1], shapes[i][2], 0.0f);
        gemm_case(shapes[i][0], shapes[i][1], shapes[i][2], 1.0f);
    }
}

/* Q, K and V in one call, as the block makes it. */
static void test_multi(void **st)
{
    (void)st;
    gemm_multi_case(45, 64, (const size_t[3]){48, 17, 80});
}

/* k = 37 and 48 are no multiples of 32: those GEMMs stay on vdpbf16ps. */
static void test_fallback(void **st)
{
    (void)st;
    assert_false(linear_bf16_amx_on(37));
    assert_false(linear_bf16_amx_on(48));
    gemm_case(19, 33, 37, 1.0f);
    gemm_case(9, 16, 48, 0.0f);
}

/* The AMX form of a: row-major bf16, rounded as f32_to_bf16, rows past m
 * zero up to a multiple of 32; and forcing vdpbf16ps turns it off. */
static void test_pack_a(void **st)
{
    (void)st;
    size_t m = 5, k = 32, elems = linear_bf16_packed_a_elems(m, k);
    float a[5 * 32];
    uint16_t *ap = alloc64(elems * 2);
    for (size_t i = 0; i < m * k; i++)
        a[i] = uniform(-3, 3);
    memset(ap, 0xff, elems * 2);
    linear_bf16_pack_a_f32(a, m, k, k, ap);
    assert_true(elems >= 32 * k);
    for (size_t i = 0; i < 32 * k; i++)
        assert_int_equal(ap[i], i < m * k ? f32_to_bf16(a[i]) : 0);
    assert_int_equal(linear_bf16_set_amx(0), 0);
    assert_false(linear_bf16_amx_on(k));
    assert_int_equal(linear_bf16_set_amx(1), 0);
    free(ap);
}

int main(void)
{
    if (!linear_bf16_supported()) {
        printf("skip: this CPU has no AVX-512 BF16, which the AMX GEMM's packing and fallback use\n");
        return 77;
    }
    if (linear_bf16_set_amx(1) != 0) {
        printf("skip: no AMX tiles here (the CPU lacks amx-tile/amx-bf16, or Linux refused the tile state)\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gemm),
        cmocka_unit_test(test_multi),
        cmocka_unit_test(test_fallback),
        cmocka_unit_test(test_pack_a),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
