/* fake_cublas.c - the few cuBLAS calls attention/cublas makes, on the CPU,
 * for test_attention_cuda_plugin (no GPU, no cuBLAS): column-major strided
 * batched GEMM as cuBLAS defines it, C_i = alpha op(A_i) op(B_i) + beta C_i
 * with X_i = X + i stride_X, element (r, c) of a matrix at r + c ld, and
 * cuBLAS's own argument checks on the leading dimensions, so that a call the
 * real library would refuse fails here too. fp32, bf16 or fp16 operands, fp32
 * results or the operands' type (rounded to nearest even), sums in double. */
#include <cublas_v2.h>

#include <stdint.h>
#include <string.h>

#include "common/bf16.h"
#include "common/f16.h"

static char handle_storage;
static int have_handle, have_workspace;

cublasStatus_t cublasCreate_v2(cublasHandle_t *handle)
{
    *handle = (cublasHandle_t)(void *)&handle_storage;
    have_handle = 1;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy_v2(cublasHandle_t handle)
{
    if (!have_handle || (void *)handle != &handle_storage)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    have_handle = have_workspace = 0;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void *workspace, size_t bytes)
{
    (void)handle;
    have_workspace = workspace != NULL && bytes > 0;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream)
{
    (void)handle, (void)stream;
    return have_handle ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}

const char *cublasGetStatusString(cublasStatus_t status)
{
    return status == CUBLAS_STATUS_SUCCESS ? "success" : "fake cuBLAS: refused";
}

static double load(const void *p, long long i, cudaDataType t)
{
    if (t == CUDA_R_32F)
        return ((const float *)p)[i];
    uint16_t h = ((const uint16_t *)p)[i];
    return t == CUDA_R_16F ? f16_to_f32(h) : bf16_to_f32(h);
}

static void store(void *p, long long i, cudaDataType t, float v)
{
    if (t == CUDA_R_32F)
        ((float *)p)[i] = v;
    else
        ((uint16_t *)p)[i] = t == CUDA_R_16F ? f32_to_f16(v) : f32_to_bf16(v);
}

/* The pairings attention/cublas uses, which cuBLAS supports with
 * CUBLAS_COMPUTE_32F: A and B of one type, C fp32 or of A's type. */
static int supported(cudaDataType a, cudaDataType b, cudaDataType c)
{
    int known = a == CUDA_R_32F || a == CUDA_R_16BF || a == CUDA_R_16F;
    return known && a == b && (c == CUDA_R_32F || c == a);
}

cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                          int m, int n, int k, const void *alpha, const void *A, cudaDataType Atype,
                                          int lda, long long strideA, const void *B, cudaDataType Btype, int ldb,
                                          long long strideB, const void *beta, void *C, cudaDataType Ctype, int ldc,
                                          long long strideC, int batch, cublasComputeType_t compute,
                                          cublasGemmAlgo_t algo)
{
    (void)algo;
    if (!have_handle || !have_workspace || (void *)handle != &handle_storage)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    int a_rows = transa == CUBLAS_OP_N ? m : k, b_rows = transb == CUBLAS_OP_N ? k : n;
    if (m < 0 || n < 0 || k < 0 || batch < 0 || lda < (a_rows > 1 ? a_rows : 1) || ldb < (b_rows > 1 ? b_rows : 1) ||
        ldc < (m > 1 ? m : 1) || compute != CUBLAS_COMPUTE_32F || !supported(Atype, Btype, Ctype))
        return CUBLAS_STATUS_INVALID_VALUE;
    float al, be;
    memcpy(&al, alpha, sizeof al);
    memcpy(&be, beta, sizeof be);
    for (long long bi = 0; bi < batch; bi++)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) {
                double acc = 0.0;
                for (int l = 0; l < k; l++) {
                    long long ai = transa == CUBLAS_OP_N ? i + (long long)l * lda : l + (long long)i * lda;
                    long long bj = transb == CUBLAS_OP_N ? l + (long long)j * ldb : j + (long long)l * ldb;
                    acc += load(A, bi * strideA + ai, Atype) * load(B, bi * strideB + bj, Btype);
                }
                long long ci = bi * strideC + i + (long long)j * ldc;
                store(C, ci, Ctype, (float)(al * acc + (be != 0.0f ? be * load(C, ci, Ctype) : 0.0)));
            }
    return CUBLAS_STATUS_SUCCESS;
}
