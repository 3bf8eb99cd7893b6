/* attention_cpu.c - flash-style attention forward on the CPU: AVX-512,
 * AVX2+FMA and portable C tile kernels, one picked at run time, OpenMP over
 * (batch, head, query tile).
 *
 * One work item is a tile of up to BQ = 64 queries of one head against all the
 * keys they may see, BK = 96 keys at a time, with an online softmax: with x
 * the scores in log2 units, m the running max and l the running sum,
 *
 *   per key tile t:  m'    = max(m, max_j x_ij)
 *                    p_ij  = 2^(x_ij - m')
 *                    alpha = 2^(m - m')                  (1 when the max stays)
 *                    l     = l * alpha + sum_j p_ij
 *                    acc_i = acc_i * alpha + sum_j p_ij v_j
 *   at the end:      o_i   = acc_i / l
 *
 * which equals softmax(x) V exactly in real arithmetic: every term of acc and
 * l carries the same factor 2^(-final max). Working in log2 units (Q scaled
 * by scale * log2(e) once, when the tile is packed) turns each exp into an
 * exp2, whose vector form is a polynomial and an exponent add.
 *
 * The tiles are kept transposed, queries along the vector lanes:
 *   qt [d][i]  Q^T of the tile (packed once per tile)
 *   st [j][i]  scores x_ij = sum_d k_jd qt_di, then the probabilities p_ij
 *   ot [d][i]  the accumulator acc^T
 * so that K and V are read straight from their row-major input (one key row,
 * head_dim contiguous floats, broadcast an element at a time), the softmax's
 * max and sum over keys are element-wise vector ops over the rows of st (no
 * horizontal reductions), and alpha scales the columns of ot. Both products
 * are register-blocked outer products: 6 rows (keys, or head_dim entries) by
 * up to 64 lanes, 24 AVX-512 accumulators.
 *
 * A partial query tile is rounded up to a multiple of 16 lanes (the padding
 * holds zeros and is never stored). bf16 on the dot-product paths (AMX,
 * AVX-512 BF16: attention_internal.h) keeps its inputs in bf16 and packs them
 * in pairs: Q once per query tile, the weights once per key tile, V once per
 * key tile (AMX) or once per head and thread (AVX-512 BF16: packed_v);
 * elsewhere bf16 inputs are widened to fp32, a key tile at a time, into the
 * workspace (V once per head and thread where it fits: cached_v_f32).
 * Under the causal mask the keys along the diagonal go in tiles of 16 that
 * leave out the chunks of queries seeing none of them (run_item). Outputs
 * are rounded to nearest even. The tile kernels live in
 * attention_{amx,avx512_bf16,avx512,avx2,portable}.c; this file picks one at
 * run time and drives them. Without x86-64 only the portable kernels are
 * built. */
#include "attention.h"
#include "attention_internal.h"
#include "common/bf16.h"
#include "common/isa.h"

#include <math.h>
#include <omp.h>
#include <stdatomic.h>
#include <unistd.h>
#include <stddef.h>
#include <string.h>

#define BQ ATTENTION_BQ
#define BK ATTENTION_BK
#define CHUNK ATTENTION_CHUNK

#define LOG2E 1.4426950408889634

/* Below this many FLOPs a fork/join of the team costs more than the work. */
#define PARALLEL_MIN_FLOPS 1e6

/* ---- dispatch --------------------------------------------------------- */

static const attention_kernels *const isas[] = {     /* best first */
#if defined(__x86_64__)
    &attention_amx_kernels,
    &attention_avx512_bf16_kernels,
    &attention_avx512_kernels,
    &attention_avx2_kernels,
#endif
    &attention_portable_kernels,
};

static isa_dispatch dispatch = ISA_DISPATCH(isas);

static const attention_kernels *current_isa(void)
{
    return isa_current(&dispatch);
}

int attention_set_isa(const char *name)
{
    return isa_select(&dispatch, name);
}

const char *attention_isa(void)
{
    return current_isa()->name;
}

