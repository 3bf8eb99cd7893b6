/* test_attention.c - the attention kernels on every instruction set this CPU
 * has, fp32 and bf16, against the double reference through the checker the
 * plugin uses; fully masked queries; the exp2's accuracy; FLOP counting; the
 * checker's own failure paths, fp16's (the CUDA kernels') included.
 *
 * Tolerances (derived in attention_ref.c, where the checker applies them):
 *  - fp32, per output row: max|v| x (2 delta + 2 (min(n, BK) + tiles + 3) u),
 *    delta = ln2 (D + 4) u X + (tiles + 2) E, u = 2^-24: the worst-case error
 *    of the weights (a D-term dot product, scaled by X = |scale| log2(e) ||q||
 *    max ||k||, and the exp2s, E = ATTENTION_EXP2_MAX_REL_ERR, checked below)
 *    and of the blocked sums over n keys.
 *  - bf16 and fp16, per (batch, head): 2 x the max error of a reference in
 *    that type's arithmetic (what frameworks computing in it lose) + 1e-3 +
 *    u16 |ref| (the kernel's own rounding: 2^-8 bf16, 2^-11 fp16) + the fp32
 *    bound.
 *    bf16 adds 2^-8 max|v|: the dot-product paths round the weights to bf16
 *    for P V (derived there).
 * Both are worst-case bounds, loose by 100x and more on random data; on top
 * of them the fp32 cases here must also meet a typical-error bound (below),
 * so that a kernel that loses precision without breaking the worst case (say,
 * weights rounded to bf16) still fails, and the bf16 cases the kernel's own
 * share of the bf16 bound, without the slack for a framework's error (E16).
 *
 * Built three times: test_attention runs the paths every x86-64 CPU may
 * lack only in part (avx512, avx2, portable; one this CPU lacks is skipped,
 * saying so), and with ONLY_ISA defined test_attention_avx512_bf16 and
 * test_attention_amx run that path alone, exiting 77 (automake's skip) with
 * the reason on a CPU without it. */
#include "attention/attention.h"
#include "attention/attention_internal.h"
#include "common/bf16.h"
#include "common/f16.h"

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

/* Typical fp32 error: FP32_TYPICAL x max|v| x (1 + rms of the scores). A
 * score x off by its rounding, u |x|, scales its weight by 2^(u |x|): the
 * weights' errors, and so the outputs', grow with the scores' magnitude. On
 * the data here (rms score = |scale| x q's multiplier x (4/3) sqrt(D) for
 * q, k uniform in +-2) the kernels stay under 6.5e-7 of this unit on every
 * path; 4e-6 leaves 6x margin for other seeds, yet is 20-100x under the
 * worst-case bound and fails weights rounded to bf16 (4e-3 relative each). */
#define FP32_TYPICAL 4e-6

static const char *const isas[] = {"amx", "avx512_bf16", "avx512", "avx2", "portable"};
#define N_ISAS (sizeof isas / sizeof isas[0])

typedef struct path {
    const char *isa;
    int bf16;
} path;

/* ---- data ------------------------------------------------------------- */

static uint32_t rng = 1;

static float uniform(float lo, float hi)
{
    rng = rng * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(rng >> 8) / (float)(1u << 24);
}

static void store(int bf16, void *p, size_t i, float v)
{
    if (bf16)
        ((uint16_t *)p)[i] = f32_to_bf16(v);
    else
        ((float *)p)[i] = v;
}

static float fetch(int bf16, const void *p, size_t i)
{
    return bf16 ? bf16_to_f32(((const uint16_t *)p)[i]) : ((const float *)p)[i];
}

typedef struct case_data {
    attention_shape s;
    int bf16;
    size_t q_elems, kv_elems;
    void *q, *k, *v, *o, *ws;
} case_data;

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    assert_non_null(p);
    return p;
}

/* q, k, v uniform in +-2 (q times qmul, for sharp softmaxes), o poisoned
 * with NaN so that an element the kernel forgets to write fails. The
 * workspace has exactly the size asked for: ASan sees any overrun. */
