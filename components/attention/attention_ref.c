/* attention_ref.c - what the attention kernels are checked against.
 *
 * The reference is the definition, row by row, in double precision from the
 * kernel's own inputs (bf16 and fp16 inputs are exact in double):
 *   s_j = scale * q . k_j   for the visible keys j,
 *   o   = sum_j exp(s_j - max s) v_j / sum_j exp(s_j - max s).
 * It takes two passes over the keys (the max, then the weighted sums), so it
 * needs no scratch; its own error is ~1e-15 relative, and any difference is
 * the kernel's. Rows are independent, so the checker can afford a subset of
 * them (and of the heads) on shapes whose full reference would take long. */
#include "attention.h"
#include "attention_internal.h"
#include "common/bf16.h"
#include "common/check.h"
#include "common/f16.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define U32 0x1p-24                /* unit roundoff of fp32 */
#define LOG2E 1.4426950408889634

const char *attention_dtype_name(attention_dtype t)
{
    return t == ATTENTION_BF16 ? "bf16" : t == ATTENTION_F16 ? "fp16" : "fp32";
}

/* A bf16 or fp16 element (t says which) as a float: exact. */
static float half_to_f32(uint16_t h, attention_dtype t)
{
    return t == ATTENTION_F16 ? f16_to_f32(h) : bf16_to_f32(h);
}

static double load(const void *p, size_t i, attention_dtype t)
{
    return t == ATTENTION_F32 ? (double)((const float *)p)[i] : (double)half_to_f32(((const uint16_t *)p)[i], t);
}

static double dot(const void *a, size_t ia, const void *b, size_t ib, size_t n, attention_dtype t)
{
    double acc = 0.0;
    if (t != ATTENTION_F32) {
        const uint16_t *x = (const uint16_t *)a + ia, *y = (const uint16_t *)b + ib;
        for (size_t c = 0; c < n; c++)
            acc += (double)half_to_f32(x[c], t) * half_to_f32(y[c], t);
    } else {
        const float *x = (const float *)a + ia, *y = (const float *)b + ib;
        for (size_t c = 0; c < n; c++)
            acc += (double)x[c] * y[c];
    }
    return acc;
}

/* Keys visible to query i: all, or under the bottom-right causal mask the
 * first i + (Sk - Sq) + 1 of them (none when that is not positive). */
static size_t visible(const attention_shape *s, size_t i)
{
    if (!s->causal)
        return s->seq_k;
    ptrdiff_t n = (ptrdiff_t)i + (ptrdiff_t)s->seq_k - (ptrdiff_t)s->seq_q + 1;
    return n <= 0 ? 0 : (size_t)n;
}

/* Offsets of row i of (b, h) in q and o, and of key 0 of its kv head. */
static size_t q_at(const attention_shape *s, size_t b, size_t h, size_t i)
{
    return ((b * s->seq_q + i) * s->heads + h) * s->head_dim;
}

static size_t kv_at(const attention_shape *s, size_t b, size_t h)
{
    return (b * s->seq_k * s->kv_heads + h / (s->heads / s->kv_heads)) * s->head_dim;
}

static int valid(const attention_shape *s)
{
    return s->kv_heads > 0 && s->heads % s->kv_heads == 0;
}

/* Output row i of (b, h), head_dim values. */
static void ref_row(const attention_shape *s, const void *q, const void *k, const void *v, attention_dtype t,
                    size_t b, size_t h, size_t i, double *out)
{
    size_t d = s->head_dim, stride = s->kv_heads * d, k0 = kv_at(s, b, h), qi = q_at(s, b, h, i);
    size_t n = visible(s, i);
    for (size_t c = 0; c < d; c++)
        out[c] = 0.0;
    if (n == 0)
        return;
    double mx = -INFINITY;
    for (size_t j = 0; j < n; j++)
        mx = fmax(mx, s->scale * dot(q, qi, k, k0 + j * stride, d, t));
    double l = 0.0;
    for (size_t j = 0; j < n; j++) {
        double p = exp(s->scale * dot(q, qi, k, k0 + j * stride, d, t) - mx);
        l += p;
        for (size_t c = 0; c < d; c++)
            out[c] += p * load(v, k0 + j * stride + c, t);
    }
    for (size_t c = 0; c < d; c++)
        out[c] /= l;
}

void attention_ref_head(const attention_shape *s, const void *q, const void *k, const void *v, attention_dtype t,
                        size_t b, size_t h, double *o, size_t o_stride)
{
    if (!valid(s))
        return;
    for (size_t i = 0; i < s->seq_q; i++)
        ref_row(s, q, k, v, t, b, h, i, o + i * o_stride);
}

