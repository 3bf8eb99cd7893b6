/* attention_cuda.cu - scaled-dot-product attention forward on an NVIDIA GPU,
 * FlashAttention-2's algorithm: O = softmax(Q K^T scale [+ causal]) V
 * without ever storing the Sq x Sk score matrix.
 *
 * Per query row i (of one batch and head), visible keys j = 0 .. n_i - 1
 * (all Sk, or under the bottom-right causal mask j <= i + Sk - Sq), and in
 * base 2 with the scale folded into one multiplier c = scale log2(e):
 *   x_ij = c (q_i . k_j)                       so exp(scale q.k) = 2^x
 *   o_i  = sum_j 2^(x_ij - m) v_j / sum_j 2^(x_ij - m),   m = max_j x_ij.
 * The keys come a tile at a time. After tile t, with running max m_t,
 * running sum l_t and unnormalized output acc_t:
 *   m_t   = max(m_{t-1}, max_j x_ij)
 *   alpha = 2^(m_{t-1} - m_t)                  (0 on the first tile: m_0 = -inf)
 *   p_ij  = 2^(x_ij - m_t)
 *   l_t   = alpha l_{t-1} + sum_j p_ij
 *   acc_t = alpha acc_{t-1} + sum_j p_ij v_j
 * and o_i = acc / l once, after the last tile (0 when no key is visible:
 * l = 0). A row with nothing visible yet keeps m = -inf; it subtracts 0
 * instead, so that no -inf - -inf makes a NaN.
 *
 * Kernels (attention_cuda_plan.c chooses):
 *   attention_tc        bf16/fp16, head_dim 64/128: a block of 4 warps owns 128
 *                       queries, each warp 32 of them (64 and 16 on small grids);
 *                       K and V tiles of 64 keys (a 32-key build at head_dim 128:
 *                       attention_cuda.h) in shared memory; S = Q K^T and O += P V on tensor cores
 *                       (mma.sync m16n8k16, ldmatrix: common/mma_sync.cuh), the
 *                       softmax in fp32 registers. P is rounded to 16 bits for
 *                       the second product, and l sums those rounded weights,
 *                       so o stays a convex combination of v. Loads overlap the
 *                       math (cp.async: common/cp_async.cuh): V_t arrives during
 *                       Q K_t^T, K_{t+1} during P V_t.
 *   attention_simt      fp32, head_dim 64/128: the same loop and load pipeline
 *                       on fp32 FMAs, 4 threads per query, 32 queries per block,
 *                       tiles of 32 keys.
 *   attention_fallback  any dtype, any head_dim: a warp per query row, two passes
 *                       over the keys (the max, then the sums), 128 output
 *                       columns per pass. Correct, not fast.
 * Causal: a block stops at the last key tile any of its queries sees, and
 * masks only tiles that reach past its first query's last key (or past Sk);
 * the tiled kernels run their query blocks last first (the longest first).
 * Grouped-query attention: head h reads kv head h / (heads / kv_heads) in
 * place; nothing is copied.
 *
 * Layouts as attention.h: q, o [batch][seq_q][heads][head_dim], k, v
 * [batch][seq_k][kv_heads][head_dim]. The file reads top to bottom: the
 * launcher, the kernels, the device helpers. It also compiles as host C++
 * under tests/cudasim (common/cuda_launch.h). */
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <math.h>

#include "common/cp_async.cuh"
#include "common/cuda_launch.h"
#include "common/mma_sync.cuh"
#include "attention_cuda.h"

typedef long long idx_t;   /* element offsets: batch x seq x heads x head_dim can pass 2^31 */

template <typename T>
struct att_args {
    const T *q, *k, *v;
    T *o;
    int seq_q, seq_k, heads, kv_heads, group, head_dim, causal;
    float scale_log2;             /* scale x log2(e) */
};

template <typename T, int D, int MT, int BK> __global__ void attention_tc(att_args<T> a);
template <int D> __global__ void attention_simt(att_args<float> a);
template <typename T> __global__ void attention_fallback(att_args<T> a);

/* ---- launcher ------------------------------------------------------------ */

/* A tensor-core build whose tiles pass the default 48 KiB of shared memory
 * must opt in to them; once per process (a function-local static), not on
 * every launch, which runs in the measured step. */
template <typename T, int D, int MT, int BK>
static cudaError_t tc_shared_opt_in()
{
    static const cudaError_t e = cudaFuncSetAttribute(attention_tc<T, D, MT, BK>,
                                                      cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                      (ATTENTION_CUDA_TC_BQ(MT) + 2 * BK) * D * (int)sizeof(T));
    return e;
}

