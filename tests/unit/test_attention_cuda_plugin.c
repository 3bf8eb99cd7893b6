/* test_attention_cuda_plugin.c - the attention plugin for NVIDIA GPUs
 * (plugins/attention_cuda.c: attention/cuda and attention/cublas) end to end
 * without a GPU: its kernels are tests/cudasim's CPU builds of
 * attention_cuda.cu and attention_softmax.cu, cuBLAS is fake_cublas.c (the
 * GEMMs on the CPU, with cuBLAS's argument checks), and the host is a fake
 * service table whose "device" memory is host memory (with a limit, to run
 * out of). Covers what only a GPU run would otherwise reach: parameters into
 * a shape, validate's config errors, create (allocations, device_fill, the
 * plan, the cuBLAS handle), check (copies back, attention_check's verdict,
 * the kernel named in the detail), step, cost, destroy, and the
 * out-of-memory message. For attention/cublas it checks the GEMMs' layouts
 * (transposes, leading dimensions, batch strides, grouped heads). */
#include <harness/plugin.h>

#include <cuda_runtime_api.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/f16.h"

int attention_cuda_LTX_harness_plugin_init(const harness_services *svc, harness_ctx *ctx);

/* The plugin asks the runtime how much memory is free before it allocates
 * (and says so when a shape cannot fit); there is no runtime here. */
static size_t fake_free_bytes = (size_t)1 << 40, fake_total_bytes = (size_t)1 << 41;

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    *free_bytes = fake_free_bytes, *total_bytes = fake_total_bytes;
    return cudaSuccess;
}

/* ---- the fake host ----------------------------------------------------- */

struct harness_ctx {
    const char *const *params;     /* name, value, name, value, ..., NULL */
    const harness_variant *variant, *variants[2];
    int n_variants;
    char why[512], logged[512];    /* the last fail and log messages */
    size_t device_used, device_limit;
    uint32_t rng;
    harness_dtype filled;          /* the last fill's */
};

static const char *param(harness_ctx *c, const char *name)
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

static int64_t p_int(harness_ctx *c, const char *n) { return strtoll(param(c, n), NULL, 10); }
static double p_float(harness_ctx *c, const char *n) { return strtod(param(c, n), NULL); }
static int p_bool(harness_ctx *c, const char *n) { return strcmp(param(c, n), "true") == 0; }
static const char *p_string(harness_ctx *c, const char *n) { return param(c, n); }

