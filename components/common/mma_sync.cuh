/* mma_sync.cuh - the tensor-core building blocks of the project's kernels:
 * one warp-wide matrix multiply-accumulate (mma.sync m16n8k16, bf16 or fp16
 * in, fp32 accumulate) and one warp-wide shared-memory load of four 8x8
 * matrices (ldmatrix .x4, plain or transposed), plus packing two floats into
 * a register of two 16-bit elements.
 *
 * Under nvcc each is one PTX instruction (inline asm). Under tests/cudasim
 * (CUDASIM defined) each is a warp collective over the lanes' fibers that
 * moves the same values into the same registers, following the register
 * fragment layouts of the PTX ISA ("Matrix fragments for mma.m16n8k16 with
 * floating point type", "Warp-level matrix load instruction: ldmatrix"):
 *
 *   g = lane / 4 (the group), t = lane % 4 (the thread in the group);
 *   a register of two 16-bit elements holds the lower-indexed one in its
 *   low half.
 *   A, 16 x 16 row-major, 4 registers: a0 = A[g][2t, 2t+1], a1 = A[g+8][2t, 2t+1],
 *                                      a2 = A[g][2t+8, 2t+9], a3 = A[g+8][2t+8, 2t+9]
 *   B, 16 x 8 ("col"), 2 registers:    b0 = B[2t, 2t+1][g], b1 = B[2t+8, 2t+9][g]
 *   C and D, 16 x 8 fp32, 4 floats:    c0, c1 = C[g][2t, 2t+1], c2, c3 = C[g+8][2t, 2t+1]
 *   ldmatrix .x4: lanes 8i .. 8i+7 give the addresses of rows 0..7 of
 *   matrix i (16 bytes each, 16-byte aligned); register i of every lane gets
 *   matrix i's row g, elements 2t and 2t+1; with .trans, elements [2t][g]
 *   and [2t+1][g] (the transposed matrix's row g).
 *
 * So a row-major tile read with ldmatrix is an A fragment, a row-major
 * [n][k] tile (K in Q K^T) read with ldmatrix is a B fragment, and a
 * row-major [k][n] tile (V in P V) read with ldmatrix .trans is one too; an
 * mma's C fragment for two neighbouring n-tiles is, packed to 16 bits, the A
 * fragment of the next product (P in P V). tests/unit/test_mma_sim.cc checks
 * the simulated ones against plain matrix products. */
#ifndef COMPONENTS_MMA_SYNC_CUH
#define COMPONENTS_MMA_SYNC_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

/* ---- packing: two floats to one register of two 16-bit elements ----------- */

template <typename T> __device__ __forceinline__ uint32_t pack2(float lo, float hi);
template <typename T> __device__ __forceinline__ float unpack_lo(uint32_t r);
template <typename T> __device__ __forceinline__ float unpack_hi(uint32_t r);

/* D = A B + C for one 16x16x8 tile, fp32 accumulate (fragments above). */
template <typename T>
__device__ __forceinline__ void mma_16816(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1);

/* Four 8x8 matrices of 16-bit elements from shared memory; row_addr is this
 * lane's row (lanes 8i..8i+7: matrix i). */
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void *row_addr);
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], const void *row_addr);

#ifndef CUDASIM

template <> __device__ __forceinline__ uint32_t pack2<__nv_bfloat16>(float lo, float hi)
{
    uint32_t r;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));   /* first source -> upper half */
    return r;
}
template <> __device__ __forceinline__ uint32_t pack2<__half>(float lo, float hi)
{
    uint32_t r;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}
template <> __device__ __forceinline__ float unpack_lo<__nv_bfloat16>(uint32_t r) { return __uint_as_float(r << 16); }
template <> __device__ __forceinline__ float unpack_hi<__nv_bfloat16>(uint32_t r) { return __uint_as_float(r & 0xffff0000u); }
template <> __device__ __forceinline__ float unpack_lo<__half>(uint32_t r)
{
    return __half2float(__ushort_as_half((unsigned short)(r & 0xffffu)));
}
template <> __device__ __forceinline__ float unpack_hi<__half>(uint32_t r)
{
    return __half2float(__ushort_as_half((unsigned short)(r >> 16)));
}

template <> __device__ __forceinline__ void
mma_16816<__nv_bfloat16>(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
template <> __device__ __forceinline__ void
mma_16816<__half>(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void *row_addr)
{
    uint32_t s = (uint32_t)__cvta_generic_to_shared(row_addr);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(s) : "memory");
}
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], const void *row_addr)
{
    uint32_t s = (uint32_t)__cvta_generic_to_shared(row_addr);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(s) : "memory");
}

#else /* CUDASIM: the same registers, computed from the layouts above */

#include <cstdio>
#include <cstdlib>
#include <type_traits>

