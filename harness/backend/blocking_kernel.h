/* blocking_kernel.h - the kernel the CUDA backend enqueues in front of
 * timed launches (backend/event_timer.h, "the blocking kernel"): one thread
 * spins until the host releases it or its timeout passes. Plain C, so
 * cuda_backend.c (gcc) can launch what blocking_kernel.cu (nvcc) builds.
 *
 * The host's flag is a ticket counter in mapped pinned memory: block k
 * waits until `released` reaches k, and the host releases by storing the
 * last ticket issued. A counter, not a 0/1 flag, because the host may
 * enqueue block k+1 before the GPU has even started block k (a backlog):
 * resetting a flag then would leave block k spinning to its timeout. Only
 * one block runs at a time (they are on one stream), so `timed_out` is
 * a plain count. */
#ifndef HARNESS_BLOCKING_KERNEL_H
#define HARNESS_BLOCKING_KERNEL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the kernel and the host share (cudaHostAllocMapped). */
typedef struct harness_block_flags {
    volatile uint32_t released;    /* the host: the last ticket let go */
    volatile uint32_t timed_out;   /* the kernel: blocks that gave up waiting */
} harness_block_flags;

/* Enqueues one blocking kernel on `stream` (a cudaStream_t) waiting for
 * `ticket`, through `flags` as the device sees them; it gives up after
 * timeout_ns by the GPU's global timer. Returns the launch's cudaError_t
 * (0 on success). */
int harness_blocking_kernel_launch(void *stream, harness_block_flags *device_flags, uint32_t ticket,
                                   uint64_t timeout_ns);

#ifdef __cplusplus
}
#endif

#endif
