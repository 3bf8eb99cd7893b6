/* cuda_launch.h - the two spellings in which the project's kernels differ
 * from plain CUDA C, so that the same .cu file also runs on the CPU under
 * tests/cudasim (which defines CUDASIM; see its README).
 *
 * CUDA_LAUNCH(kernel, grid, block, smem, stream, args...)
 *     kernel<<<grid, block, smem, stream>>>(args...) under nvcc; a host C++
 *     compiler cannot parse <<< >>>. kernel must be one token: for a template
 *     instance, take a pointer first (auto k = my_kernel<float, 4>;).
 * CUDA_LAUNCH_CLUSTER(kernel, grid, block, cluster, smem, stream, args...)
 *     the same in clusters of `cluster` blocks along x (cluster.cuh;
 *     grid.x a multiple of it), through cudaLaunchKernelEx: a
 *     cudaError_t, the launch's own.
 * cuda_max_active_clusters(kernel, block, cluster, smem, &n)
 *     how many such clusters the GPU holds at once (a persistent grid's
 *     size); under tests/cudasim its SMs over the cluster size.
 * CUDA_DYNAMIC_SHARED(T, name);
 *     T *name pointing at the block's dynamic shared memory (the launch's
 *     smem bytes), i.e. extern __shared__ under nvcc, through a byte array so
 *     that kernels templated on T do not redeclare it with another type.
 * CUDA_STATIC_SHARED(T, name, n);
 *     __shared__ T name[n] under nvcc. Under tests/cudasim the array is
 *     filled with 0xff bytes (NaN) when each block first reaches it, so a
 *     read before the block's own write shows; a plain __shared__ in a
 *     template kernel cannot be (GCC keeps template statics out of the
 *     section cudasim poisons). */
#ifndef COMPONENTS_CUDA_LAUNCH_H
#define COMPONENTS_CUDA_LAUNCH_H

#ifdef CUDASIM
#define CUDA_LAUNCH(kernel, grid, block, smem, stream, ...) \
    cudasim::launch(kernel, grid, block, smem, stream, __VA_ARGS__)
#define CUDA_LAUNCH_CLUSTER(kernel, grid, block, cluster, smem, stream, ...) \
    cudasim::launch_cluster(kernel, grid, block, cluster, smem, stream, __VA_ARGS__)
template <typename K>
static inline cudaError_t cuda_max_active_clusters(K *, dim3, unsigned cluster, size_t, int *n)
{
    *n = cudasim::sm_count / (int)cluster;
    return cudaSuccess;
}
#define CUDA_DYNAMIC_SHARED(T, name) T *name = reinterpret_cast<T *>(cudasim::dynamic_shared())
#define CUDA_STATIC_SHARED(T, name, n) \
    static T name[n];                  \
    cudasim::static_shared(name, sizeof name)
#else
#define CUDA_LAUNCH(kernel, grid, block, smem, stream, ...) \
    kernel<<<grid, block, smem, stream>>>(__VA_ARGS__)
#define CUDA_LAUNCH_CLUSTER(kernel, grid, block, cluster, smem, stream, ...) \
    cuda_launch_cluster(kernel, grid, block, cluster, smem, stream, __VA_ARGS__)
/* The launch's configuration with its cluster dimension (x). */
static inline cudaLaunchConfig_t cuda_cluster_config(dim3 grid, dim3 block, size_t smem, cudaStream_t stream,
                                                     cudaLaunchAttribute *attr, unsigned cluster)
{
    cudaLaunchConfig_t config = {};
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = smem;
    config.stream = stream;
    attr->id = cudaLaunchAttributeClusterDimension;
    attr->val.clusterDim.x = cluster;
    attr->val.clusterDim.y = 1;
    attr->val.clusterDim.z = 1;
    config.attrs = attr;
    config.numAttrs = 1;
    return config;
}
template <typename... P, typename... A>
static inline cudaError_t cuda_launch_cluster(void (*kernel)(P...), dim3 grid, dim3 block, unsigned cluster,
                                              size_t smem, cudaStream_t stream, A &&...args)
{
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t config = cuda_cluster_config(grid, block, smem, stream, &attr, cluster);
    return cudaLaunchKernelEx(&config, kernel, static_cast<A &&>(args)...);
}
template <typename K>
static inline cudaError_t cuda_max_active_clusters(K *kernel, dim3 block, unsigned cluster, size_t smem, int *n)
{
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t config = cuda_cluster_config(dim3(cluster), block, smem, 0, &attr, cluster);
    return cudaOccupancyMaxActiveClusters(n, kernel, &config);
}
#define CUDA_DYNAMIC_SHARED(T, name)                                     \
    extern __shared__ __align__(16) unsigned char cuda_dynamic_shared_[]; \
    T *name = reinterpret_cast<T *>(cuda_dynamic_shared_)
#define CUDA_STATIC_SHARED(T, name, n) __shared__ T name[n]
#endif

#endif