static case_data make_case(attention_shape s, int bf16, float qmul)
{
    case_data c = {s, bf16, s.batch * s.seq_q * s.heads * s.head_dim,
                   s.batch * s.seq_k * s.kv_heads * s.head_dim, NULL, NULL, NULL, NULL, NULL};
    size_t es = bf16 ? sizeof(uint16_t) : sizeof(float);
    c.q = xmalloc(c.q_elems * es);
    c.k = xmalloc(c.kv_elems * es);
    c.v = xmalloc(c.kv_elems * es);
    c.o = xmalloc(c.q_elems * es);
    size_t ws = attention_workspace_bytes(&s, omp_get_max_threads());
    assert_int_equal(posix_memalign(&c.ws, 64, ws), 0);
    for (size_t i = 0; i < c.q_elems; i++)
        store(bf16, c.q, i, qmul * uniform(-2.0f, 2.0f));
    for (size_t i = 0; i < c.kv_elems; i++) {
        store(bf16, c.k, i, uniform(-2.0f, 2.0f));
        store(bf16, c.v, i, uniform(-2.0f, 2.0f));
    }
    for (size_t i = 0; i < c.q_elems; i++)
        store(bf16, c.o, i, NAN);
    return c;
}

static void free_case(case_data *c)
{
    free(c->q);
    free(c->k);
    free(c->v);
    free(c->o);
    free(c->ws);
}

static void run_kernel(const case_data *c)
{
    if (c->bf16)
        attention_bf16(&c->s, c->q, c->k, c->v, c->o, c->ws);
    else
        attention_f32(&c->s, c->q, c->k, c->v, c->o, c->ws);
}

static attention_check_result check(const case_data *c)
{
    attention_check_result res;
    assert_int_equal(attention_check(&c->s, c->q, c->k, c->v, c->o, c->bf16 ? ATTENTION_BF16 : ATTENTION_F32, 0, &res),
                     0);
    return res;
}

static double max_abs_v(const case_data *c)
{
    double m = 0.0;
    for (size_t i = 0; i < c->kv_elems; i++)
        m = fmax(m, fabs(fetch(c->bf16, c->v, i)));
    return m;
}

static void shape_name(const attention_shape *s, char *buf, size_t n)
{
    snprintf(buf, n, "batch %zu heads %zu/%zu seq %zu/%zu head_dim %zu%s scale %g", s->batch, s->heads,
             s->kv_heads, s->seq_q, s->seq_k, s->head_dim, s->causal ? " causal" : "", (double)s->scale);
}

/* Runs the kernel on one shape and holds it to the checker's bound, and fp32
 * also to the typical one. */
static void run_and_check(attention_shape s, int bf16, float qmul, const char *isa)
{
    case_data c = make_case(s, bf16, qmul);
    run_kernel(&c);
    attention_check_result res = check(&c);
    char name[160];
    shape_name(&s, name, sizeof name);
    if (!res.passed)
        print_error("%s %s: %s\n", isa, name, res.detail);
    assert_true(res.passed);
    assert_int_equal(res.checked, c.q_elems);
    assert_int_equal(res.pairs_checked, s.batch * s.heads);
    assert_int_equal(res.rows_checked, s.seq_q);
    if (!bf16) {
        double rms_score = fabs((double)s.scale) * qmul * (4.0 / 3.0) * sqrt((double)s.head_dim);
        double typical = FP32_TYPICAL * max_abs_v(&c) * (1.0 + rms_score);
        if (res.max_abs_err > typical)
            print_error("%s %s: max error %g over the typical bound %g\n", isa, name, res.max_abs_err, typical);
        assert_true(res.max_abs_err <= typical);
    } else {
        /* The kernel's own bf16 error: fp32's, plus 2^-8 max|v| from the
         * weights rounded to bf16 (dot paths) and 2^-8 |o| <= 2^-8 max|v|
         * from rounding the outputs. */
        double rms_score = fabs((double)s.scale) * qmul * (4.0 / 3.0) * sqrt((double)s.head_dim);
        double vmax = max_abs_v(&c);
        double own = FP32_TYPICAL * vmax * (1.0 + rms_score) + 2.0 * 0x1p-8 * vmax;
        if (res.max_abs_err > own)
            print_error("%s %s: max error %g over the bf16 kernel's bound %g\n", isa, name, res.max_abs_err, own);
        assert_true(res.max_abs_err <= own);
    }
    free_case(&c);
}

