/* fake_cublaslt.h - what the CPU stand-in for cuBLASLt (fake_cublaslt.c)
 * tells a test about the calls it received. */
#ifndef TESTS_FAKE_CUBLASLT_H
#define TESTS_FAKE_CUBLASLT_H

#include <stdint.h>

#define FAKE_CUBLASLT_MAX_CALLS 64

/* One cublasLtMatmul: D (m x n, column-major) = op(A) op(B) + beta C. */
typedef struct fake_cublaslt_call {
    uint64_t m, n, k;
    float beta;
    const void *a, *b, *c;
    void *d;
} fake_cublaslt_call;

/* The matmuls since the last reset, in order; *n of them. */
const fake_cublaslt_call *fake_cublaslt_log(int *n);
/* cublasLtMatmulAlgoGetHeuristic calls since the last reset. */
int fake_cublaslt_heuristic_calls(void);
void fake_cublaslt_reset(void);
/* Handles created and not destroyed. */
int fake_cublaslt_open_handles(void);

#endif