template <typename T>
static int launch_typed(const attention_cuda_geometry *g, const att_args<T> &a, cudaStream_t stream)
{
    constexpr int BK = ATTENTION_CUDA_TC_BK;
    void (*kernel)(att_args<T>) = attention_fallback<T>;
    if constexpr (sizeof(T) == 2) {
        if (g->kernel == ATTENTION_CUDA_TENSOR_CORE && g->m_tiles == 1)
            kernel = g->head_dim == 64 ? attention_tc<T, 64, 1, BK> : attention_tc<T, 128, 1, BK>;
        else if (g->kernel == ATTENTION_CUDA_TENSOR_CORE && g->head_dim == 64)
            kernel = attention_tc<T, 64, 2, BK>;
        else if (g->kernel == ATTENTION_CUDA_TENSOR_CORE && g->block_keys == 32)
            kernel = attention_tc<T, 128, 2, 32>;
        else if (g->kernel == ATTENTION_CUDA_TENSOR_CORE) {   /* the 64 KiB build */
            cudaError_t e = tc_shared_opt_in<T, 128, 2, BK>();
            if (e != cudaSuccess)
                return (int)e;
            kernel = attention_tc<T, 128, 2, BK>;
        }
    } else {
        if (g->kernel == ATTENTION_CUDA_SIMT)
            kernel = g->head_dim == 64 ? attention_simt<64> : attention_simt<128>;
    }
    CUDA_LAUNCH(kernel, dim3(g->grid_x, g->grid_y, g->grid_z), dim3(g->threads), g->smem, stream, a);
    return (int)cudaGetLastError();
}

template <typename T>
static att_args<T> make_args(const attention_shape *s, const void *q, const void *k, const void *v, void *o)
{
    att_args<T> a;
    a.q = static_cast<const T *>(q), a.k = static_cast<const T *>(k), a.v = static_cast<const T *>(v);
    a.o = static_cast<T *>(o);
    a.seq_q = (int)s->seq_q, a.seq_k = (int)s->seq_k, a.heads = (int)s->heads, a.kv_heads = (int)s->kv_heads;
    a.group = (int)(s->heads / s->kv_heads), a.head_dim = (int)s->head_dim, a.causal = s->causal != 0;
    a.scale_log2 = (float)((double)s->scale * 1.4426950408889634);
    return a;
}

extern "C" int attention_cuda_launch(const attention_cuda_geometry *g, const attention_shape *s,
                                     attention_cuda_dtype dtype, const void *q, const void *k, const void *v,
                                     void *o, void *stream)
{
    /* The geometry must be what the plan makes for this shape and these
     * pointers (with the tensor-core kernel, for its m_tiles and block_keys):
     * a kernel run on a shape it was not planned for reads out of bounds. */
    attention_cuda_geometry want;
    int planned = g->kernel == ATTENTION_CUDA_TENSOR_CORE
                      ? attention_cuda_plan_tensor_core(s, dtype, g->m_tiles, g->block_keys, q, k, v, o, &want)
                  : g->kernel == ATTENTION_CUDA_HOPPER
                      ? attention_cuda_plan_hopper(s, dtype, g->stages ? g->stages : 1, q, k, v, o, &want)
                      : attention_cuda_plan_kernel(s, dtype, g->kernel, q, k, v, o, &want);
    if (planned != 0 || want.kernel != g->kernel || want.head_dim != g->head_dim ||
        want.threads != g->threads || want.grid_x != g->grid_x || want.grid_y != g->grid_y ||
        want.grid_z != g->grid_z || want.smem != g->smem || want.m_tiles != g->m_tiles ||
        want.block_keys != g->block_keys || want.stages != g->stages || want.consumers != g->consumers ||
        g->tma_store > want.tma_store || g->cluster > want.cluster ||
        (g->kernel == ATTENTION_CUDA_HOPPER && g->cluster == 0))
        return ATTENTION_CUDA_EINVAL;
    if (g->grid_x == 0)
        return 0;
    if (g->kernel == ATTENTION_CUDA_HOPPER)   /* attention_hopper.cu, built for sm_90a alone */
        return attention_hopper_launch(g, s, dtype, q, k, v, o, stream);
    cudaStream_t st = static_cast<cudaStream_t>(stream);
    switch (dtype) {
    case ATTENTION_CUDA_F32:
        return launch_typed(g, make_args<float>(s, q, k, v, o), st);
    case ATTENTION_CUDA_BF16:
        return launch_typed(g, make_args<__nv_bfloat16>(s, q, k, v, o), st);
    case ATTENTION_CUDA_F16:
        return launch_typed(g, make_args<__half>(s, q, k, v, o), st);
    }
    return ATTENTION_CUDA_EINVAL;
}

