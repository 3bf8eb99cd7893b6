/* attention_sim_util.h - what the simulated attention tests share
 * (test_attention_cuda_sim.cc, test_attention_hopper_sim.cc): a fixed
 * random stream, 16-bit and fp32 element access by dtype, exact-size
 * buffers. Header-only, static: each test is one program. Include it
 * after <cmocka.h> (alloc_exact asserts). */
#ifndef TESTS_ATTENTION_SIM_UTIL_H
#define TESTS_ATTENTION_SIM_UTIL_H

#include "attention/attention_cuda.h"
#include "common/bf16.h"
#include "common/f16.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

static uint32_t rng = 5;

static inline float uniform(float lo, float hi)
{
    rng = rng * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(rng >> 8) / (float)(1u << 24);
}

static inline size_t elem_size(attention_cuda_dtype dt) { return dt == ATTENTION_CUDA_F32 ? 4 : 2; }

static inline void put(attention_cuda_dtype dt, void *p, size_t i, float v)
{
    if (dt == ATTENTION_CUDA_F32)
        static_cast<float *>(p)[i] = v;
    else
        static_cast<uint16_t *>(p)[i] = dt == ATTENTION_CUDA_BF16 ? f32_to_bf16(v) : f32_to_f16(v);
}

static inline float get(attention_cuda_dtype dt, const void *p, size_t i)
{
    if (dt == ATTENTION_CUDA_F32)
        return static_cast<const float *>(p)[i];
    uint16_t u = static_cast<const uint16_t *>(p)[i];
    return dt == ATTENTION_CUDA_BF16 ? bf16_to_f32(u) : f16_to_f32(u);
}

/* Exact-size, so that ASan flags any access past the end; 256-byte aligned,
 * as cudaMalloc's are, so that sectors count as on the GPU. */
static inline void *alloc_exact(size_t bytes)
{
    void *p = nullptr;
    assert_int_equal(posix_memalign(&p, 256, bytes ? bytes : 16), 0);
    return p;
}

/* The same type as the reference, the checker and the softmax name it. */
static inline attention_dtype ref_dtype(attention_cuda_dtype dt)
{
    return dt == ATTENTION_CUDA_F32 ? ATTENTION_F32 : dt == ATTENTION_CUDA_BF16 ? ATTENTION_BF16 : ATTENTION_F16;
}

static inline const char *dt_name(attention_cuda_dtype dt) { return attention_dtype_name(ref_dtype(dt)); }

#endif