/* The dot-product kernels bf16 of head_dim d runs on, or NULL (widened). */
static const attention_bf16_kernels *bf16_path(const attention_kernels *x, size_t d)
{
    if (!x->bf16)
        return NULL;
#if defined(__x86_64__)
    if (!x->bf16->takes(d))
        return &attention_avx512_bf16_dot;   /* every CPU with AMX has it (isa.h) */
#endif
    return x->bf16;
}

const char *attention_isa_for(const attention_shape *s, attention_dtype t)
{
    const attention_kernels *x = current_isa();
    if (t != ATTENTION_BF16)
        return x->fp32_name;
    const attention_bf16_kernels *b = bf16_path(x, s->head_dim);
    return !b ? x->name : b == x->bf16 ? x->name : "avx512_bf16";
}

void attention_exp2(const float *x, float *y, size_t n)
{
    current_isa()->exp2(x, y, n);
}

/* ---- workspace -------------------------------------------------------- */

/* One thread's slice, in floats, each array starting on a 64-byte line:
 *   qt, ot   d x BQ        st   BK x BQ        m, l, alpha   BQ each
 *   kf, vf   BK x d        (bf16 only: the widened key and value tile)
 *   pp       BK x BQ / 2   (bf16 on the dot paths: the weights in pairs)
 *   vc       Sk x d     (one head's V: fp32 rows, or packed in pairs of keys,
 *                          ceil(Sk / 2) x d, where Sk x d is too large; none
 *                          above V_CACHE_MAX_BYTES)
 * The dot paths keep qp (ceil(d / 2) x BQ pairs: (d + 1) x BQ halves) in
 * qt's place, and their packed K and V (BK x d halves at most) in kf's and
 * vf's. */

/* A thread takes a head's query tiles one after another (item_coords), and
 * on a dot path each tile packed the same value tiles again: 4-6% of bf16
 * attention. So a path whose packing a tile can index (v_by_key) packs the
 * head's V once per thread, as far as the tiles have reached, into vc:
 * keys [0, keys) of (batch b, kv head kvh), valid for one call (run() starts
 * it empty). Above this size it would not stay in L2: tiles pack their own.
 * fp32, and bf16 widened, cache V the same way as fp32 rows (cached_v_f32). */
#define V_CACHE_MAX_BYTES (1u << 20)

typedef struct v_cache {
    uint16_t *buf;                 /* NULL: no cache */
    size_t b, kvh, keys;
} v_cache;

typedef struct slice {
    float *qt, *ot, *st, *m, *l, *alpha, *kf, *vf, *pp;
    v_cache vc;
} slice;

#define LINE_FLOATS 16

static size_t lines(size_t floats)
{
    return (floats + LINE_FLOATS - 1) / LINE_FLOATS * LINE_FLOATS;
}

/* Keys of fp32 rows, or pairs of bf16 ones, that vc may hold. */
static size_t v_cache_max_rows(size_t d)
{
    return V_CACHE_MAX_BYTES / sizeof(float) / (d ? d : 1);
}

/* Floats of vc: Sk fp32 rows of d, where they fit, else Sk / 2 pairs of keys
 * (d floats each). */
static size_t v_cache_floats(size_t d, size_t seq_k)
{
    size_t pairs = seq_k / 2 + seq_k % 2;
    if (seq_k <= v_cache_max_rows(d))
        return lines(seq_k * d);
    return pairs <= v_cache_max_rows(d) ? lines(pairs * d) : 0;
}

/* Floats per thread, or 0 when that overflows. */
static size_t slice_floats(size_t d, size_t seq_k)
{
    if (d > SIZE_MAX / 8 / (BQ + BK))
        return 0;
    return 2 * lines(d * BQ) + lines((size_t)BK * BQ) + 3 * lines(BQ) + 2 * lines((size_t)BK * d) +
           lines((size_t)BK * BQ / 2) + v_cache_floats(d, seq_k);
}

