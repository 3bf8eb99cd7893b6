/* transformer_block_ref.c - what the block is checked against: the same
 * forward pass in double precision with naive loops, and a checker.
 *
 * Nothing here calls the kernels under test (RMSNorm, attention, RoPE, the
 * GEMMs): each step is written out again in double from the stored inputs
 * (bf16 values are exact in double), so its own error, ~1e-15 relative, is
 * negligible and any difference is the kernel's. The only concession to
 * speed is OpenMP over independent tokens. */
#include "transformer_block.h"
#include "common/bf16.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double ld(const void *p, size_t i, int bf16)
{
    return bf16 ? (double)bf16_to_f32(((const uint16_t *)p)[i]) : (double)((const float *)p)[i];
}

/* y = x / sqrt(mean(x^2) + eps) * w */
static void norm_d(const double *x, const void *w, int bf16, size_t n, double eps, double *y)
{
    double ss = 0.0;
    for (size_t i = 0; i < n; i++)
        ss += x[i] * x[i];
    double rstd = 1.0 / sqrt(ss / (double)n + eps);
    for (size_t i = 0; i < n; i++)
        y[i] = x[i] * rstd * ld(w, i, bf16);
}

/* y[o] = sum_i w[o][i] x[i], w stored [out][in] */
static void matvec_d(const void *w, int bf16, size_t out, size_t in, const double *x, double *y)
{
    for (size_t o = 0; o < out; o++) {
        double acc = 0.0;
        for (size_t i = 0; i < in; i++)
            acc += ld(w, o * in + i, bf16) * x[i];
        y[o] = acc;
    }
}

/* Rotate half of each of n_heads heads of size d, at position pos. */
static void rope_d(double *v, size_t n_heads, size_t d, size_t pos, double theta)
{
    size_t half = d / 2;
    for (size_t h = 0; h < n_heads; h++) {
        double *x = v + h * d;
        for (size_t i = 0; i < half; i++) {
            double angle = (double)pos * pow(theta, -2.0 * (double)i / (double)d);
            double c = cos(angle), s = sin(angle), a = x[i], b = x[i + half];
            x[i] = a * c - b * s;
            x[i + half] = b * c + a * s;
        }
    }
}

/* Token `row`'s normalized input: RMSNorm(x[row]; attn_norm). */
static void input_norm(const transformer_block_shape *s, int bf16, const void *x, const void *attn_norm,
                       size_t row, double *xd, double *xn)
{
    for (size_t i = 0; i < s->hidden; i++)
        xd[i] = ld(x, row * s->hidden + i, bf16);
    norm_d(xd, attn_norm, bf16, s->hidden, s->eps, xn);
}

/* K and V of every token of sequence `b`: [seq][kv_heads * d] each. */
static int keys_values(const transformer_block_shape *s, int bf16, const void *x,
                       const void *const w[TB_N_WEIGHTS], size_t b, double *k, double *v)
{
    size_t hid = s->hidden, d = hid / s->heads, kv = s->kv_heads * d;
    int failed = 0;
#pragma omp parallel reduction(| : failed)
    {
        double *xd = malloc(2 * hid * sizeof *xd);
        failed = xd == NULL;
#pragma omp for schedule(dynamic)
        for (size_t p = 0; p < s->seq; p++) {
            if (!xd)
                continue;
            double *xn = xd + hid;
            input_norm(s, bf16, x, w[TB_ATTN_NORM], b * s->seq + p, xd, xn);
            matvec_d(w[TB_WK], bf16, kv, hid, xn, k + p * kv);
            matvec_d(w[TB_WV], bf16, kv, hid, xn, v + p * kv);
            rope_d(k + p * kv, s->kv_heads, d, p, s->rope_theta);
        }
        free(xd);
    }
    return failed ? -1 : 0;
}

/* The rest of the block for one token at position pos, given its sequence's
 * K and V; scratch: 7 * hidden + 2 * intermediate + seq doubles. */
