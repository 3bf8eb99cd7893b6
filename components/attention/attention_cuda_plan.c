/* attention_cuda_plan.c - which attention kernel attention_cuda.cu runs for a
 * shape and with what launch geometry: host logic only, no CUDA. */
#include "attention_cuda.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* gridDim limits: x up to 2^31 - 1, y and z up to 65535. */
#define MAX_GRID_X 2147483647ull
#define MAX_GRID_YZ 65535ull

static size_t elem_size(attention_cuda_dtype dtype)
{
    switch (dtype) {
    case ATTENTION_CUDA_F32:
        return 4;
    case ATTENTION_CUDA_BF16:
    case ATTENTION_CUDA_F16:
        return 2;
    }
    return 0;
}

static int aligned16(const void *p)
{
    return ((uintptr_t)p & 15u) == 0;
}

static int valid(const attention_shape *s, attention_cuda_dtype dtype)
{
    return elem_size(dtype) != 0 && s->kv_heads > 0 && s->heads % s->kv_heads == 0 && s->head_dim > 0 &&
           s->head_dim <= 0x7fffffff && s->seq_q <= 0x7fffffff && s->seq_k <= 0x7fffffff;
}

/* The tiled kernels load whole rows 16 bytes at a time: every row of q, k, v
 * and o starts at base + (token x heads + head) x head_dim elements, so all
 * are aligned exactly when the bases are (head_dim x element size being a
 * multiple of 16 for head_dim 64 and 128). */
static int fast_ok(const attention_shape *s, const void *q, const void *k, const void *v, const void *o)
{
    return (s->head_dim == 64 || s->head_dim == 128) && aligned16(q) && aligned16(k) && aligned16(v) &&
           aligned16(o);
}

/* The tensor-core kernel's m-tiles per warp: two, unless that leaves fewer
 * than ATTENTION_CUDA_TC_MIN_BLOCKS blocks (attention_cuda.h). */
static unsigned choose_m_tiles(const attention_shape *s)
{
    size_t blocks = (s->seq_q + ATTENTION_CUDA_TC_BQ(2) - 1) / ATTENTION_CUDA_TC_BQ(2) * s->heads * s->batch;
    return blocks < ATTENTION_CUDA_TC_MIN_BLOCKS ? 1 : 2;
}

/* The tensor-core kernel's keys per tile: 64, or 32 where that build exists
 * (head_dim 128, two m-tiles) and block_keys or, when block_keys is 0, the
 * environment asks for it (attention_cuda.h); 0 for a count no build has. */
static unsigned choose_block_keys(size_t head_dim, unsigned m_tiles, unsigned block_keys)
{
    int has_32 = head_dim == 128 && m_tiles == 2;
    if (block_keys == 0) {
        const char *env = getenv(ATTENTION_CUDA_TC_BK_ENV);
        return env && strcmp(env, "32") == 0 && has_32 ? 32 : ATTENTION_CUDA_TC_BK;
    }
    return block_keys == ATTENTION_CUDA_TC_BK || (block_keys == 32 && has_32) ? block_keys : 0;
}

/* Whether the environment's `name` is "0" (an A/B switch turned off). */
static int env_is_zero(const char *name)
{
    const char *env = getenv(name);
    return env && strcmp(env, "0") == 0;
}

/* The Hopper kernel's consumer warpgroups at head_dim d (attention_cuda.h). */
static unsigned choose_consumers(size_t d)
{
    const char *env = getenv(ATTENTION_CUDA_HOPPER_CONSUMERS_ENV);
    return d == 64 && !(env && strcmp(env, "2") == 0) ? 3 : 2;
}

/* The Hopper kernel's key tile (attention_cuda.h): the wide one where the
 * environment asks for it and it applies (head_dim 128, not causal, a ring
 * of 2 stages), else ATTENTION_CUDA_HOPPER_BK. */
