/* The attention kernels compiled as host C++ under cudasim.h (force-included):
 * an ordinary source file for automake, which has no rule for .cu. */
#include "attention/attention_cuda.cu"
