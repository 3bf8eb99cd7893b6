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

#include <stdio.h>

/* cuBLAS's workspace and descriptor sizes are ints and long longs. */
#define INT_LIMIT 2147483647ull

size_t attention_cublas_scratch_bytes(const attention_shape *s, int bf16)
{
    size_t n, bytes;
    if (__builtin_mul_overflow(s->batch, s->heads, &n) || __builtin_mul_overflow(n, s->seq_q, &n) ||
        __builtin_mul_overflow(n, s->seq_k, &n) || __builtin_mul_overflow(n, (size_t)(bf16 ? 6 : 4), &bytes))
        return SIZE_MAX;
    return bytes;
}

static int gemm_fail(char *why, size_t size, const char *which, cublasStatus_t st)
{
    snprintf(why, size, "cuBLAS %s failed: %s (%d)", which, cublasGetStatusString(st), (int)st);
    return -1;
}

int attention_cublas(void *handle, void *stream, const attention_shape *s, int bf16, const void *q, const void *k,
                     const void *v, void *o, void *scratch, char *why, size_t why_size)
{
    size_t D = s->head_dim, H = s->heads, KVH = s->kv_heads, Sq = s->seq_q, Sk = s->seq_k, B = s->batch;
    if (KVH == 0 || H % KVH != 0 || D > INT_LIMIT || Sq > INT_LIMIT || Sk > INT_LIMIT || H * D > INT_LIMIT ||
        KVH * D > INT_LIMIT || attention_cublas_scratch_bytes(s, bf16) == SIZE_MAX) {
        snprintf(why, why_size, "shape out of cuBLAS's int ranges");
        return -1;
    }
    if (B == 0 || H == 0 || Sq == 0)
        return 0;
    cublasHandle_t h = handle;
    cublasStatus_t st = cublasSetStream(h, (cudaStream_t)stream);
    if (st != CUBLAS_STATUS_SUCCESS)
        return gemm_fail(why, why_size, "set stream", st);

    size_t group = H / KVH, esz = bf16 ? 2 : 4;
    cudaDataType_t t = bf16 ? CUDA_R_16BF : CUDA_R_32F;
    float *scores = scratch;
    void *probs = bf16 ? (void *)(scores + B * H * Sq * Sk) : scratch;   /* fp32: in place */
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
            st = cublasGemmStridedBatchedEx(h, CUBLAS_OP_T, CUBLAS_OP_N, (int)Sk, (int)Sq, (int)D, &one,
                                            kp, t, (int)(KVH * D), kv_step, qp, t, (int)(H * D), (long long)D,
                                            &zero, sp, CUDA_R_32F, (int)Sk, (long long)(Sq * Sk),
                                            (int)heads_per_call, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
            if (st != CUBLAS_STATUS_SUCCESS)
                return gemm_fail(why, why_size, "Q K^T", st);
        }

    int rc = attention_softmax_cuda(bf16, scores, probs, B * H * Sq, Sq, Sk, s->causal, s->scale, stream);
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
            st = cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)D, (int)Sq, (int)Sk, &one,
                                            vp, t, (int)(KVH * D), kv_step, pp, t, (int)Sk, (long long)(Sq * Sk),
                                            &zero, op, t, (int)(H * D), (long long)D,
                                            (int)heads_per_call, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
            if (st != CUBLAS_STATUS_SUCCESS)
                return gemm_fail(why, why_size, "P V", st);
        }
    return 0;
}
