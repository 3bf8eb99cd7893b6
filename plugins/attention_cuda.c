/* attention_cuda.c - the attention/cuda variant: the kernels of
 * components/attention/attention_cuda.cu behind the harness ABI (2.1), with
 * attention/cpu's parameters (attention_params.h) and its double reference.
 * Device memory, copies and the stream come from the host's device services,
 * so the harness tracks and times them; of CUDA itself the plugin only asks
 * how much memory is free, to say so when the shape does not fit. */
#include <harness/plugin.h>

#include <cuda_runtime_api.h>

#include "check_verdict.h"

#include "attention/attention.h"
#include "attention/attention_cuda.h"
#include "attention_params.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* As attention/cpu: reference work the check may spend, in multiply-adds;
 * larger shapes check an evenly spread subset, said in the detail. */
#define CHECK_BUDGET 1.5e9

typedef struct att_cuda_state {
    attention_config cfg;
    attention_cuda_dtype dtype;
    attention_cuda_geometry geom;
    void *q, *k, *v, *o;            /* device */
} att_cuda_state;

static const char *const kernel_names[] = {"tensor-core (mma.sync)", "SIMT fp32", "fallback (warp per row)"};

static void release(harness_ctx *ctx, att_cuda_state *s)
{
    void *bufs[] = {s->q, s->k, s->v, s->o};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i])
            harness_host->device_free(ctx, bufs[i]);
    free(s);
}

static int att_validate(harness_ctx *ctx)
{
    attention_config c;
    if (attention_read_config(ctx, &c) != 0)
        return -1;
    /* The kernels index with int sequence positions and a grid of at most
     * 65535 heads x 65535 sequences: the plan's limits, as config errors. */
    attention_cuda_geometry g;
    if (attention_cuda_plan(&c.shape, c.bf16 ? ATTENTION_CUDA_BF16 : ATTENTION_CUDA_F32, NULL, NULL, NULL, NULL,
                            &g) != 0)
        return harness_host->fail(ctx, "attention/cuda: batch_size (%zu), num_heads (%zu) must be <= 65535 and "
                                  "seq_len, kv_seq_len, head_dim <= 2^31 - 1",
                                  c.shape.batch, c.shape.heads);
    return 0;
}

/* Device memory the four buffers need, and what the device has free, in the
 * message when an allocation fails. */
static int out_of_memory(harness_ctx *ctx, att_cuda_state *s)
{
    size_t qb = s->cfg.q_bytes, kvb = s->cfg.kv_bytes, free_b = 0, total = 0;
    release(ctx, s);               /* first, so that what is free is free */
    if (cudaMemGetInfo(&free_b, &total) != cudaSuccess)
        free_b = total = 0;
    return harness_host->fail(ctx, "attention/cuda: q, k, v and o need %zu bytes of device memory "
                              "(2 x %zu + 2 x %zu); the device has %zu free of %zu: reduce batch_size, seq_len, "
                              "kv_seq_len, num_heads or head_dim",
                              2 * qb + 2 * kvb, qb, kvb, free_b, total);
}

