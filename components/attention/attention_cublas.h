/* attention_cublas.h - unfused attention on an NVIDIA GPU, the formulation
 * users fall back to and the baseline attention/cuda must beat:
 *   S = Q K^T      cuBLAS strided-batched GEMM, fp32 out (S: batch x heads x Sq x Sk)
 *   P = softmax(scale S [+ causal mask])       attention_softmax.cu
 *   O = P V        cuBLAS strided-batched GEMM
 * fp32 throughout (no TF32), or bf16 inputs, P and O with fp32 accumulation.
 * Grouped-query heads share their kv head through a zero batch stride: K and
 * V are not copied. Plain C over cuBLAS (attention_cublas.c). */
#ifndef COMPONENTS_ATTENTION_CUBLAS_H
#define COMPONENTS_ATTENTION_CUBLAS_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "attention.h"

/* Device scratch one call needs: S in fp32, plus P in bf16 (fp32 P
 * overwrites S). SIZE_MAX when that overflows. */
size_t attention_cublas_scratch_bytes(const attention_shape *s, int bf16);

/* O for q, k, v, o (device, attention.h's layouts; bf16 or fp32) with
 * `handle` (a cublasHandle_t) on `stream`; scratch: the bytes above.
 * Returns 0, or -1 with why (at most 160 characters) filled. */
int attention_cublas(void *handle, void *stream, const attention_shape *s, int bf16, const void *q, const void *k,
                     const void *v, void *o, void *scratch, char *why, size_t why_size);

#ifdef __cplusplus
}
#endif

#endif
