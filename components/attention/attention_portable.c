/* attention_portable.c - the tile kernels in plain C, for any CPU: the
 * reference behaviour of the vector kernels (same tiles, same order of
 * summation) at a fraction of their speed. See attention_cpu.c for the
 * algorithm and attention_internal.h for the interface. */
#include "attention_internal.h"
#include "common/bf16.h"

#include <math.h>
#include <string.h>

#define BQ ATTENTION_BQ
#define CHUNK ATTENTION_CHUNK

/* The lane loops run as whole chunks of a fixed CHUNK lanes: gcc at -O2
 * vectorizes a loop of constant trip count and leaves one of run-time
 * length scalar (no epilogue under its -O2 cost model). Scalar, the scores
 * loop ran at 10-17 GFLOP/s depending on where the linker put it (a 28-byte
 * loop across a 64-byte fetch line or not). The order of each lane's sums
 * is unchanged. */

static void scores_portable(const float *qt, const float *k, size_t ks, size_t nk, size_t d,
                            size_t nchunks, float *st)
{
    size_t n = nchunks * CHUNK;
    for (size_t j = 0; j < nk; j++) {
        float acc[BQ] = {0};
        for (size_t c = 0; c < d; c++) {
            float kv = k[j * ks + c];
            const float *restrict qrow = qt + c * BQ;
            for (size_t i0 = 0; i0 < n; i0 += CHUNK)
                for (int i = 0; i < CHUNK; i++)
                    acc[i0 + i] += kv * qrow[i0 + i];
        }
        memcpy(st + j * BQ, acc, n * sizeof *acc);
    }
}

static void softmax_portable(float *st, size_t nk, size_t nchunks, attention_mask mk, float *m, float *l,
                             float *alpha)
{
    size_t n = nchunks * CHUNK;
    float mx[BQ], mu[BQ], sum[BQ];
    for (size_t i = 0; i < n; i++)
        mx[i] = m[i], sum[i] = 0.0f;
    for (size_t j = 0; j < nk; j++) {
        float *row = st + j * BQ;
        size_t lim = mk.on ? (size_t)attention_lane_limit(mk.first, j) : 0;
        for (size_t i = 0; i < n; i++) {
            if (i < lim)
                row[i] = -INFINITY;
            mx[i] = row[i] > mx[i] ? row[i] : mx[i];
        }
    }
    /* A lane that has seen no visible key keeps m = -inf; 0 stands in for it,
     * so that its p and alpha are 2^-inf = 0 rather than 2^(-inf + inf). */
    for (size_t i = 0; i < n; i++) {
        mu[i] = mx[i] == -INFINITY ? 0.0f : mx[i];
        alpha[i] = exp2f(m[i] - mu[i]);
    }
    for (size_t j = 0; j < nk; j++) {
        float *row = st + j * BQ;
        for (size_t i = 0; i < n; i++) {
            row[i] = exp2f(row[i] - mu[i]);
            sum[i] += row[i];
        }
    }
    for (size_t i = 0; i < n; i++) {
        l[i] = l[i] * alpha[i] + sum[i];
        m[i] = mx[i];
    }
}

/* The tile's sum starts from zero and joins the running accumulator once:
 * each output is a sum of at most BK products plus one term per tile, which
 * keeps its rounding error ~(BK + tiles) ulps instead of ~(keys) ulps. */
static void accumulate_portable(float *ot, const float *pt, const float *v, size_t vs, size_t nk,
                                size_t d, size_t nchunks, const float *alpha)
{
    size_t n = nchunks * CHUNK;
    for (size_t c = 0; c < d; c++) {
        float acc[BQ] = {0};
        for (size_t j = 0; j < nk; j++) {
            float vv = v[j * vs + c];
            const float *restrict p = pt + j * BQ;
            for (size_t i0 = 0; i0 < n; i0 += CHUNK)
                for (int i = 0; i < CHUNK; i++)
                    acc[i0 + i] += vv * p[i0 + i];
        }
        float *restrict o = ot + c * BQ;
        for (size_t i = 0; i < n; i++)
            o[i] = o[i] * alpha[i] + acc[i];
    }
}

static void widen_portable(float *dst, const uint16_t *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = bf16_to_f32(src[i]);
}

static void exp2_portable(const float *x, float *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = exp2f(x[i]);
}

const attention_kernels attention_portable_kernels = {
    "portable", scores_portable, softmax_portable, accumulate_portable, widen_portable,
    exp2_portable, NULL, NULL, NULL, "portable",
};
