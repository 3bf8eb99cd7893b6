/* attention_hopper.cu - scaled-dot-product attention forward for Hopper
 * (sm_90a only), FlashAttention-3's structure in plain CUDA C on the
 * project's Hopper primitives (common/wgmma.cuh, mbarrier.cuh, tma.cuh,
 * hopper_sync.cuh): the same arithmetic as attention_cuda.cu's tensor-core
 * kernel (its top comment: online softmax in base 2, scale folded into one
 * FMA, P rounded to 16 bits), another data path, and one difference: the
 * row sums add P's fp32 weights, not the rounded ones (softmax_step).
 *
 * Persistent: one block an SM, taking in turn the work items of BQ<NC> =
 * 64 NC queries of one (batch, head) (item_of has the order: causal, the
 * longest first), so that an item's start (Q's load, its first Q K^T) runs
 * under the last one's end instead of in a block of its own. NC + 1
 * warpgroups (NC, the plan's consumers: 2, or 3 at head_dim 64, where a
 * tile's softmax takes as long as its products and a third consumer keeps
 * the tensor cores busy while two are in their softmax):
 *   warpgroup 0   the producer: one thread issues TMA loads, each item's Q,
 *                 then its K and V tiles of BK = 128 keys (176 when asked
 *                 for: head_dim 128, not causal, 2 stages) into a ring of
 *                 `stages` = 3 (or 2) stages; it gives up its registers
 *                 (setmaxnreg.dec), it needs almost none.
 *   warpgroups 1 .. NC   consumers, 64 query rows each (setmaxnreg.inc: the
 *                 accumulators of O and S live in their registers): per key
 *                 tile, S = Q K^T by wgmma (Q and K from shared memory),
 *                 the mask and the online softmax in fp32 registers, P
 *                 packed to 16 bits in the A-fragment layout, O += P V by
 *                 wgmma (P from registers, V from shared memory);
 *                 at the item's end O / l, rounded to 16 bits, goes out
 *                 through a shared-memory tile and TMA stores that run on
 *                 under the next item (store_staged), where the plan has
 *                 room for the tile (a.tma_store: attention_cuda.h), else
 *                 straight from the registers (store_rows).
 * ptxas allocates within 65536 / (128 (NC + 1)) registers a thread for the
 * whole kernel, 168 or 128 (none spilled at head_dim 128: O 64, S 64, P
 * 32); setmaxnreg makes the consumers' real limit 240 or 160, and ptxas uses
 * it (the SASS names registers up to R187 at head_dim 128, R233 with 176-key
 * tiles, R153 at 64 with three consumers).
 * Synchronization is by mbarriers only (no __syncthreads after the setup):
 *   q_full           the producer's expect_tx of Q's bytes; TMA completes it
 *   q_empty          every consumer thread arrives once its last Q K^T of
 *                    the item retired, so the producer may load the next Q
 *   k_full[s], v_full[s]   the same for stage s's K and V (separate, so S =
 *                    Q K^T starts before V has landed)
 *   k_empty[s]       every consumer warp arrives (release_stage) once its
 *                    Q K^T of stage s retired (wgmma_wait_group<1>, or <0>
 *                    for an item's first), so the producer may load the
 *                    next K there a step before the V beside it is free (it
 *                    loads K, V, K, ... in order, so a K also waits for the
 *                    V before it: for the P V a step earlier); in a cluster,
 *                    on both blocks' barriers (each producer loads into both)
 *   v_empty[s]       the same once its P V on stage s retired (<0>)
 * Phases: the block's tile g (counted across its items) uses stage
 * g % stages in its round g / stages; a consumer waits the full barriers'
 * phase of parity (g / stages) & 1, the producer, before reusing a stage
 * (g >= stages), the empty barrier's phase of the round before, parity
 * (g / stages - 1) & 1. Item n waits q_full's phase n & 1, and the
 * producer q_empty's (n - 1) & 1 before loading item n's Q. `stages` is the
 * plan's (3, or 2 when asked for: attention_cuda.h), a template constant
 * (STAGES): the stage and the parity are then a shift or a multiply in the
 * loop, not an integer division by a run-time value.
 *
 * Shared memory, every tile in TMA's 128-byte-swizzle layout (rows of 64
 * elements = 128 bytes, 8-row atoms of 1024 bytes, 1024-byte aligned): a
 * head_dim of 128 is two column blocks of 64, each its own [rows][64] tile,
 * so one TMA box (64 elements x 1 head x rows x 1 batch, tensor map of the
 * [B][S][H][D] tensor, dims (D, H, S, B)) fills one column block:
 *   Q  [D/64][BQ][64], then per stage K [D/64][BK][64] and V [D/64][BK][64],
 *   then, with a.tma_store, O's staging tile [D/64][BQ][64] (each consumer
 *   its 64 rows, one TMA box of the O map a column block), then the
 *   mbarriers.
 * Rows past Sq or Sk arrive as zeros (TMA's out-of-range fill), so masked
 * weights (0) times them stay 0.
 *
 * Clusters of two (the plan's a.cluster, FlashAttention-3's at head_dim
 * 128 without the causal mask): the two blocks take neighbouring query
 * blocks of one (batch, head), so they need the same K and V tiles; each
 * producer loads half of each tile's rows (load_keys) into both blocks
 * with one multicast TMA load, halving what each block reads from L2. A
 * cluster barrier after the mbarriers' init (the peer's barriers exist
 * before anything lands on them) and one before the exit (no block leaves
 * while its peer may still arrive on its barriers).
 *
 * FlashAttention-3's two overlaps (consume has the schedule): within a
 * consumer, the next tile's Q K^T is issued with this tile's P V and its
 * softmax runs while P V is in the tensor cores; between the consumers,
 * their wgmma go in ping-pong turns on two named barriers, so that one's
 * softmax overlaps the other's matrix products. Tile sizes and stages are
 * fixed (attention_cuda.h): no build of other tiles yet.
 *
 * Causal: the same bottom-right alignment as attention_cuda.cu, and its
 * longest-first order in item_of; both consumers walk the item's tiles (the producer
 * loads each once for both), masking where a tile reaches past their first
 * row's last key. GQA: head h reads kv head h / (heads / kv_heads) through
 * the K and V maps' head coordinate. Compiles as host C++ under
 * tests/cudasim like the other kernel files. */
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <math.h>
#include <stdint.h>

