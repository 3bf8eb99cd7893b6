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
 * latest legal moment at AT_WAIT (cudasim::set_landing; cudasim.h). */
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

[[noreturn]] inline void fail(const char *what)
{
    std::fprintf(stderr, "cudasim: tma_load: %s\n", what);
    std::abort();
}

/* Writes the box at coords from the map's tensor into dst, swizzled. */
inline void copy_box(unsigned char *dst, const uint64_t (&m)[16], const int32_t (&c)[4])
{
    int rank = (int)m[RANK];
    uint64_t dims[4] = {1, 1, 1, 1}, box[4] = {1, 1, 1, 1}, stride[4] = {2, 0, 0, 0};
    for (int i = 0; i < rank; i++) {
        dims[i] = m[DIMS + i];
        box[i] = m[BOX + i];
        if (i > 0)
            stride[i] = m[STRIDES + i - 1];
    }
    const unsigned char *g = reinterpret_cast<const unsigned char *>((uintptr_t)m[GLOBAL]);
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
                    unsigned char *to = dst + (o ^ ((o >> 7 & 7) << 4));
                    if (inside)
                        std::memcpy(to, g + at, 2);
                    else
                        std::memset(to, 0, 2);
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

template <int RANK>
__device__ __forceinline__ void tma_load(void *smem_dst, const tma_map *map, const int32_t (&coords)[RANK],
                                         uint64_t *bar)
{
    static_assert(RANK >= 2 && RANK <= 4, "tma_load: rank 2..4");
    if (map->opaque[tma_sim::MAGIC] != tma_sim::magic)
        tma_sim::fail("the map was not made by tma_encode");
    if ((int)map->opaque[tma_sim::RANK] != RANK)
        tma_sim::fail("the coordinates' count differs from the map's rank");
    unsigned window;
    uint32_t offset;
    if (!cudasim::shared_window(smem_dst, &window, &offset) || (uintptr_t)smem_dst % 1024 != 0)
        tma_sim::fail("the destination is not 1024-byte aligned shared memory (the 128-byte swizzle's atom)");
    int rank = (int)map->opaque[tma_sim::RANK];
    unsigned bytes = 2;
    for (int i = 0; i < rank; i++)
        bytes *= (unsigned)map->opaque[tma_sim::BOX + i];
    unsigned dyn_window;
    uint32_t end;
    if (!cudasim::shared_window(static_cast<unsigned char *>(smem_dst) + bytes - 1, &dyn_window, &end) ||
        dyn_window != window)
        tma_sim::fail("the box does not fit in shared memory at the destination");
    /* The instruction's operands are read at issue: the map and coordinates
     * are copied, the tensor itself is read when the copy lands. */
    uint64_t m[16];
    std::memcpy(m, map->opaque, sizeof m);
    int32_t c[4] = {0, 0, 0, 0};
    for (int i = 0; i < rank; i++)
        c[i] = coords[i];
    unsigned char *dst = static_cast<unsigned char *>(smem_dst);
    cudasim::mbar_complete_tx(bar, bytes, [dst, m, c] {
        uint64_t mm[16];
        int32_t cc[4];
        std::memcpy(mm, m, sizeof mm);
        std::memcpy(cc, c, sizeof cc);
        tma_sim::copy_box(dst, mm, cc);
    });
}

#endif /* CUDASIM */

#endif
