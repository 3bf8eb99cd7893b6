/* transformer_block_cpu_adapter.c - plugins/transformer_block.la: registers
 * transformer_block/cpu, the Llama decoder block of
 * components/transformer_block behind the harness ABI.
 *
 * Data, generated once at create time: x from the data generator as is; each
 * projection weight from the generator, then scaled by 1/sqrt(fan_in) (its
 * in_features), the usual initialisation, so that every projection keeps the
 * activations' scale. Unscaled std-1 weights would grow them by sqrt(fan_in)
 * per projection (y ~ 5e4 at the default shape) and push attention scores to
 * ~1e4, turning every softmax row one-hot: nothing like a model. RMSNorm
 * weights are 1 + generator / 10: near one, as in a trained model, yet not all
 * equal, so a kernel that ignored them would fail the check.
 *
 * dtype bf16: x, y and the weights are stored in bf16 (tags "x", "y", "wq",
 * ...). On a CPU with AVX-512 BF16 (transformer_block_bf16_choose; forced
 * with HARNESS_CPU_ISA) create packs the GEMM weights once into the dot
 * kernel's order ("weights_bf16_packed", 2 bytes per parameter) and the
 * step runs bf16 GEMMs; elsewhere, or forced, or with tensor_parallel, it
 * converts all weights once into one packed fp32 copy ("weights_fp32")
 * that the fp32 sgemm step reads. The path is logged and in the summary.
 * The reference reads the bf16 weights themselves, so the check covers the
 * packing and the conversion.
 *
 * tensor_parallel: true splits the block over the job's ranks as Megatron-LM
 * does (components/transformer_block/transformer_block.h): every rank
 * generates the whole weights from the same seed, keeps its slices
 * ("tp_weights", fp32) for the step, and all-reduces twice per step through
 * the harness's collectives. The check holds the gathered y to the
 * single-rank reference, so it proves the split equals the whole block. */
#include <harness/plugin.h>

#include "common/check_verdict.h"
#include "transformer_block_adapter.h"
#include "transformer_block_bf16_setup.h"

#include "transformer_block/transformer_block.h"
#include "common/bf16.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


typedef struct tb_state {
    transformer_block block;
    transformer_block_sizes sizes;
    void *x, *y;
    void *w[TB_N_WEIGHTS];         /* as stored, in dtype */
    float *w32;                    /* bf16 only: packed fp32 copy of all weights */
    float *tp_w;                   /* tensor_parallel: this rank's slices, packed fp32 */
    uint16_t *wp;                  /* bf16 on the dot unit: the packed GEMM weights */
    void *scratch16;               /* and its bf16 scratch */
    const char *path;              /* bf16: "avx512_bf16" or "fp32" */
    void *buf[TB_N_BUFS];
} tb_state;

/* Bounds the check's double reference: it runs at ~3 GFLOP/s per core on
 * this project's 2-core test machine, so 12 GFLOP is ~2 s there, which
 * covers every token of configs/transformer_block.yaml (6 GFLOP); larger
 * shapes check a subset of tokens (see transformer_block_check). */
#define CHECK_REF_FLOPS 12e9

static int tp_all_reduce(void *user, float *buf, size_t n)
{
    return harness_host->all_reduce(user, buf, buf, n, HARNESS_DTYPE_F32, HARNESS_REDUCE_SUM);
}

/* tensor_parallel: this rank's slices of the fp32 weights into one tracked
 * buffer, and the block pointed at them. */
static int setup_tensor_parallel(harness_ctx *ctx, tb_state *s)
{
    const transformer_block_shape *sh = &s->block.shape;
    int n = harness_host->world_size(ctx), r = harness_host->rank(ctx);
    if (tb_check_tensor_parallel(ctx, sh, n) != 0)
        return -1;
    size_t total = 0;
    for (int i = 0; i < TB_N_WEIGHTS; i++)
        total += transformer_block_tp_slice_elems(sh, i, n);
    if (!(s->tp_w = harness_host->alloc(ctx, total * sizeof(float), "tp_weights")))
        return -1;
    float *at = s->tp_w;
    for (int i = 0; i < TB_N_WEIGHTS; i++) {
        transformer_block_tp_slice(sh, i, r, n, sizeof(float), s->block.w[i], at);
        s->block.w[i] = at;
        at += transformer_block_tp_slice_elems(sh, i, n);
    }
    s->block.tp_rank = r;
    s->block.tp_size = n;
    s->block.all_reduce = tp_all_reduce;
    return 0;
}