#include "common/cluster.cuh"
#include "common/cuda_launch.h"
#include "common/hopper_sync.cuh"
#include "common/mbarrier.cuh"
#include "common/mma_sync.cuh"
#include "common/tma.cuh"
#include "common/wgmma.cuh"
#include "attention_cuda.h"


namespace {

constexpr int MAX_STAGES = ATTENTION_CUDA_HOPPER_MAX_STAGES;   /* the ring's length is a launch argument */
constexpr int WG = 128;                 /* threads of a warpgroup */
constexpr int ROWS = 64;                /* query rows of a consumer warpgroup (wgmma's M) */
/* A block's queries with NC consumer warpgroups (the plan's consumers). */
template <int NC> constexpr int BQ = ROWS * NC;
constexpr int COL = 64;                 /* elements of a 128-byte swizzled row: one column block */
constexpr int ATOM = 1024;              /* bytes of an 8-row swizzle atom */
/* Registers per thread after setmaxnreg, one block an SM: 24 x 128 + NC x
 * 128 x CONSUMER_REGS<NC> within the SM's 65536 (64512 with 2 consumers
 * of 240, 64512 with 3 of 160). */
constexpr int PRODUCER_REGS = 24;
template <int NC> constexpr int CONSUMER_REGS = NC == 2 ? 240 : 160;

template <typename T>
struct hopper_args {
    T *o;
    int seq_q, seq_k, heads, group, causal;
    int qblocks, batch;                 /* the work: qblocks x heads x batch blocks of BQ<NC> queries */
    float scale_log2;                   /* scale x log2(e) */
    int tma_store;                      /* O through shared memory and TMA stores (the plan's tma_store) */
    int cluster;                        /* blocks a cluster (the plan's): 2, K and V multicast to both */
    int qunits;                         /* qblocks / cluster: an item's query blocks along a head */
    int share;                          /* BK / cluster: the rows of a K or V tile a block loads */
    unsigned short ctas;                /* the cluster's blocks as a multicast mask */
    int items;                          /* qunits x heads x batch (the plan keeps it an int) */
};

/* The shared-memory carve-up of one block (byte offsets from the 1024-byte
 * aligned base). */
template <int D, int NC, int BK>
struct layout {
    static constexpr int Q_BYTES = BQ<NC> * D * 2, KV_BYTES = BK * D * 2;
    static constexpr int K_AT = Q_BYTES, V_AT = K_AT + KV_BYTES;  /* stage s adds s x STAGE_BYTES */
    static constexpr int STAGE_BYTES = 2 * KV_BYTES;
    /* O's staging tile (when the plan has one): Q's size and layout. */
    __device__ static int o_at(int stages) { return Q_BYTES + stages * STAGE_BYTES; }
    __device__ static int bars_at(int stages, bool staged) { return o_at(stages) + (staged ? Q_BYTES : 0); }
};

struct barriers {
    uint64_t q_full, q_empty, k_full[MAX_STAGES], v_full[MAX_STAGES], k_empty[MAX_STAGES], v_empty[MAX_STAGES];
};

template <typename T, int D, int STAGES, int NC, int BK>
__global__ void __launch_bounds__(WG * (NC + 1), 1)
attention_hopper(const __grid_constant__ tma_map qm, const __grid_constant__ tma_map km,
                 const __grid_constant__ tma_map vm, const __grid_constant__ tma_map om, hopper_args<T> a);

/* ---- launcher ------------------------------------------------------------ */

/* A tensor map of one [B][S][H][D] tensor of 16-bit elements, boxes of 64
 * elements of D x 1 head x `rows` positions x 1 batch. */
static int encode(tma_map *map, const void *base, size_t batch, size_t seq, size_t heads, int d, int rows)
{
    /* A zero-length dimension is no tensor to TMA; with Sk = 0 no tile is
     * loaded, so a length of 1 is never read. */
    const uint64_t dims[4] = {(uint64_t)d, heads, seq ? seq : 1, batch};
    const uint64_t strides[3] = {(uint64_t)d * 2, (uint64_t)heads * d * 2, (uint64_t)seq * heads * d * 2};
    const uint32_t box[4] = {COL, 1, (uint32_t)rows, 1};
    char why[160];
    return tma_encode(map, base, 4, dims, strides, box, why, sizeof why);
}

/* The launch opts in to the block's shared memory (past the default 48
 * KiB) once per instance, not in every measured launch: to the most any
 * plan asks (with O's staging tile or without), so that one opt-in serves
 * them all. */
template <typename T, int D, int STAGES, int NC, int BK>
static cudaError_t shared_opt_in()
{
    static const cudaError_t e = cudaFuncSetAttribute(
        attention_hopper<T, D, STAGES, NC, BK>, cudaFuncAttributeMaxDynamicSharedMemorySize, ATTENTION_CUDA_HOPPER_SMEM_MAX);
    return e;
}

template <typename T, int D, int STAGES, int NC, int BK>
static int launch_stages(const attention_cuda_geometry *g, const attention_shape *s, const void *q, const void *k,
                         const void *v, void *o, cudaStream_t stream)
{
    tma_map qm, km, vm, om = {};
    if (encode(&qm, q, s->batch, s->seq_q, s->heads, D, BQ<NC>) != 0 ||
        encode(&km, k, s->batch, s->seq_k, s->kv_heads, D, BK / (int)g->cluster) != 0 ||
        encode(&vm, v, s->batch, s->seq_k, s->kv_heads, D, BK / (int)g->cluster) != 0 ||
        (g->tma_store && encode(&om, o, s->batch, s->seq_q, s->heads, D, ROWS) != 0))
        return ATTENTION_CUDA_ENOHOPPER;
    hopper_args<T> a;
    a.o = static_cast<T *>(o);
    a.seq_q = (int)s->seq_q, a.seq_k = (int)s->seq_k, a.heads = (int)s->heads;
    a.group = (int)(s->heads / s->kv_heads), a.causal = s->causal != 0;
    a.qblocks = (int)g->grid_x, a.batch = (int)g->grid_z;
    a.scale_log2 = (float)((double)s->scale * 1.4426950408889634);
    a.tma_store = g->tma_store != 0;
    a.cluster = (int)g->cluster;
    a.qunits = a.qblocks / a.cluster;
    a.share = BK / a.cluster;
    a.ctas = (unsigned short)((1u << a.cluster) - 1);
    a.items = a.qunits * a.heads * a.batch;
    cudaError_t e = shared_opt_in<T, D, STAGES, NC, BK>();
    /* The SM count, asked once a device (a launch is every measured step). */
    static int sms_of[64];
    int dev = 0, asked = 0;
    if (e == cudaSuccess)
        e = cudaGetDevice(&dev);
    int *sms = dev >= 0 && dev < 64 ? &sms_of[dev] : &asked;
    if (e == cudaSuccess && !*sms)
        e = cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, dev);
    if (e != cudaSuccess)
        return (int)e;
    /* Persistent: one block an SM (all its registers), each taking the
     * plan's blocks of queries in turn (the kernel's top comment); or, when
     * the plan says so, a block for each: the same kernel, one item each.
     * In clusters, an item is a pair of query blocks, one a block, and the
     * grid as many clusters as the GPU holds at once (an SM left out of
     * every pair, in a GPC of an odd count, would otherwise make a second
     * wave). */
    auto kernel = attention_hopper<T, D, STAGES, NC, BK>;
    const unsigned cl = g->cluster;
    int most = *sms;
    if (cl > 1 && g->persistent) {
        /* Asked once a device, as the SM count: the plans that cluster this
         * instance all ask the same shared memory (3 stages, no O tile). */
        static int clusters_of[64];
        int asked_clusters = 0, *held = dev >= 0 && dev < 64 ? &clusters_of[dev] : &asked_clusters;
        if (!*held && (e = cuda_max_active_clusters(kernel, dim3(g->threads), cl, g->smem, held)) != cudaSuccess)
            return (int)e;
        most = *held;
    }
    const long long work = (long long)g->grid_x / cl * g->grid_y * g->grid_z;
    const long long units = g->persistent ? (most > 0 ? most : 1) : 0x7fffffffLL / cl;   /* a grid's x dimension */
    const unsigned blocks = (unsigned)(work < units ? work : units) * cl;
    if (cl > 1)
        return (int)CUDA_LAUNCH_CLUSTER(kernel, dim3(blocks), dim3(g->threads), cl, g->smem, stream, qm, km, vm, om,
                                        a);
    CUDA_LAUNCH(kernel, dim3(blocks), dim3(g->threads), g->smem, stream, qm, km, vm, om, a);
    return (int)cudaGetLastError();
}

