/* transformer_block_cuda_adapter.c - plugins/transformer_block_cuda.la,
 * transformer_block/cuda: the Llama decoder block of
 * components/transformer_block/transformer_block_gpu.h behind the harness
 * ABI (2.1), with transformer_block/cpu's parameters and data
 * (transformer_block_adapter.h) and its double reference, so a config
 * switches `device` and nothing else.
 *
 * Device memory (cuBLASLt's workspace too), copies and the stream come from
 * the host's device services, so the harness tracks and times them; of the
 * CUDA runtime the plugin only asks how much memory is free, before
 * allocating, to refuse a shape that cannot fit with the bytes it needs and
 * the bytes there are. x and the weights are generated on the host in the
 * CPU plugin's order (same seed, same values) and copied over; nothing but
 * the device copy stays. The check copies x, the weights and y back.
 *
 * tensor_parallel: true on more than one rank splits the block as
 * transformer_block/cpu does (Megatron-style, transformer_block.h): every
 * rank generates the whole weights from the same seed, uploads its slices,
 * and keeps the whole weights on the host for the check, which holds the
 * summed y to the single-rank reference. The two all-reduces per step go
 * through the harness's collectives, which send device buffers through
 * NCCL. */
#include <harness/plugin.h>

#include <cuda_runtime_api.h>

#include "common/check_verdict.h"
#include "common/cuda_device.h"
#include "transformer_block_adapter.h"

#include "transformer_block/transformer_block.h"
#include "transformer_block/transformer_block_gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* As transformer_block/cpu: the reference work the check may spend; larger
 * shapes check a subset of tokens, said in the detail. */
#define CHECK_REF_FLOPS 12e9

/* bf16 tolerance, per element of a token's output row (the check's form,
 * transformer_block_check_tol): |err| <= RTOL |ref| + ATOL rms(ref row).
 * RTOL is the CPU bf16 block's: y's own rounding to bf16 (2^-8, twice the
 * half-ulp) plus the fp32 bound. ATOL adds to the fp32 bound what the CPU
 * block does not do: this block stores every activation in bf16, as a bf16
 * model does (transformer_block_gpu.h). Each stored value carries a relative
 * rounding error of up to 2^-9; about a dozen such roundings lie on the path
 * to y (n, q, k, v, rotated q and k, attention's P and output, h, the second
 * n, gate, up, their product), and with weights scaled to keep every stage's
 * rms at the row's, each reaches y through dot products of independent
 * terms, at about 2^-9 rms(row) apiece. Measured on the same arithmetic (the
 * plugin test's CPU build of the kernels and a GEMM stand-in rounding D to
 * bf16, 65 x 128 and 256 x 512 tokens x hidden): the smallest ATOL that
 * passes is 8 x 2^-9 at both shapes. The bound is twice that, 2^-5, the
 * project's bf16 policy (components/common/check.h: twice the error of the
 * same computation in bf16 storage). The bugs a block can have (the other
 * RoPE pairing or theta, a missed mask, the norms' weights exchanged, a
 * transposed weight, a wrong kv head) move y by far more:
 * test_bf16_tolerance_catches_wrong_blocks shows the subtle ones fail. */
#define BF16_ACTIVATIONS_ATOL 0x1p-5

typedef struct tbc_state {
    transformer_block_gpu block;
    transformer_block_gpu_sizes sizes;   /* this rank's (its weight slices) */
    transformer_block_gpu_sizes whole;   /* the whole block's */
    void *x, *y, *w[TB_N_WEIGHTS], *buf[TB_GPU_N_BUFS], *workspace;   /* device */
    void *whole_w[TB_N_WEIGHTS];         /* tensor_parallel: the whole weights, host, for the check */
} tbc_state;

