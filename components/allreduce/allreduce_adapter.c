/* allreduce/cpu and allreduce/cuda: one all-reduce (sum) of `bytes` per
 * step through the harness's collectives, of host buffers (MPI between
 * ranks; a copy in a job of one) or of device buffers (NCCL, CUDA builds),
 * in place or out of place. As nccl-tests does, every run checks the result:
 * rank r contributes (r + 1) x ((i mod 7) + 1) at element i, so the sum is
 * exact in every dtype offered for up to a few hundred ranks, and any wrong
 * element is counted (#wrong). The throughput it reports is algbw (bytes
 * per step over time); the summaries' communication table adds busbw. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <harness/plugin.h>

#include "common/bf16.h"

typedef struct allreduce_state {
    size_t bytes, count, elem;
    harness_dtype dtype;
    int in_place;
    int device;                    /* allreduce/cuda: send and recv are device memory */
    void *send, *recv;
    void *stage;                   /* allreduce/cuda: the host copy the check writes and reads */
} allreduce_state;

static const char *const dtypes[] = {"fp32", "bf16", "fp64", "int32", NULL};

static const harness_param params[] = {
    HARNESS_INT_PARAM_MIN("bytes", "1048576", 8, "size of the buffer each rank reduces (a whole number of elements)"),
    HARNESS_ENUM_PARAM("dtype", "fp32", dtypes, "element type; bf16 is reduced in fp32 and rounded"),
    HARNESS_BOOL_PARAM("in_place", "false", "reduce into the input buffer (send == recv)"),
};

static harness_dtype dtype_of(const char *name, size_t *elem)
{
    static const struct { const char *name; harness_dtype dtype; size_t elem; } table[] = {
        {"fp32", HARNESS_DTYPE_F32, 4}, {"bf16", HARNESS_DTYPE_BF16, 2},
        {"fp64", HARNESS_DTYPE_F64, 8}, {"int32", HARNESS_DTYPE_I32, 4}};
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(name, table[i].name) == 0) {
            *elem = table[i].elem;
            return table[i].dtype;
        }
    *elem = 4;
    return HARNESS_DTYPE_F32;
}

static int ar_validate(harness_ctx *ctx)
{
    size_t elem;
    dtype_of(harness_host->param_string(ctx, "dtype"), &elem);
    int64_t bytes = harness_host->param_int(ctx, "bytes");
    if (bytes % (int64_t)elem != 0)
        return harness_host->fail(ctx, "bytes %lld is not a whole number of %zu-byte %s elements", (long long)bytes,
                                  elem, harness_host->param_string(ctx, "dtype"));
    return 0;
}

static void ar_destroy(harness_ctx *ctx, void *state)
{
    allreduce_state *s = state;
    if (!s)
        return;
    void (*release)(harness_ctx *, void *) = s->device ? harness_host->device_free : harness_host->free;
    if (s->send)
        release(ctx, s->send);
    if (s->recv)
        release(ctx, s->recv);
    if (s->stage)
        harness_host->free(ctx, s->stage);
    harness_host->free(ctx, s);
}

static int create(harness_ctx *ctx, void **state, int device)
{
    allreduce_state *s = harness_host->alloc(ctx, sizeof *s, "allreduce state");
    if (!s)
        return -1;
    memset(s, 0, sizeof *s);
    *state = s;
    s->device = device;
    s->dtype = dtype_of(harness_host->param_string(ctx, "dtype"), &s->elem);
    s->bytes = (size_t)harness_host->param_int(ctx, "bytes");
    s->count = s->bytes / s->elem;
    s->in_place = harness_host->param_bool(ctx, "in_place");
    if (!device) {
        s->recv = harness_host->alloc(ctx, s->bytes, "recv");
        s->send = s->in_place ? NULL : harness_host->alloc(ctx, s->bytes, "send");
        if (!s->recv || (!s->in_place && !s->send))
            return -1;
        memset(s->recv, 0, s->bytes);
        if (s->send)
            memset(s->send, 0, s->bytes);
        return 0;
    }
    s->stage = harness_host->alloc(ctx, s->bytes, "host copy for the check");
    s->recv = harness_host->device_alloc(ctx, s->bytes, "recv");
    s->send = s->in_place ? NULL : harness_host->device_alloc(ctx, s->bytes, "send");
    if (!s->stage || !s->recv || (!s->in_place && !s->send))
        return -1;
    memset(s->stage, 0, s->bytes);
    if (harness_host->copy_to_device(ctx, s->recv, s->stage, s->bytes) != 0 ||
        (s->send && harness_host->copy_to_device(ctx, s->send, s->stage, s->bytes) != 0))
        return -1;
    return 0;
}

static int ar_create_cpu(harness_ctx *ctx, void **state)
{
    return create(ctx, state, 0);
}

static int ar_create_cuda(harness_ctx *ctx, void **state)
{
    return create(ctx, state, 1);
}