static slice slice_at(float *base, size_t d, size_t seq_k)
{
    slice s;
    s.qt = base, base += lines(d * BQ);
    s.ot = base, base += lines(d * BQ);
    s.st = base, base += lines((size_t)BK * BQ);
    s.m = base, base += lines(BQ);
    s.l = base, base += lines(BQ);
    s.alpha = base, base += lines(BQ);
    s.kf = base, base += lines((size_t)BK * d);
    s.vf = base, base += lines((size_t)BK * d);
    s.pp = base, base += lines((size_t)BK * BQ / 2);
    s.vc = (v_cache){v_cache_floats(d, seq_k) ? (uint16_t *)base : NULL, SIZE_MAX, SIZE_MAX, 0};
    return s;
}

size_t attention_workspace_bytes(const attention_shape *s, int threads)
{
    size_t per = slice_floats(s->head_dim, s->seq_k), n = threads > 0 ? (size_t)threads : 1, bytes;
    if (per == 0 || __builtin_mul_overflow(per * sizeof(float), n, &bytes))
        return SIZE_MAX;       /* no allocation can satisfy it */
    return bytes;
}

/* ---- FLOPs -------------------------------------------------------------- */

/* Visible (query, key) pairs of one head. Causal, with off = Sk - Sq, query i
 * sees keys j <= i + off: a_i = i + off + 1 of them when positive (never more
 * than Sk, since i <= Sq - 1). Sq <= Sk: every a_i >= 1 and
 *   sum_{i<Sq} (i + Sk - Sq + 1) = Sq Sk - Sq (Sq - 1) / 2;
 * Sq > Sk: the positive a_i are 1, 2, ..., Sk, summing to Sk (Sk + 1) / 2. */
static double visible_pairs(const attention_shape *s)
{
    double sq = (double)s->seq_q, sk = (double)s->seq_k;
    if (!s->causal)
        return sq * sk;
    return sq <= sk ? sq * sk - sq * (sq - 1) / 2 : sk * (sk + 1) / 2;
}

double attention_flops(const attention_shape *s)
{
    return 4.0 * (double)s->batch * (double)s->heads * (double)s->head_dim * visible_pairs(s);
}

/* ---- the driver --------------------------------------------------------- */

/* Keys per tile, from the L1 data cache: the score tile (keys x BQ floats),
 * which the softmax and the P V product read right after the scores wrote
 * it, takes at most 3/8 of L1d, in whole register blocks, within
 * [ATTENTION_BK_MIN, BK]. Zen 4 (32 KiB): 48 keys, fp32 6-12% faster than
 * with 96 (single-threaded CPU time, 5 interleaved rounds: 78.8 vs 74.0
 * GFLOP/s at 16 x 1024 x 64, 76.4 vs 68.5 at 8 x 1024 x 128 causal; 60 keys
 * fell between); bf16 on vdpbf16ps the same within noise. 48 KiB (Golden
 * Cove, Sapphire Rapids): 72 keys, by the same rule, not measured. */
static size_t key_tile(void)
{
    static _Atomic size_t cached;
    size_t bk = atomic_load_explicit(&cached, memory_order_relaxed);
    if (bk)
        return bk;
    long l1 = 32768;
#ifdef _SC_LEVEL1_DCACHE_SIZE
    long got = sysconf(_SC_LEVEL1_DCACHE_SIZE);
    if (got > 0)
        l1 = got;
#endif
    bk = (size_t)l1 * 3 / 8 / (BQ * sizeof(float)) / ATTENTION_MR * ATTENTION_MR;
    bk = bk < ATTENTION_BK_MIN ? ATTENTION_BK_MIN : bk > BK ? BK : bk;
    atomic_store_explicit(&cached, bk, memory_order_relaxed);
    return bk;
}

typedef struct job {
    const attention_shape *s;
    const void *q, *k, *v;
    void *o;
    int bf16;
    float qscale;                  /* scale * log2(e): scores in log2 units */
    size_t tiles;                  /* query tiles per head */
    const attention_kernels *x;
    const attention_bf16_kernels *dot;   /* bf16 on a dot-product path, else NULL */
    size_t bk;                     /* keys per tile: key_tile() */
} job;