extern "C" int attention_cuda(const attention_shape *s, attention_cuda_dtype dtype, const void *q, const void *k,
                              const void *v, void *o, void *stream)
{
    attention_cuda_geometry g;
    if (attention_cuda_plan(s, dtype, q, k, v, o, &g) != 0)
        return ATTENTION_CUDA_EINVAL;
    return attention_cuda_launch(&g, s, dtype, q, k, v, o, stream);
}

/* ---- kernels ------------------------------------------------------------- */

template <int D> __device__ __forceinline__ int swz(int row, int col);
template <int D> __device__ __forceinline__ int swz_step(int at, int k);
template <typename T, int D, int ROWS, int THREADS>
__device__ __forceinline__ void load_tile_async(T *dst, const T *src, idx_t stride, int row0, int rows);
__device__ __forceinline__ float warp_sum(float v);
__device__ __forceinline__ float to_float(float v);
__device__ __forceinline__ float to_float(__nv_bfloat16 v);
__device__ __forceinline__ float to_float(__half v);
template <typename T> __device__ __forceinline__ T from_float(float v);

/* The keys a block of queries [q0, q0 + bq) needs, in tiles of bk: all of
 * them, or under the causal mask up to its last query's last visible key
 * q0 + bq - 1 + Sk - Sq (none when that is negative). */
__device__ __forceinline__ int key_tiles(int q0, int bq, int bk, int seq_q, int seq_k, int causal)
{
    int tiles = (seq_k + bk - 1) / bk;
    if (causal) {
        int last = q0 + bq - 1 + seq_k - seq_q;
        tiles = last < 0 ? 0 : last / bk + 1 < tiles ? last / bk + 1 : tiles;
    }
    return tiles;
}

/* Whether key tile [k0, k0 + bk) needs a mask for queries from q0 on: it
 * reaches past Sk, or (causal) past q0's last visible key. Only the tiles on
 * the diagonal and the last one do. */
__device__ __forceinline__ bool tile_needs_mask(int k0, int bk, int q0, int seq_q, int seq_k, int causal)
{
    return k0 + bk > seq_k || (causal && k0 + bk - 1 > q0 + seq_k - seq_q);
}

/* Tensor cores. Warp w owns MT (1 or 2, the plan's m_tiles) m16 tiles of queries,
 * rows r0 = 16 MT w .. r0 + 16 MT - 1 of the block; in each tile lane (g, t)
 * holds, for every 8-column n-tile, rows g and g + 8, columns 2t and 2t + 1
 * (mma_sync.cuh). Per key tile of BK keys (64; 32 in one build):
 *   S (16 MT x BK) = Q (16 MT x D) K^T (D x BK):   BK/8 n-tiles x D/16 k-steps of mma per m-tile
 *   O (16 MT x D) += P (16 MT x BK) V (BK x D):    D/8 n-tiles x BK/16 k-steps of mma per m-tile
 * Each K or V fragment a warp reads from shared memory feeds MT mma, so MT = 2
 * halves the shared-memory traffic per FLOP of one tile per warp (which bounds
 * mma.sync there; small grids take MT = 1, see attention_cuda.h). Q's
 * fragments are read from shared memory again for each key tile (kept in
 * registers beside 2 x 16 x D accumulators they would spill), so 64 keys a
 * tile read Q half as often per key as 32 do: 5 ldmatrix wavefronts per key
 * and warp instead of 6 at head_dim 128 (cudasim's count). S's accumulators
 * are reused as P's A fragments. Shared memory: the Q tile, one K and one V
 * tile, 16-byte chunks XOR-swizzled by row (swz) so that ldmatrix's eight row
 * reads hit distinct banks; 64 KiB at head_dim 128 with two m-tiles (the
 * launcher opts in past 48, once: tc_shared_opt_in).
 *
 * Registers: at head_dim 128 with two m-tiles and 64 keys, 128 accumulators
 * of O and 64 of S leave little beside them (255 used, none spilled on
 * sm_80 and sm_90, tests/integration/cuda_build.sh): the ldmatrix and
 * cp.async addresses are one per-lane base each plus constants (not a
 * register per k-step), and the row sums are plain fp32 adds.
 *
 * Loads overlap compute (cp.async, as FlashAttention-2 does with one buffer
 * each): V of tile t is fetched while S = Q K_t^T is computed, K of tile
 * t + 1 while O += P V_t is. Two barriers per tile: after K_t lands (V's
 * buffer is then free: every warp is past its P V_{t-1}) and after V_t lands
 * (K's buffer is then free: every warp is past its Q K_t^T).
 *
 * Causal: query blocks run in reverse (the last, which see the most keys,
 * first), so that the short blocks fill the tail of the grid. */