static void token(const transformer_block_shape *s, int bf16, const void *x, const void *const w[TB_N_WEIGHTS],
                  size_t row, const double *k, const double *v, double *scratch, double *y)
{
    size_t hid = s->hidden, d = hid / s->heads, kv = s->kv_heads * d, inter = s->intermediate;
    size_t pos = row % s->seq, group = s->heads / s->kv_heads;
    double *xd = scratch, *xn = xd + hid, *q = xn + hid, *o = q + hid, *h = o + hid, *hn = h + hid;
    double *g = hn + hid, *u = g + inter, *p = u + inter;

    input_norm(s, bf16, x, w[TB_ATTN_NORM], row, xd, xn);
    matvec_d(w[TB_WQ], bf16, hid, hid, xn, q);
    rope_d(q, s->heads, d, pos, s->rope_theta);

    size_t visible = s->causal ? pos + 1 : s->seq;
    double scale = 1.0 / sqrt((double)d);
    for (size_t hh = 0; hh < s->heads; hh++) {
        const double *qh = q + hh * d;
        size_t off = (hh / group) * d;
        double max = -INFINITY, sum = 0.0;
        for (size_t j = 0; j < visible; j++) {
            double dot = 0.0;
            for (size_t e = 0; e < d; e++)
                dot += qh[e] * k[j * kv + off + e];
            p[j] = dot * scale;
            max = p[j] > max ? p[j] : max;
        }
        for (size_t j = 0; j < visible; j++) {
            p[j] = exp(p[j] - max);
            sum += p[j];
        }
        for (size_t e = 0; e < d; e++) {
            double acc = 0.0;
            for (size_t j = 0; j < visible; j++)
                acc += p[j] * v[j * kv + off + e];
            o[hh * d + e] = acc / sum;
        }
    }

    matvec_d(w[TB_WO], bf16, hid, hid, o, h);
    for (size_t i = 0; i < hid; i++)
        h[i] += xd[i];
    norm_d(h, w[TB_MLP_NORM], bf16, hid, s->eps, hn);
    matvec_d(w[TB_W_GATE], bf16, inter, hid, hn, g);
    matvec_d(w[TB_W_UP], bf16, inter, hid, hn, u);
    for (size_t i = 0; i < inter; i++)
        g[i] = g[i] / (1.0 + exp(-g[i])) * u[i];
    matvec_d(w[TB_W_DOWN], bf16, hid, inter, g, y);
    for (size_t i = 0; i < hid; i++)
        y[i] += h[i];
}

int transformer_block_ref(const transformer_block_shape *s, int bf16, const void *x,
                          const void *const w[TB_N_WEIGHTS], const size_t *rows, size_t n_rows, double *y_ref)
{
    size_t hid = s->hidden, kv = s->kv_heads * (hid / s->heads);
    size_t scratch_n = 7 * hid + 2 * s->intermediate + s->seq;
    double *k = malloc(2 * s->seq * kv * sizeof *k);
    if (!k)
        return -1;
    double *v = k + s->seq * kv;
    int failed = 0;
    for (size_t b = 0; b < s->batch && !failed; b++) {
        size_t wanted = 0;
        for (size_t r = 0; r < n_rows; r++)
            wanted += rows[r] / s->seq == b;
        if (wanted == 0)
            continue;
        if (keys_values(s, bf16, x, w, b, k, v) != 0) {
            failed = 1;
            break;
        }
#pragma omp parallel reduction(| : failed)
        {
            double *scratch = malloc(scratch_n * sizeof *scratch);
            failed = scratch == NULL;
#pragma omp for schedule(dynamic)
            for (size_t r = 0; r < n_rows; r++)
                if (scratch && rows[r] / s->seq == b)
                    token(s, bf16, x, w, rows[r], k, v, scratch, y_ref + r * hid);
            free(scratch);
        }
    }
    free(k);
    return failed ? -1 : 0;
}

/* ---- checker ------------------------------------------------------------------ */

/* Reference FLOPs: per token 2 x (the Q, O, gate, up, down weights) plus its
 * attention; once per token 2 x (the K and V weights). */
static double ref_flops(const transformer_block_shape *s, size_t n_rows)
{
    double hid = (double)s->hidden, kv = (double)(s->kv_heads * (s->hidden / s->heads));
    double inter = (double)s->intermediate, seq = (double)s->seq;
    double per_row = 2.0 * (2.0 * hid * hid + 3.0 * inter * hid) + 4.0 * seq * hid;
    double kv_all = 2.0 * (double)s->batch * seq * 2.0 * kv * hid;
    return kv_all + (double)n_rows * per_row;
}

/* Every stride-th token and the last of each sequence (which sees all keys
 * under the causal mask). */
static size_t pick_rows(const transformer_block_shape *s, size_t stride, size_t *rows)
{
    size_t n = 0, tokens = s->batch * s->seq;
    for (size_t r = 0; r < tokens; r++)
        if (r % stride == 0 || r % s->seq == s->seq - 1)
            rows[n++] = r;
    return n;
}