namespace mma_sim {

template <typename T> inline float to_f(uint16_t bits)
{
    T h;
    std::memcpy(&h, &bits, sizeof h);
    if constexpr (std::is_same<T, __half>::value)
        return __half2float(h);
    else
        return __bfloat162float(h);
}
template <typename T> inline uint16_t from_f(float f)
{
    uint16_t bits;
    if constexpr (std::is_same<T, __half>::value) {
        __half h = __float2half_rn(f);
        std::memcpy(&bits, &h, sizeof bits);
    } else {
        __nv_bfloat16 h = __float2bfloat16_rn(f);
        std::memcpy(&bits, &h, sizeof bits);
    }
    return bits;
}

/* Every lane's two 32-bit values, through one 64-bit warp exchange; copied
 * out, since the exchange's slots are reused by the lane's next collective. */
inline void gather2(uint32_t x, uint32_t y, uint32_t (&xs)[32], uint32_t (&ys)[32])
{
    const uint64_t *all = cudasim::warp_exchange(0xffffffffu, (uint64_t)x | (uint64_t)y << 32);
    for (int l = 0; l < 32; l++)
        xs[l] = (uint32_t)all[l], ys[l] = (uint32_t)(all[l] >> 32);
}

}  // namespace mma_sim

template <typename T> __device__ __forceinline__ uint32_t pack2(float lo, float hi)
{
    return (uint32_t)mma_sim::from_f<T>(lo) | (uint32_t)mma_sim::from_f<T>(hi) << 16;
}
template <typename T> __device__ __forceinline__ float unpack_lo(uint32_t r) { return mma_sim::to_f<T>((uint16_t)r); }
template <typename T> __device__ __forceinline__ float unpack_hi(uint32_t r) { return mma_sim::to_f<T>((uint16_t)(r >> 16)); }

/* Rebuilds A (16x16), B (16x8) and C (16x8) from the 32 lanes' fragments,
 * then computes this lane's four outputs: products of 16-bit values are
 * exact in fp32, summed in k order onto C. The hardware's internal
 * accumulation order and rounding are not specified; kernels' tolerances
 * must not depend on them. */
template <typename T>
__device__ __forceinline__ void mma_16816(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1)
{
    uint32_t a0s[32], a1s[32], a2s[32], a3s[32], b0s[32], b1s[32], c0s[32], c1s[32], c2s[32], c3s[32];
    uint32_t c[4];
    std::memcpy(c, d, sizeof c);
    mma_sim::gather2(a[0], a[1], a0s, a1s);
    mma_sim::gather2(a[2], a[3], a2s, a3s);
    mma_sim::gather2(b0, b1, b0s, b1s);
    mma_sim::gather2(c[0], c[1], c0s, c1s);
    mma_sim::gather2(c[2], c[3], c2s, c3s);
    float A[16][16], B[16][8], C[16][8];
    for (int l = 0; l < 32; l++) {
        int g = l / 4, t = l % 4;
        const uint32_t regs[4] = {a0s[l], a1s[l], a2s[l], a3s[l]};
        for (int i = 0; i < 4; i++) {
            int row = g + (i & 1) * 8, col = 2 * t + (i >> 1) * 8;
            A[row][col] = unpack_lo<T>(regs[i]);
            A[row][col + 1] = unpack_hi<T>(regs[i]);
        }
        B[2 * t][g] = unpack_lo<T>(b0s[l]);
        B[2 * t + 1][g] = unpack_hi<T>(b0s[l]);
        B[2 * t + 8][g] = unpack_lo<T>(b1s[l]);
        B[2 * t + 9][g] = unpack_hi<T>(b1s[l]);
        const uint32_t cs[4] = {c0s[l], c1s[l], c2s[l], c3s[l]};
        for (int i = 0; i < 4; i++)
            std::memcpy(&C[g + (i >> 1) * 8][2 * t + (i & 1)], &cs[i], sizeof(float));
    }
    int lane = (int)cudasim::lane_id(), g = lane / 4, t = lane % 4;
    for (int i = 0; i < 4; i++) {
        int row = g + (i >> 1) * 8, col = 2 * t + (i & 1);
        float acc = C[row][col];
        for (int k = 0; k < 16; k++)
            acc += A[row][k] * B[k][col];
        d[i] = acc;
    }
}

namespace mma_sim {

/* Each lane posts its row address; then reads, for each of the 4 matrices,
 * the two elements its fragment holds straight from shared memory. */
inline void ldmatrix(uint32_t (&r)[4], const void *row_addr, bool trans)
{
    if ((uintptr_t)row_addr % 16 != 0) {
        std::fprintf(stderr, "cudasim: ldmatrix row address %p is not 16-byte aligned\n", row_addr);
        std::abort();
    }
    cudasim::record_access(cudasim::LDMATRIX, row_addr, 16);
    const uint64_t *all = cudasim::warp_exchange(0xffffffffu, (uint64_t)(uintptr_t)row_addr);
    const uint16_t *rows[32];
    for (int l = 0; l < 32; l++)
        rows[l] = reinterpret_cast<const uint16_t *>((uintptr_t)all[l]);
    int lane = (int)cudasim::lane_id(), g = lane / 4, t = lane % 4;
    for (int i = 0; i < 4; i++) {
        uint16_t lo, hi;
        if (trans)
            lo = rows[8 * i + 2 * t][g], hi = rows[8 * i + 2 * t + 1][g];
        else
            lo = rows[8 * i + g][2 * t], hi = rows[8 * i + g][2 * t + 1];
        r[i] = (uint32_t)lo | (uint32_t)hi << 16;
    }
}

}  // namespace mma_sim

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void *row_addr)
{
    mma_sim::ldmatrix(r, row_addr, false);
}
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], const void *row_addr)
{
    mma_sim::ldmatrix(r, row_addr, true);
}

#endif /* CUDASIM */

#endif
