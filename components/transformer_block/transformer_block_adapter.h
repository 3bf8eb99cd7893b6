/* transformer_block_adapter.h - what transformer_block/cpu and
 * transformer_block/cuda share: the parameter table, how both read it into a
 * shape, and how both make the weights from the data generator. One copy, so
 * that a config switches `device` and nothing else, and both devices see the
 * same x and weights for the same seed. Included by components/transformer_block/transformer_block_cpu_adapter.c
 * and components/transformer_block/transformer_block_cuda_adapter.c (after <harness/plugin.h>, as
 * `harness_host`'s user).
 *
 * Weights: each projection from the generator, then scaled by 1/sqrt(fan_in)
 * (its in_features), the usual initialisation, so that every projection keeps
 * the activations' scale (see components/transformer_block/transformer_block_cpu_adapter.c for why). RMSNorm
 * weights are 1 + generator / 10: near one, as in a trained model, yet not all
 * equal, so a kernel that ignored them would fail the check. */
#ifndef PLUGINS_TRANSFORMER_BLOCK_PARAMS_H
#define PLUGINS_TRANSFORMER_BLOCK_PARAMS_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "transformer_block/transformer_block.h"
#include "common/bf16.h"

static const char *const tb_dtypes[] = {"fp32", "bf16", NULL};

static const harness_param tb_params[] = {
    HARNESS_INT_PARAM_MIN("batch_size", "1", 1, "sequences per step"),
    HARNESS_INT_PARAM_MIN("seq_len", "256", 1, "tokens per sequence (positions 0..seq_len-1 for RoPE)"),
    HARNESS_INT_PARAM_MIN("hidden_size", "1024", 1, "model width; must equal num_heads x head_dim with head_dim even"),
    HARNESS_INT_PARAM_MIN("num_heads", "16", 1, "query heads"),
    HARNESS_INT_PARAM_MIN("num_kv_heads", "0", 0,
        "key/value heads (grouped-query attention); 0 = num_heads; must divide num_heads"),
    HARNESS_INT_PARAM_MIN("intermediate_size", "2816", 1, "width of the SwiGLU MLP"),
    HARNESS_FLOAT_PARAM_RANGE("rope_theta", "10000", DBL_MIN, DBL_MAX,
        "RoPE base: pair i of a head turns by position x rope_theta^(-2i/head_dim)"),
    HARNESS_FLOAT_PARAM_RANGE("eps", "1e-5", FLT_MIN, FLT_MAX,
        "RMSNorm's eps, added to mean(x^2) under the square root; > 0"),
    HARNESS_BOOL_PARAM("causal", "true", "token i attends to tokens 0..i only"),
    HARNESS_ENUM_PARAM("dtype", "fp32", tb_dtypes,
        "storage of x, y and the weights; bf16: the CPU computes in fp32 on an fp32 copy of the weights, "
        "the GPU runs bf16 GEMMs with fp32 accumulation and keeps activations in bf16"),
    HARNESS_BOOL_PARAM("tensor_parallel", "false",
        "split heads and MLP columns over the job's ranks (Megatron-style), two all-reduces per step "
        "(on the GPU through NCCL)"),
};

/* The shape from the parameters (num_kv_heads 0 means num_heads), checked:
 * the combinations the schema cannot express, and sizes that overflow (with
 * attention scratch for `threads` CPU threads). Fails with a message that
 * starts with the parameters' names; run first by `validate`, so these are
 * config errors found before anything exists. *weights: the parameter count. */
static int tb_read_shape(harness_ctx *ctx, int threads, transformer_block_shape *sh, int *bf16,
                         transformer_block_sizes *sizes, size_t *weights)
{
    const harness_services *H = harness_host;
    int64_t p[6] = {H->param_int(ctx, "batch_size"),  H->param_int(ctx, "seq_len"),
                    H->param_int(ctx, "hidden_size"), H->param_int(ctx, "num_heads"),
                    H->param_int(ctx, "num_kv_heads"), H->param_int(ctx, "intermediate_size")};
    *bf16 = strcmp(H->param_string(ctx, "dtype"), "bf16") == 0;
    *sh = (transformer_block_shape){
        (size_t)p[0], (size_t)p[1], (size_t)p[2], (size_t)p[3], (size_t)(p[4] == 0 ? p[3] : p[4]),
        (size_t)p[5], H->param_float(ctx, "rope_theta"), (float)H->param_float(ctx, "eps"),
        H->param_bool(ctx, "causal"),
    };
    char msg[256];
    if (transformer_block_check_shape(sh, msg, sizeof msg) != 0 ||
        transformer_block_sizes_of(sh, *bf16 ? TB_BF16 : TB_F32, threads, sizes, msg, sizeof msg) != 0)
        return H->fail(ctx, "%s", msg);
    *weights = 0;
    for (int i = 0; i < TB_N_WEIGHTS; i++)
        if (__builtin_add_overflow(*weights, sizes->weight_elems[i], weights) ||
            *weights > SIZE_MAX / sizeof(float))
            return H->fail(ctx, "hidden_size (%zu) and intermediate_size (%zu) give more weights than size_t "
                           "can count; choose smaller sizes", sh->hidden, sh->intermediate);
    return 0;
}

/* What splitting the block over n ranks needs (tensor_parallel): the
 * collectives, and heads, kv heads and MLP columns that divide evenly. 0, or
 * -1 with the message recorded. */
static int tb_check_tensor_parallel(harness_ctx *ctx, const transformer_block_shape *sh, int n)
{
    if (!HARNESS_HAS_SERVICE(harness_host, all_reduce))
        return harness_host->fail(ctx, "tensor_parallel needs a harness with collectives (plugin ABI 2.2)");
    const size_t sizes[] = {sh->heads, sh->kv_heads, sh->intermediate};
    const char *const names[] = {"num_heads", "num_kv_heads", "intermediate_size"};
    for (int i = 0; i < 3; i++)
        if (sizes[i] % (size_t)n != 0)
            return harness_host->fail(ctx, "tensor_parallel: %s (%zu) is not a multiple of the job's %d ranks",
                                      names[i], sizes[i], n);
    return 0;
}

/* Weight `which` (n elements at w, host memory, stored as bf16 or fp32) from
 * the generator, shaped as described at the top; in place (bf16 values are
 * rounded back after scaling). 0, or -1 with fill's message recorded. */
static int tb_fill_weight(harness_ctx *ctx, const transformer_block_shape *sh, int which, int bf16, void *w,
                          size_t n)
{
    if (harness_host->fill(ctx, w, n, bf16 ? HARNESS_DTYPE_BF16 : HARNESS_DTYPE_F32) != 0)
        return -1;
    int norm = which == TB_ATTN_NORM || which == TB_MLP_NORM;
    float scale = (float)(1.0 / sqrt((double)(which == TB_W_DOWN ? sh->intermediate : sh->hidden)));
    for (size_t j = 0; j < n; j++) {
        float v = bf16 ? bf16_to_f32(((uint16_t *)w)[j]) : ((float *)w)[j];
        v = norm ? 1.0f + 0.1f * v : v * scale;
        if (bf16)
            ((uint16_t *)w)[j] = f32_to_bf16(v);
        else
            ((float *)w)[j] = v;
    }
    return 0;
}

#endif
