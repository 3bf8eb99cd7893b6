// @NAME@_kernel.cu - the @NAME@ kernel, z = alpha * x + y, and its launcher,
// called from the plugin's C code with the harness's stream.
#include <cuda_runtime.h>
#include <stddef.h>

// A grid-stride loop: any n with a grid capped at a few waves per SM.
__global__ void @NAME@_kernel(const float *__restrict__ x, const float *__restrict__ y, float *__restrict__ z,
                             size_t n, float alpha)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        z[i] = alpha * x[i] + y[i];
}

extern "C" const char *@NAME@_launch(const float *x, const float *y, float *z, size_t n, float alpha,
                                     void *stream)
{
    const unsigned threads = 256;
    size_t blocks = (n + threads - 1) / threads;
    if (blocks > 65535)
        blocks = 65535;
    @NAME@_kernel<<<(unsigned)blocks, threads, 0, (cudaStream_t)stream>>>(x, y, z, n, alpha);
    cudaError_t e = cudaGetLastError();
    return e == cudaSuccess ? NULL : cudaGetErrorString(e);
}
