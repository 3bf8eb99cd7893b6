/* rms_norm_cuda.c - the rms_norm/cuda variant: the CUDA kernels of
 * components/rms_norm/rms_norm_cuda.cu behind the harness ABI (2.1). All
 * device memory, copies and the stream come from the host's device
 * services, so the harness tracks and times them; the plugin calls the
 * kernel launcher and nothing else of CUDA. Checked against the same double
 * reference as rms_norm/cpu, on the output copied back. */
#include <harness/plugin.h>

#include "check_verdict.h"

#include "rms_norm/rms_norm.h"
#include "rms_norm/rms_norm_cuda.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

typedef struct rms_cuda_state {
    rms_norm_dtype dtype;
    harness_dtype hdtype;
    size_t rows, hidden, elem, bytes;
    float eps;
    void *x, *w, *y;               /* device */
} rms_cuda_state;

static const char *const dtypes[] = {"fp32", "bf16", "fp16", NULL};

static const harness_param params[] = {
    HARNESS_INT_PARAM_MIN("batch_size", "8", 1, "sequences per step"),
    HARNESS_INT_PARAM_MIN("seq_len", "1024", 1, "tokens per sequence; rows normalized = batch_size x seq_len"),
    HARNESS_INT_PARAM_MIN("hidden_size", "4096", 1, "elements per row: the dimension normalized over"),
    HARNESS_FLOAT_PARAM_RANGE("eps", "1e-6", FLT_MIN, FLT_MAX, "added to mean(x^2) under the square root; > 0"),
    HARNESS_ENUM_PARAM("dtype", "fp32", dtypes,
        "type of x, weight and y; fp32 accumulation, bf16 and fp16 round to nearest even"),
};

static void release(harness_ctx *ctx, rms_cuda_state *s)
{
    void *bufs[] = {s->x, s->w, s->y};
    for (int i = 0; i < 3; i++)
        if (bufs[i])
            harness_host->device_free(ctx, bufs[i]);
    free(s);
}

static int rms_create(harness_ctx *ctx, void **state)
{
    if (!HARNESS_HAS_SERVICE(harness_host, device_alloc))
        return harness_host->fail(ctx, "rms_norm/cuda needs a harness with ABI 2.1 device services");
    int64_t batch = harness_host->param_int(ctx, "batch_size"), seq = harness_host->param_int(ctx, "seq_len");
    int64_t hidden = harness_host->param_int(ctx, "hidden_size");
    const char *dt = harness_host->param_string(ctx, "dtype");
    int bf16 = strcmp(dt, "bf16") == 0, f16 = strcmp(dt, "fp16") == 0;
    size_t elem = bf16 || f16 ? sizeof(uint16_t) : sizeof(float), rows, n, bytes;
    if (__builtin_mul_overflow(batch, seq, &rows) || __builtin_mul_overflow(rows, hidden, &n) ||
        __builtin_mul_overflow(n, elem, &bytes))
        return harness_host->fail(ctx, "rms_norm/cuda: batch_size x seq_len x hidden_size overflows size_t");
    rms_cuda_state *s = calloc(1, sizeof *s);
    if (!s)
        return harness_host->fail(ctx, "rms_norm/cuda: out of memory for the instance state");
    s->dtype = bf16 ? RMS_NORM_BF16 : f16 ? RMS_NORM_F16 : RMS_NORM_F32;
    s->hdtype = bf16 ? HARNESS_DTYPE_BF16 : f16 ? HARNESS_DTYPE_F16 : HARNESS_DTYPE_F32;
    s->rows = rows;
    s->hidden = (size_t)hidden;
    s->elem = elem;
    s->bytes = bytes;
    s->eps = (float)harness_host->param_float(ctx, "eps");
    s->x = harness_host->device_alloc(ctx, bytes, "x");
    s->w = s->x ? harness_host->device_alloc(ctx, s->hidden * elem, "weight") : NULL;
    s->y = s->w ? harness_host->device_alloc(ctx, bytes, "y") : NULL;
    if (!s->y) {
        release(ctx, s);
        return -1;                 /* device_alloc recorded why */
    }
    /* The same values rms_norm/cpu gets for the same seed. */
    if (harness_host->device_fill(ctx, s->x, n, s->hdtype) != 0 ||
        harness_host->device_fill(ctx, s->w, s->hidden, s->hdtype) != 0) {
        release(ctx, s);
        return -1;
    }
    *state = s;
    return 0;
}