template <typename T, int D, int MT, int BK>
__global__ void __launch_bounds__(32 * ATTENTION_CUDA_TC_WARPS, 1)
attention_tc(att_args<T> a)
{
    constexpr int BQ = ATTENTION_CUDA_TC_BQ(MT);
    constexpr int THREADS = 32 * ATTENTION_CUDA_TC_WARPS;
    CUDA_DYNAMIC_SHARED(T, smem);
    T *qs = smem, *ks = qs + BQ * D, *vs = ks + BK * D;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int qblock = a.causal ? (int)(gridDim.x - 1 - blockIdx.x) : (int)blockIdx.x;
    const int q0 = qblock * BQ, r0 = warp * 16 * MT, h = blockIdx.y, b = blockIdx.z, hk = h / a.group;
    const idx_t q_stride = (idx_t)a.heads * D, kv_stride = (idx_t)a.kv_heads * D;
    const T *qg = a.q + ((idx_t)b * a.seq_q * a.heads + h) * D;
    const T *kg = a.k + ((idx_t)b * a.seq_k * a.kv_heads + hk) * D;
    const T *vg = a.v + ((idx_t)b * a.seq_k * a.kv_heads + hk) * D;
    const int tiles = key_tiles(q0, BQ, BK, a.seq_q, a.seq_k, a.causal);

    load_tile_async<T, D, BQ, THREADS>(qs, qg, q_stride, q0, a.seq_q);
    if (tiles > 0)
        load_tile_async<T, D, BK, THREADS>(ks, kg, kv_stride, 0, a.seq_k);
    cp_async_commit();

    /* acc: O's C fragments; lsum: this lane's part of the row sums of P
     * (rows g and g + 8; the four lanes of a row are added at the end); m:
     * the running max of rows g and g + 8. */
    float acc[MT][D / 8][4] = {}, lsum[MT][2] = {};
    float m[MT][2];
#pragma unroll
    for (int mt = 0; mt < MT; mt++)
        m[mt][0] = m[mt][1] = -INFINITY;
    /* Each lane's ldmatrix row at k-step 0 (swz_step gives the others):
     * Q's per m-tile, K's and V's for their first 16 keys. */
    int qrow[MT];
#pragma unroll
    for (int mt = 0; mt < MT; mt++)
        qrow[mt] = swz<D>(r0 + mt * 16 + (lane & 15), (lane >> 4) * 8);
    const int krow = swz<D>((lane & 7) + (lane >> 4) * 8, ((lane >> 3) & 1) * 8);
    const int vrow = swz<D>((lane & 7) + ((lane >> 3) & 1) * 8, (lane >> 4) * 8);
#pragma unroll 1
    for (int kt = 0; kt < tiles; kt++) {
        const int k0 = kt * BK;
        cp_async_wait_all();                   /* K_t (with Q on the first tile), fetched during P V_{t-1} */
        __syncthreads();
        load_tile_async<T, D, BK, THREADS>(vs, vg, kv_stride, k0, a.seq_k);
        cp_async_commit();

        /* S = Q K^T. Q's A fragments per m-tile and 16-column step: matrices
         * (rows 0-7, cols 0-7), (8-15, 0-7), (0-7, 8-15), (8-15, 8-15). K is
         * row-major [key][d], i.e. K^T column-major: plain ldmatrix gives B
         * fragments; one x4 covers two n-tiles (16 keys) of one k-step:
         * matrices (keys 0-7, d 0-7), (0-7, 8-15), (8-15, 0-7), (8-15, 8-15). */
        float s[MT][BK / 8][4] = {};
#pragma unroll
        for (int kk = 0; kk < D / 16; kk++) {
            uint32_t qa[MT][4];
#pragma unroll
            for (int mt = 0; mt < MT; mt++)
                ldmatrix_x4(qa[mt], qs + swz_step<D>(qrow[mt], kk));
#pragma unroll
            for (int np = 0; np < BK / 16; np++) {
                uint32_t r[4];
                ldmatrix_x4(r, ks + swz_step<D>(krow, kk) + np * 16 * D);
#pragma unroll
                for (int mt = 0; mt < MT; mt++) {
                    mma_16816<T>(s[mt][2 * np], qa[mt], r[0], r[1]);
                    mma_16816<T>(s[mt][2 * np + 1], qa[mt], r[2], r[3]);
                }
            }
        }

        /* S masked to -inf where the key is past Sk or the causal limit:
         * row i sees keys j <= last, last = min(Sk - 1, i + Sk - Sq). */
        if (tile_needs_mask(k0, BK, q0, a.seq_q, a.seq_k, a.causal)) {
#pragma unroll
            for (int mt = 0; mt < MT; mt++)
#pragma unroll
                for (int row = 0; row < 2; row++) {
                    const int i = q0 + r0 + mt * 16 + g + row * 8;
                    int last = a.seq_k - 1;
                    if (a.causal && i + a.seq_k - a.seq_q < last)
                        last = i + a.seq_k - a.seq_q;
                    const int j0 = k0 + 2 * t;
#pragma unroll
                    for (int nt = 0; nt < BK / 8; nt++) {
                        if (j0 + nt * 8 > last)
                            s[mt][nt][2 * row] = -INFINITY;
                        if (j0 + nt * 8 + 1 > last)
                            s[mt][nt][2 * row + 1] = -INFINITY;
                    }
                }
        }

        /* Online softmax per row (see the top): the row's max over its four
         * lanes, alpha applied to acc and l, s turned into p in place. x = c S
         * is never stored: the plan takes this kernel only for c > 0, so
         * max x = c max S, and 2^(x - m) is one FMA and an exp2. */
#pragma unroll
        for (int mt = 0; mt < MT; mt++)
#pragma unroll
            for (int row = 0; row < 2; row++) {
                float smax = -INFINITY;
#pragma unroll
                for (int nt = 0; nt < BK / 8; nt++)
                    smax = fmaxf(smax, fmaxf(s[mt][nt][2 * row], s[mt][nt][2 * row + 1]));
                smax = fmaxf(smax, __shfl_xor_sync(0xffffffffu, smax, 1));
                smax = fmaxf(smax, __shfl_xor_sync(0xffffffffu, smax, 2));
                const float mx = fmaxf(m[mt][row], smax * a.scale_log2);
                const float base = mx == -INFINITY ? 0.0f : mx;
                const float alpha = exp2f(m[mt][row] - base);
                m[mt][row] = mx;
                lsum[mt][row] *= alpha;
#pragma unroll
                for (int nt = 0; nt < D / 8; nt++)
                    acc[mt][nt][2 * row] *= alpha, acc[mt][nt][2 * row + 1] *= alpha;
#pragma unroll
                for (int nt = 0; nt < BK / 8; nt++)
                    s[mt][nt][2 * row] = exp2f(fmaf(s[mt][nt][2 * row], a.scale_log2, -base)),
                    s[mt][nt][2 * row + 1] = exp2f(fmaf(s[mt][nt][2 * row + 1], a.scale_log2, -base));
            }

        cp_async_wait_all();                   /* V_t */
        __syncthreads();
        if (kt + 1 < tiles) {
            load_tile_async<T, D, BK, THREADS>(ks, kg, kv_stride, k0 + BK, a.seq_k);
            cp_async_commit();
        }

        /* O += P V. P's A fragment for keys 16kc..16kc+15 is S's C fragments
         * of n-tiles 2kc and 2kc + 1, packed to 16 bits; the row sums add up
         * those rounded weights, so that o stays a convex combination of v
         * (registers 0 and 2 hold row g, 1 and 3 row g + 8). V is row-major
         * [key][d]: ldmatrix .trans gives B fragments; one x4 covers two
         * n-tiles (16 columns of d): matrices (keys 0-7, d 0-7), (8-15, 0-7),
         * (0-7, 8-15), (8-15, 8-15). */
#pragma unroll
        for (int kc = 0; kc < BK / 16; kc++) {
            uint32_t pa[MT][4];
#pragma unroll
            for (int mt = 0; mt < MT; mt++) {
                const float(*sp)[4] = s[mt] + 2 * kc;
                pa[mt][0] = pack2<T>(sp[0][0], sp[0][1]), pa[mt][1] = pack2<T>(sp[0][2], sp[0][3]);
                pa[mt][2] = pack2<T>(sp[1][0], sp[1][1]), pa[mt][3] = pack2<T>(sp[1][2], sp[1][3]);
                lsum[mt][0] += (unpack_lo<T>(pa[mt][0]) + unpack_hi<T>(pa[mt][0])) +
                               (unpack_lo<T>(pa[mt][2]) + unpack_hi<T>(pa[mt][2]));
                lsum[mt][1] += (unpack_lo<T>(pa[mt][1]) + unpack_hi<T>(pa[mt][1])) +
                               (unpack_lo<T>(pa[mt][3]) + unpack_hi<T>(pa[mt][3]));
            }
#pragma unroll
            for (int dp = 0; dp < D / 16; dp++) {
                uint32_t r[4];
                ldmatrix_x4_trans(r, vs + swz_step<D>(vrow, dp) + kc * 16 * D);
#pragma unroll
                for (int mt = 0; mt < MT; mt++) {
                    mma_16816<T>(acc[mt][2 * dp], pa[mt], r[0], r[1]);
                    mma_16816<T>(acc[mt][2 * dp + 1], pa[mt], r[2], r[3]);
                }
            }
        }
    }
    cp_async_wait_all();                       /* nothing left pending when no tile ran */

    /* o = acc / (row sum), two adjacent columns per 32-bit store. */
#pragma unroll
    for (int mt = 0; mt < MT; mt++)
#pragma unroll
        for (int row = 0; row < 2; row++) {
            float sum = lsum[mt][row];
            sum += __shfl_xor_sync(0xffffffffu, sum, 1);    /* the row's four lanes */
            sum += __shfl_xor_sync(0xffffffffu, sum, 2);
            const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;
            const int i = q0 + r0 + mt * 16 + g + row * 8;
            if (i < a.seq_q) {
                T *orow = a.o + ((idx_t)b * a.seq_q + i) * a.heads * D + (idx_t)h * D;
#pragma unroll
                for (int nt = 0; nt < D / 8; nt++)
                    *reinterpret_cast<uint32_t *>(orow + nt * 8 + 2 * t) =
                        pack2<T>(acc[mt][nt][2 * row] * inv, acc[mt][nt][2 * row + 1] * inv);
            }
        }
}

