/* rms_norm_cuda.h - RMSNorm on an NVIDIA GPU (rms_norm_cuda.cu), plain C.
 *
 * The launcher takes device pointers and a stream; the plan is pure host
 * logic (rms_norm_cuda_plan.c), built without CUDA, so that the choice of
 * kernel, vector width and launch geometry is unit-tested on any machine. */
#ifndef COMPONENTS_RMS_NORM_CUDA_H
#define COMPONENTS_RMS_NORM_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "rms_norm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Rows up to this long get one warp each (several rows per block): a block
 * per row would leave most of a big block idle at a barrier for so little
 * work. Longer rows get a block each. */
#define RMS_NORM_CUDA_WARP_MAX_HIDDEN 1024
/* Warps (= rows) per block of the warp-per-row kernel. */
#define RMS_NORM_CUDA_ROWS_PER_BLOCK 4
/* 16-byte vectors each thread keeps in registers between the two passes over
 * its row, so that x is read from memory once. Longer rows re-read the rest. */
#define RMS_NORM_CUDA_CACHE 4
/* Largest block of the block-per-row kernel (its __launch_bounds__). */
#define RMS_NORM_CUDA_MAX_THREADS 1024

typedef struct rms_norm_cuda_geometry {
    int block_per_row;          /* 1: a block per row; 0: a warp per row */
    unsigned vec;               /* elements per load and store: 16 / element size, or 1 */
    unsigned threads;           /* per block, a multiple of 32 */
    unsigned rows_per_block;    /* 1, or RMS_NORM_CUDA_ROWS_PER_BLOCK */
    uint64_t blocks;            /* grid size (x only) */
} rms_norm_cuda_geometry;

/* Chooses the kernel and its geometry for rows x hidden elements of dtype at
 * x, w, y (only their addresses are read: 16-byte vectors need every row of
 * x and y, and w, to start on a 16-byte boundary, i.e. aligned bases and
 * hidden * element size a multiple of 16). Returns 0, or -1 for an unknown
 * dtype, hidden = 0 or over INT_MAX, or more rows than one grid can cover.
 * rows = 0 is valid (blocks = 0: nothing to launch). */
int rms_norm_cuda_plan(rms_norm_dtype dtype, size_t rows, size_t hidden,
                       const void *x, const void *w, const void *y,
                       rms_norm_cuda_geometry *out);

/* y = rms_norm(x) * w over rows x hidden (device pointers, y not overlapping
 * x or w), fp32 accumulation, enqueued on stream (a cudaStream_t; NULL is the
 * default stream). Returns 0, RMS_NORM_CUDA_EINVAL when the plan refuses the
 * shape, or the cudaError_t of a failed launch. Does not synchronize. */
#define RMS_NORM_CUDA_EINVAL (-1)
int rms_norm_cuda(rms_norm_dtype dtype, const void *x, const void *w, void *y,
                  size_t rows, size_t hidden, float eps, void *stream);

#ifdef __cplusplus
}
#endif

#endif