/* Work item -> (batch, head, query tile): a head's tiles back to back, so
 * that its keys and values stay in cache from one tile to the next (and a
 * group's heads follow each other, sharing theirs). Causal tiles further
 * down the sequence see more keys, so a head's are handed out longest
 * first: each head ends in short tiles, which even out the threads'
 * finishing times. (Longest first across all heads, the order before,
 * jumped to another head's keys on every item: 9-14% slower at 8 heads of
 * 1024 x 128, bench/README.md.) */
static void item_coords(const job *jb, size_t item, size_t *b, size_t *h, size_t *t)
{
    size_t bh = item / jb->tiles;
    *t = item % jb->tiles;
    if (jb->s->causal)
        *t = jb->tiles - 1 - *t;
    *b = bh / jb->s->heads;
    *h = bh % jb->s->heads;
}

static void pack_q(const job *jb, size_t b, size_t h, size_t i0, size_t nq, size_t lanes, float *qt)
{
    const attention_shape *s = jb->s;
    size_t d = s->head_dim, stride = s->heads * d;
    size_t first = ((b * s->seq_q + i0) * s->heads + h) * d;
    for (size_t i = 0; i < nq; i++) {
        size_t row = first + i * stride;
        if (jb->bf16)
            for (size_t c = 0; c < d; c++)
                qt[c * BQ + i] = bf16_to_f32(((const uint16_t *)jb->q)[row + c]) * jb->qscale;
        else
            for (size_t c = 0; c < d; c++)
                qt[c * BQ + i] = ((const float *)jb->q)[row + c] * jb->qscale;
    }
    for (size_t c = 0; c < d; c++)
        for (size_t i = nq; i < lanes; i++)
            qt[c * BQ + i] = 0.0f;
}

/* The causal mask of the key tile j0 .. j0 + nk - 1 against the query tile
 * at i0: key j0 + j is visible to query i0 + i when j0 + j <= i0 + i + off.
 * The chunks of lanes below *lane0 see none of the tile's keys: the kernels
 * start there (those lanes' running max, sum and output do not change). The
 * tile's first key is visible to the tile's last query, so a chunk is left. */
static attention_mask tile_mask(const attention_shape *s, size_t j0, size_t nk, size_t i0, ptrdiff_t off,
                                size_t *lane0)
{
    *lane0 = 0;
    if (!s->causal || (ptrdiff_t)(j0 + nk - 1) <= (ptrdiff_t)i0 + off)
        return (attention_mask){0, 0};
    attention_mask mk = {1, (ptrdiff_t)j0 - (ptrdiff_t)i0 - off};
    if (mk.first > 0) {
        *lane0 = (size_t)mk.first / CHUNK * CHUNK;
        mk.first -= (ptrdiff_t)*lane0;
    }
    return mk;
}

/* Keys j0 .. j0 + nk - 1 of (b, kvh) packed as the dot path's accumulate
 * wants them: from the thread's V cache where there is one, packing on in
 * whole pairs of keys as far as the tile reaches (a tile of odd length then
 * reads its last key's partner as it is, under a weight of 0, as a key
 * tile reads every key some of its queries do not see), else into vf.
 * Tiles start on even keys (run_item: bk, the diagonal's start and dk are
 * even), so a tile's first pair is a pair of the cache. */
