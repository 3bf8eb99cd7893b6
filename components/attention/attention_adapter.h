/* attention_adapter.h - what attention/cpu and attention/cuda (with
 * attention/cublas) share behind the harness ABI: one parameter table, so
 * that a config switches device and nothing else, but for the dtypes offered
 * (the CUDA variants' tensor cores also take fp16; the CPU kernels do not);
 * how both read it into a shape; the cost of a step; the check of an output
 * against the double reference. Compiled into both plugins, whose files
 * share harness_host (HARNESS_SHARED_HOST, build.am). */
#ifndef ATTENTION_ADAPTER_H
#define ATTENTION_ADAPTER_H

#include <float.h>
#include <stddef.h>

#include <harness/plugin.h>

#include "attention/attention.h"

/* The table, given dtype's choices and description: all the CPU's and the
 * CUDA variants' tables differ in, and after them a variant's own (the CPU's
 * isa). */
#define ATTENTION_PARAMS(dtypes, dtype_help, ...)                                                                  \
    {                                                                                                           \
        HARNESS_INT_PARAM_MIN("batch_size", "1", 1, "sequences per step"),                                     \
        HARNESS_INT_PARAM_MIN("num_heads", "32", 1, "query heads"),                                            \
        HARNESS_INT_PARAM_MIN("num_kv_heads", "0", 0,                                                          \
            "key/value heads (grouped-query attention), a divisor of num_heads; 0: num_heads"),                 \
        HARNESS_INT_PARAM_MIN("seq_len", "1024", 1, "queries per sequence"),                                   \
        HARNESS_INT_PARAM_MIN("kv_seq_len", "0", 0,                                                            \
            "keys per sequence; 0: seq_len. Causal masks align bottom-right (query i sees keys "                \
            "<= i + kv_seq_len - seq_len)"),                                                                    \
        HARNESS_INT_PARAM_MIN("head_dim", "128", 1, "elements per head"),                                      \
        HARNESS_BOOL_PARAM("causal", "true", "mask out keys after the query"),                                 \
        HARNESS_ENUM_PARAM("dtype", "fp32", dtypes, dtype_help),                                               \
        HARNESS_FLOAT_PARAM_RANGE("scale", "0", 0, FLT_MAX,                                                    \
            "multiplies Q K^T before the softmax; 0: 1/sqrt(head_dim)"),                                        \
        __VA_ARGS__                                                                                             \
    }

/* One instance's shape and sizes. Each adapter's state starts with one, so
 * the cost (attention_step_cost) serves every variant as it is. */
typedef struct attention_config {
    attention_shape shape;
    attention_dtype dtype;
    size_t elem, q_elems, kv_elems, q_bytes, kv_bytes;
} attention_config;

/* The parameters as a shape and buffer sizes. Fails (with a message naming
 * the parameters) on combinations the schema cannot rule out; run first by
 * `validate`, so those are config errors found before anything exists. */
int attention_read_config(harness_ctx *ctx, attention_config *c);

/* step_cost of every variant (state starts with its attention_config). */
int attention_step_cost(harness_ctx *ctx, void *state, harness_cost *out);

/* o (host memory, as q, k and v) held to the double reference with
 * attention_check's tolerances, into *out; larger shapes check an evenly
 * spread subset, said in the detail. 0, or -1 with why recorded, after
 * `who`. */
int attention_check_output(harness_ctx *ctx, const char *who, const attention_config *c, const void *q,
                           const void *k, const void *v, const void *o, harness_check *out);

#endif
