/* attention_internal.h - what the parts of the CPU attention agree on: the
 * tile sizes (they also bound the kernels' summation error, which the checker
 * in attention_ref.c relies on), the exp2's accuracy, and the tile kernels
 * each instruction set provides to the driver in attention_cpu.c. Not for
 * callers. */
#ifndef COMPONENTS_ATTENTION_INTERNAL_H
#define COMPONENTS_ATTENTION_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* Queries per tile: the lanes of the transposed tiles. Four AVX-512 vectors,
 * and a multiple of CHUNK. */
#define ATTENTION_BQ 64

/* Lanes the kernels work on at once: a partial query tile is rounded up to a
 * whole number of chunks, never to a whole tile. */
#define ATTENTION_CHUNK 16

/* Keys per tile: the rows of the score tile. A multiple of the microkernels'
 * row block, so that full tiles need no remainder code. */
#define ATTENTION_BK 96

/* The fewest keys per tile the driver uses: it picks the key tile at run time
 * between this and BK, from the L1 data cache (attention_cpu.c key_tile), so
 * the checker counts tiles of this size. */
#define ATTENTION_BK_MIN 24

/* Rows (keys, or head_dim entries) of a register block. */
#define ATTENTION_MR 6

/* Max relative error of the vectorized exp2 over its whole domain: the
 * polynomial's 1.9e-9 plus fp32 evaluation, 7.7e-8 as measured by
 * test_attention, with margin. The portable path's exp2f is within an ulp. */
#define ATTENTION_EXP2_MAX_REL_ERR 2.0e-7

/* 2^f on [-1/2, 1/2]: minimax for relative error (Remez exchange, degree 6),
 * 1.9e-9 before fp32 evaluation. With n = round(x) and f = x - n (exact),
 * 2^x = 2^n p(f). */
#define ATTENTION_EXP2_C0 1.0000000006f
#define ATTENTION_EXP2_C1 0.69314720574f
#define ATTENTION_EXP2_C2 0.24022646891f
#define ATTENTION_EXP2_C3 0.055503287770f
#define ATTENTION_EXP2_C4 0.0096184889571f
#define ATTENTION_EXP2_C5 0.0013399931219f
#define ATTENTION_EXP2_C6 0.00015345812004f

/* Causal mask of one score tile: key row j is visible to lane i when
 * i >= first + j (first: the first visible lane of row 0, any sign). */
typedef struct attention_mask {
    int on;
    ptrdiff_t first;
} attention_mask;

/* Row j's lanes i >= limit are visible, as an int the vector compares take:
 * 0 when every lane is, BQ when none is. */
static inline int attention_lane_limit(ptrdiff_t first, size_t j)
{
    ptrdiff_t t = first + (ptrdiff_t)j;
    return t < 0 ? 0 : t > ATTENTION_BQ ? ATTENTION_BQ : (int)t;
}

/* The bf16 kernels of the dot-product paths (AVX-512 BF16's vdpbf16ps, AMX's
 * tdpbf16ps): both multiply pairs of bf16 along the reduction dimension and
 * accumulate in fp32, so their operands are packed in pairs:
 *   qp [c/2][i][c%2]   Q^T of the query tile, raw bf16 (unscaled: rounding
 *                      q * scale to bf16 would cost the scores 2^-8 relative
 *                      accuracy), lanes >= nq and the odd head_dim's last
 *                      partner zero; packed once per query tile (pack_q)
 *   pp [j/2][i][j%2]   the weights of the key tile rounded to bf16, keys in
 *                      pairs, padding rows zero (pack_p)
 *   vp                 the value tile as the path's accumulate wants it
 *                      (pack_v): pairs of keys for AVX-512 BF16, V^T for AMX
 * The softmax stays fp32 (the fp32 kernels' softmax on st), and the running
 * sum l adds the unrounded weights (as FlashAttention does), so rounding the
 * weights costs each output at most 2^-8 max|v| (attention_ref.c). */
