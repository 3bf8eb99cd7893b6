/* attention_cublas.c - attention/cublas's steps (attention_cublas.h): two
 * cuBLAS strided-batched GEMMs around attention_softmax_cuda.
 *
 * cuBLAS is column-major; the tensors are row-major, and a row-major matrix
 * with row stride ld is the column-major transpose with leading dimension
 * ld. Per (batch b, head h, its kv head hk = h / group):
 *   Q_bh: Sq x D rows at q + (b Sq H + h) D, row stride H D   = col-major D x Sq
 *   K_bh: Sk x D rows at k + (b Sk KVH + hk) D, stride KVH D  = col-major D x Sk
 *   S_bh: Sq x Sk rows at scores + (b H + h) Sq Sk, stride Sk = col-major Sk x Sq
 * GEMM 1, S^T (Sk x Sq) = (K^T)^T (Sk x D) Q^T (D x Sq): A = K^T stored D x Sk,
 *   op T; B = Q^T, op N; C = S^T.
 * GEMM 2, O^T (D x Sq) = V^T (D x Sk) P^T (Sk x Sq): A = V^T, B = P^T, C = O^T
 *   (ld H D), all op N.
 * Batches: the heads of one kv head share A (stride 0) and step B/C by a
 * head (D for Q and O, Sq Sk for S and P): one call per (batch, kv head); without
 * grouping, one call per batch over all heads (A steps by D too). */
#include "attention_cublas.h"
#include "attention_softmax.h"

#include <cublas_v2.h>

#include <dlfcn.h>
#include <stdio.h>

/* cuBLAS's workspace and descriptor sizes are ints and long longs. */
#define INT_LIMIT 2147483647ull

size_t attention_cublas_scratch_bytes(const attention_shape *s, attention_dtype dtype)
{
    size_t n, bytes;
    if (__builtin_mul_overflow(s->batch, s->heads, &n) || __builtin_mul_overflow(n, s->seq_q, &n) ||
        __builtin_mul_overflow(n, s->seq_k, &n) ||
        __builtin_mul_overflow(n, (size_t)(dtype == ATTENTION_F32 ? 4 : 6), &bytes))
        return SIZE_MAX;
    return bytes;
}

/* ---- cuBLAS, loaded on first use ------------------------------------------ */

static struct {
    int loaded;
    cublasStatus_t (*create)(cublasHandle_t *);
    cublasStatus_t (*destroy)(cublasHandle_t);
    cublasStatus_t (*set_stream)(cublasHandle_t, cudaStream_t);
    cublasStatus_t (*set_workspace)(cublasHandle_t, void *, size_t);
    const char *(*status_string)(cublasStatus_t);
    cublasStatus_t (*gemm)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void *,
                           const void *, cudaDataType, int, long long, const void *, cudaDataType, int, long long,
                           const void *, void *, cudaDataType, int, long long, int, cublasComputeType_t,
                           cublasGemmAlgo_t);
} api;

#define STR_(x) #x
#define STR(x) STR_(x)

static int load_cublas(char *why, size_t why_size)
{
    if (api.loaded)
        return 0;
    void *from = RTLD_DEFAULT;
    if (!dlsym(RTLD_DEFAULT, "cublasGemmStridedBatchedEx")) {
        /* The major version the plugin was built against; RTLD_NODELETE: see
         * attention_cublas.h. */
        const char *name = "libcublas.so." STR(CUBLAS_VER_MAJOR);
        from = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
        if (!from) {
            snprintf(why, why_size, "cannot load cuBLAS (%s): %s", name, dlerror());
            return -1;
        }
    }
    /* POSIX's sanctioned way from void * to a function pointer. */
    *(void **)&api.create = dlsym(from, "cublasCreate_v2");
    *(void **)&api.destroy = dlsym(from, "cublasDestroy_v2");
    *(void **)&api.set_stream = dlsym(from, "cublasSetStream_v2");
    *(void **)&api.set_workspace = dlsym(from, "cublasSetWorkspace_v2");
    *(void **)&api.status_string = dlsym(from, "cublasGetStatusString");
    *(void **)&api.gemm = dlsym(from, "cublasGemmStridedBatchedEx");
    if (!api.create || !api.destroy || !api.set_stream || !api.set_workspace || !api.status_string || !api.gemm) {
        snprintf(why, why_size, "cuBLAS lacks a function attention/cublas calls (cuBLAS %d or newer needed)",
                 CUBLAS_VER_MAJOR);
        return -1;
    }
    api.loaded = 1;
    return 0;
}