static void release(harness_ctx *ctx, tbc_state *s)
{
    transformer_block_gpu_release(&s->block);
    void *all[2 + TB_N_WEIGHTS + TB_GPU_N_BUFS + 1];
    int n = 0;
    all[n++] = s->x, all[n++] = s->y, all[n++] = s->workspace;
    for (int i = 0; i < TB_N_WEIGHTS; i++)
        if (transformer_block_gpu_fused_after(i) < 0)   /* a fused weight lives in its group's allocation */
            all[n++] = s->w[i];
    for (int i = 0; i < TB_GPU_N_BUFS; i++)
        all[n++] = s->buf[i];
    for (int i = 0; i < n; i++)
        if (all[i])
            harness_host->device_free(ctx, all[i]);
    for (int i = 0; i < TB_N_WEIGHTS; i++)
        if (s->whole_w[i])
            harness_host->free(ctx, s->whole_w[i]);
    free(s);
}

/* The shape, checked as transformer_block/cpu checks it, plus the GPU
 * kernels' own limits; config errors, found by validate before anything
 * exists. *tp_size: the ranks the block is split over (1: not split). */
static int read_config(harness_ctx *ctx, transformer_block_shape *sh, int *bf16, int *tp_size,
                       transformer_block_gpu_sizes *sizes, transformer_block_gpu_sizes *whole)
{
    transformer_block_sizes cpu_sizes;
    size_t weights;
    char msg[256];
    if (tb_read_shape(ctx, 1, sh, bf16, &cpu_sizes, &weights) != 0)
        return -1;
    int n = harness_host->world_size(ctx);
    *tp_size = harness_host->param_bool(ctx, "tensor_parallel") && n > 1 ? n : 1;
    if (*tp_size > 1 && tb_check_tensor_parallel(ctx, sh, n) != 0)
        return -1;
    if (transformer_block_gpu_check_shape(sh, *bf16, *tp_size, msg, sizeof msg) != 0 ||
        transformer_block_gpu_sizes_of(sh, *bf16, *tp_size, sizes, msg, sizeof msg) != 0 ||
        transformer_block_gpu_sizes_of(sh, *bf16, 1, whole, msg, sizeof msg) != 0)
        return harness_host->fail(ctx, "%s", msg);
    if (attention_cuda_env_check(msg, sizeof msg) != 0)
        return harness_host->fail(ctx, "%s", msg);
    return 0;
}

static int tbc_validate(harness_ctx *ctx)
{
    transformer_block_shape sh;
    transformer_block_gpu_sizes sizes, whole;
    int bf16, tp_size;
    return read_config(ctx, &sh, &bf16, &tp_size, &sizes, &whole);
}

/* The message of a shape that does not fit: what it needs, what is free. */
static int out_of_memory(harness_ctx *ctx, tbc_state *s)
{
    const transformer_block_gpu_sizes z = s->sizes;
    size_t weights = 0, bufs = 0, free_b = 0, total = 0;
    for (int i = 0; i < TB_N_WEIGHTS; i++)
        weights += z.weight_bytes[i];
    for (int i = 0; i < TB_GPU_N_BUFS; i++)
        bufs += z.buf_bytes[i];
    release(ctx, s);               /* first, so that what is free is free */
    if (cudaMemGetInfo(&free_b, &total) != cudaSuccess)
        free_b = total = 0;
    return harness_host->fail(ctx, "transformer_block/cuda: x, y, the weights, the activations and cuBLASLt's "
                              "workspace need %zu bytes of device memory (2 x %zu + %zu + %zu + %zu); the device "
                              "has %zu free of %zu: reduce batch_size, seq_len, hidden_size or intermediate_size, "
                              "or use dtype bf16", z.total, z.x_bytes, weights, bufs, TB_GPU_WORKSPACE_BYTES, free_b,
                              total);
}

/* The device allocation that starts with weight i: i's bytes and those of
 * the weights stored right after it (transformer_block_gpu_fused_after), so
 * that each fused GEMM reads [Wq; Wk; Wv] or [Wgate; Wup] as one matrix;
 * each weight keeps its own pointer into it, and the generator, the upload
 * and the check see the separate weights as before. 0 when all is well. */
