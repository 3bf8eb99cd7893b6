/* wgmma.cuh - the sm_90a warpgroup matrix multiply (wgmma.mma_async
 * m64nNk16, bf16 or fp16 in, fp32 accumulate) and the shared-memory matrix
 * descriptors it reads its operands through.
 *
 * A warpgroup is 4 consecutive warps (128 threads, the first warp a
 * multiple of 4); all its threads execute every call below together.
 *
 *   wgmma_desc(tile, lbo, sbo)   the descriptor of a tile in the 128-byte
 *                                swizzle (what tma.cuh writes)
 *   wgmma_fence()                before the first wgmma that reads
 *                                registers (accumulators, RS's A) this
 *                                thread wrote since its last wgmma
 *   wgmma_ss<T, NT, B_MN_MAJOR>(d, a_desc, b_desc, scale_d)
 *   wgmma_rs<T, NT, B_MN_MAJOR>(d, a, b_desc, scale_d)
 *                                start D[64 x NT] = A[64 x 16] B[16 x NT]
 *                                (+ D when scale_d); T __nv_bfloat16 or
 *                                __half; NT a multiple of 8 in 8..256
 *   wgmma_commit_group()         closes a group of the wgmmas started
 *   wgmma_wait_group<N>()        waits until at most N groups are pending;
 *                                only then may d be read or written, or
 *                                the operand tiles be overwritten
 *   wgmma_fence_operands(d)      keeps the compiler from moving accesses to
 *                                d across a wait (an empty asm under nvcc)
 *
 * D's registers: warp w (0..3) of the warpgroup holds rows 16w..16w+15;
 * for each n8 column block j, like mma.m16n8k16's C fragment (g = lane / 4,
 * t = lane % 4): d[4j], d[4j+1] = D[16w+g][8j+2t, 8j+2t+1]; d[4j+2],
 * d[4j+3] = D[16w+g+8][8j+2t, 8j+2t+1]. RS's A: this warp's 16 rows as
 * mma.m16n8k16's A fragment (mma_sync.cuh).
 *
 * The descriptor (PTX ISA, "Matrix Descriptor Format"): bits 0-13 the
 * tile's shared address >> 4, 16-29 the leading byte offset (LBO) >> 4,
 * 32-45 the stride byte offset (SBO) >> 4, 49-51 the base offset (0: tiles
 * are 1024-byte aligned), 62-63 the swizzle (1: 128 bytes). In the 128-byte
 * swizzle, rows are 128 bytes (64 elements) and 8 rows make a 1024-byte
 * atom, inside which 16-byte chunk c of row r is stored at c ^ r. What to
 * pass:
 *   K-major (A, and B stored [n][k]: K of Q K^T): rows are M (or N), k
 *     contiguous. SBO = the bytes between 8-row groups: 1024 when the rows
 *     follow each other. LBO is unused (the 16 k of one wgmma lie in one
 *     128-byte row): pass 16. The k-th step of 16 elements starts 32 * k
 *     bytes further (k < 4); a K wider than 64 is stored as consecutive
 *     64-element column blocks of rows * 128 bytes each, so step k starts
 *     at block k / 4, byte 32 * (k % 4).
 *   MN-major (B stored [k][n]: V of P V): rows are K, n contiguous.
 *     SBO = the bytes between 8-row (8 k) groups: 1024. LBO = the bytes
 *     between 64-element column blocks of N (N wider than 64 stored as
 *     consecutive column blocks of k_rows * 128 bytes): k_rows * 128; unused
 *     when NT <= 64. The k-th step of 16 rows starts 16 * 128 * k bytes
 *     further.
 *
 * Under tests/cudasim (CUDASIM defined) each wgmma is a warpgroup
 * collective that reads its operands through the descriptor, decoding the
 * swizzle from the address bits as the hardware does, so a tile written
 * unswizzled or a wrong SBO/LBO gives a wrong product. Its result is held
 * back: the call saves its inputs and fills d with NaN; the wait that
 * retires its group computes D and writes d. Shared-memory operands are
 * read at that wait at AT_WAIT (an operand tile overwritten before the wait
 * shows) and at issue at AT_ISSUE (a tile not yet landed shows);
 * cudasim::set_landing. Accumulation: products of 16-bit values are exact
 * in fp32, summed in k order onto D. A wgmma with no wgmma_fence since the
 * block's start or the thread's last wait aborts (wgmma_sim::issue). */
#ifndef COMPONENTS_WGMMA_CUH
#define COMPONENTS_WGMMA_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include <type_traits>

#ifndef CUDASIM

