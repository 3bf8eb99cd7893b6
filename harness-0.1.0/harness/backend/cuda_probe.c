/* The CUDA side of backend/gpu_probe.h, a libtool module linked with the
 * CUDA runtime; the core loads it only when an NVIDIA driver is present. */
#include <cuda_runtime_api.h>
#include <stdio.h>

#include "backend/gpu_probe.h"

__attribute__((visibility("default"))) void cuda_probe_LTX_harness_cuda_probe(harness_gpu_info *out);

void cuda_probe_LTX_harness_cuda_probe(harness_gpu_info *out)
{
    int n = 0, v = 0;
    cudaError_t rc = cudaGetDeviceCount(&n);
    if (rc != cudaSuccess) {
        snprintf(out->why_none, sizeof out->why_none, "the CUDA runtime sees no device: %s",
                 cudaGetErrorString(rc));
        return;
    }
    if (cudaDriverGetVersion(&v) == cudaSuccess && v > 0)
        snprintf(out->driver, sizeof out->driver, "%d.%d", v / 1000, v % 1000 / 10);
    struct cudaDeviceProp prop;
    if (n > 0 && cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
        snprintf(out->name, sizeof out->name, "%s", prop.name);
    out->count = n;
    if (n == 0)
        snprintf(out->why_none, sizeof out->why_none, "the CUDA runtime sees no device");
}
