/* attention_softmax.h - the row softmax of unfused attention on an NVIDIA GPU
 * (attention_softmax.cu), plain C: the step between attention/cublas's two
 * GEMMs. */
#ifndef COMPONENTS_ATTENTION_SOFTMAX_H
#define COMPONENTS_ATTENTION_SOFTMAX_H

/* attention.h is a C header without linkage guards; its system headers come
 * first, outside extern "C", so that C++ sees them as usual. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "attention.h"

#define ATTENTION_SOFTMAX_EINVAL (-1)

/* scores: rows x seq_k fp32 (device), rows = batch x heads x seq_q, row r
 * being query r % seq_q. probs (rows x seq_k of type probs_type; may be
 * scores itself when fp32) gets softmax(scale x row) over the keys the
 * query sees (bottom-right causal mask when causal) and 0 elsewhere.
 * Enqueued on stream; returns 0, ATTENTION_SOFTMAX_EINVAL for sizes out of
 * range, or the cudaError_t of a failed launch. */
int attention_softmax_cuda(attention_dtype probs_type, const float *scores, void *probs, size_t rows, size_t seq_q,
                           size_t seq_k, int causal, float scale, void *stream);

#ifdef __cplusplus
}
#endif

#endif
