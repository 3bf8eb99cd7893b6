/* cudasim.h - runs the project's CUDA C kernels on the CPU, for make check.
 *
 * Force-included (g++ -include tests/cudasim/cudasim.h, with
 * -I tests/cudasim/include for the stub <cuda_runtime.h>, <cuda_bf16.h>,
 * <cuda_fp16.h>) into a .cu file compiled as host C++. It supplies what such
 * a kernel uses: the qualifiers, dim3 and the vector types, threadIdx & co.,
 * __syncthreads, the warp collectives, atomics, bf16/fp16 and a few math
 * intrinsics; common/cuda_launch.h turns CUDA_LAUNCH into cudasim::launch.
 * The scheduler (one block at a time, its threads as fibers) is cudasim.cc;
 * README.md says how it works and what it does not do. */
#ifndef TESTS_CUDASIM_H
#define TESTS_CUDASIM_H

#ifndef __cplusplus
#error "cudasim.h is for kernels compiled as C++"
#endif

#define CUDASIM 1

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <tuple>
#include <utility>

/* ---- qualifiers ---------------------------------------------------------- */

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
/* The scheduler runs one block at a time on one OS thread, so a function's
 * static variable is exactly one block's shared copy. All of them live in
 * one section, which the scheduler fills with 0xff bytes (NaN in fp32, bf16
 * and fp16) at every block start: a read before the block's own write sees
 * garbage, never zeros or the previous block's values. */
#define __shared__ static __attribute__((section("cudasim_shared")))
#define __constant__ static

/* ---- types ---------------------------------------------------------------- */

struct dim3 {
    unsigned x, y, z;
    constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
};
typedef dim3 uint3;

struct __align__(16) uint4 { unsigned x, y, z, w; };
struct __align__(16) int4 { int x, y, z, w; };
struct __align__(16) float4 { float x, y, z, w; };
struct __align__(8) float2 { float x, y; };
struct __align__(8) uint2 { unsigned x, y; };
static inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
static inline float2 make_float2(float x, float y) { return {x, y}; }
static inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return {x, y, z, w}; }

typedef struct cudasim_stream *cudaStream_t;
enum cudaError_t { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorInvalidConfiguration = 9 };

/* ---- the running thread ----------------------------------------------- */

