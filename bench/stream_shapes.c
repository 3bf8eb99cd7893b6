/* stream_shapes.c - which loop shapes keep a copy's bandwidth on this CPU:
 * the RMSNorm kernel's two passes per row and the alternatives tried for it
 * (issue 26: 2/3 of a copy on Zen 4, 87% on a Xeon), next to stripped-down
 * loops that add one thing at a time to a streaming copy. AVX-512, fp32,
 * written here for the question and independent of rms_norm_cpu.c.
 *
 *   stream_shapes [REPS [ROWS HIDDEN]]   default: 30 8192 4096
 *
 * Every repetition runs every shape once, the order rotating, so that the
 * machine's load hits them alike; each shape's figure is the median over
 * repetitions of (the copy's time / the shape's time) in the same
 * repetition: 1.00 is copy speed. Every shape reads ROWS x HIDDEN floats and
 * writes as many with streaming stores. OpenMP threads as usual
 * (OMP_NUM_THREADS=1: one core's view, less disturbed by other load). A
 * figure, never a pass/fail. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* clock_gettime, before any system header */
#endif

#include "common/stream_copy.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__)
#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f,avx512bw")))

typedef struct job {
    const float *x, *w;
    float *y;
    size_t rows, n;              /* this thread's rows, each of n floats */
} job;

static volatile float sink;      /* keeps the sums of the read-only shapes alive */

/* y = c x: one read stream, one streaming-store stream. */
AVX512 static void scale(const job *j)
{
    __m512 c = _mm512_set1_ps(0.5f);
    for (size_t i = 0; i < j->rows * j->n; i += 16)
        _mm512_stream_ps(j->y + i, _mm512_mul_ps(_mm512_load_ps(j->x + i), c));
}

/* y = c x with x's sum of squares folded in: the same streams, more work. */
AVX512 static void scale_sumsq(const job *j)
{
    __m512 c = _mm512_set1_ps(0.5f), a = _mm512_setzero_ps();
    for (size_t i = 0; i < j->rows * j->n; i += 16) {
        __m512 v = _mm512_load_ps(j->x + i);
        a = _mm512_fmadd_ps(v, v, a);
        _mm512_stream_ps(j->y + i, _mm512_mul_ps(v, c));
    }
    sink = _mm512_reduce_add_ps(a);
}

/* y = c x w, w one row (in L1): a second load stream, one that hits cache. */
AVX512 static void scale_weight(const job *j)
{
    __m512 c = _mm512_set1_ps(0.5f);
    for (size_t r = 0; r < j->rows; r++)
        for (size_t i = 0; i < j->n; i += 16)
            _mm512_stream_ps(j->y + r * j->n + i,
                             _mm512_mul_ps(_mm512_mul_ps(_mm512_load_ps(j->x + r * j->n + i), c),
                                           _mm512_load_ps(j->w + i)));
}

AVX512 static float sumsq_row(const float *x, size_t n)
{
    __m512 a0 = _mm512_setzero_ps(), a1 = a0;
    for (size_t i = 0; i < n; i += 32) {
        __m512 v0 = _mm512_load_ps(x + i), v1 = _mm512_load_ps(x + i + 16);
        a0 = _mm512_fmadd_ps(v0, v0, a0);
        a1 = _mm512_fmadd_ps(v1, v1, a1);
    }
    return _mm512_reduce_add_ps(_mm512_add_ps(a0, a1));
}

/* RMSNorm's shape: per row, the sum of squares, then y = x r w from cache;
 * hint: the software prefetch of the next row in the second pass
 * (0 none, 1 T0 as the kernel does, 2 T1, 3 T1 two rows ahead). */
AVX512 static void two_pass(const job *j, int hint)
{
    for (size_t r = 0; r < j->rows; r++) {
        const float *x = j->x + r * j->n, *next = j->x + (r + 1 < j->rows ? r + 1 : r) * j->n;
        const float *next2 = j->x + (r + 2 < j->rows ? r + 2 : r) * j->n;
        __m512 rs = _mm512_set1_ps(1.0f / (1.0f + sumsq_row(x, j->n)));
        for (size_t i = 0; i < j->n; i += 16) {
            if (hint == 1)
                _mm_prefetch((const char *)(next + i), _MM_HINT_T0);
            else if (hint == 2)
                _mm_prefetch((const char *)(next + i), _MM_HINT_T1);
            else if (hint == 3)
                _mm_prefetch((const char *)(next2 + i), _MM_HINT_T1);
            _mm512_stream_ps(j->y + r * j->n + i,
                             _mm512_mul_ps(_mm512_mul_ps(_mm512_load_ps(x + i), rs), _mm512_load_ps(j->w + i)));
        }
    }
}

