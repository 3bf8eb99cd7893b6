/* attention_sim_util.h - what the simulated attention tests share
 * (test_attention_cuda_sim.cc, test_attention_hopper_sim.cc): a fixed
 * random stream, 16-bit and fp32 element access by dtype, exact-size
 * buffers, a case's tensors, one checked run. Header-only, static: each test is one program. Include it
 * after <cmocka.h> (alloc_exact asserts). */
#ifndef TESTS_ATTENTION_SIM_UTIL_H
#define TESTS_ATTENTION_SIM_UTIL_H

#include "attention/attention_cuda.h"
#include "bf16_rounding.h"
#include "common/bf16.h"
#include "common/f16.h"

#include <cstddef>
#include <cstdint>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

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

/* One case's tensors: random q, k, v of the shape, two exact-size outputs
 * (the first run's result, and each later run's to compare bit for bit). */
struct sim_tensors {
    attention_shape s;
    size_t nq, bytes_out;
    void *q, *k, *v, *o[2];
};

/* scale 0: 1 / sqrt(head_dim). */
static inline sim_tensors sim_tensors_make(attention_cuda_dtype dt, size_t batch, size_t heads, size_t kv_heads,
                                           size_t seq_q, size_t seq_k, size_t head_dim, int causal, float scale)
{
    sim_tensors t;
    t.s = {batch, heads, kv_heads, seq_q, seq_k, head_dim, causal,
           scale > 0 ? scale : (float)(1.0 / sqrt((double)head_dim))};
    size_t es = elem_size(dt), nkv = batch * seq_k * kv_heads * head_dim;
    t.nq = batch * seq_q * heads * head_dim;
    t.bytes_out = t.nq * es;
    t.q = alloc_exact(t.bytes_out), t.k = alloc_exact(nkv * es), t.v = alloc_exact(nkv * es);
    t.o[0] = alloc_exact(t.bytes_out), t.o[1] = alloc_exact(t.bytes_out);
    for (size_t i = 0; i < t.nq; i++)
        put(dt, t.q, i, uniform(-2.0f, 2.0f));
    for (size_t i = 0; i < nkv; i++) {
        put(dt, t.k, i, uniform(-2.0f, 2.0f));
        put(dt, t.v, i, uniform(-1.0f, 1.0f));
    }
    return t;
}

static inline void sim_tensors_free(sim_tensors *t)
{
    free(t->q), free(t->k), free(t->v), free(t->o[0]), free(t->o[1]);
}

/* bf16 outputs rounded to nearest, not truncated (bf16_rounding.h). With q
 * = 0 every score is 0 and every visible key's weight exactly 1, so the
 * kernel's fp32 output is the mean of the visible v rows to a few fp32
 * ulps, and each bf16 output must be the one nearest to the exact mean.
 * Zeroes t's q; one launch, forward order. */
static inline void sim_check_bf16_rounding(const attention_cuda_geometry *g, sim_tensors *t, const char *kernel)
{
    memset(t->q, 0, t->bytes_out);                /* q has o's shape */
    memset(t->o[0], 0xff, t->bytes_out);
    assert_int_equal(attention_cuda_launch(g, &t->s, ATTENTION_CUDA_BF16, t->q, t->k, t->v, t->o[0], nullptr), 0);
    std::vector<double> want(t->nq);
    attention_ref(&t->s, t->q, t->k, t->v, ATTENTION_BF16, want.data());
    size_t counted, wrong = bf16_not_nearest(static_cast<const uint16_t *>(t->o[0]), want.data(), t->nq, &counted);
    assert_true(counted >= BF16_ROUNDING_MIN_COUNT);
    if (wrong)
        fail_msg("%s: %zu of %zu bf16 outputs are not the nearest to the exact value (truncated?)", kernel, wrong,
                 counted);
}

/* Run `run` (0, 1, ...) of a case: launch with the geometry into o[run ? 1 :
 * 0] (filled with NaN first: an element never written fails), check it
 * against the reference, and from the second run on require it bit for bit
 * equal to the first. `what` names the kernel, order and landing when the
 * check fails. */
static inline void sim_run_and_check(const attention_cuda_geometry *g, attention_cuda_dtype dt, sim_tensors *t,
                                     int run, const char *what)
{
    void *out = t->o[run ? 1 : 0];
    memset(out, 0xff, t->bytes_out);
    assert_int_equal(attention_cuda_launch(g, &t->s, dt, t->q, t->k, t->v, out, nullptr), 0);
    attention_check_result r;
    assert_int_equal(attention_check(&t->s, t->q, t->k, t->v, out, ref_dtype(dt), 0, &r), 0);
    if (!r.passed)
        print_error("%s %s b%zu h%zu/%zu sq%zu sk%zu d%zu causal %d: %s\n", dt_name(dt), what, t->s.batch,
                    t->s.heads, t->s.kv_heads, t->s.seq_q, t->s.seq_k, t->s.head_dim, t->s.causal, r.detail);
    assert_true(r.passed);
    assert_int_equal(r.checked, t->nq);
    if (run)
        assert_memory_equal(t->o[0], t->o[1], t->bytes_out);
}

/* The order and landing of run `run`'s low two bits, set in the simulator,
 * and their words for a failure message. */
static inline const char *sim_set_order_and_landing(int run)
{
    int reversed = run & 1, early = run >> 1 & 1;
    cudasim::set_order(reversed ? cudasim::REVERSED : cudasim::FORWARD);
    cudasim::set_landing(early ? cudasim::AT_ISSUE : cudasim::AT_WAIT);
    static const char *const words[] = {"forward, copies land at the wait", "reversed, copies land at the wait",
                                        "forward, copies land at issue", "reversed, copies land at issue"};
    return words[run & 3];
}

#endif
