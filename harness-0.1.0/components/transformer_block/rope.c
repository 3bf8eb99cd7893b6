/* rope.c - rotary position embedding, Llama / Hugging Face "rotate half"
 * convention (see transformer_block.h for the formula). */
#include "transformer_block.h"

#include <math.h>

/* inv_freq_i = theta^(-2i/D); the angle p * inv_freq_i is formed in double
 * because in float it loses ~p ulps: at p = 4096 that is 1e-3 rad already. */
void transformer_block_rope_table(const transformer_block_shape *s, float *table)
{
    size_t d = s->hidden / s->heads, half = d / 2;
    float *cos_t = table, *sin_t = table + s->seq * half;
    for (size_t i = 0; i < half; i++) {
        double inv_freq = pow(s->rope_theta, -2.0 * (double)i / (double)d);
        for (size_t p = 0; p < s->seq; p++) {
            double angle = (double)p * inv_freq;
            cos_t[p * half + i] = (float)cos(angle);
            sin_t[p * half + i] = (float)sin(angle);
        }
    }
}

void transformer_block_rope(const transformer_block_shape *s, const float *table, float *t, size_t n_heads)
{
    size_t d = s->hidden / s->heads, half = d / 2, seq = s->seq, rows = s->batch * seq;
    const float *cos_t = table, *sin_t = table + seq * half;
#pragma omp parallel for schedule(static)
    for (size_t r = 0; r < rows; r++) {
        const float *c = cos_t + (r % seq) * half, *sn = sin_t + (r % seq) * half;
        for (size_t h = 0; h < n_heads; h++) {
            float *lo = t + (r * n_heads + h) * d, *hi = lo + half;
            for (size_t i = 0; i < half; i++) {
                float a = lo[i], b = hi[i];
                lo[i] = a * c[i] - b * sn[i];
                hi[i] = b * c[i] + a * sn[i];
            }
        }
    }
}
