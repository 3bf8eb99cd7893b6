/* The adapters' shared part (transformer_block_adapter.h). */
#include "transformer_block_adapter.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "common/bf16.h"

int tb_read_shape(harness_ctx *ctx, int threads, transformer_block_shape *sh, int *bf16,
                  transformer_block_sizes *sizes, size_t *weights)
{
    const harness_services *H = harness_host;
    int64_t p[6] = {H->param_int(ctx, "batch_size"),  H->param_int(ctx, "seq_len"),
                    H->param_int(ctx, "hidden_size"), H->param_int(ctx, "num_heads"),
                    H->param_int(ctx, "num_kv_heads"), H->param_int(ctx, "intermediate_size")};
    *bf16 = strcmp(H->param_string(ctx, "dtype"), "bf16") == 0;
    *sh = (transformer_block_shape){
        (size_t)p[0], (size_t)p[1], (size_t)p[2], (size_t)p[3], (size_t)(p[4] == 0 ? p[3] : p[4]),
        (size_t)p[5], H->param_float(ctx, "rope_theta"), (float)H->param_float(ctx, "eps"),
        H->param_bool(ctx, "causal"),
    };
    char msg[256];
    if (transformer_block_check_shape(sh, msg, sizeof msg) != 0 ||
        transformer_block_sizes_of(sh, *bf16 ? TB_BF16 : TB_F32, threads, sizes, msg, sizeof msg) != 0)
        return H->fail(ctx, "%s", msg);
    *weights = 0;
    for (int i = 0; i < TB_N_WEIGHTS; i++)
        if (__builtin_add_overflow(*weights, sizes->weight_elems[i], weights) ||
            *weights > SIZE_MAX / sizeof(float))
            return H->fail(ctx, "hidden_size (%zu) and intermediate_size (%zu) give more weights than size_t "
                           "can count; choose smaller sizes", sh->hidden, sh->intermediate);
    return 0;
}

int tb_check_tensor_parallel(harness_ctx *ctx, const transformer_block_shape *sh, int n)
{
    if (!HARNESS_HAS_SERVICE(harness_host, all_reduce))
        return harness_host->fail(ctx, "tensor_parallel needs a harness with collectives (plugin ABI 2.2)");
    const size_t sizes[] = {sh->heads, sh->kv_heads, sh->intermediate};
    const char *const names[] = {"num_heads", "num_kv_heads", "intermediate_size"};
    for (int i = 0; i < 3; i++)
        if (sizes[i] % (size_t)n != 0)
            return harness_host->fail(ctx, "tensor_parallel: %s (%zu) is not a multiple of the job's %d ranks",
                                      names[i], sizes[i], n);
    return 0;
}

int tb_fill_weight(harness_ctx *ctx, const transformer_block_shape *sh, int which, int bf16, void *w, size_t n)
{
    if (harness_host->fill(ctx, w, n, bf16 ? HARNESS_DTYPE_BF16 : HARNESS_DTYPE_F32) != 0)
        return -1;
    int norm = which == TB_ATTN_NORM || which == TB_MLP_NORM;
    float scale = (float)(1.0 / sqrt((double)(which == TB_W_DOWN ? sh->intermediate : sh->hidden)));
    for (size_t j = 0; j < n; j++) {
        float v = bf16 ? bf16_to_f32(((uint16_t *)w)[j]) : ((float *)w)[j];
        v = norm ? 1.0f + 0.1f * v : v * scale;
        if (bf16)
            ((uint16_t *)w)[j] = f32_to_bf16(v);
        else
            ((float *)w)[j] = v;
    }
    return 0;
}

void tb_cost_of(const transformer_block_shape *sh, int tp_size, double weight_bytes, size_t x_bytes,
                harness_cost *out)
{
    out->flops = transformer_block_flops(sh) / (tp_size > 1 ? tp_size : 1);
    out->bytes = weight_bytes + 2.0 * (double)x_bytes;
}
