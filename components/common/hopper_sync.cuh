/* hopper_sync.cuh - the block-level synchronisation a warp-specialised
 * sm_90a kernel uses besides __syncthreads:
 *
 *   named_bar_sync(id, threads)    bar.sync: waits until `threads` threads
 *                                  (whole warps) arrived at barrier id
 *   named_bar_arrive(id, threads)  bar.arrive: counts this thread's warp
 *                                  without waiting (a producer's signal)
 *   setmaxnreg_inc<REGS>()         setmaxnreg.inc / .dec: a warpgroup raises
 *   setmaxnreg_dec<REGS>()         or lowers its per-thread register limit
 *                                  (REGS a multiple of 8 in 24..256), so
 *                                  consumer warpgroups get the registers
 *                                  producer warpgroups give up
 *
 * Barrier ids are 1..15 here: 0 is the one __syncthreads uses.
 *
 * Under tests/cudasim a named barrier is a barrier of the scheduler that
 * releases its waiting threads when `threads` arrivals (bar.sync or
 * bar.arrive, counted per thread) are in; a barrier that can never fill is
 * a reported deadlock. setmaxnreg changes nothing on a CPU: the model checks
 * that REGS is legal and that the whole warpgroup executes it (a warpgroup
 * collective), and aborts with a message otherwise. */
#ifndef COMPONENTS_HOPPER_SYNC_CUH
#define COMPONENTS_HOPPER_SYNC_CUH

#include <stdint.h>

#ifndef CUDASIM

__device__ __forceinline__ void named_bar_sync(unsigned id, unsigned threads)
{
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void named_bar_arrive(unsigned id, unsigned threads)
{
    asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

/* sm_90a only (and the host pass, which only parses): see wgmma.cuh. */
#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
template <int REGS> __device__ __forceinline__ void setmaxnreg_inc()
{
    static_assert(REGS % 8 == 0 && REGS >= 24 && REGS <= 256, "setmaxnreg: a multiple of 8 in 24..256");
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(REGS));
}
template <int REGS> __device__ __forceinline__ void setmaxnreg_dec()
{
    static_assert(REGS % 8 == 0 && REGS >= 24 && REGS <= 256, "setmaxnreg: a multiple of 8 in 24..256");
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(REGS));
}
#endif

#else /* CUDASIM */

#include <cstdio>
#include <cstdlib>

__device__ __forceinline__ void named_bar_sync(unsigned id, unsigned threads)
{
    cudasim::named_barrier(id, threads, true);
}
__device__ __forceinline__ void named_bar_arrive(unsigned id, unsigned threads)
{
    cudasim::named_barrier(id, threads, false);
}

namespace hopper_sim {

/* A run-time check, not a static_assert, so that the tests can show it. */
inline void setmaxnreg(int regs, bool inc)
{
    if (regs % 8 != 0 || regs < 24 || regs > 256) {
        std::fprintf(stderr, "cudasim: setmaxnreg.%s %d: the count must be a multiple of 8 in 24..256\n",
                     inc ? "inc" : "dec", regs);
        std::abort();
    }
    const uint64_t *all = cudasim::warpgroup_exchange((uint64_t)regs << 1 | inc);
    for (int i = 0; i < 128; i++)
        if (all[i] != ((uint64_t)regs << 1 | inc)) {
            std::fprintf(stderr, "cudasim: setmaxnreg: the threads of a warpgroup disagree on the count\n");
            std::abort();
        }
}

}  // namespace hopper_sim

template <int REGS> __device__ __forceinline__ void setmaxnreg_inc() { hopper_sim::setmaxnreg(REGS, true); }
template <int REGS> __device__ __forceinline__ void setmaxnreg_dec() { hopper_sim::setmaxnreg(REGS, false); }

#endif /* CUDASIM */

#endif
