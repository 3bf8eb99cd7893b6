/* fake_cublaslt.c - the few cuBLASLt calls transformer_block/cuda makes
 * (components/transformer_block/linear_cublaslt.c), on the CPU, for
 * test_transformer_block_cuda_plugin (no GPU, no cuBLASLt):
 *
 *   D = alpha op(A) op(B) + beta C, column-major, element (r, c) of a matrix
 *   at r + c ld, as cuBLASLt defines it; sums in double, D rounded to its
 *   type (bf16: to nearest even), so the block's bf16 storage is what the
 *   GPU's would be.
 *
 * It refuses what the real library would: layouts whose leading dimension is
 * short, descriptors whose shapes do not chain (op(A) m x k, op(B) k x n, C
 * and D m x n), mixed operand types, a compute type other than fp32. Beyond
 * cuBLASLt, it holds the caller to the contract linear_cublaslt.h promises:
 * an algorithm from the heuristic, used only for the shape it was chosen
 * for, and a workspace no smaller than the heuristic was told. Each matmul is
 * logged (fake_cublaslt_log) for the test to check the order, shapes and
 * operands of the block's GEMMs. */
#include <cublasLt.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/bf16.h"
#include "fake_cublaslt.h"

#define ALGO_MAGIC 0x6c696e6561726c74ull   /* "linearlt" */

static char handle_storage;
static int handles;
static fake_cublaslt_call calls[FAKE_CUBLASLT_MAX_CALLS];
static int n_calls, n_heuristics;

typedef struct fake_desc {
    cublasComputeType_t compute;
    cudaDataType_t scale;
    int32_t transa, transb;
} fake_desc;

typedef struct fake_layout {
    cudaDataType type;
    uint64_t rows, cols;
    int64_t ld;
} fake_layout;

typedef struct fake_pref {
    uint64_t max_workspace;
} fake_pref;

const fake_cublaslt_call *fake_cublaslt_log(int *n)
{
    *n = n_calls;
    return calls;
}

int fake_cublaslt_heuristic_calls(void)
{
    return n_heuristics;
}

void fake_cublaslt_reset(void)
{
    n_calls = n_heuristics = 0;
}

int fake_cublaslt_open_handles(void)
{
    return handles;
}

cublasStatus_t cublasLtCreate(cublasLtHandle_t *handle)
{
    *handle = (cublasLtHandle_t)(void *)&handle_storage;
    handles++;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtDestroy(cublasLtHandle_t handle)
{
    if (handles == 0 || (void *)handle != &handle_storage)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    handles--;
    return CUBLAS_STATUS_SUCCESS;
}

const char *cublasLtGetStatusString(cublasStatus_t status)
{
    return status == CUBLAS_STATUS_SUCCESS ? "success" : "fake cuBLASLt: refused";
}

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *desc, cublasComputeType_t compute,
                                        cudaDataType_t scale)
{
    fake_desc *d = calloc(1, sizeof *d);
    if (!d)
        return CUBLAS_STATUS_ALLOC_FAILED;
    d->compute = compute, d->scale = scale, d->transa = d->transb = CUBLAS_OP_N;
    *desc = (cublasLtMatmulDesc_t)(void *)d;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t desc)
{
    free(desc);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attr,
                                              const void *buf, size_t size)
{
    fake_desc *d = (fake_desc *)(void *)desc;
    int32_t v;
    if (size != sizeof v || (attr != CUBLASLT_MATMUL_DESC_TRANSA && attr != CUBLASLT_MATMUL_DESC_TRANSB))
        return CUBLAS_STATUS_INVALID_VALUE;
    memcpy(&v, buf, sizeof v);
    if (v != CUBLAS_OP_N && v != CUBLAS_OP_T)
        return CUBLAS_STATUS_INVALID_VALUE;
    *(attr == CUBLASLT_MATMUL_DESC_TRANSA ? &d->transa : &d->transb) = v;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *layout, cudaDataType type, uint64_t rows,
                                          uint64_t cols, int64_t ld)
{
    if (ld < (int64_t)(rows > 1 ? rows : 1))
        return CUBLAS_STATUS_INVALID_VALUE;
    fake_layout *l = malloc(sizeof *l);
    if (!l)
        return CUBLAS_STATUS_ALLOC_FAILED;
    *l = (fake_layout){type, rows, cols, ld};
    *layout = (cublasLtMatrixLayout_t)(void *)l;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t layout)
{
    free(layout);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *pref)
{
    fake_pref *p = calloc(1, sizeof *p);
    if (!p)
        return CUBLAS_STATUS_ALLOC_FAILED;
    *pref = (cublasLtMatmulPreference_t)(void *)p;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref)
{
    free(pref);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref,
                                                    cublasLtMatmulPreferenceAttributes_t attr, const void *buf,
                                                    size_t size)
{
    fake_pref *p = (fake_pref *)(void *)pref;
    if (attr != CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES || size != sizeof p->max_workspace)
        return CUBLAS_STATUS_INVALID_VALUE;
    memcpy(&p->max_workspace, buf, sizeof p->max_workspace);
    return CUBLAS_STATUS_SUCCESS;
}

