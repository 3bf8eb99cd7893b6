/* cuda_device.h - the current device's compute capability, for the plugins
 * whose kernel choice depends on the GPU (attention's Hopper kernel). */
#ifndef COMPONENTS_CUDA_DEVICE_H
#define COMPONENTS_CUDA_DEVICE_H

#include <cuda_runtime_api.h>

/* major x 10 + minor (90 for an H100); 0 when the runtime cannot say. Asked
 * at create, never in a measured step. */
static inline int cuda_device_compute_capability(void)
{
    int dev = 0, major = 0, minor = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess)
        return 0;
    return major * 10 + minor;
}

#endif