namespace cudasim {

/* Where the running fiber is; set by the scheduler before every switch. */
struct thread_pos {
    dim3 thread_idx, block_idx, block_dim, grid_dim;
};
extern const thread_pos *current;

enum order { FORWARD, REVERSED };
/* The order in which a block's runnable threads are resumed after every
 * barrier (README: how a missing __syncthreads shows). Default FORWARD. */
void set_order(order o);

/* When a cp.async copy (components/common/cp_async.cuh) lands in shared
 * memory: AT_WAIT, the latest legal moment (the issuing thread's wait), or
 * AT_ISSUE, the earliest. A tile read before the wait and barrier that make
 * it visible fails at AT_WAIT; a copy issued into a tile that other warps
 * may still read (before the barrier that protects it) fails at AT_ISSUE.
 * Tests run every case in both. Default AT_WAIT. */
enum landing { AT_WAIT, AT_ISSUE };
void set_landing(landing l);
landing cp_async_landing();

void syncthreads();
/* Waits for the lanes of mask (all in this warp, this lane among them) at a
 * warp collective; posts mine and returns the 32 values posted there, valid
 * until this lane's next collective. */
const uint64_t *warp_exchange(unsigned mask, uint64_t mine);
unsigned lane_id();
unsigned active_mask();
void *dynamic_shared();
/* CUDA_STATIC_SHARED's array at p: filled with 0xff bytes the first time a
 * thread of each block reaches it (before any thread of the block can have
 * written it: the declaration comes first). */
void static_shared(void *p, size_t bytes);

/* ---- Hopper (sm_90) support: common/wgmma.cuh, mbarrier.cuh, tma.cuh and
 * hopper_sync.cuh build their models on these (README: Hopper primitives). */

/* This thread's linear index in its block (x fastest). */
unsigned thread_index();
/* Waits for all 128 threads of this thread's warpgroup (4 consecutive warps,
 * the first a multiple of 4) at a warpgroup collective; posts mine and
 * returns the 128 values posted there, valid until this thread's next one. */
const uint64_t *warpgroup_exchange(uint64_t mine);
/* Named barrier id (1..15; 0 is __syncthreads's): released when `threads`
 * threads (a multiple of 32) have arrived; wait = false only counts
 * (bar.arrive). */
void named_barrier(unsigned id, unsigned threads, bool wait);
/* mbarrier: the state lives beside the block (keyed by the address of the
 * 64-bit word in shared memory), as the PTX ISA defines it: a phase, its
 * pending arrivals and its tx-count; the phase completes when both are zero,
 * then the arrivals reset to the count and the phase flips. */
void mbar_init(uint64_t *bar, unsigned count);
/* One arrival, after adding expect_tx bytes to the tx-count. */
void mbar_arrive(uint64_t *bar, unsigned expect_tx);
/* An asynchronous copy of `bytes` that completes its tx on bar: land()
 * writes it. At AT_ISSUE it lands now; at AT_WAIT at the latest legal
 * moment: when a thread waits on bar and every arrival of the phase is in,
 * just before the phase could complete. */
void mbar_complete_tx(uint64_t *bar, unsigned bytes, std::function<void()> land);
/* Blocks until the phase of bar with this parity has completed (the
 * try_wait.parity rule: returns at once while the current phase's parity
 * differs). A wait that can never end is a reported deadlock. */
void mbar_wait(uint64_t *bar, unsigned parity);
/* Bulk stores (cp.async.bulk from shared to global memory: tma.cuh's
 * tma_store). A store joins this thread's open bulk group, which
 * bulk_commit closes; bulk_wait_read(n) returns once every committed group
 * but the n newest has read its shared memory. `read` copies the source
 * out: at issue in AT_ISSUE; in AT_WAIT at the latest legal moment, the
 * wait that lets its group go, which returns only once no other thread of
 * the block can move (so a write to the source that no barrier orders
 * after the wait lands before the read). A block that ends with a store no
 * wait let go is reported: its shared memory would be gone under it. */
void bulk_store(std::function<void()> read);
void bulk_commit();
void bulk_wait_read(unsigned n);
/* fence.proxy.async.shared::cta: this thread's shared-memory writes made
 * visible to the async proxy (a bulk store reads through it). The model's
 * rule, the one it can check: a bulk store needs every thread of the
 * issuing thread's warpgroup to have fenced since that warpgroup's last
 * bulk commit (the writers of a group's sources are its warpgroup), else it
 * aborts. */
void async_proxy_fence();
/* Shared memory as the hardware addresses it: window 0 is the block's
 * dynamic shared memory (1024-byte aligned here), window 1 the static
 * __shared__ variables; false for any other address. */
bool shared_window(const void *p, unsigned *window, uint32_t *offset);
unsigned char *shared_window_base(unsigned window);
/* Identifies the running block: a number no other block of the process had. */
unsigned long block_serial();
/* The running thread's index among all the threads running now (a
 * cluster's blocks run together: thread_index repeats across them). */
unsigned fiber_index();

/* Thread block clusters (sm_90): a launch's cluster of `cluster` blocks
 * (consecutive in x) runs together, each with its own shared memory, kept
 * until the whole cluster ends. common/cluster.cuh and tma.cuh's multicast
 * build on these. */
unsigned cluster_rank();        /* %cluster_ctarank */
unsigned cluster_size();        /* %cluster_nctarank */
/* barrier.cluster.arrive + wait: released when every live thread of the
 * cluster has arrived. */
void cluster_sync();
/* mapa: p, in this block's dynamic shared memory, at the same offset in the
 * block of that rank. An arrival or a copy there once that block has
 * exited is reported (a cluster barrier before the exit is missing). */
void *map_shared(const void *p, unsigned rank);

/* Runs body once per thread of the grid, in clusters of `cluster` blocks
 * (1: a block at a time); sets the error cudaGetLastError returns when the
 * configuration is one CUDA would refuse: among them more than 48 KiB of
 * dynamic shared memory for a kernel that did not opt in
 * (set_max_dynamic_shared, what cudaFuncSetAttribute does), or a grid that
 * is not whole clusters. */
void run_grid(const void *kernel, dim3 grid, dim3 block, size_t smem, const std::function<void()> &body,
              unsigned cluster = 1);
void set_max_dynamic_shared(const void *kernel, int bytes);
cudaError_t take_error();

template <typename... P, typename... A>
void launch(void (*kernel)(P...), dim3 grid, dim3 block, size_t smem, cudaStream_t, A &&...args)
{
    /* Converted once to the parameter types, as a real launch copies them. */
    std::tuple<P...> params(static_cast<P>(std::forward<A>(args))...);
    run_grid(reinterpret_cast<const void *>(kernel), grid, block, smem, [&] { std::apply(kernel, params); });
}

template <typename... P, typename... A>
cudaError_t launch_cluster(void (*kernel)(P...), dim3 grid, dim3 block, unsigned cluster, size_t smem,
                           cudaStream_t, A &&...args)
{
    std::tuple<P...> params(static_cast<P>(std::forward<A>(args))...);
    run_grid(reinterpret_cast<const void *>(kernel), grid, block, smem, [&] { std::apply(kernel, params); },
             cluster);
    return take_error();
}

template <typename T>
static inline uint64_t to_bits(T v)
{
    static_assert(sizeof(T) <= 8, "warp collectives move at most 8 bytes");
    uint64_t u = 0;
    std::memcpy(&u, &v, sizeof v);
    return u;
}

template <typename T>
static inline T from_bits(uint64_t u)
{
    T v;
    std::memcpy(&v, &u, sizeof v);
    return v;
}

/* ---- memory accounting: bank conflicts and sectors (README: memory) ------
 * The wrappers of the instructions whose addresses matter for speed
 * (ldmatrix in common/mma_sync.cuh, cp.async in common/cp_async.cuh) report
 * every lane's address. A warp's request is its lanes' n-th report of one
 * kind; once every lane of the warp has reported (or the block ends), it is
 * costed as the hardware would serve it:
 *   shared memory: in phases of 128 bytes' worth of lanes (8 lanes of 16
 *     bytes: one 8x8 matrix of an ldmatrix); a phase takes as many passes
 *     (wavefronts) as the most distinct 4-byte words any of the 32 banks
 *     holds (bank = word % 32; the same word for two lanes is a broadcast);
 *     ideal: the distinct words / 32, rounded up, per phase.
 *   global memory: the 32-byte sectors the active lanes touch; ideal: their
 *     distinct bytes / 32, rounded up.
 * Shared addresses count from the start of dynamic shared memory, which the
 * hardware aligns to at least 128 bytes; others (static __shared__) as they
 * are. */
enum access_kind { LDMATRIX, CP_ASYNC_SHARED, CP_ASYNC_GLOBAL, ACCESS_KINDS };
struct access_totals {
    unsigned long long requests;   /* warp-wide instructions */
    unsigned long long passes;     /* shared: wavefronts; global: sectors */
    unsigned long long ideal;      /* the same without conflicts, perfectly coalesced */
};
/* This lane's part of its warp's next request of `kind`: `bytes` from addr;
 * an inactive lane (cp.async's zero-fill form reads no global memory) takes
 * its turn but touches nothing. */
void record_access(access_kind kind, const void *addr, unsigned bytes, bool active = true);
access_totals totals(access_kind kind);
void reset_totals();
/* The scheduler's calls around each block (cudasim.cc). */
void access_block_begin(size_t threads, const void *dyn_shared, size_t dyn_bytes);
void access_block_end();

/* Lane src of this lane's width-wide segment, or this lane when src falls
 * outside it (the CUDA rule for shfl_up/down/xor). */
template <typename T>
static inline T shfl_from(unsigned mask, T v, int src, int width, bool clamp_to_self)
{
    const uint64_t *all = warp_exchange(mask, to_bits(v));
    int lane = (int)lane_id(), base = lane / width * width;
    if (clamp_to_self && (src < base || src >= base + width))
        src = lane;
    return from_bits<T>(all[base + ((src - base) % width + width) % width]);
}

}  // namespace cudasim