static int alloc_weight_group(harness_ctx *ctx, tbc_state *s, int i)
{
    size_t bytes = s->sizes.weight_bytes[i];
    int last = i;
    while (last + 1 < TB_N_WEIGHTS && transformer_block_gpu_fused_after(last + 1) == last)
        bytes += s->sizes.weight_bytes[++last];
    const char *name = i == TB_WQ ? "wqkv" : i == TB_W_GATE ? "w_gate_up" : transformer_block_weight_names[i];
    char *base = harness_host->device_alloc(ctx, bytes, name);
    if (!base)
        return -1;
    for (int j = i; j <= last; base += s->sizes.weight_bytes[j++])
        s->w[j] = base;
    return 0;
}

/* Weight i, whole, from the generator into `whole`; this rank's slice of it
 * to the device (through `staging` when the block is split). */
static int upload_weight(harness_ctx *ctx, tbc_state *s, int i, void *whole, void *staging)
{
    const transformer_block_gpu *b = &s->block;
    if (tb_fill_weight(ctx, &b->shape, i, b->bf16, whole, s->whole.weight_bytes[i] / s->whole.elem) != 0)
        return -1;
    if (b->tp_size > 1)
        transformer_block_tp_slice(&b->shape, i, b->tp_rank, b->tp_size, s->whole.elem, whole, staging);
    return harness_host->copy_to_device(ctx, s->w[i], b->tp_size > 1 ? staging : whole, s->sizes.weight_bytes[i]);
}

/* x, then each weight, from the generator in transformer_block/cpu's order,
 * through one host staging buffer (the whole weights kept instead when the
 * block is split); then the RoPE table. */
static int upload_inputs(harness_ctx *ctx, tbc_state *s)
{
    const harness_services *H = harness_host;
    const transformer_block_shape *sh = &s->block.shape;
    int bf16 = s->block.bf16, split = s->block.tp_size > 1;
    size_t staging = s->sizes.x_bytes > s->sizes.buf_bytes[TB_GPU_ROPE] ? s->sizes.x_bytes
                                                                         : s->sizes.buf_bytes[TB_GPU_ROPE];
    for (int i = 0; i < TB_N_WEIGHTS; i++)
        staging = s->whole.weight_bytes[i] > staging ? s->whole.weight_bytes[i] : staging;
    void *host = H->alloc(ctx, staging, "upload staging");
    if (!host)
        return -1;
    /* x is what a step reads afresh and y what it writes (the checks after timing). */
    harness_dtype act = bf16 ? HARNESS_DTYPE_BF16 : HARNESS_DTYPE_F32;
    int rc = H->input(ctx, s->x, s->sizes.tokens * sh->hidden, act) ||
             H->output(ctx, s->y, s->sizes.tokens * sh->hidden, act);
    for (int i = 0; rc == 0 && i < TB_N_WEIGHTS; i++) {
        if (split && !(s->whole_w[i] = H->alloc(ctx, s->whole.weight_bytes[i], "whole weights (check)")))
            rc = -1;
        else
            rc = upload_weight(ctx, s, i, split ? s->whole_w[i] : host, host);
    }
    if (rc == 0) {
        transformer_block_rope_table(sh, host);
        rc = H->copy_to_device(ctx, s->buf[TB_GPU_ROPE], host, s->sizes.buf_bytes[TB_GPU_ROPE]);
    }
    H->free(ctx, host);
    return rc ? -1 : 0;
}

static int all_reduce_in_place(void *user, void *buf, size_t n, int bf16)
{
    return harness_host->all_reduce(user, buf, buf, n, bf16 ? HARNESS_DTYPE_BF16 : HARNESS_DTYPE_F32,
                                    HARNESS_REDUCE_SUM);
}