/* The ring's length, the consumers and the key tile are template
 * constants, so that a tile's stage and phase are a shift or a multiply,
 * not a division, in the loop, and the tiles' registers arrays. The plan's
 * combinations (attention_cuda.h): 3 consumers only at head_dim 64, 176-key
 * tiles only at 128 with 2 stages. */
template <typename T, int D>
static int launch_typed(const attention_cuda_geometry *g, const attention_shape *s, const void *q, const void *k,
                        const void *v, void *o, cudaStream_t stream)
{
    constexpr int BK = ATTENTION_CUDA_HOPPER_BK, WIDE = ATTENTION_CUDA_HOPPER_WIDE_BK;
    if constexpr (D == 64)
        if (g->consumers == 3)
            return g->stages == 2 ? launch_stages<T, D, 2, 3, BK>(g, s, q, k, v, o, stream)
                                  : launch_stages<T, D, 3, 3, BK>(g, s, q, k, v, o, stream);
    if constexpr (D == 128)
        if (g->block_keys == WIDE)
            return launch_stages<T, D, 2, 2, WIDE>(g, s, q, k, v, o, stream);
    return g->stages == 2 ? launch_stages<T, D, 2, 2, BK>(g, s, q, k, v, o, stream)
                          : launch_stages<T, D, 3, 2, BK>(g, s, q, k, v, o, stream);
}

} /* namespace */

extern "C" int attention_hopper_launch(const attention_cuda_geometry *g, const attention_shape *s,
                                       attention_cuda_dtype dtype, const void *q, const void *k, const void *v,
                                       void *o, void *stream)
{
    /* attention_cuda_launch checked g against the plan for this shape. */
    cudaStream_t st = static_cast<cudaStream_t>(stream);
    if (dtype == ATTENTION_CUDA_BF16)
        return g->head_dim == 64 ? launch_typed<__nv_bfloat16, 64>(g, s, q, k, v, o, st)
                                 : launch_typed<__nv_bfloat16, 128>(g, s, q, k, v, o, st);
    if (dtype == ATTENTION_CUDA_F16)
        return g->head_dim == 64 ? launch_typed<__half, 64>(g, s, q, k, v, o, st)
                                 : launch_typed<__half, 128>(g, s, q, k, v, o, st);
    return ATTENTION_CUDA_EINVAL;
}