#define threadIdx (cudasim::current->thread_idx)
#define blockIdx (cudasim::current->block_idx)
#define blockDim (cudasim::current->block_dim)
#define gridDim (cudasim::current->grid_dim)
#define warpSize 32

static inline void __syncthreads() { cudasim::syncthreads(); }
static inline void __syncwarp(unsigned mask = 0xffffffffu) { cudasim::warp_exchange(mask, 0); }
static inline void __threadfence() {}
static inline void __threadfence_block() {}
static inline unsigned __activemask() { return cudasim::active_mask(); }

/* ---- warp collectives (converged warps; README) -------------------------- */

template <typename T>
static inline T __shfl_sync(unsigned mask, T v, int src, int width = 32)
{
    return cudasim::shfl_from(mask, v, (int)cudasim::lane_id() / width * width + src % width, width,
                              false);
}
template <typename T>
static inline T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = 32)
{
    return cudasim::shfl_from(mask, v, (int)cudasim::lane_id() ^ lane_mask, width, true);
}
template <typename T>
static inline T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = 32)
{
    return cudasim::shfl_from(mask, v, (int)(cudasim::lane_id() + delta), width, true);
}
template <typename T>
static inline T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width = 32)
{
    return cudasim::shfl_from(mask, v, (int)cudasim::lane_id() - (int)delta, width, true);
}

