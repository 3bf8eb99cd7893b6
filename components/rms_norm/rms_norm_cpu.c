/* rms_norm_cpu.c - RMSNorm on the CPU: AVX-512, AVX2+FMA and portable C row
 * kernels, one picked at run time, OpenMP over rows.
 *
 * Per row of n elements:
 *   pass 1  ss   = sum_i x[i]^2
 *           rstd = 1 / sqrt(ss / n + eps)
 *   pass 2  y[i] = x[i] * rstd * w[i]
 * A row of 4096 floats is 16 KiB, so pass 2 reads x from L1 and a row costs
 * one read of x and one write of y from memory: a copy's traffic (the weight
 * is one row and stays cached). Pass 2 prefetches the next row, so that its
 * memory reads overlap this row's arithmetic instead of stalling pass 1.
 * Into L1 (T0) only where the L1d is 48 KiB or more and holds three rows (x,
 * the next x, w); else into L2 (T1): see prefetch_for_l1d below.
 *
 * Large outputs are written with non-temporal stores: an ordinary store first
 * reads the destination line into the cache (read for ownership), a third
 * stream on top of the two a copy needs. memcpy does the same above a size.
 * Without x86-64 only the portable kernels are built. */
#include "rms_norm.h"
#include "common/bf16.h"
#include "common/isa.h"

#include <math.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <immintrin.h>
#define HAVE_X86_64 1
#endif

/* Below this many elements a fork/join of the thread team (microseconds)
 * costs more than the work itself. */
#define PARALLEL_MIN_ELEMS 16384

/* Outputs at least this large go around the cache: they would not stay in a
 * last-level cache (32 MiB per Zen CCD) anyway. */
#define STREAM_MIN_BYTES (32u << 20)

/* The row kernels' last argument: bit flags. */
#define ROW_STREAM 1        /* non-temporal stores (aligned rows only) */
#define ROW_PREFETCH_L1 2   /* prefetch the next row into L1 (T0), else L2 (T1) */

/* The prefetch of the next row, T0 or T1 by a flag that is a constant in
 * each inlined copy of a row body (the hint is an immediate). */
#define PREFETCH_NEXT(p, l1)                                    \
    do {                                                        \
        if (l1)                                                 \
            _mm_prefetch((const char *)(p), _MM_HINT_T0);       \
        else                                                    \
            _mm_prefetch((const char *)(p), _MM_HINT_T1);       \
    } while (0)

/* Defines NAME(..., flags) from NAME_body(..., flags, l1), an always_inline
 * row body: one copy with each hint, picked once per row. */
#define ROW_WITH_PREFETCH_HINT(attr, name, T)                                                   \
    attr static void name(const T *x, const T *next, const T *w, T *y, size_t n, float eps,    \
                          int flags)                                                            \
    {                                                                                           \
        if (flags & ROW_PREFETCH_L1)                                                            \
            name##_body(x, next, w, y, n, eps, flags, 1);                                       \
        else                                                                                    \
            name##_body(x, next, w, y, n, eps, flags, 0);                                       \
    }

static float rstd_of(float sum_squares, size_t n, float eps)
{
    return 1.0f / sqrtf(sum_squares / (float)n + eps);
}

/* ---- portable C ------------------------------------------------------- */

/* Sixteen independent partial sums, like the lanes of a vector: the rounding
 * error of a sum grows with its number of terms, so long rows stay accurate,
 * and independent lanes let the compiler vectorize without reassociating.
 * The tail goes to a sum of its own so that the lane loop stays a fixed-size
 * block, which gcc vectorizes at -O2. */
#define LANES 16

static float sum_lanes(const float acc[LANES], float tail)
{
    for (int l = 0; l < LANES; l++)
        tail += acc[l];
    return tail;
}

