/* attention_cublas.h - unfused attention on an NVIDIA GPU, the formulation
 * users fall back to and the baseline attention/cuda must beat:
 *   S = Q K^T      cuBLAS strided-batched GEMM, fp32 out (S: batch x heads x Sq x Sk)
 *   P = softmax(scale S [+ causal mask])       attention_softmax.cu
 *   O = P V        cuBLAS strided-batched GEMM
 * fp32 throughout (no TF32), or bf16 or fp16 inputs, P and O with fp32
 * accumulation.
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

/* Device scratch one call needs: S in fp32, plus P in bf16 or fp16 (fp32 P
 * overwrites S). SIZE_MAX when that overflows. */
size_t attention_cublas_scratch_bytes(const attention_shape *s, attention_dtype dtype);

/* A cuBLAS handle (a cublasHandle_t) that uses `workspace` (device, bytes
 * long) for its scratch. cuBLAS is loaded here, on first use, not when the
 * plugin is: listing plugins or running other variants never maps its
 * hundreds of megabytes, a machine without it loses only attention/cublas,
 * and it stays loaded to the end of the process (its C++ runtime's
 * allocations then stay reachable, for LeakSanitizer). A process that already
 * has cuBLAS's symbols (linked, or a test's stand-in) uses those. Returns 0,
 * or -1 with why filled. */
int attention_cublas_open(void **handle, void *workspace, size_t bytes, char *why, size_t why_size);
void attention_cublas_close(void *handle);

/* O for q, k, v, o (device, attention.h's layouts, of type dtype) with a
 * handle from attention_cublas_open, on `stream`; scratch: the bytes above.
 * Returns 0, or -1 with why (at most 160 characters) filled. */
int attention_cublas(void *handle, void *stream, const attention_shape *s, attention_dtype dtype, const void *q,
                     const void *k, const void *v, void *o, void *scratch, char *why, size_t why_size);

#ifdef __cplusplus
}
#endif

#endif
