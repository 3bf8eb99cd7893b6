/* attention_isa.c - fp32 and bf16 CPU attention on every path this CPU has,
 * as fractions of the peaks that bound them, measured in the same run:
 *   fp32 FMA peak    register-resident vfmadd on all threads (below), the
 *                    bound of fp32 and of bf16 widened to fp32; the harness's
 *                    calibration loop (backend/cpu_peaks.h) is printed next to
 *                    it: it times the wall clock, so on the shared Zen 4 this
 *                    was written on (load 6-9 on 2 cores) it read 15-80
 *                    GFLOP/s against ~230 on CPU time;
 *   bf16 dot peak    register-resident vdpbf16ps on all threads (below), the
 *                    bound of the avx512_bf16 path (64 FLOPs an instruction:
 *                    16 lanes x a pair of multiply-adds). AMX's tile peak is
 *                    not probed here (harness calibrate's job).
 *
 *   attention_isa [ROUNDS]        default 7
 *
 * Shapes: 1 x 16 heads x 1024 x 64, full, and 1 x 8 heads x 1024 x 128,
 * causal (batch x heads x seq x head_dim), FLOPs as the harness counts them
 * (attention_flops). Each round measures both peaks and then every (shape,
 * path) once, in an order rotated by one each round, so that drifting load
 * from the machine's other users hits all of them alike. Per (shape, path):
 * min / median / max over the rounds of GFLOP/s (each the best of CALLS
 * timed calls), and each path's speed-up over fp32 paired within a round.
 *
 * On a shared machine the wall clock also counts the time other processes
 * hold our cores, so fractions of the peak are taken on CPU time: the peaks
 * from each thread's CPU time (a core's rate while it runs us), the
 * attention calls from the process's CPU time over the threads (which also
 * counts OpenMP's spinning at the end of a call: a conservative figure). On a
 * quiet machine both clocks agree. A figure, never a pass/fail. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "attention/attention.h"
#include "backend/cpu_peaks.h"
#include "common/bf16.h"
#include "util/cpuinfo.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CALLS 5
#define MAX_ROUNDS 64

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double now_s(void)
{
    return clock_s(CLOCK_MONOTONIC);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts v. */
static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ---- the bf16 dot peak ----------------------------------------------------- */

#if defined(__x86_64__)
/* 12 independent accumulator chains per thread, enough to cover vdpbf16ps's
 * latency at one or two a cycle; the operands stay in registers. */
__attribute__((target("avx512f,avx512bw,avx512bf16"))) static float dot_loop(long iters)
{
    __m512 acc[12];
    for (int i = 0; i < 12; i++)
        acc[i] = _mm512_set1_ps((float)i * 1e-3f);
    __m512bh a = _mm512_cvtne2ps_pbh(_mm512_set1_ps(1e-3f), _mm512_set1_ps(-1e-3f));
    __m512bh b = _mm512_cvtne2ps_pbh(_mm512_set1_ps(0.5f), _mm512_set1_ps(0.25f));
    for (long n = 0; n < iters; n++) {
        __asm__("" : "+v"(a), "+v"(b));    /* no hoisting the products out of the loop */
#pragma GCC unroll 12
        for (int i = 0; i < 12; i++)
            acc[i] = _mm512_dpbf16_ps(acc[i], a, b);
    }
    __m512 s = acc[0];
    for (int i = 1; i < 12; i++)
        s = _mm512_add_ps(s, acc[i]);
    return _mm512_reduce_add_ps(s);
}

/* The same loop with fp32 FMAs: 16 lanes x 2 FLOPs an instruction. */
__attribute__((target("avx512f"))) static float fma_loop(long iters)
{
    __m512 acc[12];
    for (int i = 0; i < 12; i++)
        acc[i] = _mm512_set1_ps((float)i * 1e-3f);
    __m512 a = _mm512_set1_ps(1e-3f), b = _mm512_set1_ps(0.5f);
    for (long n = 0; n < iters; n++) {
        __asm__("" : "+v"(a), "+v"(b));
#pragma GCC unroll 12
        for (int i = 0; i < 12; i++)
            acc[i] = _mm512_fmadd_ps(a, b, acc[i]);
    }
    __m512 s = acc[0];
    for (int i = 1; i < 12; i++)
        s = _mm512_add_ps(s, acc[i]);
    return _mm512_reduce_add_ps(s);
}

