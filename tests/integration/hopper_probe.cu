/* hopper_probe.cu - instantiates every Hopper primitive of components/common
 * (wgmma.cuh in every shape, both input types, both B majors, SS and RS;
 * mbarrier.cuh; tma.cuh at ranks 2..4, its multicast; hopper_sync.cuh;
 * cluster.cuh) in kernels that
 * nvcc compiles for sm_90a, so that tests/integration/hopper_build.sh can
 * show that the inline PTX assembles without warnings or spills. Not run:
 * the kernels compute nothing meaningful. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "common/cluster.cuh"
#include "common/hopper_sync.cuh"
#include "common/mbarrier.cuh"
#include "common/tma.cuh"
#include "common/wgmma.cuh"

#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define PROBE_BODY(...) __VA_ARGS__
#else
#define PROBE_BODY(...)
#endif

/* One wgmma shape: each form and type once, results stored so that the
 * accumulators stay live. */
template <int NT>
__global__ void __launch_bounds__(128) probe_wgmma(float *out, const uint32_t *a_in, int scale)
{
    PROBE_BODY(
        extern __shared__ __align__(1024) unsigned char smem[];
        float d[NT / 2];
        for (int i = 0; i < NT / 2; i++) d[i] = 0.0f;
        uint32_t a[4];
        for (int i = 0; i < 4; i++) a[i] = a_in[threadIdx.x * 4 + i];
        uint64_t da = wgmma_desc(smem, 16, 1024), db = wgmma_desc(smem + 8192, 8192, 1024);
        wgmma_fence();
        wgmma_ss<__nv_bfloat16, NT, false>(d, da, db, scale);
        wgmma_ss<__half, NT, true>(d, da, db, 1);
        wgmma_rs<__nv_bfloat16, NT, true>(d, a, db, 1);
        wgmma_rs<__half, NT, false>(d, a, db, 1);
        wgmma_commit_group();
        wgmma_wait_group<0>();
        wgmma_fence_operands(d);
        for (int i = 0; i < NT / 2; i++) out[threadIdx.x * (NT / 2) + i] = d[i];)
}

#define PROBE_NT(n) template __global__ void probe_wgmma<n>(float *, const uint32_t *, int);
PROBE_NT(8) PROBE_NT(16) PROBE_NT(24) PROBE_NT(32) PROBE_NT(40) PROBE_NT(48) PROBE_NT(56) PROBE_NT(64)
PROBE_NT(72) PROBE_NT(80) PROBE_NT(88) PROBE_NT(96) PROBE_NT(104) PROBE_NT(112) PROBE_NT(120) PROBE_NT(128)
PROBE_NT(136) PROBE_NT(144) PROBE_NT(152) PROBE_NT(160) PROBE_NT(168) PROBE_NT(176) PROBE_NT(184) PROBE_NT(192)
PROBE_NT(200) PROBE_NT(208) PROBE_NT(216) PROBE_NT(224) PROBE_NT(232) PROBE_NT(240) PROBE_NT(248) PROBE_NT(256)

/* A producer warpgroup loads boxes with TMA at each rank; a consumer
 * warpgroup waits and hands the slot back, then stores a tile with TMA;
 * named barriers and setmaxnreg as a warp-specialised kernel uses them. */
__global__ void __launch_bounds__(256, 1) probe_pipeline(const __grid_constant__ tma_map map2,
                                                      const __grid_constant__ tma_map map3,
                                                      const __grid_constant__ tma_map map4, float *out, int rounds)
{
    PROBE_BODY(
        extern __shared__ __align__(1024) unsigned char smem[];
        __shared__ uint64_t full, empty;
        if (threadIdx.x == 0) {
            mbar_init(&full, 1);
            mbar_init(&empty, 128);
            mbar_fence_init();
        }
        __syncthreads();
        if (threadIdx.x < 128) {
            setmaxnreg_dec<40>();
            for (int r = 0; r < rounds; r++) {
                if (threadIdx.x == 0) {
                    mbar_wait(&empty, (r & 1) ^ 1);
                    mbar_arrive_expect_tx(&full, 3 * 8192);
                    const int32_t c2[2] = {0, r}, c3[3] = {0, r, 1}, c4[4] = {0, r, 1, 2};
                    tma_load(smem, &map2, c2, &full);
                    tma_load(smem + 8192, &map3, c3, &full);
                    tma_load(smem + 16384, &map4, c4, &full);
                }
            }
            named_bar_arrive(1, 256);
        } else {
            setmaxnreg_inc<232>();
            float acc = 0.0f;
            for (int r = 0; r < rounds; r++) {
                mbar_wait(&full, r & 1);
                acc += (float)smem[threadIdx.x + r];
                mbar_arrive(&empty);
            }
            named_bar_sync(1, 256);
            out[threadIdx.x] = acc;
            /* The consumers' epilogue: the tile written, fenced to the async
             * proxy, stored back with TMA at each rank. */
            smem[threadIdx.x] = (unsigned char)acc;
            fence_async_shared();
            named_bar_sync(2, 128);
            if (threadIdx.x == 128) {
                const int32_t c2[2] = {0, 1}, c3[3] = {0, 1, 1}, c4[4] = {0, 1, 1, 2};
                tma_store(&map2, c2, smem);
                tma_store(&map3, c3, smem + 8192);
                tma_store(&map4, c4, smem + 16384);
                tma_store_commit();
                tma_store_wait_read<0>();
            }
        })
}

/* A cluster's producers multicast their halves of a tile into every block,
 * its consumers release the slot on every block's barrier (predicated), the
 * cluster barrier around it all (attention_hopper.cu's use). */
__global__ void __launch_bounds__(256, 1) probe_cluster(const __grid_constant__ tma_map map4, float *out, int rounds)
{
    PROBE_BODY(
        extern __shared__ __align__(1024) unsigned char smem[];
        uint64_t *full = reinterpret_cast<uint64_t *>(smem + 16384), *empty = full + 1;
        if (threadIdx.x == 0) {
            mbar_init(full, 1);
            mbar_init(empty, 8);
            mbar_fence_init();
        }
        cluster_sync();
        const unsigned rank = cluster_ctarank(), lane = threadIdx.x % 32;
        if (threadIdx.x == 0) {
            for (int r = (int)cluster_id(); r < rounds; r += (int)cluster_count()) {
                mbar_wait_cluster(empty, (r & 1) ^ 1);
                mbar_arrive_expect_tx(full, 16384);
                const int32_t c4[4] = {0, (int)(r * 128 + rank * 64), 1, 2};
                tma_load_multicast(smem + rank * 8192, &map4, c4, full, 3);
            }
        } else if (threadIdx.x >= 128) {
            float acc = 0.0f;
            for (int r = (int)cluster_id(); r < rounds; r += (int)cluster_count()) {
                mbar_wait(full, r & 1);
                acc += (float)smem[threadIdx.x + r];
                __syncwarp();
                mbar_arrive_cluster(empty, lane, lane < 2);
            }
            out[threadIdx.x] = acc;
        }
        cluster_sync();)
}
