/* collectives.h - the collective services of ABI 2.2 and send_recv of 2.5
 * (harness/plugin.h):
 * checked, timed on the backend's host clock, logged in the instance's
 * communication log, and carried out by the job's dist (MPI, or a world of
 * one) for host buffers, by the CUDA backend (NCCL, on the component's
 * stream, waited for) for device buffers. */
#ifndef HARNESS_RUN_COLLECTIVES_H
#define HARNESS_RUN_COLLECTIVES_H

#include "harness/plugin.h"

int harness_svc_all_reduce(harness_ctx *ctx, const void *send, void *recv, size_t count, harness_dtype dtype,
                           harness_reduce_op op);
int harness_svc_all_gather(harness_ctx *ctx, const void *send, void *recv, size_t count, harness_dtype dtype);
int harness_svc_reduce_scatter(harness_ctx *ctx, const void *send, void *recv, size_t count, harness_dtype dtype,
                               harness_reduce_op op);
int harness_svc_broadcast(harness_ctx *ctx, void *buf, size_t count, harness_dtype dtype, int root);
int harness_svc_barrier(harness_ctx *ctx);
int harness_svc_send_recv(harness_ctx *ctx, const void *send, void *recv, size_t count, harness_dtype dtype,
                          int peer);

#endif
