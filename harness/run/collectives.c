/* The collective services; see collectives.h. */
#include "run/collectives.h"

#include "dist/collective.h"
#include "run/comm_log.h"
#include "run/guard.h"
#include "run/instance.h"

static int run_collective(harness_ctx *ctx, const char *service, const harness_collective *c)
{
    if (ctx->kind != HARNESS_CTX_INSTANCE || !((harness_instance *)ctx)->dist)
        return harness_svc_fail(ctx, "%s called outside a running component instance", service);
    harness_instance *in = (harness_instance *)ctx;
    in->collectives_called++;
    size_t elem = harness_dtype_size(c->dtype);
    if (c->kind != HARNESS_COLL_BARRIER && !elem)
        return harness_svc_fail(ctx, "%s: unknown dtype %d", service, (int)c->dtype);
    if (c->kind != HARNESS_COLL_BARRIER && c->count && (!c->recv || (!c->send && c->kind != HARNESS_COLL_BROADCAST)))
        return harness_svc_fail(ctx, "%s: a NULL buffer for %zu elements", service, c->count);
    if (c->kind == HARNESS_COLL_BROADCAST && (c->root < 0 || c->root >= in->world_size))
        return harness_svc_fail(ctx, "broadcast: root %d is not a rank of this job of %d", c->root, in->world_size);
    if (c->kind == HARNESS_COLL_SEND_RECV && (c->root < 0 || c->root >= in->world_size))
        return harness_svc_fail(ctx, "send_recv: peer %d is not a rank of this job of %d", c->root, in->world_size);
    const harness_backend_ops *bo = in->backend->ops;
    int on_device = 0;
    if (bo->is_device_memory) {
        int send_dev = c->send && bo->is_device_memory(in->backend, c->send);
        int recv_dev = c->recv && bo->is_device_memory(in->backend, c->recv);
        if (c->kind != HARNESS_COLL_BROADCAST && c->send && c->recv && send_dev != recv_dev)
            return harness_svc_fail(ctx, "%s: send is %s memory and recv %s memory; both must be on the device "
                                    "(NCCL) or both on the host (MPI)", service, send_dev ? "device" : "host",
                                    recv_dev ? "device" : "host");
        on_device = send_dev || recv_dev;
        if (on_device && !bo->device_collective)
            return harness_svc_fail(ctx, "%s on device buffers needs NCCL, and this harness was built without "
                                    "it: install NCCL (libnccl-dev, or the CUDA toolkit's) and run ./configure "
                                    "again, or copy the buffers to the host", service);
    }
    harness_error err = {0};
    uint64_t t0 = harness_clock_ticks(&in->backend->clock);
    int rc = on_device ? bo->device_collective(in->backend, in->dist, c, &err)
                       : in->dist->ops->collective(in->dist, c, &err);
    uint64_t t1 = harness_clock_ticks(&in->backend->clock);
    if (rc != 0)
        return harness_svc_fail(ctx, "%s: %s", service, err.msg);
    /* Measured steps only, as nccl-tests times only its timed iterations:
     * the check's first call (communicator setup) would skew mean and max. */
    if (!harness_guard_in_measured_step())
        return 0;
    harness_comm_record r = {c->kind, c->dtype, harness_comm_size(c->kind, c->count, elem, in->world_size), t0, t1,
                             c->kind == HARNESS_COLL_SEND_RECV ? c->root : -1};
    if (in->comm && harness_comm_log_add(in->comm, &r) != 0)
        return harness_svc_fail(ctx, "%s: out of memory for the communication log", service);
    return 0;
}

int harness_svc_all_reduce(harness_ctx *ctx, const void *send, void *recv, size_t count, harness_dtype dtype,
                           harness_reduce_op op)
{
    harness_collective c = {HARNESS_COLL_ALL_REDUCE, send, recv, count, dtype, op, 0};
    return run_collective(ctx, "all_reduce", &c);
}

int harness_svc_all_gather(harness_ctx *ctx, const void *send, void *recv, size_t count, harness_dtype dtype)
{
    harness_collective c = {HARNESS_COLL_ALL_GATHER, send, recv, count, dtype, HARNESS_REDUCE_SUM, 0};
    return run_collective(ctx, "all_gather", &c);
}

int harness_svc_reduce_scatter(harness_ctx *ctx, const void *send, void *recv, size_t count, harness_dtype dtype,
                               harness_reduce_op op)
{
    harness_collective c = {HARNESS_COLL_REDUCE_SCATTER, send, recv, count, dtype, op, 0};
    return run_collective(ctx, "reduce_scatter", &c);
}

int harness_svc_broadcast(harness_ctx *ctx, void *buf, size_t count, harness_dtype dtype, int root)
{
    harness_collective c = {HARNESS_COLL_BROADCAST, buf, buf, count, dtype, HARNESS_REDUCE_SUM, root};
    return run_collective(ctx, "broadcast", &c);
}

int harness_svc_barrier(harness_ctx *ctx)
{
    harness_collective c = {HARNESS_COLL_BARRIER, NULL, NULL, 0, HARNESS_DTYPE_F32, HARNESS_REDUCE_SUM, 0};
    return run_collective(ctx, "barrier", &c);
}

int harness_svc_send_recv(harness_ctx *ctx, const void *send, void *recv, size_t count, harness_dtype dtype, int peer)
{
    harness_collective c = {HARNESS_COLL_SEND_RECV, send, recv, count, dtype, HARNESS_REDUCE_SUM, peer};
    return run_collective(ctx, "send_recv", &c);
}
