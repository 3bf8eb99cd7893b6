/* The Hopper attention kernel compiled as host C++ under cudasim.h
 * (force-included), its primitives by their models: an ordinary source
 * file for automake, which has no rule for .cu. */
#include "attention/attention_hopper.cu"
