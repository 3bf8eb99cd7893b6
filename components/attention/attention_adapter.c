/* The adapters' shared part (attention_adapter.h). */
#include "attention_adapter.h"

#include <math.h>
#include <string.h>

#include "common/check_verdict.h"

/* Reference work the check may spend, in multiply-adds: about a second on
 * two cores here. */
#define CHECK_BUDGET 1.5e9

/* a * b * c * d, or nonzero when that overflows size_t. */
static int attention_mul4(size_t a, size_t b, size_t c, size_t d, size_t *out)
{
    return __builtin_mul_overflow(a, b, out) || __builtin_mul_overflow(*out, c, out) ||
           __builtin_mul_overflow(*out, d, out);
}

int attention_read_config(harness_ctx *ctx, attention_config *c)
{
    const harness_services *H = harness_host;
    memset(c, 0, sizeof *c);
    size_t batch = (size_t)H->param_int(ctx, "batch_size"), heads = (size_t)H->param_int(ctx, "num_heads");
    size_t kv = (size_t)H->param_int(ctx, "num_kv_heads"), seq = (size_t)H->param_int(ctx, "seq_len");
    size_t kv_seq = (size_t)H->param_int(ctx, "kv_seq_len"), d = (size_t)H->param_int(ctx, "head_dim");
    double scale = H->param_float(ctx, "scale");
    const char *dt = H->param_string(ctx, "dtype");
    attention_dtype dtype = strcmp(dt, "bf16") == 0 ? ATTENTION_BF16
                            : strcmp(dt, "fp16") == 0 ? ATTENTION_F16 : ATTENTION_F32;
    if (kv == 0)
        kv = heads;
    if (kv_seq == 0)
        kv_seq = seq;
    if (heads % kv != 0)
        return H->fail(ctx, "num_heads (%zu) must be a multiple of num_kv_heads (%zu): each key/value head "
                            "serves num_heads / num_kv_heads query heads; pick a divisor of %zu, or 0 for %zu",
                       heads, kv, heads, heads);

    size_t elem = dtype == ATTENTION_F32 ? sizeof(float) : sizeof(uint16_t);
    if (attention_mul4(batch, seq, heads, d, &c->q_elems) || attention_mul4(batch, kv_seq, kv, d, &c->kv_elems) ||
        __builtin_mul_overflow(c->q_elems, elem, &c->q_bytes) ||
        __builtin_mul_overflow(c->kv_elems, elem, &c->kv_bytes))
        return H->fail(ctx, "batch_size, seq_len, kv_seq_len, num_heads, num_kv_heads, head_dim: "
                            "%zu x %zu (or %zu) x %zu (or %zu) x %zu elements overflow size_t; "
                            "choose smaller sizes",
                       batch, seq, kv_seq, heads, kv, d);
    c->shape = (attention_shape){batch, heads, kv, seq, kv_seq, d, H->param_bool(ctx, "causal"),
                                 (float)(scale > 0 ? scale : 1.0 / sqrt((double)d))};
    c->dtype = dtype, c->elem = elem;
    return 0;
}

/* FLOPs: 4 x head_dim per visible (query, key) pair and head, the causal mask
 * counted exactly. Bytes: q, k, v read once and o written once; the CPU
 * kernels read k and v once per query tile, but from cache (a head's keys and
 * values are 2 x kv_seq_len x head_dim x 4 bytes, 1 MiB at 1024 x 128), a
 * CUDA block re-reads K and V tiles, from L2 mostly: not counted. The same
 * useful work for attention/cublas, whose extra (masked scores computed
 * anyway, S and P through memory) is its cost. */
int attention_step_cost(harness_ctx *ctx, void *state, harness_cost *out)
{
    (void)ctx;
    const attention_config *c = state;
    out->flops = attention_flops(&c->shape);
    out->bytes = (2.0 * (double)c->q_elems + 2.0 * (double)c->kv_elems) * (double)c->elem;
    return 0;
}

int attention_check_output(harness_ctx *ctx, const char *who, const attention_config *c, const void *q,
                           const void *k, const void *v, const void *o, harness_check *out)
{
    attention_check_result r;
    if (attention_check(&c->shape, q, k, v, o, c->dtype, CHECK_BUDGET, &r) != 0)
        return harness_host->fail(ctx, "%s: %s", who, r.detail);
    COPY_CHECK_VERDICT(out, r);
    return 0;
}
