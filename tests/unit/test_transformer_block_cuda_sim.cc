/* test_transformer_block_cuda_sim.cc - transformer_block/cuda's own kernels
 * (components/transformer_block/transformer_block_cuda.cu: the fused QKV
 * projection's split with RoPE, SwiGLU on the fused gate/up rows) run on the
 * CPU under tests/cudasim, on small odd shapes, against the CPU block's RoPE
 * (transformer_block_rope, with the same table) and a double SwiGLU; each case once with every block's threads resumed in forward order
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
#include "bf16_rounding.h"

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

/* bf16 outputs rounded to nearest, not truncated (bf16_rounding.h): got's
 * first n elements against want (an accurate reference); fewer outputs than
 * BF16_ROUNDING_MIN_COUNT say nothing. */
static void check_bf16_rounding(const char *what, const tensor &got, const double *want, size_t n)
{
    size_t counted;
    double bias = bf16_rounding_bias(static_cast<const uint16_t *>(got.p), want, n, &counted);
    if (counted >= BF16_ROUNDING_MIN_COUNT && !(std::fabs(bias) <= BF16_ROUNDING_MAX_BIAS))
        fail_msg("%s: bf16 outputs biased by %.3f ulp over %zu (truncated, not rounded to nearest?)", what, bias,
                 counted);
}

/* ---- the QKV split with RoPE ------------------------------------------------ */

struct rope_case {
    size_t batch, seq, heads, kv_heads, head_dim;
};

/* qkv's token rows (q's heads, k's, v's) as the fused GEMM writes them; the
 * kernel's q, k and v against the CPU block's RoPE on the same values taken
 * out of the rows (and v exactly as it was). */
static void run_rope_split(tb_cuda_dtype dt, rope_case c)
{
    transformer_block_shape s = {c.batch, c.seq, c.heads * c.head_dim, c.heads, c.kv_heads, 1, 10000.0, 1e-5f, 1};
    size_t tokens = c.batch * c.seq, d = c.head_dim, qc = c.heads * d, kvc = c.kv_heads * d, row = qc + 2 * kvc;
    size_t nq = tokens * qc, nk = tokens * kvc;
    std::vector<float> table(c.seq * d), q_ref(nq), k_ref(nk), v_ref(nk);
    transformer_block_rope_table(&s, table.data());
    tensor qkv(dt, tokens * row);
    for (size_t i = 0; i < qkv.n; i++)
        qkv.set(i, uniform(-3.0f, 3.0f));
    for (size_t t = 0; t < tokens; t++) {
        for (size_t j = 0; j < qc; j++)
            q_ref[t * qc + j] = qkv.get(t * row + j);
        for (size_t j = 0; j < kvc; j++)
            k_ref[t * kvc + j] = qkv.get(t * row + qc + j), v_ref[t * kvc + j] = qkv.get(t * row + qc + kvc + j);
    }
    transformer_block_rope(&s, table.data(), q_ref.data(), c.heads);
    transformer_block_rope(&s, table.data(), k_ref.data(), c.kv_heads);

    tensor q[2] = {{dt, nq}, {dt, nq}}, k[2] = {{dt, nk}, {dt, nk}}, v[2] = {{dt, nk}, {dt, nk}};
    for (int o = 0; o < 2; o++) {
        cudasim::set_order(o ? cudasim::REVERSED : cudasim::FORWARD);
        assert_int_equal(transformer_block_rope_split_cuda(dt, qkv.p, q[o].p, k[o].p, v[o].p, table.data(), c.batch,
                                                           c.seq, c.heads, c.kv_heads, c.head_dim, nullptr), 0);
        const std::vector<float> *refs[3] = {&q_ref, &k_ref, &v_ref};
        const tensor *got[3] = {&q[o], &k[o], &v[o]};
        static const char *const names[3] = {"q", "k", "v"};
        for (int t = 0; t < 3; t++)
            for (size_t i = 0; i < got[t]->n; i++) {
                /* v is copied: exact. q and k: 1e-6 absolute, the rotation's
                 * two products cancel near 0. */
                double r = (*refs[t])[i], e = std::fabs(got[t]->get(i) - r);
                if (!(t == 2 ? e == 0.0 : e <= rel_tol(dt) * std::fabs(r) + 1e-6))
                    fail_msg("rope_split dtype %d batch %zu seq %zu heads %zu/%zu D %zu: %s[%zu] = %.9g, ref %.9g",
                             (int)dt, c.batch, c.seq, c.heads, c.kv_heads, c.head_dim, names[t], i,
                             (double)got[t]->get(i), r);
            }
    }
    if (dt == TB_CUDA_BF16) {
        std::vector<double> qd(q_ref.begin(), q_ref.end()), kd(k_ref.begin(), k_ref.end());
        check_bf16_rounding("rope_split q", q[0], qd.data(), nq);
        check_bf16_rounding("rope_split k", k[0], kd.data(), nk);
    }
    assert_memory_equal(q[0].p, q[1].p, q[0].bytes());
    assert_memory_equal(k[0].p, k[1].p, k[0].bytes());
    assert_memory_equal(v[0].p, v[1].p, v[0].bytes());
    cudasim::set_order(cudasim::FORWARD);
}

/* seq 1, 3 and 65; head_dim 64 and 128 and small even ones (the block needs
 * it even); GQA (kv_heads < heads) and kv_heads = heads; several sequences,
 * so positions restart; (heads + kv_heads) x head_dim / 2 above a block's
 * 256 threads, so a thread takes several pairs, and v's kv_heads x head_dim
 * above it too (or below the pairs' count: the loops differ in length). */
