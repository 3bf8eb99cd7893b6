/* cuda_collectives.h - the plugin collectives on device buffers, inside the
 * CUDA backend module: NCCL on the component's stream, among the job's
 * ranks. A build without NCCL (configure found none) has only the pointer
 * test, and the core says how to get the rest. */
#ifndef HARNESS_BACKEND_CUDA_COLLECTIVES_H
#define HARNESS_BACKEND_CUDA_COLLECTIVES_H

#include "dist/dist.h"
#include "util/error.h"

typedef struct cuda_collectives cuda_collectives;

/* Whether p points into device memory (cudaMalloc'd, or managed). */
int cuda_is_device_memory(const void *p);

#ifdef HAVE_NCCL
/* The collective c on device buffers, enqueued on stream, then waited for,
 * so that the time the core logs around it is the collective's own. The
 * communicator is made at the first call: rank 0's NCCL unique id reaches
 * the others over d (every rank calls the collectives in the same order, so
 * every rank is there). *self holds it; 0, or nonzero with err. */
int cuda_nccl_collective(cuda_collectives **self, void *stream, harness_dist *d, const harness_collective *c,
                         harness_error *err);
void cuda_nccl_close(cuda_collectives *self);
/* The NCCL library's version, "2.21.5" (the summary's env). */
void cuda_nccl_version(char *out, size_t cap);
#endif

#endif