static void region_push(void *user, const char *name)
{
    harness_host->region_push(user, name);
}

static void region_pop(void *user)
{
    harness_host->region_pop(user);
}

static int tbc_create(harness_ctx *ctx, void **state)
{
    const harness_services *H = harness_host;
    if (!HARNESS_HAS_SERVICE(H, device_alloc))
        return H->fail(ctx, "transformer_block/cuda needs a harness with ABI 2.1 device services");
    tbc_state *s = calloc(1, sizeof *s);
    if (!s)
        return H->fail(ctx, "transformer_block/cuda: out of memory for the instance state");
    transformer_block_gpu *b = &s->block;
    if (read_config(ctx, &b->shape, &b->bf16, &b->tp_size, &s->sizes, &s->whole) != 0) {
        free(s);
        return -1;
    }
    b->tp_rank = H->rank(ctx);
    b->all_reduce = all_reduce_in_place;
    b->compute_capability = cuda_device_compute_capability();
    /* Asked before allocating, so the message says what the shape needs and
     * the device has, not which buffer happened to fail. */
    size_t free_b = 0, total = 0;
    if (cudaMemGetInfo(&free_b, &total) == cudaSuccess && s->sizes.total > free_b)
        return out_of_memory(ctx, s);
    int ok = (s->x = H->device_alloc(ctx, s->sizes.x_bytes, "x")) &&
             (s->y = H->device_alloc(ctx, s->sizes.x_bytes, "y")) &&
             (s->workspace = H->device_alloc(ctx, TB_GPU_WORKSPACE_BYTES, "cublaslt workspace"));
    for (int i = 0; ok && i < TB_N_WEIGHTS; i++)
        ok = transformer_block_gpu_fused_after(i) >= 0 || alloc_weight_group(ctx, s, i) == 0;
    for (int i = 0; ok && i < TB_GPU_N_BUFS; i++)
        ok = (s->buf[i] = H->device_alloc(ctx, s->sizes.buf_bytes[i], transformer_block_gpu_buf_names[i])) != NULL;
    if (!ok)
        return out_of_memory(ctx, s);
    if (upload_inputs(ctx, s) != 0) {
        release(ctx, s);
        return -1;                 /* fill or the copy recorded why */
    }
    b->x = s->x, b->y = s->y, b->workspace = s->workspace;
    memcpy(b->w, s->w, sizeof s->w);
    memcpy(b->buf, s->buf, sizeof s->buf);
    b->regions = (transformer_block_regions){region_push, region_pop, NULL};
    char why[256];
    if (transformer_block_gpu_prepare(b, why, sizeof why) != 0) {
        release(ctx, s);
        return H->fail(ctx, "transformer_block/cuda: %s", why);
    }
    const transformer_block_shape *sh = &b->shape;
    H->log(ctx, HARNESS_LOG_DEBUG, "transformer_block/cuda: %zu tokens, hidden %zu, %zu/%zu heads of %zu, "
           "intermediate %zu, %s; cuBLASLt GEMMs, attention %s", s->sizes.tokens, sh->hidden, sh->heads,
           sh->kv_heads, s->sizes.head_dim, sh->intermediate, b->bf16 ? "bf16" : "fp32",
           transformer_block_gpu_attention_kernel(b));
    *state = s;
    return 0;
}

static int tbc_step(harness_ctx *ctx, void *state)
{
    tbc_state *s = state;
    char why[256];
    s->block.regions.user = ctx;
    s->block.comm_user = ctx;
    if (transformer_block_gpu_forward(&s->block, harness_host->stream(ctx), why, sizeof why) != 0)
        return harness_host->fail(ctx, "transformer_block/cuda: %s", why);
    return 0;
}

/* tb_cost_of's figures; this rank's weights are read once in the stored
 * dtype (no fp32 copy here). */
