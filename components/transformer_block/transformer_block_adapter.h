/* transformer_block_adapter.h - what transformer_block/cpu and
 * transformer_block/cuda share: the parameter table, how both read it into a
 * shape, and how both make the weights from the data generator. One copy, so
 * that a config switches `device` and nothing else, and both devices see the
 * same x and weights for the same seed; and the cost of a step. Compiled into
 * both plugins, whose files share harness_host (HARNESS_SHARED_HOST,
 * build.am).
 *
 * Weights: each projection from the generator, then scaled by 1/sqrt(fan_in)
 * (its in_features), the usual initialisation, so that every projection keeps
 * the activations' scale (see transformer_block_cpu_adapter.c for why). RMSNorm
 * weights are 1 + generator / 10: near one, as in a trained model, yet not all
 * equal, so a kernel that ignored them would fail the check. */
#ifndef TRANSFORMER_BLOCK_ADAPTER_H
#define TRANSFORMER_BLOCK_ADAPTER_H

#include <float.h>
#include <stddef.h>

#include <harness/plugin.h>

#include "transformer_block/transformer_block.h"

/* The table, the same on both devices. */
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
int tb_read_shape(harness_ctx *ctx, int threads, transformer_block_shape *sh, int *bf16,
                  transformer_block_sizes *sizes, size_t *weights);

/* What splitting the block over n ranks needs (tensor_parallel): the
 * collectives, and heads, kv heads and MLP columns that divide evenly. 0, or
 * -1 with the message recorded. */
int tb_check_tensor_parallel(harness_ctx *ctx, const transformer_block_shape *sh, int n);

/* Weight `which` (n elements at w, host memory, stored as bf16 or fp32) from
 * the generator, shaped as described at the top; in place (bf16 values are
 * rounded back after scaling). 0, or -1 with fill's message recorded. */
int tb_fill_weight(harness_ctx *ctx, const transformer_block_shape *sh, int which, int bf16, void *w, size_t n);

/* step_cost's figures, given what each device reads: FLOPs, 2 per
 * multiply-add of the six projections plus attention's exact count (causal
 * mask included), per rank its share when the block is split over tp_size
 * ranks; bytes, the weight bytes this rank reads plus x read and y written
 * (x_bytes each). Activations, produced and consumed within the step, and the
 * O(tokens x (hidden + intermediate)) elementwise work are left out. */
void tb_cost_of(const transformer_block_shape *sh, int tp_size, double weight_bytes, size_t x_bytes,
                harness_cost *out);

#endif