/* fp32 on the SIMT cores, with attention_tc's load pipeline and causal
 * block order. Thread (r, t) = (threadIdx.x / 4, threadIdx.x % 4)
 * serves query q0 + r and owns its columns 16c + 4t .. 16c + 4t + 3 (one
 * float4 per c): the four threads of a query read four neighbouring float4s
 * of a K or V row, which the eight queries of a warp share (broadcast), so
 * shared memory serves a warp's read in one pass. A score's partial dot
 * products are summed over the four threads by a butterfly, which gives all
 * four the same bits, hence the same max, alpha and l. */
template <int D>
__global__ void __launch_bounds__(4 * ATTENTION_CUDA_SIMT_BQ)
attention_simt(att_args<float> a)
{
    constexpr int BQ = ATTENTION_CUDA_SIMT_BQ, BK = ATTENTION_CUDA_SIMT_BK, C = D / 16, THREADS = 4 * BQ;
    CUDA_DYNAMIC_SHARED(float, smem);
    float *ks = smem, *vs = smem + BK * D;
    const int r = threadIdx.x / 4, t = threadIdx.x % 4;
    const int qblock = a.causal ? (int)(gridDim.x - 1 - blockIdx.x) : (int)blockIdx.x;
    const int q0 = qblock * BQ, i = q0 + r, h = blockIdx.y, b = blockIdx.z, hk = h / a.group;
    const idx_t kv_stride = (idx_t)a.kv_heads * D;
    const float *kg = a.k + ((idx_t)b * a.seq_k * a.kv_heads + hk) * D;
    const float *vg = a.v + ((idx_t)b * a.seq_k * a.kv_heads + hk) * D;
    const int tiles = key_tiles(q0, BQ, BK, a.seq_q, a.seq_k, a.causal);
    if (tiles > 0)
        load_tile_async<float, D, BK, THREADS>(ks, kg, kv_stride, 0, a.seq_k);
    cp_async_commit();

    float4 q[C], acc[C];
#pragma unroll
    for (int c = 0; c < C; c++) {
        q[c] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        acc[c] = q[c];
        if (i < a.seq_q)   /* rows past Sq compute on zeros and store nothing */
            q[c] = *reinterpret_cast<const float4 *>(a.q + ((idx_t)b * a.seq_q + i) * a.heads * D + (idx_t)h * D +
                                                     16 * c + 4 * t);
    }
    float m = -INFINITY, l = 0.0f;
#pragma unroll 1
    for (int kt = 0; kt < tiles; kt++) {
        const int k0 = kt * BK;
        cp_async_wait_all();                   /* K_t (the pipeline of attention_tc) */
        __syncthreads();
        load_tile_async<float, D, BK, THREADS>(vs, vg, kv_stride, k0, a.seq_k);
        cp_async_commit();

        const bool masked = tile_needs_mask(k0, BK, q0, a.seq_q, a.seq_k, a.causal);
        float x[BK];
        float mx = m;
#pragma unroll
        for (int j = 0; j < BK; j++) {
            float part = 0.0f;
#pragma unroll
            for (int c = 0; c < C; c++) {
                float4 kv = *reinterpret_cast<const float4 *>(ks + swz<D>(j, 16 * c + 4 * t));
                part += q[c].x * kv.x + q[c].y * kv.y + q[c].z * kv.z + q[c].w * kv.w;
            }
            part += __shfl_xor_sync(0xffffffffu, part, 1);
            part += __shfl_xor_sync(0xffffffffu, part, 2);
            x[j] = part * a.scale_log2;
            if (masked && (k0 + j >= a.seq_k || (a.causal && k0 + j > i + a.seq_k - a.seq_q)))
                x[j] = -INFINITY;
            mx = fmaxf(mx, x[j]);
        }
        const float base = mx == -INFINITY ? 0.0f : mx;
        const float alpha = exp2f(m - base);
        m = mx;
        l *= alpha;
#pragma unroll
        for (int c = 0; c < C; c++)
            acc[c].x *= alpha, acc[c].y *= alpha, acc[c].z *= alpha, acc[c].w *= alpha;

        cp_async_wait_all();                   /* V_t */
        __syncthreads();
        if (kt + 1 < tiles) {
            load_tile_async<float, D, BK, THREADS>(ks, kg, kv_stride, k0 + BK, a.seq_k);
            cp_async_commit();
        }
#pragma unroll
        for (int j = 0; j < BK; j++) {
            const float p = exp2f(x[j] - base);
            l += p;
#pragma unroll
            for (int c = 0; c < C; c++) {
                float4 vv = *reinterpret_cast<const float4 *>(vs + swz<D>(j, 16 * c + 4 * t));
                acc[c].x += p * vv.x, acc[c].y += p * vv.y, acc[c].z += p * vv.z, acc[c].w += p * vv.w;
            }
        }
    }
    if (i < a.seq_q) {
        const float inv = l > 0.0f ? 1.0f / l : 0.0f;
        float *orow = a.o + ((idx_t)b * a.seq_q + i) * a.heads * D + (idx_t)h * D;
#pragma unroll
        for (int c = 0; c < C; c++)
            *reinterpret_cast<float4 *>(orow + 16 * c + 4 * t) =
                make_float4(acc[c].x * inv, acc[c].y * inv, acc[c].z * inv, acc[c].w * inv);
    }
}