static volatile float sink;

/* GFLOP/s of loop (flops per iteration) on all threads, each thread's on
 * its own CPU time, the best of reps. */
static double probe(float (*loop)(long), double flops, double seconds, int reps)
{
    long iters = 1 << 14;
    double best = 0.0;
    for (;;) {
        double t0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
        sink = loop(iters);
        double t = clock_s(CLOCK_THREAD_CPUTIME_ID) - t0;
        if (t > 0.005)
            break;
        iters *= 4;
    }
    (void)seconds;
    for (int r = 0; r < reps; r++) {
        double sum = 0.0;
#pragma omp parallel reduction(+ : sum)
        {
            double t0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
            sink = loop(iters);
            sum += (double)iters * flops / (clock_s(CLOCK_THREAD_CPUTIME_ID) - t0) / 1e9;
        }
        if (sum > best)
            best = sum;
    }
    return best;
}

static double fma_peak(double seconds, int reps)
{
    if (!__builtin_cpu_supports("avx512f"))
        return harness_cpu_fma_peak(omp_get_max_threads(), seconds, reps, NULL) / 1e9;
    return probe(fma_loop, 12 * 32, seconds, reps);
}

/* GFLOP/s of dot_loop on all threads, the best of reps, or 0 without
 * AVX-512 BF16. */
static double bf16_dot_peak(double seconds, int reps)
{
    if (!(__builtin_cpu_supports("avx512bf16") && __builtin_cpu_supports("avx512bw")))
        return 0.0;
    return probe(dot_loop, 12 * 64, seconds, reps);
}
#else
static double fma_peak(double seconds, int reps)
{
    return harness_cpu_fma_peak(omp_get_max_threads(), seconds, reps, NULL) / 1e9;
}

static double bf16_dot_peak(double seconds, int reps)
{
    (void)seconds, (void)reps;
    return 0.0;
}
#endif

/* ---- attention --------------------------------------------------------------- */

typedef struct shape_case {
    const char *name;
    attention_shape s;
    float *q32, *k32, *v32, *o32;
    uint16_t *q16, *k16, *v16, *o16;
    void *ws;
} shape_case;

typedef struct path {
    const char *isa;               /* forced with attention_set_isa */
    int bf16;
    const char *label;
} path;

static void fill(shape_case *c)
{
    const attention_shape *s = &c->s;
    size_t nq = s->batch * s->seq_q * s->heads * s->head_dim, nkv = s->batch * s->seq_k * s->kv_heads * s->head_dim;
    c->q32 = malloc(nq * 4), c->o32 = malloc(nq * 4), c->k32 = malloc(nkv * 4), c->v32 = malloc(nkv * 4);
    c->q16 = malloc(nq * 2), c->o16 = malloc(nq * 2), c->k16 = malloc(nkv * 2), c->v16 = malloc(nkv * 2);
    if (!c->q32 || !c->o32 || !c->k32 || !c->v32 || !c->q16 || !c->o16 || !c->k16 || !c->v16 ||
        posix_memalign(&c->ws, 64, attention_workspace_bytes(s, omp_get_max_threads())) != 0) {
        fprintf(stderr, "attention_isa: out of memory\n");
        exit(1);
    }
    unsigned r = 12345;
    for (size_t i = 0; i < nq; i++) {
        r = r * 1664525u + 1013904223u;
        c->q32[i] = (float)(r >> 8) / (float)(1u << 24) * 2.0f - 1.0f;
        c->q16[i] = f32_to_bf16(c->q32[i]);
    }
    for (size_t i = 0; i < nkv; i++) {
        r = r * 1664525u + 1013904223u;
        c->k32[i] = (float)(r >> 8) / (float)(1u << 24) * 2.0f - 1.0f;
        c->k16[i] = f32_to_bf16(c->k32[i]);
        r = r * 1664525u + 1013904223u;
        c->v32[i] = (float)(r >> 8) / (float)(1u << 24) * 2.0f - 1.0f;
        c->v16[i] = f32_to_bf16(c->v32[i]);
    }
}