void attention_ref(const attention_shape *s, const void *q, const void *k, const void *v, attention_dtype t,
                   double *o)
{
    for (size_t b = 0; b < s->batch; b++)
        for (size_t h = 0; h < s->heads; h++)
            attention_ref_head(s, q, k, v, t, b, h, o + q_at(s, b, h, 0), s->heads * s->head_dim);
}

#define F16_MAX 65504.0f           /* the largest finite fp16 */

/* f rounded to nearest even in bf16 or fp16 (t). fp16 saturates at +-65504
 * instead of overflowing (NaN stays NaN): see half_arith_row. */
static float round_half(float f, attention_dtype t)
{
    if (t == ATTENTION_BF16)
        return bf16_to_f32(f32_to_bf16(f));
    return f16_to_f32(f32_to_f16(f > F16_MAX ? F16_MAX : f < -F16_MAX ? -F16_MAX : f));
}

/* Row i of (b, h) the way a bf16 or fp16 (t) framework computes it from
 * basic ops without upcasting (q @ k^T, * scale, masked softmax, @ v on 16-bit
 * tensors): every op's result rounded to t, the reductions inside an op (the
 * dot products, the softmax's max and sum) in fp32. Its error against the
 * double reference is what 16-bit arithmetic inherently costs. p: seq_k
 * floats of scratch.
 *
 * fp16 ends at 65504, and the scores are the only values here that can pass
 * it (weights are <= 1, outputs weighted means of v). For device_fill's data
 * (|x| < 1 uniform, 0 or 1, < 8.6 normal) |q.k| < 73.4 head_dim, and sums of
 * random products stay near sqrt(head_dim) of them: in practice only ones
 * with head_dim >= 65520, or a large `scale`, overflow. A framework would
 * then compute inf - inf = NaN, and an E16 of NaN or inf would let any
 * output pass; saturating instead keeps E16 finite, so the bound only
 * loosens (by up to the spread of v), and a NaN or inf output still fails.
 * Returns how many of the row's scores saturated, which the check's detail
 * reports, since the bound is then that much weaker. */
static size_t half_arith_row(const attention_shape *s, attention_dtype t, const uint16_t *q, const uint16_t *k,
                             const uint16_t *v, size_t b, size_t h, size_t i, float *p, float *out)
{
    size_t d = s->head_dim, stride = s->kv_heads * d, n = visible(s, i);
    const uint16_t *qi = q + q_at(s, b, h, i), *kh = k + kv_at(s, b, h), *vh = v + kv_at(s, b, h);
    float mx = -INFINITY, sum = 0.0f;
    size_t saturated = 0;
    for (size_t j = 0; j < n; j++) {
        float acc = 0.0f;
        for (size_t c = 0; c < d; c++)
            acc += half_to_f32(qi[c], t) * half_to_f32(kh[j * stride + c], t);
        float scaled = round_half(acc, t) * s->scale;
        saturated += t == ATTENTION_F16 && (fabsf(acc) > F16_MAX || fabsf(scaled) > F16_MAX);
        p[j] = round_half(scaled, t);
        mx = fmaxf(mx, p[j]);
    }
    for (size_t j = 0; j < n; j++)
        sum += p[j] = expf(p[j] - mx);
    for (size_t j = 0; j < n; j++)
        p[j] = round_half(p[j] / sum, t);
    for (size_t c = 0; c < d; c++) {
        float acc = 0.0f;
        for (size_t j = 0; j < n; j++)
            acc += p[j] * half_to_f32(vh[j * stride + c], t);
        out[c] = round_half(acc, t);
    }
    return saturated;
}

