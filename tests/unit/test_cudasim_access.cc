/* test_cudasim_access.cc - cudasim's memory accounting (cudasim.h: memory
 * accounting) on access patterns whose cost is known by hand: ldmatrix on a
 * row-major tile of 128-byte rows (every row of a matrix in the same four
 * banks: 8 wavefronts per matrix), on padded and on XOR-swizzled rows (1),
 * a broadcast; cp.async into shared memory and from global memory, packed
 * and strided, with lanes that copy nothing, a partial warp and lanes that
 * return before their warp's request. Built as C++ with cudasim.h
 * force-included. */
#include "common/cp_async.cuh"
#include "common/cuda_launch.h"
#include "common/mma_sync.cuh"

#include <cstdarg>
#include <cstddef>
#include <csetjmp>
#include <cstdint>
#include <cstdlib>
#include <cstring>
extern "C" {
#include <cmocka.h>
}

enum layout { ROW_MAJOR, PADDED, SWIZZLED, BROADCAST };

/* A [16][64] tile of 16-bit elements in dynamic shared memory (rows of 72
 * when padded); lane l asks ldmatrix for row l % 8 of 8x8 matrix l / 8,
 * which sits at columns 8 (l / 8) .. 8 (l / 8) + 7. */
__global__ void ldmatrix_layouts(int how, uint32_t *sink)
{
    CUDA_DYNAMIC_SHARED(uint16_t, tile);
    const int stride = how == PADDED ? 72 : 64;
    for (int e = threadIdx.x; e < 16 * stride; e += 32)
        tile[e] = (uint16_t)e;
    __syncthreads();
    const int lane = threadIdx.x, row = lane % 8, chunk = lane / 8;
    const int at = how == BROADCAST  ? 0
                   : how == SWIZZLED ? row * stride + (chunk ^ row) * 8
                                     : row * stride + chunk * 8;
    uint32_t r[4];
    ldmatrix_x4(r, tile + at);
    sink[lane] = r[0] ^ r[1] ^ r[2] ^ r[3];
}

static cudasim::access_totals run_ldmatrix(int how)
{
    uint32_t sink[32];
    cudasim::reset_totals();
    auto k = ldmatrix_layouts;
    CUDA_LAUNCH(k, dim3(1), dim3(32), 16 * 72 * sizeof(uint16_t), nullptr, how, sink);
    assert_int_equal(cudaGetLastError(), cudaSuccess);
    return cudasim::totals(cudasim::LDMATRIX);
}

static void test_ldmatrix_banks(void **state)
{
    (void)state;
    cudasim::access_totals t = run_ldmatrix(ROW_MAJOR);
    assert_int_equal(t.requests, 1);
    assert_int_equal(t.ideal, 4);               /* four matrices of 128 bytes */
    assert_int_equal(t.passes, 32);             /* eight rows at one chunk offset: 8-way */
    t = run_ldmatrix(PADDED);
    assert_int_equal(t.passes, 4);
    assert_int_equal(t.ideal, 4);
    t = run_ldmatrix(SWIZZLED);
    assert_int_equal(t.passes, 4);
    assert_int_equal(t.ideal, 4);
    t = run_ldmatrix(BROADCAST);                /* every lane one row: 16 bytes per matrix */
    assert_int_equal(t.passes, 4);
    assert_int_equal(t.ideal, 4);
}

/* Each of `live` threads copies 16 bytes from src + lane x src_step bytes
 * to shared memory at lane x dst_step bytes; lanes at or past `valid` use
 * the zero-filling form, threads at or past `live` return first. */
__global__ void copies(const unsigned char *src, int src_step, int dst_step, int valid, int live)
{
    CUDA_DYNAMIC_SHARED(unsigned char, buf);
    const int i = threadIdx.x;
    if (i >= live)
        return;
    cp_async16(buf + (size_t)i * dst_step, src + (size_t)i * src_step, i < valid);
    cp_async_commit();
    cp_async_wait_all();
}

struct copy_cost {
    cudasim::access_totals shared, global;
};

static copy_cost run_copies(int threads, int src_step, int dst_step, int valid, int live)
{
    void *src = nullptr;
    assert_int_equal(posix_memalign(&src, 256, 64 * 64), 0);
    memset(src, 1, 64 * 64);
    cudasim::reset_totals();
    auto k = copies;
    CUDA_LAUNCH(k, dim3(1), dim3(threads), 64 * 128, nullptr, static_cast<const unsigned char *>(src), src_step,
                dst_step, valid, live);
    assert_int_equal(cudaGetLastError(), cudaSuccess);
    free(src);
    return {cudasim::totals(cudasim::CP_ASYNC_SHARED), cudasim::totals(cudasim::CP_ASYNC_GLOBAL)};
}

static void test_cp_async_cost(void **state)
{
    (void)state;
    /* Packed: 512 bytes each side, 16 sectors, 4 wavefronts. */
    copy_cost c = run_copies(32, 16, 16, 32, 32);
    assert_int_equal(c.global.requests, 1);
    assert_int_equal(c.global.passes, 16);
    assert_int_equal(c.global.ideal, 16);
    assert_int_equal(c.shared.passes, 4);
    assert_int_equal(c.shared.ideal, 4);
    /* Every lane 32 bytes from the last: half of each sector wasted; every
     * lane 128 bytes from the last in shared memory: 8-way conflicts. */
    c = run_copies(32, 32, 128, 32, 32);
    assert_int_equal(c.global.passes, 32);
    assert_int_equal(c.global.ideal, 16);
    assert_int_equal(c.shared.passes, 32);
    assert_int_equal(c.shared.ideal, 4);
    /* Half the lanes zero-fill: they read no global memory, but write. */
    c = run_copies(32, 16, 16, 16, 32);
    assert_int_equal(c.global.passes, 8);
    assert_int_equal(c.global.ideal, 8);
    assert_int_equal(c.shared.passes, 4);
    /* 40 threads: a full warp and one of 8 lanes. */
    c = run_copies(40, 16, 16, 40, 40);
    assert_int_equal(c.global.requests, 2);
    assert_int_equal(c.global.passes, 16 + 4);
    assert_int_equal(c.shared.passes, 4 + 1);
    /* Lanes 16 and up return before the copy: the request is costed, with
     * 16 lanes, when the block ends. */
    c = run_copies(32, 16, 16, 32, 16);
    assert_int_equal(c.global.requests, 1);
    assert_int_equal(c.global.passes, 8);
    assert_int_equal(c.shared.passes, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ldmatrix_banks),
        cmocka_unit_test(test_cp_async_cost),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
