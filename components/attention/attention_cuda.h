/* attention_cuda.h - scaled-dot-product attention forward on an NVIDIA GPU
 * (attention_cuda.cu), plain C. Same shapes, layouts, causal alignment and
 * grouped-query rule as the CPU kernels (attention.h).
 *
 * Four kernels, chosen by the plan (attention_cuda_plan.c, host logic only,
 * unit-tested on any machine):
 *   HOPPER       bf16/fp16, head_dim 64 or 128, compute capability 9.0 only:
 *                FlashAttention-3's structure (attention_hopper.cu): TMA loads
 *                into a ring of shared-memory stages, mbarriers, wgmma, a
 *                producer warpgroup and two consumer warpgroups
 *   TENSOR_CORE  bf16/fp16, head_dim 64 or 128: FlashAttention-2 on mma.sync
 *   SIMT         fp32, head_dim 64 or 128: the same algorithm on fp32 FMAs
 *   FALLBACK     any dtype and head_dim: a warp per query row, simple and slow
 * The first three need 16-byte aligned q, k, v, o (16-byte row loads; TMA's
 * global addresses). */
#ifndef COMPONENTS_ATTENTION_CUDA_H
#define COMPONENTS_ATTENTION_CUDA_H

/* attention.h is a C header without linkage guards; its system headers come
 * first, outside extern "C", so that C++ sees them as usual. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "attention.h"

typedef enum attention_cuda_dtype {
    ATTENTION_CUDA_F32,
    ATTENTION_CUDA_BF16,
    ATTENTION_CUDA_F16,
} attention_cuda_dtype;

typedef enum attention_cuda_kernel {
    ATTENTION_CUDA_TENSOR_CORE,
    ATTENTION_CUDA_SIMT,
    ATTENTION_CUDA_FALLBACK,
    ATTENTION_CUDA_HOPPER,
} attention_cuda_kernel;

/* Tensor-core kernel: a block of ATTENTION_CUDA_TC_WARPS warps, each owning
 * mt = 1 or 2 m16 tiles of queries (ATTENTION_CUDA_TC_BQ(mt) a block), walks
 * the keys ATTENTION_CUDA_TC_BK at a time (FlashAttention-2's 128 x 64 tiles
 * on A100 and H100). Two m-tiles a warp halve the shared-memory reads per
 * FLOP, but make blocks twice as big: the plan takes one when two would leave
 * fewer than ATTENTION_CUDA_TC_MIN_BLOCKS blocks (two per SM of an H100's
 * 132) to spread over the GPU. head_dim 128 with two m-tiles also has a
 * 32-key build (48 KiB of shared memory instead of 64, more barriers and Q
 * reads per key), the default before; the environment variable
 * HARNESS_ATTENTION_TC_BK=32 picks it, for measuring one against the other
 * on a GPU (tests/gpu/attention_perf.sh). */
#define ATTENTION_CUDA_TC_WARPS 4
#define ATTENTION_CUDA_TC_BQ(mt) (16 * (mt) * ATTENTION_CUDA_TC_WARPS)
#define ATTENTION_CUDA_TC_BK 64
#define ATTENTION_CUDA_TC_BK_ENV "HARNESS_ATTENTION_TC_BK"
#define ATTENTION_CUDA_TC_MIN_BLOCKS 264
/* SIMT kernel: 4 threads per query, ATTENTION_CUDA_SIMT_BQ queries per block
 * of 128 threads, ATTENTION_CUDA_SIMT_BK keys per tile. */
#define ATTENTION_CUDA_SIMT_BQ 32
#define ATTENTION_CUDA_SIMT_BK 32
/* Fallback: a warp per query row, ATTENTION_CUDA_FB_ROWS rows per block; each
 * pass over the keys accumulates 32 x ATTENTION_CUDA_FB_COLS output columns. */
#define ATTENTION_CUDA_FB_ROWS 4
#define ATTENTION_CUDA_FB_COLS 4