/* The kernel's own loops (rms_norm_cpu.c, AVX-512 fp32): a first pass with
 * four accumulators over 64 floats, then a tight second pass, and the
 * candidates for where its prefetch of the next row goes. The plain two_pass
 * above compiles to a slower second pass (it reloads j->y and j->w each
 * iteration: the streaming store may alias them), and that alone changes
 * what the prefetch hint does. */
/* Where the kernel's loops prefetch the next row, and into which cache. */
enum prefetch { PF_P2_T0, PF_P2_T1, PF_P2_NTA, PF_P1_T0, PF_P1_T1, PF_P2_T1_P1_T0_NEAR, PF_P2_T1_AHEAD2 };

__attribute__((always_inline)) AVX512 static inline void prefetch_line(const float *p, int hint)
{
    if (hint == 0)
        _mm_prefetch((const char *)p, _MM_HINT_T0);
    else if (hint == 1)
        _mm_prefetch((const char *)p, _MM_HINT_T1);
    else
        _mm_prefetch((const char *)p, _MM_HINT_NTA);
}

/* The sum of squares of x with an optional prefetch per 64 floats: the next
 * row (hint 0/1) or x itself 1 KiB ahead, into L1 (near != 0). */
__attribute__((always_inline)) AVX512 static inline float sumsq_row4_pf(const float *x, const float *next, size_t n,
                                                                        int hint, int near)
{
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    for (size_t i = 0; i < n; i += 64) {
        if (hint >= 0) {
            for (int k = 0; k < 64; k += 16)
                prefetch_line(next + i + k, hint);
        }
        if (near)
            _mm_prefetch((const char *)(x + i + 256), _MM_HINT_T0);
        __m512 v0 = _mm512_loadu_ps(x + i), v1 = _mm512_loadu_ps(x + i + 16);
        __m512 v2 = _mm512_loadu_ps(x + i + 32), v3 = _mm512_loadu_ps(x + i + 48);
        a0 = _mm512_fmadd_ps(v0, v0, a0);
        a1 = _mm512_fmadd_ps(v1, v1, a1);
        a2 = _mm512_fmadd_ps(v2, v2, a2);
        a3 = _mm512_fmadd_ps(v3, v3, a3);
    }
    return _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
}

__attribute__((always_inline)) AVX512 static inline void kernel_row(const float *x, const float *next,
                                                                    const float *w, float *y, size_t n, int pf)
{
    int p1_hint = pf == PF_P1_T0 ? 0 : pf == PF_P1_T1 ? 1 : -1;
    float ss = sumsq_row4_pf(x, next, n, p1_hint, pf == PF_P2_T1_P1_T0_NEAR);
    __m512 rs = _mm512_set1_ps(1.0f / sqrtf(ss / (float)n + 1e-6f));
    int p2_hint = pf == PF_P2_T0 ? 0 : pf == PF_P2_NTA ? 2 : pf == PF_P1_T0 || pf == PF_P1_T1 ? -1 : 1;
    for (size_t i = 0; i < n; i += 16) {
        if (p2_hint >= 0)
            prefetch_line(next + i, p2_hint);
        _mm512_stream_ps(y + i, _mm512_mul_ps(_mm512_mul_ps(_mm512_loadu_ps(x + i), rs), _mm512_loadu_ps(w + i)));
    }
}

/* One function per variant, so that every branch on pf folds away. */
#define KERNEL_LOOPS(name, pf)                                                                          \
    __attribute__((noinline)) AVX512 static void name(const job *j)                                     \
    {                                                                                                   \
        size_t ahead = (pf) == PF_P2_T1_AHEAD2 ? 2 : 1;                                                 \
        for (size_t r = 0; r < j->rows; r++)                                                            \
            kernel_row(j->x + r * j->n, j->x + (r + ahead < j->rows ? r + ahead : r) * j->n, j->w,     \
                       j->y + r * j->n, j->n, (pf));                                                    \
    }
