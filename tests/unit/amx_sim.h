/* amx_sim.h - the AMX tile instructions attention_amx.c and
 * linear_bf16_amx.c use, emulated in C, so that their layouts, strides and
 * padding are tested on CPUs without AMX (tests/unit/test_attention_amx_sim,
 * test_linear_bf16_amx_sim). Included by them instead of the intrinsics when
 * ATTENTION_AMX_SIM is defined. It proves the data
 * movement, not the instruction encodings, the tile configuration's bytes
 * as the hardware reads them, or Linux's permission: those only a CPU with
 * AMX can (tests/unit/test_attention_amx).
 *
 * Semantics from Intel's descriptions: LDTILECFG reads rows and bytes per
 * row of each tile; TILELOADD/TILESTORED move rows of colsb bytes, `stride`
 * bytes apart; TDPBF16PS C[m][n] += sum_k A[m][2k] B[k][2n] + A[m][2k+1]
 * B[k][2n+1] over K = A's colsb / 4 pairs, in fp32. */
#ifndef TESTS_AMX_SIM_H
#define TESTS_AMX_SIM_H

#include <stdint.h>
#include <string.h>

#include "common/bf16.h"

typedef struct amx_sim_state {
    uint8_t rows[8];
    uint16_t colsb[8];
    uint8_t data[8][16][64];
    int configured;
} amx_sim_state;

static _Thread_local amx_sim_state amx_sim;

static inline void amx_sim_loadconfig(const void *cfg)
{
    const uint8_t *b = cfg;
    if (b[0] != 1)                 /* palette 1, the only one tiles work with */
        __builtin_trap();
    for (int t = 0; t < 8; t++) {
        memcpy(&amx_sim.colsb[t], b + 16 + 2 * t, 2);
        amx_sim.rows[t] = b[48 + t];
        if (amx_sim.rows[t] > 16 || amx_sim.colsb[t] > 64)
            __builtin_trap();
    }
    amx_sim.configured = 1;
}

static inline void amx_sim_loadd(int t, const void *base, long stride)
{
    if (!amx_sim.configured)
        __builtin_trap();
    for (int r = 0; r < amx_sim.rows[t]; r++)
        memcpy(amx_sim.data[t][r], (const uint8_t *)base + r * stride, amx_sim.colsb[t]);
}

static inline void amx_sim_stored(int t, void *base, long stride)
{
    for (int r = 0; r < amx_sim.rows[t]; r++)
        memcpy((uint8_t *)base + r * stride, amx_sim.data[t][r], amx_sim.colsb[t]);
}

static inline void amx_sim_zero(int t)
{
    memset(amx_sim.data[t], 0, sizeof amx_sim.data[t]);
}

static inline float amx_sim_bf16(int t, int r, int i)
{
    uint16_t h;
    memcpy(&h, &amx_sim.data[t][r][2 * i], 2);
    return bf16_to_f32(h);
}

static inline void amx_sim_dpbf16ps(int c, int a, int b)
{
    int m_rows = amx_sim.rows[c], n_cols = amx_sim.colsb[c] / 4, k_pairs = amx_sim.colsb[a] / 4;
    if (amx_sim.rows[b] != k_pairs || amx_sim.colsb[b] != amx_sim.colsb[c] || amx_sim.rows[a] != m_rows)
        __builtin_trap();          /* shapes the hardware would fault on */
    for (int m = 0; m < m_rows; m++)
        for (int n = 0; n < n_cols; n++) {
            float acc;
            memcpy(&acc, &amx_sim.data[c][m][4 * n], 4);
            for (int k = 0; k < k_pairs; k++)
                acc += amx_sim_bf16(a, m, 2 * k) * amx_sim_bf16(b, k, 2 * n) +
                       amx_sim_bf16(a, m, 2 * k + 1) * amx_sim_bf16(b, k, 2 * n + 1);
            memcpy(&amx_sim.data[c][m][4 * n], &acc, 4);
        }
}

/* <immintrin.h> defines some of these as macros (gcc: the tile ones; clang
 * more): replace them all. */
#undef _tile_loadconfig
#undef _tile_loadd
#undef _tile_stored
#undef _tile_zero
#undef _tile_dpbf16ps
#undef _tile_release
#define _tile_loadconfig(cfg) amx_sim_loadconfig(cfg)
#define _tile_loadd(t, base, stride) amx_sim_loadd(t, base, (long)(stride))
#define _tile_stored(t, base, stride) amx_sim_stored(t, base, (long)(stride))
#define _tile_zero(t) amx_sim_zero(t)
#define _tile_dpbf16ps(c, a, b) amx_sim_dpbf16ps(c, a, b)
#define _tile_release() (amx_sim.configured = 0)

#endif
