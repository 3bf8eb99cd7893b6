/* The bf16 peaks of this CPU, measured as the fp32 FMA peak is
 * (cpu_peaks.c): register-resident loops, every thread at once.
 *
 * AVX-512 BF16 dot (vdpbf16ps): each instruction adds, in each of 16 fp32
 * lanes, the products of two bf16 pairs: 32 multiply-adds, 64 flops. 24
 * independent accumulators cover its latency times its issue rate on any
 * core we know of, and fit the 32 zmm registers with the two sources.
 *
 * AMX (tdpbf16ps): one instruction multiplies a 16 x 32 bf16 tile by a
 * 32 x 16 one (pairs packed as for vdpbf16ps) into a 16 x 16 fp32 tile:
 * 16 x 16 x 32 multiply-adds, 16384 flops. Four accumulator tiles fed by two
 * A and two B tiles (tmm0-3 += tmm4/5 x tmm6/7) keep the unit fed without
 * memory; the dependency chain of one accumulator is four instructions long.
 * Linux hands out the tile data state only on request (arch_prctl
 * ARCH_REQ_XCOMP_PERM for XFEATURE_XTILEDATA, feature 18; without it the
 * first tile instruction faults), so the peak is measured only where cpuid
 * says amx-tile and amx-bf16 and the kernel grants the request. Written from
 * Intel's ISA reference (the tile configuration's 64-byte layout: palette,
 * then bytes per row of each tile at 16 + 2i, rows at 48 + i); this
 * project's Zen 4 development machine has no AMX, so this loop has not run
 * there: `harness calibrate` says so in its output. */
#include "backend/cpu_peaks.h"

#include <omp.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>
#define HAVE_X86_64 1
#endif

static volatile float sink;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef float (*peak_loop)(long iters);

/* Seconds for every thread to run `iters` iterations of `run` from a common
 * start; `prepare` (may be NULL) runs first on each thread, untimed, and
 * must succeed on all of them (else -1). */
static double timed(peak_loop run, int (*prepare)(void), int threads, long iters)
{
    double t0 = 0, t1 = 0;
    int failed = 0;
#pragma omp parallel num_threads(threads) reduction(| : failed)
    {
        failed = prepare && prepare() != 0;
#pragma omp barrier
#pragma omp master
        t0 = now_s();
        float r = failed ? 0.0f : run(iters);
#pragma omp barrier
#pragma omp master
        t1 = now_s();
        if (r == 12345.0f)         /* never true; keeps the call */
            sink = r;
    }
    return failed ? -1 : t1 - t0;
}

/* Best rate over reps of about seconds_per_rep each; 0 when `prepare` fails. */
static double best_rate(peak_loop run, int (*prepare)(void), double flops_per_iter, int threads,
                        double seconds_per_rep, int reps)
{
    long iters = 1 << 12;
    double t = timed(run, prepare, threads, iters);
    while (t >= 0 && t < 0.01 && iters < (1L << 40)) {
        iters *= 4;
        t = timed(run, prepare, threads, iters);
    }
    if (t < 0)
        return 0;
    iters = (long)((double)iters * seconds_per_rep / (t > 0 ? t : 1e-3)) + 1;
    double best = 0;
    for (int r = 0; r < reps; r++) {
        t = timed(run, prepare, threads, iters);
        double rate = t > 0 ? (double)threads * (double)iters * flops_per_iter / t : 0;
        if (rate > best)
            best = rate;
    }
    return best;
}

#ifdef HAVE_X86_64
#define DOT_CHAINS 24
/* Pairs of 2^-20: each instruction adds 2^-39 to a lane, so the sums stay
 * normal and far from overflow however long the loop runs. */