/* Hopper kernel (sm_90a, attention_hopper.cu): a block of a producer
 * warpgroup and `consumers` warpgroups of 64 query rows each (128 x
 * (consumers + 1) threads, 64 x consumers queries a block), K and V tiles of
 * ATTENTION_CUDA_HOPPER_BK keys in ATTENTION_CUDA_HOPPER_STAGES stages.
 * Shared memory: the Q tile and the stages of K and V, 16-bit
 * elements, each tile 1024-byte aligned (the 128-byte swizzle's atoms), plus
 * 1024 bytes to align the dynamic base and the mbarriers: 224 KiB + 2 at
 * head_dim 128 with 3 stages, of the 227 KiB an H100 block may opt in to.
 * ATTENTION_CUDA_KERNEL_ENV (HARNESS_ATTENTION_KERNEL) = "mma_sync" or
 * "hopper" overrides attention_cuda_plan_arch's choice between the two. */
#define ATTENTION_CUDA_HOPPER_BK 128
/* FlashAttention-3's key tile at head_dim 128 without a causal mask: 176
 * keys (a larger S per Q K^T: fewer tiles, barriers and softmax
 * reductions per key), in 2 stages (3 would not fit: 32 + 3 x 88 KiB). Not
 * the default until a GPU has measured it against 3 stages of 128
 * (tests/gpu/attention_perf.sh's hopper_wide): HARNESS_ATTENTION_HOPPER_BK=176
 * asks for it; the plan takes it where it applies (head_dim 128, not
 * causal, 2 stages: HARNESS_ATTENTION_HOPPER_STAGES=2 or a plan of 2) and
 * ignores it elsewhere. */
#define ATTENTION_CUDA_HOPPER_WIDE_BK 176
#define ATTENTION_CUDA_HOPPER_BK_ENV "HARNESS_ATTENTION_HOPPER_BK"
/* Consumer warpgroups: 3 at head_dim 64 (FlashAttention-3's choice there:
 * the softmax of a 128-key tile takes about as long as the tile's two
 * products at 64, so two warpgroups' ping-pong cannot hide it; a third keeps
 * the tensor cores fed; 160 registers a consumer then, enough at 64), 2 at
 * 128 (its O and S need 240 registers). HARNESS_ATTENTION_HOPPER_CONSUMERS=2
 * gives head_dim 64 two, to measure one against the other; other values,
 * and 3 at head_dim 128, are ignored. */
#define ATTENTION_CUDA_HOPPER_CONSUMERS_ENV "HARNESS_ATTENTION_HOPPER_CONSUMERS"
/* 3 stages were 1-7% faster than 2 at every point of an H100's sweep
 * (tests/gpu/results/h100-80gb-hbm3-2026-11-26-57ffa6c65c85.md, "Tuning");
 * 2 (162 KiB at head_dim 128, 82 at 64) through attention_cuda_plan_hopper or
 * the environment's HARNESS_ATTENTION_HOPPER_STAGES=2, to measure one against
 * the other. */
#define ATTENTION_CUDA_HOPPER_STAGES 3
#define ATTENTION_CUDA_HOPPER_MAX_STAGES 3
#define ATTENTION_CUDA_HOPPER_STAGES_ENV "HARNESS_ATTENTION_HOPPER_STAGES"
#define ATTENTION_CUDA_HOPPER_SMEM_EXTRA 2048
/* The Hopper kernel is persistent (a block an SM taking the query blocks in
 * turn); the environment's HARNESS_ATTENTION_HOPPER_PERSISTENT=0 launches a
 * block per query block instead, the same kernel, to measure one against
 * the other. */
#define ATTENTION_CUDA_HOPPER_PERSISTENT_ENV "HARNESS_ATTENTION_HOPPER_PERSISTENT"
/* O leaves through shared memory and TMA stores (FlashAttention-3's
 * epilogue) where its staging tile (BQ x head_dim, 16-bit) fits beside the
 * stages within ATTENTION_CUDA_HOPPER_SMEM_MAX: head_dim 64, and 128 with 2
 * stages (not 128 with 3: 224 KiB + 32 would pass 227); elsewhere, or with
 * the environment's HARNESS_ATTENTION_HOPPER_TMA_STORE=0, each thread
 * stores its fragments straight to global memory. */
