/* rms_norm_cpu_adapter.c - rms_norm/cpu (plugins/rms_norm.la): the RMSNorm
 * kernels of rms_norm_cpu.c behind the harness ABI; parameters, cost and
 * check shared with rms_norm/cuda (rms_norm_adapter.h). */
#include "rms_norm_adapter.h"

#include <stdlib.h>

typedef struct rms_state {
    rms_norm_config cfg;           /* first: rms_norm_step_cost reads it */
    void *x, *w, *y;
} rms_state;

static const char *const dtypes[] = {"fp32", "bf16", NULL};
static const harness_param params[] =
    RMS_NORM_PARAMS(dtypes, "type of x, weight and y; bf16 computes in fp32 and rounds to nearest even");

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
    rms_norm_config cfg;
    if (rms_norm_read_config(ctx, "rms_norm", &cfg) != 0)
        return -1;
    rms_state *s = calloc(1, sizeof *s);
    if (!s)
        return harness_host->fail(ctx, "rms_norm: out of memory for the instance state");
    s->cfg = cfg;
    s->x = harness_host->alloc(ctx, cfg.bytes, "x");
    s->w = s->x ? harness_host->alloc(ctx, cfg.hidden * cfg.elem, "weight") : NULL;
    s->y = s->w ? harness_host->alloc(ctx, cfg.bytes, "y") : NULL;
    if (!s->y) {
        release(ctx, s);
        return harness_host->fail(ctx, "rms_norm: cannot allocate x, weight and y (2 x %zu + %zu bytes)",
                                  cfg.bytes, cfg.hidden * cfg.elem);
    }
    /* x is what a step reads afresh, y what it writes (the checks after
     * timing); the weight is filled as any weight is. */
    if (harness_host->input(ctx, s->x, cfg.n, cfg.fill_dtype) != 0 ||
        harness_host->fill(ctx, s->w, cfg.hidden, cfg.fill_dtype) != 0 ||
        harness_host->output(ctx, s->y, cfg.n, cfg.fill_dtype) != 0) {
        release(ctx, s);
        return -1;      /* fill recorded why */
    }
    harness_host->note(ctx, "isa", rms_norm_isa());   /* the summary's component_notes */
    harness_host->log(ctx, HARNESS_LOG_DEBUG, "%s kernels, %zu rows x %zu, %s", rms_norm_isa(), cfg.rows,
                      cfg.hidden, cfg.dtype == RMS_NORM_BF16 ? "bf16" : "fp32");
    *state = s;
    return 0;
}

static int rms_step(harness_ctx *ctx, void *state)
{
    rms_state *s = state;
    const rms_norm_config *c = &s->cfg;
    harness_host->region_push(ctx, "rms_norm_inference");
    if (c->dtype == RMS_NORM_BF16)
        rms_norm_bf16(s->x, s->w, s->y, c->rows, c->hidden, c->eps);
    else
        rms_norm_f32(s->x, s->w, s->y, c->rows, c->hidden, c->eps);
    harness_host->region_pop(ctx);
    return 0;
}

static int rms_check(harness_ctx *ctx, void *state, harness_check *out)
{
    rms_state *s = state;
    if (rms_step(ctx, s) != 0)
        return -1;
    return rms_norm_check_output(ctx, "rms_norm", &s->cfg, s->x, s->w, s->y, out);
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
    .step_cost = rms_norm_step_cost,
    .check = rms_check,
    .destroy = rms_destroy,
};

HARNESS_PLUGIN_INIT(rms_norm, svc, ctx)
{
    return svc->register_variant(ctx, &rms_norm_cpu);
}
