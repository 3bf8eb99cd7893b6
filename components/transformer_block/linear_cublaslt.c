/* linear_cublaslt.c - linear layers on cuBLASLt (linear_cublaslt.h).
 *
 * cuBLASLt is column-major; the tensors are row-major, and a row-major
 * matrix with row stride ld is the column-major transpose with leading
 * dimension ld. So, for d = act w^T over `tokens` rows:
 *   w   [out][in]     = col-major in x out,  ld in:  A, op T -> out x in
 *   act [tokens][in]  = col-major in x tokens, ld in: B, op N -> in x tokens
 *   d   [tokens][out] = col-major out x tokens, ld out: C and D
 * i.e. m = out, n = tokens, k = in: D^T = W act^T, which is d row-major.
 * An act that is a column slice of a wider row-major matrix (rows act_ld
 * apart) is the same col-major matrix with leading dimension act_ld. */
#include "linear_cublaslt.h"

#include <cublasLt.h>

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cuBLASLt's m, n, k and leading dimensions go through ints in its kernels. */
#define INT_LIMIT 2147483647ull

typedef struct linear_plan {
    size_t tokens, out, in, act_ld;
    cublasLtMatrixLayout_t a, b, cd;     /* w, act, d (and the residual) */
    cublasLtMatmulAlgo_t algo;
} linear_plan;

struct linear_cublaslt {
    cublasLtHandle_t handle;
    cublasLtMatmulDesc_t desc;           /* op(A) = T, op(B) = N, fp32 compute and scale */
    cudaDataType_t type;                 /* of every operand */
    void *workspace;
    size_t workspace_bytes;
    int n_plans;
    linear_plan plans[LINEAR_CUBLASLT_MAX_PLANS];
};

/* ---- cuBLASLt, loaded on first use ----------------------------------------- */

static struct {
    int loaded;
    cublasStatus_t (*create)(cublasLtHandle_t *);
    cublasStatus_t (*destroy)(cublasLtHandle_t);
    const char *(*status_string)(cublasStatus_t);
    cublasStatus_t (*desc_create)(cublasLtMatmulDesc_t *, cublasComputeType_t, cudaDataType_t);
    cublasStatus_t (*desc_destroy)(cublasLtMatmulDesc_t);
    cublasStatus_t (*desc_set)(cublasLtMatmulDesc_t, cublasLtMatmulDescAttributes_t, const void *, size_t);
    cublasStatus_t (*layout_create)(cublasLtMatrixLayout_t *, cudaDataType, uint64_t, uint64_t, int64_t);
    cublasStatus_t (*layout_destroy)(cublasLtMatrixLayout_t);
    cublasStatus_t (*pref_create)(cublasLtMatmulPreference_t *);
    cublasStatus_t (*pref_destroy)(cublasLtMatmulPreference_t);
    cublasStatus_t (*pref_set)(cublasLtMatmulPreference_t, cublasLtMatmulPreferenceAttributes_t, const void *,
                               size_t);
    cublasStatus_t (*heuristic)(cublasLtHandle_t, cublasLtMatmulDesc_t, cublasLtMatrixLayout_t,
                                cublasLtMatrixLayout_t, cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
                                cublasLtMatmulPreference_t, int, cublasLtMatmulHeuristicResult_t *, int *);
    cublasStatus_t (*matmul)(cublasLtHandle_t, cublasLtMatmulDesc_t, const void *, const void *,
                             cublasLtMatrixLayout_t, const void *, cublasLtMatrixLayout_t, const void *,
                             const void *, cublasLtMatrixLayout_t, void *, cublasLtMatrixLayout_t,
                             const cublasLtMatmulAlgo_t *, void *, size_t, cudaStream_t);
} api;

#define STR_(x) #x
#define STR(x) STR_(x)