static int rms_step(harness_ctx *ctx, void *state)
{
    rms_cuda_state *s = state;
    harness_host->region_push(ctx, "rms_norm_cuda_launch");
    int rc = rms_norm_cuda(s->dtype, s->x, s->w, s->y, s->rows, s->hidden, s->eps, harness_host->stream(ctx));
    harness_host->region_pop(ctx);
    if (rc == RMS_NORM_CUDA_EINVAL)
        return harness_host->fail(ctx, "rms_norm/cuda: the kernel plan refuses %zu rows x %zu", s->rows, s->hidden);
    if (rc != 0)
        return harness_host->fail(ctx, "rms_norm/cuda: kernel launch failed (cudaError_t %d)", rc);
    return 0;
}

/* As rms_norm/cpu: x read and y written once, the weight read once; 4 FLOPs per element. */
static void rms_cost(void *state, harness_cost *out)
{
    const rms_cuda_state *s = state;
    double n = (double)s->rows * (double)s->hidden;
    out->bytes = (2.0 * n + (double)s->hidden) * (double)s->elem;
    out->flops = 4.0 * n;
}

/* One step on the device, then x, w and y copied back and held to the
 * double reference with rms_norm_check's documented tolerances. */
static int rms_check(harness_ctx *ctx, void *state, harness_check *out)
{
    rms_cuda_state *s = state;
    if (rms_step(ctx, s) != 0 || harness_host->device_synchronize(ctx) != 0)
        return -1;
    void *x = harness_host->alloc(ctx, s->bytes, "check x");
    void *w = x ? harness_host->alloc(ctx, s->hidden * s->elem, "check weight") : NULL;
    void *y = w ? harness_host->alloc(ctx, s->bytes, "check y") : NULL;
    int rc = y ? 0 : -1;
    if (rc == 0)
        rc = harness_host->copy_to_host(ctx, x, s->x, s->bytes) || harness_host->copy_to_host(ctx, w, s->w, s->hidden * s->elem) ||
             harness_host->copy_to_host(ctx, y, s->y, s->bytes) ? -1 : 0;
    rms_norm_check_result r;
    if (rc == 0 && rms_norm_check(s->dtype, x, w, y, s->rows, s->hidden, s->eps, &r) != 0)
        rc = harness_host->fail(ctx, "rms_norm/cuda: %s", r.detail);
    if (rc == 0)
        COPY_CHECK_VERDICT(out, r);
    void *bufs[] = {x, w, y};
    for (int i = 0; i < 3; i++)
        if (bufs[i])
            harness_host->free(ctx, bufs[i]);
    return rc;
}

static void rms_destroy(harness_ctx *ctx, void *state)
{
    if (state)
        release(ctx, state);
}

static const harness_variant rms_norm_cuda_variant = {
    .size = sizeof(harness_variant),
    .key = "rms_norm/cuda",
    .family = "rms_norm",
    .device = "cuda",
    .summary = "RMSNorm over the last dimension on an NVIDIA GPU (warp or block per row, fp32 accumulation)",
    .params = params,
    .n_params = sizeof params / sizeof params[0],
    .create = rms_create,
    .step = rms_step,
    .cost = rms_cost,
    .check = rms_check,
    .destroy = rms_destroy,
};

HARNESS_PLUGIN_INIT(rms_norm_cuda, svc, ctx)
{
    return svc->register_variant(ctx, &rms_norm_cuda_variant);
}
