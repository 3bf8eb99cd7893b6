/* @NAME@.c - the @NAME@ plugin: registers @NAME@/cuda, z = alpha * x + y over
 * n floats on an NVIDIA GPU; the kernel is in @NAME@_kernel.cu. Written by
 * `harness new-plugin --device cuda`; see harness-plugin(7).
 *
 * Lifecycle, per run: create (allocate, fill inputs) -> step_cost -> check
 * (one step against the reference) -> step (warmup, then the measured
 * windows) -> destroy. Every callback runs on one thread and reports failure with
 * `return harness_host->fail(ctx, ...)`, never exit() or abort(). This file
 * is plain C: only the kernel file needs nvcc and the CUDA headers. */
#include <harness/plugin.h>

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>

/* @NAME@_kernel.cu: launches on `stream` (a cudaStream_t); NULL on success,
 * else the CUDA error's text. */
const char *@NAME@_launch(const float *x, const float *y, float *z, size_t n, float alpha, void *stream);

typedef struct @NAME@_state {
    size_t n;
    float alpha;
    float *x, *y, *z;    /* device memory */
} @NAME@_state;

static const harness_param params[] = {
    HARNESS_INT_PARAM_RANGE("n", "16777216", 1, 1 << 30, "elements of x, y and z"),
    HARNESS_FLOAT_PARAM_RANGE("alpha", "2.0", -1e6, 1e6, "scale applied to x"),
};

static int create(harness_ctx *ctx, void **state)
{
    /* The device services arrived with ABI 2.1; an older host has none. */
    if (!HARNESS_HAS_SERVICE(harness_host, device_alloc))
        return harness_host->fail(ctx, "@NAME@/cuda needs a harness with plugin ABI 2.1 or newer");
    @NAME@_state *s = harness_host->alloc(ctx, sizeof *s, "state");
    if (!s)
        return -1;    /* alloc recorded why */
    s->n = (size_t)harness_host->param_int(ctx, "n");
    s->alpha = (float)harness_host->param_float(ctx, "alpha");
    size_t bytes = s->n * sizeof(float);
    /* Tracked device memory: the memory report and summary list it by tag,
     * and the host frees whatever is left if a later callback fails. */
    s->x = harness_host->device_alloc(ctx, bytes, "x");
    s->y = s->x ? harness_host->device_alloc(ctx, bytes, "y") : NULL;
    s->z = s->y ? harness_host->device_alloc(ctx, bytes, "z") : NULL;
    if (!s->z)
        return -1;
    *state = s;
    /* The same values `fill` gives on the host for the config's seed. */
    if (harness_host->device_fill(ctx, s->x, s->n, HARNESS_DTYPE_F32) != 0 ||
        harness_host->device_fill(ctx, s->y, s->n, HARNESS_DTYPE_F32) != 0)
        return -1;
    return 0;
}

/* One launch on the harness's stream: the harness times it with events on
 * that stream, so work launched anywhere else would not be timed. */
static int step(harness_ctx *ctx, void *state)
{
    @NAME@_state *s = state;
    harness_host->region_push(ctx, "axpy_launch");
    const char *why = @NAME@_launch(s->x, s->y, s->z, s->n, s->alpha, harness_host->stream(ctx));
    harness_host->region_pop(ctx);
    if (why)
        return harness_host->fail(ctx, "@NAME@/cuda: kernel launch failed: %s", why);
    return 0;
}

/* What one step moves and computes: throughput and roofline come from it.
 * It gets the context, so it could read parameters, log, or refuse with
 * `return harness_host->fail(ctx, ...)`. */
static int cost(harness_ctx *ctx, void *state, harness_cost *out)
{
    (void)ctx;
    @NAME@_state *s = state;
    out->bytes = 3.0 * (double)s->n * sizeof(float);    /* read x and y, write z */
    out->flops = 2.0 * (double)s->n;                    /* a multiply and an add */
    return 0;
}

/* Run one step, copy inputs and output back, compare with a double
 * reference. The kernel may fuse into one FMA (one rounding) or not (two),
 * so each element may be off by about 2 ulp: |z - ref| <= 4 eps (|alpha x| + |y|). */
static int check(harness_ctx *ctx, void *state, harness_check *out)
{
    @NAME@_state *s = state;
    size_t bytes = s->n * sizeof(float);
    if (step(ctx, state) != 0)
        return -1;
    float *x = harness_host->alloc(ctx, bytes, "check x");
    float *y = x ? harness_host->alloc(ctx, bytes, "check y") : NULL;
    float *z = y ? harness_host->alloc(ctx, bytes, "check z") : NULL;
    /* copy_to_host waits for the stream, so z holds the step's result. */
    int rc = !z || harness_host->copy_to_host(ctx, x, s->x, bytes) != 0 ||
             harness_host->copy_to_host(ctx, y, s->y, bytes) != 0 ||
             harness_host->copy_to_host(ctx, z, s->z, bytes) != 0 ? -1 : 0;
    out->passed = 1;
    for (size_t i = 0; rc == 0 && i < s->n; i++) {
        double ax = (double)s->alpha * x[i], ref = ax + y[i];
        double err = fabs((double)z[i] - ref);
        double tol = 4.0 * FLT_EPSILON * (fabs(ax) + fabs((double)y[i])) + FLT_MIN;
        if (err >= out->max_abs_err) {    /* the bound that applied to the largest error */
            out->max_abs_err = err;
            out->tolerance = tol;
        }
        if (ref != 0 && err / fabs(ref) > out->max_rel_err)
            out->max_rel_err = err / fabs(ref);
        if (err > tol) {
            out->mismatches++;
            out->passed = 0;
        }
    }
    out->checked = rc == 0 ? s->n : 0;
    snprintf(out->detail, sizeof out->detail, "float vs double reference: |z - ref| <= 4 FLT_EPSILON "
             "(|alpha x| + |y|) per element");
    if (z)
        harness_host->free(ctx, z);
    if (y)
        harness_host->free(ctx, y);
    if (x)
        harness_host->free(ctx, x);
    return rc;
}

static void destroy(harness_ctx *ctx, void *state)
{
    @NAME@_state *s = state;
    harness_host->device_free(ctx, s->z);
    harness_host->device_free(ctx, s->y);
    harness_host->device_free(ctx, s->x);
    harness_host->free(ctx, s);
}

static const harness_variant variant = {
    .size = sizeof(harness_variant),
    .key = "@NAME@/cuda",
    .family = "@NAME@",
    .device = "cuda",
    .summary = "z = alpha * x + y over n floats on the GPU",
    .params = params,
    .n_params = sizeof params / sizeof params[0],
    .create = create,
    .step = step,
    .step_cost = cost,
    .check = check,
    .destroy = destroy,
};

/* The entry point: its first argument must be the module's file name
 * (@NAME@.so), which is how the loader finds it. */
HARNESS_PLUGIN_INIT(@NAME@, svc, ctx)
{
    return svc->register_variant(ctx, &variant);
}