KERNEL_LOOPS(kernel_p2_t0, PF_P2_T0)
KERNEL_LOOPS(kernel_p2_t1, PF_P2_T1)
KERNEL_LOOPS(kernel_p2_nta, PF_P2_NTA)
KERNEL_LOOPS(kernel_p1_t0, PF_P1_T0)
KERNEL_LOOPS(kernel_p1_t1, PF_P1_T1)
KERNEL_LOOPS(kernel_p2_t1_near, PF_P2_T1_P1_T0_NEAR)
KERNEL_LOOPS(kernel_p2_t1_ahead2, PF_P2_T1_AHEAD2)

/* bf16 (the kernel's loops on n bf16 elements per row, half the bytes): the
 * even/odd split, x r w in f32, rounding to nearest even. Its copy
 * baseline is COPY_HALF. */
AVX512 static __m512 bf16_even(__m512i v) { return _mm512_castsi512_ps(_mm512_slli_epi32(v, 16)); }
AVX512 static __m512 bf16_odd(__m512i v)
{
    return _mm512_castsi512_ps(_mm512_and_si512(v, _mm512_set1_epi32((int)0xffff0000u)));
}
AVX512 static __m512i bf16_round(__m512 f)
{
    __m512i u = _mm512_castps_si512(f);
    __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
    return _mm512_add_epi32(u, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7fff)));
}

__attribute__((always_inline)) AVX512 static inline void bf16_row(const uint16_t *x, const uint16_t *next,
                                                                  const uint16_t *w, uint16_t *y, size_t n,
                                                                  int pf)
{
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    for (size_t i = 0; i < n; i += 64) {
        if (pf == PF_P1_T1)
            for (int k = 0; k < 64; k += 32)
                _mm_prefetch((const char *)(next + i + k), _MM_HINT_T1);
        __m512i v0 = _mm512_loadu_si512(x + i), v1 = _mm512_loadu_si512(x + i + 32);
        __m512 e0 = bf16_even(v0), o0 = bf16_odd(v0), e1 = bf16_even(v1), o1 = bf16_odd(v1);
        a0 = _mm512_fmadd_ps(e0, e0, a0);
        a1 = _mm512_fmadd_ps(o0, o0, a1);
        a2 = _mm512_fmadd_ps(e1, e1, a2);
        a3 = _mm512_fmadd_ps(o1, o1, a3);
    }
    float ss = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
    __m512 r = _mm512_set1_ps(1.0f / sqrtf(ss / (float)n + 1e-6f));
    for (size_t i = 0; i < n; i += 32) {
        if (pf == PF_P2_T0)
            _mm_prefetch((const char *)(next + i), _MM_HINT_T0);
        else if (pf == PF_P2_T1)
            _mm_prefetch((const char *)(next + i), _MM_HINT_T1);
        __m512i xv = _mm512_loadu_si512(x + i), wv = _mm512_loadu_si512(w + i);
        __m512 even = _mm512_mul_ps(_mm512_mul_ps(bf16_even(xv), r), bf16_even(wv));
        __m512 odd = _mm512_mul_ps(_mm512_mul_ps(bf16_odd(xv), r), bf16_odd(wv));
        _mm512_stream_si512((void *)(y + i), _mm512_mask_blend_epi16(0xaaaaaaaau,
                                                                     _mm512_srli_epi32(bf16_round(even), 16),
                                                                     bf16_round(odd)));
    }
}

#define BF16_LOOPS(name, pf)                                                                            \
    __attribute__((noinline, target("avx512f,avx512bw"))) static void name(const job *j)               \
    {                                                                                                   \
        const uint16_t *x = (const uint16_t *)j->x, *w = (const uint16_t *)j->w;                        \
        uint16_t *y = (uint16_t *)j->y;                                                                 \
        for (size_t r = 0; r < j->rows; r++)                                                            \
            bf16_row(x + r * j->n, x + (r + 1 < j->rows ? r + 1 : r) * j->n, w, y + r * j->n, j->n,    \
                     (pf));                                                                             \
    }