static void call(shape_case *c, int bf16)
{
    if (bf16)
        attention_bf16(&c->s, c->q16, c->k16, c->v16, c->o16, c->ws);
    else
        attention_f32(&c->s, c->q32, c->k32, c->v32, c->o32, c->ws);
}

/* GFLOP/s of one (shape, path), a warm call then the best of CALLS: on the
 * wall clock, and on CPU time per thread (*cpu_rate). */
static double measure(shape_case *c, const path *p, double *cpu_rate)
{
    if (attention_set_isa(p->isa) != 0)
        return *cpu_rate = 0.0;
    double wall = 1e30, cpu = 1e30;
    call(c, p->bf16);
    for (int i = 0; i < CALLS; i++) {
        double t0 = now_s(), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
        call(c, p->bf16);
        double t = now_s() - t0, ct = (clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0) / omp_get_max_threads();
        wall = t < wall ? t : wall;
        cpu = ct < cpu ? ct : cpu;
    }
    *cpu_rate = attention_flops(&c->s) / cpu / 1e9;
    return attention_flops(&c->s) / wall / 1e9;
}

/* The measurements of every round, and the peaks measured beside them. */
enum { N_SHAPES = 2, N_PATHS = 6 };   /* main's tables, checked there */
static double rate[N_SHAPES][N_PATHS][MAX_ROUNDS], crate[N_SHAPES][N_PATHS][MAX_ROUNDS], fpk[MAX_ROUNDS], bpk[MAX_ROUNDS], hpk[MAX_ROUNDS];

/* The paths this CPU runs, in table order; a skipped one said so. */
static int runnable_paths(const path *all, int n_all, path *paths)
{
    int np = 0;
    for (int i = 0; i < n_all; i++)
        if (attention_set_isa(all[i].isa) == 0)
            paths[np++] = all[i];
        else
            printf("skipped: %s (this CPU lacks %s)\n", all[i].label, all[i].isa);
    attention_set_isa(NULL);
    return np;
}

/* One line per shape and path: rates over rounds, the fraction of the
 * matching peak, and the ratio to fp32 in the same round. */