namespace {

/* ---- the kernel ----------------------------------------------------------- */

/* One work item: BQ<NC> queries of one (batch, head), and the key tiles they need. */
struct work {
    int q0, h, b, tiles;
};

template <typename T, int D, int STAGES, int NC, int BK>
__device__ void produce(unsigned char *base, barriers *bar, const tma_map *qm, const tma_map *km, const tma_map *vm,
                        const hopper_args<T> &a);
template <typename T, int D, int STAGES, int NC, int BK>
__device__ void consume(unsigned char *base, barriers *bar, const tma_map *om, const hopper_args<T> &a);

/* Keys [k0, k0 + BK) of kv head hk, batch b, of K or V into the stage's tile
 * `tile` (one TMA box a column block), completing on full: alone, or in a
 * cluster this block's share of the rows, BK / cluster of them from
 * BK / cluster x cta on, into the same place of every block of it. */
template <int D, int BK, typename T>
__device__ __forceinline__ void load_keys(unsigned char *tile, const tma_map *map, int hk, int k0, int b,
                                          uint64_t *full, const hopper_args<T> &a)
{
    /* The share and mask come from the launch's arguments and the rank from
     * its special register, where they are needed: the producer has 24
     * registers, and values held across its loop would spill. */
    const int r0 = a.share * (int)cluster_ctarank();
#pragma unroll
    for (int c = 0; c < D / COL; c++) {
        const int32_t at[4] = {c * COL, hk, k0 + r0, b};
        unsigned char *dst = tile + c * BK * COL * 2 + r0 * COL * 2;
        if (a.cluster > 1)
            tma_load_multicast(dst, map, at, full, a.ctas);
        else
            tma_load(dst, map, at, full);
    }
}

/* A consumer warp is done with a stage (its wgmma reading it retired, in
 * every lane: the __syncwarp): one arrival on the stage's empty barrier of
 * each block of the cluster, lane r on block r's (the producers there may
 * then load into it; in a cluster each producer loads into both; a launch
 * without clusters is a cluster of one). Predicated, with no branch: P V
 * may still be in flight. */
__device__ __forceinline__ void release_stage(uint64_t *bar, int cluster)
{
    const unsigned lane = threadIdx.x % 32;
    __syncwarp();
    mbar_arrive_cluster(bar, lane, lane < (unsigned)cluster);
}

/* The keys a block of queries [q0, q0 + bq) needs, in tiles of bk (as
 * attention_cuda.cu's key_tiles). */
__device__ __forceinline__ int block_key_tiles(int q0, int bq, int bk, int seq_q, int seq_k, int causal)
{
    int tiles = (seq_k + bk - 1) / bk;
    if (causal) {
        int last = q0 + bq - 1 + seq_k - seq_q;
        tiles = last < 0 ? 0 : last / bk + 1 < tiles ? last / bk + 1 : tiles;
    }
    return tiles;
}

/* Item i of the persistent schedule: the query block is the slowest index,
 * so the blocks take the items in turn, every (batch, head) of one query
 * block before the next; causal, the last query block first (it has the
 * most key tiles: longest first, so that the short ones fill the end). In
 * a cluster (never causal: the plan's), item i is a.cluster query blocks
 * side by side, the block of rank `cta` taking its own. */
template <int NC, int BK, typename T>
__device__ __forceinline__ work item_of(const hopper_args<T> &a, int i)
{
    const int cta = (int)cluster_ctarank();
    const int per_block = a.heads * a.batch;
    const int qi = (int)(i / per_block), hb = (int)(i % per_block);
    work w;
    w.q0 = ((a.causal ? a.qunits - 1 - qi : qi) * a.cluster + cta) * BQ<NC>;
    w.h = hb % a.heads, w.b = hb / a.heads;
    w.tiles = block_key_tiles(w.q0, BQ<NC>, BK, a.seq_q, a.seq_k, a.causal);
    return w;
}

template <typename T>
__device__ __forceinline__ int work_items(const hopper_args<T> &a)
{
    return a.items;
}

template <typename T, int D, int STAGES, int NC, int BK>
__global__ void __launch_bounds__(WG * (NC + 1), 1)
attention_hopper(const __grid_constant__ tma_map qm, const __grid_constant__ tma_map km,
                 const __grid_constant__ tma_map vm, const __grid_constant__ tma_map om, hopper_args<T> a)
{
    CUDA_DYNAMIC_SHARED(unsigned char, raw);
    /* The swizzle atoms need 1024-byte aligned tiles; the plan's smem has
     * 1024 bytes to spare for rounding the base up. */
    unsigned char *base = reinterpret_cast<unsigned char *>(((uintptr_t)raw + ATOM - 1) & ~(uintptr_t)(ATOM - 1));
    barriers *bar = reinterpret_cast<barriers *>(base + layout<D, NC, BK>::bars_at(STAGES, a.tma_store));

    if (threadIdx.x == 0) {
        mbar_init(&bar->q_full, 1);
        mbar_init(&bar->q_empty, NC * WG);               /* every consumer thread, once an item */
        for (int s = 0; s < STAGES; s++) {
            mbar_init(&bar->k_full[s], 1);           /* the producer's arrive_expect_tx */
            mbar_init(&bar->v_full[s], 1);
            /* every consumer warp of every block of the cluster (release_stage) */
            mbar_init(&bar->k_empty[s], a.cluster * NC * WG / 32);
            mbar_init(&bar->v_empty[s], a.cluster * NC * WG / 32);
        }
        mbar_fence_init();
    }
    /* In a cluster, the peers' barriers too are ready before anything
     * arrives on them or copies into this block. */
    if (a.cluster > 1)
        cluster_sync();
    else
        __syncthreads();
    if (threadIdx.x < WG) {
        setmaxnreg_dec<PRODUCER_REGS>();
        if (threadIdx.x == 0)
            produce<T, D, STAGES, NC, BK>(base, bar, &qm, &km, &vm, a);
    } else {
        setmaxnreg_inc<CONSUMER_REGS<NC>>();
        consume<T, D, STAGES, NC, BK>(base, bar, &om, a);
    }
    /* No block of a cluster leaves while a peer may still arrive on its
     * barriers or copy into its stages. */
    if (a.cluster > 1)
        cluster_sync();
}

/* One thread: for each of this block's items, Q (once the consumers are
 * done with the last item's), then each tile's K and V into the ring. The
 * ring runs on across items: g counts this block's tiles, so a stage's
 * round and parity follow from it, and the next item's first tiles load
 * while the consumers finish the last one's. In a cluster of two, the
 * blocks' items have the same keys: each producer loads its half of every
 * K and V tile (rows BK / 2 cta on) into both blocks (multicast), once
 * the consumers of both are done with the stage (its empty barriers count
 * both blocks' warps), and each block's full barrier expects the whole
 * tile's bytes, its own half and its peer's. */
template <typename T, int D, int STAGES, int NC, int BK>
__device__ void produce(unsigned char *base, barriers *bar, const tma_map *qm, const tma_map *km, const tma_map *vm,
                        const hopper_args<T> &a)
{
    using L = layout<D, NC, BK>;
    int g = 0, n = 0;
    for (int i = (int)cluster_id(); i < work_items(a); i += (int)cluster_count(), n++) {
        const work w = item_of<NC, BK>(a, i);
        const int hk = w.h / a.group;
        if (n > 0)         /* every consumer's last Q K^T of the item before retired */
            mbar_wait(&bar->q_empty, (unsigned)(n - 1) & 1u);
        mbar_arrive_expect_tx(&bar->q_full, L::Q_BYTES);
        for (int c = 0; c < D / COL; c++) {
            const int32_t at[4] = {c * COL, w.h, w.q0, w.b};
            tma_load(base + c * BQ<NC> * COL * 2, qm, at, &bar->q_full);
        }
        for (int t = 0; t < w.tiles; t++, g++) {
            const int s = g % STAGES;
            const unsigned before = (unsigned)(g / STAGES - 1) & 1u;   /* the stage's last round */
            unsigned char *ks = base + L::K_AT + s * L::STAGE_BYTES, *vs = base + L::V_AT + s * L::STAGE_BYTES;
            if (g >= STAGES)   /* every consumer is done with this stage's K */
                mbar_wait_cluster(&bar->k_empty[s], before);   /* its loads may go to the peer */
            mbar_arrive_expect_tx(&bar->k_full[s], L::KV_BYTES);
            load_keys<D, BK>(ks, km, hk, t * BK, w.b, &bar->k_full[s], a);
            if (g >= STAGES)   /* and with its V */
                mbar_wait_cluster(&bar->v_empty[s], before);
            mbar_arrive_expect_tx(&bar->v_full[s], L::KV_BYTES);
            load_keys<D, BK>(vs, vm, hk, t * BK, w.b, &bar->v_full[s], a);
        }
    }
}

/* Descriptors (wgmma.cuh). Q and K are K-major (head_dim contiguous): k-step
 * kk (16 elements of D) is column block kk / 4 at byte 32 (kk % 4) of its
 * swizzled rows; 8-row atoms 1024 bytes apart (the stride offset). V is
 * MN-major (head_dim, wgmma's N, contiguous): k-step kc (16 keys) starts at
 * row 16 kc, two atoms of 8 keys 1024 bytes apart; N past 64 continues in
 * the next column block, BK rows x 128 bytes on (the leading offset). */
__device__ __forceinline__ uint64_t k_major_desc(const unsigned char *tile, int rows, int kk)
{
    return wgmma_desc(tile + (kk / 4) * rows * COL * 2 + (kk % 4) * 32, 16, ATOM);
}

template <int BK> __device__ __forceinline__ uint64_t v_desc(const unsigned char *tile, int kc)
{
    return wgmma_desc(tile + kc * 16 * COL * 2, BK * COL * 2, ATOM);
}

template <typename T, int D, int NC, int BK> __device__ void issue_scores(float (&s)[BK / 2], const unsigned char *qs,
                                                                          const unsigned char *ks);
template <typename T, int D, int BK> __device__ void issue_pv(float (&o)[D / 2], const uint32_t (&p)[BK / 16][4],
                                                              const unsigned char *vs);
template <int BK> __device__ void mask_scores(float (&s)[BK / 2], int k0, int row, int seq_q, int seq_k, int causal);
template <int BK>
__device__ void softmax_step(float (&s)[BK / 2], float (&m)[2], float (&l)[2], float (&alpha)[2], float scale_log2);
template <int D> __device__ void rescale_o(float (&o)[D / 2], const float (&alpha)[2]);
template <typename T, int BK> __device__ void pack_p(uint32_t (&p)[BK / 16][4], const float (&s)[BK / 2]);
template <typename T, int D> __device__ void store_rows(const hopper_args<T> &a, const float (&o)[D / 2],
                                                        const float (&l)[2], int row, int h, int b);
template <typename T, int D, int NC> __device__ void store_staged(const tma_map *om, unsigned char *os,
                                                                  const float (&o)[D / 2], const float (&l)[2],
                                                                  int wg, int first, int h, int b);
template <int BK, typename T> __device__ bool needs_mask(const hopper_args<T> &a, int k0, int first);
template <typename T, int D, int STAGES, int NC, int BK, bool NEXT>
__device__ __forceinline__ void tile_step(const unsigned char *base, barriers *bar, const hopper_args<T> &a,
                                          const unsigned char *qs, float (&sc)[BK / 2], uint32_t (&p)[BK / 16][4],
                                          float (&o)[D / 2], float (&m)[2], float (&l)[2], float (&alpha)[2], int t,
                                          int g, int first, int row, unsigned mine, unsigned next, int wg);
template <typename T, int D, int STAGES, int BK, bool MORE>
__device__ __forceinline__ void retire_pv(barriers *bar, const float (&sc)[BK / 2], uint32_t (&p)[BK / 16][4],
                                          float (&o)[D / 2], const float (&alpha)[2], int g, int cluster);
template <typename T, int BK>
__device__ void prepare_p(float (&sc)[BK / 2], uint32_t (&p)[BK / 16][4], float (&m)[2], float (&l)[2],
                          float (&alpha)[2], const hopper_args<T> &a, int k0, int first, int row);

/* Named barriers of the ping-pong (hopper_sync.cuh; 0 is __syncthreads'):
 * consumer warpgroup w waits on PINGPONG_BAR + w for its turn to issue
 * wgmma, the warpgroup before it in the ring (w - 1, or the last for 0)
 * arrives on it when its turn ends (256 threads count). */
constexpr unsigned PINGPONG_BAR = 1, PINGPONG_THREADS = 2 * WG;
/* Consumer warpgroup w's own barrier (128 threads) around its O staging
 * tile (store_staged), past the ping-pong's (at most 3 consumers). */
constexpr unsigned STORE_BAR = PINGPONG_BAR + 3;

/* Consumer warpgroup wg (of NC): 64 query rows; warp w of it rows 16 w .. 16 w + 15,
 * lane (g, t) rows g and g + 8 of those (wgmma's D fragment, wgmma.cuh).
 *
 * The schedule, per tile t (FlashAttention-3's two overlaps):
 *   within the warpgroup: S_{t+1} = Q K_{t+1}^T is issued together with
 *   O += P_t V_t, and the softmax of S_{t+1} runs while P_t V_t is still in
 *   the tensor cores (wgmma_wait_group<1>: the older group, S, retired); O
 *   is rescaled by S_{t+1}'s alpha once P_t V_t retired (wait<0>), and only
 *   then are P's registers (the RS operand) overwritten and the stage freed
 *   (retire_pv). That wait sits at the start of the next step, past a
 *   branch: in the same block as the softmax, ptxas scheduled its
 *   WARPGROUP.DEPBAR ahead of every exp2 of the softmax (seen in the SASS of
 *   every instance), and the overlap was lost.
 *   between the warpgroups (ping-pong, a ring of NC): each issues its wgmma
 *   in turns, so that one's softmax (the exp2s on the SFU) overlaps the
 *   others' matrix products. A turn: named_bar_sync on its own barrier,
 *   issue, named_bar_arrive on the next one's ((wg + 1) % NC). Warpgroup 0
 *   goes first (the last arrives on its barrier once at the start); all
 *   have tiles + 1 turns (the first issues S_0 alone), and the last does
 *   not arrive after its last turn, which no turn of warpgroup 0 waits for.
 *   Each item starts and ends the turns so (balanced: as many arrivals as
 *   waits on each barrier), so the next item starts them afresh.
 * Items: the block's in turn (produce's order). Q is freed (q_empty) once
 * the item's last Q K^T retired, before its last P V and the store, so the
 * next item's Q loads under them; g counts the block's tiles, as produce. */
template <typename T, int D, int STAGES, int NC, int BK>
__device__ void consume(unsigned char *base, barriers *bar, const tma_map *om, const hopper_args<T> &a)
{
    using L = layout<D, NC, BK>;
    const int wg = threadIdx.x / WG - 1, warp = threadIdx.x % WG / 32, lane = threadIdx.x % 32;
    const unsigned char *qs = base + wg * ROWS * COL * 2;   /* its 64 rows of every Q column block */
    const unsigned mine = PINGPONG_BAR + wg, next = PINGPONG_BAR + (wg + 1) % NC;
    int g = 0, n = 0;
    for (int i = (int)cluster_id(); i < work_items(a); i += (int)cluster_count(), n++) {
        const work w = item_of<NC, BK>(a, i);
        const int first = w.q0 + wg * ROWS;                 /* this warpgroup's first query */
        const int row = first + warp * 16 + lane / 4;       /* this lane's first row; the other is row + 8 */
        float o[D / 2] = {}, m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f}, alpha[2];
        float sc[BK / 2];
        uint32_t p[BK / 16][4];
        mbar_wait(&bar->q_full, (unsigned)n & 1u);
        if (w.tiles > 0) {
            if (wg == NC - 1)
                named_bar_arrive(PINGPONG_BAR, PINGPONG_THREADS);    /* warpgroup 0's first turn */
            mbar_wait(&bar->k_full[g % STAGES], (unsigned)(g / STAGES) & 1u);
            named_bar_sync(mine, PINGPONG_THREADS);
            wgmma_fence();
            issue_scores<T, D, NC, BK>(sc, qs, base + L::K_AT + (g % STAGES) * L::STAGE_BYTES);
            named_bar_arrive(next, PINGPONG_THREADS);
            wgmma_wait_group<0>();
            wgmma_fence_operands(sc);   /* nvcc: no read of sc moves above the wait */
            release_stage(&bar->k_empty[g % STAGES], a.cluster);
            prepare_p<T, BK>(sc, p, m, l, alpha, a, 0, first, row);
        }
        /* The last tile has no S_{t+1}: its own instance of the step, so
         * that no wgmma sits in a branch (ptxas then fences the
         * accumulators). */
#pragma unroll 1
        for (int t = 0; t + 1 < w.tiles; t++) {
            if (t > 0)
                retire_pv<T, D, STAGES, BK, true>(bar, sc, p, o, alpha, g + t - 1, a.cluster);
            tile_step<T, D, STAGES, NC, BK, true>(base, bar, a, qs, sc, p, o, m, l, alpha, t, g + t, first, row, mine,
                                              next, wg);
        }
        mbar_arrive(&bar->q_empty);     /* every Q K^T of the item retired (wait_group in the steps) */
        if (w.tiles > 0) {
            if (w.tiles > 1)
                retire_pv<T, D, STAGES, BK, true>(bar, sc, p, o, alpha, g + w.tiles - 2, a.cluster);
            tile_step<T, D, STAGES, NC, BK, false>(base, bar, a, qs, sc, p, o, m, l, alpha, w.tiles - 1,
                                               g + w.tiles - 1, first, row, mine, next, wg);
            retire_pv<T, D, STAGES, BK, false>(bar, sc, p, o, alpha, g + w.tiles - 1, a.cluster);
        }
        if (a.tma_store)
            store_staged<T, D, NC>(om, base + L::o_at(STAGES) + wg * ROWS * COL * 2, o, l, wg, first, w.h, w.b);
        else
            store_rows<T, D>(a, o, l, row, w.h, w.b);
        g += w.tiles;
    }
    if (a.tma_store && threadIdx.x % WG == 0)
        tma_store_wait_read<0>();   /* the block's shared memory outlives the last store's read */
}