static void release(harness_ctx *ctx, tb_state *s)
{
    void **all[] = {&s->x, &s->y, (void **)&s->w32, (void **)&s->tp_w, (void **)&s->wp, &s->scratch16};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (*all[i])
            harness_host->free(ctx, *all[i]);
    for (int i = 0; i < TB_N_WEIGHTS; i++)
        if (s->w[i])
            harness_host->free(ctx, s->w[i]);
    for (int i = 0; i < TB_N_BUFS; i++)
        if (s->buf[i])
            harness_host->free(ctx, s->buf[i]);
    free(s);
}

static void region_push(void *user, const char *name)
{
    harness_host->region_push(user, name);
}

static void region_pop(void *user)
{
    harness_host->region_pop(user);
}

static int tb_validate(harness_ctx *ctx)
{
    transformer_block_shape sh;
    transformer_block_sizes sizes;
    size_t weights;
    int bf16;
    if (tb_read_shape(ctx, harness_host->num_threads(ctx), &sh, &bf16, &sizes, &weights) != 0)
        return -1;
    return tb_check_isa(ctx, bf16);
}

static int tb_create(harness_ctx *ctx, void **state)
{
    transformer_block_shape sh;
    size_t total;
    int bf16;
    tb_state *s = calloc(1, sizeof *s);
    if (!s)
        return harness_host->fail(ctx, "out of memory for the instance state");
    if (tb_read_shape(ctx, harness_host->num_threads(ctx), &sh, &bf16, &s->sizes, &total) != 0) {
        free(s);
        return -1;
    }
    s->block.shape = sh;
    s->block.dtype = bf16 ? TB_BF16 : TB_F32;
    size_t elem = bf16 ? sizeof(uint16_t) : sizeof(float);
    int threads = harness_host->num_threads(ctx);

    /* Any allocation failure has recorded its message (tag and size). */
    const harness_services *H = harness_host;
    int ok = (s->x = H->alloc(ctx, s->sizes.x_bytes, "x")) && (s->y = H->alloc(ctx, s->sizes.x_bytes, "y"));
    for (int i = 0; ok && i < TB_N_WEIGHTS; i++)
        ok = (s->w[i] = H->alloc(ctx, s->sizes.weight_elems[i] * elem, transformer_block_weight_names[i])) != NULL;
    int dot = bf16 ? tb_bf16_path(ctx, &sh, &s->path) : 0;
    if (dot >= 0 && tb_force_isa(ctx) != 0)
        dot = -1;
    if (dot < 0) {
        release(ctx, s);
        return -1;                 /* tb_bf16_path or tb_force_isa recorded why */
    }
    if (ok && dot)
        ok = tb_alloc_packed(ctx, &sh, &s->wp, &s->scratch16, &s->w32);
    else if (ok && bf16)
        ok = (s->w32 = harness_host->alloc(ctx, total * sizeof(float), "weights_fp32")) != NULL;
    for (int i = 0; ok && i < TB_N_BUFS; i++)
        if (s->sizes.buf_bytes[i] > 0)
            ok = (s->buf[i] = harness_host->alloc(ctx, s->sizes.buf_bytes[i], transformer_block_buf_names[i])) != NULL;
    if (!ok) {
        release(ctx, s);
        return -1;
    }

    /* x is what a step reads afresh and y what it writes (the checks after
     * timing); the weights are filled, since create packs them. */
    harness_dtype act = bf16 ? HARNESS_DTYPE_BF16 : HARNESS_DTYPE_F32;
    ok = harness_host->input(ctx, s->x, s->sizes.tokens * sh.hidden, act) == 0 &&
         harness_host->output(ctx, s->y, s->sizes.tokens * sh.hidden, act) == 0;
    for (int i = 0; ok && i < TB_N_WEIGHTS; i++)
        ok = tb_fill_weight(ctx, &sh, i, bf16, s->w[i], s->sizes.weight_elems[i]) == 0;
    if (!ok) {
        release(ctx, s);
        return -1;      /* fill recorded why */
    }
    float *packed = s->w32;
    if (dot)
        tb_pack_weights(&sh, s->w, s->wp, s->w32, &s->block);
    for (int i = 0; !dot && i < TB_N_WEIGHTS; i++) {
        if (bf16) {
            transformer_block_bf16_to_f32(s->w[i], packed, s->sizes.weight_elems[i]);
            s->block.w[i] = packed;
            packed += s->sizes.weight_elems[i];
        } else {
            s->block.w[i] = s->w[i];
        }
    }
    if (harness_host->param_bool(ctx, "tensor_parallel") && harness_host->world_size(ctx) > 1 &&
        setup_tensor_parallel(ctx, s) != 0) {
        release(ctx, s);
        return -1;
    }
    memcpy(s->block.buf, s->buf, sizeof s->buf);
    s->block.scratch16 = s->scratch16;
    tb_note_isa(ctx, bf16 ? s->path : "fp32", &sh, s->sizes.head_dim, dot);
    s->block.x = s->x;
    s->block.y = s->y;
    s->block.regions = (transformer_block_regions){region_push, region_pop, NULL};
    transformer_block_rope_table(&sh, s->buf[TB_BUF_ROPE]);
    transformer_block_blas_setup();
    harness_host->log(ctx, HARNESS_LOG_DEBUG, "%zu tokens, hidden %zu, %zu/%zu heads of %zu, intermediate %zu, %s; "
                      "%d OpenMP threads, each GEMM split among them", s->sizes.tokens, sh.hidden, sh.heads,
                      sh.kv_heads, s->sizes.head_dim, sh.intermediate, bf16 ? "bf16" : "fp32", threads);
    *state = s;
    return 0;
}

