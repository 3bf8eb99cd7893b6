/* work_build.c - a plugin for bench/history_figures.sh: `work_build/cpu`
 * does a fixed amount of arithmetic per step (a chain of dependent integer
 * multiply-adds, `iterations` long), so a step takes longer when the core
 * is shared - unlike spin/cpu, which waits for a deadline and hides a
 * preemption that ends before it. Compiled with -DSLOWDOWN_PCT=P it does
 * P% more iterations: a slower build of the same config, registered under
 * the same key, as a commit that regressed would be. */
#include <harness/plugin.h>
#include <stdint.h>
#include <stdlib.h>

#ifndef SLOWDOWN_PCT
#define SLOWDOWN_PCT 0
#endif

static const harness_param params[] = {
    {sizeof(harness_param), "iterations", HARNESS_PARAM_INT, "1000000", HARNESS_PARAM_MIN, 1, 0, NULL,
     "dependent multiply-adds per step (more in a slowed build)"},
};

typedef struct work {
    int64_t iterations;
    uint64_t sink;                 /* the chain's end, kept so the compiler keeps the chain */
} work;

static int create(harness_ctx *ctx, void **state)
{
    work *w = calloc(1, sizeof *w);
    if (!w)
        return harness_host->fail(ctx, "work_build: out of memory");
    w->iterations = harness_host->param_int(ctx, "iterations");
    w->iterations += w->iterations * SLOWDOWN_PCT / 100;
    *state = w;
    return 0;
}

static int step(harness_ctx *ctx, void *state)
{
    (void)ctx;
    work *w = state;
    uint64_t x = w->sink | 1;
    for (int64_t i = 0; i < w->iterations; i++)
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;   /* each depends on the last */
    w->sink = x;
    return 0;
}

static void cost(void *state, harness_cost *out)
{
    out->bytes = 0.0;
    out->flops = 2.0 * (double)((const work *)state)->iterations;   /* integer ops, counted as flops */
}

static void destroy(harness_ctx *ctx, void *state)
{
    (void)ctx;
    free(state);
}

static const harness_variant variant = {
    .size = sizeof(harness_variant),
    .summary = "a fixed chain of integer multiply-adds per step, longer in a build made slower: history figures",
    .key = "work_build/cpu",
    .family = "work_build",
    .device = "cpu",
    .params = params,
    .n_params = sizeof params / sizeof params[0],
    .create = create,
    .step = step,
    .cost = cost,
    .destroy = destroy,
};

HARNESS_PLUGIN_INIT(work_build, svc, ctx)
{
    return svc->register_variant(ctx, &variant);
}