typedef struct attention_bf16_kernels {
    /* Keys are padded to a multiple of this (2: a pair; AMX: 32, a tile's K). */
    size_t key_align;
    /* Whether pack_v's layout runs on from one pair of keys to the next, so
     * that keys j0.. (j0 even) of one packing of a whole head start at
     * vp + j0 * d (AVX-512 BF16: [pair][d][2]; not AMX's V^T per tile). */
    int v_by_key;
    /* Whether the path takes this head_dim (AMX: multiples of 32). */
    int (*takes)(size_t d);
    /* qp from nq query rows (raw bf16, qs apart), zero up to `lanes`. */
    void (*pack_q)(const uint16_t *q, size_t qs, size_t nq, size_t d, size_t lanes, uint16_t *qp);
    /* o row i (os apart) = ot[.][i] / l[i] rounded to bf16 (zeros where l
     * is 0: a query that sees no key), for i < nq. */
    void (*store_o)(const float *ot, const float *l, size_t nq, size_t d, uint16_t *o, size_t os);
    /* st[j][i] = qscale sum_c k[j * ks + c] q[c][i] for keys j < nk, k raw
     * bf16 rows; kscratch: BK x d bf16 the path may use. */
    void (*scores)(const uint16_t *qp, const uint16_t *k, size_t ks, size_t nk, size_t d, size_t nchunks,
                   float qscale, float *st, uint16_t *kscratch);
    /* pp from st's first nk rows, zero rows up to key_align. */
    void (*pack_p)(const float *st, size_t nk, size_t nchunks, uint16_t *pp);
    /* vp from nk value rows (raw bf16, vs apart), zero padded to key_align. */
    void (*pack_v)(uint16_t *vp, const uint16_t *v, size_t vs, size_t nk, size_t d);
    /* ot[c][i] = ot[c][i] alpha[i] + sum_j v[j][c] p[j][i] */
    void (*accumulate)(float *ot, const uint16_t *pp, const uint16_t *vp, size_t nk, size_t d, size_t nchunks,
                       const float *alpha);
} attention_bf16_kernels;

/* One instruction set's tile kernels. Tiles are transposed, queries along
 * the lanes, rows ATTENTION_BQ floats apart and 64-byte aligned; nchunks
 * (1 .. BQ / CHUNK) says how many 16-lane chunks are in use. */
typedef struct attention_kernels {
    const char *name;              /* first: common/isa.h reads it */
    /* st[j][i] = sum_c k[j * ks + c] qt[c][i] for keys j < nk */
    void (*scores)(const float *qt, const float *k, size_t ks, size_t nk, size_t d, size_t nchunks,
                   float *st);
    /* Masks st, turns its scores (log2 units) into weights relative to the
     * new running max m, and updates m and l; alpha gets the factor, 2^(old m -
     * new m), by which the earlier sums shrink. */
    void (*softmax)(float *st, size_t nk, size_t nchunks, attention_mask mk, float *m, float *l,
                    float *alpha);
    /* ot[c][i] = ot[c][i] alpha[i] + sum_j v[j * vs + c] pt[j][i] for c < d */
    void (*accumulate)(float *ot, const float *pt, const float *v, size_t vs, size_t nk, size_t d,
                       size_t nchunks, const float *alpha);
    /* bf16 -> f32 */
    void (*widen)(float *dst, const uint16_t *src, size_t n);
    /* y = 2^x, as softmax computes it */
    void (*exp2)(const float *x, float *y, size_t n);
    /* fp32 Q into the tile and O out of it, or NULL (the driver's loops):
     * qt[c][i] = q[i * qs + c] qscale, zero lanes up to `lanes`; o row i
     * (os apart) = ot[.][i] / l[i], zeros where l is 0. */
    void (*pack_q)(const float *q, size_t qs, size_t nq, size_t d, size_t lanes, float qscale, float *qt);
    void (*store_o)(const float *ot, const float *l, size_t nq, size_t d, float *o, size_t os);
    /* The dot-product paths: bf16 attention on them (NULL: bf16 widened to
     * fp32 and computed with the fp32 kernels above), and the name of the
     * path fp32 attention takes (theirs is the fp32 kernels'). */
    const attention_bf16_kernels *bf16;
    const char *fp32_name;
} attention_kernels;

extern const attention_kernels attention_portable_kernels;
#if defined(__x86_64__)
extern const attention_kernels attention_amx_kernels;
extern const attention_kernels attention_avx512_bf16_kernels;
extern const attention_kernels attention_avx512_kernels;
extern const attention_kernels attention_avx2_kernels;
/* pack_p, pack_v, accumulate of AVX-512 BF16, which AMX falls back on for a
 * head_dim its tiles do not take. */
extern const attention_bf16_kernels attention_avx512_bf16_dot;
#endif

#endif