static int reg(harness_ctx *c, const harness_variant *v)
{
    if (c->n_variants == 2)
        return -1;
    c->variants[c->n_variants++] = v;
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

static int fail_(harness_ctx *c, const char *fmt, ...)
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
        fail_(c, "out of device memory allocating %zu bytes for '%s'", bytes, tag);
        return NULL;
    }
    char *p = NULL;
    if (posix_memalign((void **)&p, 256, bytes + 256) != 0)
        return NULL;
    memcpy(p, &bytes, sizeof bytes);
    c->device_used += bytes;
    return p + 256;
}
static void dev_free(harness_ctx *c, void *ptr)
{
    char *p = (char *)ptr - 256;
    size_t bytes;
    memcpy(&bytes, p, sizeof bytes);
    c->device_used -= bytes;
    free(p);
}
static int copy_(harness_ctx *c, void *dst, const void *src, size_t bytes)
{
    (void)c;
    memcpy(dst, src, bytes);
    return 0;
}
static void region_push_(harness_ctx *c, const char *name)
{
    (void)c, (void)name;
}
static void region_pop_(harness_ctx *c)
{
    (void)c;
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

static const harness_services services = {
    .size = sizeof(harness_services), .abi_major = HARNESS_ABI_MAJOR, .abi_minor = HARNESS_ABI_MINOR,
    .register_variant = reg, .log = log_, .fail = fail_,
    .param_int = p_int, .param_float = p_float, .param_bool = p_bool, .param_string = p_string,
    .alloc = alloc_, .free = free_, .fill = fill_, .region_push = region_push_, .region_pop = region_pop_,
    .device_alloc = dev_alloc, .device_free = dev_free, .copy_to_device = copy_, .copy_to_host = copy_,
    .device_fill = fill_, .stream = stream_, .device_synchronize = sync_,
};

/* Loads the plugin and picks the variant `key` (both must register). */
static harness_ctx *open_plugin(const char *key, const char *const *params, size_t device_limit)
{
    harness_ctx *c = calloc(1, sizeof *c);
    assert_non_null(c);
    c->params = params;
    c->device_limit = device_limit;
    c->rng = 3;
    assert_int_equal(attention_cuda_LTX_harness_plugin_init(&services, c), 0);
    assert_int_equal(c->n_variants, 2);
    assert_string_equal(c->variants[0]->key, "attention/cuda");
    assert_string_equal(c->variants[1]->key, "attention/cublas");
    c->variant = strcmp(key, "attention/cuda") == 0 ? c->variants[0] : c->variants[1];
    return c;
}

/* validate, create, check (one step, compared), two steps, cost, destroy;
 * create filled the inputs in the dtype, and its log line and the check's
 * detail name it; the detail also `kernel`. */
static void run_config(const char *key, const char *const *params, const char *kernel)
{
    harness_ctx *c = open_plugin(key, params, (size_t)1 << 30);
    const harness_variant *v = c->variant;
    const char *dtype = param(c, "dtype");
    assert_int_equal(v->validate(c), 0);
    void *state = NULL;
    if (v->create(c, &state) != 0)
        fail_msg("create: %s", c->why);
    if (!strstr(c->logged, dtype))
        fail_msg("create's log line does not name %s: %s", dtype, c->logged);
    assert_int_equal(c->filled, strcmp(dtype, "fp16") == 0   ? HARNESS_DTYPE_F16
                                : strcmp(dtype, "bf16") == 0 ? HARNESS_DTYPE_BF16
                                                             : HARNESS_DTYPE_F32);
    harness_check chk;
    memset(&chk, 0, sizeof chk);
    chk.size = sizeof chk;
    if (v->check(c, state, &chk) != 0)
        fail_msg("check: %s", c->why);
    if (!chk.passed)
        print_error("check failed: %s\n", chk.detail);
    assert_true(chk.passed);
    assert_true(chk.checked > 0);
    assert_non_null(strstr(chk.detail, kernel));
    assert_true(strncmp(chk.detail, dtype, strlen(dtype)) == 0);   /* "<dtype> vs double ref" */
    assert_int_equal(v->step(c, state), 0);
    harness_cost cost = {sizeof cost, 0, 0};
    v->cost(state, &cost);
    assert_true(cost.flops > 0 && cost.bytes > 0);
    v->destroy(c, state);
    assert_int_equal(c->device_used, 0);         /* every device buffer freed */
    free(c);
}

static void test_kernels_through_the_plugin(void **state)
{
    (void)state;
    static const char *const bf16_gqa[] = {"dtype", "bf16", "num_heads", "4", "num_kv_heads", "2", "seq_len", "65",
                                           "kv_seq_len", "70", "head_dim", "64", NULL};
    static const char *const fp32_causal[] = {"num_heads", "2", "seq_len", "33", "kv_seq_len", "20", "head_dim",
                                              "128", "batch_size", "2", NULL};
    static const char *const fp32_odd[] = {"num_heads", "3", "seq_len", "5", "head_dim", "3", "causal", "false",
                                           "scale", "0.5", NULL};
    /* fp16: the tensor cores at head_dim 128, causal with Sq > Sk (the first
     * queries see no key), and the fallback. */
    static const char *const fp16_gqa[] = {"dtype", "fp16", "num_heads", "4", "num_kv_heads", "1", "seq_len", "70",
                                           "kv_seq_len", "33", "head_dim", "128", NULL};
    static const char *const fp16_odd[] = {"dtype", "fp16", "num_heads", "2", "seq_len", "7", "kv_seq_len", "12",
                                           "head_dim", "5", "batch_size", "2", "scale", "0.8", NULL};
    run_config("attention/cuda", bf16_gqa, "tensor-core");
    run_config("attention/cuda", fp32_causal, "SIMT");
    run_config("attention/cuda", fp32_odd, "fallback");
    run_config("attention/cuda", fp16_gqa, "tensor-core");
    run_config("attention/cuda", fp16_odd, "fallback");
    /* The same configs through cuBLAS (fake) and the softmax kernel, plus a
     * grouped fp32 one and an ungrouped bf16 one over two sequences. */
    static const char *const fp32_gqa[] = {"num_heads", "6", "num_kv_heads", "2", "seq_len", "9", "kv_seq_len",
                                           "13", "head_dim", "5", "batch_size", "2", NULL};
    static const char *const bf16_mha[] = {"dtype", "bf16", "num_heads", "3", "seq_len", "17", "kv_seq_len", "11",
                                           "head_dim", "8", "batch_size", "2", NULL};
    run_config("attention/cublas", bf16_gqa, "cuBLAS");
    run_config("attention/cublas", fp32_causal, "cuBLAS");
    run_config("attention/cublas", fp32_odd, "cuBLAS");
    run_config("attention/cublas", fp32_gqa, "cuBLAS");
    run_config("attention/cublas", bf16_mha, "cuBLAS");
    run_config("attention/cublas", fp16_gqa, "cuBLAS");
    run_config("attention/cublas", fp16_odd, "cuBLAS");
}

static void test_config_errors(void **state)
{
    (void)state;
    static const char *const kv3[] = {"num_heads", "8", "num_kv_heads", "3", NULL};
    harness_ctx *c = open_plugin("attention/cuda", kv3, (size_t)1 << 30);
    assert_int_equal(c->variant->validate(c), -1);
    assert_non_null(strstr(c->why, "num_kv_heads"));
    free(c);
    static const char *const grid[] = {"batch_size", "70000", "seq_len", "1", "num_heads", "1", NULL};
    c = open_plugin("attention/cuda", grid, (size_t)1 << 30);
    assert_int_equal(c->variant->validate(c), -1);
    assert_non_null(strstr(c->why, "batch_size"));
    free(c);
    c = open_plugin("attention/cublas", kv3, (size_t)1 << 30);
    assert_int_equal(c->variant->validate(c), -1);
    assert_non_null(strstr(c->why, "num_kv_heads"));
    free(c);
}

/* 1 x 64 x 2 x 64 bf16: q and o 16 KiB each, k and v too; 40 KiB of "device". */
static void test_out_of_device_memory(void **state)
{
    (void)state;
    static const char *const p[] = {"dtype", "bf16", "num_heads", "2", "seq_len", "64", "head_dim", "64", NULL};
    fake_free_bytes = 1000, fake_total_bytes = 4000;
    harness_ctx *c = open_plugin("attention/cuda", p, 40 << 10);
    void *st = NULL;
    assert_int_equal(c->variant->create(c, &st), -1);
    assert_non_null(strstr(c->why, "need 65536 bytes of device memory"));
    assert_non_null(strstr(c->why, "1000 free of 4000"));
    assert_int_equal(c->device_used, 0);          /* what was allocated is given back */
    free(c);
    /* attention/cublas also needs the scores (2 x 64 x 64 x 6 bytes, fp16 as
     * bf16) and 32 MiB of cuBLAS workspace: 65536 + 49152 + 33554432. */
    static const char *const p16[] = {"dtype", "fp16", "num_heads", "2", "seq_len", "64", "head_dim", "64", NULL};
    for (int i = 0; i < 2; i++) {
        c = open_plugin("attention/cublas", i ? p16 : p, 1 << 20);
        assert_int_equal(c->variant->create(c, &st), -1);
        assert_non_null(strstr(c->why, "attention/cublas: q, k, v and o, the scores and cuBLAS's workspace need "
                                       "33669120 bytes"));
        assert_int_equal(c->device_used, 0);
        free(c);
    }
    /* The runtime says there is room, yet an allocation fails: the same message. */
    fake_free_bytes = (size_t)1 << 40, fake_total_bytes = (size_t)1 << 41;
    c = open_plugin("attention/cuda", p, 40 << 10);
    assert_int_equal(c->variant->create(c, &st), -1);
    assert_non_null(strstr(c->why, "need 65536 bytes of device memory (2 x 16384 + 2 x 16384)"));
    assert_int_equal(c->device_used, 0);
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernels_through_the_plugin),
        cmocka_unit_test(test_config_errors),
        cmocka_unit_test(test_out_of_device_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