/* Any head_dim and dtype: warp w of the block takes query row blockIdx.x x
 * FB_ROWS + w (a warp past Sq returns whole, so its shuffles stay
 * converged). Pass 1 finds the row's max score; pass 2, once per group of
 * 32 x FB_COLS output columns, sums 2^(x - max) and 2^(x - max) v: no
 * rescaling, a score recomputed per column group (rows longer than 128
 * columns only). */
template <typename T>
__global__ void __launch_bounds__(32 * ATTENTION_CUDA_FB_ROWS)
attention_fallback(att_args<T> a)
{
    constexpr int COLS = ATTENTION_CUDA_FB_COLS;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int i = blockIdx.x * ATTENTION_CUDA_FB_ROWS + warp, h = blockIdx.y, b = blockIdx.z, hk = h / a.group;
    if (i >= a.seq_q)
        return;
    const int d = a.head_dim;
    const idx_t kv_stride = (idx_t)a.kv_heads * d;
    const T *qr = a.q + ((idx_t)b * a.seq_q + i) * a.heads * d + (idx_t)h * d;
    const T *kg = a.k + ((idx_t)b * a.seq_k * a.kv_heads + hk) * d;
    const T *vg = a.v + ((idx_t)b * a.seq_k * a.kv_heads + hk) * d;
    T *orow = a.o + ((idx_t)b * a.seq_q + i) * a.heads * d + (idx_t)h * d;
    int n = a.seq_k;
    if (a.causal && i + a.seq_k - a.seq_q + 1 < n)
        n = i + a.seq_k - a.seq_q + 1 < 0 ? 0 : i + a.seq_k - a.seq_q + 1;

    auto score = [&](int j) {
        float part = 0.0f;
        for (int c = lane; c < d; c += 32)
            part += to_float(qr[c]) * to_float(kg[j * kv_stride + c]);
        return warp_sum(part) * a.scale_log2;
    };
    float mx = -INFINITY;
#pragma unroll 1
    for (int j = 0; j < n; j++)
        mx = fmaxf(mx, score(j));
#pragma unroll 1
    for (int c0 = 0; c0 < d; c0 += 32 * COLS) {
        float l = 0.0f, acc[COLS] = {};
#pragma unroll 1
        for (int j = 0; j < n; j++) {
            const float p = exp2f(score(j) - mx);
            l += p;
#pragma unroll
            for (int e = 0; e < COLS; e++) {
                int c = c0 + lane + 32 * e;
                if (c < d)
                    acc[e] += p * to_float(vg[j * kv_stride + c]);
            }
        }
        const float inv = n > 0 ? 1.0f / l : 0.0f;
#pragma unroll
        for (int e = 0; e < COLS; e++) {
            int c = c0 + lane + 32 * e;
            if (c < d)
                orow[c] = from_float<T>(acc[e] * inv);
        }
    }
}