/* Tile t of consume's schedule: S_{t+1} (when NEXT) and P_t V_t issued in
 * this warpgroup's ping-pong turn, S_{t+1}'s softmax while P_t V_t runs,
 * then O rescaled, P_{t+1} packed and the stage freed. t is the item's
 * tile (its keys), g the block's (its stage and phase). */
template <typename T, int D, int STAGES, int NC, int BK, bool NEXT>
__device__ void tile_step(const unsigned char *base, barriers *bar, const hopper_args<T> &a, const unsigned char *qs,
                          float (&sc)[BK / 2], uint32_t (&p)[BK / 16][4], float (&o)[D / 2], float (&m)[2],
                          float (&l)[2], float (&alpha)[2], int t, int g, int first, int row, unsigned mine,
                          unsigned next, int wg)
{
    using L = layout<D, NC, BK>;
    const int s = g % STAGES, n = (g + 1) % STAGES;
    if (NEXT)
        mbar_wait(&bar->k_full[n], (unsigned)((g + 1) / STAGES) & 1u);
    mbar_wait(&bar->v_full[s], (unsigned)(g / STAGES) & 1u);
    named_bar_sync(mine, PINGPONG_THREADS);
    wgmma_fence();              /* o rescaled, p packed since the last wgmma */
    wgmma_fence_operands(o);
    if (NEXT)
        issue_scores<T, D, NC, BK>(sc, qs, base + L::K_AT + n * L::STAGE_BYTES);
    issue_pv<T, D, BK>(o, p, base + L::V_AT + s * L::STAGE_BYTES);
    if (wg != NC - 1 || NEXT)
        named_bar_arrive(next, PINGPONG_THREADS);
    if (NEXT) {
        wgmma_wait_group<1>();  /* S_{t+1} retired; P_t V_t may still run */
        wgmma_fence_operands(sc);
        release_stage(&bar->k_empty[n], a.cluster);
        if (needs_mask<BK>(a, (t + 1) * BK, first))
            mask_scores<BK>(sc, (t + 1) * BK, row, a.seq_q, a.seq_k, a.causal);
        softmax_step<BK>(sc, m, l, alpha, a.scale_log2);
    }
}