static int ar_step(harness_ctx *ctx, void *state)
{
    allreduce_state *s = state;
    return harness_host->all_reduce(ctx, s->in_place ? s->recv : s->send, s->recv, s->count, s->dtype,
                                    HARNESS_REDUCE_SUM);
}

static int ar_cost(harness_ctx *ctx, void *state, harness_cost *out)
{
    const allreduce_state *s = state;
    /* Per step: algbw, as nccl-tests defines it; but in place in a world of
     * one there is nothing to move (NCCL and MPI return at once), and a
     * figure of S bytes in no time is above any peak. */
    int alone_in_place = s->in_place && harness_host->world_size(ctx) == 1;
    out->bytes = alone_in_place ? 0 : (double)s->bytes;
    out->flops = 0;
    return 0;
}

/* Rank r's element i, and the sum over n ranks. */
static double contribution(int rank, size_t i)
{
    return (double)(rank + 1) * (double)(i % 7 + 1);
}

static void put(const allreduce_state *s, void *buf, size_t i, double v)
{
    switch (s->dtype) {
    case HARNESS_DTYPE_F64: ((double *)buf)[i] = v; break;
    case HARNESS_DTYPE_I32: ((int32_t *)buf)[i] = (int32_t)v; break;
    case HARNESS_DTYPE_BF16: ((uint16_t *)buf)[i] = f32_to_bf16((float)v); break;
    default: ((float *)buf)[i] = (float)v; break;
    }
}

static double get(const allreduce_state *s, const void *buf, size_t i)
{
    switch (s->dtype) {
    case HARNESS_DTYPE_F64: return ((const double *)buf)[i];
    case HARNESS_DTYPE_I32: return ((const int32_t *)buf)[i];
    case HARNESS_DTYPE_BF16: return bf16_to_f32(((const uint16_t *)buf)[i]);
    default: return ((const float *)buf)[i];
    }
}

static int ar_check(harness_ctx *ctx, void *state, harness_check *out)
{
    allreduce_state *s = state;
    int rank = harness_host->rank(ctx), n = harness_host->world_size(ctx);
    void *input = s->in_place ? s->recv : s->send;
    void *host_input = s->device ? s->stage : input;
    for (size_t i = 0; i < s->count; i++)
        put(s, host_input, i, contribution(rank, i));
    if (s->device && harness_host->copy_to_device(ctx, input, s->stage, s->bytes) != 0)
        return -1;
    if (ar_step(ctx, s) != 0)
        return -1;
    const void *result = s->recv;
    if (s->device) {
        if (harness_host->copy_to_host(ctx, s->stage, s->recv, s->bytes) != 0)
            return -1;
        result = s->stage;
    }
    uint64_t wrong = 0;
    size_t first_bad = 0;
    double ranks_sum = (double)n * (n + 1) / 2.0;
    for (size_t i = 0; i < s->count; i++) {
        double want = ranks_sum * (double)(i % 7 + 1), got = get(s, result, i);
        if (got != want && wrong++ == 0)
            first_bad = i;
    }
    out->checked = s->count;
    out->mismatches = wrong;
    out->passed = wrong == 0;
    out->tolerance = 0;
    if (wrong)
        snprintf(out->detail, sizeof out->detail, "#wrong %llu of %zu; first at element %zu",
                 (unsigned long long)wrong, s->count, first_bad);
    else
        snprintf(out->detail, sizeof out->detail, "#wrong 0: the sum over %d rank%s is exact", n, n == 1 ? "" : "s");
    return 0;
}

static const harness_variant allreduce_cpu = {
    .size = sizeof(harness_variant), .key = "allreduce/cpu", .family = "allreduce", .device = "cpu",
    .summary = "all-reduce (sum) of a host buffer among the ranks (MPI), checked exactly",
    .params = params, .n_params = sizeof params / sizeof params[0],
    .create = ar_create_cpu, .step = ar_step, .step_cost = ar_cost, .check = ar_check, .destroy = ar_destroy,
    .validate = ar_validate,
};

#ifdef HAVE_CUDA
/* Registered in CUDA builds; the collective itself needs NCCL in the build,
 * and its first call says so when it is missing. */
static const harness_variant allreduce_cuda = {
    .size = sizeof(harness_variant), .key = "allreduce/cuda", .family = "allreduce", .device = "cuda",
    .summary = "all-reduce (sum) of a device buffer among the ranks (NCCL), checked exactly",
    .params = params, .n_params = sizeof params / sizeof params[0],
    .create = ar_create_cuda, .step = ar_step, .step_cost = ar_cost, .check = ar_check, .destroy = ar_destroy,
    .validate = ar_validate,
};
#endif

HARNESS_PLUGIN_INIT(allreduce, svc, ctx)
{
    int rc = svc->register_variant(ctx, &allreduce_cpu);
#ifdef HAVE_CUDA
    if (rc == 0)
        rc = svc->register_variant(ctx, &allreduce_cuda);
#endif
    return rc;
}
