/* transformer_block_bf16_setup.h - transformer_block/cpu's bf16 setup on
 * the dot unit: which path (transformer_block_bf16_choose, HARNESS_CPU_ISA),
 * the packed weights and scratch as tracked buffers; and for every dtype
 * HARNESS_CPU_ISA's forcing of the block's attention and RMSNorm kernels,
 * and the paths in the log and the summary. Kept out of transformer_block_cpu_adapter.c so that file
 * changes little. Included by it only, after <harness/plugin.h>. */
#ifndef TRANSFORMER_BLOCK_BF16_SETUP_H
#define TRANSFORMER_BLOCK_BF16_SETUP_H

#include <stdlib.h>
#include <string.h>

#include "attention/attention.h"
#include "rms_norm/rms_norm.h"
#include "transformer_block/transformer_block.h"
#include "transformer_block/linear_bf16.h"

/* 1 the dot unit, 0 the fp32 step, -1 (recorded) when HARNESS_CPU_ISA asks
 * for a unit this CPU lacks: a forced path never silently becomes another.
 * tensor_parallel keeps the fp32 step: its slices are fp32 (setup_tensor_parallel). */
static int tb_bf16_path(harness_ctx *ctx, const transformer_block_shape *sh, const char **path)
{
    (void)sh;
    const char *isa = getenv("HARNESS_CPU_ISA"), *why = NULL;
    int dot = transformer_block_bf16_choose(isa, path, &why);
    if (dot < 0)
        return harness_host->fail(ctx, "%s (HARNESS_CPU_ISA=%s)", why, isa);
    if (dot && harness_host->param_bool(ctx, "tensor_parallel") && harness_host->world_size(ctx) > 1) {
        *path = "fp32";
        why = "tensor_parallel: the ranks' weight slices are fp32, bf16 computed in fp32";
        dot = 0;
    }
    if (dot)
        linear_bf16_set_amx(strcmp(*path, "amx") == 0);    /* the GEMMs' unit is the process's */
    harness_host->log(ctx, HARNESS_LOG_INFO, "bf16 path %s: %s", *path, why);
    return dot;
}

/* HARNESS_CPU_ISA forces the block's attention and RMSNorm kernels too, as
 * it forces attention/cpu's and rms_norm/cpu's, so that each path of the
 * whole block can be measured on one machine (bench/cpu_paths.py). RMSNorm
 * has no bf16 units: under "amx" or "avx512_bf16" it keeps its best. A path
 * the CPU lacks is refused (at validate, tb_check_isa), never run as another
 * (0, or -1 recorded). */
static int tb_force_isa(harness_ctx *ctx)
{
    const char *isa = getenv("HARNESS_CPU_ISA");
    if (!isa || !*isa)
        return 0;
    int bf16_unit = strcmp(isa, "amx") == 0 || strcmp(isa, "avx512_bf16") == 0;
    if (attention_set_isa(isa) != 0 || (!bf16_unit && rms_norm_set_isa(isa) != 0))
        return harness_host->fail(ctx, "HARNESS_CPU_ISA=%s is not an instruction set this CPU offers the block's "
                                  "kernels; unset it, or choose one of amx, avx512_bf16, avx512, avx2, portable "
                                  "that it has", isa);
    return 0;
}

/* At validate: a HARNESS_CPU_ISA this CPU lacks is a config error (exit 2),
 * as attention/cpu's and rms_norm/cpu's are, before anything is allocated.
 * Create asks again (tb_bf16_path, tb_force_isa), which sets the paths. */
static int tb_check_isa(harness_ctx *ctx, int bf16)
{
    const char *isa = getenv("HARNESS_CPU_ISA"), *path = NULL, *why = NULL;
    if (bf16 && transformer_block_bf16_choose(isa, &path, &why) < 0)
        return harness_host->fail(ctx, "%s (HARNESS_CPU_ISA=%s)", why, isa);
    return tb_force_isa(ctx);
}

/* The packed GEMM weights, the scratch, and fp32 copies of the two norms'
 * weights (RMSNorm reads fp32): 1, or 0 with the failure recorded. */
static int tb_alloc_packed(harness_ctx *ctx, const transformer_block_shape *sh, uint16_t **wp, void **scratch,
                           float **norms32)
{
    size_t packed = 0;
    for (int i = 0; i < TB_N_WEIGHTS; i++)
        packed += (transformer_block_bf16_packed_elems(sh, i) + 31) / 32 * 32;   /* each 64-byte aligned */
    return (*wp = harness_host->alloc(ctx, packed * sizeof(uint16_t), "weights_bf16_packed")) != NULL &&
           (*scratch = harness_host->alloc(ctx, transformer_block_bf16_scratch_bytes(sh), "bf16_scratch")) != NULL &&
           (*norms32 = harness_host->alloc(ctx, 2 * sh->hidden * sizeof(float), "norm_weights_fp32")) != NULL;
}

static void tb_pack_weights(const transformer_block_shape *sh, void *const w[TB_N_WEIGHTS], uint16_t *wp,
                            float *norms32, transformer_block *b)
{
    for (int i = 0; i < TB_N_WEIGHTS; i++) {
        size_t n = transformer_block_bf16_packed_elems(sh, i);
        if (n) {
            transformer_block_bf16_pack(sh, i, w[i], wp);
            b->wp[i] = wp;
            wp += (n + 31) / 32 * 32;
        }
    }
    transformer_block_bf16_to_f32(w[TB_ATTN_NORM], norms32, sh->hidden);
    transformer_block_bf16_to_f32(w[TB_MLP_NORM], norms32 + sh->hidden, sh->hidden);
    b->w[TB_ATTN_NORM] = norms32;
    b->w[TB_MLP_NORM] = norms32 + sh->hidden;
}

/* The instruction sets the step runs on, for the log and the summary's
 * component_notes (the roofline reads it to pick the bf16 peak): the
 * GEMMs' path ("avx512_bf16" or "fp32", OpenBLAS sgemm), the path attention
 * takes for this shape and dtype (bf16 only beside the dot-unit GEMMs: fp32
 * attention runs the avx512 kernels even where avx512_bf16 is chosen), and
 * RMSNorm's ISA. */
static void tb_note_isa(harness_ctx *ctx, const char *gemm, const transformer_block_shape *sh, size_t head_dim,
                        int dot)
{
    attention_shape as = {sh->batch, sh->heads, sh->kv_heads, sh->seq, sh->seq, head_dim, sh->causal, 1.0f};
    char isa[128];
    snprintf(isa, sizeof isa, "gemm=%s attention=%s rms_norm=%s", gemm,
             attention_isa_for(&as, dot ? ATTENTION_BF16 : ATTENTION_F32), rms_norm_isa());
    if (harness_host->note)        /* ABI 2.3 hosts */
        harness_host->note(ctx, "isa", isa);
    harness_host->log(ctx, HARNESS_LOG_DEBUG, "isa: %s", isa);
}

#endif
