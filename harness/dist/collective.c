/* What the collectives mean without a network: element sizes, the world of
 * one (each collective is a copy or nothing), and the reductions of 2-byte
 * floats that MPI has no built-in type for. */
#include "dist/collective.h"

#include <string.h>

#include "common/bf16.h"
#include "common/f16.h"

size_t harness_dtype_size(harness_dtype dtype)
{
    switch (dtype) {
    case HARNESS_DTYPE_F32: case HARNESS_DTYPE_I32: return 4;
    case HARNESS_DTYPE_BF16: case HARNESS_DTYPE_F16: return 2;
    case HARNESS_DTYPE_F64: return 8;
    }
    return 0;
}

int harness_collective_alone(const harness_collective *c, harness_error *err)
{
    size_t bytes = c->count * harness_dtype_size(c->dtype);
    switch (c->kind) {
    case HARNESS_COLL_ALL_REDUCE:
    case HARNESS_COLL_ALL_GATHER:
    case HARNESS_COLL_REDUCE_SCATTER:
        /* One rank: the reduction of one contribution, the gather of one
         * slice and the scatter of one slice are all the input itself. */
        if (c->recv != c->send)
            memmove(c->recv, c->send, bytes);
        return 0;
    case HARNESS_COLL_BROADCAST:
        if (c->root != 0)
            return harness_error_set(err, HARNESS_EXIT_RUNTIME, "broadcast from root %d in a job of 1 rank",
                                     c->root);
        return 0;
    case HARNESS_COLL_BARRIER:
        return 0;
    case HARNESS_COLL_SEND_RECV:
        if (c->root != 0)
            return harness_error_set(err, HARNESS_EXIT_RUNTIME, "send_recv with rank %d in a job of 1 rank",
                                     c->root);
        if (c->recv != c->send)
            memmove(c->recv, c->send, bytes);
        return 0;
    }
    return harness_error_set(err, HARNESS_EXIT_RUNTIME, "unknown collective %d", (int)c->kind);
}

static float reduce1(harness_reduce_op op, float a, float b)
{
    switch (op) {
    case HARNESS_REDUCE_MAX: return a > b ? a : b;
    case HARNESS_REDUCE_MIN: return a < b ? a : b;
    case HARNESS_REDUCE_SUM: break;
    }
    return a + b;
}

void harness_reduce_half(harness_dtype dtype, harness_reduce_op op, const uint16_t *in, uint16_t *inout, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (dtype == HARNESS_DTYPE_BF16)
            inout[i] = f32_to_bf16(reduce1(op, bf16_to_f32(in[i]), bf16_to_f32(inout[i])));
        else
            inout[i] = f32_to_f16(reduce1(op, f16_to_f32(in[i]), f16_to_f32(inout[i])));
    }
}
