/* tma.cuh - the Tensor Memory Accelerator (sm_90): one thread copies a box
 * of a 2- to 4-dimensional tensor of 16-bit elements from global to shared
 * memory, laid out in the 128-byte swizzle that wgmma's descriptors
 * (wgmma.cuh) read, and completes the box's bytes on an mbarrier
 * (mbarrier.cuh) that the consumers wait on.
 *
 *   tma_encode(map, global, rank, dims, strides_bytes, box, why, why_len)
 *       host: describes the tensor (dims and box innermost first;
 *       strides_bytes[i] is dimension i+1's stride) as a CUtensorMap would:
 *       0, or -1 with the reason in why
 *   tma_load(smem_dst, map, coords, bar)
 *       device, one thread: coords an int32_t array of exactly rank
 *       elements (the instruction names the rank); the box whose first
 *       element is at coords
 *       (innermost first; may lie partly or wholly outside the tensor: those
 *       elements are zero) lands at smem_dst, 1024-byte aligned; the copy
 *       completes box-bytes of tx on bar, so the issuing thread first does
 *       mbar_arrive_expect_tx(bar, box-bytes)
 *   tma_store(map, coords, smem_src)
 *       device, one thread: the reverse, the box at smem_src (1024-byte
 *       aligned, the same layout) written to the tensor at coords; elements
 *       outside the tensor are not written. Asynchronous: it joins the
 *       thread's bulk group; tma_store_commit() closes the group and
 *       tma_store_wait_read<N>() waits until all but the N newest groups
 *       have read their shared memory (so it may be written again, or the
 *       block end). The shared-memory writes it copies must be made visible
 *       to the copy first: fence_async_shared() in every writing thread,
 *       then a barrier, then the store
 *   tma_load_multicast(smem_dst, map, coords, bar, ctas)
 *       device, one thread of a block in a cluster (cluster.cuh), 4-d maps:
 *       tma_load's box lands at smem_dst's offset in every block of the
 *       cluster whose rank's bit is set in ctas, and completes its bytes on
 *       the mbarrier at bar's offset in each of them
 *
 * The layout in shared memory: the box row-major (box[0] innermost), rows of
 * box[0] * 2 bytes, every byte offset o moved to o ^ (((o >> 7) & 7) << 4):
 * within each 1024-byte atom of eight 128-byte rows, 16-byte chunk c of row r
 * lands at chunk c ^ r (CU_TENSOR_MAP_SWIZZLE_128B; the PTX ISA's
 * "Tensor-copy swizzling modes").
 *
 * The map must reach the kernel as a `const __grid_constant__ tma_map`
 * parameter (the TMA unit reads it from parameter space).
 *
 * Under nvcc tma_encode calls the driver's cuTensorMapEncodeTiled, found
 * through the runtime (cudaGetDriverEntryPointByVersion: no -lcuda). Under
 * tests/cudasim it checks what the driver checks and records the facts in
 * the map; tma_load writes the box itself: at once at AT_ISSUE, or at the
 * latest legal moment at AT_WAIT (cudasim::set_landing; cudasim.h), and
 * tma_store reads it likewise (cudasim::bulk_store). */
#ifndef COMPONENTS_TMA_CUH
#define COMPONENTS_TMA_CUH

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
    alignas(128) uint64_t opaque[16];   /* CUDA 13's CUtensorMap: 128-byte aligned */
} tma_map;

/* The driver's rules for a tiled map with the 128-byte swizzle, checked
 * first so that the reason is ours and the same in both builds. */
static inline int tma_check(const void *global, int rank, const uint64_t *dims, const uint64_t *strides_bytes,
                            const uint32_t *box, char *why, size_t why_len)
{
#define TMA_FAIL(...) (snprintf(why, why_len, __VA_ARGS__), -1)
    if (!global || !dims || !box || (rank > 1 && !strides_bytes))
        return TMA_FAIL("a null pointer");
    if (rank < 2 || rank > 4)
        return TMA_FAIL("rank %d: 2..4 supported", rank);
    if ((uintptr_t)global % 16 != 0)
        return TMA_FAIL("the global address is not 16-byte aligned");
    for (int i = 0; i < rank; i++) {
        if (dims[i] == 0 || dims[i] > (1ull << 32))
            return TMA_FAIL("dimension %d is %llu: 1..2^32", i, (unsigned long long)dims[i]);
        if (box[i] == 0 || box[i] > 256)
            return TMA_FAIL("box dimension %d is %u: 1..256", i, box[i]);
    }
    for (int i = 0; i + 1 < rank; i++)
        if (strides_bytes[i] % 16 != 0 || strides_bytes[i] >= (1ull << 40))
            return TMA_FAIL("stride %d is %llu bytes: a multiple of 16 below 2^40", i + 1,
                            (unsigned long long)strides_bytes[i]);
    if (box[0] * 2 % 16 != 0 || box[0] * 2 > 128)
        return TMA_FAIL("the box's inner dimension is %u bytes: a multiple of 16 up to 128 (the swizzle span)",
                        box[0] * 2);
    return 0;
#undef TMA_FAIL
}

