/* cp_async.cuh - asynchronous 16-byte copies from global to shared memory
 * (cp.async, sm_80 and later), so that a kernel loads its next tile while it
 * computes on the current one.
 *
 *   cp_async16(dst, src, valid)  starts copying 16 bytes src -> dst (shared);
 *                                valid = false writes 16 zero bytes instead
 *                                (src is not read: the "src-size 0" form)
 *   cp_async_commit()            closes the group of copies started so far
 *   cp_async_wait_all()          waits until this thread's copies have landed
 *
 * Only the issuing thread may rely on its copies after the wait; other
 * threads need a __syncthreads after it, as for ordinary stores.
 *
 * Under tests/cudasim the copies land at one of the two extremes the
 * hardware allows (cudasim::set_landing): deferred to the issuing thread's
 * cp_async_wait_all, so a read before the wait (or, in another thread,
 * before the barrier that follows it) sees the old contents; or at issue,
 * so a copy issued into a tile that other warps still read (before the
 * barrier that protects it) overwrites it under them. Copies a block
 * leaves pending at its end are reported when the thread next uses cp.async
 * (in a later block: blocks run one at a time). */
#ifndef COMPONENTS_CP_ASYNC_CUH
#define COMPONENTS_CP_ASYNC_CUH

#include <stdint.h>

#ifndef CUDASIM

__device__ __forceinline__ void cp_async16(void *dst, const void *src, bool valid)
{
    uint32_t s = (uint32_t)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(s), "l"(src), "r"(valid ? 16 : 0)
                 : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_group 0;" ::: "memory"); }

#else

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace cp_async_sim {

struct copy {
    void *dst;
    const void *src;
    bool valid;
    unsigned block;               /* the linear index of the block that issued it */
};

inline unsigned block_id()
{
    const cudasim::thread_pos *t = cudasim::current;
    return t->block_idx.x + t->grid_dim.x * (t->block_idx.y + t->grid_dim.y * t->block_idx.z);
}

/* A copy left from an earlier block: that block ended without waiting, and
 * its shared memory is gone. On the GPU the copy would still land; here it
 * is reported, since a kernel that reads its tiles never leaves one. */
[[noreturn]] inline void stale()
{
    std::fprintf(stderr, "cudasim: cp.async copies still pending when their block ended (no cp_async_wait_all)\n");
    std::abort();
}

/* Pending copies per thread of the running block (blocks run one at a time). */
inline std::vector<std::vector<copy>> &pending()
{
    static std::vector<std::vector<copy>> p;
    return p;
}

inline std::vector<copy> &mine()
{
    const cudasim::thread_pos *t = cudasim::current;
    size_t id = t->thread_idx.x + (size_t)t->block_dim.x * (t->thread_idx.y + (size_t)t->block_dim.y * t->thread_idx.z);
    std::vector<std::vector<copy>> &p = pending();
    if (p.size() <= id)
        p.resize(id + 1);
    return p[id];
}

}  // namespace cp_async_sim

__device__ __forceinline__ void cp_async16(void *dst, const void *src, bool valid)
{
    std::vector<cp_async_sim::copy> &q = cp_async_sim::mine();
    unsigned b = cp_async_sim::block_id();
    if (!q.empty() && q.front().block != b)
        cp_async_sim::stale();
    if (cudasim::cp_async_landing() == cudasim::AT_ISSUE) {
        if (valid)
            std::memcpy(dst, src, 16);
        else
            std::memset(dst, 0, 16);
    } else {
        q.push_back({dst, src, valid, b});
    }
    cudasim::record_access(cudasim::CP_ASYNC_SHARED, dst, 16);
    cudasim::record_access(cudasim::CP_ASYNC_GLOBAL, src, 16, valid);
}
__device__ __forceinline__ void cp_async_commit() {}
__device__ __forceinline__ void cp_async_wait_all()
{
    std::vector<cp_async_sim::copy> &q = cp_async_sim::mine();
    if (!q.empty() && q.front().block != cp_async_sim::block_id())
        cp_async_sim::stale();
    for (const cp_async_sim::copy &c : q) {
        if (c.valid)
            std::memcpy(c.dst, c.src, 16);
        else
            std::memset(c.dst, 0, 16);
    }
    q.clear();
}

#endif

#endif
