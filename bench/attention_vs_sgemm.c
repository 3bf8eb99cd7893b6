/* attention_vs_sgemm.c - how close the CPU attention kernels come to this
 * machine's OpenBLAS sgemm rate. One process; each round measures sgemm and
 * every attention shape once, so that frequency changes and noisy neighbours
 * hit all of them alike; the figure per shape is the median over rounds.
 *
 *   attention_vs_sgemm [ROUNDS [ISA [DTYPE]]]   default: 5, the best ISA, fp32
 *
 * sgemm: C = A B at 2048^3 (the reference rate) and (S x D) x (D x S), the
 * shape of one head's Q K^T at S = 2048, D = 128. Attention: batch 1, 8
 * heads, S = 512, 1024, 2048, D = 64, 128, causal and not; FLOPs as the
 * harness counts them (attention_flops). Each rate is also given as a
 * fraction of this machine's fp32 FMA peak, measured in the same process
 * with the harness's own calibration loop (backend/cpu_peaks.h): sgemm's
 * rate depends on OpenBLAS's kernel choice, the peak does not. A figure,
 * never a pass/fail. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                /* clock_gettime, nanosleep */
#endif

#include "attention/attention.h"
#include "common/bf16.h"
#include "backend/cpu_peaks.h"
#include "util/cpuinfo.h"

#include <cblas.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define HEADS 8
#define CALLS 5                    /* timed calls per measurement; their median counts */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* OpenBLAS's and OpenMP's idle threads spin for a while after their work;
 * a pause lets them sleep before the other library's threads start. */
static void settle(void)
{
    struct timespec ts = {0, 200 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void *alloc_or_die(size_t bytes)
{
    void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p) {
        fprintf(stderr, "attention_vs_sgemm: cannot allocate %zu bytes\n", bytes);
        exit(1);
    }
    return p;
}

static uint32_t rng = 1;

static float uniform(void)
{
    rng = rng * 1664525u + 1013904223u;
    return (float)(rng >> 8) / (float)(1u << 23) - 1.0f;
}

static void fill(void *p, size_t n, int bf16)
{
    for (size_t i = 0; i < n; i++)
        if (bf16)
            ((uint16_t *)p)[i] = f32_to_bf16(uniform());
        else
            ((float *)p)[i] = uniform();
}

/* ---- sgemm -------------------------------------------------------------- */

typedef struct gemm {
    const char *name;
    int m, n, k;
    float *a, *b, *c;
} gemm;

static double gemm_gflops(const gemm *g)
{
    double t[CALLS];
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, g->m, g->n, g->k, 1.0f, g->a, g->k, g->b, g->n,
                0.0f, g->c, g->n);                                      /* warm up */
    for (int r = 0; r < CALLS; r++) {
        double t0 = now_s();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, g->m, g->n, g->k, 1.0f, g->a, g->k, g->b,
                    g->n, 0.0f, g->c, g->n);
        t[r] = now_s() - t0;
    }
    return 2.0 * g->m * g->n * g->k / median(t, CALLS) * 1e-9;
}

/* ---- attention ---------------------------------------------------------- */

typedef struct shape_run {
    attention_shape s;
    void *q, *k, *v, *o, *ws;
} shape_run;

static double attention_gflops(const shape_run *r, int bf16)
{
    double t[CALLS];
    for (int c = -1; c < CALLS; c++) {          /* call -1 warms up */
        double t0 = now_s();
        if (bf16)
            attention_bf16(&r->s, r->q, r->k, r->v, r->o, r->ws);
        else
            attention_f32(&r->s, r->q, r->k, r->v, r->o, r->ws);
        if (c >= 0)
            t[c] = now_s() - t0;
    }
    return attention_flops(&r->s) / median(t, CALLS) * 1e-9;
}

enum { RUNS = 3 * 2 * 2 };

/* Every shape the table shows: 3 lengths x 2 head sizes x causal or not,
 * inputs filled. */
