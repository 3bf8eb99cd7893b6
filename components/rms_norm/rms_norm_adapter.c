/* The adapters' shared part (rms_norm_adapter.h). */
#include "rms_norm_adapter.h"

#include <string.h>

#include "common/check_verdict.h"

int rms_norm_read_config(harness_ctx *ctx, const char *who, rms_norm_config *c)
{
    const harness_services *H = harness_host;
    int64_t batch = H->param_int(ctx, "batch_size"), seq = H->param_int(ctx, "seq_len");
    int64_t hidden = H->param_int(ctx, "hidden_size");
    const char *dt = H->param_string(ctx, "dtype");
    int bf16 = strcmp(dt, "bf16") == 0, f16 = strcmp(dt, "fp16") == 0;
    memset(c, 0, sizeof *c);
    c->dtype = bf16 ? RMS_NORM_BF16 : f16 ? RMS_NORM_F16 : RMS_NORM_F32;
    c->fill_dtype = bf16 ? HARNESS_DTYPE_BF16 : f16 ? HARNESS_DTYPE_F16 : HARNESS_DTYPE_F32;
    c->elem = bf16 || f16 ? sizeof(uint16_t) : sizeof(float);
    c->hidden = (size_t)hidden;
    c->eps = (float)H->param_float(ctx, "eps");
    if (__builtin_mul_overflow(batch, seq, &c->rows) || __builtin_mul_overflow(c->rows, c->hidden, &c->n) ||
        __builtin_mul_overflow(c->n, c->elem, &c->bytes))
        return H->fail(ctx, "%s: batch_size x seq_len x hidden_size = %lld x %lld x %lld elements of %zu bytes "
                       "overflows size_t; choose smaller sizes",
                       who, (long long)batch, (long long)seq, (long long)hidden, c->elem);
    return 0;
}

/* Bytes: x read once, y written once, and the weight read once (one row, it
 * stays cached across rows). FLOPs per element: the square and its
 * accumulation (an FMA, 2), x * rstd (1) and the weight multiply (1) = 4; the
 * per-row mean, eps add and square root are O(rows) and left out. The same
 * on both devices: the useful work, whatever the kernel does to get there. */
int rms_norm_step_cost(harness_ctx *ctx, void *state, harness_cost *out)
{
    (void)ctx;
    const rms_norm_config *c = state;
    double n = (double)c->n;
    out->bytes = (2.0 * n + (double)c->hidden) * (double)c->elem;
    out->flops = 4.0 * n;
    return 0;
}

int rms_norm_check_output(harness_ctx *ctx, const char *who, const rms_norm_config *c, const void *x,
                          const void *w, const void *y, harness_check *out)
{
    rms_norm_check_result r;
    if (rms_norm_check(c->dtype, x, w, y, c->rows, c->hidden, c->eps, &r) != 0)
        return harness_host->fail(ctx, "%s: %s", who, r.detail);
    COPY_CHECK_VERDICT(out, r);
    return 0;
}