/* Switches to the path's ISA, or skips the test where this CPU lacks it. */
static void use_isa(const char *isa)
{
    if (attention_set_isa(isa) != 0) {
        print_message("skipped: this CPU (or its kernel's permission) lacks %s\n", isa);
        skip();
    }
    assert_string_equal(attention_isa(), isa);
}

/* ---- kernels vs reference --------------------------------------------- */

/* Odd sizes: one query tile, partial chunks, head_dim remainders of every
 * register block, Sq != Sk both ways under the mask, grouped heads. Batch 2
 * and a custom scale alternate over the cases. */
static void test_shapes(void **state)
{
    const path *p = *state;
    static const size_t seqs[][2] = {{1, 1}, {3, 3}, {65, 65}, {3, 65}, {65, 3}, {1, 65}};
    static const size_t dims[] = {1, 3, 64, 128};
    static const size_t kvs[] = {1, 2, 4};
    use_isa(p->isa);
    unsigned n = 0;
    for (size_t si = 0; si < sizeof seqs / sizeof seqs[0]; si++)
        for (size_t di = 0; di < sizeof dims / sizeof dims[0]; di++)
            for (size_t ki = 0; ki < sizeof kvs / sizeof kvs[0]; ki++)
                for (int causal = 0; causal < 2; causal++, n++) {
                    size_t d = dims[di];
                    float scale = n % 3 == 0 ? 0.3f : (float)(1.0 / sqrt((double)d));
                    attention_shape s = {1 + n % 2, 4, kvs[ki], seqs[si][0], seqs[si][1], d, causal, scale};
                    run_and_check(s, p->bf16, 1.0f, p->isa);
                }
    attention_set_isa(NULL);
}

/* Several query and key tiles, partial at both ends, with the causal
 * diagonal crossing tile boundaries; a sharp softmax (q x 8) whose max jumps
 * between key tiles, exercising the rescale. 130 x 131: an odd Sk - Sq, so
 * causal query tiles end at odd keys short of Sk (the dot path's V cache
 * must still pack whole pairs). */
static void test_tiles(void **state)
{
    const path *p = *state;
    /* 4200 keys of 64 floats: more than the fp32 V cache holds (1 MiB), so
     * those values are read from the input rows (attention_cpu.c). */
    static const size_t seqs[][2] = {{130, 200}, {200, 130}, {193, 193}, {130, 131}, {3, 4200}};
    static const size_t dims[] = {3, 13, 64};   /* 13: a whole 8-wide transpose (AVX2) and a part */
    use_isa(p->isa);
    for (size_t si = 0; si < sizeof seqs / sizeof seqs[0]; si++)
        for (size_t di = 0; di < sizeof dims / sizeof dims[0]; di++)
            for (int causal = 0; causal < 2; causal++) {
                size_t d = dims[di];
                attention_shape s = {1, 4, 2, seqs[si][0], seqs[si][1], d, causal, (float)(1.0 / sqrt((double)d))};
                run_and_check(s, p->bf16, si == 2 ? 8.0f : 1.0f, p->isa);
            }
    attention_set_isa(NULL);
}

/* Many heads on one kv head, Sk - Sq odd, more threads than cores: the
 * threads take a head's query tiles in turn, so a thread's first tile of a
 * head often ends at an odd key short of Sk and a later one reaches further,
 * which the dot paths' V cache must pack on from without a gap. */
static void test_threads_share_heads(void **state)
{
    const path *p = *state;
    use_isa(p->isa);
    int threads = omp_get_max_threads();
    omp_set_num_threads(4);
    for (int rep = 0; rep < 8; rep++) {      /* the order is the threads' race: repeat it */
        attention_shape s = {1, 8, 1, 130, 131, 64, 1, 0.125f};
        run_and_check(s, p->bf16, 1.0f, p->isa);
    }
    omp_set_num_threads(threads);
    attention_set_isa(NULL);
}

/* Queries that see no key (Sq > Sk, causal) output exact zeros, in a tile
 * where other queries do see keys and in a tile where none does. */