/* ---- device helpers ------------------------------------------------------ */

/* Element (row, col) of a [rows][D] shared tile whose 16-byte chunks are
 * XOR-swizzled: chunk col / 8 of row r sits at chunk (col / 8) ^ (r % 8).
 * Rows are D x 2 = 128 or 256 bytes (16-bit types), so chunk k of every row
 * lies on banks 4k .. 4k+3 (mod 32): the eight rows an ldmatrix matrix reads
 * at one logical chunk land on eight different chunks, all banks (as
 * test_attention_cuda_sim checks, through cudasim's bank accounting). The fp32
 * tiles use it too (8-element chunks = two float4s), harmlessly. */
template <int D> __device__ __forceinline__ int swz(int row, int col)
{
    return row * D + ((((col >> 3) ^ row) & 7) | ((col >> 3) & ~7)) * 8 + (col & 7);
}

/* swz(row, col + 16 k) from at = swz(row, col), col a multiple of 8 below
 * 16: a 16-column k-step adds 2 to the chunk, which (no carry from col's
 * chunk bit 0) flips chunk bits 1-2 within each group of 8 chunks, under the
 * XOR as before it, and moves to the next group every 4 steps. So one base
 * register per lane serves every k-step. */
template <int D> __device__ __forceinline__ int swz_step(int at, int k)
{
    return (at ^ ((k & 3) << 4)) + (k >> 2) * 64;
}