int attention_cublas_open(void **handle, void *workspace, size_t bytes, char *why, size_t why_size)
{
    *handle = NULL;
    if (load_cublas(why, why_size) != 0)
        return -1;
    cublasHandle_t h;
    cublasStatus_t st = api.create(&h);
    if (st != CUBLAS_STATUS_SUCCESS) {
        snprintf(why, why_size, "cuBLAS handle: %s (%d)", api.status_string(st), (int)st);
        return -1;
    }
    st = api.set_workspace(h, workspace, bytes);
    if (st != CUBLAS_STATUS_SUCCESS) {
        snprintf(why, why_size, "cuBLAS workspace: %s (%d)", api.status_string(st), (int)st);
        api.destroy(h);
        return -1;
    }
    *handle = h;
    return 0;
}

void attention_cublas_close(void *handle)
{
    if (handle && api.loaded)
        api.destroy(handle);
}

/* ---- the three steps -------------------------------------------------------- */

static int gemm_fail(char *why, size_t size, const char *which, cublasStatus_t st)
{
    snprintf(why, size, "cuBLAS %s failed: %s (%d)", which, api.status_string(st), (int)st);
    return -1;
}

int attention_cublas(void *handle, void *stream, const attention_shape *s, attention_dtype dtype, const void *q,
                     const void *k, const void *v, void *o, void *scratch, char *why, size_t why_size)
{
    size_t D = s->head_dim, H = s->heads, KVH = s->kv_heads, Sq = s->seq_q, Sk = s->seq_k, B = s->batch;
    if (KVH == 0 || H % KVH != 0 || D > INT_LIMIT || Sq > INT_LIMIT || Sk > INT_LIMIT || H * D > INT_LIMIT ||
        KVH * D > INT_LIMIT || attention_cublas_scratch_bytes(s, dtype) == SIZE_MAX) {
        snprintf(why, why_size, "shape out of cuBLAS's int ranges");
        return -1;
    }
    if (B == 0 || H == 0 || Sq == 0)
        return 0;
    if (!api.loaded) {
        snprintf(why, why_size, "no cuBLAS handle (attention_cublas_open first)");
        return -1;
    }
    cublasHandle_t h = handle;
    cublasStatus_t st = api.set_stream(h, (cudaStream_t)stream);
    if (st != CUBLAS_STATUS_SUCCESS)
        return gemm_fail(why, why_size, "set stream", st);

    int half = dtype != ATTENTION_F32;
    size_t group = H / KVH, esz = half ? 2 : 4;
    cudaDataType_t t = dtype == ATTENTION_BF16 ? CUDA_R_16BF : dtype == ATTENTION_F16 ? CUDA_R_16F : CUDA_R_32F;
    float *scores = scratch;
    void *probs = half ? (void *)(scores + B * H * Sq * Sk) : scratch;   /* fp32: in place */
    const float one = 1.0f, zero = 0.0f;
    /* One call per batch (no grouping: all heads) or per (batch, kv head). */
    size_t calls_per_b = group == 1 ? 1 : KVH, heads_per_call = group == 1 ? H : group;
    long long kv_step = group == 1 ? (long long)D : 0;

    for (size_t b = 0; b < B; b++)
        for (size_t c = 0; c < calls_per_b; c++) {
            size_t h0 = c * heads_per_call, hk = h0 / group;
            const char *kp = (const char *)k + ((b * Sk * KVH + hk) * D) * esz;
            const char *qp = (const char *)q + ((b * Sq * H + h0) * D) * esz;
            float *sp = scores + (b * H + h0) * Sq * Sk;
            st = api.gemm(h, CUBLAS_OP_T, CUBLAS_OP_N, (int)Sk, (int)Sq, (int)D, &one,
                                            kp, t, (int)(KVH * D), kv_step, qp, t, (int)(H * D), (long long)D,
                                            &zero, sp, CUDA_R_32F, (int)Sk, (long long)(Sq * Sk),
                                            (int)heads_per_call, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
            if (st != CUBLAS_STATUS_SUCCESS)
                return gemm_fail(why, why_size, "Q K^T", st);
        }

    int rc = attention_softmax_cuda(dtype, scores, probs, B * H * Sq, Sq, Sk, s->causal, s->scale, stream);
    if (rc != 0) {
        snprintf(why, why_size, "softmax kernel launch failed (%d)", rc);
        return -1;
    }

    for (size_t b = 0; b < B; b++)
        for (size_t c = 0; c < calls_per_b; c++) {
            size_t h0 = c * heads_per_call, hk = h0 / group;
            const char *vp = (const char *)v + ((b * Sk * KVH + hk) * D) * esz;
            const char *pp = (const char *)probs + ((b * H + h0) * Sq * Sk) * esz;
            char *op = (char *)o + ((b * Sq * H + h0) * D) * esz;
            st = api.gemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)D, (int)Sq, (int)Sk, &one,
                                            vp, t, (int)(KVH * D), kv_step, pp, t, (int)Sk, (long long)(Sq * Sk),
                                            &zero, op, t, (int)(H * D), (long long)D,
                                            (int)heads_per_call, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
            if (st != CUBLAS_STATUS_SUCCESS)
                return gemm_fail(why, why_size, "P V", st);
        }
    return 0;
}