static void test_no_visible_key(void **state)
{
    const path *p = *state;
    use_isa(p->isa);
    static const size_t seqs[][2] = {{5, 3}, {70, 2}};
    for (size_t si = 0; si < 2; si++) {
        attention_shape s = {2, 2, 1, seqs[si][0], seqs[si][1], 3, 1, 0.5f};
        case_data c = make_case(s, p->bf16, 1.0f);
        run_kernel(&c);
        size_t blind = s.seq_q - s.seq_k;      /* queries 0 .. blind-1 see nothing */
        for (size_t b = 0; b < s.batch; b++)
            for (size_t i = 0; i < s.seq_q; i++)
                for (size_t e = 0; e < s.heads * s.head_dim; e++) {
                    float y = fetch(p->bf16, c.o, (b * s.seq_q + i) * s.heads * s.head_dim + e);
                    if (i < blind)
                        assert_true(y == 0.0f);
                    else
                        assert_false(isnan(y));
                }
        assert_true(check(&c).passed);
        free_case(&c);
    }
    attention_set_isa(NULL);
}

/* One key: its weight is 2^0 = 1 exactly and the sum is 1, so o = v bit for
 * bit (bf16: v is already bf16, and rounding it again changes nothing). */
static void test_single_key(void **state)
{
    const path *p = *state;
    use_isa(p->isa);
    static const size_t dims[] = {3, 128};
    for (size_t di = 0; di < 2; di++) {
        attention_shape s = {2, 4, 2, 17, 1, dims[di], 0, 0.7f};
        case_data c = make_case(s, p->bf16, 1.0f);
        run_kernel(&c);
        for (size_t b = 0; b < s.batch; b++)
            for (size_t i = 0; i < s.seq_q; i++)
                for (size_t h = 0; h < s.heads; h++)
                    for (size_t e = 0; e < s.head_dim; e++) {
                        float y = fetch(p->bf16, c.o, ((b * s.seq_q + i) * s.heads + h) * s.head_dim + e);
                        float want = fetch(p->bf16, c.v, (b * s.kv_heads + h / 2) * s.head_dim + e);
                        assert_true(y == want);
                    }
        free_case(&c);
    }
    attention_set_isa(NULL);
}

/* ---- exp2 ----------------------------------------------------------------- */

/* Over the normal range the relative error stays under the bound the checker
 * assumes; below 2^-126 results may flush to zero but never exceed 2^-126;
 * -inf (masked scores) gives exactly 0 and 0 gives exactly 1. */
static void test_exp2(void **state)
{
    (void)state;
    enum { N = 1 << 16 };
    float *x = xmalloc(N * sizeof *x), *y = xmalloc(N * sizeof *y);
    for (size_t k = 0; k < N_ISAS; k++) {
        if (attention_set_isa(isas[k]) != 0)
            continue;
        double worst = 0.0;
        for (int part = 0; part < 3; part++) {
            for (size_t i = 0; i < N; i++) {
                if (part == 0)          /* one binade, densely: the polynomial's whole domain */
                    x[i] = -0.5f + (float)i / N;
                else if (part == 1)     /* the range softmax uses */
                    x[i] = -126.0f + 140.0f * (float)i / N;
                else                    /* the edges: round-half cases, ints */
                    x[i] = (float)((int)(i % 260) - 140) + (i & 1 ? 0.5f : 0.0f);
            }
            attention_exp2(x, y, N - 3);       /* a partial vector at the end */
            for (size_t i = 0; i < N - 3; i++) {
                double want = exp2((double)x[i]);
                if (want >= 0x1p-126 && want < 0x1p127)
                    worst = fmax(worst, fabs(y[i] - want) / want);
                else if (want < 0x1p-126)
                    assert_true(y[i] >= 0.0f && y[i] <= 0x1p-126f);
            }
        }
        print_message("exp2 %s: max relative error %.3g (bound %.3g)\n", isas[k], worst,
                      ATTENTION_EXP2_MAX_REL_ERR);
        assert_true(worst <= ATTENTION_EXP2_MAX_REL_ERR);
        float special[3] = {-INFINITY, 0.0f, -1000.0f}, out[3];
        attention_exp2(special, out, 3);
        assert_true(out[0] == 0.0f);
        assert_true(out[1] == 1.0f);
        assert_true(out[2] == 0.0f);
    }
    free(x);
    free(y);
    attention_set_isa(NULL);
}