/* Declared in the host pass (which only parses device code) and in the
 * sm_90a device pass; a kernel built for other targets too must leave them
 * out there (#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
 * around its body): wgmma exists only with sm_90a's arch-specific features. */
#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)

__device__ __forceinline__ uint64_t wgmma_desc(const void *smem_tile, uint32_t lbo_bytes, uint32_t sbo_bytes)
{
    uint64_t addr = (uint32_t)__cvta_generic_to_shared(smem_tile);
    return (addr >> 4 & 0x3fff) | (uint64_t)(lbo_bytes >> 4 & 0x3fff) << 16 |
           (uint64_t)(sbo_bytes >> 4 & 0x3fff) << 32 | 1ull << 62;
}
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit_group()
{
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
template <int N> __device__ __forceinline__ void wgmma_wait_group()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}
template <int R> __device__ __forceinline__ void wgmma_fence_operands(float (&d)[R])
{
#pragma unroll
    for (int i = 0; i < R; i++)
        asm volatile("" : "+f"(d[i])::"memory");
}

template <int N> struct wgmma_ptx;
#define WGMMA_D4(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3])
#define WGMMA_UNPAREN(...) __VA_ARGS__
#define WGMMA_STR(x) #x
#define WGMMA_FORM(N, TY, DLIST, OPS, SA, SB, SS, ST, RA, RB, RS, RT)                                              \
    template <int TRANS_B> static __device__ __forceinline__ void ss_##TY(float (&d)[N / 2], uint64_t a, uint64_t b, \
                                                                          int scale_d)                             \
    {                                                                                                              \
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" WGMMA_STR(SS) ", 0;\n"                                   \
                     "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." #TY "." #TY " " DLIST ", %" WGMMA_STR(SA)   \
                     ", %" WGMMA_STR(SB) ", p, 1, 1, 0, %" WGMMA_STR(ST) ";\n}\n"                                  \
                     : WGMMA_UNPAREN OPS                                                                           \
                     : "l"(a), "l"(b), "r"(scale_d), "n"(TRANS_B));                                                \
    }                                                                                                              \
    template <int TRANS_B>                                                                                         \
    static __device__ __forceinline__ void rs_##TY(float (&d)[N / 2], const uint32_t (&a)[4], uint64_t b,          \
                                                   int scale_d)                                                    \
    {                                                                                                              \
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" WGMMA_STR(RS) ", 0;\n"                                   \
                     "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." #TY "." #TY " " DLIST ", " RA ", %" WGMMA_STR(RB)  \
                     ", p, 1, 1, %" WGMMA_STR(RT) ";\n}\n"                                                         \
                     : WGMMA_UNPAREN OPS                                                                           \
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(scale_d), "n"(TRANS_B));            \
    }
#define WGMMA_PTX_SHAPE(N, DLIST, OPS, SA, SB, SS, ST, RA, RB, RS, RT)                                              \
    template <> struct wgmma_ptx<N> {                                                                              \
        WGMMA_FORM(N, bf16, DLIST, OPS, SA, SB, SS, ST, RA, RB, RS, RT)                                            \
        WGMMA_FORM(N, f16, DLIST, OPS, SA, SB, SS, ST, RA, RB, RS, RT)                                             \
    };
#include "wgmma_ptx.inc"
#undef WGMMA_PTX_SHAPE
#undef WGMMA_FORM

template <typename T, int NT, bool B_MN_MAJOR>
__device__ __forceinline__ void wgmma_ss(float (&d)[NT / 2], uint64_t a_desc, uint64_t b_desc, int scale_d)
{
    static_assert(NT % 8 == 0 && NT >= 8 && NT <= 256, "wgmma: NT a multiple of 8 in 8..256");
    if constexpr (std::is_same<T, __nv_bfloat16>::value)
        wgmma_ptx<NT>::template ss_bf16<B_MN_MAJOR ? 1 : 0>(d, a_desc, b_desc, scale_d);
    else
        wgmma_ptx<NT>::template ss_f16<B_MN_MAJOR ? 1 : 0>(d, a_desc, b_desc, scale_d);
}
template <typename T, int NT, bool B_MN_MAJOR>
__device__ __forceinline__ void wgmma_rs(float (&d)[NT / 2], const uint32_t (&a)[4], uint64_t b_desc, int scale_d)
{
    static_assert(NT % 8 == 0 && NT >= 8 && NT <= 256, "wgmma: NT a multiple of 8 in 8..256");
    if constexpr (std::is_same<T, __nv_bfloat16>::value)
        wgmma_ptx<NT>::template rs_bf16<B_MN_MAJOR ? 1 : 0>(d, a, b_desc, scale_d);
    else
        wgmma_ptx<NT>::template rs_f16<B_MN_MAJOR ? 1 : 0>(d, a, b_desc, scale_d);
}

