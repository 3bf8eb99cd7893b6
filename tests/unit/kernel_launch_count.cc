/* kernel_launch_count.cc - counts the kernels the simulated .cu files
 * launch (kernel_launch_count.h). Every CUDA_LAUNCH under tests/cudasim ends
 * in one call of cudasim::run_grid; a program linked with
 *     -Wl,--wrap=_ZN7cudasim8run_gridEPKv4dim3S2_mRKSt8functionIFvvEEj
 * (the Itanium mangling of cudasim::run_grid(const void *, dim3, dim3,
 * size_t, const std::function<void()> &, unsigned)) sends those calls here
 * first, so no kernel or scheduler changes for the count; a cluster launch
 * is one launch. If run_grid's signature
 * changes, the link fails on the missing __real_ symbol rather than counting
 * wrong. Compiled with cudasim.h force-included (its dim3 and run_grid). */
#include <cstddef>
#include <functional>

#include "kernel_launch_count.h"

#define RUN_GRID_ARGS \
    const void *kernel, dim3 grid, dim3 block, size_t smem, const std::function<void()> &body, unsigned cluster

extern "C" {
void __real__ZN7cudasim8run_gridEPKv4dim3S2_mRKSt8functionIFvvEEj(RUN_GRID_ARGS);
void __wrap__ZN7cudasim8run_gridEPKv4dim3S2_mRKSt8functionIFvvEEj(RUN_GRID_ARGS);
}

static unsigned long launches;

void __wrap__ZN7cudasim8run_gridEPKv4dim3S2_mRKSt8functionIFvvEEj(RUN_GRID_ARGS)
{
    launches++;
    __real__ZN7cudasim8run_gridEPKv4dim3S2_mRKSt8functionIFvvEEj(kernel, grid, block, smem, body, cluster);
}

unsigned long kernel_launch_count(void)
{
    return launches;
}