/* ---- FLOPs ----------------------------------------------------------------- */

static void test_flops(void **state)
{
    (void)state;
    /* Sq = 3, Sk = 5, causal: query i sees keys j <= i + 2, i.e. 3, 4 and 5
     * keys: 12 pairs; x 4 x head_dim 4 x batch 2 x heads 3 = 1152. */
    attention_shape s = {2, 3, 1, 3, 5, 4, 1, 1.0f};
    assert_true(attention_flops(&s) == 1152.0);
    /* Sq = 5, Sk = 3: queries 0 and 1 see nothing, then 1, 2, 3 keys: 6 pairs. */
    s.seq_q = 5, s.seq_k = 3;
    assert_true(attention_flops(&s) == 4.0 * 4 * 2 * 3 * 6);
    /* Square causal 4 x 4: 1 + 2 + 3 + 4 = 10; without the mask 16. */
    s.seq_q = s.seq_k = 4;
    assert_true(attention_flops(&s) == 4.0 * 4 * 2 * 3 * 10);
    s.causal = 0;
    assert_true(attention_flops(&s) == 4.0 * 4 * 2 * 3 * 16);
}

/* ---- the checker must fail ------------------------------------------------ */

static void test_checker_catches(void **state)
{
    (void)state;
    for (int bf16 = 0; bf16 < 2; bf16++) {
        attention_shape s = {2, 4, 2, 65, 65, 64, 1, 0.125f};
        case_data c = make_case(s, bf16, 1.0f);
        run_kernel(&c);
        assert_true(check(&c).passed);

        /* batch 1, query 40, head 3, col 17 moved by 0.25: over fp32's bound
         * (~1e-3 here) and bf16's (a few 1e-2 at most for |v| <= 2). */
        size_t at = ((1 * s.seq_q + 40) * s.heads + 3) * s.head_dim + 17;
        float saved = fetch(bf16, c.o, at);
        store(bf16, c.o, at, saved + 0.25f);
        attention_check_result res = check(&c);
        assert_false(res.passed);
        assert_int_equal(res.mismatches, 1);
        assert_true(res.max_abs_err > 0.2);
        if (!strstr(res.detail, "batch 1 head 3 query 40 col 17"))
            print_error("detail: %s\n", res.detail);
        assert_non_null(strstr(res.detail, "batch 1 head 3 query 40 col 17"));

        store(bf16, c.o, at, NAN);
        res = check(&c);
        assert_false(res.passed);
        assert_true(isinf(res.max_abs_err));
        store(bf16, c.o, at, saved);

        /* A mask bug: the causal output checked as if unmasked. */
        c.s.causal = 0;
        res = check(&c);
        assert_false(res.passed);
        assert_true(res.mismatches > 1000);
        free_case(&c);
    }
}

/* fp16 has no CPU kernel: its "kernel" output is the double reference
 * rounded to fp16, as a kernel computing in fp32 would store it. The inputs
 * are multiples of 2^-6 in [-2, 2), exact in fp16 and bf16 alike, so the
 * same data held as bf16 shows fp16's bound to be the tighter one: 2^-11
 * against 2^-8 resolution. Moved by three times the tolerance, an output
 * fails; a NaN fails even when a large scale overflows fp16 in the
 * emulation (which saturates, so E16 and the bound stay finite). */