#endif /* host pass or sm_90a */

#else /* CUDASIM */

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <limits>
#include <vector>

namespace wgmma_sim {

[[noreturn]] inline void fail(const char *what)
{
    std::fprintf(stderr, "cudasim: wgmma: %s\n", what);
    std::abort();
}

/* The model keeps the window (cudasim::shared_window) in reserved bits
 * 52-53, so that a descriptor still names its tile after the address field's
 * 14 bits. */
const int WINDOW_SHIFT = 52;

template <typename T> inline float to_f(const unsigned char *p)
{
    T h;
    std::memcpy(&h, p, sizeof h);
    if constexpr (std::is_same<T, __half>::value)
        return __half2float(h);
    else
        return __bfloat162float(h);
}

/* The byte the hardware reads for element (mn, k) of an operand: the
 * canonical 128-byte-swizzle layout of the PTX ISA ("Shared Memory Matrix
 * Layout"), then the swizzle on the address bits. */
inline const unsigned char *element(uint64_t desc, bool mn_major, int mn, int k)
{
    if ((desc >> 62) != 1)
        fail("a descriptor without the 128-byte swizzle (the only layout modelled)");
    if ((desc >> 49 & 7) != 0)
        fail("a descriptor with a non-zero base offset (tiles must be 1024-byte aligned)");
    unsigned char *base = cudasim::shared_window_base((unsigned)(desc >> WINDOW_SHIFT & 3));
    uint64_t start = (desc & 0x3fff) << 4, lbo = (desc >> 16 & 0x3fff) << 4, sbo = (desc >> 32 & 0x3fff) << 4;
    uint64_t off = mn_major ? start + (uint64_t)(mn / 64) * lbo + (uint64_t)(mn % 64) * 2 + (uint64_t)(k / 8) * sbo +
                                  (uint64_t)(k % 8) * 128
                            : start + (uint64_t)(mn / 8) * sbo + (uint64_t)(mn % 8) * 128 + (uint64_t)k * 2;
    uintptr_t addr = (uintptr_t)base + off;
    addr ^= (addr >> 7 & 7) << 4;
    unsigned window;
    uint32_t offset;
    if (!cudasim::shared_window(reinterpret_cast<const void *>(addr), &window, &offset) ||
        !cudasim::shared_window(reinterpret_cast<const void *>(addr + 1), &window, &offset))
        fail("an operand element outside shared memory (descriptor, LBO or SBO wrong)");
    return reinterpret_cast<const unsigned char *>(addr);
}

/* One wgmma of one thread, from issue to the wait that retires it. */
struct op {
    float *d;
    int nt;
    bool bf16, b_mn_major, from_smem_a;
    bool scale_d, chained;        /* chained: D's input is an earlier pending wgmma's result */
    bool operands_read;
    uint64_t a_desc, b_desc;
    int warp, g, t;               /* this thread's place in the warpgroup */
    float a[2][16];               /* this thread's rows 16w+g and 16w+g+8 of A */
    std::vector<float> b;         /* [16][nt / 4]: the columns this thread's d holds */
    std::vector<float> c;         /* D's input when scale_d and not chained */
    unsigned long block;
};

struct thread_state {
    std::vector<op> open;               /* started, not yet committed */
    std::deque<std::vector<op>> groups; /* committed, oldest first */
    unsigned long block = 0;            /* the block they belong to */
    bool fenced = false;                /* a wgmma_fence since the block's start and the last wait */
};

/* A deque: growing it keeps the references that threads hold across their
 * warpgroup exchanges (where other threads run and may grow it) valid. */
inline std::deque<thread_state> &threads()
{
    static std::deque<thread_state> s;
    return s;
}

/* This thread's state; a pending wgmma of an earlier block is reported (its
 * d lived on that block's stack). */
inline thread_state &mine()
{
    unsigned i = cudasim::fiber_index();   /* a cluster's blocks run together */
    std::deque<thread_state> &s = threads();
    if (s.size() <= i)
        s.resize(i + 1);
    thread_state &m = s[i];
    unsigned long b = cudasim::block_serial();
    if (m.block != b) {
        bool pending = !m.open.empty();
        for (const std::vector<op> &grp : m.groups)
            pending |= !grp.empty();
        if (pending)
            fail("wgmmas still pending when their block ended (no wgmma_wait_group retired them)");
        m.groups.clear();
        m.block = b;
        m.fenced = false;
    }
    return m;
}

inline int column(const op &o, int j) { return 8 * (j / 2) + 2 * o.t + (j % 2); }

template <typename T> inline void read_smem(op &o)
{
    if (o.from_smem_a)
        for (int h = 0; h < 2; h++)
            for (int k = 0; k < 16; k++)
                o.a[h][k] = to_f<T>(element(o.a_desc, false, 16 * o.warp + o.g + 8 * h, k));
    int cols = o.nt / 4;
    for (int k = 0; k < 16; k++)
        for (int j = 0; j < cols; j++)
            o.b[(size_t)k * cols + j] = to_f<T>(element(o.b_desc, o.b_mn_major, column(o, j), k));
    o.operands_read = true;
}

inline void retire(op &o)
{
    if (!o.operands_read) {
        if (o.bf16)
            read_smem<__nv_bfloat16>(o);
        else
            read_smem<__half>(o);
    }
    int cols = o.nt / 4;
    for (int i = 0; i < o.nt / 2; i++) {
        int j = i / 4 * 2 + (i & 1), h = (i >> 1) & 1;
        float acc = !o.scale_d ? 0.0f : o.chained ? o.d[i] : o.c[(size_t)i];
        for (int k = 0; k < 16; k++)
            acc += o.a[h][k] * o.b[(size_t)k * cols + j];
        o.d[i] = acc;
    }
}

/* The warpgroup's threads must agree on the descriptors and the shape. */
inline void agree(uint64_t a_desc, uint64_t b_desc, int nt, int scale_d)
{
    uint64_t mine = a_desc * 0x9e3779b97f4a7c15ull ^ b_desc ^ (uint64_t)nt << 1 ^ (uint64_t)(scale_d != 0);
    const uint64_t *all = cudasim::warpgroup_exchange(mine);
    for (int i = 0; i < 128; i++)
        if (all[i] != mine)
            fail("the threads of a warpgroup issue a wgmma with different descriptors, shapes or scale-d");
}

/* Every lane's four A registers (mma_sync.cuh's gather, twice). */
inline void mma_exchange(const uint32_t *a, uint32_t (&r0)[32], uint32_t (&r1)[32], uint32_t (&r2)[32],
                         uint32_t (&r3)[32])
{
    const uint64_t *all = cudasim::warp_exchange(0xffffffffu, (uint64_t)a[0] | (uint64_t)a[1] << 32);
    for (int l = 0; l < 32; l++)
        r0[l] = (uint32_t)all[l], r1[l] = (uint32_t)(all[l] >> 32);
    all = cudasim::warp_exchange(0xffffffffu, (uint64_t)a[2] | (uint64_t)a[3] << 32);
    for (int l = 0; l < 32; l++)
        r2[l] = (uint32_t)all[l], r3[l] = (uint32_t)(all[l] >> 32);
}

template <typename T>
inline void issue(float *d, int nt, bool b_mn_major, bool from_smem_a, uint64_t a_desc, const uint32_t *a_regs,
                  uint64_t b_desc, int scale_d)
{
    thread_state &s = mine();
    /* wgmma.fence's rule (PTX ISA) is about registers this thread wrote
     * since its last wgmma, which the model cannot see (they are C++
     * variables); what it sees is the wait that handed the registers back
     * to the thread, and a wait exists only so that the thread may touch
     * them. So a wgmma needs a fence since the block's start and since the
     * thread's last wgmma_wait_group: stricter than the hardware only for a
     * kernel that waits and then leaves the registers alone. */
    if (!s.fenced)
        fail("a wgmma with no wgmma_fence since the block's start or this thread's last wgmma_wait_group "
             "(the accumulators or A registers it may have written since)");
    agree(from_smem_a ? a_desc : 0, b_desc, nt, scale_d);
    op o;
    o.d = d;
    o.nt = nt;
    o.bf16 = std::is_same<T, __nv_bfloat16>::value;
    o.b_mn_major = b_mn_major;
    o.from_smem_a = from_smem_a;
    o.scale_d = scale_d != 0;
    o.a_desc = a_desc;
    o.b_desc = b_desc;
    unsigned lane = cudasim::lane_id();
    o.warp = (int)(cudasim::thread_index() / 32 % 4);
    o.g = (int)lane / 4;
    o.t = (int)lane % 4;
    o.b.assign((size_t)16 * (nt / 4), 0.0f);
    o.block = cudasim::block_serial();
    o.operands_read = false;
    if (!from_smem_a) {
        /* A's registers are read at issue: rows g and g+8 of this warp's
         * fragment come from lanes 4g..4g+3 (mma_sync.cuh's layout). */
        uint32_t r0[32], r1[32], r2[32], r3[32];
        mma_exchange(a_regs, r0, r1, r2, r3);
        for (int tt = 0; tt < 4; tt++) {
            int src = 4 * o.g + tt;
            const uint32_t lo_row[2] = {r0[src], r2[src]}, hi_row[2] = {r1[src], r3[src]};
            for (int half = 0; half < 2; half++) {
                int k = 2 * tt + 8 * half;
                o.a[0][k] = to_f<T>(reinterpret_cast<const unsigned char *>(&lo_row[half]));
                o.a[0][k + 1] = to_f<T>(reinterpret_cast<const unsigned char *>(&lo_row[half]) + 2);
                o.a[1][k] = to_f<T>(reinterpret_cast<const unsigned char *>(&hi_row[half]));
                o.a[1][k + 1] = to_f<T>(reinterpret_cast<const unsigned char *>(&hi_row[half]) + 2);
            }
        }
    }
    if (cudasim::cp_async_landing() == cudasim::AT_ISSUE)
        read_smem<T>(o);
    /* D's input: an earlier wgmma on the same registers that no wait has
     * retired yet (chained accumulation), else the registers now. */
    o.chained = false;
    for (const op &p : s.open)
        o.chained |= p.d == d;
    for (const std::vector<op> &grp : s.groups)
        for (const op &p : grp)
            o.chained |= p.d == d;
    if (o.scale_d && !o.chained)
        o.c.assign(d, d + nt / 2);
    for (int i = 0; i < nt / 2; i++)
        d[i] = std::numeric_limits<float>::quiet_NaN();
    s.open.push_back(std::move(o));
}

}  // namespace wgmma_sim