static const uint16_t *packed_v(const job *jb, slice *w, size_t b, size_t kvh, size_t j0, size_t nk)
{
    const attention_shape *s = jb->s;
    const attention_bf16_kernels *p = jb->dot;
    size_t d = s->head_dim, kv_stride = s->kv_heads * d;
    const uint16_t *v = (const uint16_t *)jb->v + (b * s->seq_k * s->kv_heads + kvh) * d;   /* key 0 */
    v_cache *c = &w->vc;
    if (!c->buf || !p->v_by_key) {
        p->pack_v((uint16_t *)w->vf, v + j0 * kv_stride, kv_stride, nk, d);
        return (const uint16_t *)w->vf;
    }
    if (c->b != b || c->kvh != kvh)
        *c = (v_cache){c->buf, b, kvh, 0};
    size_t need = j0 + nk + (j0 + nk) % 2;
    need = need < s->seq_k ? need : s->seq_k;
    if (c->keys < need) {          /* keys stays even, or Sk */
        p->pack_v(c->buf + c->keys * d, v + c->keys * kv_stride, kv_stride, need - c->keys, d);
        c->keys = need;
    }
    return c->buf + j0 * d;
}

/* One key tile of bf16 on a dot-product path: the products in bf16 pairs,
 * the softmax in fp32. qp and pp are [pair][lane][2], so a lane offset is
 * 2 halves a lane. */
static void run_dot_key_tile(const job *jb, size_t b, size_t kvh, size_t j0, size_t nk, size_t i0,
                             ptrdiff_t off, size_t nchunks, slice *w)
{
    const attention_shape *s = jb->s;
    const attention_bf16_kernels *p = jb->dot;
    size_t d = s->head_dim, kv_stride = s->kv_heads * d, lane0;
    size_t first = ((b * s->seq_k + j0) * s->kv_heads + kvh) * d;
    attention_mask mk = tile_mask(s, j0, nk, i0, off, &lane0);
    size_t nc = nchunks - lane0 / CHUNK;
    uint16_t *qp = (uint16_t *)w->qt + 2 * lane0, *pp = (uint16_t *)w->pp + 2 * lane0;
    float *st = w->st + lane0, *alpha = w->alpha + lane0;
    p->scores(qp, (const uint16_t *)jb->k + first, kv_stride, nk, d, nc, jb->qscale, st, (uint16_t *)w->kf);
    jb->x->softmax(st, nk, nc, mk, w->m + lane0, w->l + lane0, alpha);
    p->pack_p(st, nk, nc, pp);
    p->accumulate(w->ot + lane0, pp, packed_v(jb, w, b, kvh, j0, nk), nk, d, nc, alpha);
}

/* fp32 values of keys j0 .. j0 + nk - 1 of (b, kvh), and their row stride:
 * from the thread's V cache where it holds the head's rows (copied, or
 * widened from bf16, on as far as the tiles reach), else from the input (bf16:
 * widened into vf per tile). The input's rows are heads x d
 * floats apart (4 KiB at 16 x 64 and 8 x 128): a key tile's all fall in the
 * same few L1 sets, and the AVX2 kernel, whose 16 registers hold one 16-lane
 * chunk at a time, reads them once per chunk, from L2 each time (13% slower
 * than contiguous rows). Copying them per key tile cost as much as it saved;
 * once per head and thread: fp32 attention 2-9% faster on AVX2 and 0-8% on
 * AVX-512 (medians of three shapes; Zen 4, bench/README.md); bf16 widened,
 * which widened V again for every query tile, 1-4% and 1-5%. */
static const float *cached_v_f32(const job *jb, slice *w, size_t b, size_t kvh, size_t j0, size_t nk,
                                 size_t *stride)
{
    const attention_shape *s = jb->s;
    size_t d = s->head_dim, kv_stride = s->kv_heads * d, key0 = (b * s->seq_k * s->kv_heads + kvh) * d;
    v_cache *c = &w->vc;
    *stride = d;
    if (!c->buf || (!jb->bf16 && kv_stride == d) || s->seq_k > v_cache_max_rows(d)) {
        if (!jb->bf16) {
            *stride = kv_stride;
            return (const float *)jb->v + key0 + j0 * kv_stride;
        }
        for (size_t j = 0; j < nk; j++)
            jb->x->widen(w->vf + j * d, (const uint16_t *)jb->v + key0 + (j0 + j) * kv_stride, d);
        return w->vf;
    }
    if (c->b != b || c->kvh != kvh)
        *c = (v_cache){c->buf, b, kvh, 0};
    float *rows = (float *)c->buf;
    for (; c->keys < j0 + nk; c->keys++) {
        if (jb->bf16)
            jb->x->widen(rows + c->keys * d, (const uint16_t *)jb->v + key0 + c->keys * kv_stride, d);
        else
            memcpy(rows + c->keys * d, (const float *)jb->v + key0 + c->keys * kv_stride, d * sizeof(float));
    }
    return rows + j0 * d;
}

