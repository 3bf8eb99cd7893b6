/* The transformer block's RoPE and SwiGLU kernels compiled as host C++ under
 * cudasim.h (force-included): an ordinary source file for automake, which
 * has no rule for .cu. */
#include "transformer_block/transformer_block_cuda.cu"
