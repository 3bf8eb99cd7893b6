/* test_transformer_block.c - the Llama decoder block against its double
 * reference on odd shapes in fp32 and bf16; zero projections give the
 * identity exactly; a tiny case worked by hand; region order; shape errors.
 *
 * Tolerances are the checker's (transformer_block_ref.c), per element
 *     |y - ref| <= RTOL |ref| + ATOL rms(ref row),  ATOL = 64 sqrt(K) 2^-24,
 *     RTOL = ATOL (fp32) or ATOL + 2^-8 (bf16),
 * K the longest dot product (max of hidden, intermediate, seq): fp32 dot
 * products of length K err by ~sqrt(K) 2^-24 of their terms' size, compounded
 * over ~8 stages with O(1) gain each (weights scaled by 1/sqrt(fan_in)); bf16
 * adds one final rounding of y, at most 2^-8 relative. test_reference also
 * asserts that the observed error stays under a quarter of that bound, so a
 * kernel that got less accurate would be caught before it hit the limit. */
#include "transformer_block/transformer_block.h"
#include "common/bf16.h"

#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

/* ---- data ------------------------------------------------------------------- */

static uint32_t rng = 12345;

static float uniform(float lo, float hi)
{
    rng = rng * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(rng >> 8) / (float)(1u << 24);
}

/* A block with every buffer allocated; weights and x stored in `dtype`, the
 * kernel reading fp32 weights (a converted copy for bf16). */
typedef struct fixture {
    transformer_block b;
    transformer_block_sizes sz;
    void *x, *y;
    void *w[TB_N_WEIGHTS];         /* as stored */
    float *w32[TB_N_WEIGHTS];      /* bf16: the kernel's fp32 copies */
} fixture;

static size_t elem(transformer_block_dtype dtype)
{
    return dtype == TB_BF16 ? sizeof(uint16_t) : sizeof(float);
}

static void put(transformer_block_dtype dtype, void *p, size_t i, float v)
{
    if (dtype == TB_BF16)
        ((uint16_t *)p)[i] = f32_to_bf16(v);
    else
        ((float *)p)[i] = v;
}

static float get(transformer_block_dtype dtype, const void *p, size_t i)
{
    return dtype == TB_BF16 ? bf16_to_f32(((const uint16_t *)p)[i]) : ((const float *)p)[i];
}

static void *alloc64(size_t bytes)
{
    void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
    assert_non_null(p);
    return p;
}

/* Allocates everything; contents: x and weights zero, norms one. */
static void fixture_init(fixture *f, const transformer_block_shape *s, transformer_block_dtype dtype)
{
    char msg[256];
    memset(f, 0, sizeof *f);
    assert_int_equal(transformer_block_check_shape(s, msg, sizeof msg), 0);
    assert_int_equal(transformer_block_sizes_of(s, dtype, omp_get_max_threads(), &f->sz, msg, sizeof msg), 0);
    f->b.shape = *s;
    f->b.dtype = dtype;
    f->x = alloc64(f->sz.x_bytes);
    f->y = alloc64(f->sz.x_bytes);
    memset(f->x, 0, f->sz.x_bytes);
    for (int i = 0; i < TB_N_WEIGHTS; i++) {
        size_t n = f->sz.weight_elems[i];
        f->w[i] = alloc64(n * elem(dtype));
        for (size_t j = 0; j < n; j++)
            put(dtype, f->w[i], j, i == TB_ATTN_NORM || i == TB_MLP_NORM ? 1.0f : 0.0f);
        f->w32[i] = dtype == TB_BF16 ? alloc64(n * sizeof(float)) : f->w[i];
    }
    for (int i = 0; i < TB_N_BUFS; i++)
        f->b.buf[i] = f->sz.buf_bytes[i] ? alloc64(f->sz.buf_bytes[i]) : NULL;
    transformer_block_rope_table(s, f->b.buf[TB_BUF_ROPE]);
    f->b.x = f->x;
    f->b.y = f->y;
}

/* Weights changed: refresh the kernel's fp32 view. */
static void fixture_sync(fixture *f)
{
    for (int i = 0; i < TB_N_WEIGHTS; i++) {
        if (f->b.dtype == TB_BF16)
            transformer_block_bf16_to_f32(f->w[i], f->w32[i], f->sz.weight_elems[i]);
        f->b.w[i] = f->w32[i];
    }
}

/* x uniform with unit variance; projections uniform with variance 1/fan_in;
 * norms 1 +- 0.2: as the plugin shapes the data generator's values. */
