/* rms_norm_cuda_adapter.c - rms_norm/cuda (plugins/rms_norm_cuda.la): the
 * CUDA kernels of rms_norm_cuda.cu behind the harness ABI (2.1). All device
 * memory, copies and the stream come from the host's device services, so
 * the harness tracks and times them; the plugin calls the kernel launcher
 * and nothing else of CUDA. Parameters, cost and the check against the
 * double reference (on the output copied back) are rms_norm/cpu's
 * (rms_norm_adapter.h). */
#include "rms_norm_adapter.h"

#include <stdlib.h>

#include "rms_norm/rms_norm_cuda.h"

typedef struct rms_cuda_state {
    rms_norm_config cfg;           /* first: rms_norm_step_cost reads it */
    void *x, *w, *y;               /* device */
} rms_cuda_state;

static const char *const dtypes[] = {"fp32", "bf16", "fp16", NULL};
static const harness_param params[] =
    RMS_NORM_PARAMS(dtypes, "type of x, weight and y; fp32 accumulation, bf16 and fp16 round to nearest even");

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
    rms_norm_config cfg;
    if (rms_norm_read_config(ctx, "rms_norm/cuda", &cfg) != 0)
        return -1;
    rms_cuda_state *s = calloc(1, sizeof *s);
    if (!s)
        return harness_host->fail(ctx, "rms_norm/cuda: out of memory for the instance state");
    s->cfg = cfg;
    s->x = harness_host->device_alloc(ctx, cfg.bytes, "x");
    s->w = s->x ? harness_host->device_alloc(ctx, cfg.hidden * cfg.elem, "weight") : NULL;
    s->y = s->w ? harness_host->device_alloc(ctx, cfg.bytes, "y") : NULL;
    if (!s->y) {
        release(ctx, s);
        return -1;                 /* device_alloc recorded why */
    }
    /* The same values rms_norm/cpu gets for the same seed. */
    if (harness_host->input(ctx, s->x, cfg.n, cfg.fill_dtype) != 0 ||
        harness_host->device_fill(ctx, s->w, cfg.hidden, cfg.fill_dtype) != 0 ||
        harness_host->output(ctx, s->y, cfg.n, cfg.fill_dtype) != 0) {
        release(ctx, s);
        return -1;
    }
    *state = s;
    return 0;
}

static int rms_step(harness_ctx *ctx, void *state)
{
    rms_cuda_state *s = state;
    const rms_norm_config *c = &s->cfg;
    harness_host->region_push(ctx, "rms_norm_cuda_launch");
    int rc = rms_norm_cuda(c->dtype, s->x, s->w, s->y, c->rows, c->hidden, c->eps, harness_host->stream(ctx));
    harness_host->region_pop(ctx);
    if (rc == RMS_NORM_CUDA_EINVAL)
        return harness_host->fail(ctx, "rms_norm/cuda: the kernel plan refuses %zu rows x %zu", c->rows, c->hidden);
    if (rc != 0)
        return harness_host->fail(ctx, "rms_norm/cuda: kernel launch failed (cudaError_t %d)", rc);
    return 0;
}

/* One step on the device, then x, w and y copied back and checked. */
static int rms_check(harness_ctx *ctx, void *state, harness_check *out)
{
    rms_cuda_state *s = state;
    const rms_norm_config *c = &s->cfg;
    if (rms_step(ctx, s) != 0 || harness_host->device_synchronize(ctx) != 0)
        return -1;
    size_t w_bytes = c->hidden * c->elem;
    void *x = harness_host->alloc(ctx, c->bytes, "check x");
    void *w = x ? harness_host->alloc(ctx, w_bytes, "check weight") : NULL;
    void *y = w ? harness_host->alloc(ctx, c->bytes, "check y") : NULL;
    int rc = y ? 0 : -1;
    if (rc == 0)
        rc = harness_host->copy_to_host(ctx, x, s->x, c->bytes) || harness_host->copy_to_host(ctx, w, s->w, w_bytes) ||
                     harness_host->copy_to_host(ctx, y, s->y, c->bytes)
                 ? -1
                 : 0;
    if (rc == 0)
        rc = rms_norm_check_output(ctx, "rms_norm/cuda", c, x, w, y, out);
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
    .step_cost = rms_norm_step_cost,
    .check = rms_check,
    .destroy = rms_destroy,
};

HARNESS_PLUGIN_INIT(rms_norm_cuda, svc, ctx)
{
    return svc->register_variant(ctx, &rms_norm_cuda_variant);
}
