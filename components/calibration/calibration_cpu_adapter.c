/* calibration_cpu_adapter.c - plugins/calibration.la, variants that
 * measure the harness and the machine rather than a component:
 *   noop/cpu  does nothing (or only opens and closes `regions` regions): the
 *             harness's own per-step overhead, and the cost of a region;
 *   spin/cpu  busy-waits a known time: how accurately a step is timed;
 *   copy/cpu  parallel memcpy: the copy bandwidth memory-bound components
 *             are held to. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* CLOCK_MONOTONIC_RAW, before any system header */
#endif

#include <harness/plugin.h>

#include "calibration/copy.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


static int zero_cost(harness_ctx *ctx, void *state, harness_cost *out)
{
    (void)ctx;
    (void)state;
    out->bytes = 0.0;
    out->flops = 0.0;
    return 0;
}

/* ---- noop/cpu --------------------------------------------------------- */

/* The region count is the state itself: no allocation to track. */
static int noop_create(harness_ctx *ctx, void **state)
{
    *state = (void *)(intptr_t)harness_host->param_int(ctx, "regions");
    return 0;
}

static int noop_step(harness_ctx *ctx, void *state)
{
    for (intptr_t i = (intptr_t)state; i > 0; i--) {
        harness_host->region_push(ctx, "noop_region");
        harness_host->region_pop(ctx);
    }
    return 0;
}

static void noop_destroy(harness_ctx *ctx, void *state)
{
    (void)ctx, (void)state;
}

/* ---- spin/cpu --------------------------------------------------------- */

typedef struct spin_state {
    int64_t duration_ns;
} spin_state;

static const harness_param spin_params[] = {
    HARNESS_INT_PARAM_MIN("duration_ns", "100000", 0, "nanoseconds each step busy-waits, counted from its entry"),
};

/* The raw monotonic clock is not slewed by NTP, so a spin lasts the same
 * length of hardware time whatever the system clock is doing. */
static int64_t raw_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int spin_create(harness_ctx *ctx, void **state)
{
    spin_state *s = malloc(sizeof *s);
    if (!s)
        return harness_host->fail(ctx, "spin: out of memory for the instance state");
    s->duration_ns = harness_host->param_int(ctx, "duration_ns");
    *state = s;
    return 0;
}

static int spin_step(harness_ctx *ctx, void *state)
{
    (void)ctx;
    int64_t end = raw_now_ns() + ((const spin_state *)state)->duration_ns;
    while (raw_now_ns() < end)
        ;
    return 0;
}

static void spin_destroy(harness_ctx *ctx, void *state)
{
    (void)ctx;
    free(state);
}

/* ---- copy/cpu --------------------------------------------------------- */

typedef struct copy_state {
    size_t bytes;
    unsigned char *src, *dst;
} copy_state;

static const harness_param copy_params[] = {
    HARNESS_INT_PARAM_MIN("bytes", "134217728", 1, "bytes copied from src to dst per step"),
};

static void copy_release(harness_ctx *ctx, copy_state *s)
{
    if (s->src)
        harness_host->free(ctx, s->src);
    if (s->dst)
        harness_host->free(ctx, s->dst);
    free(s);
}

static int copy_create(harness_ctx *ctx, void **state)
{
    copy_state *s = calloc(1, sizeof *s);
    if (!s)
        return harness_host->fail(ctx, "copy: out of memory for the instance state");
    s->bytes = (size_t)harness_host->param_int(ctx, "bytes");
    s->src = harness_host->alloc(ctx, s->bytes, "src");
    s->dst = s->src ? harness_host->alloc(ctx, s->bytes, "dst") : NULL;
    if (!s->dst) {
        size_t bytes = s->bytes;
        copy_release(ctx, s);
        return harness_host->fail(ctx, "copy: cannot allocate src and dst (2 x %zu bytes)", bytes);
    }
    /* The generator speaks in elements: whole floats, then the odd bytes. */
    if (harness_host->fill(ctx, s->src, s->bytes / sizeof(float), HARNESS_DTYPE_F32) != 0) {
        copy_release(ctx, s);
        return -1;      /* fill recorded why */
    }
    for (size_t i = s->bytes / sizeof(float) * sizeof(float); i < s->bytes; i++)
        s->src[i] = (unsigned char)(0xa5 ^ i);
    memset(s->dst, 0, s->bytes);    /* fault the pages in before any timed step */
    *state = s;
    return 0;
}

