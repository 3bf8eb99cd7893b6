/* attention_hopper_stub.c - attention_hopper_launch where the sm_90a kernel
 * (attention_hopper.cu) is not built: configure's --with-cuda-arch lacks 90,
 * or a CPU-only build of the other kernels (tests/cudasim's, which test the
 * Hopper kernel in a program of its own). The plan still takes HOPPER when
 * asked (it is host logic), so the launch says why it cannot run. */
#include "attention_cuda.h"

int attention_hopper_launch(const attention_cuda_geometry *g, const attention_shape *s, attention_cuda_dtype dtype,
                            const void *q, const void *k, const void *v, void *o, void *stream)
{
    (void)g, (void)s, (void)dtype, (void)q, (void)k, (void)v, (void)o, (void)stream;
    return ATTENTION_CUDA_ENOHOPPER;
}