static int tbc_cost(harness_ctx *ctx, void *state, harness_cost *out)
{
    (void)ctx;
    const tbc_state *s = state;
    double weights = 0.0;
    for (int i = 0; i < TB_N_WEIGHTS; i++)
        weights += (double)s->sizes.weight_bytes[i];
    tb_cost_of(&s->block.shape, s->block.tp_size, weights, s->sizes.x_bytes, out);
    return 0;
}

/* One step on the device; x, the weights and y copied back and held to the
 * CPU block's double reference: fp32 with the CPU's fp32 tolerance, bf16
 * with BF16_ACTIVATIONS_ATOL added (see above). */
static int tbc_check(harness_ctx *ctx, void *state, harness_check *out)
{
    const harness_services *H = harness_host;
    tbc_state *s = state;
    if (tbc_step(ctx, s) != 0 || H->device_synchronize(ctx) != 0)
        return -1;
    void *x = H->alloc(ctx, s->sizes.x_bytes, "check x"), *w[TB_N_WEIGHTS] = {NULL};
    void *y = x ? H->alloc(ctx, s->sizes.x_bytes, "check y") : NULL;
    int rc = y ? H->copy_to_host(ctx, x, s->x, s->sizes.x_bytes) || H->copy_to_host(ctx, y, s->y, s->sizes.x_bytes)
               : -1;
    for (int i = 0; rc == 0 && i < TB_N_WEIGHTS && s->block.tp_size <= 1; i++)
        rc = !(w[i] = H->alloc(ctx, s->sizes.weight_bytes[i], "check weights")) ||
             H->copy_to_host(ctx, w[i], s->w[i], s->sizes.weight_bytes[i]);
    const void *const *weights = s->block.tp_size > 1 ? (const void *const *)s->whole_w : (const void *const *)w;
    if (rc == 0) {
        const transformer_block_shape *sh = &s->block.shape;
        double fp32_tol = transformer_block_fp32_tol(sh), rtol = fp32_tol, atol = fp32_tol;
        if (s->block.bf16)
            rtol += 0x1p-8, atol += BF16_ACTIVATIONS_ATOL;
        transformer_block_check_result r;
        if (transformer_block_check_tol(sh, s->block.bf16 ? TB_BF16 : TB_F32, x, weights, y,
                                        CHECK_REF_FLOPS, rtol, atol, &r) != 0) {
            rc = H->fail(ctx, "transformer_block/cuda: %s", r.detail);
        } else {
            COPY_CHECK_VERDICT(out, r);
            size_t len = strlen(out->detail);
            snprintf(out->detail + len, sizeof out->detail - len, "; attention: %s",
                     transformer_block_gpu_attention_kernel(&s->block));
        }
    } else {
        rc = -1;                   /* alloc or the copy recorded why */
    }
    void *bufs[2 + TB_N_WEIGHTS] = {x, y};
    memcpy(bufs + 2, w, sizeof w);
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i])
            H->free(ctx, bufs[i]);
    return rc;
}

static void tbc_destroy(harness_ctx *ctx, void *state)
{
    if (state)
        release(ctx, state);
}

static const harness_variant transformer_block_cuda = {
    .size = sizeof(harness_variant),
    .key = "transformer_block/cuda",
    .family = "transformer_block",
    .device = "cuda",
    .summary = "Llama decoder block forward on an NVIDIA GPU: cuBLASLt GEMMs (QKV and gate/up fused, residuals in "
               "their epilogue), rms_norm/cuda, RoPE fused into the QKV split, attention/cuda, SwiGLU",
    .params = tb_params,
    .n_params = sizeof tb_params / sizeof tb_params[0],
    .create = tbc_create,
    .validate = tbc_validate,
    .step = tbc_step,
    .step_cost = tbc_cost,
    .check = tbc_check,
    .destroy = tbc_destroy,
};

HARNESS_PLUGIN_INIT(transformer_block_cuda, svc, ctx)
{
    return svc->register_variant(ctx, &transformer_block_cuda);
}