static void test_checker_fp16(void **state)
{
    (void)state;
    attention_shape s = {2, 4, 2, 65, 65, 64, 1, 0.125f};
    size_t nq = s.batch * s.seq_q * s.heads * s.head_dim, nkv = s.batch * s.seq_k * s.kv_heads * s.head_dim;
    uint16_t *h[2][4];               /* [fp16, bf16][q, k, v, o] */
    size_t len[4] = {nq, nkv, nkv, nq};
    for (int a = 0; a < 4; a++)
        for (int t = 0; t < 2; t++)
            h[t][a] = xmalloc(len[a] * sizeof(uint16_t));
    for (int a = 0; a < 3; a++)
        for (size_t i = 0; i < len[a]; i++) {
            float x = floorf(uniform(-2.0f, 2.0f) * 64.0f) / 64.0f;
            h[0][a][i] = f32_to_f16(x);
            h[1][a][i] = f32_to_bf16(x);
        }
    double *ref = xmalloc(nq * sizeof *ref);
    attention_ref(&s, h[0][0], h[0][1], h[0][2], ATTENTION_F16, ref);
    for (size_t i = 0; i < nq; i++) {
        h[0][3][i] = f32_to_f16((float)ref[i]);
        h[1][3][i] = f32_to_bf16((float)ref[i]);
    }

    attention_check_result r16, rb;
    assert_int_equal(attention_check(&s, h[0][0], h[0][1], h[0][2], h[0][3], ATTENTION_F16, 0, &r16), 0);
    assert_int_equal(attention_check(&s, h[1][0], h[1][1], h[1][2], h[1][3], ATTENTION_BF16, 0, &rb), 0);
    print_message("fp16 tolerance %.3g (max error %.3g), bf16 %.3g (max error %.3g)\n", r16.tolerance,
                  r16.max_abs_err, rb.tolerance, rb.max_abs_err);
    assert_true(r16.passed && rb.passed);
    assert_int_equal(r16.checked, nq);
    assert_non_null(strstr(r16.detail, "fp16 vs double ref"));
    assert_non_null(strstr(r16.detail, "2^-11|ref|"));
    assert_null(strstr(r16.detail, "65504"));       /* nothing saturated at scale 1/8 */
    assert_true(r16.tolerance < rb.tolerance / 4);

    size_t at = ((1 * s.seq_q + 40) * s.heads + 3) * s.head_dim + 17;
    h[0][3][at] = f32_to_f16(f16_to_f32(h[0][3][at]) + 3.0f * (float)r16.tolerance);
    attention_check_result res;
    assert_int_equal(attention_check(&s, h[0][0], h[0][1], h[0][2], h[0][3], ATTENTION_F16, 0, &res), 0);
    assert_false(res.passed);
    assert_int_equal(res.mismatches, 1);
    assert_true(res.max_abs_err > r16.tolerance);
    assert_non_null(strstr(res.detail, "batch 1 head 3 query 40 col 17"));

    /* Scores of ~1e5 pass fp16's 65504 in the emulation. */
    s.scale = 1e4f;
    attention_ref(&s, h[0][0], h[0][1], h[0][2], ATTENTION_F16, ref);
    for (size_t i = 0; i < nq; i++)
        h[0][3][i] = f32_to_f16((float)ref[i]);
    assert_int_equal(attention_check(&s, h[0][0], h[0][1], h[0][2], h[0][3], ATTENTION_F16, 0, &res), 0);
    assert_true(res.passed);
    assert_true(isfinite(res.tolerance));
    assert_non_null(strstr(res.detail, "scores passed fp16's 65504 (saturated in the fp16-arith ref"));
    h[0][3][at] = 0x7e00;            /* NaN */
    assert_int_equal(attention_check(&s, h[0][0], h[0][1], h[0][2], h[0][3], ATTENTION_F16, 0, &res), 0);
    assert_false(res.passed);
    assert_int_equal(res.mismatches, 1);

    for (int a = 0; a < 4; a++)
        for (int t = 0; t < 2; t++)
            free(h[t][a]);
    free(ref);
}

/* A budget below the whole work checks an evenly spread subset, the first
 * and the last pair included, and says so: whole pairs while 4 fit, else 4
 * pairs with a subset of their rows, the last row included. */
