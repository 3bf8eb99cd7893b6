/* The unfused attention's softmax kernel compiled as host C++ under cudasim.h
 * (force-included): an ordinary source file for automake. */
#include "attention/attention_softmax.cu"
