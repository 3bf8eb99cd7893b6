/* linear_bf16_amx.c - the block's bf16 GEMM on AMX tiles (tdpbf16ps), for
 * CPUs with amx_tile and amx_bf16 whose kernel grants the tile state; the
 * choice and the fallback are linear_bf16.c's. Written from Intel's
 * documentation; on a CPU without AMX it is proven only in the emulation of
 * tests/unit/amx_sim.h (test_linear_bf16_amx_sim), like attention_amx.c.
 *
 * tdpbf16ps C, A, B: C[m][n] (fp32) += sum_k A[m][2k] B[k][2n] + A[m][2k+1]
 * B[k][2n+1]. With every tile 16 rows of 64 bytes:
 *   A  16 rows of a, 32 bf16 of k each: a packed row-major, rows padded
 *      with zeros to a multiple of 32 (linear_bf16_amx_pack_a*);
 *   B  16 pairs of k for 16 columns of W: exactly 16 consecutive pair rows
 *      of linear_bf16_pack's 16-column block, 1 KiB contiguous;
 *   C  16 rows x 16 fp32 of c.
 * A job is 32 rows by 32 columns: tmm0-3 the 2 x 2 C tiles, tmm4-5 two A
 * tiles, tmm6-7 two B tiles, 4 tile products per 32 values of k. Needs k a
 * multiple of 32 (linear_bf16_amx_takes); C tiles cut by the matrix's edge
 * go through a scratch block. */
#include "transformer_block/linear_bf16.h"

#if defined(__x86_64__)

#include "common/amx_tile_config.h"
#include "common/bf16.h"
#include "common/bf16_avx512.h"

#include <immintrin.h>
#include <string.h>

#ifdef ATTENTION_AMX_SIM
#include "unit/amx_sim.h"          /* tests/unit: the tile instructions in C */
#define AMX
#else
#define AMX __attribute__((target("amx-tile,amx-bf16")))
#endif

#define TILE 16                    /* rows (and fp32 columns) of a tile */
#define JOB 32                     /* rows and columns of a job */

int linear_bf16_amx_takes(size_t k)
{
    return k > 0 && k % 32 == 0;
}

size_t linear_bf16_amx_packed_a_elems(size_t m, size_t k)
{
    return (m + JOB - 1) / JOB * JOB * k;
}

/* Rows of a as they are (or rounded to bf16, from fp32), then zero rows up
 * to a multiple of JOB. */
void linear_bf16_amx_pack_a(const uint16_t *a, size_t m, size_t k, size_t lda, uint16_t *dst)
{
#pragma omp parallel for schedule(static)
    for (size_t r = 0; r < m; r++)
        memcpy(dst + r * k, a + r * lda, k * sizeof *dst);
    memset(dst + m * k, 0, (linear_bf16_amx_packed_a_elems(m, k) - m * k) * sizeof *dst);
}

void linear_bf16_amx_pack_a_f32(const float *a, size_t m, size_t k, size_t lda, uint16_t *dst)
{
#pragma omp parallel for schedule(static)
    for (size_t r = 0; r < m; r++)
        bf16_of_f32_row_avx512(a + r * lda, dst + r * k, k);
    memset(dst + m * k, 0, (linear_bf16_amx_packed_a_elems(m, k) - m * k) * sizeof *dst);
}

AMX static void configure(void)
{
    amx_tile_config cfg;
    amx_tile_config_full(&cfg, 8);
    _tile_loadconfig(&cfg);
}

/* The 2 x 2 C tiles of one job; the tile numbers are immediates, so each
 * is spelled out. ct[i][j]: where tile (i, j) is loaded from and stored to
 * (c itself, or the scratch block), with its row stride in bytes. */
typedef struct c_tiles {
    float *at[2][2];
    long stride[2][2];
} c_tiles;

AMX static void job_tiles(const uint16_t *a, size_t k, const uint16_t *b0, const uint16_t *b1, int load_c,
                          const c_tiles *ct)
{
    if (load_c) {
        _tile_loadd(0, ct->at[0][0], ct->stride[0][0]);
        _tile_loadd(1, ct->at[0][1], ct->stride[0][1]);
        _tile_loadd(2, ct->at[1][0], ct->stride[1][0]);
        _tile_loadd(3, ct->at[1][1], ct->stride[1][1]);
    } else {
        _tile_zero(0);
        _tile_zero(1);
        _tile_zero(2);
        _tile_zero(3);
    }
    for (size_t c = 0; c < k; c += 32) {
        _tile_loadd(4, a + c, (long)(k * 2));                 /* rows 0-15 of the job */
        _tile_loadd(5, a + TILE * k + c, (long)(k * 2));      /* rows 16-31 */
        _tile_loadd(6, b0 + c / 2 * 32, 64);                  /* columns 0-15: pairs c/2 .. c/2 + 15 */
        _tile_loadd(7, b1 + c / 2 * 32, 64);                  /* columns 16-31 */
        _tile_dpbf16ps(0, 4, 6);
        _tile_dpbf16ps(1, 4, 7);
        _tile_dpbf16ps(2, 5, 6);
        _tile_dpbf16ps(3, 5, 7);
    }
    _tile_stored(0, ct->at[0][0], ct->stride[0][0]);
    _tile_stored(1, ct->at[0][1], ct->stride[0][1]);
    _tile_stored(2, ct->at[1][0], ct->stride[1][0]);
    _tile_stored(3, ct->at[1][1], ct->stride[1][1]);
}