/* m, n, k of a problem whose descriptors chain, or -1 (invalid). */
static int problem(const fake_desc *d, const fake_layout *a, const fake_layout *b, const fake_layout *c,
                   const fake_layout *dd, uint64_t *m, uint64_t *n, uint64_t *k)
{
    *m = d->transa == CUBLAS_OP_N ? a->rows : a->cols;
    *k = d->transa == CUBLAS_OP_N ? a->cols : a->rows;
    uint64_t kb = d->transb == CUBLAS_OP_N ? b->rows : b->cols;
    *n = d->transb == CUBLAS_OP_N ? b->cols : b->rows;
    if (kb != *k || c->rows != *m || c->cols != *n || dd->rows != *m || dd->cols != *n || c->ld != dd->ld)
        return -1;
    if (d->compute != CUBLAS_COMPUTE_32F || d->scale != CUDA_R_32F || a->type != b->type || a->type != c->type ||
        c->type != dd->type || (a->type != CUDA_R_32F && a->type != CUDA_R_16BF))
        return -1;
    return 0;
}

cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
                                              cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                                              cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d,
                                              cublasLtMatmulPreference_t pref, int requested,
                                              cublasLtMatmulHeuristicResult_t results[], int *returned)
{
    uint64_t m, n, k;
    if (handles == 0 || (void *)handle != &handle_storage)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (requested < 1 || problem((fake_desc *)(void *)desc, (fake_layout *)(void *)a, (fake_layout *)(void *)b,
                                 (fake_layout *)(void *)c, (fake_layout *)(void *)d, &m, &n, &k) != 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    n_heuristics++;
    memset(&results[0], 0, sizeof results[0]);
    /* The algorithm remembers its problem; it "needs" half the workspace allowed. */
    results[0].algo.data[0] = ALGO_MAGIC;
    results[0].algo.data[1] = m, results[0].algo.data[2] = n, results[0].algo.data[3] = k;
    results[0].workspaceSize = ((fake_pref *)(void *)pref)->max_workspace / 2;
    results[0].algo.data[4] = results[0].workspaceSize;
    results[0].state = CUBLAS_STATUS_SUCCESS;
    *returned = 1;
    return CUBLAS_STATUS_SUCCESS;
}

static double load(const void *p, uint64_t i, cudaDataType t)
{
    return t == CUDA_R_32F ? (double)((const float *)p)[i] : (double)bf16_to_f32(((const uint16_t *)p)[i]);
}

cublasStatus_t cublasLtMatmul(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc_, const void *alpha, const void *A,
                              cublasLtMatrixLayout_t a_, const void *B, cublasLtMatrixLayout_t b_, const void *beta,
                              const void *C, cublasLtMatrixLayout_t c_, void *D, cublasLtMatrixLayout_t d_,
                              const cublasLtMatmulAlgo_t *algo, void *workspace, size_t workspace_bytes,
                              cudaStream_t stream)
{
    (void)stream;
    const fake_desc *desc = (fake_desc *)(void *)desc_;
    const fake_layout *a = (fake_layout *)(void *)a_, *b = (fake_layout *)(void *)b_;
    const fake_layout *c = (fake_layout *)(void *)c_, *d = (fake_layout *)(void *)d_;
    uint64_t m, n, k;
    if (handles == 0 || (void *)handle != &handle_storage)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (problem(desc, a, b, c, d, &m, &n, &k) != 0 || !algo || algo->data[0] != ALGO_MAGIC ||
        algo->data[1] != m || algo->data[2] != n || algo->data[3] != k || workspace_bytes < algo->data[4] ||
        (algo->data[4] > 0 && !workspace) || n_calls == FAKE_CUBLASLT_MAX_CALLS)
        return CUBLAS_STATUS_INVALID_VALUE;
    float al, be;
    memcpy(&al, alpha, sizeof al);
    memcpy(&be, beta, sizeof be);
    calls[n_calls++] = (fake_cublaslt_call){m, n, k, be, A, B, C, D};
    for (uint64_t j = 0; j < n; j++)
        for (uint64_t i = 0; i < m; i++) {
            double acc = 0.0;
            for (uint64_t l = 0; l < k; l++) {
                uint64_t ai = desc->transa == CUBLAS_OP_N ? i + l * (uint64_t)a->ld : l + i * (uint64_t)a->ld;
                uint64_t bj = desc->transb == CUBLAS_OP_N ? l + j * (uint64_t)b->ld : j + l * (uint64_t)b->ld;
                acc += load(A, ai, a->type) * load(B, bj, b->type);
            }
            double v = al * acc + (be != 0.0f ? be * load(C, i + j * (uint64_t)c->ld, c->type) : 0.0);
            uint64_t di = i + j * (uint64_t)d->ld;
            if (d->type == CUDA_R_32F)
                ((float *)D)[di] = (float)v;
            else
                ((uint16_t *)D)[di] = f32_to_bf16((float)v);
        }
    return CUBLAS_STATUS_SUCCESS;
}