/* Starts copying rows row0 .. row0 + ROWS - 1 of a strided [row][D] array
 * into a swizzled tile (cp.async: the caller commits and waits), 16 bytes
 * per thread per step, consecutive threads on consecutive chunks of a row
 * (coalesced). Rows past `rows` become zeros, so that masked weights (0)
 * times them stay 0 rather than 0 x garbage; their copies read nothing, so
 * they are given the array's first row as a harmless source address. A
 * thread's row moves by STEP_ROWS a step; when that is a multiple of 8 its
 * swizzle stays the same, and every step's addresses are the first step's
 * plus constants (two registers, not two per step: the tensor-core kernel
 * at 64 keys has none to spare). */
template <typename T, int D, int ROWS, int THREADS>
__device__ __forceinline__ void load_tile_async(T *dst, const T *src, idx_t stride, int row0, int rows)
{
    constexpr int PER_CHUNK = 16 / (int)sizeof(T), CHUNKS = D / PER_CHUNK, STEP_ROWS = THREADS / CHUNKS;
    static_assert(ROWS * CHUNKS % THREADS == 0 && THREADS % CHUNKS == 0, "whole steps");
    const int r = threadIdx.x / CHUNKS, ch = threadIdx.x % CHUNKS;
    if constexpr (STEP_ROWS % 8 == 0) {
        T *d = dst + swz<D>(r, ch * PER_CHUNK);
        const T *s = src + (idx_t)(row0 + r) * stride + ch * PER_CHUNK;
#pragma unroll
        for (int step = 0; step < ROWS / STEP_ROWS; step++) {
            bool in = row0 + r + step * STEP_ROWS < rows;
            cp_async16(d + step * STEP_ROWS * D, in ? s + (idx_t)step * STEP_ROWS * stride : src, in);
        }
    } else {
#pragma unroll
        for (int step = 0; step < ROWS / STEP_ROWS; step++) {
            int row = r + step * STEP_ROWS;
            bool in = row0 + row < rows;
            const T *from = src + (in ? (idx_t)(row0 + row) * stride : 0) + ch * PER_CHUNK;
            cp_async16(dst + swz<D>(row, ch * PER_CHUNK), from, in);
        }
    }
}

/* Butterfly sum over the 32 lanes: every lane ends with the same bits. */
__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int m = 16; m > 0; m /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, m);
    return v;
}

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
template <> __device__ __forceinline__ float from_float<float>(float v) { return v; }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v)
{
    return __float2bfloat16_rn(v);
}
template <> __device__ __forceinline__ __half from_float<__half>(float v) { return __float2half_rn(v); }
