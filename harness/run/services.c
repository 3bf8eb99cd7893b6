/* The service table handed to plugins. Every service takes the context the
 * host gave the plugin, so nothing here is global but the table itself. The
 * region services are on the hot path of a step: one kind check and a branch. */
#include "run/services.h"

#include "dist/collective.h"
#include "run/collectives.h"
#include "plugin/registry.h"
#include "run/instance.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build_config.h"

#ifdef HAVE_CUDA
#include <nvtx3/nvToolsExt.h>
#endif

/* The instance behind a context, or NULL (with a failure recorded) when
 * the plugin called an instance service from its init. */
static harness_instance *instance_of(harness_ctx *ctx, const char *service)
{
    if (ctx->kind == HARNESS_CTX_INSTANCE)
        return (harness_instance *)ctx;
    harness_ctx_failf(ctx, "%s called outside a component instance", service);
    return NULL;
}

/* A name the schema does not have, or of another type, is a plugin bug:
 * record it so create() fails with a message instead of running on zeros. */
static const harness_param_value *lookup(harness_ctx *ctx, const char *name, harness_param_type want)
{
    harness_instance *in = instance_of(ctx, "param_*");
    if (!in)
        return NULL;
    const harness_param_value *p = in->cfg ? harness_config_param(in->cfg, name) : NULL;
    if (!p) {
        harness_ctx_failf(ctx, "plugin asked for parameter '%s', which %s does not declare", name,
                          ctx->variant ? ctx->variant->key : "the variant");
        return NULL;
    }
    int ok = p->spec->type == want ||
             (want == HARNESS_PARAM_STRING && p->spec->type == HARNESS_PARAM_ENUM);
    if (!ok) {
        harness_ctx_failf(ctx, "plugin read parameter '%s' with the wrong type accessor", name);
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
    harness_instance *in = instance_of(ctx, "alloc");
    if (!in)
        return NULL;
    if (!in->mem) {
        harness_ctx_failf(ctx, "alloc called while parameters are being validated");
        return NULL;
    }
    void *p = harness_tracked_alloc(in->mem, bytes, tag, ctx->variant ? ctx->variant->key : NULL);
    if (!p)
        harness_ctx_failf(ctx, "out of host memory allocating %zu bytes for '%s'", bytes, tag ? tag : "untagged");
    return p;
}

static void svc_free(harness_ctx *ctx, void *ptr)
{
    harness_instance *in = instance_of(ctx, "free");
    if (in && in->mem && harness_tracked_free(in->mem, ptr) != 0)
        harness_ctx_failf(ctx, "free of a pointer the harness did not allocate (%p)", ptr);
}

static int svc_fill(harness_ctx *ctx, void *buf, size_t count, harness_dtype dtype)
{
    harness_instance *in = instance_of(ctx, "fill");
    if (!in)
        return -1;
    if (!in->gen)
        return harness_svc_fail(ctx, "fill called while parameters are being validated");
    if (harness_datagen_fill(in->gen, buf, count, dtype) != 0)
        return harness_svc_fail(ctx, "fill: unsupported dtype %d", (int)dtype);
    return 0;
}

/* With profiling off a region is a counter increment and two untaken
 * branches: regions may stay in production kernels. */
static void svc_region_push(harness_ctx *ctx, const char *name)
{
    harness_instance *in = instance_of(ctx, "region_push");
    if (!in)
        return;
    /* Copied, not pointed at (the name may be the plugin's stack buffer),
     * and only at depth 0: once per step for the usual one outer region. */
    if (in->region_depth++ == 0)
        snprintf(in->outer_region, sizeof in->outer_region, "%s", name ? name : "(null)");
    if (in->profiler && in->profiler->recording)
        harness_profiler_push(in->profiler, name);
#ifdef HAVE_CUDA
    if (in->nvtx)
        nvtxRangePushA(name ? name : "(null)");
#endif
}

static void svc_region_pop(harness_ctx *ctx)
{
    harness_instance *in = instance_of(ctx, "region_pop");
    if (!in)
        return;
    if (in->region_depth == 0) {
        harness_ctx_failf(ctx, "region_pop without a matching region_push");
        return;
    }
    in->region_depth--;
    if (in->profiler && in->profiler->recording)
        harness_profiler_pop(in->profiler);
#ifdef HAVE_CUDA
    if (in->nvtx)
        nvtxRangePop();
#endif
}

static int svc_rank(harness_ctx *ctx)
{
    harness_instance *in = instance_of(ctx, "rank");
    return in ? in->rank : 0;
}

static int svc_world_size(harness_ctx *ctx)
{
    harness_instance *in = instance_of(ctx, "world_size");
    return in ? in->world_size : 1;
}

static int svc_num_threads(harness_ctx *ctx)
{
    harness_instance *in = instance_of(ctx, "num_threads");
    return in ? in->threads : 1;
}

/* ---- ABI 2.1: device services ------------------------------------------ */

/* The instance, when it runs on a device; else NULL with a failure recorded. */
static harness_instance *device_instance(harness_ctx *ctx, const char *service)
{
    harness_instance *in = instance_of(ctx, service);
    if (!in)
        return NULL;
    if (!in->backend || !in->device_mem || !in->backend->ops->copy) {
        harness_ctx_failf(ctx, "%s: this instance runs on %s, which has no device memory", service,
                          in->backend ? in->backend->name : "no device (parameters are being validated)");
        return NULL;
    }
    return in;
}

static void *svc_device_alloc(harness_ctx *ctx, size_t bytes, const char *tag)
{
    harness_instance *in = device_instance(ctx, "device_alloc");
    if (!in)
        return NULL;
    void *p = harness_tracked_alloc(in->device_mem, bytes, tag, ctx->variant ? ctx->variant->key : NULL);
    if (!p)
        harness_ctx_failf(ctx, "out of device memory allocating %zu bytes for '%s'", bytes, tag ? tag : "untagged");
    return p;
}

static void svc_device_free(harness_ctx *ctx, void *ptr)
{
    harness_instance *in = device_instance(ctx, "device_free");
    if (in && harness_tracked_free(in->device_mem, ptr) != 0)
        harness_ctx_failf(ctx, "device_free of a pointer the harness did not allocate (%p)", ptr);
}

static int device_copy(harness_ctx *ctx, const char *service, void *dst, const void *src, size_t bytes,
                       int to_device)
{
    harness_instance *in = device_instance(ctx, service);
    if (!in)
        return -1;
    harness_error err = {0};
    if (in->backend->ops->copy(in->backend, dst, src, bytes, to_device, &err) != 0)
        return harness_svc_fail(ctx, "%s of %zu bytes: %s", service, bytes, err.msg);
    return 0;
}

static int svc_copy_to_device(harness_ctx *ctx, void *dst, const void *src, size_t bytes)
{
    return device_copy(ctx, "copy_to_device", dst, src, bytes, 1);
}

static int svc_copy_to_host(harness_ctx *ctx, void *dst, const void *src, size_t bytes)
{
    return device_copy(ctx, "copy_to_host", dst, src, bytes, 0);
}


/* Generated on the host and copied, so a CUDA variant sees exactly the
 * values its CPU sibling sees for the same seed. */
static int svc_device_fill(harness_ctx *ctx, void *buf, size_t count, harness_dtype dtype)
{
    harness_instance *in = device_instance(ctx, "device_fill");
    if (!in)
        return -1;
    size_t elem = harness_dtype_size(dtype), bytes;
    if (!elem)
        return harness_svc_fail(ctx, "device_fill: unsupported dtype %d", (int)dtype);
    if (__builtin_mul_overflow(count, elem, &bytes))
        return harness_svc_fail(ctx, "device_fill: %zu elements overflow size_t", count);
    void *host = malloc(bytes ? bytes : 1);
    if (!host)
        return harness_svc_fail(ctx, "device_fill: out of host memory staging %zu bytes", bytes);
    int rc = svc_fill(ctx, host, count, dtype);
    if (rc == 0)
        rc = device_copy(ctx, "device_fill", buf, host, bytes, 1);
    free(host);
    return rc;
}

static void *svc_stream(harness_ctx *ctx)
{
    harness_instance *in = device_instance(ctx, "stream");
    return in ? in->backend->stream : NULL;
}

static int svc_device_synchronize(harness_ctx *ctx)
{
    harness_instance *in = device_instance(ctx, "device_synchronize");
    if (!in)
        return -1;
    harness_error err = {0};
    if (in->backend->ops->synchronize(in->backend, &err) != 0)
        return harness_svc_fail(ctx, "device_synchronize: %s", err.msg);
    return 0;
}

/* ---- ABI 2.4: declared inputs and outputs ------------------------------- */

static int on_device(const harness_instance *in, const void *p)
{
    return in->backend && in->backend->ops->is_device_memory && in->backend->ops->is_device_memory(in->backend, p);
}

static int svc_input(harness_ctx *ctx, void *buf, size_t count, harness_dtype dtype)
{
    harness_instance *in = instance_of(ctx, "input");
    if (!in)
        return -1;
    char why[96];
    int device = on_device(in, buf);
    if (harness_declared_add(in->io.inputs, &in->io.n_inputs, buf, count, dtype, device, why, sizeof why) != 0)
        return harness_svc_fail(ctx, "input: %s", why);
    return device ? svc_device_fill(ctx, buf, count, dtype) : svc_fill(ctx, buf, count, dtype);
}

static int svc_output(harness_ctx *ctx, const void *buf, size_t count, harness_dtype dtype)
{
    harness_instance *in = instance_of(ctx, "output");
    if (!in)
        return -1;
    char why[96];
    if (harness_declared_add(in->io.outputs, &in->io.n_outputs, (void *)buf, count, dtype, on_device(in, buf), why,
                             sizeof why) != 0)
        return harness_svc_fail(ctx, "output: %s", why);
    return 0;
}

static const harness_services host_services = {
    .size = sizeof(harness_services),
    .abi_major = HARNESS_ABI_MAJOR,
    .abi_minor = HARNESS_ABI_MINOR,
    .register_variant = harness_svc_register_variant,
    .log = harness_svc_log,
    .fail = harness_svc_fail,
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
    .device_alloc = svc_device_alloc,
    .device_free = svc_device_free,
    .copy_to_device = svc_copy_to_device,
    .copy_to_host = svc_copy_to_host,
    .device_fill = svc_device_fill,
    .stream = svc_stream,
    .device_synchronize = svc_device_synchronize,
    .all_reduce = harness_svc_all_reduce,
    .all_gather = harness_svc_all_gather,
    .reduce_scatter = harness_svc_reduce_scatter,
    .broadcast = harness_svc_broadcast,
    .barrier = harness_svc_barrier,
    .send_recv = harness_svc_send_recv,
    .note = harness_svc_note,
    .set_unload = harness_svc_set_unload,
    .input = svc_input,
    .output = svc_output,
};

const harness_services *harness_host_services(void)
{
    return &host_services;
}
