/* attention_params.h - the parameters attention/cpu and attention/cuda share,
 * and how both read them into a shape: one table, so that a config switches
 * device and nothing else, but for the dtypes offered (the CUDA variants'
 * tensor cores also take fp16; the CPU kernels do not). Included by
 * plugins/attention.c and plugins/attention_cuda.c (after <harness/plugin.h>,
 * as `harness_host`'s user). */
#ifndef PLUGINS_ATTENTION_PARAMS_H
#define PLUGINS_ATTENTION_PARAMS_H

#include <float.h>
#include <math.h>
#include <string.h>

#include "attention/attention.h"

static const char *const attention_cpu_dtypes[] = {"fp32", "bf16", NULL};
static const char *const attention_cuda_dtypes[] = {"fp32", "bf16", "fp16", NULL};

/* The table, given dtype's choices and description: all the CPU's and the
 * CUDA variants' tables differ in. */
#define ATTENTION_PARAMS(dtypes, dtype_help, ...)                                                                          \
    {                                                                                                                 \
        {sizeof(harness_param), "batch_size", HARNESS_PARAM_INT, "1", HARNESS_PARAM_MIN, 1, 0, NULL,                  \
         "sequences per step"},                                                                                       \
        {sizeof(harness_param), "num_heads", HARNESS_PARAM_INT, "32", HARNESS_PARAM_MIN, 1, 0, NULL, "query heads"},  \
        {sizeof(harness_param), "num_kv_heads", HARNESS_PARAM_INT, "0", HARNESS_PARAM_MIN, 0, 0, NULL,                \
         "key/value heads (grouped-query attention), a divisor of num_heads; 0: num_heads"},                          \
        {sizeof(harness_param), "seq_len", HARNESS_PARAM_INT, "1024", HARNESS_PARAM_MIN, 1, 0, NULL,                  \
         "queries per sequence"},                                                                                     \
        {sizeof(harness_param), "kv_seq_len", HARNESS_PARAM_INT, "0", HARNESS_PARAM_MIN, 0, 0, NULL,                  \
         "keys per sequence; 0: seq_len. Causal masks align bottom-right (query i sees keys "                         \
         "<= i + kv_seq_len - seq_len)"},                                                                             \
        {sizeof(harness_param), "head_dim", HARNESS_PARAM_INT, "128", HARNESS_PARAM_MIN, 1, 0, NULL,                  \
         "elements per head"},                                                                                        \
        {sizeof(harness_param), "causal", HARNESS_PARAM_BOOL, "true", 0, 0, 0, NULL, "mask out keys after the query"}, \
        {sizeof(harness_param), "dtype", HARNESS_PARAM_ENUM, "fp32", 0, 0, 0, dtypes, dtype_help},                    \
        {sizeof(harness_param), "scale", HARNESS_PARAM_FLOAT, "0", HARNESS_PARAM_MIN | HARNESS_PARAM_MAX, 0, FLT_MAX, \
         NULL, "multiplies Q K^T before the softmax; 0: 1/sqrt(head_dim)"},                                           \
        __VA_ARGS__                                                                                                   \
    }

/* The CPU kernels' instruction set (attention_set_isa's names). */
static const char *const attention_cpu_isas[] = {"auto", "amx", "avx512_bf16", "avx512", "avx2", "portable", NULL};

static const harness_param attention_cpu_params[] = ATTENTION_PARAMS(
    attention_cpu_dtypes,
    "type of q, k, v and o; bf16 accumulates in fp32 and rounds outputs to nearest even (on the amx and "
    "avx512_bf16 paths its products are bf16 dot products, the softmax weights rounded to bf16 for P V)",
    {sizeof(harness_param), "isa", HARNESS_PARAM_ENUM, "auto", 0, 0, 0, attention_cpu_isas,
     "the kernels' instruction set: auto (the best this CPU has; the environment variable HARNESS_CPU_ISA "
     "overrides auto), or one forced, an error where the CPU lacks it"});
static const harness_param attention_cuda_params[] = ATTENTION_PARAMS(
    attention_cuda_dtypes, "type of q, k, v and o; bf16 and fp16 compute in fp32 and round to nearest even");

typedef struct attention_config {
    attention_shape shape;
    attention_dtype dtype;
    size_t elem, q_elems, kv_elems, q_bytes, kv_bytes;
} attention_config;

/* a * b * c * d, or nonzero when that overflows size_t. */
static int attention_mul4(size_t a, size_t b, size_t c, size_t d, size_t *out)
{
    return __builtin_mul_overflow(a, b, out) || __builtin_mul_overflow(*out, c, out) ||
           __builtin_mul_overflow(*out, d, out);
}

/* The parameters as a shape and buffer sizes. Fails (with a message naming
 * the parameters) on combinations the schema cannot rule out; run first by
 * `validate`, so those are config errors found before anything exists. */
static int attention_read_config(harness_ctx *ctx, attention_config *c)
{
    const harness_services *H = harness_host;
    memset(c, 0, sizeof *c);
    size_t batch = (size_t)H->param_int(ctx, "batch_size"), heads = (size_t)H->param_int(ctx, "num_heads");
    size_t kv = (size_t)H->param_int(ctx, "num_kv_heads"), seq = (size_t)H->param_int(ctx, "seq_len");
    size_t kv_seq = (size_t)H->param_int(ctx, "kv_seq_len"), d = (size_t)H->param_int(ctx, "head_dim");
    double scale = H->param_float(ctx, "scale");
    const char *dt = H->param_string(ctx, "dtype");
    attention_dtype dtype = strcmp(dt, "bf16") == 0 ? ATTENTION_BF16
                            : strcmp(dt, "fp16") == 0 ? ATTENTION_F16 : ATTENTION_F32;
    if (kv == 0)
        kv = heads;
    if (kv_seq == 0)
        kv_seq = seq;
    if (heads % kv != 0)
        return H->fail(ctx, "num_heads (%zu) must be a multiple of num_kv_heads (%zu): each key/value head "
                            "serves num_heads / num_kv_heads query heads; pick a divisor of %zu, or 0 for %zu",
                       heads, kv, heads, heads);

    size_t elem = dtype == ATTENTION_F32 ? sizeof(float) : sizeof(uint16_t);
    if (attention_mul4(batch, seq, heads, d, &c->q_elems) || attention_mul4(batch, kv_seq, kv, d, &c->kv_elems) ||
        __builtin_mul_overflow(c->q_elems, elem, &c->q_bytes) ||
        __builtin_mul_overflow(c->kv_elems, elem, &c->kv_bytes))
        return H->fail(ctx, "batch_size, seq_len, kv_seq_len, num_heads, num_kv_heads, head_dim: "
                            "%zu x %zu (or %zu) x %zu (or %zu) x %zu elements overflow size_t; "
                            "choose smaller sizes",
                       batch, seq, kv_seq, heads, kv, d);
    c->shape = (attention_shape){batch, heads, kv, seq, kv_seq, d, H->param_bool(ctx, "causal"),
                                 (float)(scale > 0 ? scale : 1.0 / sqrt((double)d))};
    c->dtype = dtype, c->elem = elem;
    return 0;
}

#endif
