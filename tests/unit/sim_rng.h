/* sim_rng.h - the simulations' random numbers: xorshift64 uniforms and
 * Box-Muller normals, seeded so that every run of a test draws the same. */
#ifndef HARNESS_TEST_SIM_RNG_H
#define HARNESS_TEST_SIM_RNG_H

#include <math.h>
#include <stdint.h>

static uint64_t sim_rng_state = 0x9E3779B97F4A7C15ULL;

static inline void seed(uint64_t s)
{
    sim_rng_state = s ? s : 0x9E3779B97F4A7C15ULL;
}

/* In (0, 1): never 0, so log() of it is finite. */
static inline double uniform01(void)
{
    sim_rng_state ^= sim_rng_state << 13;
    sim_rng_state ^= sim_rng_state >> 7;
    sim_rng_state ^= sim_rng_state << 17;
    return ((double)(sim_rng_state >> 11) + 0.5) / (double)(1ULL << 53);
}

static inline double gauss(void)
{
    return sqrt(-2.0 * log(uniform01())) * cos(2.0 * M_PI * uniform01());
}

#endif
