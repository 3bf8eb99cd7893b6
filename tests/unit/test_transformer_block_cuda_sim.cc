/* test_transformer_block_cuda_sim.cc - transformer_block/cuda's own kernels
 * (components/transformer_block/transformer_block_cuda.cu: RoPE, SwiGLU) run
 * on the CPU under tests/cudasim, on small odd shapes, against the CPU
 * block's RoPE (transformer_block_rope, with the same table) and a double
 * SwiGLU; each case once with every block's threads resumed in forward order
 * and once reversed, the two results identical to the bit. Built as C++ with
 * cudasim.h force-included (components/transformer_block/build.am). */
#include <cmath>
#include <csetjmp>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
extern "C" {
#include <cmocka.h>
}

#include "transformer_block/transformer_block_cuda.h"
#include "common/bf16.h"
#include "common/cuda_launch.h"

/* A C header without linkage guards. */
extern "C" {
#include "transformer_block/transformer_block.h"
}

static uint32_t rng = 11;

static float uniform(float lo, float hi)
{
    rng = rng * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(rng >> 8) / (float)(1u << 24);
}

/* Values as stored (fp32, or bf16 as uint16_t), read back as float. */
struct tensor {
    tb_cuda_dtype dt;
    size_t n;
    void *base, *p;     /* p: base + shift elements */

    tensor(tb_cuda_dtype dt_, size_t n_, size_t shift = 0) : dt(dt_), n(n_)
    {
        size_t es = dt == TB_CUDA_F32 ? 4 : 2;
        /* Exact size past the shift, so ASan flags any access beyond n. */
        assert_int_equal(posix_memalign(&base, 16, (n + shift) * es + (n + shift == 0)), 0);
        p = static_cast<char *>(base) + shift * es;
    }
    ~tensor() { free(base); }
    tensor(const tensor &) = delete;
    tensor &operator=(const tensor &) = delete;
    float get(size_t i) const
    {
        return dt == TB_CUDA_F32 ? static_cast<float *>(p)[i] : bf16_to_f32(static_cast<uint16_t *>(p)[i]);
    }
    void set(size_t i, float v)
    {
        if (dt == TB_CUDA_F32)
            static_cast<float *>(p)[i] = v;
        else
            static_cast<uint16_t *>(p)[i] = f32_to_bf16(v);
    }
    size_t bytes() const { return n * (dt == TB_CUDA_F32 ? 4 : 2); }
};

/* Rounding of the stored result: none for fp32 beyond the arithmetic's own
 * (a few ulps, FMA contraction may differ between the two), half an ulp of
 * bf16 (2^-9 relative), doubled for the ref's own fp32 rounding before it. */
static double rel_tol(tb_cuda_dtype dt) { return dt == TB_CUDA_F32 ? 1e-6 : 0x1p-8; }

/* ---- RoPE ------------------------------------------------------------------ */

struct rope_case {
    size_t batch, seq, heads, kv_heads, head_dim;
};

static void run_rope(tb_cuda_dtype dt, rope_case c)
{
    transformer_block_shape s = {c.batch, c.seq, c.heads * c.head_dim, c.heads, c.kv_heads, 1, 10000.0, 1e-5f, 1};
    size_t tokens = c.batch * c.seq, nq = tokens * c.heads * c.head_dim, nk = tokens * c.kv_heads * c.head_dim;
    std::vector<float> table(c.seq * c.head_dim), q_ref(nq), k_ref(nk);
    transformer_block_rope_table(&s, table.data());
    tensor q0(dt, nq), k0(dt, nk);
    for (size_t i = 0; i < nq; i++)
        q0.set(i, uniform(-3.0f, 3.0f)), q_ref[i] = q0.get(i);
    for (size_t i = 0; i < nk; i++)
        k0.set(i, uniform(-3.0f, 3.0f)), k_ref[i] = k0.get(i);
    transformer_block_rope(&s, table.data(), q_ref.data(), c.heads);
    transformer_block_rope(&s, table.data(), k_ref.data(), c.kv_heads);

    tensor q[2] = {{dt, nq}, {dt, nq}}, k[2] = {{dt, nk}, {dt, nk}};
    for (int o = 0; o < 2; o++) {
        cudasim::set_order(o ? cudasim::REVERSED : cudasim::FORWARD);
        memcpy(q[o].p, q0.p, q0.bytes());
        memcpy(k[o].p, k0.p, k0.bytes());
        assert_int_equal(transformer_block_rope_cuda(dt, q[o].p, k[o].p, table.data(), c.batch, c.seq, c.heads,
                                                     c.kv_heads, c.head_dim, nullptr), 0);
        const std::vector<float> *refs[2] = {&q_ref, &k_ref};
        const tensor *got[2] = {&q[o], &k[o]};
        for (int t = 0; t < 2; t++)
            for (size_t i = 0; i < got[t]->n; i++) {
                double r = (*refs[t])[i], e = std::fabs(got[t]->get(i) - r);
                /* 1e-6 absolute: the rotation's two products cancel near 0. */
                if (!(e <= rel_tol(dt) * std::fabs(r) + 1e-6))
                    fail_msg("rope dtype %d batch %zu seq %zu heads %zu/%zu D %zu: %s[%zu] = %.9g, ref %.9g",
                             (int)dt, c.batch, c.seq, c.heads, c.kv_heads, c.head_dim, t ? "k" : "q", i,
                             (double)got[t]->get(i), r);
            }
    }
    assert_memory_equal(q[0].p, q[1].p, q0.bytes());
    assert_memory_equal(k[0].p, k[1].p, k0.bytes());
    cudasim::set_order(cudasim::FORWARD);
}

