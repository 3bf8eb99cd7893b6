/* collective.h - the parts of the plugin collectives that need no network:
 * element sizes, the world of one, and the bf16/fp16 reductions (computed
 * in fp32, rounded once per pair, as NCCL does) for MPI's user ops. */
#ifndef HARNESS_DIST_COLLECTIVE_H
#define HARNESS_DIST_COLLECTIVE_H

#include <stdint.h>

#include "dist/dist.h"

/* A collective in a job of one rank. 0 or err. */
int harness_collective_alone(const harness_collective *c, harness_error *err);

/* inout[i] = op(in[i], inout[i]) for bf16 or fp16 elements. */
void harness_reduce_half(harness_dtype dtype, harness_reduce_op op, const uint16_t *in, uint16_t *inout, size_t n);

#endif
