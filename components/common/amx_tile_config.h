/* amx_tile_config.h - the 64-byte operand of LDTILECFG (_tile_loadconfig):
 * palette 1, then bytes per row of tiles 0-15 (16-bit each) and rows of
 * tiles 0-15 (8-bit each); reserved bytes zero. Shared by the AMX kernels
 * (attention_amx.c, linear_bf16_amx.c), which load it themselves under their
 * own target attributes. */
#ifndef COMMON_AMX_TILE_CONFIG_H
#define COMMON_AMX_TILE_CONFIG_H

#include <stdint.h>
#include <string.h>

typedef struct amx_tile_config {
    uint8_t palette, start_row, reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
} __attribute__((aligned(64))) amx_tile_config;

_Static_assert(sizeof(amx_tile_config) == 64, "LDTILECFG reads 64 bytes");

/* Tiles 0 .. n-1 full: 16 rows of 64 bytes. */
static inline void amx_tile_config_full(amx_tile_config *cfg, int n)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->palette = 1;
    for (int t = 0; t < n; t++)
        cfg->colsb[t] = 64, cfg->rows[t] = 16;
}

#endif
