/* attention.h - scaled-dot-product attention forward, flash-style on the CPU:
 *   O = softmax(Q K^T * scale [+ causal mask]) V
 * computed a tile of queries against a tile of keys at a time with an online
 * softmax, so the Sq x Sk score matrix never exists in memory.
 *
 * Layouts, row-major, token-major (what a QKV projection produces):
 *   q, o: [batch][seq_q][heads][head_dim]
 *   k, v: [batch][seq_k][kv_heads][head_dim]
 * Grouped-query attention: query head h reads kv head h / (heads / kv_heads);
 * heads must be a multiple of kv_heads.
 *
 * Causal masking is bottom-right aligned (as in FlashAttention 2.1+ and KV-cache
 * decoding): query i may see key j when j <= i + (seq_k - seq_q). A query that
 * sees no key (seq_q > seq_k) outputs zeros. */
#ifndef COMPONENTS_ATTENTION_H
#define COMPONENTS_ATTENTION_H

#include <stddef.h>
#include <stdint.h>

#include "common/check.h"

typedef struct attention_shape {
    size_t batch, heads, kv_heads, seq_q, seq_k, head_dim;
    int causal;
    float scale;                   /* usually 1 / sqrt(head_dim) */
} attention_shape;

/* The element type of q, k, v and o. The CPU kernels take fp32 and bf16; the
 * reference and the checker also fp16 (stored as uint16_t, as bf16), for the
 * CUDA kernels. */
typedef enum attention_dtype { ATTENTION_F32, ATTENTION_BF16, ATTENTION_F16 } attention_dtype;

/* "fp32", "bf16" or "fp16", as the dtype parameter spells them. */
const char *attention_dtype_name(attention_dtype t);

/* Scratch the kernels need for `threads` OpenMP threads, so no allocation
 * happens inside a step. */
size_t attention_workspace_bytes(const attention_shape *s, int threads);

/* workspace: attention_workspace_bytes(s, omp_get_max_threads()) bytes, 64-byte aligned. */
void attention_f32(const attention_shape *s, const float *q, const float *k, const float *v, float *o,
                   void *workspace);
/* bf16 storage, fp32 accumulation and softmax, outputs rounded to nearest
 * even; on the dot-product paths (attention_set_isa) the weights are rounded
 * to bf16 for the P V product, as FlashAttention and oneDNN do. */
void attention_bf16(const attention_shape *s, const uint16_t *q, const uint16_t *k, const uint16_t *v, uint16_t *o,
                    void *workspace);

/* FLOPs of one forward pass: 4 x head_dim per visible (query, key) pair and
 * head (2 for Q K^T, 2 for P V), counted exactly under the causal mask. */
double attention_flops(const attention_shape *s);

/* Naive reference in double precision, output in the q layout, from q, k, v
 * of type t. */
void attention_ref(const attention_shape *s, const void *q, const void *k, const void *v, attention_dtype t,
                   double *o);

/* ---- additions for tests, the plugin and benchmarks ----------------------- */

/* Threading: attention_f32/bf16 open their own OpenMP team and give thread t
 * slice t of the workspace. Call them from outside a parallel region; calls
 * that may run at the same time need workspaces of their own. */

/* The instruction set is picked at first use: the best this CPU supports out
 * of "amx", "avx512_bf16", "avx512", "avx2", "portable" (amx: the tiles with
 * bf16, where Linux grants this process their state; the first two differ
 * from avx512 in bf16 attention only, which they compute on bf16 dot
 * products, the weights rounded to bf16 for P V; fp32 runs the avx512
 * kernels). Forcing one (NULL or "auto": back to the best) returns 0, or -1
 * when the name is unknown or the CPU lacks it, which leaves the choice
 * unchanged. Call it outside of a running kernel. */
int attention_set_isa(const char *name);
const char *attention_isa(void);
/* The path a call of that shape and dtype takes under the current choice:
 * "avx512" for fp32 under amx or avx512_bf16, and "avx512_bf16" for bf16
 * under amx when AMX tiles do not take the head_dim (a multiple of 32). */
const char *attention_isa_for(const attention_shape *s, attention_dtype t);

/* y[i] = 2^x[i] as the current instruction set's kernels compute it, so that
 * the tests can measure its error. */
void attention_exp2(const float *x, float *y, size_t n);

/* The reference for one (batch b, head h): row i of the output (head_dim
 * values) at o + i * o_stride. attention_ref is this over every pair. */
void attention_ref_head(const attention_shape *s, const void *q, const void *k, const void *v, attention_dtype t,
                        size_t b, size_t h, double *o, size_t o_stride);

typedef struct attention_check_result {
    COMPONENT_CHECK_FIELDS
    size_t pairs_checked, pairs;   /* (batch, head) pairs compared, out of */
    size_t rows_checked;           /* query rows compared per pair (seq_q unless subset) */
} attention_check_result;

/* Compares a kernel's output o (q layout, type t as q, k, v) with the double
 * reference. When checking everything would take more than `budget`
 * multiply-adds of reference work (0: no limit), a deterministic, evenly
 * spread subset is checked: whole (batch, head) pairs while at least 4 fit,
 * else 4 pairs with a subset of their query rows; the first and the last
 * pair and row are always among them. Returns 0 with *out filled, whatever
 * the verdict, or -1 (out->detail says why) when its scratch cannot be
 * allocated or the shape is invalid. */
int attention_check(const attention_shape *s, const void *q, const void *k, const void *v, const void *o,
                    attention_dtype t, double budget, attention_check_result *out);

#endif
