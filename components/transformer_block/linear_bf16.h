/* linear_bf16.h - the block's bf16 GEMMs on AVX-512 BF16's dot instruction
 * (vdpbf16ps: 16 lanes, each the sum of two bf16 products added to an fp32
 * accumulator), c = beta c + a · W^T with a and W in bf16 and c in fp32.
 *
 * W ([n][k], as nn.Linear stores it) is packed once, at setup, into the
 * order the kernel reads: blocks of 16 output columns, within a block one
 * 64-byte vector per pair of k, the pair of each column side by side
 * (what vdpbf16ps multiplies with a broadcast pair of a). Odd k and n are
 * padded with zeros, so any shape runs.
 *
 * Why a kernel of our own rather than a library: bench/bf16_gemm.c measures
 * the options at the block's shapes (bench/README.md, "The bf16 GEMM"):
 * Debian 12's OpenBLAS 0.3.21 has no sbgemm; oneDNN 2.6.3 (libdnnl-dev,
 * brg:avx512_core_bf16 on Zen 4) and this kernel both reach ~90% of the dot
 * peak at 256 x 1024 x 1024 in quiet rounds, oneDNN somewhat higher on the
 * others, where the shared machine's load left no round clean enough to
 * tell. This one adds no run-time dependency, so every machine with AVX-512
 * BF16 runs the same code; where AMX exists it has a tile form too (below). */
#ifndef COMPONENTS_LINEAR_BF16_H
#define COMPONENTS_LINEAR_BF16_H

#include <stddef.h>
#include <stdint.h>

/* Whether this CPU (and OS) runs the kernel: AVX-512 F, BW and BF16. */
int linear_bf16_supported(void);

/* Elements of W's packed form for an [n][k] weight. */
size_t linear_bf16_packed_elems(size_t n, size_t k);

/* Packs w ([n][k] bf16) into dst (linear_bf16_packed_elems). */
void linear_bf16_pack(const uint16_t *w, size_t n, size_t k, uint16_t *dst);

/* The activations a ([m][k], row stride lda) are packed too, before each
 * GEMM (m x k elements, a pass the GEMM's 2 n flops per element dwarf):
 * blocks of 8 rows, within a block the 8 rows' pairs of k side by side, so
 * the kernel broadcasts them from one pointer at constant offsets. The fp32
 * form rounds to bf16 (nearest even) on the way. OpenMP-parallel. */
size_t linear_bf16_packed_a_elems(size_t m, size_t k);
void linear_bf16_pack_a(const uint16_t *a, size_t m, size_t k, size_t lda, uint16_t *dst);
void linear_bf16_pack_a_f32(const float *a, size_t m, size_t k, size_t lda, uint16_t *dst);

/* c[t][o] = beta c[t][o] + sum_i a[t][i] w[o][i] for t < m, o < n: ap from
 * linear_bf16_pack_a(_f32), wp from linear_bf16_pack, c with row stride
 * ldc. beta: 0 (c is only written) or 1. Opens its own OpenMP team; call it
 * only where linear_bf16_supported(), outside a parallel region. */
void linear_bf16(size_t m, size_t n, size_t k, const uint16_t *ap, const uint16_t *wp, float beta, float *c,
                 size_t ldc);

/* Several GEMMs of one input (Q, K and V of the normed activations; gate
 * and up): one OpenMP team and one even split of all their tiles, so the
 * small ones (K, V) neither pay a fork and join each nor leave a thread idle. */
typedef struct linear_bf16_out {
    size_t n;
    const uint16_t *wp;
    float beta;
    float *c;
    size_t ldc;
} linear_bf16_out;
void linear_bf16_multi(size_t m, size_t k, const uint16_t *ap, const linear_bf16_out *outs, size_t n_outs);

/* AMX tiles (linear_bf16_amx.c): where the CPU has them and Linux grants the
 * tile state (common/isa.h), the GEMMs whose k is a multiple of 32 run on
 * tdpbf16ps instead, and their a is packed row-major for it; the others,
 * and every GEMM elsewhere, on vdpbf16ps. The choice is the process's, made
 * once (the best the CPU has) unless set: linear_bf16_set_amx(0) keeps to
 * vdpbf16ps, (1) asks for AMX and returns -1 where it is unusable. Set it
 * only between GEMMs (a packed a belongs to the choice it was packed under).
 * linear_bf16_amx_on(k): whether a GEMM of this k runs on AMX. */
int linear_bf16_set_amx(int use);
int linear_bf16_amx_on(size_t k);

/* Whether this CPU has the tiles and Linux grants them (common/isa.h). */
int linear_bf16_amx_supported(void);

/* The AMX form itself, for linear_bf16.c. */
int linear_bf16_amx_takes(size_t k);
size_t linear_bf16_amx_packed_a_elems(size_t m, size_t k);
void linear_bf16_amx_pack_a(const uint16_t *a, size_t m, size_t k, size_t lda, uint16_t *dst);
void linear_bf16_amx_pack_a_f32(const float *a, size_t m, size_t k, size_t lda, uint16_t *dst);
void linear_bf16_amx_multi(size_t m, size_t k, const uint16_t *ap, const linear_bf16_out *outs, size_t n_outs);

#endif