__device__ __forceinline__ uint64_t wgmma_desc(const void *smem_tile, uint32_t lbo_bytes, uint32_t sbo_bytes)
{
    unsigned window;
    uint32_t offset;
    if (!cudasim::shared_window(smem_tile, &window, &offset))
        wgmma_sim::fail("wgmma_desc of an address outside shared memory");
    if (offset % 16 != 0)
        wgmma_sim::fail("wgmma_desc of an address that is not 16-byte aligned");
    return (uint64_t)(offset >> 4 & 0x3fff) | (uint64_t)(lbo_bytes >> 4 & 0x3fff) << 16 |
           (uint64_t)(sbo_bytes >> 4 & 0x3fff) << 32 | 1ull << 62 | (uint64_t)window << wgmma_sim::WINDOW_SHIFT;
}
/* Registers are plain C++ variables here: the fence is required after the
 * block's start and after every wait (wgmma_sim::issue says why). */
__device__ __forceinline__ void wgmma_fence()
{
    wgmma_sim::thread_state &s = wgmma_sim::mine();
    cudasim::warpgroup_exchange(0);
    s.fenced = true;
}
__device__ __forceinline__ void wgmma_commit_group()
{
    wgmma_sim::thread_state &s = wgmma_sim::mine();
    cudasim::warpgroup_exchange(0);
    s.groups.push_back(std::move(s.open));
    s.open.clear();
}
template <int N> __device__ __forceinline__ void wgmma_wait_group()
{
    static_assert(N >= 0 && N <= 7, "wgmma.wait_group: N in 0..7");
    wgmma_sim::thread_state &s = wgmma_sim::mine();
    cudasim::warpgroup_exchange(0);
    while (s.groups.size() > (size_t)N) {
        for (wgmma_sim::op &o : s.groups.front())
            wgmma_sim::retire(o);
        s.groups.pop_front();
    }
    s.fenced = false;
}
template <int R> __device__ __forceinline__ void wgmma_fence_operands(float (&)[R]) {}

template <typename T, int NT, bool B_MN_MAJOR>
__device__ __forceinline__ void wgmma_ss(float (&d)[NT / 2], uint64_t a_desc, uint64_t b_desc, int scale_d)
{
    static_assert(NT % 8 == 0 && NT >= 8 && NT <= 256, "wgmma: NT a multiple of 8 in 8..256");
    wgmma_sim::issue<T>(d, NT, B_MN_MAJOR, true, a_desc, nullptr, b_desc, scale_d);
}
template <typename T, int NT, bool B_MN_MAJOR>
__device__ __forceinline__ void wgmma_rs(float (&d)[NT / 2], const uint32_t (&a)[4], uint64_t b_desc, int scale_d)
{
    static_assert(NT % 8 == 0 && NT >= 8 && NT <= 256, "wgmma: NT a multiple of 8 in 8..256");
    wgmma_sim::issue<T>(d, NT, B_MN_MAJOR, false, 0, a, b_desc, scale_d);
}

#endif /* CUDASIM */

#endif
