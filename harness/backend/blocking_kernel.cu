// The blocking kernel (blocking_kernel.h): one thread that spins on the
// host's ticket in mapped memory. It does no work of its own, so the start
// event recorded behind it fires only once the host has enqueued the steps
// and released it: the events then time the GPU's work, not the launches.
#include <cuda_runtime.h>

#include "backend/blocking_kernel.h"

// The GPU's global timer, in ns: independent of the SM clock, so the
// timeout holds whatever the clock does while the kernel spins.
static __device__ __forceinline__ unsigned long long global_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void harness_blocking_kernel(harness_block_flags *flags, uint32_t ticket, unsigned long long timeout_ns)
{
    const unsigned long long t0 = global_ns();
    // Ticket arithmetic modulo 2^32: released - ticket >= 0 once let go.
    while (static_cast<int32_t>(flags->released - ticket) < 0) {
        if (global_ns() - t0 >= timeout_ns) {
            // Nobody released us: a step waited on the stream behind us.
            // The count is visible to the host before the stream moves on.
            flags->timed_out = flags->timed_out + 1;
            __threadfence_system();
            return;
        }
    }
}

extern "C" int harness_blocking_kernel_launch(void *stream, harness_block_flags *device_flags, uint32_t ticket,
                                              uint64_t timeout_ns)
{
    harness_blocking_kernel<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(device_flags, ticket,
                                                                          static_cast<unsigned long long>(timeout_ns));
    return static_cast<int>(cudaGetLastError());
}