static void test_rope_split(void **state)
{
    (void)state;
    static const rope_case cases[] = {
        {1, 1, 1, 1, 64},  {1, 3, 4, 2, 128}, {2, 65, 2, 1, 64}, {1, 65, 4, 2, 128}, {3, 3, 3, 3, 2},
        {2, 5, 6, 2, 6},   {1, 65, 1, 1, 2},  {2, 1, 8, 1, 64},  {1, 7, 1, 5, 2},    {1, 2, 2, 2, 300},
    };
    for (tb_cuda_dtype dt : {TB_CUDA_F32, TB_CUDA_BF16})
        for (const rope_case &c : cases)
            run_rope_split(dt, c);
}

static void test_rope_split_refuses(void **state)
{
    (void)state;
    float qkv[18] = {0}, q[6] = {0}, k[6] = {0}, v[6] = {0}, table[6] = {0};
    assert_int_equal(transformer_block_rope_split_cuda(TB_CUDA_F32, qkv, q, k, v, table, 1, 2, 1, 1, 3, nullptr),
                     TB_CUDA_EINVAL);
    assert_int_equal(transformer_block_rope_split_cuda(TB_CUDA_F32, qkv, q, k, v, table, 1, 2, 1, 1, 0, nullptr),
                     TB_CUDA_EINVAL);
    /* A token row wider than an int. */
    assert_int_equal(transformer_block_rope_split_cuda(TB_CUDA_F32, qkv, q, k, v, table, 1, 2, (size_t)1 << 30, 1, 2,
                                                       nullptr), TB_CUDA_EINVAL);
    /* No tokens: nothing to launch. */
    assert_int_equal(transformer_block_rope_split_cuda(TB_CUDA_F32, qkv, q, k, v, table, 0, 2, 1, 1, 2, nullptr), 0);
}

/* ---- SwiGLU on the fused gate/up rows ---------------------------------------- */

/* gate_up = [tokens][2 inter] (gate's columns, then up's), shift elements
 * off a 16-byte boundary; after the kernel each row's gate half holds
 * SiLU(g) u and its up half is untouched. */
static void run_swiglu(tb_cuda_dtype dt, size_t tokens, size_t inter, size_t shift)
{
    size_t n = tokens * 2 * inter;
    tensor gu0(dt, n, shift);
    for (size_t t = 0; t < tokens; t++)
        for (size_t j = 0; j < inter; j++) {
            size_t i = t * inter + j;
            /* Mostly ordinary values, and the tails: e^-g overflows, g vanishes. */
            float g = i % 17 == 5 ? -100.0f : i % 17 == 9 ? 90.0f : i % 17 == 12 ? 0.0f : uniform(-6.0f, 6.0f);
            gu0.set(t * 2 * inter + j, g), gu0.set(t * 2 * inter + inter + j, uniform(-2.0f, 2.0f));
        }
    tensor gu[2] = {{dt, n, shift}, {dt, n, shift}};
    std::vector<double> want(n, 0.0);   /* the up halves stay 0: not counted */
    for (int o = 0; o < 2; o++) {
        cudasim::set_order(o ? cudasim::REVERSED : cudasim::FORWARD);
        memcpy(gu[o].p, gu0.p, gu0.bytes());
        assert_int_equal(transformer_block_swiglu_cuda(dt, gu[o].p, tokens, inter, nullptr), 0);
        for (size_t t = 0; t < tokens; t++)
            for (size_t j = 0; j < inter; j++) {
                size_t gi = t * 2 * inter + j, ui = gi + inter;
                double x = gu0.get(gi), u = gu0.get(ui), r = x / (1.0 + std::exp(-x)) * u;
                want[gi] = r;
                double e = std::fabs(gu[o].get(gi) - r);
                if (!(e <= rel_tol(dt) * std::fabs(r) + 1e-30) || gu[o].get(ui) != gu0.get(ui))
                    fail_msg("swiglu dtype %d tokens %zu inter %zu shift %zu: [%zu][%zu] = %.9g, ref %.9g (g %g, "
                             "u %g; up now %g)", (int)dt, tokens, inter, shift, t, j, (double)gu[o].get(gi), r, x, u,
                             (double)gu[o].get(ui));
            }
    }
    if (dt == TB_CUDA_BF16)
        check_bf16_rounding("swiglu", gu[0], want.data(), n);
    assert_memory_equal(gu[0].p, gu[1].p, gu0.bytes());
    cudasim::set_order(cudasim::FORWARD);
}

/* inter of 1 and 7 (never a whole vector), whole vectors of either type (8
 * x 37 bf16, 4 x 33 fp32: 16-byte loads, and 4 x 5 = 20: whole fp32 vectors,
 * not bf16 ones), the same one element off a 16-byte boundary (scalar),
 * several tokens so that rows restart, and more vectors than one block
 * covers. */
static void test_swiglu(void **state)
{
    (void)state;
    static const size_t shapes[][2] = {{1, 1}, {3, 7}, {5, 4 * 33}, {2, 8 * 37}, {3, 20}, {7, 3 * 256 * 8 + 8}};
    for (tb_cuda_dtype dt : {TB_CUDA_F32, TB_CUDA_BF16})
        for (const auto &sh : shapes)
            for (size_t shift : {0, 1})
                run_swiglu(dt, sh[0], sh[1], shift);
    assert_int_equal(transformer_block_swiglu_cuda(TB_CUDA_F32, nullptr, 0, 5, nullptr), 0);
    assert_int_equal(transformer_block_swiglu_cuda(TB_CUDA_F32, nullptr, 5, 0, nullptr), 0);
    assert_int_equal(transformer_block_swiglu_cuda(TB_CUDA_F32, nullptr, SIZE_MAX / 2, 4, nullptr), TB_CUDA_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rope_split),
        cmocka_unit_test(test_rope_split_refuses),
        cmocka_unit_test(test_swiglu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
