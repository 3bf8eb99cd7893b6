/* linear_bf16.c - bf16 GEMM on vdpbf16ps (see linear_bf16.h).
 *
 * Register tile: 8 rows of a x 48 columns of W (3 vectors of 16), 24 zmm
 * accumulators, 3 for the packed W vectors; a's pairs are broadcast from
 * memory as the instruction's third operand. Per pair of k that is 3 vector
 * loads and 8 broadcasts for 24 dot instructions (1536 flops), enough to keep
 * the dot unit busy from L1/L2. No k blocking: the whole-k panel of 48
 * packed columns (96 KB at k = 1024, 270 KB at k = 2816) stays in L2 while
 * every 8-row block of a streams past it, and an 8-row block of a (16-45 KB)
 * is re-read from L1/L2 for each of the panel's columns.
 *
 * A job is one column panel over 8 row blocks; threads take jobs in turn.
 * Blocking k as well (a k slice of the panel kept in cache while the row
 * blocks' slices of a pass) measured no faster (bench/README.md, "The bf16
 * GEMM").
 *
 * Compiled for the baseline with target attributes; callers check
 * linear_bf16_supported() first. Elsewhere than x86-64 the entry points
 * exist but report no support. */
#include "transformer_block/linear_bf16.h"

#include "common/bf16.h"
#include "common/bf16_avx512.h"
#include "common/isa.h"

#include <stdatomic.h>
#include <string.h>

#define MR 8                       /* rows of a per tile */
#define NV 3                       /* vectors of 16 columns per tile */
#define CHUNK 8                    /* row blocks per job: 64 rows */

size_t linear_bf16_packed_elems(size_t n, size_t k)
{
    return (n + 15) / 16 * 16 * ((k + 1) & ~(size_t)1);
}

void linear_bf16_pack(const uint16_t *w, size_t n, size_t k, uint16_t *dst)
{
    size_t kp = (k + 1) / 2, blocks = (n + 15) / 16;
#pragma omp parallel for schedule(static)
    for (size_t b = 0; b < blocks; b++)
        for (size_t p = 0; p < kp; p++)
            for (size_t c = 0; c < 16; c++)
                for (size_t e = 0; e < 2; e++) {
                    size_t col = b * 16 + c, i = 2 * p + e;
                    dst[((b * kp + p) * 16 + c) * 2 + e] = col < n && i < k ? w[col * k + i] : 0;
                }
}

size_t linear_bf16_packed_a_elems(size_t m, size_t k)
{
    size_t dot = (m + MR - 1) / MR * MR * ((k + 1) & ~(size_t)1);
    size_t amx = linear_bf16_amx_takes(k) ? linear_bf16_amx_packed_a_elems(m, k) : 0;
    return dot > amx ? dot : amx;      /* room for either form: the choice can change between calls */
}

/* Row block rb, pair p, row r at ((rb * kp + p) * MR + r) * 2 (two bf16,
 * one 32-bit word); rows past m and an odd k's missing last element are
 * zeros. Words, not elements, move: pair(row, p) builds one. A whole row
 * block's first pairs go eight at a time through PACK8 where the CPU runs
 * it (the vector form below), the rest one word at a time. */
#define PACK_A(PAIR, PACK8)                                                                              \
    size_t kp = (k + 1) / 2, full = k / 2, blocks = (m + MR - 1) / MR;                                  \
    uint32_t *d32 = (uint32_t *)(void *)dst;                                                             \
    int vector = linear_bf16_supported();                                                                \
    _Pragma("omp parallel for schedule(static)")                                                         \
    for (size_t rb = 0; rb < blocks; rb++) {                                                             \
        uint32_t *d = d32 + rb * kp * MR;                                                                \
        size_t done = vector && (rb + 1) * MR <= m ? PACK8(a + rb * MR * lda, lda, full, d) : 0;        \
        for (size_t r = 0; r < MR; r++) {                                                                \
            size_t row = rb * MR + r;                                                                    \
            if (row >= m) {                                                                              \
                for (size_t p = 0; p < kp; p++)                                                          \
                    d[p * MR + r] = 0;                                                                   \
                continue;                                                                                \
            }                                                                                            \
            for (size_t p = done; p < full; p++)                                                         \
                d[p * MR + r] = PAIR(row * lda + 2 * p);                                                 \
            if (kp > full)                                                                               \
                d[full * MR + r] = LAST(row * lda + 2 * full);                                           \
        }                                                                                                \
    }