BF16_LOOPS(bf16_p2_t0, PF_P2_T0)
BF16_LOOPS(bf16_p2_t1, PF_P2_T1)
BF16_LOOPS(bf16_p1_t1, PF_P1_T1)

/* One sweep per row: y = x r w for row r (from cache: the sweep before read
 * it) while summing the squares of row r + 1 (from memory). */
AVX512 static void pipelined(const job *j)
{
    float ss = sumsq_row(j->x, j->n);
    for (size_t r = 0; r < j->rows; r++) {
        const float *x = j->x + r * j->n, *next = j->x + (r + 1 < j->rows ? r + 1 : r) * j->n;
        __m512 rs = _mm512_set1_ps(1.0f / (1.0f + ss)), a0 = _mm512_setzero_ps(), a1 = a0;
        for (size_t i = 0; i < j->n; i += 32) {
            __m512 v0 = _mm512_load_ps(next + i), v1 = _mm512_load_ps(next + i + 16);
            a0 = _mm512_fmadd_ps(v0, v0, a0);
            a1 = _mm512_fmadd_ps(v1, v1, a1);
            _mm512_stream_ps(j->y + r * j->n + i, _mm512_mul_ps(_mm512_mul_ps(_mm512_load_ps(x + i), rs),
                                                                _mm512_load_ps(j->w + i)));
            _mm512_stream_ps(j->y + r * j->n + i + 16,
                             _mm512_mul_ps(_mm512_mul_ps(_mm512_load_ps(x + i + 16), rs),
                                           _mm512_load_ps(j->w + i + 16)));
        }
        ss = _mm512_reduce_add_ps(_mm512_add_ps(a0, a1));
    }
}

enum { COPY, SCALE, SCALE_SUMSQ, SCALE_WEIGHT, TWO_PASS_NONE, TWO_PASS_T0, TWO_PASS_T1, TWO_PASS_T1_AHEAD2,
       PIPELINED, KERNEL_T0, KERNEL_T1, KERNEL_NTA, KERNEL_P1_T0, KERNEL_P1_T1, KERNEL_T1_NEAR, KERNEL_T1_AHEAD2,
       COPY_HALF, BF16_T0, BF16_T1, BF16_P1_T1, SHAPES };
static const char *const shape_name[SHAPES] = {
    "copy (stream_copy)", "y = c x", "y = c x, + sum x^2", "y = c x w (w in L1)",
    "two passes, no prefetch", "two passes, prefetch T0", "two passes, prefetch T1",
    "two passes, prefetch T1 2 rows on", "one sweep, pipelined rows", "the kernel's loops, prefetch T0",
    "the kernel's loops, prefetch T1", "the kernel's loops, prefetch NTA", "kernel, T0 in pass 1",
    "kernel, T1 in pass 1", "kernel, T1 + T0 1 KiB ahead in pass 1", "kernel, T1 2 rows on",
    "bf16: copy (stream_copy, half)", "bf16 kernel, T0 (vs half copy)", "bf16 kernel, T1 (vs half copy)",
    "bf16 kernel, T1 in pass 1 (vs half)",
};