/* ---- the tolerance ---------------------------------------------------------
 *
 * fp32, per output row i (query i of one head), with u = 2^-24, D = head_dim,
 * n_i its visible keys, T_i = ceil(n_i / BK_MIN) bounds its key tiles (the
 * driver's tiles hold BK_MIN to BK keys, by the L1 cache), Vmax = max |v| and
 * Kmax = max ||k_j|| over the kv head's keys:
 *
 *   X_i   = |scale| log2(e) ||q_i|| Kmax   bounds every |x_ij| and scale log2(e)
 *                                          sum_d |q_d k_jd| (Cauchy-Schwarz)
 *   delta = ln(2) (D + 4) u X_i            the relative error of each weight p_ij:
 *         + (T_i + 2) E                    its score's (a D-term dot product, q's
 *                                          two scalings, the max subtracted) and
 *                                          the exp2s' (E = ATTENTION_EXP2_MAX_
 *                                          REL_ERR, one per weight and one per
 *                                          rescale by alpha)
 *   tol_i = Vmax (2 delta + 2 (min(n_i, BK) + T_i + 3) u)
 *
 * Weights perturbed by relative delta move a weighted mean of the v by at most
 * 2 delta Vmax. The numerator and the denominator are each sums of <= BK terms
 * per tile plus one term per tile (the kernel joins each tile's partial sum to
 * the running one): error (min(n, BK) + T) u relative to sum |p v| <= Vmax l.
 * The final 1 / l and the product add 2u. These are worst-case bounds, so
 * random data sits far below them (1e-7 against 1e-4 relative, typically), yet
 * a wrong mask, tile or rescale moves outputs by a good fraction of Vmax.
 *
 * bf16 and fp16, per (batch, head) pair, the policy of common/check.h: tol =
 * CHECK_HALF_FACTOR E16 + CHECK_HALF_ATOL + u16 |ref| + the fp32 tol_i, with
 * E16 the max error of half_arith_row (a framework computing in that type's
 * arithmetic) over the pair's checked rows, and u16 the type's unit roundoff
 * (2^-8 bf16, 2^-11 fp16), the most the kernel's own rounding of an output
 * can cost relatively. That term covers tiny heads whose few outputs can
 * leave E16 below one output's rounding. fp16's 3 more bits make its E16 and
 * u16 ~8x smaller, so the same policy holds fp16 several times tighter than
 * bf16 (CHECK_HALF_ATOL is the floor of both).
 *
 * bf16 also adds u16 Vmax: the CPU's dot-product paths (AMX, AVX-512 BF16)
 * round each weight p_ij to bf16 for the P V product, as FlashAttention and
 * oneDNN do, while the running sum l adds the unrounded weights. Each rounded
 * weight is p_ij (1 + e), |e| <= u16, so the numerator moves by at most u16
 * sum_j p_ij |v_j| <= u16 Vmax l, and the output by u16 Vmax. (Weights below
 * fp32's normal range are flushed to zero by the conversion: each is under
 * 2^-126 of the max weight, 1, a move far below that term.) The scores are
 * not rounded (q . k of bf16 inputs summed in fp32, the scale applied in
 * fp32), so the fp32 tol_i covers them. */

/* The unit roundoff of a 16-bit type: half its ulp at 1. */
static double unit_roundoff(attention_dtype t)
{
    return t == ATTENTION_F16 ? 0x1p-11 : 0x1p-8;
}

/* Max ||k_j|| and max |v| over the keys of the kv head of (b, h). */
static void kv_bounds(const attention_shape *s, const void *k, const void *v, attention_dtype t, size_t b,
                      size_t h, double *kmax, double *vmax)
{
    size_t d = s->head_dim, stride = s->kv_heads * d, k0 = kv_at(s, b, h);
    *kmax = *vmax = 0.0;
    for (size_t j = 0; j < s->seq_k; j++) {
        size_t r = k0 + j * stride;
        *kmax = fmax(*kmax, sqrt(dot(k, r, k, r, d, t)));
        for (size_t c = 0; c < d; c++)
            *vmax = fmax(*vmax, fabs(load(v, r + c, t)));
    }
}

static double fp32_tol(const attention_shape *s, const void *q, attention_dtype t, size_t qrow, size_t n,
                       double kmax, double vmax)
{
    if (n == 0)
        return 0.0;
    double d = (double)s->head_dim, tiles = ceil((double)n / ATTENTION_BK_MIN);
    double x = fabs((double)s->scale) * LOG2E * sqrt(dot(q, qrow, q, qrow, s->head_dim, t)) * kmax;
    double delta = M_LN2 * (d + 4) * U32 * x + (tiles + 2) * ATTENTION_EXP2_MAX_REL_ERR;
    double terms = fmin((double)n, ATTENTION_BK) + tiles + 3;
    return vmax * (2 * delta + 2 * terms * U32);
}

/* Element `which` of `count` spread evenly over 0 .. total-1, both ends
 * included: distinct, since count <= total. */
static size_t spread(size_t which, size_t count, size_t total)
{
    return count <= 1 ? 0 : (size_t)((double)which * (double)(total - 1) / (double)(count - 1) + 0.5);
}

