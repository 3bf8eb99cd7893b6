/* fake_device_host.c - see fake_device_host.h. */
#include "fake_device_host.h"

#include <cuda_runtime_api.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/f16.h"

size_t fake_free_bytes = (size_t)1 << 40, fake_total_bytes = (size_t)1 << 41;

/* The plugins ask the runtime how much memory is free before they allocate
 * (and say so when a shape cannot fit); there is no runtime here. */
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    *free_bytes = fake_free_bytes, *total_bytes = fake_total_bytes;
    return cudaSuccess;
}

int fake_compute_capability = 80;

/* attention/cuda asks which GPU it runs on (its Hopper kernel needs 9.0). */
cudaError_t cudaGetDevice(int *device)
{
    *device = 0;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    if (device != 0)
        return cudaErrorInvalidDevice;
    if (attr == cudaDevAttrComputeCapabilityMajor)
        *value = fake_compute_capability / 10;
    else if (attr == cudaDevAttrComputeCapabilityMinor)
        *value = fake_compute_capability % 10;
    else
        return cudaErrorInvalidValue;
    return cudaSuccess;
}

const char *fake_host_param(harness_ctx *c, const char *name)
{
    for (const char *const *p = c->params; *p; p += 2)
        if (strcmp(p[0], name) == 0)
            return p[1];
    const harness_variant *v = c->variant;
    for (size_t i = 0; i < v->n_params; i++)
        if (strcmp(v->params[i].name, name) == 0)
            return v->params[i].default_value;
    fail_msg("the plugin read an unknown parameter %s", name);
    return NULL;
}

int64_t fake_host_int(harness_ctx *c, const char *n) { return strtoll(fake_host_param(c, n), NULL, 10); }
double fake_host_float(harness_ctx *c, const char *n) { return strtod(fake_host_param(c, n), NULL); }
int fake_host_bool(harness_ctx *c, const char *n) { return strcmp(fake_host_param(c, n), "true") == 0; }
static const char *p_string(harness_ctx *c, const char *n) { return fake_host_param(c, n); }

static int reg(harness_ctx *c, const harness_variant *v)
{
    if (c->n_variants == 2)
        return -1;
    c->variants[c->n_variants++] = v;
    if (!c->variant)
        c->variant = v;
    return 0;
}

static void log_(harness_ctx *c, int level, const char *fmt, ...)
{
    (void)level;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->logged, sizeof c->logged, fmt, ap);
    va_end(ap);
}

static void note_(harness_ctx *c, const char *key, const char *value)
{
    snprintf(c->noted, sizeof c->noted, "%s: %s", key, value);
}

int fake_host_fail(harness_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, sizeof c->why, fmt, ap);
    va_end(ap);
    return -1;
}

static void *alloc_(harness_ctx *c, size_t bytes, const char *tag)
{
    (void)c, (void)tag;
    void *p = NULL;
    return posix_memalign(&p, 64, bytes ? bytes : 1) == 0 ? p : NULL;
}

static void free_(harness_ctx *c, void *p)
{
    (void)c;
    free(p);
}

/* Values in [-2, 2) of the requested type (fp32, bf16 or fp16). */
static int fill_(harness_ctx *c, void *buf, size_t n, harness_dtype dt)
{
    c->filled = dt;
    for (size_t i = 0; i < n; i++) {
        c->rng = c->rng * 1664525u + 1013904223u;
        float f = -2.0f + 4.0f * (float)(c->rng >> 8) / (float)(1u << 24);
        if (dt == HARNESS_DTYPE_F32) {
            ((float *)buf)[i] = f;
        } else if (dt == HARNESS_DTYPE_F16) {
            ((uint16_t *)buf)[i] = f32_to_f16(f);
        } else {
            uint32_t u;
            memcpy(&u, &f, sizeof u);
            ((uint16_t *)buf)[i] = (uint16_t)(u >> 16);   /* truncation: any bf16 value will do */
        }
    }
    return 0;
}

/* "Device" memory: host memory, at most device_limit bytes in use. The size
 * is kept in front of the block, 256 bytes before the pointer (the alignment
 * the real service gives). */
static void *dev_alloc(harness_ctx *c, size_t bytes, const char *tag)
{
    if (c->device_used + bytes > c->device_limit) {
        fake_host_fail(c, "out of device memory allocating %zu bytes for '%s'", bytes, tag);
        return NULL;
    }
    char *p = NULL;
    if (posix_memalign((void **)&p, 256, bytes + 256) != 0)
        return NULL;
    memcpy(p, &bytes, sizeof bytes);
    c->device_used += bytes;
    if (c->n_tags < FAKE_HOST_MAX_TAGS)
        c->tags[c->n_tags] = tag, c->tagged[c->n_tags++] = p + 256;
    return p + 256;
}

static void dev_free(harness_ctx *c, void *ptr)
{
    char *p = (char *)ptr - 256;
    size_t bytes;
    memcpy(&bytes, p, sizeof bytes);
    c->device_used -= bytes;
    for (int i = 0; i < c->n_tags; i++)
        if (c->tagged[i] == ptr)
            c->tagged[i] = NULL;
    free(p);
}

void *fake_host_tagged(harness_ctx *c, const char *tag)
{
    for (int i = c->n_tags - 1; i >= 0; i--)
        if (c->tagged[i] && strcmp(c->tags[i], tag) == 0)
            return c->tagged[i];
    fail_msg("no device buffer tagged %s", tag);
    return NULL;
}

static int copy_(harness_ctx *c, void *dst, const void *src, size_t bytes)
{
    (void)c;
    memcpy(dst, src, bytes);
    return 0;
}

static void region_push_(harness_ctx *c, const char *name)
{
    assert_int_equal(c->depth, 0);               /* the components' regions never nest */
    c->depth++;
    if (c->n_regions < FAKE_HOST_MAX_REGIONS)
        c->regions[c->n_regions++] = name;
}

static void region_pop_(harness_ctx *c)
{
    assert_int_equal(c->depth, 1);
    c->depth--;
}

static int rank_(harness_ctx *c) { return c->rank; }
static int world_size_(harness_ctx *c) { return c->world_size; }

static int threads_(harness_ctx *c)
{
    (void)c;
    return 1;
}

static void *stream_(harness_ctx *c)
{
    (void)c;
    return NULL;
}

static int sync_(harness_ctx *c)
{
    (void)c;
    return 0;
}

/* input fills like device_fill (the fake's memory is host memory either
 * way); output only declares, which the fake has no use for. */
static int output_(harness_ctx *c, const void *buf, size_t count, harness_dtype dtype)
{
    (void)c, (void)buf, (void)count, (void)dtype;
    return 0;
}

const harness_services fake_host_services = {
    .size = sizeof(harness_services), .abi_major = HARNESS_ABI_MAJOR, .abi_minor = HARNESS_ABI_MINOR,
    .register_variant = reg, .log = log_, .note = note_, .fail = fake_host_fail,
    .param_int = fake_host_int, .param_float = fake_host_float, .param_bool = fake_host_bool,
    .param_string = p_string, .alloc = alloc_, .free = free_, .fill = fill_,
    .region_push = region_push_, .region_pop = region_pop_,
    .rank = rank_, .world_size = world_size_, .num_threads = threads_,
    .device_alloc = dev_alloc, .device_free = dev_free, .copy_to_device = copy_, .copy_to_host = copy_,
    .device_fill = fill_, .stream = stream_, .device_synchronize = sync_,
    .input = fill_, .output = output_,
};
