/* Peak fp32 FMA throughput and copy bandwidth of this CPU, measured.
 *
 * FMA: every thread runs a loop of independent FMAs on accumulators that
 * live in registers, never touching memory. One FMA chain is bound by the
 * FMA latency (4-5 cycles) while the core can start two per cycle, so each
 * kernel keeps more independent chains than latency x pipes (>= 10) to reach
 * throughput. The kernels are compiled per ISA with target attributes and
 * chosen at run time (the core is built for the baseline x86-64).
 *
 * Copy: every thread copies its own slice of a buffer much larger than the
 * last-level cache into another with streaming (non-temporal) stores, as a
 * good bandwidth-bound kernel does; glibc's memcpy streams only above a
 * threshold from the reported L3, which some VMs report huge, and without
 * streaming every destination line is also read for ownership. Both
 * buffers are first touched by the thread that copies them (page placement),
 * and bytes read + bytes written are counted, as components count cost. */
#include "backend/cpu_peaks.h"

#include "common/stream_copy.h"
#include "util/stats.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define HAVE_X86 1
#endif

/* Keeps the accumulators' results alive so the loops are not optimised away. */
static volatile float sink;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* a * x + b with a just below 1: the accumulators converge to b / (1 - a)
 * and never overflow or go subnormal, whatever the iteration count. */
#define FMA_A 0.999999f
#define FMA_B 1e-7f

#ifdef HAVE_X86
/* 16 chains of 16 lanes: 512 flops per iteration, 32 zmm registers hold them. */
#define AVX512_CHAINS 16
__attribute__((target("avx512f"))) static float fma_avx512(long iters)
{
    __m512 acc[AVX512_CHAINS];
    const __m512 a = _mm512_set1_ps(FMA_A), b = _mm512_set1_ps(FMA_B);
#pragma GCC unroll 16
    for (int j = 0; j < AVX512_CHAINS; j++)
        acc[j] = _mm512_set1_ps((float)j);
    for (long i = 0; i < iters; i++) {
#pragma GCC unroll 16
        for (int j = 0; j < AVX512_CHAINS; j++)
            acc[j] = _mm512_fmadd_ps(acc[j], a, b);
    }
    __m512 s = acc[0];
#pragma GCC unroll 16
    for (int j = 1; j < AVX512_CHAINS; j++)
        s = _mm512_add_ps(s, acc[j]);
    return _mm512_reduce_add_ps(s);
}

/* 12 chains of 8 lanes: 12 + the two constants fit the 16 ymm registers. */
#define AVX2_CHAINS 12
__attribute__((target("avx2,fma"))) static float fma_avx2(long iters)
{
    __m256 acc[AVX2_CHAINS];
    const __m256 a = _mm256_set1_ps(FMA_A), b = _mm256_set1_ps(FMA_B);
#pragma GCC unroll 12
    for (int j = 0; j < AVX2_CHAINS; j++)
        acc[j] = _mm256_set1_ps((float)j);
    for (long i = 0; i < iters; i++) {
#pragma GCC unroll 12
        for (int j = 0; j < AVX2_CHAINS; j++)
            acc[j] = _mm256_fmadd_ps(acc[j], a, b);
    }
    __m256 s = acc[0];
#pragma GCC unroll 12
    for (int j = 1; j < AVX2_CHAINS; j++)
        s = _mm256_add_ps(s, acc[j]);
    float out[8];
    _mm256_storeu_ps(out, s);
    return out[0] + out[1] + out[2] + out[3] + out[4] + out[5] + out[6] + out[7];
}
#endif

/* Anything else: multiply-adds on 8 scalar chains (no FMA instruction is
 * assumed, so this is a floor rather than the CPU's peak). */
