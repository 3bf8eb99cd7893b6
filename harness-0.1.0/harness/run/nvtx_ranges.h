/* nvtx_ranges.h - NVTX ranges for the schedule (windows, steps) in CUDA
 * builds, so Nsight Systems shows them over the kernels; nothing without
 * CUDA. NVTX3 is header-only: the core includes it and links nothing (its
 * calls do nothing unless a profiler injects itself). */
#ifndef HARNESS_NVTX_RANGES_H
#define HARNESS_NVTX_RANGES_H

#include "build_config.h"

#ifdef HAVE_CUDA
#include <nvtx3/nvToolsExt.h>
static inline void harness_nvtx_push(int on, const char *name)
{
    if (on)
        nvtxRangePushA(name);
}
static inline void harness_nvtx_pop(int on)
{
    if (on)
        nvtxRangePop();
}
#else
static inline void harness_nvtx_push(int on, const char *name)
{
    (void)on;
    (void)name;
}
static inline void harness_nvtx_pop(int on)
{
    (void)on;
}
#endif

#endif
