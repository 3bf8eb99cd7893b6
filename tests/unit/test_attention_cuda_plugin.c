/* test_attention_cuda_plugin.c - the attention plugin for NVIDIA GPUs
 * (components/attention/attention_cuda_adapter.c: attention/cuda and attention/cublas) end to end
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
#include "fake_device_host.h"

int attention_cuda_LTX_harness_plugin_init(const harness_services *svc, harness_ctx *ctx);


/* Loads the plugin and picks the variant `key` (both must register). */
static harness_ctx *open_plugin(const char *key, const char *const *params, size_t device_limit)
{
    harness_ctx *c = calloc(1, sizeof *c);
    assert_non_null(c);
    c->params = params;
    c->device_limit = device_limit;
    c->rng = 3;
    assert_int_equal(attention_cuda_LTX_harness_plugin_init(&fake_host_services, c), 0);
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
    const char *dtype = fake_host_param(c, "dtype");
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
    assert_int_equal(v->step_cost(c, state, &cost), 0);
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

/* On a device of compute capability 9.0 (the fake runtime's answer) the
 * plugin plans the Hopper kernel, whose launch here is the stub's refusal
 * (the kernel runs in test_attention_hopper_sim): the step says so. On 8.0,
 * and with HARNESS_ATTENTION_KERNEL=mma_sync on 9.0, mma.sync; a misspelt
 * override is a config error. */
static void test_hopper_choice(void **state)
{
    (void)state;
    static const char *const p[] = {"dtype", "bf16", "num_heads", "2", "seq_len", "64", "head_dim", "64", NULL};
    unsetenv("HARNESS_ATTENTION_KERNEL");
    fake_compute_capability = 90;
    harness_ctx *c = open_plugin("attention/cuda", p, (size_t)1 << 30);
    void *st = NULL;
    assert_int_equal(c->variant->create(c, &st), 0);
    assert_non_null(strstr(c->logged, "Hopper"));
    /* The summary's note of what ran: head_dim 64, three consumers, O
     * through TMA stores (attention_cuda_describe). */
    assert_string_equal(c->noted, "kernel: Hopper (wgmma, TMA, warp-specialized): 3 stages of 128 keys, "
                                  "3 consumer warpgroups, no cluster, persistent, O through TMA stores");
    assert_int_equal(c->variant->step(c, st), -1);
    assert_non_null(strstr(c->why, "Hopper kernel is not in this build"));
    c->variant->destroy(c, st);
    free(c);
    setenv("HARNESS_ATTENTION_KERNEL", "mma_sync", 1);
    run_config("attention/cuda", p, "tensor-core (mma.sync)");
    setenv("HARNESS_ATTENTION_KERNEL", "wgmma", 1);
    c = open_plugin("attention/cuda", p, (size_t)1 << 30);
    assert_int_equal(c->variant->validate(c), -1);
    assert_non_null(strstr(c->why, "HARNESS_ATTENTION_KERNEL='wgmma': use mma_sync or hopper"));
    free(c);
    unsetenv("HARNESS_ATTENTION_KERNEL");
    fake_compute_capability = 80;
    run_config("attention/cuda", p, "tensor-core (mma.sync)");
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
        cmocka_unit_test(test_hopper_choice),
        cmocka_unit_test(test_kernels_through_the_plugin),
        cmocka_unit_test(test_config_errors),
        cmocka_unit_test(test_out_of_device_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