#define SCALAR_CHAINS 8
static float fma_scalar(long iters)
{
    float acc[SCALAR_CHAINS];
    for (int j = 0; j < SCALAR_CHAINS; j++)
        acc[j] = (float)j;
    for (long i = 0; i < iters; i++) {
#pragma GCC unroll 8
        for (int j = 0; j < SCALAR_CHAINS; j++)
            acc[j] = acc[j] * FMA_A + FMA_B;
    }
    float s = 0;
    for (int j = 0; j < SCALAR_CHAINS; j++)
        s += acc[j];
    return s;
}

typedef struct fma_kernel {
    const char *isa;
    float (*run)(long iters);
    double flops_per_iter;         /* chains x lanes x 2 */
} fma_kernel;

/* The widest FMA this CPU has, or AVX2 where HARNESS_CPU_ISA=avx2 forces
 * the components' AVX2 kernels (and the CPU has it): the roofline of such a
 * run is the AVX2 peak, which a CPU's AVX-512 units need not match. */
static fma_kernel pick_kernel(void)
{
#ifdef HAVE_X86
    const char *forced = getenv("HARNESS_CPU_ISA");
    int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    /* __builtin_cpu_supports also checks that the OS saves the wide registers. */
    if (__builtin_cpu_supports("avx512f") && !(avx2 && forced && strcmp(forced, "avx2") == 0))
        return (fma_kernel){"avx512", fma_avx512, AVX512_CHAINS * 16 * 2};
    if (avx2)
        return (fma_kernel){"avx2", fma_avx2, AVX2_CHAINS * 8 * 2};
#endif
    return (fma_kernel){"scalar", fma_scalar, SCALAR_CHAINS * 2};
}

/* Seconds for every thread to run `iters` iterations, from a common start. */
static double fma_timed(const fma_kernel *k, int threads, long iters)
{
    double t0 = 0, t1 = 0;
#pragma omp parallel num_threads(threads)
    {
#pragma omp barrier
#pragma omp master
        t0 = now_s();
        float r = k->run(iters);
#pragma omp barrier
#pragma omp master
        t1 = now_s();
        if (r == 12345.0f)         /* never true; stops the call being dropped */
            sink = r;
    }
    return t1 - t0;
}

/* The spread of the repetitions' rates (0 unusable), sorting them: the
 * machine file records it so that runs know how steady the peak was. */
static harness_rep_spread spread_of(double *rates, int n)
{
    harness_rep_spread s = {0, 0, 0};
    if (n < 1)
        return s;
    s.median = harness_median(rates, (size_t)n);  /* sorts */
    s.min = rates[0];
    s.max = rates[n - 1];
    return s;
}

double harness_cpu_fma_peak(int threads, double seconds_per_rep, int reps, const char **isa)
{
    return harness_cpu_fma_peak_spread(threads, seconds_per_rep, reps, isa, NULL);
}

double harness_cpu_fma_peak_spread(int threads, double seconds_per_rep, int reps, const char **isa,
                                   harness_rep_spread *spread)
{
    fma_kernel k = pick_kernel();
    if (isa)
        *isa = k.isa;
    /* Size the loop from a short trial (which also wakes the cores and the
     * OpenMP pool) so each repetition takes about seconds_per_rep. */
    long iters = 1 << 16;
    double t = fma_timed(&k, threads, iters);
    while (t < 0.01 && iters < (1L << 40)) {
        iters *= 4;
        t = fma_timed(&k, threads, iters);
    }
    iters = (long)((double)iters * seconds_per_rep / (t > 0 ? t : 1e-3)) + 1;
    double best = 0, rates[HARNESS_CPU_PEAKS_MAX_REPS];
    int n = 0;
    for (int r = 0; r < reps; r++) {
        t = fma_timed(&k, threads, iters);
        double rate = t > 0 ? (double)threads * (double)iters * k.flops_per_iter / t : 0;
        if (rate > best)
            best = rate;
        if (n < HARNESS_CPU_PEAKS_MAX_REPS)
            rates[n++] = rate;
    }
    if (spread)
        *spread = spread_of(rates, n);
    return best;
}