#ifndef CUDASIM

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

static inline int tma_encode(tma_map *map, const void *global, int rank, const uint64_t *dims,
                             const uint64_t *strides_bytes, const uint32_t *box, char *why, size_t why_len)
{
    static_assert(sizeof(tma_map) == sizeof(CUtensorMap) && alignof(tma_map) == alignof(CUtensorMap),
                  "tma_map must stand in for CUtensorMap");
    if (tma_check(global, rank, dims, strides_bytes, box, why, why_len) != 0)
        return -1;
    /* Looked up once: attention encodes three maps at every launch, and the
     * lookup is the costly part (writing the same pointer twice from two
     * threads is harmless). */
    static void *fn = NULL;
    cudaDriverEntryPointQueryResult found;
    if (!fn && (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found) !=
                    cudaSuccess ||
                found != cudaDriverEntryPointSuccess))
        fn = NULL;
    if (!fn) {
        snprintf(why, why_len, "the driver has no cuTensorMapEncodeTiled");
        return -1;
    }
    cuuint64_t gdims[4], gstrides[3];
    cuuint32_t gbox[4], ones[4] = {1, 1, 1, 1};
    for (int i = 0; i < rank; i++) {
        gdims[i] = dims[i];
        gbox[i] = box[i];
        if (i + 1 < rank)
            gstrides[i] = strides_bytes[i];
    }
    CUresult r = ((PFN_cuTensorMapEncodeTiled_v12000)fn)(
        (CUtensorMap *)map, CU_TENSOR_MAP_DATA_TYPE_UINT16, (cuuint32_t)rank, (void *)global, gdims, gstrides, gbox,
        ones, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        snprintf(why, why_len, "cuTensorMapEncodeTiled failed (CUresult %d)", (int)r);
        return -1;
    }
    return 0;
}

/* sm_90 and later, and the host pass, which only parses. */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
/* The instruction names the rank (.2d ...), so coords is an array of
 * exactly rank elements (HOPPER_API_CHANGES.md). */
template <int RANK>
__device__ __forceinline__ void tma_load(void *smem_dst, const tma_map *map, const int32_t (&coords)[RANK],
                                         uint64_t *bar)
{
    static_assert(RANK >= 2 && RANK <= 4, "tma_load: rank 2..4");
    uint32_t dst = (uint32_t)__cvta_generic_to_shared(smem_dst);
    uint32_t mbar = (uint32_t)__cvta_generic_to_shared(bar);
    uint64_t desc = (uint64_t)map;
    if constexpr (RANK == 2)
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3}], [%4];"
                     ::"r"(dst), "l"(desc), "r"(coords[0]), "r"(coords[1]), "r"(mbar)
                     : "memory");
    else if constexpr (RANK == 3)
        asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3, %4}], [%5];"
                     ::"r"(dst), "l"(desc), "r"(coords[0]), "r"(coords[1]), "r"(coords[2]), "r"(mbar)
                     : "memory");
    else
        asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3, %4, %5}], [%6];"
                     ::"r"(dst), "l"(desc), "r"(coords[0]), "r"(coords[1]), "r"(coords[2]), "r"(coords[3]),
                       "r"(mbar)
                     : "memory");
}

template <int RANK>
__device__ __forceinline__ void tma_store(const tma_map *map, const int32_t (&coords)[RANK], const void *smem_src)
{
    static_assert(RANK >= 2 && RANK <= 4, "tma_store: rank 2..4");
    uint32_t src = (uint32_t)__cvta_generic_to_shared(smem_src);
    uint64_t desc = (uint64_t)map;
    if constexpr (RANK == 2)
        asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
                     ::"l"(desc), "r"(src), "r"(coords[0]), "r"(coords[1])
                     : "memory");
    else if constexpr (RANK == 3)
        asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];"
                     ::"l"(desc), "r"(src), "r"(coords[0]), "r"(coords[1]), "r"(coords[2])
                     : "memory");
    else
        asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%0, {%2, %3, %4, %5}], [%1];"
                     ::"l"(desc), "r"(src), "r"(coords[0]), "r"(coords[1]), "r"(coords[2]), "r"(coords[3])
                     : "memory");
}