/* The end of tile g's step, at the start of the next one (a block of its
 * own, so that ptxas cannot hoist the wait above the softmax that should run
 * under the P V): P_t V_t retired, the stage freed, and, when a tile
 * follows (MORE), O rescaled by its alpha and its P packed. The stage is
 * free once this thread's P V retired (wgmma reads V from shared memory,
 * and P from registers, until then), not when it was issued. */
template <typename T, int D, int STAGES, int BK, bool MORE>
__device__ __forceinline__ void retire_pv(barriers *bar, const float (&sc)[BK / 2], uint32_t (&p)[BK / 16][4],
                                          float (&o)[D / 2], const float (&alpha)[2], int g, int cluster)
{
    wgmma_wait_group<0>();
    wgmma_fence_operands(o);
    release_stage(&bar->v_empty[g % STAGES], cluster);
    if (MORE) {
        rescale_o<D>(o, alpha);
        pack_p<T, BK>(p, sc);
    }
}

/* Whether key tile [k0, k0 + BK) needs the mask for the warpgroup whose first
 * query is `first`: it reaches past Sk, or (causal) past first's last key
 * (its later rows see at most 63 keys more). */
template <int BK, typename T>
__device__ bool needs_mask(const hopper_args<T> &a, int k0, int first)
{
    return k0 + BK > a.seq_k || (a.causal && k0 + BK - 1 > first + a.seq_k - a.seq_q);
}

