/* rms_norm_adapter.h - what rms_norm/cpu and rms_norm/cuda share behind the
 * harness ABI: one parameter table but for the dtypes offered (so a config
 * switches device and nothing else), the sizes read from it, the cost of a
 * step and the check of an output against the double reference. Compiled
 * into both plugins, whose files share harness_host (HARNESS_SHARED_HOST,
 * build.am). */
#ifndef RMS_NORM_ADAPTER_H
#define RMS_NORM_ADAPTER_H

#include <float.h>
#include <stddef.h>

#include <harness/plugin.h>

#include "rms_norm/rms_norm.h"

/* The table, given dtype's choices and description. eps in [FLT_MIN,
 * FLT_MAX]: it must stay a positive, finite float. */
#define RMS_NORM_PARAMS(dtypes, dtype_help)                                                                  \
    {                                                                                                        \
        HARNESS_INT_PARAM_MIN("batch_size", "8", 1, "sequences per step"),                                  \
        HARNESS_INT_PARAM_MIN("seq_len", "1024", 1,                                                         \
            "tokens per sequence; rows normalized = batch_size x seq_len"),                                  \
        HARNESS_INT_PARAM_MIN("hidden_size", "4096", 1, "elements per row: the dimension normalized over"), \
        HARNESS_FLOAT_PARAM_RANGE("eps", "1e-6", FLT_MIN, FLT_MAX,                                          \
            "added to mean(x^2) under the square root; > 0"),                                                \
        HARNESS_ENUM_PARAM("dtype", "fp32", dtypes, dtype_help),                                            \
    }

/* One instance's sizes. Each adapter's state starts with one, so the cost
 * (rms_norm_step_cost) serves both variants as it is. */
typedef struct rms_norm_config {
    rms_norm_dtype dtype;
    harness_dtype fill_dtype;      /* the same type, as the data generator names it */
    size_t rows, hidden, elem;     /* rows = batch_size x seq_len; elem: bytes per element */
    size_t n, bytes;               /* elements and bytes of x (and of y) */
    float eps;
} rms_norm_config;

/* The parameters as sizes. 0, or -1 with a message that starts with `who`
 * and names the parameters when their product overflows size_t. */
int rms_norm_read_config(harness_ctx *ctx, const char *who, rms_norm_config *c);

/* step_cost of both variants (state starts with its rms_norm_config). */
int rms_norm_step_cost(harness_ctx *ctx, void *state, harness_cost *out);

/* y (host memory, as x and w) held to the double reference with
 * rms_norm_check's tolerances, into *out. 0, or -1 with why recorded. */
int rms_norm_check_output(harness_ctx *ctx, const char *who, const rms_norm_config *c, const void *x,
                          const void *w, const void *y, harness_check *out);

#endif