static int tb_step(harness_ctx *ctx, void *state)
{
    tb_state *s = state;
    s->block.regions.user = ctx;
    s->block.comm_user = ctx;
    return transformer_block_forward(&s->block) == 0 ? 0 : -1;   /* the all-reduce recorded why */
}

/* tb_cost_of's figures; the weights the GEMMs read: bf16 on the dot unit
 * (packed once), fp32 otherwise (in bf16 mode the fp32 copy); a
 * tensor-parallel rank's its share. */
static int tb_cost(harness_ctx *ctx, void *state, harness_cost *out)
{
    (void)ctx;
    const tb_state *s = state;
    double weights = 0.0;
    for (int i = 0; i < TB_N_WEIGHTS; i++)
        weights += (double)s->sizes.weight_elems[i];
    double share = s->block.tp_size > 1 ? 1.0 / s->block.tp_size : 1.0;
    double per_weight = s->wp ? sizeof(uint16_t) : sizeof(float);   /* what the step's GEMMs read */
    tb_cost_of(&s->block.shape, s->block.tp_size, weights * per_weight * share, s->sizes.x_bytes, out);
    return 0;
}

static int tb_check(harness_ctx *ctx, void *state, harness_check *out)
{
    tb_state *s = state;
    if (tb_step(ctx, s) != 0)
        return -1;
    transformer_block_check_result r;
    const void *const *w = (const void *const *)s->w;
    int rc = s->wp ? transformer_block_check_tol(&s->block.shape, s->block.dtype, s->x, w, s->y, CHECK_REF_FLOPS,
                                                 transformer_block_fp32_tol(&s->block.shape) + 0x1p-8,
                                                 transformer_block_bf16_tol_atol(&s->block.shape), &r)
                   : transformer_block_check(&s->block.shape, s->block.dtype, s->x, w, s->y, CHECK_REF_FLOPS, &r);
    if (rc != 0)
        return harness_host->fail(ctx, "%s", r.detail);
    COPY_CHECK_VERDICT(out, r);
    return 0;
}

static void tb_destroy(harness_ctx *ctx, void *state)
{
    if (state)
        release(ctx, state);
}

static const harness_variant transformer_block_cpu = {
    .size = sizeof(harness_variant),
    .key = "transformer_block/cpu",
    .family = "transformer_block",
    .device = "cpu",
    .summary = "Llama decoder block forward: RMSNorm, GQA attention with RoPE, SwiGLU MLP "
               "(fp32: OpenBLAS sgemm; bf16: vdpbf16ps GEMMs where the CPU has AVX-512 BF16; OpenMP)",
    .params = tb_params,
    .n_params = sizeof tb_params / sizeof tb_params[0],
    .create = tb_create,
    .step = tb_step,
    .step_cost = tb_cost,
    .check = tb_check,
    .destroy = tb_destroy,
    .validate = tb_validate,
};

HARNESS_PLUGIN_INIT(transformer_block, svc, ctx)
{
    return svc->register_variant(ctx, &transformer_block_cpu);
}