static void fixture_random(fixture *f)
{
    const transformer_block_shape *s = &f->b.shape;
    float r3 = sqrtf(3.0f);
    for (size_t i = 0; i < f->sz.tokens * s->hidden; i++)
        put(f->b.dtype, f->x, i, uniform(-r3, r3));
    for (int i = 0; i < TB_N_WEIGHTS; i++) {
        int norm = i == TB_ATTN_NORM || i == TB_MLP_NORM;
        float a = r3 / sqrtf((float)(i == TB_W_DOWN ? s->intermediate : s->hidden));
        for (size_t j = 0; j < f->sz.weight_elems[i]; j++)
            put(f->b.dtype, f->w[i], j, norm ? uniform(0.8f, 1.2f) : uniform(-a, a));
    }
    fixture_sync(f);
}

static void fixture_free(fixture *f)
{
    free(f->x);
    free(f->y);
    for (int i = 0; i < TB_N_WEIGHTS; i++) {
        if (f->w32[i] != f->w[i])
            free(f->w32[i]);
        free(f->w[i]);
    }
    for (int i = 0; i < TB_N_BUFS; i++)
        free(f->b.buf[i]);
}

static const void *const *stored(const fixture *f)
{
    return (const void *const *)f->w;
}

/* ---- against the reference ------------------------------------------------- */

typedef struct shape_case {
    size_t batch, seq, hidden, heads, kv_heads, intermediate;
    int causal;
} shape_case;

/* head_dim 2, 4, 64, 128; seq 1, 3, 65; GQA groups of 1, 2, 4, 8; odd
 * intermediate sizes; both masks. */
static const shape_case cases[] = {
    {1, 1, 4, 2, 1, 7, 1},         /* head_dim 2, a single token */
    {2, 3, 16, 4, 2, 11, 1},       /* head_dim 4 */
    {1, 3, 12, 3, 3, 5, 0},        /* head_dim 4, 3 heads, no GQA */
    {2, 65, 128, 2, 1, 333, 1},    /* head_dim 64 */
    {1, 65, 256, 4, 4, 97, 0},     /* head_dim 64, not causal */
    {1, 33, 256, 2, 1, 129, 1},    /* head_dim 128 */
    {1, 17, 64, 8, 1, 45, 0},      /* head_dim 8, 8 query heads per kv head */
    {1, 65, 512, 8, 2, 1375, 1},   /* Llama-like proportions, GEMMs past one cache block */
};

static void run_case(const shape_case *c, transformer_block_dtype dtype)
{
    transformer_block_shape s = {c->batch, c->seq, c->hidden, c->heads, c->kv_heads, c->intermediate,
                                 10000.0, 1e-5f, c->causal};
    fixture f;
    fixture_init(&f, &s, dtype);
    fixture_random(&f);
    transformer_block_forward(&f.b);
    transformer_block_check_result r;
    assert_int_equal(transformer_block_check(&s, dtype, f.x, stored(&f), f.y, 1e12, &r), 0);
    int margin_ok = dtype == TB_BF16 || r.max_abs_err <= 0.25 * r.tolerance;
    if (!r.passed || !margin_ok || getenv("TB_TEST_VERBOSE"))
        print_message("%s B%zu S%zu H%zu heads %zu/%zu I%zu causal %d: %s; max err %.3g, bound %.3g\n",
                    dtype == TB_BF16 ? "bf16" : "fp32", c->batch, c->seq, c->hidden, c->heads, c->kv_heads,
                    c->intermediate, c->causal, r.detail, r.max_abs_err, r.tolerance);
    assert_true(r.passed);
    assert_int_equal(r.rows_checked, f.sz.tokens);
    assert_int_equal(r.checked, f.sz.tokens * c->hidden);
    assert_true(margin_ok);
    fixture_free(&f);
}

static void test_reference_fp32(void **st)
{
    (void)st;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i], TB_F32);
}

static void test_reference_bf16(void **st)
{
    (void)st;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i], TB_BF16);
}

/* The checker's budget path: a spread of tokens plus each sequence's last,
 * still passing; and it catches a single wrong element among them. */