static unsigned choose_hopper_keys(const attention_shape *s, unsigned stages)
{
    const char *env = getenv(ATTENTION_CUDA_HOPPER_BK_ENV);
    const int wide = env && strcmp(env, "176") == 0 && s->head_dim == 128 && !s->causal && stages == 2;
    return wide ? ATTENTION_CUDA_HOPPER_WIDE_BK : ATTENTION_CUDA_HOPPER_BK;
}

/* The Hopper kernel's cluster (attention_cuda.h): 2 at head_dim 128 without
 * the causal mask, 16-bit, 3 stages of 128 keys, an even count of query
 * blocks, unless the environment says 1. */
static unsigned choose_cluster(const attention_shape *s, const attention_cuda_geometry *g)
{
    const char *env = getenv(ATTENTION_CUDA_HOPPER_CLUSTER_ENV);
    const int pairs = g->grid_x % 2 == 0 && g->grid_x > 0;
    return s->head_dim == 128 && !s->causal && g->stages == 3 && g->block_keys == ATTENTION_CUDA_HOPPER_BK &&
                   pairs && !(env && strcmp(env, "1") == 0)
               ? ATTENTION_CUDA_HOPPER_CLUSTER
               : 1;
}

/* The Hopper kernel's stages: `stages` when 2 or 3, 0 for another count;
 * when 0, the environment's 2 or 3, else the default. */
static unsigned choose_stages(unsigned stages)
{
    if (stages == 0) {
        const char *env = getenv(ATTENTION_CUDA_HOPPER_STAGES_ENV);
        if (env && (strcmp(env, "2") == 0 || strcmp(env, "3") == 0))
            return (unsigned)(env[0] - '0');
        return ATTENTION_CUDA_HOPPER_STAGES;
    }
    return stages == 2 || stages == 3 ? stages : 0;
}

/* m_tiles, block_keys: the tensor-core kernel's (1 or 2; 64 or 32), 0 to
 * choose; stages: the Hopper kernel's (2 or 3), 0 to choose; other kernels
 * ignore them. */
