/* attention_amx.c - the bf16 products of attention on AMX tiles (tdpbf16ps),
 * for CPUs with amx_tile and amx_bf16 whose kernel grants the tile state
 * (common/isa.h asks before this path can be chosen). Written from Intel's
 * documentation and compiled everywhere with target attributes, but NOT YET
 * RUN ON ANY MACHINE: the machine it was written on has no AMX, and its test
 * skips there.
 *
 * tdpbf16ps C, A, B: C[m][n] (fp32, 16 lanes a row) += sum_k A[m][2k] B[k][2n]
 * + A[m][2k+1] B[k][2n+1]: A's rows are bf16 along the reduction dimension,
 * B's rows hold pairs of it for each output column ("VNNI" layout). Every
 * tile here is full: 16 rows of 64 bytes (A: 32 bf16 of the reduction; B: 16
 * columns x a pair; C: 16 fp32), so one configuration serves all:
 *   scores      st^T block [16 keys][16 queries] = K [16 keys][32 of d]
 *               x qp [16 pairs of d][16 queries][2]
 *               K is copied into a zero-padded tile buffer (a partial key tile
 *               must not load rows past the input);
 *   accumulate  ot block [16 of d][16 queries] += V^T [16 of d][32 keys]
 *               x pp [16 key pairs][16 queries][2]
 *               V is packed transposed, keys padded with zeros to 32.
 * qp and pp are the layouts of the AVX-512 BF16 path (attention_internal.h):
 * a 16-query chunk of their rows is a B tile with a 256-byte stride. Head
 * dims other than multiples of 32 are left to that path (takes()). */
#if defined(__x86_64__)

#include "attention_internal.h"
#include "common/amx_tile_config.h"

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#define BQ ATTENTION_BQ
#define BK ATTENTION_BK

#ifdef ATTENTION_AMX_SIM
#include "unit/amx_sim.h"          /* tests/unit: the tile instructions in C */
#define AMX
#else
#define AMX __attribute__((target("amx-tile,amx-bf16")))
#endif
#define AVX512 __attribute__((target("avx512f,avx512bw")))

/* tmm0-3: C (four 16-query chunks), tmm4: A, tmm5: B; all 16 x 64 bytes. */
AMX static void configure(void)
{
    amx_tile_config cfg;           /* one cache line */
    amx_tile_config_full(&cfg, 6);
    _tile_loadconfig(&cfg);
}

/* The tile state is per thread and costs the kernel an 8 KiB save on every
 * switch while configured: each call configures, works and releases. */

#define QP_STRIDE (BQ * 2 * 2)     /* bytes between pair rows of qp and pp */
#define ST_STRIDE (BQ * 4)         /* bytes between rows of st and ot */

/* One C tile per query chunk u: the macros take the tile number as an
 * immediate, so the chunks are spelled out. */
#define FOR_CHUNKS(n, X) do { X(0); if ((n) > 1) X(1); if ((n) > 2) X(2); if ((n) > 3) X(3); } while (0)

AMX static void scores_tiles(const uint16_t *qp, const uint16_t *kp, size_t rows, size_t d, size_t nchunks,
                             float *st)
{
    configure();
    for (size_t j = 0; j < rows; j += 16) {
        float *out = st + j * BQ;
#define ZERO(u) _tile_zero(u)
        FOR_CHUNKS(nchunks, ZERO);
        for (size_t c = 0; c < d; c += 32) {
            _tile_loadd(4, kp + j * d + c, (long)(d * 2));
            const uint16_t *b = qp + c / 2 * BQ * 2;
#define DOT_Q(u) do { _tile_loadd(5, b + 32 * (u), QP_STRIDE); _tile_dpbf16ps(u, 4, 5); } while (0)
            FOR_CHUNKS(nchunks, DOT_Q);
        }
#define STORE_S(u) _tile_stored(u, out + 16 * (u), ST_STRIDE)
        FOR_CHUNKS(nchunks, STORE_S);
    }
    _tile_release();
}

/* K's nk rows into a dense, zero-padded [16 k][d] buffer, then the tiles, then
 * the scale (the tiles sum raw products: q stays exact in bf16). */