static inline uint32_t word(uint16_t lo, uint16_t hi)
{
    return (uint32_t)lo | (uint32_t)hi << 16;
}

#if defined(__x86_64__)
#include <immintrin.h>

#define TARGET __attribute__((target("avx512f,avx512bw,avx512bf16")))

/* Eight rows' eight words each (row r's words p .. p + 7 in rows[r]) stored
 * as the packed form wants them: word p's eight rows side by side, then word
 * p + 1's, ..., 256 contiguous bytes at d. An 8 x 8 transpose of 32-bit
 * words: pairs of rows interleaved, then pairs of pairs, then the halves. */
static inline TARGET void store_transposed(const __m256i rows[MR], uint32_t *d)
{
    __m256i t[8], u[8];
    for (int i = 0; i < 8; i += 2) {
        t[i] = _mm256_unpacklo_epi32(rows[i], rows[i + 1]);       /* w0 w1 | w4 w5 of rows i, i+1 */
        t[i + 1] = _mm256_unpackhi_epi32(rows[i], rows[i + 1]);   /* w2 w3 | w6 w7 */
    }
    for (int i = 0; i < 8; i += 4) {
        u[i] = _mm256_unpacklo_epi64(t[i], t[i + 2]);             /* w0 | w4 of four rows */
        u[i + 1] = _mm256_unpackhi_epi64(t[i], t[i + 2]);         /* w1 | w5 */
        u[i + 2] = _mm256_unpacklo_epi64(t[i + 1], t[i + 3]);     /* w2 | w6 */
        u[i + 3] = _mm256_unpackhi_epi64(t[i + 1], t[i + 3]);     /* w3 | w7 */
    }
    for (int w = 0; w < 4; w++) {
        _mm256_storeu_si256((__m256i *)(void *)(d + w * MR), _mm256_permute2x128_si256(u[w], u[w + 4], 0x20));
        _mm256_storeu_si256((__m256i *)(void *)(d + (w + 4) * MR), _mm256_permute2x128_si256(u[w], u[w + 4], 0x31));
    }
}

/* A whole row block's first pairs, eight at a time (d: the block's packed
 * words); returns how many pairs it packed. */
static TARGET size_t pack8_f32(const float *a, size_t lda, size_t pairs, uint32_t *d)
{
    size_t p = 0;
    for (; p + 8 <= pairs; p += 8) {
        __m256i rows[MR];
        for (int r = 0; r < MR; r++)
            rows[r] = bf16_of_f32_avx512(_mm512_loadu_ps(a + r * lda + 2 * p));
        store_transposed(rows, d + p * MR);
    }
    return p;
}

static TARGET size_t pack8_bf16(const uint16_t *a, size_t lda, size_t pairs, uint32_t *d)
{
    size_t p = 0;
    for (; p + 8 <= pairs; p += 8) {
        __m256i rows[MR];
        for (int r = 0; r < MR; r++)
            rows[r] = _mm256_loadu_si256((const __m256i *)(const void *)(a + r * lda + 2 * p));
        store_transposed(rows, d + p * MR);
    }
    return p;
}
#else
#define pack8_f32(a, lda, pairs, d) ((void)(a), (void)(lda), (void)(pairs), (void)(d), (size_t)0)
#define pack8_bf16 pack8_f32
#endif

void linear_bf16_pack_a(const uint16_t *a, size_t m, size_t k, size_t lda, uint16_t *dst)
{
    if (linear_bf16_amx_on(k)) {
        linear_bf16_amx_pack_a(a, m, k, lda, dst);
        return;
    }
#define PAIR(at) word(a[at], a[(at) + 1])
#define LAST(at) word(a[at], 0)
    PACK_A(PAIR, pack8_bf16)
#undef PAIR
#undef LAST
}