static int att_create(harness_ctx *ctx, void **state)
{
    if (!HARNESS_HAS_SERVICE(harness_host, device_alloc))
        return harness_host->fail(ctx, "attention/cuda needs a harness with ABI 2.1 device services");
    att_cuda_state *s = calloc(1, sizeof *s);
    if (!s)
        return harness_host->fail(ctx, "attention/cuda: out of memory for the instance state");
    if (attention_read_config(ctx, &s->cfg) != 0) {
        release(ctx, s);
        return -1;
    }
    s->dtype = s->cfg.bf16 ? ATTENTION_CUDA_BF16 : ATTENTION_CUDA_F32;
    s->q = harness_host->device_alloc(ctx, s->cfg.q_bytes, "q");
    s->k = s->q ? harness_host->device_alloc(ctx, s->cfg.kv_bytes, "k") : NULL;
    s->v = s->k ? harness_host->device_alloc(ctx, s->cfg.kv_bytes, "v") : NULL;
    s->o = s->v ? harness_host->device_alloc(ctx, s->cfg.q_bytes, "o") : NULL;
    if (!s->o)
        return out_of_memory(ctx, s);
    /* The same values attention/cpu gets for the same seed. */
    harness_dtype dt = s->cfg.bf16 ? HARNESS_DTYPE_BF16 : HARNESS_DTYPE_F32;
    if (harness_host->device_fill(ctx, s->q, s->cfg.q_elems, dt) != 0 ||
        harness_host->device_fill(ctx, s->k, s->cfg.kv_elems, dt) != 0 ||
        harness_host->device_fill(ctx, s->v, s->cfg.kv_elems, dt) != 0) {
        release(ctx, s);
        return -1;                 /* device_fill recorded why */
    }
    const attention_shape *z = &s->cfg.shape;
    if (attention_cuda_plan(z, s->dtype, s->q, s->k, s->v, s->o, &s->geom) != 0) {
        release(ctx, s);
        return harness_host->fail(ctx, "attention/cuda: no kernel takes batch %zu, heads %zu, seq %zu", z->batch,
                                  z->heads, z->seq_q);
    }
    harness_host->log(ctx, HARNESS_LOG_DEBUG,
                      "%s kernel, grid %u x %u x %u, %u threads, %zu bytes shared; batch %zu, heads %zu/%zu, "
                      "seq %zu/%zu, head_dim %zu, %s%s",
                      kernel_names[s->geom.kernel], s->geom.grid_x, s->geom.grid_y, s->geom.grid_z, s->geom.threads,
                      s->geom.smem, z->batch, z->heads, z->kv_heads, z->seq_q, z->seq_k, z->head_dim,
                      s->cfg.bf16 ? "bf16" : "fp32", z->causal ? ", causal" : "");
    *state = s;
    return 0;
}

static int att_step(harness_ctx *ctx, void *state)
{
    att_cuda_state *s = state;
    int rc = attention_cuda_launch(&s->geom, &s->cfg.shape, s->dtype, s->q, s->k, s->v, s->o,
                                   harness_host->stream(ctx));
    if (rc == ATTENTION_CUDA_EINVAL)
        return harness_host->fail(ctx, "attention/cuda: the launch geometry does not fit the shape");
    if (rc != 0)
        return harness_host->fail(ctx, "attention/cuda: kernel launch failed (cudaError_t %d)", rc);
    return 0;
}

/* As attention/cpu: 4 x head_dim FLOPs per visible (query, key) pair and
 * head; q, k, v read and o written once (a block re-reads K and V tiles, from
 * L2 mostly: not counted). */
static void att_cost(void *state, harness_cost *out)
{
    const att_cuda_state *s = state;
    out->flops = attention_flops(&s->cfg.shape);
    out->bytes = (2.0 * (double)s->cfg.q_elems + 2.0 * (double)s->cfg.kv_elems) * (double)s->cfg.elem;
}

/* One step on the device; q, k, v and o copied back and held to the double
 * reference with attention_check's documented tolerances (attention_ref.c:
 * fp32 a worst-case bound per row, bf16 twice a bf16-arithmetic framework's
 * error plus the fp32 bound). */
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
    attention_check_result r;
    if (rc == 0 && attention_check(&s->cfg.shape, q, k, v, o, s->cfg.bf16, CHECK_BUDGET, &r) != 0)
        rc = harness_host->fail(ctx, "attention/cuda: %s", r.detail);
    if (rc == 0) {
        COPY_CHECK_VERDICT(out, r);
        size_t len = strlen(out->detail);
        snprintf(out->detail + len, sizeof out->detail - len, "; %s kernel", kernel_names[s->geom.kernel]);
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
    .summary = "scaled-dot-product attention forward on an NVIDIA GPU, FlashAttention-2 style (bf16: mma.sync "
               "tensor cores for head_dim 64/128; fp32: SIMT; other head_dims: a simple kernel)",
    .params = attention_params,
    .n_params = sizeof attention_params / sizeof attention_params[0],
    .create = att_create,
    .validate = att_validate,
    .step = att_step,
    .cost = att_cost,
    .check = att_check,
    .destroy = att_destroy,
};

HARNESS_PLUGIN_INIT(attention_cuda, svc, ctx)
{
    return svc->register_variant(ctx, &attention_cuda_variant);
}