static void test_check_subset_and_mismatch(void **st)
{
    (void)st;
    transformer_block_shape s = {2, 40, 64, 4, 2, 96, 10000.0, 1e-5f, 1};
    fixture f;
    fixture_init(&f, &s, TB_F32);
    fixture_random(&f);
    transformer_block_forward(&f.b);
    transformer_block_check_result r;
    /* K/V of all 80 tokens cost ~1.3 MFLOP; each checked token ~0.1 MFLOP more. */
    assert_int_equal(transformer_block_check(&s, TB_F32, f.x, stored(&f), f.y, 2.5e6, &r), 0);
    assert_true(r.passed);
    assert_true(r.rows_checked < r.rows_total);
    assert_true(r.rows_checked >= 2);
    assert_non_null(strstr(r.detail, "+ last of each sequence"));

    float *y = f.y;
    y[(2 * 40 - 1) * 64 + 5] += 0.01f;     /* the last token is always checked */
    assert_int_equal(transformer_block_check(&s, TB_F32, f.x, stored(&f), f.y, 2.5e6, &r), 0);
    assert_false(r.passed);
    assert_int_equal(r.mismatches, 1);
    assert_non_null(strstr(r.detail, "token 79 [5]"));
    fixture_free(&f);
}

/* ---- identity ---------------------------------------------------------------- */

/* All six projections zero: q = k = v = 0, attention averages zero values,
 * Wo and Wdown add exact zeros, so y == x bit for bit whatever the norms. */
static void identity(transformer_block_dtype dtype)
{
    transformer_block_shape s = {2, 9, 32, 4, 2, 21, 500000.0, 1e-6f, 1};
    fixture f;
    fixture_init(&f, &s, dtype);
    fixture_random(&f);
    for (int i = 0; i < TB_ATTN_NORM; i++)
        memset(f.w[i], 0, f.sz.weight_elems[i] * elem(dtype));
    fixture_sync(&f);
    transformer_block_forward(&f.b);
    for (size_t i = 0; i < f.sz.tokens * s.hidden; i++)
        assert_true(get(dtype, f.y, i) == get(dtype, f.x, i));
    fixture_free(&f);
}

static void test_identity_fp32(void **st)
{
    (void)st;
    identity(TB_F32);
}

static void test_identity_bf16(void **st)
{
    (void)st;
    identity(TB_BF16);
}

/* ---- by hand ------------------------------------------------------------------ */

/* hidden 4, one head (head_dim 4, one kv head), seq 2, intermediate 1,
 * rope_theta 4, eps 1e-12 (negligible), causal, norms all ones.
 *   x0 = [1, -1, 1, 1], x1 = [2, 2, -2, 2]
 *   Wq = Wk = Wv = I;  Wo[i][(i+1) % 4] = 1, so (Wo o)[i] = o[(i+1) % 4]
 *   Wgate = [0 0 1 0], Wup = [0 0 0 1] (1 x 4); Wdown = [1 0 0 0]^T (4 x 1)
 * A transposed weight, interleaved RoPE pairs or rotating V would all change
 * the result.
 *
 * Attention input. mean(x0^2) = 1, mean(x1^2) = 4, so n0 = x0, n1 = x1 / 2 =
 * [1, 1, -1, 1]; q = k = v = n. RoPE, inv_freq = 4^(-2i/4) = [1, 1/2]:
 * position 0 turns nothing; position 1 pairs (0, 2) by 1 rad and (1, 3) by
 * 0.5 rad: k1 = q1 = [c1 + s1, c.5 - s.5, s1 - c1, c.5 + s.5] (c1 = cos 1, ...).
 * Scores, scale 1/sqrt(4) = 1/2:
 *   q1 . k0 / 2 = ((c1 + s1) - (c.5 - s.5) + (s1 - c1) + (c.5 + s.5)) / 2
 *              = sin 1 + sin 0.5 = 1.32089652
 *   q1 . k1 / 2 = |n1|^2 / 2 = 2  (a rotation keeps the norm)
 * Token 0 sees only itself: o0 = v0 = [1, -1, 1, 1].
 * Token 1: p0 = 1 / (1 + e^(2 - 1.32089652)) = 0.336461427, p1 = 0.663538573,
 *   o1 = p0 v0 + p1 v1 = [1, a, -a, 1] with a = p1 - p0 = 0.327077147.
 * Out projection and residual:
 *   h0 = x0 + [-1, 1, 1, 1] = [0, 0, 2, 2]
 *   h1 = x1 + [a, -a, 1, 1] = [2 + a, 2 - a, -1, 3]
 * MLP. mean(h0^2) = 2: m0 = h0 / sqrt 2, gate = up = sqrt 2,
 *   act0 = silu(sqrt 2) sqrt 2 = 2 / (1 + e^-sqrt 2) = 1.60885937
 * mean(h1^2) = (18 + 2a^2) / 4 = 4.55348973, r = 1/sqrt(that) = 0.468627553:
 *   gate = -r, up = 3r, act1 = -r / (1 + e^r) * 3r = -0.253612827
 * y = h + [act, 0, 0, 0]:
 *   y0 = [1.60885937, 0, 2, 2]
 *   y1 = [2.07346432, 1.67292285, -1, 3] */