static int load_cublaslt(char *why, size_t why_size)
{
    if (api.loaded)
        return 0;
    void *from = RTLD_DEFAULT;
    if (!dlsym(RTLD_DEFAULT, "cublasLtMatmul")) {
        /* The major version the plugin was built against; RTLD_NODELETE: its
         * C++ runtime's allocations then stay reachable (LeakSanitizer). */
        const char *name = "libcublasLt.so." STR(CUBLAS_VER_MAJOR);
        from = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
        if (!from) {
            snprintf(why, why_size, "cannot load cuBLASLt (%s): %s", name, dlerror());
            return -1;
        }
    }
    struct {
        void **fn;
        const char *name;
    } table[] = {
        /* POSIX's sanctioned way from void * to a function pointer. */
        {(void **)&api.create, "cublasLtCreate"},
        {(void **)&api.destroy, "cublasLtDestroy"},
        {(void **)&api.status_string, "cublasLtGetStatusString"},
        {(void **)&api.desc_create, "cublasLtMatmulDescCreate"},
        {(void **)&api.desc_destroy, "cublasLtMatmulDescDestroy"},
        {(void **)&api.desc_set, "cublasLtMatmulDescSetAttribute"},
        {(void **)&api.layout_create, "cublasLtMatrixLayoutCreate"},
        {(void **)&api.layout_destroy, "cublasLtMatrixLayoutDestroy"},
        {(void **)&api.pref_create, "cublasLtMatmulPreferenceCreate"},
        {(void **)&api.pref_destroy, "cublasLtMatmulPreferenceDestroy"},
        {(void **)&api.pref_set, "cublasLtMatmulPreferenceSetAttribute"},
        {(void **)&api.heuristic, "cublasLtMatmulAlgoGetHeuristic"},
        {(void **)&api.matmul, "cublasLtMatmul"},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!(*table[i].fn = dlsym(from, table[i].name))) {
            snprintf(why, why_size, "cuBLASLt lacks %s (cuBLAS %d or newer needed)", table[i].name,
                     CUBLAS_VER_MAJOR);
            return -1;
        }
    api.loaded = 1;
    return 0;
}

static int lt_fail(char *why, size_t why_size, const char *what, cublasStatus_t st)
{
    snprintf(why, why_size, "cuBLASLt %s: %s (%d)", what, api.status_string(st), (int)st);
    return -1;
}

/* ---- handle and plans ------------------------------------------------------- */