static void print_table(const shape_case *shapes, int ns, const path *paths, int np, int rounds, double fp,
                        double bp)
{
    printf("\nGFLOP/s: wall clock (best of %d calls), min/median/max over rounds; cpu: on CPU time, median;\n"
           "of peak: cpu's median / the median peak (fma: fp32 FMA, dot: bf16 dot); x fp32: over fp32 in the round\n",
           CALLS);
    printf("\n%-21s %-22s %26s %7s %10s %17s\n", "shape", "path", "GFLOP/s min/median/max", "cpu", "of peak",
           "x fp32 min/med/max");
    for (int s = 0; s < ns; s++)
        for (int p = 0; p < np; p++) {
            double x[MAX_ROUNDS], ratio[MAX_ROUNDS], cx[MAX_ROUNDS];
            memcpy(x, rate[s][p], sizeof x);
            memcpy(cx, crate[s][p], sizeof cx);
            double cmed = median(cx, (size_t)rounds);
            for (int r = 0; r < rounds; r++)
                ratio[r] = rate[s][p][r] / rate[s][0][r];     /* paths[0]: fp32 on the best ISA */
            double med = median(x, (size_t)rounds);
            int dot = strcmp(paths[p].isa, "amx") == 0 || strcmp(paths[p].isa, "avx512_bf16") == 0;
            double peak = dot ? bp : fp;
            double rmed = median(ratio, (size_t)rounds);
            char frac[32];
            if (strcmp(paths[p].isa, "amx") == 0 || peak <= 0)
                snprintf(frac, sizeof frac, "-");
            else
                snprintf(frac, sizeof frac, "%.0f%% %s", 100 * cmed / peak, dot ? "dot" : "fma");
            printf("%-21s %-22s %8.1f %8.1f %8.1f %7.1f %10s  %5.2f %5.2f %5.2f\n", shapes[s].name, paths[p].label,
                   x[0], med, x[rounds - 1], cmed, frac, ratio[0], rmed, ratio[rounds - 1]);
        }
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 7;
    if (rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "usage: attention_isa [ROUNDS]   (1 .. %d, default 7)\n", MAX_ROUNDS);
        return 2;
    }
    shape_case shapes[] = {
        {"1x16x1024x64 full", {1, 16, 16, 1024, 1024, 64, 0, 0.125f}, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {"1x8x1024x128 causal", {1, 8, 8, 1024, 1024, 128, 1, 0.08838834764831845f}, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    };
    /* The fp32 path is the one the best ISA runs fp32 on; bf16 every path. */
    static const path all[] = {
        {"avx512", 0, "fp32 avx512"},
        {"avx2", 0, "fp32 avx2"},
        {"amx", 1, "bf16 amx"},
        {"avx512_bf16", 1, "bf16 avx512_bf16"},
        {"avx512", 1, "bf16 avx512 (widened)"},
        {"avx2", 1, "bf16 avx2 (widened)"},
    };
    enum { NS = sizeof shapes / sizeof shapes[0], NP = sizeof all / sizeof all[0] };
    _Static_assert((int)NS == (int)N_SHAPES && (int)NP == (int)N_PATHS, "the rate tables' sizes");
    path paths[NP];
    int np = runnable_paths(all, NP, paths);
    for (int s = 0; s < NS; s++)
        fill(&shapes[s]);

    char cpu[128];
    printf("%s, %ld CPUs, %d OpenMP threads, %d rounds of %d calls\n",
           harness_cpuinfo_field("model name", "unknown CPU", cpu, sizeof cpu), sysconf(_SC_NPROCESSORS_ONLN),
           omp_get_max_threads(), rounds, CALLS);

    const char *fma_isa = "?";
    int cells = NS * np;
    for (int r = 0; r < rounds; r++) {
        hpk[r] = harness_cpu_fma_peak(omp_get_max_threads(), 0.05, 3, &fma_isa) / 1e9;
        fpk[r] = fma_peak(0.05, 5);
        bpk[r] = bf16_dot_peak(0.05, 5);
        for (int n = 0; n < cells; n++) {
            int cell = (n + r) % cells, s = cell / np, p = cell % np;
            rate[s][p][r] = measure(&shapes[s], &paths[p], &crate[s][p][r]);
        }
        printf("round %d: peaks fp32 FMA %.0f (harness calibrate's loop %.0f), bf16 dot %.0f GFLOP/s\n", r + 1,
               fpk[r], hpk[r], bpk[r]);
        fflush(stdout);
    }
    attention_set_isa(NULL);

    double tmp[MAX_ROUNDS];
    memcpy(tmp, fpk, sizeof tmp);
    double fp = median(tmp, (size_t)rounds);
    memcpy(tmp, bpk, sizeof tmp);
    double bp = median(tmp, (size_t)rounds);
    memcpy(tmp, hpk, sizeof tmp);
    printf("\npeaks (median of rounds): fp32 FMA %.0f GFLOP/s (harness calibrate's %s loop: %.0f), "
           "bf16 dot (vdpbf16ps) %.0f GFLOP/s\n", fp, fma_isa, median(tmp, (size_t)rounds), bp);
    print_table(shapes, NS, paths, np, rounds, fp, bp);
    return 0;
}
