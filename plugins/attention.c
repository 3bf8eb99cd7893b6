/* attention.c - the attention plugin: registers attention/cpu, the flash-style
 * kernels of components/attention behind the harness ABI. */
#include <harness/plugin.h>

#include "check_verdict.h"

#include "attention/attention.h"
#include "attention_params.h"

#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Reference work the check may spend, in multiply-adds: about a second on
 * two cores here. Larger shapes check an evenly spread subset of their
 * (batch, head) pairs, and harness_check.detail says how many. */
#define CHECK_BUDGET 1.5e9

typedef struct att_state {
    attention_shape shape;
    attention_dtype dtype;         /* fp32 or bf16: the schema offers no other */
    size_t elem, q_elems, kv_elems;
    void *q, *k, *v, *o, *workspace;
} att_state;

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

/* The shared parameters (attention_params.h), the instruction set, plus the
 * CPU kernels' workspace, which must be computable. */
static int read_params(harness_ctx *ctx, att_state *s, size_t *q_bytes, size_t *kv_bytes)
{
    attention_config c;
    if (attention_read_config(ctx, &c) != 0)
        return -1;
    s->shape = c.shape;
    s->dtype = c.dtype, s->elem = c.elem, s->q_elems = c.q_elems, s->kv_elems = c.kv_elems;
    *q_bytes = c.q_bytes, *kv_bytes = c.kv_bytes;
    if (choose_isa(ctx) != 0)
        return -1;
    if (attention_workspace_bytes(&s->shape, omp_get_max_threads()) == SIZE_MAX)
        return harness_host->fail(ctx, "head_dim (%zu): the kernels' per-thread workspace overflows size_t",
                                  c.shape.head_dim);
    return 0;
}

static int att_validate(harness_ctx *ctx)
{
    att_state s;
    size_t q_bytes, kv_bytes;
    return read_params(ctx, &s, &q_bytes, &kv_bytes);
}

static int att_create(harness_ctx *ctx, void **state)
{
    att_state *s = calloc(1, sizeof *s);
    if (!s)
        return harness_host->fail(ctx, "out of memory for the instance state");
    size_t q_bytes, kv_bytes;
    if (read_params(ctx, s, &q_bytes, &kv_bytes) != 0) {
        release(ctx, s);
        return -1;
    }
    size_t ws = attention_workspace_bytes(&s->shape, omp_get_max_threads());
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
    harness_dtype dt = s->dtype == ATTENTION_BF16 ? HARNESS_DTYPE_BF16 : HARNESS_DTYPE_F32;
    if (harness_host->fill(ctx, s->q, s->q_elems, dt) != 0 || harness_host->fill(ctx, s->k, s->kv_elems, dt) != 0 ||
                   harness_host->fill(ctx, s->v, s->kv_elems, dt) != 0) {
        release(ctx, s);
        return -1;      /* fill recorded why */
    }
    const attention_shape *z = &s->shape;
    const char *isa = attention_isa_for(&s->shape, s->dtype);
    if (HARNESS_HAS_SERVICE(harness_host, note))
        harness_host->note(ctx, "isa", isa);
    harness_host->log(ctx, HARNESS_LOG_DEBUG, "%s kernels, batch %zu, heads %zu/%zu, seq %zu/%zu, head_dim %zu, %s%s",
                      isa, z->batch, z->heads, z->kv_heads, z->seq_q, z->seq_k, z->head_dim,
                      attention_dtype_name(s->dtype), z->causal ? ", causal" : "");
    *state = s;
    return 0;
}

static int att_step(harness_ctx *ctx, void *state)
{
    (void)ctx;
    att_state *s = state;
    if (s->dtype == ATTENTION_BF16)
        attention_bf16(&s->shape, s->q, s->k, s->v, s->o, s->workspace);
    else
        attention_f32(&s->shape, s->q, s->k, s->v, s->o, s->workspace);
    return 0;
}

/* FLOPs: 4 x head_dim per visible (query, key) pair and head, the causal mask
 * counted exactly. Bytes: q, k, v read once and o written once; the kernels
 * read k and v once per query tile, but from cache (a head's keys and values
 * are 2 x kv_seq_len x head_dim x 4 bytes, 1 MiB at 1024 x 128). */
static void att_cost(void *state, harness_cost *out)
{
    const att_state *s = state;
    out->flops = attention_flops(&s->shape);
    out->bytes = (2.0 * (double)s->q_elems + 2.0 * (double)s->kv_elems) * (double)s->elem;
}

static int att_check(harness_ctx *ctx, void *state, harness_check *out)
{
    att_state *s = state;
    if (att_step(ctx, s) != 0)
        return -1;
    attention_check_result r;
    if (attention_check(&s->shape, s->q, s->k, s->v, s->o, s->dtype, CHECK_BUDGET, &r) != 0)
        return harness_host->fail(ctx, "%s", r.detail);
    COPY_CHECK_VERDICT(out, r);
    return 0;
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
    .params = attention_cpu_params,
    .n_params = sizeof attention_cpu_params / sizeof attention_cpu_params[0],
    .create = att_create,
    .validate = att_validate,
    .step = att_step,
    .cost = att_cost,
    .check = att_check,
    .destroy = att_destroy,
};

HARNESS_PLUGIN_INIT(attention, svc, ctx)
{
    return svc->register_variant(ctx, &attention_cpu);
}