static int plan(const attention_shape *s, attention_cuda_dtype dtype, attention_cuda_kernel kernel,
                unsigned m_tiles, unsigned block_keys, unsigned stages, const void *q, const void *k, const void *v,
                const void *o, attention_cuda_geometry *out)
{
    if (!valid(s, dtype))
        return -1;
    attention_cuda_geometry g = {kernel, 0, 0, 0, (unsigned)s->heads, (unsigned)s->batch, 0, 0, 0, 0, 0, 0, 0, 0};
    size_t rows_per_block, d = s->head_dim;
    switch (kernel) {
    case ATTENTION_CUDA_TENSOR_CORE:
        /* The kernel folds the scale into its exponent's FMA, which needs scale > 0. */
        if (dtype == ATTENTION_CUDA_F32 || !fast_ok(s, q, k, v, o) || !(s->scale > 0.0f))
            return -1;
        /* Q, K and V tiles of 16-bit elements: 48 KiB at head_dim 128, the
         * most a launch gets without opting in. */
        g.head_dim = (unsigned)d;
        g.threads = 32 * ATTENTION_CUDA_TC_WARPS;
        g.m_tiles = m_tiles ? m_tiles : choose_m_tiles(s);
        g.block_keys = choose_block_keys(d, g.m_tiles, block_keys);
        if (!g.block_keys)
            return -1;
        /* 64 KiB at head_dim 128 with two m-tiles: past the default 48, so the
         * launcher opts in (every GPU the build targets, sm_80 on, has it) */
        g.smem = (ATTENTION_CUDA_TC_BQ(g.m_tiles) + 2 * g.block_keys) * d * 2;
        rows_per_block = ATTENTION_CUDA_TC_BQ(g.m_tiles);
        break;
    case ATTENTION_CUDA_HOPPER:
        /* The same conditions as the tensor-core kernel (16-byte aligned
         * bases are also what TMA needs of a tensor map's global address;
         * the row strides, heads x head_dim x 2 bytes, are multiples of 16). */
        if (dtype == ATTENTION_CUDA_F32 || !fast_ok(s, q, k, v, o) || !(s->scale > 0.0f))
            return -1;
        g.head_dim = (unsigned)d;
        g.consumers = choose_consumers(d);
        g.threads = 128 * (g.consumers + 1);
        g.stages = choose_stages(stages);
        if (!g.stages)
            return -1;
        g.block_keys = choose_hopper_keys(s, g.stages);
        rows_per_block = 64 * g.consumers;
        g.smem = (rows_per_block + 2 * (size_t)g.stages * g.block_keys) * d * 2 + ATTENTION_CUDA_HOPPER_SMEM_EXTRA;
        g.persistent = !env_is_zero(ATTENTION_CUDA_HOPPER_PERSISTENT_ENV);
        {
            const size_t o_tile = rows_per_block * d * 2;
            g.tma_store = !env_is_zero(ATTENTION_CUDA_HOPPER_TMA_STORE_ENV) &&
                          g.smem + o_tile <= ATTENTION_CUDA_HOPPER_SMEM_MAX;
            g.smem += g.tma_store ? o_tile : 0;
        }
        break;
    case ATTENTION_CUDA_SIMT:
        if (dtype != ATTENTION_CUDA_F32 || !fast_ok(s, q, k, v, o))
            return -1;
        g.head_dim = (unsigned)d;
        g.threads = 4 * ATTENTION_CUDA_SIMT_BQ;
        g.smem = 2 * ATTENTION_CUDA_SIMT_BK * d * 4;      /* K and V tiles, fp32 */
        rows_per_block = ATTENTION_CUDA_SIMT_BQ;
        break;
    case ATTENTION_CUDA_FALLBACK:
        g.threads = 32 * ATTENTION_CUDA_FB_ROWS;
        rows_per_block = ATTENTION_CUDA_FB_ROWS;
        break;
    default:
        return -1;
    }
    size_t blocks = (s->seq_q + rows_per_block - 1) / rows_per_block;
    if (s->heads == 0 || s->batch == 0)
        blocks = 0;
    if (blocks > MAX_GRID_X || s->heads > MAX_GRID_YZ || s->batch > MAX_GRID_YZ)
        return -1;
    /* The Hopper kernel counts its work items (query blocks x heads x
     * batch) in an int. */
    if (kernel == ATTENTION_CUDA_HOPPER && (double)blocks * (double)s->heads * (double)s->batch > INT_MAX)
        return -1;
    g.grid_x = (unsigned)blocks;
    if (kernel == ATTENTION_CUDA_HOPPER)
        g.cluster = choose_cluster(s, &g);
    *out = g;
    return 0;
}

int attention_cuda_plan_kernel(const attention_shape *s, attention_cuda_dtype dtype, attention_cuda_kernel kernel,
                               const void *q, const void *k, const void *v, const void *o,
                               attention_cuda_geometry *out)
{
    return plan(s, dtype, kernel, 0, 0, 0, q, k, v, o, out);
}

int attention_cuda_plan_tensor_core(const attention_shape *s, attention_cuda_dtype dtype, unsigned m_tiles,
                                    unsigned block_keys, const void *q, const void *k, const void *v,
                                    const void *o, attention_cuda_geometry *out)
{
    if (m_tiles != 1 && m_tiles != 2)
        return -1;
    return plan(s, dtype, ATTENTION_CUDA_TENSOR_CORE, m_tiles, block_keys, 0, q, k, v, o, out);
}

int attention_cuda_plan_hopper(const attention_shape *s, attention_cuda_dtype dtype, unsigned stages,
                               const void *q, const void *k, const void *v, const void *o,
                               attention_cuda_geometry *out)
{
    if (stages != 0 && stages != 2 && stages != 3)
        return -1;
    return plan(s, dtype, ATTENTION_CUDA_HOPPER, 0, 0, stages, q, k, v, o, out);
}

