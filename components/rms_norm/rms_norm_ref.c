/* rms_norm_ref.c - what the RMSNorm kernels are checked against.
 *
 * The reference computes in double from the kernel's own inputs (bf16 inputs
 * are exact in double), so its own error is ~1e-13 relative at most and any
 * difference is the kernel's. Everything works row by row: checking needs
 * O(hidden) scratch however many rows there are. */
#include "rms_norm.h"
#include "common/bf16.h"
#include "common/check.h"
#include "common/f16.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double load(rms_norm_dtype dtype, const void *p, size_t i)
{
    if (dtype == RMS_NORM_BF16)
        return bf16_to_f32(((const uint16_t *)p)[i]);
    if (dtype == RMS_NORM_F16)
        return f16_to_f32(((const uint16_t *)p)[i]);
    return ((const float *)p)[i];
}

void rms_norm_ref_row(rms_norm_dtype dtype, const void *x, const void *w,
                      double *y, size_t hidden, double eps)
{
    double ss = 0.0;
    for (size_t i = 0; i < hidden; i++) {
        double v = load(dtype, x, i);
        ss += v * v;
    }
    double rstd = 1.0 / sqrt(ss / (double)hidden + eps);
    for (size_t i = 0; i < hidden; i++)
        y[i] = load(dtype, x, i) * rstd * load(dtype, w, i);
}

static float round_bf16(float f)
{
    return bf16_to_f32(f32_to_bf16(f));
}

/* As x.pow(2).mean(-1) -> + eps -> rsqrt -> x * rstd -> * weight on bf16
 * tensors: each elementwise op rounds its result to bf16; the reduction, as in
 * the frameworks, accumulates in f32 and rounds once. */
void rms_norm_ref_row_bf16_arith(const uint16_t *x, const uint16_t *w,
                                 uint16_t *y, size_t hidden, float eps)
{
    float ss = 0.0f;
    for (size_t i = 0; i < hidden; i++) {
        float v = bf16_to_f32(x[i]);
        ss += round_bf16(v * v);
    }
    float mean = round_bf16(ss / (float)hidden);
    float rstd = round_bf16(1.0f / sqrtf(round_bf16(mean + eps)));
    for (size_t i = 0; i < hidden; i++)
        y[i] = f32_to_bf16(round_bf16(bf16_to_f32(x[i]) * rstd) * bf16_to_f32(w[i]));
}

/* fp32: |y - ref| <= FP32_ATOL + FP32_RTOL * |ref| for every element.
 * The kernel's error is fp32 rounding. Its sum of squares splits a row over
 * 16 or more independent lanes, so for hidden = 4096 each lane adds m <= 256
 * positive terms: relative error ~sqrt(m) * 2^-24 ~ 1e-6 typically, m * 2^-24
 * = 1.5e-5 at worst; the square root halves it in rstd, and the divide, the
 * root and the two products add ~4 * 2^-24 = 2.4e-7. RTOL = 1e-5 thus holds
 * the worst case with margin, yet is ~400x tighter than bf16's resolution, so
 * a kernel that loses precision anywhere fails. ATOL covers outputs near zero,
 * where a relative bound means nothing (underflow, x = 0). */
#define FP32_ATOL 1e-5
#define FP32_RTOL 1e-5

/* fp16: a kernel that computes in fp32 and rounds once to fp16 is off by at
 * most half an ulp, 2^-11 relative, plus its fp32 error (~1.5e-5 relative, see
 * above) before that rounding: RTOL = 2^-11 * 17/16 = 5.19e-4 holds that and
 * rejects a one-ulp error (2^-10 relative at the bottom of a binade). Below
 * 2^-14 fp16 is subnormal with a fixed step of 2^-24: ATOL = 2^-24 covers its
 * half-step rounding plus the same fp32 error. */
#define F16_ATOL 5.96e-8
#define F16_RTOL 5.19e-4

/* bf16, the policy of common/check.h: max |y - ref| <= CHECK_HALF_FACTOR * E +
 * CHECK_HALF_ATOL, with E the max error of rms_norm_ref_row_bf16_arith (a
 * bf16-arithmetic framework) on the same data. */