static void test_checker_subset(void **state)
{
    (void)state;
    attention_shape s = {2, 4, 4, 33, 33, 8, 0, 0.35f};
    case_data c = make_case(s, 0, 1.0f);
    run_kernel(&c);
    double per_pair = 33.0 * 33 * 8 * 3;
    attention_check_result res;
    assert_int_equal(attention_check(&s, c.q, c.k, c.v, c.o, ATTENTION_F32, 5.5 * per_pair, &res), 0);
    assert_true(res.passed);
    assert_int_equal(res.pairs_checked, 5);
    assert_int_equal(res.pairs, 8);
    assert_int_equal(res.rows_checked, 33);
    assert_int_equal(res.checked, 5 * 33 * 8);
    assert_non_null(strstr(res.detail, "5/8 (batch,head) pairs:"));

    assert_int_equal(attention_check(&s, c.q, c.k, c.v, c.o, ATTENTION_F32, 2 * per_pair, &res), 0);
    assert_true(res.passed);
    assert_int_equal(res.pairs_checked, 4);
    assert_int_equal(res.rows_checked, 16);          /* 2 pairs' work over 4 pairs */
    assert_int_equal(res.checked, 4 * 16 * 8);
    assert_non_null(strstr(res.detail, "4/8 (batch,head) pairs, 16/33 rows each"));

    /* The last row of the last pair is among them: corrupt it and both fail. */
    size_t last = ((1 * s.seq_q + 32) * s.heads + 3) * s.head_dim;
    ((float *)c.o)[last] += 1.0f;
    assert_int_equal(attention_check(&s, c.q, c.k, c.v, c.o, ATTENTION_F32, 5.5 * per_pair, &res), 0);
    assert_false(res.passed);
    assert_int_equal(attention_check(&s, c.q, c.k, c.v, c.o, ATTENTION_F32, 2 * per_pair, &res), 0);
    assert_false(res.passed);

    /* An invalid shape is refused, not divided by zero. */
    s.kv_heads = 3;
    assert_int_equal(attention_check(&s, c.q, c.k, c.v, c.o, ATTENTION_F32, 0, &res), -1);
    assert_non_null(strstr(res.detail, "not a multiple"));
    free_case(&c);
}

/* ---- ISA selection -------------------------------------------------------- */

static void test_set_isa(void **state)
{
    (void)state;
    assert_int_equal(attention_set_isa("portable"), 0);
    assert_string_equal(attention_isa(), "portable");
    assert_int_equal(attention_set_isa("sse9"), -1);
    assert_string_equal(attention_isa(), "portable");   /* a refusal changes nothing */
    assert_int_equal(attention_set_isa(NULL), 0);
    const char *best = attention_isa();
    assert_int_equal(attention_set_isa("auto"), 0);
    assert_string_equal(attention_isa(), best);
}

#define PATH_TEST(test, bf16, name, isa) {#test "/" name "/" isa, test, NULL, NULL, &(path){isa, bf16}}

#ifdef ONLY_ISA
#define PATH_TESTS(test, bf16, name) PATH_TEST(test, bf16, name, ONLY_ISA)
#else
#define PATH_TESTS(test, bf16, name)                                            \
    PATH_TEST(test, bf16, name, "avx512"), PATH_TEST(test, bf16, name, "avx2"), \
    PATH_TEST(test, bf16, name, "portable")
#endif

int main(void)
{
#ifdef ONLY_ISA
    if (attention_set_isa(ONLY_ISA) != 0) {
        printf("SKIP: this CPU lacks %s%s, so its attention kernels cannot run here\n", ONLY_ISA,
               strcmp(ONLY_ISA, "amx") == 0 ? " (cpuid amx_tile + amx_bf16 + avx512_bf16, and Linux's "
                                              "ARCH_REQ_XCOMP_PERM for the tile data)" : "");
        return 77;
    }
    attention_set_isa(NULL);
#endif
    const struct CMUnitTest tests[] = {
        PATH_TESTS(test_shapes, 0, "fp32"),
        PATH_TESTS(test_shapes, 1, "bf16"),
        PATH_TESTS(test_tiles, 0, "fp32"),
        PATH_TESTS(test_tiles, 1, "bf16"),
        PATH_TESTS(test_threads_share_heads, 0, "fp32"),
        PATH_TESTS(test_threads_share_heads, 1, "bf16"),
        PATH_TESTS(test_no_visible_key, 0, "fp32"),
        PATH_TESTS(test_no_visible_key, 1, "bf16"),
        PATH_TESTS(test_single_key, 0, "fp32"),
        PATH_TESTS(test_single_key, 1, "bf16"),
        cmocka_unit_test(test_exp2),
        cmocka_unit_test(test_flops),
        cmocka_unit_test(test_checker_catches),
        cmocka_unit_test(test_checker_fp16),
        cmocka_unit_test(test_checker_subset),
        cmocka_unit_test(test_set_isa),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