/* One key tile on the fp32 kernels (bf16 keys and values widened first). */
static void run_key_tile(const job *jb, size_t b, size_t kvh, size_t j0, size_t nk, size_t i0, ptrdiff_t off,
                         size_t nchunks, slice *w)
{
    if (jb->dot) {
        run_dot_key_tile(jb, b, kvh, j0, nk, i0, off, nchunks, w);
        return;
    }
    const attention_shape *s = jb->s;
    const attention_kernels *x = jb->x;
    size_t d = s->head_dim, kv_stride = s->kv_heads * d, lane0;
    size_t first = ((b * s->seq_k + j0) * s->kv_heads + kvh) * d;
    const float *kt, *vt;
    size_t stride, vstride;
    if (jb->bf16) {
        for (size_t j = 0; j < nk; j++)
            x->widen(w->kf + j * d, (const uint16_t *)jb->k + first + j * kv_stride, d);
        kt = w->kf, stride = d;
    } else {
        kt = (const float *)jb->k + first, stride = kv_stride;
    }
    vt = cached_v_f32(jb, w, b, kvh, j0, nk, &vstride);
    attention_mask mk = tile_mask(s, j0, nk, i0, off, &lane0);
    size_t nc = nchunks - lane0 / CHUNK;
    float *st = w->st + lane0, *alpha = w->alpha + lane0;
    x->scores(w->qt + lane0, kt, stride, nk, d, nc, st);
    x->softmax(st, nk, nc, mk, w->m + lane0, w->l + lane0, alpha);
    x->accumulate(w->ot + lane0, st, vt, vstride, nk, d, nc, alpha);
}

static void store_o(const job *jb, size_t b, size_t h, size_t i0, size_t nq, const slice *w)
{
    const attention_shape *s = jb->s;
    size_t d = s->head_dim, stride = s->heads * d;
    size_t first = ((b * s->seq_q + i0) * s->heads + h) * d;
    for (size_t i = 0; i < nq; i++) {
        float inv = w->l[i] > 0.0f ? 1.0f / w->l[i] : 0.0f;   /* no visible key: zeros */
        size_t row = first + i * stride;
        if (jb->bf16)
            for (size_t c = 0; c < d; c++)
                ((uint16_t *)jb->o)[row + c] = f32_to_bf16(w->ot[c * BQ + i] * inv);
        else
            for (size_t c = 0; c < d; c++)
                ((float *)jb->o)[row + c] = w->ot[c * BQ + i] * inv;
    }
}