static void make_runs(shape_run runs[RUNS], int bf16)
{
    static const size_t seqs[] = {512, 1024, 2048}, dims[] = {64, 128};
    size_t elem = bf16 ? sizeof(uint16_t) : sizeof(float), nr = 0;
    for (size_t si = 0; si < 3; si++)
        for (size_t di = 0; di < 2; di++)
            for (int causal = 0; causal < 2; causal++) {
                shape_run *r = &runs[nr++];
                size_t n = seqs[si] * HEADS * dims[di];
                r->s = (attention_shape){1, HEADS, HEADS, seqs[si], seqs[si], dims[di], causal,
                                         (float)(1.0 / __builtin_sqrt((double)dims[di]))};
                r->q = alloc_or_die(n * elem);
                r->k = alloc_or_die(n * elem);
                r->v = alloc_or_die(n * elem);
                r->o = alloc_or_die(n * elem);
                r->ws = alloc_or_die(attention_workspace_bytes(&r->s, omp_get_max_threads()));
                fill(r->q, n, bf16);
                fill(r->k, n, bf16);
                fill(r->v, n, bf16);
            }
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 5;
    const char *isa = argc > 2 ? argv[2] : NULL;
    int bf16 = argc > 3 && strcmp(argv[3], "bf16") == 0;
    if (rounds < 1 || (argc > 3 && !bf16 && strcmp(argv[3], "fp32") != 0)) {
        fprintf(stderr, "usage: attention_vs_sgemm [ROUNDS [ISA [fp32|bf16]]]\n");
        return 2;
    }
    if (attention_set_isa(isa) != 0) {
        fprintf(stderr, "attention_vs_sgemm: ISA '%s' unknown or not supported here\n", isa);
        return 2;
    }

    gemm gemms[] = {{"sgemm 2048 x 2048 x 2048", 2048, 2048, 2048, NULL, NULL, NULL},
                    {"sgemm (2048 x 128) x (128 x 2048)", 2048, 2048, 128, NULL, NULL, NULL}};
    enum { GEMMS = sizeof gemms / sizeof gemms[0] };
    for (int g = 0; g < GEMMS; g++) {
        gemms[g].a = alloc_or_die((size_t)gemms[g].m * gemms[g].k * sizeof(float));
        gemms[g].b = alloc_or_die((size_t)gemms[g].k * gemms[g].n * sizeof(float));
        gemms[g].c = alloc_or_die((size_t)gemms[g].m * gemms[g].n * sizeof(float));
        fill(gemms[g].a, (size_t)gemms[g].m * gemms[g].k, 0);
        fill(gemms[g].b, (size_t)gemms[g].k * gemms[g].n, 0);
    }

    shape_run runs[RUNS];
    make_runs(runs, bf16);

    double gemm_rate[GEMMS][64], att_rate[RUNS][64];
    if (rounds > 64)
        rounds = 64;
    for (int round = 0; round < rounds; round++) {
        for (int g = 0; g < GEMMS; g++)
            gemm_rate[g][round] = gemm_gflops(&gemms[g]);
        settle();
        for (size_t r = 0; r < RUNS; r++)
            att_rate[r][round] = attention_gflops(&runs[r], bf16);
        settle();
    }

    /* The peak after the rounds, on the same warm cores. */
    const char *fma_isa = "?";
    double peak = harness_cpu_fma_peak(omp_get_max_threads(), 0.1, 5, &fma_isa) / 1e9;
    char cpu[256];
    printf("machine: %s, %ld logical CPUs; fp32 FMA peak %.1f GFLOP/s (%s, %d threads, measured now)\n",
           harness_cpuinfo_field("model name", "unknown CPU", cpu, sizeof cpu), sysconf(_SC_NPROCESSORS_ONLN), peak,
           fma_isa, omp_get_max_threads());
    printf("attention (%s, %s kernels, batch 1, %d heads) vs OpenBLAS sgemm, %d threads, median of %d rounds\n",
           bf16 ? "bf16" : "fp32", attention_isa(), HEADS, omp_get_max_threads(), rounds);
    double ref = 0;
    for (int g = 0; g < GEMMS; g++) {
        double m = median(gemm_rate[g], (size_t)rounds);
        if (g == 0)
            ref = m;
        printf("  %-36s %8.1f GFLOP/s  %5.1f%% of FMA peak\n", gemms[g].name, m, 100.0 * m / peak);
    }
    for (size_t r = 0; r < RUNS; r++) {
        char name[64];
        snprintf(name, sizeof name, "attention S=%zu D=%zu %s", runs[r].s.seq_q, runs[r].s.head_dim,
                 runs[r].s.causal ? "causal" : "full");
        double m = median(att_rate[r], (size_t)rounds);
        printf("  %-36s %8.1f GFLOP/s  %5.1f%% of FMA peak, %5.1f%% of sgemm 2048^3\n", name, m, 100.0 * m / peak,
               100.0 * m / ref);
    }
    return 0;
}