/* Max error of the bf16-arithmetic reference against the double one. */
static double bf16_arith_err(const uint16_t *x, const uint16_t *w, size_t rows, size_t hidden,
                             float eps, double *ref, uint16_t *emu)
{
    double worst = 0.0;
    for (size_t r = 0; r < rows; r++) {
        rms_norm_ref_row(RMS_NORM_BF16, x + r * hidden, w, ref, hidden, eps);
        rms_norm_ref_row_bf16_arith(x + r * hidden, w, emu, hidden, eps);
        for (size_t i = 0; i < hidden; i++)
            worst = fmax(worst, check_abs_err(bf16_to_f32(emu[i]), ref[i]));
    }
    return worst;
}

int rms_norm_check(rms_norm_dtype dtype, const void *x, const void *w,
                   const void *y, size_t rows, size_t hidden, float eps,
                   rms_norm_check_result *out)
{
    memset(out, 0, sizeof *out);
    size_t elem = dtype == RMS_NORM_F32 ? sizeof(float) : sizeof(uint16_t);
    double *ref = malloc(hidden * sizeof *ref);
    uint16_t *emu = dtype == RMS_NORM_BF16 ? malloc(hidden * sizeof *emu) : NULL;
    if (!ref || (dtype == RMS_NORM_BF16 && !emu)) {
        free(ref);
        free(emu);
        snprintf(out->detail, sizeof out->detail,
                 "cannot allocate the reference's scratch (%zu elements)", hidden);
        return -1;
    }

    double atol = FP32_ATOL, rtol = FP32_RTOL;
    int len;
    if (dtype == RMS_NORM_BF16) {
        double e = bf16_arith_err(x, w, rows, hidden, eps, ref, emu);
        atol = CHECK_HALF_FACTOR * e + CHECK_HALF_ATOL;
        rtol = 0.0;
        len = snprintf(out->detail, sizeof out->detail,
                       "bf16 vs double reference: max |y-ref| <= %g x %.3g (bf16-arithmetic "
                       "reference's max error) + %g", CHECK_HALF_FACTOR, e, CHECK_HALF_ATOL);
    } else if (dtype == RMS_NORM_F16) {
        atol = F16_ATOL;
        rtol = F16_RTOL;
        len = snprintf(out->detail, sizeof out->detail,
                       "fp16 vs double reference: |y-ref| <= %g + %g*|ref| per element",
                       F16_ATOL, F16_RTOL);
    } else {
        len = snprintf(out->detail, sizeof out->detail,
                       "fp32 vs double reference: |y-ref| <= %g + %g*|ref| per element",
                       FP32_ATOL, FP32_RTOL);
    }

    double max_ref = 0.0;
    for (size_t r = 0; r < rows; r++) {
        const char *xr = (const char *)x + r * hidden * elem;
        const char *yr = (const char *)y + r * hidden * elem;
        rms_norm_ref_row(dtype, xr, w, ref, hidden, eps);
        for (size_t i = 0; i < hidden; i++) {
            double v = load(dtype, yr, i), err = check_abs_err(v, ref[i]);
            out->max_abs_err = fmax(out->max_abs_err, err);
            if (ref[i] != 0.0)
                out->max_rel_err = fmax(out->max_rel_err, err / fabs(ref[i]));
            max_ref = fmax(max_ref, fabs(ref[i]));
            if (err == 0.0 || err <= atol + rtol * fabs(ref[i]))   /* NaN ref: a NaN bound */
                continue;
            if (out->mismatches++ == 0 && len > 0 && (size_t)len < sizeof out->detail)
                snprintf(out->detail + len, sizeof out->detail - (size_t)len,
                         "; first mismatch at row %zu, col %zu: y=%.9g ref=%.9g",
                         r, i, v, ref[i]);
        }
    }
    out->checked = (uint64_t)rows * hidden;
    out->tolerance = atol + rtol * max_ref;
    out->passed = out->mismatches == 0;
    free(ref);
    free(emu);
    return 0;
}