static void run_item(const job *jb, size_t item, slice *w)
{
    const attention_shape *s = jb->s;
    const attention_kernels *x = jb->x;
    size_t b, h, t;
    item_coords(jb, item, &b, &h, &t);
    size_t d = s->head_dim, kvh = h / (s->heads / s->kv_heads);
    size_t i0 = t * BQ, nq = s->seq_q - i0 < BQ ? s->seq_q - i0 : BQ;
    size_t nchunks = (nq + CHUNK - 1) / CHUNK, lanes = nchunks * CHUNK;
    ptrdiff_t off = (ptrdiff_t)s->seq_k - (ptrdiff_t)s->seq_q;

    /* Keys [0, end) are visible to some query of the tile: under the mask the
     * tile's last query sees up to key i0 + nq - 1 + off. */
    size_t end = s->seq_k;
    if (s->causal) {
        ptrdiff_t e = (ptrdiff_t)(i0 + nq) + off;
        end = e <= 0 ? 0 : (size_t)e < end ? (size_t)e : end;
    }

    for (size_t i = 0; i < lanes; i++)
        w->m[i] = -INFINITY, w->l[i] = 0.0f;
    for (size_t c = 0; c < d; c++)
        memset(w->ot + c * BQ, 0, lanes * sizeof(float));
    size_t qfirst = ((b * s->seq_q + i0) * s->heads + h) * d, qstride = s->heads * d;
    if (jb->dot)
        jb->dot->pack_q((const uint16_t *)jb->q + qfirst, qstride, nq, d, lanes, (uint16_t *)w->qt);
    else if (!jb->bf16 && x->pack_q)
        x->pack_q((const float *)jb->q + qfirst, qstride, nq, d, lanes, jb->qscale, w->qt);
    else
        pack_q(jb, b, h, i0, nq, lanes, w->qt);

    /* Keys before `diag` are visible to every query of the tile: tiles of bk
     * keys. From there on the mask cuts the tile, and the loop takes CHUNK
     * keys at a time (a dot path's key_align, if more), so that each key tile
     * leaves out the chunks of queries that see none of its keys: 1 x 8 x
     * 1024 x 128 causal fp32 5% faster than one bk tile across the diagonal
     * (tiles of 8 and 12 keys no better, bench/README.md). */
    size_t diag = end, dk = CHUNK;
    if (s->causal) {       /* even, so that every tile before the last is whole pairs of keys */
        ptrdiff_t e = ((ptrdiff_t)i0 + off + 1) & ~(ptrdiff_t)1;
        diag = e <= 0 ? 0 : (size_t)e < end ? (size_t)e : end;
    }
    if (jb->dot && jb->dot->key_align > dk)
        dk = jb->dot->key_align;
    for (size_t j0 = 0; j0 < end;) {
        size_t step = j0 < diag ? jb->bk : dk, lim = j0 < diag ? diag : end;
        size_t nk = lim - j0 < step ? lim - j0 : step;
        run_key_tile(jb, b, kvh, j0, nk, i0, off, nchunks, w);
        j0 += nk;
    }
    if (jb->dot)
        jb->dot->store_o(w->ot, w->l, nq, d, (uint16_t *)jb->o + qfirst, qstride);
    else if (!jb->bf16 && x->store_o)
        x->store_o(w->ot, w->l, nq, d, (float *)jb->o + qfirst, qstride);
    else
        store_o(jb, b, h, i0, nq, w);
}

static void run(const attention_shape *s, const void *q, const void *k, const void *v, void *o,
                int bf16, void *workspace)
{
    if (s->batch == 0 || s->heads == 0 || s->seq_q == 0 || s->head_dim == 0 || s->kv_heads == 0 ||
        s->heads % s->kv_heads != 0)
        return;
    job jb = {s, q, k, v, o, bf16, (float)((double)s->scale * LOG2E),
              (s->seq_q + BQ - 1) / BQ, current_isa(), NULL, key_tile()};
    if (bf16)
        jb.dot = bf16_path(jb.x, s->head_dim);
    size_t items = s->batch * s->heads * jb.tiles, per = slice_floats(s->head_dim, s->seq_k);
#pragma omp parallel if (attention_flops(s) >= PARALLEL_MIN_FLOPS)
    {
        slice w = slice_at((float *)workspace + (size_t)omp_get_thread_num() * per, s->head_dim, s->seq_k);
#pragma omp for schedule(dynamic, 1)
        for (size_t it = 0; it < items; it++)
            run_item(&jb, it, &w);
    }
}

void attention_f32(const attention_shape *s, const float *q, const float *k, const float *v, float *o,
                   void *workspace)
{
    run(s, q, k, v, o, 0, workspace);
}

void attention_bf16(const attention_shape *s, const uint16_t *q, const uint16_t *k, const uint16_t *v,
                    uint16_t *o, void *workspace)
{
    run(s, q, k, v, o, 1, workspace);
}