typedef struct pair_result {
    uint64_t mismatches;
    double max_abs, max_rel, tol, e16;
    size_t saturated;              /* fp16: scores the 16-bit reference saturated at 65504 */
    size_t first_i, first_c;       /* the first mismatch */
    double first_y, first_ref;
} pair_result;

/* Checks `rows` query rows of (b, h), spread over the sequence. Scratch: ref,
 * head_dim doubles; for bf16 and fp16 also emu, head_dim floats, and p,
 * seq_k floats. Those need E16 over all the rows before any verdict, so they
 * run twice. */
static void check_pair(const attention_shape *s, const void *q, const void *k, const void *v, const void *o,
                       attention_dtype t, size_t b, size_t h, size_t rows, double *ref, float *emu, float *p,
                       pair_result *r)
{
    size_t d = s->head_dim;
    double kmax, vmax;
    memset(r, 0, sizeof *r);
    kv_bounds(s, k, v, t, b, h, &kmax, &vmax);
    if (t != ATTENTION_F32)
        for (size_t w = 0; w < rows; w++) {
            size_t i = spread(w, rows, s->seq_q);
            ref_row(s, q, k, v, t, b, h, i, ref);
            r->saturated += half_arith_row(s, t, q, k, v, b, h, i, p, emu);
            for (size_t c = 0; c < d; c++)
                r->e16 = fmax(r->e16, check_abs_err(emu[c], ref[c]));
        }
    for (size_t w = 0; w < rows; w++) {
        size_t i = spread(w, rows, s->seq_q), row = q_at(s, b, h, i);
        double tol = fp32_tol(s, q, t, row, visible(s, i), kmax, vmax);
        ref_row(s, q, k, v, t, b, h, i, ref);
        for (size_t c = 0; c < d; c++) {
            double want = ref[c], y = load(o, row + c, t), err = check_abs_err(y, want);
            double bound = t == ATTENTION_F32 ? tol
                           : tol + CHECK_HALF_FACTOR * r->e16 + CHECK_HALF_ATOL + unit_roundoff(t) * fabs(want) +
                                 (t == ATTENTION_BF16 ? unit_roundoff(t) * vmax : 0.0);
            r->max_abs = fmax(r->max_abs, err);
            if (want != 0.0)
                r->max_rel = fmax(r->max_rel, err / fabs(want));
            r->tol = fmax(r->tol, bound);
            if (err == 0.0 || err <= bound)     /* a NaN bound (NaN ref) passes only equal */
                continue;
            if (r->mismatches++ == 0)
                r->first_i = i, r->first_c = c, r->first_y = y, r->first_ref = want;
        }
    }
}

/* Pairs and rows per pair to check within `budget` multiply-adds: all of
 * them if they fit; else as many whole pairs as fit; else at least MIN_PAIRS
 * pairs (grouped heads and batches differ in where they read) with as many
 * rows each as fit, the first and the last row included. One row of one pair
 * is the floor. Work per row: two score passes and the weighted sum, 3 x
 * head_dim per visible key; bf16 counts 12 x (the reference twice, the
 * emulation's two passes, and its roundings, which cost as much again), fp16
 * twice that (f16.h's bit-level conversions: measured 2.1-2.3x bf16's time). */
#define MIN_PAIRS 4

static void plan(const attention_shape *s, attention_dtype t, double budget, size_t *pairs, size_t *rows)
{
    size_t total = s->batch * s->heads;
    double per_key = (double)s->head_dim * (t == ATTENTION_F32 ? 3 : t == ATTENTION_BF16 ? 12 : 24);
    double pair = attention_flops(s) / (4.0 * (double)total * (double)s->head_dim) * per_key;
    *pairs = total, *rows = s->seq_q;
    if (budget <= 0 || pair * (double)total <= budget)
        return;
    if (budget >= pair * MIN_PAIRS || total <= 1) {
        double fit = floor(budget / pair);
        *pairs = fit < 1 ? 1 : fit < (double)total ? (size_t)fit : total;
        if (fit >= 1)
            return;
    } else {
        *pairs = total < MIN_PAIRS ? total : MIN_PAIRS;
    }
    double fit = floor(budget / ((double)*pairs * pair / (double)s->seq_q));
    *rows = fit < 1 ? 1 : fit < (double)s->seq_q ? (size_t)fit : s->seq_q;
}

