/* rms_norm.h - RMSNorm over the last dimension of a rows x hidden matrix:
 *
 *     y[r][i] = x[r][i] / sqrt(mean_i(x[r][i]^2) + eps) * w[i]
 *
 * fp32 and bf16 (bf16 stored as uint16_t; math in fp32, output rounded to
 * nearest even); fp16 (uint16_t too) for the CUDA kernels, which the reference
 * and the checker below also take. The weight has the dtype of x. Plain functions, no harness
 * types: the plugin adapts them, the unit test calls them directly. */
#ifndef COMPONENTS_RMS_NORM_H
#define COMPONENTS_RMS_NORM_H

#include <stddef.h>
#include <stdint.h>

#include "common/check.h"

#ifdef __cplusplus   /* the CUDA kernels' files are C++ */
extern "C" {
#endif

/* RMS_NORM_F16 is appended so that existing values keep their numbers; the
 * CPU kernels below take fp32 and bf16 only. */
typedef enum rms_norm_dtype { RMS_NORM_F32 = 1, RMS_NORM_BF16, RMS_NORM_F16 } rms_norm_dtype;

/* ---- kernels (rms_norm_cpu.c): OpenMP over rows, vectorized per row ---- */

/* y must not overlap x or w; eps > 0 and finite. Uses OpenMP's default
 * number of threads; large outputs bypass the cache (non-temporal stores). */

void rms_norm_f32(const float *x, const float *w, float *y,
                  size_t rows, size_t hidden, float eps);
void rms_norm_bf16(const uint16_t *x, const uint16_t *w, uint16_t *y,
                   size_t rows, size_t hidden, float eps);

/* The instruction set is picked at first use: the best this CPU supports out
 * of "avx512", "avx2", "portable". Forcing one (NULL or "auto": back to the
 * best) returns 0, or -1 when the name is unknown or the CPU lacks it, which
 * leaves the choice unchanged. Call it outside of a running kernel. */
int rms_norm_set_isa(const char *name);
const char *rms_norm_isa(void);

/* Where the kernels prefetch the next row while finishing one: into L1 (T0)
 * or L2 (T1). AUTO (the default) picks by the L1d size and the row's bytes
 * (rms_norm_prefetch_l1_for); set_prefetch forces one for every call after
 * it (tests, benchmarks): 0, or -1 for a value not in the enum. A hint
 * changes speed only, never a result. */
typedef enum rms_norm_prefetch {
    RMS_NORM_PREFETCH_AUTO = 0, RMS_NORM_PREFETCH_L1, RMS_NORM_PREFETCH_L2
} rms_norm_prefetch;
int rms_norm_set_prefetch(rms_norm_prefetch hint);
/* The hint a row of hidden elements of elem_bytes each gets now. */
rms_norm_prefetch rms_norm_prefetch_for(size_t hidden, size_t elem_bytes);
/* The automatic rule: 1 (L1) when an L1d of l1d_bytes (0: unknown) is at
 * least 48 KiB and holds three rows of row_bytes, else 0 (L2). */
int rms_norm_prefetch_l1_for(size_t l1d_bytes, size_t row_bytes);

/* ---- reference and checker (rms_norm_ref.c) ---------------------------- */

/* One row in double precision, from the same (f32, bf16 or f16) inputs. */
void rms_norm_ref_row(rms_norm_dtype dtype, const void *x, const void *w,
                      double *y, size_t hidden, double eps);

/* One row the way a bf16 framework computes it without upcasting: every
 * square, the mean, rstd and every product rounded to bf16. Its error against
 * rms_norm_ref_row is what bf16 storage inherently costs. */
void rms_norm_ref_row_bf16_arith(const uint16_t *x, const uint16_t *w,
                                 uint16_t *y, size_t hidden, float eps);

typedef struct rms_norm_check_result {
    COMPONENT_CHECK_FIELDS
} rms_norm_check_result;

/* Compares a kernel's output y (dtype) with the double reference computed from
 * x and w, row by row. Returns 0 with *out filled, whatever the verdict, or -1
 * (out->detail says why) when its O(hidden) scratch cannot be allocated. */
int rms_norm_check(rms_norm_dtype dtype, const void *x, const void *w,
                   const void *y, size_t rows, size_t hidden, float eps,
                   rms_norm_check_result *out);

#ifdef __cplusplus
}
#endif

#endif
