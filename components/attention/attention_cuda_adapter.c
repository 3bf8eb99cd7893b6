/* attention_cuda_adapter.c - attention on an NVIDIA GPU behind the harness
 * ABI (2.1), plugins/attention_cuda.la, with attention/cpu's parameters,
 * cost and double reference (attention_adapter.h; fp16 too); two variants:
 *   attention/cuda    the fused kernels of components/attention/attention_cuda.cu
 *   attention/cublas  the unfused baseline: cuBLAS GEMM, softmax kernel, cuBLAS
 *                     GEMM (components/attention/attention_cublas.c), S and P
 *                     in device memory
 * Device memory (cuBLAS's workspace too), copies and the stream come from the
 * host's device services, so the harness tracks and times them; of the CUDA
 * runtime the plugin only asks how much memory is free, to say so when the
 * shape does not fit. */
#include "attention_adapter.h"

#include <cuda_runtime_api.h>

#include "attention/attention_cublas.h"
#include "attention/attention_cuda.h"
#include "common/cuda_device.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* cuBLAS's workspace (cublasSetWorkspace): what NVIDIA advises for Hopper. */
#define CUBLAS_WORKSPACE_BYTES ((size_t)32 << 20)

typedef struct att_cuda_state {
    attention_config cfg;           /* first: attention_step_cost reads it */
    const char *key;
    int cublas;                     /* attention/cublas */
    attention_cuda_dtype dtype;
    attention_cuda_geometry geom;   /* attention/cuda */
    void *handle;                   /* attention/cublas: a cublasHandle_t */
    void *q, *k, *v, *o;            /* device */
    void *scratch, *workspace;      /* attention/cublas: S (and P), cuBLAS's workspace */
} att_cuda_state;

static const char *const dtypes[] = {"fp32", "bf16", "fp16", NULL};
static const harness_param params[] = ATTENTION_PARAMS(
    dtypes, "type of q, k, v and o; bf16 and fp16 compute in fp32 and round to nearest even");

/* Per attention_dtype: the kernels' element type and device_fill's. */
static const struct {
    attention_cuda_dtype kernel;
    harness_dtype fill;
} dtype_map[] = {
    [ATTENTION_F32] = {ATTENTION_CUDA_F32, HARNESS_DTYPE_F32},
    [ATTENTION_BF16] = {ATTENTION_CUDA_BF16, HARNESS_DTYPE_BF16},
    [ATTENTION_F16] = {ATTENTION_CUDA_F16, HARNESS_DTYPE_F16},
};

static void release(harness_ctx *ctx, att_cuda_state *s)
{
    attention_cublas_close(s->handle);
    void *bufs[] = {s->q, s->k, s->v, s->o, s->scratch, s->workspace};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i])
            harness_host->device_free(ctx, bufs[i]);
    free(s);
}

static int validate_common(harness_ctx *ctx, int cublas)
{
    attention_config c;
    if (attention_read_config(ctx, &c) != 0)
        return -1;
    if (cublas) {
        if (attention_cublas_scratch_bytes(&c.shape, c.dtype) == SIZE_MAX || c.shape.seq_q > 2147483647u ||
            c.shape.seq_k > 2147483647u || c.shape.heads * c.shape.head_dim > 2147483647u)
            return harness_host->fail(ctx, "attention/cublas: batch_size x num_heads x seq_len x kv_seq_len scores "
                                      "overflow size_t, or seq_len, kv_seq_len, num_heads x head_dim pass 2^31 - 1 "
                                      "(cuBLAS takes ints)");
        return 0;
    }
    char why[160];
    if (attention_cuda_env_check(why, sizeof why) != 0)
        return harness_host->fail(ctx, "attention/cuda: %s", why);
    /* The kernels index with int sequence positions and a grid of at most
     * 65535 heads x 65535 sequences: the plan's limits, as config errors. */
    attention_cuda_geometry g;
    if (attention_cuda_plan(&c.shape, dtype_map[c.dtype].kernel, NULL, NULL, NULL, NULL, &g) != 0)
        return harness_host->fail(ctx, "attention/cuda: batch_size (%zu), num_heads (%zu) must be <= 65535 and "
                                  "seq_len, kv_seq_len, head_dim <= 2^31 - 1",
                                  c.shape.batch, c.shape.heads);
    return 0;
}

static int att_validate(harness_ctx *ctx) { return validate_common(ctx, 0); }
static int cublas_validate(harness_ctx *ctx) { return validate_common(ctx, 1); }

/* Device memory the buffers need (q, k, v, o; for attention/cublas also S,
 * P and cuBLAS's workspace), and what the device has free, in the message
 * when an allocation fails. */