void linear_bf16_pack_a_f32(const float *a, size_t m, size_t k, size_t lda, uint16_t *dst)
{
    if (linear_bf16_amx_on(k)) {
        linear_bf16_amx_pack_a_f32(a, m, k, lda, dst);
        return;
    }
#define PAIR(at) word(f32_to_bf16(a[at]), f32_to_bf16(a[(at) + 1]))
#define LAST(at) word(f32_to_bf16(a[at]), 0)
    PACK_A(PAIR, pack8_f32)
#undef PAIR
#undef LAST
}

#if defined(__x86_64__)

int linear_bf16_supported(void)
{
    /* __builtin_cpu_supports also checks that the OS saves the zmm state. */
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512bf16");
}

/* -1: not chosen yet (the first GEMM asks the CPU), else 0 or 1. */
static _Atomic int amx_choice = -1;

int linear_bf16_amx_supported(void)
{
    return isa_amx_usable();
}

int linear_bf16_set_amx(int use)
{
    if (use && !isa_amx_usable())
        return -1;
    atomic_store(&amx_choice, use != 0);
    return 0;
}

int linear_bf16_amx_on(size_t k)
{
    int use = atomic_load(&amx_choice);
    if (use < 0) {
        use = isa_amx_usable();
        atomic_store(&amx_choice, use);
    }
    return use && linear_bf16_amx_takes(k);
}

/* One tile: mr (1..MR) rows from a, nv (1..NV) column vectors from the packed
 * panel at b (vector j at b + j * bstride), the last vector's stores masked
 * by `last` (a partial block at the matrix's right edge). Inlined into each
 * (mr, nv) case below, so the loops over them unroll into registers. */
