/* rms_norm_cuda_plan.c - which RMSNorm kernel, vector width and launch
 * geometry rms_norm_cuda.cu uses for a shape: host logic only, no CUDA. */
#include "rms_norm_cuda.h"

#include <limits.h>

/* Largest gridDim.x. */
#define MAX_BLOCKS 2147483647ull

static size_t elem_size(rms_norm_dtype dtype)
{
    switch (dtype) {
    case RMS_NORM_F32:
        return 4;
    case RMS_NORM_BF16:
    case RMS_NORM_F16:
        return 2;
    }
    return 0;
}

static int aligned16(const void *p)
{
    return ((uintptr_t)p & 15u) == 0;
}

int rms_norm_cuda_plan(rms_norm_dtype dtype, size_t rows, size_t hidden,
                       const void *x, const void *w, const void *y,
                       rms_norm_cuda_geometry *out)
{
    size_t es = elem_size(dtype);
    if (es == 0 || hidden == 0 || hidden > INT_MAX)
        return -1;
    /* Row r starts at base + r * hidden * es: all rows are aligned exactly
     * when the bases are and a row is a whole number of vectors. */
    unsigned vec = (unsigned)(16 / es);
    if (!aligned16(x) || !aligned16(w) || !aligned16(y) || hidden % vec != 0)
        vec = 1;

    rms_norm_cuda_geometry g = {0, vec, 32 * RMS_NORM_CUDA_ROWS_PER_BLOCK,
                                RMS_NORM_CUDA_ROWS_PER_BLOCK, 0};
    if (hidden > RMS_NORM_CUDA_WARP_MAX_HIDDEN) {
        /* Enough threads that each holds at most RMS_NORM_CUDA_CACHE vectors
         * of the row (read once), in whole warps; rows too long for that at
         * the largest block re-read the remainder. At least two warps, so
         * that the cross-warp step has something to do. */
        size_t nvec = hidden / vec;
        size_t t = (nvec + RMS_NORM_CUDA_CACHE - 1) / RMS_NORM_CUDA_CACHE;
        t = (t + 31) / 32 * 32;
        if (t < 64)
            t = 64;
        if (t > RMS_NORM_CUDA_MAX_THREADS)
            t = RMS_NORM_CUDA_MAX_THREADS;
        g.block_per_row = 1;
        g.threads = (unsigned)t;
        g.rows_per_block = 1;
    }
    g.blocks = (rows + g.rows_per_block - 1) / g.rows_per_block;
    if (g.blocks > MAX_BLOCKS)
        return -1;
    *out = g;
    return 0;
}