/* The first tile's P: mask, softmax (o is still 0: no rescale), pack. */
template <typename T, int BK>
__device__ void prepare_p(float (&sc)[BK / 2], uint32_t (&p)[BK / 16][4], float (&m)[2], float (&l)[2],
                          float (&alpha)[2], const hopper_args<T> &a, int k0, int first, int row)
{
    if (needs_mask<BK>(a, k0, first))
        mask_scores<BK>(sc, k0, row, a.seq_q, a.seq_k, a.causal);
    softmax_step<BK>(sc, m, l, alpha, a.scale_log2);
    pack_p<T, BK>(p, sc);
}

/* S (64 x BK) = Q (64 x D) K^T: D / 16 wgmma of k16 with N = BK, one group
 * (the caller fences before and waits after). */
template <typename T, int D, int NC, int BK>
__device__ void issue_scores(float (&s)[BK / 2], const unsigned char *qs, const unsigned char *ks)
{
#pragma unroll
    for (int kk = 0; kk < D / 16; kk++)
        wgmma_ss<T, BK, false>(s, k_major_desc(qs, BQ<NC>, kk), k_major_desc(ks, BK, kk), kk > 0);
    wgmma_commit_group();
}

/* -inf where key j is past Sk or (causal) past row i's last key
 * i + Sk - Sq. s[4 n + 2 r + e] is row `row` + 8 r, key k0 + 8 n + 2 t + e. */
template <int BK>
__device__ void mask_scores(float (&s)[BK / 2], int k0, int row, int seq_q, int seq_k, int causal)
{
    const int t = threadIdx.x % 4;
#pragma unroll
    for (int r = 0; r < 2; r++) {
        int last = seq_k - 1;
        if (causal && row + 8 * r + seq_k - seq_q < last)
            last = row + 8 * r + seq_k - seq_q;
#pragma unroll
        for (int n = 0; n < BK / 8; n++)
#pragma unroll
            for (int e = 0; e < 2; e++)
                if (k0 + 8 * n + 2 * t + e > last)
                    s[4 * n + 2 * r + e] = -INFINITY;
    }
}

/* 2^x on the SFU alone (ex2.approx.ftz): exp2f's own sequence adds a range
 * test and two multiplies around the same instruction to keep subnormal
 * results, three more instructions for each of a tile's 64 weights a
 * thread, on the path the ping-pong must hide. Weights below 2^-126 become
 * 0, which changes no row sum. The CPU execution layer takes exp2f. */
__device__ __forceinline__ float fast_exp2(float x)
{
#ifdef __CUDA_ARCH__
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
#else
    return exp2f(x);
#endif
}

/* The online softmax of one tile for this lane's two rows (attention_cuda.cu
 * has the algebra): each row's max over its four lanes, the row sums l
 * rescaled by alpha (returned, for O: rescale_o, once the P V that still
 * accumulates into O retired), S turned into P = 2^(c S - m) in place and
 * its fp32 weights added to l (as FlashAttention-3 does: summing the 16-bit
 * weights pack_p makes would cost two more instructions a weight). A
 * function of its own, like the mask and the store, so that consume reads
 * as the schedule it is. */