static void row_f32_portable(const float *restrict x, const float *next,
                             const float *restrict w, float *restrict y,
                             size_t n, float eps, int flags)
{
    (void)next, (void)flags;
    float acc[LANES] = {0};
    size_t i = 0;
    for (; i + LANES <= n; i += LANES)
        for (int l = 0; l < LANES; l++)
            acc[l] += x[i + l] * x[i + l];
    float tail = 0.0f;
    for (; i < n; i++)
        tail += x[i] * x[i];
    float r = rstd_of(sum_lanes(acc, tail), n, eps);
    for (i = 0; i + LANES <= n; i += LANES)     /* fixed-size blocks vectorize at -O2 */
        for (int l = 0; l < LANES; l++)
            y[i + l] = x[i + l] * r * w[i + l];
    for (; i < n; i++)
        y[i] = x[i] * r * w[i];
}

static void row_bf16_portable(const uint16_t *restrict x, const uint16_t *next,
                              const uint16_t *restrict w, uint16_t *restrict y,
                              size_t n, float eps, int flags)
{
    (void)next, (void)flags;
    float acc[LANES] = {0};
    size_t i = 0;
    for (; i + LANES <= n; i += LANES)
        for (int l = 0; l < LANES; l++)
            acc[l] += bf16_to_f32(x[i + l]) * bf16_to_f32(x[i + l]);
    float tail = 0.0f;
    for (; i < n; i++)
        tail += bf16_to_f32(x[i]) * bf16_to_f32(x[i]);
    float r = rstd_of(sum_lanes(acc, tail), n, eps);
    for (i = 0; i < n; i++)
        y[i] = f32_to_bf16(bf16_to_f32(x[i]) * r * bf16_to_f32(w[i]));
}

#ifdef HAVE_X86_64

/* ---- AVX-512 ---------------------------------------------------------- */

#define AVX512 __attribute__((target("avx512f,avx512bw")))

/* Four accumulators in pass 1: with one, each FMA would wait for the previous
 * one's result (4 cycles) and the loop could not keep up with memory. */

AVX512 __attribute__((always_inline)) static inline void
row_f32_avx512_body(const float *x, const float *next, const float *w, float *y,
                                  size_t n, float eps, int flags, int l1)
{
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        __m512 v0 = _mm512_loadu_ps(x + i), v1 = _mm512_loadu_ps(x + i + 16);
        __m512 v2 = _mm512_loadu_ps(x + i + 32), v3 = _mm512_loadu_ps(x + i + 48);
        a0 = _mm512_fmadd_ps(v0, v0, a0);
        a1 = _mm512_fmadd_ps(v1, v1, a1);
        a2 = _mm512_fmadd_ps(v2, v2, a2);
        a3 = _mm512_fmadd_ps(v3, v3, a3);
    }
    for (; i + 16 <= n; i += 16) {
        __m512 v = _mm512_loadu_ps(x + i);
        a0 = _mm512_fmadd_ps(v, v, a0);
    }
    __mmask16 tail = (__mmask16)((1u << (n - i)) - 1);  /* masked-off lanes load 0 */
    __m512 v = _mm512_maskz_loadu_ps(tail, x + i);
    a1 = _mm512_fmadd_ps(v, v, a1);
    float ss = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));

    __m512 r = _mm512_set1_ps(rstd_of(ss, n, eps));
    int stream = (flags & ROW_STREAM) && ((uintptr_t)y & 63) == 0;     /* streaming stores need alignment */
    for (i = 0; i + 16 <= n; i += 16) {
        PREFETCH_NEXT(next + i, l1);
        __m512 o = _mm512_mul_ps(_mm512_mul_ps(_mm512_loadu_ps(x + i), r), _mm512_loadu_ps(w + i));
        if (stream)
            _mm512_stream_ps(y + i, o);
        else
            _mm512_storeu_ps(y + i, o);
    }
    __m512 o = _mm512_mul_ps(_mm512_mul_ps(_mm512_maskz_loadu_ps(tail, x + i), r),
                             _mm512_maskz_loadu_ps(tail, w + i));
    _mm512_mask_storeu_ps(y + i, tail, o);
    if (stream)
        _mm_sfence();   /* streaming stores are weakly ordered: publish before the join */
}
ROW_WITH_PREFETCH_HINT(AVX512, row_f32_avx512, float)

