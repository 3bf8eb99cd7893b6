/* linear_cublaslt.h - linear layers on cuBLASLt, plain C, for
 * transformer_block/cuda (linear_cublaslt.c):
 *
 *     d[t][o] = sum_i act[t][i] w[o][i]  (+ residual[t][o])
 *
 * act: [tokens][in], w: [out][in] as nn.Linear stores it, d and residual:
 * [tokens][out], all row-major on the device, fp32 or bf16 (every operand the
 * same type), fp32 accumulation and scaling. The residual add is the GEMM's
 * own C input with beta = 1, so it costs no pass of its own.
 *
 * cuBLASLt picks an algorithm per problem with a heuristic; asking it at every
 * call would cost microseconds per GEMM, so it is asked once per GEMM shape at
 * setup (linear_cublaslt_plan) and the answer kept. The heuristic is given the
 * workspace the caller owns (tracked device memory), so no plan needs more.
 *
 * cuBLASLt is loaded on first use (dlopen), not when the plugin is: listing
 * plugins or running other variants never maps its hundreds of megabytes. A
 * process that already has its symbols (linked, or a test's stand-in,
 * tests/unit/fake_cublaslt.c) uses those. It stays loaded to the end of the
 * process. */
#ifndef COMPONENTS_LINEAR_CUBLASLT_H
#define COMPONENTS_LINEAR_CUBLASLT_H

#include <stddef.h>

typedef struct linear_cublaslt linear_cublaslt;

/* At most this many distinct shapes (a Llama block has four: the fused
 * QKV, O, the fused gate/up, down). */
#define LINEAR_CUBLASLT_MAX_PLANS 8

/* A cuBLASLt handle for one operand type (bf16 or fp32), with `workspace`
 * (device, `bytes` long) for every call. 0, or -1 with why filled. */
int linear_cublaslt_open(linear_cublaslt **out, int bf16, void *workspace, size_t bytes, char *why,
                         size_t why_size);
void linear_cublaslt_close(linear_cublaslt *l);

/* The plan for tokens x out x in: an index for linear_cublaslt_run, shared
 * by every layer of that shape; -1 with why filled when cuBLASLt has no
 * algorithm for it (or the shape exceeds its int ranges). */
int linear_cublaslt_plan(linear_cublaslt *l, size_t tokens, size_t out, size_t in, char *why, size_t why_size);

/* linear_cublaslt_plan for an act whose rows lie act_ld >= in elements
 * apart (a column slice of a wider matrix: SwiGLU's result in the gate half
 * of the fused gate/up output); the layout's leading dimension, so the GEMM
 * reads the slice in place. A plan is shared only by GEMMs of the same
 * shape and act_ld. */
int linear_cublaslt_plan_strided(linear_cublaslt *l, size_t tokens, size_t out, size_t in, size_t act_ld, char *why,
                                 size_t why_size);

/* d = act w^T, plus residual when it is not NULL (it may not be d itself:
 * d is written while residual is read, out of place), on stream (a
 * cudaStream_t). 0, or -1 with why filled. Does not synchronize. */
int linear_cublaslt_run(const linear_cublaslt *l, int plan, const void *act, const void *w, const void *residual,
                        void *d, void *stream, char *why, size_t why_size);

#endif