AVX512 static void scores_amx(const uint16_t *qp, const uint16_t *k, size_t ks, size_t nk, size_t d,
                              size_t nchunks, float qscale, float *st, uint16_t *kscratch)
{
    size_t rows = (nk + 15) / 16 * 16;
    for (size_t j = 0; j < nk; j++)
        memcpy(kscratch + j * d, k + j * ks, d * sizeof *k);
    memset(kscratch + nk * d, 0, (rows - nk) * d * sizeof *k);
    scores_tiles(qp, kscratch, rows, d, nchunks, st);
    const __m512 sc = _mm512_set1_ps(qscale);
    for (size_t j = 0; j < nk; j++)
        for (size_t u = 0; u < nchunks; u++) {
            float *p = st + j * BQ + 16 * u;
            _mm512_store_ps(p, _mm512_mul_ps(_mm512_load_ps(p), sc));
        }
}

/* pp as the AVX-512 BF16 path packs it, plus zero pair rows up to 32 keys. */
AVX512 static void pack_p_amx(const float *st, size_t nk, size_t nchunks, uint16_t *pp)
{
    attention_avx512_bf16_dot.pack_p(st, nk, nchunks, pp);
    size_t from = (nk + 1) / 2, to = (nk + 31) / 32 * 16;
    for (size_t j2 = from; j2 < to; j2++)
        memset(pp + j2 * BQ * 2, 0, nchunks * 16 * 2 * sizeof *pp);
}

/* vt[c][j] = v[j][c] for keys j < nk, zero up to a multiple of 32; rows BK
 * apart. A plain loop: it moves BK x d halves against the BK x d x BQ
 * multiply-adds of the product. */
static void pack_v_amx(uint16_t *vt, const uint16_t *v, size_t vs, size_t nk, size_t d)
{
    size_t keys = (nk + 31) / 32 * 32;
    for (size_t c = 0; c < d; c++) {
        uint16_t *row = vt + c * BK;
        for (size_t j = 0; j < nk; j++)
            row[j] = v[j * vs + c];
        for (size_t j = nk; j < keys; j++)
            row[j] = 0;
    }
}

AMX static void accumulate_tiles(float *ot, const uint16_t *pp, const uint16_t *vt, size_t keys, size_t d,
                                 size_t nchunks)
{
    configure();
    for (size_t c = 0; c < d; c += 16) {
        float *out = ot + c * BQ;
#define LOAD_O(u) _tile_loadd(u, out + 16 * (u), ST_STRIDE)
        FOR_CHUNKS(nchunks, LOAD_O);
        for (size_t j = 0; j < keys; j += 32) {
            _tile_loadd(4, vt + c * BK + j, BK * 2);
            const uint16_t *b = pp + j / 2 * BQ * 2;
#define DOT_P(u) do { _tile_loadd(5, b + 32 * (u), QP_STRIDE); _tile_dpbf16ps(u, 4, 5); } while (0)
            FOR_CHUNKS(nchunks, DOT_P);
        }
#define STORE_O(u) _tile_stored(u, out + 16 * (u), ST_STRIDE)
        FOR_CHUNKS(nchunks, STORE_O);
    }
    _tile_release();
}

/* ot *= alpha in fp32 first, then the tiles add the key tile's products. */
AVX512 static void accumulate_amx(float *ot, const uint16_t *pp, const uint16_t *vt, size_t nk, size_t d,
                                  size_t nchunks, const float *alpha)
{
    for (size_t c = 0; c < d; c++)
        for (size_t u = 0; u < nchunks; u++) {
            float *o = ot + c * BQ + 16 * u;
            _mm512_store_ps(o, _mm512_mul_ps(_mm512_load_ps(o), _mm512_load_ps(alpha + 16 * u)));
        }
    accumulate_tiles(ot, pp, vt, (nk + 31) / 32 * 32, d, nchunks);
}

/* Q and O as the AVX-512 BF16 path moves them. */
static void pack_q_amx(const uint16_t *q, size_t qs, size_t nq, size_t d, size_t lanes, uint16_t *qp)
{
    attention_avx512_bf16_dot.pack_q(q, qs, nq, d, lanes, qp);
}

static void store_o_amx(const float *ot, const float *l, size_t nq, size_t d, uint16_t *o, size_t os)
{
    attention_avx512_bf16_dot.store_o(ot, l, nq, d, o, os);
}

static int takes_amx(size_t d)
{
    return d % 32 == 0;
}

const attention_bf16_kernels attention_amx_dot = {
    32, 0, takes_amx, pack_q_amx, store_o_amx, scores_amx, pack_p_amx, pack_v_amx, accumulate_amx,
};

#endif
