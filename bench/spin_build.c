/* spin_build.c - a plugin for bench/regression_figures.sh: `spin_build/cpu`
 * busy-waits duration_ns per step, like spin/cpu, but one build of it can be
 * slower than another for the same config, as a pull request's code is:
 * compiled with -DSLOWDOWN_PCT=P it waits P% longer, and with
 * -DSLOW_DURATION_NS=D only at duration_ns == D (one benchmark of a suite
 * regresses, the rest do not). Both builds register the same key, so base
 * and candidate runs of one config match in `harness compare`. */
#include <harness/plugin.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#ifndef SLOWDOWN_PCT
#define SLOWDOWN_PCT 0
#endif
#ifndef SLOW_DURATION_NS
#define SLOW_DURATION_NS (-1)      /* every duration */
#endif

static const harness_param params[] = {
    {sizeof(harness_param), "duration_ns", HARNESS_PARAM_INT, "100000", HARNESS_PARAM_MIN, 0, 0, NULL,
     "nanoseconds each step busy-waits (longer in a slowed build)"},
};

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int create(harness_ctx *ctx, void **state)
{
    int64_t *ns = malloc(sizeof *ns);
    if (!ns)
        return harness_host->fail(ctx, "spin_build: out of memory");
    *ns = harness_host->param_int(ctx, "duration_ns");
    if (SLOW_DURATION_NS < 0 || *ns == SLOW_DURATION_NS)
        *ns += *ns * SLOWDOWN_PCT / 100;
    *state = ns;
    return 0;
}

static int step(harness_ctx *ctx, void *state)
{
    (void)ctx;
    int64_t end = now_ns() + *(const int64_t *)state;
    while (now_ns() < end)
        ;
    return 0;
}

/* a spin moves no data and does no arithmetic */
static void cost(void *state, harness_cost *out)
{
    (void)state;
    out->bytes = 0.0;
    out->flops = 0.0;
}

static void destroy(harness_ctx *ctx, void *state)
{
    (void)ctx;
    free(state);
}

static const harness_variant variant = {
    .size = sizeof(harness_variant),
    .summary = "busy-waits duration_ns per step, longer in a build made slower: regression-gate figures",
    .key = "spin_build/cpu",
    .family = "spin_build",
    .device = "cpu",
    .params = params,
    .n_params = sizeof params / sizeof params[0],
    .create = create,
    .step = step,
    .cost = cost,
    .destroy = destroy,
};

HARNESS_PLUGIN_INIT(spin_build, svc, ctx)
{
    return svc->register_variant(ctx, &variant);
}