static int out_of_memory(harness_ctx *ctx, att_cuda_state *s)
{
    size_t qb = s->cfg.q_bytes, kvb = s->cfg.kv_bytes, free_b = 0, total = 0;
    size_t extra = s->cublas ? attention_cublas_scratch_bytes(&s->cfg.shape, s->cfg.dtype) + CUBLAS_WORKSPACE_BYTES : 0;
    const char *key = s->key;
    release(ctx, s);               /* first, so that what is free is free */
    if (cudaMemGetInfo(&free_b, &total) != cudaSuccess)
        free_b = total = 0;
    char extra_text[48] = "";
    if (extra)
        snprintf(extra_text, sizeof extra_text, " + %zu", extra);
    return harness_host->fail(ctx, "%s: q, k, v and o%s need %zu bytes of device memory "
                              "(2 x %zu + 2 x %zu%s); the device has %zu free of %zu: reduce batch_size, seq_len, "
                              "kv_seq_len, num_heads or head_dim",
                              key, extra ? ", the scores and cuBLAS's workspace" : "", 2 * qb + 2 * kvb + extra, qb,
                              kvb, extra_text, free_b, total);
}

static int create_common(harness_ctx *ctx, void **state, int cublas)
{
    const char *key = cublas ? "attention/cublas" : "attention/cuda";
    if (!HARNESS_HAS_SERVICE(harness_host, device_alloc))
        return harness_host->fail(ctx, "%s needs a harness with ABI 2.1 device services", key);
    att_cuda_state *s = calloc(1, sizeof *s);
    if (!s)
        return harness_host->fail(ctx, "%s: out of memory for the instance state", key);
    s->key = key;
    s->cublas = cublas;
    if (attention_read_config(ctx, &s->cfg) != 0) {
        release(ctx, s);
        return -1;
    }
    s->dtype = dtype_map[s->cfg.dtype].kernel;
    /* Asked before allocating, so the message says what the shape needs and
     * the device has, not which buffer happened to fail. */
    size_t free_b = 0, total = 0, needed = 2 * s->cfg.q_bytes + 2 * s->cfg.kv_bytes +
        (cublas ? attention_cublas_scratch_bytes(&s->cfg.shape, s->cfg.dtype) + CUBLAS_WORKSPACE_BYTES : 0);
    if (cudaMemGetInfo(&free_b, &total) == cudaSuccess && needed > free_b)
        return out_of_memory(ctx, s);
    s->q = harness_host->device_alloc(ctx, s->cfg.q_bytes, "q");
    s->k = s->q ? harness_host->device_alloc(ctx, s->cfg.kv_bytes, "k") : NULL;
    s->v = s->k ? harness_host->device_alloc(ctx, s->cfg.kv_bytes, "v") : NULL;
    s->o = s->v ? harness_host->device_alloc(ctx, s->cfg.q_bytes, "o") : NULL;
    if (s->o && cublas) {
        s->scratch = harness_host->device_alloc(ctx, attention_cublas_scratch_bytes(&s->cfg.shape, s->cfg.dtype),
                                                "scores");
        s->workspace = s->scratch ? harness_host->device_alloc(ctx, CUBLAS_WORKSPACE_BYTES, "cublas workspace") : NULL;
    }
    if (!s->o || (cublas && !s->workspace))
        return out_of_memory(ctx, s);
    /* The same values attention/cpu gets for the same seed. */
    harness_dtype dt = dtype_map[s->cfg.dtype].fill;
    if (harness_host->input(ctx, s->q, s->cfg.q_elems, dt) != 0 ||
        harness_host->input(ctx, s->k, s->cfg.kv_elems, dt) != 0 ||
        harness_host->input(ctx, s->v, s->cfg.kv_elems, dt) != 0 ||
        harness_host->output(ctx, s->o, s->cfg.q_elems, dt) != 0) {
        release(ctx, s);
        return -1;                 /* device_fill recorded why */
    }
    const attention_shape *z = &s->cfg.shape;
    char why[160];
    if (cublas) {
        if (attention_cublas_open(&s->handle, s->workspace, CUBLAS_WORKSPACE_BYTES, why, sizeof why) != 0) {
            release(ctx, s);
            return harness_host->fail(ctx, "attention/cublas: %s", why);
        }
    } else if (attention_cuda_env_check(why, sizeof why) != 0) {
        release(ctx, s);
        return harness_host->fail(ctx, "attention/cuda: %s", why);
    } else if (attention_cuda_plan_arch(z, s->dtype, cuda_device_compute_capability(), s->q, s->k, s->v, s->o,
                                        &s->geom) != 0) {
        release(ctx, s);
        return harness_host->fail(ctx, "attention/cuda: no kernel takes batch %zu, heads %zu, seq %zu", z->batch,
                                  z->heads, z->seq_q);
    }
    char kernel[160];
    if (cublas)
        snprintf(kernel, sizeof kernel, "cuBLAS GEMM, softmax, cuBLAS GEMM");
    else
        attention_cuda_describe(&s->geom, kernel, sizeof kernel);
    harness_host->note(ctx, "kernel", kernel);   /* the summary's component_notes: what an A/B switch chose */
    harness_host->log(ctx, HARNESS_LOG_DEBUG, "%s: %s; batch %zu, heads %zu/%zu, seq %zu/%zu, head_dim %zu, %s%s",
                      key, kernel, z->batch, z->heads, z->kv_heads, z->seq_q, z->seq_k, z->head_dim,
                      attention_dtype_name(s->cfg.dtype), z->causal ? ", causal" : "");
    *state = s;
    return 0;
}

