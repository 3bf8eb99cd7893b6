/* sendrecv/cpu and sendrecv/cuda: point-to-point bandwidth and latency
 * through the harness's send_recv (plugin ABI 2.5), of host buffers (MPI)
 * or, in CUDA builds, device buffers (NCCL). Each step every rank exchanges
 * `bytes` with one partner:
 *   - pairs: false (default): fixed partners, rank r with r xor 1 (a rank
 *     left over in an odd job idles; a job of one exchanges with itself);
 *   - pairs: true: every pair of ranks in turn, a round per step, by the
 *     circle method (n - 1 rounds of disjoint pairs for n ranks, n rounds
 *     with one idle rank each when n is odd), so that each pair is timed
 *     with no other traffic on its two ranks. The harness logs each call
 *     with its peer, and the job summary gives every pair's median and the
 *     slowest pair (summary.json "pairs", pairs.html).
 * The check runs every round once and verifies each element received. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <harness/plugin.h>

typedef struct sendrecv_state {
    size_t bytes, count;
    int pairs, device;
    uint64_t round;                /* steps so far: every rank counts the same */
    float *send, *recv;            /* device memory for sendrecv/cuda */
    float *stage;                  /* sendrecv/cuda: the host copy the check writes and reads */
} sendrecv_state;

static const harness_param params[] = {
    HARNESS_INT_PARAM_MIN("bytes", "1048576", 4, "bytes each rank sends (and receives) per step, a multiple of 4"),
    HARNESS_BOOL_PARAM("pairs", "false", "every pair of ranks in turn, one round per step (the pair matrix)"),
};

static int sr_validate(harness_ctx *ctx)
{
    int64_t bytes = harness_host->param_int(ctx, "bytes");
    if (bytes % 4 != 0)
        return harness_host->fail(ctx, "bytes %lld is not a whole number of 4-byte elements", (long long)bytes);
    return 0;
}

/* Rounds of the schedule: n - 1 for even n, n for odd (a "bye" rank m - 1
 * is added, and whoever meets it idles). */
static int rounds_of(int n, int pairs)
{
    if (!pairs || n < 2)
        return 1;
    return n % 2 ? n : n - 1;
}

/* Rank r's partner in round k, or -1 when it idles. The circle method:
 * with m = n rounded up to even, rank m - 1 meets k, and the others meet
 * the rank j with i + j = 2k (mod m - 1). */
static int partner(int r, int n, int pairs, int k)
{
    if (n == 1)
        return 0;
    if (!pairs)
        return (r ^ 1) < n ? r ^ 1 : -1;
    int m = n + n % 2, j;
    if (r == m - 1)
        j = k;
    else if (r == k)
        j = m - 1;
    else
        j = ((2 * k - r) % (m - 1) + (m - 1)) % (m - 1);
    return j < n ? j : -1;
}

static void sr_destroy(harness_ctx *ctx, void *state)
{
    sendrecv_state *s = state;
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
    if (!HARNESS_HAS_SERVICE(harness_host, send_recv))
        return harness_host->fail(ctx, "this harness has no send_recv (plugin ABI 2.5): update the harness");
    sendrecv_state *s = harness_host->alloc(ctx, sizeof *s, "sendrecv state");
    if (!s)
        return -1;
    memset(s, 0, sizeof *s);
    *state = s;
    s->device = device;
    s->bytes = (size_t)harness_host->param_int(ctx, "bytes");
    s->count = s->bytes / sizeof(float);
    s->pairs = harness_host->param_bool(ctx, "pairs");
    if (!device) {
        s->send = harness_host->alloc(ctx, s->bytes, "send");
        s->recv = harness_host->alloc(ctx, s->bytes, "recv");
        if (!s->send || !s->recv)
            return -1;
        memset(s->recv, 0, s->bytes);
        return harness_host->fill(ctx, s->send, s->count, HARNESS_DTYPE_F32);
    }
    s->stage = harness_host->alloc(ctx, s->bytes, "host copy for the check");
    s->send = harness_host->device_alloc(ctx, s->bytes, "send");
    s->recv = harness_host->device_alloc(ctx, s->bytes, "recv");
    if (!s->stage || !s->send || !s->recv)
        return -1;
    return harness_host->device_fill(ctx, s->send, s->count, HARNESS_DTYPE_F32);
}