static void test_by_hand(void **st)
{
    (void)st;
    transformer_block_shape s = {1, 2, 4, 1, 1, 1, 4.0, 1e-12f, 1};
    fixture f;
    fixture_init(&f, &s, TB_F32);
    const float x[8] = {1, -1, 1, 1, 2, 2, -2, 2};
    memcpy(f.x, x, sizeof x);
    for (int i = 0; i < 4; i++) {
        ((float *)f.w[TB_WQ])[i * 4 + i] = 1.0f;
        ((float *)f.w[TB_WK])[i * 4 + i] = 1.0f;
        ((float *)f.w[TB_WV])[i * 4 + i] = 1.0f;
        ((float *)f.w[TB_WO])[i * 4 + (i + 1) % 4] = 1.0f;
    }
    ((float *)f.w[TB_W_GATE])[2] = 1.0f;
    ((float *)f.w[TB_W_UP])[3] = 1.0f;
    ((float *)f.w[TB_W_DOWN])[0] = 1.0f;
    fixture_sync(&f);
    transformer_block_forward(&f.b);
    const double want[8] = {1.60885937, 0, 2, 2, 2.07346432, 1.67292285, -1, 3};
    const float *y = f.y;
    for (int i = 0; i < 8; i++) {
        if (fabs(y[i] - want[i]) > 1e-6)
            print_error("y[%d] = %.9g, by hand %.9g\n", i, (double)y[i], want[i]);
        assert_true(fabs(y[i] - want[i]) <= 1e-6);   /* fp32 on values ~2: a few ulps */
    }
    transformer_block_check_result r;
    assert_int_equal(transformer_block_check(&s, TB_F32, f.x, stored(&f), f.y, 1e12, &r), 0);
    assert_true(r.passed);
    fixture_free(&f);
}

/* ---- SwiGLU ------------------------------------------------------------------ */

/* Its exp is the kernel's own (exp_approx, 1.1e-7 relative); with the rounding
 * of 1 + e, the quotient and the product that bounds the result at 4e-7
 * relative. Below g = -87 e^-g is clamped to e^88 ~ 2^127, so the result is
 * g u / 2^127 where the exact one is ~0: |g u| 2^-126 absolute covers it,
 * 1e-34 at g = -1000, far below anything the down projection could notice.
 * Across both clamps, zero and a length with a vector remainder. */
static void test_swiglu(void **st)
{
    (void)st;
    static const float special[] = {-1000.0f, -100.0f, -88.5f, -87.0f, -20.0f, -1.0f, -1e-3f, -0.0f, 0.0f,
                                    1e-30f, 1e-3f, 0.5f, 1.0f, 3.0f, 20.0f, 87.0f, 88.5f, 100.0f, 1000.0f};
    size_t ns = sizeof special / sizeof special[0], n = ns + 1003;
    float *g = malloc(n * sizeof *g), *u = malloc(n * sizeof *u), *g0 = malloc(n * sizeof *g0);
    assert_non_null(g);
    assert_non_null(u);
    assert_non_null(g0);
    for (size_t i = 0; i < n; i++) {
        g0[i] = i < ns ? special[i] : uniform(-30.0f, 30.0f);
        u[i] = uniform(-2.0f, 2.0f);
    }
    memcpy(g, g0, n * sizeof *g);
    transformer_block_swiglu(g, u, n);
    for (size_t i = 0; i < n; i++) {
        double x = g0[i], want = x / (1.0 + exp(-x)) * u[i];
        double tol = 4e-7 * fabs(want) + fabs(x * u[i]) * 0x1p-126;
        if (!(fabs(g[i] - want) <= tol))
            print_error("swiglu(%.9g, %.9g) = %.9g, want %.9g\n", x, (double)u[i], (double)g[i], want);
        assert_true(fabs(g[i] - want) <= tol);
    }
    g[0] = NAN;
    transformer_block_swiglu(g, u, 1);
    assert_true(isnan(g[0]));
    free(g);
    free(u);
    free(g0);
}

/* ---- regions ------------------------------------------------------------------ */

typedef struct recorder {
    char log[64][16];              /* "+name" per push, "-" per pop */
    int n, depth, max_depth;
} recorder;

static void rec_push(void *user, const char *name)
{
    recorder *r = user;
    assert_true(r->n < 64);
    snprintf(r->log[r->n++], sizeof r->log[0], "+%s", name);
    if (++r->depth > r->max_depth)
        r->max_depth = r->depth;
}