static int att_create(harness_ctx *ctx, void **state) { return create_common(ctx, state, 0); }
static int cublas_create(harness_ctx *ctx, void **state) { return create_common(ctx, state, 1); }

static int att_step(harness_ctx *ctx, void *state)
{
    att_cuda_state *s = state;
    if (s->cublas) {
        char why[160];
        harness_host->region_push(ctx, "gemm_softmax_gemm");
        int rc = attention_cublas(s->handle, harness_host->stream(ctx), &s->cfg.shape, s->cfg.dtype, s->q, s->k,
                                  s->v, s->o, s->scratch, why, sizeof why);
        harness_host->region_pop(ctx);
        return rc == 0 ? 0 : harness_host->fail(ctx, "attention/cublas: %s", why);
    }
    int rc = attention_cuda_launch(&s->geom, &s->cfg.shape, s->dtype, s->q, s->k, s->v, s->o,
                                   harness_host->stream(ctx));
    if (rc == ATTENTION_CUDA_EINVAL)
        return harness_host->fail(ctx, "attention/cuda: the launch geometry does not fit the shape");
    if (rc == ATTENTION_CUDA_ENOHOPPER)
        return harness_host->fail(ctx, "attention/cuda: " ATTENTION_CUDA_ENOHOPPER_WHY);
    if (rc != 0)
        return harness_host->fail(ctx, "attention/cuda: kernel launch failed (cudaError_t %d)", rc);
    return 0;
}

/* One step on the device; q, k, v and o copied back and held to the double
 * reference with attention_check's documented tolerances (attention_ref.c:
 * fp32 a worst-case bound per row, bf16 and fp16 twice the error of a
 * framework computing in that type plus the fp32 bound). */
static int att_check(harness_ctx *ctx, void *state, harness_check *out)
{
    att_cuda_state *s = state;
    if (att_step(ctx, s) != 0 || harness_host->device_synchronize(ctx) != 0)
        return -1;
    size_t qb = s->cfg.q_bytes, kvb = s->cfg.kv_bytes;
    void *q = harness_host->alloc(ctx, qb, "check q");
    void *k = q ? harness_host->alloc(ctx, kvb, "check k") : NULL;
    void *v = k ? harness_host->alloc(ctx, kvb, "check v") : NULL;
    void *o = v ? harness_host->alloc(ctx, qb, "check o") : NULL;
    int rc = o ? 0 : -1;
    if (rc == 0)
        rc = harness_host->copy_to_host(ctx, q, s->q, qb) || harness_host->copy_to_host(ctx, k, s->k, kvb) ||
                     harness_host->copy_to_host(ctx, v, s->v, kvb) || harness_host->copy_to_host(ctx, o, s->o, qb)
                 ? -1
                 : 0;
    if (rc == 0)
        rc = attention_check_output(ctx, s->key, &s->cfg, q, k, v, o, out);
    if (rc == 0) {
        size_t len = strlen(out->detail);
        snprintf(out->detail + len, sizeof out->detail - len, "; %s", s->cublas ? "cuBLAS" :
                 attention_cuda_kernel_name(s->geom.kernel));
    }
    void *bufs[] = {q, k, v, o};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i])
            harness_host->free(ctx, bufs[i]);
    return rc;
}

static void att_destroy(harness_ctx *ctx, void *state)
{
    if (state)
        release(ctx, state);
}

static const harness_variant attention_cuda_variant = {
    .size = sizeof(harness_variant),
    .key = "attention/cuda",
    .family = "attention",
    .device = "cuda",
    .summary = "scaled-dot-product attention forward on an NVIDIA GPU, FlashAttention-2 style (bf16 and fp16: "
               "mma.sync tensor cores for head_dim 64/128, on an H100 a FlashAttention-3-style wgmma + TMA "
               "kernel; fp32: SIMT; other head_dims: a simple kernel; HARNESS_ATTENTION_KERNEL=mma_sync|hopper "
               "forces one)",
    .params = params,
    .n_params = sizeof params / sizeof params[0],
    .create = att_create,
    .validate = att_validate,
    .step = att_step,
    .step_cost = attention_step_cost,
    .check = att_check,
    .destroy = att_destroy,
};

static const harness_variant attention_cublas_variant = {
    .size = sizeof(harness_variant),
    .key = "attention/cublas",
    .family = "attention",
    .device = "cuda",
    .summary = "unfused attention, the baseline for attention/cuda: cuBLAS GEMM (Q K^T, fp32 scores), a softmax "
               "kernel, cuBLAS GEMM (P V); S and P in device memory; fp32, bf16 or fp16",
    .params = params,
    .n_params = sizeof params / sizeof params[0],
    .create = cublas_create,
    .validate = cublas_validate,
    .step = att_step,
    .step_cost = attention_step_cost,
    .check = att_check,
    .destroy = att_destroy,
};

HARNESS_PLUGIN_INIT(attention_cuda, svc, ctx)
{
    int rc = svc->register_variant(ctx, &attention_cuda_variant);
    return rc != 0 ? rc : svc->register_variant(ctx, &attention_cublas_variant);
}
