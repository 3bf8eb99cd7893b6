/* attention_cpu_adapter.c - attention/cpu (plugins/attention.la): the
 * flash-style kernels of attention_cpu.c behind the harness ABI; parameters,
 * cost and check shared with attention/cuda (attention_adapter.h). */
#include "attention_adapter.h"

#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct att_state {
    attention_config cfg;          /* first: attention_step_cost reads it; fp32 or bf16 here */
    void *q, *k, *v, *o, *workspace;
} att_state;

static const char *const dtypes[] = {"fp32", "bf16", NULL};
/* The kernels' instruction sets (attention_set_isa's names). */
static const char *const isas[] = {"auto", "amx", "avx512_bf16", "avx512", "avx2", "portable", NULL};
static const harness_param params[] = ATTENTION_PARAMS(
    dtypes,
    "type of q, k, v and o; bf16 accumulates in fp32 and rounds outputs to nearest even (on the amx and "
    "avx512_bf16 paths its products are bf16 dot products, the softmax weights rounded to bf16 for P V)",
    HARNESS_ENUM_PARAM("isa", "auto", isas,
                       "the kernels' instruction set: auto (the best this CPU has; the environment variable "
                       "HARNESS_CPU_ISA overrides auto), or one forced, an error where the CPU lacks it"));

static void release(harness_ctx *ctx, att_state *s)
{
    void *bufs[] = {s->q, s->k, s->v, s->o, s->workspace};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i])
            harness_host->free(ctx, bufs[i]);
    free(s);
}

/* The `isa` parameter, else HARNESS_CPU_ISA, else the best this CPU has
 * (the choice is the process's: the kernels' dispatch is global). A path the
 * CPU lacks is a config error that names where it was asked for. */
static int choose_isa(harness_ctx *ctx)
{
    const char *isa = harness_host->param_string(ctx, "isa"), *from = "isa";
    const char *env = getenv("HARNESS_CPU_ISA");
    if (strcmp(isa, "auto") == 0 && env && *env)
        isa = env, from = "HARNESS_CPU_ISA (environment)";
    if (attention_set_isa(isa) != 0)
        return harness_host->fail(ctx, "%s: %s is not an instruction set this CPU (or its kernel) offers the "
                                  "attention kernels; choose auto, or one of amx, avx512_bf16, avx512, avx2, "
                                  "portable that it has", from, isa);
    return 0;
}

/* The shared parameters (attention_adapter.h), the instruction set, plus the
 * CPU kernels' workspace, which must be computable. */
static int read_params(harness_ctx *ctx, attention_config *c)
{
    if (attention_read_config(ctx, c) != 0 || choose_isa(ctx) != 0)
        return -1;
    if (attention_workspace_bytes(&c->shape, omp_get_max_threads()) == SIZE_MAX)
        return harness_host->fail(ctx, "head_dim (%zu): the kernels' per-thread workspace overflows size_t",
                                  c->shape.head_dim);
    return 0;
}

static int att_validate(harness_ctx *ctx)
{
    attention_config c;
    return read_params(ctx, &c);
}

static int att_create(harness_ctx *ctx, void **state)
{
    att_state *s = calloc(1, sizeof *s);
    if (!s)
        return harness_host->fail(ctx, "out of memory for the instance state");
    if (read_params(ctx, &s->cfg) != 0) {
        release(ctx, s);
        return -1;
    }
    const attention_config *c = &s->cfg;
    size_t q_bytes = c->q_bytes, kv_bytes = c->kv_bytes;
    size_t ws = attention_workspace_bytes(&c->shape, omp_get_max_threads());
    s->q = harness_host->alloc(ctx, q_bytes, "q");
    s->k = s->q ? harness_host->alloc(ctx, kv_bytes, "k") : NULL;
    s->v = s->k ? harness_host->alloc(ctx, kv_bytes, "v") : NULL;
    s->o = s->v ? harness_host->alloc(ctx, q_bytes, "o") : NULL;
    s->workspace = s->o ? harness_host->alloc(ctx, ws, "workspace") : NULL;
    if (!s->workspace) {
        release(ctx, s);
        return harness_host->fail(ctx, "cannot allocate q, k, v, o and the workspace (2 x %zu + 2 x %zu + %zu bytes)",
                                  q_bytes, kv_bytes, ws);
    }
    harness_dtype dt = c->dtype == ATTENTION_BF16 ? HARNESS_DTYPE_BF16 : HARNESS_DTYPE_F32;
    /* q, k and v are what a step reads afresh, o what it writes (the checks after timing). */
    if (harness_host->input(ctx, s->q, c->q_elems, dt) != 0 || harness_host->input(ctx, s->k, c->kv_elems, dt) != 0 ||
        harness_host->input(ctx, s->v, c->kv_elems, dt) != 0 || harness_host->output(ctx, s->o, c->q_elems, dt) != 0) {
        release(ctx, s);
        return -1;      /* fill recorded why */
    }
    const attention_shape *z = &c->shape;
    const char *isa = attention_isa_for(z, c->dtype);
    if (HARNESS_HAS_SERVICE(harness_host, note))
        harness_host->note(ctx, "isa", isa);
    harness_host->log(ctx, HARNESS_LOG_DEBUG, "%s kernels, batch %zu, heads %zu/%zu, seq %zu/%zu, head_dim %zu, %s%s",
                      isa, z->batch, z->heads, z->kv_heads, z->seq_q, z->seq_k, z->head_dim,
                      attention_dtype_name(c->dtype), z->causal ? ", causal" : "");
    *state = s;
    return 0;
}

static int att_step(harness_ctx *ctx, void *state)
{
    (void)ctx;
    att_state *s = state;
    if (s->cfg.dtype == ATTENTION_BF16)
        attention_bf16(&s->cfg.shape, s->q, s->k, s->v, s->o, s->workspace);
    else
        attention_f32(&s->cfg.shape, s->q, s->k, s->v, s->o, s->workspace);
    return 0;
}

static int att_check(harness_ctx *ctx, void *state, harness_check *out)
{
    att_state *s = state;
    if (att_step(ctx, s) != 0)
        return -1;
    return attention_check_output(ctx, "attention/cpu", &s->cfg, s->q, s->k, s->v, s->o, out);
}

static void att_destroy(harness_ctx *ctx, void *state)
{
    if (state)
        release(ctx, state);
}

static const harness_variant attention_cpu = {
    .size = sizeof(harness_variant),
    .key = "attention/cpu",
    .family = "attention",
    .device = "cpu",
    .summary = "scaled-dot-product attention forward, softmax(Q K^T scale [+ causal]) V, flash-style "
               "(AMX or AVX-512 BF16 dot products for bf16, AVX-512, AVX2 or C tiles; OpenMP over batch, head "
               "and query tile)",
    .params = params,
    .n_params = sizeof params / sizeof params[0],
    .create = att_create,
    .validate = att_validate,
    .step = att_step,
    .step_cost = attention_step_cost,
    .check = att_check,
    .destroy = att_destroy,
};

HARNESS_PLUGIN_INIT(attention, svc, ctx)
{
    return svc->register_variant(ctx, &attention_cpu);
}
