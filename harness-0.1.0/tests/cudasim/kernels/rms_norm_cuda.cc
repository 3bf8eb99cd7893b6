/* The RMSNorm kernels compiled as host C++ under cudasim.h (force-included):
 * an ordinary source file for automake, which has no rule for .cu. */
#include "rms_norm/rms_norm_cuda.cu"