AMX static void release(void)
{
    _tile_release();
}

/* One job: rows [r0, r0 + 32) and columns [n0, n0 + 32) of GEMM o. A C
 * tile wholly inside c is read and written in place; one cut by the edge
 * (or past it: the padding rows, a missing second column block) goes
 * through the scratch block, of which only what lies inside c is copied. */
static void job(size_t m, size_t k, const uint16_t *ap, const linear_bf16_out *o, size_t r0, size_t n0,
                float scratch[2][2][TILE * TILE])
{
    size_t kp = k / 2, blocks = (o->n + 15) / 16, b = n0 / 16;
    const uint16_t *b0 = o->wp + b * kp * 32, *b1 = b + 1 < blocks ? b0 + kp * 32 : b0;
    c_tiles ct;
    size_t rows[2][2], cols[2][2];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            size_t r = r0 + (size_t)i * TILE, n = n0 + (size_t)j * TILE;
            rows[i][j] = r >= m ? 0 : m - r < TILE ? m - r : TILE;
            cols[i][j] = n >= o->n ? 0 : o->n - n < TILE ? o->n - n : TILE;
            if (rows[i][j] == TILE && cols[i][j] == TILE) {
                ct.at[i][j] = o->c + r * o->ldc + n;
                ct.stride[i][j] = (long)(o->ldc * sizeof(float));
                continue;
            }
            ct.at[i][j] = scratch[i][j];
            ct.stride[i][j] = TILE * sizeof(float);
            memset(scratch[i][j], 0, sizeof scratch[i][j]);
            if (o->beta != 0.0f)
                for (size_t y = 0; y < rows[i][j]; y++)
                    memcpy(scratch[i][j] + y * TILE, o->c + (r + y) * o->ldc + n, cols[i][j] * sizeof(float));
        }
    job_tiles(ap + r0 * k, k, b0, b1, o->beta != 0.0f, &ct);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            if (ct.at[i][j] == scratch[i][j])
                for (size_t y = 0; y < rows[i][j]; y++)
                    memcpy(o->c + (r0 + (size_t)i * TILE + y) * o->ldc + n0 + (size_t)j * TILE,
                           scratch[i][j] + y * TILE, cols[i][j] * sizeof(float));
}

void linear_bf16_amx_multi(size_t m, size_t k, const uint16_t *ap, const linear_bf16_out *outs, size_t n_outs)
{
    size_t row_jobs = (m + JOB - 1) / JOB, total = 0;
    for (size_t g = 0; g < n_outs; g++)
        total += (outs[g].n + JOB - 1) / JOB * row_jobs;
#pragma omp parallel
    {
        _Alignas(64) float scratch[2][2][TILE * TILE];
        configure();               /* the tile state is per thread */
#pragma omp for schedule(dynamic, 1)
        for (size_t j = 0; j < total; j++) {
            size_t g = 0, rest = j;
            while (rest >= (outs[g].n + JOB - 1) / JOB * row_jobs)
                rest -= (outs[g++].n + JOB - 1) / JOB * row_jobs;
            job(m, k, ap, &outs[g], rest % row_jobs * JOB, rest / row_jobs * JOB, scratch);
        }
        release();                 /* a configured thread costs the kernel 8 KiB per switch */
    }
}

#else /* no AMX off x86-64: linear_bf16_amx_on is always 0 there */

int linear_bf16_amx_takes(size_t k)
{
    (void)k;
    return 0;
}

size_t linear_bf16_amx_packed_a_elems(size_t m, size_t k)
{
    (void)m, (void)k;
    return 0;
}

void linear_bf16_amx_pack_a(const uint16_t *a, size_t m, size_t k, size_t lda, uint16_t *dst)
{
    (void)a, (void)m, (void)k, (void)lda, (void)dst;
}

void linear_bf16_amx_pack_a_f32(const float *a, size_t m, size_t k, size_t lda, uint16_t *dst)
{
    (void)a, (void)m, (void)k, (void)lda, (void)dst;
}

void linear_bf16_amx_multi(size_t m, size_t k, const uint16_t *ap, const linear_bf16_out *outs, size_t n_outs)
{
    (void)m, (void)k, (void)ap, (void)outs, (void)n_outs;
}

#endif
