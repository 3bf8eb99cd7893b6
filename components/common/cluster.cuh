/* cluster.cuh - thread block clusters (sm_90): the blocks of a cluster run
 * at once on neighbouring SMs and reach each other's shared memory, so that
 * one TMA load can fill a tile in all of them (tma.cuh's
 * tma_load_multicast) and a block can arrive on a peer's mbarrier.
 *
 *   cluster_ctarank()            this block's rank in its cluster
 *   cluster_id(), cluster_count()   the cluster's index in the grid and
 *                                the grid's clusters, along x (a launch
 *                                without clusters is clusters of one: the
 *                                block's and the grid's; special registers,
 *                                no division, no register held)
 *   cluster_sync()               every thread of the cluster: barrier.cluster
 *                                arrive (release) and wait (acquire). Once
 *                                after the mbarriers' init (a peer may arrive
 *                                on them, or copy into this block, before
 *                                this block's own threads use them), and
 *                                once before the exit (a block's shared
 *                                memory is gone when it exits: no peer may
 *                                still arrive or copy there)
 *   mbar_arrive_cluster(bar, r, pred)   where pred holds, one arrival on the
 *                                mbarrier at bar's offset in block r of the
 *                                cluster (r may be this block), with
 *                                release at cluster scope; a predicated
 *                                instruction, not a branch, so that a warp
 *                                with wgmma in flight stays converged (in a
 *                                branch ptxas waits for the wgmma first)
 *   mbar_wait_cluster(bar, p)    mbar_wait with acquire at cluster scope: for
 *                                a barrier that peers arrive on, before
 *                                writing what they were reading
 * A launch makes clusters with cuda_launch.h's CUDA_LAUNCH_CLUSTER.
 *
 * Under tests/cudasim a cluster's blocks run together (cudasim.h); an
 * arrival or copy into a block that has exited is reported. */
#ifndef COMPONENTS_CLUSTER_CUH
#define COMPONENTS_CLUSTER_CUH

#include <stdint.h>

#include "mbarrier.cuh"

#ifndef CUDASIM

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
__device__ __forceinline__ unsigned cluster_ctarank()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
__device__ __forceinline__ unsigned cluster_id()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(r));
    return r;
}
__device__ __forceinline__ unsigned cluster_count()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(r));
    return r;
}
__device__ __forceinline__ void cluster_sync()
{
    /* .aligned: the warp executes it converged, which a branch before it
     * (one thread initializing the barriers, or producing) does not promise
     * by itself. */
    __syncwarp();
    asm volatile("barrier.cluster.arrive.release.aligned;\n"
                 "barrier.cluster.wait.acquire.aligned;" ::: "memory");
}
__device__ __forceinline__ void mbar_arrive_cluster(uint64_t *bar, unsigned rank, bool pred)
{
    asm volatile("{\n.reg .pred p;\n.reg .b32 remote;\n"
                 "setp.ne.u32 p, %2, 0;\n"
                 "@p mapa.shared::cluster.u32 remote, %0, %1;\n"
                 "@p mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote];\n}\n"
                 ::"r"(mbar_smem(bar)), "r"(rank), "r"((unsigned)pred)
                 : "memory");
}
__device__ __forceinline__ void mbar_wait_cluster(uint64_t *bar, unsigned parity)
{
    MBAR_WAIT_LOOP(bar, parity, ".acquire.cluster");
}
#endif

#else /* CUDASIM */

__device__ __forceinline__ unsigned cluster_ctarank() { return cudasim::cluster_rank(); }
__device__ __forceinline__ unsigned cluster_id() { return blockIdx.x / cudasim::cluster_size(); }
__device__ __forceinline__ unsigned cluster_count() { return gridDim.x / cudasim::cluster_size(); }
__device__ __forceinline__ void cluster_sync() { cudasim::cluster_sync(); }
__device__ __forceinline__ void mbar_arrive_cluster(uint64_t *bar, unsigned rank, bool pred)
{
    if (pred)
        cudasim::mbar_arrive(static_cast<uint64_t *>(cudasim::map_shared(bar, rank)), 0);
}
__device__ __forceinline__ void mbar_wait_cluster(uint64_t *bar, unsigned parity) { cudasim::mbar_wait(bar, parity); }

#endif /* CUDASIM */

#endif