/* bf16 pairs: the 32-bit lane k holds element 2k in its low half and 2k+1 in
 * its high half. Shifting left by 16 makes the even element an f32, masking
 * off the low half the odd one; both are cheap integer ops, and the element
 * order inside the vector never matters to the sum of squares. */
AVX512 static __m512 bf16_even_avx512(__m512i v)
{
    return _mm512_castsi512_ps(_mm512_slli_epi32(v, 16));
}

AVX512 static __m512 bf16_odd_avx512(__m512i v)
{
    return _mm512_castsi512_ps(_mm512_and_si512(v, _mm512_set1_epi32((int)0xffff0000u)));
}

/* f32 -> bf16 in the high half of each lane, as f32_to_bf16 (bf16.h): adding
 * 0x7fff plus the lowest kept bit rounds to nearest, ties to even. There is no
 * NaN case: with eps a number, every NaN here is a bf16 input carried through
 * (quieted) or the default NaN, so its low half is zero and the carry never
 * reaches the kept half. Infinities stay infinite, and the largest finite
 * values round up to infinity, as they should. */
AVX512 static __m512i bf16_round_avx512(__m512 f)
{
    __m512i u = _mm512_castps_si512(f);
    __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
    return _mm512_add_epi32(u, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7fff)));
}

/* 32 outputs x * r * w, rounded and packed back in element order. */
AVX512 static __m512i bf16_scale_avx512(__m512i xv, __m512i wv, __m512 r)
{
    __m512 even = _mm512_mul_ps(_mm512_mul_ps(bf16_even_avx512(xv), r), bf16_even_avx512(wv));
    __m512 odd = _mm512_mul_ps(_mm512_mul_ps(bf16_odd_avx512(xv), r), bf16_odd_avx512(wv));
    return _mm512_mask_blend_epi16(0xaaaaaaaau, _mm512_srli_epi32(bf16_round_avx512(even), 16),
                                   bf16_round_avx512(odd));
}

AVX512 __attribute__((always_inline)) static inline void
row_bf16_avx512_body(const uint16_t *x, const uint16_t *next, const uint16_t *w,
                                   uint16_t *y, size_t n, float eps, int flags, int l1)
{
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        __m512i v0 = _mm512_loadu_si512(x + i), v1 = _mm512_loadu_si512(x + i + 32);
        __m512 e0 = bf16_even_avx512(v0), o0 = bf16_odd_avx512(v0);
        __m512 e1 = bf16_even_avx512(v1), o1 = bf16_odd_avx512(v1);
        a0 = _mm512_fmadd_ps(e0, e0, a0);
        a1 = _mm512_fmadd_ps(o0, o0, a1);
        a2 = _mm512_fmadd_ps(e1, e1, a2);
        a3 = _mm512_fmadd_ps(o1, o1, a3);
    }
    for (; i + 32 <= n; i += 32) {
        __m512i v = _mm512_loadu_si512(x + i);
        __m512 e = bf16_even_avx512(v), o = bf16_odd_avx512(v);
        a0 = _mm512_fmadd_ps(e, e, a0);
        a1 = _mm512_fmadd_ps(o, o, a1);
    }
    __mmask32 tail = (__mmask32)((1ull << (n - i)) - 1);
    __m512i v = _mm512_maskz_loadu_epi16(tail, x + i);
    __m512 e = bf16_even_avx512(v), o = bf16_odd_avx512(v);
    a2 = _mm512_fmadd_ps(e, e, a2);
    a3 = _mm512_fmadd_ps(o, o, a3);
    float ss = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));

    __m512 r = _mm512_set1_ps(rstd_of(ss, n, eps));
    int stream = (flags & ROW_STREAM) && ((uintptr_t)y & 63) == 0;
    for (i = 0; i + 32 <= n; i += 32) {
        PREFETCH_NEXT(next + i, l1);
        __m512i o = bf16_scale_avx512(_mm512_loadu_si512(x + i), _mm512_loadu_si512(w + i), r);
        if (stream)
            _mm512_stream_si512((void *)(y + i), o);
        else
            _mm512_storeu_si512(y + i, o);
    }
    __m512i out = bf16_scale_avx512(_mm512_maskz_loadu_epi16(tail, x + i),
                                    _mm512_maskz_loadu_epi16(tail, w + i), r);
    _mm512_mask_storeu_epi16(y + i, tail, out);
    if (stream)
        _mm_sfence();
}
ROW_WITH_PREFETCH_HINT(AVX512, row_bf16_avx512, uint16_t)

