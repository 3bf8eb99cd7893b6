/* The plugin collectives on device buffers: NCCL (cuda_collectives.h). */
#include "backend/cuda_collectives.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef HAVE_NCCL
#include <nccl.h>
#endif

int cuda_is_device_memory(const void *p)
{
    struct cudaPointerAttributes a;
    if (!p || cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        cudaGetLastError();                   /* a host pointer is not an error to keep */
        return 0;
    }
    return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
}

#ifdef HAVE_NCCL

struct cuda_collectives {
    ncclComm_t comm;
};

static int nccl_fail(harness_error *err, ncclResult_t rc, const char *what)
{
    harness_error_set(err, HARNESS_EXIT_RUNTIME, "NCCL: %s: %s", what, ncclGetErrorString(rc));
    return -1;
}

/* The unique id travels as hex through the dist's string broadcast. */
static int make_comm(cuda_collectives **self, harness_dist *d, harness_error *err)
{
    ncclUniqueId id;
    char hex[2 * sizeof id.internal + 1];
    ncclResult_t rc;
    if (d->rank == 0) {
        if ((rc = ncclGetUniqueId(&id)) != ncclSuccess)
            return nccl_fail(err, rc, "making the communicator's unique id");
        for (size_t i = 0; i < sizeof id.internal; i++)
            snprintf(hex + 2 * i, 3, "%02x", (unsigned char)id.internal[i]);
    }
    if (d->ops->broadcast_string(d, 0, hex, sizeof hex, err) != 0)
        return -1;
    for (size_t i = 0; i < sizeof id.internal; i++) {
        unsigned byte;
        sscanf(hex + 2 * i, "%2x", &byte);
        id.internal[i] = (char)byte;
    }
    cuda_collectives *c = calloc(1, sizeof *c);
    if (!c)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "out of memory");
    if ((rc = ncclCommInitRank(&c->comm, d->world_size, id, d->rank)) != ncclSuccess) {
        free(c);
        return nccl_fail(err, rc, "creating the communicator (each rank needs its own GPU)");
    }
    *self = c;
    return 0;
}

static ncclDataType_t nccl_type(harness_dtype t)
{
    switch (t) {
    case HARNESS_DTYPE_F16: return ncclFloat16;
    case HARNESS_DTYPE_BF16: return ncclBfloat16;
    case HARNESS_DTYPE_F64: return ncclFloat64;
    case HARNESS_DTYPE_I32: return ncclInt32;
    case HARNESS_DTYPE_F32: break;
    }
    return ncclFloat32;
}

static ncclRedOp_t nccl_op(harness_reduce_op op)
{
    return op == HARNESS_REDUCE_MAX ? ncclMax : op == HARNESS_REDUCE_MIN ? ncclMin : ncclSum;
}

int cuda_nccl_collective(cuda_collectives **self, void *stream, harness_dist *d, const harness_collective *c,
                         harness_error *err)
{
    if (!*self && make_comm(self, d, err) != 0)
        return -1;
    ncclComm_t comm = (*self)->comm;
    cudaStream_t st = stream;
    ncclDataType_t t = nccl_type(c->dtype);
    ncclResult_t rc = ncclSuccess;
    switch (c->kind) {
    case HARNESS_COLL_ALL_REDUCE:
        rc = ncclAllReduce(c->send, c->recv, c->count, t, nccl_op(c->op), comm, st);
        break;
    case HARNESS_COLL_ALL_GATHER:
        rc = ncclAllGather(c->send, c->recv, c->count, t, comm, st);
        break;
    case HARNESS_COLL_REDUCE_SCATTER:
        rc = ncclReduceScatter(c->send, c->recv, c->count, t, nccl_op(c->op), comm, st);
        break;
    case HARNESS_COLL_BROADCAST:
        rc = ncclBroadcast(c->recv, c->recv, c->count, t, c->root, comm, st);
        break;
    case HARNESS_COLL_BARRIER:
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "a barrier has no device buffers");
    case HARNESS_COLL_SEND_RECV:
        /* One group, so that the two halves of the exchange cannot wait on
         * each other (NCCL's rule for matching sends and receives). */
        rc = ncclGroupStart();
        if (rc == ncclSuccess)
            rc = ncclSend(c->send, c->count, t, c->root, comm, st);
        if (rc == ncclSuccess)
            rc = ncclRecv(c->recv, c->count, t, c->root, comm, st);
        ncclResult_t end = ncclGroupEnd();
        if (rc == ncclSuccess)
            rc = end;
        break;
    }
    if (rc != ncclSuccess)
        return nccl_fail(err, rc, "the collective");
    cudaError_t e = cudaStreamSynchronize(st);
    if (e != cudaSuccess)
        return harness_error_set(err, HARNESS_EXIT_RUNTIME, "NCCL: waiting for the collective: %s",
                                 cudaGetErrorString(e));
    return 0;
}

void cuda_nccl_close(cuda_collectives *self)
{
    if (!self)
        return;
    ncclCommDestroy(self->comm);
    free(self);
}

#endif
