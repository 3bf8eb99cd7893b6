/* cuda_fp16.h - empty under tests/cudasim: cudasim.h, force-included, already
 * declares what the kernels use from the real header. */