/* ---- AVX2 + FMA ------------------------------------------------------- */

#define AVX2 __attribute__((target("avx2,fma")))

AVX2 static float hsum_avx2(__m256 v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
}

/* Lanes below k set: the mask maskload/maskstore take (sign bit per lane). */
AVX2 static __m256i tail_mask_avx2(size_t k)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)k), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

AVX2 __attribute__((always_inline)) static inline void
row_f32_avx2_body(const float *x, const float *next, const float *w, float *y,
                              size_t n, float eps, int flags, int l1)
{
    __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256 v0 = _mm256_loadu_ps(x + i), v1 = _mm256_loadu_ps(x + i + 8);
        __m256 v2 = _mm256_loadu_ps(x + i + 16), v3 = _mm256_loadu_ps(x + i + 24);
        a0 = _mm256_fmadd_ps(v0, v0, a0);
        a1 = _mm256_fmadd_ps(v1, v1, a1);
        a2 = _mm256_fmadd_ps(v2, v2, a2);
        a3 = _mm256_fmadd_ps(v3, v3, a3);
    }
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i);
        a0 = _mm256_fmadd_ps(v, v, a0);
    }
    __m256i tail = tail_mask_avx2(n - i);
    __m256 v = _mm256_maskload_ps(x + i, tail);
    a1 = _mm256_fmadd_ps(v, v, a1);
    float ss = hsum_avx2(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)));

    __m256 r = _mm256_set1_ps(rstd_of(ss, n, eps));
    int stream = (flags & ROW_STREAM) && ((uintptr_t)y & 31) == 0;
    for (i = 0; i + 8 <= n; i += 8) {
        PREFETCH_NEXT(next + i, l1);
        __m256 o = _mm256_mul_ps(_mm256_mul_ps(_mm256_loadu_ps(x + i), r), _mm256_loadu_ps(w + i));
        if (stream)
            _mm256_stream_ps(y + i, o);
        else
            _mm256_storeu_ps(y + i, o);
    }
    __m256 o = _mm256_mul_ps(_mm256_mul_ps(_mm256_maskload_ps(x + i, tail), r),
                             _mm256_maskload_ps(w + i, tail));
    _mm256_maskstore_ps(y + i, tail, o);
    if (stream)
        _mm_sfence();
}
ROW_WITH_PREFETCH_HINT(AVX2, row_f32_avx2, float)

/* The same even/odd split and rounding as the AVX-512 path, 8 lanes wide. */
AVX2 static __m256 bf16_even_avx2(__m256i v)
{
    return _mm256_castsi256_ps(_mm256_slli_epi32(v, 16));
}

AVX2 static __m256 bf16_odd_avx2(__m256i v)
{
    return _mm256_castsi256_ps(_mm256_and_si256(v, _mm256_set1_epi32((int)0xffff0000u)));
}

AVX2 static __m256i bf16_round_avx2(__m256 f)
{
    __m256i u = _mm256_castps_si256(f);
    __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
    return _mm256_add_epi32(u, _mm256_add_epi32(lsb, _mm256_set1_epi32(0x7fff)));
}