static inline unsigned __ballot_sync(unsigned mask, int pred)
{
    const uint64_t *all = cudasim::warp_exchange(mask, pred != 0);
    unsigned bits = 0;
    for (int l = 0; l < 32; l++)
        if ((mask >> l & 1u) && all[l])
            bits |= 1u << l;
    return bits;
}
static inline int __any_sync(unsigned mask, int pred) { return __ballot_sync(mask, pred) != 0; }
static inline int __all_sync(unsigned mask, int pred) { return __ballot_sync(mask, pred) == mask; }
static inline unsigned __reduce_add_sync(unsigned mask, unsigned v)
{
    const uint64_t *all = cudasim::warp_exchange(mask, v);
    unsigned s = 0;
    for (int l = 0; l < 32; l++)
        if (mask >> l & 1u)
            s += (unsigned)all[l];
    return s;
}

/* ---- atomics: fibers never switch inside one, so plain read-modify-writes
 * are atomic here ------------------------------------------------------------ */

template <typename T> static inline T atomicAdd(T *p, T v) { T old = *p; *p = old + v; return old; }
template <typename T> static inline T atomicSub(T *p, T v) { T old = *p; *p = old - v; return old; }
template <typename T> static inline T atomicMax(T *p, T v) { T old = *p; *p = old < v ? v : old; return old; }
template <typename T> static inline T atomicMin(T *p, T v) { T old = *p; *p = v < old ? v : old; return old; }
template <typename T> static inline T atomicExch(T *p, T v) { T old = *p; *p = v; return old; }
template <typename T> static inline T atomicCAS(T *p, T cmp, T v)
{
    T old = *p;
    if (old == cmp)
        *p = v;
    return old;
}

/* ---- math intrinsics: the precise libm function stands in for the fast
 * hardware one (README: numerics) ------------------------------------------- */

static inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
static inline float __frsqrt_rn(float x) { return 1.0f / std::sqrt(x); }
static inline float __fdividef(float a, float b) { return a / b; }
static inline float __frcp_rn(float x) { return 1.0f / x; }
/* __expf and __logf: glibc's <math.h> already declares them (its own exp and
 * log under reserved names), with the same meaning. */
static inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
static inline float __saturatef(float x) { return x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
template <typename T> static inline T __ldg(const T *p) { return *p; }

/* ---- bf16 and fp16: storage types, conversions round to nearest even ---- */

struct __nv_bfloat16 {
    unsigned short __x;
    __nv_bfloat16() = default;
};
struct __half {
    unsigned short __x;
    __half() = default;
};

static inline float __bfloat162float(__nv_bfloat16 h)
{
    uint32_t u = (uint32_t)h.__x << 16;
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}
static inline __nv_bfloat16 __float2bfloat16_rn(float f)
{
    __nv_bfloat16 h;
    if (std::isnan(f)) {
        h.__x = 0x7fff;                       /* the canonical NaN cuda_bf16.h returns */
        return h;
    }
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    u += 0x7fffu + ((u >> 16) & 1u);          /* half to even: see common/bf16.h */
    h.__x = (unsigned short)(u >> 16);
    return h;
}
static inline __nv_bfloat16 __float2bfloat16(float f) { return __float2bfloat16_rn(f); }

/* The compiler's _Float16 (gcc on x86-64 and aarch64, clang from 15)
 * converts with IEEE round-to-nearest-even: an implementation independent
 * of the project's common/f16.h, which the reference uses, so the two check
 * each other. clang 14 has no _Float16 on x86-64 (and its __fp16 needs
 * compiler-rt), so there the CPU's own F16C instructions convert: as
 * independent, and on every x86-64 CPU of the last decade. */
#if defined(__FLT16_MAX__)
static inline float __half2float(__half h)
{
    _Float16 v;
    std::memcpy(&v, &h.__x, sizeof v);
    return (float)v;
}
static inline __half __float2half_rn(float f)
{
    _Float16 v = (_Float16)f;
    __half h;
    std::memcpy(&h.__x, &v, sizeof v);
    return h;
}
#elif defined(__x86_64__)
#include <immintrin.h>
__attribute__((target("f16c"))) static inline float __half2float(__half h)
{
    return _cvtsh_ss(h.__x);
}
__attribute__((target("f16c"))) static inline __half __float2half_rn(float f)
{
    __half h;
    h.__x = (unsigned short)_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT);
    return h;
}
#else
#error "cudasim.h needs _Float16 (gcc, or clang 15 and later) for the fp16 conversions"
#endif
static inline __half __float2half(float f) { return __float2half_rn(f); }

/* ---- runtime calls the launchers make --------------------------------- */

static inline cudaError_t cudaGetLastError() { return cudasim::take_error(); }
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
template <typename F>
static inline cudaError_t cudaFuncSetAttribute(F *kernel, cudaFuncAttribute attr, int value)
{
    if (attr != cudaFuncAttributeMaxDynamicSharedMemorySize || value < 0 || value > (227 << 10))
        return cudaErrorInvalidValue;
    cudasim::set_max_dynamic_shared(reinterpret_cast<const void *>(kernel), value);
    return cudaSuccess;
}
/* The SM count a persistent launcher sizes its grid by: cudasim::sm_count,
 * small (3 unless a test sets another), so that small shapes already give
 * each block several work items. */
namespace cudasim {
inline int sm_count = 3;
}
enum cudaDeviceAttr { cudaDevAttrMultiProcessorCount = 16 };
static inline cudaError_t cudaGetDevice(int *dev)
{
    *dev = 0;
    return cudaSuccess;
}
static inline cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int dev)
{
    if (attr != cudaDevAttrMultiProcessorCount || dev != 0)
        return cudaErrorInvalidValue;
    *value = cudasim::sm_count;
    return cudaSuccess;
}
static inline const char *cudaGetErrorString(cudaError_t e)
{
    return e == cudaSuccess ? "no error" : "cudasim: invalid launch configuration";
}

#endif