static int copy_step(harness_ctx *ctx, void *state)
{
    (void)ctx;
    copy_state *s = state;
    copy_cpu(s->dst, s->src, s->bytes);
    return 0;
}

/* Every byte is read once and written once. */
static int copy_cost(harness_ctx *ctx, void *state, harness_cost *out)
{
    (void)ctx;
    out->bytes = 2.0 * (double)((const copy_state *)state)->bytes;
    out->flops = 0.0;
    return 0;
}

/* dst is cleared first, so only this step's copy can make it equal src. */
static int copy_check(harness_ctx *ctx, void *state, harness_check *out)
{
    copy_state *s = state;
    memset(s->dst, 0, s->bytes);
    if (copy_step(ctx, s) != 0)
        return -1;
    uint64_t mismatches = 0;
    size_t first = 0;
    int worst = 0;
    if (memcmp(s->dst, s->src, s->bytes) != 0)
        for (size_t i = 0; i < s->bytes; i++) {
            int d = abs(s->dst[i] - s->src[i]);
            if (d == 0)
                continue;
            if (mismatches++ == 0)
                first = i;
            worst = d > worst ? d : worst;
        }
    out->passed = mismatches == 0;
    out->checked = s->bytes;
    out->mismatches = mismatches;
    out->max_abs_err = worst;
    out->max_rel_err = 0.0;
    out->tolerance = 0.0;
    if (mismatches)
        snprintf(out->detail, sizeof out->detail,
                 "dst must equal src byte for byte; first difference at byte %zu", first);
    else
        snprintf(out->detail, sizeof out->detail, "dst equals src byte for byte");
    return 0;
}

static void copy_destroy(harness_ctx *ctx, void *state)
{
    if (state)
        copy_release(ctx, state);
}

/* ---- registration ----------------------------------------------------- */

static const harness_param noop_params[] = {
    HARNESS_INT_PARAM_RANGE("regions", "0", 0, 1000000,
        "region push/pop pairs per step, to measure what a region costs"),
};

static const harness_variant variants[] = {
    {
        .size = sizeof(harness_variant),
        .key = "noop/cpu",
        .family = "noop",
        .device = "cpu",
        .summary = "does nothing: the harness's own per-step overhead (and a region's, with regions > 0)",
        .params = noop_params,
        .n_params = 1,
        .create = noop_create,
        .step = noop_step,
        .step_cost = zero_cost,
        .destroy = noop_destroy,
    },
    {
        .size = sizeof(harness_variant),
        .key = "spin/cpu",
        .family = "spin",
        .device = "cpu",
        .summary = "busy-waits duration_ns per step (CLOCK_MONOTONIC_RAW): timing accuracy",
        .params = spin_params,
        .n_params = sizeof spin_params / sizeof spin_params[0],
        .create = spin_create,
        .step = spin_step,
        .step_cost = zero_cost,
        .destroy = spin_destroy,
    },
    {
        .size = sizeof(harness_variant),
        .key = "copy/cpu",
        .family = "copy",
        .device = "cpu",
        .summary = "parallel memcpy of `bytes` from src to dst: the machine's copy bandwidth",
        .params = copy_params,
        .n_params = sizeof copy_params / sizeof copy_params[0],
        .create = copy_create,
        .step = copy_step,
        .step_cost = copy_cost,
        .check = copy_check,
        .destroy = copy_destroy,
    },
};

HARNESS_PLUGIN_INIT(calibration, svc, ctx)
{
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++)
        if (svc->register_variant(ctx, &variants[i]) != 0)
            return -1;
    return 0;
}
