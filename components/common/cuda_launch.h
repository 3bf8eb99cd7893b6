/* cuda_launch.h - the two spellings in which the project's kernels differ
 * from plain CUDA C, so that the same .cu file also runs on the CPU under
 * tests/cudasim (which defines CUDASIM; see its README).
 *
 * CUDA_LAUNCH(kernel, grid, block, smem, stream, args...)
 *     kernel<<<grid, block, smem, stream>>>(args...) under nvcc; a host C++
 *     compiler cannot parse <<< >>>. kernel must be one token: for a template
 *     instance, take a pointer first (auto k = my_kernel<float, 4>;).
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
#define CUDA_DYNAMIC_SHARED(T, name) T *name = reinterpret_cast<T *>(cudasim::dynamic_shared())
#define CUDA_STATIC_SHARED(T, name, n) \
    static T name[n];                  \
    cudasim::static_shared(name, sizeof name)
#else
#define CUDA_LAUNCH(kernel, grid, block, smem, stream, ...) \
    kernel<<<grid, block, smem, stream>>>(__VA_ARGS__)
#define CUDA_DYNAMIC_SHARED(T, name)                                     \
    extern __shared__ __align__(16) unsigned char cuda_dynamic_shared_[]; \
    T *name = reinterpret_cast<T *>(cuda_dynamic_shared_)
#define CUDA_STATIC_SHARED(T, name, n) __shared__ T name[n]
#endif

#endif