#define ATTENTION_CUDA_HOPPER_TMA_STORE_ENV "HARNESS_ATTENTION_HOPPER_TMA_STORE"
/* Clusters of 2 blocks with K and V multicast (FlashAttention-3's choice
 * at head_dim 128 without the causal mask: the two blocks of a cluster take
 * neighbouring query blocks of one head, so each loads half of every K and
 * V tile into both, halving the loads from L2), where the query blocks pair
 * up (an even count) with the default ring (3 stages of 128 keys). The
 * environment's HARNESS_ATTENTION_HOPPER_CLUSTER=1 launches plain blocks,
 * to measure one against the other (tests/gpu/attention_perf.sh's
 * hopper_solo). */
#define ATTENTION_CUDA_HOPPER_CLUSTER 2
#define ATTENTION_CUDA_HOPPER_CLUSTER_ENV "HARNESS_ATTENTION_HOPPER_CLUSTER"
#define ATTENTION_CUDA_HOPPER_SMEM_MAX (227u << 10)
#define ATTENTION_CUDA_KERNEL_ENV "HARNESS_ATTENTION_KERNEL"

typedef struct attention_cuda_geometry {
    attention_cuda_kernel kernel;
    unsigned head_dim;          /* the kernel's compile-time head_dim (TENSOR_CORE, SIMT), else 0 */
    unsigned threads;           /* per block */
    unsigned grid_x, grid_y, grid_z;   /* query blocks, heads, batch */
    size_t smem;                /* dynamic shared memory bytes */
    unsigned m_tiles;           /* TENSOR_CORE: m16 query tiles per warp (1 or 2), else 0 */
    unsigned block_keys;        /* TENSOR_CORE: keys per tile (64; 32 at head_dim 128, 2 m-tiles); HOPPER:
                                 * ATTENTION_CUDA_HOPPER_BK (or _WIDE_BK when asked for); else 0 */
    unsigned stages;            /* HOPPER: K/V stages in shared memory, else 0 */
    unsigned persistent;        /* HOPPER: 1, a block an SM (0: a block per query block), else 0 */
    unsigned tma_store;         /* HOPPER: 1, O through shared memory and TMA stores (smem has its tile), else 0 */
    unsigned consumers;         /* HOPPER: consumer warpgroups (2, or 3 at head_dim 64), else 0 */
    unsigned cluster;           /* HOPPER: blocks a cluster (1, or ATTENTION_CUDA_HOPPER_CLUSTER), else 0 */
} attention_cuda_geometry;

/* The geometry of `kernel` for the shape, or -1 when that kernel cannot run
 * it (wrong dtype or head_dim, misaligned pointers, a grid past CUDA's
 * limits, an invalid shape). FALLBACK takes every valid shape whose grid fits. */
int attention_cuda_plan_kernel(const attention_shape *s, attention_cuda_dtype dtype, attention_cuda_kernel kernel,
                               const void *q, const void *k, const void *v, const void *o,
                               attention_cuda_geometry *out);

/* attention_cuda_plan_kernel for the tensor-core kernel with m_tiles (1 or
 * 2) and block_keys (0: the default, else 64, or 32 at head_dim 128 with 2
 * m-tiles) given rather than chosen: each build runs any shape the kernel
 * takes, so attention_cuda_launch accepts any, and tests run them all. */
int attention_cuda_plan_tensor_core(const attention_shape *s, attention_cuda_dtype dtype, unsigned m_tiles,
                                    unsigned block_keys, const void *q, const void *k, const void *v,
                                    const void *o, attention_cuda_geometry *out);

/* The fastest kernel that takes the shape: TENSOR_CORE, SIMT, else FALLBACK.
 * Returns 0, or -1 (no kernel can: invalid shape or grid too large). A shape
 * with no query (seq_q, batch or heads 0) plans grid_x = 0: nothing to launch. */
int attention_cuda_plan(const attention_shape *s, attention_cuda_dtype dtype,
                        const void *q, const void *k, const void *v, const void *o,
                        attention_cuda_geometry *out);