static int sr_create_cpu(harness_ctx *ctx, void **state)
{
    return create(ctx, state, 0);
}

static int sr_step(harness_ctx *ctx, void *state)
{
    sendrecv_state *s = state;
    int n = harness_host->world_size(ctx), rounds = rounds_of(n, s->pairs);
    int peer = partner(harness_host->rank(ctx), n, s->pairs, (int)(s->round++ % (uint64_t)rounds));
    if (peer < 0)
        return 0;                  /* this rank's bye in this round */
    return harness_host->send_recv(ctx, s->send, s->recv, s->count, HARNESS_DTYPE_F32, peer);
}

static int sr_cost(harness_ctx *ctx, void *state, harness_cost *out)
{
    (void)ctx;
    const sendrecv_state *s = state;
    out->bytes = (double)s->bytes;     /* sent per step: algbw = busbw, as nccl-tests' sendrecv */
    out->flops = 0;
    return 0;
}

/* Rank r's element i: exact in fp32, different for every rank. */
static float value(int rank, size_t i)
{
    return (float)((rank + 1) * 8 + (int)(i % 7));
}

static int sr_check(harness_ctx *ctx, void *state, harness_check *out)
{
    sendrecv_state *s = state;
    int rank = harness_host->rank(ctx), n = harness_host->world_size(ctx), rounds = rounds_of(n, s->pairs);
    float *host_send = s->device ? s->stage : s->send;
    for (size_t i = 0; i < s->count; i++)
        host_send[i] = value(rank, i);
    if (s->device && harness_host->copy_to_device(ctx, s->send, s->stage, s->bytes) != 0)
        return -1;
    uint64_t wrong = 0;
    int bad_peer = -1;
    for (int k = 0; k < rounds; k++) {
        int peer = partner(rank, n, s->pairs, (int)(s->round % (uint64_t)rounds));
        if (sr_step(ctx, s) != 0)
            return -1;
        if (peer < 0)
            continue;
        const float *got = s->recv;
        if (s->device) {
            if (harness_host->copy_to_host(ctx, s->stage, s->recv, s->bytes) != 0)
                return -1;
            got = s->stage;
        }
        for (size_t i = 0; i < s->count; i++)
            if (got[i] != value(peer, i) && wrong++ == 0)
                bad_peer = peer;
    }
    out->checked = s->count * (uint64_t)rounds;
    out->mismatches = wrong;
    out->passed = wrong == 0;
    out->tolerance = 0;
    if (wrong)
        snprintf(out->detail, sizeof out->detail, "#wrong %llu; the first from rank %d", (unsigned long long)wrong,
                 bad_peer);
    else
        snprintf(out->detail, sizeof out->detail, "#wrong 0 over %d round%s of exchanges", rounds,
                 rounds == 1 ? "" : "s");
    return 0;
}

static const harness_variant sendrecv_cpu = {
    .size = sizeof(harness_variant), .key = "sendrecv/cpu", .family = "sendrecv", .device = "cpu",
    .summary = "point-to-point exchange of a host buffer with a partner rank (MPI), or every pair in turn",
    .params = params, .n_params = sizeof params / sizeof params[0],
    .create = sr_create_cpu, .step = sr_step, .step_cost = sr_cost, .check = sr_check, .destroy = sr_destroy,
    .validate = sr_validate,
};

#ifdef HAVE_CUDA
static int sr_create_cuda(harness_ctx *ctx, void **state)
{
    return create(ctx, state, 1);
}

/* Registered in CUDA builds; the exchange itself needs NCCL in the build,
 * and its first call says so when it is missing. */
static const harness_variant sendrecv_cuda = {
    .size = sizeof(harness_variant), .key = "sendrecv/cuda", .family = "sendrecv", .device = "cuda",
    .summary = "point-to-point exchange of a device buffer with a partner rank (NCCL), or every pair in turn",
    .params = params, .n_params = sizeof params / sizeof params[0],
    .create = sr_create_cuda, .step = sr_step, .step_cost = sr_cost, .check = sr_check, .destroy = sr_destroy,
    .validate = sr_validate,
};
#endif

HARNESS_PLUGIN_INIT(sendrecv, svc, ctx)
{
    int rc = svc->register_variant(ctx, &sendrecv_cpu);
#ifdef HAVE_CUDA
    if (rc == 0)
        rc = svc->register_variant(ctx, &sendrecv_cuda);
#endif
    return rc;
}