AVX2 __attribute__((always_inline)) static inline void
row_bf16_avx2_body(const uint16_t *x, const uint16_t *next, const uint16_t *w,
                               uint16_t *y, size_t n, float eps, int flags, int l1)
{
    __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i v0 = _mm256_loadu_si256((const __m256i *)(x + i));
        __m256i v1 = _mm256_loadu_si256((const __m256i *)(x + i + 16));
        __m256 e0 = bf16_even_avx2(v0), o0 = bf16_odd_avx2(v0);
        __m256 e1 = bf16_even_avx2(v1), o1 = bf16_odd_avx2(v1);
        a0 = _mm256_fmadd_ps(e0, e0, a0);
        a1 = _mm256_fmadd_ps(o0, o0, a1);
        a2 = _mm256_fmadd_ps(e1, e1, a2);
        a3 = _mm256_fmadd_ps(o1, o1, a3);
    }
    for (; i + 16 <= n; i += 16) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(x + i));
        __m256 e = bf16_even_avx2(v), o = bf16_odd_avx2(v);
        a0 = _mm256_fmadd_ps(e, e, a0);
        a1 = _mm256_fmadd_ps(o, o, a1);
    }
    /* AVX2 has no 16-bit masked load: the tail (< 16 elements) is scalar. */
    size_t body = i;
    float ss = hsum_avx2(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)));
    for (; i < n; i++) {
        float v = bf16_to_f32(x[i]);
        ss += v * v;
    }

    float rs = rstd_of(ss, n, eps);
    __m256 r = _mm256_set1_ps(rs);
    int stream = (flags & ROW_STREAM) && ((uintptr_t)y & 31) == 0;
    for (i = 0; i < body; i += 16) {
        PREFETCH_NEXT(next + i, l1);
        __m256i xv = _mm256_loadu_si256((const __m256i *)(x + i));
        __m256i wv = _mm256_loadu_si256((const __m256i *)(w + i));
        __m256 even = _mm256_mul_ps(_mm256_mul_ps(bf16_even_avx2(xv), r), bf16_even_avx2(wv));
        __m256 odd = _mm256_mul_ps(_mm256_mul_ps(bf16_odd_avx2(xv), r), bf16_odd_avx2(wv));
        __m256i o = _mm256_blend_epi16(_mm256_srli_epi32(bf16_round_avx2(even), 16),
                                       bf16_round_avx2(odd), 0xaa);
        if (stream)
            _mm256_stream_si256((__m256i *)(y + i), o);
        else
            _mm256_storeu_si256((__m256i *)(y + i), o);
    }
    for (; i < n; i++)
        y[i] = f32_to_bf16(bf16_to_f32(x[i]) * rs * bf16_to_f32(w[i]));
    if (stream)
        _mm_sfence();
}
ROW_WITH_PREFETCH_HINT(AVX2, row_bf16_avx2, uint16_t)

#endif /* HAVE_X86_64 */

/* ---- dispatch --------------------------------------------------------- */

typedef void row_f32_fn(const float *, const float *, const float *, float *, size_t, float, int);
typedef void row_bf16_fn(const uint16_t *, const uint16_t *, const uint16_t *, uint16_t *,
                         size_t, float, int);

typedef struct isa {
    const char *name;              /* first: common/isa.h reads it */
    row_f32_fn *f32;
    row_bf16_fn *bf16;
} isa;

#ifdef HAVE_X86_64
static const isa avx512 = {"avx512", row_f32_avx512, row_bf16_avx512};
static const isa avx2 = {"avx2", row_f32_avx2, row_bf16_avx2};
#endif
static const isa portable = {"portable", row_f32_portable, row_bf16_portable};

static const isa *const isas[] = {     /* best first */
#ifdef HAVE_X86_64
    &avx512, &avx2,
#endif
    &portable,
};

static isa_dispatch dispatch = ISA_DISPATCH(isas);

static const isa *current_isa(void)
{
    return isa_current(&dispatch);
}

int rms_norm_set_isa(const char *name)
{
    return isa_select(&dispatch, name);
}

const char *rms_norm_isa(void)
{
    return current_isa()->name;
}

