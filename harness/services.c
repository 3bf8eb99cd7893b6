/* The service table handed to plugins. Every service takes the context the
 * host gave the plugin, so nothing here is global but the table itself. */
#include "services.h"

#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build_config.h"
#include "registry.h"

#ifdef HAVE_CUDA
#include <nvtx3/nvToolsExt.h>
#endif

/* Keep the first message: later ones are usually its consequences. */
static void ctx_vfail(harness_ctx *ctx, const char *fmt, va_list ap)
{
    if (ctx->failed)
        return;
    vsnprintf(ctx->message, sizeof ctx->message, fmt, ap);
    ctx->failed = 1;
}

static void ctx_failf(harness_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ctx_failf(harness_ctx *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ctx_vfail(ctx, fmt, ap);
    va_end(ap);
}

static int svc_register_variant(harness_ctx *ctx, const harness_variant *v)
{
    if (!ctx->registry) {
        ctx_failf(ctx, "register_variant called outside plugin init");
        return -1;
    }
    harness_error err = {0};
    if (harness_registry_add(ctx->registry, ctx->plugin, v, &err) != 0) {
        ctx_failf(ctx, "%s", err.msg);
        return -1;
    }
    return 0;
}

static void svc_log(harness_ctx *ctx, int level, const char *fmt, ...)
{
    static const char *const names[] = {"error", "warning", "info", "debug"};
    if (level >= HARNESS_LOG_DEBUG && !getenv("HARNESS_DEBUG"))
        return;
    const char *who = ctx && ctx->variant ? ctx->variant->key : "plugin";
    fprintf(stderr, "harness: %s: %s: ", who, names[level < 0 ? 0 : level > 3 ? 3 : level]);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static int svc_fail(harness_ctx *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ctx_vfail(ctx, fmt, ap);
    va_end(ap);
    return -1;
}

/* A name the schema does not have, or of another type, is a plugin bug:
 * record it so create() fails with a message instead of running on zeros. */
static const harness_param_value *lookup(harness_ctx *ctx, const char *name, harness_param_type want)
{
    const harness_param_value *p = ctx->cfg ? harness_config_param(ctx->cfg, name) : NULL;
    if (!p) {
        ctx_failf(ctx, "plugin asked for parameter '%s', which %s does not declare", name,
                  ctx->variant ? ctx->variant->key : "the variant");
        return NULL;
    }
    int ok = p->spec->type == want ||
             (want == HARNESS_PARAM_STRING && p->spec->type == HARNESS_PARAM_ENUM);
    if (!ok) {
        ctx_failf(ctx, "plugin read parameter '%s' with the wrong type accessor", name);
        return NULL;
    }
    return p;
}

static int64_t svc_param_int(harness_ctx *ctx, const char *name)
{
    const harness_param_value *p = lookup(ctx, name, HARNESS_PARAM_INT);
    return p ? p->i : 0;
}

static double svc_param_float(harness_ctx *ctx, const char *name)
{
    const harness_param_value *p = lookup(ctx, name, HARNESS_PARAM_FLOAT);
    return p ? p->f : 0.0;
}

static int svc_param_bool(harness_ctx *ctx, const char *name)
{
    const harness_param_value *p = lookup(ctx, name, HARNESS_PARAM_BOOL);
    return p ? (int)p->i : 0;
}

static const char *svc_param_string(harness_ctx *ctx, const char *name)
{
    const harness_param_value *p = lookup(ctx, name, HARNESS_PARAM_STRING);
    return p ? p->s : "";
}

static void *svc_alloc(harness_ctx *ctx, size_t bytes, const char *tag)
{
    if (!ctx->mem) {
        ctx_failf(ctx, "alloc called outside a component instance");
        return NULL;
    }
    void *p = harness_tracked_alloc(ctx->mem, bytes, tag, ctx->variant ? ctx->variant->key : NULL);
    if (!p)
        ctx_failf(ctx, "out of host memory allocating %zu bytes for '%s'", bytes, tag ? tag : "untagged");
    return p;
}

static void svc_free(harness_ctx *ctx, void *ptr)
{
    if (ctx->mem && harness_tracked_free(ctx->mem, ptr) != 0)
        ctx_failf(ctx, "free of a pointer the harness did not allocate (%p)", ptr);
}

static int svc_fill(harness_ctx *ctx, void *buf, size_t count, harness_dtype dtype)
{
    if (!ctx->gen)
        return svc_fail(ctx, "fill called outside a component instance");
    if (harness_datagen_fill(ctx->gen, buf, count, dtype) != 0)
        return svc_fail(ctx, "fill: unsupported dtype %d", (int)dtype);
    return 0;
}

/* With profiling off a region is a counter increment and two untaken
 * branches: regions may stay in production kernels. */
static void svc_region_push(harness_ctx *ctx, const char *name)
{
    ctx->region_depth++;
    if (ctx->profiler && ctx->profiler->recording)
        harness_profiler_push(ctx->profiler, name);
#ifdef HAVE_CUDA
    if (ctx->nvtx)
        nvtxRangePushA(name ? name : "(null)");
#endif
}

static void svc_region_pop(harness_ctx *ctx)
{
    if (ctx->region_depth == 0) {
        ctx_failf(ctx, "region_pop without a matching region_push");
        return;
    }
    ctx->region_depth--;
    if (ctx->profiler && ctx->profiler->recording)
        harness_profiler_pop(ctx->profiler);
#ifdef HAVE_CUDA
    if (ctx->nvtx)
        nvtxRangePop();
#endif
}

static int svc_rank(harness_ctx *ctx) { return ctx->rank; }
static int svc_world_size(harness_ctx *ctx) { return ctx->world_size; }
static int svc_num_threads(harness_ctx *ctx) { return ctx->threads; }

static const harness_services host_services = {
    .size = sizeof(harness_services),
    .abi_major = HARNESS_ABI_MAJOR,
    .abi_minor = HARNESS_ABI_MINOR,
    .register_variant = svc_register_variant,
    .log = svc_log,
    .fail = svc_fail,
    .param_int = svc_param_int,
    .param_float = svc_param_float,
    .param_bool = svc_param_bool,
    .param_string = svc_param_string,
    .alloc = svc_alloc,
    .free = svc_free,
    .fill = svc_fill,
    .region_push = svc_region_push,
    .region_pop = svc_region_pop,
    .rank = svc_rank,
    .world_size = svc_world_size,
    .num_threads = svc_num_threads,
};

const harness_services *harness_host_services(void)
{
    return &host_services;
}

void harness_ctx_init_instance(harness_ctx *ctx, const harness_variant *variant, const harness_config *cfg,
                               harness_alloc_tracker *mem, harness_datagen *gen)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->variant = variant;
    ctx->cfg = cfg;
    ctx->mem = mem;
    ctx->gen = gen;
    ctx->rank = 0;
    ctx->world_size = 1;
    ctx->threads = omp_get_max_threads();
}

const char *harness_ctx_message(const harness_ctx *ctx, const char *fallback)
{
    return ctx->failed && ctx->message[0] ? ctx->message : fallback;
}