int attention_cuda_plan(const attention_shape *s, attention_cuda_dtype dtype,
                        const void *q, const void *k, const void *v, const void *o,
                        attention_cuda_geometry *out)
{
    static const attention_cuda_kernel order[] = {ATTENTION_CUDA_TENSOR_CORE, ATTENTION_CUDA_SIMT,
                                                  ATTENTION_CUDA_FALLBACK};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        if (attention_cuda_plan_kernel(s, dtype, order[i], q, k, v, o, out) == 0)
            return 0;
    return -1;
}

/* The override of HARNESS_ATTENTION_KERNEL: 0 none, 1 mma_sync, 2 hopper,
 * -1 a value that is neither. */
static int kernel_env(void)
{
    const char *env = getenv(ATTENTION_CUDA_KERNEL_ENV);
    if (!env || !*env)
        return 0;
    if (strcmp(env, "mma_sync") == 0)
        return 1;
    if (strcmp(env, "hopper") == 0)
        return 2;
    return -1;
}

int attention_cuda_env_check(char *why, size_t len)
{
    static const struct {
        const char *name, *one, *other;
    } switches[] = {
        {ATTENTION_CUDA_KERNEL_ENV, "mma_sync", "hopper"},
        {ATTENTION_CUDA_TC_BK_ENV, "64", "32"},
        {ATTENTION_CUDA_HOPPER_STAGES_ENV, "2", "3"},
        {ATTENTION_CUDA_HOPPER_CONSUMERS_ENV, "2", "3"},
        {ATTENTION_CUDA_HOPPER_BK_ENV, "128", "176"},
        {ATTENTION_CUDA_HOPPER_PERSISTENT_ENV, "0", "1"},
        {ATTENTION_CUDA_HOPPER_TMA_STORE_ENV, "0", "1"},
        {ATTENTION_CUDA_HOPPER_CLUSTER_ENV, "1", "2"},
    };
    for (size_t i = 0; i < sizeof switches / sizeof switches[0]; i++) {
        const char *v = getenv(switches[i].name);
        if (v && *v && strcmp(v, switches[i].one) != 0 && strcmp(v, switches[i].other) != 0) {
            snprintf(why, len, "%s='%s': use %s or %s (or unset it)", switches[i].name, v, switches[i].one,
                     switches[i].other);
            return -1;
        }
    }
    return 0;
}

int attention_cuda_plan_arch(const attention_shape *s, attention_cuda_dtype dtype, int cc,
                             const void *q, const void *k, const void *v, const void *o,
                             attention_cuda_geometry *out)
{
    int env = kernel_env();
    if (env < 0)
        return -1;
    /* Only 9.0 has wgmma and setmaxnreg as the sm_90a build uses them (they
     * are not in sm_100's or sm_120's instruction sets). */
    int hopper = env == 2 || (env == 0 && cc == 90);
    if (hopper && attention_cuda_plan_kernel(s, dtype, ATTENTION_CUDA_HOPPER, q, k, v, o, out) == 0)
        return 0;
    return attention_cuda_plan(s, dtype, q, k, v, o, out);
}

const char *attention_cuda_kernel_name(attention_cuda_kernel kernel)
{
    static const char *const names[] = {"tensor-core (mma.sync)", "SIMT fp32", "fallback (warp per row)",
                                        "Hopper (wgmma, TMA, warp-specialized)"};
    return (unsigned)kernel < sizeof names / sizeof names[0] ? names[kernel] : "unknown";
}

const char *attention_cuda_describe(const attention_cuda_geometry *g, char *buf, size_t len)
{
    if (g->kernel != ATTENTION_CUDA_HOPPER)
        snprintf(buf, len, "%s", attention_cuda_kernel_name(g->kernel));
    else
        snprintf(buf, len, "%s: %u stages of %u keys, %u consumer warpgroups, %s, %s, O %s",
                 attention_cuda_kernel_name(g->kernel), g->stages, g->block_keys, g->consumers,
                 g->cluster > 1 ? "K/V multicast over clusters of 2" : "no cluster",
                 g->persistent ? "persistent" : "a block per item",
                 g->tma_store ? "through TMA stores" : "stored from registers");
    return buf;
}