/* Where pass 2 prefetches the next row. Into L1 (T0) the next row's pass 1
 * hits L1, but it must fit beside the row pass 2 is still reading and the
 * weight: three rows. On a 48 KiB L1d (Intel Golden Cove and later) a 16 KiB
 * fp32 row at hidden 4096 just fits and T0 ran at 87% of a copy. On Zen 4's
 * 32 KiB L1d T1 (into L2) was faster for fp32 and for bf16 (8 KiB rows,
 * where the three fit), side by side in bench/stream_shapes (bench/README.md,
 * "RMSNorm against the copy on Zen 4"): the T0 lines compete with the
 * current row's in a small L1. Hence T0 only on an L1d of 48 KiB or more
 * that holds the three rows. l1d_bytes 0: unknown, taken as 32 KiB. */
int rms_norm_prefetch_l1_for(size_t l1d_bytes, size_t row_bytes)
{
    if (l1d_bytes == 0)
        l1d_bytes = 32u << 10;
    return l1d_bytes >= (48u << 10) && row_bytes <= l1d_bytes / 3;
}

static size_t l1d_bytes(void)
{
    static _Atomic long cached = -1;
    long l1 = atomic_load_explicit(&cached, memory_order_relaxed);
    if (l1 >= 0)
        return (size_t)l1;
    l1 = 0;
#ifdef _SC_LEVEL1_DCACHE_SIZE
    l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE);
    if (l1 < 0)
        l1 = 0;
#endif
    atomic_store_explicit(&cached, l1, memory_order_relaxed);
    return (size_t)l1;
}

/* RMS_NORM_PREFETCH_AUTO, or a hint forced by rms_norm_set_prefetch. */
static _Atomic int prefetch_choice = RMS_NORM_PREFETCH_AUTO;

int rms_norm_set_prefetch(rms_norm_prefetch hint)
{
    if (hint != RMS_NORM_PREFETCH_AUTO && hint != RMS_NORM_PREFETCH_L1 && hint != RMS_NORM_PREFETCH_L2)
        return -1;
    atomic_store(&prefetch_choice, hint);
    return 0;
}

rms_norm_prefetch rms_norm_prefetch_for(size_t hidden, size_t elem_bytes)
{
    int forced = atomic_load(&prefetch_choice);
    if (forced != RMS_NORM_PREFETCH_AUTO)
        return (rms_norm_prefetch)forced;
    return rms_norm_prefetch_l1_for(l1d_bytes(), hidden * elem_bytes) ? RMS_NORM_PREFETCH_L1
                                                                       : RMS_NORM_PREFETCH_L2;
}

static int row_flags(size_t rows, size_t hidden, size_t elem_bytes)
{
    int flags = rows * hidden * elem_bytes >= STREAM_MIN_BYTES ? ROW_STREAM : 0;
    if (rms_norm_prefetch_for(hidden, elem_bytes) == RMS_NORM_PREFETCH_L1)
        flags |= ROW_PREFETCH_L1;
    return flags;
}

void rms_norm_f32(const float *x, const float *w, float *y,
                  size_t rows, size_t hidden, float eps)
{
    if (rows == 0 || hidden == 0)
        return;
    row_f32_fn *row = current_isa()->f32;
    size_t elems = rows * hidden;
    int flags = row_flags(rows, hidden, sizeof *y);
#pragma omp parallel for schedule(static) if (elems >= PARALLEL_MIN_ELEMS)
    for (size_t r = 0; r < rows; r++)
        row(x + r * hidden, x + (r + 1 < rows ? r + 1 : r) * hidden, w, y + r * hidden,
            hidden, eps, flags);
}

void rms_norm_bf16(const uint16_t *x, const uint16_t *w, uint16_t *y,
                   size_t rows, size_t hidden, float eps)
{
    if (rows == 0 || hidden == 0)
        return;
    row_bf16_fn *row = current_isa()->bf16;
    size_t elems = rows * hidden;
    int flags = row_flags(rows, hidden, sizeof *y);
#pragma omp parallel for schedule(static) if (elems >= PARALLEL_MIN_ELEMS)
    for (size_t r = 0; r < rows; r++)
        row(x + r * hidden, x + (r + 1 < rows ? r + 1 : r) * hidden, w, y + r * hidden,
            hidden, eps, flags);
}
