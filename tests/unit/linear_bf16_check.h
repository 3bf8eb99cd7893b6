/* linear_bf16_check.h - the bf16 GEMM (linear_bf16) against a double GEMM
 * of the same bf16 inputs, for the tests of its paths
 * (test_transformer_block_bf16: vdpbf16ps; test_linear_bf16_amx: AMX tiles).
 * Products of two bf16 are exact in fp32, so the only error is fp32
 * accumulation over k terms: |err| <= (k + 1) 2^-24 sum|a_i w_i| (the
 * classic bound, u = 2^-24), checked per element. Include after <cmocka.h>. */
#ifndef TESTS_LINEAR_BF16_CHECK_H
#define TESTS_LINEAR_BF16_CHECK_H

#include "common/bf16.h"
#include "transformer_block/linear_bf16.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static uint32_t rng = 777;

static float uniform(float lo, float hi)
{
    rng = rng * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(rng >> 8) / (float)(1u << 24);
}

static void *alloc64(size_t bytes)
{
    void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
    assert_non_null(p);
    return p;
}

static void gemm_case(size_t m, size_t n, size_t k, float beta)
{
    uint16_t *a = alloc64(m * k * 2), *w = alloc64(n * k * 2);
    uint16_t *ap = alloc64(linear_bf16_packed_a_elems(m, k) * 2), *wp = alloc64(linear_bf16_packed_elems(n, k) * 2);
    float *c = alloc64(m * n * 4), *c0 = alloc64(m * n * 4);
    for (size_t i = 0; i < m * k; i++)
        a[i] = f32_to_bf16(uniform(-1, 1));
    for (size_t i = 0; i < n * k; i++)
        w[i] = f32_to_bf16(uniform(-1, 1));
    for (size_t i = 0; i < m * n; i++)
        c[i] = c0[i] = uniform(-1, 1);
    linear_bf16_pack(w, n, k, wp);
    linear_bf16_pack_a(a, m, k, k, ap);
    linear_bf16(m, n, k, ap, wp, beta, c, n);
    size_t bad = 0;
    for (size_t t = 0; t < m; t++)
        for (size_t o = 0; o < n; o++) {
            double ref = beta * c0[t * n + o], mag = fabs(ref);
            for (size_t i = 0; i < k; i++) {
                double p = (double)bf16_to_f32(a[t * k + i]) * bf16_to_f32(w[o * k + i]);
                ref += p, mag += fabs(p);
            }
            double bound = (double)(k + 1) * 0x1p-24 * mag;
            if (fabs(c[t * n + o] - ref) > bound && bad++ < 3)
                print_message("gemm %zux%zux%zu beta %g: c[%zu][%zu] = %.9g, ref %.9g, bound %.3g\n", m, n, k,
                              (double)beta, t, o, (double)c[t * n + o], ref, bound);
        }
    assert_int_equal(bad, 0);
    free(a), free(w), free(ap), free(wp), free(c), free(c0);
}

/* Three GEMMs of one input in one linear_bf16_multi call give what three
 * linear_bf16 calls give, bit for bit (the same tiles, only split differently
 * among the threads); the middle one accumulates (beta 1). */
static void gemm_multi_case(size_t m, size_t k, const size_t ns[3])
{
    uint16_t *a = alloc64(m * k * 2), *ap = alloc64(linear_bf16_packed_a_elems(m, k) * 2), *wp[3];
    float *c1[3], *c2[3];
    linear_bf16_out outs[3];
    for (size_t i = 0; i < m * k; i++)
        a[i] = f32_to_bf16(uniform(-1, 1));
    linear_bf16_pack_a(a, m, k, k, ap);
    for (int g = 0; g < 3; g++) {
        uint16_t *w = alloc64(ns[g] * k * 2);
        for (size_t i = 0; i < ns[g] * k; i++)
            w[i] = f32_to_bf16(uniform(-1, 1));
        wp[g] = alloc64(linear_bf16_packed_elems(ns[g], k) * 2);
        linear_bf16_pack(w, ns[g], k, wp[g]);
        free(w);
        c1[g] = alloc64(m * ns[g] * 4), c2[g] = alloc64(m * ns[g] * 4);
        for (size_t i = 0; i < m * ns[g]; i++)
            c1[g][i] = c2[g][i] = uniform(-1, 1);
        linear_bf16(m, ns[g], k, ap, wp[g], g == 1 ? 1.0f : 0.0f, c1[g], ns[g]);
        outs[g] = (linear_bf16_out){ns[g], wp[g], g == 1 ? 1.0f : 0.0f, c2[g], ns[g]};
    }
    linear_bf16_multi(m, k, ap, outs, 3);
    for (int g = 0; g < 3; g++) {
        assert_memory_equal(c1[g], c2[g], m * ns[g] * 4);
        free(wp[g]), free(c1[g]), free(c2[g]);
    }
    free(a), free(ap);
}

#endif