__device__ __forceinline__ void tma_load_multicast(void *smem_dst, const tma_map *map, const int32_t (&coords)[4],
                                                   uint64_t *bar, uint16_t ctas)
{
    uint32_t dst = (uint32_t)__cvta_generic_to_shared(smem_dst);
    uint32_t mbar = (uint32_t)__cvta_generic_to_shared(bar);
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
                 " [%0], [%1, {%2, %3, %4, %5}], [%6], %7;"
                 ::"r"(dst), "l"((uint64_t)map), "r"(coords[0]), "r"(coords[1]), "r"(coords[2]), "r"(coords[3]),
                   "r"(mbar), "h"(ctas)
                 : "memory");
}

__device__ __forceinline__ void tma_store_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }

template <int N> __device__ __forceinline__ void tma_store_wait_read()
{
    asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}

__device__ __forceinline__ void fence_async_shared()
{
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
#endif

#else /* CUDASIM */

#include <cstdlib>
#include <cstring>
#include <functional>

#define __grid_constant__

namespace tma_sim {

/* What the model keeps in the map's 16 words. */
enum { MAGIC, GLOBAL, RANK, DIMS, STRIDES = DIMS + 4, BOX = STRIDES + 3 };
const uint64_t magic = 0x50414d2d414d54ull;   /* "TMA-MAP" */

[[noreturn]] inline void fail(const char *op, const char *what)
{
    std::fprintf(stderr, "cudasim: %s: %s\n", op, what);
    std::abort();
}

/* Moves the box at coords between the map's tensor and smem (swizzled):
 * into smem (zeros for elements outside the tensor) or, to_shared false,
 * out of it (those elements not written). */
inline void move_box(unsigned char *smem, const uint64_t (&m)[16], const int32_t (&c)[4], bool to_shared)
{
    int rank = (int)m[RANK];
    uint64_t dims[4] = {1, 1, 1, 1}, box[4] = {1, 1, 1, 1}, stride[4] = {2, 0, 0, 0};
    for (int i = 0; i < rank; i++) {
        dims[i] = m[DIMS + i];
        box[i] = m[BOX + i];
        if (i > 0)
            stride[i] = m[STRIDES + i - 1];
    }
    unsigned char *g = reinterpret_cast<unsigned char *>((uintptr_t)m[GLOBAL]);
    uint64_t o = 0;   /* the element's byte offset in the unswizzled box */
    for (uint64_t i3 = 0; i3 < box[3]; i3++)
        for (uint64_t i2 = 0; i2 < box[2]; i2++)
            for (uint64_t i1 = 0; i1 < box[1]; i1++)
                for (uint64_t i0 = 0; i0 < box[0]; i0++, o += 2) {
                    const uint64_t idx[4] = {i0, i1, i2, i3};
                    bool inside = true;
                    uint64_t at = 0;
                    for (int d = 0; d < 4; d++) {
                        long long x = (long long)c[d] + (long long)idx[d];
                        inside = inside && x >= 0 && (uint64_t)x < dims[d];
                        at += inside ? (uint64_t)x * stride[d] : 0;
                    }
                    unsigned char *s = smem + (o ^ ((o >> 7 & 7) << 4));
                    if (inside && to_shared)
                        std::memcpy(s, g + at, 2);
                    else if (to_shared)
                        std::memset(s, 0, 2);
                    else if (inside)
                        std::memcpy(g + at, s, 2);
                }
}

}  // namespace tma_sim

static inline int tma_encode(tma_map *map, const void *global, int rank, const uint64_t *dims,
                             const uint64_t *strides_bytes, const uint32_t *box, char *why, size_t why_len)
{
    if (!map)
        return snprintf(why, why_len, "a null map"), -1;
    if (tma_check(global, rank, dims, strides_bytes, box, why, why_len) != 0)
        return -1;
    std::memset(map, 0, sizeof *map);
    map->opaque[tma_sim::MAGIC] = tma_sim::magic;
    map->opaque[tma_sim::GLOBAL] = (uint64_t)(uintptr_t)global;
    map->opaque[tma_sim::RANK] = (uint64_t)rank;
    for (int i = 0; i < rank; i++) {
        map->opaque[tma_sim::DIMS + i] = dims[i];
        map->opaque[tma_sim::BOX + i] = box[i];
        if (i + 1 < rank)
            map->opaque[tma_sim::STRIDES + i] = strides_bytes[i];
    }
    return 0;
}

namespace tma_sim {

/* One TMA instruction's operands, read at issue (the map and coordinates
 * copied; the tensor itself is read when the copy happens), checked as the
 * hardware would: the box's bytes, or an abort naming op's fault. */
struct operands {
    uint64_t m[16];
    int32_t c[4];
    unsigned bytes;
};

inline operands take(const char *op, const void *smem, const tma_map *map, const int32_t *coords, int coords_rank)
{
    operands o;
    if (map->opaque[MAGIC] != magic)
        fail(op, "the map was not made by tma_encode");
    if ((int)map->opaque[RANK] != coords_rank)
        fail(op, "the coordinates' count differs from the map's rank");
    unsigned window;
    uint32_t offset;
    if (!cudasim::shared_window(smem, &window, &offset) || (uintptr_t)smem % 1024 != 0)
        fail(op, "the shared-memory box is not 1024-byte aligned shared memory (the 128-byte swizzle's atom)");
    o.bytes = 2;
    for (int i = 0; i < coords_rank; i++)
        o.bytes *= (unsigned)map->opaque[BOX + i];
    unsigned end_window;
    uint32_t end;
    if (!cudasim::shared_window(static_cast<const unsigned char *>(smem) + o.bytes - 1, &end_window, &end) ||
        end_window != window)
        fail(op, "the box does not fit in shared memory there");
    std::memcpy(o.m, map->opaque, sizeof o.m);
    for (int i = 0; i < 4; i++)
        o.c[i] = i < coords_rank ? coords[i] : 0;
    return o;
}

}  // namespace tma_sim

template <int RANK>
__device__ __forceinline__ void tma_load(void *smem_dst, const tma_map *map, const int32_t (&coords)[RANK],
                                         uint64_t *bar)
{
    static_assert(RANK >= 2 && RANK <= 4, "tma_load: rank 2..4");
    const tma_sim::operands o = tma_sim::take("tma_load", smem_dst, map, coords, RANK);
    unsigned char *dst = static_cast<unsigned char *>(smem_dst);
    cudasim::mbar_complete_tx(bar, o.bytes, [dst, o] { tma_sim::move_box(dst, o.m, o.c, true); });
}

template <int RANK>
__device__ __forceinline__ void tma_store(const tma_map *map, const int32_t (&coords)[RANK], const void *smem_src)
{
    static_assert(RANK >= 2 && RANK <= 4, "tma_store: rank 2..4");
    const tma_sim::operands o = tma_sim::take("tma_store", smem_src, map, coords, RANK);
    unsigned char *src = static_cast<unsigned char *>(const_cast<void *>(smem_src));
    cudasim::bulk_store([src, o] { tma_sim::move_box(src, o.m, o.c, false); });
}

inline void tma_load_multicast(void *smem_dst, const tma_map *map, const int32_t (&coords)[4], uint64_t *bar,
                               uint16_t ctas)
{
    const tma_sim::operands o = tma_sim::take("tma_load_multicast", smem_dst, map, coords, 4);
    if (ctas == 0 || ctas >> cudasim::cluster_size() != 0)
        tma_sim::fail("tma_load_multicast", "the cta mask names no block, or a block outside the cluster");
    for (unsigned r = 0; r < cudasim::cluster_size(); r++)
        if (ctas >> r & 1u) {
            unsigned char *dst = static_cast<unsigned char *>(cudasim::map_shared(smem_dst, r));
            cudasim::mbar_complete_tx(static_cast<uint64_t *>(cudasim::map_shared(bar, r)), o.bytes,
                                      [dst, o] { tma_sim::move_box(dst, o.m, o.c, true); });
        }
}

inline void tma_store_commit() { cudasim::bulk_commit(); }
template <int N> inline void tma_store_wait_read() { cudasim::bulk_wait_read(N); }
inline void fence_async_shared() { cudasim::async_proxy_fence(); }

#endif /* CUDASIM */

#endif