double harness_cpu_copy_peak(int threads, size_t buffer_bytes, int reps)
{
    return harness_cpu_copy_peak_spread(threads, buffer_bytes, reps, NULL);
}

double harness_cpu_copy_peak_spread(int threads, size_t buffer_bytes, int reps, harness_rep_spread *spread)
{
    char *src = NULL, *dst = NULL;
    if (posix_memalign((void **)&src, 1 << 21, buffer_bytes) != 0 ||
        posix_memalign((void **)&dst, 1 << 21, buffer_bytes) != 0) {
        free(src);
        return -1;
    }
#ifdef MADV_HUGEPAGE
    /* Fewer TLB misses, fewer faults at first touch; advice only. */
    madvise(src, buffer_bytes, MADV_HUGEPAGE);
    madvise(dst, buffer_bytes, MADV_HUGEPAGE);
#endif
    /* Each thread's slice, cache-line aligned; the last takes the rest. */
    size_t slice = buffer_bytes / (size_t)threads & ~(size_t)63;
    double best = 0, rates[HARNESS_CPU_PEAKS_MAX_REPS];
    int n = 0;
#pragma omp parallel num_threads(threads)
    {
        int me = omp_get_thread_num();
        size_t off = (size_t)me * slice;
        size_t len = me == threads - 1 ? buffer_bytes - off : slice;
        memset(src + off, me + 1, len);
        memset(dst + off, 0, len);
        /* Repetition 0 warms up (TLB, the pool) and is not counted. */
        for (int r = 0; r <= reps; r++) {
            double t0 = 0;
#pragma omp barrier
#pragma omp master
            t0 = now_s();
            stream_copy(dst + off, src + off, len);
#pragma omp barrier
#pragma omp master
            {
                double t = now_s() - t0;
                double rate = t > 0 ? 2.0 * (double)buffer_bytes / t : 0;
                if (r > 0 && rate > best)
                    best = rate;
                if (r > 0 && n < HARNESS_CPU_PEAKS_MAX_REPS)
                    rates[n++] = rate;
            }
        }
    }
    sink = (float)dst[buffer_bytes - 1];
    free(src);
    free(dst);
    if (spread)
        *spread = spread_of(rates, n);
    return best;
}

int harness_cpu_peaks_measure(const harness_cpu_peaks_opts *opts, harness_cpu_peaks *out)
{
    memset(out, 0, sizeof *out);
    out->threads = opts->threads > 0 ? opts->threads : omp_get_max_threads();
    /* Quick: about 0.3 s in all; full: about 2 s, for steadier figures.
     * 64 MiB is still twice a large L3 slice; 256 MiB is beyond any. */
    out->flops_reps = opts->quick ? 5 : 7;
    out->flops_per_s = harness_cpu_fma_peak_spread(out->threads, opts->quick ? 0.03 : 0.2, out->flops_reps,
                                                   &out->flops_isa, &out->flops_spread);
    out->copy_buffer_bytes = (size_t)(opts->quick ? 64 : 256) << 20;
    out->copy_reps = opts->quick ? 5 : 15;
    out->bytes_per_s = harness_cpu_copy_peak_spread(out->threads, out->copy_buffer_bytes, out->copy_reps,
                                                    &out->bytes_spread);
    out->bf16_dot_flops_per_s = harness_cpu_bf16_dot_peak(out->threads, opts->quick ? 0.03 : 0.2, out->flops_reps);
    out->has_amx_bf16 = harness_cpu_has_amx_bf16();
    out->amx_permitted = out->has_amx_bf16 && harness_cpu_amx_permission() == 0;
    if (out->amx_permitted)
        out->amx_bf16_flops_per_s = harness_cpu_amx_bf16_peak(out->threads, opts->quick ? 0.03 : 0.2,
                                                              out->flops_reps);
    return out->bytes_per_s > 0 ? 0 : -1;
}
