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

typedef struct attention_shape {
    size_t batch, heads, kv_heads, seq_q, seq_k, head_dim;
    int causal;
    float scale;                   /* usually 1 / sqrt(head_dim) */
} attention_shape;

/* Scratch the kernels need for `threads` OpenMP threads, so no allocation
 * happens inside a step. */
size_t attention_workspace_bytes(const attention_shape *s, int threads);

/* workspace: attention_workspace_bytes(s, omp_get_max_threads()) bytes, 64-byte aligned. */
void attention_f32(const attention_shape *s, const float *q, const float *k, const float *v, float *o,
                   void *workspace);
/* bf16 storage, fp32 math, outputs rounded to nearest even. */
void attention_bf16(const attention_shape *s, const uint16_t *q, const uint16_t *k, const uint16_t *v, uint16_t *o,
                    void *workspace);

/* FLOPs of one forward pass: 4 x head_dim per visible (query, key) pair and
 * head (2 for Q K^T, 2 for P V), counted exactly under the causal mask. */
double attention_flops(const attention_shape *s);

/* Naive reference in double precision, output in the q layout. `bf16` says
 * whether q, k, v hold uint16_t bf16 (else float). */
void attention_ref(const attention_shape *s, const void *q, const void *k, const void *v, int bf16, double *o);

#endif
