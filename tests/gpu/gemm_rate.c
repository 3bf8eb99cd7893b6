/* gemm_rate.c - the dense bf16 GEMM rate cuBLASLt reaches on this GPU, for
 * tests/gpu/run.sh to set transformer_block/cuda's FLOP rate against, side by
 * side on the same machine. Each GEMM is a linear layer as the block runs
 * it (components/transformer_block/linear_cublaslt.c): d[M][N] = a[M][K]
 * w[N][K]^T, row-major, bf16 operands and output, fp32 accumulation, the
 * heuristic's first algorithm within a 32 MiB workspace. Each GEMM is timed
 * alone with a CUDA event pair, after a warmup; the median of the repeats is
 * reported. Standalone: nvcc -O2 -o gemm_rate gemm_rate.c -lcublasLt
 *
 *   usage: gemm_rate [-r REPEATS] M N K [M N K ...]
 *   prints one line per shape: "M N K median_ms TFLOP/s", then for the
 *   shapes together (one of each): "mix total_GFLOP sum_of_medians_ms TFLOP/s". */
#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORKSPACE_BYTES ((size_t)32 << 20)
#define WARMUP 10

#define CUDA_OK(call)                                                                        \
    do {                                                                                     \
        cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess) {                                                             \
            fprintf(stderr, "gemm_rate: %s: %s\n", #call, cudaGetErrorString(e_));           \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)
#define LT_OK(call)                                                                          \
    do {                                                                                     \
        cublasStatus_t s_ = (call);                                                          \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                   \
            fprintf(stderr, "gemm_rate: %s: %s\n", #call, cublasLtGetStatusString(s_));      \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

static int by_value(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* The median time in ms of `repeats` runs of one M x N x K GEMM. */
static float time_gemm(cublasLtHandle_t lt, size_t m, size_t n, size_t k, int repeats, void *ws)
{
    void *a, *w, *d;
    CUDA_OK(cudaMalloc(&a, m * k * 2));
    CUDA_OK(cudaMalloc(&w, n * k * 2));
    CUDA_OK(cudaMalloc(&d, m * n * 2));
    /* 0x3c3c: bf16 0.0115 everywhere: finite sums of any length. */
    CUDA_OK(cudaMemset(a, 0x3c, m * k * 2));
    CUDA_OK(cudaMemset(w, 0x3c, n * k * 2));

    /* Column-major view: D^T (N x M) = W (K x N, op T) A^T (K x M, op N). */
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t la, lb, lcd;
    int32_t op_t = CUBLAS_OP_T, op_n = CUBLAS_OP_N;
    LT_OK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    LT_OK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_t, sizeof op_t));
    LT_OK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_n, sizeof op_n));
    LT_OK(cublasLtMatrixLayoutCreate(&la, CUDA_R_16BF, k, n, (int64_t)k));
    LT_OK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_16BF, k, m, (int64_t)k));
    LT_OK(cublasLtMatrixLayoutCreate(&lcd, CUDA_R_16BF, n, m, (int64_t)n));
    cublasLtMatmulPreference_t pref;
    uint64_t ws_bytes = WORKSPACE_BYTES;
    LT_OK(cublasLtMatmulPreferenceCreate(&pref));
    LT_OK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes,
                                               sizeof ws_bytes));
    cublasLtMatmulHeuristicResult_t result;
    int found = 0;
    LT_OK(cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, lcd, lcd, pref, 1, &result, &found));
    if (found < 1) {
        fprintf(stderr, "gemm_rate: no cuBLASLt algorithm for %zu x %zu x %zu\n", m, n, k);
        exit(1);
    }

    const float one = 1.0f, zero = 0.0f;
    cudaEvent_t *ev = malloc(2 * (size_t)repeats * sizeof *ev);
    float *ms = malloc((size_t)repeats * sizeof *ms);
    if (!ev || !ms)
        exit(1);
    for (int i = 0; i < 2 * repeats; i++)
        CUDA_OK(cudaEventCreate(&ev[i]));
    for (int i = 0; i < WARMUP + repeats; i++) {
        if (i >= WARMUP)
            CUDA_OK(cudaEventRecord(ev[2 * (i - WARMUP)], 0));
        LT_OK(cublasLtMatmul(lt, desc, &one, w, la, a, lb, &zero, d, lcd, d, lcd, &result.algo, ws, WORKSPACE_BYTES,
                             0));
        if (i >= WARMUP)
            CUDA_OK(cudaEventRecord(ev[2 * (i - WARMUP) + 1], 0));
    }
    CUDA_OK(cudaDeviceSynchronize());
    for (int i = 0; i < repeats; i++)
        CUDA_OK(cudaEventElapsedTime(&ms[i], ev[2 * i], ev[2 * i + 1]));
    qsort(ms, (size_t)repeats, sizeof *ms, by_value);
    float median = ms[repeats / 2];

    for (int i = 0; i < 2 * repeats; i++)
        cudaEventDestroy(ev[i]);
    free(ev);
    free(ms);
    cublasLtMatmulPreferenceDestroy(pref);
    cublasLtMatrixLayoutDestroy(la);
    cublasLtMatrixLayoutDestroy(lb);
    cublasLtMatrixLayoutDestroy(lcd);
    cublasLtMatmulDescDestroy(desc);
    cudaFree(a);
    cudaFree(w);
    cudaFree(d);
    return median;
}

int main(int argc, char **argv)
{
    int repeats = 50, first = 1;
    if (argc > 2 && strcmp(argv[1], "-r") == 0)
        repeats = atoi(argv[2]), first = 3;
    if (repeats < 1 || argc - first < 3 || (argc - first) % 3 != 0) {
        fprintf(stderr, "usage: gemm_rate [-r REPEATS] M N K [M N K ...]\n");
        return 2;
    }
    cublasLtHandle_t lt;
    void *ws;
    LT_OK(cublasLtCreate(&lt));
    CUDA_OK(cudaMalloc(&ws, WORKSPACE_BYTES));
    double mix_flops = 0.0, mix_ms = 0.0;
    for (int i = first; i + 2 < argc; i += 3) {
        size_t m = strtoull(argv[i], NULL, 10), n = strtoull(argv[i + 1], NULL, 10), k = strtoull(argv[i + 2], NULL, 10);
        float ms = time_gemm(lt, m, n, k, repeats, ws);
        double flops = 2.0 * (double)m * (double)n * (double)k;
        printf("%zu %zu %zu %.4f %.1f\n", m, n, k, ms, flops / (ms * 1e-3) / 1e12);
        mix_flops += flops, mix_ms += ms;
    }
    printf("mix %.1f %.4f %.1f\n", mix_flops / 1e9, mix_ms, mix_flops / (mix_ms * 1e-3) / 1e12);
    cudaFree(ws);
    cublasLtDestroy(lt);
    return 0;
}