/* attention_cuda_plan_kernel for the Hopper kernel with `stages` K/V stages
 * (2 or 3; 0: the environment's HARNESS_ATTENTION_HOPPER_STAGES when it is
 * 2 or 3, else ATTENTION_CUDA_HOPPER_STAGES). */
int attention_cuda_plan_hopper(const attention_shape *s, attention_cuda_dtype dtype, unsigned stages,
                               const void *q, const void *k, const void *v, const void *o,
                               attention_cuda_geometry *out);

/* The kernel for a device of compute capability `cc` (major x 10 + minor:
 * 90 for an H100; 0 when unknown): HOPPER where cc is 90 and it takes the
 * shape, else attention_cuda_plan's choice. HARNESS_ATTENTION_KERNEL=hopper
 * plans HOPPER for every shape it takes, whatever cc says (its launch fails
 * on another GPU, or in a build without sm_90a), =mma_sync never; any other value makes the plan
 * fail (-1), so that a misspelt override is not measured as the default
 * (attention_cuda_env_check says which). */
int attention_cuda_plan_arch(const attention_shape *s, attention_cuda_dtype dtype, int cc,
                             const void *q, const void *k, const void *v, const void *o,
                             attention_cuda_geometry *out);

/* The kernel's name for logs and notes ("Hopper (wgmma, TMA, warp-specialized)"). */
const char *attention_cuda_kernel_name(attention_cuda_kernel kernel);
/* What the geometry runs, in words: the kernel's name, and for the Hopper
 * kernel its stages, key tile, consumers, schedule and O's way out (what
 * the A/B switches above chose), e.g. "Hopper (...): 3 stages of 128 keys,
 * 2 consumer warpgroups, persistent, O stored from registers". Into buf of
 * len bytes; returns buf. */
const char *attention_cuda_describe(const attention_cuda_geometry *g, char *buf, size_t len);

/* 0 when every environment switch above (HARNESS_ATTENTION_KERNEL,
 * HARNESS_ATTENTION_TC_BK and the HARNESS_ATTENTION_HOPPER_ ones) is unset,
 * empty or one of its values; else -1 and, in why, the first that is not,
 * e.g. "HARNESS_ATTENTION_HOPPER_STAGES='4': use 2 or 3 (or unset it)": a
 * misspelt switch would otherwise be measured as the default. */
int attention_cuda_env_check(char *why, size_t len);

#define ATTENTION_CUDA_EINVAL (-1)
/* attention_cuda_launch of a HOPPER geometry in a build without the sm_90a
 * kernel (configure's --with-cuda-arch lacks 90), or a tensor map the
 * driver refused. */
#define ATTENTION_CUDA_ENOHOPPER (-2)
#define ATTENTION_CUDA_ENOHOPPER_WHY \
    "the Hopper kernel is not in this build (configure --with-cuda-arch without 90) or the driver " \
    "refused its tensor maps"

/* O = softmax(Q K^T scale [+ causal]) V on device pointers (o not
 * overlapping q, k, v), enqueued on stream (a cudaStream_t; NULL: the
 * default stream) with the geometry a plan made for this shape and these
 * pointers. Returns 0, ATTENTION_CUDA_EINVAL for a geometry that does not fit
 * the shape, or the cudaError_t of a failed launch. Does not synchronize. */
int attention_cuda_launch(const attention_cuda_geometry *g, const attention_shape *s, attention_cuda_dtype dtype,
                          const void *q, const void *k, const void *v, void *o, void *stream);

/* The HOPPER kernel's launch (attention_hopper.cu, or its stub when it is
 * not built), called by attention_cuda_launch once the geometry is checked:
 * encodes the tensor maps of q, k and v and launches. */
int attention_hopper_launch(const attention_cuda_geometry *g, const attention_shape *s, attention_cuda_dtype dtype,
                            const void *q, const void *k, const void *v, void *o, void *stream);

/* attention_cuda_plan, then attention_cuda_launch. */
int attention_cuda(const attention_shape *s, attention_cuda_dtype dtype, const void *q, const void *k,
                   const void *v, void *o, void *stream);

#ifdef __cplusplus
}
#endif

#endif
