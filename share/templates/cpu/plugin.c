/* @NAME@.c - the @NAME@ plugin: registers @NAME@/cpu, z = alpha * x + y over
 * n floats. Written by `harness new-plugin`; see harness-plugin(7).
 *
 * Lifecycle, per run: create (allocate, fill inputs) -> step_cost -> check
 * (one step against the reference) -> step (warmup, then the measured
 * windows) -> destroy. Every callback runs on one thread and reports failure with
 * `return harness_host->fail(ctx, ...)`, never exit() or abort(). */
#include <harness/plugin.h>

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>

typedef struct @NAME@_state {
    size_t n;
    float alpha;
    float *x, *y, *z;
} @NAME@_state;

/* The parameters a config sets under component.config; the harness checks
 * types and bounds before create, and `harness list` shows them. */
static const harness_param params[] = {
    HARNESS_INT_PARAM_RANGE("n", "1048576", 1, 1 << 28, "elements of x, y and z"),
    HARNESS_FLOAT_PARAM_RANGE("alpha", "2.0", -1e6, 1e6, "scale applied to x"),
};

static int create(harness_ctx *ctx, void **state)
{
    /* Tracked allocations: the memory report shows them by tag, and the
     * host frees whatever is left if a later callback fails. */
    @NAME@_state *s = harness_host->alloc(ctx, sizeof *s, "state");
    if (!s)
        return -1;    /* alloc recorded why */
    s->n = (size_t)harness_host->param_int(ctx, "n");
    s->alpha = (float)harness_host->param_float(ctx, "alpha");
    s->x = harness_host->alloc(ctx, s->n * sizeof(float), "x");
    s->y = s->x ? harness_host->alloc(ctx, s->n * sizeof(float), "y") : NULL;
    s->z = s->y ? harness_host->alloc(ctx, s->n * sizeof(float), "z") : NULL;
    if (!s->z)
        return -1;
    *state = s;
    /* Inputs from the config's data generator and seed (data: in the YAML). */
    if (harness_host->fill(ctx, s->x, s->n, HARNESS_DTYPE_F32) != 0 ||
        harness_host->fill(ctx, s->y, s->n, HARNESS_DTYPE_F32) != 0)
        return -1;
    return 0;
}

/* One unit of work; the harness times each call. The region shows up as a
 * span inside every measured step of the trace. */
static int step(harness_ctx *ctx, void *state)
{
    @NAME@_state *s = state;
    harness_host->region_push(ctx, "axpy");
    for (size_t i = 0; i < s->n; i++)
        s->z[i] = s->alpha * s->x[i] + s->y[i];
    harness_host->region_pop(ctx);
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

/* Run one step and compare with a double-precision reference. The float
 * result rounds twice (product, sum), so each element may be off by about
 * 2 ulp of the terms' magnitude: |z - ref| <= 4 eps (|alpha x| + |y|). */
static int check(harness_ctx *ctx, void *state, harness_check *out)
{
    @NAME@_state *s = state;
    if (step(ctx, state) != 0)
        return -1;
    out->passed = 1;
    for (size_t i = 0; i < s->n; i++) {
        double ax = (double)s->alpha * s->x[i], ref = ax + s->y[i];
        double err = fabs((double)s->z[i] - ref);
        double tol = 4.0 * FLT_EPSILON * (fabs(ax) + fabs((double)s->y[i])) + FLT_MIN;
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
    out->checked = s->n;
    snprintf(out->detail, sizeof out->detail, "float vs double reference: |z - ref| <= 4 FLT_EPSILON "
             "(|alpha x| + |y|) per element");
    return 0;
}

static void destroy(harness_ctx *ctx, void *state)
{
    @NAME@_state *s = state;
    harness_host->free(ctx, s->z);
    harness_host->free(ctx, s->y);
    harness_host->free(ctx, s->x);
    harness_host->free(ctx, s);
}

static const harness_variant variant = {
    .size = sizeof(harness_variant),
    .key = "@NAME@/cpu",
    .family = "@NAME@",
    .device = "cpu",
    .summary = "z = alpha * x + y over n floats",
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