/* Tolerance, per element i of a token's output row:
 *     |y_i - ref_i| <= RTOL * |ref_i| + ATOL * rms(ref row)
 * fp32: the block is ~8 dependent stages of fp32 arithmetic; dot products of
 * length K (up to max(hidden, intermediate, seq)) each carry a relative error
 * of about sqrt(K) * 2^-24 of the magnitude of their terms, and the rms of
 * every stage's output is O(rms(y)) with weights scaled by 1/sqrt(fan_in). The
 * bound allows 64 x sqrt(K) * 2^-24 (2.0e-4 at K = 2816) both relative to the
 * element and to the row's scale, the latter for elements that are small
 * because terms cancelled. Observed errors sit 100-600x below it: the margin
 * is for shapes no test ran, and costs nothing in power, because the bugs a
 * block can have (a transposed weight, the other RoPE pairing, a wrong kv
 * head, a missed mask) move the output by O(rms(row)), 1000x over it.
 * bf16: y is additionally rounded to bf16 once (relative error <= 2^-8),
 * which goes into RTOL; everything before is the fp32 path. */
int transformer_block_check(const transformer_block_shape *s, transformer_block_dtype dtype, const void *x,
                            const void *const w[TB_N_WEIGHTS], const void *y, double max_ref_flops,
                            transformer_block_check_result *out)
{
    size_t tokens = s->batch * s->seq, hid = s->hidden, stride = 1;
    int bf16 = dtype == TB_BF16;
    memset(out, 0, sizeof *out);
    out->rows_total = tokens;
    if (ref_flops(s, tokens) > max_ref_flops) {
        double per_row = (ref_flops(s, tokens) - ref_flops(s, 0)) / (double)tokens;
        double affordable = (max_ref_flops - ref_flops(s, 0)) / per_row;
        stride = affordable >= 1.0 ? (size_t)ceil((double)tokens / affordable) : tokens;
    }
    size_t *rows = malloc(tokens * sizeof *rows);
    double *ref = NULL;
    size_t n_rows = rows ? pick_rows(s, stride, rows) : 0;
    if (rows)
        ref = malloc(n_rows * hid * sizeof *ref);
    if (!ref || transformer_block_ref(s, bf16, x, w, rows, n_rows, ref) != 0) {
        free(rows);
        free(ref);
        snprintf(out->detail, sizeof out->detail, "out of memory for the double-precision reference "
                 "(%zu tokens x %zu)", n_rows, hid);
        return -1;
    }

    size_t kmax = hid > s->intermediate ? hid : s->intermediate;
    kmax = kmax > s->seq ? kmax : s->seq;
    double fp32_tol = 64.0 * sqrt((double)kmax) * 0x1p-24;
    double rtol = fp32_tol + (bf16 ? 0x1p-8 : 0.0), atol = fp32_tol;
    char which[96] = "all";
    if (stride > 1)
        snprintf(which, sizeof which, "1 in %zu + last of each sequence; K, V from all, attention exact",
                 stride);
    int len = snprintf(out->detail, sizeof out->detail,
                       "%zu of %zu tokens (%s) vs double reference; |err| <= %.2g |ref| + %.2g rms(row)",
                       n_rows, tokens, which, rtol, atol);
    double worst = 0.0;
    for (size_t r = 0; r < n_rows; r++) {
        const double *rr = ref + r * hid;
        double ss = 0.0;
        for (size_t i = 0; i < hid; i++)
            ss += rr[i] * rr[i];
        double scale = sqrt(ss / (double)hid);
        for (size_t i = 0; i < hid; i++) {
            size_t at = rows[r] * hid + i;
            double got = bf16 ? (double)bf16_to_f32(((const uint16_t *)y)[at]) : (double)((const float *)y)[at];
            double err = fabs(got - rr[i]), tol = rtol * fabs(rr[i]) + atol * scale;
            out->max_abs_err = err > out->max_abs_err || err != err ? err : out->max_abs_err;
            if (rr[i] != 0.0 && err / fabs(rr[i]) > out->max_rel_err)
                out->max_rel_err = err / fabs(rr[i]);
            worst = tol > worst ? tol : worst;
            if (!(err <= tol) && out->mismatches++ == 0 && len > 0 && (size_t)len < sizeof out->detail)
                snprintf(out->detail + len, sizeof out->detail - (size_t)len,
                         "; first mismatch: token %zu [%zu] = %.9g, reference %.9g", rows[r], i, got, rr[i]);
        }
    }
    out->checked = (uint64_t)n_rows * hid;
    out->rows_checked = n_rows;
    out->tolerance = worst;
    out->passed = out->mismatches == 0;
    free(rows);
    free(ref);
    return 0;
}