static void rec_pop(void *user)
{
    recorder *r = user;
    assert_true(r->n < 64);
    assert_true(r->depth > 0);
    r->depth--;
    snprintf(r->log[r->n++], sizeof r->log[0], "-");
}

static void test_regions(void **st)
{
    (void)st;
    static const char *const order[] = {"attn_norm", "qkv_proj", "rope", "attention", "out_proj",
                                        "mlp_norm", "gate_up_proj", "swiglu", "down_proj"};
    for (int dt = TB_F32; dt <= TB_BF16; dt++) {
        transformer_block_shape s = {1, 5, 8, 2, 1, 3, 10000.0, 1e-5f, 1};
        fixture f;
        fixture_init(&f, &s, (transformer_block_dtype)dt);
        fixture_random(&f);
        recorder rec = {.n = 0};
        f.b.regions = (transformer_block_regions){rec_push, rec_pop, &rec};
        for (int step = 0; step < 2; step++)
            transformer_block_forward(&f.b);
        assert_int_equal(rec.n, 2 * 2 * TB_N_REGIONS);
        assert_int_equal(rec.depth, 0);
        assert_int_equal(rec.max_depth, 1);
        for (int i = 0; i < rec.n; i += 2) {
            char want[16];
            snprintf(want, sizeof want, "+%s", order[(i / 2) % TB_N_REGIONS]);
            assert_string_equal(rec.log[i], want);
            assert_string_equal(rec.log[i + 1], "-");
            assert_string_equal(transformer_block_region_names[(i / 2) % TB_N_REGIONS], order[(i / 2) % 9]);
        }
        fixture_free(&f);
    }
}

/* ---- shapes ------------------------------------------------------------------- */

static void expect_shape_error(transformer_block_shape s, const char *starts_with)
{
    char msg[256] = "";
    assert_int_equal(transformer_block_check_shape(&s, msg, sizeof msg), -1);
    if (strncmp(msg, starts_with, strlen(starts_with)) != 0)
        print_error("message \"%s\" should start with \"%s\"\n", msg, starts_with);
    assert_int_equal(strncmp(msg, starts_with, strlen(starts_with)), 0);
}

static void test_shape_errors(void **st)
{
    (void)st;
    transformer_block_shape ok = {1, 256, 1024, 16, 4, 2816, 10000.0, 1e-5f, 1}, s;
    char msg[256];
    assert_int_equal(transformer_block_check_shape(&ok, msg, sizeof msg), 0);
    s = ok, s.hidden = 1000;
    expect_shape_error(s, "hidden_size (1000) is not a multiple of num_heads (16)");
    s = ok, s.kv_heads = 5;
    expect_shape_error(s, "num_heads (16) is not a multiple of num_kv_heads (5)");
    s = ok, s.kv_heads = 32;
    expect_shape_error(s, "num_heads (16) is not a multiple of num_kv_heads (32)");
    s = ok, s.hidden = 48;
    expect_shape_error(s, "hidden_size / num_heads = head_dim = 3 is odd");
    s = ok, s.rope_theta = 0.0;
    expect_shape_error(s, "rope_theta");
    s = ok, s.eps = 0.0f;
    expect_shape_error(s, "eps");
    s = ok, s.batch = (size_t)1 << 40;
    expect_shape_error(s, "batch_size x seq_len");
}

/* The declared FLOPs for the default shape, counted by hand: projections
 * 2 x 256 x (2 x 1024^2 + 2 x 256 x 1024 + 3 x 2816 x 1024) plus causal
 * attention 4 x 16 x 64 x (256 x 257 / 2) visible pairs. */
static void test_flops(void **st)
{
    (void)st;
    transformer_block_shape s = {1, 256, 1024, 16, 4, 2816, 10000.0, 1e-5f, 1};
    double gemm = 2.0 * 256 * (2.0 * 1024 * 1024 + 2.0 * 256 * 1024 + 3.0 * 2816 * 1024);
    double attn = 4.0 * 16 * 64 * (256.0 * 257 / 2);
    assert_true(fabs(transformer_block_flops(&s) - (gemm + attn)) <= 1e-9 * (gemm + attn));
}

int main(void)
{
    transformer_block_blas_setup();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_fp32),
        cmocka_unit_test(test_reference_bf16),
        cmocka_unit_test(test_check_subset_and_mismatch),
        cmocka_unit_test(test_identity_fp32),
        cmocka_unit_test(test_identity_bf16),
        cmocka_unit_test(test_by_hand),
        cmocka_unit_test(test_swiglu),
        cmocka_unit_test(test_regions),
        cmocka_unit_test(test_shape_errors),
        cmocka_unit_test(test_flops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
