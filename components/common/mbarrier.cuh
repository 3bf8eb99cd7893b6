/* mbarrier.cuh - the shared-memory barriers (mbarrier, sm_80 and later; tx
 * counts sm_90) through which a producer warp's TMA copies (tma.cuh) and
 * the consumer warpgroups hand tiles to each other.
 *
 *   mbar_init(bar, n)               one thread: n arrivals complete a phase;
 *                                   then mbar_fence_init, then a __syncthreads
 *                                   before any other thread uses bar
 *   mbar_fence_init()               makes the inits visible to the TMA unit
 *   mbar_arrive(bar)                one arrival
 *   mbar_arrive_expect_tx(bar, b)   one arrival that also expects b bytes of
 *                                   asynchronous copies to complete on bar
 *   mbar_wait(bar, parity)          until the phase with that parity completed
 *
 * A phase completes when all its arrivals are in and its tx-count (expected
 * minus completed bytes) is zero; then the arrivals reset and the phase bit
 * flips. A wait on parity p returns once the current phase's parity is not
 * p: waiting on the parity of the phase in progress blocks until it
 * completes; on the other parity (the phase before) it returns at once. So
 * a consumer of a ring slot waits on parity (round & 1), its producer, on
 * the slot's "empty" barrier, on parity ((round & 1) ^ 1).
 *
 * Under tests/cudasim the barrier's state lives beside the block
 * (cudasim.h), the wait is a blocking point of the scheduler, and a wait
 * that can never return is a reported deadlock naming the barrier. */
#ifndef COMPONENTS_MBARRIER_CUH
#define COMPONENTS_MBARRIER_CUH

#include <stdint.h>

#ifndef CUDASIM

/* sm_90 and later (tx counts), and the host pass, which only parses. */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
__device__ __forceinline__ uint32_t mbar_smem(const uint64_t *bar)
{
    return (uint32_t)__cvta_generic_to_shared(bar);
}
__device__ __forceinline__ void mbar_init(uint64_t *bar, unsigned arrivals)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(mbar_smem(bar)), "r"(arrivals) : "memory");
}
__device__ __forceinline__ void mbar_fence_init()
{
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void mbar_arrive(uint64_t *bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(mbar_smem(bar)) : "memory");
}
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t *bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(mbar_smem(bar)), "r"(bytes)
                 : "memory");
}
/* The wait loop, its semantics and scope (SEM: a string literal, "" for
 * the default, acquire at CTA scope) spliced into the instruction. */
#define MBAR_WAIT_LOOP(bar, parity, SEM)                                             \
    do {                                                                             \
        uint32_t done_;                                                              \
        do {                                                                         \
            asm volatile("{\n.reg .pred p;\n"                                        \
                         "mbarrier.try_wait.parity" SEM ".shared::cta.b64 p, [%1], %2;\n" \
                         "selp.u32 %0, 1, 0, p;\n}\n"                                \
                         : "=r"(done_)                                               \
                         : "r"(mbar_smem(bar)), "r"(parity)                          \
                         : "memory");                                                \
        } while (!done_);                                                            \
    } while (0)
__device__ __forceinline__ void mbar_wait(uint64_t *bar, unsigned parity) { MBAR_WAIT_LOOP(bar, parity, ""); }
#endif

#else /* CUDASIM */

__device__ __forceinline__ void mbar_init(uint64_t *bar, unsigned arrivals) { cudasim::mbar_init(bar, arrivals); }
/* Not modelled: the model's barriers are visible to everything at once. */
__device__ __forceinline__ void mbar_fence_init() {}
__device__ __forceinline__ void mbar_arrive(uint64_t *bar) { cudasim::mbar_arrive(bar, 0); }
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t *bar, unsigned bytes)
{
    cudasim::mbar_arrive(bar, bytes);
}
__device__ __forceinline__ void mbar_wait(uint64_t *bar, unsigned parity) { cudasim::mbar_wait(bar, parity); }

#endif /* CUDASIM */

#endif