__attribute__((target("avx512f,avx512bw,avx512bf16"))) static float dot_bf16_loop(long iters)
{
    __m512 acc[DOT_CHAINS];
    const __m512bh a = (__m512bh)_mm512_set1_epi16(0x3580), b = (__m512bh)_mm512_set1_epi16(0x3580);
#pragma GCC unroll 24
    for (int j = 0; j < DOT_CHAINS; j++)
        acc[j] = _mm512_set1_ps((float)j);
    for (long i = 0; i < iters; i++) {
#pragma GCC unroll 24
        for (int j = 0; j < DOT_CHAINS; j++)
            acc[j] = _mm512_dpbf16_ps(acc[j], a, b);
    }
    __m512 s = acc[0];
#pragma GCC unroll 24
    for (int j = 1; j < DOT_CHAINS; j++)
        s = _mm512_add_ps(s, acc[j]);
    return _mm512_reduce_add_ps(s);
}

int harness_cpu_has_avx512_bf16(void)
{
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bf16");
}

/* CPUID leaf 7, subleaf 0, EDX: bit 22 AMX-BF16, bit 24 AMX-TILE. */
int harness_cpu_has_amx_bf16(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return 0;
    return (d >> 22 & 1) && (d >> 24 & 1);
}

#define ARCH_REQ_XCOMP_PERM 0x1023
#define XFEATURE_XTILEDATA 18

int harness_cpu_amx_permission(void)
{
    if (!harness_cpu_has_amx_bf16())
        return -1;
    return syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) == 0 ? 0 : -1;
}

/* Palette 1: tmm0-7 all 16 rows of 64 bytes (16 x 16 fp32 or 16 x 32 bf16). */
__attribute__((target("amx-tile"))) static int amx_configure(void)
{
    unsigned char cfg[64];
    memset(cfg, 0, sizeof cfg);
    cfg[0] = 1;                    /* palette */
    for (int i = 0; i < 8; i++) {
        uint16_t colsb = 64;
        memcpy(cfg + 16 + 2 * i, &colsb, sizeof colsb);
        cfg[48 + i] = 16;
    }
    _tile_loadconfig(cfg);
    return 0;
}

/* Each thread asks (the permission is per process, asking again is free)
 * and configures its own tiles. */
static int amx_prepare(void)
{
    if (harness_cpu_amx_permission() != 0)
        return -1;
    return amx_configure();
}

/* The sources: bf16 pairs of 2^-20, as for the dot loop. */
__attribute__((target("amx-tile,amx-bf16"))) static float amx_bf16_loop(long iters)
{
    uint16_t ones[16 * 32] __attribute__((aligned(64)));
    for (int i = 0; i < 16 * 32; i++)
        ones[i] = 0x3580;
    float out[16 * 16] __attribute__((aligned(64)));
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
    _tile_loadd(4, ones, 64);
    _tile_loadd(5, ones, 64);
    _tile_loadd(6, ones, 64);
    _tile_loadd(7, ones, 64);
    for (long i = 0; i < iters; i++) {
        _tile_dpbf16ps(0, 4, 6);
        _tile_dpbf16ps(1, 4, 7);
        _tile_dpbf16ps(2, 5, 6);
        _tile_dpbf16ps(3, 5, 7);
    }
    _tile_stored(0, out, 64);
    _tile_release();
    return out[0];
}
#else
int harness_cpu_has_avx512_bf16(void)
{
    return 0;
}

int harness_cpu_has_amx_bf16(void)
{
    return 0;
}

int harness_cpu_amx_permission(void)
{
    return -1;
}
#endif

double harness_cpu_bf16_dot_peak(int threads, double seconds_per_rep, int reps)
{
#ifdef HAVE_X86_64
    if (harness_cpu_has_avx512_bf16())
        return best_rate(dot_bf16_loop, NULL, DOT_CHAINS * 64.0, threads, seconds_per_rep, reps);
#else
    (void)threads, (void)seconds_per_rep, (void)reps;
#endif
    return 0;
}

double harness_cpu_amx_bf16_peak(int threads, double seconds_per_rep, int reps)
{
#ifdef HAVE_X86_64
    if (harness_cpu_has_amx_bf16() && harness_cpu_amx_permission() == 0)
        return best_rate(amx_bf16_loop, amx_prepare, 4 * 16384.0, threads, seconds_per_rep, reps);
#else
    (void)threads, (void)seconds_per_rep, (void)reps;
#endif
    return 0;
}
