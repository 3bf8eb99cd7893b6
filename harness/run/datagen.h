/* datagen.h - fills component input buffers from the config's data.generator
 * and data.seed (docs/ARCHITECTURE.md section 5).
 *
 * Counter-based: element i of the k-th fill is a pure function of
 * (seed, k, i), so a fill runs in parallel (OpenMP) and gives the same bytes
 * at any thread count, and two runs with one seed see the same inputs.
 *
 *   random_normal   mean 0, std 1 (Box-Muller)
 *   random_uniform  [-1, 1) in F32 and F64; BF16 and F16 hold the F32 value
 *                   rounded to nearest even, so values within half an ulp
 *                   of 1 become 1.0 there
 *   zeros, ones     0 and 1 in every dtype
 * For I32 both random kinds give uniform integers in [-100, 100]. BF16 and
 * F16 are always the F32 value rounded to nearest even, never drawn anew. */
#ifndef HARNESS_DATAGEN_H
#define HARNESS_DATAGEN_H

#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "harness/plugin.h"

typedef struct harness_datagen {
    harness_generator kind;
    uint64_t seed;
    uint64_t next_stream;          /* the stream the next fill draws from */
} harness_datagen;

void harness_datagen_init(harness_datagen *g, harness_generator kind, uint64_t seed);

/* Fill `count` elements of `dtype` at `buf` from a fresh stream. Returns 0,
 * or -1 (nothing written, no stream used) for an unknown dtype or generator,
 * or a NULL buf with count > 0. */
int harness_datagen_fill(harness_datagen *g, void *buf, size_t count, harness_dtype dtype);

/* IEEE binary16 nearest to f, ties to even: overflow gives infinity,
 * results below the normal range are subnormal, NaN stays a quiet NaN. */
uint16_t harness_f32_to_f16(float f);

#endif