int attention_check(const attention_shape *s, const void *q, const void *k, const void *v, const void *o,
                    attention_dtype t, double budget, attention_check_result *out)
{
    memset(out, 0, sizeof *out);
    size_t total = s->batch * s->heads, d = s->head_dim;
    out->pairs = total;
    if (!valid(s)) {
        snprintf(out->detail, sizeof out->detail, "invalid shape: heads (%zu) is not a multiple of kv_heads (%zu)",
                 s->heads, s->kv_heads);
        return -1;
    }
    if (total == 0 || s->seq_q == 0 || d == 0) {
        out->passed = 1;
        snprintf(out->detail, sizeof out->detail, "empty shape: nothing to compare");
        return 0;
    }
    size_t count, rows;
    plan(s, t, budget, &count, &rows);
    pair_result *res = calloc(count, sizeof *res);
    if (!res) {
        snprintf(out->detail, sizeof out->detail, "cannot allocate the checker's bookkeeping");
        return -1;
    }

    int failed = 0;
#pragma omp parallel reduction(| : failed)
    {
        double *ref = malloc(d * sizeof *ref);
        int half = t != ATTENTION_F32;
        float *emu = half ? malloc(d * sizeof *emu) : NULL;
        float *p = half ? malloc((s->seq_k ? s->seq_k : 1) * sizeof *p) : NULL;
        int mine = !ref || (half && (!emu || !p));
#pragma omp for schedule(dynamic, 1)
        for (size_t w = 0; w < count; w++) {
            size_t pair = spread(w, count, total);
            if (!mine)
                check_pair(s, q, k, v, o, t, pair / s->heads, pair % s->heads, rows, ref, emu, p, &res[w]);
        }
        failed |= mine;
        free(ref);
        free(emu);
        free(p);
    }
    if (failed) {
        free(res);
        snprintf(out->detail, sizeof out->detail, "cannot allocate the reference's scratch (%zu keys)", s->seq_k);
        return -1;
    }

    double e16 = 0.0;
    size_t saturated = 0;
    const pair_result *first = NULL;
    size_t first_pair = 0;
    for (size_t w = 0; w < count; w++) {
        const pair_result *r = &res[w];
        out->mismatches += r->mismatches;
        out->max_abs_err = fmax(out->max_abs_err, r->max_abs);
        out->max_rel_err = fmax(out->max_rel_err, r->max_rel);
        out->tolerance = fmax(out->tolerance, r->tol);
        e16 = fmax(e16, r->e16);
        saturated += r->saturated;
        if (r->mismatches && !first)
            first = r, first_pair = spread(w, count, total);
    }
    out->checked = (uint64_t)count * rows * d;
    out->pairs_checked = count;
    out->rows_checked = rows;
    out->passed = out->mismatches == 0;

    char subset[64] = "";
    if (rows < s->seq_q)
        snprintf(subset, sizeof subset, ", %zu/%zu rows each", rows, s->seq_q);
    int len;
    if (t != ATTENTION_F32)
        len = snprintf(out->detail, sizeof out->detail,
                       "%s vs double ref, %zu/%zu (batch,head) pairs%s: |o-ref| <= %g E16 (%s-arith ref's "
                       "error, <= %.3g) + %g + 2^%d|ref|%s + fp32 bound", attention_dtype_name(t), count, total,
                       subset, CHECK_HALF_FACTOR, attention_dtype_name(t), e16, CHECK_HALF_ATOL,
                       ilogb(unit_roundoff(t)), t == ATTENTION_BF16 ? " + 2^-8 max|v| (weights in bf16)" : "");
    else
        len = snprintf(out->detail, sizeof out->detail,
                       "fp32 vs double ref, %zu/%zu (batch,head) pairs%s: |o-ref| <= max|v| (2 delta + "
                       "2 (min(n,%d)+tiles+3) 2^-24), delta: scores' and exp2's error", count, total, subset,
                       ATTENTION_BK);
    if (saturated && len > 0 && (size_t)len < sizeof out->detail)
        len += snprintf(out->detail + len, sizeof out->detail - (size_t)len,
                        "; %zu scores passed fp16's 65504 (saturated in the fp16-arith ref, so E16 and the bound "
                        "are looser there: lower scale or the data's range)", saturated);
    if (first && len > 0 && (size_t)len < sizeof out->detail)
        snprintf(out->detail + len, sizeof out->detail - (size_t)len,
                 "; first mismatch: batch %zu head %zu query %zu col %zu: o=%.7g ref=%.7g",
                 first_pair / s->heads, first_pair % s->heads, first->first_i, first->first_c, first->first_y,
                 first->first_ref);
    free(res);
    return 0;
}