int linear_cublaslt_open(linear_cublaslt **out, int bf16, void *workspace, size_t bytes, char *why,
                         size_t why_size)
{
    *out = NULL;
    if (load_cublaslt(why, why_size) != 0)
        return -1;
    linear_cublaslt *l = calloc(1, sizeof *l);
    if (!l) {
        snprintf(why, why_size, "out of memory for the cuBLASLt state");
        return -1;
    }
    l->type = bf16 ? CUDA_R_16BF : CUDA_R_32F;
    l->workspace = workspace;
    l->workspace_bytes = bytes;
    cublasStatus_t st = api.create(&l->handle);
    if (st != CUBLAS_STATUS_SUCCESS) {
        free(l);
        return lt_fail(why, why_size, "handle", st);
    }
    /* CUBLAS_COMPUTE_32F: fp32 accumulation, and for fp32 operands true fp32
     * (no TF32), so the fp32 block meets the CPU's fp32 tolerance. */
    int32_t op_t = CUBLAS_OP_T, op_n = CUBLAS_OP_N;
    st = api.desc_create(&l->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = api.desc_set(l->desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_t, sizeof op_t);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = api.desc_set(l->desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_n, sizeof op_n);
    if (st != CUBLAS_STATUS_SUCCESS) {
        linear_cublaslt_close(l);
        return lt_fail(why, why_size, "matmul descriptor", st);
    }
    *out = l;
    return 0;
}

static void destroy_plan(linear_plan *p)
{
    cublasLtMatrixLayout_t layouts[] = {p->a, p->b, p->cd};
    for (int i = 0; i < 3; i++)
        if (layouts[i])
            api.layout_destroy(layouts[i]);
}

void linear_cublaslt_close(linear_cublaslt *l)
{
    if (!l)
        return;
    for (int i = 0; i < l->n_plans; i++)
        destroy_plan(&l->plans[i]);
    if (l->desc)
        api.desc_destroy(l->desc);
    if (l->handle)
        api.destroy(l->handle);
    free(l);
}

/* The heuristic's best algorithm for plan p within the workspace. */
static int choose_algo(linear_cublaslt *l, linear_plan *p, char *why, size_t why_size)
{
    cublasLtMatmulPreference_t pref;
    cublasStatus_t st = api.pref_create(&pref);
    if (st != CUBLAS_STATUS_SUCCESS)
        return lt_fail(why, why_size, "preference", st);
    uint64_t ws = l->workspace_bytes;
    st = api.pref_set(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
    cublasLtMatmulHeuristicResult_t result;
    int found = 0;
    memset(&result, 0, sizeof result);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = api.heuristic(l->handle, l->desc, p->a, p->b, p->cd, p->cd, pref, 1, &result, &found);
    api.pref_destroy(pref);
    if (st != CUBLAS_STATUS_SUCCESS)
        return lt_fail(why, why_size, "heuristic", st);
    if (found < 1 || result.state != CUBLAS_STATUS_SUCCESS || result.workspaceSize > l->workspace_bytes) {
        snprintf(why, why_size, "cuBLASLt has no algorithm for a %s GEMM of %zu x %zu x %zu (tokens x out x in) "
                 "within %zu bytes of workspace", l->type == CUDA_R_16BF ? "bf16" : "fp32", p->tokens, p->out,
                 p->in, l->workspace_bytes);
        return -1;
    }
    p->algo = result.algo;
    return 0;
}

int linear_cublaslt_plan(linear_cublaslt *l, size_t tokens, size_t out, size_t in, char *why, size_t why_size)
{
    return linear_cublaslt_plan_strided(l, tokens, out, in, in, why, why_size);
}

int linear_cublaslt_plan_strided(linear_cublaslt *l, size_t tokens, size_t out, size_t in, size_t act_ld, char *why,
                                 size_t why_size)
{
    for (int i = 0; i < l->n_plans; i++)
        if (l->plans[i].tokens == tokens && l->plans[i].out == out && l->plans[i].in == in &&
            l->plans[i].act_ld == act_ld)
            return i;
    if (tokens == 0 || out == 0 || in == 0 || tokens > INT_LIMIT || out > INT_LIMIT || in > INT_LIMIT ||
        act_ld > INT_LIMIT) {
        snprintf(why, why_size, "a GEMM of %zu x %zu x %zu (tokens x out x in) is empty or exceeds cuBLASLt's "
                 "int dimensions", tokens, out, in);
        return -1;
    }
    if (act_ld < in) {
        snprintf(why, why_size, "a GEMM's activation rows %zu elements apart, fewer than its %zu inputs", act_ld, in);
        return -1;
    }
    if (l->n_plans == LINEAR_CUBLASLT_MAX_PLANS) {
        snprintf(why, why_size, "more than %d GEMM shapes", LINEAR_CUBLASLT_MAX_PLANS);
        return -1;
    }
    linear_plan *p = &l->plans[l->n_plans];
    memset(p, 0, sizeof *p);
    p->tokens = tokens, p->out = out, p->in = in, p->act_ld = act_ld;
    cublasStatus_t st = api.layout_create(&p->a, l->type, in, out, (int64_t)in);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = api.layout_create(&p->b, l->type, in, tokens, (int64_t)act_ld);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = api.layout_create(&p->cd, l->type, out, tokens, (int64_t)out);
    if (st != CUBLAS_STATUS_SUCCESS) {
        destroy_plan(p);
        return lt_fail(why, why_size, "matrix layout", st);
    }
    if (choose_algo(l, p, why, why_size) != 0) {
        destroy_plan(p);
        return -1;
    }
    return l->n_plans++;
}

int linear_cublaslt_run(const linear_cublaslt *l, int plan, const void *act, const void *w, const void *residual,
                        void *d, void *stream, char *why, size_t why_size)
{
    if (plan < 0 || plan >= l->n_plans) {
        snprintf(why, why_size, "no GEMM plan %d", plan);
        return -1;
    }
    const linear_plan *p = &l->plans[plan];
    const float one = 1.0f, zero = 0.0f;
    cublasStatus_t st = api.matmul(l->handle, l->desc, &one, w, p->a, act, p->b, residual ? &one : &zero,
                                   residual ? residual : d, p->cd, d, p->cd, &p->algo, l->workspace,
                                   l->workspace_bytes, (cudaStream_t)stream);
    if (st != CUBLAS_STATUS_SUCCESS)
        return lt_fail(why, why_size, "matmul", st);
    return 0;
}