template <int BK>
__device__ void softmax_step(float (&s)[BK / 2], float (&m)[2], float (&l)[2], float (&alpha)[2], float scale_log2)
{
#pragma unroll
    for (int r = 0; r < 2; r++) {
        float smax = -INFINITY;
#pragma unroll
        for (int n = 0; n < BK / 8; n++)
            smax = fmaxf(smax, fmaxf(s[4 * n + 2 * r], s[4 * n + 2 * r + 1]));
        smax = fmaxf(smax, __shfl_xor_sync(0xffffffffu, smax, 1));
        smax = fmaxf(smax, __shfl_xor_sync(0xffffffffu, smax, 2));
        const float mx = fmaxf(m[r], smax * scale_log2);
        const float base = mx == -INFINITY ? 0.0f : mx;   /* nothing visible yet: no -inf - -inf */
        alpha[r] = fast_exp2(m[r] - base);
        m[r] = mx;
        float sum = 0.0f;
#pragma unroll
        for (int n = 0; n < BK / 8; n++) {
            s[4 * n + 2 * r] = fast_exp2(fmaf(s[4 * n + 2 * r], scale_log2, -base));
            s[4 * n + 2 * r + 1] = fast_exp2(fmaf(s[4 * n + 2 * r + 1], scale_log2, -base));
            sum += s[4 * n + 2 * r] + s[4 * n + 2 * r + 1];
        }
        l[r] = fmaf(l[r], alpha[r], sum);
    }
}

/* O's rows times their alpha (d[4 n + 2 r + e] is row `row` + 8 r). */
template <int D>
__device__ void rescale_o(float (&o)[D / 2], const float (&alpha)[2])
{
#pragma unroll
    for (int n = 0; n < D / 8; n++)
#pragma unroll
        for (int r = 0; r < 2; r++)
            o[4 * n + 2 * r] *= alpha[r], o[4 * n + 2 * r + 1] *= alpha[r];
}

/* P's A fragments for wgmma's RS form, keys 16 kc .. 16 kc + 15: S's
 * n-tiles 2 kc and 2 kc + 1 packed to 16 bits (mma_sync.cuh's A layout:
 * a0 row g keys 2t.., a1 row g + 8, a2 row g keys 2t + 8.., a3 row g + 8). */
template <typename T, int BK>
__device__ void pack_p(uint32_t (&p)[BK / 16][4], const float (&s)[BK / 2])
{
#pragma unroll
    for (int kc = 0; kc < BK / 16; kc++) {
        const float *lo = s + 8 * kc, *hi = s + 8 * kc + 4;
        p[kc][0] = pack2<T>(lo[0], lo[1]), p[kc][1] = pack2<T>(lo[2], lo[3]);
        p[kc][2] = pack2<T>(hi[0], hi[1]), p[kc][3] = pack2<T>(hi[2], hi[3]);
    }
}

/* O (64 x D) += P (64 x BK) V (BK x D): BK / 16 wgmma of k16 with N = D,
 * P from registers, one group (the caller fences before and waits after:
 * before it frees the stage, touches o or overwrites p). */
template <typename T, int D, int BK>
__device__ void issue_pv(float (&o)[D / 2], const uint32_t (&p)[BK / 16][4], const unsigned char *vs)
{
#pragma unroll
    for (int kc = 0; kc < BK / 16; kc++)
        wgmma_rs<T, D, true>(o, p[kc], v_desc<BK>(vs, kc), 1);
    wgmma_commit_group();
}

/* 1 / l for this lane's row r (the row sum over its four lanes), 0 where
 * no key was visible (l = 0). */
__device__ __forceinline__ float inverse_row_sum(const float (&l)[2], int r)
{
    float sum = l[r];
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    sum += __shfl_xor_sync(0xffffffffu, sum, 2);
    return sum > 0.0f ? 1.0f / sum : 0.0f;
}

/* o = O / l for this lane's rows below Sq, two adjacent columns a 32-bit
 * store. */
template <typename T, int D>
__device__ void store_rows(const hopper_args<T> &a, const float (&o)[D / 2], const float (&l)[2], int row, int h,
                           int b)
{
    const int t = threadIdx.x % 4;
#pragma unroll
    for (int r = 0; r < 2; r++) {
        const float inv = inverse_row_sum(l, r);
        const int i = row + 8 * r;
        if (i < a.seq_q) {
            T *orow = a.o + (((long long)b * a.seq_q + i) * a.heads + h) * D;
#pragma unroll
            for (int n = 0; n < D / 8; n++)
                *reinterpret_cast<uint32_t *>(orow + 8 * n + 2 * t) =
                    pack2<T>(o[4 * n + 2 * r] * inv, o[4 * n + 2 * r + 1] * inv);
        }
    }
}

/* FlashAttention-3's epilogue: the warpgroup's 64 rows of o = O / l,
 * rounded to 16 bits, written into its staging tile os (Q's layout: per
 * column block of 64, [64 rows][64] in the 128-byte swizzle), then TMA
 * stores of the D / 64 boxes by one thread, which clip the rows past Sq. The
 * stores run on under the next item; before the tile is written again, that
 * thread waits until they have read it, and the warpgroup's barrier passes
 * this on. Each thread fences its writes to the async proxy (the TMA unit
 * reads shared memory through it) before the barrier the store follows. */
template <typename T, int D, int NC>
__device__ void store_staged(const tma_map *om, unsigned char *os, const float (&o)[D / 2], const float (&l)[2],
                             int wg, int first, int h, int b)
{
    const int t = threadIdx.x % 4, local = threadIdx.x % WG / 4;   /* this lane's first row: warp 16 w + lane / 4 */
    const int lrow = local / 8 * 16 + local % 8;
    const bool issuer = threadIdx.x % WG == 0;
    if (issuer)
        tma_store_wait_read<0>();   /* the last item's stores have read the tile */
    named_bar_sync(STORE_BAR + wg, WG);
#pragma unroll
    for (int r = 0; r < 2; r++) {
        const float inv = inverse_row_sum(l, r);
        const int rr = lrow + 8 * r;
#pragma unroll
        for (int n = 0; n < D / 8; n++) {
            const int col = 8 * n + 2 * t, off = rr * 128 + (col % COL) * 2;   /* in its column block */
            *reinterpret_cast<uint32_t *>(os + col / COL * BQ<NC> * COL * 2 + (off ^ ((rr % 8) << 4))) =
                pack2<T>(o[4 * n + 2 * r] * inv, o[4 * n + 2 * r + 1] * inv);
        }
    }
    fence_async_shared();
    named_bar_sync(STORE_BAR + wg, WG);
    if (issuer) {
#pragma unroll
        for (int c = 0; c < D / COL; c++) {
            const int32_t at[4] = {c * COL, h, first, b};
            tma_store(om, at, os + c * BQ<NC> * COL * 2);
        }
        tma_store_commit();
    }
}

} /* namespace */