/* seq 1, 3 and 65; head_dim 64 and 128 and small even ones (the block needs
 * it even); GQA (kv_heads < heads) and kv_heads = heads; several sequences,
 * so positions restart; (heads + kv_heads) x head_dim / 2 above a block's
 * 256 threads, so a thread takes several pairs. */
static void test_rope(void **state)
{
    (void)state;
    static const rope_case cases[] = {
        {1, 1, 1, 1, 64},  {1, 3, 4, 2, 128}, {2, 65, 2, 1, 64}, {1, 65, 4, 2, 128},
        {3, 3, 3, 3, 2},   {2, 5, 6, 2, 6},   {1, 65, 1, 1, 2},  {2, 1, 8, 1, 64},
    };
    for (tb_cuda_dtype dt : {TB_CUDA_F32, TB_CUDA_BF16})
        for (const rope_case &c : cases)
            run_rope(dt, c);
}

static void test_rope_refuses(void **state)
{
    (void)state;
    float q[6] = {0}, k[6] = {0}, table[6] = {0};
    assert_int_equal(transformer_block_rope_cuda(TB_CUDA_F32, q, k, table, 1, 2, 1, 1, 3, nullptr), TB_CUDA_EINVAL);
    assert_int_equal(transformer_block_rope_cuda(TB_CUDA_F32, q, k, table, 1, 2, 1, 1, 0, nullptr), TB_CUDA_EINVAL);
    /* No tokens: nothing to launch. */
    assert_int_equal(transformer_block_rope_cuda(TB_CUDA_F32, q, k, table, 0, 2, 1, 1, 2, nullptr), 0);
}

/* ---- SwiGLU ------------------------------------------------------------------ */

static void run_swiglu(tb_cuda_dtype dt, size_t n, size_t shift)
{
    tensor g0(dt, n, shift), u(dt, n, shift);
    for (size_t i = 0; i < n; i++) {
        /* Mostly ordinary values, and the tails: e^-g overflows, g vanishes. */
        float g = i % 17 == 5 ? -100.0f : i % 17 == 9 ? 90.0f : i % 17 == 12 ? 0.0f : uniform(-6.0f, 6.0f);
        g0.set(i, g), u.set(i, uniform(-2.0f, 2.0f));
    }
    tensor g[2] = {{dt, n, shift}, {dt, n, shift}};
    for (int o = 0; o < 2; o++) {
        cudasim::set_order(o ? cudasim::REVERSED : cudasim::FORWARD);
        memcpy(g[o].p, g0.p, g0.bytes());
        assert_int_equal(transformer_block_swiglu_cuda(dt, g[o].p, u.p, n, nullptr), 0);
        for (size_t i = 0; i < n; i++) {
            double x = g0.get(i), r = x / (1.0 + std::exp(-x)) * u.get(i), e = std::fabs(g[o].get(i) - r);
            if (!(e <= rel_tol(dt) * std::fabs(r) + 1e-30))
                fail_msg("swiglu dtype %d n %zu shift %zu: [%zu] = %.9g, ref %.9g (g %g, u %g)", (int)dt, n, shift, i,
                         (double)g[o].get(i), r, x, (double)u.get(i));
        }
    }
    assert_memory_equal(g[0].p, g[1].p, g0.bytes());
    cudasim::set_order(cudasim::FORWARD);
}

/* n of 1 and 7 (never a whole vector), whole vectors of either type (8 x 37
 * bf16, 4 x 33 fp32: 16-byte loads), the same one element off a 16-byte
 * boundary (scalar), and more elements than one block covers. */
static void test_swiglu(void **state)
{
    (void)state;
    static const size_t ns[] = {1, 7, 4 * 33, 8 * 37, 3 * 256 * 8 + 8};
    for (tb_cuda_dtype dt : {TB_CUDA_F32, TB_CUDA_BF16})
        for (size_t n : ns)
            for (size_t shift : {0, 1})
                run_swiglu(dt, n, shift);
    assert_int_equal(transformer_block_swiglu_cuda(TB_CUDA_F32, nullptr, nullptr, 0, nullptr), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rope),
        cmocka_unit_test(test_rope_refuses),
        cmocka_unit_test(test_swiglu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