static void run_shape(int shape, const float *x, const float *w, float *y, size_t rows, size_t n)
{
#pragma omp parallel
    {
        size_t t = (size_t)omp_get_thread_num(), threads = (size_t)omp_get_num_threads();
        size_t first = rows * t / threads, last = rows * (t + 1) / threads;
        job j = {x + first * n, w, y + first * n, last - first, n};
        switch (shape) {
        case COPY: stream_copy(j.y, j.x, j.rows * n * sizeof *x); break;
        case SCALE: scale(&j); break;
        case SCALE_SUMSQ: scale_sumsq(&j); break;
        case SCALE_WEIGHT: scale_weight(&j); break;
        case TWO_PASS_NONE: two_pass(&j, 0); break;
        case TWO_PASS_T0: two_pass(&j, 1); break;
        case TWO_PASS_T1: two_pass(&j, 2); break;
        case TWO_PASS_T1_AHEAD2: two_pass(&j, 3); break;
        case PIPELINED: pipelined(&j); break;
        case KERNEL_T0: kernel_p2_t0(&j); break;
        case KERNEL_T1: kernel_p2_t1(&j); break;
        case KERNEL_NTA: kernel_p2_nta(&j); break;
        case KERNEL_P1_T0: kernel_p1_t0(&j); break;
        case KERNEL_P1_T1: kernel_p1_t1(&j); break;
        case KERNEL_T1_NEAR: kernel_p2_t1_near(&j); break;
        case KERNEL_T1_AHEAD2: kernel_p2_t1_ahead2(&j); break;
        case COPY_HALF: stream_copy(j.y, j.x, j.rows * n * sizeof(uint16_t)); break;
        case BF16_T0: bf16_p2_t0(&j); break;
        case BF16_T1: bf16_p2_t1(&j); break;
        case BF16_P1_T1: bf16_p1_t1(&j); break;
        }
        _mm_sfence();
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static size_t arg_size(const char *s, const char *what)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*s == '-' || *end || v == 0) {
        fprintf(stderr, "stream_shapes: %s must be a positive integer, got '%s'\n", what, s);
        exit(2);
    }
    return (size_t)v;
}

static void *alloc_or_die(size_t bytes)
{
    void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p) {
        fprintf(stderr, "stream_shapes: cannot allocate %zu bytes\n", bytes);
        exit(1);
    }
    memset(p, 0, bytes);        /* fault the pages in before timing */
    return p;
}

int main(int argc, char **argv)
{
    size_t reps = 30, rows = 8192, n = 4096;
    if (argc != 1 && argc != 2 && argc != 4) {
        fprintf(stderr, "usage: %s [REPS [ROWS HIDDEN]]   (HIDDEN a multiple of 32)\n", argv[0]);
        return 2;
    }
    if (argc >= 2)
        reps = arg_size(argv[1], "REPS");
    if (argc == 4) {
        rows = arg_size(argv[2], "ROWS");
        n = arg_size(argv[3], "HIDDEN");
        if (n % 32) {
            fprintf(stderr, "stream_shapes: HIDDEN must be a multiple of 32, got %zu\n", n);
            return 2;
        }
    }
    if (!__builtin_cpu_supports("avx512f")) {
        fprintf(stderr, "stream_shapes: this CPU has no AVX-512\n");
        return 2;
    }
    float *x = alloc_or_die(rows * n * sizeof *x), *y = alloc_or_die(rows * n * sizeof *y);
    float *w = alloc_or_die(n * sizeof *w);
    for (size_t i = 0; i < rows * n; i++)
        x[i] = (float)(i % 1000) / 500.0f - 1.0f;
    for (size_t i = 0; i < n; i++)
        w[i] = 1.0f + (float)(i % 7) / 16.0f;
    double *t = alloc_or_die(reps * SHAPES * sizeof *t), *ratio = alloc_or_die(reps * sizeof *ratio);
    for (size_t r = 0; r <= reps; r++)           /* round 0 warms up */
        for (int k = 0; k < SHAPES; k++) {
            int shape = (int)((k + r) % SHAPES);
            double t0 = now_s();
            run_shape(shape, x, w, y, rows, n);
            if (r > 0)
                t[(r - 1) * SHAPES + shape] = now_s() - t0;
        }
    printf("%zu x %zu fp32, %d threads, %zu reps; copy time / shape time per rep: median [p25, p75]\n", rows, n,
           omp_get_max_threads(), reps);
    for (int k = 0; k < SHAPES; k++) {
        for (size_t r = 0; r < reps; r++)
            ratio[r] = t[r * SHAPES + (k >= COPY_HALF ? COPY_HALF : COPY)] / t[r * SHAPES + k];
        qsort(ratio, reps, sizeof *ratio, cmp_double);
        printf("  %-38s %.2f [%.2f, %.2f]\n", shape_name[k], ratio[reps / 2], ratio[reps / 4], ratio[3 * reps / 4]);
    }
    free(x), free(y), free(w), free(t), free(ratio);
    return 0;
}

#else
int main(void)
{
    fprintf(stderr, "stream_shapes: x86-64 with AVX-512 only\n");
    return 2;
}
#endif
