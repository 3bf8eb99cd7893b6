/* rms_norm.c - the rms_norm plugin: registers rms_norm/cpu, the RMSNorm
 * kernels of components/rms_norm behind the harness ABI. */
#include <harness/plugin.h>

#include "check_verdict.h"

#include "rms_norm/rms_norm.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


typedef struct rms_state {
    rms_norm_dtype dtype;
    size_t rows, hidden, elem;
    float eps;
    void *x, *w, *y;
} rms_state;

static const char *const dtypes[] = {"fp32", "bf16", NULL};

static const harness_param params[] = {
    {sizeof(harness_param), "batch_size", HARNESS_PARAM_INT, "8", HARNESS_PARAM_MIN, 1, 0, NULL,
     "sequences per step"},
    {sizeof(harness_param), "seq_len", HARNESS_PARAM_INT, "1024", HARNESS_PARAM_MIN, 1, 0, NULL,
     "tokens per sequence; rows normalized = batch_size x seq_len"},
    {sizeof(harness_param), "hidden_size", HARNESS_PARAM_INT, "4096", HARNESS_PARAM_MIN, 1, 0, NULL,
     "elements per row: the dimension normalized over"},
    /* [FLT_MIN, FLT_MAX]: eps must stay a positive, finite float. */
    {sizeof(harness_param), "eps", HARNESS_PARAM_FLOAT, "1e-6", HARNESS_PARAM_MIN | HARNESS_PARAM_MAX, FLT_MIN, FLT_MAX,
     NULL, "added to mean(x^2) under the square root; > 0"},
    {sizeof(harness_param), "dtype", HARNESS_PARAM_ENUM, "fp32", 0, 0, 0, dtypes,
     "type of x, weight and y; bf16 computes in fp32 and rounds to nearest even"},
};

static void release(harness_ctx *ctx, rms_state *s)
{
    if (s->x)
        harness_host->free(ctx, s->x);
    if (s->w)
        harness_host->free(ctx, s->w);
    if (s->y)
        harness_host->free(ctx, s->y);
    free(s);
}

static int rms_create(harness_ctx *ctx, void **state)
{
    int64_t batch = harness_host->param_int(ctx, "batch_size"), seq = harness_host->param_int(ctx, "seq_len");
    int64_t hidden = harness_host->param_int(ctx, "hidden_size");
    int bf16 = strcmp(harness_host->param_string(ctx, "dtype"), "bf16") == 0;
    size_t elem = bf16 ? sizeof(uint16_t) : sizeof(float), rows, n, bytes;
    if (__builtin_mul_overflow(batch, seq, &rows) || __builtin_mul_overflow(rows, hidden, &n) ||
        __builtin_mul_overflow(n, elem, &bytes))
        return harness_host->fail(ctx, "rms_norm: batch_size x seq_len x hidden_size = %lld x %lld x %lld "
                                  "elements of %zu bytes overflows size_t; choose smaller sizes",
                                  (long long)batch, (long long)seq, (long long)hidden, elem);

    rms_state *s = calloc(1, sizeof *s);
    if (!s)
        return harness_host->fail(ctx, "rms_norm: out of memory for the instance state");
    *s = (rms_state){bf16 ? RMS_NORM_BF16 : RMS_NORM_F32, rows, (size_t)hidden, elem,
                     (float)harness_host->param_float(ctx, "eps"), NULL, NULL, NULL};
    harness_dtype dt = bf16 ? HARNESS_DTYPE_BF16 : HARNESS_DTYPE_F32;
    s->x = harness_host->alloc(ctx, bytes, "x");
    s->w = s->x ? harness_host->alloc(ctx, s->hidden * elem, "weight") : NULL;
    s->y = s->w ? harness_host->alloc(ctx, bytes, "y") : NULL;
    if (!s->y) {
        release(ctx, s);
        return harness_host->fail(ctx, "rms_norm: cannot allocate x, weight and y (2 x %zu + %zu bytes)",
                                  bytes, (size_t)hidden * elem);
    }
    if (harness_host->fill(ctx, s->x, n, dt) != 0 || harness_host->fill(ctx, s->w, s->hidden, dt) != 0) {
        release(ctx, s);
        return -1;      /* fill recorded why */
    }
    if (harness_host->note)        /* ABI 2.3: the ISA in the summary's component_notes */
        harness_host->note(ctx, "isa", rms_norm_isa());
    harness_host->log(ctx, HARNESS_LOG_DEBUG, "%s kernels, %zu rows x %zu, %s",
                      rms_norm_isa(), s->rows, s->hidden, bf16 ? "bf16" : "fp32");
    *state = s;
    return 0;
}

static int rms_step(harness_ctx *ctx, void *state)
{
    rms_state *s = state;
    harness_host->region_push(ctx, "rms_norm_inference");
    if (s->dtype == RMS_NORM_BF16)
        rms_norm_bf16(s->x, s->w, s->y, s->rows, s->hidden, s->eps);
    else
        rms_norm_f32(s->x, s->w, s->y, s->rows, s->hidden, s->eps);
    harness_host->region_pop(ctx);
    return 0;
}

/* Bytes: x read once, y written once, and the weight read once (one row, it
 * stays cached across rows). FLOPs per element: the square and its
 * accumulation (an FMA, 2), x * rstd (1) and the weight multiply (1) = 4; the
 * per-row mean, eps add and square root are O(rows) and left out. */
static void rms_cost(void *state, harness_cost *out)
{
    const rms_state *s = state;
    double n = (double)s->rows * (double)s->hidden;
    out->bytes = (2.0 * n + (double)s->hidden) * (double)s->elem;
    out->flops = 4.0 * n;
}

static int rms_check(harness_ctx *ctx, void *state, harness_check *out)
{
    rms_state *s = state;
    if (rms_step(ctx, s) != 0)
        return -1;
    rms_norm_check_result r;
    if (rms_norm_check(s->dtype, s->x, s->w, s->y, s->rows, s->hidden, s->eps, &r) != 0)
        return harness_host->fail(ctx, "rms_norm: %s", r.detail);
    COPY_CHECK_VERDICT(out, r);
    return 0;
}

static void rms_destroy(harness_ctx *ctx, void *state)
{
    if (state)
        release(ctx, state);
}

static const harness_variant rms_norm_cpu = {
    .size = sizeof(harness_variant),
    .key = "rms_norm/cpu",
    .family = "rms_norm",
    .device = "cpu",
    .summary = "RMSNorm over the last dimension: x / sqrt(mean(x^2) + eps) * weight "
               "(AVX-512, AVX2 or C; OpenMP over rows)",
    .params = params,
    .n_params = sizeof params / sizeof params[0],
    .create = rms_create,
    .step = rms_step,
    .cost = rms_cost,
    .check = rms_check,
    .destroy = rms_destroy,
};

HARNESS_PLUGIN_INIT(rms_norm, svc, ctx)
{
    return svc->register_variant(ctx, &rms_norm_cpu);
}