static inline __attribute__((always_inline)) TARGET void tile(int mr, int nv, size_t kp, const uint16_t *a,
                                                              const uint16_t *b, size_t bstride, float beta,
                                                              float *c, size_t ldc, __mmask16 last)
{
    __m512 acc[MR][NV];
#pragma GCC unroll 8
    for (int r = 0; r < mr; r++)
#pragma GCC unroll 3
        for (int j = 0; j < nv; j++) {
            __mmask16 m = j == nv - 1 ? last : 0xffff;
            acc[r][j] = beta != 0.0f ? _mm512_maskz_loadu_ps(m, c + r * ldc + 16 * j) : _mm512_setzero_ps();
        }
    /* a is packed: pair p of row r at a + (p * MR + r) * 2, one pointer
     * and constant offsets, broadcast straight into the instruction. */
    for (size_t p = 0; p < kp; p++) {
        __m512bh w[NV];
#pragma GCC unroll 3
        for (int j = 0; j < nv; j++)
            w[j] = (__m512bh)_mm512_loadu_si512((const void *)(b + j * bstride + p * 32));
#pragma GCC unroll 8
        for (int r = 0; r < mr; r++) {
            int32_t pair;
            memcpy(&pair, a + (p * MR + (size_t)r) * 2, sizeof pair);
            __m512bh x = (__m512bh)_mm512_set1_epi32(pair);
#pragma GCC unroll 3
            for (int j = 0; j < nv; j++)
                acc[r][j] = _mm512_dpbf16_ps(acc[r][j], x, w[j]);
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < mr; r++)
#pragma GCC unroll 3
        for (int j = 0; j < nv; j++)
            _mm512_mask_storeu_ps(c + r * ldc + 16 * j, j == nv - 1 ? last : 0xffff, acc[r][j]);
}

/* The (mr, nv) dispatch: each case a tile with constant sizes. */
#define TILE_NV(MRC)                                                                                     \
    switch (nv) {                                                                                        \
    case 1: tile(MRC, 1, kp, a, b, bstride, beta, c, ldc, last); break;                             \
    case 2: tile(MRC, 2, kp, a, b, bstride, beta, c, ldc, last); break;                             \
    default: tile(MRC, 3, kp, a, b, bstride, beta, c, ldc, last); break;                            \
    }

static TARGET void tile_any(int mr, int nv, size_t kp, const uint16_t *a, const uint16_t *b, size_t bstride, float beta, float *c, size_t ldc, __mmask16 last)
{
    switch (mr) {
    case 1: TILE_NV(1) break;
    case 2: TILE_NV(2) break;
    case 3: TILE_NV(3) break;
    case 4: TILE_NV(4) break;
    case 5: TILE_NV(5) break;
    case 6: TILE_NV(6) break;
    case 7: TILE_NV(7) break;
    default: TILE_NV(8) break;
    }
}

/* Column panels of GEMM o. */
static size_t panels_of(const linear_bf16_out *o)
{
    return ((o->n + 15) / 16 + NV - 1) / NV;
}

/* One job: column panel pn of GEMM o over row blocks [rb0, rb1). */
static TARGET void job(size_t m, size_t k, const uint16_t *ap, const linear_bf16_out *o, size_t pn, size_t rb0,
                       size_t rb1)
{
    size_t kp = (k + 1) / 2, bstride = kp * 32, blocks = (o->n + 15) / 16, tail = o->n % 16;
    size_t b0 = pn * NV, nv = blocks - b0 < NV ? blocks - b0 : NV;
    __mmask16 last = b0 + nv == blocks && tail ? (__mmask16)((1u << tail) - 1) : 0xffff;
    for (size_t rb = rb0; rb < rb1; rb++) {
        size_t r0 = rb * MR, mr = m - r0 < MR ? m - r0 : MR;
        tile_any((int)mr, (int)nv, kp, ap + rb * kp * MR * 2, o->wp + b0 * bstride, bstride, o->beta,
                 o->c + r0 * o->ldc + b0 * 16, o->ldc, last);
    }
}

void linear_bf16_multi(size_t m, size_t k, const uint16_t *ap, const linear_bf16_out *outs, size_t n_outs)
{
    if (linear_bf16_amx_on(k)) {
        linear_bf16_amx_multi(m, k, ap, outs, n_outs);
        return;
    }
    size_t row_blocks = (m + MR - 1) / MR, chunks = (row_blocks + CHUNK - 1) / CHUNK, total = 0;
    for (size_t g = 0; g < n_outs; g++)
        total += panels_of(&outs[g]) * chunks;
    /* One team for all the GEMMs, the jobs handed out one at a time: a
     * panel at a matrix's right edge (Q, K and V each end in one) is less
     * work than the others, and on a shared machine one core can be slowed
     * for a while; an even static split left the other thread idle at the
     * end (bench/README.md, "The bf16 GEMM"). */
#pragma omp parallel for schedule(dynamic, 1)
    for (size_t j = 0; j < total; j++) {
        size_t g = 0, rest = j;
        while (rest >= panels_of(&outs[g]) * chunks)
            rest -= panels_of(&outs[g++]) * chunks;
        size_t rb0 = rest % chunks * CHUNK, rb1 = rb0 + CHUNK < row_blocks ? rb0 + CHUNK : row_blocks;
        job(m, k, ap, &outs[g], rest / chunks, rb0, rb1);
    }
}

void linear_bf16(size_t m, size_t n, size_t k, const uint16_t *ap, const uint16_t *wp, float beta, float *c,
                 size_t ldc)
{
    linear_bf16_out o = {n, wp, beta, c, ldc};
    linear_bf16_multi(m, k, ap, &o, 1);
}

#else

int linear_bf16_supported(void)
{
    return 0;
}

int linear_bf16_amx_supported(void)
{
    return 0;
}

int linear_bf16_set_amx(int use)
{
    return use ? -1 : 0;
}

int linear_bf16_amx_on(size_t k)
{
    (void)k;
    return 0;
}

void linear_bf16(size_t m, size_t n, size_t k, const uint16_t *ap, const uint16_t *wp, float beta, float *c,
                 size_t ldc)
{
    (void)m, (void)n, (void)k, (void)ap, (void)wp, (void)beta, (void)c, (void)ldc;
}

void linear_bf16_multi(size_t m, size_t k, const uint16_t *ap, const linear_bf16_out *outs, size_t n_outs)
{
    (void)m, (void)k, (void)ap, (void)outs, (void)n_outs;
}

#endif
